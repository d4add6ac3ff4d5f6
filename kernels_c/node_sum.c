/* node_sum: a sum over every thread of every rank, made node-aware (lab 06 exercise).
 *
 * Each OpenMP thread t of rank r holds n values, value(r, t, i) (whole numbers, so every order
 * of summing gives the same doubles). Every thread must end with their sum over all threads of
 * all ranks. variant=flat (the kit's): the threads' values are added up per rank, then one
 * MPI_Allreduce over all ranks. variant=student (built by hybridlab.mapping.exercise with the
 * student's code): split_nodes() makes a communicator per node (MPI_Comm_split_type,
 * MPI_COMM_TYPE_SHARED) and one of the node leaders (rank 0 of each node), then node_sum(),
 * called by every thread of a parallel region, adds the threads' values, reduces them onto the
 * node's leader, allreduces between leaders and broadcasts on each node; only the master thread
 * calls MPI (MPI_THREAD_FUNNELED).
 *
 * ranks_per_node > 0 makes up nodes of that many consecutive ranks (hl_nodes.h), so the node
 * levels are exercised on one machine; 0 uses the real nodes (one node on one machine).
 *
 * Checks, on every rank: the student's communicators hold the same ranks as the kit's
 * (hl_node_split, hl_node_leaders); variant=flat: every thread's sum equals MPI_Allreduce of
 * the ranks' sums over comm, element by element, in each of `ref.reps` repetitions. The
 * student's sums are judged outside the process (hybridlab.mapping.exercise.node_sum_verdict):
 * no expected sum is ever in this process, which the student's code shares; the judge
 * regenerates every rank's values from the salts the kernel records before any student code
 * runs, and compares each thread's view (an FNV-1a digest of `sum` taken as node_sum returns).
 * Records: "salt" per rank (before split_nodes runs); "node" per rank (node = world rank of its
 * leader, node_rank, node_size, leader, nodes); "time" per repetition on rank 0 (seconds of the
 * sum, slowest rank); variant=student: "view" per rank, repetition and thread (hash: hex of the
 * digest of the n doubles the thread saw in `sum`; added: the bytes of rank_sum the thread's own
 * code wrote in that call, HL_COUNT_ADDS below, -1 where not counted), and "nudged" (through
 * the tracer's stream, the moment the call begins) per student reduction at a nudged level
 * (level node | leaders, count, scaled: how many of its values were the rank's own, or its
 * node's sums, and scaled); "nudge"
 * on rank 0 before node_sum first runs (nudged, a_node, a_leaders: the factors' draws, 0 where
 * the run was not nudged); "check" on rank 0 (ok, same_node, same_leaders, wrong = values wrong
 * summed over threads and repetitions, -1 for the student's: judged outside).
 */
#include "hybridlab.h"
#include "hl_nodes.h"
#include <sys/random.h>

#ifdef HL_STUDENT_NODES
#include "node_sum_student.h"
#endif
#include <sys/mman.h>

/* What decides the judge's evidence while the student's node_sum runs lives in hybridlab.h's
 * sealed evidence, read-only to every thread (the cell is linked into the same program: a static
 * of the kit's, or a heap block whose pointer sits in one, is found from a static of the cell's
 * at the offset the link fixes, and rewritten): the nudge's levels (which reductions are scaled
 * and recorded as "nudged", by which factor, and the values that count as genuine: those on
 * pages of their own, read-only once filled) and, with HL_COUNT_ADDS, the span of rank_sum
 * counted and each thread's count of its adds ("added"). */
