// The gpu op against the CPU reference (Ginkgo style: the device kernels are checked
// against the host implementation of the same op): a seeded sample of the catalogue of
// every small CI shape and of the DSV4 contract at tokens 1 and 16, with real (varied)
// scales and the family's accuracy bar. The output is poisoned with NaNs before each run, so
// an element the kernels forget to write fails the check.

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/catalogue_sample.hpp"
#include "fhmoe/family/default_config.hpp"
#include "fhmoe/family/name_grammar.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "gpu/gpu_test_environment.hpp"
#include "gpu/matrix_args.hpp"

namespace fhmoe::kernels::testing {
namespace {

constexpr std::uint64_t kSeed = 20261130;
constexpr std::size_t kCandidatesPerSmallShape = 24;
constexpr std::size_t kCandidatesPerDsv4Shape = 6;
constexpr double kErrRatio = 0.05;

struct Checked {
    family::Candidate candidate;
    tuning::ErrorMetrics metrics;
};

// Runs each candidate once on the device and measures its output against the reference.
// A candidate the device cannot run (a large token tile whose rings pass the shared memory
// limit) is left out with its reason; at most a quarter of a sample may be.
std::vector<Checked> check_candidates(const Problem& problem,
                                      const std::vector<family::Candidate>& candidates) {
    bind_test_device();
    const family::ShapeKey& shape = problem.shape;
    const ReferenceOutput reference = compute_reference(problem);
    const GpuProblem device_problem(problem, 1);
    std::vector<std::uint16_t> out(problem.x_bf16.size());
    std::vector<Checked> checked;
    for (const family::Candidate& candidate : candidates) {
        std::unique_ptr<GpuFhmoeOp> made;
        try {
            made = std::make_unique<GpuFhmoeOp>(shape, candidate);
        } catch (const UnsupportedCandidate& error) {
            EXPECT_NE(std::string(error.what()).find("shared memory"), std::string::npos)
                << error.what();
            continue;
        }
        GpuFhmoeOp& op = *made;
        op.poison_output();
        op.run(device_problem, 0);
        op.download_output(out);
        checked.push_back({candidate, measure_accuracy(reference.out, out, AccuracyTolerance{})});
    }
    EXPECT_GE(checked.size() * 4, candidates.size() * 3)
        << family::shape_key_string(shape) << ": too many sampled candidates unsupported";
    return checked;
}

std::vector<Checked> check_candidates(const family::ShapeKey& shape,
                                      const std::vector<family::Candidate>& candidates) {
    return check_candidates(generate_problem(shape, kSeed), candidates);
}

void expect_all_pass(const family::ShapeKey& shape, const std::vector<Checked>& checked) {
    for (const Checked& c : checked) {
        EXPECT_TRUE(passes_accuracy(c.metrics, kErrRatio, kMaxCosineDistance))
            << family::shape_key_string(shape) << " "
            << family::format_stage1_name(c.candidate.stage1) << " / "
            << family::format_stage2_name(c.candidate.stage2) << " block_m " << c.candidate.block_m
            << ": mismatch_fraction " << c.metrics.mismatch_fraction << ", cosine distance "
            << c.metrics.cosine_distance << ", max |delta| " << c.metrics.max_abs_delta
            << (c.metrics.catastrophic ? " (catastrophic)" : "");
    }
}

std::vector<family::ShapeKey> small_shapes() {
    std::vector<family::ShapeKey> shapes;
    const config::UntunedTable table =
        config::read_untuned_csv(source_dir() + "/configs/untuned_fhmoe_small.csv");
    for (const config::UntunedShape& row : table.shapes) shapes.push_back(row.shape);
    return shapes;
}

TEST(GpuOp, SampledCandidatesOfEverySmallShapeMatchTheReference) {
    std::set<int> waves, k_waves, tile_ms;
    std::set<bool> fused, atomic, persistent, shared_tiles;
    for (const family::ShapeKey& shape : small_shapes()) {
        SCOPED_TRACE(family::shape_key_string(shape));
        const auto candidates = family::sample_catalogue(family::build_catalogue(shape),
                                                         kCandidatesPerSmallShape, kSeed);
        const std::vector<Checked> checked = check_candidates(shape, candidates);
        expect_all_pass(shape, checked);
        for (const Checked& run : checked) {
            const family::Candidate& c = run.candidate;
            shared_tiles.insert(c.stage1.tile_m >= 64);
            waves.insert(c.stage1.waves);
            k_waves.insert(c.stage1.k_waves);
            tile_ms.insert(c.stage2.tile_m);
            fused.insert(c.stage1.fused_fp8_out);
            atomic.insert(c.stage2.mode == family::Stage2Mode::atomic);
            persistent.insert(c.stage2.persistent);
        }
    }
    // The sample exercises every kernel variant, or a pass here would prove less than it says.
    EXPECT_EQ(waves.size(), family::kStage1WavesAxis.size());
    EXPECT_EQ(k_waves.size(), family::kStage1KWavesAxis.size());
    EXPECT_GE(tile_ms.size(), 2U);
    EXPECT_EQ(fused.size(), 2U);
    EXPECT_EQ(atomic.size(), 2U);
    EXPECT_EQ(persistent.size(), 2U);
    EXPECT_EQ(shared_tiles.size(), 2U);  // both the small and the large token tiles' kernels
}

class GpuOpDsv4 : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(GpuOpDsv4, DefaultAndSampledCandidatesMatchTheReference) {
    const family::ShapeKey shape = family::dsv4_i384_shape(GetParam());
    const auto candidates = family::sample_shape_catalogue(shape, kCandidatesPerDsv4Shape, kSeed);
    ASSERT_EQ(candidates.size(), kCandidatesPerDsv4Shape);
    expect_all_pass(shape, check_candidates(shape, candidates));
}

INSTANTIATE_TEST_SUITE_P(Tokens, GpuOpDsv4, ::testing::Values(1, 16, 64));

TEST(GpuOp, ManyTokensTakeTheThreeLaunchSortAndStillMatch) {
    // 300 tokens x 5 slots is over the one-launch routing's 1024 entries.
    family::ShapeKey shape = small_shapes().front();
    shape.token = 300;
    const auto candidates = family::sample_shape_catalogue(shape, kCandidatesPerDsv4Shape, kSeed);
    expect_all_pass(shape, check_candidates(shape, candidates));
}

// Stage1's small token tiles with one or two K warps stage their activations in shared memory
// from 4 routed rows per expert on (matrix_stage1_stages_activations): 100 tokens x 4 routed
// slots over 16 experts is 25. One candidate per token tile, K step and K-warp count, so every
// staged kernel build (token groups x pairs per step) and both group layouts run.
TEST(GpuOp, StagedActivationKernelsMatchTheReference) {
    family::ShapeKey shape = small_shapes().front();
    shape.token = 100;
    const std::int64_t rows_per_expert = shape.token * shape.routed_topk() / shape.routed_experts();
    std::vector<family::Candidate> staged;
    std::set<std::tuple<int, int, int>> seen;
    for (const family::Candidate& c : family::build_catalogue(shape)) {
        const family::Stage1Config& s1 = c.stage1;
        if (!gpu::matrix_stage1_stages_activations(s1.tile_m, s1.waves, s1.k_waves,
                                                   rows_per_expert)) {
            continue;
        }
        if (seen.insert({s1.tile_m, s1.tile_k, s1.k_waves}).second) staged.push_back(c);
    }
    // tile_m 16 and 32, tile_k 64, 128 and 256, k_waves 1 and 2 (64 has room for both).
    ASSERT_EQ(staged.size(), 12U);
    expect_all_pass(shape, check_candidates(shape, staged));
}

// Stage1's K split fixed by the candidate ("_ks{KS}"), not derived: none, uneven ranges (3
// and 7 parts of 112 pairs), the catalogue's largest with two K warps, and a large token
// tile's split (its K warps split token groups, so the split alone cuts K).
TEST(GpuOp, FixedKSplitsMatchTheReference) {
    for (const std::int64_t tokens : {1, 4, 64}) {
        const family::ShapeKey shape = family::dsv4_i384_shape(tokens);
        const family::Candidate base = family::default_candidate(shape);
        std::vector<family::Candidate> candidates;
        for (const int k_splits : {1, 3, 7, 16}) {
            family::Candidate c = base;
            c.stage1.k_splits = k_splits;
            candidates.push_back(c);
        }
        if (tokens == 64) {
            // The default's large-tile kernels (from 4096 DSV4 tokens), split four ways.
            family::Candidate large = base;
            large.block_m = large.stage1.tile_m = large.stage2.tile_m = 64;
            large.stage1.tile_k = 64;
            large.stage1.k_waves = 1;
            large.stage1.k_splits = 4;
            large.stage2.tile_n = 512;
            candidates.push_back(large);
        }
        SCOPED_TRACE(family::shape_key_string(shape));
        const std::vector<Checked> checked = check_candidates(shape, candidates);
        EXPECT_EQ(checked.size(), candidates.size());
        expect_all_pass(shape, checked);
    }
}

// Stage1's K loop on the warpgroup instruction (four-warp groups: waves 4 or 8, one token
// group per tile; gpu/matrix_warpgroup_gemm.hpp) in the shapes it takes: one to four K warps,
// two rounds of weight tiles per warp (the activation rings refilled), two warpgroups per K
// warp, K steps of 1 and 4 pairs (a last step of fewer pairs), an uneven fixed K split, FP4
// experts and the FP8 shared expert (one token group up to 8 tokens: the warpgroup-only builds
// of both stages); from 9 tokens the shared expert's tile holds two token groups and takes the
// mma.sync loop inside the warpgroup builds.
TEST(GpuOp, WarpgroupLoopVariantsMatchTheReference) {
    for (const std::int64_t tokens : {1, 8, 9, 16}) {
        const family::ShapeKey shape = family::dsv4_i384_shape(tokens);
        const family::Candidate base = family::default_candidate(shape);
        std::vector<family::Candidate> candidates;
        auto add = [&](int tile_n, int tile_k, int waves, int k_waves, int k_splits) {
            family::Candidate c = base;
            c.stage1.tile_n = tile_n;
            c.stage1.tile_k = tile_k;
            c.stage1.waves = waves;
            c.stage1.k_waves = k_waves;
            c.stage1.k_splits = k_splits;
            candidates.push_back(c);
        };
        add(32, 128, 4, 1, 0);
        add(32, 128, 4, 2, 0);
        add(32, 256, 4, 4, 0);
        add(64, 128, 4, 1, 0);  // two rounds
        add(64, 64, 8, 1, 0);   // two warpgroups
        add(128, 128, 8, 2, 3);
        SCOPED_TRACE(family::shape_key_string(shape));
        const std::vector<Checked> checked = check_candidates(shape, candidates);
        EXPECT_EQ(checked.size(), candidates.size());
        expect_all_pass(shape, checked);
    }
}

// Up to 8 tokens both stages run their warpgroup-only builds, which take one token group per
// tile (an expert gets at most one row per token). A routing that repeats an expert in every
// token gives it 16 rows, a tile of two groups: the launch sees it in the routing's count and
// takes the warpgroup builds with their mma.sync loops (the warpgroup-only ones would trap).
TEST(GpuOp, ARoutingThatRepeatsAnExpertTakesTheBuildsForTwoTokenGroups) {
    constexpr std::int64_t kTokens = 8;
    const family::ShapeKey shape = family::dsv4_i384_shape(kTokens);
    ASSERT_TRUE(gpu::matrix_tiles_are_one_token_group(kTokens));
    Problem problem = generate_problem(shape, kSeed);
    constexpr std::int32_t kTwiceRouted = 0;
    for (std::int64_t token = 0; token < kTokens; ++token) {
        for (std::int64_t slot = 0; slot < 2; ++slot) {
            problem.topk_ids[static_cast<std::size_t>(token * shape.topk + slot)] = kTwiceRouted;
        }
    }
    const family::Candidate base = family::default_candidate(shape);
    std::vector<family::Candidate> candidates;
    for (const auto& [tile_n, tile_k, waves, k_waves] :
         {std::tuple{32, 128, 4, 1}, std::tuple{64, 64, 8, 1}, std::tuple{128, 128, 8, 2}}) {
        family::Candidate c = base;
        c.stage1.tile_n = tile_n;
        c.stage1.tile_k = tile_k;
        c.stage1.waves = waves;
        c.stage1.k_waves = k_waves;
        candidates.push_back(c);
    }
    const std::vector<Checked> checked = check_candidates(problem, candidates);
    EXPECT_EQ(checked.size(), candidates.size());
    expect_all_pass(shape, checked);
}

// The launch order that puts the shared expert's tiles first is a permutation of the tiles the
// routing filled, with those tiles first and the rest in order; indices past them are kept.
TEST(GpuOp, SharedTilesFirstIsAPermutationOfTheFilledTiles) {
    for (std::int64_t valid = 1; valid <= 40; ++valid) {
        for (std::int64_t shared = 0; shared <= valid + 1; ++shared) {
            std::vector<int> seen(static_cast<std::size_t>(valid + 3), 0);
            for (std::int64_t index = 0; index < valid + 3; ++index) {
                const std::int64_t tile = gpu::matrix_tile_of_workgroup(index, valid, shared);
                ASSERT_GE(tile, 0);
                ASSERT_LT(tile, valid + 3);
                ++seen[static_cast<std::size_t>(tile)];
                if (index >= valid) {
                    EXPECT_EQ(tile, index);
                }
                if (shared > 0 && shared <= valid && index < shared) {
                    EXPECT_EQ(tile, valid - shared + index);
                }
            }
            for (const int count : seen) EXPECT_EQ(count, 1);
        }
    }
}

TEST(GpuOp, AGraphReplayComputesTheSameOp) {
    bind_test_device();
    for (const family::ShapeKey& shape :
         {small_shapes().front(), family::dsv4_i384_shape(1), family::dsv4_i384_shape(4)}) {
        SCOPED_TRACE(family::shape_key_string(shape));
        const Problem problem = generate_problem(shape, kSeed);
        const ReferenceOutput reference = compute_reference(problem);
        const GpuProblem device_problem(problem, 1);
        GpuFhmoeOp op(shape, family::default_candidate(shape));
        std::vector<std::uint16_t> out(problem.x_bf16.size());
        for (int replay = 0; replay < 3; ++replay) {  // later replays reuse the captured graph
            op.poison_output();
            EXPECT_GT(op.run_graph(device_problem, 0), 0.0);
            op.download_output(out);
            EXPECT_TRUE(passes_accuracy(measure_accuracy(reference.out, out, AccuracyTolerance{}),
                                        kErrRatio, kMaxCosineDistance));
        }
    }
}

// Runs on one input set leave their workspace (sorted routing, x's codes, stage1's partial sums
// and h, the split counters) as that routing made it; the same input set run again finds its
// own values there and would hide a stage that reads before the stage before it has written
// (the stages start early under programmatic dependent launch). Here every checked run follows
// a run on another routing (input set 1, the same tokens sent to other experts), eagerly and
// under graph replay, at decode sizes, with the default's split and a fixed one; and as a chain
// in one graph (run_graph_chain: input set 1's op, then set 0's, with no host between them).
TEST(GpuOp, ARunAfterAnotherRoutingMatches) {
    bind_test_device();
    for (const std::int64_t tokens : {1, 2, 4, 8}) {
        const family::ShapeKey shape = family::dsv4_i384_shape(tokens);
        SCOPED_TRACE(family::shape_key_string(shape));
        const Problem problem = generate_problem(shape, kSeed);
        const ReferenceOutput reference = compute_reference(problem);
        const GpuProblem device_problem(problem, 2);
        std::vector<family::Candidate> candidates{family::default_candidate(shape)};
        candidates.push_back(candidates.front());
        candidates.back().stage1.k_splits = 7;
        for (const family::Candidate& candidate : candidates) {
            GpuFhmoeOp op(shape, candidate);
            std::vector<std::uint16_t> out(problem.x_bf16.size());
            for (const char* mode : {"eager", "graph", "chain"}) {
                const std::string how = mode;
                for (int repeat = 0; repeat < 2; ++repeat) {
                    if (how == "graph") {
                        EXPECT_GT(op.run_graph(device_problem, 1), 0.0);
                    } else if (how == "eager") {
                        op.run(device_problem, 1);
                    }
                    op.poison_output();
                    if (how == "graph") {
                        EXPECT_GT(op.run_graph(device_problem, 0), 0.0);
                    } else if (how == "eager") {
                        op.run(device_problem, 0);
                    } else {
                        EXPECT_GT(op.run_graph_chain(device_problem), 0.0);
                    }
                    op.download_output(out);
                    EXPECT_TRUE(
                        passes_accuracy(measure_accuracy(reference.out, out, AccuracyTolerance{}),
                                        kErrRatio, kMaxCosineDistance))
                        << how << " run " << repeat << ", k_splits " << candidate.stage1.k_splits;
                }
            }
        }
    }
}

TEST(GpuOp, AWrongKernelIsCaught) {
    // The check above can fail: an output with a flipped sign fails it on the same data.
    const family::ShapeKey shape = small_shapes().front();
    bind_test_device();
    const Problem problem = generate_problem(shape, kSeed);
    const ReferenceOutput reference = compute_reference(problem);
    const GpuProblem device_problem(problem, 2);
    GpuFhmoeOp op(shape, family::default_candidate(shape));
    op.run(device_problem, 0);  // input set 0 is the problem itself (later sets reroute)
    std::vector<std::uint16_t> out(problem.x_bf16.size());
    op.download_output(out);
    EXPECT_TRUE(passes_accuracy(measure_accuracy(reference.out, out, AccuracyTolerance{}),
                                kErrRatio, kMaxCosineDistance));
    for (std::uint16_t& value : out) value ^= 0x8000U;
    EXPECT_FALSE(passes_accuracy(measure_accuracy(reference.out, out, AccuracyTolerance{}),
                                 kErrRatio, kMaxCosineDistance));
}

// The worker uploads a model's weights once and runs its token counts on them: each token
// count's problem on the shared weights must still give its own reference, and weights of
// another model must be refused rather than run.
TEST(GpuOp, TokenCountsShareOneModelsWeights) {
    bind_test_device();
    const family::ShapeKey first_shape = family::dsv4_i384_shape(1);
    Problem problem = generate_problem(first_shape, kSeed);
    const auto weights = std::make_shared<const GpuWeights>(problem, 1);
    for (const std::int64_t tokens : {1, 16, 5}) {
        const family::ShapeKey shape = family::dsv4_i384_shape(tokens);
        SCOPED_TRACE(family::shape_key_string(shape));
        generate_token_inputs(problem, shape);
        const ReferenceOutput reference = compute_reference(problem);
        const GpuProblem device_problem(problem, weights);
        EXPECT_EQ(device_problem.weights().get(), weights.get());
        EXPECT_GT(device_problem.device_bytes(), weights->device_bytes());
        GpuFhmoeOp op(shape, family::default_candidate(shape));
        std::vector<std::uint16_t> out(problem.x_bf16.size());
        op.poison_output();
        op.run(device_problem, 0);
        op.download_output(out);
        EXPECT_TRUE(passes_accuracy(measure_accuracy(reference.out, out, AccuracyTolerance{}),
                                    kErrRatio, kMaxCosineDistance));
    }
    const Problem other_seed = generate_problem(first_shape, kSeed + 1);
    EXPECT_THROW({ const GpuProblem refused(other_seed, weights); }, Error);
}

TEST(GpuOp, UnsupportedCandidatesAreRejectedWithTheReason) {
    bind_test_device();
    const family::ShapeKey shape = small_shapes().front();
    family::Candidate odd_tile = family::default_candidate(shape);
    odd_tile.stage2.tile_m = 3;  // does not divide block_m
    try {
        GpuFhmoeOp op(shape, odd_tile);
        FAIL() << "a 3-row stage2 tile was accepted";
    } catch (const UnsupportedCandidate& error) {
        EXPECT_NE(std::string(error.what()).find("stage2.tile_m 3"), std::string::npos)
            << error.what();
    }
    family::Candidate too_many_threads = family::default_candidate(shape);
    too_many_threads.stage1.waves = 8;
    too_many_threads.stage1.k_waves = 8;
    too_many_threads.stage1.tile_k = 256;
    EXPECT_THROW({ GpuFhmoeOp op(shape, too_many_threads); }, UnsupportedCandidate);
}

}  // namespace
}  // namespace fhmoe::kernels::testing
