#pragma once

// The end-of-run summary (run_summary.hpp) as JSON, for scripts and tests that must not
// scrape the printed table (--summary-json PATH). It is rank 0's own account of the run,
// taken from its live state, not from the journal or the archive:
//
//   {"exit_code": 0, "ranks": 4, "policy": {"iters": 3, "rotate_inputs": true, ...},
//    "shapes": [{"shape": "t3_h512_i128_e17_k5_gui", "lookup_token": 4,
//                "decision": "promote", "tuned": true, "candidates": {"ok": 6},
//                "race_samples": 9, "published": "bm32|...", "incumbent": "bm16|...",
//                "best_challenger": "bm32|...", "margin_pct": 41.5, "reason": "..."}, ...]}
//
// (keys in this order, written by nlohmann-json with one space of indent per level; a policy
// switch is true/false, every other policy value a number)
// `candidates` holds the statuses with a non-zero count; `race_samples` counts the (contender,
// round) timings of the shape's race (0 without a race); `margin_pct` (the best challenger's
// over the incumbent) is null when absent; `published` is "-" and `best_challenger` "" when
// there is none.
// Shapes skipped by the run ("already tuned", "other device") are listed with no candidates.

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cluster/run_state/run_summary.hpp"

namespace fhmoe::cluster {

struct RunSummaryFacts {
    int exit_code = 0;
    int ranks = 1;
    std::vector<std::pair<std::string, double>> policy;
    std::map<std::string, std::size_t> race_samples;  // shape key -> race timings
};

std::string format_summary_json(const std::vector<SummaryLine>& lines,
                                const RunSummaryFacts& facts);

// Writes `text` to `path` through a temporary file and a rename, so a reader never sees half
// of it. Throws fhmoe::InputError naming the path when it cannot be written.
void write_summary_json(const std::string& path, const std::string& text);

}  // namespace fhmoe::cluster
