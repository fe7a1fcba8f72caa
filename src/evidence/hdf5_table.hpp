#pragma once

// One table of the archive: a 1-D dataset of a compound type, chunked, shuffled and
// deflate-compressed, extendible (h5py users may append), read back whole.

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "evidence/hdf5_handle.hpp"
#include "evidence/hdf5_types.hpp"

namespace fhmoe::evidence::h5 {

void write_table_rows(hid_t parent, const std::string& name, const CompoundType& row_type,
                      const void* rows, std::size_t count);

// A table of `count` rows written in slices: create it, then write each slice of rows at
// its first row (so that only a slice of rows is held in memory at a time).
Dataset create_table(hid_t parent, const std::string& name, const CompoundType& row_type,
                     std::size_t count);
void write_rows_at(const Dataset& dataset, const std::string& name, const CompoundType& row_type,
                   const void* rows, std::size_t count, std::size_t first);

// Opens `name`, checks that its type has every member of `row_type`, and returns it with
// its row count. Throws fhmoe::Error for a missing dataset or member.
struct OpenTable {
    Dataset dataset;
    std::size_t rows = 0;
};
OpenTable open_table(hid_t parent, const std::string& name, const CompoundType& row_type);

// Whether the table `name` (which must exist) has a field `field`: a field added to the
// schema after an archive was written is absent from it, and readers find it absent.
bool table_has_field(hid_t parent, const std::string& name, const std::string& field);

// Reads every row into `rows` (HDF5 converts members by name, enums by member name);
// variable-length strings stay owned by HDF5 until reclaim_table_rows.
void read_table_rows(const OpenTable& table, const CompoundType& row_type, void* rows);
void reclaim_table_rows(const CompoundType& row_type, void* rows, std::size_t count) noexcept;

template <typename Row>
void write_table(hid_t parent, const std::string& name, const CompoundType& row_type,
                 const std::vector<Row>& rows) {
    static_assert(std::is_trivially_copyable_v<Row>);
    write_table_rows(parent, name, row_type, rows.data(), rows.size());
}

// Calls `use(row)` for every row, then frees what HDF5 allocated, also when `use` throws.
template <typename Row, typename Use>
void for_each_row(hid_t parent, const std::string& name, const CompoundType& row_type, Use&& use) {
    static_assert(std::is_trivially_copyable_v<Row>);
    const OpenTable table = open_table(parent, name, row_type);
    std::vector<Row> rows(table.rows);
    // Armed before the read: a read that fails half-way may already have allocated strings.
    struct Reclaim {
        const CompoundType& type;
        std::vector<Row>& rows;
        ~Reclaim() { reclaim_table_rows(type, rows.data(), rows.size()); }
    } reclaim{row_type, rows};
    read_table_rows(table, row_type, rows.data());
    for (const Row& row : rows) use(row);
}

// As for_each_row, for rows of `row_size` bytes laid out at run time: `use(row)` gets each
// row's first byte.
template <typename Use>
void for_each_row_bytes(hid_t parent, const std::string& name, const CompoundType& row_type,
                        std::size_t row_size, Use&& use) {
    const OpenTable table = open_table(parent, name, row_type);
    std::vector<std::byte> rows(table.rows * row_size);
    struct Reclaim {
        const CompoundType& type;
        std::vector<std::byte>& rows;
        std::size_t count;
        ~Reclaim() { reclaim_table_rows(type, rows.data(), count); }
    } reclaim{row_type, rows, table.rows};
    read_table_rows(table, row_type, rows.data());
    for (std::size_t i = 0; i < table.rows; ++i) use(rows.data() + i * row_size);
}

}  // namespace fhmoe::evidence::h5
