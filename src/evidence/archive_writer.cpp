#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "config/posix_file.hpp"
#include "evidence/archive_columns.hpp"
#include "evidence/archive_schema.hpp"
#include "evidence/archive_seal.hpp"
#include "evidence/hdf5_attribute.hpp"
#include "evidence/hdf5_disk_file.hpp"
#include "evidence/hdf5_library.hpp"
#include "evidence/hdf5_table.hpp"
#include "fhmoe/config/file_error.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/archive_builder.hpp"
#include "fhmoe/evidence/archive_writer.hpp"
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

// Fills rows laid out by a ColumnLayout, one column per visit (archive_columns.hpp).
class RowWriter {
public:
    RowWriter(std::byte* row, const ColumnLayout& layout, TextArena& arena)
        : row_(row), layout_(layout), arena_(arena) {}

    template <typename T>
    void operator()(std::string_view, const T& value) {
        const std::size_t offset = layout_.offsets.at(column_++);
        if constexpr (std::is_same_v<T, std::string>) {
            store(offset, TextArena::view(value));
        } else if constexpr (std::is_same_v<T, bool>) {
            store(offset, static_cast<std::int8_t>(value ? 1 : 0));
        } else if constexpr (is_archive_enum<T>) {
            store(offset, static_cast<std::uint8_t>(value));
        } else if constexpr (std::is_enum_v<T>) {
            store(offset, arena_.keep(std::string(family::to_aiter_string(value))));
        } else {
            store(offset, value);
        }
    }

    template <typename T>
    void operator()(std::string_view name, const Derived<T>& derived) {
        if constexpr (std::is_same_v<T, std::string>) {
            store(layout_.offsets.at(column_++), arena_.keep(derived.value));
        } else {
            (*this)(name, derived.value);
        }
    }

private:
    template <typename T>
    void store(std::size_t offset, const T& value) {
        std::memcpy(row_ + offset, &value, sizeof value);
    }

    std::byte* row_;
    const ColumnLayout& layout_;
    TextArena& arena_;
    std::size_t column_ = 0;
};

std::vector<std::byte> shape_rows(const std::vector<ShapeRecord>& shapes,
                                  const std::vector<ShapeRollup>& rollups,
                                  const ColumnLayout& layout, TextArena& arena) {
    std::vector<std::byte> rows(shapes.size() * layout.row_size);
    for (std::size_t id = 0; id < shapes.size(); ++id) {
        shape_columns(RowWriter(rows.data() + id * layout.row_size, layout, arena),
                      static_cast<std::uint32_t>(id), shapes[id], rollups[id]);
    }
    return rows;
}

std::vector<std::byte> candidate_rows(std::span<const CandidateRecord> records,
                                      const ColumnLayout& layout, TextArena& arena) {
    std::vector<std::byte> rows(records.size() * layout.row_size);
    for (std::size_t i = 0; i < records.size(); ++i) {
        candidate_columns(RowWriter(rows.data() + i * layout.row_size, layout, arena), records[i]);
    }
    return rows;
}

// The largest table, one row per planned candidate of the night, is written a slice of rows
// at a time: its row buffers and their derived strings are bounded by the slice, not the night.
constexpr std::size_t kCandidateRowsPerSlice = 16384;

// One row per record, one column per field of its list.
template <typename Record>
std::vector<std::byte> record_rows(const std::vector<Record>& records, const ColumnLayout& layout,
                                   TextArena& arena) {
    std::vector<std::byte> rows(records.size() * layout.row_size);
    for (std::size_t i = 0; i < records.size(); ++i) {
        for_each_leaf(records[i], RowWriter(rows.data() + i * layout.row_size, layout, arena));
    }
    return rows;
}

std::vector<std::byte> decision_rows(const std::vector<DecisionRecord>& decisions,
                                     const ColumnLayout& layout, TextArena& arena) {
    std::vector<std::byte> rows(decisions.size() * layout.row_size);
    for (std::size_t i = 0; i < decisions.size(); ++i) {
        decision_columns(RowWriter(rows.data() + i * layout.row_size, layout, arena), decisions[i]);
    }
    return rows;
}

