/* alltoall: MPI_Alltoall and MPI_Alltoallv latency, measured the OSU way (osu_alltoall).
 *
 * For each message size s (bytes sent to EACH rank; min_bytes, doubling, up to max_bytes) every
 * rank calls the collective `skip` times untimed, then `iterations` times timed, with a barrier
 * after every call (not timed) so that no rank runs ahead into the next call. Above large_bytes
 * the counts are iterations_large / skip_large (OSU: 1000 / 100 up to 8192 B, 100 / 10 above).
 * Each rank records its own average time per call; rank 0 also records the OSU line: the
 * average, minimum and maximum of those times over the ranks (MPI_Reduce).
 *
 * op=alltoall   MPI_Alltoall(sbuf, s, MPI_BYTE, rbuf, s, MPI_BYTE, comm)
 * op=alltoallv  MPI_Alltoallv with counts s to and from every rank and displacements i*s (what
 *               osu_alltoallv does): the same exchange through the general interface.
 *
 * Hybrid runs: the threads of a rank pack the send buffer and check the receive buffer
 * (schedule static); only the master thread calls MPI (masteronly, MPI_THREAD_FUNNELED is
 * enough). With T threads per rank at the same core count there are T times fewer ranks, so
 * T^2 times fewer messages, each T^2 times larger for the same data per core (Luecke et al., section 5).
 *
 * Correctness: byte i of the block rank r sends to rank d is a pattern of (r, d, i, size); after
 * the last timed call every rank checks every received byte, and a wrong byte fails the run on
 * every rank.
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "OSU-style MPI_Alltoall / MPI_Alltoallv latency over a message-size sweep: per-rank average "
    "and the min/avg/max over ranks, warm-up skipped, every byte checked";

const hl_param hl_kernel_params[] = {
    {"op", "alltoall", "alltoall or alltoallv"},
    {"min_bytes", "1", "smallest message to each rank (the sweep doubles from here)"},
    {"max_bytes", "1048576", "largest message to each rank (OSU's default for collectives: 1 MiB)"},
    {"iterations", "1000", "timed calls per sample, messages up to large_bytes"},
    {"skip", "100", "warm-up calls per sample (discarded), up to large_bytes"},
    {"iterations_large", "100", "timed calls per sample above large_bytes"},
    {"skip_large", "10", "warm-up calls per sample above large_bytes"},
    {"large_bytes", "8192", "messages above this use iterations_large/skip_large (OSU: 8192)"},
    {"samples", "1", "samples per size (OSU takes one)"},
    HL_END_PARAMS,
};

#define BUFFER_LIMIT (1L << 30) /* bytes per buffer per rank */

static unsigned char pattern(long src, long dst, long i, long size) {
    return (unsigned char)((i * 31 + src * 101 + dst * 53 + size * 7 + 5) & 0xff);
}

typedef struct {
    int use_v;
    long iterations, skip, iterations_large, skip_large, large_bytes;
} settings;

/* Fill the send blocks for this size; threads split the blocks. */
static void pack(unsigned char *sbuf, int rank, int size_p, long bytes) {
#pragma omp parallel for schedule(static)
    for (long d = 0; d < size_p; d++)
        for (long i = 0; i < bytes; i++) sbuf[d * bytes + i] = pattern(rank, d, i, bytes);
}

