// configs/untuned_fhmoe.csv and configs/untuned_fhmoe_small.csv: the header the config
// reader expects, fields that parse with shape.hpp's parsers, and the shapes they promise.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "csv_rows.hpp"
#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/legality.hpp"

namespace fhmoe::family {
namespace {

const std::vector<std::string> kUntunedHeader{
    "token",           "model_dim",  "inter_dim",        "expert",    "topk",   "shared_expert_id",
    "act_type",        "dtype",      "q_dtype_a",        "q_dtype_w", "q_type", "use_g1u1",
    "doweight_stage1", "hidden_pad", "intermediate_pad", "gate_mode"};

std::vector<ShapeKey> shapes_of(const test::CsvTable& table) {
    std::vector<ShapeKey> shapes;
    for (const auto& row : table.rows) shapes.push_back(test::shape_of_row(row));
    return shapes;
}

TEST(ShippedConfigs, Dsv4FileHoldsTheTwelveI384Shapes) {
    const test::CsvTable table = test::read_csv(test::source_path("configs/untuned_fhmoe.csv"));
    EXPECT_EQ(table.header, kUntunedHeader);
    EXPECT_EQ(shapes_of(table), dsv4_i384_shapes());
    for (const auto& row : table.rows) {
        // aiter's string forms, exactly as shape.hpp writes them.
        const ShapeKey shape = test::shape_of_row(row);
        EXPECT_EQ(row.at("gate_mode"), to_aiter_string(shape.gate_mode));
        EXPECT_EQ(row.at("q_dtype_a"), "torch.float8_e4m3fn");
        EXPECT_EQ(row.at("q_dtype_w"), "torch.float4_e2m1fn_x2");
        EXPECT_EQ(row.at("act_type"), "ActivationType.Silu");
        EXPECT_EQ(row.at("q_type"), "QuantType.per_1x32");
        EXPECT_EQ(row.at("dtype"), "torch.bfloat16");
    }
}

TEST(ShippedConfigs, SmallFileHoldsTheDemoShapes) {
    const test::CsvTable table =
        test::read_csv(test::source_path("configs/untuned_fhmoe_small.csv"));
    EXPECT_EQ(table.header, kUntunedHeader);
    const std::vector<ShapeKey> shapes = shapes_of(table);
    std::set<std::int64_t> tokens;
    int separated = 0;
    std::set<std::string> keys;
    for (const ShapeKey& shape : shapes) {
        EXPECT_EQ(shape.model_dim, 512);
        EXPECT_EQ(shape.inter_dim, 128);
        EXPECT_EQ(shape.expert, 17);
        EXPECT_EQ(shape.topk, 5);
        EXPECT_EQ(shape.shared_expert_id, 16);
        tokens.insert(shape.token);
        separated += shape.gate_mode == GateMode::separated ? 1 : 0;
        keys.insert(shape_key_string(shape));
    }
    EXPECT_TRUE(tokens.contains(3));
    EXPECT_TRUE(tokens.contains(100));
    EXPECT_EQ(separated, 1);
    EXPECT_EQ(keys.size(), shapes.size()) << "duplicate shape";
}

TEST(ShippedConfigs, EveryShippedShapeHasACatalogue) {
    for (const ShapeKey& shape : test::shipped_shapes()) {
        EXPECT_FALSE(why_shape_unsupported(shape).has_value()) << shape_key_string(shape);
        EXPECT_FALSE(build_catalogue(shape).empty()) << shape_key_string(shape);
    }
}

}  // namespace
}  // namespace fhmoe::family
