/* master_race: MPI inside OMP MASTER, with and without the barriers around it.
 *
 * The pattern of Rabenseifner, slides 10-11. In every iteration k of a parallel
 * region, the ranks pass a buffer round a ring (each rank sends to rank+1 and receives from
 * rank-1; with one rank it sends to itself):
 *
 *     all threads   a[i] = buf[i]        first loop, omp for nowait: must see iteration k-1's data
 *     barrier_before                     optional
 *     master        MPI_Sendrecv(..., buf from the left neighbour)   the data of iteration k
 *     barrier_after                      optional
 *     all threads   c[i] = buf[i]        second loop, omp for nowait: must see iteration k's data
 *
 * `omp masked` has no barrier of its own. Without barrier_before a receive can overwrite buf
 * while other threads are still reading the data before it: they read a value from a later
 * iteration ("overwritten"). Without barrier_after other threads can read buf before the new data
 * is there: they read a value from an earlier iteration ("stale"). Each value names the
 * iteration that sent it, so every element read is classified. Two injected delays make both
 * interleavings happen every time instead of once in a while: the master waits delay_us before
 * it communicates, and the other threads wait 2 x delay_us before the first loop. Each thread
 * emits one record per iteration with its counts.
 *
 * Built for Archer (lab 16, hybridlab.kernels.archer), the receive is told to ThreadSanitizer as a
 * write of buf by the master (hl_archer.h): a missing barrier is then a reported data race.
 *
 * Self-check, whatever the timing: with barrier_before nothing may be overwritten, and with
 * barrier_after nothing may be stale.
 */
#include "hybridlab.h"
#include "hl_archer.h"

const char *const hl_kernel_description =
    "OMP MASTER + MPI_Sendrecv ring with switchable barriers; counts the values read wrong";

const hl_param hl_kernel_params[] = {
    {"barrier_before", "1", "1: omp barrier before the master's receive (protects the old data)"},
    {"barrier_after", "1", "1: omp barrier after the master's receive (publishes the new data)"},
    {"delay_us", "1000",
     "microseconds the master waits before communicating (the others wait twice that first)"},
    {"iterations", "20", "iterations of the ring exchange"},
    {"count", "4096", "elements in the buffer"},
    HL_END_PARAMS,
};

/* What rank `source` sends in iteration k (iteration 0: the initial contents). */
static int value(long k, int source) { return (int)(k * 1000 + source % 1000); }

/* A value read where iteration `expected`'s data from `source` belonged: one from a later
 * iteration was overwritten too early (a receive ran before this read: barrier_before missing);
 * one from an earlier iteration is stale (this read ran before the receive: barrier_after
 * missing). */
static void classify(int v, long expected, int source, long *overwritten, long *stale) {
    if (v == value(expected, source)) return;
    if (v / 1000 > expected)
        *overwritten += 1;
    else
        *stale += 1;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long before = hl_param_long(ctx, "barrier_before", 0, &ok);
    long after = hl_param_long(ctx, "barrier_after", 0, &ok);
    long delay_us = hl_param_long(ctx, "delay_us", 0, &ok);
    long iterations = hl_param_long(ctx, "iterations", 1, &ok);
    long n = hl_param_long(ctx, "count", 1, &ok);
    if (!ok) return -1;
    if (before > 1 || after > 1) return hl_fail(ctx, "barrier_before and barrier_after are 0 or 1");
    if (iterations > 1000000) return hl_fail(ctx, "iterations=%ld: at most 1000000", iterations);

    int right = (ctx->rank + 1) % ctx->size, left = (ctx->rank + ctx->size - 1) % ctx->size;
    int threads = omp_get_max_threads();
    int *buf = malloc((size_t)n * sizeof *buf), *out = malloc((size_t)n * sizeof *out);
    int *a = malloc((size_t)n * sizeof *a), *c = malloc((size_t)n * sizeof *c);
    /* per thread and iteration: values read wrong in the first and second loop */
    long *overwritten = calloc((size_t)(threads * iterations), sizeof *overwritten);
    long *stale = calloc((size_t)(threads * iterations), sizeof *stale);
    if (!buf || !out || !a || !c || !overwritten || !stale) {
        free(buf), free(out), free(a), free(c), free(overwritten), free(stale);
        return hl_fail(ctx, "out of memory for count=%ld", n);
    }
    for (long i = 0; i < n; i++) buf[i] = value(0, left); /* as if received in iteration 0 */
    MPI_Barrier(comm); /* start together: the ranks' delays then line up */

#pragma omp parallel
    {
        int t = omp_get_thread_num();
        for (long k = 1; k <= iterations; k++) {
            long *over_k = &overwritten[t * iterations + (k - 1)];
            long *stale_k = &stale[t * iterations + (k - 1)];
            if (t != 0) hl_sleep_us(2 * delay_us); /* the other threads come late to the old data */
#pragma omp for schedule(static) nowait
            for (long i = 0; i < n; i++) {
                a[i] = buf[i];
                classify(a[i], k - 1, left, over_k, stale_k);
            }
            if (before) {
#pragma omp barrier
            }
#pragma omp masked
            {
                hl_sleep_us(delay_us); /* the master comes late to the communication */
                for (long i = 0; i < n; i++) out[i] = value(k, ctx->rank);
                MPI_Sendrecv(out, (int)n, MPI_INT, right, (int)(k % 32768), buf, (int)n, MPI_INT,
                             left, (int)(k % 32768), comm, MPI_STATUS_IGNORE);
                hl_mpi_wrote(buf, (size_t)n * sizeof *buf); /* for Archer (lab 16) */
            }
            if (after) {
#pragma omp barrier
            }
#pragma omp for schedule(static) nowait
            for (long i = 0; i < n; i++) {
                c[i] = buf[i];
                classify(c[i], k, left, over_k, stale_k);
            }
        }
        for (long k = 1; k <= iterations; k++) {
            long o = overwritten[t * iterations + (k - 1)], s = stale[t * iterations + (k - 1)];
            hl_emit(ctx,
                    "\"iteration\":%ld,\"overwritten\":%ld,\"stale\":%ld,\"wrong\":%ld,"
                    "\"barrier_before\":%ld,\"barrier_after\":%ld,\"delay_us\":%ld",
                    k, o, s, o + s, before, after, delay_us);
        }
    }

    long early = 0, late = 0;
    for (long j = 0; j < threads * iterations; j++) early += overwritten[j], late += stale[j];
    free(buf), free(out), free(a), free(c), free(overwritten), free(stale);
    /* what each barrier guarantees, whatever the timing */
    if (before && early)
        return hl_fail(ctx, "rank %d: %ld values overwritten before they were read, although "
                       "there was a barrier before every receive", ctx->rank, early);
    if (after && late)
        return hl_fail(ctx, "rank %d: %ld stale values read, although there was a barrier "
                       "after every receive", ctx->rank, late);
    return 0;
}
