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
# further steps inside this job, sharing its cores (srun --overlap, src/hybridlab/launcher.py).
set -euo pipefail
trap 'echo SIGTERM received' TERM
{{prologue}}
srun --ntasks=1 --cpus-per-task={{nprocs}} {{cmd}}
echo "jupyterhub-singleuser ended"
{{epilogue}}
