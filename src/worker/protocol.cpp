#include "fhmoe/worker/protocol.hpp"

#include <string>
#include <type_traits>

#include "fhmoe/wire/codecs.hpp"

namespace fhmoe::worker {
namespace {

using wire::ByteReader;
using wire::ByteWriter;

void put(ByteWriter& out, const LoadShape& m) {
    wire::encode(out, m.shape);
    out.u64(m.seed);
    out.i64(m.next_planned_index);
    out.u32(m.attempt);
}

LoadShape get_load_shape(ByteReader& in) {
    LoadShape m;
    m.shape = wire::decode_shape(in);
    m.seed = in.u64();
    m.next_planned_index = in.i64();
    m.attempt = in.u32();
    return m;
}

void put(ByteWriter& out, const RunCandidates& m) {
    out.i64(m.chunk_id);
    wire::encode(out, m.settings);
    out.u32(static_cast<std::uint32_t>(m.candidates.size()));
    for (const CandidateToRun& c : m.candidates) {
        out.i64(c.planned_index);
        wire::encode(out, c.id);
        wire::encode(out, c.config);
        out.u32(c.attempt);
    }
}

RunCandidates get_run_candidates(ByteReader& in) {
    RunCandidates m;
    m.chunk_id = in.i64();
    m.settings = wire::decode_measurement_settings(in);
    const std::uint32_t n = in.count(8);
    m.candidates.resize(n);
    for (CandidateToRun& c : m.candidates) {
        c.planned_index = in.i64();
        c.id = wire::decode_candidate_id(in);
        c.config = wire::decode_candidate(in);
        c.attempt = in.u32();
    }
    return m;
}

void put(ByteWriter& out, const RunRace& m) {
    out.i64(m.race_id);
    wire::encode(out, m.settings);
    out.u32(m.total_contenders);
    out.u32(static_cast<std::uint32_t>(m.contenders.size()));
    for (const RaceContender& c : m.contenders) {
        out.u32(c.position);
        out.i64(c.planned_index);
        wire::encode(out, c.id);
        wire::encode(out, c.config);
    }
    out.u32(m.first_round);
    out.u32(m.rounds);
    out.u32(static_cast<std::uint32_t>(m.skip_in_first_round.size()));
    for (std::uint32_t position : m.skip_in_first_round) out.u32(position);
    out.u32(m.attempt);
}

RunRace get_run_race(ByteReader& in) {
    RunRace m;
    m.race_id = in.i64();
    m.settings = wire::decode_measurement_settings(in);
    m.total_contenders = in.u32();
    m.contenders.resize(in.count(12));
    for (RaceContender& c : m.contenders) {
        c.position = in.u32();
        c.planned_index = in.i64();
        c.id = wire::decode_candidate_id(in);
        c.config = wire::decode_candidate(in);
    }
    m.first_round = in.u32();
    m.rounds = in.u32();
    m.skip_in_first_round.resize(in.count(4));
    for (std::uint32_t& position : m.skip_in_first_round) position = in.u32();
    m.attempt = in.u32();
    return m;
}

void put(ByteWriter&, const Shutdown&) {}

void put(ByteWriter& out, const Hello& m) {
    out.i32(m.pid);
    out.string(m.backend);
    wire::encode(out, m.device);
}

Hello get_hello(ByteReader& in) {
    Hello m;
    m.pid = in.i32();
    m.backend = in.string();
    m.device = wire::decode_measured_on(in);
    return m;
}

void put(ByteWriter& out, const ShapeLoadedReply& m) {
    out.string(m.shape_key);
    out.u64(m.reference_digest);
    out.u64(m.bytes_in_use);
    out.u64(m.bytes_free);
    out.f64(m.seconds);
}

ShapeLoadedReply get_shape_loaded(ByteReader& in) {
    ShapeLoadedReply m;
    m.shape_key = in.string();
    m.reference_digest = in.u64();
    m.bytes_in_use = in.u64();
    m.bytes_free = in.u64();
    m.seconds = in.f64();
    return m;
}

void put(ByteWriter& out, const LoadFailed& m) {
    out.string(m.detail);
    out.boolean(m.fault_injected);
}

LoadFailed get_load_failed(ByteReader& in) {
    LoadFailed m;
    m.detail = in.string();
    m.fault_injected = in.boolean();
    return m;
}

void put(ByteWriter& out, const FaultAnnounced& m) {
    out.i64(m.planned_index);
    out.string(m.fault);
}

FaultAnnounced get_fault_announced(ByteReader& in) {
    FaultAnnounced m;
    m.planned_index = in.i64();
    m.fault = in.string();
    return m;
}

void put(ByteWriter& out, const CandidateResultReply& m) {
    out.i64(m.planned_index);
    out.boolean(m.context_poisoned);
    wire::encode(out, m.result);
}

CandidateResultReply get_candidate_result(ByteReader& in) {
    CandidateResultReply m;
    m.planned_index = in.i64();
    m.context_poisoned = in.boolean();
    m.result = wire::decode_candidate_result(in);
    return m;
}

void put(ByteWriter& out, const RunDone& m) { out.i64(m.chunk_id); }

RunDone get_run_done(ByteReader& in) { return RunDone{in.i64()}; }

void put(ByteWriter& out, const RaceSample& m) {
    out.u32(m.round);
    out.u32(m.position);
    wire::encode(out, m.status);
    out.string(m.detail);
    out.boolean(m.fault_injected);
    out.boolean(m.context_poisoned);
    out.f64_vector(m.samples_us);
}

RaceSample get_race_sample(ByteReader& in) {
    RaceSample m;
    m.round = in.u32();
    m.position = in.u32();
    m.status = wire::decode_status(in);
    m.detail = in.string();
    m.fault_injected = in.boolean();
    m.context_poisoned = in.boolean();
    m.samples_us = in.f64_vector();
    return m;
}

void put(ByteWriter& out, const RaceFinished& m) { out.i64(m.race_id); }

RaceFinished get_race_finished(ByteReader& in) { return RaceFinished{in.i64()}; }

void put(ByteWriter& out, const WorkerFatal& m) { out.string(m.detail); }

WorkerFatal get_worker_fatal(ByteReader& in) { return WorkerFatal{in.string()}; }

template <typename Message>
constexpr MessageType type_of() {
    if constexpr (std::is_same_v<Message, LoadShape>) return MessageType::load_shape;
    if constexpr (std::is_same_v<Message, RunCandidates>) return MessageType::run_candidates;
    if constexpr (std::is_same_v<Message, RunRace>) return MessageType::run_race;
    if constexpr (std::is_same_v<Message, Shutdown>) return MessageType::shutdown;
    if constexpr (std::is_same_v<Message, Hello>) return MessageType::hello;
    if constexpr (std::is_same_v<Message, ShapeLoadedReply>) return MessageType::shape_loaded;
    if constexpr (std::is_same_v<Message, LoadFailed>) return MessageType::load_failed;
    if constexpr (std::is_same_v<Message, FaultAnnounced>) return MessageType::fault_announced;
    if constexpr (std::is_same_v<Message, CandidateResultReply>) {
        return MessageType::candidate_result;
    }
    if constexpr (std::is_same_v<Message, RunDone>) return MessageType::run_done;
    if constexpr (std::is_same_v<Message, RaceSample>) return MessageType::race_sample;
    if constexpr (std::is_same_v<Message, RaceFinished>) return MessageType::race_finished;
    if constexpr (std::is_same_v<Message, WorkerFatal>) return MessageType::worker_fatal;
}

template <typename Variant>
std::vector<std::uint8_t> encode_variant(const Variant& message) {
    return std::visit(
        [](const auto& m) {
            ByteWriter payload;
            put(payload, m);
            using Message = std::decay_t<decltype(m)>;
            return wire::encode_frame(
                protocol_version, static_cast<std::uint16_t>(type_of<Message>()), payload.bytes());
        },
        message);
}

template <typename Result, typename Decode>
Result decode_whole(const wire::Frame& frame, Decode decode) {
    ByteReader in(frame.payload);
    Result message = decode(in);
    in.expect_end();
    return message;
}

[[noreturn]] void unexpected_type(std::uint16_t type, const char* expected) {
    throw wire::WireError("unexpected message type " + std::to_string(type) + " (expected " +
                          expected + ")");
}

}  // namespace

std::vector<std::uint8_t> encode_command(const Command& command) { return encode_variant(command); }

std::vector<std::uint8_t> encode_reply(const Reply& reply) { return encode_variant(reply); }

Command decode_command(const wire::Frame& frame) {
    switch (static_cast<MessageType>(frame.type)) {
        case MessageType::load_shape: return decode_whole<LoadShape>(frame, get_load_shape);
        case MessageType::run_candidates:
            return decode_whole<RunCandidates>(frame, get_run_candidates);
        case MessageType::run_race: return decode_whole<RunRace>(frame, get_run_race);
        case MessageType::shutdown:
            return decode_whole<Shutdown>(frame, [](ByteReader&) { return Shutdown{}; });
        default: unexpected_type(frame.type, "a command");
    }
}

Reply decode_reply(const wire::Frame& frame) {
    switch (static_cast<MessageType>(frame.type)) {
        case MessageType::hello: return decode_whole<Hello>(frame, get_hello);
        case MessageType::shape_loaded:
            return decode_whole<ShapeLoadedReply>(frame, get_shape_loaded);
        case MessageType::load_failed: return decode_whole<LoadFailed>(frame, get_load_failed);
        case MessageType::fault_announced:
            return decode_whole<FaultAnnounced>(frame, get_fault_announced);
        case MessageType::candidate_result:
            return decode_whole<CandidateResultReply>(frame, get_candidate_result);
        case MessageType::run_done: return decode_whole<RunDone>(frame, get_run_done);
        case MessageType::race_sample: return decode_whole<RaceSample>(frame, get_race_sample);
        case MessageType::race_finished:
            return decode_whole<RaceFinished>(frame, get_race_finished);
        case MessageType::worker_fatal: return decode_whole<WorkerFatal>(frame, get_worker_fatal);
        default: unexpected_type(frame.type, "a reply");
    }
}

}  // namespace fhmoe::worker
