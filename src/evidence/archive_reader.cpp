#include <string>

#include "evidence/archive_schema.hpp"
#include "evidence/archive_seal.hpp"
#include "evidence/hdf5_attribute.hpp"
#include "evidence/hdf5_table.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/shape_rollup.hpp"

namespace fhmoe::evidence {
namespace {

std::string text_of(const char* text) { return text ? text : ""; }

// HDF5 converts an enum value the reader's type lacks into all ones instead of failing, so
// every enum column is range-checked before it becomes a C++ enum.
template <typename Enum, typename Values>
Enum checked_enum(std::uint8_t stored, const Values& values, const char* column) {
    for (Enum value : values) {
        if (static_cast<std::uint8_t>(value) == stored) return value;
    }
    throw Error("column '" + std::string(column) + "' holds an unknown value " +
                std::to_string(stored));
}

Provenance read_provenance(hid_t root, const ArchiveSchema& schema) {
    Provenance provenance;
    provenance.tool_version = h5::read_string_attribute(root, "tool_version");
    provenance.git_revision = h5::read_string_attribute(root, "git_revision");
    provenance.command_line = h5::read_strings_attribute(root, "command_line");
    provenance.backend = h5::read_string_attribute(root, "backend");
    provenance.seed = h5::read_uint64_attribute(root, "seed");
    provenance.started_unix = h5::read_int64_attribute(root, "started_unix");
    provenance.finished_unix = h5::read_int64_attribute(root, "finished_unix");
    provenance.exit_status = static_cast<int>(h5::read_int64_attribute(root, "exit_status"));
    provenance.complete = h5::read_bool_attribute(root, "complete");
    h5::for_each_row<PolicyRow>(root, kPolicyTable, schema.policy(), [&](const PolicyRow& row) {
        provenance.policy.push_back(PolicyValue{text_of(row.name), row.value});
    });
    h5::for_each_row<RankRow>(root, kRanksTable, schema.ranks(), [&](const RankRow& row) {
        provenance.ranks.push_back(RankInfo{row.rank, text_of(row.host), row.device_index,
                                            text_of(row.device_name), text_of(row.device_uuid),
                                            text_of(row.driver)});
    });
    return provenance;
}

ShapeRecord shape_from(const ShapeRow& row) {
    ShapeRecord shape;
    shape.device = family::DeviceKey{text_of(row.gfx), row.cu_num};
    family::ShapeKey& key = shape.key;
    key.token = row.token;
    key.model_dim = row.model_dim;
    key.inter_dim = row.inter_dim;
    key.expert = row.expert;
    key.topk = row.topk;
    key.shared_expert_id = row.shared_expert_id;
    key.act_type = family::parse_act_type(text_of(row.act_type));
    key.dtype = family::parse_dtype(text_of(row.dtype));
    key.q_dtype_a = family::parse_qdtype(text_of(row.q_dtype_a));
    key.q_dtype_w = family::parse_qdtype(text_of(row.q_dtype_w));
    key.q_type = family::parse_qtype(text_of(row.q_type));
    key.use_g1u1 = row.use_g1u1;
    key.doweight_stage1 = row.doweight_stage1;
    key.hidden_pad = row.hidden_pad;
    key.intermediate_pad = row.intermediate_pad;
    key.gate_mode = family::parse_gate_mode(text_of(row.gate_mode));
    shape.shape_key = text_of(row.shape_key);
    shape.candidate_count = row.candidate_count;
    return shape;
}

CandidateRecord candidate_from(const CandidateRow& row) {
    CandidateRecord record;
    record.shape_id = row.shape_id;
    record.relative_to_incumbent = row.relative_to_incumbent;
    record.ratio_basis = checked_enum<RatioBasis>(row.ratio_basis, all_ratio_bases, "ratio_basis");
    tuning::CandidateResult& result = record.result;
    result.shape_key = text_of(row.shape_key);
    result.candidate = tuning::CandidateId{row.block_m, text_of(row.stage1), text_of(row.stage2)};
    result.status = checked_enum<tuning::Status>(row.status, tuning::all_statuses, "status");
    result.detail = text_of(row.detail);
    result.timing = tuning::TimingStats{row.n_raw,     row.n_kept,    row.mean_us, row.median_us,
                                        row.stddev_us, row.stderr_us, row.min_us,  row.max_us};
    result.stages =
        tuning::StageSplit{row.sort_us, row.quant_us, row.stage1_us, row.stage2_us, row.reduce_us};
    result.error = tuning::ErrorMetrics{row.mismatch_fraction, row.cosine_distance,
                                        row.max_abs_delta, row.catastrophic != 0};
    result.where = tuning::MeasuredOn{row.rank,
                                      text_of(row.host),
                                      row.device_index,
                                      text_of(row.device_name),
                                      text_of(row.device_uuid),
                                      row.worker_pid};
    result.chunk = row.chunk;
    result.attempt = row.attempt;
    result.fault_injected = row.fault_injected != 0;
    result.started_unix_ns = row.started_unix_ns;
    result.finished_unix_ns = row.finished_unix_ns;
    return record;
}

DecisionRecord decision_from(const DecisionRow& row, bool with_race_columns) {
    DecisionRecord decision;
    decision.shape_id = row.shape_id;
    decision.decision = checked_enum<Decision>(row.decision, all_decisions, "decision");
    decision.incumbent_key = text_of(row.incumbent_key);
    decision.incumbent_us = row.incumbent_us;
    decision.incumbent_stderr_us = row.incumbent_stderr_us;
    decision.winner_key = text_of(row.winner_key);
    decision.winner_us = row.winner_us;
    decision.winner_stderr_us = row.winner_stderr_us;
    decision.margin_pct = row.margin_pct;
    decision.bar_pct = row.bar_pct;
    decision.noise_floor_pct = row.noise_floor_pct;
    decision.reason = text_of(row.reason);
    if (with_race_columns) {
        decision.race_rank = row.race_rank;
        decision.race_host = text_of(row.race_host);
        decision.race_started_unix_ns = row.race_started_unix_ns;
        decision.race_finished_unix_ns = row.race_finished_unix_ns;
    }
    return decision;
}

RunEvidence read_hdf5(const std::string& path) {
    h5::silence_automatic_error_printing();
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open");
    const hid_t root = file.get();
    const std::int64_t version = h5::read_int64_attribute(root, "schema_version");
    if (version != kSchemaVersion) {
        throw Error("schema_version " + std::to_string(version) + " is not supported (this " +
                    "build reads schema_version " + std::to_string(kSchemaVersion) + ")");
    }
    // Archives written before the race_* fields of /decisions existed lack them.
    const bool with_race_columns = h5::table_has_field(root, kDecisionsTable, "race_rank");
    const ArchiveSchema schema(with_race_columns);
    RunEvidence evidence;
    evidence.provenance = read_provenance(root, schema);
    h5::for_each_row<ShapeRow>(root, kShapesTable, schema.shapes(), [&](const ShapeRow& row) {
        evidence.shapes.push_back(shape_from(row));
    });
    h5::for_each_row<CandidateRow>(
        root, kCandidatesTable, schema.candidates(),
        [&](const CandidateRow& row) { evidence.candidates.push_back(candidate_from(row)); });
    h5::for_each_row<RaceRow>(root, kRaceTable, schema.race(), [&](const RaceRow& row) {
        evidence.race.push_back(RaceSample{row.shape_id, text_of(row.candidate_key), row.round,
                                           row.time_us, row.is_incumbent != 0});
    });
    h5::for_each_row<DecisionRow>(
        root, kDecisionsTable, schema.decisions(), [&](const DecisionRow& row) {
            evidence.decisions.push_back(decision_from(row, with_race_columns));
        });
    return evidence;
}

}  // namespace

RunEvidence read_archive(const std::string& path) {
    verify_archive_seal(path);
    try {
        RunEvidence evidence = read_hdf5(path);
        // Rows that point at shapes the archive does not have would crash every consumer.
        check_consistent(evidence);
        return evidence;
    } catch (const Error& error) {
        throw Error("evidence archive '" + path + "': " + error.what());
    }
}

}  // namespace fhmoe::evidence
