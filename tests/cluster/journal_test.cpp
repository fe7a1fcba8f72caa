// The run journal: every record type round-trips, a torn last record is tolerated and cut
// off on reopen, corruption in the middle is refused, a journal is never overwritten, and a
// finished run's journal is kept by name for the next run.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/default_config.hpp"
#include "fhmoe/wire/bytes.hpp"
#include "fhmoe/wire/frame.hpp"
#include "fhmoe/wire/record_codec.hpp"
#include "support/small_shape.hpp"
#include "tuner_harness.hpp"

namespace fhmoe::evidence {
namespace {

using test_support::small_shape;

RunHeader sample_header() {
    RunHeader header;
    header.fingerprint = {{"seed", "7"}, {"backend", "sim"}};
    PlannedShape planned;
    planned.shape = small_shape(3);
    planned.candidates = {family::default_candidate(planned.shape)};
    planned.candidates.push_back(planned.candidates.front());
    planned.candidates.back().stage1.k_splits = 2;  // a fixed K split travels too
    planned.incumbent_index = 0;
    planned.incumbent_row_us = 12.5;
    header.shapes.push_back(planned);
    header.tool_version = "test";
    header.started_unix_ns = 123;
    return header;
}

CandidateResultRecord sample_result(std::int64_t chunk) {
    CandidateResultRecord record;
    record.chunk_id = chunk;
    record.planned_index = 0;
    record.result.shape_key = family::shape_key_string(small_shape(3));
    record.result.candidate = family::to_candidate_id(family::default_candidate(small_shape(3)));
    record.result.status = tuning::Status::ok;
    record.result.timing.mean_us = 42.0;
    record.result.chunk = chunk;
    return record;
}

std::string journal_path() {
    const std::string dir = cluster::testing::fresh_directory();
    return dir + "/journal.bin";
}

TEST(Journal, EveryRecordTypeRoundTrips) {
    const std::string path = journal_path();
    ShapeDecision decision;
    decision.shape_key = "t3";
    decision.kind = DecisionKind::promote;
    decision.published = sample_result(0).result.candidate;
    decision.margin_pct = 4.5;
    decision.bar_pct = 3.0;
    decision.publish = true;
    decision.published_candidate = family::default_candidate(small_shape(3));
    decision.published_us = 10.0;
    RaceOutcomeRecord race;
    race.shape_key = "t3";
    race.race_id = 9;
    race.rounds_completed = 2;
    race.contenders.push_back(RaceContenderRecord{
        0, decision.published.value(), true, tuning::Status::ok, "", {{1.0, 2.0}, {3.0}}});
    race.started_unix_ns = 1700000000123456789;
    race.finished_unix_ns = 1700000001987654321;
    SessionStartedRecord session;
    session.command_line = {"fhmoe_tune_mpi", "-i", "a b.csv", ""};
    session.backend = "cpu";
    session.seed = 0xFFFFFFFFFFFFFFFFULL;
    session.device = family::DeviceKey{"gfx950", 256};
    session.world_size = 4;
    session.started_unix = 1700000000;
    session.tool_version = "0.1.0";
    session.policy = {{"iters", 101.0}, {"min_improvement_pct", 3.5}};
    {
        auto writer = JournalWriter::create(path, sample_header());
        writer.append(ShapeLoadedRecord{"t3", 0xABCDEFULL, {}, 0.5});
        writer.append(ShapeLoadFailedRecord{"t3", 4, 2, "host", "boom", 2});
        writer.append(sample_result(4));
        writer.append(race);
        writer.append(decision);
        writer.append(session);
        writer.append(RankJoinedRecord{3, "node7", "CUDA_VISIBLE_DEVICES=2"});
        writer.append(SessionEndedRecord{1700000123, 3});
    }
    const JournalContents contents = read_journal(path);
    EXPECT_EQ(contents.header.fingerprint, sample_header().fingerprint);
    ASSERT_EQ(contents.header.shapes.size(), 1U);
    EXPECT_EQ(contents.header.shapes[0].incumbent_row_us, 12.5);
    ASSERT_EQ(contents.records.size(), 8U);
    EXPECT_EQ(std::get<ShapeLoadedRecord>(contents.records[0]).reference_digest, 0xABCDEFULL);
    EXPECT_EQ(std::get<ShapeLoadFailedRecord>(contents.records[1]).detail, "boom");
    EXPECT_EQ(std::get<CandidateResultRecord>(contents.records[2]).result.timing.mean_us, 42.0);
    EXPECT_EQ(std::get<RaceOutcomeRecord>(contents.records[3]).contenders[0].samples_us,
              race.contenders[0].samples_us);
    EXPECT_EQ(std::get<RaceOutcomeRecord>(contents.records[3]).started_unix_ns,
              race.started_unix_ns);
    EXPECT_EQ(std::get<RaceOutcomeRecord>(contents.records[3]).finished_unix_ns,
              race.finished_unix_ns);
    const auto& read_decision = std::get<ShapeDecision>(contents.records[4]);
    EXPECT_EQ(read_decision.kind, DecisionKind::promote);
    EXPECT_EQ(read_decision.margin_pct, 4.5);
    EXPECT_EQ(read_decision.published_candidate, decision.published_candidate);
    const auto& read_session = std::get<SessionStartedRecord>(contents.records[5]);
    EXPECT_EQ(read_session.command_line, session.command_line);
    EXPECT_EQ(read_session.backend, "cpu");
    EXPECT_EQ(read_session.seed, session.seed);
    EXPECT_EQ(read_session.device, session.device);
    EXPECT_EQ(read_session.world_size, 4);
    EXPECT_EQ(read_session.started_unix, 1700000000);
    EXPECT_EQ(read_session.tool_version, "0.1.0");
    EXPECT_EQ(read_session.policy, session.policy);
    const auto& joined = std::get<RankJoinedRecord>(contents.records[6]);
    EXPECT_EQ(joined.rank, 3);
    EXPECT_EQ(joined.host, "node7");
    EXPECT_EQ(joined.binding, "CUDA_VISIBLE_DEVICES=2");
    const auto& ended = std::get<SessionEndedRecord>(contents.records[7]);
    EXPECT_EQ(ended.finished_unix, 1700000123);
    EXPECT_EQ(ended.exit_status, 3);
    EXPECT_EQ(contents.torn_tail_bytes, 0U);
}

TEST(Journal, ARaceRecordWrittenBeforeTheRaceTimesExistedStillReads) {
    // The race times were appended to the race record's payload without a new frame version:
    // a payload that ends before them (an older writer's) reads with both times 0.
    RaceOutcomeRecord race;
    race.shape_key = "t3";
    race.race_id = 4;
    race.rounds_completed = 1;
    race.started_unix_ns = 11;
    race.finished_unix_ns = 22;
    const wire::Frame frame =
        wire::decode_frame(encode_journal_record(race), journal_format_version);
    const std::span<const std::uint8_t> older(frame.payload.data(), frame.payload.size() - 16);
    const auto read = std::get<RaceOutcomeRecord>(decode_journal_record(frame.type, older));
    EXPECT_EQ(read.shape_key, "t3");
    EXPECT_EQ(read.rounds_completed, 1U);
    EXPECT_EQ(read.started_unix_ns, 0);
    EXPECT_EQ(read.finished_unix_ns, 0);
    EXPECT_EQ(std::get<RaceOutcomeRecord>(decode_journal_record(frame.type, frame.payload))
                  .finished_unix_ns,
              22);
}

TEST(Journal, AFrameOfAVersionThisBuildDoesNotKnowIsRefused) {
    const wire::Frame frame =
        wire::decode_frame(encode_journal_record(sample_header()), journal_format_version);
    EXPECT_EQ(std::get<RunHeader>(decode_journal_record(frame.type, frame.payload))
                  .shapes.front()
                  .candidates.back()
                  .stage1.k_splits,
              2);
    for (const std::uint16_t version :
         {static_cast<std::uint16_t>(oldest_readable_journal_format_version - 1),
          static_cast<std::uint16_t>(journal_format_version + 1)}) {
        try {
            decode_journal_record(frame.type, frame.payload, version);
            ADD_FAILURE() << "read a version " << version << " frame";
        } catch (const wire::WireError& error) {
            EXPECT_EQ(std::string(error.what()), "journal format version " +
                                                     std::to_string(version) +
                                                     " is not one this build reads");
        }
    }
}

TEST(Journal, ACandidateRecordWrittenBeforeTheScreenExistedStillReads) {
    // The screen's fields end the candidate record's payload, again without a new frame
    // version: a payload that ends before them reads as a candidate that was not screened.
    CandidateResultRecord record = sample_result(5);
    record.result.finished_unix_ns = 77;
    record.result.screen.screened = true;
    record.result.screen.pruned = true;
    record.result.screen.prune_bound = "chunk_best";
    record.result.screen.prune_margin_pct = 12.5;
    record.result.screen.screen_runs = 8;
    const wire::Frame frame =
        wire::decode_frame(encode_journal_record(record), journal_format_version);
    wire::ByteWriter screen_bytes;
    wire::put(screen_bytes, record.result.screen);
    const std::span<const std::uint8_t> older(frame.payload.data(),
                                              frame.payload.size() - screen_bytes.bytes().size());
    const auto read = std::get<CandidateResultRecord>(decode_journal_record(frame.type, older));
    EXPECT_EQ(read.chunk_id, 5);
    EXPECT_EQ(read.result.finished_unix_ns, 77);
    EXPECT_EQ(read.result.timing.mean_us, 42.0);
    EXPECT_FALSE(read.result.screen.screened);
    EXPECT_FALSE(read.result.screen.pruned);
    const auto whole =
        std::get<CandidateResultRecord>(decode_journal_record(frame.type, frame.payload));
    EXPECT_TRUE(whole.result.screen.pruned);
    EXPECT_EQ(whole.result.screen.prune_bound, "chunk_best");
    EXPECT_EQ(whole.result.screen.prune_margin_pct, 12.5);
    EXPECT_EQ(whole.result.screen.screen_runs, 8U);
    // Cut inside the screen is damage, not an older writer.
    const std::span<const std::uint8_t> torn(frame.payload.data(), frame.payload.size() - 3);
    EXPECT_THROW((void)decode_journal_record(frame.type, torn), wire::WireError);
}

TEST(Journal, TornLastRecordIsIgnoredAndCutOffOnReopen) {
    const std::string path = journal_path();
    {
        auto writer = JournalWriter::create(path, sample_header());
        writer.append(sample_result(0));
        writer.append(sample_result(1));
    }
    const auto full = std::filesystem::file_size(path);
    std::filesystem::resize_file(path, full - 7);  // the writer died inside the last record
    JournalContents contents = read_journal(path);
    EXPECT_EQ(contents.records.size(), 1U);
    EXPECT_GT(contents.torn_tail_bytes, 0U);
    {
        auto writer = JournalWriter::reopen(path, contents);
        writer.append(sample_result(2));
    }
    contents = read_journal(path);
    ASSERT_EQ(contents.records.size(), 2U);
    EXPECT_EQ(std::get<CandidateResultRecord>(contents.records[1]).chunk_id, 2);
    EXPECT_EQ(contents.torn_tail_bytes, 0U);
}

TEST(Journal, CorruptionInTheMiddleIsAnError) {
    const std::string path = journal_path();
    {
        auto writer = JournalWriter::create(path, sample_header());
        writer.append(sample_result(0));
        writer.append(sample_result(1));
    }
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    const auto header_bytes = static_cast<std::streamoff>(
        std::filesystem::file_size(path) - 2 * encode_journal_record(sample_result(0)).size());
    file.seekp(header_bytes + 40);  // inside the first result's payload
    file.put('\x7f');
    file.close();
    try {
        read_journal(path);
        FAIL() << "a corrupt record followed by more records was accepted";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("corrupt record"), std::string::npos)
            << error.what();
    }
}

TEST(Journal, ANewJournalNeverOverwritesAnExistingOne) {
    const std::string path = journal_path();
    { auto writer = JournalWriter::create(path, sample_header()); }
    EXPECT_THROW(JournalWriter::create(path, sample_header()), InputError);
}

std::string journal_ending_with(const std::vector<JournalRecord>& records) {
    const std::string path = journal_path();
    auto writer = JournalWriter::create(path, sample_header());
    for (const JournalRecord& record : records) writer.append(record);
    return path;
}

std::string bytes_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// 2026-12-02 07:45:30 UTC: the kept journal's name carries the session's end, in UTC.
constexpr std::int64_t kFinishedUnix = 1796197530;

TEST(Journal, AFinishedRunsJournalIsKeptUnderItsEndTime) {
    for (int exit_status : {0, 1}) {
        SCOPED_TRACE("exit status " + std::to_string(exit_status));
        const std::string path =
            journal_ending_with({sample_result(0), SessionEndedRecord{kFinishedUnix, exit_status}});
        const std::string before = bytes_of(path);
        const auto kept = keep_finished_journal(path);
        ASSERT_TRUE(kept.has_value());
        EXPECT_EQ(*kept, path + ".20261202T074530Z");
        EXPECT_FALSE(std::filesystem::exists(path)) << "the path is free for the new run";
        EXPECT_EQ(bytes_of(*kept), before) << "kept whole: it is evidence";
        EXPECT_NO_THROW(JournalWriter::create(path, sample_header()));
    }
}

TEST(Journal, AKeptJournalNeverReplacesAnotherKeptOne) {
    const std::string path = journal_ending_with({SessionEndedRecord{kFinishedUnix, 0}});
    const std::string taken = path + ".20261202T074530Z";
    std::ofstream(taken) << "an earlier run that ended in the same second";
    const auto kept = keep_finished_journal(path);
    ASSERT_TRUE(kept.has_value());
    EXPECT_EQ(*kept, taken + ".1");
    EXPECT_EQ(bytes_of(taken), "an earlier run that ended in the same second");
}

// Only a finished run's journal moves: the others are --resume's, and a new run into them
// is refused as before, the journal untouched.
TEST(Journal, AnUnfinishedRunsJournalStaysForResume) {
    const std::vector<std::pair<std::string, std::vector<JournalRecord>>> unfinished = {
        {"killed (no session_ended)", {sample_result(0)}},
        {"interrupted (exit 3)", {SessionEndedRecord{kFinishedUnix, 3}}},
        {"an output not written (exit 5)", {SessionEndedRecord{kFinishedUnix, 5}}},
        {"resumed after it ended, then killed",
         {SessionEndedRecord{kFinishedUnix, 3}, SessionStartedRecord{}, sample_result(1)}},
    };
    for (const auto& [what, records] : unfinished) {
        SCOPED_TRACE(what);
        const std::string path = journal_ending_with(records);
        const std::string before = bytes_of(path);
        EXPECT_FALSE(keep_finished_journal(path).has_value());
        EXPECT_EQ(bytes_of(path), before);
        try {
            JournalWriter::create(path, sample_header());
            FAIL() << "a new run overwrote an unfinished run's journal";
        } catch (const InputError& error) {
            EXPECT_NE(std::string(error.what()).find("pass --resume"), std::string::npos)
                << error.what();
        }
    }
    // A torn last record is a kill, whatever came before it.
    const std::string torn = journal_ending_with({SessionEndedRecord{kFinishedUnix, 0}});
    std::ofstream(torn, std::ios::app | std::ios::binary) << "FHMW";
    EXPECT_FALSE(keep_finished_journal(torn).has_value());
    // No journal, or an empty file: nothing to keep.
    EXPECT_FALSE(keep_finished_journal(journal_path()).has_value());
}

TEST(Journal, AFileWithoutRunHeaderIsRefused) {
    const std::string path = journal_path();
    std::ofstream(path) << "not a journal at all";
    EXPECT_THROW(read_journal(path), InputError);
}

}  // namespace
}  // namespace fhmoe::evidence
