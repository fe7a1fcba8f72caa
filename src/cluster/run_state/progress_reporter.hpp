#pragma once

// Rank 0's progress: on a terminal a bar redrawn in place with rate and ETA (drawn through
// the ProgressTerminal sink that also writes the log lines, so neither garbles the other);
// otherwise (a Slurm log, a CI log) one plain line every interval, so logs stay readable and
// greppable; or nothing (--progress none).

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "fhmoe/cluster/progress_terminal.hpp"

namespace fhmoe::cluster {

struct ProgressSnapshot {
    // Measurements, not candidates: every chunk re-measures its shape's incumbent, so a shape
    // of 8 candidates in 2 chunks is 9 measurements (the archive keeps one row per candidate).
    std::size_t measured = 0;    // candidate results received this run
    std::size_t to_measure = 0;  // results this run expects (chunks planned so far)
    // Races, counted in contender-rounds: one contender timed for one round costs about what
    // one measurement does (the same iterations), so the two add up to the run's work. The
    // total holds the races planned and, for each shape still to race, finalists + 1
    // contenders times the rounds (an upper bound: fewer may finish their chunks ok).
    std::size_t races_done = 0;
    std::size_t races_total = 0;
    std::size_t race_work_done = 0;
    std::size_t race_work_total = 0;
    std::size_t shapes_decided = 0;  // shapes with a decision
    std::size_t shapes_total = 0;
    std::size_t ranks_busy = 0;
    std::size_t ranks = 0;
    double elapsed_s = 0.0;
};

// "[#####.....] 120/480 measurements, 1/12 races, 25%, 3/12 shapes decided, 4/4 ranks busy,
// 6.2/s, ETA 58s" (the bar only when `bar` is set): the percentage, rate and ETA are of the
// measurements and the race work together.
std::string format_progress(const ProgressSnapshot& snapshot, bool bar);

class ProgressReporter {
public:
    // A bar through `terminal` when it is given; otherwise lines every line_interval_s
    // (spdlog info), or nothing when `quiet`.
    ProgressReporter(std::shared_ptr<ProgressTerminal> terminal, bool quiet,
                     double line_interval_s);

    // Draws when due: a bar at most every 200 ms, a line every line_interval_s.
    void update(const ProgressSnapshot& snapshot);
    // The last state, always, ending the bar's line.
    void finish(const ProgressSnapshot& snapshot);

private:
    std::shared_ptr<ProgressTerminal> terminal_;
    bool quiet_;
    std::chrono::duration<double> interval_;
    std::chrono::steady_clock::time_point last_draw_{};
    bool drawn_ = false;
};

}  // namespace fhmoe::cluster