#define HL_TEAM_MAX 64
typedef struct {
    MPI_Comm comm;    /* the kit's node or leaders; MPI_COMM_NULL: not nudged here */
    double factor;    /* (1024 + a) / 1024 */
    const double *genuine; /* sorted: the values this rank gives at this level (read-only pages) */
    size_t kinds, bytes;   /* values; the pages' bytes */
} nudge_level;
typedef struct {
    nudge_level levels[2];
    uintptr_t counted_from, counted_to; /* rank_sum's bytes while the kit's region runs */
    long slack;                         /* bytes a thread may lead the team's slowest by */
    long added_by[HL_TEAM_MAX];         /* per thread of the kit's team */
} nodes_evidence;
_Static_assert(sizeof(nodes_evidence) <= HL_SEALED_DATA, "nodes_evidence: too large");
#define EV HL_SEALED(nodes_evidence)
#define EV_GET(p) (*(const volatile __typeof__(*(p)) *)(p))
#define EV_SET(p, value)                                                                          \
    do {                                                                                          \
        __typeof__(*(p)) set_ = (value);                                                          \
        hl_sealed_put((p), &set_, sizeof set_);                                                   \
    } while (0)

const char *const hl_kernel_description =
    "a sum over all threads of all ranks: flat (one MPI_Allreduce) or node-aware (reduce on a "
    "node leader, allreduce between leaders, broadcast on the node), checked element by element";

const hl_param hl_kernel_params[] = {
    HL_NODES_PARAMS,
    {"n", "1000", "values per thread"},
    HL_END_PARAMS,
};

/* Drawn by each rank for each run (getrandom) and told to no other rank: the sum of every rank's
 * values cannot be written down without the messages that carry them. Recorded ("salt") before
 * any student code runs: the judge outside regenerates the values from it (a cell that changes
 * it later changes its own values, not the judge's). */
static long salt;

static unsigned long drawn(void) {
    unsigned long r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) r = (unsigned long)(hl_now() * 1e9);
    return r;
}

static double value(int rank, int thread, long i) {
    return (double)((long)(rank * 64 + thread + 1) * 1000 + (i + salt) % 991);
}

#ifdef HL_STUDENT_NODES
/* The kit's nudge (lab 06 (e)'s judge: the sum must come out of the reductions). While the
 * student's node_sum runs, each value a rank gives one of the student's reductions of MPI_DOUBLE
 * by MPI_SUM (or an operation of its own) on its node (the kit's node of two or more ranks, as a communicator compares) is
 * scaled by (1024 + a_node) / 1024 on its way in, if it is one of the rank's own (a value of
 * rank_sum, or of one thread's), and each value a leader gives a reduction on the leaders (two
 * or more nodes) by (1024 + a_leaders) / 1024, if it is one of its node's sums (scaled by the
 * node's factor or not): a copy is reduced, the student's buffer untouched (MPI_IN_PLACE: the
 * receive buffer's values scaled in place). a_node and a_leaders are drawn per run (256-511)
 * and recorded before node_sum runs (the "nudge" record, out of the student's reach), so the right
 * scaled sum cannot be written without the reductions' results: every value whole and every
 * factor a whole number of 1024ths, each sum is exact in any order. A sum made by hand from
 * gathered values, beside a reduction whose result is not used, is the right total unscaled
 * (judged outside: node_sum_verdict). Each nudged reduction is recorded through the tracer's
 * stream as it begins ("nudged": how many of the values it was given were genuine and scaled):
 * the judge asks each rank of a node of two or more for n of its own values per call, and each
 * leader for n node sums, so reductions of zeros or of anything but the rank's values do not
 * stand for the steps. The kernel computes no expected sum: nothing in this process tells the
 * student's code the answer (a fresh attacker read the kernel's expectation from the heap). */
/* (the levels: sealed, EV->levels) */
static void **copies; /* the scaled copies handed to MPI (a non-blocking one reads it later) */
static size_t copies_kept, copies_room;

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double scaled(const volatile nudge_level *l, double v, long *count) {
    if (!bsearch(&v, l->genuine, l->kinds, sizeof v, by_value)) return v;
    ++*count;
    return v * l->factor;
}

/* A nudged reduction of `n` values at level `k`, `count` of them genuine (and scaled): to the
 * tracer's stream, the moment the call begins (a line the process cannot change afterwards). */
static void nudge_seen(int k, int n, long count) {
    char fields[160];
    double t = hl_now();
    snprintf(fields, sizeof fields, "\"record\":\"nudged\",\"level\":\"%s\",\"count\":%d,\"scaled\":%ld",
             k == 0 ? "node" : "leaders", n, count);
    (void)hl_trace_event(fields, t, t);
}

