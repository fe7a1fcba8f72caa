#!/usr/bin/env bash
# Compile check of the gpu backend for AMD with Debian 12's HIP 5.2 toolchain (package
# hipcc; about 66 MB to download, 353 MB installed): every device translation unit of
# kernels/gpu through `hipcc -x hip --offload-arch=gfx90a`, every host one through the C++
# compiler against the HIP runtime API. It compiles, it does not link or run (no AMD GPU here).
# Usage: tools/gpu/hip-compile-check.sh [offload-arch]      (default gfx90a)
set -euo pipefail
cd "$(dirname "$0")/../.."
arch="${1:-gfx90a}"
command -v hipcc >/dev/null || { echo "hip-compile-check: hipcc not installed (apt-get install hipcc)" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
common=(-std=c++20 -O2 -DFHMOE_GPU_BACKEND_HIP=1 -Iinclude -Ikernels -Isrc -Wall -Wextra -Werror)
status=0
for source in kernels/gpu/*.hip; do
  if hipcc -x hip --offload-arch="$arch" "${common[@]}" -c "$source" -o "$out/$(basename "$source").o"; then
    echo "hip-compile-check: ok   $source"
  else
    echo "hip-compile-check: FAIL $source" >&2; status=1
  fi
done
for source in kernels/gpu/*.cpp; do
  if c++ "${common[@]}" -D__HIP_PLATFORM_AMD__=1 -isystem /usr/include/hip -c "$source" \
       -o "$out/$(basename "$source").o"; then
    echo "hip-compile-check: ok   $source"
  else
    echo "hip-compile-check: FAIL $source" >&2; status=1
  fi
done
exit $status
