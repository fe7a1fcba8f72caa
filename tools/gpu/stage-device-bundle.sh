#!/usr/bin/env bash
# Gathers what the borrowed GPU machine needs into .device/ (ignored by git; pass it to the
# device tool's `carry`): the CUDA tree's binaries without debug sections, xz-compressed (the
# call carries 64 MiB at most), the shared libraries they use that are not part of the base system, and
# Debian's Open MPI runtime relocated (../shared/reference/device-bundle). That machine has
# no apt and no network. Run tools/gpu/build-cuda.sh first.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bundle_src="${FHMOE_DEVICE_BUNDLE:-$root/../shared/reference/device-bundle}"
out="$root/.device"
build="$root/build/cuda"
mkdir -p "$out/bin" "$out/lib"

binaries=(src/app/fhmoe_worker src/app/fhmoe_run_shape src/app/fhmoe_evidence
          tests/gpu/gpu_op_test tests/gpu/gpu_quantizer_test tests/gpu/gpu_fault_matrix_test tools/gpu/bench/fhmoe_gpu_bench
          bench/shape_load tools/gpu/bench/gpu_stream_bound tools/gpu/bench/one_launch_step)
for b in "${binaries[@]}"; do
  [ -x "$build/$b" ] || { echo "stage-device-bundle: $build/$b is missing" >&2; exit 1; }
done
# The MPI tuner is optional: device-run.sh skips its step without it.
[ -x "$build/src/app/fhmoe_tune_mpi" ] && binaries+=(src/app/fhmoe_tune_mpi)
rm -f "$out"/bin/*
# Stripped and xz-compressed (tools/gpu/device-run.sh unpacks them on the device): the three
# that hold every kernel build are ~17 MB each stripped, ~5 MB compressed, and the call's 64 MiB
# include the tracked tree (~22 MB).
for b in "${binaries[@]}"; do
  strip --strip-debug -o "$out/bin/$(basename "$b")" "$build/$b"
  xz -T2 -6 "$out/bin/$(basename "$b")"
done

# Libraries outside glibc and the compiler runtime, which the Ubuntu 24.04 image has newer.
# Open MPI's own come with the relocated runtime below. Compressed too (21 MB -> ~6), so that
# the binaries, the libraries and the tree fit one call's 64 MiB.
rm -f "$out"/lib/*
for b in "${binaries[@]}"; do
  ldd "$build/$b" | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libgcc_s.so*|libstdc++.so*|ld-linux*) ;;
    libmpi*|libopen-*|libpmix*|libhwloc*|libevent*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
xz -T2 -6 "$out"/lib/*

if [ ! -f "$out/openmpi/env.sh" ]; then
  mkdir -p "$out/openmpi"
  cp "$bundle_src/gather-openmpi.sh" "$bundle_src/env.sh" "$out/openmpi/"
  (cd "$out/openmpi" && ./gather-openmpi.sh >/dev/null && rm -rf debs)
fi
# The runtime as one archive (27 MB -> ~6): with it, a call that runs the MPI tuner carries
# .device/bin, .device/lib and .device/openmpi.tar.xz within the 64 MiB (device-run.sh's mpi
# step unpacks it); the directory itself is over what is left.
tar -C "$out" -cf - openmpi | xz -T2 -6 > "$out/openmpi.tar.xz"
du -sh "$out"/bin "$out"/lib "$out"/openmpi.tar.xz
