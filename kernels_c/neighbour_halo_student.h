/* Lab 13: what the student's C cells for neighbour_halo.c define, and the kit helper they may
 * call (besides hybridlab.h's public helpers: hl_now, hl_require_level, ...). The grid is lab
 * 04's 2-D Jacobi; MPI is called by the main thread only, outside parallel regions. */
#ifndef NEIGHBOUR_HALO_STUDENT_H
#define NEIGHBOUR_HALO_STUDENT_H
#include "hybridlab.h"

/* (a) variant=student. Called once by every rank: a Cartesian communicator of all the ranks of
 * comm on a dims[0] x dims[1] process grid (rows of processes x columns of processes), not
 * periodic. A 0 in dims is yours to choose (MPI_Dims_create fills it in). */
MPI_Comm make_grid(MPI_Comm comm, int dims[2]);
/* (a) Called every iteration by every rank with the communicator make_grid returned: fill the
 * halo of this rank's block from its neighbours' edges with one neighbourhood collective. `a`
 * holds m + 2 rows of n + 2 values (row-major): rows 1..m, columns 1..n are this rank's; row 0
 * and m + 1, column 0 and n + 1 its halo (at the grid's edge: the fixed boundary, left alone). */
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid);

/* (b) variant=overlap. Called once by every rank: run Jacobi iterations, each one call of
 * jacobi_iteration(), until the first iteration whose residual (the sum over the ranks of comm
 * of what jacobi_iteration returned) is below tolerance, or max_iterations in all. Reduce with
 * MPI_Iallreduce and complete it after the next iteration's call: the convergence test is one
 * iteration late. Returns the residual the test stopped at (the last one received). */
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm);
/* (b) The kit's helper: one iteration of this rank's block (stencil and copy, recorded as
 * computing, then the exchange of halo rows with the neighbour ranks); returns this rank's sum of
 * squared changes. */
double jacobi_iteration(void);

#endif
