// screen_quality: does --search screen publish what --search exhaustive publishes, and for how
// many fewer timed runs? The real tuner end to end: fhmoe_tune_mpi on the sim backend (its
// latency model: a smooth tile model, a fixed per-candidate personality, 2% lognormal noise
// per run; src/worker/sim_backend.cpp) over the DSV4 shapes of configs/untuned_fhmoe.csv,
// once per seed and search, then the two evidence archives of each seed compared shape by
// shape.
//
//   screen_quality [--seeds N] [--first-seed S] [--sample N] [--ranks R] [--check]
//                  [--tuner PATH] [--input CSV] [--keep DIR] [-- extra tuner flags...]
//   (defaults: 20 seeds from 1, the whole catalogue, 1 rank, this build's tuner and
//   configs/untuned_fhmoe.csv)
//
// Per seed one line: shapes, shapes whose published kernel is the same, shapes where it
// differs but the screen's kernel is within the noise floor of exhaustive's (their times
// relative to the incumbent as exhaustive measured them differ by at most the exhaustive
// race's noise_floor_pct), the candidates the screen pruned, and the timed runs of each search:
// every chunk measurement's warmup and timed runs (the incumbent's in every chunk included;
// the checked run, which both searches do once per candidate, is not counted), and the race
// runs (warmup + timed per contender per round) separately, since the race is the same
// procedure in both searches; then each search's chunks and the incumbent's share of its
// chunk runs (the incumbent is measured in full in every chunk, for the normalisation).
// The last line is for scripts:
//   screen_quality seeds=N shapes=S same_pct=X equivalent_pct=Y timed_run_ratio=Z
//   race_run_ratio=W exhaustive_incumbent_share=A screen_incumbent_share=B
// same_pct: shapes publishing the same kernel; equivalent_pct: the same or within the noise
// floor; timed_run_ratio: screen's chunk timed runs over exhaustive's; *_incumbent_share: the
// incumbent's chunk runs over all chunk runs of that search.
//
// --check (a ctest): 2 seeds, 300 sampled candidates per shape; exits 1 unless
// equivalent_pct >= 99 and timed_run_ratio <= 0.2 (issue #16's bar) and
// screen_incumbent_share <= 0.04. Seeded: the same numbers every run.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/evidence/archive_reader.hpp"
#include "fhmoe/evidence/journal_reader.hpp"
#include "fhmoe/evidence/run_evidence.hpp"

