#pragma once

// One candidate's measured outcome: what was run, what happened, how fast, how accurate,
// and where. This is the record that travels worker -> rank -> rank 0 -> journal/HDF5.

#include <cstdint>
#include <string>

#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::tuning {

// A candidate's identity inside one shape: block_m plus the two kernel names. The key
// "bm{block_m}|{stage1}|{stage2}" is stable and readable; it sorts, shards and keys records.
struct CandidateId {
    int block_m = 0;
    std::string stage1;
    std::string stage2;

    std::string key() const;
    auto operator<=>(const CandidateId&) const = default;
};

template <typename Visitor, RecordOf<CandidateId> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("block_m", r.block_m);
    visit("stage1", r.stage1);
    visit("stage2", r.stage2);
}
static_assert(lists_every_member<CandidateId>());

// Statistics of the timed iterations, after IQR outlier removal (k = 1.5, only when more
// than 30 samples, as aiter does). All times in microseconds. n_raw counts the samples
// taken, n_kept those the statistics use.
struct TimingStats {
    std::uint32_t n_raw = 0;
    std::uint32_t n_kept = 0;
    double mean_us = 0.0;
    double median_us = 0.0;
    double stddev_us = 0.0;
    double stderr_us = 0.0;  // stddev / sqrt(n_kept)
    double min_us = 0.0;
    double max_us = 0.0;
};

template <typename Visitor, RecordOf<TimingStats> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("n_raw", r.n_raw);
    visit("n_kept", r.n_kept);
    visit("mean_us", r.mean_us);
    visit("median_us", r.median_us);
    visit("stddev_us", r.stddev_us);
    visit("stderr_us", r.stderr_us);
    visit("min_us", r.min_us);
    visit("max_us", r.max_us);
}
static_assert(lists_every_member<TimingStats>());

// The whole op's time split by stage (mean microseconds per iteration). The tuner ranks
// by the whole op; the split is evidence.
struct StageSplit {
    double sort_us = 0.0;
    double quant_us = 0.0;
    double stage1_us = 0.0;
    double stage2_us = 0.0;
    double reduce_us = 0.0;
};

template <typename Visitor, RecordOf<StageSplit> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("sort_us", r.sort_us);
    visit("quant_us", r.quant_us);
    visit("stage1_us", r.stage1_us);
    visit("stage2_us", r.stage2_us);
    visit("reduce_us", r.reduce_us);
}
static_assert(lists_every_member<StageSplit>());

// Accuracy against the shape's reference (aiter checkAllclose semantics + cosine distance).
struct ErrorMetrics {
    double mismatch_fraction = 0.0;  // fraction of elements failing isclose(rtol, atol)
    double cosine_distance = 0.0;    // 1 - 2*sum(xy) / sum(x^2 + y^2)
    double max_abs_delta = 0.0;
    bool catastrophic = false;  // NaN/Inf, or max delta above 0.5*max(max|ref|, 1)
};

template <typename Visitor, RecordOf<ErrorMetrics> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("mismatch_fraction", r.mismatch_fraction);
    visit("cosine_distance", r.cosine_distance);
    visit("max_abs_delta", r.max_abs_delta);
    visit("catastrophic", r.catastrophic);
}
static_assert(lists_every_member<ErrorMetrics>());

// Where and by whom it was measured.
struct MeasuredOn {
    int rank = -1;
    std::string host;
    int device_index = -1;  // -1 for the cpu and sim backends
    std::string device_name;
    std::string device_uuid;
    int worker_pid = 0;
};

template <typename Visitor, RecordOf<MeasuredOn> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("rank", r.rank);
    visit("host", r.host);
    visit("device_index", r.device_index);
    visit("device_name", r.device_name);
    visit("device_uuid", r.device_uuid);
    visit("worker_pid", r.worker_pid);
}
static_assert(lists_every_member<MeasuredOn>());

// What --search screen did with a candidate (tuning/screen.hpp). All defaults for a
// candidate that was not screened: --search exhaustive, or the incumbent, which is always
// measured in full. A pruned candidate is `ok`: it ran, passed the accuracy check and was
// timed, but only by the screen's few runs (its `timing`), because a stated bound showed it
// cannot win; it never becomes a finalist.
struct ScreenOutcome {
    bool screened = false;
    bool pruned = false;
    // The bound that pruned it ("incumbent_bar" or "chunk_best"); for a candidate that
    // survived, the bound that came closest to pruning it. Empty when not screened.
    std::string prune_bound;
    // That bound's lower confidence limit of how much slower the candidate is than the
    // bound's threshold, in percent of the incumbent's time in the chunk (of the chunk's
    // best when the incumbent failed): > 0 prunes.
    double prune_margin_pct = 0.0;
    std::uint32_t screen_runs = 0;  // timed runs of the screen
};

template <typename Visitor, RecordOf<ScreenOutcome> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("screened", r.screened);
    visit("pruned", r.pruned);
    visit("prune_bound", r.prune_bound);
    visit("prune_margin_pct", r.prune_margin_pct);
    visit("screen_runs", r.screen_runs);
}
static_assert(lists_every_member<ScreenOutcome>());

struct CandidateResult {
    std::string shape_key;  // family::shape_key_string of the shape
    CandidateId candidate;
    Status status = Status::not_run;
    std::string detail;  // error text, signal, exit code, worker pid...
    TimingStats timing;  // meaningful when status == ok
    StageSplit stages;
    ErrorMetrics error;  // meaningful when the candidate ran (ok or mismatch)
    MeasuredOn where;
    std::int64_t chunk = -1;      // the dispatch chunk it came from; -1 before dispatch
    std::uint32_t attempt = 0;    // 0 for the first worker life that saw it, +1 per retry
    bool fault_injected = false;  // a test asked for a fault on this candidate
    std::int64_t started_unix_ns = 0;
    std::int64_t finished_unix_ns = 0;
    // Last: journals written before the screen existed end before it (journal_records.cpp).
    ScreenOutcome screen;
};

template <typename Visitor, RecordOf<CandidateResult> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_key", r.shape_key);
    visit("candidate", r.candidate);
    visit("status", r.status);
    visit("detail", r.detail);
    visit("timing", r.timing);
    visit("stages", r.stages);
    visit("error", r.error);
    visit("where", r.where);
    visit("chunk", r.chunk);
    visit("attempt", r.attempt);
    visit("fault_injected", r.fault_injected);
    visit("started_unix_ns", r.started_unix_ns);
    visit("finished_unix_ns", r.finished_unix_ns);
    visit("screen", r.screen);
}
static_assert(lists_every_member<CandidateResult>());

}  // namespace fhmoe::tuning
