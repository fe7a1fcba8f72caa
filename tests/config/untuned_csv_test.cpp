#include <gtest/gtest.h>

#include "config/config_test_support.hpp"
#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {
namespace {

using testing::dsv4_shape;

constexpr const char* kHeader =
    "token,model_dim,inter_dim,expert,topk,shared_expert_id,act_type,dtype,q_dtype_a,q_dtype_w,"
    "q_type,use_g1u1,doweight_stage1,hidden_pad,intermediate_pad,gate_mode";
constexpr const char* kKeyTail =
    ",7168,384,385,7,384,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
    "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,0,0,GateMode.INTERLEAVE";

std::string row(std::int64_t token) { return std::to_string(token) + kKeyTail; }

std::string error_of(const std::string& text) {
    try {
        parse_untuned_csv("u.csv", text);
    } catch (const InputError& error) {
        return error.what();
    }
    return "(no error)";
}

TEST(UntunedCsv, ReadsTheFullServingKeyWithoutDeviceColumns) {
    const UntunedTable table =
        parse_untuned_csv("u.csv", std::string(kHeader) + "\n" + row(1) + "\n" + row(1000) + "\n");
    ASSERT_EQ(table.shapes.size(), 2u);
    EXPECT_FALSE(table.shapes[0].device.has_value());
    EXPECT_EQ(table.shapes[0].shape, dsv4_shape(1));
    EXPECT_EQ(table.shapes[1].shape, dsv4_shape(1000));  // the raw token: M the op runs with
    EXPECT_EQ(table.shapes[1].line, 3u);
    EXPECT_TRUE(table.warnings.empty());
}

TEST(UntunedCsv, ReadsOptionalDeviceColumns) {
    const UntunedTable table = parse_untuned_csv(
        "u.csv", std::string("gfx,cu_num,") + kHeader + "\ngfx950,256," + row(8) + "\n");
    ASSERT_EQ(table.shapes.size(), 1u);
    ASSERT_TRUE(table.shapes[0].device.has_value());
    EXPECT_EQ(*table.shapes[0].device, testing::gfx950());
}

TEST(UntunedCsv, GateModeAndPadsMakeDistinctShapes) {
    const std::string separated = row(4).substr(0, row(4).rfind(',')) + ",GateMode.SEPARATED";
    const std::string padded =
        "4,7168,384,385,7,384,ActivationType.Silu,torch.bfloat16,"
        "torch.float8_e4m3fn,torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,"
        "64,0,GateMode.INTERLEAVE";
    const UntunedTable table = parse_untuned_csv(
        "u.csv", std::string(kHeader) + "\n" + row(4) + "\n" + separated + "\n" + padded + "\n");
    EXPECT_EQ(table.shapes.size(), 3u);
    EXPECT_TRUE(table.warnings.empty());
}

TEST(UntunedCsv, ExactDuplicateIsAnErrorNamingBothLines) {
    EXPECT_EQ(
        error_of(std::string(kHeader) + "\n" + row(8) + "\n" + row(16) + "\n" + row(8) + "\n"),
        "u.csv:4:1: field 'token': duplicate row: the same shape as line 2");
}

TEST(UntunedCsv, TokensWithTheSameLookupTokenAreMergedWithAWarning) {
    const UntunedTable table = parse_untuned_csv(
        "u.csv", std::string(kHeader) + "\n" + row(3) + "\n" + row(4) + "\n" + row(5) + "\n");
    ASSERT_EQ(table.shapes.size(), 2u);
    EXPECT_EQ(table.shapes[0].shape.token, 3);
    EXPECT_EQ(table.shapes[1].shape.token, 5);
    ASSERT_EQ(table.warnings.size(), 1u);
    EXPECT_EQ(table.warnings[0],
              "u.csv:3:1: field 'token': token 4 looks up the same tuned row (token 4) as token 3 "
              "on line 2; tuned once, as line 2");
}

TEST(UntunedCsv, SameShapeOnTwoDevicesIsNotADuplicate) {
    const std::string header = std::string("gfx,cu_num,") + kHeader;
    const UntunedTable table = parse_untuned_csv(
        "u.csv", header + "\ngfx950,256," + row(8) + "\ngfx942,304," + row(8) + "\n");
    EXPECT_EQ(table.shapes.size(), 2u);
}

TEST(UntunedCsv, RejectsMalformedFiles) {
    const std::string header(kHeader);
    // aiter's own untuned header: no shared_expert_id, pads or gate_mode (its weakness 10.1).
    EXPECT_EQ(error_of("gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,"
                       "q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n"),
              "u.csv:1:1: field 'shared_expert_id': missing column in the header");
    EXPECT_EQ(error_of("gfx," + header + "\n"),
              "u.csv:1:1: field 'cu_num': missing column: 'gfx' and 'cu_num' come together");
    EXPECT_EQ(error_of(header + ",block_m\n"),
              "u.csv:1:" + std::to_string(header.size() + 2) + ": field 'block_m': unknown column");
    EXPECT_EQ(error_of(header + "\n0" + kKeyTail + "\n"),
              "u.csv:2:1: field 'token': must be positive (got 0)");
    EXPECT_EQ(error_of(header + "\n-3" + kKeyTail + "\n"),
              "u.csv:2:1: field 'token': must be positive (got -3)");
    EXPECT_EQ(error_of(header + "\nabc" + kKeyTail + "\n"),
              "u.csv:2:1: field 'token': 'abc' is not an integer");
    EXPECT_EQ(error_of(header + "\n4,7168,384,385,7,383" + std::string(kKeyTail).substr(19) + "\n"),
              "u.csv:2:18: field 'shared_expert_id': must be expert - 1 = 384 (FHMoE's shared "
              "expert is the last, dummy, routed row; got 383)");
    EXPECT_EQ(error_of("gfx,cu_num," + header + "\n,256," + row(4) + "\n"),
              "u.csv:2:1: field 'gfx': must not be empty");
    EXPECT_EQ(error_of("gfx,cu_num," + header + "\ngfx950,-1," + row(4) + "\n"),
              "u.csv:2:8: field 'cu_num': must be positive (got -1)");
}

// What the kernels could never run is refused while reading, naming line and field, so no
// worker measures the rest of the run before data generation finds it.
TEST(UntunedCsv, RefusesShapesOutsideTheKernelsBounds) {
    const std::string header = kHeader;
    EXPECT_EQ(error_of(header + "\n" + row(1) + "\n1000000000000" + kKeyTail + "\n"),
              "u.csv:3:1: field 'token': 1000000000000 is above 16777215, the largest the kernels "
              "run (a sorted row packs it in 24 bits)");
    EXPECT_EQ(error_of(header + "\n" + row(16777215) + "\n"), "(no error)");
    EXPECT_EQ(
        error_of(header + "\n4,7168,384,385,300,384" + std::string(kKeyTail).substr(19) + "\n"),
        "u.csv:2:16: field 'topk': 300 is above 256, the largest the kernels run (a sorted "
        "row packs the slot in 8 bits)");
}

TEST(UntunedCsv, AHeaderWithoutRowsIsAnError) {
    EXPECT_EQ(error_of(std::string(kHeader) + "\n"),
              "u.csv:1:1: field '(rows)': no shapes to tune: the file has a header but no rows");
    EXPECT_EQ(error_of("\n" + std::string(kHeader) + "\n\n  \n"),
              "u.csv:2:1: field '(rows)': no shapes to tune: the file has a header but no rows");
}

// A value of megabytes is named, not echoed: the message stays a line a person can read.
TEST(UntunedCsv, AHugeFieldIsQuotedAsAnExcerptWithItsLength) {
    const std::string huge(2 * 1024 * 1024, '7');
    const std::string message =
        error_of(std::string(kHeader) + "\n4" + std::string(kKeyTail).replace(1, 4, huge) + "\n");
    EXPECT_LT(message.size(), 400U) << message.substr(0, 400);
    EXPECT_NE(message.find("u.csv:2:3: field 'model_dim': '777"), std::string::npos) << message;
    EXPECT_NE(message.find("... (2097152 bytes)' is out of range"), std::string::npos) << message;
}

}  // namespace
}  // namespace fhmoe::config
