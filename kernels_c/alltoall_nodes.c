/* alltoall_nodes: MPI_Alltoall in two levels through node leaders (lab 07 exercise).
 *
 * P ranks, L consecutive ranks per node (ranks_per_node; 0: the real nodes, which on one machine
 * is one node of all P ranks), so world rank = node * L + node rank. variant=flat times
 * MPI_Alltoall itself; variant=student (built by hybridlab.collectives.exercise with the
 * student's code) calls alltoall_nodes(), which must do the same exchange in two levels: gather
 * the node's send buffers on its leader, exchange between the leaders (one message per pair of
 * nodes, L*L times larger than one rank's), and scatter on the node. The kit makes the node and
 * leader communicators (hl_nodes.h); the student's code runs on the master thread outside any
 * parallel region and may use OpenMP threads for its copies, MPI only where FUNNELED allows.
 *
 * Check: every value each rank receives equals what MPI_Alltoall delivers, element by element
 * (value (r, d, k) = (r * P + d) * count + k plus a salt rank r draws per run and keeps to itself,
 * so a value out of place is seen and none can be known without its message), in every one of
 * `nodes.reps` repetitions. Records: "time" per variant and repetition on rank 0 (slowest rank);
 * "check" on rank 0 (ok, wrong = values wrong over all ranks and repetitions, values, nodes);
 * with HL_COUNT_WRITES, "writes" on every rank per repetition (what the student's code wrote, per
 * OpenMP thread: see below).
 */
#include "hybridlab.h"
#include "hl_nodes.h"

#ifdef HL_STUDENT_ALLTOALL
#include "alltoall_nodes_student.h"
#endif

/* With HL_COUNT_WRITES (hybridlab.collectives.exercise.build_student_alltoall(count=True): the
 * student's unit built with clang's ThreadSanitizer instrumentation, linked with COUNT_FLAGS'
 * --wrap): ThreadSanitizer's entry points for every plain and atomic store, and memcpy/memmove,
 * pass through the wrappers below, which count, per OpenMP thread number, the bytes the
 * student's own code writes (the caller's address lies in the cell's code, hl_cell_text) while
 * alltoall_nodes runs: in a team of two or more threads per thread number, outside parallel
 * regions apart. The wrappers are the kit's object, not instrumented and out of the cell's reach.
 * So that a dynamic schedule or a taskloop shares the copies as a static one does on a loaded
 * machine, a thread of a team that has written `slack` bytes more than the team's slowest waits
 * (sched_yield) until that one catches up, up to HL_WAIT_BUDGET seconds per call and thread;
 * a memcpy is made in pieces of `slack` bytes, each counted (and waited for) before it is copied. */
#ifdef HL_COUNT_WRITES
#define HL_COUNTED_THREADS 64
#define HL_WAIT_BUDGET 0.1
static int counting;                           /* while alltoall_nodes runs */
static long slack = 8;                         /* bytes a thread may lead the slowest by */
static long written_by[HL_COUNTED_THREADS];    /* per thread number, in a team of 2+ */
static long written_alone;                     /* outside parallel regions (a team of one) */
static int widest_team;                        /* the largest team that wrote */
static double waited[HL_COUNTED_THREADS];      /* seconds each thread number waited */

#define HL_NOT_COUNTED __attribute__((disable_sanitizer_instrumentation, noinline, used))
extern const char __start_hl_cell_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_hl_cell_text[] __attribute__((weak, visibility("hidden")));

HL_NOT_COUNTED static int counted_caller(const void *caller) {
    const char *p = (const char *)caller;
    return __atomic_load_n(&counting, __ATOMIC_ACQUIRE) && __start_hl_cell_text &&
           p >= __start_hl_cell_text && p < __stop_hl_cell_text;
}

