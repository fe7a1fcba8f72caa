#pragma once

// The FHMoE shape: the key columns that, with the device columns gfx and cu_num, index a
// row of the tuned CSV (aiter's tuned_fhmoe.csv keys, DESIGN.md section 4). ShapeKey's field
// list names those key columns once: the tuned CSV, the archive's /shapes table, the CSV
// export and the wire codec all take them, and their order, from it.

#include <cstdint>
#include <string>
#include <string_view>
#include "fhmoe/record_fields.hpp"

namespace fhmoe::family {

enum class GateMode : std::uint8_t { interleave, separated };
enum class ActType : std::uint8_t { silu };
enum class DType : std::uint8_t { bf16 };
enum class QDType : std::uint8_t { fp8_e4m3fn, fp4_e2m1fn_x2 };
enum class QType : std::uint8_t { per_1x32 };

// The last enumerator of each enum: a decoder rejects a stored value past it.
constexpr GateMode last_enumerator(GateMode) noexcept { return GateMode::separated; }
constexpr ActType last_enumerator(ActType) noexcept { return ActType::silu; }
constexpr DType last_enumerator(DType) noexcept { return DType::bf16; }
constexpr QDType last_enumerator(QDType) noexcept { return QDType::fp4_e2m1fn_x2; }
constexpr QType last_enumerator(QType) noexcept { return QType::per_1x32; }

struct ShapeKey {
    std::int64_t token = 0;             // M as given (raw); the serving lookup pads it
    std::int64_t model_dim = 0;         // H
    std::int64_t inter_dim = 0;         // I
    std::int64_t expert = 0;            // E, routed experts + the dummy row of the shared expert
    std::int64_t topk = 0;              // routed slots + 1 (the shared expert, last slot)
    std::int64_t shared_expert_id = 0;  // must be expert - 1
    ActType act_type = ActType::silu;
    DType dtype = DType::bf16;
    QDType q_dtype_a = QDType::fp8_e4m3fn;
    QDType q_dtype_w = QDType::fp4_e2m1fn_x2;
    QType q_type = QType::per_1x32;
    int use_g1u1 = 1;
    int doweight_stage1 = 0;
    std::int64_t hidden_pad = 0;
    std::int64_t intermediate_pad = 0;
    GateMode gate_mode = GateMode::interleave;

    auto operator<=>(const ShapeKey&) const = default;

    std::int64_t routed_topk() const { return topk - 1; }
    std::int64_t routed_experts() const { return expert - 1; }
};

template <typename Visitor, RecordOf<ShapeKey> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("token", r.token);
    visit("model_dim", r.model_dim);
    visit("inter_dim", r.inter_dim);
    visit("expert", r.expert);
    visit("topk", r.topk);
    visit("shared_expert_id", r.shared_expert_id);
    visit("act_type", r.act_type);
    visit("dtype", r.dtype);
    visit("q_dtype_a", r.q_dtype_a);
    visit("q_dtype_w", r.q_dtype_w);
    visit("q_type", r.q_type);
    visit("use_g1u1", r.use_g1u1);
    visit("doweight_stage1", r.doweight_stage1);
    visit("hidden_pad", r.hidden_pad);
    visit("intermediate_pad", r.intermediate_pad);
    visit("gate_mode", r.gate_mode);
}
static_assert(lists_every_member<ShapeKey>());

// The device columns of a tuned row. gfx is "gfx950" etc. on AMD, "sm_90"-style on NVIDIA,
// "cpu" for the cpu backend and "sim" for the simulator (never mixed with real rows).
struct DeviceKey {
    std::string gfx;
    int cu_num = 0;
    auto operator<=>(const DeviceKey&) const = default;
};

template <typename Visitor, RecordOf<DeviceKey> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("gfx", r.gfx);
    visit("cu_num", r.cu_num);
}
static_assert(lists_every_member<DeviceKey>());

// The key columns by name, in field-list order: aiter's tuned and untuned CSV headers, the
// archive's /shapes table and shapes.csv all take theirs from here.
inline constexpr auto kDeviceKeyColumns = field_names<DeviceKey>();
inline constexpr auto kShapeKeyColumns = field_names<ShapeKey>();

// Serving's get_padded_M: next power of two below 32768; 32768 for [32768, 131072);
// 131072 at and above. Every match of untuned to tuned rows uses this.
std::int64_t padded_token(std::int64_t token);

// The same shape with token replaced by padded_token(token): the serving lookup key.
ShapeKey with_padded_token(ShapeKey shape);

// Stable, readable key of a shape, e.g. "t4_h512_i128_e17_k5_gui" (token as stored in the
// key, so callers pad first when they mean the lookup key). Used for records and logs.
std::string shape_key_string(const ShapeKey& shape);

// aiter's string forms ("GateMode.INTERLEAVE", "ActivationType.Silu", "torch.bfloat16",
// "torch.float8_e4m3fn", "torch.float4_e2m1fn_x2", "QuantType.per_1x32") and their
// parsers; a parser throws fhmoe::ParseError on any other text.
std::string_view to_aiter_string(GateMode value) noexcept;
std::string_view to_aiter_string(ActType value) noexcept;
std::string_view to_aiter_string(DType value) noexcept;
std::string_view to_aiter_string(QDType value) noexcept;
std::string_view to_aiter_string(QType value) noexcept;
GateMode parse_gate_mode(std::string_view text);
ActType parse_act_type(std::string_view text);
DType parse_dtype(std::string_view text);
QDType parse_qdtype(std::string_view text);
QType parse_qtype(std::string_view text);

// The parser of `value`'s enum, for code that walks ShapeKey's field list.
inline void parse_aiter_string(std::string_view text, GateMode& value) {
    value = parse_gate_mode(text);
}
inline void parse_aiter_string(std::string_view text, ActType& value) {
    value = parse_act_type(text);
}
inline void parse_aiter_string(std::string_view text, DType& value) { value = parse_dtype(text); }
inline void parse_aiter_string(std::string_view text, QDType& value) { value = parse_qdtype(text); }
inline void parse_aiter_string(std::string_view text, QType& value) { value = parse_qtype(text); }

}  // namespace fhmoe::family
