#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <set>
#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::tuning {
namespace {

TEST(Policy, DefaultsAreTheDesignValues) {
    const TuningPolicy policy = default_policy();
    EXPECT_EQ(policy.measurement.warmup, 5);
    EXPECT_EQ(policy.measurement.iters, 101);
    EXPECT_DOUBLE_EQ(policy.measurement.err_ratio, 0.05);
    EXPECT_DOUBLE_EQ(policy.measurement.rtol, 1e-2);
    EXPECT_DOUBLE_EQ(policy.measurement.atol, 1e-2);
    EXPECT_DOUBLE_EQ(policy.measurement.timeout_s, 60.0);
    EXPECT_TRUE(policy.measurement.rotate_inputs);
    EXPECT_TRUE(policy.measurement.graph_replay);
    EXPECT_EQ(policy.run.batch, 100);
    EXPECT_DOUBLE_EQ(policy.promotion.min_improvement_pct, 3.0);
    EXPECT_DOUBLE_EQ(policy.promotion.false_promotion_rate, 0.01);
    EXPECT_FALSE(policy.promotion.lower_bound_gate);
    EXPECT_EQ(policy.finalist.finalists, 4);
    EXPECT_EQ(policy.finalist.rounds, 5);
    EXPECT_EQ(policy.finalist.max_rounds, 40);
    EXPECT_EQ(policy.search.mode, SearchMode::screen);
    EXPECT_EQ(policy.search.screen_warmup, 2);
    EXPECT_EQ(policy.search.screen_iters, 8);
    EXPECT_DOUBLE_EQ(policy.search.screen_error_rate, 0.001);
    EXPECT_NO_THROW(validate(policy));
}

TEST(Policy, SearchModesReadAndPrintTheirFlagValues) {
    EXPECT_EQ(search_mode_from_string("screen"), SearchMode::screen);
    EXPECT_EQ(search_mode_from_string("exhaustive"), SearchMode::exhaustive);
    EXPECT_EQ(search_mode_from_string("Screen"), std::nullopt);
    EXPECT_EQ(search_mode_from_string(""), std::nullopt);
    EXPECT_EQ(to_string(SearchMode::screen), "screen");
    EXPECT_EQ(to_string(SearchMode::exhaustive), "exhaustive");
}

TEST(Policy, FamilyOverridesOneFieldOfACopy) {
    // A family that needs a looser accuracy bar and a stricter promotion bar.
    TuningPolicy family = default_policy();
    family.measurement.err_ratio = 0.1;
    PromotionPolicy strict = family.promotion;
    strict.min_improvement_pct = 5.0;
    family.promotion = strict;

    EXPECT_NO_THROW(validate(family));
    EXPECT_DOUBLE_EQ(family.measurement.err_ratio, 0.1);
    EXPECT_DOUBLE_EQ(family.promotion.min_improvement_pct, 5.0);
    // Everything else keeps the default, and the defaults themselves are untouched.
    EXPECT_EQ(family.measurement.iters, 101);
    EXPECT_DOUBLE_EQ(default_policy().measurement.err_ratio, 0.05);
    EXPECT_DOUBLE_EQ(default_policy().promotion.min_improvement_pct, 3.0);
}

struct BadValue {
    std::string name;
    std::function<void(TuningPolicy&)> spoil;
    std::string field;
    std::string flag;
};

class PolicyValidation : public ::testing::TestWithParam<BadValue> {};

TEST_P(PolicyValidation, RejectsNonsenseNamingTheFieldAndFlag) {
    TuningPolicy policy = default_policy();
    GetParam().spoil(policy);
    try {
        validate(policy);
        FAIL() << "expected PolicyError for " << GetParam().field;
    } catch (const PolicyError& error) {
        EXPECT_EQ(error.field(), GetParam().field);
        EXPECT_EQ(error.flag(), GetParam().flag);
        const std::string what = error.what();
        EXPECT_NE(what.find("'" + GetParam().field + "'"), std::string::npos) << what;
        if (!GetParam().flag.empty()) {
            EXPECT_NE(what.find("(" + GetParam().flag + ")"), std::string::npos) << what;
        }
    }
}

const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

INSTANTIATE_TEST_SUITE_P(
    EveryField, PolicyValidation,
    ::testing::Values(
        BadValue{"warmup_negative", [](TuningPolicy& p) { p.measurement.warmup = -1; },
                 "measurement.warmup", "--warmup"},
        BadValue{"iters_zero", [](TuningPolicy& p) { p.measurement.iters = 0; },
                 "measurement.iters", "--iters"},
        BadValue{"err_ratio_negative", [](TuningPolicy& p) { p.measurement.err_ratio = -0.01; },
                 "measurement.err_ratio", "--errRatio"},
        BadValue{"err_ratio_above_one", [](TuningPolicy& p) { p.measurement.err_ratio = 1.5; },
                 "measurement.err_ratio", "--errRatio"},
        BadValue{"err_ratio_nan", [](TuningPolicy& p) { p.measurement.err_ratio = nan; },
                 "measurement.err_ratio", "--errRatio"},
        BadValue{"rtol_negative", [](TuningPolicy& p) { p.measurement.rtol = -1e-3; },
                 "measurement.rtol", "--rtol"},
        BadValue{"atol_nan", [](TuningPolicy& p) { p.measurement.atol = nan; }, "measurement.atol",
                 "--atol"},
        BadValue{"timeout_zero", [](TuningPolicy& p) { p.measurement.timeout_s = 0.0; },
                 "measurement.timeout_s", "--timeout"},
        BadValue{"timeout_infinite", [](TuningPolicy& p) { p.measurement.timeout_s = inf; },
                 "measurement.timeout_s", "--timeout"},
        BadValue{"batch_zero", [](TuningPolicy& p) { p.run.batch = 0; }, "run.batch", "--batch"},
        BadValue{"pct_negative", [](TuningPolicy& p) { p.promotion.min_improvement_pct = -1.0; },
                 "promotion.min_improvement_pct", "--min_improvement_pct"},
        BadValue{"pct_infinite", [](TuningPolicy& p) { p.promotion.min_improvement_pct = inf; },
                 "promotion.min_improvement_pct", "--min_improvement_pct"},
        BadValue{"rate_zero", [](TuningPolicy& p) { p.promotion.false_promotion_rate = 0.0; },
                 "promotion.false_promotion_rate", "--false_promotion_rate"},
        BadValue{"rate_above_half",
                 [](TuningPolicy& p) { p.promotion.false_promotion_rate = 0.51; },
                 "promotion.false_promotion_rate", "--false_promotion_rate"},
        BadValue{"rate_nan", [](TuningPolicy& p) { p.promotion.false_promotion_rate = nan; },
                 "promotion.false_promotion_rate", "--false_promotion_rate"},
        BadValue{"finalists_zero", [](TuningPolicy& p) { p.finalist.finalists = 0; },
                 "finalist.finalists", "--finalists"},
        BadValue{"rounds_one", [](TuningPolicy& p) { p.finalist.rounds = 1; }, "finalist.rounds",
                 "--rounds"},
        BadValue{"max_rounds_below_rounds",
                 [](TuningPolicy& p) {
                     p.finalist.rounds = 6;
                     p.finalist.max_rounds = 5;
                 },
                 "finalist.max_rounds", "--max_rounds"},
        BadValue{"screen_warmup_negative", [](TuningPolicy& p) { p.search.screen_warmup = -1; },
                 "search.screen_warmup", "--screen_warmup"},
        BadValue{"screen_iters_one", [](TuningPolicy& p) { p.search.screen_iters = 1; },
                 "search.screen_iters", "--screen_iters"},
        BadValue{"screen_rate_zero", [](TuningPolicy& p) { p.search.screen_error_rate = 0.0; },
                 "search.screen_error_rate", "--screen_error_rate"},
        BadValue{"screen_rate_nan", [](TuningPolicy& p) { p.search.screen_error_rate = nan; },
                 "search.screen_error_rate", "--screen_error_rate"}),
    [](const ::testing::TestParamInfo<BadValue>& param_info) { return param_info.param.name; });

TEST(Policy, BoundaryValuesAreAccepted) {
    TuningPolicy policy = default_policy();
    policy.measurement.warmup = 0;
    policy.measurement.iters = 1;
    policy.measurement.err_ratio = 0.0;
    policy.measurement.rtol = 0.0;
    policy.measurement.atol = 0.0;
    policy.run.batch = 1;
    policy.promotion.min_improvement_pct = 0.0;
    policy.promotion.false_promotion_rate = 0.5;
    policy.finalist.finalists = 1;
    policy.finalist.rounds = 2;
    policy.finalist.max_rounds = 2;  // a fixed race of one look
    policy.search.screen_warmup = 0;
    policy.search.screen_iters = 2;
    policy.search.screen_error_rate = 0.5;
    EXPECT_NO_THROW(validate(policy));
    policy.measurement.err_ratio = 1.0;
    EXPECT_NO_THROW(validate(policy));
}

// The named list is the only place policy names live: every field of every struct must
// appear in it exactly once, so changing one field changes exactly one named value.
TEST(Policy, NamedValuesCoverEveryFieldOnce) {
    const std::vector<std::function<void(TuningPolicy&)>> change_one_field = {
        [](TuningPolicy& p) { p.measurement.warmup = 7; },
        [](TuningPolicy& p) { p.measurement.iters = 55; },
        [](TuningPolicy& p) { p.measurement.err_ratio = 0.2; },
        [](TuningPolicy& p) { p.measurement.rtol = 0.3; },
        [](TuningPolicy& p) { p.measurement.atol = 0.4; },
        [](TuningPolicy& p) { p.measurement.max_cosine_distance = 0.5; },
        [](TuningPolicy& p) { p.measurement.timeout_s = 9.0; },
        [](TuningPolicy& p) { p.measurement.rotate_inputs = false; },
        [](TuningPolicy& p) { p.measurement.graph_replay = false; },
        [](TuningPolicy& p) { p.run.batch = 3; },
        [](TuningPolicy& p) { p.promotion.min_improvement_pct = 8.0; },
        [](TuningPolicy& p) { p.promotion.false_promotion_rate = 0.2; },
        [](TuningPolicy& p) { p.promotion.lower_bound_gate = true; },
        [](TuningPolicy& p) { p.finalist.finalists = 2; },
        [](TuningPolicy& p) { p.finalist.rounds = 11; },
        [](TuningPolicy& p) { p.finalist.max_rounds = 41; },
        [](TuningPolicy& p) { p.search.mode = SearchMode::exhaustive; },
        [](TuningPolicy& p) { p.search.screen_warmup = 4; },
        [](TuningPolicy& p) { p.search.screen_iters = 6; },
        [](TuningPolicy& p) { p.search.screen_error_rate = 0.01; },
    };
    const std::vector<NamedPolicyValue> defaults = named_policy_values(default_policy());
    ASSERT_EQ(defaults.size(), change_one_field.size());
    std::set<std::string> names;
    for (const NamedPolicyValue& field : defaults) names.insert(field.name);
    EXPECT_EQ(names.size(), defaults.size()) << "a name used twice";
    EXPECT_TRUE(names.contains("errRatio") && names.contains("min_improvement_pct") &&
                names.contains("iters") && names.contains("timeout"))
        << "aiter's flag spellings";

    std::set<std::string> changed_names;
    for (const auto& change : change_one_field) {
        TuningPolicy policy = default_policy();
        change(policy);
        const std::vector<NamedPolicyValue> now = named_policy_values(policy);
        ASSERT_EQ(now.size(), defaults.size());
        int changed = 0;
        for (std::size_t i = 0; i < now.size(); ++i) {
            EXPECT_EQ(now[i].name, defaults[i].name) << "the order is fixed";
            if (now[i].value != defaults[i].value) {
                ++changed;
                changed_names.insert(now[i].name);
            }
        }
        EXPECT_EQ(changed, 1);
    }
    EXPECT_EQ(changed_names.size(), defaults.size()) << "a field reaches no name";
    for (const NamedPolicyValue& field : defaults) {
        EXPECT_EQ(field.changes_results, field.name != "batch") << field.name;
    }
}

TEST(Policy, PolicyErrorIsAnFhmoeError) {
    TuningPolicy policy = default_policy();
    policy.measurement.iters = -3;
    EXPECT_THROW(validate(policy), Error);
    try {
        validate(policy);
    } catch (const PolicyError& error) {
        EXPECT_NE(std::string(error.what()).find("got -3"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace fhmoe::tuning
