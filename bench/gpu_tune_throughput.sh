#!/usr/bin/env bash
# Tuning throughput on a GPU: fhmoe_tune_mpi --backend gpu over DSV4 I384 shapes, once per
# search mode on the same seed and candidate sample, then one table: wall, candidates,
# candidates per hour per GPU, wall / GPU-busy, timed runs, and every shape's decision and
# published kernel side by side. GPU-busy is the time workers spent on candidates and races
# (each candidate's and race's started..finished in the evidence, and the incumbent's
# re-measurement in every further chunk of its shape, `incumb_s`, at its own row's duration:
# the archive keeps one merged row per candidate): what the run could not have done with
# less, so wall / GPU-busy is the share of wall clock lost to loads, dispatch and MPI. `runs`:
# warm-up and timed runs of the chunks' measurements (screens and the incumbent's
# re-measurements included, the checked runs and the races not); host_ms/cand: a candidate's started..finished less its
# runs at its mean time, the worker's own cost per candidate (preparing, checking, capturing).
# Shape loads are rank 0's log lines.
#
# Usage (on the GPU machine, from the repository root, .device/ carried):
#   bench/gpu_tune_throughput.sh [BIN_DIR]     (default .device/bin, else build/cuda/src/app)
# Environment: TOKENS ("1 16 256"), SAMPLE (candidates per shape, 128), SEED (1), SEARCHES
# ("screen exhaustive": the short run first, so a cut-off loses less), TUNE_ARGS (more flags
# for both runs), BACKEND (gpu; sim or cpu to try the script without a GPU), OUT (logs;
# default a temporary folder).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${1:-}
if [ -z "$bin" ]; then
  if [ -x .device/bin/fhmoe_tune_mpi ]; then bin=.device/bin; else bin=build/cuda/src/app; fi
fi
bin=$(cd "$bin" && pwd)
for tool in fhmoe_tune_mpi fhmoe_worker fhmoe_evidence; do
  [ -x "$bin/$tool" ] || { echo "no $bin/$tool: build with tools/gpu/build-cuda.sh" >&2; exit 2; }
done
if [ -f "$root/.device/openmpi/env.sh" ]; then
  # shellcheck disable=SC1091
  source "$root/.device/openmpi/env.sh"
fi
[ -d "$root/.device/lib" ] && export LD_LIBRARY_PATH="$root/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
tokens=${TOKENS:-1 16 256}
sample=${SAMPLE:-128}
seed=${SEED:-1}
searches=${SEARCHES:-screen exhaustive}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

# The DSV4 rows of the untuned CSV at the chosen tokens (header kept).
untuned="$out/untuned.csv"
awk -F, -v want=" $tokens " 'NR == 1 || index(want, " " $1 " ") > 0' configs/untuned_fhmoe.csv > "$untuned"

for search in $searches; do
  dir="$out/$search"
  rm -rf "$dir" && mkdir -p "$dir"
  start=$(date +%s.%N)
  mpirun --allow-run-as-root --bind-to none -np 1 "$bin/fhmoe_tune_mpi" --backend "${BACKEND:-gpu}" \
    --worker "$bin/fhmoe_worker" --search "$search" --candidate-sample "$sample" --seed "$seed" \
    --evidence "$dir/evidence.h5" --summary-json "$dir/summary.json" --progress lines \
    ${TUNE_ARGS:-} -i "$untuned" -o "$dir/tuned.csv" > "$dir/tune.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }' > "$dir/wall_s"
  echo "$search: exit $rc, $(cat "$dir/wall_s") s" >&2
  "$bin/fhmoe_evidence" export "$dir/evidence.h5" --csv "$dir/csv" > /dev/null 2>&1 ||
    echo "$search: no evidence to export" >&2
done

python3 - "$out" $searches <<'EOF'
import csv, os, re, sys
out, searches = sys.argv[1], sys.argv[2:]

def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

