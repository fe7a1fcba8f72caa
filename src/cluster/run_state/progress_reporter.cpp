#include "cluster/run_state/progress_reporter.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

namespace fhmoe::cluster {
namespace {

constexpr int bar_width = 24;
constexpr auto bar_redraw = std::chrono::milliseconds(200);

std::string format_duration(double seconds) {
    const long s = std::lround(std::max(0.0, seconds));
    char text[32];
    if (s >= 3600) {
        std::snprintf(text, sizeof(text), "%ldh%02ldm", s / 3600, (s / 60) % 60);
    } else if (s >= 60) {
        std::snprintf(text, sizeof(text), "%ldm%02lds", s / 60, s % 60);
    } else {
        std::snprintf(text, sizeof(text), "%lds", s);
    }
    return text;
}

}  // namespace

std::string format_progress(const ProgressSnapshot& p, bool bar) {
    const double fraction =
        p.to_measure == 0
            ? 1.0
            : std::min(1.0, static_cast<double>(p.measured) / static_cast<double>(p.to_measure));
    std::string text;
    if (bar) {
        const int filled = static_cast<int>(std::lround(fraction * bar_width));
        text = "[" + std::string(static_cast<std::size_t>(filled), '#') +
               std::string(static_cast<std::size_t>(bar_width - filled), '.') + "] ";
    }
    const double rate = p.elapsed_s > 0.0 ? static_cast<double>(p.measured) / p.elapsed_s : 0.0;
    char line[256];
    std::snprintf(line, sizeof(line),
                  "%zu/%zu measurements %.0f%%, %zu/%zu shapes decided, %zu/%zu ranks busy, %.1f/s",
                  p.measured, p.to_measure, fraction * 100.0, p.shapes_decided, p.shapes_total,
                  p.ranks_busy, p.ranks, rate);
    text += line;
    if (rate > 0.0 && p.to_measure > p.measured) {
        text += ", ETA " + format_duration(static_cast<double>(p.to_measure - p.measured) / rate);
    }
    return text;
}

ProgressReporter::ProgressReporter(std::FILE* out, bool is_terminal, double line_interval_s)
    : out_(out), is_terminal_(is_terminal), interval_(line_interval_s) {}

void ProgressReporter::update(const ProgressSnapshot& snapshot) {
    const auto now = std::chrono::steady_clock::now();
    if (is_terminal_) {
        if (drawn_ && now - last_draw_ < bar_redraw) return;
        std::fprintf(out_, "\r%s\033[K", format_progress(snapshot, true).c_str());
        std::fflush(out_);
    } else {
        if (!drawn_) {
            last_draw_ = now;  // the first line comes one interval after the start
            drawn_ = true;
            return;
        }
        if (now - last_draw_ < interval_) return;
        spdlog::info("progress: {}", format_progress(snapshot, false));
    }
    last_draw_ = now;
    drawn_ = true;
}

void ProgressReporter::finish(const ProgressSnapshot& snapshot) {
    if (is_terminal_) {
        std::fprintf(out_, "\r%s\033[K\n", format_progress(snapshot, true).c_str());
        std::fflush(out_);
    } else {
        spdlog::info("progress: {}", format_progress(snapshot, false));
    }
}

}  // namespace fhmoe::cluster
