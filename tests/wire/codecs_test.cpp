#include <gtest/gtest.h>

#include "fhmoe/wire/codecs.hpp"

namespace fhmoe::wire {
namespace {

tuning::CandidateResult sample_result() {
    tuning::CandidateResult r;
    r.shape_key = "t3_h512_i128_e17_k5_gui";
    r.candidate = {32, "fhmoe1_afp8_wfp4_bf16_t32x64x256_gui",
                   "fhmoe2_afp8_wfp4_bf16_t32x128x128_atomic"};
    r.status = tuning::Status::mismatch;
    r.detail = "mismatch_fraction 0.5";
    r.timing = {101, 97, 10.5, 10.25, 0.5, 0.05, 9.75, 12.0};
    r.stages = {1.0, 2.0, 3.0, 4.0, 0.5};
    r.error = {0.5, 0.01, 3.25, true};
    r.where = {3, "node7", 1, "NVIDIA H200", "GPU-1234", 4242};
    r.chunk = 12;
    r.attempt = 2;
    r.fault_injected = true;
    r.started_unix_ns = 1700000000000000000LL;
    r.finished_unix_ns = 1700000000500000000LL;
    return r;
}

template <typename T, typename Decode>
T round_trip(const T& value, Decode decode) {
    ByteWriter out;
    encode(out, value);
    ByteReader in(out.bytes());
    T back = decode(in);
    in.expect_end();
    return back;
}

void expect_same(const tuning::CandidateResult& a, const tuning::CandidateResult& b) {
    EXPECT_EQ(a.shape_key, b.shape_key);
    EXPECT_EQ(a.candidate, b.candidate);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.detail, b.detail);
    EXPECT_EQ(a.timing.n_raw, b.timing.n_raw);
    EXPECT_EQ(a.timing.n_kept, b.timing.n_kept);
    EXPECT_EQ(a.timing.mean_us, b.timing.mean_us);
    EXPECT_EQ(a.timing.median_us, b.timing.median_us);
    EXPECT_EQ(a.timing.stddev_us, b.timing.stddev_us);
    EXPECT_EQ(a.timing.stderr_us, b.timing.stderr_us);
    EXPECT_EQ(a.timing.min_us, b.timing.min_us);
    EXPECT_EQ(a.timing.max_us, b.timing.max_us);
    EXPECT_EQ(a.stages.sort_us, b.stages.sort_us);
    EXPECT_EQ(a.stages.reduce_us, b.stages.reduce_us);
    EXPECT_EQ(a.error.mismatch_fraction, b.error.mismatch_fraction);
    EXPECT_EQ(a.error.cosine_distance, b.error.cosine_distance);
    EXPECT_EQ(a.error.max_abs_delta, b.error.max_abs_delta);
    EXPECT_EQ(a.error.catastrophic, b.error.catastrophic);
    EXPECT_EQ(a.where.rank, b.where.rank);
    EXPECT_EQ(a.where.host, b.where.host);
    EXPECT_EQ(a.where.device_index, b.where.device_index);
    EXPECT_EQ(a.where.device_name, b.where.device_name);
    EXPECT_EQ(a.where.device_uuid, b.where.device_uuid);
    EXPECT_EQ(a.where.worker_pid, b.where.worker_pid);
    EXPECT_EQ(a.chunk, b.chunk);
    EXPECT_EQ(a.attempt, b.attempt);
    EXPECT_EQ(a.fault_injected, b.fault_injected);
    EXPECT_EQ(a.started_unix_ns, b.started_unix_ns);
    EXPECT_EQ(a.finished_unix_ns, b.finished_unix_ns);
}

TEST(Codecs, CandidateResultRoundTripsEveryField) {
    const tuning::CandidateResult result = sample_result();
    expect_same(round_trip(result, decode_candidate_result), result);
}

TEST(Codecs, ShapeRoundTripsNonDefaultFields) {
    family::ShapeKey shape;
    shape.token = 4096;
    shape.model_dim = 7168;
    shape.inter_dim = 384;
    shape.expert = 385;
    shape.topk = 7;
    shape.shared_expert_id = 384;
    shape.q_dtype_a = family::QDType::fp4_e2m1fn_x2;
    shape.use_g1u1 = 0;
    shape.doweight_stage1 = 1;
    shape.hidden_pad = 64;
    shape.intermediate_pad = 32;
    shape.gate_mode = family::GateMode::separated;
    EXPECT_EQ(round_trip(shape, decode_shape), shape);
}

TEST(Codecs, CandidateRoundTripsNonDefaultFields) {
    family::Candidate c;
    c.block_m = 64;
    c.stage1 = {64, 128, 128, 4, 2, family::GateMode::separated, true};
    c.stage2 = {32, 256, 64, family::Stage2Mode::reduce, true};
    EXPECT_EQ(round_trip(c, decode_candidate), c);
}

TEST(Codecs, MeasurementSettingsRoundTrip) {
    // Every field away from its default, the switches too, so a field the codec drops fails.
    const MeasurementSettings settings{1, 3, 0.1, 1e-3, 2e-3, 0.25, false, false};
    EXPECT_EQ(round_trip(settings, decode_measurement_settings), settings);
}

TEST(Codecs, MeasurementSettingsCarryThePolicysTimingSwitches) {
    tuning::MeasurementPolicy policy;
    policy.rotate_inputs = false;
    policy.graph_replay = false;
    const MeasurementSettings settings = measurement_settings(policy);
    EXPECT_FALSE(settings.rotate_inputs);
    EXPECT_FALSE(settings.graph_replay);
    EXPECT_TRUE(measurement_settings(tuning::MeasurementPolicy{}).graph_replay);
}

TEST(Codecs, OutOfRangeEnumIsRejected) {
    ByteWriter out;
    out.u8(8);  // one past not_run
    ByteReader in(out.bytes());
    EXPECT_THROW(decode_status(in), WireError);
}

TEST(Codecs, TruncatedResultIsRejected) {
    ByteWriter out;
    encode(out, sample_result());
    for (std::size_t keep : {std::size_t{0}, std::size_t{10}, out.bytes().size() - 1}) {
        ByteReader in(std::span<const std::uint8_t>(out.bytes()).first(keep));
        EXPECT_THROW(decode_candidate_result(in), WireError) << keep;
    }
}

}  // namespace
}  // namespace fhmoe::wire
