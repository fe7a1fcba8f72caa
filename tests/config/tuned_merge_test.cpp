#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "config/config_test_support.hpp"
#include "config/tuned_merge.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {
namespace {

using testing::dsv4_shape;
using testing::gfx950;
using testing::sample_row;

// A file with odd but valid spellings, so "kept byte-for-byte" is visible: re-rendering
// these rows would change their text.
std::string current_file() {
    const std::string tail =
        ",7168,384,385,7,384,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
        "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,0,0,GateMode.INTERLEAVE,32,0,"
        "\"old_k1\",old_k2 ,";
    return tuned_csv_header() + "\n" +                //
           "gfx950,256,16" + tail + "1.50E1,0.0\n" +  // line 2
           "sim , 8,16" + tail + ",\n" +              // line 3: other device
           "gfx950,256,2" + tail + "7.0,0\n" +        // line 4: out of order
           "gfx942,304,4" + tail + "3,0.01\n";        // line 5: other device
}

TEST(TunedMerge, ReplacesDecidedKeysKeepsEveryOtherRowVerbatimAndSorts) {
    const TunedTable current = parse_tuned_csv("t.csv", current_file());
    const std::vector<TunedRow> decided{
        sample_row(gfx950(), dsv4_shape(13), "new16"),  // raw token 13: the row at 16
        sample_row(gfx950(), dsv4_shape(1), "new1"),    // a new key
    };
    const MergeOutcome merged = merge_tuned_rows(current, decided);
    EXPECT_EQ(merged.replaced, 1u);
    EXPECT_EQ(merged.added, 1u);
    EXPECT_EQ(merged.kept, 3u);

    TunedRow at16 = decided[0];
    at16.shape.token = 16;
    const std::string expected = tuned_csv_header() + "\n" + current.records[3].text +
                                 "\n" +  // gfx942 sorts before gfx950
                                 format_tuned_row(decided[1]) + "\n" +  // gfx950 token 1
                                 current.records[2].text + "\n" +       // gfx950 token 2, verbatim
                                 format_tuned_row(at16) + "\n" +        // gfx950 token 16, replaced
                                 current.records[1].text + "\n";        // "sim" sorts last
    EXPECT_EQ(render_tuned_csv(merged.table), expected);
    EXPECT_EQ(current.records[2].text, current_file().substr(current_file().find("gfx950,256,2"),
                                                             current.records[2].text.size()));
}

TEST(TunedMerge, OrderDoesNotDependOnTheOrderOfDecisions) {
    const TunedTable current = parse_tuned_csv("t.csv", current_file());
    std::vector<TunedRow> decided;
    for (std::int64_t token : {512, 1, 64, 8})
        decided.push_back(sample_row(gfx950(), dsv4_shape(token)));
    const std::string forward = render_tuned_csv(merge_tuned_rows(current, decided).table);
    std::reverse(decided.begin(), decided.end());
    EXPECT_EQ(render_tuned_csv(merge_tuned_rows(current, decided).table), forward);
}

TEST(TunedMerge, RejectsInvalidDecisions) {
    const TunedTable current = parse_tuned_csv("t.csv", current_file());
    TunedRow empty_kernel = sample_row(gfx950(), dsv4_shape(4));
    empty_kernel.kernel_name2.clear();
    EXPECT_THROW(merge_tuned_rows(current, std::vector<TunedRow>{empty_kernel}), InternalError);

    // 3 and 4 are one lookup key: two decisions for one serving row.
    const std::vector<TunedRow> twice{sample_row(gfx950(), dsv4_shape(3)),
                                      sample_row(gfx950(), dsv4_shape(4))};
    try {
        merge_tuned_rows(current, twice);
        FAIL() << "no error";
    } catch (const InternalError& error) {
        // An internal error's what() ends with where it was raised (fhmoe/error.hpp).
        const std::string message = error.what();
        EXPECT_EQ(
            message.rfind("decided rows 0 and 1 both decide "
                          "gfx950/256/t4_h7168_i384_e385_k7_gui (at src/config/tuned_merge.cpp:",
                          0),
            0U)
            << message;
    }
}

}  // namespace
}  // namespace fhmoe::config
