// The byte layout of each journal record: its field list through the wire codec, so a
// candidate result looks the same in the journal as on the worker pipe and in MPI messages.

#include <array>
#include <string>
#include <string_view>
#include <type_traits>

#include "fhmoe/evidence/journal_records.hpp"
#include "fhmoe/wire/bytes.hpp"
#include "fhmoe/wire/frame.hpp"
#include "fhmoe/wire/record_codec.hpp"

namespace fhmoe::evidence {
namespace {

// Each record is its field list's bytes (record_codec.hpp), and decodes so, with three
// exceptions: a race outcome's last two fields may be absent (journals written before the
// race times existed), so may a candidate result's screen (journals written before
// --search screen), and a session's world size and a rank's number are checked.

template <typename Record>
Record decode_body(wire::ByteReader& in) {
    return wire::get<Record>(in);
}

template <>
RaceOutcomeRecord decode_body<RaceOutcomeRecord>(wire::ByteReader& in) {
    static_assert(field_count<RaceOutcomeRecord>() == 8,
                  "a RaceOutcomeRecord field: decode it here, before the optional race times");
    RaceOutcomeRecord record;
    wire::get(in, record.shape_key);
    wire::get(in, record.race_id);
    wire::get(in, record.rounds_completed);
    wire::get(in, record.stopped);
    wire::get(in, record.device);
    wire::get(in, record.contenders);
    if (in.remaining() > 0) {  // absent from journals written before the race times existed
        wire::get(in, record.started_unix_ns);
        wire::get(in, record.finished_unix_ns);
    }
    return record;
}

template <>
CandidateResultRecord decode_body<CandidateResultRecord>(wire::ByteReader& in) {
    static_assert(field_count<CandidateResultRecord>() == 3,
                  "a CandidateResultRecord field: decode it here, before the result");
    CandidateResultRecord record;
    wire::get(in, record.chunk_id);
    wire::get(in, record.planned_index);
    tuning::CandidateResult& result = record.result;
    fields(
        [&](std::string_view, auto& value) {
            const void* address = &value;
            // The result's last field: absent from journals written before the screen existed.
            if (address == static_cast<const void*>(&result.screen) && in.remaining() == 0) return;
            wire::get(in, value);
        },
        result);
    return record;
}

template <>
SessionStartedRecord decode_body<SessionStartedRecord>(wire::ByteReader& in) {
    auto record = wire::get<SessionStartedRecord>(in);
    if (record.world_size < 1) {
        throw wire::WireError("bad world size " + std::to_string(record.world_size));
    }
    return record;
}

template <>
RankJoinedRecord decode_body<RankJoinedRecord>(wire::ByteReader& in) {
    auto record = wire::get<RankJoinedRecord>(in);
    if (record.rank < 0) throw wire::WireError("bad rank " + std::to_string(record.rank));
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
            wire::put(out, typed);
            return wire::encode_frame(journal_format_version,
                                      static_cast<std::uint16_t>(type_of<Record>()), out.bytes());
        },
        record);
}

// The record members each older version's frames lack (their defaults stand in).
constexpr std::array<std::string_view, 1> kAbsentBeforeVersion3{"k_splits"};

JournalRecord decode_journal_record(std::uint16_t type, std::span<const std::uint8_t> payload,
                                    std::uint16_t version) {
    if (version < oldest_readable_journal_format_version || version > journal_format_version) {
        throw wire::WireError("journal format version " + std::to_string(version) +
                              " is not one this build reads");
    }
    wire::ByteReader in(payload);
    if (version < 3) in.set_absent_members(kAbsentBeforeVersion3);
    JournalRecord record;
    switch (static_cast<JournalRecordType>(type)) {
        case JournalRecordType::run_header: record = decode_body<RunHeader>(in); break;
        case JournalRecordType::shape_loaded: record = decode_body<ShapeLoadedRecord>(in); break;
        case JournalRecordType::shape_load_failed:
            record = decode_body<ShapeLoadFailedRecord>(in);
            break;
        case JournalRecordType::candidate_result:
            record = decode_body<CandidateResultRecord>(in);
            break;
        case JournalRecordType::race_outcome: record = decode_body<RaceOutcomeRecord>(in); break;
        case JournalRecordType::decision: record = decode_body<ShapeDecision>(in); break;
        case JournalRecordType::session_started:
            record = decode_body<SessionStartedRecord>(in);
            break;
        case JournalRecordType::rank_joined: record = decode_body<RankJoinedRecord>(in); break;
        case JournalRecordType::session_ended: record = decode_body<SessionEndedRecord>(in); break;
        default: throw wire::WireError("unknown journal record type " + std::to_string(type));
    }
    in.expect_end();
    return record;
}

}  // namespace fhmoe::evidence
