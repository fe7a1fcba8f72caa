#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cluster/device_binding.hpp"

namespace fhmoe::cluster {
namespace {

EnvLookup env_of(std::map<std::string, std::string> values) {
    return [values](const std::string& name) -> std::optional<std::string> {
        auto it = values.find(name);
        if (it == values.end()) return std::nullopt;
        return it->second;
    };
}

TEST(DeviceBinding, OneDeviceFromTheLauncherIsUsed) {
    auto binding = choose_device(env_of({{"CUDA_VISIBLE_DEVICES", "3"}}), 2, 1);
    EXPECT_EQ(binding.device_index, 0);
    EXPECT_EQ(binding.visible_from, "CUDA_VISIBLE_DEVICES");
    EXPECT_EQ(binding.visible_value, "3");
}

TEST(DeviceBinding, RocrVisibleDevicesWorksOnAmd) {
    auto binding = choose_device(env_of({{"ROCR_VISIBLE_DEVICES", "GPU-1234"}}), 5, 1);
    EXPECT_EQ(binding.device_index, 0);
    EXPECT_EQ(binding.visible_from, "ROCR_VISIBLE_DEVICES");
}

TEST(DeviceBinding, SeveralVisibleDevicesFallBackToLocalRankModulo) {
    auto binding = choose_device(env_of({{"CUDA_VISIBLE_DEVICES", "0,1,2,3"}}), 6, 4);
    EXPECT_EQ(binding.device_index, 2);
    EXPECT_EQ(binding.visible_value, "0,1,2,3");
}

TEST(DeviceBinding, NoVariableUsesLocalRankModuloDeviceCount) {
    auto binding = choose_device(env_of({}), 3, 2);
    EXPECT_EQ(binding.device_index, 1);
    EXPECT_EQ(binding.visible_from, "local_rank");
}

TEST(DeviceBinding, CpuBackendHasNoDeviceButKeepsTheLauncherValueForTheLog) {
    auto binding = choose_device(env_of({{"CUDA_VISIBLE_DEVICES", "2"}}), 0, 0);
    EXPECT_EQ(binding.device_index, -1);
    EXPECT_EQ(binding.visible_value, "2");
}

TEST(DeviceBinding, RemembersTheLocalRankItWasChosenFromForTheLog) {
    // Two nodes: the log line of each rank names its index on its node, which the two-node
    // Slurm test compares per host.
    EXPECT_EQ(choose_device(env_of({{"CUDA_VISIBLE_DEVICES", "1"}}), 1, 0).local_rank, 1);
    EXPECT_EQ(choose_device(env_of({}), 3, 2).local_rank, 3);
}

}  // namespace
}  // namespace fhmoe::cluster
