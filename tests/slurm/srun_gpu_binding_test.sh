#!/usr/bin/env bash
# `srun -n 4 --gpus-per-task=1` on the local cluster: every task gets its own (fake) GPU,
# i.e. 4 distinct CUDA_VISIBLE_DEVICES values, and the 4 tasks form one MPI job in which the
# project's MPI smoke test passes.
# Usage: srun_gpu_binding_test.sh <mpi_smoke_test binary>
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
smoke_test=${1:?usage: $0 <mpi_smoke_test binary>}
work=$(fresh_work_dir "$test_name")

srun_exit=0
srun -n 4 --gpus-per-task=1 --chdir="$work" "$FHMOE_SOURCE_DIR/tests/slurm/print_rank_gpu.sh" \
  "$smoke_test" >"$work/srun.out" 2>&1 || srun_exit=$?
cat "$work/srun.out"
[ "$srun_exit" -eq 0 ] || fail "srun exited with status $srun_exit"

# task -> device, from the lines print_rank_gpu.sh wrote.
mapfile -t bindings < <(sed -n 's/^task \([0-9]*\) of 4 .*: CUDA_VISIBLE_DEVICES=\(.*\)$/\1 \2/p' "$work/srun.out" | sort -n)
[ ${#bindings[@]} -eq 4 ] || fail "expected 4 task lines, got ${#bindings[@]}"
tasks=$(printf '%s\n' "${bindings[@]}" | cut -d' ' -f1 | tr '\n' ' ')
[ "$tasks" = "0 1 2 3 " ] || fail "tasks seen: '$tasks', expected 0 1 2 3"
devices=$(printf '%s\n' "${bindings[@]}" | cut -d' ' -f2)
grep -qx unset <<<"$devices" && fail "a task got no CUDA_VISIBLE_DEVICES"
distinct=$(sort -u <<<"$devices" | wc -l)
[ "$distinct" -eq 4 ] || fail "4 tasks share $distinct distinct CUDA_VISIBLE_DEVICES values: $(tr '\n' ' ' <<<"$devices")"
grep -q '^\[  PASSED  \] 2 tests' "$work/srun.out" || fail "the MPI smoke test did not report its 2 tests passed"
log "PASS: 4 ranks, devices $(tr '\n' ' ' <<<"$devices"), MPI smoke test passed"
