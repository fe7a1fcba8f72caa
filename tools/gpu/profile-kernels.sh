#!/usr/bin/env bash
# Runs on the GPU machine (from the carried tree's root, .device/ carried): Nsight Compute
# on the default candidate's kernels of one eager op run per token count (cold L2: ncu
# flushes the caches before each profiled kernel; clocks left as they run in serving), plus
# the register use of the matrix kernels. For finding what bounds a kernel, not for timing.
#   tools/gpu/profile-kernels.sh [TOKENS...]   (default 1 4 64 2048)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/device-out}"
mkdir -p "$out"
bin="$root/.device/bin"
export LD_LIBRARY_PATH="$root/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
tokens=("$@")
[ ${#tokens[@]} -eq 0 ] && tokens=(1 4 64 2048)
cuobjdump --dump-resource-usage "$bin/fhmoe_gpu_bench" 2>/dev/null |
  awk '/Function/ { name = $2 } /REG:/ { print name, $0 }' | grep -E "matrix_stage|fused_routing" |
  sed -E 's/ +/ /g' | cut -c1-220 > "$out/resource_usage.txt"
stalls="long_scoreboard short_scoreboard wait barrier math_pipe_throttle mio_throttle lg_throttle not_selected selected no_instruction dispatch_stall drain membar branch_resolving"
metrics="gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,smsp__warps_launched.sum"
for s in $stalls; do metrics="$metrics,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
for t in "${tokens[@]}"; do
  count=3
  [ "$t" -gt 146 ] && count=6  # three-launch routing + quantization above 1024 entries
  echo "=== tokens $t"
  timeout 150 ncu --clock-control none --cache-control all --kernel-name regex:'routing|sorting|quant|matrix_stage' \
    --launch-count "$count" --metrics "$metrics" \
    "$bin/fhmoe_gpu_bench" --tokens "$t" --iters 1 --warmup 0 --candidates default \
    --reference-max-tokens 0 > "$out/ncu_t$t.txt" 2>&1
  echo "exit $?"
  grep -E "^  [a-z_:]+.*\(|gpu__time|dram__|lts__|sm__|smsp__|launch__" "$out/ncu_t$t.txt" |
    sed -E 's/smsp__average_warps_issue_stalled_(.*)_per_issue_active.ratio/stall_\1/' |
    awk '{ if (NF >= 3 && $1 ~ /^(gpu|dram|lts|sm|smsp|launch|stall)/) print "   ", $1, $(NF-1), $NF; else print }'
done
