#include <gtest/gtest.h>

#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/worker/fault_spec.hpp"

namespace fhmoe::worker {
namespace {

TEST(FaultPlan, ParsesTheFullGrammar) {
    const FaultPlan plan = FaultPlan::parse(
        "crash@3,exit@5,hang@7,oom@9,wrong@11,unsupported@2,oom_preflight@4,genfail@0,"
        "crash@t3_h512_i128_e17_k5_gui:3,genfail!@6");
    ASSERT_EQ(plan.entries().size(), 10U);
    EXPECT_EQ(plan.entries()[0].kind, FaultKind::crash);
    EXPECT_EQ(plan.entries()[0].index, 3);
    EXPECT_EQ(plan.entries()[6].kind, FaultKind::oom_preflight);
    EXPECT_EQ(plan.entries()[8].shape_key, "t3_h512_i128_e17_k5_gui");
    EXPECT_TRUE(plan.entries()[9].every_attempt);
    EXPECT_EQ(plan.entries()[9].text(), "genfail!@6");
    EXPECT_EQ(plan.entries()[8].text(), "crash@t3_h512_i128_e17_k5_gui:3");
    EXPECT_TRUE(FaultPlan::parse("").empty());
}

TEST(FaultPlan, FiresOnlyOnTheFirstAttemptUnlessMarked) {
    const FaultPlan plan = FaultPlan::parse("crash@3,genfail@0,genfail!@5");
    EXPECT_TRUE(plan.for_candidate("s", 3, 0).has_value());
    EXPECT_FALSE(plan.for_candidate("s", 3, 1).has_value());
    EXPECT_FALSE(plan.for_candidate("s", 2, 0).has_value());
    EXPECT_TRUE(plan.for_load("s", 0, 0).has_value());
    EXPECT_FALSE(plan.for_load("s", 0, 1).has_value());
    EXPECT_TRUE(plan.for_load("s", 5, 7).has_value());
    // Loads and candidates never see each other's faults.
    EXPECT_FALSE(plan.for_load("s", 3, 0).has_value());
    EXPECT_FALSE(plan.for_candidate("s", 0, 0).has_value());
}

TEST(FaultPlan, RaceOnlyFaultsFireInRacesAndNeverInChunks) {
    const FaultPlan plan =
        FaultPlan::parse("crash@race:3,exit@race:t3_h512_i128_e17_k5_gui:4,hang@5");
    EXPECT_TRUE(plan.entries()[0].race_only);
    EXPECT_EQ(plan.entries()[0].text(), "crash@race:3");
    EXPECT_EQ(plan.entries()[1].text(), "exit@race:t3_h512_i128_e17_k5_gui:4");
    EXPECT_FALSE(plan.for_candidate("s", 3, 0).has_value());
    EXPECT_TRUE(plan.for_race_contender("s", 3, 0).has_value());
    EXPECT_FALSE(plan.for_race_contender("s", 3, 1).has_value()) << "the fresh worker's rerun";
    EXPECT_TRUE(plan.for_race_contender("t3_h512_i128_e17_k5_gui", 4, 0).has_value());
    EXPECT_FALSE(plan.for_race_contender("other", 4, 0).has_value());
    // An ordinary entry fires in both, as before.
    EXPECT_TRUE(plan.for_candidate("s", 5, 0).has_value());
    EXPECT_TRUE(plan.for_race_contender("s", 5, 0).has_value());
    EXPECT_THROW(FaultPlan::parse("genfail@race:0"), ParseError);
}

TEST(FaultPlan, ShapeRestrictionMatchesOnlyThatShape) {
    const FaultPlan plan = FaultPlan::parse("hang@t3_h512_i128_e17_k5_gui:7");
    EXPECT_TRUE(plan.for_candidate("t3_h512_i128_e17_k5_gui", 7, 0).has_value());
    EXPECT_FALSE(plan.for_candidate("t4_h512_i128_e17_k5_gui", 7, 0).has_value());
}

TEST(FaultPlan, BadEntriesAreParseErrorsNamingTheEntry) {
    for (const char* spec : {"crash", "boom@1", "crash@", "crash@-1", "crash@x", "crash@1,",
                             "crash@1,,exit@2", ":3", "crash@:3", "crash@1x"}) {
        try {
            FaultPlan::parse(spec);
            ADD_FAILURE() << "accepted '" << spec << "'";
        } catch (const ParseError& error) {
            EXPECT_NE(std::string(error.what()).find("--inject-fault entry"), std::string::npos)
                << error.what();
        }
    }
}

}  // namespace
}  // namespace fhmoe::worker
