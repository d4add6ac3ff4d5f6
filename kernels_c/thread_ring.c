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
 * With the student's exchange every MPI call the cell makes in the parallel region is held once
 * begun (hl_trace_on_student_hold, thread_ring_hold), inside MPI, until another thread of the
 * rank is inside MPI too or every other thread waits at a lock, a critical section or a barrier
 * of the cell (the OpenMP runtime's waits, wrapped below for the student's unit), is in this
 * kernel's code between exchanges or past its last: threads that nothing keeps apart overlap in
 * every run (the stagger puts both in the cell at once), while mutual exclusion only waits; a
 * call held 1 s while another thread runs the cell's code is named in its record ("unexcluded":
 * a turn kept by when each thread calls, hybrid_models.exercise.unexcluded). Fresh attacker A12,
 * no lock at all, kept 4/4 in 2 of 4 gradings before (2026-12-07).
 *
 * Each thread emits one record: wrong (elements not what was sent; the student's exchange: whose
 * tag is not (t, k)), checksum (sum of every element received), iterations, count, block (the
 * address of its receive block: a traced run's receive buffers are compared with it,
 * hybrid_models.exercise.foreign_receives), and with the student's exchange sent (the sum of
 * every element the kit put in its own blocks) and unexcluded (above; 0: none).
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
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Where each thread of the team is, for the hold on the student's calls (thread_ring_hold):
 * in the kernel's own code between its exchanges (AWAY: it comes back), in exchange_block
 * (CELL), waiting inside it at a lock, a critical section or a barrier (PARKED: the wrappers
 * below), or past its last exchange (DONE). */
#define RING_MAX_THREADS 256
enum { RING_AWAY, RING_CELL, RING_PARKED, RING_DONE };
static atomic_int ring_state[RING_MAX_THREADS];
/* A hold that ran out (RING_HOLD_LIMIT) while another thread was in the cell, neither inside
 * MPI nor waiting: the holding thread's record says so ("unexcluded": that thread + 1); the
 * first one ends every hold of the run. */
#define RING_HOLD_LIMIT 1.0
static atomic_int ring_ran_out;
static int ring_unexcluded[RING_MAX_THREADS];

/* Lab 01 (b): each of the student's MPI calls inside a parallel region, once begun, waits
 * until another call of the rank is inside MPI too (threads that nothing keeps apart then
 * overlap for certain, and the trace shows it: hybridlab.runs.compliance) or until every other
 * thread of the team waits at a lock, a critical section or a barrier of the cell, or is past
 * its last exchange (mutual exclusion: the call goes on at once). A thread in the kernel's own
 * code between exchanges comes back to the cell, and the call waits for it. A thread that runs
 * the cell's own code for RING_HOLD_LIMIT s (a busy loop, a sleep) while a call waits,
 * neither calling MPI nor waiting for the thread inside, keeps its turn by when it calls, not
 * by exclusion: the holding thread's record names it (hybrid_models.exercise.unexcluded). */
static void thread_ring_hold(int (*inside)(void)) {
    if (!omp_in_parallel() || atomic_load(&ring_ran_out)) return;
    int me = omp_get_thread_num(), team = omp_get_num_threads();
    if (team < 2 || team > RING_MAX_THREADS) return;
    double until = hl_now() + RING_HOLD_LIMIT;
    for (;;) {
        if (inside() > 1) return;
        int waiting = 1, running = -1;
        for (int u = 0; u < team; u++) {
            int state = u == me ? RING_DONE : atomic_load(&ring_state[u]);
            if (state == RING_CELL) running = u;
            if (state == RING_CELL) waiting = 0;
        }
        if (waiting) return;
        if (hl_now() >= until) {
            if (running >= 0 && !atomic_exchange(&ring_ran_out, 1)) ring_unexcluded[me] = running + 1;
            return;
        }
        hl_sleep_us(10);
    }
}

/* The waits of OpenMP a cell's code reaches (its critical sections, locks, barriers, ordered
 * regions, the barriers that end a worksharing construct), each the runtime's own function
 * called through: the thread is PARKED while inside. Defined here, hidden, so the student's unit
 * linked beside this one calls them; the runtime's own is the next definition (RTLD_NEXT). */
