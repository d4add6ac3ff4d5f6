/* WRONG: the threads only look up the bins (bin_of into a private index array); the counting itself - the racy part - is done by the master ALONE after a barrier */
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
    int *idx = malloc((size_t)n * sizeof *idx);
#pragma omp parallel
    {
#pragma omp for
        for (long i = 0; i < n; i++) idx[i] = bin_of(i);
#pragma omp masked
        for (long i = 0; i < n; i++) bins[idx[i]]++;
    }
    free(idx);
}
