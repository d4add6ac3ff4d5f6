/* WRONG: the halo is exchanged only every SECOND iteration (two rows deep, communication-avoiding), not every iteration as the task requires */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *lvl(int l) {
    switch (l) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_FUNNELED) {
        if (rank == 0) printf("jacobi: needs %s but MPI provided %s\n", lvl(MPI_THREAD_FUNNELED), lvl(provided));
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (argc < 3) { if (rank == 0) printf("usage: jacobi N ITERATIONS\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    long N = atol(argv[1]), iters = atol(argv[2]);
    long base = N / size, extra = N % size;
    long m = base + (rank < extra);
    long first = 1 + rank * base + (rank < extra ? rank : extra);
    long w = N + 2, R = m + 4; /* two ghost rows each side: a halo two deep */
    double *u = calloc((size_t)R * w, sizeof(double));
    double *v = calloc((size_t)R * w, sizeof(double));
    double edge = 3.0 * (N + 1);
    for (long k = 0; k < R; k++) {
        long gi = first - 2 + k;
        if (gi < 0 || gi > N + 1) continue;
        for (long j = 0; j < w; j++) {
            double x = 0.0;
            if (gi == 0 || gi == N + 1 || j == 0 || j == N + 1) x = (gi + 2.0 * j) / edge;
            u[k * w + j] = v[k * w + j] = x;
        }
    }
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int nthreads = 1;
    int *cpus = NULL;
#pragma omp parallel
    {
#pragma omp single
        { nthreads = omp_get_num_threads(); cpus = malloc(sizeof(int) * nthreads); }
        cpus[omp_get_thread_num()] = sched_getcpu();
    }
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    int *allc = NULL; char *allh = NULL;
    if (rank == 0) { allc = malloc(sizeof(int) * nthreads * size); allh = malloc(256 * (size_t)size); }
    MPI_Gather(cpus, nthreads, MPI_INT, allc, nthreads, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(host, 256, MPI_CHAR, allh, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int t = 0; t < nthreads; t++)
                printf("place rank=%d thread=%d cpu=%d host=%s\n", r, t, allc[r * nthreads + t], allh + 256 * r);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        long lo = 2, hi = m + 1;
        if (it % 2 == 0) { /* the halo only every SECOND iteration, two rows deep */
            MPI_Sendrecv(u + m * w, (int)(2 * w), MPI_DOUBLE, down, 1, u, (int)(2 * w), MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(u + 2 * w, (int)(2 * w), MPI_DOUBLE, up, 2, u + (m + 2) * w, (int)(2 * w), MPI_DOUBLE, down, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            lo = 1, hi = m + 2;
        }
#pragma omp parallel for
        for (long k = lo; k <= hi; k++) {
            long gi = first - 2 + k;
            if (gi < 1 || gi > N) continue;
            for (long j = 1; j <= N; j++)
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] + u[k * w + j + 1]);
        }
        double *t = u; u = v; v = t;
    }
    double el = MPI_Wtime() - t0, slow;
    MPI_Reduce(&el, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double local = 0.0, sum = 0.0;
    for (long i = 2; i <= m + 1; i++) for (long j = 1; j <= N; j++) local += u[i * w + j];
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\n", N, iters, size, nthreads, slow, sum);
    free(u); free(v); free(cpus); free(allc); free(allh);
    MPI_Finalize();
    return 0;
}
