#include <gtest/gtest.h>

#include "fhmoe/error.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {
namespace {

TEST(PaddedToken, FollowsServingTiers) {
    EXPECT_EQ(padded_token(1), 1);
    EXPECT_EQ(padded_token(3), 4);
    EXPECT_EQ(padded_token(100), 128);
    EXPECT_EQ(padded_token(1000), 1024);
    EXPECT_EQ(padded_token(32767), 32768);
    EXPECT_EQ(padded_token(32768), 32768);
    EXPECT_EQ(padded_token(100000), 32768);
    EXPECT_EQ(padded_token(131072), 131072);
    EXPECT_EQ(padded_token(200000), 131072);
}

TEST(ShapeEnums, ParseAiterStringsAndRejectOthers) {
    EXPECT_EQ(parse_gate_mode("GateMode.INTERLEAVE"), GateMode::interleave);
    EXPECT_EQ(parse_gate_mode("GateMode.SEPARATED"), GateMode::separated);
    EXPECT_EQ(parse_qdtype("torch.float4_e2m1fn_x2"), QDType::fp4_e2m1fn_x2);
    EXPECT_THROW(parse_gate_mode("GateMode.GATE_ONLY"), ParseError);
    EXPECT_THROW(parse_act_type("ActivationType.Gelu"), ParseError);
    EXPECT_THROW(parse_qtype("QuantType.per_1x128"), ParseError);
}

TEST(ShapeKeyString, IsStableAndDistinguishesGateMode) {
    ShapeKey shape;
    shape.token = 3;
    shape.model_dim = 512;
    shape.inter_dim = 128;
    shape.expert = 17;
    shape.topk = 5;
    shape.shared_expert_id = 16;
    EXPECT_EQ(shape_key_string(shape), "t3_h512_i128_e17_k5_gui");
    shape.gate_mode = GateMode::separated;
    EXPECT_EQ(shape_key_string(shape), "t3_h512_i128_e17_k5_gus");
    EXPECT_EQ(shape_key_string(with_padded_token(shape)), "t4_h512_i128_e17_k5_gus");
}

}  // namespace
}  // namespace fhmoe::family
