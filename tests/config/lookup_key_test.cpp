#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <vector>

#include "config/config_test_support.hpp"
#include "fhmoe/config/lookup_key.hpp"
#include "fhmoe/config/tuned_csv_update.hpp"

namespace fhmoe::config {
namespace {

using namespace std::chrono_literals;
using testing::dsv4_shape;
using testing::gfx950;
using testing::sample_row;

UntunedTable untuned_of(const std::vector<std::int64_t>& tokens) {
    UntunedTable table;
    table.path = "u.csv";
    std::size_t line = 2;
    for (std::int64_t token : tokens)
        table.shapes.push_back({std::nullopt, dsv4_shape(token), line++});
    return table;
}

struct RoundTrip {
    std::int64_t raw_token;
    std::int64_t lookup_token;
};

void PrintTo(const RoundTrip& trip, std::ostream* out) {
    *out << trip.raw_token << " -> " << trip.lookup_token;
}

class PaddedKeyRoundTrip : public ::testing::TestWithParam<RoundTrip> {};

// An untuned raw token is tuned, written at its lookup token, read back, and then counts as
// tuned everywhere (skip, summary, compare): the bug aiter's weakness 10.11c describes
// cannot happen.
TEST_P(PaddedKeyRoundTrip, WrittenRowIsFoundForTheRawToken) {
    const RoundTrip trip = GetParam();
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    const UntunedTable untuned = untuned_of({trip.raw_token});

    ShapeSelection before =
        select_shapes_to_tune(untuned, read_tuned_csv_if_exists(csv), gfx950(), false);
    ASSERT_EQ(before.to_tune.size(), 1u);

    const std::vector<TunedRow> decided{sample_row(gfx950(), before.to_tune[0].shape)};
    update_tuned_csv(csv, decided, 5s);

    const TunedTable tuned = read_tuned_csv(csv);
    ASSERT_EQ(tuned.records.size(), 1u);
    EXPECT_EQ(tuned.records[0].row.shape.token, trip.lookup_token);
    EXPECT_EQ(lookup_key(gfx950(), dsv4_shape(trip.raw_token)).shape.token, trip.lookup_token);

    const TunedIndex index(tuned);
    EXPECT_TRUE(index.is_tuned(gfx950(), dsv4_shape(trip.raw_token)));
    EXPECT_EQ(index.find(gfx950(), dsv4_shape(trip.raw_token)), &tuned.records[0]);
    EXPECT_FALSE(index.is_tuned(family::DeviceKey{"gfx950", 304}, dsv4_shape(trip.raw_token)));

    const ShapeSelection after = select_shapes_to_tune(untuned, tuned, gfx950(), false);
    EXPECT_TRUE(after.to_tune.empty());
    ASSERT_EQ(after.already_tuned.size(), 1u);
    EXPECT_EQ(after.already_tuned[0].shape.token, trip.raw_token);

    const ShapeSelection retune = select_shapes_to_tune(untuned, tuned, gfx950(), true);
    EXPECT_EQ(retune.to_tune.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(ServingTiers, PaddedKeyRoundTrip,
                         ::testing::Values(RoundTrip{1, 1}, RoundTrip{3, 4}, RoundTrip{1000, 1024},
                                           RoundTrip{32767, 32768}, RoundTrip{32768, 32768},
                                           RoundTrip{100000, 32768}, RoundTrip{131072, 131072},
                                           RoundTrip{200000, 131072}));

TEST(LookupKey, OnlyTokensOfTheSameTierShareARow) {
    TunedTable tuned;
    tuned.records.push_back({sample_row(gfx950(), dsv4_shape(4)), 2, ""});
    const TunedIndex index(tuned);
    EXPECT_FALSE(index.is_tuned(gfx950(), dsv4_shape(2)));
    EXPECT_TRUE(index.is_tuned(gfx950(), dsv4_shape(3)));
    EXPECT_TRUE(index.is_tuned(gfx950(), dsv4_shape(4)));
    EXPECT_FALSE(index.is_tuned(gfx950(), dsv4_shape(5)));
    family::ShapeKey separated = dsv4_shape(4);
    separated.gate_mode = family::GateMode::separated;
    EXPECT_FALSE(index.is_tuned(gfx950(), separated));
}

TEST(LookupKey, SelectionSplitsByDeviceAndIncumbents) {
    TunedTable tuned;
    tuned.records.push_back({sample_row(gfx950(), dsv4_shape(8)), 2, ""});
    UntunedTable untuned = untuned_of({6, 16});
    untuned.shapes.push_back({family::DeviceKey{"gfx942", 304}, dsv4_shape(32), 4});
    untuned.shapes.push_back({gfx950(), dsv4_shape(64), 5});

    const ShapeSelection selection = select_shapes_to_tune(untuned, tuned, gfx950(), false);
    ASSERT_EQ(selection.already_tuned.size(), 1u);
    EXPECT_EQ(selection.already_tuned[0].shape.token, 6);
    ASSERT_EQ(selection.to_tune.size(), 2u);
    EXPECT_EQ(selection.to_tune[0].shape.token, 16);
    EXPECT_EQ(selection.to_tune[1].shape.token, 64);
    ASSERT_EQ(selection.other_device.size(), 1u);
    EXPECT_EQ(selection.other_device[0].line, 4u);

    const ShapeSelection all = select_shapes_to_tune(untuned, tuned, gfx950(), true);
    EXPECT_EQ(all.to_tune.size(), 3u);
    EXPECT_EQ(all.other_device.size(), 1u);
}

TEST(LookupKey, StringNamesDeviceAndPaddedShape) {
    EXPECT_EQ(lookup_key_string(lookup_key(gfx950(), dsv4_shape(3))),
              "gfx950/256/t4_h7168_i384_e385_k7_gui");
}

}  // namespace
}  // namespace fhmoe::config
