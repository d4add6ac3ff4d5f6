/* WRONG: the right thread NUMBERS write each chunk, but the team is bound proc_bind(master): on a bound NUMA node every init thread runs on the master's place, so all pages land on the master's node (as a serial init) */
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
#pragma omp parallel for schedule(static, chunk) proc_bind(master)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = (double)((i + j) % 7);
            b[i * cols + j] = (double)(1 + i % 3);
        }
}
