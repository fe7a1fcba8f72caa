#pragma once

// Typed attributes on an HDF5 object (the run provenance lives on the root group). Strings
// are variable-length UTF-8, which h5py returns as str.

#include <cstdint>
#include <string>
#include <vector>

#include "evidence/hdf5_handle.hpp"

namespace fhmoe::evidence::h5 {

void write_attribute(hid_t object, const std::string& name, const std::string& value);
void write_attribute(hid_t object, const std::string& name, const std::vector<std::string>& value);
void write_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_attribute(hid_t object, const std::string& name, std::uint64_t value);
void write_attribute(hid_t object, const std::string& name, bool value);

// Each throws fhmoe::Error "missing attribute 'name'" when it is absent, and HDF5's message
// when it cannot be converted to the requested type.
std::string read_string_attribute(hid_t object, const std::string& name);
std::vector<std::string> read_strings_attribute(hid_t object, const std::string& name);
std::int64_t read_int64_attribute(hid_t object, const std::string& name);
std::uint64_t read_uint64_attribute(hid_t object, const std::string& name);
bool read_bool_attribute(hid_t object, const std::string& name);

}  // namespace fhmoe::evidence::h5
