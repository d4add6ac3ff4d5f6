"""Slurm: jobs (a batch script: sbatch --wait on Slurm, else a one-node local runner), steps
(the local runner's `contain` and `srun` processes inside a job) and local_slurm (a one-node
Slurm cluster of the user's own).
"""
