#include "config/random_token.hpp"

#include <array>
#include <cerrno>
#include <cstdint>

#include <sys/random.h>

#include "fhmoe/config/file_error.hpp"

namespace fhmoe::config::detail {

std::string random_hex_token() {
    std::array<std::uint8_t, 16> bytes{};
    std::size_t filled = 0;
    while (filled < bytes.size()) {
        const ssize_t got = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw FileError("getrandom", "drawing a random token", errno);
        filled += static_cast<std::size_t>(got);
    }
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string token;
    token.reserve(bytes.size() * 2);
    for (std::uint8_t byte : bytes) {
        token += kDigits[byte >> 4];
        token += kDigits[byte & 0xf];
    }
    return token;
}

}  // namespace fhmoe::config::detail
