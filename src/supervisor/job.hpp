#pragma once

// A unit of work in progress on the supervisor's worker: a chunk or a race. The supervisor
// owns the worker's life (spawn, load, deadlines, deaths); a job owns the bookkeeping of
// which of its items have an outcome, what to ask the next worker life to run, and which
// item was in flight when a worker was lost.

#include <cstdint>
#include <string>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/supervisor/events.hpp"
#include "fhmoe/worker/protocol.hpp"

namespace fhmoe::supervisor {

// The worker sent something the protocol does not allow at this point.
class ProtocolViolation : public Error {
public:
    using Error::Error;
};

// What the supervisor knows about the item in flight when its worker is lost.
struct LostItem {
    tuning::Status status = tuning::Status::crash;  // crash, timeout, or not_run (stop)
    std::string detail;
    tuning::MeasuredOn where;  // the lost worker's identity (its pid), with the rank
    std::int64_t started_unix_ns = 0;
    std::int64_t lost_unix_ns = 0;
};

class Job {
public:
    virtual ~Job() = default;

    virtual const family::ShapeKey& shape() const = 0;
    virtual std::uint64_t seed() const = 0;
    virtual bool complete() const = 0;
    // The planned index of the first item the next worker life will run (genfail@k).
    virtual std::int64_t next_planned_index() const = 0;
    // The command that runs everything still without an outcome.
    virtual worker::Command next_command() const = 0;
    // Deadline of one item (a candidate, or one contender's run in a race).
    virtual double item_timeout_s() const = 0;

    virtual void on_fault_announced(const worker::FaultAnnounced& announced) = 0;
    // A reply of the running phase (a result, a race sample, the end marker). Returns true
    // when the worker reported its context poisoned. Throws ProtocolViolation.
    virtual bool on_reply(const worker::Reply& reply, const tuning::MeasuredOn& where,
                          std::vector<Event>& out) = 0;
    // The worker died or was killed while running the item in flight.
    virtual void on_item_lost(const LostItem& lost, std::vector<Event>& out) = 0;
    // Everything still without an outcome becomes not_run with this detail.
    virtual void finish_rest_not_run(const std::string& detail, const tuning::MeasuredOn& where,
                                     std::vector<Event>& out) = 0;
    virtual Event done_event(bool stopped, const tuning::MeasuredOn& where) = 0;
};

}  // namespace fhmoe::supervisor
