#pragma once

// `fhmoe_evidence`: query, compare and export evidence archives. The handler takes the
// arguments after the program name, so tests drive it with argv vectors, no process.
//
// Exit codes (fhmoe/exit_code.hpp):
//   0  done; for `diff`, the two runs show no change
//   1  `diff` only: the runs differ (like diff(1), so scripts can branch on it)
//   2  bad input: unknown command or flag, missing or damaged archive, unknown shape
//  70  an internal error (a bug)

#include <ostream>
#include <string>
#include <vector>

namespace fhmoe::evidence::cli {

int run_evidence_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace fhmoe::evidence::cli
