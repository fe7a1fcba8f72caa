#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <chrono>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config_test_support.hpp"
#include "config/race_rows.hpp"
#include "fhmoe/config/lookup_key.hpp"
#include "fhmoe/config/tuned_csv_update.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {
namespace {

using namespace std::chrono_literals;
using Entries = std::vector<std::string>;
using testing::dsv4_shape;
using testing::gfx950;
using testing::sample_row;

TEST(UpdateTunedCsv, CreatesTheFileThenReplacesAndAdds) {
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    const std::vector<TunedRow> first{sample_row(gfx950(), dsv4_shape(4), "a")};
    TunedCsvUpdate update = update_tuned_csv(csv, first, 1s);
    EXPECT_EQ(update.added, 1u);
    EXPECT_TRUE(update.written);
    EXPECT_EQ(testing::read_file(csv),
              tuned_csv_header() + "\n" + format_tuned_row(first[0]) + "\n");

    const std::vector<TunedRow> second{sample_row(gfx950(), dsv4_shape(3), "b"),
                                       sample_row(gfx950(), dsv4_shape(8), "c")};
    update = update_tuned_csv(csv, second, 1s);
    EXPECT_EQ(update.replaced, 1u);
    EXPECT_EQ(update.added, 1u);
    EXPECT_EQ(update.kept, 0u);
    const TunedTable table = read_tuned_csv(csv);
    ASSERT_EQ(table.records.size(), 2u);
    EXPECT_EQ(table.records[0].row.kernel_name1, second[0].kernel_name1);
    EXPECT_EQ(table.records[0].row.shape.token, 4);
    EXPECT_EQ(dir.entries(), Entries{"tuned.csv"});
}

TEST(UpdateTunedCsv, AnUnchangedResultIsNotWritten) {
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    const std::vector<TunedRow> rows{sample_row(gfx950(), dsv4_shape(4))};
    update_tuned_csv(csv, rows, 1s);
    const TunedCsvUpdate again = update_tuned_csv(csv, rows, 1s);
    EXPECT_FALSE(again.written);
    EXPECT_EQ(again.replaced, 1u);
}

TEST(UpdateTunedCsv, UpgradesAitersFileKeepingItsRows) {
    testing::TempDir dir;
    const std::string csv = dir.file("tuned_fhmoe.csv");
    const std::string aiter =
        testing::read_file(FHMOE_SOURCE_DIR "/tests/data/aiter_tuned_fhmoe.csv");
    testing::write_file(csv, aiter);
    const std::vector<TunedRow> rows{sample_row(gfx950(), dsv4_shape(1000), "new")};
    const TunedCsvUpdate update = update_tuned_csv(csv, rows, 1s);
    EXPECT_EQ(update.replaced, 1u);
    EXPECT_EQ(update.kept, 11u);
    const std::string written = testing::read_file(csv);
    // Every other aiter row is still there, character for character.
    std::size_t offset = aiter.find('\n') + 1;
    while (offset < aiter.size()) {
        const std::size_t end = aiter.find('\n', offset);
        const std::string line = aiter.substr(offset, end - offset);
        if (line.find(",1024,") == std::string::npos) {
            EXPECT_NE(written.find(line + ",,\n"), std::string::npos) << line;
        }
        offset = end + 1;
    }
    EXPECT_NE(written.find(format_tuned_row([&] {
        TunedRow row = rows[0];
        row.shape.token = 1024;
        return row;
    }())),
              std::string::npos);
}

TEST(UpdateTunedCsv, InvalidDecisionWritesNothingAndTakesNoLock) {
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    testing::write_file(csv, tuned_csv_header() + "\n");
    TunedRow bad = sample_row(gfx950(), dsv4_shape(4));
    bad.us = -1.0;
    EXPECT_THROW(update_tuned_csv(csv, std::vector<TunedRow>{bad}, 1s), InternalError);
    EXPECT_EQ(testing::read_file(csv), tuned_csv_header() + "\n");
    EXPECT_EQ(dir.entries(), Entries{"tuned.csv"});
}

// ---- malformed current files: the exact message, and the file left byte-for-byte -------

constexpr std::array<std::string_view, 24> kValidRow = {
    "gfx950",
    "256",
    "4",
    "7168",
    "384",
    "385",
    "7",
    "384",
    "ActivationType.Silu",
    "torch.bfloat16",
    "torch.float8_e4m3fn",
    "torch.float4_e2m1fn_x2",
    "QuantType.per_1x32",
    "1",
    "0",
    "0",
    "0",
    "GateMode.INTERLEAVE",
    "32",
    "0",
    "flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui",
    "flydsl_moe2_afp8_wfp4_bf16_t32x256x128_atomic",
    "12.5",
    "0.01"};

std::size_t column_index(std::string_view name) {
    for (std::size_t i = 0; i < kTunedColumns.size(); ++i) {
        if (kTunedColumns[i] == name) return i;
    }
    throw std::logic_error("no column " + std::string(name));
}

// The valid row with one value replaced.
std::string row_with(std::string_view column, std::string_view value) {
    std::string line;
    for (std::size_t i = 0; i < kValidRow.size(); ++i) {
        if (i > 0) line += ',';
        line += i == column_index(column) ? value : kValidRow[i];
    }
    return line;
}

std::string valid_row() { return row_with("gfx", "gfx950"); }

// 1-based column where the `index`-th comma-separated value of `line` starts.
std::size_t column_of_value(const std::string& line, std::size_t index) {
    std::size_t position = 0;
    for (std::size_t i = 0; i < index; ++i) position = line.find(',', position) + 1;
    return position + 1;
}

struct MalformedCase {
    const char* name;
    std::string text;  // the whole file
    std::size_t line;
    std::size_t column;
    std::string field;
    std::string reason;
};

// A case whose error is at `column` of the valid row's second line, with `value` there.
MalformedCase bad_value(const char* name, std::string_view column, std::string_view value,
                        std::string reason) {
    const std::string line = row_with(column, value);
    return {name,
            tuned_csv_header() + "\n" + line + "\n",
            2,
            column_of_value(line, column_index(column)),
            std::string(column),
            std::move(reason)};
}

std::vector<MalformedCase> malformed_cases() {
    const std::string header = tuned_csv_header();
    const std::string row = valid_row();
    const std::string aiter_header = header.substr(0, header.find(",us,err"));
    const std::string aiter_row = row.substr(0, row.rfind(",12.5"));
    std::vector<MalformedCase> cases = {
        {"empty_file", "", 1, 1, "(header)", "no header line (the file is empty)"},
        {"unknown_column", header + ",tflops\n" + row + ",1\n", 1, header.size() + 2, "tflops",
         "unknown column"},
        {"missing_column",
         aiter_header.substr(0, aiter_header.rfind(',')) + "\n" +
             aiter_row.substr(0, aiter_row.rfind(',')) + "\n",
         1, 1, "kernelName2", "missing column in the header"},
        {"us_without_err", aiter_header + ",us\n" + aiter_row + ",1\n", 1, aiter_header.size() + 2,
         "err", "missing column: 'us' and 'err' come together"},
        {"too_few_values", header + "\n" + row.substr(0, row.rfind(',')) + "\n", 2,
         row.rfind(',') + 1, "err",
         "missing value: line has 23 values but the header has 24 columns"},
        {"too_many_values", header + "\n" + row + ",7\n", 2, row.size() + 2, "(extra)",
         "line has 25 values but the header has 24 columns"},
        {"unterminated_quote", header + "\n\"gfx950" + row.substr(6) + "\n", 2, 1, "gfx",
         "unterminated quoted value (a value cannot span lines)"},
        {"duplicate_key", header + "\n" + row + "\n" + row_with("us", "3") + "\n", 3,
         column_of_value(row, 2), "token",
         "duplicate row: line 2 has the same lookup key gfx950/256/t4_h7168_i384_e385_k7_gui"},
    };
    cases.push_back(bad_value("empty_gfx", "gfx", "", "must not be empty"));
    cases.push_back(bad_value("gfx_with_space", "gfx", "gfx 950",
                              "must not contain whitespace or control characters"));
    cases.push_back(bad_value("zero_cu_num", "cu_num", "0", "must be positive (got 0)"));
    cases.push_back(bad_value("float_cu_num", "cu_num", "256.0", "'256.0' is not an integer"));
    cases.push_back(bad_value("non_numeric_token", "token", "four", "'four' is not an integer"));
    cases.push_back(bad_value("zero_token", "token", "0", "must be positive (got 0)"));
    cases.push_back(bad_value("negative_token", "token", "-4", "must be positive (got -4)"));
    cases.push_back(bad_value("huge_token", "token", "99999999999999999999",
                              "'99999999999999999999' is out of range"));
    cases.push_back(bad_value("raw_token", "token", "3",
                              "token 3 is not a serving lookup token: serving looks up "
                              "get_padded_M(M) and would never read this row (write it at token "
                              "4)"));
    cases.push_back(bad_value("model_dim_not_32_multiple", "model_dim", "7000",
                              "must be a multiple of 32, the per_1x32 quantization block (got "
                              "7000)"));
    cases.push_back(bad_value("zero_inter_dim", "inter_dim", "0", "must be positive (got 0)"));
    cases.push_back(bad_value("negative_expert", "expert", "-385",
                              "must be at least 2, the routed experts plus the shared expert's "
                              "dummy row (got -385)"));
    cases.push_back(bad_value("zero_topk", "topk", "0",
                              "must be at least 2, the routed slots plus the shared expert's "
                              "slot (got 0)"));
    cases.push_back(
        bad_value("topk_above_expert", "topk", "400", "must not exceed expert (385; got 400)"));
    cases.push_back(bad_value("wrong_shared_expert_id", "shared_expert_id", "0",
                              "must be expert - 1 = 384 (FHMoE's shared expert is the last, "
                              "dummy, routed row; got 0)"));
    cases.push_back(bad_value("unknown_act_type", "act_type", "ActivationType.Gelu",
                              "unknown act_type 'ActivationType.Gelu' (valid: "
                              "ActivationType.Silu)"));
    cases.push_back(bad_value("unknown_q_dtype_w", "q_dtype_w", "torch.int4",
                              "unknown q_dtype 'torch.int4' (valid: torch.float8_e4m3fn, "
                              "torch.float4_e2m1fn_x2)"));
    cases.push_back(bad_value("unknown_gate_mode", "gate_mode", "GateMode.GATE_ONLY",
                              "unknown gate_mode 'GateMode.GATE_ONLY' (valid: "
                              "GateMode.INTERLEAVE, GateMode.SEPARATED)"));
    cases.push_back(bad_value("use_g1u1_not_bool", "use_g1u1", "2", "must be 0 or 1 (got 2)"));
    cases.push_back(
        bad_value("negative_hidden_pad", "hidden_pad", "-64", "must not be negative (got -64)"));
    cases.push_back(bad_value("zero_block_m", "block_m", "0", "must be positive (got 0)"));
    cases.push_back(bad_value("negative_ksplit", "ksplit", "-1", "must not be negative (got -1)"));
    cases.push_back(bad_value("empty_kernel_name1", "kernelName1", "", "must not be empty"));
    cases.push_back(
        bad_value("comma_in_kernel_name2", "kernelName2", "\"a,b\"", "must not contain ','"));
    cases.push_back(bad_value("negative_us", "us", "-1", "must not be negative"));
    cases.push_back(bad_value("nan_us", "us", "nan",
                              "'nan' is not a finite number (leave it empty if unknown)"));
    cases.push_back(bad_value("text_err", "err", "1.7%",
                              "'1.7%' is not a finite number (leave it empty if unknown)"));
    return cases;
}

void PrintTo(const MalformedCase& c, std::ostream* out) { *out << c.name; }

class MalformedTunedCsv : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedTunedCsv, IsReportedWithPositionAndLeavesTheFileUntouched) {
    const MalformedCase& c = GetParam();
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    testing::write_file(csv, c.text);

