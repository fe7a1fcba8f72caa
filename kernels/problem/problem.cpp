#include <cstring>
#include <string>

#include "common/fnv1a.hpp"
#include "common/mx_block.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/family/shape_limits.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels {
namespace {

// The bounds are the family's (shape_limits.hpp), so the untuned CSV reader refuses what
// the kernels would refuse, before any worker starts.
constexpr std::int64_t kMaxTokens = family::kMaxShapeTokens;
constexpr std::int64_t kMaxTopk = family::kMaxShapeTopk;
constexpr std::int64_t kMaxDim = family::kMaxShapeDim;
constexpr std::int64_t kMaxExperts = family::kMaxShapeExperts;

[[noreturn]] void reject(const family::ShapeKey& shape, const std::string& reason) {
    throw Error("shape " + family::shape_key_string(shape) + ": " + reason);
}

void require_range(const family::ShapeKey& shape, const char* field, std::int64_t value,
                   std::int64_t low, std::int64_t high) {
    if (value < low || value > high) {
        reject(shape, std::string(field) + " " + std::to_string(value) + " is outside [" +
                          std::to_string(low) + ", " + std::to_string(high) + "]");
    }
}

void require_scale_blocks(const family::ShapeKey& shape, const char* field, std::int64_t value) {
    if (value % kMxBlockSize != 0) {
        reject(shape, std::string(field) + " " + std::to_string(value) +
                          " is not a multiple of 32 (the MX scale block along K)");
    }
}

template <typename T>
void require_size(const char* tensor, const std::vector<T>& values, std::size_t expected) {
    if (values.size() != expected) {
        throw Error(std::string("problem tensor ") + tensor + " has " +
                    std::to_string(values.size()) + " elements, the shape needs " +
                    std::to_string(expected));
    }
}

template <typename T>
void add_bytes(Fnv1a64& hash, const std::vector<T>& values) {
    hash.add_u64(values.size());
    for (const T& value : values) {
        std::uint32_t word = 0;
        static_assert(sizeof(T) <= sizeof(word));
        std::memcpy(&word, &value, sizeof(T));
        for (std::size_t byte = 0; byte < sizeof(T); ++byte) {
            hash.add_byte(static_cast<std::uint8_t>(word >> (8 * byte)));
        }
    }
}

}  // namespace

void validate_shape(const family::ShapeKey& shape) {
    require_range(shape, "token", shape.token, 1, kMaxTokens);
    require_range(shape, "model_dim", shape.model_dim, kMxBlockSize, kMaxDim);
    require_range(shape, "inter_dim", shape.inter_dim, kMxBlockSize, kMaxDim);
    require_scale_blocks(shape, "model_dim", shape.model_dim);
    require_scale_blocks(shape, "inter_dim", shape.inter_dim);
    require_range(shape, "expert", shape.expert, 2, kMaxExperts);
    if (shape.shared_expert_id != shape.expert - 1) {
        reject(shape, "shared_expert_id " + std::to_string(shape.shared_expert_id) +
                          " must be expert - 1 = " + std::to_string(shape.expert - 1) +
                          " (the dummy routed row that stands for the shared expert)");
    }
    require_range(shape, "topk", shape.topk, 2, kMaxTopk);
    if (shape.topk - 1 > shape.expert - 1) {
        reject(shape, "topk " + std::to_string(shape.topk) + " needs " +
                          std::to_string(shape.topk - 1) + " distinct routed experts, only " +
                          std::to_string(shape.expert - 1) + " exist");
    }
    if (shape.q_dtype_a != family::QDType::fp8_e4m3fn) {
        reject(shape, "q_dtype_a must be fp8 e4m3 (activations are MXFP8)");
    }
    if (shape.q_dtype_w != family::QDType::fp4_e2m1fn_x2) {
        reject(shape, "q_dtype_w must be fp4 e2m1 x2 (routed weights are MXFP4)");
    }
    if (shape.use_g1u1 != 1) reject(shape, "use_g1u1 must be 1 (stage1 is a gate/up GEMM)");
    if (shape.doweight_stage1 != 0) {
        reject(shape, "doweight_stage1 must be 0 (stage2 applies the routing weight)");
    }
    if (shape.hidden_pad != 0 || shape.intermediate_pad != 0) {
        reject(shape, "hidden_pad and intermediate_pad must be 0");
    }
}

void validate_problem(const Problem& problem) {
    validate_shape(problem.shape);
    const ProblemDims dims(problem.shape);
    require_size("x_bf16", problem.x_bf16, dims.x_elements());
    require_size("topk_ids", problem.topk_ids, dims.routing_elements());
    require_size("topk_weights", problem.topk_weights, dims.routing_elements());
    require_size("w1_fp4", problem.w1_fp4, dims.w1_bytes());
    require_size("w1_scale", problem.w1_scale, dims.w1_scale_bytes());
    require_size("w2_fp4", problem.w2_fp4, dims.w2_bytes());
    require_size("w2_scale", problem.w2_scale, dims.w2_scale_bytes());
    require_size("shared_w1_fp8", problem.shared_w1_fp8, dims.shared_w1_bytes());
    require_size("shared_w1_scale", problem.shared_w1_scale, dims.shared_w1_scale_bytes());
    require_size("shared_w2_fp8", problem.shared_w2_fp8, dims.shared_w2_bytes());
    require_size("shared_w2_scale", problem.shared_w2_scale, dims.shared_w2_scale_bytes());
    for (std::size_t i = 0; i < problem.topk_ids.size(); ++i) {
        const std::int32_t id = problem.topk_ids[i];
        if (id < 0 || id >= dims.experts) {
            throw Error("problem topk_ids[" + std::to_string(i) + "] = " + std::to_string(id) +
                        " is outside [0, " + std::to_string(dims.experts) + ")");
        }
    }
}

std::size_t Problem::bytes() const {
    const auto size_of = [](const auto& values) {
        return values.size() * sizeof(typename std::decay_t<decltype(values)>::value_type);
    };
    return size_of(x_bf16) + size_of(topk_ids) + size_of(topk_weights) + size_of(w1_fp4) +
           size_of(w1_scale) + size_of(w2_fp4) + size_of(w2_scale) + size_of(shared_w1_fp8) +
           size_of(shared_w1_scale) + size_of(shared_w2_fp8) + size_of(shared_w2_scale);
}

std::uint64_t problem_digest(const Problem& problem) {
    Fnv1a64 hash;
    const family::ShapeKey& shape = problem.shape;
    for (std::int64_t dim : {shape.token, shape.model_dim, shape.inter_dim, shape.expert,
                             shape.topk, shape.shared_expert_id}) {
        hash.add_u64(static_cast<std::uint64_t>(dim));
    }
    hash.add_byte(static_cast<std::uint8_t>(shape.gate_mode));
    add_bytes(hash, problem.x_bf16);
    add_bytes(hash, problem.topk_ids);
    add_bytes(hash, problem.topk_weights);
    add_bytes(hash, problem.w1_fp4);
    add_bytes(hash, problem.w1_scale);
    add_bytes(hash, problem.w2_fp4);
    add_bytes(hash, problem.w2_scale);
    add_bytes(hash, problem.shared_w1_fp8);
    add_bytes(hash, problem.shared_w1_scale);
    add_bytes(hash, problem.shared_w2_fp8);
    add_bytes(hash, problem.shared_w2_scale);
    return hash.value();
}

}  // namespace fhmoe::kernels
