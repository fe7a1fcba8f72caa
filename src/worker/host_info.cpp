#include "worker/host_info.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fhmoe::worker {
namespace {

constexpr std::uint64_t fallback_cache_bytes = 32ULL << 20;

std::uint64_t parse_size(const std::string& text) {
    std::istringstream in(text);
    std::uint64_t value = 0;
    char unit = 0;
    in >> value >> unit;
    if (unit == 'K') return value << 10;
    if (unit == 'M') return value << 20;
    if (unit == 'G') return value << 30;
    return value;
}

std::string first_line(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

}  // namespace

std::string host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "unknown-host";
    return name;
}

std::string cpu_model_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const std::size_t colon = line.find(':');
            if (colon != std::string::npos && colon + 2 <= line.size()) {
                return line.substr(colon + 2);
            }
        }
    }
    return "unknown cpu";
}

std::uint64_t memory_available_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit) {
        if (key == "MemAvailable:") return kib << 10;
    }
    return 0;
}

std::uint64_t last_level_cache_bytes() {
    const std::filesystem::path caches = "/sys/devices/system/cpu/cpu0/cache";
    std::error_code error;
    int best_level = -1;
    std::uint64_t best_size = 0;
    for (const auto& entry : std::filesystem::directory_iterator(caches, error)) {
        if (entry.path().filename().string().rfind("index", 0) != 0) continue;
        const std::string level_text = first_line(entry.path() / "level");
        const std::string size_text = first_line(entry.path() / "size");
        if (level_text.empty() || size_text.empty()) continue;
        const int level = std::stoi(level_text);
        const std::uint64_t size = parse_size(size_text);
        if (level > best_level || (level == best_level && size > best_size)) {
            best_level = level;
            best_size = size;
        }
    }
    return best_size > 0 ? best_size : fallback_cache_bytes;
}

}  // namespace fhmoe::worker
