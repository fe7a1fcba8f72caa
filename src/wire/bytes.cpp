#include "fhmoe/wire/bytes.hpp"

#include <bit>
#include <limits>

namespace fhmoe::wire {

namespace {
template <typename T>
void append_le(std::vector<std::uint8_t>& out, T value) {
    for (std::size_t i = 0; i < sizeof(T); ++i) {
        out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    }
}

template <typename T>
T load_le(const std::uint8_t* in) {
    T value = 0;
    // The shifted byte is cast back to T: a uint16_t shift is done in int, and GCC's
    // -Wconversion sees through that only when UBSan's shift check is not in the way.
    for (std::size_t i = 0; i < sizeof(T); ++i) {
        value |= static_cast<T>(static_cast<T>(in[i]) << (8 * i));
    }
    return value;
}
}  // namespace

void ByteWriter::u8(std::uint8_t value) { bytes_.push_back(value); }
void ByteWriter::u16(std::uint16_t value) { append_le(bytes_, value); }
void ByteWriter::u32(std::uint32_t value) { append_le(bytes_, value); }
void ByteWriter::u64(std::uint64_t value) { append_le(bytes_, value); }
void ByteWriter::f64(double value) { u64(std::bit_cast<std::uint64_t>(value)); }

void ByteWriter::string(std::string_view text) {
    if (text.size() > std::numeric_limits<std::uint32_t>::max()) {
        throw WireError("string of " + std::to_string(text.size()) +
                        " bytes is too long to encode");
    }
    u32(static_cast<std::uint32_t>(text.size()));
    bytes_.insert(bytes_.end(), text.begin(), text.end());
}

void ByteWriter::f64_vector(std::span<const double> values) {
    if (values.size() > std::numeric_limits<std::uint32_t>::max()) {
        throw WireError("vector of " + std::to_string(values.size()) + " values is too long");
    }
    u32(static_cast<std::uint32_t>(values.size()));
    for (double value : values) f64(value);
}

void ByteWriter::raw(std::span<const std::uint8_t> bytes) {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
}

void ByteReader::need(std::size_t count) const {
    if (count > remaining()) {
        throw WireError("truncated: need " + std::to_string(count) + " bytes at offset " +
                        std::to_string(offset_) + " of " + std::to_string(bytes_.size()));
    }
}

std::uint8_t ByteReader::u8() {
    need(1);
    return bytes_[offset_++];
}

std::uint16_t ByteReader::u16() {
    need(2);
    auto value = load_le<std::uint16_t>(bytes_.data() + offset_);
    offset_ += 2;
    return value;
}

std::uint32_t ByteReader::u32() {
    need(4);
    auto value = load_le<std::uint32_t>(bytes_.data() + offset_);
    offset_ += 4;
    return value;
}

std::uint64_t ByteReader::u64() {
    need(8);
    auto value = load_le<std::uint64_t>(bytes_.data() + offset_);
    offset_ += 8;
    return value;
}

double ByteReader::f64() { return std::bit_cast<double>(u64()); }

bool ByteReader::boolean() {
    const std::size_t at = offset_;
    const std::uint8_t value = u8();
    if (value > 1) {
        throw WireError("bad boolean " + std::to_string(value) + " at offset " +
                        std::to_string(at));
    }
    return value == 1;
}

std::string ByteReader::string() {
    const std::uint32_t length = u32();
    need(length);
    std::string text(reinterpret_cast<const char*>(bytes_.data() + offset_), length);
    offset_ += length;
    return text;
}

std::vector<double> ByteReader::f64_vector() {
    const std::uint32_t n = count(8);
    std::vector<double> values;
    values.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) values.push_back(f64());
    return values;
}

std::span<const std::uint8_t> ByteReader::raw(std::size_t count) {
    need(count);
    auto span = bytes_.subspan(offset_, count);
    offset_ += count;
    return span;
}

std::uint32_t ByteReader::count(std::size_t min_element_bytes) {
    const std::size_t at = offset_;
    const std::uint32_t n = u32();
    if (min_element_bytes > 0 && n > remaining() / min_element_bytes) {
        throw WireError("truncated: count " + std::to_string(n) + " at offset " +
                        std::to_string(at) + " exceeds the " + std::to_string(remaining()) +
                        " bytes left");
    }
    return n;
}

void ByteReader::expect_end() const {
    if (remaining() != 0) {
        throw WireError(std::to_string(remaining()) + " unexpected trailing bytes at offset " +
                        std::to_string(offset_));
    }
}

}  // namespace fhmoe::wire
