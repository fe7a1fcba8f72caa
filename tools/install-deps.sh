#!/usr/bin/env bash
# Installs every Debian 12 package fhmoe-tune needs (build, run, tests, Slurm tests, plots).
# Idempotent: when everything is present it does not touch apt at all. Run as root (or with
# sudo available). Prints what it installs.
set -euo pipefail

packages=(
  # build
  build-essential cmake pkg-config git
  # MPI (Open MPI 4.1 with PMIx, which srun --mpi=pmix needs)
  openmpi-bin libopenmpi-dev
  # serial HDF5 (rank 0 writes the archive), its tools, and Debian's h5py for readers
  libhdf5-dev hdf5-tools python3 python3-h5py python3-numpy python3-matplotlib python3-pandas
  # C++ libraries
  libcxxopts-dev libspdlog-dev libgtest-dev libgmock-dev nlohmann-json3-dev zlib1g-dev
  # formatting check
  clang-format
  # AMD compile check of the gpu backend (Debian's HIP 5.2; no AMD GPU is needed to compile)
  hipcc
  # the single-node Slurm cluster of the slurm tests
  munge slurmctld slurmd slurm-client slurm-wlm-basic-plugins
  # process tools the tests use (pgrep/kill)
  procps
  # xz: the device bundle's compressed binaries (tools/gpu, tests/tools)
  xz-utils
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# Package scripts must not try to start daemons on machines without systemd.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
