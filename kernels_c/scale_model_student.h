/* Lab 14_simulated_scale: what the student's C cell for scale_model.c defines, and all it may call of the kit
 * (hybridlab.h's public helpers: hl_now, hl_require_level, ...). */
#ifndef SCALE_MODEL_STUDENT_H
#define SCALE_MODEL_STUDENT_H
#include "hybridlab.h"

/* Called by the main thread of every rank, outside any parallel region: sum[i] = the sum over
 * all ranks of comm of their mine[i], for i < n, on every rank. */
void global_sum(const double *mine, double *sum, int n, MPI_Comm comm);

#endif
