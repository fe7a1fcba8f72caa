#!/usr/bin/env bash
# The README's test command: install what is missing, build, run every test that needs no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
ctest --preset ci "$@"