/* the team's thread count, or 0 outside a team of two or more (the thread number in *t) */
HL_NOT_COUNTED static int team_of(int *t) {
    int team = omp_get_num_threads();
    *t = omp_get_thread_num();
    if (team <= 1 || *t < 0 || *t >= HL_COUNTED_THREADS) return 0;
    return team < HL_COUNTED_THREADS ? team : HL_COUNTED_THREADS;
}

HL_NOT_COUNTED static void keep_pace(int t, int team) {
    double start = -1.0;
    for (;;) {
        long mine = __atomic_load_n(&written_by[t], __ATOMIC_RELAXED), least = mine;
        for (int u = 0; u < team; u++) {
            long w = __atomic_load_n(&written_by[u], __ATOMIC_RELAXED);
            if (w < least) least = w;
        }
        if (mine - least < slack || waited[t] > HL_WAIT_BUDGET) break;
        double now = omp_get_wtime();
        if (start < 0) start = now;
        else if (waited[t] + (now - start) > HL_WAIT_BUDGET) break;
        sched_yield();
    }
    if (start >= 0) waited[t] += omp_get_wtime() - start;
}

HL_NOT_COUNTED static void wrote(const void *caller, unsigned long size) {
    if (size == 0 || !counted_caller(caller)) return;
    int t, team = team_of(&t);
    if (!team) {
        __atomic_fetch_add(&written_alone, (long)size, __ATOMIC_RELAXED);
        return;
    }
    int widest = __atomic_load_n(&widest_team, __ATOMIC_RELAXED);
    while (team > widest && !__atomic_compare_exchange_n(&widest_team, &widest, team, 1,
                                                         __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    keep_pace(t, team);
    __atomic_fetch_add(&written_by[t], (long)size, __ATOMIC_RELAXED);
}

#define HL_COUNT_WRITE(name, size)                                                             \
    void __real_##name(void *a);                                                                \
    HL_NOT_COUNTED void __wrap_##name(void *a) {                                                \
        wrote(__builtin_return_address(0), size);                                               \
        __real_##name(a);                                                                       \
    }
HL_COUNT_WRITE(__tsan_write1, 1)
HL_COUNT_WRITE(__tsan_write2, 2)
HL_COUNT_WRITE(__tsan_write4, 4)
HL_COUNT_WRITE(__tsan_write8, 8)
HL_COUNT_WRITE(__tsan_write16, 16)
HL_COUNT_WRITE(__tsan_unaligned_write2, 2)
HL_COUNT_WRITE(__tsan_unaligned_write4, 4)
HL_COUNT_WRITE(__tsan_unaligned_write8, 8)
HL_COUNT_WRITE(__tsan_unaligned_write16, 16)

#define HL_COUNT_ATOMIC(bits, type)                                                             \
    void __real___tsan_atomic##bits##_store(volatile type *a, type v, int mo);                   \
    HL_NOT_COUNTED void __wrap___tsan_atomic##bits##_store(volatile type *a, type v, int mo) {   \
        wrote(__builtin_return_address(0), sizeof(type));                                        \
        __real___tsan_atomic##bits##_store(a, v, mo);                                            \
    }                                                                                            \
    type __real___tsan_atomic##bits##_exchange(volatile type *a, type v, int mo);                \
    HL_NOT_COUNTED type __wrap___tsan_atomic##bits##_exchange(volatile type *a, type v, int mo) {\
        wrote(__builtin_return_address(0), sizeof(type));                                        \
        return __real___tsan_atomic##bits##_exchange(a, v, mo);                                  \
    }                                                                                            \
    int __real___tsan_atomic##bits##_compare_exchange_strong(volatile type *a, type *c, type v,  \
                                                             int mo, int fmo);                   \
    HL_NOT_COUNTED int __wrap___tsan_atomic##bits##_compare_exchange_strong(                     \
        volatile type *a, type *c, type v, int mo, int fmo) {                                    \
        wrote(__builtin_return_address(0), sizeof(type));                                        \
        return __real___tsan_atomic##bits##_compare_exchange_strong(a, c, v, mo, fmo);           \
    }                                                                                            \
    int __real___tsan_atomic##bits##_compare_exchange_weak(volatile type *a, type *c, type v,    \
                                                           int mo, int fmo);                     \
    HL_NOT_COUNTED int __wrap___tsan_atomic##bits##_compare_exchange_weak(                       \
        volatile type *a, type *c, type v, int mo, int fmo) {                                    \
        wrote(__builtin_return_address(0), sizeof(type));                                        \
        return __real___tsan_atomic##bits##_compare_exchange_weak(a, c, v, mo, fmo);             \
    }                                                                                            \
    type __real___tsan_atomic##bits##_compare_exchange_val(volatile type *a, type c, type v,     \
                                                           int mo, int fmo);                     \
    HL_NOT_COUNTED type __wrap___tsan_atomic##bits##_compare_exchange_val(                       \
        volatile type *a, type c, type v, int mo, int fmo) {                                     \
        wrote(__builtin_return_address(0), sizeof(type));                                        \
        return __real___tsan_atomic##bits##_compare_exchange_val(a, c, v, mo, fmo);              \
    }
