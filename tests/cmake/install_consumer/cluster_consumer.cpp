// Uses the installed MPI-side libraries the way an outside project would: fhmoe::cluster's
// public headers only (its private ones are not installed), linked with MPI and HDF5.
#include <cstdio>
#include <string>
#include <vector>

#include "fhmoe/cluster/tune_options.hpp"

int main() {
    const std::vector<std::string> args{"fhmoe_tune_mpi", "--help"};
    const auto parsed = fhmoe::cluster::parse_tune_command_line(args);
    const bool ok = !parsed.options && parsed.help_text.find("--untune_file") != std::string::npos;
    std::printf("consumer of fhmoe::cluster: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