namespace {

namespace fs = std::filesystem;
using namespace fhmoe::evidence;

struct Settings {
    int seeds = 20;
    int first_seed = 1;
    std::optional<int> sample;  // none: the whole catalogue
    int ranks = 1;
    bool check = false;
    std::string tuner = FHMOE_TUNE_MPI_PATH;
    std::string input = std::string(FHMOE_SOURCE_DIR) + "/configs/untuned_fhmoe.csv";
    std::string keep;  // empty: a temporary directory, removed at the end
    std::vector<std::string> extra;
};

// issue #16's bar, which --check asserts.
constexpr double kMinEquivalentPct = 99.0;
constexpr double kMaxTimedRunRatio = 0.2;
// The incumbent's share of the screen's chunk runs (issue #16: "bound its share"). At 64
// candidates a chunk it was 10.5% on --check's sample; the screen-sized default chunk
// (cluster/run_state/chunk_planner.hpp) makes a shape of 300 one chunk there, 2.6%.
constexpr double kMaxScreenIncumbentShare = 0.04;

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// A tuner run's journal: every chunk measurement (the archive keeps one merged row per
// candidate, so of the incumbent's measurements in every chunk only one is there).
fs::path journal_path(const fs::path& dir) { return dir / "journal"; }

// One tuner run; returns its archive. Exits 1 (with the log's tail) if the tuner failed.
RunEvidence run_tuner(const Settings& s, const fs::path& dir, int seed, const char* search) {
    fs::create_directories(dir);
    std::string command =
        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec "
        "--allow-run-as-root --oversubscribe -n " +
        std::to_string(s.ranks) + " " + quoted(s.tuner) + " -i " + quoted(s.input) + " -o " +
        quoted((dir / "tuned.csv").string()) + " --evidence " +
        quoted((dir / "evidence.h5").string()) + " --journal " +
        quoted(journal_path(dir).string()) + " --backend sim --progress none --seed " +
        std::to_string(seed) + " --search " + search;
    if (s.sample) command += " --candidate-sample " + std::to_string(*s.sample);
    for (const std::string& flag : s.extra) command += " " + quoted(flag);
    const std::string log = (dir / "tuner.log").string();
    command += " > " + quoted(log) + " 2>&1";
    if (std::system(command.c_str()) != 0) {
        std::fprintf(stderr, "screen_quality: the tuner failed (seed %d, --search %s); see %s\n",
                     seed, search, log.c_str());
        std::exit(1);
    }
    return read_archive((dir / "evidence.h5").string());
}

double policy_value(const RunEvidence& run, std::string_view name) {
    for (const PolicyValue& value : run.provenance.policy) {
        if (value.name == name) return value.value;
    }
    throw std::runtime_error("the archive's /policy has no " + std::string(name));
}

struct Runs {
    double chunk = 0.0;      // warmup + timed runs of every chunk measurement
    double incumbent = 0.0;  // the part of `chunk` that measured the incumbent, once per chunk
    double race = 0.0;       // warmup + timed runs of every race contender round
    std::size_t pruned = 0;
    std::size_t chunks = 0;  // chunks that measured something
};

// shape key -> the key of the shape's incumbent, as its decision names it.
std::map<std::string, std::string> incumbent_keys(const RunEvidence& run) {
    std::map<std::string, std::string> keys;
    for (const DecisionRecord& d : run.decisions) {
        keys[run.shapes.at(d.shape_id).shape_key] = d.incumbent_key;
    }
    return keys;
}

// The runs of every chunk measurement of a run, counted from its journal.
Runs timed_runs(const RunEvidence& run, const fs::path& journal) {
    const double warmup = policy_value(run, "warmup");
    const double iters = policy_value(run, "iters");
    const double screen_warmup = policy_value(run, "screen_warmup");
    const auto incumbents = incumbent_keys(run);
    std::set<std::int64_t> chunks;
    Runs runs;
    for_each_journal_record(journal.string(), {}, [&](JournalRecord&& record) {
        const auto* measured = std::get_if<CandidateResultRecord>(&record);
        if (measured == nullptr) return;
        const auto& r = measured->result;
        chunks.insert(measured->chunk_id);
        if (r.status != fhmoe::tuning::Status::ok) return;
        double candidate_runs = 0.0;
        if (r.screen.screened) candidate_runs += screen_warmup + r.screen.screen_runs;
        if (r.screen.pruned) {
            ++runs.pruned;
        } else {
            candidate_runs += warmup + r.timing.n_raw;
        }
        runs.chunk += candidate_runs;
        const auto incumbent = incumbents.find(r.shape_key);
        if (incumbent != incumbents.end() && incumbent->second == r.candidate.key()) {
            runs.incumbent += candidate_runs;
        }
    });
    runs.chunks = chunks.size();
    runs.race = static_cast<double>(run.race.size()) * (warmup + iters);
    return runs;
}

double share(double part, double whole) { return whole > 0.0 ? part / whole : 0.0; }

// shape key -> (candidate key -> time relative to the incumbent, as this run measured it)
std::map<std::string, std::map<std::string, double>> relative_times(const RunEvidence& run) {
    std::map<std::string, std::map<std::string, double>> times;
    for (const CandidateRecord& c : run.candidates) {
        times[run.shapes.at(c.shape_id).shape_key][c.result.candidate.key()] =
            c.relative_to_incumbent;
    }
    return times;
}

struct SeedResult {
    std::size_t shapes = 0;
    std::size_t same = 0;
    std::size_t within_noise = 0;
    Runs exhaustive;
    Runs screen;
};

SeedResult compare(const RunEvidence& exhaustive, const RunEvidence& screen, int seed,
                   const fs::path& seed_dir) {
    SeedResult result;
    result.exhaustive = timed_runs(exhaustive, journal_path(seed_dir / "exhaustive"));
    result.screen = timed_runs(screen, journal_path(seed_dir / "screen"));
    std::map<std::string, const DecisionRecord*> screen_decisions;
    for (const DecisionRecord& d : screen.decisions) {
        screen_decisions[screen.shapes.at(d.shape_id).shape_key] = &d;
    }
    const auto exhaustive_times = relative_times(exhaustive);
    for (const DecisionRecord& d : exhaustive.decisions) {
        const std::string& shape = exhaustive.shapes.at(d.shape_id).shape_key;
        ++result.shapes;
        const auto other = screen_decisions.find(shape);
        if (other == screen_decisions.end()) continue;
        const std::string want = published_key(d);
        const std::string got = published_key(*other->second);
        if (want == got) {
            ++result.same;
            continue;
        }
        const auto& times = exhaustive_times.at(shape);
        const auto want_time = times.find(want);
        const auto got_time = times.find(got);
        const double floor = std::isnan(d.noise_floor_pct) ? 0.0 : d.noise_floor_pct;
        const bool within = want_time != times.end() && got_time != times.end() &&
                            100.0 * std::fabs(got_time->second - want_time->second) <= floor;
        if (within) ++result.within_noise;
        std::printf(
            "  seed %d %s: exhaustive published %s (%.4f), screen %s (%.4f), noise floor "
            "%.2f%%: %s\n",
            seed, shape.c_str(), want.c_str(), want_time != times.end() ? want_time->second : NAN,
            got.c_str(), got_time != times.end() ? got_time->second : NAN, floor,
            within ? "within the noise floor" : "DIFFERENT");
    }
    return result;
}

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "screen_quality: %s\nusage: screen_quality [--seeds N] [--first-seed S] "
                 "[--sample N] [--ranks R] [--check] [--tuner PATH] [--input CSV] [--keep DIR] "
                 "[-- tuner flags...]\n",
                 why);
    std::exit(2);
}

