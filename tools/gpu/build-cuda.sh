#!/usr/bin/env bash
# Builds the CUDA tree (preset "cuda": nvcc 13 for sm_90a, binary dir build/cuda) with warnings
# as errors: the worker, fhmoe_run_shape, fhmoe_tune_mpi, the gpu tests, the gpu bench,
# gpu_stream_bound, one_launch_step and bench/shape_load (a shape load's phases, issue #16):
# everything tools/gpu/stage-device-bundle.sh carries.
# Usage: tools/gpu/build-cuda.sh [extra cmake --build args]   (FHMOE_BUILD_JOBS, default 2)
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs="${FHMOE_BUILD_JOBS:-2}"
cmake --preset cuda -DFHMOE_WERROR=ON >/dev/null
cmake --build build/cuda -j "$jobs" --target fhmoe_worker fhmoe_run_shape fhmoe_evidence_tool gpu_op_test \
  gpu_quantizer_test gpu_fault_matrix_test fhmoe_gpu_bench gpu_stream_bound one_launch_step shape_load \
  gpu_candidate_phases "$@"
# The MPI tuner last, and optional: the device run skips its step when it does not build.
cmake --build build/cuda -j "$jobs" --target fhmoe_tune_mpi "$@" ||
  echo "build-cuda: fhmoe_tune_mpi did not build; the device run will skip the MPI step" >&2
