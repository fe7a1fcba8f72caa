#include "fhmoe/cluster/progress_terminal.hpp"

#include <unistd.h>

#include <array>
#include <string>

namespace fhmoe::cluster {
namespace {

// Carriage return, then erase to the end of the line: the bar's line is empty again.
constexpr std::string_view kClearLine = "\r\033[K";

bool is_terminal_path(const std::string& path) {
    return path.starts_with("/dev/pts/") || path.starts_with("/dev/tty");
}

}  // namespace

std::optional<ProgressMode> progress_mode_from_string(std::string_view text) {
    if (text == "auto") return ProgressMode::automatic;
    if (text == "bar") return ProgressMode::bar;
    if (text == "lines") return ProgressMode::lines;
    if (text == "none") return ProgressMode::none;
    return std::nullopt;
}

ProgressChoice choose_progress(ProgressMode requested, bool stderr_is_terminal,
                               const std::string& launcher_terminal) {
    const bool reachable = stderr_is_terminal || !launcher_terminal.empty();
    if (requested == ProgressMode::lines || requested == ProgressMode::none) return {requested, {}};
    if (requested == ProgressMode::automatic && !reachable) return {ProgressMode::lines, {}};
    return {ProgressMode::bar, stderr_is_terminal ? std::string() : launcher_terminal};
}

std::string launcher_terminal() {
    const std::string link = "/proc/" + std::to_string(::getppid()) + "/fd/2";
    std::array<char, 256> target{};
    const ssize_t length = ::readlink(link.c_str(), target.data(), target.size() - 1);
    if (length <= 0) return {};
    const std::string path(target.data(), static_cast<std::size_t>(length));
    return is_terminal_path(path) ? path : std::string();
}

ProgressTerminal::ProgressTerminal(std::FILE* out) : out_(out) {}

void ProgressTerminal::draw(const std::string& bar) {
    const std::lock_guard<std::mutex> lock(mutex_);
    bar_ = bar;
    write_bar_locked();
    std::fflush(out_);
}

void ProgressTerminal::finish(const std::string& bar) {
    const std::lock_guard<std::mutex> lock(mutex_);
    bar_ = bar;
    write_bar_locked();
    std::fputc('\n', out_);
    bar_.clear();
    std::fflush(out_);
}

void ProgressTerminal::write_bar_locked() {
    std::fwrite(kClearLine.data(), 1, kClearLine.size(), out_);
    std::fwrite(bar_.data(), 1, bar_.size(), out_);
}

// base_sink holds mutex_ here: a bar drawn from another thread waits for the whole line.
void ProgressTerminal::sink_it_(const spdlog::details::log_msg& message) {
    spdlog::memory_buf_t formatted;
    formatter_->format(message, formatted);
    if (!bar_.empty()) std::fwrite(kClearLine.data(), 1, kClearLine.size(), out_);
    std::fwrite(formatted.data(), 1, formatted.size(), out_);
    if (!bar_.empty()) write_bar_locked();
    std::fflush(out_);
}

void ProgressTerminal::flush_() { std::fflush(out_); }

}  // namespace fhmoe::cluster
