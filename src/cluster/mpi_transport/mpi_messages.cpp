#include "cluster/mpi_transport/mpi_messages.hpp"

#include <type_traits>

#include "fhmoe/error.hpp"
#include "fhmoe/wire/bytes.hpp"
#include "fhmoe/wire/codecs.hpp"

namespace fhmoe::cluster {
namespace {

void encode_planned(wire::ByteWriter& out, const supervisor::PlannedCandidate& planned) {
    out.i64(planned.planned_index);
    wire::encode(out, planned.id);
    wire::encode(out, planned.config);
}

supervisor::PlannedCandidate decode_planned(wire::ByteReader& in) {
    supervisor::PlannedCandidate planned;
    planned.planned_index = in.i64();
    planned.id = wire::decode_candidate_id(in);
    planned.config = wire::decode_candidate(in);
    return planned;
}

void encode_planned_list(wire::ByteWriter& out,
                         const std::vector<supervisor::PlannedCandidate>& list) {
    out.u32(static_cast<std::uint32_t>(list.size()));
    for (const auto& planned : list) encode_planned(out, planned);
}

std::vector<supervisor::PlannedCandidate> decode_planned_list(wire::ByteReader& in) {
    const std::uint32_t count = in.count(16);
    std::vector<supervisor::PlannedCandidate> list;
    list.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) list.push_back(decode_planned(in));
    return list;
}

void encode_body(wire::ByteWriter& out, const supervisor::ShapeLoaded& e) {
    out.string(e.shape_key);
    out.u64(e.reference_digest);
    out.u64(e.bytes_in_use);
    out.u64(e.bytes_free);
    wire::encode(out, e.device);
    out.f64(e.seconds);
}

void encode_body(wire::ByteWriter& out, const supervisor::ShapeLoadFailed& e) {
    out.string(e.shape_key);
    out.string(e.detail);
    out.u32(e.attempts);
}

void encode_body(wire::ByteWriter& out, const supervisor::CandidateMeasured& e) {
    out.i64(e.chunk_id);
    out.i64(e.planned_index);
    wire::encode(out, e.result);
}

void encode_body(wire::ByteWriter& out, const supervisor::ChunkDone& e) {
    out.i64(e.chunk_id);
    out.boolean(e.stopped);
}

void encode_body(wire::ByteWriter& out, const supervisor::RaceDone& e) {
    out.i64(e.race_id);
    out.u32(static_cast<std::uint32_t>(e.contenders.size()));
    for (const auto& c : e.contenders) {
        out.i64(c.planned_index);
        wire::encode(out, c.id);
        wire::encode(out, c.status);
        out.string(c.detail);
        out.u32(static_cast<std::uint32_t>(c.samples_us.size()));
        for (const auto& round : c.samples_us) out.f64_vector(round);
    }
    out.u32(e.rounds_completed);
    out.boolean(e.stopped);
    wire::encode(out, e.device);
    out.i64(e.started_unix_ns);
    out.i64(e.finished_unix_ns);
}

void encode_body(wire::ByteWriter& out, const supervisor::WorkerRestarted& e) {
    out.i32(e.old_pid);
    out.string(e.reason);
}

supervisor::Event decode_body(MessageTag tag, wire::ByteReader& in) {
    switch (tag) {
        case MessageTag::shape_loaded: {
            supervisor::ShapeLoaded e;
            e.shape_key = in.string();
            e.reference_digest = in.u64();
            e.bytes_in_use = in.u64();
            e.bytes_free = in.u64();
            e.device = wire::decode_measured_on(in);
            e.seconds = in.f64();
            return e;
        }
        case MessageTag::load_failed: {
            supervisor::ShapeLoadFailed e;
            e.shape_key = in.string();
            e.detail = in.string();
            e.attempts = in.u32();
            return e;
        }
        case MessageTag::result: {
            supervisor::CandidateMeasured e;
            e.chunk_id = in.i64();
            e.planned_index = in.i64();
            e.result = wire::decode_candidate_result(in);
            return e;
        }
        case MessageTag::chunk_done: {
            supervisor::ChunkDone e;
            e.chunk_id = in.i64();
            e.stopped = in.boolean();
            return e;
        }
        case MessageTag::race_done: {
            supervisor::RaceDone e;
            e.race_id = in.i64();
            const std::uint32_t contenders = in.count(16);
            for (std::uint32_t i = 0; i < contenders; ++i) {
                supervisor::ContenderOutcome c;
                c.planned_index = in.i64();
                c.id = wire::decode_candidate_id(in);
                c.status = wire::decode_status(in);
                c.detail = in.string();
                const std::uint32_t rounds = in.count(4);
                for (std::uint32_t r = 0; r < rounds; ++r) c.samples_us.push_back(in.f64_vector());
                e.contenders.push_back(std::move(c));
            }
            e.rounds_completed = in.u32();
            e.stopped = in.boolean();
            e.device = wire::decode_measured_on(in);
            e.started_unix_ns = in.i64();
            e.finished_unix_ns = in.i64();
            return e;
        }
        case MessageTag::worker_restarted: {
            supervisor::WorkerRestarted e;
            e.old_pid = in.i32();
            e.reason = in.string();
            return e;
        }
        default:
            throw wire::WireError("message tag " + std::string(to_string(tag)) +
                                  " is not a supervisor event");
    }
}

}  // namespace