static void *ring_runtime(const char *name) {
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "thread_ring: the OpenMP runtime has no %s\n", name);
        abort();
    }
    return f;
}
static int ring_park(void) {
    int t = omp_get_thread_num();
    if (t < 0 || t >= RING_MAX_THREADS) return -1;
    return atomic_exchange(&ring_state[t], RING_PARKED);
}
static void ring_unpark(int was) {
    int t = omp_get_thread_num();
    if (was >= 0 && t < RING_MAX_THREADS) atomic_store(&ring_state[t], was);
}
#define RING_WAIT(name, params, args)                                                            \
    __attribute__((visibility("hidden"))) void name params;                                     \
    void name params {                                                                            \
        static void(*_Atomic real) params;                                                       \
        if (!real) real = (void(*) params)ring_runtime(#name);                                   \
        int was = ring_park();                                                                    \
        real args;                                                                                \
        ring_unpark(was);                                                                         \
    }
#define RING_WAIT_RETURNING(type, name, params, args)                                            \
    __attribute__((visibility("hidden"))) type name params;                                     \
    type name params {                                                                            \
        static type(*_Atomic real) params;                                                       \
        if (!real) real = (type(*) params)ring_runtime(#name);                                   \
        int was = ring_park();                                                                    \
        type r = real args;                                                                       \
        ring_unpark(was);                                                                         \
        return r;                                                                                 \
    }
RING_WAIT(GOMP_critical_start, (void), ())
RING_WAIT(GOMP_critical_name_start, (void **lock), (lock))
RING_WAIT(GOMP_atomic_start, (void), ())
RING_WAIT(GOMP_barrier, (void), ())
RING_WAIT(GOMP_ordered_start, (void), ())
RING_WAIT(GOMP_loop_end, (void), ())
RING_WAIT(GOMP_sections_end, (void), ())
RING_WAIT(omp_set_lock, (omp_lock_t *lock), (lock))
RING_WAIT(omp_set_nest_lock, (omp_nest_lock_t *lock), (lock))
RING_WAIT_RETURNING(bool, GOMP_barrier_cancel, (void), ())
RING_WAIT_RETURNING(bool, GOMP_loop_end_cancel, (void), ())
RING_WAIT_RETURNING(bool, GOMP_sections_end_cancel, (void), ())
RING_WAIT_RETURNING(void *, GOMP_single_copy_start, (void), ())
RING_WAIT_RETURNING(int, pthread_mutex_lock, (pthread_mutex_t *mutex), (mutex))
RING_WAIT_RETURNING(int, pthread_spin_lock, (pthread_spinlock_t *lock), (lock))

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
    for (int u = 0; u < RING_MAX_THREADS; u++) {
        atomic_store(&ring_state[u], RING_AWAY);
        ring_unexcluded[u] = 0;
    }
    atomic_store(&ring_ran_out, 0);
    hl_trace_on_student_hold(thread_ring_hold);
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
            if (t < RING_MAX_THREADS) atomic_store(&ring_state[t], RING_CELL);
            exchange_block(mine, got, (int)n, left, right, comm);
            if (t < RING_MAX_THREADS)
                atomic_store(&ring_state[t], k == iterations ? RING_DONE : RING_AWAY);
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
                "\"count\":%ld,\"block\":%lu,\"unexcluded\":%d", wrong, checksum, sent,
                iterations, n, (unsigned long)(uintptr_t)got,
                t < RING_MAX_THREADS ? ring_unexcluded[t] : 0);
#else
        hl_emit(ctx, "\"wrong\":%ld,\"checksum\":%.1f,\"iterations\":%ld,\"count\":%ld,"
                "\"block\":%lu", wrong, checksum, iterations, n, (unsigned long)(uintptr_t)got);
#endif
    }
#ifdef HL_STUDENT_EXCHANGE
    hl_trace_on_student_receive(NULL);
    hl_trace_on_student_hold(NULL);
#endif
    free(send), free(recv);
    return 0;
}
