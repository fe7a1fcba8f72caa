#include "cluster/run_paths.hpp"

#include <vector>

#include "fhmoe/config/path_checks.hpp"

namespace fhmoe::cluster {
namespace {

using config::FlagPath;

// The files a run writes and the ones it only reads. -o is both: read for the incumbents,
// replaced when rows are published, with its lock file beside it.
struct RunFiles {
    std::vector<FlagPath> outputs;
    std::vector<FlagPath> inputs;
};

RunFiles files_of(const TuneOptions& options) {
    RunFiles files;
    const FlagPath untuned{"-i/--untune_file", options.untuned_path};
    const FlagPath tuned{"-o/--tune_file", options.tuned_path};
    if (options.run_config) {
        // A replay reads and writes nothing but what it replays.
        if (!options.run_config->empty()) {
            config::check_input_file({"--run_config", *options.run_config});
        } else {
            config::check_input_file(untuned);
            config::check_input_file_if_exists(tuned);
        }
        return files;
    }
    config::check_input_file(untuned);
    files.inputs.push_back(untuned);

    config::check_input_file_if_exists(tuned);
    config::check_output_file(tuned);
    files.outputs.push_back(tuned);
    files.outputs.push_back({"-o/--tune_file (its lock file)", options.tuned_path + ".lock"});

    const FlagPath journal{"--journal", options.journal_path};
    if (options.resume) {
        config::check_appendable_file(journal);
    } else {
        config::check_output_file(journal);
    }
    files.outputs.push_back(journal);

    if (!options.evidence_path.empty()) {
        const FlagPath evidence{"--evidence", options.evidence_path};
        config::check_output_file(evidence);
        files.outputs.push_back(evidence);
    }
    if (!options.summary_json_path.empty()) {
        const FlagPath summary{"--summary-json", options.summary_json_path};
        config::check_output_file(summary);
        files.outputs.push_back(summary);
    }
    files.inputs.push_back({"--worker", options.worker_path});
    return files;
}

}  // namespace

void check_run_paths(const TuneOptions& options) {
    check_worker_path(options);
    const RunFiles files = files_of(options);
    config::check_distinct_files(files.outputs, files.inputs);
}

void check_worker_path(const TuneOptions& options) {
    config::check_executable_file({"--worker", options.worker_path});
}

}  // namespace fhmoe::cluster
