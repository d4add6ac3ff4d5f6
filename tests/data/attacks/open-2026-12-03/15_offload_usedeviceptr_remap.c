/* WRONG: the sweep runs on the device, but the WHOLE block is copied to the device copy and back every iteration with host memcpy through use_device_ptr (the host plugin's device memory is host memory), so the runtime's copy report sees only the data region's first and last copies */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    size_t bytes = (size_t)n * sizeof(double);
    double *du = u, *dv = unew;
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    {
#pragma omp target data use_device_ptr(du, dv) device(device)
        {
            for (long it = 0; it < iterations; it++) {
                memcpy(u, du, bytes); /* the whole block back to the host */
                exchange_rows(u, m, w, comm);
                memcpy(du, u, bytes); /* and the whole block to the device */
#pragma omp target teams distribute parallel for collapse(2) device(device) is_device_ptr(du, dv)
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++)
                        dv[i * w + j] = 0.25 * (du[(i - 1) * w + j] + du[(i + 1) * w + j] + du[i * w + j - 1] + du[i * w + j + 1]);
#pragma omp target teams distribute parallel for collapse(2) device(device) is_device_ptr(du, dv)
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++) du[i * w + j] = dv[i * w + j];
            }
        }
    }
}
