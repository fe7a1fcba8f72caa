#include <gtest/gtest.h>

#include "config/config_test_support.hpp"
#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {
namespace {

using testing::dsv4_shape;
using testing::gfx950;
using testing::sample_row;

std::string aiter_file() {
    return testing::read_file(FHMOE_SOURCE_DIR "/tests/data/aiter_tuned_fhmoe.csv");
}

TEST(TunedCsv, LoadsAitersShippedFile) {
    const TunedTable table = read_tuned_csv(FHMOE_SOURCE_DIR "/tests/data/aiter_tuned_fhmoe.csv");
    EXPECT_EQ(table.layout, TunedLayout::aiter);
    ASSERT_EQ(table.records.size(), 12u);
    std::int64_t expected_token = 1;
    for (const TunedRecord& record : table.records) {
        EXPECT_EQ(record.row.device, gfx950());
        EXPECT_EQ(record.row.shape, dsv4_shape(expected_token));
        EXPECT_FALSE(record.row.us.has_value());
        EXPECT_FALSE(record.row.err.has_value());
        expected_token *= 2;
    }
    EXPECT_EQ(expected_token, 4096);
    const TunedRow& bm16 = table.records[5].row;
    EXPECT_EQ(bm16.shape.token, 32);
    EXPECT_EQ(bm16.block_m, 16);
    EXPECT_EQ(bm16.ksplit, 0);
    EXPECT_EQ(bm16.kernel_name1, "flydsl_moe1_afp8_wfp4_bf16_t16x128x256_w3_gui_fp8");
    EXPECT_EQ(bm16.kernel_name2, "flydsl_moe2_afp8_wfp4_bf16_t16x256x128_atomic");
}

TEST(TunedCsv, AiterRowsAreRewrittenVerbatimWithEmptyMeasurements) {
    const std::string source = aiter_file();
    const TunedTable table = parse_tuned_csv("aiter.csv", source);
    const std::string rendered = render_tuned_csv(table);

    std::string expected = tuned_csv_header() + "\n";
    std::size_t offset = source.find('\n') + 1;
    while (offset < source.size()) {
        const std::size_t end = source.find('\n', offset);
        expected += source.substr(offset, end - offset) + ",,\n";
        offset = end + 1;
    }
    EXPECT_EQ(rendered, expected);
    // And what was rendered reads back to the same rows, now in our own layout.
    const TunedTable again = parse_tuned_csv("again.csv", rendered);
    EXPECT_EQ(again.layout, TunedLayout::fhmoe);
    ASSERT_EQ(again.records.size(), table.records.size());
    for (std::size_t i = 0; i < table.records.size(); ++i) {
        EXPECT_EQ(again.records[i].row, table.records[i].row);
    }
}

TEST(TunedCsv, OwnLayoutRoundTripsByteForByte) {
    // Unusual but valid spellings (spaces, a quoted value, exponent notation) are kept.
    const std::string text =
        tuned_csv_header() + "\n" +
        "gfx950, 256,4,7168,384,385,7,384,ActivationType.Silu,torch.bfloat16,"
        "torch.float8_e4m3fn,torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,0,0,"
        "GateMode.INTERLEAVE,32,0,\"k1\",k2,1.25e1 ,0.001\n";
    const TunedTable table = parse_tuned_csv("t.csv", text);
    ASSERT_EQ(table.records.size(), 1u);
    EXPECT_EQ(table.records[0].row.us, 12.5);
    EXPECT_EQ(table.records[0].row.kernel_name1, "k1");
    EXPECT_EQ(render_tuned_csv(table), text);
}

TEST(TunedCsv, ReorderedColumnsAreReadByNameAndRenderedCanonically) {
    const TunedRow row = sample_row(gfx950(), dsv4_shape(8));
    const std::string canonical = format_tuned_row(row);
    // Swap the first two columns in the header and the row.
    const std::string header = tuned_csv_header();
    const std::string swapped_header = "cu_num,gfx" + header.substr(header.find(",cu_num") + 7);
    const std::string swapped_row = "256,gfx950" + canonical.substr(canonical.find(",256") + 4);
    const TunedTable table = parse_tuned_csv("r.csv", swapped_header + "\n" + swapped_row + "\n");
    EXPECT_EQ(table.layout, TunedLayout::reordered);
    ASSERT_EQ(table.records.size(), 1u);
    EXPECT_EQ(table.records[0].row, row);
    EXPECT_EQ(render_tuned_csv(table), header + "\n" + canonical + "\n");
}

TEST(TunedCsv, FormatsRowsInColumnOrderWithShortestNumbers) {
    TunedRow row = sample_row(gfx950(), dsv4_shape(1024));
    row.shape.gate_mode = family::GateMode::separated;
    row.shape.q_dtype_a = family::QDType::fp4_e2m1fn_x2;
    row.us = 0.1;
    row.err = std::nullopt;
    EXPECT_EQ(format_tuned_row(row),
              "gfx950,256,1024,7168,384,385,7,384,ActivationType.Silu,torch.bfloat16,"
              "torch.float4_e2m1fn_x2,torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,0,0,"
              "GateMode.SEPARATED,32,0,flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_a,"
              "flydsl_moe2_afp8_wfp4_bf16_t32x256x128_atomic_a,0.1,");
    const TunedTable table =
        parse_tuned_csv("f.csv", tuned_csv_header() + "\n" + format_tuned_row(row) + "\n");
    EXPECT_EQ(table.records[0].row, row);
}

TEST(TunedCsv, MissingFileIsEmptyOnlyWhenAskedFor) {
    testing::TempDir dir;
    const TunedTable empty = read_tuned_csv_if_exists(dir.file("absent.csv"));
    EXPECT_TRUE(empty.records.empty());
    EXPECT_EQ(render_tuned_csv(empty), tuned_csv_header() + "\n");
    EXPECT_THROW(read_tuned_csv(dir.file("absent.csv")), InputError);
}

TEST(TunedCsv, SameLookupKeyOnAnotherDeviceIsNotADuplicate) {
    const family::DeviceKey other{"gfx942", 304};
    const std::string text = tuned_csv_header() + "\n" +
                             format_tuned_row(sample_row(gfx950(), dsv4_shape(4))) + "\n" +
                             format_tuned_row(sample_row(other, dsv4_shape(4))) + "\n";
    EXPECT_EQ(parse_tuned_csv("d.csv", text).records.size(), 2u);
}

}  // namespace
}  // namespace fhmoe::config
