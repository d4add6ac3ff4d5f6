/* Lab 11 (a): the shared-window halo step of shm_halo.c (MPI+MPI: MPI-3 shared memory).
 *
 * Lab 04's 2-D Jacobi grid, split in blocks of rows over the ranks of comm in rank order (the
 * rank above is rank - 1, the one below rank + 1). Each rank's rows live in a BLOCK of memory
 * the kit lays out (a header and two copies of the rows: the grid before and after a sweep);
 * the rank updates its rows from its own block and the last row of the block above / the first
 * row of the block below, read straight from the neighbour's memory when it is on the same node.
 */
#ifndef SHM_HALO_STUDENT_H
#define SHM_HALO_STUDENT_H
#include "hybridlab.h"
#include "hl_node_split.h" /* the nodes, real or made up where the MPI makes none (HL_MADE_UP_NODES) */

/* Called once by every rank of comm, from its main thread. Allocate this rank's block
 * (shm_block_bytes() bytes) in one shared window of the ranks of its node, call shm_init_block on it,
 * find the blocks of the neighbours on the node (NULL for a neighbour that is not there), then
 * for it = 0 .. iterations - 1 call shm_sweep(mine, above, below, it), synchronised so that every
 * neighbour's rows of iteration `it` are written before they are read and not overwritten while
 * they are read. Rows of a neighbour on ANOTHER node arrive as a message into halo_above /
 * halo_below (shm_row_length() values; NULL when the neighbour is on the node; at the grid's edge
 * they hold the fixed boundary row). Call shm_finish(mine) after the last sweep, then free the
 * window. */
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below);

/* The kit's helpers. */
MPI_Aint shm_block_bytes(void);  /* the size of this rank's block */
void shm_init_block(double *mine); /* lays out and fills this rank's block (once, before any sweep) */
long shm_row_length(void);       /* values in one row (the boundary columns included) */
/* This rank's first and last row as they are after `it` sweeps (what a neighbour on another
 * node needs before its sweep `it`). */
const double *shm_first_row(const double *mine, long it);
const double *shm_last_row(const double *mine, long it);
/* Sweep `it` (0, 1, ...): the rows after it + 1 sweeps, from the rows after `it` sweeps of this
 * block and of the neighbours' blocks `above` and `below` (NULL: the row comes from
 * halo_above / halo_below). */
void shm_sweep(double *mine, const double *above, const double *below, long it);
void shm_finish(const double *mine); /* after the last sweep: the kit reads the result */

#endif
