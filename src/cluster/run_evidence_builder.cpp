#include "fhmoe/cluster/run_evidence_builder.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fhmoe/cluster/shape_progress.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/tuning/relative_ranking.hpp"
#include "fhmoe/tuning/statistics.hpp"
#include "fhmoe/version.hpp"

namespace fhmoe::cluster {
namespace {

evidence::Decision archive_decision(evidence::DecisionKind kind) {
    switch (kind) {
        case evidence::DecisionKind::promote: return evidence::Decision::promote;
        case evidence::DecisionKind::retain: return evidence::Decision::retain;
        case evidence::DecisionKind::incomplete: return evidence::Decision::incomplete;
        case evidence::DecisionKind::all_failed: return evidence::Decision::all_failed;
    }
    return evidence::Decision::incomplete;
}

double or_absent(const std::optional<double>& value) { return value.value_or(evidence::kAbsent); }

void add_candidates(evidence::RunEvidence& run, std::uint32_t shape_id,
                    const ShapeProgress& shape) {
    const tuning::IncumbentByChunk incumbents = shape.incumbent_by_chunk();
    for (const auto& result : shape.merged_results()) {
        evidence::CandidateRecord row;
        row.shape_id = shape_id;
        row.result = result;
        if (result.status == tuning::Status::ok && !incumbents.empty() &&
            incumbents.count(result.chunk) != 0) {
            const auto relative = tuning::relative_to_incumbent(result, incumbents);
            if (relative && relative->basis != tuning::RankingBasis::absolute) {
                row.relative_to_incumbent = relative->score;
                row.ratio_basis = relative->basis == tuning::RankingBasis::same_chunk_incumbent
                                      ? evidence::RatioBasis::same_chunk_incumbent
                                      : evidence::RatioBasis::other_chunks_incumbent;
            }
        }
        run.candidates.push_back(std::move(row));
    }
}

void add_race(evidence::RunEvidence& run, std::uint32_t shape_id, const ShapeProgress& shape) {
    if (!shape.race) return;
    for (const auto& contender : shape.race->contenders) {
        for (std::size_t round = 0; round < contender.samples_us.size(); ++round) {
            if (contender.samples_us[round].empty()) continue;
            evidence::RaceSample sample;
            sample.shape_id = shape_id;
            sample.candidate_key = contender.id.key();
            sample.round = static_cast<std::uint32_t>(round);
            sample.time_us = tuning::summarize_samples(contender.samples_us[round]).mean_us;
            sample.is_incumbent = contender.is_incumbent;
            run.race.push_back(std::move(sample));
        }
    }
}

evidence::DecisionRecord archive_decision_row(
    std::uint32_t shape_id, const evidence::ShapeDecision& d,
    const std::optional<evidence::RaceOutcomeRecord>& race) {
    evidence::DecisionRecord row;
    row.shape_id = shape_id;
    row.decision = archive_decision(d.kind);
    row.incumbent_key = d.incumbent.key();
    row.incumbent_us = or_absent(d.incumbent_us);
    row.incumbent_stderr_us = or_absent(d.incumbent_stderr_us);
    if (d.challenger) row.winner_key = d.challenger->key();
    row.winner_us = or_absent(d.challenger_us);
    row.winner_stderr_us = or_absent(d.challenger_stderr_us);
    row.margin_pct = or_absent(d.margin_pct);
    if (d.kind == evidence::DecisionKind::promote || d.kind == evidence::DecisionKind::retain) {
        row.bar_pct = d.bar_pct;
        row.noise_floor_pct = d.noise_floor_pct;
    }
    row.reason = d.reason;
    if (race) {
        row.race_rank = race->device.rank;
        row.race_host = race->device.host;
        row.race_started_unix_ns = race->started_unix_ns;
        row.race_finished_unix_ns = race->finished_unix_ns;
    }
    return row;
}

// The run as rank 0 knew it after the records folded so far.
class JournalFold {
public:
    explicit JournalFold(const evidence::RunHeader& header) {
        shapes_.reserve(header.shapes.size());
        for (const auto& planned : header.shapes) {
            index_[family::shape_key_string(planned.shape)] = shapes_.size();
            shapes_.emplace_back(planned);
        }
        run_.provenance.tool_version = header.tool_version;
        run_.provenance.git_revision = std::string(git_revision_of(header.tool_version));
    }

