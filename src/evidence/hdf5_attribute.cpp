#include "evidence/hdf5_attribute.hpp"

#include "evidence/hdf5_types.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::evidence::h5 {
namespace {

void write_scalar(hid_t object, const std::string& name, hid_t type, const void* value) {
    const std::string where = "attribute '" + name + "'";
    Dataspace space(H5Screate(H5S_SCALAR), where + ": create its dataspace");
    Attribute attribute(
        H5Acreate2(object, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
        where + ": create");
    check(H5Awrite(attribute.get(), type, value), where + ": write");
}

Attribute open_attribute(hid_t object, const std::string& name) {
    const htri_t exists = H5Aexists(object, name.c_str());
    if (exists < 0) throw_hdf5_error("attribute '" + name + "': look it up");
    if (exists == 0) throw Error("missing attribute '" + name + "'");
    return Attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT), "attribute '" + name + "': open");
}

std::size_t element_count(const Attribute& attribute, const std::string& name) {
    Dataspace space(H5Aget_space(attribute.get()), "attribute '" + name + "': get its space");
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count < 0) throw_hdf5_error("attribute '" + name + "': count its elements");
    return static_cast<std::size_t>(count);
}

template <typename Value>
Value read_scalar(hid_t object, const std::string& name, hid_t memory_type) {
    const Attribute attribute = open_attribute(object, name);
    if (element_count(attribute, name) != 1) {
        throw Error("attribute '" + name + "' is not a single value");
    }
    Value value{};
    check(H5Aread(attribute.get(), memory_type, &value), "attribute '" + name + "': read");
    return value;
}

}  // namespace

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
    const Datatype type = utf8_string_type();
    const char* text = value.c_str();
    write_scalar(object, name, type.get(), &text);
}

void write_attribute(hid_t object, const std::string& name, const std::vector<std::string>& value) {
    const std::string where = "attribute '" + name + "'";
    const Datatype type = utf8_string_type();
    std::vector<const char*> texts;
    for (const std::string& element : value) texts.push_back(element.c_str());
    const hsize_t dims[1] = {static_cast<hsize_t>(texts.size())};
    // HDF5 cannot store a zero-length simple dataspace attribute portably; an empty list is
    // a null dataspace, which h5py reads as an Empty value.
    Dataspace space(texts.empty() ? H5Screate(H5S_NULL) : H5Screate_simple(1, dims, nullptr),
                    where + ": create its dataspace");
    Attribute attribute(
        H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
        where + ": create");
    if (!texts.empty()) check(H5Awrite(attribute.get(), type.get(), texts.data()), where);
}

void write_attribute(hid_t object, const std::string& name, std::int64_t value) {
    write_scalar(object, name, H5T_NATIVE_INT64, &value);
}

void write_attribute(hid_t object, const std::string& name, std::uint64_t value) {
    write_scalar(object, name, H5T_NATIVE_UINT64, &value);
}

void write_attribute(hid_t object, const std::string& name, bool value) {
    const Datatype type = bool_type();
    const std::int8_t stored = value ? 1 : 0;
    write_scalar(object, name, type.get(), &stored);
}

std::string read_string_attribute(hid_t object, const std::string& name) {
    const std::vector<std::string> values = read_strings_attribute(object, name);
    if (values.size() != 1) throw Error("attribute '" + name + "' is not a single string");
    return values.front();
}

std::vector<std::string> read_strings_attribute(hid_t object, const std::string& name) {
    const std::string where = "attribute '" + name + "'";
    const Attribute attribute = open_attribute(object, name);
    Datatype stored(H5Aget_type(attribute.get()), where + ": get its type");
    if (H5Tget_class(stored.get()) != H5T_STRING || H5Tis_variable_str(stored.get()) <= 0) {
        throw Error(where + " is not a variable-length string");
    }
    const std::size_t count = element_count(attribute, name);
    if (count == 0) return {};
    const Datatype type = utf8_string_type();
    std::vector<char*> texts(count, nullptr);
    // Frees what HDF5 allocated after the error (if any) has been turned into an exception:
    // any HDF5 call, the reclaim included, clears the error stack.
    struct Reclaim {
        hid_t type;
        std::vector<char*>& texts;
        ~Reclaim() {
            const hsize_t dims[1] = {static_cast<hsize_t>(texts.size())};
            const hid_t space = H5Screate_simple(1, dims, nullptr);
            if (space < 0) return;
            H5Dvlen_reclaim(type, space, H5P_DEFAULT, texts.data());
            H5Sclose(space);
        }
    } reclaim{type.get(), texts};
    check(H5Aread(attribute.get(), type.get(), texts.data()), where + ": read");
    std::vector<std::string> values;
    for (const char* text : texts) values.emplace_back(text ? text : "");
    return values;
}

std::int64_t read_int64_attribute(hid_t object, const std::string& name) {
    return read_scalar<std::int64_t>(object, name, H5T_NATIVE_INT64);
}

std::uint64_t read_uint64_attribute(hid_t object, const std::string& name) {
    return read_scalar<std::uint64_t>(object, name, H5T_NATIVE_UINT64);
}

bool read_bool_attribute(hid_t object, const std::string& name) {
    const Datatype type = bool_type();
    return read_scalar<std::int8_t>(object, name, type.get()) != 0;
}

}  // namespace fhmoe::evidence::h5
