// fhmoe_tune_mpi's command line, parsed from argv vectors.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "fhmoe/cluster/tune_options.hpp"

namespace fhmoe::cluster {
namespace {

TuneOptions parse(std::vector<std::string> args) {
    args.insert(args.begin(), "fhmoe_tune_mpi");
    auto parsed = parse_tune_command_line(args);
    if (!parsed.options) throw std::runtime_error("help");
    return *parsed.options;
}

TEST(TuneOptions, DefaultsComeFromTheTuningPolicy) {
    const TuneOptions o = parse({"-i", "in.csv", "-o", "out.csv"});
    const tuning::TuningPolicy policy = tuning::default_policy();
    EXPECT_EQ(o.policy.measurement.warmup, policy.measurement.warmup);
    EXPECT_EQ(o.policy.measurement.iters, policy.measurement.iters);
    EXPECT_EQ(o.policy.measurement.err_ratio, policy.measurement.err_ratio);
    EXPECT_EQ(o.policy.measurement.timeout_s, policy.measurement.timeout_s);
    EXPECT_EQ(o.policy.run.batch, policy.run.batch);
    EXPECT_EQ(o.policy.promotion.min_improvement_pct, policy.promotion.min_improvement_pct);
    EXPECT_EQ(o.policy.finalist.finalists, policy.finalist.finalists);
    EXPECT_EQ(o.policy.finalist.rounds, policy.finalist.rounds);
    EXPECT_EQ(o.journal_path, "out.csv.journal");
    EXPECT_EQ(o.backend, worker::BackendKind::cpu);
    EXPECT_FALSE(o.candidate_sample.has_value());
    EXPECT_FALSE(o.run_config.has_value());
    EXPECT_TRUE(o.summary_json_path.empty());
    EXPECT_EQ(
        parse({"-i", "in.csv", "-o", "out.csv", "--summary-json", "s.json"}).summary_json_path,
        "s.json");
}

TEST(TuneOptions, AiterFlagNamesSetThePolicy) {
    const TuneOptions o = parse({"-i",          "in.csv",    "-o",
                                 "out.csv",     "--warmup",  "2",
                                 "--iters",     "7",         "--errRatio",
                                 "0.1",         "--timeout", "9",
                                 "--batch",     "3",         "--min_improvement_pct",
                                 "5",           "--all",     "--candidate-sample",
                                 "16",          "--seed",    "42",
                                 "--finalists", "3",         "--rounds",
                                 "4",           "--chunk",   "8",
                                 "--backend",   "sim",       "--resume",
                                 "--journal",   "j.bin"});
    EXPECT_EQ(o.policy.measurement.warmup, 2);
    EXPECT_EQ(o.policy.measurement.iters, 7);
    EXPECT_EQ(o.policy.measurement.err_ratio, 0.1);
    EXPECT_EQ(o.policy.measurement.timeout_s, 9.0);
    EXPECT_EQ(o.policy.run.batch, 3);
    EXPECT_EQ(o.policy.promotion.min_improvement_pct, 5.0);
    EXPECT_TRUE(o.retune_all);
    EXPECT_EQ(o.candidate_sample, 16U);
    EXPECT_EQ(o.seed, 42U);
    EXPECT_EQ(o.policy.finalist.finalists, 3);
    EXPECT_EQ(o.policy.finalist.rounds, 4);
    EXPECT_EQ(o.chunk_size, 8U);
    EXPECT_EQ(o.backend, worker::BackendKind::sim);
    EXPECT_TRUE(o.resume);
    EXPECT_EQ(o.journal_path, "j.bin");
}

// DESIGN.md section 3: every policy value is also a CLI flag. Each named policy value (the
// one list of policy names) must be settable by the flag of the same name, and setting it
// must change that value and no other.
TEST(TuneOptions, EveryPolicyValueIsAFlagOfTheSameName) {
    const auto defaults = tuning::named_policy_values(parse({"-i", "a", "-o", "b"}).policy);
    for (const tuning::NamedPolicyValue& field : defaults) {
        std::string value;
        double expected = 0.0;
        if (field.is_switch) {
            value = field.value != 0.0 ? "false" : "true";
            expected = field.value != 0.0 ? 0.0 : 1.0;
        } else if (field.name == "search") {  // a word on the command line, 1 or 0 as a value
            value = field.value != 0.0 ? "exhaustive" : "screen";
            expected = field.value != 0.0 ? 0.0 : 1.0;
        } else {
            expected =
                field.value == std::floor(field.value) ? field.value + 1.0 : field.value * 2.0;
            std::ostringstream text;
            text << expected;
            value = text.str();
        }
        const std::string flag = "--" + field.name + "=" + value;  // a switch takes "=false"
        SCOPED_TRACE(flag);
        const auto now = tuning::named_policy_values(parse({"-i", "a", "-o", "b", flag}).policy);
        ASSERT_EQ(now.size(), defaults.size());
        for (std::size_t i = 0; i < now.size(); ++i) {
            if (now[i].name == field.name) {
                EXPECT_DOUBLE_EQ(now[i].value, expected);
            } else {
                EXPECT_EQ(now[i].value, defaults[i].value) << now[i].name << " moved too";
            }
        }
    }
}

TEST(TuneOptions, RunConfigIsBareOrTakesACsv) {
    EXPECT_EQ(parse({"-i", "in.csv", "-o", "out.csv", "--run_config"}).run_config, "");
    const TuneOptions with_csv = parse({"--run_config", "rows.csv"});
    EXPECT_EQ(with_csv.run_config, "rows.csv");
}

TEST(TuneOptions, InconsistentOrBadFlagsAreUsageErrors) {
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--update_improved"}), UsageError);
    EXPECT_NO_THROW(parse({"-i", "a", "-o", "b", "--update_improved", "--compare"}));
    EXPECT_THROW(parse({"-o", "b"}), UsageError);
    EXPECT_THROW(parse({"-i", "a"}), UsageError);
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--backend", "tpu"}), UsageError);
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--rounds", "1"}), UsageError);
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--iters", "0"}), UsageError);
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--rtol=-1"}), UsageError);
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--false_promotion_rate=nan"}), UsageError);
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--rotate_inputs=maybe"}), UsageError);
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--inject-fault", "explode@3"}), UsageError);
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--chunk", "0"}), UsageError);
    EXPECT_THROW(parse({"-i", "a", "-o", "b", "--no-such-flag"}), UsageError);
}

std::string usage_error(std::vector<std::string> args) {
    try {
        parse(std::move(args));
    } catch (const UsageError& error) {
        return error.what();
    }
    return "(accepted)";
}

// --run_config replays and exits: a flag only a tuning run acts on is refused, naming both.
TEST(TuneOptions, FlagsThatRunConfigWouldIgnoreConflictWithIt) {
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--compare", "--run_config"}),
              "--run_config and --compare conflict: --run_config only replays tuned rows (it "
              "tunes, journals and archives nothing)");
    EXPECT_NE(usage_error({"-i", "a", "-o", "b", "--run_config", "--compare", "--update_improved"})
                  .find("--run_config and --compare conflict"),
              std::string::npos);
    for (const char* flag : {"--all", "--resume"}) {
        EXPECT_NE(usage_error({"--run_config", "rows.csv", flag})
                      .find(std::string("--run_config and ") + flag + " conflict"),
                  std::string::npos)
            << flag;
    }
    EXPECT_NE(usage_error({"--run_config", "rows.csv", "--evidence", "e.h5"})
                  .find("--run_config and --evidence conflict"),
              std::string::npos);
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--run_config", "--iters", "5"}), "(accepted)");
}

// A value that does not parse names its flag (cxxopts' own message names only the value).
TEST(TuneOptions, AValueThatDoesNotParseNamesItsFlag) {
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--iters", "abc"}),
              "--iters: 'abc' is not an integer");
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--timeout", "inf"}),
              "--timeout: 'inf' is not a finite number");
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--seed=-1"}),
              "--seed: '-1' is not a non-negative integer");
    EXPECT_NE(usage_error({"-i", "a", "-o", "b", "--seed", "-1"}).find("seed"), std::string::npos);
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--candidate-sample", "8x"}),
              "--candidate-sample: '8x' is not a non-negative integer");
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--rotate_inputs=maybe"}),
              "--rotate_inputs: 'maybe' is not true or false");
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--lock-timeout", "nan"}),
              "--lock-timeout: 'nan' is not a finite number");
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--warmup", "99999999999"}),
              "--warmup: '99999999999' is not an integer");
    EXPECT_TRUE(parse({"-i", "a", "-o", "b", "--rotate_inputs"}).policy.measurement.rotate_inputs);
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--search", "fast"}),
              "--search: 'fast' is not screen or exhaustive");
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--screen_iters", "1"}).substr(0, 16),
              "--screen_iters: ");
    EXPECT_NE(
        usage_error({"-i", "a", "-o", "b", "--screen_error_rate", "0"}).find("--screen_error_rate"),
        std::string::npos);
}

