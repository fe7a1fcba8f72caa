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

auto candidate_column_walk(const CandidatesLayout& layout) {
    return [layout](auto&& visit) {
        const CandidateRecord record;
        candidate_columns(visit, record, layout);
    };
}

auto decision_column_walk(const DecisionsLayout& layout) {
    return [layout](auto&& visit) {
        const DecisionRecord record;
        decision_columns(visit, record, layout);
    };
}

// A table of one column per field of Record.
template <typename Record>
auto record_column_walk() {
    return [](auto&& visit) {
        const Record record;
        for_each_leaf(record, visit);
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

ArchiveSchema::ArchiveSchema(const DecisionsLayout& decisions_layout,
                             const CandidatesLayout& candidates_layout)
    : string_(h5::utf8_string_type()),
      bool_(h5::bool_type()),
      status_(status_enum_type()),
      decision_(enum_type_of(all_decisions)),
      ratio_basis_(enum_type_of(all_ratio_bases)),
      shape_layout_(layout_of(shape_column_walk())),
      shapes_(shape_layout_.row_size),
      candidate_layout_(layout_of(candidate_column_walk(candidates_layout))),
      candidates_(candidate_layout_.row_size),
      race_layout_(layout_of(record_column_walk<RaceSample>())),
      race_(race_layout_.row_size),
      decision_layout_(layout_of(decision_column_walk(decisions_layout))),
      decisions_(decision_layout_.row_size),
      policy_layout_(layout_of(record_column_walk<PolicyValue>())),
      policy_(policy_layout_.row_size),
      rank_layout_(layout_of(record_column_walk<RankInfo>())),
      ranks_(rank_layout_.row_size) {
    add_columns(shapes_, shape_layout_, shape_column_walk());
    add_columns(candidates_, candidate_layout_, candidate_column_walk(candidates_layout));

    add_columns(race_, race_layout_, record_column_walk<RaceSample>());
    add_columns(decisions_, decision_layout_, decision_column_walk(decisions_layout));
    add_columns(policy_, policy_layout_, record_column_walk<PolicyValue>());
    add_columns(ranks_, rank_layout_, record_column_walk<RankInfo>());
}

}  // namespace fhmoe::evidence
