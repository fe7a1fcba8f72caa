#pragma once

// What a worker needs to know to measure one candidate: the subset of the measurement policy
// that crosses the process boundary. It lives in wire (not in the worker) because the MPI
// messages and the journal carry it too.

#include <cstdint>

#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::wire {

struct MeasurementSettings {
    std::uint32_t warmup = 5;   // untimed runs after the checked run
    std::uint32_t iters = 101;  // timed runs, one sample each
    double err_ratio = 0.05;    // the accuracy verdict's threshold on mismatch_fraction
    double rtol = 1e-2;
    double atol = 1e-2;
    double max_cosine_distance = 1e-3;  // a run above it is a mismatch, whatever its fraction
    bool rotate_inputs = true;          // timed runs rotate over the shape's input sets
    bool graph_replay = true;           // timed runs replay a device graph of the op
    auto operator<=>(const MeasurementSettings&) const = default;
};

template <typename Visitor, RecordOf<MeasurementSettings> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("warmup", r.warmup);
    visit("iters", r.iters);
    visit("err_ratio", r.err_ratio);
    visit("rtol", r.rtol);
    visit("atol", r.atol);
    visit("max_cosine_distance", r.max_cosine_distance);
    visit("rotate_inputs", r.rotate_inputs);
    visit("graph_replay", r.graph_replay);
}
static_assert(lists_every_member<MeasurementSettings>());

// The policy's measurement values as they cross to a worker (the one place that maps them).
MeasurementSettings measurement_settings(const tuning::MeasurementPolicy& policy);

}  // namespace fhmoe::wire