HL_COUNT_ATOMIC(8, unsigned char)
HL_COUNT_ATOMIC(16, unsigned short)
HL_COUNT_ATOMIC(32, unsigned int)
HL_COUNT_ATOMIC(64, unsigned long)

/* a copy by memcpy or memmove: in a team, in pieces of `slack` bytes, each counted first */
void *__real_memcpy(void *d, const void *s, size_t size);
void *__real_memmove(void *d, const void *s, size_t size);
HL_NOT_COUNTED static void *copied(const void *caller, void *d, const void *s, size_t size,
                                   int move) {
    int t;
    if (!counted_caller(caller) || !team_of(&t) || move || size <= (size_t)slack) {
        wrote(caller, size);
        return move ? __real_memmove(d, s, size) : __real_memcpy(d, s, size);
    }
    for (size_t at = 0; at < size; at += (size_t)slack) {
        size_t piece = size - at < (size_t)slack ? size - at : (size_t)slack;
        wrote(caller, piece);
        __real_memcpy((char *)d + at, (const char *)s + at, piece);
    }
    return d;
}
HL_NOT_COUNTED void *__wrap_memcpy(void *d, const void *s, size_t size) {
    return copied(__builtin_return_address(0), d, s, size, 0);
}
HL_NOT_COUNTED void *__wrap_memmove(void *d, const void *s, size_t size) {
    return copied(__builtin_return_address(0), d, s, size, 1);
}

HL_NOT_COUNTED static void count_writes(int on, long count) {
    if (on) {
        for (int u = 0; u < HL_COUNTED_THREADS; u++) written_by[u] = 0, waited[u] = 0.0;
        written_alone = 0, widest_team = 0;
        slack = 8 * (count / 2 > 0 ? count / 2 : 1); /* half a rank's block */
    }
    __atomic_store_n(&counting, on, __ATOMIC_RELEASE);
}

/* one "writes" record per rank and call: bytes outside regions, per thread number, waits */
static void emit_writes(hl_ctx *ctx, long rep, int leader) {
    char by[HL_COUNTED_THREADS * 21 + 1] = "", *at = by;
    int shown = omp_get_max_threads();
    if (widest_team > shown) shown = widest_team;
    if (shown > HL_COUNTED_THREADS) shown = HL_COUNTED_THREADS;
    double most = 0.0;
    for (int u = 0; u < shown; u++) {
        at += snprintf(at, (size_t)(by + sizeof by - at), "%s%ld", u ? " " : "", written_by[u]);
        if (waited[u] > most) most = waited[u];
    }
    hl_emit(ctx, "\"record\":\"writes\",\"repetition\":%ld,\"leader\":%d,\"alone\":%ld,"
                 "\"by_thread\":\"%s\",\"widest_team\":%d,\"waited\":%.6f",
            rep, leader, written_alone, by, widest_team, most);
}
#endif

