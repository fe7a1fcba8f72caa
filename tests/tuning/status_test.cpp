#include <gtest/gtest.h>

#include <set>
#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::tuning {
namespace {

TEST(Status, NamesAreExactlyTheDesignNames) {
    std::set<std::string> names;
    for (Status status : all_statuses) names.emplace(to_string(status));
    EXPECT_EQ(names, (std::set<std::string>{"ok", "mismatch", "unsupported", "crash", "timeout",
                                            "oom_runtime", "oom_preflight", "not_run"}));
}

TEST(Status, RoundTripsThroughText) {
    for (Status status : all_statuses) {
        EXPECT_EQ(status_from_string(to_string(status)), status);
    }
}

TEST(Status, UnknownNameIsAnErrorThatListsTheValidNames) {
    try {
        status_from_string("OK");
        FAIL() << "expected ParseError";
    } catch (const ParseError& error) {
        EXPECT_NE(std::string(error.what()).find("unknown status 'OK'"), std::string::npos);
        EXPECT_NE(std::string(error.what()).find("oom_preflight"), std::string::npos);
    }
}

TEST(Status, OnlyNotRunIsNotTerminal) {
    for (Status status : all_statuses) {
        EXPECT_EQ(is_terminal(status), status != Status::not_run) << to_string(status);
    }
}

}  // namespace
}  // namespace fhmoe::tuning
