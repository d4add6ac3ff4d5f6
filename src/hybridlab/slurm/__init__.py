"""Slurm: jobs (a batch script: sbatch --wait on Slurm, else a one-node local runner) and
local_slurm (a one-node Slurm cluster of the user's own).
"""
