#include "evidence/archive_schema.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence {
namespace {

template <typename Enum, std::size_t N>
h5::Datatype enum_type_of(const Enum (&values)[N]) {
    std::vector<std::pair<std::string, unsigned char>> members;
    for (Enum value : values) {
        members.emplace_back(std::string(to_string(value)), static_cast<unsigned char>(value));
    }
    return h5::uint8_enum_type(members);
}

h5::Datatype status_enum_type() {
    std::vector<std::pair<std::string, unsigned char>> members;
    for (tuning::Status status : tuning::all_statuses) {
        members.emplace_back(std::string(tuning::to_string(status)),
                             static_cast<unsigned char>(status));
    }
    return h5::uint8_enum_type(members);
}

}  // namespace

// The column name is the row member's name: one spelling for C++, HDF5, h5py and CSV.
#define FHMOE_COLUMN(table, Row, member, type) table.add(#member, offsetof(Row, member), type)

ArchiveSchema::ArchiveSchema(bool with_race_columns)
    : string_(h5::utf8_string_type()),
      bool_(h5::bool_type()),
      status_(status_enum_type()),
      decision_(enum_type_of(all_decisions)),
      ratio_basis_(enum_type_of(all_ratio_bases)),
      shapes_(sizeof(ShapeRow)),
      candidates_(sizeof(CandidateRow)),
      race_(sizeof(RaceRow)),
      decisions_(sizeof(DecisionRow)),
      policy_(sizeof(PolicyRow)),
      ranks_(sizeof(RankRow)) {
    const hid_t text = string_.get();
    const hid_t flag = bool_.get();

    FHMOE_COLUMN(shapes_, ShapeRow, shape_id, H5T_NATIVE_UINT32);
    FHMOE_COLUMN(shapes_, ShapeRow, shape_key, text);
    FHMOE_COLUMN(shapes_, ShapeRow, gfx, text);
    FHMOE_COLUMN(shapes_, ShapeRow, cu_num, H5T_NATIVE_INT32);
    FHMOE_COLUMN(shapes_, ShapeRow, token, H5T_NATIVE_INT64);
    FHMOE_COLUMN(shapes_, ShapeRow, padded_token, H5T_NATIVE_INT64);
    FHMOE_COLUMN(shapes_, ShapeRow, model_dim, H5T_NATIVE_INT64);
    FHMOE_COLUMN(shapes_, ShapeRow, inter_dim, H5T_NATIVE_INT64);
    FHMOE_COLUMN(shapes_, ShapeRow, expert, H5T_NATIVE_INT64);
    FHMOE_COLUMN(shapes_, ShapeRow, topk, H5T_NATIVE_INT64);
    FHMOE_COLUMN(shapes_, ShapeRow, shared_expert_id, H5T_NATIVE_INT64);
    FHMOE_COLUMN(shapes_, ShapeRow, act_type, text);
    FHMOE_COLUMN(shapes_, ShapeRow, dtype, text);
    FHMOE_COLUMN(shapes_, ShapeRow, q_dtype_a, text);
    FHMOE_COLUMN(shapes_, ShapeRow, q_dtype_w, text);
    FHMOE_COLUMN(shapes_, ShapeRow, q_type, text);
    FHMOE_COLUMN(shapes_, ShapeRow, use_g1u1, H5T_NATIVE_INT32);
    FHMOE_COLUMN(shapes_, ShapeRow, doweight_stage1, H5T_NATIVE_INT32);
    FHMOE_COLUMN(shapes_, ShapeRow, hidden_pad, H5T_NATIVE_INT64);
    FHMOE_COLUMN(shapes_, ShapeRow, intermediate_pad, H5T_NATIVE_INT64);
    FHMOE_COLUMN(shapes_, ShapeRow, gate_mode, text);
    FHMOE_COLUMN(shapes_, ShapeRow, candidate_count, H5T_NATIVE_UINT32);
    for (tuning::Status status : tuning::all_statuses) {
        const auto index = static_cast<std::size_t>(status);
        shapes_.add("n_" + std::string(tuning::to_string(status)),
                    offsetof(ShapeRow, status_counts) + index * sizeof(std::uint32_t),
                    H5T_NATIVE_UINT32);
    }
    FHMOE_COLUMN(shapes_, ShapeRow, decision, decision_.get());

    FHMOE_COLUMN(candidates_, CandidateRow, shape_id, H5T_NATIVE_UINT32);
    FHMOE_COLUMN(candidates_, CandidateRow, shape_key, text);
    FHMOE_COLUMN(candidates_, CandidateRow, candidate_key, text);
    FHMOE_COLUMN(candidates_, CandidateRow, block_m, H5T_NATIVE_INT32);
    FHMOE_COLUMN(candidates_, CandidateRow, stage1, text);
    FHMOE_COLUMN(candidates_, CandidateRow, stage2, text);
    FHMOE_COLUMN(candidates_, CandidateRow, status, status_.get());
    FHMOE_COLUMN(candidates_, CandidateRow, detail, text);
    FHMOE_COLUMN(candidates_, CandidateRow, n_raw, H5T_NATIVE_UINT32);
    FHMOE_COLUMN(candidates_, CandidateRow, n_kept, H5T_NATIVE_UINT32);
    FHMOE_COLUMN(candidates_, CandidateRow, mean_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, median_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, stddev_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, stderr_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, min_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, max_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, sort_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, quant_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, stage1_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, stage2_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, reduce_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, mismatch_fraction, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, cosine_distance, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, max_abs_delta, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, catastrophic, flag);
    FHMOE_COLUMN(candidates_, CandidateRow, relative_to_incumbent, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(candidates_, CandidateRow, ratio_basis, ratio_basis_.get());
    FHMOE_COLUMN(candidates_, CandidateRow, rank, H5T_NATIVE_INT32);
    FHMOE_COLUMN(candidates_, CandidateRow, host, text);
    FHMOE_COLUMN(candidates_, CandidateRow, device_index, H5T_NATIVE_INT32);
    FHMOE_COLUMN(candidates_, CandidateRow, device_name, text);
    FHMOE_COLUMN(candidates_, CandidateRow, device_uuid, text);
    FHMOE_COLUMN(candidates_, CandidateRow, worker_pid, H5T_NATIVE_INT32);
    FHMOE_COLUMN(candidates_, CandidateRow, chunk, H5T_NATIVE_INT64);
    FHMOE_COLUMN(candidates_, CandidateRow, attempt, H5T_NATIVE_UINT32);
    FHMOE_COLUMN(candidates_, CandidateRow, fault_injected, flag);
    FHMOE_COLUMN(candidates_, CandidateRow, started_unix_ns, H5T_NATIVE_INT64);
    FHMOE_COLUMN(candidates_, CandidateRow, finished_unix_ns, H5T_NATIVE_INT64);

    FHMOE_COLUMN(race_, RaceRow, shape_id, H5T_NATIVE_UINT32);
    FHMOE_COLUMN(race_, RaceRow, candidate_key, text);
    FHMOE_COLUMN(race_, RaceRow, round, H5T_NATIVE_UINT32);
    FHMOE_COLUMN(race_, RaceRow, time_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(race_, RaceRow, is_incumbent, flag);

    FHMOE_COLUMN(decisions_, DecisionRow, shape_id, H5T_NATIVE_UINT32);
    FHMOE_COLUMN(decisions_, DecisionRow, decision, decision_.get());
    FHMOE_COLUMN(decisions_, DecisionRow, incumbent_key, text);
    FHMOE_COLUMN(decisions_, DecisionRow, incumbent_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(decisions_, DecisionRow, incumbent_stderr_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(decisions_, DecisionRow, winner_key, text);
    FHMOE_COLUMN(decisions_, DecisionRow, winner_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(decisions_, DecisionRow, winner_stderr_us, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(decisions_, DecisionRow, margin_pct, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(decisions_, DecisionRow, bar_pct, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(decisions_, DecisionRow, noise_floor_pct, H5T_NATIVE_DOUBLE);
    FHMOE_COLUMN(decisions_, DecisionRow, published_key, text);
    FHMOE_COLUMN(decisions_, DecisionRow, reason, text);
    if (with_race_columns) {
        FHMOE_COLUMN(decisions_, DecisionRow, race_rank, H5T_NATIVE_INT32);
        FHMOE_COLUMN(decisions_, DecisionRow, race_host, text);
        FHMOE_COLUMN(decisions_, DecisionRow, race_started_unix_ns, H5T_NATIVE_INT64);
        FHMOE_COLUMN(decisions_, DecisionRow, race_finished_unix_ns, H5T_NATIVE_INT64);
    }

    FHMOE_COLUMN(policy_, PolicyRow, name, text);
    FHMOE_COLUMN(policy_, PolicyRow, value, H5T_NATIVE_DOUBLE);

    FHMOE_COLUMN(ranks_, RankRow, rank, H5T_NATIVE_INT32);
    FHMOE_COLUMN(ranks_, RankRow, host, text);
    FHMOE_COLUMN(ranks_, RankRow, device_index, H5T_NATIVE_INT32);
    FHMOE_COLUMN(ranks_, RankRow, device_name, text);
    FHMOE_COLUMN(ranks_, RankRow, device_uuid, text);
    FHMOE_COLUMN(ranks_, RankRow, driver, text);
}

#undef FHMOE_COLUMN

}  // namespace fhmoe::evidence
