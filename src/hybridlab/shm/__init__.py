"""Topic: MPI+MPI, an MPI-3 shared-memory window for the halo inside a node (lab 11). tables:
memory per node and time per iteration from the records of halo2d and shm_halo runs; plots:
their figures; exercise: the lab's runs and the student's shm_jacobi, built and judged from its
trace (the only module here that runs kernels). A topic imports the harness; the harness never
imports a topic."""
