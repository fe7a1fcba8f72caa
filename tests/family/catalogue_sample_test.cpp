#include "fhmoe/family/catalogue_sample.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "family/deterministic_random.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/default_config.hpp"

namespace fhmoe::family {
namespace {

// Stand-in catalogue whose members are told apart by block_m = their index.
std::vector<Candidate> indexed_catalogue(int size) {
    std::vector<Candidate> catalogue;
    for (int i = 0; i < size; ++i) catalogue.push_back(Candidate{i, {}, {}});
    return catalogue;
}

std::vector<int> indices_of(const std::vector<Candidate>& sample) {
    std::vector<int> indices;
    for (const Candidate& c : sample) indices.push_back(c.block_m);
    return indices;
}

TEST(SplitMix64, MatchesThePublishedSequence) {
    // Reference outputs of splitmix64.c (Vigna) from state 0.
    SplitMix64 random(0);
    EXPECT_EQ(random.next(), 0xe220a8397b1dcdafULL);
    EXPECT_EQ(random.next(), 0x6e789e6aa1b965f4ULL);
    EXPECT_EQ(random.next(), 0x06c45d188009454fULL);
}

TEST(SplitMix64, BelowStaysInRangeAndCoversIt) {
    SplitMix64 random(7);
    std::vector<int> hits(5, 0);
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t value = random.below(5);
        ASSERT_LT(value, 5U);
        ++hits[value];
    }
    for (int count : hits) EXPECT_GT(count, 100);
    EXPECT_EQ(SplitMix64(3).below(1), 0U);
}

// Pinned draws (computed by an independent Python implementation of the same algorithm):
// a resumed run, and every rank, must plan the same sample on any machine.
TEST(SampleCatalogue, DrawsArePinnedAcrossMachines) {
    const std::vector<Candidate> catalogue = indexed_catalogue(100);
    EXPECT_EQ(indices_of(sample_catalogue(catalogue, 5, 42)), (std::vector<int>{2, 9, 13, 83, 86}));
    EXPECT_EQ(indices_of(sample_catalogue(catalogue, 5, 43)),
              (std::vector<int>{17, 24, 60, 67, 95}));
    EXPECT_EQ(indices_of(sample_catalogue(catalogue, 6, 42, catalogue[99])),
              (std::vector<int>{20, 49, 57, 65, 88, 99}));
    EXPECT_EQ(indices_of(sample_catalogue(indexed_catalogue(1000), 10, 2024)),
              (std::vector<int>{66, 174, 309, 325, 368, 405, 461, 468, 838, 888}));
}

TEST(SampleCatalogue, IsADistinctSubsetInCatalogueOrder) {
    const std::vector<Candidate> catalogue = build_catalogue(dsv4_i384_shape(128));
    const std::vector<Candidate> sample = sample_catalogue(catalogue, 300, 11);
    ASSERT_EQ(sample.size(), 300U);
    EXPECT_TRUE(std::is_sorted(sample.begin(), sample.end()));
    EXPECT_EQ(std::adjacent_find(sample.begin(), sample.end()), sample.end());
    for (const Candidate& c : sample) {
        EXPECT_TRUE(std::binary_search(catalogue.begin(), catalogue.end(), c));
    }
}

TEST(SampleCatalogue, IsSeededAndDeterministic) {
    const std::vector<Candidate> catalogue = build_catalogue(dsv4_i384_shape(16));
    EXPECT_EQ(sample_catalogue(catalogue, 50, 1), sample_catalogue(catalogue, 50, 1));
    EXPECT_NE(sample_catalogue(catalogue, 50, 1), sample_catalogue(catalogue, 50, 2));
}

TEST(SampleCatalogue, ALargerSampleOnlyAddsCandidates) {
    const std::vector<Candidate> catalogue = build_catalogue(dsv4_i384_shape(4));
    const Candidate always = default_candidate(dsv4_i384_shape(4));
    for (std::size_t n = 1; n < 40; ++n) {
        const auto smaller = sample_catalogue(catalogue, n, 5, always);
        const auto larger = sample_catalogue(catalogue, n + 1, 5, always);
        EXPECT_TRUE(std::includes(larger.begin(), larger.end(), smaller.begin(), smaller.end()))
            << "n " << n;
    }
}

TEST(SampleCatalogue, HandlesTheEdges) {
    const std::vector<Candidate> catalogue = indexed_catalogue(10);
    EXPECT_EQ(sample_catalogue(catalogue, 10, 3), catalogue);
    EXPECT_EQ(sample_catalogue(catalogue, 1000, 3), catalogue);
    EXPECT_TRUE(sample_catalogue(catalogue, 0, 3, catalogue[4]).empty());
    EXPECT_EQ(indices_of(sample_catalogue(catalogue, 1, 3, catalogue[4])), (std::vector<int>{4}));
    EXPECT_THROW(sample_catalogue(catalogue, 3, 3, Candidate{77, {}, {}}), InternalError);
}

TEST(SampleShapeCatalogue, AlwaysContainsTheDefault) {
    for (const ShapeKey& shape : dsv4_i384_shapes()) {
        for (std::uint64_t seed : {0ULL, 1ULL, 99ULL}) {
            const std::vector<Candidate> sample = sample_shape_catalogue(shape, 16, seed);
            ASSERT_EQ(sample.size(), 16U);
            EXPECT_NE(std::find(sample.begin(), sample.end(), default_candidate(shape)),
                      sample.end());
        }
    }
}

}  // namespace
}  // namespace fhmoe::family
