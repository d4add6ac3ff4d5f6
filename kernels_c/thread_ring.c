/* thread_ring: a ring exchange with one block of data per OpenMP thread (lab 01).
 *
 * Every thread t of rank r owns a block of `count` ints. In iteration k it fills its block and the
 * block must travel to the same thread t of the right neighbour, which checks every element it
 * received and adds it to a checksum:
 *     masteronly: element i is value(r, t, k, i), checked against value(left, t, k, i);
 *     the student's exchange: element i is 21 bits drawn afresh (getrandom) above a 10-bit tag
 *         of (t, k), so only the sender holds the values until they are sent: a receiver cannot
 *         compute its neighbour's block from its own (issue 36: a cell that took any thread's
 *         message, MPI_ANY_TAG, and wrote its own block's values plus the ranks' difference over
 *         it kept 4/4). The receiver checks the tag of every element; each thread's record also
 *         carries "sent", the sum of what the kit put in its blocks, and the judge
 *         (hybridlab.hybrid_models.exercise.check_ring) compares each thread's checksum with the
 *         "sent" of the same thread of the left rank. And the messages themselves must tell the
 *         threads apart: the tracer reads every receive of the student's as it completes
 *         (hl_trace_on_student_receive, thread_ring_held: the tag the elements it got share
 *         and their sum, "held" in the completing call's record under the thread that posted
 *         the receive), and the judge
 *         (hybridlab.hybrid_models.exercise.held_blocks) wants each thread's receives to have
 *         held only its own thread's blocks, summing to what the same thread of the left rank
 *         sent (a cell that took any thread's message with tag 0 and let the threads sort the
 *         blocks out in shared memory afterwards kept 4/4: K1, 2026-12-07).
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
 * Each thread emits one record: wrong (elements not what was sent; the student's exchange: whose
 * tag is not (t, k)), checksum (sum of every element received), iterations, count, block (the
 * address of its receive block: a traced run's receive buffers are compared with it,
 * hybrid_models.exercise.foreign_receives), and with the student's exchange sent (the sum of
 * every element the kit put in its own blocks).
 */
#include "hybridlab.h"
#include <sys/random.h>

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

/* The tag in the low 10 bits of each element thread t sends in iteration k (student's exchange). */
static int thread_ring_tag(int t, long k) {
    return (int)((t & 31) << 5 | (k & 31));
}

/* Fills thread t's block of iteration k: 21 fresh random bits (getrandom; splitmix64 of the clock
 * where it fails) above the tag of each element. Returns the sum of the block. */
static double thread_ring_fill(int *block, long n, int t, long k) {
    size_t want = (size_t)n * sizeof *block, got = 0;
    while (got < want) {
        ssize_t drawn = getrandom((char *)block + got, want - got, 0);
        if (drawn > 0) got += (size_t)drawn;
        else if (drawn < 0 && errno != EINTR) break;
    }
    uint64_t z = (uint64_t)(hl_now() * 1e9) ^ ((uint64_t)gettid() << 32);
    for (size_t i = got / sizeof *block; i < (size_t)n; i++) {
        uint64_t h = (z += 0x9e3779b97f4a7c15ULL);
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
        block[i] = (int)(h ^ (h >> 31));
    }
    double sum = 0.0;
    for (long i = 0; i < n; i++) {
        block[i] = (int)(((unsigned)block[i] & 0x1FFFFFu) << 10) | thread_ring_tag(t, k);
        sum += block[i];
    }
    return sum;
}

/* The tracer's reading of a student's receive buffer as the receive completes: "TAG:SUM", the
 * low-10-bit tag every element read shares (-1: they differ) and their sum; "-2:0" for a buffer
 * that is not contiguous ints. */
static int thread_ring_held(const void *buffer, long count, MPI_Datatype type, char *out,
                            size_t cap) {
    int size = 0;
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_size(type, &size);
    MPI_Type_get_true_extent(type, &lb, &extent);
    long bytes = count * size;
    if (bytes <= 0) return 0;
    if (lb != 0 || extent != size || bytes % (long)sizeof(int))
        return snprintf(out, cap, "-2:0");
    const int *v = buffer;
    long n = bytes / (long)sizeof(int);
    int tag = v[0] & 1023;
    long long sum = 0;
    for (long i = 0; i < n; i++) {
        if ((v[i] & 1023) != tag) tag = -1;
        sum += v[i];
    }
    return snprintf(out, cap, "%d:%lld", tag, sum);
}
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
    hl_trace_on_student_receive(thread_ring_held);
#endif
#pragma omp parallel
    {
        int t = omp_get_thread_num(), team = omp_get_num_threads();
        int place = ctx->rank % 2 ? t : team - 1 - t;
        int *mine = send + (size_t)t * (size_t)n, *got = recv + (size_t)t * (size_t)n;
        long wrong = 0;
        double checksum = 0.0, sent = 0.0;
        for (long k = 1; k <= iterations; k++) {
            for (long i = 0; i < n; i++) got[i] = -1;
#ifdef HL_STUDENT_EXCHANGE
            sent += thread_ring_fill(mine, n, t, k);
            hl_sleep_us(delay_us * place);
            exchange_block(mine, got, (int)n, left, right, comm);
            HL_KEPT_CHECK("exchange_block", n, iterations, left, right, (long)send,
                          (long)recv);
            if (t != omp_get_thread_num() || got != recv + (size_t)t * (size_t)n)
                hl_kept_stop("exchange_block", "the thread's block", omp_get_thread_num(), t);
            for (long i = 0; i < n; i++) {
                wrong += got[i] < 0 || (got[i] & 1023) != thread_ring_tag(t, k);
                checksum += got[i];
            }
#else
            for (long i = 0; i < n; i++) mine[i] = thread_ring_value(ctx->rank, t, k, i);
            hl_sleep_us(delay_us * place);
#pragma omp barrier
#pragma omp masked
            for (int u = 0; u < team; u++)
                MPI_Sendrecv(send + (size_t)u * (size_t)n, (int)n, MPI_INT, right, u,
                             recv + (size_t)u * (size_t)n, (int)n, MPI_INT, left, u, comm,
                             MPI_STATUS_IGNORE);
#pragma omp barrier
            for (long i = 0; i < n; i++) {
                wrong += got[i] != thread_ring_value(left, t, k, i);
                checksum += got[i];
            }
#pragma omp barrier /* every block read before the master receives the next */
#endif
        }
#ifdef HL_STUDENT_EXCHANGE
        hl_emit(ctx, "\"wrong\":%ld,\"checksum\":%.1f,\"sent\":%.1f,\"iterations\":%ld,"
                "\"count\":%ld,\"block\":%lu", wrong, checksum, sent, iterations, n,
                (unsigned long)(uintptr_t)got);
#else
        hl_emit(ctx, "\"wrong\":%ld,\"checksum\":%.1f,\"iterations\":%ld,\"count\":%ld,"
                "\"block\":%lu", wrong, checksum, iterations, n, (unsigned long)(uintptr_t)got);
#endif
    }
#ifdef HL_STUDENT_EXCHANGE
    hl_trace_on_student_receive(NULL);
#endif
    free(send), free(recv);
    return 0;
}
