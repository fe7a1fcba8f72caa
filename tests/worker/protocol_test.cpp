#include <gtest/gtest.h>

#include "fhmoe/wire/frame.hpp"
#include "fhmoe/worker/protocol.hpp"

namespace fhmoe::worker {
namespace {

wire::Frame frame_of(const std::vector<std::uint8_t>& bytes) {
    return wire::decode_frame(bytes, protocol_version);
}

TEST(Protocol, RunCandidatesRoundTrips) {
    RunCandidates run;
    run.chunk_id = 42;
    run.settings = {1, 3, 0.05, 1e-2, 1e-2};
    family::Candidate config;
    config.block_m = 64;
    config.stage1.tile_m = 64;
    run.candidates.push_back({7, {64, "s1", "s2"}, config, 1});
    run.candidates.push_back({9, {32, "a", "b"}, family::Candidate{}, 0});
    const Command back = decode_command(frame_of(encode_command(run)));
    const auto& decoded = std::get<RunCandidates>(back);
    EXPECT_EQ(decoded.chunk_id, 42);
    EXPECT_EQ(decoded.settings, run.settings);
    ASSERT_EQ(decoded.candidates.size(), 2U);
    EXPECT_EQ(decoded.candidates[0].planned_index, 7);
    EXPECT_EQ(decoded.candidates[0].id, run.candidates[0].id);
    EXPECT_EQ(decoded.candidates[0].config, config);
    EXPECT_EQ(decoded.candidates[0].attempt, 1U);
    EXPECT_EQ(decoded.candidates[1].planned_index, 9);
}

TEST(Protocol, RunRaceRoundTrips) {
    RunRace race;
    race.race_id = 5;
    race.total_contenders = 3;
    race.contenders.push_back({2, 11, {32, "x", "y"}, family::Candidate{}});
    race.first_round = 1;
    race.rounds = 4;
    race.skip_in_first_round = {0, 1};
    race.attempt = 2;
    const auto decoded = std::get<RunRace>(decode_command(frame_of(encode_command(race))));
    EXPECT_EQ(decoded.race_id, 5);
    EXPECT_EQ(decoded.total_contenders, 3U);
    ASSERT_EQ(decoded.contenders.size(), 1U);
    EXPECT_EQ(decoded.contenders[0].position, 2U);
    EXPECT_EQ(decoded.contenders[0].planned_index, 11);
    EXPECT_EQ(decoded.first_round, 1U);
    EXPECT_EQ(decoded.rounds, 4U);
    EXPECT_EQ(decoded.skip_in_first_round, (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ(decoded.attempt, 2U);
}

TEST(Protocol, RepliesRoundTrip) {
    CandidateResultReply result;
    result.planned_index = 3;
    result.context_poisoned = true;
    result.result.status = tuning::Status::crash;
    result.result.detail = "device fault";
    const auto decoded =
        std::get<CandidateResultReply>(decode_reply(frame_of(encode_reply(result))));
    EXPECT_EQ(decoded.planned_index, 3);
    EXPECT_TRUE(decoded.context_poisoned);
    EXPECT_EQ(decoded.result.status, tuning::Status::crash);
    EXPECT_EQ(decoded.result.detail, "device fault");

    RaceSample sample{2, 1, tuning::Status::ok, "", false, false, {1.0, 2.0}};
    const auto back = std::get<RaceSample>(decode_reply(frame_of(encode_reply(sample))));
    EXPECT_EQ(back.round, 2U);
    EXPECT_EQ(back.position, 1U);
    EXPECT_EQ(back.samples_us, sample.samples_us);

    const auto hello = std::get<Hello>(
        decode_reply(frame_of(encode_reply(Hello{77, "sim", {-1, "h", 0, "sim", "u", 77}}))));
    EXPECT_EQ(hello.pid, 77);
    EXPECT_EQ(hello.backend, "sim");
    EXPECT_EQ(hello.device.worker_pid, 77);
}

TEST(Protocol, ACommandIsNotAReplyAndTheReverse) {
    EXPECT_THROW(decode_reply(frame_of(encode_command(Shutdown{}))), wire::WireError);
    EXPECT_THROW(decode_command(frame_of(encode_reply(RunDone{1}))), wire::WireError);
}

TEST(Protocol, TrailingPayloadBytesAreRejected) {
    wire::Frame frame = frame_of(encode_reply(RunDone{1}));
    frame.payload.push_back(0);
    EXPECT_THROW(decode_reply(frame), wire::WireError);
}

TEST(Protocol, FramesCarryTheProtocolVersion) {
    const auto bytes = encode_command(Shutdown{});
    EXPECT_THROW(wire::decode_frame(bytes, protocol_version + 1), wire::FrameError);
}

}  // namespace
}  // namespace fhmoe::worker
