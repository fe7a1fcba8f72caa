#pragma once

// Schema version 2 of the archive (docs/evidence-schema.md): the in-memory row of each table
// and its HDF5 compound type. Member names are the column names users see in h5py, pandas
// and the CSV export; changing one is a schema change.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "evidence/archive_columns.hpp"
#include "evidence/hdf5_types.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::evidence {

// Variable-length strings in rows are char*: written from std::string::c_str(), allocated
// by HDF5 when read.
using TextField = char*;

// No table has a row struct: the columns come from archive_columns.hpp
// (the records' field lists), and each row is laid out as a C struct of the columns' memory
// types in column order would be (as the ShapeRow and CandidateRow structs of earlier builds
// were): std::string as TextField, bool as std::int8_t, Status, Decision and RatioBasis as
// std::uint8_t HDF5 enums, the shape's other enums as TextField (their aiter names), numbers
// as themselves.
struct ColumnLayout {
    std::vector<std::size_t> offsets;  // of each column, in column order
    std::size_t row_size = 0;
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
    // The tables as this build writes them, or with /decisions and /candidates laid out as
    // an older archive lays them out.
    explicit ArchiveSchema(const DecisionsLayout& decisions_layout = {},
                           const CandidatesLayout& candidates_layout = {});
    const h5::CompoundType& shapes() const noexcept { return shapes_; }
    const ColumnLayout& shape_layout() const noexcept { return shape_layout_; }
    const h5::CompoundType& candidates() const noexcept { return candidates_; }
    const ColumnLayout& candidate_layout() const noexcept { return candidate_layout_; }
    const h5::CompoundType& race() const noexcept { return race_; }
    const ColumnLayout& race_layout() const noexcept { return race_layout_; }
    const h5::CompoundType& decisions() const noexcept { return decisions_; }
    const ColumnLayout& decision_layout() const noexcept { return decision_layout_; }
    const h5::CompoundType& policy() const noexcept { return policy_; }
    const ColumnLayout& policy_layout() const noexcept { return policy_layout_; }
    const h5::CompoundType& ranks() const noexcept { return ranks_; }
    const ColumnLayout& rank_layout() const noexcept { return rank_layout_; }

private:
    template <typename Walk>
    void add_columns(h5::CompoundType& table, const ColumnLayout& layout, Walk walk);

    h5::Datatype string_;
    h5::Datatype bool_;
    h5::Datatype status_;
    h5::Datatype decision_;
    h5::Datatype ratio_basis_;
    ColumnLayout shape_layout_;
    h5::CompoundType shapes_;
    ColumnLayout candidate_layout_;
    h5::CompoundType candidates_;
    ColumnLayout race_layout_;
    h5::CompoundType race_;
    ColumnLayout decision_layout_;
    h5::CompoundType decisions_;
    ColumnLayout policy_layout_;
    h5::CompoundType policy_;
    ColumnLayout rank_layout_;
    h5::CompoundType ranks_;
};

}  // namespace fhmoe::evidence
