#include "cluster/fatal_error.hpp"

#include <mpi.h>
#include <poll.h>

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "cluster/mpi_transport/member_release.hpp"
#include "fhmoe/cluster/tune_options.hpp"
#include "fhmoe/cluster/tune_run.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::cluster {
namespace {

// Beyond rank 0's stop grace: its checkpoint (journal, tuned CSV, archive) and the release.
constexpr double rank0_checkpoint_margin_s = 60.0;

}  // namespace

void abort_every_rank(ExitCode code, const std::string& why) {
    spdlog::error("aborting the job (exit {}): {}", to_int(code), why);
    MPI_Abort(MPI_COMM_WORLD, to_int(code));
    std::_Exit(to_int(code));  // MPI_Abort does not return; this satisfies [[noreturn]]
}

ExitCode exit_code_for(const std::exception& error) noexcept {
    if (dynamic_cast<const UsageError*>(&error) != nullptr) return ExitCode::bad_input;
    if (dynamic_cast<const InputError*>(&error) != nullptr) return ExitCode::bad_input;
    if (dynamic_cast<const NotAvailableError*>(&error) != nullptr) return ExitCode::not_available;
    return ExitCode::internal_error;
}

void stop_members_after_failure(MpiChannel& channel, int world_size, ExitCode code) noexcept {
    if (world_size <= 1) return;
    try {
        spdlog::error("stopping the other {} ranks (exit {})", world_size - 1, to_int(code));
        if (release_member_ranks(channel, world_size, to_int(code), {}, failure_release_timeout)) {
            return;
        }
    } catch (const std::exception& error) {
        spdlog::error("could not stop the other ranks in order: {}", error.what());
    }
    abort_every_rank(code, "some rank did not acknowledge the stop");
}

void report_failure_to_rank0(MpiChannel& channel, int rank, ExitCode code,
                             const std::string& reason, double stop_grace_s) noexcept {
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(stop_grace_s + rank0_checkpoint_margin_s));
    try {
        channel.send(0, MessageTag::rank_failed,
                     encode_rank_failed(RankFailedMessage{to_int(code), reason}));
        while (std::chrono::steady_clock::now() < deadline) {
            channel.progress();
            // Work assigned before rank 0 heard of the failure is dropped: rank 0 no longer
            // counts on it, and a resume measures it.
            auto message = channel.try_receive(0);
            if (!message) {
                ::poll(nullptr, 0, mpi_probe_interval_ms);
                continue;
            }
            if (message->tag != MessageTag::stop) continue;
            channel.drain();
            channel.send(0, MessageTag::stop_ack, {});
            channel.drain();
            return;
        }
        abort_every_rank(code, "rank " + std::to_string(rank) +
                                   ": rank 0 did not stop the run after this rank's failure");
    } catch (const std::exception& error) {
        abort_every_rank(code, "rank " + std::to_string(rank) +
                                   ": could not report its failure to rank 0: " + error.what());
    }
}

}  // namespace fhmoe::cluster
