#!/usr/bin/env bash
# Runs on the borrowed GPU machine, from the repository root of the carried tree, with
# .device/ carried (tools/gpu/stage-device-bundle.sh): the gpu tests (gtest binaries, run
# directly: ctest's files name this machine's paths), the gpu fault matrix through the real
# supervisor, the bench table, and on a machine with two GPUs a 2-rank fhmoe_tune_mpi over
# the small shapes. Logs go to $OUT (the device tool's folder) or ./device-out.
#   tools/gpu/device-run.sh [sass] [tests] [faults] [bench] [peers] [mpi] [loads] [stream]
#                           [onelaunch] [record]
# (default: all but loads, stream, onelaunch and record; loads is bench/shape_load, a DSV4
# shape load's phases, issue #16, with FHMOE_LOADS_ARGS, e.g. "--tokens 1,16,2048"; stream is
# tools/gpu/bench/gpu_stream_bound, the bytes of a decode step read bare; onelaunch is
# tools/gpu/bench/one_launch_step, the one-token step as one launch, checked and timed beside
# the op (FHMOE_ONE_LAUNCH_ARGS); record is issue #11's record in one call: sass tests faults
# peers bench, then tools/gpu/record_table.py on the bench and the peers, its table and the
# issue's clauses in record.txt).
# Each step is cut off after FHMOE_STEP_TIMEOUT seconds (180), so one stuck step cannot spend
# the whole lease; with FHMOE_CALL_BUDGET (seconds for the whole call) each step also ends
# 10 s before that budget does, so the last step (the bench, in a record) gets what is left.
# The device tool brings back at most 8 files: at the end every log but the tables (bench.txt,
# peers.txt, peers.json, sass_summary.txt, record.txt, stream_bound.txt, one_launch.txt) and the
# caller's own log (run*, device-run*) goes into logs.tgz.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/device-out}"
mkdir -p "$out"
bin="$root/.device/bin"
export LD_LIBRARY_PATH="$root/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FHMOE_SOURCE_DIR="$root" FHMOE_WORKER="$bin/fhmoe_worker"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(sass tests faults bench peers mpi)
record=0
for s in "${steps[@]}"; do [ "$s" = "record" ] && record=1; done
[ "$record" = 1 ] && steps+=(sass tests faults peers bench)
status=0
call_start=$(date +%s)
# Seconds the next step may run: FHMOE_STEP_TIMEOUT, within what FHMOE_CALL_BUDGET leaves.
step_limit() {
  local limit="${FHMOE_STEP_TIMEOUT:-180}" left
  if [ -n "${FHMOE_CALL_BUDGET:-}" ]; then
    left=$(( FHMOE_CALL_BUDGET - ($(date +%s) - call_start) - 10 ))
    [ "$left" -lt "$limit" ] && limit=$left
    [ "$limit" -lt 1 ] && limit=1
  fi
  echo "$limit"
}
# stage-device-bundle.sh carries the binaries and libraries xz-compressed (a call carries
# 64 MiB at most, the tree included): unpacked here, once per call.
for packed in "$bin"/*.xz "$root"/.device/lib/*.xz; do
  [ -e "$packed" ] || continue
  xz -dc "$packed" > "${packed%.xz}" && chmod +x "${packed%.xz}" || status=1
done
want() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
section() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

section "machine"
nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.total,clocks.sm,clocks.mem \
  --format=csv | tee "$out/machine.txt"
nproc | tee -a "$out/machine.txt"

if want sass; then
  section "sass: matrix instructions in the stage kernels"
  # The hot loops of both stages must run on the tensor cores: per kernel, its mma.sync
  # instructions (HMMA) and its warpgroup ones (QGMMA: FP8, HGMMA: FP16/BF16).
  sass="$(mktemp)"
  cuobjdump --dump-sass "$bin/gpu_op_test" > "$sass" 2>&1
  # The whole list to the file first: `tee | head` lost its tail when head closed the pipe.
  awk '/Function :/ { name = $3; seen[name] = 1 } / HMMA/ { h[name]++ } /QGMMA|HGMMA/ { q[name]++ }
       END { print "HMMA", "QGMMA/HGMMA", "kernel"; for (n in seen) if (h[n] + q[n] > 0) print h[n] + 0, q[n] + 0, n }' \
    "$sass" | grep -E "kernel$|matrix_stage" | sort -k3 > "$out/sass_summary.txt"
  head -80 "$out/sass_summary.txt"
  echo "($(grep -c matrix_stage "$out/sass_summary.txt") stage kernels with matrix instructions," \
    "$(awk '$2 > 0' "$out/sass_summary.txt" | grep -c matrix_stage) of them with warpgroup ones)"
  grep -m2 -E " HMMA" "$sass" | tee -a "$out/sass_summary.txt"
  grep -m2 -E "QGMMA" "$sass" | tee -a "$out/sass_summary.txt"
  rm -f "$sass"
  [ -s "$out/sass_summary.txt" ] || status=1
fi
if want tests; then
  section "gpu_op_test"
  CUDA_VISIBLE_DEVICES=0 timeout "$(step_limit)" "$bin/gpu_op_test" --gtest_brief=1 2>&1 | tee "$out/gpu_op_test.log" \
    | tail -40 || status=1
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  section "gpu_quantizer_test"
  CUDA_VISIBLE_DEVICES=0 timeout "$(step_limit)" "$bin/gpu_quantizer_test" --gtest_brief=1 2>&1 | tee "$out/gpu_quantizer_test.log" \
    | tail -20 || status=1
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if want faults; then
  section "gpu_fault_matrix_test"
  CUDA_VISIBLE_DEVICES=0 timeout "$(step_limit)" "$bin/gpu_fault_matrix_test" 2>&1 | tee "$out/gpu_fault_matrix.log" \
    | grep -E "^\[( +OK|  FAILED|  PASSED|==========)|Failure|Expected|Which is|detail" | tail -40
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if want peers; then
  section "peers: PyTorch on the same shapes"
  PYTHONUNBUFFERED=1 timeout "$(step_limit)" python3 bench/peers/torch_moe_peers.py \
    --json "$out/peers.json" ${FHMOE_PEERS_ARGS:-} > "$out/peers.txt" 2>&1
  [ $? -eq 0 ] || status=1
  tail -30 "$out/peers.txt"
fi
if want bench; then
  section "fhmoe_gpu_bench"
  CUDA_VISIBLE_DEVICES=0 timeout "$(step_limit)" "$bin/fhmoe_gpu_bench" ${FHMOE_BENCH_ARGS:-} \
    > "$out/bench.txt" 2> "$out/bench.err"
  [ $? -eq 0 ] || status=1
  cat "$out/bench.err" "$out/bench.txt"
fi
# A program whose whole output is a table: into $out/FILE, then printed.
table_step() {
  local title="$1" file="$2"
  shift 2
  section "$title"
  CUDA_VISIBLE_DEVICES=0 timeout "$(step_limit)" "$@" > "$out/$file" 2>&1 || status=1
  cat "$out/$file"
}
# shellcheck disable=SC2086  # the ARGS variables are word lists
want stream && table_step "gpu_stream_bound: a decode step's bytes read bare, in three launches and in one" \
  stream_bound.txt "$bin/gpu_stream_bound"
# shellcheck disable=SC2086
want onelaunch && table_step "one_launch_step: a one-token step as one persistent launch, against the reference" \
  one_launch.txt "$bin/one_launch_step" ${FHMOE_ONE_LAUNCH_ARGS:-}
# shellcheck disable=SC2086
want loads && table_step "shape_load: a DSV4 shape load's phases" shape_load.txt "$bin/shape_load" \
  ${FHMOE_LOADS_ARGS:-}
if want mpi; then
  gpus=$(nvidia-smi -L | wc -l)
  if [ ! -x "$bin/fhmoe_tune_mpi" ]; then
    section "mpi: skipped, no fhmoe_tune_mpi in the bundle"
  elif [ "$gpus" -lt 2 ]; then
    section "mpi: skipped, $gpus GPU(s) here"
  else
    section "fhmoe_tune_mpi, 2 ranks, --backend gpu, small shapes"
    # The Open MPI runtime comes as one archive (stage-device-bundle.sh) unless carried unpacked.
    if [ ! -f "$root/.device/openmpi/env.sh" ] && [ -f "$root/.device/openmpi.tar.xz" ]; then
      xz -dc "$root/.device/openmpi.tar.xz" | tar -C "$root/.device" -xf - || status=1
    fi
    # shellcheck disable=SC1091
    source "$root/.device/openmpi/env.sh"
    work="$(mktemp -d)"
    cp configs/untuned_fhmoe_small.csv "$work/untuned.csv"
    # A seeded sample per shape keeps the run to a minute; FHMOE_TUNE_ARGS adds flags.
    timeout "$(step_limit)" mpirun --allow-run-as-root --bind-to none -np 2 "$bin/fhmoe_tune_mpi" --backend gpu \
      --worker "$bin/fhmoe_worker" --candidate-sample 24 --warmup 3 --iters 21 --timeout 30 \
      --evidence "$work/evidence.h5" --summary-json "$work/summary.json" ${FHMOE_TUNE_ARGS:-} \
      -i "$work/untuned.csv" -o "$work/tuned.csv" 2>&1 \
      | tee "$out/tune_mpi.log" | tail -40
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    cp "$work"/tuned.csv "$work"/summary.json "$out/" 2>/dev/null
    ls -la "$work" | tee -a "$out/tune_mpi.log"
    # The evidence as a user reads it the morning after: the summary, and one shape's
    # candidates with where and how long its race ran.
    section "fhmoe_evidence summary / show"
    "$bin/fhmoe_evidence" summary "$work/evidence.h5" 2>&1 | tee "$out/evidence_summary.txt" | tail -12
    "$bin/fhmoe_evidence" show "$work/evidence.h5" --shape t16_h512_i128_e17_k5_gui 2>&1 \
      | tee "$out/evidence_show.txt" | head -12
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  fi
fi
if [ "$record" = 1 ]; then
  section "record: issue #11's table and clauses (tools/gpu/record_table.py)"
  python3 tools/gpu/record_table.py "$out/bench.txt" --peers "$out/peers.json" > "$out/record.txt" 2>&1
  # 1: a clause not met (the table says which); 2: an input it could not read.
  [ $? -le 1 ] || status=1
  cat "$out/record.txt"
fi
# The device tool brings back at most 8 files: the tables stay, the rest goes into one archive.
(
  cd "$out" || exit 0
  logs=()
  for f in *; do
    case "$f" in
      # The caller's own log of this run (run*.txt, device-run*.log) may still be being written.
      bench.txt|peers.txt|peers.json|sass_summary.txt|record.txt|stream_bound.txt|one_launch.txt|run*|device-run*|logs.tgz) ;;
      *) [ -f "$f" ] && logs+=("$f") ;;
    esac
  done
  [ ${#logs[@]} -gt 0 ] && tar czf logs.tgz "${logs[@]}" && rm -f "${logs[@]}"
)
section "done, status $status"
exit $status