static const void *contributed(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                               int root, MPI_Comm c) {
    (void)root; /* MPI_IN_PLACE is the root's only (MPI_Reduce) or everyone's (MPI_Allreduce) */
    /* a sum: MPI_SUM, or an operation of the student's own (the predefined others are not) */
    const MPI_Op other[] = {MPI_MAX, MPI_MIN, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR,
                            MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t k = 0; k < sizeof other / sizeof *other; k++)
        if (op == other[k]) return sb;
    if (t != MPI_DOUBLE || n <= 0 || c == MPI_COMM_NULL) return sb;
    const volatile nudge_level *l = NULL;
    int at = -1;
    for (int k = 0; k < 2 && !l; k++) {
        const volatile nudge_level *level = &EV->levels[k];
        int same = MPI_UNEQUAL;
        if (level->comm != MPI_COMM_NULL && MPI_Comm_compare(c, level->comm, &same) == MPI_SUCCESS &&
            same != MPI_UNEQUAL)
            l = level, at = k;
    }
    if (!l) return sb;
    long count = 0;
    if (sb == MPI_IN_PLACE) {
        for (int i = 0; i < n; i++) ((double *)rb)[i] = scaled(l, ((double *)rb)[i], &count);
        nudge_seen(at, n, count);
        return sb;
    }
    if (copies_kept == copies_room) {
        size_t room = copies_room ? 2 * copies_room : 64;
        void **more = realloc(copies, room * sizeof *more);
        if (!more) return sb;
        copies = more, copies_room = room;
    }
    double *copy = malloc((size_t)n * sizeof *copy);
    if (!copy) return sb;
    for (int i = 0; i < n; i++) copy[i] = scaled(l, ((const double *)sb)[i], &count);
    copies[copies_kept++] = copy;
    nudge_seen(at, n, count);
    return copy;
}

static void nudge_free(void) {
    hl_trace_on_student_reduce(NULL);
    for (size_t i = 0; i < copies_kept; i++) free(copies[i]);
    free(copies);
    copies = NULL, copies_kept = copies_room = 0;
    for (int k = 0; k < 2; k++) {
        const nudge_level *l = &EV->levels[k];
        if (l->genuine) munmap((void *)(uintptr_t)l->genuine, l->bytes);
        nudge_level none = {MPI_COMM_NULL, 1.0, NULL, 0, 0};
        hl_sealed_put(l, &none, sizeof none);
    }
}

/* `count` values copied onto pages of their own, read-only: a level's genuine values (NULL where
 * there is no memory for them; *bytes: the pages'). */
static const double *kept_values(const double *values, size_t count, size_t *bytes) {
    *bytes = count ? count * sizeof *values : 1;
    void *pages = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) return NULL;
    if (count) memcpy(pages, values, count * sizeof *values);
    if (mprotect(pages, *bytes, PROT_READ) != 0) {
        munmap(pages, *bytes);
        return NULL;
    }
    return pages;
}

/* The nudge set up (collective over comm): the levels and their factors, drawn on rank 0 as
 * a = 256 + (0..255), a[0] for the node, a[1] for the leaders (both 0: not nudged, where a rank
 * has no memory for it); 1 when nudged. Only a leader of several nodes holds its node's sum
 * (the leaders' genuine values), no rank any total beyond its node. */
