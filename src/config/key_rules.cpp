#include "config/key_rules.hpp"

#include <cmath>

namespace fhmoe::config::detail {
namespace {

// Activations and weights are quantized in 1x32 blocks along K (per_1x32), and K is
// model_dim for stage1 and inter_dim for stage2.
constexpr std::int64_t kQuantBlock = 32;

std::optional<FieldProblem> positive(const char* field, std::int64_t value) {
    if (value > 0) return std::nullopt;
    return FieldProblem{field, "must be positive (got " + std::to_string(value) + ")"};
}

std::optional<FieldProblem> non_negative(const char* field, std::int64_t value) {
    if (value >= 0) return std::nullopt;
    return FieldProblem{field, "must not be negative (got " + std::to_string(value) + ")"};
}

std::optional<FieldProblem> zero_or_one(const char* field, std::int64_t value) {
    if (value == 0 || value == 1) return std::nullopt;
    return FieldProblem{field, "must be 0 or 1 (got " + std::to_string(value) + ")"};
}

std::optional<FieldProblem> quant_block_multiple(const char* field, std::int64_t value) {
    if (auto problem = positive(field, value)) return problem;
    if (value % kQuantBlock == 0) return std::nullopt;
    return FieldProblem{field, "must be a multiple of 32, the per_1x32 quantization block (got " +
                                   std::to_string(value) + ")"};
}

std::optional<FieldProblem> measurement(const char* field, const std::optional<double>& value) {
    if (!value) return std::nullopt;
    if (!std::isfinite(*value)) return FieldProblem{field, "must be a finite number"};
    if (*value < 0.0) return FieldProblem{field, "must not be negative"};
    return std::nullopt;
}

template <typename... Checks>
std::optional<FieldProblem> first_problem(Checks... checks) {
    std::optional<FieldProblem> found;
    ((found = found ? found : checks()), ...);
    return found;
}

}  // namespace

std::optional<std::string> text_value_problem(const std::string& value) {
    if (value.empty()) return "must not be empty";
    for (char c : value) {
        if (c == ',' || c == '"') return std::string("must not contain '") + c + "'";
        if (c == ' ' || c == '\t' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            return "must not contain whitespace or control characters";
        }
    }
    return std::nullopt;
}

std::optional<FieldProblem> shape_key_problem(const family::ShapeKey& s) {
    return first_problem(
        [&] { return positive("token", s.token); },
        [&] { return quant_block_multiple("model_dim", s.model_dim); },
        [&] { return quant_block_multiple("inter_dim", s.inter_dim); },
        [&]() -> std::optional<FieldProblem> {
            if (s.expert >= 2) return std::nullopt;
            return FieldProblem{"expert",
                                "must be at least 2, the routed experts plus the shared "
                                "expert's dummy row (got " +
                                    std::to_string(s.expert) + ")"};
        },
        [&]() -> std::optional<FieldProblem> {
            if (s.topk < 2) {
                return FieldProblem{"topk",
                                    "must be at least 2, the routed slots plus the shared "
                                    "expert's slot (got " +
                                        std::to_string(s.topk) + ")"};
            }
            if (s.topk > s.expert) {
                return FieldProblem{"topk", "must not exceed expert (" + std::to_string(s.expert) +
                                                "; got " + std::to_string(s.topk) + ")"};
            }
            return std::nullopt;
        },
        [&]() -> std::optional<FieldProblem> {
            if (s.shared_expert_id == s.expert - 1) return std::nullopt;
            return FieldProblem{"shared_expert_id",
                                "must be expert - 1 = " + std::to_string(s.expert - 1) +
                                    " (FHMoE's shared expert is the last, dummy, routed row; got " +
                                    std::to_string(s.shared_expert_id) + ")"};
        },
        [&] { return zero_or_one("use_g1u1", s.use_g1u1); },
        [&] { return zero_or_one("doweight_stage1", s.doweight_stage1); },
        [&] { return non_negative("hidden_pad", s.hidden_pad); },
        [&] { return non_negative("intermediate_pad", s.intermediate_pad); });
}

std::optional<FieldProblem> device_key_problem(const family::DeviceKey& device) {
    if (auto problem = text_value_problem(device.gfx)) return FieldProblem{"gfx", *problem};
    return positive("cu_num", device.cu_num);
}

std::optional<FieldProblem> tuned_row_problem(const TunedRow& row) {
    if (auto problem = device_key_problem(row.device)) return problem;
    if (auto problem = shape_key_problem(row.shape)) return problem;
    const std::int64_t lookup_token = family::padded_token(row.shape.token);
    if (row.shape.token != lookup_token) {
        return FieldProblem{"token", "token " + std::to_string(row.shape.token) +
                                         " is not a serving lookup token: serving looks up "
                                         "get_padded_M(M) and would never read this row (write "
                                         "it at token " +
                                         std::to_string(lookup_token) + ")"};
    }
    if (auto problem = positive("block_m", row.block_m)) return problem;
    if (auto problem = non_negative("ksplit", row.ksplit)) return problem;
    if (auto problem = text_value_problem(row.kernel_name1)) {
        return FieldProblem{"kernelName1", *problem};
    }
    if (auto problem = text_value_problem(row.kernel_name2)) {
        return FieldProblem{"kernelName2", *problem};
    }
    if (auto problem = measurement("us", row.us)) return problem;
    return measurement("err", row.err);
}

}  // namespace fhmoe::config::detail
