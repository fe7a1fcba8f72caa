// The other process of the config tests (real processes, not threads, because the lock
// judges holders by pid):
//   hold-lock <csv>            take the lock of <csv>, print "locked <pid>", hold it until
//                              stdin reaches EOF, release, exit 0
//   update <csv> <writer> <n>  wait for one byte on stdin (so racing writers start
//                              together), then publish n rows with update_tuned_csv, one
//                              call per row; row i of writer w is race_row(w, i)
// Exit status 0 on success, 1 with the error on stderr otherwise.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "config/race_rows.hpp"
#include "fhmoe/config/file_lock.hpp"
#include "fhmoe/config/tuned_csv_update.hpp"

namespace {

using namespace std::chrono_literals;

int hold_lock(const std::string& csv) {
    fhmoe::config::FileLock lock = fhmoe::config::FileLock::acquire(csv, 30s);
    std::printf("locked %d\n", static_cast<int>(::getpid()));
    std::fflush(stdout);
    char byte = 0;
    while (::read(STDIN_FILENO, &byte, 1) > 0) {
    }
    lock.release();
    return 0;
}

int update(const std::string& csv, int writer, int iterations) {
    char go = 0;
    if (::read(STDIN_FILENO, &go, 1) != 1) return 1;
    for (int i = 0; i < iterations; ++i) {
        const std::vector<fhmoe::config::TunedRow> rows{
            fhmoe::config::testing::race_row(writer, i)};
        fhmoe::config::update_tuned_csv(csv, rows, 60s);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<std::string> args(argv + 1, argv + argc);
        if (args.size() == 2 && args[0] == "hold-lock") return hold_lock(args[1]);
        if (args.size() == 4 && args[0] == "update") {
            return update(args[1], std::stoi(args[2]), std::stoi(args[3]));
        }
        std::fprintf(stderr, "usage: %s hold-lock <csv> | update <csv> <writer> <n>\n", argv[0]);
        return 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "config_test_helper: %s\n", error.what());
        return 1;
    }
}
