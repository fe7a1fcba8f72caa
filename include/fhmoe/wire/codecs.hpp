#pragma once

// Encodings of the project's records, shared by the worker pipe, the MPI messages and the
// journal so that a record has one byte layout everywhere: each record's field list, through
// record_codec.hpp. Each decode_* reads exactly what the matching encode_* wrote and
// validates every enum, throwing WireError on anything else.

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/wire/bytes.hpp"
#include "fhmoe/wire/measurement_settings.hpp"

namespace fhmoe::wire {

void encode(ByteWriter& out, const family::ShapeKey& shape);
void encode(ByteWriter& out, const family::Candidate& candidate);
void encode(ByteWriter& out, const tuning::CandidateId& id);
void encode(ByteWriter& out, const tuning::TimingStats& timing);
void encode(ByteWriter& out, const tuning::StageSplit& stages);
void encode(ByteWriter& out, const tuning::ErrorMetrics& error);
void encode(ByteWriter& out, const tuning::MeasuredOn& where);
void encode(ByteWriter& out, const tuning::CandidateResult& result);
void encode(ByteWriter& out, const MeasurementSettings& settings);
void encode(ByteWriter& out, tuning::Status status);

family::ShapeKey decode_shape(ByteReader& in);
family::Candidate decode_candidate(ByteReader& in);
tuning::CandidateId decode_candidate_id(ByteReader& in);
tuning::TimingStats decode_timing(ByteReader& in);
tuning::StageSplit decode_stages(ByteReader& in);
tuning::ErrorMetrics decode_error_metrics(ByteReader& in);
tuning::MeasuredOn decode_measured_on(ByteReader& in);
tuning::CandidateResult decode_candidate_result(ByteReader& in);
MeasurementSettings decode_measurement_settings(ByteReader& in);
tuning::Status decode_status(ByteReader& in);

}  // namespace fhmoe::wire
