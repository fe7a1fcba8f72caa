#include "fhmoe/family/catalogue_table.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/default_config.hpp"

namespace fhmoe::family {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::vector<std::string> words_of(const std::string& line) {
    std::vector<std::string> words;
    std::istringstream in(line);
    for (std::string word; in >> word;) words.push_back(word);
    return words;
}

TEST(CatalogueTable, HasOneRowPerShapeWithCountsAndDefault) {
    const std::vector<ShapeKey> shapes = dsv4_i384_shapes();
    const std::vector<std::string> lines = lines_of(format_catalogue_table(shapes));
    ASSERT_EQ(lines.size(), shapes.size() + 1);
    EXPECT_EQ(words_of(lines[0]),
              (std::vector<std::string>{"shape", "token", "padded", "bm16", "bm32", "bm64", "bm128",
                                        "total", "default"}));
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const std::vector<std::string> words = words_of(lines[i + 1]);
        ASSERT_EQ(words.size(), 9U) << lines[i + 1];
        EXPECT_EQ(words[0], shape_key_string(shapes[i]));
        EXPECT_EQ(words[1], std::to_string(shapes[i].token));
        std::size_t column = 3;
        for (int block_m : kBlockMAxis) {
            std::string expected = "-";
            for (const CatalogueCount& count : count_catalogue(shapes[i])) {
                if (count.block_m == block_m) expected = std::to_string(count.candidates);
            }
            EXPECT_EQ(words[column++], expected) << lines[i + 1];
        }
        EXPECT_EQ(words[7], std::to_string(build_catalogue(shapes[i]).size()));
        EXPECT_EQ(words[8], candidate_key(default_candidate(shapes[i])));
    }
}

TEST(CatalogueTable, SaysWhyAShapeIsUnsupported) {
    ShapeKey shape = dsv4_i384_shape(4);
    shape.inter_dim = 100;
    const std::string table = format_catalogue_table({shape});
    EXPECT_NE(table.find("unsupported: inter_dim 100 is not a positive multiple of 32"),
              std::string::npos)
        << table;
}

TEST(CandidateList, MarksTheDefaultOnce) {
    const ShapeKey shape = dsv4_i384_shape(2);
    const std::vector<Candidate> catalogue = build_catalogue(shape);
    const std::vector<std::string> lines = lines_of(format_candidate_list(shape, catalogue));
    ASSERT_EQ(lines.size(), catalogue.size());
    int defaults = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        EXPECT_NE(lines[i].find(candidate_key(catalogue[i])), std::string::npos);
        if (lines[i].find("(default)") != std::string::npos) {
            ++defaults;
            EXPECT_EQ(catalogue[i], default_candidate(shape));
        }
    }
    EXPECT_EQ(defaults, 1);
}

}  // namespace
}  // namespace fhmoe::family
