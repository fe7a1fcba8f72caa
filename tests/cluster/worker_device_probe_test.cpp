// The rank learns its device from a real fhmoe_worker process (--describe-device).

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "cluster/worker_device_probe.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::cluster {
namespace {

TEST(WorkerDeviceProbe, ParsesCountKeyAndNameWithSpaces) {
    const auto description = parse_device_description(
        "devices=2\ngfx=sm_90\ncu_num=132\nuuid=GPU-1234\nname=NVIDIA H200 (sm_90)\n");
    EXPECT_EQ(description.visible_devices, 2);
    ASSERT_TRUE(description.key.has_value());
    EXPECT_EQ(description.key->gfx, "sm_90");
    EXPECT_EQ(description.key->cu_num, 132);
    EXPECT_EQ(description.uuid, "GPU-1234");
    EXPECT_EQ(description.name, "NVIDIA H200 (sm_90)");
}

TEST(WorkerDeviceProbe, CountOnlyHasNoKey) {
    const auto description = parse_device_description("runtime banner\ndevices=4\n");
    EXPECT_EQ(description.visible_devices, 4);
    EXPECT_FALSE(description.key.has_value());
}

TEST(WorkerDeviceProbe, MalformedOutputIsAnError) {
    EXPECT_THROW(parse_device_description("gfx=sm_90\ncu_num=132\n"), Error);
    EXPECT_THROW(parse_device_description("devices=two\n"), Error);
    EXPECT_THROW(parse_device_description("devices=1\ngfx=sm_90\n"), Error);
}

TEST(WorkerDeviceProbe, RealCpuWorkerReportsTheCpuRowKey) {
    const auto description = describe_worker_device(FHMOE_WORKER_PATH, worker::BackendKind::cpu, 0);
    EXPECT_EQ(description.visible_devices, 0);
    ASSERT_TRUE(description.key.has_value());
    EXPECT_EQ(description.key->gfx, "cpu");
    EXPECT_EQ(description.key->cu_num,
              static_cast<int>(std::max(1U, std::thread::hardware_concurrency())));
}

TEST(WorkerDeviceProbe, ABackendMissingFromTheWorkerNamesItsExitCode) {
#if defined(FHMOE_GPU_BACKEND_NONE)
    try {
        describe_worker_device(FHMOE_WORKER_PATH, worker::BackendKind::gpu, std::nullopt);
        FAIL() << "expected the probe to fail";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("exit code 4"), std::string::npos) << error.what();
    }
#else
    GTEST_SKIP() << "this build has a gpu backend";
#endif
}

}  // namespace
}  // namespace fhmoe::cluster
