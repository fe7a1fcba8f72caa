#include "cluster/run_state/run_summary_json.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "fhmoe/config/atomic_file.hpp"
#include "fhmoe/config/file_error.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::cluster {
namespace {

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escape[8];
                    std::snprintf(escape, sizeof(escape), "\\u%04x", c);
                    out += escape;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

// Round-trips a double exactly; JSON has no NaN or infinity, so those are null.
std::string number(double value) {
    if (!std::isfinite(value)) return "null";
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", value);
    return text;
}

std::string status_counts(const tuning::StatusCounts& counts) {
    std::string out = "{";
    for (tuning::Status status : tuning::all_statuses) {
        if (counts[status] == 0) continue;
        if (out.size() > 1) out += ", ";
        out +=
            quoted(std::string(tuning::to_string(status))) + ": " + std::to_string(counts[status]);
    }
    return out + "}";
}

}  // namespace

std::string format_summary_json(const std::vector<SummaryLine>& lines,
                                const RunSummaryFacts& facts) {
    std::string out = "{\"exit_code\": " + std::to_string(facts.exit_code) +
                      ", \"ranks\": " + std::to_string(facts.ranks) + ", \"policy\": {";
    for (std::size_t i = 0; i < facts.policy.size(); ++i) {
        if (i > 0) out += ", ";
        out += quoted(facts.policy[i].first) + ": " + number(facts.policy[i].second);
    }
    out += "},\n \"shapes\": [";
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const SummaryLine& line = lines[i];
        const auto race = facts.race_samples.find(line.shape);
        out += i > 0 ? ",\n  " : "\n  ";
        out += "{\"shape\": " + quoted(line.shape) +
               ", \"lookup_token\": " + std::to_string(line.lookup_token) +
               ", \"decision\": " + quoted(line.decision) +
               ", \"tuned\": " + (line.tuned ? "true" : "false") +
               ", \"candidates\": " + status_counts(line.status_counts) + ", \"race_samples\": " +
               std::to_string(race == facts.race_samples.end() ? 0 : race->second) +
               ", \"winner\": " + quoted(line.winner) +
               ", \"incumbent\": " + quoted(line.incumbent) +
               ", \"margin_pct\": " + (line.margin_pct ? number(*line.margin_pct) : "null") +
               ", \"reason\": " + quoted(line.reason) + "}";
    }
    out += "]}\n";
    return out;
}

void write_summary_json(const std::string& path, const std::string& text) {
    // Atomic like the tuned CSV: a full disk leaves the previous summary and no temporary file.
    try {
        config::write_file_atomically(path, text);
    } catch (const config::FileError& error) {
        throw InputError(path, 0, 0, "--summary-json", std::string("not written: ") + error.what());
    }
}

}  // namespace fhmoe::cluster
