#include "fhmoe/family/shape_limits.hpp"

namespace fhmoe::family {
namespace {

std::optional<ShapeLimitViolation> above(const char* field, std::int64_t value, std::int64_t limit,
                                         const char* why) {
    if (value <= limit) return std::nullopt;
    return ShapeLimitViolation{field, std::to_string(value) + " is above " + std::to_string(limit) +
                                          ", the largest the kernels run (" + why + ")"};
}

}  // namespace

std::optional<ShapeLimitViolation> shape_limit_violation(const ShapeKey& shape) {
    if (auto v = above("token", shape.token, kMaxShapeTokens, "a sorted row packs it in 24 bits"))
        return v;
    if (auto v = above("model_dim", shape.model_dim, kMaxShapeDim, "2^20")) return v;
    if (auto v = above("inter_dim", shape.inter_dim, kMaxShapeDim, "2^20")) return v;
    if (auto v = above("expert", shape.expert, kMaxShapeExperts, "2^16")) return v;
    return above("topk", shape.topk, kMaxShapeTopk, "a sorted row packs the slot in 8 bits");
}

}  // namespace fhmoe::family
