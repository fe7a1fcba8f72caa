#include "fhmoe/worker/protocol.hpp"

#include <string>
#include <type_traits>

#include "fhmoe/wire/record_codec.hpp"

namespace fhmoe::worker {
namespace {

using wire::ByteReader;
using wire::ByteWriter;

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
            wire::put(payload, m);  // the message's field list (record_codec.hpp)
            using Message = std::decay_t<decltype(m)>;
            return wire::encode_frame(
                protocol_version, static_cast<std::uint16_t>(type_of<Message>()), payload.bytes());
        },
        message);
}

template <typename Result>
Result decode_whole(const wire::Frame& frame) {
    ByteReader in(frame.payload);
    Result message = wire::get<Result>(in);
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
        case MessageType::load_shape: return decode_whole<LoadShape>(frame);
        case MessageType::run_candidates: return decode_whole<RunCandidates>(frame);
        case MessageType::run_race: return decode_whole<RunRace>(frame);
        case MessageType::shutdown: return decode_whole<Shutdown>(frame);
        default: unexpected_type(frame.type, "a command");
    }
}

Reply decode_reply(const wire::Frame& frame) {
    switch (static_cast<MessageType>(frame.type)) {
        case MessageType::hello: return decode_whole<Hello>(frame);
        case MessageType::shape_loaded: return decode_whole<ShapeLoadedReply>(frame);
        case MessageType::load_failed: return decode_whole<LoadFailed>(frame);
        case MessageType::fault_announced: return decode_whole<FaultAnnounced>(frame);
        case MessageType::candidate_result: return decode_whole<CandidateResultReply>(frame);
        case MessageType::run_done: return decode_whole<RunDone>(frame);
        case MessageType::race_sample: return decode_whole<RaceSample>(frame);
        case MessageType::race_finished: return decode_whole<RaceFinished>(frame);
        case MessageType::worker_fatal: return decode_whole<WorkerFatal>(frame);
        default: unexpected_type(frame.type, "a reply");
    }
}

}  // namespace fhmoe::worker