int positive(const char* flag, const char* text) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 1 || value > 1000000) {
        usage((std::string(flag) + ": '" + text + "' is not a positive integer").c_str());
    }
    return static_cast<int>(value);
}

Settings parse(int argc, char** argv) {
    Settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (flag == "--check") {
            s.check = true;
            s.seeds = 2;
            s.sample = 300;
            continue;
        }
        if (flag == "--") {
            for (++i; i < argc; ++i) s.extra.emplace_back(argv[i]);
            break;
        }
        if (i + 1 >= argc) usage(("missing value of " + std::string(flag)).c_str());
        const char* value = argv[++i];
        if (flag == "--seeds") {
            s.seeds = positive(argv[i - 1], value);
        } else if (flag == "--first-seed") {
            s.first_seed = positive(argv[i - 1], value);
        } else if (flag == "--sample") {
            s.sample = positive(argv[i - 1], value);
        } else if (flag == "--ranks") {
            s.ranks = positive(argv[i - 1], value);
        } else if (flag == "--tuner") {
            s.tuner = value;
        } else if (flag == "--input") {
            s.input = value;
        } else if (flag == "--keep") {
            s.keep = value;
        } else {
            usage(("unknown flag " + std::string(flag)).c_str());
        }
    }
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const Settings s = parse(argc, argv);
    const fs::path work = s.keep.empty() ? fs::temp_directory_path() /
                                               ("screen_quality." + std::to_string(::getpid()))
                                         : fs::path(s.keep);
    try {
        std::printf("screen_quality: %d seeds from %d, %s candidates per shape, %d rank(s), %s%s\n",
                    s.seeds, s.first_seed,
                    s.sample ? std::to_string(*s.sample).c_str() : "the catalogue's", s.ranks,
                    s.input.c_str(), s.check ? ", --check" : "");
        std::printf("%5s %6s %5s %7s %8s %14s %14s %7s %12s %12s %10s %13s %8s %11s\n", "seed",
                    "shapes", "same", "in_noise", "pruned", "exh_runs", "screen_runs", "ratio",
                    "exh_race", "screen_race", "exh_chunks", "screen_chunks", "exh_inc",
                    "screen_inc");
        SeedResult total;
        for (int seed = s.first_seed; seed < s.first_seed + s.seeds; ++seed) {
            const fs::path dir = work / ("seed" + std::to_string(seed));
            const RunEvidence exhaustive = run_tuner(s, dir / "exhaustive", seed, "exhaustive");
            const RunEvidence screen = run_tuner(s, dir / "screen", seed, "screen");
            const SeedResult r = compare(exhaustive, screen, seed, dir);
            std::printf(
                "%5d %6zu %5zu %7zu %8zu %14.0f %14.0f %7.4f %12.0f %12.0f %10zu %13zu %7.2f%% "
                "%10.2f%%\n",
                seed, r.shapes, r.same, r.within_noise, r.screen.pruned, r.exhaustive.chunk,
                r.screen.chunk, r.screen.chunk / r.exhaustive.chunk, r.exhaustive.race,
                r.screen.race, r.exhaustive.chunks, r.screen.chunks,
                100.0 * share(r.exhaustive.incumbent, r.exhaustive.chunk),
                100.0 * share(r.screen.incumbent, r.screen.chunk));
            std::fflush(stdout);
            total.shapes += r.shapes;
            total.same += r.same;
            total.within_noise += r.within_noise;
            total.screen.pruned += r.screen.pruned;
            total.exhaustive.chunk += r.exhaustive.chunk;
            total.screen.chunk += r.screen.chunk;
            total.exhaustive.incumbent += r.exhaustive.incumbent;
            total.screen.incumbent += r.screen.incumbent;
            total.exhaustive.chunks += r.exhaustive.chunks;
            total.screen.chunks += r.screen.chunks;
            total.exhaustive.race += r.exhaustive.race;
            total.screen.race += r.screen.race;
            if (s.keep.empty()) fs::remove_all(dir);
        }
        if (s.keep.empty()) fs::remove_all(work);
        const double shapes = static_cast<double>(std::max<std::size_t>(total.shapes, 1));
        const double same_pct = 100.0 * static_cast<double>(total.same) / shapes;
        const double equivalent_pct =
            100.0 * static_cast<double>(total.same + total.within_noise) / shapes;
        const double ratio = total.screen.chunk / total.exhaustive.chunk;
        const double race_ratio = total.screen.race / total.exhaustive.race;
        const double exhaustive_incumbent_share =
            share(total.exhaustive.incumbent, total.exhaustive.chunk);
        const double screen_incumbent_share = share(total.screen.incumbent, total.screen.chunk);
        std::printf(
            "screen_quality seeds=%d shapes=%zu same_pct=%.2f equivalent_pct=%.2f "
            "timed_run_ratio=%.4f race_run_ratio=%.4f exhaustive_incumbent_share=%.4f "
            "screen_incumbent_share=%.4f\n",
            s.seeds, total.shapes, same_pct, equivalent_pct, ratio, race_ratio,
            exhaustive_incumbent_share, screen_incumbent_share);
        if (s.check && (equivalent_pct < kMinEquivalentPct || ratio > kMaxTimedRunRatio ||
                        screen_incumbent_share > kMaxScreenIncumbentShare)) {
            std::printf(
                "FAILED: issue #16 asks equivalent_pct >= %.0f, timed_run_ratio <= %.2f and "
                "screen_incumbent_share <= %.2f\n",
                kMinEquivalentPct, kMaxTimedRunRatio, kMaxScreenIncumbentShare);
            return 1;
        }
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "screen_quality: %s\n", error.what());
        return 1;
    }
}
