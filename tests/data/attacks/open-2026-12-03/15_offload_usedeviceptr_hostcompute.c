/* WRONG: the HOST threads compute every sweep, writing straight into the device's copy of the block (use_device_ptr; only possible because the host plugin's device memory is host memory); the data region makes the report's before/after copies and an empty target region per iteration makes the 'launches' */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *du = u, *dv = unew;
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    {
#pragma omp target data use_device_ptr(du, dv) device(device)
        {
            for (long it = 0; it < iterations; it++) {
                memcpy(u + w, du + w, (size_t)w * sizeof(double));         /* edge rows out, no report */
                memcpy(u + m * w, du + m * w, (size_t)w * sizeof(double));
                exchange_rows(u, m, w, comm);
                memcpy(du, u, (size_t)w * sizeof(double));                  /* halo rows in, no report */
                memcpy(du + (m + 1) * w, u + (m + 1) * w, (size_t)w * sizeof(double));
#pragma omp parallel for
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++)
                        dv[i * w + j] = 0.25 * (du[(i - 1) * w + j] + du[(i + 1) * w + j] + du[i * w + j - 1] + du[i * w + j + 1]);
#pragma omp parallel for
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++) du[i * w + j] = dv[i * w + j];
#pragma omp target device(device)
                { }
            }
        }
    }
}
