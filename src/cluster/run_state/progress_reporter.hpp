#pragma once

// Rank 0's progress: on a terminal a bar redrawn in place with rate and ETA; otherwise (a
// Slurm log, a CI log) one plain line every interval, so logs stay readable and greppable.

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace fhmoe::cluster {

struct ProgressSnapshot {
    // Measurements, not candidates: every chunk re-measures its shape's incumbent, so a shape
    // of 8 candidates in 2 chunks is 9 measurements (the archive keeps one row per candidate).
    std::size_t measured = 0;        // candidate results received this run
    std::size_t to_measure = 0;      // results this run expects (chunks planned so far)
    std::size_t shapes_decided = 0;  // shapes with a decision
    std::size_t shapes_total = 0;
    std::size_t ranks_busy = 0;
    std::size_t ranks = 0;
    double elapsed_s = 0.0;
};

// "[#####.....] 120/480 measurements 25%, 3/12 shapes, 4/4 ranks busy, 6.2/s, ETA 58s" (the
// bar only when `bar` is set).
std::string format_progress(const ProgressSnapshot& snapshot, bool bar);

class ProgressReporter {
public:
    // `out` is where the bar goes (stderr); `is_terminal` chooses bar or lines.
    ProgressReporter(std::FILE* out, bool is_terminal, double line_interval_s);

    // Draws when due: a bar at most every 200 ms, a line every line_interval_s.
    void update(const ProgressSnapshot& snapshot);
    // The last state, always, ending the bar's line.
    void finish(const ProgressSnapshot& snapshot);

private:
    std::FILE* out_;
    bool is_terminal_;
    std::chrono::duration<double> interval_;
    std::chrono::steady_clock::time_point last_draw_{};
    bool drawn_ = false;
};

}  // namespace fhmoe::cluster