TEST(TuneOptions, SearchPicksScreenOrExhaustive) {
    EXPECT_EQ(parse({"-i", "a", "-o", "b"}).policy.search.mode,
              tuning::default_policy().search.mode);
    const TuneOptions screen = parse({"-i", "a", "-o", "b", "--search", "screen", "--screen_iters",
                                      "5", "--screen_warmup", "0", "--screen_error_rate", "0.01"});
    EXPECT_EQ(screen.policy.search.mode, tuning::SearchMode::screen);
    EXPECT_EQ(screen.policy.search.screen_iters, 5);
    EXPECT_EQ(screen.policy.search.screen_warmup, 0);
    EXPECT_DOUBLE_EQ(screen.policy.search.screen_error_rate, 0.01);
    EXPECT_EQ(parse({"-i", "a", "-o", "b", "--search=exhaustive"}).policy.search.mode,
              tuning::SearchMode::exhaustive);
}

// A 2 MB value is named by an excerpt and its length, never echoed whole.
TEST(TuneOptions, AHugeValueIsQuotedAsAnExcerpt) {
    const std::string huge(2 * 1024 * 1024, 'x');
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"-i", "a", "-o", "b", "--iters", huge},
          std::vector<std::string>{"-i", "a", "-o", "b", "--backend", huge},
          std::vector<std::string>{"-i", "a", "-o", "b", "--inject-fault", huge},
          std::vector<std::string>{"-i", "a", "-o", "b", "--" + huge},
          std::vector<std::string>{"-i", "a", "-o", "b", huge}}) {
        const std::string message = usage_error(args);
        EXPECT_LT(message.size(), 1024U) << message.substr(0, 300);
        EXPECT_NE(message.find(" bytes)' is longer than 16384 bytes"), std::string::npos)
            << message.substr(0, 300);
    }
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--backend", huge}).substr(0, 14),
              "--backend: 'xx");
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--inject-fault=" + huge}).substr(0, 18),
              "--inject-fault: 'x");
    // Up to the limit a value reaches its own check, which quotes it as an excerpt.
    const std::string long_value(16 * 1024, 'y');
    const std::string message = usage_error({"-i", "a", "-o", "b", "--backend", long_value});
    EXPECT_NE(message.find("--backend must be cpu, gpu or sim, not 'yyy"), std::string::npos)
        << message.substr(0, 300);
    EXPECT_NE(message.find("... (16384 bytes)'"), std::string::npos) << message.substr(0, 300);
}

