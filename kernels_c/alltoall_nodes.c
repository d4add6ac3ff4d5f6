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
#include <sys/mman.h>

#ifdef HL_STUDENT_ALLTOALL
#include "alltoall_nodes_student.h"
#endif

/* With HL_COUNT_WRITES (hybridlab.collectives.exercise.build_student_alltoall(count=True): the
 * student's unit built with clang's ThreadSanitizer instrumentation, linked with COUNT_FLAGS'
 * --wrap): ThreadSanitizer's entry points for every plain and atomic store, and memcpy/memmove/
 * memset (a memset to zero logged, not counted: copied() below), pass through the wrappers below, which count, per OpenMP thread number, the bytes the
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
#define HL_NOT_COUNTED __attribute__((disable_sanitizer_instrumentation, noinline, used))
#define HL_LOG_ENTRIES (1L << 18)
typedef struct {
    uintptr_t at;
    long bytes;
    int who;
} hl_logged;
/* The counts and the log are sealed (hybridlab.h's sealed evidence; the log on pages of its own,
 * read-only, written like the sealed page through /proc/self/mem): the cell is linked into the
 * same program, and a static of the kit's (or a block whose pointer sits in one) is found from
 * a static of the cell's at the offset the link fixes and rewritten (a log entry's thread, a
 * thread's count). Each counted write takes the kit's lock (a spin on a word ThreadSanitizer
 * does not see: no synchronisation of the cell's threads it did not make) and a few pwrites. */
typedef struct {
    long counting;                        /* while alltoall_nodes runs */
    long slack;                           /* bytes a thread may lead the slowest by */
    long written_by[HL_COUNTED_THREADS];  /* per thread number, in a team of 2+ */
    long written_alone;                   /* outside parallel regions (a team of one) */
    long widest_team;                     /* the largest team that wrote */
    long log_used, log_lost;              /* the log's entries taken; past its end */
    long sent_by[HL_COUNTED_THREADS], sent_alone; /* the credited bytes */
    hl_logged *logged;                    /* HL_LOG_ENTRIES entries, read-only pages */
} a2a_evidence;
_Static_assert(sizeof(a2a_evidence) <= HL_SEALED_DATA, "a2a_evidence: too large");
#define EV HL_SEALED(a2a_evidence)
#define EV_GET(p) (*(const volatile __typeof__(*(p)) *)(p))
static double waited[HL_COUNTED_THREADS];      /* seconds each thread number waited */
static int count_lock;                         /* (the pace's waits are no evidence) */

