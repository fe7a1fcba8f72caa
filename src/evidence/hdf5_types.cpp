#include "evidence/hdf5_types.hpp"

#include <cstdint>

namespace fhmoe::evidence::h5 {

Datatype utf8_string_type() {
    Datatype type(H5Tcopy(H5T_C_S1), "copy the C string type");
    check(H5Tset_size(type.get(), H5T_VARIABLE), "make the string type variable-length");
    check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "make the string type UTF-8");
    return type;
}

Datatype bool_type() {
    // h5py reads exactly this enum (base int8, FALSE = 0, TRUE = 1) as numpy bool.
    Datatype type(H5Tenum_create(H5T_NATIVE_INT8), "create the bool enum");
    const std::int8_t false_value = 0;
    const std::int8_t true_value = 1;
    check(H5Tenum_insert(type.get(), "FALSE", &false_value), "insert FALSE into the bool enum");
    check(H5Tenum_insert(type.get(), "TRUE", &true_value), "insert TRUE into the bool enum");
    return type;
}

Datatype uint8_enum_type(const std::vector<std::pair<std::string, unsigned char>>& members) {
    Datatype type(H5Tenum_create(H5T_NATIVE_UINT8), "create an enum type");
    for (const auto& [name, value] : members) {
        check(H5Tenum_insert(type.get(), name.c_str(), &value), "insert enum member " + name);
    }
    return type;
}

CompoundType::CompoundType(std::size_t size)
    : type_(H5Tcreate(H5T_COMPOUND, size), "create a compound type") {}

void CompoundType::add(const std::string& name, std::size_t offset, hid_t member_type) {
    check(H5Tinsert(type_.get(), name.c_str(), offset, member_type),
          "add member " + name + " to a compound type");
    names_.push_back(name);
}

}  // namespace fhmoe::evidence::h5