const char *const hl_kernel_description =
    "MPI_Alltoall flat, or in two levels through node leaders (gather, leaders' exchange, "
    "scatter), every received value checked against MPI_Alltoall";

const hl_param hl_kernel_params[] = {
    HL_NODES_PARAMS,
    {"count", "4", "doubles each rank sends to each rank"},
    HL_END_PARAMS,
};

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long count = hl_param_long(ctx, "count", 1, &ok);
    if (!ok) return -1;
    int rank = ctx->rank, size = ctx->size;
    if (count * size > (1L << 22)) return hl_fail(ctx, "count=%ld is too large", count);
    hl_nodes nodes;
    if (hl_nodes_make(ctx, comm, &nodes) != 0) return -1;
    int per_node = nodes.node_size, consecutive = rank == nodes.leader + nodes.node_rank;
    int mine[3] = {per_node, -per_node, !consecutive};
    MPI_Allreduce(MPI_IN_PLACE, mine, 3, MPI_INT, MPI_MAX, comm);
    if (mine[0] != -mine[1] || mine[2] || size % per_node != 0) {
        hl_nodes_free(&nodes);
        return hl_fail(ctx, "nodes must hold the same number of consecutive ranks (%d ranks, "
                            "ranks_per_node=%ld)", size, nodes.ranks_per_node);
    }

    size_t n = (size_t)count * (size_t)size;
    double *send = malloc(n * sizeof *send), *recv = malloc(n * sizeof *recv);
    double *want = malloc(n * sizeof *want);
    if (!send || !recv || !want) {
        free(send), free(recv), free(want), hl_nodes_free(&nodes);
        return hl_fail(ctx, "no memory for %zu values", n);
    }
    /* a salt each rank draws for this run and tells no other: what a rank receives cannot be
     * written down without the messages (the reference below is the kit's own MPI_Alltoall) */
    double salt = floor(fmod(hl_now() * 1e9, 99991.0)) + 17.0 * rank;
    for (size_t i = 0; i < n; i++) send[i] = (double)((size_t)rank * n + i) + salt;
    MPI_Alltoall(send, (int)count, MPI_DOUBLE, want, (int)count, MPI_DOUBLE, comm);

    long wrong = 0;
    for (long rep = 0; rep < nodes.reps; rep++) {
        for (size_t i = 0; i < n; i++) recv[i] = NAN;
        double t0 = hl_start_together(comm);
        if (nodes.variant == HL_FLAT)
            MPI_Alltoall(send, (int)count, MPI_DOUBLE, recv, (int)count, MPI_DOUBLE, comm);
#ifdef HL_STUDENT_ALLTOALL
        if (nodes.variant == HL_STUDENT) {
#ifdef HL_COUNT_WRITES
            count_writes(1, count);
#endif
            alltoall_nodes(send, recv, (int)count, comm, nodes.node, nodes.leaders);
#ifdef HL_COUNT_WRITES
            count_writes(0, count);
            emit_writes(ctx, rep, nodes.node_rank == 0);
#endif
        }
#endif
        double seconds = hl_slowest_since(comm, t0);
        for (size_t i = 0; i < n; i++) wrong += memcmp(&recv[i], &want[i], sizeof *recv) != 0;
        if (rank == 0)
            hl_emit(ctx, "\"record\":\"time\",\"variant\":\"%s\",\"repetition\":%ld,\"seconds\":%.9g",
                    hl_node_variant_names[nodes.variant], rep, seconds);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    if (rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"wrong\":%ld,\"values\":%ld,\"nodes\":%d,"
                     "\"ranks_per_node\":%d,\"variant\":\"%s\"",
                wrong == 0, wrong, (long)n * size * nodes.reps, nodes.nodes, per_node,
                hl_node_variant_names[nodes.variant]);
    hl_nodes_free(&nodes);
    free(send);
    free(recv);
    free(want);
    return 0;
}