static int nudge_make(MPI_Comm comm, const hl_nodes *ref, const double *rank_sum, int rank,
                      int threads, long n, int a[2]) {
    unsigned long r = drawn();
    a[0] = 256 + (int)(r % 256UL), a[1] = 256 + (int)((r >> 8) % 256UL);
    MPI_Bcast(a, 2, MPI_INT, 0, comm);
    int node_size = ref->node_size, many = ref->nodes >= 2;
    double *node_total = malloc((size_t)n * sizeof *node_total);
    double *own = malloc((size_t)n * (size_t)(threads + 1) * sizeof *own);
    double *sums = malloc((size_t)n * 2 * sizeof *sums);
    int ok = node_total && own && sums;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (!ok) {
        free(node_total), free(own), free(sums);
        a[0] = a[1] = 0;
        return 0;
    }
    double f_node = (1024.0 + a[0]) / 1024.0, f_leaders = (1024.0 + a[1]) / 1024.0;
    if (many) MPI_Reduce(rank_sum, node_total, (int)n, MPI_DOUBLE, MPI_SUM, 0, ref->node);
    size_t k = 0;
    for (long i = 0; i < n; i++) {
        own[k++] = rank_sum[i];
        for (int t = 0; t < threads; t++) own[k++] = value(rank, t, i);
    }
    qsort(own, k, sizeof *own, by_value);
    nudge_level made[2] = {{node_size >= 2 ? ref->node : MPI_COMM_NULL, f_node, NULL, k, 0}};
    made[0].genuine = kept_values(own, k, &made[0].bytes);
    free(own);
    int leads = many && ref->leaders != MPI_COMM_NULL;
    if (leads) {
        for (long i = 0; i < n; i++) sums[2 * i] = node_total[i], sums[2 * i + 1] = f_node * node_total[i];
        qsort(sums, (size_t)(2 * n), sizeof *sums, by_value);
    }
    made[1] = (nudge_level){leads ? ref->leaders : MPI_COMM_NULL, f_leaders, NULL,
                            leads ? (size_t)(2 * n) : 0, 0};
    made[1].genuine = kept_values(sums, made[1].kinds, &made[1].bytes);
    memset(sums, 0, (size_t)n * 2 * sizeof *sums);
    free(sums);
    memset(node_total, 0, (size_t)n * sizeof *node_total);
    free(node_total);
    if (!made[0].genuine || !made[1].genuine) hl_sealed_stop("no memory for the nudge's values");
    hl_sealed_put(EV->levels, made, sizeof made);
    hl_trace_on_student_reduce(contributed);
    return 1;
}

#ifdef HL_COUNT_ADDS
/* The kit's count of the threads' adds (lab 06 (e)'s judge: every thread of the team adds its own
 * n values into rank_sum; hybridlab.mapping.exercise.node_sum_under_archer, node_sum_unadded):
 * with HL_COUNT_ADDS the program is built with clang's ThreadSanitizer instrumentation (the Archer
 * run) and linked with ADD_COUNT_FLAGS' --wrap, so that ThreadSanitizer's entry points for every
 * plain and atomic store, and memcpy/memmove/memset, pass through the wrappers below (the kit's,
 * not instrumented, out of the cell's reach). While the kit's parallel region runs, each write's
 * bytes that fall in rank_sum, made by the cell's own code (hl_cell_text), are counted for the
 * thread of the kit's team that made it (a team the cell opens inside counts as the thread that
 * opened it); a compare-and-swap counts when it swapped. MPI's, the OpenMP runtime's and the
 * kit's own writes are not counted: a thread that hands its values to another thread, or to MPI,
 * added nothing (attacker A9's K2 and K3, 4/4 twice, 2026-12-07: the master alone added every
 * thread's values; a reduction per thread on the node). */
#define HL_NOT_COUNTED __attribute__((disable_sanitizer_instrumentation, noinline, used))
extern const char __start_hl_cell_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_hl_cell_text[] __attribute__((weak, visibility("hidden")));
#define HL_WAIT_BUDGET 0.25                 /* seconds a thread may wait per call */
/* (sealed: EV->counted_from and counted_to, rank_sum's bytes while the kit's region runs;
 * added_by, per thread of the kit's team; slack, the bytes a thread may lead the team's slowest
 * by. A count is one sealed write, made one at a time under a lock of the kit's that
 * ThreadSanitizer does not see: no synchronisation of the cell's threads it did not make.) */
static double waited[HL_TEAM_MAX];          /* seconds each thread waited in this call */
static int count_lock;

