#include "fhmoe/family/legality.hpp"

#include <string>

#include "fhmoe/family/name_grammar.hpp"

namespace fhmoe::family {
namespace {

std::string fails_to_divide(const char* what, int tile, const char* dim_name, std::int64_t dim) {
    return std::string(what) + " " + std::to_string(tile) + " does not divide " + dim_name + " " +
           std::to_string(dim);
}

bool divides(int tile, std::int64_t dim) { return tile > 0 && dim % tile == 0; }

}  // namespace

std::optional<std::string> why_shape_unsupported(const ShapeKey& s) {
    if (s.token < 1) return "token " + std::to_string(s.token) + " is not positive";
    if (s.model_dim < kScaleBlockK || s.model_dim % kScaleBlockK != 0) {
        return "model_dim " + std::to_string(s.model_dim) + " is not a positive multiple of 32";
    }
    if (s.inter_dim < kScaleBlockK || s.inter_dim % kScaleBlockK != 0) {
        return "inter_dim " + std::to_string(s.inter_dim) + " is not a positive multiple of 32";
    }
    if (s.expert < 2) return "expert " + std::to_string(s.expert) + " leaves no routed expert";
    if (s.topk < 2) return "topk " + std::to_string(s.topk) + " leaves no routed slot";
    if (s.routed_topk() > s.routed_experts()) {
        return "topk " + std::to_string(s.topk) + " routes more distinct experts than the " +
               std::to_string(s.routed_experts()) + " routed ones";
    }
    if (s.shared_expert_id != s.expert - 1) {
        return "shared_expert_id " + std::to_string(s.shared_expert_id) + " is not expert - 1";
    }
    if (s.q_dtype_a != QDType::fp8_e4m3fn) {
        return "q_dtype_a " + std::string(to_aiter_string(s.q_dtype_a)) +
               ": the family quantizes activations to MXFP8";
    }
    if (s.q_dtype_w != QDType::fp4_e2m1fn_x2) {
        return "q_dtype_w " + std::string(to_aiter_string(s.q_dtype_w)) +
               ": routed weights are MXFP4";
    }
    if (s.use_g1u1 != 1) return "use_g1u1 must be 1 (stage1 is a gate/up GEMM)";
    if (s.doweight_stage1 != 0) return "doweight_stage1 must be 0 (stage2 applies the weight)";
    if (s.hidden_pad != 0 || s.intermediate_pad != 0) return "padded dims are not supported";
    return std::nullopt;
}

std::optional<std::string> why_candidate_illegal(const ShapeKey& shape, const Candidate& c) {
    if (auto reason = why_shape_unsupported(shape)) return reason;
    const Stage1Config& s1 = c.stage1;
    const Stage2Config& s2 = c.stage2;
    if (c.block_m < 1 || c.block_m > kMaxTileMN) {
        return "block_m " + std::to_string(c.block_m) + " out of range";
    }
    // Outside these a config has no name (name_grammar.hpp), so it cannot be recorded.
    const bool stage1_named = s1.tile_n >= 1 && s1.tile_n <= kMaxTileMN &&
                              s1.tile_k >= kScaleBlockK && s1.tile_k <= kMaxTileK &&
                              s1.tile_k % kScaleBlockK == 0 && s1.waves >= 1 &&
                              s1.waves <= kMaxWaves && s1.k_waves >= 1 && s1.k_waves <= kMaxWaves &&
                              s1.k_splits >= 0 && s1.k_splits <= kMaxKSplits;
    const bool stage2_named = s2.tile_m >= 1 && s2.tile_n >= 1 && s2.tile_n <= kMaxTileMN &&
                              s2.tile_k >= kScaleBlockK && s2.tile_k <= kMaxTileK &&
                              s2.tile_k % kScaleBlockK == 0;
    if (!stage1_named) return "stage1 config outside the name grammar's bounds";
    if (!stage2_named) return "stage2 config outside the name grammar's bounds";
    if (s1.tile_m != c.block_m) {
        return "stage1 tile_m " + std::to_string(s1.tile_m) + " is not block_m " +
               std::to_string(c.block_m);
    }
    if (!divides(s1.tile_n, shape.inter_dim)) {
        return fails_to_divide("stage1 tile_n", s1.tile_n, "inter_dim", shape.inter_dim);
    }
    if (!divides(s1.tile_k, shape.model_dim)) {
        return fails_to_divide("stage1 tile_k", s1.tile_k, "model_dim", shape.model_dim);
    }
    if ((s1.tile_k / kScaleBlockK) % s1.k_waves != 0) {
        return "stage1 k_waves " + std::to_string(s1.k_waves) + " does not split the " +
               std::to_string(s1.tile_k / kScaleBlockK) + " scale blocks of tile_k " +
               std::to_string(s1.tile_k);
    }
    // Every K wave of every split keeps at least one whole K step (on the gpu, a warp's ring
    // step; on the cpu, the unit of its K loop).
    const std::int64_t k_steps = shape.model_dim / s1.tile_k;
    if (s1.k_splits > 0 && static_cast<std::int64_t>(s1.k_splits) * s1.k_waves > k_steps) {
        return "stage1 k_splits " + std::to_string(s1.k_splits) + " x k_waves " +
               std::to_string(s1.k_waves) + " exceeds the " + std::to_string(k_steps) +
               " K steps of tile_k " + std::to_string(s1.tile_k) + " in model_dim " +
               std::to_string(shape.model_dim);
    }
    if (s1.gate_mode != shape.gate_mode) {
        return "stage1 gate mode " + std::string(to_aiter_string(s1.gate_mode)) +
               " is not the shape's " + std::string(to_aiter_string(shape.gate_mode));
    }
    if (s2.tile_m != c.block_m && s2.tile_m * 2 != c.block_m) {
        return "stage2 tile_m " + std::to_string(s2.tile_m) + " is neither block_m " +
               std::to_string(c.block_m) + " nor half of it";
    }
    if (!divides(s2.tile_n, shape.model_dim)) {
        return fails_to_divide("stage2 tile_n", s2.tile_n, "model_dim", shape.model_dim);
    }
    if (!divides(s2.tile_k, shape.inter_dim)) {
        return fails_to_divide("stage2 tile_k", s2.tile_k, "inter_dim", shape.inter_dim);
    }
    return std::nullopt;
}

}  // namespace fhmoe::family
