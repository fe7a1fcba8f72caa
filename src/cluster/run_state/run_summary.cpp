#include "cluster/run_state/run_summary.hpp"

#include <algorithm>
#include <cstdio>

#include "fhmoe/config/lookup_key.hpp"

namespace fhmoe::cluster {

std::string format_counts(const tuning::StatusCounts& counts) {
    std::string text;
    for (tuning::Status status : tuning::all_statuses) {
        if (counts[status] == 0) continue;
        if (!text.empty()) text += ", ";
        text += std::string(tuning::to_string(status)) + " " + std::to_string(counts[status]);
    }
    return text.empty() ? "-" : text;
}

std::vector<SummaryLine> summarize_run(const std::vector<ShapeOutcome>& tuned_this_run,
                                       const std::vector<config::UntunedShape>& already_tuned,
                                       const std::vector<config::UntunedShape>& other_device,
                                       const config::TunedTable& tuned_after,
                                       const family::DeviceKey& device) {
    const config::TunedIndex index(tuned_after);
    std::vector<SummaryLine> lines;
    for (const auto& outcome : tuned_this_run) {
        SummaryLine line;
        line.shape = family::shape_key_string(outcome.planned->shape);
        line.lookup_token = family::padded_token(outcome.planned->shape.token);
        line.counts = format_counts(outcome.counts);
        line.status_counts = outcome.counts;
        line.tuned = index.is_tuned(device, outcome.planned->shape);
        if (outcome.decision) {
            const auto& d = *outcome.decision;
            line.incumbent = d.incumbent.key();
            line.published = d.published ? d.published->key() : "-";
            if (d.best_challenger) line.best_challenger = d.best_challenger->key();
            line.margin_pct = d.margin_pct;
            line.decision = std::string(evidence::to_string(d.kind));
            line.reason = d.reason;
        } else {
            line.decision = "incomplete";
            line.published = "-";
            line.reason = "the run stopped before the shape was decided";
        }
        if (!outcome.planned->unsupported_reason.empty())
            line.reason = outcome.planned->unsupported_reason;
        lines.push_back(std::move(line));
    }
    for (const auto& shape : already_tuned) {
        SummaryLine line;
        line.shape = family::shape_key_string(shape.shape);
        line.lookup_token = family::padded_token(shape.shape.token);
        line.counts = "-";
        line.published = "-";
        line.decision = "already tuned";
        line.tuned = index.is_tuned(device, shape.shape);
        line.reason = "skipped: a row for its lookup key exists (use --all to retune)";
        lines.push_back(std::move(line));
    }
    for (const auto& shape : other_device) {
        SummaryLine line;
        line.shape = family::shape_key_string(shape.shape);
        line.lookup_token = family::padded_token(shape.shape.token);
        line.counts = "-";
        line.published = "-";
        line.decision = "other device";
        line.tuned = shape.device && index.is_tuned(*shape.device, shape.shape);
        line.reason = "its gfx/cu_num columns name another device";
        lines.push_back(std::move(line));
    }
    return lines;
}

std::string format_summary(const std::vector<SummaryLine>& lines) {
    std::size_t shape_width = 5;
    std::size_t counts_width = 10;
    for (const auto& line : lines) {
        shape_width = std::max(shape_width, line.shape.size());
        counts_width = std::max(counts_width, line.counts.size());
    }
    std::string text;
    char buffer[1024];
    std::snprintf(buffer, sizeof(buffer), "%-*s %6s %-13s %-*s %9s %-5s  %s\n",
                  static_cast<int>(shape_width), "shape", "lookup", "decision",
                  static_cast<int>(counts_width), "candidates", "margin%", "tuned",
                  "published / incumbent / best challenger / reason");
    text += buffer;
    for (const auto& line : lines) {
        char margin[32] = "-";
        if (line.margin_pct) std::snprintf(margin, sizeof(margin), "%.2f", *line.margin_pct);
        std::snprintf(buffer, sizeof(buffer), "%-*s %6lld %-13s %-*s %9s %-5s  ",
                      static_cast<int>(shape_width), line.shape.c_str(),
                      static_cast<long long>(line.lookup_token), line.decision.c_str(),
                      static_cast<int>(counts_width), line.counts.c_str(), margin,
                      line.tuned ? "yes" : "no");
        text += buffer;
        // The published one first (what serving uses now), then the roles it does not hold:
        // a retained shape's margin is its best challenger's, so that challenger is named.
        text += "published " + line.published;
        if (line.published != "-") {
            if (line.published == line.incumbent) {
                text += " (the incumbent)";
            } else if (line.published == line.best_challenger) {
                text += " (the best challenger)";
            }
        }
        if (!line.incumbent.empty() && line.incumbent != line.published) {
            text += " / incumbent " + line.incumbent;
        }
        if (!line.best_challenger.empty() && line.best_challenger != line.published) {
            text += " / best challenger " + line.best_challenger;
        }
        if (!line.reason.empty()) text += " / " + line.reason;
        text += '\n';
    }
    return text;
}

}  // namespace fhmoe::cluster
