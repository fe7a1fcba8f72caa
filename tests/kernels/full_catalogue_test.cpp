// Whole catalogues, not samples: every candidate the family offers for a tiny shape computes
// the op correctly on the cpu backend (odd token counts, both gate modes; the catalogue spans
// both stage2 modes, persistent or not, fused or not), and no candidate offered for the
// shipped small shapes (configs/untuned_fhmoe_small.csv) is rejected as unsupported.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/fhmoe_policy.hpp"
#include "fhmoe/family/name_grammar.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/cpu_op.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/reference.hpp"

namespace fhmoe::kernels {
namespace {

using family::GateMode;

std::string describe(const family::Candidate& candidate) {
    return "bm" + std::to_string(candidate.block_m) + "|" +
           family::format_stage1_name(candidate.stage1) + "|" +
           family::format_stage2_name(candidate.stage2);
}

class TinyShapeFullCatalogue : public ::testing::TestWithParam<std::pair<int, GateMode>> {};

TEST_P(TinyShapeFullCatalogue, EveryCandidateMatchesTheReference) {
    const auto [token, gate_mode] = GetParam();
    family::ShapeKey shape;
    shape.token = token;
    shape.model_dim = 128;
    shape.inter_dim = 64;
    shape.expert = 5;
    shape.topk = 3;
    shape.shared_expert_id = 4;
    shape.gate_mode = gate_mode;
    const auto policy = family::fhmoe_tuning_policy().measurement;
    const Problem problem = generate_problem(shape, 11);
    const ReferenceOutput reference = compute_reference(problem);
    const auto catalogue = family::build_catalogue(shape);
    ASSERT_GT(catalogue.size(), 1000u);

    std::vector<std::uint16_t> out(static_cast<std::size_t>(shape.token * shape.model_dim));
    std::size_t atomic = 0, reduce = 0, persistent = 0, fused = 0;
    for (const family::Candidate& candidate : catalogue) {
        CpuFhmoeOp op(shape, candidate, CpuOpOptions{2, CpuOpFault::none});
        op.run(problem, out);
        const auto metrics =
            measure_accuracy(reference.out, out, AccuracyTolerance{policy.rtol, policy.atol});
        ASSERT_TRUE(passes_accuracy(metrics, policy.err_ratio, policy.max_cosine_distance))
            << describe(candidate) << ": mismatch " << metrics.mismatch_fraction << " cosine "
            << metrics.cosine_distance;
        atomic += candidate.stage2.mode == family::Stage2Mode::atomic;
        reduce += candidate.stage2.mode == family::Stage2Mode::reduce;
        persistent += candidate.stage2.persistent;
        fused += candidate.stage1.fused_fp8_out;
    }
    EXPECT_GT(atomic, 0u);
    EXPECT_GT(reduce, 0u);
    EXPECT_GT(persistent, 0u);
    EXPECT_GT(fused, 0u);
}

INSTANTIATE_TEST_SUITE_P(OddTokensBothGateModes, TinyShapeFullCatalogue,
                         ::testing::Values(std::pair{3, GateMode::interleave},
                                           std::pair{7, GateMode::separated}));

TEST(ShippedSmallShapes, NoOfferedCandidateIsUnsupportedByTheCpuBackend) {
    const auto table = config::read_untuned_csv(std::string(FHMOE_SOURCE_DIR) +
                                                "/configs/untuned_fhmoe_small.csv");
    ASSERT_FALSE(table.shapes.empty());
    std::size_t constructed = 0;
    for (const auto& untuned : table.shapes) {
        for (const family::Candidate& candidate : family::build_catalogue(untuned.shape)) {
            EXPECT_NO_THROW(CpuFhmoeOp(untuned.shape, candidate, CpuOpOptions{1, CpuOpFault::none}))
                << family::shape_key_string(untuned.shape) << " " << describe(candidate);
            ++constructed;
        }
    }
    EXPECT_GT(constructed, 50000u);
}

}  // namespace
}  // namespace fhmoe::kernels
