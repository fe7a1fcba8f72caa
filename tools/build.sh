#!/usr/bin/env bash
# Configures and builds the CPU/sim tree with warnings as errors (CMake preset "ci").
# Usage: tools/build.sh [extra cmake --build args]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${FHMOE_BUILD_JOBS:-2}"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs" "$@"
