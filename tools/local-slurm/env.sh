# Source this to point srun/sbatch/squeue at the local test cluster:
#   source tools/local-slurm/env.sh
# shellcheck shell=bash
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export FHMOE_SLURM_STATE_DIR
