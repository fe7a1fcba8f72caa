#include "cluster/run_plan.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <span>

#include "cluster/row_candidate.hpp"
#include "fhmoe/config/lookup_key.hpp"
#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/catalogue_sample.hpp"
#include "fhmoe/family/default_config.hpp"
#include "fhmoe/family/legality.hpp"
#include "fhmoe/version.hpp"
#include "fhmoe/wall_clock.hpp"
#include "fhmoe/wire/crc32.hpp"
#include "fhmoe/worker/backend_kind.hpp"

namespace fhmoe::cluster {
namespace {

std::string number(double value) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.17g", value);
    return text;
}

evidence::PlannedShape plan_shape(const TuneOptions& options, const config::UntunedShape& input,
                                  const config::TunedIndex& tuned, const family::DeviceKey& device,
                                  const std::string& tuned_path) {
    evidence::PlannedShape planned;
    planned.shape = input.shape;
    if (auto why = family::why_shape_unsupported(input.shape)) {
        planned.unsupported_reason = *why;
        return planned;
    }
    try {
        const family::Candidate fallback = family::default_candidate(input.shape);
        family::Candidate incumbent = fallback;
        if (const config::TunedRecord* row = tuned.find(device, input.shape)) {
            incumbent = candidate_of_row(*row, input.shape, tuned_path);
            planned.incumbent_from_tuned_row = true;
            planned.incumbent_row_us = row->row.us;
        }
        if (options.candidate_sample) {
            planned.candidates = family::sample_shape_catalogue(
                input.shape, *options.candidate_sample, options.seed);
        } else {
            planned.candidates = family::build_catalogue(input.shape);
        }
        auto found = std::find(planned.candidates.begin(), planned.candidates.end(), incumbent);
        if (found == planned.candidates.end()) {
            // An incumbent outside the catalogue (an imported aiter kernel) still races: the
            // tuner must prove a challenger beats what serves today.
            planned.candidates.push_back(incumbent);
            found = planned.candidates.end() - 1;
        }
        planned.incumbent_index = found - planned.candidates.begin();
    } catch (const family::UnsupportedShape& error) {
        planned.candidates.clear();
        planned.unsupported_reason = error.what();
    }
    return planned;
}

// A digest of every input shape's catalogue: a resume against a catalogue that has changed
// (another build) would mix measurements of different candidate sets.
std::string catalogue_digest(const std::vector<config::UntunedShape>& input) {
    std::uint32_t crc = 0;
    std::size_t candidates = 0;
    for (const auto& shape : input) {
        std::vector<family::Candidate> catalogue;
        try {
            catalogue = family::build_catalogue(shape.shape);
        } catch (const family::UnsupportedShape&) {
            continue;
        }
        for (const auto& candidate : catalogue) {
            const std::string key = family::candidate_key(candidate) + "\n";
            crc = wire::crc32(
                std::span(reinterpret_cast<const std::uint8_t*>(key.data()), key.size()), crc);
        }
        candidates += catalogue.size();
    }
    char text[48];
    std::snprintf(text, sizeof(text), "%zu candidates, crc32 %08x", candidates, crc);
    return text;
}

}  // namespace

std::map<std::string, std::string> run_fingerprint(const TuneOptions& options,
                                                   const std::vector<config::UntunedShape>& input,
                                                   const family::DeviceKey& device) {
    std::map<std::string, std::string> f;
    std::string shapes;
    for (const auto& shape : input) {
        if (!shapes.empty()) shapes += ' ';
        shapes += family::shape_key_string(shape.shape);
        if (shape.device)
            shapes += "@" + shape.device->gfx + "/" + std::to_string(shape.device->cu_num);
    }
    f["shapes"] = shapes;
    f["all"] = options.retune_all ? "yes" : "no";
    f["catalogue"] = catalogue_digest(input);
    f["backend"] = worker::backend_name(options.backend);
    f["device"] = device.gfx + "/" + std::to_string(device.cu_num);
    f["seed"] = std::to_string(options.seed);
    f["candidate_sample"] =
        options.candidate_sample ? std::to_string(*options.candidate_sample) : "catalogue";
    for (const tuning::NamedPolicyValue& field : tuning::named_policy_values(options.policy)) {
        // A word-valued flag as its word, so that a refused --resume names it as typed.
        if (field.changes_results)
            f[field.name] = field.word.empty() ? number(field.value) : field.word;
    }
    return f;
}

void check_resume_fingerprint(const std::string& journal_path,
                              const std::map<std::string, std::string>& in_journal,
                              const std::map<std::string, std::string>& now) {
    std::string differences;
    auto note = [&](const std::string& name, const std::string& was, const std::string& is) {
        differences += "\n  " + name + ": journal '" + was + "', now '" + is + "'";
    };
    for (const auto& [name, value] : in_journal) {
        auto it = now.find(name);
        if (it == now.end()) {
            note(name, value, "(absent)");
        } else if (it->second != value) {
            note(name, value, it->second);
        }
    }
    for (const auto& [name, value] : now) {
        if (in_journal.count(name) == 0) note(name, "(absent)", value);
    }
    if (!differences.empty()) {
        throw InputError(journal_path, 0, 0, "--resume",
                         "this journal belongs to another run; these differ:" + differences);
    }
}

RunPlan plan_run(const TuneOptions& options, const family::DeviceKey& device) {
    RunPlan plan;
    plan.device = device;
    const config::UntunedTable untuned = config::read_untuned_csv(options.untuned_path);
    plan.warnings = untuned.warnings;
    const config::TunedTable tuned = config::read_tuned_csv_if_exists(options.tuned_path);
    const config::TunedIndex index(tuned);
    config::ShapeSelection selection =
        config::select_shapes_to_tune(untuned, tuned, device, options.retune_all);
    plan.already_tuned = std::move(selection.already_tuned);
    plan.other_device = std::move(selection.other_device);

    plan.header.fingerprint = run_fingerprint(options, untuned.shapes, device);
    plan.header.tool_version = std::string(fhmoe::version());
    plan.header.started_unix_ns = unix_ns_now();
    for (const auto& shape : selection.to_tune) {
        plan.header.shapes.push_back(plan_shape(options, shape, index, device, options.tuned_path));
    }
    return plan;
}

}  // namespace fhmoe::cluster
