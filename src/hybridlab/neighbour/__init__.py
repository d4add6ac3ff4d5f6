"""Topic: neighbourhood collectives and an overlapped residual on lab 04's Jacobi grid (lab 13).
exercise: the student's C (kernels_c/neighbour_halo.c) built and judged from its trace, and the
lab's measurements (the only module here that runs kernels). A topic imports the harness; the
harness never imports a topic."""
