/* WRONG: the first touch is made by a NESTED team (inside a one-thread outer region): its threads 1..T-1 are other OS threads than the compute loop's, only their thread numbers match */
void init_arrays(double *a, double *b, long rows, long cols, long chunk) {
    int T = omp_get_max_threads();
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(1)
    {
#pragma omp parallel for schedule(static, chunk) num_threads(T)
        for (long i = 0; i < rows; i++)
            for (long j = 0; j < cols; j++) {
                a[i * cols + j] = (double)((i + j) % 7);
                b[i * cols + j] = (double)(1 + i % 3);
            }
    }
    omp_set_max_active_levels(1);
}
