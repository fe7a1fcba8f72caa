#pragma once

// RAII ownership of HDF5 identifiers, and the one place that turns HDF5's error stack into
// fhmoe::Error. Private to src/evidence: HDF5 stays out of the public headers.

#include <hdf5.h>

#include <string>

namespace fhmoe::evidence::h5 {

// Throws fhmoe::Error: "<context>: <HDF5's messages, innermost first>". Call right after an
// HDF5 call failed, while its error stack still describes the failure.
[[noreturn]] void throw_hdf5_error(const std::string& context);

// HDF5 prints every error stack to stderr by default; ours become exceptions instead, so
// the automatic printing is turned off once, before the first HDF5 call of this library.
void silence_automatic_error_printing();

inline hid_t check_id(hid_t id, const std::string& context) {
    if (id < 0) throw_hdf5_error(context);
    return id;
}

inline void check(herr_t status, const std::string& context) {
    if (status < 0) throw_hdf5_error(context);
}

template <herr_t (*Close)(hid_t)>
class Handle {
public:
    Handle() = default;
    // Takes ownership of a valid id; throws with `context` when `id` reports a failure.
    Handle(hid_t id, const std::string& context) : id_(check_id(id, context)) {}
    ~Handle() { reset(); }

    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& other) noexcept : id_(other.id_) { other.id_ = H5I_INVALID_HID; }
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = other.id_;
            other.id_ = H5I_INVALID_HID;
        }
        return *this;
    }

    hid_t get() const noexcept { return id_; }

    // Closes now and reports a failure (a destructor cannot): a file's close is where HDF5
    // flushes, so write paths close explicitly.
    void close(const std::string& context) {
        const hid_t id = id_;
        id_ = H5I_INVALID_HID;
        if (id >= 0) check(Close(id), context);
    }

private:
    void reset() noexcept {
        if (id_ >= 0) Close(id_);
        id_ = H5I_INVALID_HID;
    }
    hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Datatype = Handle<H5Tclose>;
using Dataspace = Handle<H5Sclose>;
using PropertyList = Handle<H5Pclose>;
using Attribute = Handle<H5Aclose>;

}  // namespace fhmoe::evidence::h5
