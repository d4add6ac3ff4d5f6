/* thread_ring: a ring exchange with one block of data per OpenMP thread (lab 01).
 *
 * Every thread t of rank r owns a block of `count` ints. In iteration k it fills its block with
 * value(r, t, k, i) and the block must travel to the same thread t of the right neighbour, which
 * checks every element it received against value(left, t, k, i) and adds it to a checksum.
 *
 * Who calls MPI, and so which thread level the exchange needs, depends on the exchange:
 *     built as it is (masteronly, FUNNELED): after a barrier the master sends and receives every
 *         thread's block (one MPI_Sendrecv per thread, the thread number as the tag), then a
 *         barrier publishes the received blocks;
 *     built by hybridlab.hybrid_models.exercise with HL_STUDENT_EXCHANGE: the student's
 *         exchange_block() runs on every thread for its own block, and the student's
 *         check_thread_level() runs first and fails when MPI provided too low a level.
 *
 * Before each exchange a thread waits `delay_us` x its place in an order that is reversed on odd
 * ranks (rank 0: the last thread first; rank 1: thread 0 first), so the threads of neighbouring
 * ranks reach the exchange in opposite orders every time: messages that are not told apart by
 * their tags meet the wrong receive, and blocking calls made one thread at a time wait for a
 * partner that cannot come.
 *
 * Each thread emits one record: wrong (elements not what was sent), checksum (sum of every
 * element received), iterations, count, block (the address of its receive block: a traced run's
 * receive buffers are compared with it, hybrid_models.exercise.foreign_receives).
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "ring exchange of one block per OpenMP thread (masteronly, or the student's exchange)";

const hl_param hl_kernel_params[] = {
    {"iterations", "4", "ring exchanges"},
    {"count", "1024", "ints per thread's block"},
    {"delay_us", "2000", "stagger of the threads before each exchange (reversed on odd ranks)"},
    HL_END_PARAMS,
};

/* What thread t of rank r sends in iteration k, element i. */
static int thread_ring_value(int r, int t, long k, long i) {
    return (int)(((k * 64 + r) * 64 + t) * 1000 + i % 1000);
}

#ifdef HL_STUDENT_EXCHANGE
#include "thread_ring_student.h"
#endif

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long iterations = hl_param_long(ctx, "iterations", 1, &ok);
    long n = hl_param_long(ctx, "count", 1, &ok);
    long delay_us = hl_param_long(ctx, "delay_us", 0, &ok);
    if (!ok) return -1;
#ifdef HL_STUDENT_EXCHANGE
    if (check_thread_level(ctx) != 0) {
        if (!ctx->error[0]) hl_fail(ctx, "check_thread_level() refused the thread level");
        return -1;
    }
#else
    if (hl_require_level(ctx, MPI_THREAD_FUNNELED, "the master calls MPI inside a parallel region"))
        return -1;
#endif
    int nthreads = omp_get_max_threads();
    int right = (ctx->rank + 1) % ctx->size, left = (ctx->rank + ctx->size - 1) % ctx->size;
    int *send = malloc((size_t)n * (size_t)nthreads * sizeof *send);
    int *recv = malloc((size_t)n * (size_t)nthreads * sizeof *recv);
    if (!send || !recv) {
        free(send), free(recv);
        return hl_fail(ctx, "out of memory for %d blocks of count=%ld", nthreads, n);
    }

#ifdef HL_STUDENT_EXCHANGE /* the cell runs on this stack: what the threads' checks read, kept */
    HL_KEEP(ctx, n, iterations, left, right, (long)send, (long)recv);
#endif
#pragma omp parallel
    {
        int t = omp_get_thread_num(), team = omp_get_num_threads();
        int place = ctx->rank % 2 ? t : team - 1 - t;
        int *mine = send + (size_t)t * (size_t)n, *got = recv + (size_t)t * (size_t)n;
        long wrong = 0;
        double checksum = 0.0;
        for (long k = 1; k <= iterations; k++) {
            for (long i = 0; i < n; i++) mine[i] = thread_ring_value(ctx->rank, t, k, i);
            for (long i = 0; i < n; i++) got[i] = -1;
            hl_sleep_us(delay_us * place);
#ifdef HL_STUDENT_EXCHANGE
            exchange_block(mine, got, (int)n, left, right, comm);
            HL_KEPT_CHECK("exchange_block", n, iterations, left, right, (long)send,
                          (long)recv);
            if (t != omp_get_thread_num() || got != recv + (size_t)t * (size_t)n)
                hl_kept_stop("exchange_block", "the thread's block", omp_get_thread_num(), t);
#else
#pragma omp barrier
#pragma omp masked
            for (int u = 0; u < team; u++)
                MPI_Sendrecv(send + (size_t)u * (size_t)n, (int)n, MPI_INT, right, u,
                             recv + (size_t)u * (size_t)n, (int)n, MPI_INT, left, u, comm,
                             MPI_STATUS_IGNORE);
#pragma omp barrier
#endif
            for (long i = 0; i < n; i++) {
                wrong += got[i] != thread_ring_value(left, t, k, i);
                checksum += got[i];
            }
#ifndef HL_STUDENT_EXCHANGE
#pragma omp barrier /* every block read before the master receives the next */
#endif
        }
        hl_emit(ctx, "\"wrong\":%ld,\"checksum\":%.1f,\"iterations\":%ld,\"count\":%ld,"
                "\"block\":%lu", wrong, checksum, iterations, n, (unsigned long)(uintptr_t)got);
    }
    free(send), free(recv);
    return 0;
}