HL_NOT_COUNTED static void count_add(int t, long bytes) {
    while (__atomic_exchange_n(&count_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
    long now = EV_GET(&EV->added_by[t]) + bytes;
    hl_sealed_put(&EV->added_by[t], &now, sizeof now);
    __atomic_store_n(&count_lock, 0, __ATOMIC_RELEASE);
}

/* So that a dynamic schedule shares the elements as a static one does on a loaded machine (as lab
 * 07 (d)'s count does): a thread that has written `slack` bytes of rank_sum more than the team's
 * slowest waits (sched_yield, nothing ThreadSanitizer sees as synchronisation) until that one
 * catches up, up to HL_WAIT_BUDGET seconds per call and thread (a thread that holds a lock round
 * all its adds spends its budget once, then goes on). */
HL_NOT_COUNTED static void keep_pace(int t, int team) {
    double start = -1.0;
    for (;;) {
        long mine = EV_GET(&EV->added_by[t]), least = mine;
        for (int u = 0; u < team && u < HL_TEAM_MAX; u++) {
            long w = EV_GET(&EV->added_by[u]);
            if (w < least) least = w;
        }
        double now = omp_get_wtime();
        if (start < 0) start = now;
        if (mine - least < EV_GET(&EV->slack) || waited[t] + (now - start) > HL_WAIT_BUDGET) break;
        sched_yield();
    }
    waited[t] += omp_get_wtime() - start;
}

HL_NOT_COUNTED static void wrote(const void *caller, const void *at, unsigned long size) {
    uintptr_t a = (uintptr_t)at, lo = EV_GET(&EV->counted_from), hi = EV_GET(&EV->counted_to);
    const char *by = (const char *)caller; /* the cell's own code only (not the kit's nudge) */
    if (a >= hi || a + size <= lo || !__start_hl_cell_text || by < __start_hl_cell_text ||
        by >= __stop_hl_cell_text)
        return;
    int level = omp_get_level(), t = level >= 1 ? omp_get_ancestor_thread_num(1) : 0;
    if (t < 0 || t >= HL_TEAM_MAX) return;
    if (level >= 1) keep_pace(t, omp_get_team_size(1));
    uintptr_t from = a > lo ? a : lo, to = a + size < hi ? a + size : hi;
    count_add(t, (long)(to - from));
}

/* a write of the caller's (the return address of the wrapper it called) */
#define HL_WROTE(at, size) wrote(__builtin_return_address(0), (const void *)(uintptr_t)(at), size)

#define HL_ADD_WRITE(name, size)                                                                   \
    void __real_##name(void *a);                                                                   \
    HL_NOT_COUNTED void __wrap_##name(void *a) {                                                   \
        HL_WROTE(a, size);                                                                         \
        __real_##name(a);                                                                          \
    }
HL_ADD_WRITE(__tsan_write1, 1)
HL_ADD_WRITE(__tsan_write2, 2)
HL_ADD_WRITE(__tsan_write4, 4)
HL_ADD_WRITE(__tsan_write8, 8)
HL_ADD_WRITE(__tsan_write16, 16)
HL_ADD_WRITE(__tsan_unaligned_write2, 2)
HL_ADD_WRITE(__tsan_unaligned_write4, 4)
HL_ADD_WRITE(__tsan_unaligned_write8, 8)
HL_ADD_WRITE(__tsan_unaligned_write16, 16)

#define HL_ADD_UPDATE(bits, type, op)                                                              \
    type __real___tsan_atomic##bits##_##op(volatile type *a, type v, int mo);                      \
    HL_NOT_COUNTED type __wrap___tsan_atomic##bits##_##op(volatile type *a, type v, int mo) {      \
        HL_WROTE(a, sizeof(type));                                                                 \
        return __real___tsan_atomic##bits##_##op(a, v, mo);                                        \
    }
