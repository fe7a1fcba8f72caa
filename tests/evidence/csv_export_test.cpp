#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "fhmoe/error.hpp"

#include "evidence/evidence_generator.hpp"
#include "evidence/scratch_dir.hpp"
#include "fhmoe/evidence/csv_export.hpp"

namespace fhmoe::evidence {
namespace {

using testing::generate_evidence;
using testing::GeneratorOptions;
using testing::ScratchDir;

using CsvRows = std::vector<std::vector<std::string>>;

// RFC 4180 as the exporter writes it: quoted fields may hold commas, quotes and newlines.
CsvRows parse_csv(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    const std::string text(std::istreambuf_iterator<char>(in), {});
    CsvRows rows(1);
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().push_back(std::move(field));
            field.clear();
        } else if (c == '\n') {
            rows.back().push_back(std::move(field));
            field.clear();
            rows.emplace_back();
        } else {
            field += c;
        }
    }
    rows.pop_back();  // after the last newline
    return rows;
}

std::size_t column(const CsvRows& rows, const std::string& name) {
    const auto& header = rows.front();
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<std::size_t>(it - header.begin());
}

TEST(CsvExport, OneFilePerTableWithOneRowPerRecord) {
    const ScratchDir scratch;
    const RunEvidence evidence = generate_evidence(GeneratorOptions{.seed = 41, .shapes = 15});
    const auto written = export_csv(evidence, scratch.file("csv"));
    ASSERT_EQ(written.size(), 7u);
    const std::map<std::string, std::size_t> expected_rows = {
        {"provenance.csv", 10},
        {"policy.csv", evidence.provenance.policy.size()},
        {"ranks.csv", evidence.provenance.ranks.size()},
        {"shapes.csv", evidence.shapes.size()},
        {"candidates.csv", evidence.candidates.size()},
        {"race.csv", evidence.race.size()},
        {"decisions.csv", evidence.decisions.size()}};
    for (const auto& [name, rows] : expected_rows) {
        const CsvRows table = parse_csv(scratch.file("csv/" + name));
        ASSERT_EQ(table.size(), rows + 1) << name;
        for (const auto& row : table) EXPECT_EQ(row.size(), table.front().size()) << name;
    }
}

TEST(CsvExport, TextNeedingQuotesAndAbsentValuesSurvive) {
    const ScratchDir scratch;
    const RunEvidence evidence = generate_evidence(GeneratorOptions{.seed = 41, .shapes = 15});
    export_csv(evidence, scratch.file("csv"));
    const CsvRows candidates = parse_csv(scratch.file("csv/candidates.csv"));
    const std::size_t detail = column(candidates, "detail");
    const std::size_t status = column(candidates, "status");
    const std::size_t ratio = column(candidates, "relative_to_incumbent");
    for (std::size_t i = 0; i < evidence.candidates.size(); ++i) {
        const auto& result = evidence.candidates[i].result;
        EXPECT_EQ(candidates[i + 1][detail], result.detail);
        EXPECT_EQ(candidates[i + 1][status], tuning::to_string(result.status));
        if (std::isnan(evidence.candidates[i].relative_to_incumbent)) {
            EXPECT_EQ(candidates[i + 1][ratio], "");
        } else {
            EXPECT_EQ(std::stod(candidates[i + 1][ratio]),
                      evidence.candidates[i].relative_to_incumbent);
        }
    }
    const CsvRows provenance = parse_csv(scratch.file("csv/provenance.csv"));
    EXPECT_EQ(provenance[4][1],
              "fhmoe_tune_mpi --backend cpu --iters 101 --untuned configs/ci "
              "shapes.csv");
}

TEST(CsvExport, AnUnwritableDirectoryIsAnError) {
    const ScratchDir scratch;
    std::ofstream(scratch.file("a_file")) << "x";
    EXPECT_THROW(export_csv(RunEvidence{}, scratch.file("a_file/csv")), Error);
}

}  // namespace
}  // namespace fhmoe::evidence
