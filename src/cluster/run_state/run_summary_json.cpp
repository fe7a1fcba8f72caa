#include "cluster/run_state/run_summary_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "fhmoe/config/atomic_file.hpp"
#include "fhmoe/config/file_error.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::cluster {
namespace {

// ordered_json keeps the keys in the order they are set: the layout documented in the header.
using Json = nlohmann::ordered_json;

// JSON has no NaN or infinity: those are null.
Json number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

// A policy switch (tuning::NamedPolicyValue::is_switch) as true/false, a number as itself.
Json policy_value(const std::string& name, double value) {
    for (const tuning::NamedPolicyValue& known :
         tuning::named_policy_values(tuning::default_policy())) {
        if (known.name == name && known.is_switch) return Json(value != 0.0);
    }
    return number(value);
}

Json status_counts(const tuning::StatusCounts& counts) {
    Json out = Json::object();
    for (tuning::Status status : tuning::all_statuses) {
        if (counts[status] != 0) out[std::string(tuning::to_string(status))] = counts[status];
    }
    return out;
}

}  // namespace

std::string format_summary_json(const std::vector<SummaryLine>& lines,
                                const RunSummaryFacts& facts) {
    Json policy = Json::object();
    for (const auto& [name, value] : facts.policy) policy[name] = policy_value(name, value);
    Json shapes = Json::array();
    for (const SummaryLine& line : lines) {
        const auto race = facts.race_samples.find(line.shape);
        shapes.push_back(Json{
            {"shape", line.shape},
            {"lookup_token", line.lookup_token},
            {"decision", line.decision},
            {"tuned", line.tuned},
            {"candidates", status_counts(line.status_counts)},
            {"race_samples", race == facts.race_samples.end() ? 0 : race->second},
            {"published", line.published},
            {"incumbent", line.incumbent},
            {"best_challenger", line.best_challenger},
            {"margin_pct", line.margin_pct ? number(*line.margin_pct) : Json(nullptr)},
            {"reason", line.reason},
        });
    }
    const Json summary{{"exit_code", facts.exit_code},
                       {"ranks", facts.ranks},
                       {"policy", std::move(policy)},
                       {"shapes", std::move(shapes)}};
    // Invalid UTF-8 in a reason (a worker's error text) is replaced, not an exception.
    return summary.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
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
