#include <gtest/gtest.h>

#include "config/csv_reader.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {
namespace {

std::string error_of(std::string_view text) {
    try {
        parse_csv("f.csv", text);
    } catch (const InputError& error) {
        return error.what();
    }
    return "(no error)";
}

TEST(CsvReader, StripsWhitespaceSkipsBlankLinesAndToleratesCr) {
    const CsvTable table = parse_csv("f.csv", "\n a , b\t\r\n\n  1 ,2\r\n \t\n3,  4  \n");
    ASSERT_EQ(table.header.size(), 2u);
    EXPECT_EQ(table.header[0].text, "a");
    EXPECT_EQ(table.header[1].text, "b");
    EXPECT_EQ(table.header_line, 2u);
    ASSERT_EQ(table.records.size(), 2u);
    EXPECT_EQ(table.records[0].line, 4u);
    EXPECT_EQ(table.records[0].fields[0].text, "1");
    EXPECT_EQ(table.records[0].fields[0].column, 3u);
    EXPECT_EQ(table.records[0].fields[1].column, 6u);
    EXPECT_EQ(table.records[0].source_text, "  1 ,2");
    EXPECT_EQ(table.records[1].line, 6u);
    EXPECT_EQ(table.records[1].fields[1].text, "4");
}

TEST(CsvReader, ReadsQuotedValues) {
    const CsvTable table = parse_csv("f.csv", "a,b,c\n\"x,y\", \"say \"\"hi\"\"\" ,\"\"\n");
    ASSERT_EQ(table.records.size(), 1u);
    EXPECT_EQ(table.records[0].fields[0].text, "x,y");
    EXPECT_EQ(table.records[0].fields[1].text, "say \"hi\"");
    EXPECT_EQ(table.records[0].fields[1].column, 8u);
    EXPECT_EQ(table.records[0].fields[2].text, "");
}

TEST(CsvReader, SkipsAUtf8ByteOrderMark) {
    const CsvTable table = parse_csv("f.csv", "\xEF\xBB\xBFtoken\n1\n");
    EXPECT_EQ(table.header[0].text, "token");
}

TEST(CsvReader, LastLineWithoutNewlineIsARecord) {
    const CsvTable table = parse_csv("f.csv", "a\n1\n2");
    ASSERT_EQ(table.records.size(), 2u);
    EXPECT_EQ(table.records[1].fields[0].text, "2");
}

TEST(CsvReader, ReportsMalformedLinesWithPosition) {
    EXPECT_EQ(error_of(""), "f.csv:1:1: field '(header)': no header line (the file is empty)");
    EXPECT_EQ(error_of("a,,b\n"), "f.csv:1:3: field '(header column 2)': empty column name");
    EXPECT_EQ(error_of("a,b,a\n"), "f.csv:1:5: field 'a': column named twice (first at column 1)");
    EXPECT_EQ(error_of("a,b\n1,2,3\n"),
              "f.csv:2:5: field '(extra)': line has 3 values but the header has 2 columns");
    EXPECT_EQ(error_of("a,b\n1\n"),
              "f.csv:2:2: field 'b': missing value: line has 1 values but the header has 2 "
              "columns");
    EXPECT_EQ(error_of("a,b\n1,\"2\n"),
              "f.csv:2:3: field 'b': unterminated quoted value (a value cannot span lines)");
    EXPECT_EQ(error_of("a,b\n\"1\"x,2\n"),
              "f.csv:2:4: field 'a': unexpected 'x' after a closing quote (expected ',' or end "
              "of line)");
    EXPECT_EQ(error_of("a,b\n1,2\"\n"),
              "f.csv:2:4: field 'b': a quote inside an unquoted value (quote the whole value and "
              "double the inner quote)");
}

TEST(CsvReader, MissingFileIsAnInputError) {
    try {
        read_csv_file("/nonexistent/fhmoe/file.csv");
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "/nonexistent/fhmoe/file.csv: cannot open: No such file or directory");
    }
}

}  // namespace
}  // namespace fhmoe::config
