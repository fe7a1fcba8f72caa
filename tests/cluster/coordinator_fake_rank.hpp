#pragma once

// A MeasuringRank for the Coordinator's tests: it "measures" what it is given the moment the
// Coordinator next asks for reports, as the test scripts it (by default every candidate ok,
// in a time the test chooses), and remembers what it was asked to do. What a real worker
// does (deadlines, restarts) is the supervisor's and is tested there; this stands in only
// for where the work runs, the one thing the Coordinator must not care about.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/measuring_rank.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::cluster::testing {

// Planned index 0 is the clear best challenger; everything else, the incumbent included, ties.
inline double default_time_us(std::int64_t planned_index) {
    return planned_index == 0 ? 50.0 : 100.0;
}

inline supervisor::CandidateMeasured measured(const supervisor::Chunk& chunk,
                                              const supervisor::PlannedCandidate& candidate,
                                              tuning::Status status, double mean_us) {
    supervisor::CandidateMeasured m;
    m.chunk_id = chunk.chunk_id;
    m.planned_index = candidate.planned_index;
    m.result.shape_key = family::shape_key_string(chunk.shape);
    m.result.candidate = candidate.id;
    m.result.status = status;
    if (status == tuning::Status::ok) {
        m.result.timing.mean_us = m.result.timing.median_us = mean_us;
        m.result.timing.stderr_us = mean_us / 100.0;
        m.result.timing.n_raw = m.result.timing.n_kept = 10;
    }
    m.result.chunk = chunk.chunk_id;
    return m;
}

class FakeRank final : public MeasuringRank {
public:
    // Scripts; the defaults measure everything ok.
    std::function<void(FakeRank&, const supervisor::Chunk&)> on_chunk = measure_all;
    std::function<void(FakeRank&, const supervisor::Race&)> on_race = race_all;
    // By default an interrupt ends the held chunk (if any): its candidates come back not_run.
    std::function<void(FakeRank&)> on_interrupt = stop_held_chunk;
    std::function<double(std::int64_t planned_index)> time_us = default_time_us;
    std::uint64_t digest = 0x5eed;
    bool room = true;

    // What the Coordinator did to this rank.
    std::vector<supervisor::Chunk> chunks;
    std::vector<supervisor::Race> races;
    int interrupts = 0;
    // A chunk the script kept without reporting it done.
    std::optional<supervisor::Chunk> held;

    // A rank other than 0 says hello before it is given work.
    void join(const std::string& host) { report(RankJoined{host, "sim", "none"}); }
    // In place: a RankReport built and then moved trips GCC 12's maybe-uninitialized.
    template <typename Report>
    void report(Report&& report) {
        pending_.emplace_back(std::forward<Report>(report));
    }
    void report_event(supervisor::Event event) {
        pending_.emplace_back(std::in_place_type<supervisor::Event>, std::move(event));
    }

    bool has_room() const override { return room; }
    void start_chunk(supervisor::Chunk chunk) override {
        chunks.push_back(chunk);
        on_chunk(*this, chunk);
    }
    void start_race(supervisor::Race race) override {
        races.push_back(race);
        on_race(*this, race);
    }
    void interrupt() override {
        ++interrupts;
        on_interrupt(*this);
    }
    std::vector<RankReport> take_reports() override { return std::exchange(pending_, {}); }
    int wait_fd() const override { return -1; }

    void report_loaded(const supervisor::Chunk& chunk) {
        supervisor::ShapeLoaded loaded;
        loaded.shape_key = family::shape_key_string(chunk.shape);
        loaded.reference_digest = digest;
        report_event(loaded);
    }

    static void measure_all(FakeRank& rank, const supervisor::Chunk& chunk) {
        rank.report_loaded(chunk);
        for (const auto& candidate : chunk.candidates) {
            rank.report_event(measured(chunk, candidate, tuning::Status::ok,
                                       rank.time_us(candidate.planned_index)));
        }
        rank.report_event(supervisor::ChunkDone{chunk.chunk_id, false});
    }

    static void race_all(FakeRank& rank, const supervisor::Race& race) {
        supervisor::RaceDone done;
        done.race_id = race.race_id;
        done.rounds_completed = race.rounds;
        for (const auto& contender : race.contenders) {
            supervisor::ContenderOutcome outcome;
            outcome.planned_index = contender.planned_index;
            outcome.id = contender.id;
            outcome.status = tuning::Status::ok;
            const double t = rank.time_us(contender.planned_index);
            for (std::uint32_t round = 0; round < race.rounds; ++round) {
                std::vector<double> samples;
                for (int i = 0; i < 10; ++i) samples.push_back(t * (1.0 + 0.001 * (i % 3)));
                outcome.samples_us.push_back(std::move(samples));
            }
            done.contenders.push_back(std::move(outcome));
        }
        rank.report_event(done);
    }

    static void hold_chunk(FakeRank& rank, const supervisor::Chunk& chunk) { rank.held = chunk; }

    static void stop_held_chunk(FakeRank& rank) {
        if (!rank.held) return;
        for (const auto& candidate : rank.held->candidates) {
            rank.report_event(measured(*rank.held, candidate, tuning::Status::not_run, 0.0));
        }
        rank.report_event(supervisor::ChunkDone{rank.held->chunk_id, true});
        rank.held.reset();
    }

    static void ignore_interrupt(FakeRank&) {}

private:
    std::vector<RankReport> pending_;
};

}  // namespace fhmoe::cluster::testing
