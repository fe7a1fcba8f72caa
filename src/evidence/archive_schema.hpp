#pragma once

// Schema version 1 of the archive (docs/evidence-schema.md): the in-memory row of each table
// and its HDF5 compound type. Member names are the column names users see in h5py, pandas
// and the CSV export; changing one is a schema change.

#include <cstdint>

#include "evidence/hdf5_types.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::evidence {

// Variable-length strings in rows are char*: written from std::string::c_str(), allocated
// by HDF5 when read.
using TextField = char*;

struct ShapeRow {
    std::uint32_t shape_id;
    TextField shape_key;
    TextField gfx;
    std::int32_t cu_num;
    std::int64_t token;
    std::int64_t padded_token;
    std::int64_t model_dim;
    std::int64_t inter_dim;
    std::int64_t expert;
    std::int64_t topk;
    std::int64_t shared_expert_id;
    TextField act_type;
    TextField dtype;
    TextField q_dtype_a;
    TextField q_dtype_w;
    TextField q_type;
    std::int32_t use_g1u1;
    std::int32_t doweight_stage1;
    std::int64_t hidden_pad;
    std::int64_t intermediate_pad;
    TextField gate_mode;
    std::uint32_t candidate_count;
    std::uint32_t status_counts[tuning::all_statuses.size()];  // columns n_<status>
    std::uint8_t decision;
};

struct CandidateRow {
    std::uint32_t shape_id;
    TextField shape_key;
    TextField candidate_key;
    std::int32_t block_m;
    TextField stage1;
    TextField stage2;
    std::uint8_t status;
    TextField detail;
    std::uint32_t n_raw;
    std::uint32_t n_kept;
    double mean_us;
    double median_us;
    double stddev_us;
    double stderr_us;
    double min_us;
    double max_us;
    double sort_us;
    double quant_us;
    double stage1_us;
    double stage2_us;
    double reduce_us;
    double mismatch_fraction;
    double cosine_distance;
    double max_abs_delta;
    std::int8_t catastrophic;
    double relative_to_incumbent;
    std::uint8_t ratio_basis;
    std::int32_t rank;
    TextField host;
    std::int32_t device_index;
    TextField device_name;
    TextField device_uuid;
    std::int32_t worker_pid;
    std::int64_t chunk;
    std::uint32_t attempt;
    std::int8_t fault_injected;
    std::int64_t started_unix_ns;
    std::int64_t finished_unix_ns;
};

struct RaceRow {
    std::uint32_t shape_id;
    TextField candidate_key;
    std::uint32_t round;
    double time_us;
    std::int8_t is_incumbent;
};

struct DecisionRow {
    std::uint32_t shape_id;
    std::uint8_t decision;
    TextField incumbent_key;
    double incumbent_us;
    double incumbent_stderr_us;
    TextField winner_key;
    double winner_us;
    double winner_stderr_us;
    double margin_pct;
    double bar_pct;
    double noise_floor_pct;
    TextField published_key;
    TextField reason;
    std::int32_t race_rank;  // the race_* fields were added on 2026-11-30
    TextField race_host;
    std::int64_t race_started_unix_ns;
    std::int64_t race_finished_unix_ns;
};

struct PolicyRow {
    TextField name;
    double value;
};

struct RankRow {
    std::int32_t rank;
    TextField host;
    std::int32_t device_index;
    TextField device_name;
    TextField device_uuid;
    TextField driver;
};

inline constexpr const char* kShapesTable = "shapes";
inline constexpr const char* kCandidatesTable = "candidates";
inline constexpr const char* kRaceTable = "race";
inline constexpr const char* kDecisionsTable = "decisions";
inline constexpr const char* kPolicyTable = "policy";
inline constexpr const char* kRanksTable = "ranks";

// The compound types of every table, built once per archive read or write.
class ArchiveSchema {
public:
    // The tables as this build writes them, or (with_race_columns false) as an archive
    // written before /decisions had its race_* fields lays out /decisions.
    explicit ArchiveSchema(bool with_race_columns = true);
    const h5::CompoundType& shapes() const noexcept { return shapes_; }
    const h5::CompoundType& candidates() const noexcept { return candidates_; }
    const h5::CompoundType& race() const noexcept { return race_; }
    const h5::CompoundType& decisions() const noexcept { return decisions_; }
    const h5::CompoundType& policy() const noexcept { return policy_; }
    const h5::CompoundType& ranks() const noexcept { return ranks_; }

private:
    h5::Datatype string_;
    h5::Datatype bool_;
    h5::Datatype status_;
    h5::Datatype decision_;
    h5::Datatype ratio_basis_;
    h5::CompoundType shapes_;
    h5::CompoundType candidates_;
    h5::CompoundType race_;
    h5::CompoundType decisions_;
    h5::CompoundType policy_;
    h5::CompoundType ranks_;
};

}  // namespace fhmoe::evidence
