#!/usr/bin/env bash
# Rank 0's throughput at DSV4 scale: fhmoe_tune_mpi over the 12 DSV4 I384 shapes with their
# whole catalogues (357,120 candidates since 2026-12-02, 214,272 before) on the sim backend,
# whose candidates cost almost nothing, so what is timed is the tuner itself: planning,
# dispatch, MPI messages, the journal, merging, races, the tuned CSV and the evidence archive.
# Then the offline tools on the outputs. Prints one table row per rank count.
#
# Usage: bench/tuner_throughput.sh [BUILD_DIR] (default build/ci); RANKS="1 2 4" by default.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
tuner=$build/src/app/fhmoe_tune_mpi
evidence=$build/src/app/fhmoe_evidence
[ -x "$tuner" ] && [ -x "$evidence" ] || { echo "build $build first (tools/build.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds_of() { # command... -> wall seconds, the command's output discarded
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}

printf '%5s %11s %8s %12s %10s %10s %10s %10s\n' ranks candidates wall_s candidates/s \
  journal_MB archive_MB rebuild_s summary_s
for ranks in ${RANKS:-1 2 4}; do
  dir=$work/np$ranks
  mkdir -p "$dir"
  wall=$(seconds_of mpiexec --allow-run-as-root --oversubscribe -n "$ranks" "$tuner" \
    -i configs/untuned_fhmoe.csv -o "$dir/tuned.csv" --journal "$dir/journal" \
    --evidence "$dir/evidence.h5" --backend sim --seed 1 --summary-json "$dir/summary.json")
  candidates=$(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print(sum(sum(s['candidates'].values()) for s in d['shapes']))" "$dir/summary.json")
  rebuild=$(seconds_of "$evidence" rebuild "$dir/journal" --out "$dir/rebuilt.h5")
  summary=$(seconds_of "$evidence" summary "$dir/evidence.h5")
  awk -v r="$ranks" -v c="$candidates" -v w="$wall" -v j="$(stat -c %s "$dir/journal")" \
    -v a="$(stat -c %s "$dir/evidence.h5")" -v rb="$rebuild" -v s="$summary" \
    'BEGIN { printf "%5s %11s %8.1f %12.0f %10.1f %10.1f %10.1f %10.2f\n",
                    r, c, w, c / w, j / 1048576, a / 1048576, rb, s }' 
done
