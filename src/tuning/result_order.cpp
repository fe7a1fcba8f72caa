#include "fhmoe/tuning/result_order.hpp"

#include <bit>
#include <cstdint>
#include <tuple>

namespace fhmoe::tuning {

namespace {

int evidence_rank(Status status) {
    switch (status) {
        case Status::not_run: return 0;
        case Status::ok: return 2;
        case Status::mismatch: return 3;
        case Status::unsupported:
        case Status::crash:
        case Status::timeout:
        case Status::oom_runtime:
        case Status::oom_preflight: return 1;
    }
    return 0;
}

std::uint64_t bits(double value) { return std::bit_cast<std::uint64_t>(value); }

auto precedence(const CandidateResult& r) {
    return std::make_tuple(evidence_rank(r.status), r.attempt, r.finished_unix_ns,
                           r.started_unix_ns);
}

auto identity(const CandidateResult& r) {
    return std::tie(r.where.rank, r.chunk, r.where.device_index, r.where.worker_pid, r.where.host,
                    r.where.device_name, r.where.device_uuid, r.status, r.detail, r.fault_injected,
                    r.shape_key, r.candidate);
}

auto timing(const CandidateResult& r) {
    const TimingStats& t = r.timing;
    return std::make_tuple(t.n_raw, t.n_kept, bits(t.mean_us), bits(t.median_us), bits(t.stddev_us),
                           bits(t.stderr_us), bits(t.min_us), bits(t.max_us));
}

auto stages_and_error(const CandidateResult& r) {
    const StageSplit& s = r.stages;
    const ErrorMetrics& e = r.error;
    return std::make_tuple(bits(s.sort_us), bits(s.quant_us), bits(s.stage1_us), bits(s.stage2_us),
                           bits(s.reduce_us), bits(e.mismatch_fraction), bits(e.cosine_distance),
                           bits(e.max_abs_delta), e.catastrophic);
}

}  // namespace

std::strong_ordering compare_for_merge(const CandidateResult& a, const CandidateResult& b) {
    if (auto order = precedence(a) <=> precedence(b); order != 0) return order;
    if (auto order = identity(a) <=> identity(b); order != 0) return order;
    if (auto order = timing(a) <=> timing(b); order != 0) return order;
    return stages_and_error(a) <=> stages_and_error(b);
}

}  // namespace fhmoe::tuning
