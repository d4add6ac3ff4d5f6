"""Topic: MPI + OpenMP offload on lab 04's Jacobi grid (lab 15). exercise: the kit's variants and
the student's C (kernels_c/offload_halo.c) built with clang's offload target and run with the
offload runtime's report read by the kernel (the only module here that runs kernels), and what
(b) refuses in the cell's compiled code (a device address on the host, a sweep off the device);
tables: what the report says per iteration, and what the grader holds the student's loop to. A
topic imports the harness; the harness never imports a topic."""
