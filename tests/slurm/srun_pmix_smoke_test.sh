#!/usr/bin/env bash
# The project's MPI smoke test under srun: with an explicit --mpi=pmix and with the cluster's
# MpiDefault=pmix. The smoke test asserts MPI_COMM_WORLD has 4 ranks, so a launch in which
# PMIx did not wire the tasks together (4 singletons of size 1) fails it.
# Usage: srun_pmix_smoke_test.sh <mpi_smoke_test binary>
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
smoke_test=${1:?usage: $0 <mpi_smoke_test binary>}
work=$(fresh_work_dir "$test_name")

run_smoke() {  # run_smoke <label> <srun args...>
  local label=$1 out=$work/$1.out srun_exit=0
  shift
  srun "$@" --chdir="$work" "$smoke_test" >"$out" 2>&1 || srun_exit=$?
  cat "$out"
  [ "$srun_exit" -eq 0 ] || fail "$label: srun exited with status $srun_exit"
  grep -q '^\[  PASSED  \] 2 tests' "$out" || fail "$label: smoke test did not report 2 tests passed"
  # Exactly one rank prints the report: more would mean the ranks ran as separate jobs.
  [ "$(grep -c '^\[==========\] Running' "$out")" -eq 1 ] || fail "$label: the ranks did not form one MPI job"
  log "$label: passed"
}
run_smoke explicit_pmix --mpi=pmix -n 4
run_smoke mpi_default -n 4
log "PASS"
