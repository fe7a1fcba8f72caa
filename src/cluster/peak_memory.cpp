#include "cluster/peak_memory.hpp"

#include <fstream>
#include <string>

namespace fhmoe::cluster {

std::optional<std::int64_t> peak_resident_kib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) != 0) continue;
        try {
            return std::stoll(line.substr(6));  // "VmHWM:    123456 kB"
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    return std::nullopt;
}

}  // namespace fhmoe::cluster
