#include <deque>
#include <string>
#include <vector>

#include "evidence/archive_schema.hpp"
#include "evidence/archive_seal.hpp"
#include "evidence/hdf5_attribute.hpp"
#include "evidence/hdf5_table.hpp"
#include "fhmoe/config/atomic_file.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/hdf5_library.hpp"
#include "fhmoe/evidence/shape_rollup.hpp"

namespace fhmoe::evidence {
namespace {

// Rows point into strings; derived strings (names of enums, keys) live here until written.
class TextArena {
public:
    TextField keep(std::string text) {
        texts_.push_back(std::move(text));
        return view(texts_.back());
    }
    static TextField view(const std::string& text) { return const_cast<char*>(text.c_str()); }

private:
    std::deque<std::string> texts_;
};

void write_provenance(hid_t root, const Provenance& provenance) {
    h5::write_attribute(root, "schema_version", static_cast<std::int64_t>(kSchemaVersion));
    h5::write_attribute(root, "tool_version", provenance.tool_version);
    h5::write_attribute(root, "git_revision", provenance.git_revision);
    h5::write_attribute(root, "command_line", provenance.command_line);
    h5::write_attribute(root, "backend", provenance.backend);
    h5::write_attribute(root, "seed", provenance.seed);
    h5::write_attribute(root, "started_unix", provenance.started_unix);
    h5::write_attribute(root, "finished_unix", provenance.finished_unix);
    h5::write_attribute(root, "exit_status", static_cast<std::int64_t>(provenance.exit_status));
    h5::write_attribute(root, "complete", provenance.complete);
    h5::write_attribute(root, "hdf5_version", hdf5_library_version());
}

std::vector<ShapeRow> shape_rows(const RunEvidence& evidence, TextArena& arena) {
    const std::vector<ShapeRollup> rollups = roll_up_shapes(evidence);
    std::vector<ShapeRow> rows(evidence.shapes.size());
    for (std::size_t id = 0; id < rows.size(); ++id) {
        const ShapeRecord& shape = evidence.shapes[id];
        const family::ShapeKey& key = shape.key;
        ShapeRow& row = rows[id];
        row.shape_id = static_cast<std::uint32_t>(id);
        row.shape_key = TextArena::view(shape.shape_key);
        row.gfx = TextArena::view(shape.device.gfx);
        row.cu_num = shape.device.cu_num;
        row.token = key.token;
        row.padded_token = family::padded_token(key.token);
        row.model_dim = key.model_dim;
        row.inter_dim = key.inter_dim;
        row.expert = key.expert;
        row.topk = key.topk;
        row.shared_expert_id = key.shared_expert_id;
        row.act_type = arena.keep(std::string(family::to_aiter_string(key.act_type)));
        row.dtype = arena.keep(std::string(family::to_aiter_string(key.dtype)));
        row.q_dtype_a = arena.keep(std::string(family::to_aiter_string(key.q_dtype_a)));
        row.q_dtype_w = arena.keep(std::string(family::to_aiter_string(key.q_dtype_w)));
        row.q_type = arena.keep(std::string(family::to_aiter_string(key.q_type)));
        row.use_g1u1 = key.use_g1u1;
        row.doweight_stage1 = key.doweight_stage1;
        row.hidden_pad = key.hidden_pad;
        row.intermediate_pad = key.intermediate_pad;
        row.gate_mode = arena.keep(std::string(family::to_aiter_string(key.gate_mode)));
        row.candidate_count = shape.candidate_count;
        for (tuning::Status status : tuning::all_statuses) {
            row.status_counts[static_cast<std::size_t>(status)] =
                static_cast<std::uint32_t>(rollups[id].status_counts[status]);
        }
        row.decision = static_cast<std::uint8_t>(rollups[id].decision);
    }
    return rows;
}

std::vector<CandidateRow> candidate_rows(const RunEvidence& evidence, TextArena& arena) {
    std::vector<CandidateRow> rows(evidence.candidates.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CandidateRecord& record = evidence.candidates[i];
        const tuning::CandidateResult& result = record.result;
        CandidateRow& row = rows[i];
        row.shape_id = record.shape_id;
        row.shape_key = TextArena::view(result.shape_key);
        row.candidate_key = arena.keep(result.candidate.key());
        row.block_m = result.candidate.block_m;
        row.stage1 = TextArena::view(result.candidate.stage1);
        row.stage2 = TextArena::view(result.candidate.stage2);
        row.status = static_cast<std::uint8_t>(result.status);
        row.detail = TextArena::view(result.detail);
        row.n_raw = result.timing.n_raw;
        row.n_kept = result.timing.n_kept;
        row.mean_us = result.timing.mean_us;
        row.median_us = result.timing.median_us;
        row.stddev_us = result.timing.stddev_us;
        row.stderr_us = result.timing.stderr_us;
        row.min_us = result.timing.min_us;
        row.max_us = result.timing.max_us;
        row.sort_us = result.stages.sort_us;
        row.quant_us = result.stages.quant_us;
        row.stage1_us = result.stages.stage1_us;
        row.stage2_us = result.stages.stage2_us;
        row.reduce_us = result.stages.reduce_us;
        row.mismatch_fraction = result.error.mismatch_fraction;
        row.cosine_distance = result.error.cosine_distance;
        row.max_abs_delta = result.error.max_abs_delta;
        row.catastrophic = result.error.catastrophic ? 1 : 0;
        row.relative_to_incumbent = record.relative_to_incumbent;
        row.ratio_basis = static_cast<std::uint8_t>(record.ratio_basis);
        row.rank = result.where.rank;
        row.host = TextArena::view(result.where.host);
        row.device_index = result.where.device_index;
        row.device_name = TextArena::view(result.where.device_name);
        row.device_uuid = TextArena::view(result.where.device_uuid);
        row.worker_pid = result.where.worker_pid;
        row.chunk = result.chunk;
        row.attempt = result.attempt;
        row.fault_injected = result.fault_injected ? 1 : 0;
        row.started_unix_ns = result.started_unix_ns;
        row.finished_unix_ns = result.finished_unix_ns;
    }
    return rows;
}

std::vector<RaceRow> race_rows(const RunEvidence& evidence) {
    std::vector<RaceRow> rows(evidence.race.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const RaceSample& sample = evidence.race[i];
        rows[i] = RaceRow{sample.shape_id, TextArena::view(sample.candidate_key), sample.round,
                          sample.time_us, static_cast<std::int8_t>(sample.is_incumbent ? 1 : 0)};
    }
    return rows;
}

std::vector<DecisionRow> decision_rows(const RunEvidence& evidence, TextArena& arena) {
    std::vector<DecisionRow> rows(evidence.decisions.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const DecisionRecord& d = evidence.decisions[i];
        rows[i] = DecisionRow{d.shape_id,
                              static_cast<std::uint8_t>(d.decision),
                              TextArena::view(d.incumbent_key),
                              d.incumbent_us,
                              d.incumbent_stderr_us,
                              TextArena::view(d.winner_key),
                              d.winner_us,
                              d.winner_stderr_us,
                              d.margin_pct,
                              d.bar_pct,
                              d.noise_floor_pct,
                              arena.keep(published_key(d)),
                              TextArena::view(d.reason),
                              d.race_rank,
                              TextArena::view(d.race_host),
                              d.race_started_unix_ns,
                              d.race_finished_unix_ns};
    }
    return rows;
}

std::vector<PolicyRow> policy_rows(const Provenance& provenance) {
    std::vector<PolicyRow> rows;
    for (const PolicyValue& value : provenance.policy) {
        rows.push_back(PolicyRow{TextArena::view(value.name), value.value});
    }
    return rows;
}

std::vector<RankRow> rank_rows(const Provenance& provenance) {
    std::vector<RankRow> rows;
    for (const RankInfo& rank : provenance.ranks) {
        rows.push_back(RankRow{rank.rank, TextArena::view(rank.host), rank.device_index,
                               TextArena::view(rank.device_name), TextArena::view(rank.device_uuid),
                               TextArena::view(rank.driver)});
    }
    return rows;
}

// The core driver grows its buffer by this much at a time.
constexpr std::size_t kImageIncrement = std::size_t{4} << 20;

// HDF5 builds the archive in memory (the core driver, no backing store), so no disk error
// ever reaches it: when a write to a full disk failed inside HDF5, the library was left with
// a file it could neither flush nor close, and its shutdown at exit crashed (SIGSEGV in
// H5F__close_cb). The bytes go to disk in write_archive, where every failure is an error.
//
// The image is made without a userblock (with one, the image HDF5 1.10 returned had no
// superblock where readers look for it); the seal's bytes are put in front of it, and HDF5
// and h5py find the superblock at kSealBytes, as they do in a file given a userblock by h5jam.
std::string archive_image(const std::string& name, const RunEvidence& evidence) {
    h5::silence_automatic_error_printing();
    h5::PropertyList access(H5Pcreate(H5P_FILE_ACCESS), "create a file access property list");
    h5::check(H5Pset_fapl_core(access.get(), kImageIncrement, /*backing_store=*/0),
              "build the file in memory");
    h5::File file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()),
                  "create the file");
    const ArchiveSchema schema;
    TextArena arena;
    write_provenance(file.get(), evidence.provenance);
    h5::write_table(file.get(), kPolicyTable, schema.policy(), policy_rows(evidence.provenance));
    h5::write_table(file.get(), kRanksTable, schema.ranks(), rank_rows(evidence.provenance));
    h5::write_table(file.get(), kShapesTable, schema.shapes(), shape_rows(evidence, arena));
    h5::write_table(file.get(), kCandidatesTable, schema.candidates(),
                    candidate_rows(evidence, arena));
    h5::write_table(file.get(), kRaceTable, schema.race(), race_rows(evidence));
    h5::write_table(file.get(), kDecisionsTable, schema.decisions(),
                    decision_rows(evidence, arena));
    h5::check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "flush the file");
    const ssize_t size = H5Fget_file_image(file.get(), nullptr, 0);
    if (size < 0) h5::throw_hdf5_error("measure the file image");
    std::string image(kSealBytes + static_cast<std::size_t>(size), '\0');
    if (H5Fget_file_image(file.get(), image.data() + kSealBytes, image.size() - kSealBytes) !=
        size) {
        h5::throw_hdf5_error("copy the file image");
    }
    file.close("close the file");
    return image;
}

}  // namespace

void write_archive(const std::string& path, const RunEvidence& evidence) {
    check_consistent(evidence);
    try {
        std::string image = archive_image(path, evidence);
        seal_archive_image(image);
        // A temporary file beside `path`, synced, renamed over it: on a full disk the write
        // fails, the temporary file is removed, and the previous archive stays as it was.
        config::write_file_atomically(path, image);
    } catch (const Error& error) {
        throw Error("writing evidence archive '" + path + "': " + error.what());
    }
}

}  // namespace fhmoe::evidence
