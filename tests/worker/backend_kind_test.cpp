#include "fhmoe/worker/backend_kind.hpp"

#include <gtest/gtest.h>

#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/worker/worker_options.hpp"

namespace fhmoe::worker {
namespace {

TEST(BackendKind, EveryNameParsesToItsKindAndBack) {
    for (const BackendKind kind : {BackendKind::cpu, BackendKind::sim, BackendKind::gpu}) {
        EXPECT_EQ(parse_backend_kind(backend_name(kind), "--backend"), kind);
    }
    EXPECT_EQ(backend_name(BackendKind::cpu), "cpu");
    EXPECT_EQ(backend_name(BackendKind::sim), "sim");
    EXPECT_EQ(backend_name(BackendKind::gpu), "gpu");
}

TEST(BackendKind, AnUnknownNameIsAnInputErrorNamingTheFlagAndTheValidNames) {
    try {
        parse_backend_kind("tpu", "--backend");
        FAIL() << "tpu parsed";
    } catch (const InputError& error) {
        EXPECT_EQ(error.field(), "--backend");
        EXPECT_EQ(error.reason(), "must be cpu, gpu or sim, not 'tpu'");
    }
    // Names are exact: no case folding, no surrounding blanks.
    EXPECT_THROW(parse_backend_kind("CPU", "--backend"), InputError);
    EXPECT_THROW(parse_backend_kind(" cpu", "--backend"), InputError);
    EXPECT_THROW(parse_backend_kind("", "--backend"), InputError);
}

TEST(BackendKind, AHugeNameIsQuotedAsAnExcerpt) {
    try {
        parse_backend_kind(std::string(1 << 20, 'x'), "--backend");
        FAIL() << "a 1 MB name parsed";
    } catch (const InputError& error) {
        EXPECT_LT(std::string(error.what()).size(), 1024U);
        EXPECT_NE(error.reason().find("(1048576 bytes)"), std::string::npos) << error.reason();
    }
}

TEST(BackendKind, TheWorkerCommandLineRejectsAnUnknownBackendNamingTheFlag) {
    EXPECT_EQ(parse_worker_options({"--backend", "sim"}).backend, BackendKind::sim);
    EXPECT_EQ(parse_worker_options({}).backend, BackendKind::cpu);
    try {
        parse_worker_options({"--backend", "tpu"});
        FAIL() << "tpu parsed";
    } catch (const InputError& error) {
        EXPECT_EQ(error.field(), "--backend");
    }
}

}  // namespace
}  // namespace fhmoe::worker
