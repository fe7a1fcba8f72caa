#include "fhmoe/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fhmoe {
namespace {

// Where a test raises its errors: this file, as the error reports it.
constexpr const char* kThisFile = "tests/base/error_test.cpp";

TEST(Error, RecordsWhereItWasRaisedRelativeToTheSourceTree) {
    const int line = __LINE__ + 1;
    const Error error("something went wrong");
    EXPECT_EQ(error.location(), std::string(kThisFile) + ":" + std::to_string(line));
    EXPECT_EQ(error.where().line(), static_cast<unsigned>(line));
}

TEST(Error, AnInternalErrorsWhatEndsWithFileAndLine) {
    const int line = __LINE__ + 1;
    const InternalError error("the queue lost a chunk");
    EXPECT_EQ(std::string(error.what()), "the queue lost a chunk (at " + std::string(kThisFile) +
                                             ":" + std::to_string(line) + ")");
}

TEST(Error, FhmoeCheckNamesTheConditionAndTheLineOfTheCheck) {
    int line = 0;
    try {
        line = __LINE__ + 1;
        FHMOE_CHECK(1 + 1 == 3, "arithmetic");
        FAIL() << "the check passed";
    } catch (const InternalError& error) {
        EXPECT_EQ(std::string(error.what()), "check failed: 1 + 1 == 3: arithmetic (at " +
                                                 std::string(kThisFile) + ":" +
                                                 std::to_string(line) + ")");
    }
}

// The errors users read (exit 2, exit 4, ...) and the reasons stored in records keep their
// text: the place is in location() for logs, not in what().
TEST(Error, UserFacingErrorsKeepTheirMessageClean) {
    const InputError input("tuned.csv", 3, 7, "cu_num", "not an integer");
    EXPECT_EQ(std::string(input.what()), "tuned.csv:3:7: field 'cu_num': not an integer");
    EXPECT_EQ(input.location().rfind(kThisFile, 0), 0U) << input.location();
    const ParseError parse("unknown status 'maybe'");
    EXPECT_EQ(std::string(parse.what()), "unknown status 'maybe'");
    class DerivedError : public Error {
    public:
        using Error::Error;
    };
    const int line = __LINE__ + 1;
    const DerivedError derived("derived");
    EXPECT_EQ(std::string(derived.what()), "derived");
    EXPECT_EQ(derived.location(), std::string(kThisFile) + ":" + std::to_string(line))
        << "an inherited constructor records its caller, not the using-declaration";
}

}  // namespace
}  // namespace fhmoe
