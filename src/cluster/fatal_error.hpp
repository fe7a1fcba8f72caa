#pragma once

// A fatal error on one rank must end every rank within seconds (issue #12, item 2): a rank
// that gives up may never leave another one waiting for a message that will not come. Rank 0
// sends every other rank `stop` with the error's exit code (an orderly end, so the launcher
// sees that code from every rank); a rank other than 0 tells rank 0 (`rank_failed`), which
// checkpoints and stops the run. When the peer does not answer within the bound, MPI_Abort
// ends the job: a hang is never the fallback.

#include <chrono>
#include <exception>
#include <string>

#include "cluster/mpi_transport/mpi_channel.hpp"
#include "fhmoe/exit_code.hpp"

namespace fhmoe::cluster {

// How long rank 0, after its own fatal error, waits for the other ranks to acknowledge its
// stop (they kill their workers and answer in well under a second) before MPI_Abort.
inline constexpr std::chrono::seconds failure_release_timeout{15};

// The last resort: MPI_Abort(code) ends every rank of the job at once.
[[noreturn]] void abort_every_rank(ExitCode code, const std::string& why);

// The exit code a typed error maps to (the same mapping the main applies).
ExitCode exit_code_for(const std::exception& error) noexcept;

// Rank 0, after start-up: stops every other rank with `code`; MPI_Abort (with `code`) when
// some rank does not acknowledge within failure_release_timeout. Never throws.
void stop_members_after_failure(MpiChannel& channel, int world_size, ExitCode code) noexcept;

// A rank other than 0: tells rank 0 why it cannot go on and waits for rank 0's stop (rank 0
// first gives its other ranks' in-flight work `stop_grace_s` to report), then acknowledges
// it. MPI_Abort (with `code`) when no stop arrives in time. Never throws.
void report_failure_to_rank0(MpiChannel& channel, int rank, ExitCode code,
                             const std::string& reason, double stop_grace_s) noexcept;

}  // namespace fhmoe::cluster
