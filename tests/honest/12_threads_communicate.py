"""Right answers to lab 12 written another way (the slice exchange so far): one shared
communicator with a tag pair per thread and MPI_Sendrecv, or communicators made by MPI_Comm_split
and ceil-sized slices with MPI_Isend/MPI_Irecv and single waits."""

from honest import right

HONEST = [
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) comms[t] = comm;  /* one communicator: tags per thread */
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = t * nx / T, hi = (t + 1) * nx / T;
    int n = (int)(hi - lo);
    MPI_Sendrecv(&a[m * w + 1 + lo], n, MPI_DOUBLE, down, 2 * t, &a[1 + lo], n, MPI_DOUBLE, up,
                 2 * t, mine, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[w + 1 + lo], n, MPI_DOUBLE, up, 2 * t + 1, &a[(m + 1) * w + 1 + lo], n,
                 MPI_DOUBLE, down, 2 * t + 1, mine, MPI_STATUS_IGNORE);
}
""", why="one communicator for all, two tags per thread, MPI_Sendrecv"),
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_split(comm, 0, 0, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    const long w = nx + 2;
    const int T = omp_get_num_threads(), t = omp_get_thread_num();
    const long b = (nx + T - 1) / T;  /* ceil-sized slices, the last one shorter */
    long lo = t * b < nx ? t * b : nx, hi = lo + b < nx ? lo + b : nx;
    int n = (int)(hi - lo);
    double *top = a + 1 + lo, *first = a + w + 1 + lo;
    double *last = a + m * w + 1 + lo, *bottom = a + (m + 1) * w + 1 + lo;
    MPI_Request r[4];
    MPI_Isend(first, n, MPI_DOUBLE, up, 7, mine, &r[0]);
    MPI_Isend(last, n, MPI_DOUBLE, down, 8, mine, &r[1]);
    MPI_Irecv(bottom, n, MPI_DOUBLE, down, 7, mine, &r[2]);
    MPI_Irecv(top, n, MPI_DOUBLE, up, 8, mine, &r[3]);
    for (int k = 3; k >= 0; k--) MPI_Wait(&r[k], MPI_STATUS_IGNORE);
}
""", why="MPI_Comm_split communicators, ceil-sized slices, sends first, one MPI_Wait each"),
]
