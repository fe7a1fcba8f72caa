#pragma once

// Rank 0's plan of a run (DESIGN.md section 1, step 1): which shapes are tuned, what each
// shape's incumbent is, and which candidates each shape measures. The plan is stored whole
// in the journal's run header, so a resume continues the plan it was given, not a new one.

#include <map>
#include <string>
#include <vector>

#include "fhmoe/cluster/tune_options.hpp"
#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::cluster {

struct RunPlan {
    family::DeviceKey device;
    std::vector<config::UntunedShape> already_tuned;  // skipped (aiter's pre_process)
    std::vector<config::UntunedShape> other_device;   // their gfx/cu_num is another device
    std::vector<std::string> warnings;                // from reading the inputs
    evidence::RunHeader header;                       // fingerprint + planned shapes
};

// Reads -i and -o, skips already-tuned shapes on the lookup key unless --all, and plans each
// remaining shape: its incumbent (the tuned row serving uses now, aiter's names imported; the
// family's default config when there is none) and its candidates (the catalogue, or a seeded
// sample that always holds the default config), with the incumbent always among them.
// Throws fhmoe::InputError for bad files.
RunPlan plan_run(const TuneOptions& options, const family::DeviceKey& device);

// What must be equal for `--resume` to continue a journal: the input shapes, --all, the
// catalogue of every input shape, the measurement/promotion/finalist policy, backend and
// device model, seed and sample size. Rank count, --chunk, --batch and paths may change.
std::map<std::string, std::string> run_fingerprint(const TuneOptions& options,
                                                   const std::vector<config::UntunedShape>& input,
                                                   const family::DeviceKey& device);

// Throws fhmoe::InputError naming every field that differs ("seed: journal 7, now 8").
void check_resume_fingerprint(const std::string& journal_path,
                              const std::map<std::string, std::string>& in_journal,
                              const std::map<std::string, std::string>& now);

}  // namespace fhmoe::cluster
