#include "fhmoe/tuning/result_order.hpp"

#include <bit>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>

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

// Every field in field-list order, doubles by their bits (so -0.0, 0.0 and each NaN are told
// apart and the order is total): a field added to a record's list joins the order by itself.
template <typename Record>
std::strong_ordering in_field_order(const Record& a, const Record& b) {
    std::strong_ordering order = std::strong_ordering::equal;
    for_each_field_pair(a, b, [&order](std::string_view, const auto& x, const auto& y) {
        if (order != 0) return;
        using Field = std::remove_cvref_t<decltype(x)>;
        if constexpr (HasFields<Field>) {
            order = in_field_order(x, y);
        } else if constexpr (std::is_floating_point_v<Field>) {
            order = bits(x) <=> bits(y);
        } else {
            order = x <=> y;
        }
    });
    return order;
}

}  // namespace

std::strong_ordering compare_for_merge(const CandidateResult& a, const CandidateResult& b) {
    if (auto order = precedence(a) <=> precedence(b); order != 0) return order;
    if (auto order = identity(a) <=> identity(b); order != 0) return order;
    return in_field_order(a, b);  // the measurements: the fields identity() did not compare
}

}  // namespace fhmoe::tuning
