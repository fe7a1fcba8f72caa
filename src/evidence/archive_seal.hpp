#pragma once

// The seal of an archive: a text header in the HDF5 userblock (bytes HDF5 reserves at the
// front of the file and never interprets; h5py skips them) recording the file's length and
// a checksum of everything else. The reader verifies it before handing the file to HDF5, so
// a truncated or bit-flipped archive is a clear error instead of whatever HDF5 makes of
// damaged metadata (which, for some damage, is a crash).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fhmoe::evidence {

// The userblock size the writer reserves (HDF5 wants a power of two >= 512).
inline constexpr std::size_t kSealBytes = 512;

// FNV-1a, 64 bits: any single changed byte changes it (each step is a bijection of the
// state), which is the damage a seal must never miss.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state);
inline constexpr std::uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;

// Writes the header into the first kSealBytes of the finished HDF5 file at `path` and
// flushes the file to stable storage. Throws fhmoe::Error naming the path.
void seal_archive_file(const std::string& path);

// Throws fhmoe::Error naming the path when the file is missing, shorter or longer than its
// header says, not sealed, or its checksum does not match.
void verify_archive_seal(const std::string& path);

}  // namespace fhmoe::evidence
