#include "fhmoe/cluster/run_evidence_builder.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/run_state/shape_progress.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive_builder.hpp"
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

// One row per planned candidate of the shape: the merged result, with its time relative to
// the incumbent.
std::vector<evidence::CandidateRecord> candidate_rows(std::uint32_t shape_id,
                                                      const ShapeProgress& shape) {
    const tuning::IncumbentByChunk incumbents = shape.incumbent_by_chunk();
    std::vector<evidence::CandidateRecord> rows;
    rows.reserve(shape.planned().candidates.size());
    for (auto& result : shape.merged_results()) {
        evidence::CandidateRecord row;
        row.shape_id = shape_id;
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
        row.result = std::move(result);
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<evidence::RaceSample> race_rows(std::uint32_t shape_id, const ShapeProgress& shape) {
    std::vector<evidence::RaceSample> rows;
    if (!shape.race) return rows;
    for (const auto& contender : shape.race->contenders) {
        for (std::size_t round = 0; round < contender.samples_us.size(); ++round) {
            if (contender.samples_us[round].empty()) continue;
            evidence::RaceSample sample;
            sample.shape_id = shape_id;
            sample.candidate_key = contender.id.key();
            sample.round = static_cast<std::uint32_t>(round);
            sample.time_us = tuning::summarize_samples(contender.samples_us[round]).mean_us;
            sample.is_incumbent = contender.is_incumbent;
            rows.push_back(std::move(sample));
        }
    }
    return rows;
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
    if (d.best_challenger) row.best_challenger_key = d.best_challenger->key();
    row.best_challenger_us = or_absent(d.best_challenger_us);
    row.best_challenger_stderr_us = or_absent(d.best_challenger_stderr_us);
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

// What the archive says of one shape, made when nothing more about it is to be folded.
struct FoldedShape {
    std::uint32_t shape_id = 0;
    std::vector<evidence::CandidateRecord> candidates;
    std::vector<evidence::RaceSample> race;
    std::optional<evidence::DecisionRecord> decision;
};

// The shape a record is about, for the records the fold acts on; none for the others.
const std::string* shape_key_of(const evidence::JournalRecord& record) {
    if (const auto* r = std::get_if<evidence::CandidateResultRecord>(&record))
        return &r->result.shape_key;
    if (const auto* r = std::get_if<evidence::RaceOutcomeRecord>(&record)) return &r->shape_key;
    if (const auto* r = std::get_if<evidence::ShapeDecision>(&record)) return &r->shape_key;
    return nullptr;
}

constexpr std::int64_t kNoRecord = -1;

// Where, in a journal, the fold has seen everything about each shape: the position (0 for
// the first record after the header) of the last record about it, and of the last session
// start (which drops an earlier `incomplete` decision). Read in a pass of its own, so that
// the fold can write and free each shape as soon as its last record is folded.
struct LastRecords {
    std::size_t records = 0;  // the fold reads no further: the journal as this pass saw it
    std::map<std::string, std::int64_t> of_shape;  // by shape key
    std::int64_t session_started = kNoRecord;
};

LastRecords find_last_records(const std::string& journal_path) {
    LastRecords last;
    evidence::for_each_journal_record(
        journal_path, {},  // the header is not needed: shapes are known by their keys
        [&](evidence::JournalRecord&& record) {
            const auto position = static_cast<std::int64_t>(last.records++);
            if (std::holds_alternative<evidence::SessionStartedRecord>(record)) {
                last.session_started = position;
            } else if (const std::string* key = shape_key_of(record)) {
                last.of_shape[*key] = position;
            }
        });
    return last;
}

// The run as rank 0 knew it after the records folded so far. A shape's per-candidate state
// exists only between its first and its last record (when the last records are known):
// then it is handed to `emit` and freed, so the fold holds the shapes in flight, not the
// night (issue #12, item 9). Without last records every shape is held to the end, which
// gives the same rows.
class JournalFold {
public:
    using Emit = std::function<void(FoldedShape&&)>;

    JournalFold(const evidence::RunHeader& header, std::optional<LastRecords> last, Emit emit)
        : header_(header), last_(std::move(last)), emit_(std::move(emit)) {
        shapes_.resize(header.shapes.size());
        emitted_.assign(header.shapes.size(), false);
        last_of_shape_.assign(header.shapes.size(), kNoRecord);
        for (std::size_t i = 0; i < header.shapes.size(); ++i) {
            const std::string key = family::shape_key_string(header.shapes[i].shape);
            index_[key] = i;
            if (last_) {
                const auto found = last_->of_shape.find(key);
                if (found != last_->of_shape.end()) last_of_shape_[i] = found->second;
            }
        }
        run_.provenance.tool_version = header.tool_version;
        run_.provenance.git_revision = std::string(git_revision_of(header.tool_version));
    }

    std::size_t most_shapes_held() const { return most_held_; }

    // False once the journal as the last-records pass saw it has been folded.
    bool wants_more() const { return !last_ || position_ < last_->records; }

    void add(const evidence::JournalRecord& record) {
        std::visit([&](const auto& typed) { add_typed(typed); }, record);
        if (last_) {
            if (const std::string* key = shape_key_of(record)) {
                const std::size_t id = shape_id(*key);
                if (last_of_shape_[id] == static_cast<std::int64_t>(position_)) emit_shape(id);
            }
        }
        ++position_;
    }

    // Emits every shape not emitted yet, in shape order, and returns the provenance and the
    // shapes table (each shape with the latest session's device).
    evidence::RunEvidence finish() {
        for (std::size_t i = 0; i < shapes_.size(); ++i) {
            if (!emitted_[i]) emit_shape(i);
        }
        run_.shapes.reserve(header_.shapes.size());
        for (const auto& planned : header_.shapes) {
            run_.shapes.push_back(evidence::ShapeRecord{
                device_, planned.shape, family::shape_key_string(planned.shape),
                static_cast<std::uint32_t>(planned.candidates.size())});
        }
        return std::move(run_);
    }

private:
    void add_typed(const evidence::SessionStartedRecord& r) {
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
        // A shape already emitted had its decision judged against this record (emit_shape).
        for (auto& shape : shapes_) {
            if (shape && shape->decision &&
                shape->decision->kind == evidence::DecisionKind::incomplete) {
                shape->decision.reset();
            }
        }
    }
    void add_typed(const evidence::RankJoinedRecord& r) {
        auto& ranks = run_.provenance.ranks;
        if (static_cast<std::size_t>(r.rank) >= ranks.size()) {
            throw Error("journal: rank " + std::to_string(r.rank) + " joined a session of " +
                        std::to_string(ranks.size()) + " ranks");
        }
        ranks[static_cast<std::size_t>(r.rank)].host = r.host;
        ranks[static_cast<std::size_t>(r.rank)].driver = r.binding;
    }
    void add_typed(const evidence::SessionEndedRecord& r) {
        run_.provenance.finished_unix = r.finished_unix;
        run_.provenance.exit_status = r.exit_status;
        run_.provenance.complete = true;
    }
    void add_typed(const evidence::CandidateResultRecord& r) {
        shape(r.result.shape_key).add_result(r);
    }
    void add_typed(const evidence::RaceOutcomeRecord& r) {
        if (!r.stopped) shape(r.shape_key).race = r;
    }
    void add_typed(const evidence::ShapeDecision& r) { shape(r.shape_key).decision = r; }
    // Digests and load failures decide nothing the archive reports.
    void add_typed(const evidence::ShapeLoadedRecord&) {}
    void add_typed(const evidence::ShapeLoadFailedRecord&) {}
    void add_typed(const evidence::RunHeader&) { throw Error("journal: a second run header"); }

    std::size_t shape_id(const std::string& key) const {
        const auto it = index_.find(key);
        if (it == index_.end()) throw Error("journal: a record for unplanned shape " + key);
        return it->second;
    }

    // The shape's state, made at its first record: a shape not yet begun costs nothing.
    ShapeProgress& shape(const std::string& key) {
        const std::size_t id = shape_id(key);
        FHMOE_CHECK(!emitted_[id], "no record of a shape follows its last one");
        if (!shapes_[id]) hold(id);
        return *shapes_[id];
    }

    void hold(std::size_t id) {
        shapes_[id].emplace(header_.shapes[id]);
        most_held_ = std::max(most_held_, ++held_);
    }

    void emit_shape(std::size_t id) {
        if (!shapes_[id]) hold(id);
        const ShapeProgress& shape = *shapes_[id];
        FoldedShape folded;
        folded.shape_id = static_cast<std::uint32_t>(id);
        folded.candidates = candidate_rows(folded.shape_id, shape);
        folded.race = race_rows(folded.shape_id, shape);
        std::optional<evidence::ShapeDecision> decision = shape.decision;
        // A session started after the shape's last record drops its incomplete decision,
        // as it would have, had the shape been held until then.
        if (decision && decision->kind == evidence::DecisionKind::incomplete && last_ &&
            last_->session_started > last_of_shape_[id]) {
            decision.reset();
        }
        if (decision)
            folded.decision = archive_decision_row(folded.shape_id, *decision, shape.race);
        shapes_[id].reset();
        --held_;
        emitted_[id] = true;
        emit_(std::move(folded));
    }

    const evidence::RunHeader& header_;
    std::optional<LastRecords> last_;
    std::vector<std::int64_t> last_of_shape_;  // by shape id, from last_
    Emit emit_;
    std::vector<std::optional<ShapeProgress>> shapes_;
    std::vector<bool> emitted_;
    std::map<std::string, std::size_t> index_;
    std::size_t position_ = 0;
    std::size_t held_ = 0;       // shapes whose per-candidate state is held now
    std::size_t most_held_ = 0;  // ... at most, so far
    family::DeviceKey device_;
    evidence::RunEvidence run_;
};

}  // namespace

evidence::RunEvidence build_run_evidence(const evidence::JournalContents& journal) {
    // Without last records, shapes are emitted in shape order: the rows go straight on.
    std::vector<FoldedShape> folded;
    JournalFold fold(journal.header, std::nullopt,
                     [&](FoldedShape&& shape) { folded.push_back(std::move(shape)); });
    for (const auto& record : journal.records) fold.add(record);
    evidence::RunEvidence run = fold.finish();
    for (auto& shape : folded) {
        for (auto& row : shape.candidates) run.candidates.push_back(std::move(row));
        for (auto& sample : shape.race) run.race.push_back(std::move(sample));
        if (shape.decision) run.decisions.push_back(std::move(*shape.decision));
    }
    return run;
}

StreamedArchive write_archive_from_journal(const std::string& journal_path,
                                           const std::string& archive_path,
                                           const evidence::RunHeader* plan) {
    LastRecords last = find_last_records(journal_path);
    std::optional<evidence::RunHeader> read_plan;  // when the caller holds none
    const evidence::RunHeader* header = nullptr;   // the fold's shapes point into it
    std::optional<evidence::ArchiveBuilder> archive;
    std::vector<std::size_t> first_row;  // of each shape in the candidates table
    // Race and decision rows are few: kept until the end, written in shape order.
    std::vector<std::vector<evidence::RaceSample>> race;
    std::vector<std::optional<evidence::DecisionRecord>> decisions;
    std::optional<JournalFold> fold;
    const auto emit = [&](FoldedShape&& shape) {
        const auto expected = header->shapes[shape.shape_id].candidates.size();
        FHMOE_CHECK(shape.candidates.size() == expected, "one row per planned candidate");
        archive->write_candidates(first_row[shape.shape_id], shape.candidates);
        race[shape.shape_id] = std::move(shape.race);
        decisions[shape.shape_id] = std::move(shape.decision);
    };
    const auto start = [&](const evidence::RunHeader& planned) {
        header = &planned;
        std::vector<std::string> keys;
        std::size_t rows = 0;
        for (const auto& shape : planned.shapes) {
            keys.push_back(family::shape_key_string(shape.shape));
            first_row.push_back(rows);
            rows += shape.candidates.size();
        }
        race.resize(planned.shapes.size());
        decisions.resize(planned.shapes.size());
        archive.emplace(archive_path, std::move(keys), rows);
        fold.emplace(planned, std::move(last), emit);
    };
    if (plan != nullptr) start(*plan);
    std::function<void(evidence::RunHeader &&)> on_header;  // empty: the header is not decoded
    if (plan == nullptr) {
        on_header = [&](evidence::RunHeader&& read) {
            read_plan = std::move(read);
            start(*read_plan);
        };
    }
    evidence::for_each_journal_record(journal_path, on_header,
                                      [&](evidence::JournalRecord&& record) {
                                          if (fold->wants_more()) fold->add(record);
                                      });
    const evidence::RunEvidence run = fold->finish();
    for (auto& samples : race) {
        for (auto& sample : samples) archive->add_race(std::move(sample));
    }
    for (auto& decision : decisions) {
        if (decision) archive->add_decision(std::move(*decision));
    }
    archive->finish(run.provenance, run.shapes);
    return StreamedArchive{fold->most_shapes_held()};
}

}  // namespace fhmoe::cluster
