#pragma once

// One candidate's measured outcome: what was run, what happened, how fast, how accurate,
// and where. This is the record that travels worker -> rank -> rank 0 -> journal/HDF5.

#include <cstdint>
#include <string>

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

// The whole op's time split by stage (mean microseconds per iteration). The tuner ranks
// by the whole op; the split is evidence.
struct StageSplit {
    double sort_us = 0.0;
    double quant_us = 0.0;
    double stage1_us = 0.0;
    double stage2_us = 0.0;
    double reduce_us = 0.0;
};

// Accuracy against the shape's reference (aiter checkAllclose semantics + cosine distance).
struct ErrorMetrics {
    double mismatch_fraction = 0.0;  // fraction of elements failing isclose(rtol, atol)
    double cosine_distance = 0.0;    // 1 - 2*sum(xy) / sum(x^2 + y^2)
    double max_abs_delta = 0.0;
    bool catastrophic = false;  // NaN/Inf, or max delta above 0.5*max(max|ref|, 1)
};

// Where and by whom it was measured.
struct MeasuredOn {
    int rank = -1;
    std::string host;
    int device_index = -1;  // -1 for the cpu and sim backends
    std::string device_name;
    std::string device_uuid;
    int worker_pid = 0;
};

// A field added here must also join compare_for_merge (result_order.cpp), or two results that
// differ only in it would merge in arrival order.
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
};

}  // namespace fhmoe::tuning
