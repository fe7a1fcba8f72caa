#include "evidence/evidence_generator.hpp"

#include <algorithm>
#include <random>
#include <string>

#include "fhmoe/tuning/status.hpp"

namespace fhmoe::evidence::testing {
namespace {

using tuning::Status;

constexpr Status kFailures[] = {Status::mismatch, Status::unsupported, Status::crash,
                                Status::timeout,  Status::oom_runtime, Status::oom_preflight};

// Decision kinds cycle with the shape index; pending shapes get no decision row.
constexpr Decision kKinds[] = {Decision::promote, Decision::retain, Decision::incomplete,
                               Decision::all_failed, Decision::pending};

class Generator {
public:
    explicit Generator(const GeneratorOptions& options)
        : options_(options), random_(options.seed) {}

    RunEvidence run() {
        RunEvidence evidence;
        evidence.provenance = provenance();
        for (int i = 0; i < options_.shapes; ++i) add_shape(evidence, i);
        return evidence;
    }

private:
    double uniform(double low, double high) {
        return std::uniform_real_distribution<double>(low, high)(random_);
    }
    int integer(int low, int high) {
        return std::uniform_int_distribution<int>(low, high)(random_);
    }

    Provenance provenance() {
        Provenance p;
        p.tool_version = "0.1.0";
        p.git_revision = "41d9ec9";
        p.command_line = {"fhmoe_tune_mpi",       "--backend", "cpu", "--iters", "101", "--untuned",
                          "configs/ci shapes.csv"};
        p.backend = "cpu";
        p.seed = options_.seed;
        p.started_unix = 1'700'000'000 + integer(0, 86'400);
        p.finished_unix = p.started_unix + integer(60, 3600);
        p.exit_status = 1;
        p.complete = true;
        p.policy = {{"warmup", 5},      {"iters", 101},
                    {"errRatio", 0.05}, {"min_improvement_pct", 3.0},
                    {"finalists", 4},   {"rounds", 5}};
        for (int rank = 0; rank < options_.ranks; ++rank) {
            p.ranks.push_back(RankInfo{rank, "node" + std::to_string(rank / 2), -1,
                                       "cpu (16 threads)", "", rank % 2 == 0 ? "" : "libgomp 12"});
        }
        return p;
    }

    Status status_for(Decision kind, int candidate, int count) {
        // Incomplete shapes sweep the eight statuses first, so every one appears.
        if (kind == Decision::incomplete &&
            candidate < static_cast<int>(tuning::all_statuses.size())) {
            return tuning::all_statuses[static_cast<std::size_t>(candidate)];
        }
        if (kind == Decision::all_failed) return kFailures[integer(0, 5)];
        if (kind == Decision::incomplete && candidate == count - 1) return Status::not_run;
        if (candidate < 3) return Status::ok;  // enough ok ones to race
        const int draw = integer(0, 9);
        return draw < 7 ? Status::ok : kFailures[integer(0, 5)];
    }

