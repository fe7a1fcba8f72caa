#!/usr/bin/env bash
# Rank 0's peak memory against the size of the night (issue #12, item 9): the DSV4 night
# (configs/untuned_fhmoe.csv, 12 shapes, every catalogue candidate: 357,120 since the
# 2026-12-02 stage2 tiles, 214,272 before) and a night ten times larger (the same 12 tokens x
# 5 expert counts x both gate modes: 120 shapes, ten times the candidates), on 8 sim ranks.
# The peak is rank 0's VmHWM as it logs it at the end of the run ("rank 0 peak resident
# memory"). Prints one table row per night.
#
# Usage: bench/rank0_memory.sh [BUILD_DIR] (default build/ci); SCALES="1 10" by default.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
tuner=$build/src/app/fhmoe_tune_mpi
[ -x "$tuner" ] || { echo "build $build first (tools/build.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The 10x night: each DSV4 row again with 385, 257, 129, 65 and 33 experts (the shared expert
# is the last), interleaved and separated. The catalogue does not depend on the expert count,
# so every shape has its DSV4 token's whole catalogue.
write_night() { # scale output
  if [ "$1" -eq 1 ]; then cp configs/untuned_fhmoe.csv "$2"; return; fi
  /usr/bin/python3 - "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(open("configs/untuned_fhmoe.csv")))
with open(sys.argv[1], "w", newline="") as out:
    writer = csv.DictWriter(out, fieldnames=rows[0].keys())
    writer.writeheader()
    for experts in (385, 257, 129, 65, 33):
        for gate in ("GateMode.INTERLEAVE", "GateMode.SEPARATED"):
            for row in rows:
                writer.writerow(dict(row, expert=experts, shared_expert_id=experts - 1,
                                     gate_mode=gate))
PY
}

printf '%5s %6s %11s %8s %10s %12s\n' scale shapes candidates wall_s journal_MB rank0_peak_MB
for scale in ${SCALES:-1 10}; do
  dir=$work/x$scale
  mkdir -p "$dir"
  write_night "$scale" "$dir/untuned.csv"
  start=$(date +%s.%N)
  mpiexec --allow-run-as-root --oversubscribe -n 8 "$tuner" -i "$dir/untuned.csv" \
    -o "$dir/tuned.csv" --journal "$dir/journal" --evidence "$dir/evidence.h5" --backend sim \
    --seed 1 --summary-json "$dir/summary.json" >"$dir/log" 2>&1 ||
    { tail -n 20 "$dir/log" >&2; echo "the $scale x night failed" >&2; exit 1; }
  end=$(date +%s.%N)
  peak=$(sed -n 's/.*rank 0 peak resident memory (VmHWM): \([0-9]*\) MiB.*/\1/p' "$dir/log")
  read -r shapes candidates < <(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print(len(d['shapes']), sum(sum(s['candidates'].values()) for s in d['shapes']))" "$dir/summary.json")
  awk -v s="$scale" -v n="$shapes" -v c="$candidates" -v w="$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')" \
    -v j="$(stat -c %s "$dir/journal")" -v p="$peak" \
    'BEGIN { printf "%5s %6s %11s %8.1f %10.1f %12s\n", s, n, c, w, j / 1048576, p }'
done