// The temporary file beside the archive that becomes it: `<archive>.tmp.<pid>`, the name
// archive_leftovers.hpp removes when a killed run left it. Removed unless it was renamed.
class TemporaryArchive {
public:
    explicit TemporaryArchive(const std::string& archive)
        : path_(archive + ".tmp." + std::to_string(::getpid())) {
        // A file of this name is a dead writer's with our pid, or ours: it is replaced.
        fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd_ < 0) throw config::FileError(path_, "creating the temporary file", errno);
        struct stat destination {};
        if (::stat(archive.c_str(), &destination) == 0 &&
            ::fchmod(fd_, destination.st_mode & 07777) != 0) {
            const int error = errno;
            discard();
            throw config::FileError(path_, "copying the archive's permissions", error);
        }
    }
    TemporaryArchive(const TemporaryArchive&) = delete;
    TemporaryArchive& operator=(const TemporaryArchive&) = delete;
    ~TemporaryArchive() { discard(); }

    int fd() const { return fd_; }
    const std::string& path() const { return path_; }

    // The sealed file, synced, becomes `archive`; its directory is synced so the rename is.
    void commit(const std::string& archive) {
        const int fd = std::exchange(fd_, -1);
        if (::close(fd) != 0) throw config::FileError(path_, "closing", errno);
        if (::rename(path_.c_str(), archive.c_str()) != 0) {
            throw config::FileError(archive, "renaming " + path_ + " over it", errno);
        }
        path_.clear();
        if (const int error = config::detail::sync_parent_directory(archive)) {
            throw config::FileError(archive, "replaced, but syncing its directory failed", error);
        }
    }

private:
    void discard() noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        if (!path_.empty()) ::unlink(path_.c_str());
        path_.clear();
    }

    std::string path_;
    int fd_ = -1;
};

// Rethrows a failure of `what` as an error naming the archive; inconsistent rows stay
// internal errors (a bug of the caller, not of the file system).
template <typename Work>
void naming_the_archive(const std::string& path, Work&& what) {
    try {
        what();
    } catch (const InternalError&) {
        throw;
    } catch (const Error& error) {
        throw Error("writing evidence archive '" + path + "': " + error.what());
    }
}

void check_shape_id(std::uint32_t shape_id, std::size_t shapes, const char* table) {
    if (shape_id >= shapes) {
        throw InternalError(std::string(table) + " row names shape " + std::to_string(shape_id) +
                            " but the run has " + std::to_string(shapes) + " shapes");
    }
}

}  // namespace

// HDF5 writes the archive straight into a temporary file beside `path` through a driver
// that never reports a disk error to HDF5 (hdf5_disk_file.hpp: a full disk once crashed
// HDF5's shutdown), so rank 0 holds HDF5's caches, not the file. finish() closes the file,
// then reports a failed write, or seals the file, syncs it and renames it over `path`: on a
// full disk the write fails, the temporary file is removed, and the previous archive stays
// as it was.
//
// HDF5 sees the file from kSealBytes on, made without a userblock, as the in-memory image of
// earlier versions was: the seal's bytes are in front of it, and HDF5 and h5py find the
// superblock at kSealBytes, as they do in a file given a userblock by h5jam.
struct ArchiveBuilder::State {
    std::string path;
    std::vector<std::string> shape_keys;
    std::size_t candidate_rows = 0;
    std::size_t candidate_rows_written = 0;
    std::vector<ShapeRollup> rollups;  // one per shape: the /shapes columns derived from rows
    std::vector<RaceSample> race;
    std::vector<DecisionRecord> decisions;
    ArchiveSchema schema;
    // Declared in this order so that they close in the reverse one: the dataset, then the
    // file (HDF5 flushes through the driver), then the driver's file, then the descriptor.
    std::optional<TemporaryArchive> temporary;
    std::optional<h5::DiskFile> disk;
    h5::File file;
    h5::Dataset candidates;
};

ArchiveBuilder::ArchiveBuilder(std::string path, std::vector<std::string> shape_keys,
                               std::size_t candidate_rows)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.path = std::move(path);
    s.shape_keys = std::move(shape_keys);
    s.candidate_rows = candidate_rows;
    s.rollups.resize(s.shape_keys.size());
    naming_the_archive(s.path, [&] {
        h5::silence_automatic_error_printing();
        s.temporary.emplace(s.path);
        s.disk.emplace(s.temporary->fd(), s.temporary->path());
        const h5::PropertyList access = s.disk->file_access();
        s.file = h5::File(
            H5Fcreate(s.temporary->path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()),
            "create the file");
        s.candidates =
            h5::create_table(s.file.get(), kCandidatesTable, s.schema.candidates(), candidate_rows);
    });
}

ArchiveBuilder::~ArchiveBuilder() = default;

