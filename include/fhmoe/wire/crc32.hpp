#pragma once

// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320): the checksum of every frame and
// journal record. crc32("123456789") == 0xCBF43926.

#include <cstdint>
#include <span>

namespace fhmoe::wire {

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t previous = 0);

}  // namespace fhmoe::wire