TEST(TuneOptions, HelpDocumentsEveryFlag) {
    const auto parsed = parse_tune_command_line({"fhmoe_tune_mpi", "--help"});
    EXPECT_FALSE(parsed.options.has_value());
    for (const char* flag : {"untune_file",
                             "tune_file",
                             "--all",
                             "--compare",
                             "--update_improved",
                             "--run_config",
                             "--warmup",
                             "--iters",
                             "--errRatio",
                             "--timeout",
                             "--batch",
                             "--min_improvement_pct",
                             "--candidate-sample",
                             "--backend",
                             "--journal",
                             "--resume",
                             "--evidence",
                             "--summary-json",
                             "--finalists",
                             "--rounds",
                             "--rtol",
                             "--atol",
                             "--max_cosine_distance",
                             "--rotate_inputs",
                             "--graph_replay",
                             "--false_promotion_rate",
                             "--lower_bound_gate",
                             "--seed",
                             "--chunk",
                             "--inject-fault",
                             "--verbose",
                             "--worker",
                             "--version",
                             "--mp",
                             "--sort",
                             "--search",
                             "--screen_warmup",
                             "--screen_iters",
                             "--screen_error_rate"}) {
        EXPECT_NE(parsed.help_text.find(flag), std::string::npos) << flag;
    }
}

