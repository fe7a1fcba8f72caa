#include <algorithm>
#include <cstdlib>
#include <cstring>
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

// The rows of candidates [first, first + count).
std::vector<CandidateRow> candidate_rows(const RunEvidence& evidence, TextArena& arena,
                                         std::size_t first, std::size_t count) {
    std::vector<CandidateRow> rows(count);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CandidateRecord& record = evidence.candidates[first + i];
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

// The largest table, one row per planned candidate of the night, written a slice of rows at
// a time: its row buffers and their derived strings are bounded by the slice, not the night.
constexpr std::size_t kCandidateRowsPerSlice = 16384;

void write_candidates(hid_t file, const ArchiveSchema& schema, const RunEvidence& evidence) {
    const std::size_t total = evidence.candidates.size();
    h5::Dataset table = h5::create_table(file, kCandidatesTable, schema.candidates(), total);
    for (std::size_t first = 0; first < total; first += kCandidateRowsPerSlice) {
        const std::size_t count = std::min(kCandidateRowsPerSlice, total - first);
        TextArena arena;
        const std::vector<CandidateRow> rows = candidate_rows(evidence, arena, first, count);
        h5::write_rows_at(table, kCandidatesTable, schema.candidates(), rows.data(), count, first);
    }
    table.close(std::string("dataset /") + kCandidatesTable + ": close");
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

// The buffer HDF5's core driver builds the archive in, allocated by the tuner with kSealBytes
// in front of what HDF5 sees, so that the sealed archive is written from it as it is.
// Copying the image out of HDF5 instead (H5Fget_file_image) held the archive twice at rank
// 0's peak (issue #12, item 9). HDF5 may open a file more than once while creating it (a
// look at an existing file of that name first); each open gets its buffer and frees it when
// it closes.
class OwnedImage {
public:
    OwnedImage() = default;
    OwnedImage(const OwnedImage&) = delete;
    OwnedImage& operator=(const OwnedImage&) = delete;
    ~OwnedImage() { std::free(base_); }

    // The callbacks HDF5 allocates, resizes and frees the image through.
    H5FD_file_image_callbacks_t callbacks() {
        H5FD_file_image_callbacks_t c{};
        c.image_malloc = &OwnedImage::allocate;
        c.image_memcpy = &OwnedImage::copy;
        c.image_realloc = &OwnedImage::resize;
        c.image_free = &OwnedImage::release;
        c.udata_copy = &OwnedImage::same_udata;
        c.udata_free = &OwnedImage::keep_udata;
        c.udata = this;
        return c;
    }

    // The open file's buffer with room for the seal in front of the image; null when none.
    char* sealed_start() const { return static_cast<char*>(base_); }

private:
    static OwnedImage& of(void* udata) { return *static_cast<OwnedImage*>(udata); }
    static void* image_of(void* base) { return static_cast<char*>(base) + kSealBytes; }

    static void* allocate(std::size_t size, H5FD_file_image_op_t op, void* udata) {
        return resize(nullptr, size, op, udata);
    }
    static void* copy(void* destination, const void* source, std::size_t size, H5FD_file_image_op_t,
                      void*) {
        return std::memcpy(destination, source, size);
    }
    static void* resize(void* image, std::size_t size, H5FD_file_image_op_t, void* udata) {
        OwnedImage& owner = of(udata);
        // One open file at a time: a new buffer only when none is held, a resize only of it.
        if (image == nullptr ? owner.base_ != nullptr : image != image_of(owner.base_)) {
            return nullptr;  // HDF5 reports an allocation failure
        }
        void* grown = std::realloc(owner.base_, kSealBytes + size);
        if (grown == nullptr) return nullptr;  // the old buffer is intact
        owner.base_ = grown;
        return image_of(grown);
    }
    static herr_t release(void* image, H5FD_file_image_op_t, void* udata) {
        OwnedImage& owner = of(udata);
        if (image == nullptr) return 0;
        if (owner.base_ == nullptr || image != image_of(owner.base_)) return -1;
        std::free(owner.base_);
        owner.base_ = nullptr;
        return 0;
    }
    static void* same_udata(void* udata) { return udata; }
    static herr_t keep_udata(void*) { return 0; }

    void* base_ = nullptr;
};

// HDF5 builds the archive in memory (the core driver, no backing store), so no disk error
// ever reaches it: when a write to a full disk failed inside HDF5, the library was left with
// a file it could neither flush nor close, and its shutdown at exit crashed (SIGSEGV in
// H5F__close_cb). The bytes go to disk here, from the flushed image (what H5Fget_file_image
// would copy), where every failure is an error; a temporary file beside `path`, synced,
// renamed over it: on a full disk the write fails, the temporary file is removed, and the
// previous archive stays as it was.
//
// The image is made without a userblock (with one, the image HDF5 1.10 returned had no
// superblock where readers look for it); the seal's bytes are put in front of it, and HDF5
// and h5py find the superblock at kSealBytes, as they do in a file given a userblock by h5jam.
void write_archive_image(const std::string& path, const RunEvidence& evidence) {
    h5::silence_automatic_error_printing();
    OwnedImage image;
    h5::PropertyList access(H5Pcreate(H5P_FILE_ACCESS), "create a file access property list");
    h5::check(H5Pset_fapl_core(access.get(), kImageIncrement, /*backing_store=*/0),
              "build the file in memory");
    H5FD_file_image_callbacks_t callbacks = image.callbacks();
    h5::check(H5Pset_file_image_callbacks(access.get(), &callbacks),
              "give the file a buffer of the tuner's");
    h5::File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()),
                  "create the file");
    const ArchiveSchema schema;
    TextArena arena;
    write_provenance(file.get(), evidence.provenance);
    h5::write_table(file.get(), kPolicyTable, schema.policy(), policy_rows(evidence.provenance));
    h5::write_table(file.get(), kRanksTable, schema.ranks(), rank_rows(evidence.provenance));
    h5::write_table(file.get(), kShapesTable, schema.shapes(), shape_rows(evidence, arena));
    write_candidates(file.get(), schema, evidence);
    h5::write_table(file.get(), kRaceTable, schema.race(), race_rows(evidence));
    h5::write_table(file.get(), kDecisionsTable, schema.decisions(),
                    decision_rows(evidence, arena));
    h5::check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "flush the file");
    const ssize_t image_size = H5Fget_file_image(file.get(), nullptr, 0);
    if (image_size < 0) h5::throw_hdf5_error("measure the file image");
    if (image.sealed_start() == nullptr) throw Error("HDF5 made no file image");
    const std::size_t size = kSealBytes + static_cast<std::size_t>(image_size);
    seal_archive_image(image.sealed_start(), size);
    config::write_file_atomically(path, std::string_view(image.sealed_start(), size));
    file.close("close the file");
}

}  // namespace

void write_archive(const std::string& path, const RunEvidence& evidence) {
    check_consistent(evidence);
    try {
        write_archive_image(path, evidence);
    } catch (const Error& error) {
        throw Error("writing evidence archive '" + path + "': " + error.what());
    }
}

}  // namespace fhmoe::evidence