    const std::string expected = csv + ":" + std::to_string(c.line) + ":" +
                                 std::to_string(c.column) + ": field '" + c.field +
                                 "': " + c.reason;
    const std::vector<TunedRow> decided{sample_row(gfx950(), dsv4_shape(64))};
    try {
        update_tuned_csv(csv, decided, 1s);
        ADD_FAILURE() << "no error for " << c.name;
    } catch (const InputError& error) {
        EXPECT_EQ(std::string(error.what()), expected);
        EXPECT_EQ(error.line(), c.line);
        EXPECT_EQ(error.column(), c.column);
        EXPECT_EQ(error.field(), c.field);
    }
    EXPECT_EQ(testing::read_file(csv), c.text);
    // The lock was released and nothing else was left behind.
    EXPECT_EQ(dir.entries(), Entries{"tuned.csv"});
}

INSTANTIATE_TEST_SUITE_P(Cases, MalformedTunedCsv, ::testing::ValuesIn(malformed_cases()),
                         [](const auto& test_case) { return std::string(test_case.param.name); });

TEST(MalformedTunedCsvCases, AreAtLeastTwenty) { EXPECT_GE(malformed_cases().size(), 20u); }

// ---- concurrency: real processes racing ---------------------------------------------------

std::set<std::string> kernel_names_of(const TunedTable& table) {
    std::set<std::string> names;
    for (const TunedRecord& record : table.records) names.insert(record.row.kernel_name1);
    return names;
}

