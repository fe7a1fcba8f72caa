#!/usr/bin/env python3
"""The progress bar through a real pseudo-terminal (issue #15, item 2).

    progress_pty_test.py TUNE_MPI MPIEXEC SOURCE_DIR WORK_DIR [--transcript FILE]

Runs fhmoe_tune_mpi (sim backend, small shapes) with a pty as the terminal, the way a user
runs it, and reads every byte the terminal got:

- by hand (rank 0's stderr is the pty), --progress auto: a bar;
- under mpiexec -n 2 (rank 0's stderr is a pipe to mpiexec, whose stderr is the pty),
  --progress auto: a bar on mpiexec's terminal;
- --progress lines: progress lines, no terminal control; --progress none: no progress at all.

With a bar, what the terminal shows (carriage returns and erase-to-end-of-line applied) must
have every log line of rank 0 at the start of its own line, never after bar text, and the
bar's last state at 100%. --transcript writes the rendered screen of the mpiexec run.
Exit 0 when every check holds, 1 otherwise; bounded (each run is killed after 120 s).
"""

import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import time

LOG_LINE = re.compile(r"\[\d\d:\d\d:\d\d\.\d{3}\] \[rank 0\] \[")
BAR = re.compile(r"^\[[#.]{24}\] \d+/\d+ measurements, \d+/\d+ races, (\d+)%")
ERASE = "\x1b[K"
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def run_in_pty(argv, env, limit_s=120):
    """Runs argv with a new pty as stdin, stdout and stderr; returns (exit code, bytes)."""
    master, slave = pty.openpty()
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                               start_new_session=True, close_fds=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + limit_s
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            os.killpg(process.pid, signal.SIGKILL)
            failures.append(f"{' '.join(argv[:3])}...: still running after {limit_s} s")
            break
        ready, _, _ = select.select([master], [], [], remaining)
        if not ready:
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(master)
    return process.wait(timeout=30), output.decode("utf-8", errors="replace")


def rendered_screen(text):
    """What the terminal shows: \\r to the line's start, ESC [K erases the rest, \\n next line."""
    lines = [""]
    column = 0
    i = 0
    while i < len(text):
        if text.startswith(ERASE, i):
            lines[-1] = lines[-1][:column]
            i += len(ERASE)
            continue
        char = text[i]
        if char == "\r":
            column = 0
        elif char == "\n":
            lines.append("")
            column = 0
        else:
            line = lines[-1]
            lines[-1] = line[:column] + char + line[column + 1:]
            column += 1
        i += 1
    return lines


def check_bar_run(name, code, text):
    check(code == 0, f"{name}: exit {code}\n{text[-3000:]}")
    check("\r" + ERASE + "[" in text, f"{name}: no bar was drawn")
    screen = rendered_screen(text)
    log_lines = [line for line in screen if LOG_LINE.search(line)]
    check(len(log_lines) >= 3, f"{name}: {len(log_lines)} log lines of rank 0 on the terminal")
    for line in log_lines:
        check(LOG_LINE.match(line) is not None, f"{name}: a log line not at its start: {line!r}")
        check("measurements," not in line, f"{name}: a log line mixed with the bar: {line!r}")
    bars = [BAR.match(line) for line in screen if BAR.match(line)]
    check(len(bars) == 1, f"{name}: {len(bars)} bar lines left on the screen (expected the last)")
    if bars:
        check(bars[-1].group(1) == "100", f"{name}: the last bar is at {bars[-1].group(1)}%")
    # Every log line of rank 0 in the byte stream starts a line or follows an erase.
    for match in LOG_LINE.finditer(text):
        before = text[max(0, match.start() - len(ERASE)):match.start()]
        check(match.start() == 0 or before.endswith("\n") or before == ERASE,
              f"{name}: log line written after {before!r}")
    return screen


def main(argv):
    if len(argv) not in (5, 7):
        print(__doc__, file=sys.stderr)
        return 2
    tune_mpi, mpiexec, source, work = argv[1:5]
    transcript = argv[6] if len(argv) == 7 and argv[5] == "--transcript" else None
    shutil.rmtree(work, ignore_errors=True)  # a fresh start: no journal of an earlier run
    os.makedirs(work)
    env = dict(os.environ, TERM="xterm", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")

    def tuner_args(run, progress):
        directory = os.path.join(work, run)
        os.makedirs(directory, exist_ok=True)
        return [tune_mpi, "-i", os.path.join(source, "configs/untuned_fhmoe_small.csv"),
                "-o", os.path.join(directory, "tuned.csv"), "--backend", "sim",
                "--candidate-sample", "8", "--seed", "3", "--warmup", "1", "--iters", "10",
                "--rounds", "3", "--finalists", "2", "--status-interval", "0.2",
                "--progress", progress]

    code, text = run_in_pty(tuner_args("by_hand", "auto"), env)
    check_bar_run("by hand", code, text)

    code, text = run_in_pty([mpiexec, "-n", "2", "--oversubscribe"] +
                            tuner_args("mpiexec", "auto"), env)
    screen = check_bar_run("under mpiexec", code, text)
    if transcript:
        with open(transcript, "w", encoding="utf-8") as out:
            out.write("\n".join(line.rstrip() for line in screen).rstrip() + "\n")

    code, text = run_in_pty(tuner_args("lines", "lines"), env)
    check(code == 0, f"--progress lines: exit {code}")
    check(ERASE not in text, "--progress lines: terminal control in the output")
    check("progress: " in text, "--progress lines: no progress line")

    code, text = run_in_pty(tuner_args("none", "none"), env)
    check(code == 0, f"--progress none: exit {code}")
    check(ERASE not in text and "progress: " not in text, "--progress none: progress shown")

    for failure in failures:
        print("FAIL:", failure)
    print("ok" if not failures else f"{len(failures)} failures")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
