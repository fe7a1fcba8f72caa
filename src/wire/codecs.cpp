#include "fhmoe/wire/codecs.hpp"

#include "fhmoe/wire/record_codec.hpp"

// Each record's bytes are its field list's (record_codec.hpp): a field added to a record's
// list travels without an edit here.

namespace fhmoe::wire {
namespace {

template <typename Record>
Record decode_record(ByteReader& in) {
    Record record{};
    get(in, record);
    return record;
}

}  // namespace

void encode(ByteWriter& out, const family::ShapeKey& s) { put(out, s); }
void encode(ByteWriter& out, const family::Candidate& c) { put(out, c); }
void encode(ByteWriter& out, const tuning::CandidateId& id) { put(out, id); }
void encode(ByteWriter& out, const tuning::TimingStats& t) { put(out, t); }
void encode(ByteWriter& out, const tuning::StageSplit& s) { put(out, s); }
void encode(ByteWriter& out, const tuning::ErrorMetrics& e) { put(out, e); }
void encode(ByteWriter& out, const tuning::MeasuredOn& w) { put(out, w); }
void encode(ByteWriter& out, const tuning::CandidateResult& r) { put(out, r); }
void encode(ByteWriter& out, const MeasurementSettings& m) { put(out, m); }
void encode(ByteWriter& out, tuning::Status status) { put(out, status); }

family::ShapeKey decode_shape(ByteReader& in) { return decode_record<family::ShapeKey>(in); }

family::Candidate decode_candidate(ByteReader& in) { return decode_record<family::Candidate>(in); }

tuning::CandidateId decode_candidate_id(ByteReader& in) {
    return decode_record<tuning::CandidateId>(in);
}

tuning::TimingStats decode_timing(ByteReader& in) { return decode_record<tuning::TimingStats>(in); }

tuning::StageSplit decode_stages(ByteReader& in) { return decode_record<tuning::StageSplit>(in); }

tuning::ErrorMetrics decode_error_metrics(ByteReader& in) {
    return decode_record<tuning::ErrorMetrics>(in);
}

tuning::MeasuredOn decode_measured_on(ByteReader& in) {
    return decode_record<tuning::MeasuredOn>(in);
}

tuning::CandidateResult decode_candidate_result(ByteReader& in) {
    return decode_record<tuning::CandidateResult>(in);
}

MeasurementSettings decode_measurement_settings(ByteReader& in) {
    return decode_record<MeasurementSettings>(in);
}

tuning::Status decode_status(ByteReader& in) {
    tuning::Status status{};
    get(in, status, detail::FieldPath{nullptr, "status"});
    return status;
}

}  // namespace fhmoe::wire
