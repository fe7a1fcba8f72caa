#include "fhmoe/family/builtin_shapes.hpp"

namespace fhmoe::family {
namespace {

constexpr std::int64_t kDsv4ModelDim = 7168;
constexpr std::int64_t kDsv4InterDim = 384;
constexpr std::int64_t kDsv4Experts = 385;  // 384 routed + the shared expert's dummy row
constexpr std::int64_t kDsv4Topk = 7;       // 6 routed + the shared expert
constexpr std::int64_t kDsv4MaxToken = 2048;

}  // namespace

ShapeKey dsv4_i384_shape(std::int64_t token, GateMode gate_mode) {
    ShapeKey shape;
    shape.token = token;
    shape.model_dim = kDsv4ModelDim;
    shape.inter_dim = kDsv4InterDim;
    shape.expert = kDsv4Experts;
    shape.topk = kDsv4Topk;
    shape.shared_expert_id = kDsv4Experts - 1;
    shape.act_type = ActType::silu;
    shape.dtype = DType::bf16;
    shape.q_dtype_a = QDType::fp8_e4m3fn;
    shape.q_dtype_w = QDType::fp4_e2m1fn_x2;
    shape.q_type = QType::per_1x32;
    shape.use_g1u1 = 1;
    shape.doweight_stage1 = 0;
    shape.hidden_pad = 0;
    shape.intermediate_pad = 0;
    shape.gate_mode = gate_mode;
    return shape;
}

std::vector<ShapeKey> dsv4_i384_shapes() {
    std::vector<ShapeKey> shapes;
    for (std::int64_t token = 1; token <= kDsv4MaxToken; token *= 2) {
        shapes.push_back(dsv4_i384_shape(token));
    }
    return shapes;
}

}  // namespace fhmoe::family