HL_NOT_COUNTED static void count_take(void) {
    while (__atomic_exchange_n(&count_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
HL_NOT_COUNTED static void count_give(void) { __atomic_store_n(&count_lock, 0, __ATOMIC_RELEASE); }
/* (under the lock, or before any student code) a sealed long, or the log's bytes */
HL_NOT_COUNTED static void ev_set(const long *p, long v) { hl_sealed_put(p, &v, sizeof v); }
HL_NOT_COUNTED static void log_put(const hl_logged *dst, const hl_logged *src) {
    int mem = *(const volatile int *)&hl_sealed.s.mem;
    if (*(const volatile int *)&hl_sealed.s.ready && mem >= 0) {
        if (pwrite(mem, src, sizeof *src, (off_t)(uintptr_t)dst) != (ssize_t)sizeof *src)
            hl_sealed_stop("a write of the log through /proc/self/mem failed");
    } else {
        long page = sysconf(_SC_PAGESIZE);
        uintptr_t lo = (uintptr_t)dst & ~(uintptr_t)(page - 1);
        size_t span = (size_t)((uintptr_t)(dst + 1) - lo);
        if (mprotect((void *)lo, span, PROT_READ | PROT_WRITE) != 0) hl_sealed_stop("mprotect failed");
        *(hl_logged *)(uintptr_t)dst = *src;
        mprotect((void *)lo, span, PROT_READ);
    }
    if (memcmp(dst, src, sizeof *src) != 0) hl_sealed_stop("a write of the log did not land");
}
extern const char __start_hl_cell_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_hl_cell_text[] __attribute__((weak, visibility("hidden")));

HL_NOT_COUNTED static int counted_caller(const void *caller) {
    const char *p = (const char *)caller;
    return EV_GET(&EV->counting) && __start_hl_cell_text &&
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
        long mine = EV_GET(&EV->written_by[t]), least = mine;
        for (int u = 0; u < team; u++) {
            long w = EV_GET(&EV->written_by[u]);
            if (w < least) least = w;
        }
        if (mine - least < EV_GET(&EV->slack) || waited[t] > HL_WAIT_BUDGET) break;
        double now = omp_get_wtime();
        if (start < 0) start = now;
        else if (waited[t] + (now - start) > HL_WAIT_BUDGET) break;
        sched_yield();
    }
    if (start >= 0) waited[t] += omp_get_wtime() - start;
}

/* The order of the cell's writes and of the data its MPI calls send, kept while alltoall_nodes
 * runs (each write's address, bytes and thread number, -1 outside a team; each send's span, who
 * -2), so that a write is credited only if the bytes it left are the ones MPI then sends (or the
 * kit reads in recv): a thread's writes to memory never sent, or overwritten before it is sent,
 * are no share of the copies (sent_shares). Past HL_LOG_ENTRIES, `lost` counts what was not kept. */
/* (sealed: EV->logged, log_used, log_lost, sent_by, sent_alone) */
HL_NOT_COUNTED static void log_entry(uintptr_t at, long bytes, int who) {
    const a2a_evidence *ev = EV;
    count_take();
    long i = EV_GET(&ev->log_used);
    ev_set(&ev->log_used, i + 1);
    if (i >= HL_LOG_ENTRIES || !EV_GET(&ev->logged)) {
        ev_set(&ev->log_lost, EV_GET(&ev->log_lost) + 1);
    } else {
        hl_logged entry = {at, bytes, who};
        log_put(&EV_GET(&ev->logged)[i], &entry);
    }
    count_give();
}

HL_NOT_COUNTED static void wrote(const void *caller, const void *at, unsigned long size) {
    if (size == 0 || !counted_caller(caller)) return;
    int t, team = team_of(&t);
    log_entry((uintptr_t)at, (long)size, team ? t : -1);
    const a2a_evidence *ev = EV;
    if (!team) {
        count_take();
        ev_set(&ev->written_alone, EV_GET(&ev->written_alone) + (long)size);
        count_give();
        return;
    }
    if (team > EV_GET(&ev->widest_team)) {
        count_take();
        if (team > EV_GET(&ev->widest_team)) ev_set(&ev->widest_team, team);
        count_give();
    }
    keep_pace(t, team);
    count_take();
    ev_set(&ev->written_by[t], EV_GET(&ev->written_by[t]) + (long)size);
    count_give();
}

#define HL_COUNT_WRITE(name, size)                                                             \
    void __real_##name(void *a);                                                                \
    HL_NOT_COUNTED void __wrap_##name(void *a) {                                                \
        wrote(__builtin_return_address(0), a, size);                                            \
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

/* an atomic update (`#pragma omp atomic`, __atomic_fetch_or into zeroed memory copies too) */
#define HL_COUNT_UPDATE(bits, type, op)                                                         \
    type __real___tsan_atomic##bits##_##op(volatile type *a, type v, int mo);                   \
    HL_NOT_COUNTED type __wrap___tsan_atomic##bits##_##op(volatile type *a, type v, int mo) {   \
        wrote(__builtin_return_address(0), (const void *)(uintptr_t)a, sizeof(type));           \
        return __real___tsan_atomic##bits##_##op(a, v, mo);                                     \
    }
#define HL_COUNT_ATOMIC(bits, type)                                                             \
    void __real___tsan_atomic##bits##_store(volatile type *a, type v, int mo);                   \
    HL_NOT_COUNTED void __wrap___tsan_atomic##bits##_store(volatile type *a, type v, int mo) {   \
        wrote(__builtin_return_address(0), (const void *)(uintptr_t)a, sizeof(type));           \
        __real___tsan_atomic##bits##_store(a, v, mo);                                            \
    }                                                                                            \
    type __real___tsan_atomic##bits##_exchange(volatile type *a, type v, int mo);                \
    HL_NOT_COUNTED type __wrap___tsan_atomic##bits##_exchange(volatile type *a, type v, int mo) {\
        wrote(__builtin_return_address(0), (const void *)(uintptr_t)a, sizeof(type));           \
        return __real___tsan_atomic##bits##_exchange(a, v, mo);                                  \
    }                                                                                            \
    int __real___tsan_atomic##bits##_compare_exchange_strong(volatile type *a, type *c, type v,  \
                                                             int mo, int fmo);                   \
    HL_NOT_COUNTED int __wrap___tsan_atomic##bits##_compare_exchange_strong(                     \
        volatile type *a, type *c, type v, int mo, int fmo) {                                    \
        wrote(__builtin_return_address(0), (const void *)(uintptr_t)a, sizeof(type));           \
        return __real___tsan_atomic##bits##_compare_exchange_strong(a, c, v, mo, fmo);           \
    }                                                                                            \
    int __real___tsan_atomic##bits##_compare_exchange_weak(volatile type *a, type *c, type v,    \
                                                           int mo, int fmo);                     \
    HL_NOT_COUNTED int __wrap___tsan_atomic##bits##_compare_exchange_weak(                       \
        volatile type *a, type *c, type v, int mo, int fmo) {                                    \
        wrote(__builtin_return_address(0), (const void *)(uintptr_t)a, sizeof(type));           \
        return __real___tsan_atomic##bits##_compare_exchange_weak(a, c, v, mo, fmo);             \
    }                                                                                            \
    type __real___tsan_atomic##bits##_compare_exchange_val(volatile type *a, type c, type v,     \
                                                           int mo, int fmo);                     \
    HL_NOT_COUNTED type __wrap___tsan_atomic##bits##_compare_exchange_val(                       \
        volatile type *a, type c, type v, int mo, int fmo) {                                     \
        wrote(__builtin_return_address(0), (const void *)(uintptr_t)a, sizeof(type));           \
        return __real___tsan_atomic##bits##_compare_exchange_val(a, c, v, mo, fmo);              \
    }                                                                                            \
    HL_COUNT_UPDATE(bits, type, fetch_add)                                                       \
    HL_COUNT_UPDATE(bits, type, fetch_sub)                                                       \
    HL_COUNT_UPDATE(bits, type, fetch_and)                                                       \
    HL_COUNT_UPDATE(bits, type, fetch_or)                                                        \
    HL_COUNT_UPDATE(bits, type, fetch_xor)                                                       \
    HL_COUNT_UPDATE(bits, type, fetch_nand)