std::string_view to_string(MessageTag tag) noexcept {
    switch (tag) {
        case MessageTag::hello: return "hello";
        case MessageTag::shape_loaded: return "shape_loaded";
        case MessageTag::load_failed: return "load_failed";
        case MessageTag::result: return "result";
        case MessageTag::chunk_done: return "chunk_done";
        case MessageTag::race_done: return "race_done";
        case MessageTag::worker_restarted: return "worker_restarted";
        case MessageTag::signalled: return "signalled";
        case MessageTag::stop_ack: return "stop_ack";
        case MessageTag::rank_failed: return "rank_failed";
        case MessageTag::assign_chunk: return "assign_chunk";
        case MessageTag::assign_race: return "assign_race";
        case MessageTag::interrupt: return "interrupt";
        case MessageTag::stop: return "stop";
    }
    return "unknown";
}

bool is_known_tag(int tag) noexcept { return to_string(static_cast<MessageTag>(tag)) != "unknown"; }

Bytes encode_hello(const HelloMessage& hello) {
    wire::ByteWriter out;
    out.i32(hello.rank);
    out.string(hello.host);
    out.string(hello.backend);
    out.string(hello.device_binding);
    return std::move(out).take();
}

HelloMessage decode_hello(std::span<const std::uint8_t> bytes) {
    wire::ByteReader in(bytes);
    HelloMessage hello;
    hello.rank = in.i32();
    hello.host = in.string();
    hello.backend = in.string();
    hello.device_binding = in.string();
    in.expect_end();
    return hello;
}

Bytes encode_stop(const StopMessage& stop) {
    wire::ByteWriter out;
    out.i32(stop.exit_code);
    return std::move(out).take();
}

StopMessage decode_stop(std::span<const std::uint8_t> bytes) {
    wire::ByteReader in(bytes);
    StopMessage stop;
    stop.exit_code = in.i32();
    in.expect_end();
    return stop;
}

Bytes encode_rank_failed(const RankFailedMessage& failed) {
    wire::ByteWriter out;
    out.i32(failed.exit_code);
    out.string(failed.reason);
    return std::move(out).take();
}

RankFailedMessage decode_rank_failed(std::span<const std::uint8_t> bytes) {
    wire::ByteReader in(bytes);
    RankFailedMessage failed;
    failed.exit_code = in.i32();
    failed.reason = in.string();
    in.expect_end();
    return failed;
}

Bytes encode_chunk(const supervisor::Chunk& chunk) {
    wire::ByteWriter out;
    out.i64(chunk.chunk_id);
    wire::encode(out, chunk.shape);
    out.u64(chunk.seed);
    encode_planned_list(out, chunk.candidates);
    wire::encode(out, chunk.measurement);
    out.f64(chunk.candidate_timeout_s);
    return std::move(out).take();
}

supervisor::Chunk decode_chunk(std::span<const std::uint8_t> bytes) {
    wire::ByteReader in(bytes);
    supervisor::Chunk chunk;
    chunk.chunk_id = in.i64();
    chunk.shape = wire::decode_shape(in);
    chunk.seed = in.u64();
    chunk.candidates = decode_planned_list(in);
    chunk.measurement = wire::decode_measurement_settings(in);
    chunk.candidate_timeout_s = in.f64();
    in.expect_end();
    return chunk;
}

Bytes encode_race(const supervisor::Race& race) {
    wire::ByteWriter out;
    out.i64(race.race_id);
    wire::encode(out, race.shape);
    out.u64(race.seed);
    encode_planned_list(out, race.contenders);
    out.u32(race.rounds);
    wire::encode(out, race.measurement);
    out.f64(race.contender_timeout_s);
    return std::move(out).take();
}

supervisor::Race decode_race(std::span<const std::uint8_t> bytes) {
    wire::ByteReader in(bytes);
    supervisor::Race race;
    race.race_id = in.i64();
    race.shape = wire::decode_shape(in);
    race.seed = in.u64();
    race.contenders = decode_planned_list(in);
    race.rounds = in.u32();
    race.measurement = wire::decode_measurement_settings(in);
    race.contender_timeout_s = in.f64();
    in.expect_end();
    return race;
}

MessageTag tag_of(const supervisor::Event& event) {
    return std::visit(
        [](const auto& e) {
            using E = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<E, supervisor::ShapeLoaded>)
                return MessageTag::shape_loaded;
            if constexpr (std::is_same_v<E, supervisor::ShapeLoadFailed>)
                return MessageTag::load_failed;
            if constexpr (std::is_same_v<E, supervisor::CandidateMeasured>)
                return MessageTag::result;
            if constexpr (std::is_same_v<E, supervisor::ChunkDone>) return MessageTag::chunk_done;
            if constexpr (std::is_same_v<E, supervisor::RaceDone>) return MessageTag::race_done;
            if constexpr (std::is_same_v<E, supervisor::WorkerRestarted>) {
                return MessageTag::worker_restarted;
            }
        },
        event);
}

Bytes encode_event(const supervisor::Event& event) {
    wire::ByteWriter out;
    std::visit([&](const auto& e) { encode_body(out, e); }, event);
    return std::move(out).take();
}

supervisor::Event decode_event(MessageTag tag, std::span<const std::uint8_t> bytes) {
    wire::ByteReader in(bytes);
    supervisor::Event event = decode_body(tag, in);
    in.expect_end();
    return event;
}

}  // namespace fhmoe::cluster