std::string usage_error_of(std::vector<std::string> args) {
    args.insert(args.begin(), "fhmoe_tune_mpi");
    try {
        (void)parse_tune_command_line(args);
    } catch (const UsageError& error) {
        return error.what();
    }
    return "(no usage error)";
}

TEST(TuneOptions, VersionIsAskedForAndNothingElseIsParsed) {
    const auto parsed = parse_tune_command_line({"fhmoe_tune_mpi", "--version"});
    EXPECT_TRUE(parsed.show_version);
    EXPECT_FALSE(parsed.options.has_value());
    EXPECT_FALSE(parse_tune_command_line({"fhmoe_tune_mpi", "-i", "a", "-o", "b"}).show_version);
}

// aiter's habits (reference section 4.1): --mp is the launch's rank count here, --sort is
// what the tuned CSV always is, and --profile_file is the evidence archive's export.
TEST(TuneOptions, AiterMpIsAcceptedWhenItIsTheRankCount) {
    const TuneOptions o = parse({"-i", "a", "-o", "b", "--mp", "4"});
    ASSERT_EQ(o.mp, 4);
    EXPECT_NO_THROW(check_aiter_mp(o, 4));
    EXPECT_NO_THROW(check_aiter_mp(parse({"-i", "a", "-o", "b"}), 3)) << "no --mp, no check";
    try {
        check_aiter_mp(o, 2);
        FAIL() << "--mp 4 on 2 ranks was accepted";
    } catch (const UsageError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("--mp 4: this launch has 2 ranks"), std::string::npos) << message;
        EXPECT_NE(message.find("mpirun -np 4"), std::string::npos) << message;
        EXPECT_NE(message.find("srun -n 4"), std::string::npos) << message;
    }
    EXPECT_NE(usage_error_of({"-i", "a", "-o", "b", "--mp", "0"}).find("--mp must be >= 1"),
              std::string::npos);
    EXPECT_NE(usage_error_of({"-i", "a", "-o", "b", "--mp", "x"}).find("--mp: 'x'"),
              std::string::npos);
}

TEST(TuneOptions, AiterSortIsAcceptedForTheAlwaysSortedCsv) {
    EXPECT_EQ(parse({"-i", "a", "-o", "b", "--sort"}).tuned_path, "b");
}

TEST(TuneOptions, AiterProfileFileIsRefusedNamingTheEvidenceExport) {
    for (const std::vector<std::string>& flag :
         std::vector<std::vector<std::string>>{{"-o2", "profile.csv"},
                                               {"-o2=profile.csv"},
                                               {"--profile_file", "profile.csv"},
                                               {"--profile_file=profile.csv"}}) {
        std::vector<std::string> args = {"-i", "a", "-o", "b"};
        args.insert(args.end(), flag.begin(), flag.end());
        const std::string message = usage_error_of(args);
        SCOPED_TRACE(flag.front());
        EXPECT_NE(message.find("-o2/--profile_file"), std::string::npos) << message;
        EXPECT_NE(message.find("--evidence RUN.h5"), std::string::npos) << message;
        EXPECT_NE(message.find("fhmoe_evidence export RUN.h5 --csv DIR"), std::string::npos)
            << message;
    }
}

}  // namespace
}  // namespace fhmoe::cluster
