// fhmoe_evidence: query, compare and export the HDF5 evidence archives of fhmoe_tune_mpi.
// The commands live in tools/fhmoe_evidence; this main only hands them argv.

#include <iostream>
#include <string>
#include <vector>

#include "fhmoe_evidence/evidence_cli.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return fhmoe::evidence::cli::run_evidence_cli(args, std::cout, std::cerr);
}
