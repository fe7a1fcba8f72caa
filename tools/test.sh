#!/usr/bin/env bash
# The README's test command: install what is missing, build, compile-check the AMD (HIP) path of
# the gpu backend, run every test that needs no GPU; then build again under ASan + UBSan and
# run the tests that need neither a GPU, Slurm nor mpiexec there (tools/test-asan.sh).
# FHMOE_TEST_ASAN=0 leaves the sanitizer build out (a quicker local run).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
tools/gpu/hip-compile-check.sh
ctest --preset ci "$@"
if [ "${FHMOE_TEST_ASAN:-1}" = 1 ]; then tools/test-asan.sh; fi
