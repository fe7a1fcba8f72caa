#include "fhmoe/wire/codecs.hpp"

#include <string>

namespace fhmoe::wire {
namespace {

// Enums travel as one byte; a value past the last enumerator means a different layout.
template <typename Enum>
Enum decode_enum(ByteReader& in, Enum last, const char* what) {
    const std::uint8_t raw = in.u8();
    if (raw > static_cast<std::uint8_t>(last)) {
        throw WireError(std::string("bad ") + what + " value " + std::to_string(raw));
    }
    return static_cast<Enum>(raw);
}

template <typename Enum>
void encode_enum(ByteWriter& out, Enum value) {
    out.u8(static_cast<std::uint8_t>(value));
}

}  // namespace

void encode(ByteWriter& out, const family::ShapeKey& s) {
    out.i64(s.token);
    out.i64(s.model_dim);
    out.i64(s.inter_dim);
    out.i64(s.expert);
    out.i64(s.topk);
    out.i64(s.shared_expert_id);
    encode_enum(out, s.act_type);
    encode_enum(out, s.dtype);
    encode_enum(out, s.q_dtype_a);
    encode_enum(out, s.q_dtype_w);
    encode_enum(out, s.q_type);
    out.i32(s.use_g1u1);
    out.i32(s.doweight_stage1);
    out.i64(s.hidden_pad);
    out.i64(s.intermediate_pad);
    encode_enum(out, s.gate_mode);
}

family::ShapeKey decode_shape(ByteReader& in) {
    family::ShapeKey s;
    s.token = in.i64();
    s.model_dim = in.i64();
    s.inter_dim = in.i64();
    s.expert = in.i64();
    s.topk = in.i64();
    s.shared_expert_id = in.i64();
    s.act_type = decode_enum(in, family::ActType::silu, "act_type");
    s.dtype = decode_enum(in, family::DType::bf16, "dtype");
    s.q_dtype_a = decode_enum(in, family::QDType::fp4_e2m1fn_x2, "q_dtype_a");
    s.q_dtype_w = decode_enum(in, family::QDType::fp4_e2m1fn_x2, "q_dtype_w");
    s.q_type = decode_enum(in, family::QType::per_1x32, "q_type");
    s.use_g1u1 = in.i32();
    s.doweight_stage1 = in.i32();
    s.hidden_pad = in.i64();
    s.intermediate_pad = in.i64();
    s.gate_mode = decode_enum(in, family::GateMode::separated, "gate_mode");
    return s;
}

void encode(ByteWriter& out, const family::Candidate& c) {
    out.i32(c.block_m);
    out.i32(c.stage1.tile_m);
    out.i32(c.stage1.tile_n);
    out.i32(c.stage1.tile_k);
    out.i32(c.stage1.waves);
    out.i32(c.stage1.k_waves);
    encode_enum(out, c.stage1.gate_mode);
    out.boolean(c.stage1.fused_fp8_out);
    out.i32(c.stage2.tile_m);
    out.i32(c.stage2.tile_n);
    out.i32(c.stage2.tile_k);
    encode_enum(out, c.stage2.mode);
    out.boolean(c.stage2.persistent);
}

family::Candidate decode_candidate(ByteReader& in) {
    family::Candidate c;
    c.block_m = in.i32();
    c.stage1.tile_m = in.i32();
    c.stage1.tile_n = in.i32();
    c.stage1.tile_k = in.i32();
    c.stage1.waves = in.i32();
    c.stage1.k_waves = in.i32();
    c.stage1.gate_mode = decode_enum(in, family::GateMode::separated, "stage1 gate_mode");
    c.stage1.fused_fp8_out = in.boolean();
    c.stage2.tile_m = in.i32();
    c.stage2.tile_n = in.i32();
    c.stage2.tile_k = in.i32();
    c.stage2.mode = decode_enum(in, family::Stage2Mode::reduce, "stage2 mode");
    c.stage2.persistent = in.boolean();
    return c;
}

void encode(ByteWriter& out, const tuning::CandidateId& id) {
    out.i32(id.block_m);
    out.string(id.stage1);
    out.string(id.stage2);
}

tuning::CandidateId decode_candidate_id(ByteReader& in) {
    tuning::CandidateId id;
    id.block_m = in.i32();
    id.stage1 = in.string();
    id.stage2 = in.string();
    return id;
}

void encode(ByteWriter& out, const tuning::TimingStats& t) {
    out.u32(t.n_raw);
    out.u32(t.n_kept);
    out.f64(t.mean_us);
    out.f64(t.median_us);
    out.f64(t.stddev_us);
    out.f64(t.stderr_us);
    out.f64(t.min_us);
    out.f64(t.max_us);
}

tuning::TimingStats decode_timing(ByteReader& in) {
    tuning::TimingStats t;
    t.n_raw = in.u32();
    t.n_kept = in.u32();
    t.mean_us = in.f64();
    t.median_us = in.f64();
    t.stddev_us = in.f64();
    t.stderr_us = in.f64();
    t.min_us = in.f64();
    t.max_us = in.f64();
    return t;
}

void encode(ByteWriter& out, const tuning::StageSplit& s) {
    out.f64(s.sort_us);
    out.f64(s.quant_us);
    out.f64(s.stage1_us);
    out.f64(s.stage2_us);
    out.f64(s.reduce_us);
}

tuning::StageSplit decode_stages(ByteReader& in) {
    tuning::StageSplit s;
    s.sort_us = in.f64();
    s.quant_us = in.f64();
    s.stage1_us = in.f64();
    s.stage2_us = in.f64();
    s.reduce_us = in.f64();
    return s;
}

void encode(ByteWriter& out, const tuning::ErrorMetrics& e) {
    out.f64(e.mismatch_fraction);
    out.f64(e.cosine_distance);
    out.f64(e.max_abs_delta);
    out.boolean(e.catastrophic);
}

tuning::ErrorMetrics decode_error_metrics(ByteReader& in) {
    tuning::ErrorMetrics e;
    e.mismatch_fraction = in.f64();
    e.cosine_distance = in.f64();
    e.max_abs_delta = in.f64();
    e.catastrophic = in.boolean();
    return e;
}

void encode(ByteWriter& out, const tuning::MeasuredOn& w) {
    out.i32(w.rank);
    out.string(w.host);
    out.i32(w.device_index);
    out.string(w.device_name);
    out.string(w.device_uuid);
    out.i32(w.worker_pid);
}

tuning::MeasuredOn decode_measured_on(ByteReader& in) {
    tuning::MeasuredOn w;
    w.rank = in.i32();
    w.host = in.string();
    w.device_index = in.i32();
    w.device_name = in.string();
    w.device_uuid = in.string();
    w.worker_pid = in.i32();
    return w;
}

void encode(ByteWriter& out, tuning::Status status) { encode_enum(out, status); }

tuning::Status decode_status(ByteReader& in) {
    return decode_enum(in, tuning::Status::not_run, "status");
}

void encode(ByteWriter& out, const tuning::CandidateResult& r) {
    out.string(r.shape_key);
    encode(out, r.candidate);
    encode(out, r.status);
    out.string(r.detail);
    encode(out, r.timing);
    encode(out, r.stages);
    encode(out, r.error);
    encode(out, r.where);
    out.i64(r.chunk);
    out.u32(r.attempt);
    out.boolean(r.fault_injected);
    out.i64(r.started_unix_ns);
    out.i64(r.finished_unix_ns);
}

tuning::CandidateResult decode_candidate_result(ByteReader& in) {
    tuning::CandidateResult r;
    r.shape_key = in.string();
    r.candidate = decode_candidate_id(in);
    r.status = decode_status(in);
    r.detail = in.string();
    r.timing = decode_timing(in);
    r.stages = decode_stages(in);
    r.error = decode_error_metrics(in);
    r.where = decode_measured_on(in);
    r.chunk = in.i64();
    r.attempt = in.u32();
    r.fault_injected = in.boolean();
    r.started_unix_ns = in.i64();
    r.finished_unix_ns = in.i64();
    return r;
}

void encode(ByteWriter& out, const MeasurementSettings& m) {
    out.u32(m.warmup);
    out.u32(m.iters);
    out.f64(m.err_ratio);
    out.f64(m.rtol);
    out.f64(m.atol);
    out.f64(m.max_cosine_distance);
}

MeasurementSettings decode_measurement_settings(ByteReader& in) {
    MeasurementSettings m;
    m.warmup = in.u32();
    m.iters = in.u32();
    m.err_ratio = in.f64();
    m.rtol = in.f64();
    m.atol = in.f64();
    m.max_cosine_distance = in.f64();
    return m;
}

}  // namespace fhmoe::wire
