"""Topic: Python kernels with numba (lab 09). jacobi: halo2d's Jacobi with prange and mpi4py
halos; probe: where numba's threads run and the CPU time of each; tables and plots: launch
nothing; exercise: the runs on the engines and the checks of the student's kernel (the only
module here that runs things)."""