HL_COUNT_ATOMIC(8, unsigned char)
HL_COUNT_ATOMIC(16, unsigned short)
HL_COUNT_ATOMIC(32, unsigned int)
HL_COUNT_ATOMIC(64, unsigned long)

/* a copy by memcpy or memmove, or bytes set by memset: in a team, in pieces of `slack` bytes,
 * each counted first. A memset to zero clears (as calloc does) and copies nothing: its bytes are
 * not counted as written, but they are logged as its thread's, so that zeros it leaves and MPI
 * sends are that thread's share (a fresh attacker's leader set every byte alone with
 * `memset(d + b, s[b], one)`, unseen by the count: 4/4 kept, 2026-12-05) */
void *__real_memcpy(void *d, const void *s, size_t size);
void *__real_memmove(void *d, const void *s, size_t size);
void *__real_memset(void *d, int c, size_t size);
enum { HL_COPY, HL_MOVE, HL_SET };
HL_NOT_COUNTED static void *made(int how, void *d, const void *s, int c, size_t size) {
    return how == HL_SET ? __real_memset(d, c, size)
           : how == HL_MOVE ? __real_memmove(d, s, size) : __real_memcpy(d, s, size);
}
HL_NOT_COUNTED static void *copied(const void *caller, void *d, const void *s, int c, size_t size,
                                   int how) {
    int t;
    if (how == HL_SET && (unsigned char)c == 0) {
        if (size && counted_caller(caller)) {
            int team = team_of(&t);
            log_entry((uintptr_t)d, (long)size, team ? t : -1);
        }
        return __real_memset(d, c, size);
    }
    size_t slack = (size_t)EV_GET(&EV->slack);
    if (!counted_caller(caller) || !team_of(&t) || how == HL_MOVE || size <= slack) {
        wrote(caller, d, size);
        return made(how, d, s, c, size);
    }
    for (size_t at = 0; at < size; at += slack) {
        size_t piece = size - at < slack ? size - at : slack;
        wrote(caller, (char *)d + at, piece);
        made(how, (char *)d + at, s ? (const char *)s + at : s, c, piece);
    }
    return d;
}
HL_NOT_COUNTED void *__wrap_memcpy(void *d, const void *s, size_t size) {
    return copied(__builtin_return_address(0), d, s, 0, size, HL_COPY);
}
HL_NOT_COUNTED void *__wrap_memmove(void *d, const void *s, size_t size) {
    return copied(__builtin_return_address(0), d, s, 0, size, HL_MOVE);
}
HL_NOT_COUNTED void *__wrap_memset(void *d, int c, size_t size) {
    return copied(__builtin_return_address(0), d, NULL, c, size, HL_SET);
}

