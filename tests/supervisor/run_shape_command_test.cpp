// fhmoe_run_shape's command in this process, driven with argv vectors: the exit codes, the
// table and the messages, without starting the program (the worker is still a real process).

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "fhmoe_run_shape/run_shape_cli.hpp"

namespace {

struct Output {
    int exit_code = -1;
    std::string out;
    std::string err;
};

std::string read_all(std::FILE* file) {
    std::string text;
    std::rewind(file);
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
    std::fclose(file);
    return text;
}

Output run_cli(std::vector<std::string> args) {
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    Output output;
    if (out == nullptr || err == nullptr) return output;
    output.exit_code = fhmoe::run_shape::run_shape_cli(args, out, err);
    output.out = read_all(out);
    output.err = read_all(err);
    return output;
}

std::vector<std::string> tiny(std::vector<std::string> more) {
    std::vector<std::string> args{"--worker",    FHMOE_WORKER_PATH,
                                  "--token",     "3",
                                  "--model_dim", "512",
                                  "--inter_dim", "128",
                                  "--expert",    "17",
                                  "--topk",      "5",
                                  "--warmup",    "1",
                                  "--iters",     "3"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

TEST(RunShapeCommand, HelpIsUsageAndExitZero) {
    const Output out = run_cli({"--help"});
    EXPECT_EQ(out.exit_code, 0);
    EXPECT_NE(out.out.find("--candidate-sample"), std::string::npos) << out.out;
    EXPECT_EQ(out.err, "");
}

TEST(RunShapeCommand, MeasuresASampleOnTheSimBackend) {
    const Output out =
        run_cli(tiny({"--backend", "sim", "--candidate-sample", "2", "--seed", "1"}));
    EXPECT_EQ(out.exit_code, 0) << out.err;
    EXPECT_NE(out.out.find("2 candidates on backend sim"), std::string::npos) << out.out;
    EXPECT_NE(out.out.find("    0  ok"), std::string::npos) << out.out;
    EXPECT_NE(out.out.find("    1  ok"), std::string::npos) << out.out;
    EXPECT_EQ(out.err, "");
}

TEST(RunShapeCommand, BadInputIsExitTwoNamingTheFlag) {
    struct Case {
        std::vector<std::string> args;
        const char* says;
    };
    const std::vector<Case> cases{
        {{"--no-such-flag"}, "no-such-flag"},
        {{"--backend", "sim", "--token", "3"}, "--model_dim"},
        {tiny({"--gate_mode", "diagonal"}), "--gate_mode"},
        {tiny({"--candidates", "t32|a|b"}), "--candidates"},
        {tiny({"--iters", "0"}), "iters"},
        {tiny({"--inject-fault", "boom@1"}), "--inject-fault"},
        {tiny({"stray"}), "stray"},
    };
    for (const Case& c : cases) {
        const Output out = run_cli(c.args);
        EXPECT_EQ(out.exit_code, 2) << c.says << "\n" << out.err;
        EXPECT_NE(out.err.find("fhmoe_run_shape: "), std::string::npos) << out.err;
        EXPECT_NE(out.err.find(c.says), std::string::npos) << c.says << "\n" << out.err;
        EXPECT_EQ(out.out, "") << c.says;
    }
}

}  // namespace
