#pragma once

// Exit codes of every fhmoe program (DESIGN.md, issue #6). Scripts and Slurm jobs rely on
// these numbers: never reuse one for another meaning.
namespace fhmoe {

enum class ExitCode : int {
    all_decided = 0,    // every shape decided (promote / retain)
    incomplete = 1,     // some shape incomplete or all candidates failed: nothing published for it
    bad_input = 2,      // a file or flag is wrong; no output was touched
    interrupted = 3,    // SIGTERM/SIGINT: checkpointed, `--resume` finishes the job
    not_available = 4,  // the requested feature is not in this build
    // A requested output (evidence archive, summary JSON) could not be written, e.g. on a
    // full disk; the tuned CSV and the journal are whole, and `fhmoe_evidence rebuild`
    // makes the archive from the journal. An interrupted run still exits interrupted.
    output_not_written = 5,
    internal_error = 70,
};

constexpr int to_int(ExitCode code) { return static_cast<int>(code); }

}  // namespace fhmoe