/* The data the cell's MPI calls send, logged as each call begins (--wrap of the tracer's entry
 * points for the calls the part allows, COUNT_FLAGS): `k` elements of `t` from `b`, the first
 * `first` extents in; the span from the first byte to the last, holes of a derived type in it. */
HL_NOT_COUNTED static void log_sent(const void *b, long first, long k, MPI_Datatype t) {
    MPI_Aint lb, extent, true_lb, true_extent;
    if (!EV_GET(&EV->counting) || !b || b == MPI_IN_PLACE || k <= 0 ||
        t == MPI_DATATYPE_NULL || MPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(t, &true_lb, &true_extent) != MPI_SUCCESS || true_extent <= 0)
        return;
    long span = (long)((k - 1) * extent + true_extent);
    log_entry((uintptr_t)b + (uintptr_t)(first * extent + true_lb), span, -2);
}

HL_NOT_COUNTED static int my_rank(MPI_Comm c) {
    int me = -1;
    if (c != MPI_COMM_NULL) PMPI_Comm_rank(c, &me);
    return me;
}

HL_NOT_COUNTED static int comm_size(MPI_Comm c) {
    int n = 0;
    if (c != MPI_COMM_NULL) PMPI_Comm_size(c, &n);
    return n;
}

#define HL_SENDS(entry, params, args, log)                                                       \
    int __real_hl_traced_MPI_##entry params;                                                     \
    HL_NOT_COUNTED int __wrap_hl_traced_MPI_##entry params {                                     \
        log;                                                                                     \
        return __real_hl_traced_MPI_##entry args;                                                \
    }
#define HL_P2P_SENDS(entry)                                                                      \
    HL_SENDS(entry, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c),            \
             (b, n, t, d, g, c), log_sent(b, 0, n, t))
#define HL_IP2P_SENDS(entry)                                                                     \
    HL_SENDS(entry, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c,             \
                     MPI_Request *r),                                                            \
             (b, n, t, d, g, c, r), log_sent(b, 0, n, t))
HL_P2P_SENDS(Send)
HL_P2P_SENDS(Send_synchronous)
HL_P2P_SENDS(Ssend)
HL_IP2P_SENDS(Isend)
HL_IP2P_SENDS(Isend_synchronous)
HL_IP2P_SENDS(Issend)
HL_SENDS(Sendrecv,
         (const void *sb, int sn, MPI_Datatype st, int d, int sg, void *rb, int rn,
          MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Status *status),
         (sb, sn, st, d, sg, rb, rn, rt, s, rg, c, status), log_sent(sb, 0, sn, st))
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
HL_SENDS(Isendrecv,
         (const void *sb, int sn, MPI_Datatype st, int d, int sg, void *rb, int rn,
          MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Request *r),
         (sb, sn, st, d, sg, rb, rn, rt, s, rg, c, r), log_sent(sb, 0, sn, st))
