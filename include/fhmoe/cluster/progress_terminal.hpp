#pragma once

// Rank 0's progress on a terminal it shares with its log lines. A bar redrawn in place ("\r"
// then the bar) and log lines written by another writer garble each other: a log line lands
// after the bar's text, and the next redraw overwrites the start of the log line. So one
// spdlog sink owns the terminal: every log line first clears the bar's line, is written, and
// the bar is redrawn below it. The main wires it (the library never configures logging):
// it chooses where the progress goes (--progress), installs the sink as rank 0's logger and
// hands the same sink to run_tune, whose progress reporter draws through it.

#include <spdlog/sinks/base_sink.h>

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace fhmoe::cluster {

// --progress: auto picks bar when rank 0 can reach the user's terminal, lines otherwise.
enum class ProgressMode { automatic, bar, lines, none };

// "auto", "bar", "lines", "none"; nullopt for anything else.
std::optional<ProgressMode> progress_mode_from_string(std::string_view text);

// Where the bar is drawn, when it is drawn.
struct ProgressChoice {
    ProgressMode mode = ProgressMode::lines;  // bar, lines or none: never automatic
    std::string terminal;  // for bar: the terminal's path; empty: rank 0's stderr
};

// `stderr_is_terminal`: rank 0's stderr is a tty (run by hand, no launcher in between).
// `launcher_terminal`: the tty the process that started rank 0 writes its stderr to, empty
// when it has none: under mpirun from a terminal rank 0's stderr is a pipe to mpirun, whose
// own stderr is the user's terminal; under srun or with mpirun's output redirected it is not
// a tty. bar draws on stderr when it is a terminal, else on the launcher's terminal, else on
// stderr anyway (it was asked for); auto is bar when either terminal exists, else lines.
ProgressChoice choose_progress(ProgressMode requested, bool stderr_is_terminal,
                               const std::string& launcher_terminal);

// The tty path of the parent process's stderr (/proc/<ppid>/fd/2), empty when it is not a tty
// or cannot be read.
std::string launcher_terminal();

// The sink: log lines and the bar to one FILE (not owned; the main keeps it open).
class ProgressTerminal : public spdlog::sinks::base_sink<std::mutex> {
public:
    explicit ProgressTerminal(std::FILE* out);

    // Replaces the bar in place (drawn below the last log line).
    void draw(const std::string& bar);
    // Draws the bar's last state and ends its line: what is logged afterwards goes below it.
    void finish(const std::string& bar);

protected:
    void sink_it_(const spdlog::details::log_msg& message) override;
    void flush_() override;

private:
    void write_bar_locked();

    std::FILE* out_;
    std::string bar_;  // what is on the bar's line now; empty when none is drawn
};

}  // namespace fhmoe::cluster
