#include "cluster/run_state/progress_reporter.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <utility>

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
    const double done = static_cast<double>(p.measured + p.race_work_done);
    const double total = static_cast<double>(p.to_measure + p.race_work_total);
    const double fraction = total <= 0.0 ? 1.0 : std::min(1.0, done / total);
    std::string text;
    if (bar) {
        const int filled = static_cast<int>(std::lround(fraction * bar_width));
        text = "[" + std::string(static_cast<std::size_t>(filled), '#') +
               std::string(static_cast<std::size_t>(bar_width - filled), '.') + "] ";
    }
    const double rate = p.elapsed_s > 0.0 ? done / p.elapsed_s : 0.0;
    char line[256];
    std::snprintf(line, sizeof(line),
                  "%zu/%zu measurements, %zu/%zu races, %.0f%%, %zu/%zu shapes decided, %zu/%zu "
                  "ranks busy, %.1f/s",
                  p.measured, p.to_measure, p.races_done, p.races_total, fraction * 100.0,
                  p.shapes_decided, p.shapes_total, p.ranks_busy, p.ranks, rate);
    text += line;
    if (rate > 0.0 && total > done) text += ", ETA " + format_duration((total - done) / rate);
    return text;
}

ProgressReporter::ProgressReporter(std::shared_ptr<ProgressTerminal> terminal, bool quiet,
                                   double line_interval_s)
    : terminal_(std::move(terminal)), quiet_(quiet), interval_(line_interval_s) {}

void ProgressReporter::update(const ProgressSnapshot& snapshot) {
    if (quiet_) return;
    const auto now = std::chrono::steady_clock::now();
    if (terminal_) {
        if (drawn_ && now - last_draw_ < bar_redraw) return;
        terminal_->draw(format_progress(snapshot, true));
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
    if (quiet_) return;
    if (terminal_) {
        terminal_->finish(format_progress(snapshot, true));
    } else {
        spdlog::info("progress: {}", format_progress(snapshot, false));
    }
}

}  // namespace fhmoe::cluster