#endif
HL_SENDS(Alltoall,
         (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
         (sb, sn, st, rb, rn, rt, c),
         sb == MPI_IN_PLACE ? log_sent(rb, 0, (long)rn * comm_size(c), rt)
                            : log_sent(sb, 0, (long)sn * comm_size(c), st))
HL_SENDS(Ialltoall,
         (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c,
          MPI_Request *r),
         (sb, sn, st, rb, rn, rt, c, r),
         sb == MPI_IN_PLACE ? log_sent(rb, 0, (long)rn * comm_size(c), rt)
                            : log_sent(sb, 0, (long)sn * comm_size(c), st))
HL_SENDS(Alltoallv,
         (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
          const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
         (sb, sn, sd, st, rb, rn, rd, rt, c),
         for (int i = 0, m = comm_size(c); i < m; i++) sb == MPI_IN_PLACE
             ? log_sent(rb, rd[i], rn[i], rt) : log_sent(sb, sd[i], sn[i], st))
HL_SENDS(Gather,
         (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
          MPI_Comm c),
         (sb, sn, st, rb, rn, rt, root, c),
         sb == MPI_IN_PLACE ? log_sent(rb, (long)root * rn, rn, rt) : log_sent(sb, 0, sn, st))
HL_SENDS(Gatherv,
         (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int rd[],
          MPI_Datatype rt, int root, MPI_Comm c),
         (sb, sn, st, rb, rn, rd, rt, root, c),
         sb == MPI_IN_PLACE ? log_sent(rb, rd[root], rn[root], rt) : log_sent(sb, 0, sn, st))
HL_SENDS(Scatter,
         (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
          MPI_Comm c),
         (sb, sn, st, rb, rn, rt, root, c),
         if (my_rank(c) == root) log_sent(sb, 0, (long)sn * comm_size(c), st))
HL_SENDS(Scatterv,
         (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb, int rn,
          MPI_Datatype rt, int root, MPI_Comm c),
         (sb, sn, sd, st, rb, rn, rt, root, c),
         if (my_rank(c) == root) for (int i = 0, m = comm_size(c); i < m; i++)
             log_sent(sb, sd[i], sn[i], st))

/* The credit (sent_by, sent_alone): the log replayed in order over the bytes of every span sent
 * (and of recv, which the kit reads once the call returns), each byte's last writer credited
 * when its span is sent, once per write. Outside the spans nothing is credited. */
HL_NOT_COUNTED static int by_start(const void *a, const void *b) {
    const hl_logged *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

HL_NOT_COUNTED static void credit_sent(const double *recv, size_t n) {
    const a2a_evidence *ev = EV;
    struct {
        long by[HL_COUNTED_THREADS], alone;
    } sent = {{0}, 0};
    hl_sealed_put(ev->sent_by, &sent, sizeof sent); /* (sent_by and sent_alone, adjacent) */
    const hl_logged *logged = EV_GET(&ev->logged);
    if (!logged) return;
    long used = EV_GET(&ev->log_used), spans = 0;
    used = used < HL_LOG_ENTRIES ? used : HL_LOG_ENTRIES;
    log_entry((uintptr_t)recv, (long)(n * sizeof *recv), -2);
    if (used < HL_LOG_ENTRIES) used++;
    for (long i = 0; i < used; i++) spans += logged[i].who == -2;
    hl_logged *segment = malloc((size_t)(spans ? spans : 1) * sizeof *segment);
    if (!segment) return;
    long kept = 0;
    for (long i = 0; i < used; i++)
        if (logged[i].who == -2 && logged[i].bytes > 0) segment[kept++] = logged[i];
    qsort(segment, (size_t)kept, sizeof *segment, by_start);
    long merged = 0; /* the spans' union, disjoint and in address order; bytes: owners' offset */
    for (long i = 0; i < kept; i++) {
        uintptr_t end = segment[i].at + (uintptr_t)segment[i].bytes;
        if (merged && segment[i].at <= segment[merged - 1].at + (uintptr_t)segment[merged - 1].bytes) {
            uintptr_t last = segment[merged - 1].at + (uintptr_t)segment[merged - 1].bytes;
            if (end > last) segment[merged - 1].bytes = (long)(end - segment[merged - 1].at);
        } else {
            segment[merged++] = segment[i];
        }
    }
    long total = 0;
    for (long i = 0; i < merged; i++) segment[i].who = (int)total, total += segment[i].bytes;
    signed char *owner = total > 0 && total <= (1L << 26) ? malloc((size_t)total) : NULL;
    if (!owner) {
        free(segment);
        return;
    }
    memset(owner, -3, (size_t)total); /* -3: no write of the cell's; -1: outside a team */
    for (long i = 0; i < used; i++) {
        uintptr_t lo = logged[i].at, hi = lo + (uintptr_t)logged[i].bytes;
        for (long j = 0; j < merged; j++) {
            uintptr_t slo = segment[j].at, shi = slo + (uintptr_t)segment[j].bytes;
            if (hi <= slo || lo >= shi) continue;
            uintptr_t a = lo > slo ? lo : slo, b = hi < shi ? hi : shi;
            signed char *o = owner + segment[j].who + (a - slo);
            if (logged[i].who != -2) {
                memset(o, logged[i].who, (size_t)(b - a));
                continue;
            }
            for (uintptr_t k = 0; k < b - a; k++) { /* sent: credit each byte's writer, once */
                if (o[k] == -1) sent.alone++;
                else if (o[k] >= 0) sent.by[(int)o[k]]++;
                if (o[k] >= -1) o[k] = -3;
            }
        }
    }
    free(owner);
    free(segment);
    hl_sealed_put(ev->sent_by, &sent, sizeof sent);
}

HL_NOT_COUNTED static void count_writes(int on, long count, const double *recv, size_t n) {
    const a2a_evidence *ev = EV;
    if (on) {
        if (!EV_GET(&ev->logged)) { /* the log's pages, once per kernel call */
            void *pages = mmap(NULL, HL_LOG_ENTRIES * sizeof(hl_logged), PROT_READ,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (pages != MAP_FAILED) hl_sealed_put(&ev->logged, &pages, sizeof pages);
        }
        for (int u = 0; u < HL_COUNTED_THREADS; u++) waited[u] = 0.0;
        struct { /* counting .. log_lost, adjacent */
            long counting, slack, written_by[HL_COUNTED_THREADS], written_alone, widest_team,
                log_used, log_lost;
        } fresh = {0, 8 * (count / 2 > 0 ? count / 2 : 1), {0}, 0, 0, 0, 0}; /* half a block */
        hl_sealed_put(&ev->counting, &fresh, sizeof fresh);
    }
    ev_set(&ev->counting, on);
    if (!on) credit_sent(recv, n);
}

/* one "writes" record per rank and call: bytes outside regions, per thread number, waits */
static void emit_writes(hl_ctx *ctx, long rep, int leader) {
    const a2a_evidence *ev = EV;
    char by[HL_COUNTED_THREADS * 21 + 1] = "", *at = by;
    int shown = omp_get_max_threads(), widest_team = (int)EV_GET(&ev->widest_team);
    if (widest_team > shown) shown = widest_team;
    if (shown > HL_COUNTED_THREADS) shown = HL_COUNTED_THREADS;
    double most = 0.0;
    for (int u = 0; u < shown; u++) {
        at += snprintf(at, (size_t)(by + sizeof by - at), "%s%ld", u ? " " : "",
                       EV_GET(&ev->written_by[u]));
        if (waited[u] > most) most = waited[u];
    }
    char sent[HL_COUNTED_THREADS * 21 + 1] = "";
    at = sent;
    for (int u = 0; u < shown; u++)
        at += snprintf(at, (size_t)(sent + sizeof sent - at), "%s%ld", u ? " " : "",
                       EV_GET(&ev->sent_by[u]));
    hl_emit(ctx, "\"record\":\"writes\",\"repetition\":%ld,\"leader\":%d,\"alone\":%ld,"
                 "\"by_thread\":\"%s\",\"widest_team\":%d,\"waited\":%.6f,\"sent_alone\":%ld,"
                 "\"sent_by_thread\":\"%s\",\"lost\":%ld",
            rep, leader, EV_GET(&ev->written_alone), by, widest_team, most,
            EV_GET(&ev->sent_alone), sent, EV_GET(&ev->log_lost));
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
    /* the reference on pages of its own, which nobody can read or write while the student's code
     * runs (PROT_NONE; a cell cannot call mprotect) and only read for the check: a heap block next
     * to recv was the cell's to find, to copy from or to rewrite */
    size_t want_bytes = n * sizeof(double);
    double *want = mmap(NULL, want_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (want == MAP_FAILED) want = NULL;
    if (!send || !recv || !want) {
        free(send), free(recv), hl_nodes_free(&nodes);
        if (want) munmap(want, want_bytes);
        return hl_fail(ctx, "no memory for %zu values", n);
    }
    /* a salt each rank draws for this run and tells no other: what a rank receives cannot be
     * written down without the messages (the reference below is the kit's own MPI_Alltoall) */
    double salt = floor(fmod(hl_now() * 1e9, 99991.0)) + 17.0 * rank;
    for (size_t i = 0; i < n; i++) send[i] = (double)((size_t)rank * n + i) + salt;
    MPI_Alltoall(send, (int)count, MPI_DOUBLE, want, (int)count, MPI_DOUBLE, comm);
    if (mprotect(want, want_bytes, PROT_NONE) != 0) {
        free(send), free(recv), munmap(want, want_bytes), hl_nodes_free(&nodes);
        return hl_fail(ctx, "the reference could not be put out of reach (mprotect)");
    }

    long wrong = 0;
    for (long rep = 0; rep < nodes.reps; rep++) {
        for (size_t i = 0; i < n; i++) recv[i] = NAN;
#ifdef HL_STUDENT_ALLTOALL /* the cell runs on this stack: what the check reads, kept sealed */
        HL_KEEP(ctx, (long)n, count, size, rep, nodes.reps, nodes.variant, wrong, (long)send,
                (long)recv, (long)want);
#endif
        double t0 = hl_start_together(comm);
        if (nodes.variant == HL_FLAT)
            MPI_Alltoall(send, (int)count, MPI_DOUBLE, recv, (int)count, MPI_DOUBLE, comm);
#ifdef HL_STUDENT_ALLTOALL
        if (nodes.variant == HL_STUDENT) {
#ifdef HL_COUNT_WRITES
            count_writes(1, count, recv, n);
#endif
            alltoall_nodes(send, recv, (int)count, comm, nodes.node, nodes.leaders);
#ifdef HL_COUNT_WRITES
            count_writes(0, count, recv, n);
            emit_writes(ctx, rep, nodes.node_rank == 0);
#endif
        }
#endif
        double seconds = hl_slowest_since(comm, t0);
#ifdef HL_STUDENT_ALLTOALL
        HL_KEPT_CHECK("alltoall_nodes", (long)n, count, size, rep, nodes.reps, nodes.variant,
                      wrong, (long)send, (long)recv, (long)want);
#endif
        (void)mprotect(want, want_bytes, PROT_READ); /* the kit's check only */
        for (size_t i = 0; i < n; i++) wrong += memcmp(&recv[i], &want[i], sizeof *recv) != 0;
        (void)mprotect(want, want_bytes, PROT_NONE);
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
    munmap(want, want_bytes);
    return 0;
}
