#include "cluster/run_session.hpp"

#include <string>

#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/version.hpp"
#include "fhmoe/worker/backend_kind.hpp"

namespace fhmoe::cluster {
namespace {

// The policy's rows (tuning::named_policy_values) plus how candidates were chosen:
// candidate_sample 0 means the whole catalogue.
std::vector<std::pair<std::string, double>> policy_values(const TuneOptions& options) {
    std::vector<std::pair<std::string, double>> rows;
    for (const tuning::NamedPolicyValue& field : tuning::named_policy_values(options.policy)) {
        rows.emplace_back(field.name, field.value);
    }
    rows.emplace_back("candidate_sample", options.candidate_sample
                                              ? static_cast<double>(*options.candidate_sample)
                                              : 0.0);
    return rows;
}

}  // namespace

evidence::SessionStartedRecord session_started(const TuneOptions& options,
                                               const family::DeviceKey& device, int world_size,
                                               std::int64_t started_unix) {
    evidence::SessionStartedRecord record;
    record.command_line = options.command_line;
    record.backend = worker::backend_name(options.backend);
    record.seed = options.seed;
    record.device = device;
    record.world_size = world_size;
    record.started_unix = started_unix;
    record.tool_version = std::string(fhmoe::version());
    record.policy = policy_values(options);
    return record;
}

}  // namespace fhmoe::cluster