    void add(const evidence::SessionStartedRecord& r) {
        auto& p = run_.provenance;
        p.tool_version = r.tool_version;
        p.git_revision = std::string(git_revision_of(r.tool_version));
        p.command_line = r.command_line;
        p.backend = r.backend;
        p.seed = r.seed;
        p.started_unix = r.started_unix;
        p.finished_unix = 0;
        p.exit_status = -1;
        p.complete = false;
        p.policy.clear();
        for (const auto& [name, value] : r.policy) p.policy.push_back({name, value});
        p.ranks.assign(static_cast<std::size_t>(r.world_size), evidence::RankInfo{});
        for (std::size_t rank = 0; rank < p.ranks.size(); ++rank) {
            p.ranks[rank].rank = static_cast<int>(rank);
            p.ranks[rank].device_name = r.backend;
        }
        device_ = r.device;
        // A resume retries what an earlier session could not decide (Coordinator::prepare).
        for (auto& shape : shapes_) {
            if (shape.decision && shape.decision->kind == evidence::DecisionKind::incomplete) {
                shape.decision.reset();
            }
        }
    }
    void add(const evidence::RankJoinedRecord& r) {
        auto& ranks = run_.provenance.ranks;
        if (static_cast<std::size_t>(r.rank) >= ranks.size()) {
            throw Error("journal: rank " + std::to_string(r.rank) + " joined a session of " +
                        std::to_string(ranks.size()) + " ranks");
        }
        ranks[static_cast<std::size_t>(r.rank)].host = r.host;
        ranks[static_cast<std::size_t>(r.rank)].driver = r.binding;
    }
    void add(const evidence::SessionEndedRecord& r) {
        run_.provenance.finished_unix = r.finished_unix;
        run_.provenance.exit_status = r.exit_status;
        run_.provenance.complete = true;
    }
    void add(const evidence::CandidateResultRecord& r) { shape(r.result.shape_key).add_result(r); }
    void add(const evidence::RaceOutcomeRecord& r) {
        if (!r.stopped) shape(r.shape_key).race = r;
    }
    void add(const evidence::ShapeDecision& r) { shape(r.shape_key).decision = r; }
    // Digests and load failures decide nothing the archive reports.
    void add(const evidence::ShapeLoadedRecord&) {}
    void add(const evidence::ShapeLoadFailedRecord&) {}
    void add(const evidence::RunHeader&) { throw Error("journal: a second run header"); }

    // Call once: each shape's merged state is moved out and freed as soon as its rows are
    // made, so the fold and the rows never both hold the whole night.
    evidence::RunEvidence take() {
        for (std::size_t i = 0; i < shapes_.size(); ++i) {
            const ShapeProgress shape = std::move(shapes_[i]);
            const auto shape_id = static_cast<std::uint32_t>(i);
            run_.shapes.push_back(evidence::ShapeRecord{
                device_, shape.planned().shape, shape.key(),
                static_cast<std::uint32_t>(shape.planned().candidates.size())});
            add_candidates(run_, shape_id, shape);
            add_race(run_, shape_id, shape);
            if (shape.decision)
                run_.decisions.push_back(
                    archive_decision_row(shape_id, *shape.decision, shape.race));
        }
        return std::move(run_);
    }

private:
    ShapeProgress& shape(const std::string& key) {
        const auto it = index_.find(key);
        if (it == index_.end()) throw Error("journal: a record for unplanned shape " + key);
        return shapes_[it->second];
    }

    std::vector<ShapeProgress> shapes_;
    std::map<std::string, std::size_t> index_;
    family::DeviceKey device_;
    evidence::RunEvidence run_;
};

}  // namespace

evidence::RunEvidence build_run_evidence(const evidence::JournalContents& journal) {
    JournalFold fold(journal.header);
    for (const auto& record : journal.records) {
        std::visit([&](const auto& typed) { fold.add(typed); }, record);
    }
    return fold.take();
}

evidence::RunEvidence build_run_evidence_from_journal(const std::string& path) {
    evidence::RunHeader header;  // the fold's shapes point into it: it outlives the fold
    std::optional<JournalFold> fold;
    evidence::for_each_journal_record(
        path,
        [&](evidence::RunHeader&& read) {
            header = std::move(read);
            fold.emplace(header);
        },
        [&](evidence::JournalRecord&& record) {
            std::visit([&](const auto& typed) { fold->add(typed); }, record);
        });
    return fold->take();
}

}  // namespace fhmoe::cluster
