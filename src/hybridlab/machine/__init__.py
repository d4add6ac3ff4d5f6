"""The machine and how MPI processes land on it: topology (cores, NUMA, the MPI library,
find_mpiexec), placement (ranks x threads x binding, and its launcher flags), thread_levels,
launcher (the mpiexec or Slurm srun command line), probe (the core-to-core probe around a run)
and reaper (process groups stopped whole). Both the run path and the engines stand on it.
"""
