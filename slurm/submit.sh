#!/usr/bin/env bash
# Submits one of the sbatch scripts with the cluster geometry taken from the environment, for
# sites that drive jobs from CI variables rather than from sbatch flags:
#   FHMOE_NODES=4 FHMOE_GPUS_PER_NODE=8 slurm/submit.sh tune [extra sbatch args...]
#   FHMOE_TUNED_CSV=/shared/fhmoe/tuned_fhmoe.csv slurm/submit.sh nightly --partition=gpu
# One MPI rank per GPU: --ntasks-per-node is the number of GPUs per node, --gpus-per-task=1.
# Unset variables keep the script's #SBATCH defaults. Prints the job id.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case ${1:-} in
  tune) script=$here/fhmoe_tune.sbatch ;;
  nightly) script=$here/nightly_retune.sbatch ;;
  *)
    echo "usage: $0 tune|nightly [sbatch args...]" >&2
    exit 2
    ;;
esac
shift
geometry=()
[ -z "${FHMOE_NODES:-}" ] || geometry+=(--nodes="$FHMOE_NODES")
[ -z "${FHMOE_GPUS_PER_NODE:-}" ] || geometry+=(--ntasks-per-node="$FHMOE_GPUS_PER_NODE" --gpus-per-task=1)
exec sbatch --parsable "${geometry[@]}" "$@" "$script"
