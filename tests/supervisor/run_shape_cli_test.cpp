// fhmoe_run_shape end to end: a real CLI process, its worker processes, its table and exit
// codes.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

struct Output {
    std::string text;
    int exit_code = -1;
};

Output run_cli(const std::string& args) {
    const std::string command =
        std::string(FHMOE_RUN_SHAPE_PATH) + " --worker " + FHMOE_WORKER_PATH + " " + args + " 2>&1";
    Output output;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return output;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.text.append(buffer, n);
    const int status = ::pclose(pipe);
    output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return output;
}

const std::string tiny =
    "--token 3 --model_dim 512 --inter_dim 128 --expert 17 --topk 5 --warmup 1 --iters 3";

TEST(RunShapeCli, PrintsOneRowPerCandidateWithTheInjectedCrash) {
    const Output out =
        run_cli(tiny + " --backend sim --candidate-sample 4 --seed 3 --inject-fault crash@1");
    EXPECT_EQ(out.exit_code, 0) << out.text;
    EXPECT_NE(out.text.find("4 candidates on backend sim"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find("    1  crash"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find("killed by signal 11 (SIGSEGV)"), std::string::npos) << out.text;
    for (const char* row : {"    0  ok", "    2  ok", "    3  ok"}) {
        EXPECT_NE(out.text.find(row), std::string::npos) << row << "\n" << out.text;
    }
}

TEST(RunShapeCli, ALoadThatNeverSucceedsExitsIncomplete) {
    const Output out =
        run_cli(tiny + " --backend sim --candidate-sample 2 --inject-fault genfail!@0");
    EXPECT_EQ(out.exit_code, 1) << out.text;
    EXPECT_NE(out.text.find("not_run"), std::string::npos) << out.text;
}

TEST(RunShapeCli, BadFlagsAreBadInput) {
    EXPECT_EQ(run_cli(tiny + " --backend sim --inject-fault boom@1").exit_code, 2);
    EXPECT_EQ(run_cli(tiny + " --backend sim --iters 0").exit_code, 2);
    EXPECT_EQ(run_cli("--backend sim --token 3").exit_code, 2);
}

}  // namespace