bool exited(pid_t pid, int& status) { return ::waitpid(pid, &status, WNOHANG) == pid; }

TEST(UpdateTunedCsv, TwoRacingWritersBothSurviveAndReadersSeeWholeFiles) {
    constexpr int kRowsPerWriter = 40;
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    testing::write_file(csv, tuned_csv_header() + "\n");

    testing::HelperProcess writer0({"update", csv, "0", std::to_string(kRowsPerWriter)});
    testing::HelperProcess writer1({"update", csv, "1", std::to_string(kRowsPerWriter)});
    writer0.write_stdin("g");
    writer1.write_stdin("g");

    // Read while they write: every read must parse completely, and rows never disappear.
    std::set<std::string> seen;
    std::size_t reads = 0;
    int status0 = 0;
    int status1 = 0;
    bool done0 = false;
    bool done1 = false;
    while (!(done0 && done1)) {
        const TunedTable table = parse_tuned_csv(csv, testing::read_file(csv));
        const std::set<std::string> now = kernel_names_of(table);
        for (const std::string& name : seen) ASSERT_TRUE(now.count(name)) << name << " vanished";
        seen = now;
        ++reads;
        done0 = done0 || exited(writer0.pid(), status0);
        done1 = done1 || exited(writer1.pid(), status1);
    }
    // waitpid reaped them: tell the fixtures not to.
    writer0.mark_reaped();
    writer1.mark_reaped();
    ASSERT_TRUE(WIFEXITED(status0) && WEXITSTATUS(status0) == 0);
    ASSERT_TRUE(WIFEXITED(status1) && WEXITSTATUS(status1) == 0);
    EXPECT_GT(reads, 0u);

    const TunedTable final_table = read_tuned_csv(csv);
    ASSERT_EQ(final_table.records.size(), 2u * kRowsPerWriter);
    const TunedIndex index(final_table);
    for (int writer = 0; writer < 2; ++writer) {
        for (int i = 0; i < kRowsPerWriter; ++i) {
            const TunedRow expected = testing::race_row(writer, i);
            const TunedRecord* found = index.find(expected.device, expected.shape);
            ASSERT_NE(found, nullptr) << "writer " << writer << " row " << i << " lost";
            EXPECT_EQ(found->row, expected);
        }
    }
    EXPECT_EQ(dir.entries(), (Entries{"tuned.csv"}));
}

}  // namespace
}  // namespace fhmoe::config
