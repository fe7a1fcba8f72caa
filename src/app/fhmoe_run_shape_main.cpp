// fhmoe_run_shape: one shape's candidates through one supervised worker (issue #5). The
// command lives in tools/fhmoe_run_shape; this main only hands it argv.

#include <cstdio>
#include <string>
#include <vector>

#include "fhmoe_run_shape/run_shape_cli.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return fhmoe::run_shape::run_shape_cli(args, stdout, stderr);
}
