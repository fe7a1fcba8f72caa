#include "evidence/archive_seal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <vector>

#include "fhmoe/error.hpp"

namespace fhmoe::evidence {
namespace {

constexpr std::string_view kMagicLine = "FHMOE-EVIDENCE-ARCHIVE\n";
constexpr std::string_view kSealVersionLine = "seal_version=1\n";
constexpr std::string_view kBytesKey = "file_bytes=";
constexpr std::string_view kChecksumKey = "fnv1a64=";
constexpr std::size_t kReadBlock = 1 << 20;

class FileDescriptor {
public:
    FileDescriptor(const std::string& path, int flags) : fd_(::open(path.c_str(), flags)) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const noexcept { return fd_; }

private:
    int fd_;
};

[[noreturn]] void throw_io_error(const std::string& path, const std::string& what) {
    throw Error("evidence archive '" + path + "': " + what + ": " + std::strerror(errno));
}

std::uint64_t file_size(int fd, const std::string& path) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) throw_io_error(path, "cannot stat");
    return static_cast<std::uint64_t>(info.st_size);
}

void read_exactly(int fd, const std::string& path, char* out, std::size_t count,
                  std::uint64_t offset) {
    while (count > 0) {
        const ssize_t got = ::pread(fd, out, count, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw_io_error(path, "cannot read");
        if (got == 0) throw Error("evidence archive '" + path + "': shorter than expected");
        out += got;
        count -= static_cast<std::size_t>(got);
        offset += static_cast<std::uint64_t>(got);
    }
}

// The checksum covers the header up to the checksum's value and every byte after the
// userblock; the rest of the userblock must be zero, so no byte of the file is unguarded.
std::uint64_t checksum_of(int fd, const std::string& path, std::string_view signed_header,
                          std::uint64_t size) {
    std::uint64_t state = fnv1a64(signed_header, kFnv1a64Offset);
    std::vector<char> block(kReadBlock);
    for (std::uint64_t offset = kSealBytes; offset < size;) {
        const std::size_t count =
            static_cast<std::size_t>(std::min<std::uint64_t>(kReadBlock, size - offset));
        read_exactly(fd, path, block.data(), count, offset);
        state = fnv1a64(std::string_view(block.data(), count), state);
        offset += count;
    }
    return state;
}

std::string signed_header_text(std::uint64_t size) {
    return std::string(kMagicLine) + std::string(kSealVersionLine) + std::string(kBytesKey) +
           std::to_string(size) + "\n" + std::string(kChecksumKey);
}

std::string hex16(std::uint64_t value) {
    std::array<char, 17> text{};
    std::snprintf(text.data(), text.size(), "%016llx", static_cast<unsigned long long>(value));
    return text.data();
}

// Parses "<key><digits>\n" at `position`, advancing it; false when the text is not that.
bool parse_field(std::string_view header, std::size_t& position, std::string_view key, int base,
                 std::uint64_t& value) {
    if (header.substr(position, key.size()) != key) return false;
    position += key.size();
    const std::size_t end = header.find('\n', position);
    if (end == std::string_view::npos || end == position) return false;
    const char* first = header.data() + position;
    const char* last = header.data() + end;
    const auto [stop, error] = std::from_chars(first, last, value, base);
    if (error != std::errc() || stop != last) return false;
    position = end + 1;
    return true;
}

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state) {
    constexpr std::uint64_t kPrime = 0x100000001b3ULL;
    for (const char byte : bytes) {
        state ^= static_cast<unsigned char>(byte);
        state *= kPrime;
    }
    return state;
}

void seal_archive_file(const std::string& path) {
    const FileDescriptor file(path, O_RDWR);
    if (file.get() < 0) throw_io_error(path, "cannot open to seal");
    const std::uint64_t size = file_size(file.get(), path);
    if (size < kSealBytes) throw Error("evidence archive '" + path + "': no userblock to seal");
    std::string header = signed_header_text(size);
    header += hex16(checksum_of(file.get(), path, header, size)) + "\n";
    header.resize(kSealBytes, '\0');
    if (::pwrite(file.get(), header.data(), header.size(), 0) !=
        static_cast<ssize_t>(header.size())) {
        throw_io_error(path, "cannot write the seal");
    }
    if (::fsync(file.get()) != 0) throw_io_error(path, "cannot flush");
}

void verify_archive_seal(const std::string& path) {
    const FileDescriptor file(path, O_RDONLY);
    if (file.get() < 0) throw_io_error(path, "cannot open");
    const std::uint64_t size = file_size(file.get(), path);
    const std::string name = "evidence archive '" + path + "'";
    if (size < kSealBytes) {
        throw Error(name + ": truncated or not an archive (" + std::to_string(size) +
                    " bytes, shorter than the " + std::to_string(kSealBytes) + "-byte seal)");
    }
    std::string header(kSealBytes, '\0');
    read_exactly(file.get(), path, header.data(), header.size(), 0);
    if (std::string_view(header).substr(0, kMagicLine.size()) != kMagicLine) {
        throw Error(name + ": not an fhmoe evidence archive (no seal at its start)");
    }
    std::size_t position = kMagicLine.size();
    std::uint64_t seal_version = 0, expected_size = 0, expected_checksum = 0;
    const std::string_view view(header);
    if (!parse_field(view, position, "seal_version=", 10, seal_version) || seal_version != 1 ||
        !parse_field(view, position, kBytesKey, 10, expected_size)) {
        throw Error(name + ": corrupted seal header");
    }
    const std::size_t signed_length = position + kChecksumKey.size();
    if (!parse_field(view, position, kChecksumKey, 16, expected_checksum) ||
        view.find_first_not_of('\0', position) != std::string_view::npos) {
        throw Error(name + ": corrupted seal header");
    }
    if (size != expected_size) {
        throw Error(name + ": " + (size < expected_size ? "truncated" : "has extra bytes") + " (" +
                    std::to_string(size) + " bytes, the seal says " +
                    std::to_string(expected_size) + ")");
    }
    const std::uint64_t actual = checksum_of(file.get(), path, view.substr(0, signed_length), size);
    if (actual != expected_checksum) {
        throw Error(name + ": corrupted (checksum " + hex16(actual) + ", the seal says " +
                    hex16(expected_checksum) + ")");
    }
}

}  // namespace fhmoe::evidence
