#!/usr/bin/env bash
# Builds the CPU/sim tree under AddressSanitizer + UndefinedBehaviorSanitizer (CMake preset
# "asan": RelWithDebInfo, warnings are errors, no bench/) and runs every test except the gpu,
# slurm, format and mpi ones under it (README, Tests, says why not mpi yet) (ctest preset "asan": timeouts scaled by 3, Open MPI's own
# leaks suppressed by tools/sanitizers/lsan-openmpi.supp).
#
# Every sanitizer report goes to a file under build/asan/sanitizer-reports/, not only to the
# stderr of the process that made it: a worker that a fault test kills on purpose, or whose
# failure the test expects, would otherwise hide a report from the test's verdict. Any report
# fails this script, whatever the tests said.
# Usage: tools/test-asan.sh [extra ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${FHMOE_BUILD_JOBS:-2}"
reports=build/asan/sanitizer-reports
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
rm -rf "$reports"
mkdir -p "$reports"
status=0
ctest --preset asan "$@" || status=$?
# The oom fault's 2^62-byte request makes ASan log "WARNING: AddressSanitizer failed to
# allocate ..." (allocator_may_return_null=1 returns null instead of aborting): that line is
# the fault working, not a finding. Any other line in a report file is one.
for report in "$reports"/*; do
  [ -e "$report" ] || continue
  if grep -qv '^==[0-9]*==WARNING: AddressSanitizer failed to allocate 0x[0-9a-f]* bytes$' "$report"; then
    echo "==== test-asan: sanitizer report $report (the suffix is the process id)" >&2
    cat "$report" >&2
    status=1
  fi
done
exit $status
