#include "fhmoe/wire/crc32.hpp"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace fhmoe::wire {

// zlib's crc32 is this CRC (and faster than a byte table); it takes at most a uInt of bytes
// per call, so a larger span is fed in slices.
std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t previous) {
    uLong crc = previous;
    constexpr std::size_t max_slice = std::numeric_limits<uInt>::max();
    while (!bytes.empty()) {
        const std::size_t slice = std::min(bytes.size(), max_slice);
        crc = ::crc32(crc, bytes.data(), static_cast<uInt>(slice));
        bytes = bytes.subspan(slice);
    }
    return static_cast<std::uint32_t>(crc);
}

}  // namespace fhmoe::wire