void ArchiveBuilder::write_candidates(std::size_t first_row,
                                      std::span<const CandidateRecord> rows) {
    State& s = *state_;
    if (first_row > s.candidate_rows || rows.size() > s.candidate_rows - first_row) {
        throw InternalError("candidate rows " + std::to_string(first_row) + " to " +
                            std::to_string(first_row + rows.size()) + " of a table of " +
                            std::to_string(s.candidate_rows));
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CandidateRecord& row = rows[i];
        check_shape_id(row.shape_id, s.shape_keys.size(), "a candidates");
        const std::string& expected = s.shape_keys[row.shape_id];
        if (row.result.shape_key != expected) {
            throw InternalError("candidates[" + std::to_string(first_row + i) +
                                "] has shape_key '" + row.result.shape_key + "' but its shape " +
                                std::to_string(row.shape_id) + " is '" + expected + "'");
        }
    }
    naming_the_archive(s.path, [&] {
        for (std::size_t first = 0; first < rows.size(); first += kCandidateRowsPerSlice) {
            const auto slice =
                rows.subspan(first, std::min(kCandidateRowsPerSlice, rows.size() - first));
            TextArena arena;
            const std::vector<std::byte> converted =
                candidate_rows(slice, s.schema.candidate_layout(), arena);
            h5::write_rows_at(s.candidates, kCandidatesTable, s.schema.candidates(),
                              converted.data(), slice.size(), first_row + first);
        }
    });
    for (const CandidateRecord& row : rows)
        s.rollups[row.shape_id].status_counts.add(row.result.status);
    s.candidate_rows_written += rows.size();
}

void ArchiveBuilder::add_race(RaceSample sample) {
    check_shape_id(sample.shape_id, state_->shape_keys.size(), "a race");
    state_->race.push_back(std::move(sample));
}

void ArchiveBuilder::add_decision(DecisionRecord decision) {
    State& s = *state_;
    check_shape_id(decision.shape_id, s.shape_keys.size(), "a decisions");
    if (decision.decision == Decision::pending) {
        throw InternalError("decisions[" + std::to_string(s.decisions.size()) +
                            "] is pending: a shape without a decision has no row");
    }
    ShapeRollup& rollup = s.rollups[decision.shape_id];
    if (rollup.decision != Decision::pending) {
        throw InternalError("shape " + std::to_string(decision.shape_id) + " has two decisions");
    }
    rollup.decision = decision.decision;
    s.decisions.push_back(std::move(decision));
}

void ArchiveBuilder::finish(const Provenance& provenance, const std::vector<ShapeRecord>& shapes) {
    State& s = *state_;
    if (s.candidate_rows_written != s.candidate_rows) {
        throw InternalError(std::to_string(s.candidate_rows_written) + " of " +
                            std::to_string(s.candidate_rows) + " candidate rows were written");
    }
    if (shapes.size() != s.shape_keys.size()) {
        throw InternalError(std::to_string(shapes.size()) + " shapes finish an archive of " +
                            std::to_string(s.shape_keys.size()));
    }
    for (std::size_t id = 0; id < shapes.size(); ++id) {
        if (shapes[id].shape_key != s.shape_keys[id]) {
            throw InternalError("shape " + std::to_string(id) + " is '" + shapes[id].shape_key +
                                "', not '" + s.shape_keys[id] + "'");
        }
    }
    naming_the_archive(s.path, [&] {
        s.candidates.close(std::string("dataset /") + kCandidatesTable + ": close");
        const hid_t root = s.file.get();
        TextArena arena;
        write_provenance(root, provenance);
        const auto write = [root](const char* table, const h5::CompoundType& type,
                                  const std::vector<std::byte>& rows, std::size_t count) {
            h5::write_table_rows(root, table, type, rows.data(), count);
        };
        write(kPolicyTable, s.schema.policy(),
              record_rows(provenance.policy, s.schema.policy_layout(), arena),
              provenance.policy.size());
        write(kRanksTable, s.schema.ranks(),
              record_rows(provenance.ranks, s.schema.rank_layout(), arena),
              provenance.ranks.size());
        write(kShapesTable, s.schema.shapes(),
              shape_rows(shapes, s.rollups, s.schema.shape_layout(), arena), shapes.size());
        write(kRaceTable, s.schema.race(), record_rows(s.race, s.schema.race_layout(), arena),
              s.race.size());
        write(kDecisionsTable, s.schema.decisions(),
              decision_rows(s.decisions, s.schema.decision_layout(), arena), s.decisions.size());
        s.file.close("close the file");
        if (s.disk->failed() != 0) throw Error(s.disk->failure());
        seal_archive_file(s.temporary->path());  // and syncs it
        s.temporary->commit(s.path);
    });
}

void write_archive(const std::string& path, const RunEvidence& evidence) {
    check_consistent(evidence);
    std::vector<std::string> shape_keys;
    shape_keys.reserve(evidence.shapes.size());
    for (const ShapeRecord& shape : evidence.shapes) shape_keys.push_back(shape.shape_key);
    ArchiveBuilder builder(path, std::move(shape_keys), evidence.candidates.size());
    builder.write_candidates(0, evidence.candidates);
    for (const RaceSample& sample : evidence.race) builder.add_race(sample);
    for (const DecisionRecord& decision : evidence.decisions) builder.add_decision(decision);
    builder.finish(evidence.provenance, evidence.shapes);
}

}  // namespace fhmoe::evidence
