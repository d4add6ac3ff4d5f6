/* osu_style_latency: the reference for bench_p2p.py's side-by-side, a minimal copy of the loop of
 * OSU's osu_latency (OSU Micro-Benchmarks 7.4, pt2pt/standard/osu_latency.c), written here with
 * none of the kit's code: no hybridlab.h, MPI_Wtime as OSU's clock.
 *
 * Ranks 0 and 1, each with a send buffer and a separate receive buffer (page-aligned, filled
 * once per size as OSU does); for every size: a barrier, `skip` untimed then `iterations` timed
 * round trips (rank 0 MPI_Send then MPI_Recv, rank 1 MPI_Recv then MPI_Send from its own send
 * buffer), half the round trip printed as one line "bytes microseconds". Sizes above 8192 B use
 * iterations_large and skip_large, as OSU does.
 *
 *     mpiexec -n 2 osu_style_latency MIN_BYTES MAX_BYTES ITERATIONS SKIP ITERATIONS_LARGE SKIP_LARGE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LARGE_MESSAGE 8192

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 7 || size != 2) {
        if (rank == 0) fprintf(stderr, "usage: mpiexec -n 2 %s MIN MAX ITERS SKIP ITERS_LARGE SKIP_LARGE\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    long min_bytes = atol(argv[1]), max_bytes = atol(argv[2]);
    long iterations = atol(argv[3]), skip = atol(argv[4]);
    long iterations_large = atol(argv[5]), skip_large = atol(argv[6]);
    long page = sysconf(_SC_PAGESIZE);
    char *s_buf = NULL, *r_buf = NULL;
    if (posix_memalign((void **)&s_buf, (size_t)page, (size_t)max_bytes) != 0 ||
        posix_memalign((void **)&r_buf, (size_t)page, (size_t)max_bytes) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long bytes = min_bytes; bytes <= max_bytes; bytes = bytes ? bytes * 2 : 1) {
        long iters = bytes > LARGE_MESSAGE ? iterations_large : iterations;
        long warm = bytes > LARGE_MESSAGE ? skip_large : skip;
        memset(s_buf, 'a', (size_t)bytes);
        memset(r_buf, 'b', (size_t)bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        double t_start = 0.0;
        for (long i = 0; i < iters + warm; i++) {
            if (i == warm) t_start = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(s_buf, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(r_buf, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(r_buf, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(s_buf, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        double t_end = MPI_Wtime();
        if (rank == 0) printf("%ld %.6f\n", bytes, (t_end - t_start) * 1e6 / (2.0 * (double)iters));
        fflush(stdout);
    }
    free(s_buf);
    free(r_buf);
    MPI_Finalize();
    return 0;
}