#define HL_ADD_ATOMIC(bits, type)                                                                  \
    void __real___tsan_atomic##bits##_store(volatile type *a, type v, int mo);                     \
    HL_NOT_COUNTED void __wrap___tsan_atomic##bits##_store(volatile type *a, type v, int mo) {     \
        HL_WROTE(a, sizeof(type));                                                                 \
        __real___tsan_atomic##bits##_store(a, v, mo);                                              \
    }                                                                                              \
    int __real___tsan_atomic##bits##_compare_exchange_strong(volatile type *a, type *c, type v,    \
                                                             int mo, int fmo);                     \
    HL_NOT_COUNTED int __wrap___tsan_atomic##bits##_compare_exchange_strong(                       \
        volatile type *a, type *c, type v, int mo, int fmo) {                                      \
        int swapped = __real___tsan_atomic##bits##_compare_exchange_strong(a, c, v, mo, fmo);      \
        if (swapped) HL_WROTE(a, sizeof(type));                                                    \
        return swapped;                                                                            \
    }                                                                                              \
    int __real___tsan_atomic##bits##_compare_exchange_weak(volatile type *a, type *c, type v,      \
                                                           int mo, int fmo);                       \
    HL_NOT_COUNTED int __wrap___tsan_atomic##bits##_compare_exchange_weak(                         \
        volatile type *a, type *c, type v, int mo, int fmo) {                                      \
        int swapped = __real___tsan_atomic##bits##_compare_exchange_weak(a, c, v, mo, fmo);        \
        if (swapped) HL_WROTE(a, sizeof(type));                                                    \
        return swapped;                                                                            \
    }                                                                                              \
    type __real___tsan_atomic##bits##_compare_exchange_val(volatile type *a, type c, type v,       \
                                                           int mo, int fmo);                       \
    HL_NOT_COUNTED type __wrap___tsan_atomic##bits##_compare_exchange_val(                         \
        volatile type *a, type c, type v, int mo, int fmo) {                                       \
        type old = __real___tsan_atomic##bits##_compare_exchange_val(a, c, v, mo, fmo);            \
        if (old == c) HL_WROTE(a, sizeof(type));                                                   \
        return old;                                                                                \
    }                                                                                              \
    HL_ADD_UPDATE(bits, type, exchange)                                                            \
    HL_ADD_UPDATE(bits, type, fetch_add)                                                           \
    HL_ADD_UPDATE(bits, type, fetch_sub)                                                           \
    HL_ADD_UPDATE(bits, type, fetch_and)                                                           \
    HL_ADD_UPDATE(bits, type, fetch_or)                                                            \
    HL_ADD_UPDATE(bits, type, fetch_xor)                                                           \
    HL_ADD_UPDATE(bits, type, fetch_nand)
HL_ADD_ATOMIC(8, unsigned char)
HL_ADD_ATOMIC(16, unsigned short)
HL_ADD_ATOMIC(32, unsigned int)
HL_ADD_ATOMIC(64, unsigned long)

void *__real_memcpy(void *d, const void *s, size_t size);
void *__real_memmove(void *d, const void *s, size_t size);
void *__real_memset(void *d, int c, size_t size);
HL_NOT_COUNTED void *__wrap_memcpy(void *d, const void *s, size_t size) {
    HL_WROTE(d, size);
    return __real_memcpy(d, s, size);
}
HL_NOT_COUNTED void *__wrap_memmove(void *d, const void *s, size_t size) {
    HL_WROTE(d, size);
    return __real_memmove(d, s, size);
}
HL_NOT_COUNTED void *__wrap_memset(void *d, int c, size_t size) {
    HL_WROTE(d, size);
    return __real_memset(d, c, size);
}

/* the count of the next call on (rank_sum's n values) or off (NULL) */
HL_NOT_COUNTED static void count_adds(const double *rank_sum, long n) {
    const nodes_evidence *ev = EV;
    if (rank_sum) {
        static const long none[HL_TEAM_MAX];
        hl_sealed_put(ev->added_by, none, sizeof none);
        for (int t = 0; t < HL_TEAM_MAX; t++) waited[t] = 0.0;
        long share = 8 * n / (4 * omp_get_max_threads()); /* node_sum_unadded's least share */
        EV_SET(&ev->slack, share > 8 ? share : 8);
    }
    uintptr_t span[2] = {(uintptr_t)rank_sum, rank_sum ? (uintptr_t)(rank_sum + n) : 0};
    hl_sealed_put(&ev->counted_from, span, sizeof span);
}

/* the bytes of rank_sum thread t of the kit's team wrote in this call */
HL_NOT_COUNTED static long added_by_thread(int t) {
    return t >= 0 && t < HL_TEAM_MAX ? EV_GET(&EV->added_by[t]) : -1;
}
#else
static void count_adds(const double *rank_sum, long n) { (void)rank_sum, (void)n; }
static long added_by_thread(int t) { (void)t; return -1; }
#endif

