#include "evidence/archive_schema.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "evidence/archive_columns.hpp"
#include "fhmoe/evidence/run_evidence.hpp"
#include "fhmoe/evidence/shape_rollup.hpp"

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

template <typename T>
struct Unwrapped {
    using type = T;
};
template <typename T>
struct Unwrapped<Derived<T>> {
    using type = T;
};

// The bytes a column of C++ type T takes in a row (its alignment too).
template <typename T>
constexpr std::size_t memory_size() {
    if constexpr (std::is_same_v<T, std::string> || (std::is_enum_v<T> && !is_archive_enum<T>)) {
        return sizeof(TextField);
    } else {
        return sizeof(T);
    }
}

// A walk over every column of a default record: calls visit(name, value) per column.
auto shape_column_walk() {
    return [](auto&& visit) {
        const ShapeRecord shape;
        shape_columns(visit, 0, shape, ShapeRollup{});
    };
}

auto candidate_column_walk() {
    return [](auto&& visit) {
        const CandidateRecord record;
        candidate_columns(visit, record);
    };
}

// Each column at the offset a C struct of the columns' memory types would give it.
template <typename Walk>
ColumnLayout layout_of(Walk walk) {
    ColumnLayout layout;
    std::size_t end = 0;
    std::size_t alignment = 1;
    walk([&](std::string_view, const auto& value) {
        using T = typename Unwrapped<std::remove_cvref_t<decltype(value)>>::type;
        constexpr std::size_t size = memory_size<T>();
        end = (end + size - 1) / size * size;
        layout.offsets.push_back(end);
        end += size;
        alignment = std::max(alignment, size);
    });
    layout.row_size = (end + alignment - 1) / alignment * alignment;
    return layout;
}

}  // namespace

template <typename Walk>
void ArchiveSchema::add_columns(h5::CompoundType& table, const ColumnLayout& layout, Walk walk) {
    std::size_t column = 0;
    walk([&](std::string_view name, const auto& value) {
        using T = typename Unwrapped<std::remove_cvref_t<decltype(value)>>::type;
        hid_t type = -1;
        if constexpr (std::is_same_v<T, std::string>) {
            type = string_.get();
        } else if constexpr (std::is_same_v<T, bool>) {
            type = bool_.get();
        } else if constexpr (std::is_same_v<T, tuning::Status>) {
            type = status_.get();
        } else if constexpr (std::is_same_v<T, Decision>) {
            type = decision_.get();
        } else if constexpr (std::is_same_v<T, RatioBasis>) {
            type = ratio_basis_.get();
        } else if constexpr (std::is_enum_v<T>) {
            type = string_.get();  // a shape's enums: their aiter names
        } else if constexpr (std::is_same_v<T, std::int32_t>) {
            type = H5T_NATIVE_INT32;
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
            type = H5T_NATIVE_INT64;
        } else if constexpr (std::is_same_v<T, std::uint32_t>) {
            type = H5T_NATIVE_UINT32;
        } else if constexpr (std::is_same_v<T, double>) {
            type = H5T_NATIVE_DOUBLE;
        } else {
            static_assert(std::is_same_v<T, void>, "no archive column type for this field");
        }
        table.add(std::string(name), layout.offsets.at(column++), type);
    });
}

// The column name is the row member's name: one spelling for C++, HDF5, h5py and CSV.
#define FHMOE_COLUMN(table, Row, member, type) table.add(#member, offsetof(Row, member), type)

ArchiveSchema::ArchiveSchema(bool with_race_columns)
    : string_(h5::utf8_string_type()),
      bool_(h5::bool_type()),
      status_(status_enum_type()),
      decision_(enum_type_of(all_decisions)),
      ratio_basis_(enum_type_of(all_ratio_bases)),
      shape_layout_(layout_of(shape_column_walk())),
      shapes_(shape_layout_.row_size),
      candidate_layout_(layout_of(candidate_column_walk())),
      candidates_(candidate_layout_.row_size),
      race_(sizeof(RaceRow)),
      decisions_(sizeof(DecisionRow)),
      policy_(sizeof(PolicyRow)),
      ranks_(sizeof(RankRow)) {
    const hid_t text = string_.get();
    const hid_t flag = bool_.get();

    add_columns(shapes_, shape_layout_, shape_column_walk());
    add_columns(candidates_, candidate_layout_, candidate_column_walk());

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
