/* Lab 03: the student's overlapped exchange for p2p_overlap.c. */
#ifndef P2P_OVERLAP_STUDENT_H
#define P2P_OVERLAP_STUDENT_H
#include "hybridlab.h"

/* Called by one thread (outside any parallel region), once per sample, on every rank. Send
 * `count` doubles from `out` to `peer` and receive `count` doubles from `peer` into `in` while an
 * OpenMP team calls compute_step(i) once for every i in 0..steps-1. MPI is initialised with
 * MPI_THREAD_FUNNELED: only the master thread may call MPI. It calls MPI_Test (or MPI_Testall)
 * about every `poll` of its steps, so the library can move the message. */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll);
/* The kit's helper: work step i (and a record of when it ran, for the overlap check). */
void compute_step(long i);

#endif
