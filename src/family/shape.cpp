#include "fhmoe/family/shape.hpp"

#include <array>
#include <string>
#include <utility>

#include "fhmoe/error.hpp"
#include "fhmoe/text_excerpt.hpp"

namespace fhmoe::family {
namespace {

constexpr std::int64_t kFirstPaddedTier = 32768;
constexpr std::int64_t kSecondPaddedTier = 131072;

template <typename Enum, std::size_t N>
Enum parse_enum(std::string_view text, const std::array<Enum, N>& values, const char* what) {
    std::string valid;
    for (Enum value : values) {
        if (to_aiter_string(value) == text) return value;
        if (!valid.empty()) valid += ", ";
        valid += to_aiter_string(value);
    }
    throw ParseError("unknown " + std::string(what) + " '" + excerpt(text) + "' (valid: " + valid +
                     ")");
}

}  // namespace

std::int64_t padded_token(std::int64_t token) {
    if (token >= kSecondPaddedTier) return kSecondPaddedTier;
    if (token >= kFirstPaddedTier) return kFirstPaddedTier;
    std::int64_t padded = 1;
    while (padded < token) padded *= 2;
    return padded;
}

ShapeKey with_padded_token(ShapeKey shape) {
    shape.token = padded_token(shape.token);
    return shape;
}

std::string shape_key_string(const ShapeKey& s) {
    std::string key = "t" + std::to_string(s.token) + "_h" + std::to_string(s.model_dim) + "_i" +
                      std::to_string(s.inter_dim) + "_e" + std::to_string(s.expert) + "_k" +
                      std::to_string(s.topk);
    if (s.shared_expert_id != s.expert - 1) key += "_s" + std::to_string(s.shared_expert_id);
    if (s.hidden_pad != 0) key += "_hp" + std::to_string(s.hidden_pad);
    if (s.intermediate_pad != 0) key += "_ip" + std::to_string(s.intermediate_pad);
    if (s.doweight_stage1 != 0) key += "_dw1";
    if (s.use_g1u1 != 1) key += "_g1u1" + std::to_string(s.use_g1u1);
    if (s.q_dtype_a != QDType::fp8_e4m3fn) key += "_afp4";
    key += s.gate_mode == GateMode::interleave ? "_gui" : "_gus";
    return key;
}

std::string_view to_aiter_string(GateMode value) noexcept {
    return value == GateMode::interleave ? "GateMode.INTERLEAVE" : "GateMode.SEPARATED";
}
std::string_view to_aiter_string(ActType) noexcept { return "ActivationType.Silu"; }
std::string_view to_aiter_string(DType) noexcept { return "torch.bfloat16"; }
std::string_view to_aiter_string(QDType value) noexcept {
    return value == QDType::fp8_e4m3fn ? "torch.float8_e4m3fn" : "torch.float4_e2m1fn_x2";
}
std::string_view to_aiter_string(QType) noexcept { return "QuantType.per_1x32"; }

GateMode parse_gate_mode(std::string_view text) {
    return parse_enum(text, std::array{GateMode::interleave, GateMode::separated}, "gate_mode");
}
ActType parse_act_type(std::string_view text) {
    return parse_enum(text, std::array{ActType::silu}, "act_type");
}
DType parse_dtype(std::string_view text) {
    return parse_enum(text, std::array{DType::bf16}, "dtype");
}
QDType parse_qdtype(std::string_view text) {
    return parse_enum(text, std::array{QDType::fp8_e4m3fn, QDType::fp4_e2m1fn_x2}, "q_dtype");
}
QType parse_qtype(std::string_view text) {
    return parse_enum(text, std::array{QType::per_1x32}, "q_type");
}

}  // namespace fhmoe::family
