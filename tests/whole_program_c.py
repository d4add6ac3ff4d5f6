"""Lab 10's whole program (the instructor's solution) and the grader's probe program, for the
tests of hybridlab.slurm.jobs and the lab's wrong answers and gaming attempts."""

import numpy as np

# the solution of lab 10 (a): the whole hybrid Jacobi (the C cell's text, without its magic line)
JACOBI_PROGRAM = r"""/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the
 * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only
 * outside parallel regions, so FUNNELED is what it needs). */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NEEDED MPI_THREAD_FUNNELED

static const char *level_name(int level) {
    return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                            : "MPI_THREAD_MULTIPLE";
}

/* the fixed value on the edge of the global grid, at global row i and column j */
static double edge(long i, long j, long n) { return (double)(i + 2 * j) / (3.0 * (double)(n + 1)); }

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, NEEDED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < NEEDED) {
        if (rank == 0)
            fprintf(stderr, "jacobi: needs %s but MPI provided %s\n", level_name(NEEDED),
                    level_name(provided));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    long n = argc == 3 ? atol(argv[1]) : 0, iterations = argc == 3 ? atol(argv[2]) : -1;
    if (n < size || iterations < 0) {
        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS (N >= ranks, ITERATIONS >= 0)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* my rows of the interior: global rows first .. first + rows - 1 (the edge is row 0) */
    long rows = n / size + (rank < n % size), w = n + 2;
    long first = 1 + rank * (n / size) + (rank < n % size ? rank : n % size);
    double *u = calloc((size_t)((rows + 2) * w), sizeof *u);
    double *v = calloc((size_t)((rows + 2) * w), sizeof *v);
    if (!u || !v) MPI_Abort(MPI_COMM_WORLD, 3);
    for (long k = 0; k < rows + 2; k++) {
        long i = first - 1 + k;
        for (long j = 0; j < w; j++)
            if (i == 0 || i == n + 1 || j == 0 || j == n + 1) u[k * w + j] = v[k * w + j] = edge(i, j, n);
    }
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    /* where every thread runs: its CPU, read inside a parallel region */
    int threads = omp_get_max_threads();
    int *cpus = malloc((size_t)threads * sizeof *cpus);
#pragma omp parallel
    cpus[omp_get_thread_num()] = sched_getcpu();

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iterations; it++) {
        /* halo exchange (main thread, outside parallel regions): my first row up, last row down */
        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 0, u + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + rows * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp parallel for
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);
        double *t = u;
        u = v;
        v = t;
    }
    double mine = MPI_Wtime() - t0, seconds, local = 0.0, sum;
#pragma omp parallel for reduction(+ : local)
    for (long k = 1; k <= rows; k++)
        for (long j = 1; j <= n; j++) local += u[k * w + j];
    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    /* placement: every rank's threads and host to rank 0, which prints them */
    char host[64] = {0};
    gethostname(host, sizeof host - 1);
    int *all = rank == 0 ? malloc((size_t)(size * threads) * sizeof *all) : NULL;
    char *hosts = rank == 0 ? malloc((size_t)size * sizeof host) : NULL;
    MPI_Gather(cpus, threads, MPI_INT, all, threads, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(host, sizeof host, MPI_CHAR, hosts, sizeof host, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            for (int t = 0; t < threads; t++)
                printf("place rank=%d thread=%d cpu=%d host=%s\n", r, t, all[r * threads + t],
                       hosts + r * sizeof host);
        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\n", n,
               iterations, size, threads, seconds, sum);
        free(all);
        free(hosts);
    }
    free(cpus);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
"""

# the hidden tests' probe: compiled with a token (-DTOKEN=...), it prints each thread's CPU and
# the CPUs it may run on, how many ranks and threads ran and the arguments it was given
PROBE_PROGRAM = r"""/* the grader's probe: where each thread may run and where it runs, and what it was given */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int main(int argc, char **argv) {
    int provided, rank, size, threads = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char lines[64][160] = {{0}};
#ifdef _OPENMP
#pragma omp parallel
#endif
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#pragma omp single
        threads = omp_get_num_threads();
#endif
        cpu_set_t set;
        char allowed[96] = "";
        sched_getaffinity(0, sizeof set, &set);
        for (int c = 0, n = 0; c < CPU_SETSIZE && n < 90; c++)
            if (CPU_ISSET(c, &set)) n += snprintf(allowed + n, sizeof allowed - n, "%s%d", n ? "," : "", c);
        if (t < 64) snprintf(lines[t], sizeof lines[t], "place rank=%d thread=%d cpu=%d allowed=%s", rank, t, sched_getcpu(), allowed);
    }
    /* every rank's lines to rank 0, which prints them all: ranks printing on their own may
       have their lines cut and glued to each other's by the launcher's output forwarding */
    char (*all)[160] = rank == 0 ? calloc((size_t)size * 64, sizeof *all) : NULL;
    MPI_Gather(lines, 64 * 160, MPI_CHAR, all, 64 * 160, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < size * 64; i++)
            if (all[i][0]) printf("%s\n", all[i]);
        free(all);
        printf("probe token=%ld ranks=%d threads=%d argv=", TOKEN, size, threads);
        for (int i = 1; i < argc; i++) printf("%s%s", i > 1 ? "," : "", argv[i]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
"""

# a job script that does what lab 10 (c) asks
JOB_SCRIPT = """#!/bin/bash
#SBATCH --job-name=jacobi
#SBATCH --ntasks=2
#SBATCH --cpus-per-task=1
#SBATCH --time=00:05:00

export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
export OMP_PLACES=cores
export OMP_PROC_BIND=close
srun --ntasks=$SLURM_NTASKS --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind=cores ./jacobi "$@"
"""


def reference_checksum(n: int, iterations: int) -> float:
    """Lab 10's checksum computed by numpy (as the lab's hidden test does)."""
    i, j = np.meshgrid(np.arange(n + 2), np.arange(n + 2), indexing="ij")
    u = np.zeros((n + 2, n + 2))
    edge = (i == 0) | (i == n + 1) | (j == 0) | (j == n + 1)
    u[edge] = ((i + 2 * j) / (3.0 * (n + 1)))[edge]
    for _ in range(iterations):
        v = u.copy()
        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u = v
    return float(u[1:-1, 1:-1].sum())
