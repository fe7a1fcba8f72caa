#pragma once

// fhmoe_tune_mpi's command line, parsed apart from main() so that it is tested with argv
// vectors. Flag names are aiter's where aiter has the flag (reference section 4.1), so a
// user of aiter's tuners types what they know; every default comes from
// tuning::default_policy().

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fhmoe/cluster/progress_terminal.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/worker/backend_kind.hpp"

namespace fhmoe::cluster {

// A flag that is wrong on its own or with another (exit code 2, nothing touched).
class UsageError : public Error {
public:
    using Error::Error;
};

struct TuneOptions {
    std::string untuned_path;  // -i
    std::string tuned_path;    // -o
    bool retune_all = false;   // --all
    bool compare = false;      // --compare
    bool update_improved = false;
    // --run_config [CSV]: replay tuned rows and exit. Set with "" for the bare flag.
    std::optional<std::string> run_config;
    tuning::TuningPolicy policy;
    std::optional<std::size_t> candidate_sample;  // none: the whole catalogue
    std::uint64_t seed = 0;
    worker::BackendKind backend = worker::BackendKind::cpu;
    std::string journal_path;  // default: <tuned_path>.journal
    bool resume = false;
    std::string evidence_path;      // empty: no archive
    std::string summary_json_path;  // empty: the summary is only printed
    std::optional<std::size_t> chunk_size;
    std::string inject_fault;  // passed to every worker verbatim (fault grammar of #5)
    bool verbose = false;
    std::string worker_path;  // default: fhmoe_worker next to this executable
    double lock_timeout_s = 120.0;
    double stop_grace_s = 5.0;
    double status_interval_s = 30.0;
    // --progress: bar, lines or none; automatic lets the main choose (progress_terminal.hpp).
    ProgressMode progress = ProgressMode::automatic;
    std::vector<std::string> command_line;  // argv as given, for the journal and evidence
    // aiter's --mp N (worker processes): here the MPI rank count, so run_tune refuses an N
    // that differs from it (check_aiter_mp).
    std::optional<int> mp;
};

// --mp N said how many GPU workers aiter should start; here that is the launch's rank count.
// Throws UsageError naming both when they differ.
void check_aiter_mp(const TuneOptions& options, int world_size);

struct ParsedCommandLine {
    std::optional<TuneOptions> options;  // none when --help or --version was asked for
    std::string help_text;
    bool show_version = false;  // --version: print version_line and exit 0
};

// Parses argv (args[0] is the program name). Throws UsageError for a malformed or
// inconsistent command line; PolicyError-derived problems are reported as UsageError too,
// naming the flag.
ParsedCommandLine parse_tune_command_line(const std::vector<std::string>& args);

// The path of fhmoe_worker beside the running executable (/proc/self/exe).
std::string default_worker_path();

}  // namespace fhmoe::cluster
