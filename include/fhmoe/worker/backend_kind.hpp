#pragma once

// Which backend measures: named on the command lines (fhmoe_tune_mpi, fhmoe_run_shape,
// fhmoe_worker --backend) and parsed there once, so the rest of the code switches on an enum
// instead of comparing strings. The names stay text where they leave the process: the
// worker's argv, the rank hello message, the journal and the evidence archive.

#include <string_view>

namespace fhmoe::worker {

enum class BackendKind {
    cpu,  // kernels/cpu: real compute, steady-clock timing
    sim,  // a latency model, no compute
    gpu,  // kernels/gpu: only in a build with FHMOE_GPU_BACKEND=CUDA|HIP
};

// "cpu", "sim" or "gpu". Throws fhmoe::InputError naming `flag` (e.g. "--backend") for any
// other name, with the valid names; a huge name is quoted as an excerpt.
BackendKind parse_backend_kind(std::string_view name, std::string_view flag);

// The name parse_backend_kind accepts for `kind`.
std::string_view backend_name(BackendKind kind);

}  // namespace fhmoe::worker
