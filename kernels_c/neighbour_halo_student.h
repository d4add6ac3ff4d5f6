/* Lab 13_neighbourhood_collectives: what the student's C cell for neighbour_halo.c defines, and all it may call of the kit
 * (hybridlab.h's public helpers: hl_now, hl_require_level, ...). */
#ifndef NEIGHBOUR_HALO_STUDENT_H
#define NEIGHBOUR_HALO_STUDENT_H
#include "hybridlab.h"

/* Called by the main thread of every rank, outside any parallel region: sum[i] = the sum over
 * all ranks of comm of their mine[i], for i < n, on every rank. */
void global_sum(const double *mine, double *sum, int n, MPI_Comm comm);

#endif
