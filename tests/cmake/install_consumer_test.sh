#!/usr/bin/env bash
# Installs the built tree into a scratch prefix, then builds and runs a separate project that
# only knows find_package(fhmoe_tune).
set -euo pipefail
build_dir=$1 scratch=$2 consumer=$3
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" -j 2 >/dev/null
"$scratch/consumer/consumer"
