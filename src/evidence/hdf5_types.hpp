#pragma once

// The HDF5 datatypes of the archive's columns, chosen so that h5py and pandas read every
// column with no project code: strings are variable-length UTF-8 (h5py: bytes objects,
// attributes: str), booleans are the int8 enum {FALSE, TRUE} that h5py maps to numpy bool,
// and named values (status, decision) are HDF5 ENUMs whose names h5py exposes.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "evidence/hdf5_handle.hpp"

namespace fhmoe::evidence::h5 {

Datatype utf8_string_type();
Datatype bool_type();  // held as std::int8_t 0/1 in memory rows

// An enum over std::uint8_t with the given (name, value) members.
Datatype uint8_enum_type(const std::vector<std::pair<std::string, unsigned char>>& members);

// A compound type built member by member; `size` is sizeof the in-memory row struct.
class CompoundType {
public:
    explicit CompoundType(std::size_t size);
    // `member_type` is copied by HDF5; the caller keeps ownership.
    void add(const std::string& name, std::size_t offset, hid_t member_type);
    const Datatype& type() const noexcept { return type_; }
    const std::vector<std::string>& member_names() const noexcept { return names_; }

private:
    Datatype type_;
    std::vector<std::string> names_;
};

}  // namespace fhmoe::evidence::h5
