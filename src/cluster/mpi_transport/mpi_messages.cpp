#include "cluster/mpi_transport/mpi_messages.hpp"

#include <type_traits>

#include "fhmoe/error.hpp"
#include "fhmoe/wire/bytes.hpp"
#include "fhmoe/wire/codecs.hpp"
#include "fhmoe/wire/record_codec.hpp"

namespace fhmoe::cluster {
namespace {

// Messages and events are their field lists' bytes (record_codec.hpp), except chunks and
// races: their candidates cross without PlannedCandidate::attempt (a rank that takes a chunk
// counts worker lives from 0), so encode_planned spells the fields that do cross.
static_assert(field_count<supervisor::PlannedCandidate>() == 4,
              "a PlannedCandidate field: decide whether it crosses MPI in encode_planned");
static_assert(field_count<supervisor::Chunk>() == 7 && field_count<supervisor::Race>() == 8,
              "a Chunk or Race field: add it to encode_chunk/encode_race and their decoders");

template <typename Message>
Bytes encode_message(const Message& message) {
    wire::ByteWriter out;
    wire::put(out, message);
    return std::move(out).take();
}

template <typename Message>
Message decode_message(std::span<const std::uint8_t> bytes) {
    wire::ByteReader in(bytes);
    Message message = wire::get<Message>(in);
    in.expect_end();
    return message;
}

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

supervisor::Event decode_body(MessageTag tag, wire::ByteReader& in) {
    switch (tag) {
        case MessageTag::shape_loaded: return wire::get<supervisor::ShapeLoaded>(in);
        case MessageTag::load_failed: return wire::get<supervisor::ShapeLoadFailed>(in);
        case MessageTag::result: return wire::get<supervisor::CandidateMeasured>(in);
        case MessageTag::chunk_done: return wire::get<supervisor::ChunkDone>(in);
        case MessageTag::race_done: return wire::get<supervisor::RaceDone>(in);
        case MessageTag::worker_restarted: return wire::get<supervisor::WorkerRestarted>(in);
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

Bytes encode_hello(const HelloMessage& hello) { return encode_message(hello); }

HelloMessage decode_hello(std::span<const std::uint8_t> bytes) {
    return decode_message<HelloMessage>(bytes);
}

Bytes encode_stop(const StopMessage& stop) { return encode_message(stop); }

StopMessage decode_stop(std::span<const std::uint8_t> bytes) {
    return decode_message<StopMessage>(bytes);
}

Bytes encode_rank_failed(const RankFailedMessage& failed) { return encode_message(failed); }

RankFailedMessage decode_rank_failed(std::span<const std::uint8_t> bytes) {
    return decode_message<RankFailedMessage>(bytes);
}

Bytes encode_chunk(const supervisor::Chunk& chunk) {
    wire::ByteWriter out;
    out.i64(chunk.chunk_id);
    wire::encode(out, chunk.shape);
    out.u64(chunk.seed);
    encode_planned_list(out, chunk.candidates);
    wire::encode(out, chunk.measurement);
    out.f64(chunk.candidate_timeout_s);
    wire::put(out, chunk.screen);
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
    wire::get(in, chunk.screen);
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
    wire::put(out, race.adaptive);
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
    wire::get(in, race.adaptive);
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
    std::visit([&](const auto& e) { wire::put(out, e); }, event);
    return std::move(out).take();
}

supervisor::Event decode_event(MessageTag tag, std::span<const std::uint8_t> bytes) {
    wire::ByteReader in(bytes);
    supervisor::Event event = decode_body(tag, in);
    in.expect_end();
    return event;
}

}  // namespace fhmoe::cluster
