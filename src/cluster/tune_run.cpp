#include "fhmoe/cluster/tune_run.hpp"

#include <spdlog/spdlog.h>

#include <exception>
#include <memory>
#include <optional>
#include <set>

#include "cluster/coordinator.hpp"
#include "cluster/device_binding.hpp"
#include "cluster/fatal_error.hpp"
#include "cluster/local_measuring_rank.hpp"
#include "cluster/mpi_measuring_rank.hpp"
#include "cluster/mpi_transport/member_loop.hpp"
#include "cluster/mpi_transport/member_release.hpp"
#include "cluster/peak_memory.hpp"
#include "cluster/replay.hpp"
#include "cluster/run_paths.hpp"
#include "cluster/run_plan.hpp"
#include "cluster/run_session.hpp"
#include "cluster/run_state/run_summary.hpp"
#include "cluster/run_state/run_summary_json.hpp"
#include "cluster/tune_compare.hpp"
#include "cluster/tuning_device.hpp"
#include "cluster/worker_device_probe.hpp"
#include "fhmoe/cluster/mpi_environment.hpp"
#include "fhmoe/cluster/run_evidence_builder.hpp"
#include "fhmoe/config/lookup_key.hpp"
#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/evidence/archive_leftovers.hpp"
#include "fhmoe/version.hpp"
#include "fhmoe/wall_clock.hpp"
#include "fhmoe/worker/backend_kind.hpp"

