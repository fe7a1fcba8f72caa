// The cpu backend against the reference for candidates covering every field of a
// candidate, both gate modes, and odd token counts (so blocks are partly padding).

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "kernels/kernel_test_support.hpp"

namespace fhmoe::kernels {
namespace {

using family::Candidate;
using family::GateMode;
using family::Stage2Mode;

struct NamedCandidate {
    std::string name;
    Candidate candidate;  // gate_mode is set from the shape
};

std::vector<NamedCandidate> candidates() {
    const auto make = [](int block_m, family::Stage1Config s1, family::Stage2Config s2) {
        return Candidate{block_m, s1, s2};
    };
    const auto g = GateMode::interleave;
    return {
        {"basic",
         make(32, {32, 64, 128, 1, 1, g, false}, {32, 128, 128, Stage2Mode::atomic, false})},
        {"fused",
         make(32, {32, 64, 128, 1, 1, g, true}, {32, 128, 128, Stage2Mode::atomic, false})},
        {"reduce",
         make(32, {32, 64, 128, 1, 1, g, false}, {32, 128, 128, Stage2Mode::reduce, false})},
        {"persistent",
         make(32, {32, 64, 128, 1, 1, g, false}, {32, 128, 128, Stage2Mode::atomic, true})},
        {"fused_reduce_persistent",
         make(32, {32, 64, 128, 1, 1, g, true}, {32, 128, 128, Stage2Mode::reduce, true})},
        {"waves2",
         make(32, {32, 64, 128, 2, 1, g, false}, {32, 128, 128, Stage2Mode::atomic, false})},
        {"waves4_kwaves2",
         make(32, {32, 64, 128, 4, 2, g, true}, {32, 64, 64, Stage2Mode::reduce, false})},
        {"waves1_kwaves4",
         make(32, {32, 32, 128, 1, 4, g, false}, {32, 128, 128, Stage2Mode::atomic, true})},
        {"waves2_kwaves4_tk256",
         make(32, {32, 128, 256, 2, 4, g, true}, {32, 256, 128, Stage2Mode::atomic, false})},
        {"ksplits2_kwaves2",
         make(32, {32, 64, 64, 2, 2, g, true, 2}, {32, 128, 128, Stage2Mode::atomic, false})},
        {"ksplits3_uneven",
         make(16, {16, 32, 64, 1, 1, g, false, 3}, {16, 128, 64, Stage2Mode::reduce, false})},
        {"bm16_small_tiles",
         make(16, {16, 32, 64, 1, 1, g, false}, {16, 64, 32, Stage2Mode::reduce, true})},
        {"bm64_half_stage2_tile",
         make(64, {64, 128, 256, 4, 1, g, true}, {32, 256, 128, Stage2Mode::reduce, true})},
        {"stage1_tile_below_block",
         make(32, {16, 64, 64, 2, 2, g, false}, {8, 32, 32, Stage2Mode::atomic, true})},
        {"bm128",
         make(128, {128, 128, 128, 1, 2, g, true}, {128, 128, 64, Stage2Mode::atomic, false})},
    };
}

const Problem& cached_problem(std::int64_t tokens, GateMode gate_mode) {
    static std::map<std::pair<std::int64_t, GateMode>, Problem> problems;
    auto key = std::make_pair(tokens, gate_mode);
    auto found = problems.find(key);
    if (found == problems.end()) {
        found = problems
                    .emplace(key, generate_problem(testing::small_shape(tokens, gate_mode),
                                                   1000 + static_cast<std::uint64_t>(tokens)))
                    .first;
    }
    return found->second;
}

const ReferenceOutput& cached_reference(std::int64_t tokens, GateMode gate_mode) {
    static std::map<std::pair<std::int64_t, GateMode>, ReferenceOutput> references;
    auto key = std::make_pair(tokens, gate_mode);
    auto found = references.find(key);
    if (found == references.end()) {
        found = references.emplace(key, compute_reference(cached_problem(tokens, gate_mode))).first;
    }
    return found->second;
}

using CaseParam = std::tuple<std::size_t, std::int64_t, GateMode>;

class CpuOpMatchesReference : public ::testing::TestWithParam<CaseParam> {};

TEST_P(CpuOpMatchesReference, WithinTheAccuracyBar) {
    const auto [index, tokens, gate_mode] = GetParam();
    Candidate candidate = candidates()[index].candidate;
    candidate.stage1.gate_mode = gate_mode;
    const Problem& problem = cached_problem(tokens, gate_mode);
    const ReferenceOutput& reference = cached_reference(tokens, gate_mode);

    const std::vector<std::uint16_t> out = testing::run_cpu_op(problem, candidate);
    const tuning::ErrorMetrics metrics = measure_accuracy(reference.out, out, AccuracyTolerance{});
    EXPECT_TRUE(passes_accuracy(metrics, testing::kErrRatio, kMaxCosineDistance))
        << "mismatch " << metrics.mismatch_fraction << " cosine " << metrics.cosine_distance
        << " max delta " << metrics.max_abs_delta;
    // Comfortably, not barely: the measured worst case is 0.4% mismatching, cosine 3e-4.
    EXPECT_LT(metrics.mismatch_fraction, 0.01);
    EXPECT_LT(metrics.cosine_distance, 5e-4);
    if (candidate.stage1.fused_fp8_out) {
        // Fused stage1 rounds h exactly as the reference does; only bf16 output rounding
        // (and atomic bf16 accumulation) remains.
        EXPECT_LT(metrics.cosine_distance, 2e-5);
    }
}

std::string case_name(const ::testing::TestParamInfo<CaseParam>& info) {
    const auto [index, tokens, gate_mode] = info.param;
    return candidates()[index].name + "_t" + std::to_string(tokens) +
           (gate_mode == GateMode::interleave ? "_gui" : "_gus");
}

std::vector<CaseParam> small_token_cases() {
    std::vector<CaseParam> cases;
    for (std::size_t i = 0; i < candidates().size(); ++i) {
        for (std::int64_t tokens : {1, 3, 17}) {
            for (GateMode mode : {GateMode::interleave, GateMode::separated}) {
                cases.emplace_back(i, tokens, mode);
            }
        }
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(SmallTokenCounts, CpuOpMatchesReference,
                         ::testing::ValuesIn(small_token_cases()), case_name);

// 100 tokens: several blocks per expert; a subset keeps the suite fast.
INSTANTIATE_TEST_SUITE_P(HundredTokens, CpuOpMatchesReference,
                         ::testing::Combine(::testing::Values(0u, 4u, 6u, 8u, 10u, 11u),
                                            ::testing::Values(std::int64_t{100}),
                                            ::testing::Values(GateMode::interleave,
                                                              GateMode::separated)),
                         case_name);

}  // namespace
}  // namespace fhmoe::kernels
