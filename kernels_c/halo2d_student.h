/* Lab 04 (a) and (d): the student's halo exchange and overlapped iteration for halo2d.c.
 * `a` holds m + 2 rows of nx + 2 values (row-major); rows 1..m are this rank's, rows 0 and
 * m + 1 the halos; up/down are MPI_PROC_NULL at the edges of the grid. */
#ifndef HALO2D_STUDENT_H
#define HALO2D_STUDENT_H
#include "hybridlab.h"

/* (a) variant=student: send row 1 to `up` and receive row m + 1 from `down`; send row m to
 * `down` and receive row 0 from `up`. */
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm);
/* (d) variant=overlap: called by every thread of the team once per iteration, inside one
 * parallel region. The master exchanges the halo rows while the team computes the rows that do
 * not need them, then, after a barrier, the two edge rows. */
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm);
/* The kit's helper: computes rows first..last (1 <= first <= last <= m) of the new grid (and
 * records when, for the overlap check). */
void stencil_rows(long first, long last);

#endif
