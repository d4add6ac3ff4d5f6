/* Lab 15: what the student's C cell for offload_halo.c defines, and the kit helper it may call
 * (besides hybridlab.h's public helpers). The grid is lab 04's 2-D Jacobi (hl_grid2d.h's start
 * and stencil); each rank's block lives on its OpenMP device, rank r on device r % devices. */
#ifndef OFFLOAD_HALO_STUDENT_H
#define OFFLOAD_HALO_STUDENT_H
#include "hybridlab.h"

/* The offload runtime's report (LIBOMPTARGET_INFO) is the runtime's lines on stderr, which the
 * kit takes from the runtime's own calls (offload_halo.c, report_take), never from the stream: a
 * cell that names stderr is refused all the same (hybridlab.kernels.unit_checks). */
#define HL_STDERR_IS_EVIDENCE 1

/* (b) variant=student. Called once by every rank: `iterations` Jacobi iterations of this rank's
 * block on `device`. u and unew hold m + 2 rows of w values each (row-major, w = columns + 2):
 * rows 1..m are this rank's, rows 0 and m + 1 its halo (at the grid's top and bottom: the fixed
 * boundary), columns 0 and w - 1 the fixed boundary. One iteration: the halo exchange on the
 * host (exchange_rows), then on the device unew = the stencil of u on rows 1..m, columns
 * 1..w-2, and u = unew there. When the call returns, u on the host holds the result. */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm);
/* (b) The kit's helper: sends the host's rows 1 and m of u to the neighbour ranks and receives
 * their edges into the host's rows 0 and m + 1 (MPI_Sendrecv; nothing at the grid's ends). */
void exchange_rows(double *u, long m, long w, MPI_Comm comm);

#endif
