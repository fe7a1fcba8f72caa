#!/usr/bin/env bash
# Installs the built tree into a scratch prefix, checks that no private header (one next to
# its sources under src/) was installed, then builds and runs a separate project that only
# knows find_package(fhmoe_tune).
set -euo pipefail
build_dir=$1 scratch=$2 consumer=$3
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
leaked=0
while read -r private; do
  relative=${private#"$source_dir/src/"}
  area=${relative%%/*}
  if [ -e "$scratch/prefix/include/fhmoe/$area/$(basename "$relative")" ]; then
    echo "install_consumer_test: private header installed: src/$relative" >&2
    leaked=1
  fi
done < <(find "$source_dir/src" -name '*.hpp')
[ "$leaked" = 0 ]
cmake -S "$consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" -j 2 >/dev/null
"$scratch/consumer/consumer"
"$scratch/consumer/cluster_consumer"
# What docs/operations.md runs from an install: the Slurm scripts (their --help submits
# nothing) and the plotting tool.
for script in nightly_retune.sbatch fhmoe_tune.sbatch; do
  help=$("$scratch/prefix/slurm/$script" --help)
  case "$help" in
    *FHMOE_*) ;;
    *) echo "install_consumer_test: $script --help printed no usage: $help" >&2; exit 1 ;;
  esac
done
"$scratch/prefix/bin/plot_evidence.py" --help | grep -q -- "--out"
echo "install_consumer_test: ok"
