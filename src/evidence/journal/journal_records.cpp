// The byte layout of each journal record: compositions of the wire codecs, so a candidate
// result looks the same in the journal as on the worker pipe and in MPI messages.

#include <string>
#include <type_traits>

#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/wire/bytes.hpp"
#include "fhmoe/wire/codecs.hpp"
#include "fhmoe/wire/frame.hpp"

namespace fhmoe::evidence {
namespace {

void encode_optional(wire::ByteWriter& out, const std::optional<double>& value) {
    out.boolean(value.has_value());
    out.f64(value.value_or(0.0));
}

std::optional<double> decode_optional(wire::ByteReader& in) {
    const bool present = in.boolean();
    const double value = in.f64();
    return present ? std::optional<double>(value) : std::nullopt;
}

void encode_body(wire::ByteWriter& out, const PlannedShape& planned) {
    wire::encode(out, planned.shape);
    out.u32(static_cast<std::uint32_t>(planned.candidates.size()));
    for (const auto& candidate : planned.candidates) wire::encode(out, candidate);
    out.i64(planned.incumbent_index);
    out.boolean(planned.incumbent_from_tuned_row);
    encode_optional(out, planned.incumbent_row_us);
    out.string(planned.unsupported_reason);
}

PlannedShape decode_planned_shape(wire::ByteReader& in) {
    PlannedShape planned;
    planned.shape = wire::decode_shape(in);
    const std::uint32_t count = in.count(4);
    planned.candidates.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i)
        planned.candidates.push_back(wire::decode_candidate(in));
    planned.incumbent_index = in.i64();
    planned.incumbent_from_tuned_row = in.boolean();
    planned.incumbent_row_us = decode_optional(in);
    planned.unsupported_reason = in.string();
    return planned;
}

void encode_body(wire::ByteWriter& out, const RunHeader& header) {
    out.u32(static_cast<std::uint32_t>(header.fingerprint.size()));
    for (const auto& [name, value] : header.fingerprint) {
        out.string(name);
        out.string(value);
    }
    out.u32(static_cast<std::uint32_t>(header.shapes.size()));
    for (const auto& planned : header.shapes) encode_body(out, planned);
    out.string(header.tool_version);
    out.i64(header.started_unix_ns);
}

RunHeader decode_run_header(wire::ByteReader& in) {
    RunHeader header;
    const std::uint32_t fields = in.count(8);
    for (std::uint32_t i = 0; i < fields; ++i) {
        std::string name = in.string();
        header.fingerprint[name] = in.string();
    }
    const std::uint32_t shapes = in.count(8);
    header.shapes.reserve(shapes);
    for (std::uint32_t i = 0; i < shapes; ++i) header.shapes.push_back(decode_planned_shape(in));
    header.tool_version = in.string();
    header.started_unix_ns = in.i64();
    return header;
}

void encode_body(wire::ByteWriter& out, const ShapeLoadedRecord& record) {
    out.string(record.shape_key);
    out.u64(record.reference_digest);
    wire::encode(out, record.device);
    out.f64(record.seconds);
}

ShapeLoadedRecord decode_shape_loaded(wire::ByteReader& in) {
    ShapeLoadedRecord record;
    record.shape_key = in.string();
    record.reference_digest = in.u64();
    record.device = wire::decode_measured_on(in);
    record.seconds = in.f64();
    return record;
}

void encode_body(wire::ByteWriter& out, const ShapeLoadFailedRecord& record) {
    out.string(record.shape_key);
    out.i64(record.chunk_id);
    out.i32(record.rank);
    out.string(record.host);
    out.string(record.detail);
    out.u32(record.attempts);
}

ShapeLoadFailedRecord decode_shape_load_failed(wire::ByteReader& in) {
    ShapeLoadFailedRecord record;
    record.shape_key = in.string();
    record.chunk_id = in.i64();
    record.rank = in.i32();
    record.host = in.string();
    record.detail = in.string();
    record.attempts = in.u32();
    return record;
}

void encode_body(wire::ByteWriter& out, const CandidateResultRecord& record) {
    out.i64(record.chunk_id);
    out.i64(record.planned_index);
    wire::encode(out, record.result);
}

CandidateResultRecord decode_candidate_result_record(wire::ByteReader& in) {
    CandidateResultRecord record;
    record.chunk_id = in.i64();
    record.planned_index = in.i64();
    record.result = wire::decode_candidate_result(in);
    return record;
}

void encode_body(wire::ByteWriter& out, const RaceOutcomeRecord& record) {
    out.string(record.shape_key);
    out.i64(record.race_id);
    out.u32(record.rounds_completed);
    out.boolean(record.stopped);
    wire::encode(out, record.device);
    out.u32(static_cast<std::uint32_t>(record.contenders.size()));
    for (const auto& contender : record.contenders) {
        out.i64(contender.planned_index);
        wire::encode(out, contender.id);
        out.boolean(contender.is_incumbent);
        wire::encode(out, contender.status);
        out.string(contender.detail);
        out.u32(static_cast<std::uint32_t>(contender.samples_us.size()));
        for (const auto& round : contender.samples_us) out.f64_vector(round);
    }
    out.i64(record.started_unix_ns);
    out.i64(record.finished_unix_ns);
}

RaceOutcomeRecord decode_race_outcome(wire::ByteReader& in) {
    RaceOutcomeRecord record;
    record.shape_key = in.string();
    record.race_id = in.i64();
    record.rounds_completed = in.u32();
    record.stopped = in.boolean();
    record.device = wire::decode_measured_on(in);
    const std::uint32_t contenders = in.count(16);
    for (std::uint32_t i = 0; i < contenders; ++i) {
        RaceContenderRecord contender;
        contender.planned_index = in.i64();
        contender.id = wire::decode_candidate_id(in);
        contender.is_incumbent = in.boolean();
        contender.status = wire::decode_status(in);
        contender.detail = in.string();
        const std::uint32_t rounds = in.count(4);
        for (std::uint32_t r = 0; r < rounds; ++r) contender.samples_us.push_back(in.f64_vector());
        record.contenders.push_back(std::move(contender));
    }
    if (in.remaining() > 0) {  // absent from journals written before the race times existed
        record.started_unix_ns = in.i64();
        record.finished_unix_ns = in.i64();
    }
    return record;
}

void encode_body(wire::ByteWriter& out, const ShapeDecision& record) {
    out.string(record.shape_key);
    out.u8(static_cast<std::uint8_t>(record.kind));
    wire::encode(out, record.incumbent);
    out.boolean(record.winner.has_value());
    if (record.winner) wire::encode(out, *record.winner);
    out.boolean(record.challenger.has_value());
    if (record.challenger) wire::encode(out, *record.challenger);
    encode_optional(out, record.challenger_us);
    encode_optional(out, record.challenger_stderr_us);
    encode_optional(out, record.incumbent_stderr_us);
    encode_optional(out, record.margin_pct);
    out.f64(record.bar_pct);
    out.f64(record.noise_floor_pct);
    encode_optional(out, record.incumbent_us);
    encode_optional(out, record.winner_us);
    out.string(record.reason);
    out.boolean(record.publish);
    wire::encode(out, record.published_candidate);
    out.f64(record.published_us);
    out.f64(record.published_err);
}

ShapeDecision decode_decision(wire::ByteReader& in) {
    ShapeDecision record;
    record.shape_key = in.string();
    const std::uint8_t kind = in.u8();
    if (kind > static_cast<std::uint8_t>(DecisionKind::all_failed)) {
        throw wire::WireError("bad decision kind " + std::to_string(kind));
    }
    record.kind = static_cast<DecisionKind>(kind);
    record.incumbent = wire::decode_candidate_id(in);
    if (in.boolean()) record.winner = wire::decode_candidate_id(in);
    if (in.boolean()) record.challenger = wire::decode_candidate_id(in);
    record.challenger_us = decode_optional(in);
    record.challenger_stderr_us = decode_optional(in);
    record.incumbent_stderr_us = decode_optional(in);
    record.margin_pct = decode_optional(in);
    record.bar_pct = in.f64();
    record.noise_floor_pct = in.f64();
    record.incumbent_us = decode_optional(in);
    record.winner_us = decode_optional(in);
    record.reason = in.string();
    record.publish = in.boolean();
    record.published_candidate = wire::decode_candidate(in);
    record.published_us = in.f64();
    record.published_err = in.f64();
    return record;
}

void encode_body(wire::ByteWriter& out, const SessionStartedRecord& record) {
    out.u32(static_cast<std::uint32_t>(record.command_line.size()));
    for (const auto& argument : record.command_line) out.string(argument);
    out.string(record.backend);
    out.u64(record.seed);
    out.string(record.device.gfx);
    out.i32(record.device.cu_num);
    out.i32(record.world_size);
    out.i64(record.started_unix);
    out.string(record.tool_version);
    out.u32(static_cast<std::uint32_t>(record.policy.size()));
    for (const auto& [name, value] : record.policy) {
        out.string(name);
        out.f64(value);
    }
}

SessionStartedRecord decode_session_started(wire::ByteReader& in) {
    SessionStartedRecord record;
    const std::uint32_t arguments = in.count(4);
    for (std::uint32_t i = 0; i < arguments; ++i) record.command_line.push_back(in.string());
    record.backend = in.string();
    record.seed = in.u64();
    record.device.gfx = in.string();
    record.device.cu_num = in.i32();
    record.world_size = in.i32();
    if (record.world_size < 1) {
        throw wire::WireError("bad world size " + std::to_string(record.world_size));
    }
    record.started_unix = in.i64();
    record.tool_version = in.string();
    const std::uint32_t values = in.count(12);
    for (std::uint32_t i = 0; i < values; ++i) {
        std::string name = in.string();
        record.policy.emplace_back(std::move(name), in.f64());
    }
    return record;
}

void encode_body(wire::ByteWriter& out, const RankJoinedRecord& record) {
    out.i32(record.rank);
    out.string(record.host);
    out.string(record.binding);
}

RankJoinedRecord decode_rank_joined(wire::ByteReader& in) {
    RankJoinedRecord record;
    record.rank = in.i32();
    if (record.rank < 0) throw wire::WireError("bad rank " + std::to_string(record.rank));
    record.host = in.string();
    record.binding = in.string();
    return record;
}

void encode_body(wire::ByteWriter& out, const SessionEndedRecord& record) {
    out.i64(record.finished_unix);
    out.i32(record.exit_status);
}

SessionEndedRecord decode_session_ended(wire::ByteReader& in) {
    SessionEndedRecord record;
    record.finished_unix = in.i64();
    record.exit_status = in.i32();
    return record;
}

template <typename Record>
constexpr JournalRecordType type_of() {
    if constexpr (std::is_same_v<Record, RunHeader>) return JournalRecordType::run_header;
    if constexpr (std::is_same_v<Record, ShapeLoadedRecord>) return JournalRecordType::shape_loaded;
    if constexpr (std::is_same_v<Record, ShapeLoadFailedRecord>) {
        return JournalRecordType::shape_load_failed;
    }
    if constexpr (std::is_same_v<Record, CandidateResultRecord>) {
        return JournalRecordType::candidate_result;
    }
    if constexpr (std::is_same_v<Record, RaceOutcomeRecord>) return JournalRecordType::race_outcome;
    if constexpr (std::is_same_v<Record, ShapeDecision>) return JournalRecordType::decision;
    if constexpr (std::is_same_v<Record, SessionStartedRecord>) {
        return JournalRecordType::session_started;
    }
    if constexpr (std::is_same_v<Record, RankJoinedRecord>) return JournalRecordType::rank_joined;
    if constexpr (std::is_same_v<Record, SessionEndedRecord>) {
        return JournalRecordType::session_ended;
    }
}

}  // namespace