/* FNV-1a (64 bits) of the n doubles a thread sees in `sum`: the judge computes the same digest
 * of the right sum (hybridlab.mapping.exercise.node_sum_verdict). */
static unsigned long view_digest(const double *sum, long n) {
    const unsigned char *b = (const unsigned char *)sum;
    unsigned long h = 14695981039346656037UL;
    for (size_t i = 0; i < (size_t)n * sizeof *sum; i++) h = (h ^ b[i]) * 1099511628211UL;
    return h;
}
#endif

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long n = hl_param_long(ctx, "n", 1, &ok);
    if (!ok) return -1;
    if (n > (1L << 24)) return hl_fail(ctx, "parameter n=%ld is too large (at most 2^24)", n);
    int rank = ctx->rank, size = ctx->size, threads = omp_get_max_threads();
    salt = (long)(drawn() % 99991UL) + 17L * rank;
    hl_nodes ref;
    if (hl_nodes_make(ctx, comm, &ref) != 0) return -1;
    hl_emit(ctx, "\"record\":\"salt\",\"salt\":%ld,\"threads\":%d,\"n\":%ld", salt, threads, n);
    MPI_Comm node = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
#ifdef HL_STUDENT_NODES
    if (ref.variant == HL_STUDENT) split_nodes(comm, &node, &leaders);
#endif
    if (ref.variant == HL_FLAT) {
        node = ref.node;
        leaders = ref.leaders;
    }
    int same[2] = {hl_same_group(node, ref.node), hl_same_group(leaders, ref.leaders)};
    MPI_Allreduce(MPI_IN_PLACE, same, 2, MPI_INT, MPI_MIN, comm);
    hl_emit(ctx, "\"record\":\"node\",\"node\":%d,\"node_rank\":%d,\"node_size\":%d,\"leader\":%d,"
                 "\"nodes\":%d,\"ranks_per_node\":%ld",
            ref.leader, ref.node_rank, ref.node_size, ref.node_rank == 0, ref.nodes,
            ref.ranks_per_node);

    /* want: the reference, the kit's flat variant only (the student's is judged outside) */
    double *want = ref.variant == HL_FLAT ? malloc((size_t)n * sizeof *want) : NULL;
    double *rank_sum = malloc((size_t)n * sizeof *rank_sum), *sum = malloc((size_t)n * sizeof *sum);
    unsigned long *views = calloc((size_t)(ref.reps > 0 ? ref.reps : 1) * (size_t)threads, sizeof *views);
    long *added = calloc((size_t)(ref.reps > 0 ? ref.reps : 1) * (size_t)threads, sizeof *added);
    if ((ref.variant == HL_FLAT && !want) || !rank_sum || !sum || !views || !added) {
        free(want), free(rank_sum), free(sum), free(views), free(added), hl_nodes_free(&ref);
        return hl_fail(ctx, "no memory for %ld values", n);
    }
    for (long i = 0; i < n; i++) {
        rank_sum[i] = 0.0;
        for (int t = 0; t < threads; t++) rank_sum[i] += value(rank, t, i);
    }
    if (ref.variant == HL_FLAT)
        MPI_Allreduce(rank_sum, want, (int)n, MPI_DOUBLE, MPI_SUM, comm); /* the reference */
#ifdef HL_STUDENT_NODES
    int a[2] = {0, 0}, nudged = 0; /* the factors' draws (the "nudge" record) */
    if (ref.variant == HL_STUDENT && same[0] && same[1]) {
        nudged = nudge_make(comm, &ref, rank_sum, rank, threads, n, a);
        /* recorded before node_sum runs: no store of the student's changes what the judge reads */
        if (rank == 0)
            hl_emit(ctx, "\"record\":\"nudge\",\"nudged\":%d,\"a_node\":%d,\"a_leaders\":%d",
                    nudged, a[0], a[1]);
    }
