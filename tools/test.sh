#!/usr/bin/env bash
# The README's test command: install what is missing, build, compile-check the AMD (HIP) path of
# the gpu backend, run every test that needs no GPU, then build again under ASan + UBSan and run
# the tests that need neither a GPU nor Slurm there (tools/test-asan.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
tools/gpu/hip-compile-check.sh
ctest --preset ci "$@"
tools/test-asan.sh
