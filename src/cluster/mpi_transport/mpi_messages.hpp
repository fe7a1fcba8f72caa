#pragma once

// The typed messages between rank 0 and the other ranks. Each travels as MPI_BYTE with its
// own tag; payloads are composed from the wire codecs (the same layout as the worker pipe
// and the journal).
//
//   rank r -> rank 0                          rank 0 -> rank r
//   hello        ready; host, binding         assign_chunk   a Chunk to measure
//   shape_loaded reference digest             assign_race    a Race to run
//   load_failed  data generation gave up      interrupt      stop the work in flight
//   result       one candidate, streamed      stop           leave the loop, with the exit code
//   chunk_done   ready for more work
//   race_done    the race's samples; ready
//   worker_restarted (for the log)
//   signalled    the launcher signalled this rank: rank 0 starts the orderly stop
//   stop_ack     every send of this rank has completed: it may finalize
//   rank_failed  this rank hit a fatal error (exit code, why): rank 0 ends the run

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fhmoe/record_fields.hpp"
#include "fhmoe/supervisor/chunk.hpp"
#include "fhmoe/supervisor/events.hpp"

namespace fhmoe::cluster {

enum class MessageTag : int {
    hello = 11,
    shape_loaded = 12,
    load_failed = 13,
    result = 14,
    chunk_done = 15,
    race_done = 16,
    worker_restarted = 17,
    signalled = 18,
    stop_ack = 19,
    rank_failed = 20,
    assign_chunk = 31,
    assign_race = 32,
    interrupt = 33,
    stop = 34,
};

std::string_view to_string(MessageTag tag) noexcept;
bool is_known_tag(int tag) noexcept;

using Bytes = std::vector<std::uint8_t>;

struct HelloMessage {
    int rank = -1;
    std::string host;
    std::string backend;
    std::string device_binding;  // "CUDA_VISIBLE_DEVICES=3 names one device", "none", ...
};

template <typename Visitor, RecordOf<HelloMessage> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("rank", r.rank);
    visit("host", r.host);
    visit("backend", r.backend);
    visit("device_binding", r.device_binding);
}
static_assert(lists_every_member<HelloMessage>());

struct StopMessage {
    int exit_code = 0;
};

template <typename Visitor, RecordOf<StopMessage> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("exit_code", r.exit_code);
}
static_assert(lists_every_member<StopMessage>());

// A rank other than 0 cannot go on: it says so (and then waits for rank 0's stop) rather than
// leaving rank 0 waiting for results that will never come.
struct RankFailedMessage {
    int exit_code = 0;
    std::string reason;
};

template <typename Visitor, RecordOf<RankFailedMessage> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("exit_code", r.exit_code);
    visit("reason", r.reason);
}
static_assert(lists_every_member<RankFailedMessage>());

Bytes encode_hello(const HelloMessage& hello);
HelloMessage decode_hello(std::span<const std::uint8_t> bytes);

Bytes encode_stop(const StopMessage& stop);
StopMessage decode_stop(std::span<const std::uint8_t> bytes);

Bytes encode_rank_failed(const RankFailedMessage& failed);
RankFailedMessage decode_rank_failed(std::span<const std::uint8_t> bytes);

Bytes encode_chunk(const supervisor::Chunk& chunk);
supervisor::Chunk decode_chunk(std::span<const std::uint8_t> bytes);

Bytes encode_race(const supervisor::Race& race);
supervisor::Race decode_race(std::span<const std::uint8_t> bytes);

// Supervisor events, as a rank forwards them. The tag says which alternative it is.
MessageTag tag_of(const supervisor::Event& event);
Bytes encode_event(const supervisor::Event& event);
supervisor::Event decode_event(MessageTag tag, std::span<const std::uint8_t> bytes);

}  // namespace fhmoe::cluster