#endif

    long wrong = 0, unreduced = 0;
    for (long rep = 0; rep < ref.reps && same[0] && same[1]; rep++) {
        for (long i = 0; i < n; i++) rank_sum[i] = 0.0, sum[i] = NAN;
#ifdef HL_STUDENT_NODES /* the cell runs on this stack: what the threads' views read, kept sealed */
        HL_KEEP(ctx, n, rep, threads, ref.variant, (long)sum, (long)rank_sum, (long)views);
#endif
#ifdef HL_STUDENT_NODES
        if (ref.variant == HL_STUDENT) count_adds(rank_sum, n); /* HL_COUNT_ADDS only */
#endif
        double t0 = hl_start_together(comm);
        if (ref.variant == HL_FLAT) {
            for (long i = 0; i < n; i++)
                for (int t = 0; t < threads; t++) rank_sum[i] += value(rank, t, i);
            MPI_Allreduce(rank_sum, sum, (int)n, MPI_DOUBLE, MPI_SUM, comm);
        }
#pragma omp parallel num_threads(threads) reduction(+ : wrong)
        {
            int t = omp_get_thread_num();
            double *mine = malloc((size_t)n * sizeof *mine);
            for (long i = 0; i < n && mine; i++) mine[i] = value(rank, t, i);
#ifdef HL_STUDENT_NODES
            if (ref.variant == HL_STUDENT) {
                node_sum(mine, rank_sum, sum, (int)n, node, leaders);
                HL_KEPT_CHECK("node_sum", n, rep, threads, ref.variant, (long)sum,
                              (long)rank_sum, (long)views);
                if (t != omp_get_thread_num())
                    hl_kept_stop("node_sum", "the thread number", omp_get_thread_num(), t);
                /* this thread's own view, and the bytes of rank_sum it wrote (HL_COUNT_ADDS; -1
                 * not counted), to the tracer's stream as node_sum returns (kept for the records
                 * only where the run has no stream) */
                unsigned long seen = view_digest(sum, n);
                long wrote_here = added_by_thread(t);
                char fields[200];
                double now = hl_now();
                snprintf(fields, sizeof fields, "\"record\":\"view\",\"repetition\":%ld,\"thread\":%d,"
                         "\"hash\":\"%016lx\",\"added\":%ld", rep, t, seen, wrote_here);
                if (!hl_trace_event(fields, now, now))
                    views[rep * threads + t] = seen, added[rep * threads + t] = wrote_here;
            }
#endif
            for (long i = 0; i < n && want; i++) /* the kit's flat sum, checked here */
                if (sum[i] != want[i]) wrong++;
            free(mine);
        }
#ifdef HL_STUDENT_NODES
        count_adds(NULL, 0);
#endif
        double seconds = hl_slowest_since(comm, t0);
        if (rank == 0) hl_emit(ctx, "\"record\":\"time\",\"repetition\":%ld,\"seconds\":%.9g", rep, seconds);
#ifdef HL_STUDENT_NODES
        if (ref.variant == HL_STUDENT && !hl_trace_streaming())
            for (int t = 0; t < threads; t++)
                hl_emit(ctx, "\"record\":\"view\",\"repetition\":%ld,\"thread\":%d,\"hash\":\"%016lx\","
                             "\"added\":%ld",
                        rep, t, views[rep * threads + t], added[rep * threads + t]);
#endif
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    if (ref.variant == HL_STUDENT) wrong = unreduced = -1; /* judged outside: node_sum_verdict */
    if (rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"same_node\":%d,\"same_leaders\":%d,"
                     "\"wrong\":%ld,\"unreduced\":%ld,\"values\":%ld,\"variant\":\"%s\"",
                same[0] && same[1] && wrong <= 0, same[0], same[1], wrong, unreduced,
                n * threads * size * ref.reps, hl_node_variant_names[ref.variant]);
    if (ref.variant == HL_STUDENT) {
        if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
        if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
    }
#ifdef HL_STUDENT_NODES
    if (nudged) nudge_free();
#endif
    hl_nodes_free(&ref);
    free(want);
    free(rank_sum);
    free(sum);
    free(views);
    free(added);
    return 0;
}
