#pragma once

// Little-endian byte encoding with bounds checks: the one place that decides how numbers and
// strings look on the wire (worker pipe, MPI messages, journal). A reader never reads past
// its buffer; running out is a WireError naming the offset, never undefined behaviour.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/error.hpp"

namespace fhmoe::wire {

// Malformed bytes: truncated, out of range, bad frame. The receiver treats its peer as broken.
class WireError : public Error {
public:
    using Error::Error;
};

class ByteWriter {
public:
    void u8(std::uint8_t value);
    void u16(std::uint16_t value);
    void u32(std::uint32_t value);
    void u64(std::uint64_t value);
    void i32(std::int32_t value) { u32(static_cast<std::uint32_t>(value)); }
    void i64(std::int64_t value) { u64(static_cast<std::uint64_t>(value)); }
    void f64(double value);
    void boolean(bool value) { u8(value ? 1 : 0); }
    void string(std::string_view text);               // u32 length, then the bytes
    void f64_vector(std::span<const double> values);  // u32 count, then the values
    void raw(std::span<const std::uint8_t> bytes);

    const std::vector<std::uint8_t>& bytes() const& { return bytes_; }
    std::vector<std::uint8_t> take() && { return std::move(bytes_); }

private:
    std::vector<std::uint8_t> bytes_;
};

class ByteReader {
public:
    explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

    std::uint8_t u8();
    std::uint16_t u16();
    std::uint32_t u32();
    std::uint64_t u64();
    std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
    std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
    double f64();
    bool boolean();
    std::string string();
    std::vector<double> f64_vector();
    std::span<const std::uint8_t> raw(std::size_t count);

    // A u32 element count, checked against what the rest of the buffer can hold (each element
    // at least min_element_bytes), so a corrupt count cannot trigger a huge allocation.
    std::uint32_t count(std::size_t min_element_bytes);

    std::size_t remaining() const { return bytes_.size() - offset_; }
    // Throws unless every byte was consumed: trailing bytes mean the peer speaks another layout.
    void expect_end() const;

    // Reading bytes an older layout wrote: record members named here are not on the wire and
    // keep their default values (record_codec.hpp's get). The names must outlive the reader.
    void set_absent_members(std::span<const std::string_view> names) { absent_ = names; }
    bool is_absent(std::string_view member) const {
        for (std::string_view name : absent_) {
            if (name == member) return true;
        }
        return false;
    }
    bool has_absent_members() const { return !absent_.empty(); }

private:
    void need(std::size_t count) const;
    std::span<const std::uint8_t> bytes_;
    std::size_t offset_ = 0;
    std::span<const std::string_view> absent_;
};

}  // namespace fhmoe::wire
