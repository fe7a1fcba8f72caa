#include "fhmoe_evidence/summary_report.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "fhmoe/evidence/evidence_diff.hpp"
#include "fhmoe/evidence/shape_rollup.hpp"
#include "fhmoe/wall_clock.hpp"
#include "fhmoe_evidence/text_table.hpp"

namespace fhmoe::evidence::cli {
namespace {

std::string utc_time(std::int64_t unix_seconds) {
    if (unix_seconds == 0) return "-";
    return format_utc(unix_seconds, "%Y-%m-%d %H:%M:%S UTC");
}

void print_provenance(const Provenance& p, std::ostream& out) {
    out << "run: fhmoe-tune " << p.tool_version << " (" << p.git_revision << "), backend "
        << p.backend << ", seed " << p.seed << ", " << p.ranks.size() << " ranks\n";
    out << "     started " << utc_time(p.started_unix) << ", finished " << utc_time(p.finished_unix)
        << ", "
        << (p.complete ? "exit status " + std::to_string(p.exit_status)
                       : std::string("checkpoint (run not finished)"))
        << '\n';
}

const DecisionRecord* decision_of(const RunEvidence& evidence, std::size_t shape_id) {
    for (const DecisionRecord& decision : evidence.decisions) {
        if (decision.shape_id == shape_id) return &decision;
    }
    return nullptr;
}

std::size_t race_samples_of(const RunEvidence& evidence, std::size_t shape_id) {
    return static_cast<std::size_t>(std::count_if(
        evidence.race.begin(), evidence.race.end(),
        [shape_id](const RaceSample& sample) { return sample.shape_id == shape_id; }));
}

// Per shape id: the candidates --search screen pruned (ok, timed by their screen only).
std::vector<std::size_t> pruned_by_shape(const RunEvidence& evidence) {
    std::vector<std::size_t> pruned(evidence.shapes.size(), 0);
    for (const CandidateRecord& c : evidence.candidates) {
        if (c.result.screen.pruned && c.shape_id < pruned.size()) ++pruned[c.shape_id];
    }
    return pruned;
}

std::string screen_column(const tuning::ScreenOutcome& screen) {
    if (!screen.screened) return "-";
    return std::string(screen.pruned ? "pruned" : "passed") + " " + screen.prune_bound + " " +
           fixed_or_dash(screen.prune_margin_pct, 2) + "% after " +
           std::to_string(screen.screen_runs);
}

}  // namespace

void print_summary(const RunEvidence& evidence, std::ostream& out) {
    print_provenance(evidence.provenance, out);
    out << '\n';
    std::vector<std::string> header = {"shape", "device", "cands"};
    for (tuning::Status status : tuning::all_statuses)
        header.emplace_back(tuning::to_string(status));
    // Of the ok ones, those --search screen pruned (timed by their screen only).
    header.emplace_back("pruned");
    // `published` names the role (incumbent / best_challenger), not a third key: what serving
    // uses is always one of the two keys beside it.
    for (const char* column : {"decision", "margin%", "bar%", "incumbent_us", "best_challenger_us",
                               "published", "incumbent", "best_challenger"}) {
        header.emplace_back(column);
    }
    TextTable table(header);
    const std::vector<ShapeRollup> rollups = roll_up_shapes(evidence);
    tuning::StatusCounts all_candidates;
    std::vector<std::size_t> decisions(std::size(all_decisions), 0);
    const std::vector<std::size_t> pruned = pruned_by_shape(evidence);
    std::size_t all_pruned = 0;
    for (std::size_t id = 0; id < evidence.shapes.size(); ++id) {
        const ShapeRecord& shape = evidence.shapes[id];
        std::vector<std::string> row = {
            shape.shape_key, shape.device.gfx + "/" + std::to_string(shape.device.cu_num),
            std::to_string(shape.candidate_count)};
        for (tuning::Status status : tuning::all_statuses) {
            row.push_back(std::to_string(rollups[id].status_counts[status]));
            for (std::size_t n = 0; n < rollups[id].status_counts[status]; ++n) {
                all_candidates.add(status);
            }
        }
        row.push_back(std::to_string(pruned[id]));
        all_pruned += pruned[id];
        ++decisions[static_cast<std::size_t>(rollups[id].decision)];
        row.emplace_back(to_string(rollups[id].decision));
        const DecisionRecord* decision = decision_of(evidence, id);
        const DecisionRecord none;
        const DecisionRecord& d = decision ? *decision : none;
        row.push_back(fixed_or_dash(d.margin_pct, 2));
        row.push_back(fixed_or_dash(d.bar_pct, 2));
        row.push_back(fixed_or_dash(d.incumbent_us, 3));
        row.push_back(fixed_or_dash(d.best_challenger_us, 3));
        row.emplace_back(to_string(published_role(d)));
        row.push_back(d.incumbent_key.empty() ? "-" : d.incumbent_key);
        row.push_back(d.best_challenger_key.empty() ? "-" : d.best_challenger_key);
        table.add_row(std::move(row));
    }
    table.print(out);
    out << '\n' << evidence.shapes.size() << " shapes:";
    for (Decision decision : all_decisions) {
        out << ' ' << to_string(decision) << ' ' << decisions[static_cast<std::size_t>(decision)];
    }
    out << '\n' << all_candidates.total() << " candidates:";
    for (tuning::Status status : tuning::all_statuses) {
        out << ' ' << tuning::to_string(status) << ' ' << all_candidates[status];
    }
    out << " (pruned by their screen " << all_pruned << ")\n";
}

bool print_shape(const RunEvidence& evidence, const std::string& shape, std::ostream& out) {
    bool found = false;
    for (std::size_t id = 0; id < evidence.shapes.size(); ++id) {
        const ShapeRecord& record = evidence.shapes[id];
        if (record.shape_key != shape && shape_identity(record) != shape) continue;
        if (found) out << '\n';
        found = true;
        const family::ShapeKey& k = record.key;
        out << "shape " << shape_identity(record) << ": token " << k.token << " (padded "
            << family::padded_token(k.token) << "), model_dim " << k.model_dim << ", inter_dim "
            << k.inter_dim << ", expert " << k.expert << ", topk " << k.topk << ", "
            << family::to_aiter_string(k.gate_mode) << ", " << record.candidate_count
            << " candidates planned\n";
        if (const DecisionRecord* d = decision_of(evidence, id)) {
            out << "decision " << to_string(d->decision) << ": " << d->reason << '\n';
            const std::string published = published_key(*d);
            out << "  published       " << (published.empty() ? "-" : published);
            if (!published.empty()) out << " (the " << to_string(published_role(*d)) << ")";
            out << '\n';
            // Race times when the shape raced; the incumbent's is its chunk mean otherwise.
            const bool raced = race_samples_of(evidence, id) > 0;
            const char* times = raced ? "race mean over rounds" : "chunk mean (no race)";
            if (!d->incumbent_key.empty()) {
                out << "  incumbent       " << d->incumbent_key << "  "
                    << fixed_or_dash(d->incumbent_us, 3) << " us (" << times << ")\n";
            }
            if (!d->best_challenger_key.empty()) {
                out << "  best_challenger " << d->best_challenger_key << "  "
                    << fixed_or_dash(d->best_challenger_us, 3) << " us (" << times << ")\n";
            }
            if (!std::isnan(d->bar_pct)) {
                out << "  margin " << fixed_or_dash(d->margin_pct, 2) << "%, bar "
                    << fixed_or_dash(d->bar_pct, 2) << "% (noise floor "
                    << fixed_or_dash(d->noise_floor_pct, 2) << "%)\n";
            }
            if (d->race_rank >= 0) {
                out << "  race on rank " << d->race_rank << " (" << d->race_host << ")";
                if (d->race_started_unix_ns > 0 &&
                    d->race_finished_unix_ns >= d->race_started_unix_ns) {
                    const double seconds =
                        static_cast<double>(d->race_finished_unix_ns - d->race_started_unix_ns) *
                        1e-9;
                    out << ", " << fixed_or_dash(seconds, 3) << " s";
                }
                out << '\n';
            }
        } else {
            out << "decision pending\n";
        }
        std::vector<const CandidateRecord*> rows;
        for (const CandidateRecord& c : evidence.candidates) {
            if (c.shape_id == id) rows.push_back(&c);
        }
        std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
            const bool a_ok = a->result.status == tuning::Status::ok;
            const bool b_ok = b->result.status == tuning::Status::ok;
            if (a_ok != b_ok) return a_ok;
            return a_ok && a->result.timing.mean_us < b->result.timing.mean_us;
        });
        // These are each candidate's own measurement in its chunk, the screening every
        // candidate gets; only the finalists also raced (the times above). `screen`: what
        // --search screen did (pruned or passed, the bound, its margin, after how many runs);
        // a pruned candidate's times are its screen's.
        out << "candidates (screening: each one's own chunk measurement, not the race):\n";
        TextTable table({"candidate", "status", "mean_us", "stderr_us", "median_us", "vs_incumbent",
                         "runs", "screen", "rank", "host", "device", "attempt", "detail"});
        for (const CandidateRecord* c : rows) {
            const tuning::CandidateResult& r = c->result;
            const bool ok = r.status == tuning::Status::ok;
            table.add_row({r.candidate.key(), std::string(tuning::to_string(r.status)),
                           ok ? fixed_or_dash(r.timing.mean_us, 3) : "-",
                           ok ? fixed_or_dash(r.timing.stderr_us, 3) : "-",
                           ok ? fixed_or_dash(r.timing.median_us, 3) : "-",
                           fixed_or_dash(c->relative_to_incumbent, 4),
                           ok ? std::to_string(r.timing.n_raw) : "-", screen_column(r.screen),
                           std::to_string(r.where.rank), r.where.host, r.where.device_name,
                           std::to_string(r.attempt), r.detail.empty() ? "-" : r.detail});
        }
        table.print(out);
    }
    return found;
}

}  // namespace fhmoe::evidence::cli