static long verify(const unsigned char *rbuf, int rank, int size_p, long bytes) {
    long wrong = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong)
    for (long s = 0; s < size_p; s++)
        for (long i = 0; i < bytes; i++) wrong += rbuf[s * bytes + i] != pattern(s, rank, i, bytes);
    return wrong;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    settings s;
    const char *op = hl_param_str(ctx, "op");
    long min_bytes = hl_param_long(ctx, "min_bytes", 1, &ok);
    long max_bytes = ok ? hl_param_long(ctx, "max_bytes", 1, &ok) : 0;
    if (ok) s.iterations = hl_param_long(ctx, "iterations", 1, &ok);
    if (ok) s.skip = hl_param_long(ctx, "skip", 0, &ok);
    if (ok) s.iterations_large = hl_param_long(ctx, "iterations_large", 1, &ok);
    if (ok) s.skip_large = hl_param_long(ctx, "skip_large", 0, &ok);
    if (ok) s.large_bytes = hl_param_long(ctx, "large_bytes", 0, &ok);
    long samples = ok ? hl_param_long(ctx, "samples", 1, &ok) : 0;
    if (!ok) return -1;
    if (strcmp(op, "alltoall") == 0) s.use_v = 0;
    else if (strcmp(op, "alltoallv") == 0) s.use_v = 1;
    else return hl_fail(ctx, "unknown op '%s' (valid: alltoall, alltoallv)", op);
    if (min_bytes > max_bytes)
        return hl_fail(ctx, "min_bytes=%ld is above max_bytes=%ld", min_bytes, max_bytes);
    int p = ctx->size, rank = ctx->rank;
    if (max_bytes > BUFFER_LIMIT / p || max_bytes > 2147483647L)
        return hl_fail(ctx, "max_bytes=%ld times %d ranks is above the %ld-byte buffer limit",
                       max_bytes, p, BUFFER_LIMIT);

    size_t cap = (size_t)max_bytes * (size_t)p;
    unsigned char *sbuf = hl_alloc_pages(cap), *rbuf = hl_alloc_pages(cap);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int have = sbuf && rbuf && counts && displs, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(sbuf), free(rbuf), free(counts), free(displs);
        return hl_fail(ctx, "could not allocate two buffers of %zu bytes", cap);
    }
    long wrong = 0;
    for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
        int large = bytes > s.large_bytes;
        long iters = large ? s.iterations_large : s.iterations;
        long skip = large ? s.skip_large : s.skip;
        for (int d = 0; d < p; d++) {
            counts[d] = (int)bytes;
            displs[d] = (int)(bytes * d);
        }
        pack(sbuf, rank, p, bytes);
        for (long sample = 0; sample < samples; sample++) {
            memset(rbuf, 0, (size_t)bytes * (size_t)p); /* stale data must not pass the check */
            MPI_Barrier(comm);
            double timer = 0.0;
            for (long it = 0; it < skip + iters; it++) {
                double t0 = hl_now();
                if (s.use_v)
                    MPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, rbuf, counts, displs, MPI_BYTE,
                                  comm);
                else
                    MPI_Alltoall(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, comm);
                double t1 = hl_now();
                if (it >= skip) timer += t1 - t0;
                MPI_Barrier(comm);
            }
            double mine = timer / (double)iters, lo = 0, hi = 0, sum = 0;
            wrong += verify(rbuf, rank, p, bytes);
            MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
            MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
            MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
            hl_emit(ctx,
                    "\"record\":\"rank\",\"op\":\"%s\",\"bytes\":%ld,\"sample\":%ld,"
                    "\"ranks\":%d,\"threads\":%d,\"iterations\":%ld,\"skip\":%ld,"
                    "\"seconds\":%.9e",
                    op, bytes, sample, p, omp_get_max_threads(), iters, skip, mine);
            if (rank == 0)
                hl_emit(ctx,
                        "\"record\":\"osu\",\"op\":\"%s\",\"bytes\":%ld,\"sample\":%ld,"
                        "\"ranks\":%d,\"threads\":%d,\"iterations\":%ld,\"skip\":%ld,"
                        "\"avg_us\":%.4f,\"min_us\":%.4f,\"max_us\":%.4f",
                        op, bytes, sample, p, omp_get_max_threads(), iters, skip,
                        1e6 * sum / p, 1e6 * lo, 1e6 * hi);
        }
        if (bytes > max_bytes / 2) break; /* no overflow past max_bytes */
    }
    free(sbuf), free(rbuf), free(counts), free(displs);
    long wrong_all = 0;
    MPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, comm);
    if (wrong_all) return hl_fail(ctx, "payload check failed: %ld bytes arrived wrong", wrong_all);
    return 0;
}
