# /etc/profile.d/hybridlab.sh in the image: a login shell (JupyterLab's terminal is one) gets
# the kit's venv first on PATH (mpicc, mpiexec, hybridlab) and the student's own Slurm, which
# Debian's /etc/profile would otherwise leave out.
export PATH="/opt/hybridlab/.venv/bin:$PATH"
export SLURM_CONF="${SLURM_CONF:-$HOME/.hybridlab-slurm/slurm.conf}"