runs = {}
for s in searches:
    d = os.path.join(out, s)
    cands = rows(os.path.join(d, "csv", "candidates.csv"))
    decisions = rows(os.path.join(d, "csv", "decisions.csv"))
    shapes = {r["shape_id"]: r["shape_key"] for r in rows(os.path.join(d, "csv", "shapes.csv"))}
    busy_ns = sum(int(r["finished_unix_ns"]) - int(r["started_unix_ns"]) for r in cands
                  if int(r["finished_unix_ns"]) > 0 and int(r["started_unix_ns"]) > 0)
    race_ns = sum(int(r["race_finished_unix_ns"]) - int(r["race_started_unix_ns"]) for r in decisions
                  if int(r["race_finished_unix_ns"]) > 0 and int(r["race_started_unix_ns"]) > 0)
    keys = {(r["shape_id"], r["candidate_key"]) for r in cands}
    # Host time per measured candidate: its started..finished less its runs' device time
    # (checked run + warm-up + timed runs at the candidate's mean), an estimate of what the
    # worker spends preparing, checking and capturing per candidate.
    policy = {r["name"]: r["value"] for r in rows(os.path.join(d, "csv", "policy.csv"))}
    warmup = float(policy.get("warmup", 0) or 0)
    screen_warmup = float(policy.get("screen_warmup", 0) or 0)

    def run_count(r):  # warm-up and timed runs of one candidate (the checked run not counted)
        screen = 0.0
        if r.get("screened") == "true":
            screen = screen_warmup + int(r.get("screen_runs") or 0)
            if r.get("pruned") == "true":
                return screen
        return screen + warmup + int(r["n_raw"] or 0)

    ok = [r for r in cands if r["status"] == "ok" and int(r["started_unix_ns"]) > 0]
    # Every chunk measures the shape's incumbent in full, but the archive keeps one merged row
    # per candidate: the re-measurements in the shape's other chunks are GPU work that no row
    # shows, counted here at the incumbent row's own duration and runs.
    incumbent_key = {d["shape_id"]: d["incumbent_key"] for d in decisions}
    incumbent_ns, incumbent_runs = 0, 0
    for shape_id, key in incumbent_key.items():
        chunks = {r["chunk"] for r in cands if r["shape_id"] == shape_id}
        row = next((r for r in ok if r["shape_id"] == shape_id and r["candidate_key"] == key), None)
        if row is not None and len(chunks) > 1:
            incumbent_ns += (len(chunks) - 1) * (int(row["finished_unix_ns"]) -
                                                 int(row["started_unix_ns"]))
            incumbent_runs += (len(chunks) - 1) * run_count(row)
    host = [(int(r["finished_unix_ns"]) - int(r["started_unix_ns"])) / 1e6
            - (run_count(r) + 1) * float(r["mean_us"]) / 1e3 for r in ok]
    wall = float(open(os.path.join(d, "wall_s")).read())
    loads = []
    with open(os.path.join(d, "tune.log"), errors="replace") as f:
        for line in f:
            m = re.search(r"load(?:ed)? .*?(t\d+_\S+).*? in ([0-9.]+) ?s", line)
            if m:
                loads.append((m.group(1), float(m.group(2))))
    runs[s] = dict(cands=cands, decisions=decisions, shapes=shapes,
                   busy=(busy_ns + incumbent_ns + race_ns) / 1e9, race=race_ns / 1e9,
                   incumbent=incumbent_ns / 1e9, candidates=len(keys), measured=len(cands),
                   timed=int(sum(run_count(r) for r in ok) + incumbent_runs), wall=wall,
                   loads=loads,
                   pruned=sum(1 for r in cands if r.get("pruned") == "true"),
                   host_ms=sum(host) / len(host) if host else float("nan"))

print("search      wall_s  candidates  measured  pruned  cand/h/GPU  busy_s  race_s  incumb_s  "
      "wall/busy  runs  host_ms/cand  max_load_s")
for s in searches:
    r = runs[s]
    rate = r["candidates"] / r["wall"] * 3600 if r["wall"] > 0 else 0
    ratio = r["wall"] / r["busy"] if r["busy"] > 0 else float("nan")
    max_load = max((t for _, t in r["loads"]), default=float("nan"))
    print(f"{s:10s} {r['wall']:7.1f} {r['candidates']:11d} {r['measured']:9d} {r['pruned']:7d} "
          f"{rate:11.0f} {r['busy']:7.1f} {r['race']:7.1f} {r['incumbent']:9.1f} {ratio:10.3f} "
          f"{r['timed']:5d} "
          f"{r['host_ms']:13.2f} {max_load:11.2f}")
for s in searches:
    for shape, seconds in runs[s]["loads"]:
        print(f"load {s:10s} {shape:32s} {seconds:6.2f} s")

# Decisions side by side; where the published kernels differ, the exhaustive run's own
# measurement of both (relative to its incumbent) says whether the difference matters.
print()
first = "exhaustive" if "exhaustive" in searches else searches[0]
exhaustive_rel = {}
for r in runs[first]["cands"]:
    if r["status"] == "ok" and r["relative_to_incumbent"] not in ("", "nan"):
        exhaustive_rel[(r["shape_key"], r["candidate_key"])] = float(r["relative_to_incumbent"])
by_shape = {}
for s in searches:
    for d in runs[s]["decisions"]:
        key = runs[s]["shapes"].get(d["shape_id"], d["shape_id"])
        by_shape.setdefault(key, {})[s] = d
print("shape".ljust(30) + "".join(f"  {s + ' decision':>20s}  {s + ' published_us':>22s}" for s in searches)
      + "  same  other/own (" + first + "'s times)")
same = 0
for key in sorted(by_shape, key=lambda k: int(re.match(r"t(\d+)", k).group(1)) if re.match(r"t(\d+)", k) else 0):
    ds = by_shape[key]
    line = key.ljust(30)
    published = []
    for s in searches:
        d = ds.get(s)
        if d is None:
            line += f"  {'-':>20s}  {'-':>22s}"
            published.append(None)
            continue
        us = d["best_challenger_us"] if d["published_key"] == d["best_challenger_key"] else d["incumbent_us"]
        line += f"  {d['decision']:>20s}  {float(us):22.1f}"
        published.append(d["published_key"])
    agree = len(set(published)) == 1 and published[0] is not None
    same += agree
    line += f"  {'yes' if agree else 'no':>4s}"
    if not agree and all(published):
        own_index = searches.index(first)
        own = exhaustive_rel.get((key, published[own_index]))
        other = exhaustive_rel.get((key, published[1 - own_index if len(published) == 2 else -1]))
        if own and other:
            line += f"  {other / own:.4f}"
    print(line)
    for s, p in zip(searches, published):
        print(f"    {s:10s} {p}")
print(f"\nsame published kernel: {same} of {len(by_shape)} shapes")
EOF
