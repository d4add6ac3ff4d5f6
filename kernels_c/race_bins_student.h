/* Lab 16 (tools): what the student's C cell for race_bins.c defines, and the kit helper it calls. */
#ifndef RACE_BINS_STUDENT_H
#define RACE_BINS_STUDENT_H
#include "hybridlab.h"

/* Called by the main thread of every rank, outside any parallel region, with bins[0..nbins-1]
 * zero: add one to bins[bin_of(i)] for every i < n, with the threads of an OpenMP parallel region. */
void count_bins(long n, int nbins, long *bins);

/* The kit's: the bin of this rank's element i (0 <= i < n), in 0..nbins-1. Safe to call from any
 * thread at once. */
int bin_of(long i);

#endif
