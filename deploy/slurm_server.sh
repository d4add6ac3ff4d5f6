#!/bin/bash
#SBATCH --job-name=jupyterhub-{{username}}
#SBATCH --output={{homedir}}/.jupyterhub-slurm-%j.log
#SBATCH --chdir={{homedir}}
#SBATCH --export={{keepvars}}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task={{nprocs}}
#SBATCH --time={{runtime}}
{% if partition %}#SBATCH --partition={{partition}}
{% endif %}{% if account %}#SBATCH --account={{account}}
{% endif %}{% if memory %}#SBATCH --mem={{memory}}
{% endif %}{{options}}
# A student's JupyterLab as one job step with every core of the job (srun no longer passes the
# job's --cpus-per-task on by itself, Slurm >= 22.05). The kit's engines and programs start as
# further steps inside this job, sharing its cores (srun --overlap, src/hybridlab/machine/launcher.py).
set -euo pipefail
# A temporary folder of the job's own, removed when the job ends: logging out cancels the job,
# and kernels killed then leave their files (a lab's controller folder) there, not in /tmp.
# (--export=ALL below: the step gets this script's environment, TMPDIR included, not only the
# hub's variables that sbatch --export passed in.)
export TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/jupyterhub-job-${SLURM_JOB_ID}-XXXXXX")"
trap 'rm -rf "$TMPDIR"' EXIT
trap 'echo SIGTERM received' TERM
{{prologue}}
srun --ntasks=1 --cpus-per-task={{nprocs}} --export=ALL {{cmd}}
echo "jupyterhub-singleuser ended"
{{epilogue}}