namespace fhmoe::cluster {
namespace {

supervisor::SupervisorConfig supervisor_config(const TuneOptions& options, int rank,
                                               const DeviceBinding& binding, bool with_faults) {
    supervisor::SupervisorConfig config;
    config.worker_executable = options.worker_path;
    config.backend = options.backend;
    if (with_faults && !options.inject_fault.empty()) {
        config.worker_args = {"--inject-fault", options.inject_fault};
    }
    if (binding.device_index >= 0) {
        config.worker_args.push_back("--device");
        config.worker_args.push_back(std::to_string(binding.device_index));
    }
    config.rank = rank;
    config.stop_grace_s = options.stop_grace_s;
    return config;
}

// The rank's device: from the launcher's visibility variables or its local rank, over the
// devices a worker of this backend can see (the rank never opens the GPU itself).
DeviceBinding bind_rank_device(const TuneOptions& options, int rank) {
    if (options.backend != worker::BackendKind::gpu) {
        return choose_device(process_environment(), local_rank(), 0);
    }
    WorkerDeviceDescription visible;
    try {
        visible = describe_worker_device(options.worker_path, options.backend, std::nullopt);
    } catch (const Error& error) {
        throw NotAvailableError("--backend gpu on rank " + std::to_string(rank) + ": " +
                                error.what());
    }
    const DeviceBinding binding =
        choose_device(process_environment(), local_rank(), visible.visible_devices);
    if (binding.device_index < 0) {
        throw NotAvailableError("--backend gpu: rank " + std::to_string(rank) + " sees no GPU (" +
                                binding.reason + ")");
    }
    return binding;
}

void log_binding(const TuneOptions& options, int rank, const std::string& host,
                 const DeviceBinding& binding) {
    // The local rank comes last: tests/slurm/check_outputs.py reads the rank that a device line
    // is about from the last "rank N" before the device.
    spdlog::info(
        "rank {}/{} on {}: backend {}, device binding: {} ({}={}), worker {}, local rank {}", rank,
        world_size(), host, worker::backend_name(options.backend), binding.reason,
        binding.visible_from, binding.visible_value.empty() ? "-" : binding.visible_value,
        options.worker_path, binding.local_rank);
}

// The gfx/cu_num the run's rows carry: for gpu, what the worker reports for rank 0's device.
family::DeviceKey tuning_device_of_run(const TuneOptions& options, const DeviceBinding& binding) {
    if (options.backend != worker::BackendKind::gpu) {
        return tuning_device_for_backend(options.backend);
    }
    const WorkerDeviceDescription described =
        describe_worker_device(options.worker_path, options.backend, binding.device_index);
    FHMOE_CHECK(described.key.has_value(), "a worker asked about a device names its key");
    return *described.key;
}

// The journal and plan a rank-0 run continues from.
struct RunStart {
    evidence::RunHeader header;
    std::vector<evidence::JournalRecord> prior;
    std::vector<config::UntunedShape> already_tuned;
    std::vector<config::UntunedShape> other_device;
    std::optional<evidence::JournalWriter> journal;
};

RunStart start_new_run(const TuneOptions& options, const family::DeviceKey& device) {
    RunPlan plan = plan_run(options, device);
    for (const auto& warning : plan.warnings) spdlog::warn("{}", warning);
    RunStart start;
    start.header = std::move(plan.header);
    start.already_tuned = std::move(plan.already_tuned);
    start.other_device = std::move(plan.other_device);
    if (const auto kept = evidence::keep_finished_journal(options.journal_path)) {
        spdlog::info("{}: the previous run there finished; its journal is kept as {}",
                     options.journal_path, *kept);
    }
    start.journal.emplace(evidence::JournalWriter::create(options.journal_path, start.header));
    spdlog::info("planned {} shapes ({} already tuned, {} for another device); journal {}",
                 start.header.shapes.size(), start.already_tuned.size(), start.other_device.size(),
                 options.journal_path);
    return start;
}

RunStart resume_run(const TuneOptions& options, const family::DeviceKey& device) {
    evidence::JournalContents contents = evidence::read_journal(options.journal_path);
    const config::UntunedTable untuned = config::read_untuned_csv(options.untuned_path);
    check_resume_fingerprint(options.journal_path, contents.header.fingerprint,
                             run_fingerprint(options, untuned.shapes, device));
    if (contents.torn_tail_bytes > 0) {
        spdlog::warn("{}: ignoring a torn last record ({} bytes: {}); it is re-measured",
                     options.journal_path, contents.torn_tail_bytes, contents.torn_tail_reason);
    }
    RunStart start;
    start.header = contents.header;
    start.prior = std::move(contents.records);
    // Shapes of the input that the journal's plan did not tune were skipped when it began.
    const config::TunedTable tuned = config::read_tuned_csv_if_exists(options.tuned_path);
    const config::TunedIndex index(tuned);
    std::set<std::string> planned;
    for (const auto& shape : start.header.shapes)
        planned.insert(family::shape_key_string(shape.shape));
    for (const auto& shape : untuned.shapes) {
        if (planned.count(family::shape_key_string(shape.shape)) != 0) continue;
        if (config::device_for(shape, device) != device) {
            start.other_device.push_back(shape);
        } else {
            start.already_tuned.push_back(shape);
        }
    }
    start.journal.emplace(evidence::JournalWriter::reopen(options.journal_path, contents));
    spdlog::info("resuming {}: {} shapes planned, {} records journaled", options.journal_path,
                 start.header.shapes.size(), start.prior.size());
    return start;
}

ExitCode exit_code_of(RunEnd end, const std::vector<ShapeOutcome>& outcomes) {
    if (end == RunEnd::interrupted) return ExitCode::interrupted;
    for (const auto& outcome : outcomes) {
        if (!outcome.decision || !(outcome.decision->kind == evidence::DecisionKind::promote ||
                                   outcome.decision->kind == evidence::DecisionKind::retain)) {
            return ExitCode::incomplete;
        }
    }
    return ExitCode::all_decided;
}

// The archive is the fold of the journal as synced so far (run_evidence_builder.hpp): the
// same code `fhmoe_evidence rebuild` runs on a journal a crash left behind, so the archive
// written here and a rebuild from the journal cannot differ. False when it was asked for and
// could not be written (a full disk): a checkpoint tries again at the next one, the end of the
// run reports it in the exit code.
bool write_evidence(const TuneOptions& options, const evidence::RunHeader& plan) {
    if (options.evidence_path.empty()) return true;
    try {
        write_archive_from_journal(options.journal_path, options.evidence_path, &plan);
        return true;
    } catch (const Error& error) {
        // Measuring goes on: the journal holds everything the archive would, and
        // `fhmoe_evidence rebuild` makes the archive from it.
        spdlog::error("evidence archive not written: {}", error.what());
        return false;
    }
}

// A run whose requested outputs were not all written did not succeed, whatever it decided;
// an interrupted run keeps its own code: --resume writes the outputs again.
ExitCode with_unwritten_outputs(ExitCode code, bool outputs_written) {
    if (outputs_written || code == ExitCode::interrupted) return code;
    return ExitCode::output_not_written;
}

// Rank 0's live account of the run for --summary-json: race timings counted from the races
// it holds, not from the journal the archive is folded from.
RunSummaryFacts summary_facts(const TuneOptions& options, const family::DeviceKey& device,
                              const Coordinator& coordinator, ExitCode code, int world_size) {
    RunSummaryFacts facts;
    facts.exit_code = to_int(code);
    facts.ranks = world_size;
    facts.policy = session_started(options, device, world_size, 0).policy;
    for (const auto& shape : coordinator.shapes()) {
        std::size_t samples = 0;
        if (shape.race) {
            for (const auto& contender : shape.race->contenders) {
                for (const auto& round : contender.samples_us) samples += round.empty() ? 0 : 1;
            }
        }
        facts.race_samples[shape.key()] = samples;
    }
    return facts;
}

// Rank 0's run once the other ranks are waiting for it. `members_released` is set once they
// were told to leave, so that an error after that point does not tell them twice.
ExitCode coordinate_run(const TuneOptions& options, const RunHooks& hooks,
                        const std::shared_ptr<ProgressTerminal>& progress_terminal,
                        MpiChannel& channel, TerminationSignals& signals, const std::string& host,
                        const DeviceBinding& binding, int world_size, bool& members_released) {
    const std::int64_t started_unix = unix_seconds_now();
    const family::DeviceKey device = tuning_device_of_run(options, binding);
    if (options.run_config) {
        const ExitCode code = run_config_replay(
            options, device, supervisor_config(options, 0, binding, false), signals);
        members_released = true;
        if (!release_member_ranks(channel, world_size, to_int(code), {}))
            abort_every_rank(code, "some rank did not acknowledge the stop");
        return code;
    }
    RunStart start = options.resume ? resume_run(options, device) : start_new_run(options, device);
    if (!options.evidence_path.empty()) {
        for (const auto& leftover :
             evidence::remove_dead_writers_temporaries(options.evidence_path)) {
            spdlog::info("removed {}: an archive write a killed run left unfinished", leftover);
        }
    }

    // The session's provenance goes to the journal before any result, so that a rebuild of
    // a journal cut short at any record still says which run it was.
    start.journal->append(session_started(options, device, world_size, started_unix));
    start.journal->append(evidence::RankJoinedRecord{0, host, binding.reason});
    start.journal->flush();

    supervisor::Supervisor local(supervisor_config(options, 0, binding, true));
    LocalMeasuringRank local_rank(local);
    std::vector<std::unique_ptr<MpiMeasuringRank>> members;
    CoordinatorContext context;
    context.ranks.push_back(&local_rank);
    for (int rank = 1; rank < world_size; ++rank) {
        members.push_back(std::make_unique<MpiMeasuringRank>(channel, rank));
        context.ranks.push_back(members.back().get());
    }
    context.options = &options;
    context.device = device;
    context.header = &start.header;
    context.journal = &*start.journal;
    context.signals = &signals;
    context.hooks = hooks;
    context.progress_terminal = progress_terminal;
    context.local_host = host;
    context.local_binding = binding.reason;
    context.on_checkpoint = [&] { (void)write_evidence(options, start.header); };
    // Optional so that its per-shape state is gone before the final archive is folded from
    // the journal: the two would otherwise peak together (issue #12, item 9).
    std::optional<Coordinator> coordinator;
    coordinator.emplace(context);

    coordinator->prepare(start.prior);
    std::vector<evidence::JournalRecord>().swap(start.prior);  // folded: no longer needed
    RunEnd end = coordinator->run();
    ExitCode code = exit_code_of(end, coordinator->outcomes());
    if (const auto failed = coordinator->rank_failure_exit_code())
        code = static_cast<ExitCode>(*failed);
    // Complete, decided shapes are published even when the run was interrupted.
    coordinator->checkpoint();
    bool tuned_csv_write_failed = coordinator->rows_write_failed();
    if (!tuned_csv_write_failed && coordinator->rows_unpublished()) {
        end = RunEnd::interrupted;
        code = ExitCode::interrupted;
    }
    if (options.compare && end == RunEnd::finished) {
        const CompareOutcome compared =
            compare_and_update(options, device, coordinator->final_decisions(),
                               supervisor_config(options, 0, binding, false), signals);
        if (signals.requested() || compared.lock_timed_out) {
            // The replays after the signal never ran, so their shapes were not judged and
            // not written (or the lock kept the rows out): this is an interrupted run, and
            // --resume (every shape is decided in the journal) replays and writes them.
            end = RunEnd::interrupted;
            code = ExitCode::interrupted;
        }
        tuned_csv_write_failed = compared.write_failed;
    }
    if (tuned_csv_write_failed) {
        // Nothing was lost but the file: everything decided is journaled.
        code = with_unwritten_outputs(code, false);
        spdlog::error(
            "{} was not written; free space, then run again with --resume to publish the "
            "journaled decisions without measuring them again (journal {})",
            options.tuned_path, options.journal_path);
    }

    const config::TunedTable tuned_after = config::read_tuned_csv_if_exists(options.tuned_path);
    const auto summary = summarize_run(coordinator->outcomes(), start.already_tuned,
                                       start.other_device, tuned_after, device);
    std::printf("%s", format_summary(summary).c_str());
    std::fflush(stdout);
    bool outputs_written = true;
    if (!options.summary_json_path.empty()) {
        try {
            write_summary_json(
                options.summary_json_path,
                format_summary_json(
                    summary, summary_facts(options, device, *coordinator, code, world_size)));
        } catch (const Error& error) {
            // Like the archive: the other ranks still wait to be released, and the tuned CSV
            // is already written.
            spdlog::error("summary JSON not written: {}", error.what());
            outputs_written = false;
        }
    }
    // Before the members and the journal are told the code, so the archive records it too.
    code = with_unwritten_outputs(code, outputs_written);
    if (end == RunEnd::interrupted) {
        spdlog::warn(
            "interrupted: decided shapes are published; run again with --resume to "
            "finish (journal {})",
            options.journal_path);
    }
    // Results that arrive while the members are released are journaled: the archive,
    // written after them, holds them too.
    members_released = true;
    const bool all_acknowledged = release_measuring_members(
        channel, world_size, to_int(code),
        [&](const supervisor::CandidateMeasured& late) { coordinator->record_late_result(late); });
    start.journal->flush();
    if (!all_acknowledged) abort_every_rank(code, "some rank did not acknowledge the stop");
    start.journal->append(evidence::SessionEndedRecord{unix_seconds_now(), to_int(code)});
    start.journal->sync();
    coordinator.reset();
    // The plan is the journal's header: the fold uses this copy rather than decode another.
    const bool archive_written = write_evidence(options, start.header);
    local.shutdown();
    if (const auto peak = peak_resident_kib()) {
        spdlog::info("rank 0 peak resident memory (VmHWM): {} MiB", *peak / 1024);
    }
    return with_unwritten_outputs(code, archive_written);
}

// Before any worker starts (the gpu binding below starts one): a bad path found at the first
// write would throw the measurements away. Each rank checks what it uses, and all ranks stop
// together, so that no rank is left waiting for one that has already left.
std::optional<ExitCode> refuse_bad_paths(const TuneOptions& options, int rank) {
    std::exception_ptr refused;
    try {
        if (rank == 0) {
            check_run_paths(options);
        } else {
            check_worker_path(options);
        }
    } catch (const InputError&) {
        refused = std::current_exception();
    }
    if (!any_rank(refused != nullptr)) return std::nullopt;
    if (refused) std::rethrow_exception(refused);
    if (rank == 0) spdlog::error("another rank refused its --worker; nothing was run");
    return ExitCode::bad_input;
}

ExitCode run_rank0(const TuneOptions& options, const RunHooks& hooks,
                   const std::shared_ptr<ProgressTerminal>& progress_terminal, MpiChannel& channel,
                   TerminationSignals& signals, const std::string& host,
                   const DeviceBinding& binding, int world_size) {
    bool members_released = false;
    try {
        return coordinate_run(options, hooks, progress_terminal, channel, signals, host, binding,
                              world_size, members_released);
    } catch (const std::exception& error) {
        // The other ranks wait for rank 0's word: without it they would wait forever.
        if (!members_released)
            stop_members_after_failure(channel, world_size, exit_code_for(error));
        throw;
    }
}

ExitCode run_member_rank(const TuneOptions& options, MpiChannel& channel,
                         TerminationSignals& signals, int rank) {
    try {
        const DeviceBinding binding = bind_rank_device(options, rank);
        const std::string host = processor_name();
        log_binding(options, rank, host, binding);
        supervisor::Supervisor supervisor(supervisor_config(options, rank, binding, true));
        MemberContext context;
        context.rank = rank;
        context.hello = HelloMessage{rank, host, std::string(worker::backend_name(options.backend)),
                                     binding.reason};
        context.supervisor = &supervisor;
        context.signals = &signals;
        context.channel = &channel;
        return static_cast<ExitCode>(run_member(context));
    } catch (const std::exception& error) {
        // Rank 0 may be waiting for this rank's results: it must hear that none will come.
        report_failure_to_rank0(channel, rank, exit_code_for(error), error.what(),
                                options.stop_grace_s);
        throw;
    }
}

}  // namespace

ExitCode run_tune(const TuneOptions& options, const RunHooks& hooks,
                  std::shared_ptr<ProgressTerminal> progress_terminal) {
    if (options.backend == worker::BackendKind::gpu && gpu_backend_compiled() == "NONE") {
        throw NotAvailableError(
            "--backend gpu: this build has no GPU backend (configure with "
            "-DFHMOE_GPU_BACKEND=HIP or CUDA); use --backend cpu or sim");
    }
    const int rank = world_rank();
    const int size = world_size();
    // Every rank sees the same size and throws alike: no rank waits for another.
    check_aiter_mp(options, size);
    if (const auto code = refuse_bad_paths(options, rank)) return *code;
    TerminationSignals signals;
    MpiChannel channel;
    if (rank != 0) return run_member_rank(options, channel, signals, rank);
    DeviceBinding binding;
    try {
        binding = bind_rank_device(options, 0);
    } catch (const std::exception& error) {
        stop_members_after_failure(channel, size, exit_code_for(error));
        throw;
    }
    const std::string host = processor_name();
    log_binding(options, 0, host, binding);
    return run_rank0(options, hooks, progress_terminal, channel, signals, host, binding, size);
}

}  // namespace fhmoe::cluster
