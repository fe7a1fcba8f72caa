#pragma once

// `fhmoe_run_shape`: measures one shape's candidates through one supervised worker and prints
// each typed result as it streams in. The single-rank path of the tuner, for engineers and
// fault drills (--inject-fault); it decides and writes nothing. The handler takes the
// arguments after the program name, so tests drive it with argv vectors.
//
// Exit codes (fhmoe/exit_code.hpp):
//   0  every candidate has a terminal status
//   1  some candidate was not run (the shape's load never succeeded, or the run stopped)
//   2  bad input: unknown or invalid flag, unreadable CSV, a shape the family cannot build
//  70  an internal error (a bug)

#include <cstdio>
#include <string>
#include <vector>

namespace fhmoe::run_shape {

// The table goes to `out` as results arrive (flushed after each), errors to `err`.
int run_shape_cli(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace fhmoe::run_shape