std::string_view to_string(DecisionKind kind) noexcept {
    switch (kind) {
        case DecisionKind::promote: return "promote";
        case DecisionKind::retain: return "retain";
        case DecisionKind::incomplete: return "incomplete";
        case DecisionKind::all_failed: return "all_failed";
    }
    return "unknown";
}

std::vector<std::uint8_t> encode_journal_record(const JournalRecord& record) {
    return std::visit(
        [](const auto& typed) {
            using Record = std::decay_t<decltype(typed)>;
            wire::ByteWriter out;
            encode_body(out, typed);
            return wire::encode_frame(journal_format_version,
                                      static_cast<std::uint16_t>(type_of<Record>()), out.bytes());
        },
        record);
}

JournalRecord decode_journal_record(std::uint16_t type, std::span<const std::uint8_t> payload) {
    wire::ByteReader in(payload);
    JournalRecord record;
    switch (static_cast<JournalRecordType>(type)) {
        case JournalRecordType::run_header: record = decode_run_header(in); break;
        case JournalRecordType::shape_loaded: record = decode_shape_loaded(in); break;
        case JournalRecordType::shape_load_failed: record = decode_shape_load_failed(in); break;
        case JournalRecordType::candidate_result:
            record = decode_candidate_result_record(in);
            break;
        case JournalRecordType::race_outcome: record = decode_race_outcome(in); break;
        case JournalRecordType::decision: record = decode_decision(in); break;
        case JournalRecordType::session_started: record = decode_session_started(in); break;
        case JournalRecordType::rank_joined: record = decode_rank_joined(in); break;
        case JournalRecordType::session_ended: record = decode_session_ended(in); break;
        default: throw wire::WireError("unknown journal record type " + std::to_string(type));
    }
    in.expect_end();
    return record;
}

}  // namespace fhmoe::evidence
