#include "evidence/hdf5_table.hpp"

#include <algorithm>
#include <utility>

#include "fhmoe/error.hpp"

namespace fhmoe::evidence::h5 {
namespace {

// About 100-300 kB per chunk for the widest rows: large enough to compress well, small
// enough to fit HDF5's default 1 MiB chunk cache.
constexpr hsize_t kRowsPerChunk = 1024;
constexpr unsigned kDeflateLevel = 4;

}  // namespace

Dataset create_table(hid_t parent, const std::string& name, const CompoundType& row_type,
                     std::size_t count) {
    const std::string where = "dataset /" + name;
    if (!H5Zfilter_avail(H5Z_FILTER_DEFLATE)) {
        throw Error(where + ": this HDF5 library has no deflate filter");
    }
    // Packing drops the in-memory padding between members: the file row is only the data.
    Datatype file_type(H5Tcopy(row_type.type().get()), where + ": copy the row type");
    check(H5Tpack(file_type.get()), where + ": pack the row type");

    const hsize_t dims[1] = {static_cast<hsize_t>(count)};
    const hsize_t max_dims[1] = {H5S_UNLIMITED};
    Dataspace space(H5Screate_simple(1, dims, max_dims), where + ": create the dataspace");

    PropertyList create(H5Pcreate(H5P_DATASET_CREATE), where + ": create its property list");
    const hsize_t chunk[1] = {std::clamp<hsize_t>(dims[0], 1, kRowsPerChunk)};
    check(H5Pset_chunk(create.get(), 1, chunk), where + ": set the chunk size");
    check(H5Pset_shuffle(create.get()), where + ": set the shuffle filter");
    check(H5Pset_deflate(create.get(), kDeflateLevel), where + ": set the deflate filter");

    return Dataset(H5Dcreate2(parent, name.c_str(), file_type.get(), space.get(), H5P_DEFAULT,
                              create.get(), H5P_DEFAULT),
                   where + ": create");
}

void write_rows_at(const Dataset& dataset, const std::string& name, const CompoundType& row_type,
                   const void* rows, std::size_t count, std::size_t first) {
    if (count == 0) return;
    const std::string where = "dataset /" + name + ": write rows " + std::to_string(first) +
                              " to " + std::to_string(first + count - 1);
    Dataspace file_space(H5Dget_space(dataset.get()), where);
    const hsize_t start[1] = {static_cast<hsize_t>(first)};
    const hsize_t length[1] = {static_cast<hsize_t>(count)};
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, length, nullptr),
          where);
    Dataspace memory_space(H5Screate_simple(1, length, nullptr), where);
    check(H5Dwrite(dataset.get(), row_type.type().get(), memory_space.get(), file_space.get(),
                   H5P_DEFAULT, rows),
          where);
}

void write_table_rows(hid_t parent, const std::string& name, const CompoundType& row_type,
                      const void* rows, std::size_t count) {
    Dataset dataset = create_table(parent, name, row_type, count);
    write_rows_at(dataset, name, row_type, rows, count, 0);
    dataset.close("dataset /" + name + ": close");
}

namespace {

// The dataset `name` of `parent` and its file type, which must be a compound (a table).
struct CompoundDataset {
    Dataset dataset;
    Datatype file_type;
};

CompoundDataset open_compound_dataset(hid_t parent, const std::string& name) {
    const std::string where = "dataset /" + name;
    const htri_t exists = H5Lexists(parent, name.c_str(), H5P_DEFAULT);
    if (exists < 0) throw_hdf5_error(where + ": look it up");
    if (exists == 0) throw Error("missing dataset /" + name);
    Dataset dataset(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), where + ": open");
    Datatype file_type(H5Dget_type(dataset.get()), where + ": get its type");
    if (H5Tget_class(file_type.get()) != H5T_COMPOUND) {
        throw Error(where + " is not a table of compound rows");
    }
    return {std::move(dataset), std::move(file_type)};
}

bool has_member(const Datatype& compound, const std::string& member) {
    const bool found = H5Tget_member_index(compound.get(), member.c_str()) >= 0;
    if (!found) H5Eclear2(H5E_DEFAULT);
    return found;
}

}  // namespace

OpenTable open_table(hid_t parent, const std::string& name, const CompoundType& row_type) {
    const std::string where = "dataset /" + name;
    CompoundDataset opened = open_compound_dataset(parent, name);
    for (const std::string& member : row_type.member_names()) {
        if (!has_member(opened.file_type, member)) {
            throw Error(where + ": missing field '" + member + "'");
        }
    }
    OpenTable table;
    table.dataset = std::move(opened.dataset);
    Dataspace space(H5Dget_space(table.dataset.get()), where + ": get its dataspace");
    if (H5Sget_simple_extent_ndims(space.get()) != 1) {
        throw Error(where + " is not one-dimensional");
    }
    hsize_t dims[1] = {0};
    check(H5Sget_simple_extent_dims(space.get(), dims, nullptr), where + ": get its size");
    table.rows = static_cast<std::size_t>(dims[0]);
    return table;
}

bool table_has_field(hid_t parent, const std::string& name, const std::string& field) {
    return has_member(open_compound_dataset(parent, name).file_type, field);
}

void read_table_rows(const OpenTable& table, const CompoundType& row_type, void* rows) {
    if (table.rows == 0) return;
    check(H5Dread(table.dataset.get(), row_type.type().get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows),
          "read " + std::to_string(table.rows) + " rows");
}

void reclaim_table_rows(const CompoundType& row_type, void* rows, std::size_t count) noexcept {
    if (count == 0) return;
    const hsize_t dims[1] = {static_cast<hsize_t>(count)};
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    if (space < 0) return;
    H5Dvlen_reclaim(row_type.type().get(), space, H5P_DEFAULT, rows);
    H5Sclose(space);
}

}  // namespace fhmoe::evidence::h5