    void add_shape(RunEvidence& evidence, int index) {
        const auto shape_id = static_cast<std::uint32_t>(evidence.shapes.size());
        const Decision kind = kKinds[index % 5];
        ShapeRecord shape;
        shape.device = family::DeviceKey{"cpu", 16};
        family::ShapeKey& key = shape.key;
        key.token = 1 + index * 37 + integer(0, 30);
        key.model_dim = index % 2 == 0 ? 512 : 7168;
        key.inter_dim = index % 2 == 0 ? 128 : 384;
        key.expert = index % 2 == 0 ? 17 : 385;
        key.topk = index % 2 == 0 ? 5 : 7;
        key.shared_expert_id = key.expert - 1;
        key.gate_mode = index % 3 == 0 ? family::GateMode::separated : family::GateMode::interleave;
        shape.shape_key = family::shape_key_string(key);
        const int count = kind == Decision::incomplete ? integer(8, 14) : integer(4, 14);
        shape.candidate_count = static_cast<std::uint32_t>(count);
        evidence.shapes.push_back(shape);

        std::vector<std::size_t> ok_rows;
        for (int c = 0; c < count; ++c) {
            CandidateRecord record;
            record.shape_id = shape_id;
            tuning::CandidateResult& r = record.result;
            r.shape_key = shape.shape_key;
            const int block_m = 16 << (c % 4);
            r.candidate = tuning::CandidateId{
                block_m,
                "fhmoe_s1_t" + std::to_string(block_m) + "x64x256_w" + std::to_string(1 + c % 4) +
                    (c % 2 ? "_gui" : "_gus") + (c % 3 == 0 ? "_fp8" : ""),
                "fhmoe_s2_t" + std::to_string(block_m) + "x128x128_" +
                    (c % 2 ? "atomic" : "reduce_persist") + "_v" + std::to_string(c)};
            r.status = status_for(kind, c, count);
            r.where = tuning::MeasuredOn{c % options_.ranks,
                                         "node" + std::to_string(c % options_.ranks / 2),
                                         -1,
                                         "cpu (16 threads)",
                                         "",
                                         4000 + integer(0, 999)};
            r.chunk = c / 4;
            r.attempt = r.status == Status::crash ? 1u : 0u;
            r.fault_injected = r.status == Status::crash && c % 2 == 0;
            r.started_unix_ns = (evidence.provenance.started_unix + c) * 1'000'000'000LL + c;
            r.finished_unix_ns = r.started_unix_ns + integer(1'000, 9'000'000);
            if (r.status == Status::ok || r.status == Status::mismatch) {
                const double mean = uniform(20.0, 400.0);
                r.timing = tuning::TimingStats{101,
                                               static_cast<std::uint32_t>(integer(90, 101)),
                                               mean,
                                               mean * uniform(0.97, 1.0),
                                               mean * uniform(0.005, 0.03),
                                               0.0,
                                               mean * 0.95,
                                               mean * 1.2};
                r.timing.stderr_us = r.timing.stddev_us / 10.0;
                r.stages = tuning::StageSplit{mean * 0.05, mean * 0.1, mean * 0.5, mean * 0.3,
                                              c % 2 ? 0.0 : mean * 0.05};
                r.error = tuning::ErrorMetrics{uniform(0.0, 0.04), uniform(0.0, 1e-4),
                                               uniform(0.0, 0.1), false};
            }
            if (r.status == Status::mismatch) {
                r.error.mismatch_fraction = uniform(0.06, 1.0);
                r.error.catastrophic = c % 2 == 0;
                r.detail = "mismatch_fraction " + std::to_string(r.error.mismatch_fraction) +
                           " > errRatio 0.05";
            } else if (r.status == Status::crash) {
                r.detail = "worker pid " + std::to_string(r.where.worker_pid) +
                           " killed by signal 11 (SIGSEGV), \"illegal address\"\nat stage2";
            } else if (r.status == Status::timeout) {
                r.detail = "passed its 60 s deadline; worker killed";
            } else if (r.status == Status::unsupported) {
                r.detail = "LDS 81920 B > 65536 B, tile ‘" + std::to_string(block_m) + "×256’";
            } else if (r.status == Status::oom_runtime || r.status == Status::oom_preflight) {
                r.detail = "needs 1.7 GiB, 0.9 GiB free";
            } else if (r.status == Status::not_run) {
                r.detail = "behind a fault; a resume retries it";
            }
            if (r.status == Status::ok) {
                ok_rows.push_back(evidence.candidates.size());
                if (index % 4 == 3) {
                    record.ratio_basis = RatioBasis::other_chunks_incumbent;
                } else {
                    record.ratio_basis = RatioBasis::same_chunk_incumbent;
                }
                record.relative_to_incumbent = uniform(0.8, 1.3);
            }
            evidence.candidates.push_back(std::move(record));
        }
        if (kind == Decision::pending) return;
        add_race_and_decision(evidence, shape_id, kind, ok_rows);
    }

    void add_race_and_decision(RunEvidence& evidence, std::uint32_t shape_id, Decision kind,
                               std::vector<std::size_t> ok_rows) {
        DecisionRecord decision;
        decision.shape_id = shape_id;
        decision.decision = kind;
        if (kind == Decision::incomplete || kind == Decision::all_failed) {
            decision.reason = kind == Decision::incomplete
                                  ? "coverage: 1 candidate not_run; nothing published"
                                  : "every candidate failed; nothing to publish";
            evidence.decisions.push_back(decision);
            return;
        }
        std::sort(ok_rows.begin(), ok_rows.end(), [&](std::size_t a, std::size_t b) {
            return evidence.candidates[a].result.timing.mean_us <
                   evidence.candidates[b].result.timing.mean_us;
        });
        // The slowest ok candidate plays the incumbent; every other promoted shape has none.
        const bool has_incumbent = kind == Decision::retain || shape_id % 2 == 0;
        const std::size_t finalists =
            std::min<std::size_t>(ok_rows.size() - (has_incumbent ? 1 : 0), 3);
        std::vector<std::pair<std::string, double>> contenders;
        for (std::size_t f = 0; f < finalists; ++f) {
            const auto& r = evidence.candidates[ok_rows[f]].result;
            contenders.emplace_back(r.candidate.key(), r.timing.mean_us);
        }
        if (has_incumbent) {
            const auto& r = evidence.candidates[ok_rows.back()].result;
            // A retained incumbent is about as fast as the best challenger.
            const double time = kind == Decision::retain
                                    ? contenders.front().second * uniform(0.99, 1.02)
                                    : r.timing.mean_us;
            contenders.emplace_back(r.candidate.key(), time);
        }
        const std::uint32_t rounds = 5;
        std::vector<double> sums(contenders.size(), 0.0);
        for (std::uint32_t round = 0; round < rounds; ++round) {
            for (std::size_t c = 0; c < contenders.size(); ++c) {
                const double time = contenders[c].second * uniform(0.99, 1.01);
                sums[c] += time;
                evidence.race.push_back(RaceSample{shape_id, contenders[c].first, round, time,
                                                   has_incumbent && c + 1 == contenders.size()});
            }
        }
        decision.best_challenger_key = contenders.front().first;
        decision.best_challenger_us = sums.front() / rounds;
        decision.best_challenger_stderr_us = decision.best_challenger_us * 0.002;
        decision.bar_pct = 3.0;
        decision.noise_floor_pct = uniform(0.1, 2.0);
        if (has_incumbent) {
            decision.incumbent_key = contenders.back().first;
            decision.incumbent_us = sums.back() / rounds;
            decision.incumbent_stderr_us = decision.incumbent_us * 0.002;
            decision.margin_pct = (decision.incumbent_us - decision.best_challenger_us) /
                                  decision.incumbent_us * 100.0;
        }
        decision.reason = kind == Decision::promote ? "challenger clears the bar"
                                                    : "margin below the bar of 3.00%";
        evidence.decisions.push_back(decision);
    }

    GeneratorOptions options_;
    std::mt19937_64 random_;
};

}  // namespace

RunEvidence generate_evidence(const GeneratorOptions& options) { return Generator(options).run(); }

}  // namespace fhmoe::evidence::testing
