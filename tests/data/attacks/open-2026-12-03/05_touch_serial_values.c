/* WRONG-ish: the parallel region only writes one zero per page (the placement), the master then writes every value serially; placement right, work serial */
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
#pragma omp parallel for schedule(static, chunk)
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j += 512) {
            a[i * cols + j] = 0.0;
            b[i * cols + j] = 0.0;
        }
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            a[i * cols + j] = (double)((i + j) % 7);
            b[i * cols + j] = (double)(1 + i % 3);
        }
}
