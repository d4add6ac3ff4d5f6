/* race_bins: a histogram of every rank's elements, counted by OpenMP threads (lab 16, tools).
 *
 * Rank r has n elements; bin_of(i) gives element i's bin (a hash of i, the rank and `salt`).
 *     variant=kit      the kit's count: a parallel loop with an array reduction over bins;
 *     variant=student  (built by hybridlab.runs.student_c.build_student with HL_STUDENT_RACE_BINS):
 *                      the student's count_bins(), declared in race_bins_student.h, called by the
 *                      main thread outside any parallel region.
 * Then one MPI_Allreduce sums the ranks' bins. Built for Archer (hybridlab.kernels.archer), a race
 * of the count is a ThreadSanitizer report the kit reads from its own files.
 *
 * What the kit sees of the count: bin_of() notes, per OpenMP thread number, how many elements that
 * thread asked for and the size of its team; in the kit's own section (HL_KIT_STATE), which a
 * write of the student's unit stops the run for under the watch (HL_WATCH_BINS).
 * Records: "bin" per bin on rank 0 (bin, count: the sum over ranks); "threads" per rank (threads:
 * how many threads asked for elements, team: the largest team seen, calls: elements asked for,
 * largest: the most elements one thread asked for, writes: the most writes one thread made into
 * the bins during count_bins, -1 unless built with HL_WATCH_BINS; silent: the threads that asked for
 * elements yet added nothing to the bins (a write of 0 or of the value there adds nothing);
 * odd_atomics: atomic writes into the bins that are no add; added: the most counts one thread
 * added to the bins; taken: the counts taken off them; unseen: changes no watched write made;
 * fewest: the fewest elements a thread that asked for any asked for (bin_of keeps the team asking
 * in step: keep_pace); undercount: threads that added less than half the counts of the elements
 * they asked for; pace_waits: keep_pace's waits that ended with no teammate asking;
 * with HL_WATCH_BINS each thread's first compare-and-swap on a bin is made to fail, as a contending
 * increment would, and the kit's one taken off the bins when count_bins returns);
 * "check" on rank 0 (ok: every bin equals a serial count, summed over ranks, and every rank's
 * calls are at least n; wrong: the bins that differ).
 */
#include "hybridlab.h"

#ifdef HL_STUDENT_RACE_BINS
#include "race_bins_student.h"
#endif

const char *const hl_kernel_description =
    "a histogram counted by OpenMP threads (the kit's reduction or the student's count_bins), "
    "summed over ranks";

const hl_param hl_kernel_params[] = {
    {"variant", "kit", "kit: a reduction over bins; student: the student's count_bins()"},
    {"n", "100000", "elements per rank"},
    {"nbins", "8", "bins"},
    {"salt", "0", "shifts every element's bin (hidden tests draw it)"},
    HL_END_PARAMS,
};

#define HL_MAX_THREADS 256
/* The kit's own state (the count's parameters, its tallies, the watch's below): one section of
 * the library. With HL_WATCH_BINS every write of the student's unit passes the watch (the part
 * refuses any other: hybridlab.tools.exercise.build_count), and one landing in this section
 * stops the run (noted); the kit writes it only from functions ThreadSanitizer does not
 * instrument (HL_NOT_WATCHED), whose writes never pass the watch. */
#define HL_KIT_STATE __attribute__((section("race_bins_kit")))
#ifdef HL_WATCH_BINS
/* not instrumented at all (no function entry or exit either): see the watch below */
#define HL_NOT_WATCHED __attribute__((disable_sanitizer_instrumentation, noinline, used))
#else
#define HL_NOT_WATCHED
#endif
static HL_KIT_STATE long element_count;
static HL_KIT_STATE int bin_count, my_rank;
static HL_KIT_STATE unsigned long bin_salt;
#define HL_MEET_SECONDS 0.5 /* how long a thread's first bin_of waits for another thread's */
static HL_KIT_STATE long calls_of[HL_MAX_THREADS]; /* per thread number: elements it asked for */
static HL_KIT_STATE int team_of[HL_MAX_THREADS];   /* per thread number: the size of its team */
static HL_KIT_STATE int arrived[HL_MAX_THREADS]; /* per thread number: it has asked (relaxed) */

static int bin(long i, int rank, unsigned long salt, int nbins) {
    unsigned long h = (unsigned long)(i + 1) * 2654435761UL + (unsigned long)rank * 40503UL + salt;
    h ^= h >> 13;
    return (int)(h % (unsigned long)nbins);
}

/* A thread's first bin_of waits (at most HL_MEET_SECONDS) until another thread of its team has
 * asked too: under a dynamic schedule on a loaded machine one thread could otherwise take every
 * chunk before the other runs, and the count would look serial. Relaxed atomics: no ordering
 * that ThreadSanitizer could take for the count's synchronisation. */
HL_NOT_WATCHED static void meet_another(int t, int team) {
    __atomic_store_n(&arrived[t], 1, __ATOMIC_RELAXED);
    double until = hl_now() + HL_MEET_SECONDS;
    while (hl_now() < until) {
        for (int u = 0; u < team && u < HL_MAX_THREADS; u++)
            if (u != t && __atomic_load_n(&arrived[u], __ATOMIC_RELAXED)) return;
        hl_sleep_us(50);
    }
}

/* The threads of a team take the elements in step: a thread that has asked for more than `lead`
 * elements beyond its slowest teammate (one that has not asked yet too) waits (relaxed atomics,
 * sleeps: no ordering ThreadSanitizer could take for the count's synchronisation) until that
 * teammate catches up. Under a dynamic schedule, tasks or a taskloop, the teammate then takes its share of
 * the chunks even on a loaded machine (a descheduled thread is waited for, not counted without),
 * while a static schedule is unchanged. A wait during which no teammate asked for anything in
 * HL_PACE_SECONDS (a teammate gone for good, or one blocked on a lock or critical section this
 * thread holds) ends, and grants this thread another `lead`; after HL_PACE_VAIN such waits the
 * thread is no longer held back: a run slower by at most 0.4 s per thread, never a stuck one. The
 * kit then reads each thread's share (`fewest`): one thread asking for nearly every element while
 * the others ask once scores nothing, and an honest schedule's shares are fair. */
#define HL_PACE_SECONDS 0.1
#define HL_PACE_VAIN 4 /* vain waits after which a thread is no longer held back */
static HL_KIT_STATE long pace_allowance[HL_MAX_THREADS]; /* per thread number: leads granted */
static HL_KIT_STATE int pace_vain[HL_MAX_THREADS];       /* per thread number: its vain waits */
static HL_KIT_STATE long pace_waits; /* waits that ended with no teammate asking */

HL_NOT_WATCHED static long slowest_teammate(int t, int team) {
    long slowest = -1;
    for (int u = 0; u < team && u < HL_MAX_THREADS; u++) {
        if (u == t) continue;
        long c = __atomic_load_n(&calls_of[u], __ATOMIC_RELAXED);
        if (slowest < 0 || c < slowest) slowest = c;
    }
    return slowest;
}

HL_NOT_WATCHED static void keep_pace(int t, int team, long mine) {
    if (pace_vain[t] >= HL_PACE_VAIN) return;
    long lead = element_count / (8L * team) + 16 + pace_allowance[t];
    long slowest = slowest_teammate(t, team);
    if (slowest < 0 || mine <= slowest + lead) return;
    double until = hl_now() + HL_PACE_SECONDS;
    while (hl_now() < until) {
        hl_sleep_us(50);
        long now = slowest_teammate(t, team);
        if (now < 0 || mine <= now + lead) return;
        if (now > slowest) slowest = now, until = hl_now() + HL_PACE_SECONDS; /* progress */
    }
    pace_allowance[t] += element_count / (8L * team) + 16;
    pace_vain[t]++;
    __atomic_fetch_add(&pace_waits, 1, __ATOMIC_RELAXED);
}

HL_NOT_WATCHED int bin_of(long i) {
    int t = omp_get_thread_num(), team = omp_get_num_threads();
    if (t >= 0 && t < HL_MAX_THREADS) {
        long mine = __atomic_fetch_add(&calls_of[t], 1, __ATOMIC_RELAXED);
        if (mine == 0 && team > 1) meet_another(t, team);
        else if (team > 1 && team <= HL_MAX_THREADS) keep_pace(t, team, mine + 1);
        team_of[t] = team;
    }
    if (i < 0 || i >= element_count) return 0;
    return bin(i, my_rank, bin_salt, bin_count);
}

/* With HL_WATCH_BINS (hybridlab.tools.exercise.build_count, linked with WATCH_FLAGS' --wrap):
 * ThreadSanitizer's entry points for every store, atomic write and memcpy/memmove/memset of the
 * program pass through the wrappers below, which count, per OpenMP thread number, the writes that
 * touch the kit's bins while the student's count_bins runs: the kit's own measure of which thread
 * made the increments, out of the student's unit's reach (not instrumented themselves). */
#ifdef HL_WATCH_BINS
static HL_KIT_STATE char *watch_lo, *watch_hi; /* the bins' bytes while count_bins runs */
static HL_KIT_STATE long writes_of[HL_MAX_THREADS]; /* per thread number: its writes into bins */
/* atomic writes into the bins that are no add: and, or, xor, nand, exchange, store (an update
 * split into two atomics, `v = fetch_and(p, 0)` then `fetch_or(p, v + 1)`, loses counts) */
static HL_KIT_STATE long odd_atomics;
/* per thread number: the kit made its first compare-and-swap on a bin fail, as another thread's
 * increment would (one added to the bin just before it, taken off when count_bins returns): a
 * compare-and-swap not retried on failure loses that count, and the bins come out wrong */
static HL_KIT_STATE int failed_for[HL_MAX_THREADS];
static HL_KIT_STATE long *bins_at;           /* the bins while count_bins runs */
static HL_KIT_STATE long added_by_kit[4096]; /* per bin: the kit's ones, taken off afterwards */

/* The wrappers are HL_NOT_WATCHED, so that each ends in a tail call: ThreadSanitizer reads the
 * student's line as its caller, as if nothing stood between; never inlined into instrumented
 * code (watch()'s own stores would be watched). */
extern char __start_race_bins_kit[] __attribute__((visibility("hidden")));
extern char __stop_race_bins_kit[] __attribute__((visibility("hidden")));
HL_NOT_WATCHED static void noted(const volatile void *a, unsigned long size) {
    const char *p = (const char *)a;
    if (p < __stop_race_bins_kit && p + size > __start_race_bins_kit)
        hl_sealed_stop("a write of the student's code into race_bins.c's own tallies: the "
                       "elements each thread asked bin_of for, its writes into the bins, the "
                       "counts it added");
    if (p >= watch_hi || p + size <= watch_lo || size == 0) return;
    int t = omp_get_thread_num();
    if (t >= 0 && t < HL_MAX_THREADS) __atomic_fetch_add(&writes_of[t], 1, __ATOMIC_RELAXED);
}

/* What each thread added to the bins (counts of increments, not writes: a write of 0 or of the
 * value already there adds nothing). An atomic add or a compare-and-swap that takes is credited
 * with its amount; a plain store (or memcpy/memset) is credited afterwards: before each plain
 * write into a bin, and when count_bins returns, the bin's change since the kit last accounted
 * for it goes to the thread that made the bin's last plain write (writes into one bin are ordered
 * when there is no race, which Archer reports). A change with no write seen is `unseen`. */
static HL_KIT_STATE long accounted[4096];  /* per bin: its value as far as the kit accounted for */
static HL_KIT_STATE int last_writer[4096]; /* per bin: the thread of its last plain write, or -1 */
static HL_KIT_STATE long added_of[HL_MAX_THREADS]; /* per thread number: the counts it added */
static HL_KIT_STATE long taken, unseen; /* counts taken off the bins; changes no write made */

HL_NOT_WATCHED static void credit(int t, long amount) {
    if (amount > 0 && t >= 0 && t < HL_MAX_THREADS)
        __atomic_fetch_add(&added_of[t], amount, __ATOMIC_RELAXED);
    else if (amount < 0)
        __atomic_fetch_add(&taken, -amount, __ATOMIC_RELAXED);
}

/* bin b's change since it was last accounted for, to the thread of its last plain write */
HL_NOT_WATCHED static void settle(long b) {
    long now = __atomic_load_n(&bins_at[b], __ATOMIC_RELAXED);
    long delta = now - __atomic_load_n(&accounted[b], __ATOMIC_RELAXED);
    __atomic_fetch_add(&accounted[b], delta, __ATOMIC_RELAXED);
    if (delta == 0) return;
    int t = __atomic_load_n(&last_writer[b], __ATOMIC_RELAXED);
    if (t < 0)
        __atomic_fetch_add(&unseen, delta > 0 ? delta : -delta, __ATOMIC_RELAXED);
    else
        credit(t, delta);
}

/* the bins a write of `size` bytes at `a` touches: [*first, *last], 0 when none */
HL_NOT_WATCHED static int touched(const volatile void *a, unsigned long size, long *first,
                                  long *last) {
    const char *p = (const char *)a;
    if (!bins_at || p >= watch_hi || p + size <= watch_lo || size == 0) return 0;
    const char *lo = p < watch_lo ? watch_lo : p, *hi = p + size > watch_hi ? watch_hi : p + size;
    *first = (long)(lo - watch_lo) / (long)sizeof(long);
    *last = (long)(hi - 1 - watch_lo) / (long)sizeof(long);
    return *last < 4096;
}

/* before a plain write (a store, memcpy, memset, an atomic that is no add): settle the bins it
 * touches, then make its thread their last writer */
HL_NOT_WATCHED static void plain(const volatile void *a, unsigned long size) {
    long first, last;
    if (!touched(a, size, &first, &last)) return;
    int t = omp_get_thread_num();
    for (long b = first; b <= last; b++) {
        settle(b);
        __atomic_store_n(&last_writer[b], t, __ATOMIC_RELAXED);
    }
}

/* an atomic add of `amount` (sign-extended from `size` bytes) at `a`: credited to its thread */
HL_NOT_WATCHED static void added(const volatile void *a, unsigned long size, unsigned long v,
                                 int sign) {
    long first, last;
    if (!touched(a, size, &first, &last) || first != last || size > sizeof(long)) return;
    unsigned bits = (unsigned)(8 * size);
    long amount = bits >= 64 ? (long)v : (long)(v << (64 - bits)) >> (64 - bits);
    long shift = (long)((const char *)a - (watch_lo + first * (long)sizeof(long)));
    amount = (long)((unsigned long)amount << (8 * shift)) * sign;
    __atomic_fetch_add(&accounted[first], amount, __ATOMIC_RELAXED);
    credit(omp_get_thread_num(), amount);
}

#define HL_WRAP_WRITE(name, size)                                                              \
    void __real_##name(void *a);                                                                \
    HL_NOT_WATCHED void __wrap_##name(void *a) {                                                \
        noted(a, size);                                                                         \
        plain(a, size);                                                                         \
        __real_##name(a);                                                                       \
    }
HL_WRAP_WRITE(__tsan_write1, 1)
HL_WRAP_WRITE(__tsan_write2, 2)
HL_WRAP_WRITE(__tsan_write4, 4)
HL_WRAP_WRITE(__tsan_write8, 8)
HL_WRAP_WRITE(__tsan_write16, 16)
HL_WRAP_WRITE(__tsan_unaligned_write2, 2)
HL_WRAP_WRITE(__tsan_unaligned_write4, 4)
HL_WRAP_WRITE(__tsan_unaligned_write8, 8)
HL_WRAP_WRITE(__tsan_unaligned_write16, 16)

/* an atomic write into the bins that is no add (and, or, xor, nand, exchange, store) */
HL_NOT_WATCHED static void odd(const volatile void *a, unsigned long size) {
    const char *p = (const char *)a;
    if (p >= watch_hi || p + size <= watch_lo || size == 0) return;
    __atomic_fetch_add(&odd_atomics, 1, __ATOMIC_RELAXED);
    plain(a, size);
}

/* before a compare-and-swap on a bin: the thread's first one made to fail (one added first) */
HL_NOT_WATCHED static void contend(const volatile void *a, unsigned long size) {
    const char *p = (const char *)a;
    if (p >= watch_hi || p + size <= watch_lo || size != sizeof(long) || !bins_at) return;
    long b = (long)(p - (const char *)bins_at);
    if (b % (long)sizeof(long) != 0) return;
    b /= (long)sizeof(long);
    int t = omp_get_thread_num();
    if (t < 0 || t >= HL_MAX_THREADS || b < 0 || b >= 4096 || failed_for[t]) return;
    failed_for[t] = 1;
    __atomic_fetch_add(&added_by_kit[b], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&accounted[b], 1, __ATOMIC_RELAXED); /* the kit's own: nobody's count */
    __atomic_fetch_add(&bins_at[b], 1, __ATOMIC_SEQ_CST);
}

#define HL_WRAP_RMW_AS(bits, type, op, also)                                                   \
    type __real___tsan_atomic##bits##_##op(volatile type *a, type v, int mo);                   \
    HL_NOT_WATCHED type __wrap___tsan_atomic##bits##_##op(volatile type *a, type v, int mo) {   \
        noted(a, sizeof(type));                                                                 \
        also(a, sizeof(type), (unsigned long)v);                                                \
        return __real___tsan_atomic##bits##_##op(a, v, mo);                                     \
    }
HL_NOT_WATCHED static void adds(const volatile void *a, unsigned long size, unsigned long v) {
    added(a, size, v, 1);
}
HL_NOT_WATCHED static void subs(const volatile void *a, unsigned long size, unsigned long v) {
    added(a, size, v, -1);
}
HL_NOT_WATCHED static void odd_rmw(const volatile void *a, unsigned long size, unsigned long v) {
    (void)v;
    odd(a, size);
}
#define HL_WRAP_RMW(bits, type, op) HL_WRAP_RMW_AS(bits, type, op, odd_rmw)
#define HL_WRAP_ATOMICS(bits, type)                                                            \
    HL_WRAP_RMW(bits, type, exchange)                                                           \
    HL_WRAP_RMW_AS(bits, type, fetch_add, adds)                                                 \
    HL_WRAP_RMW_AS(bits, type, fetch_sub, subs)                                                 \
    HL_WRAP_RMW(bits, type, fetch_and)                                                          \
    HL_WRAP_RMW(bits, type, fetch_or)                                                           \
    HL_WRAP_RMW(bits, type, fetch_xor)                                                          \
    HL_WRAP_RMW(bits, type, fetch_nand)                                                         \
    void __real___tsan_atomic##bits##_store(volatile type *a, type v, int mo);                  \
    HL_NOT_WATCHED void __wrap___tsan_atomic##bits##_store(volatile type *a, type v, int mo) {  \
        noted(a, sizeof(type));                                                                 \
        odd(a, sizeof(type));                                                                   \
        __real___tsan_atomic##bits##_store(a, v, mo);                                           \
    }                                                                                           \
    int __real___tsan_atomic##bits##_compare_exchange_strong(volatile type *a, type *c, type v, \
                                                             int mo, int fmo);                  \
    HL_NOT_WATCHED int __wrap___tsan_atomic##bits##_compare_exchange_strong(                    \
        volatile type *a, type *c, type v, int mo, int fmo) {                                   \
        noted(a, sizeof(type));                                                                 \
        contend(a, sizeof(type));                                                               \
        type expected = *c;                                                                     \
        int took = __real___tsan_atomic##bits##_compare_exchange_strong(a, c, v, mo, fmo);    \
        if (took) added(a, sizeof(type), (unsigned long)(type)(v - expected), 1);               \
        return took;          \
    }                                                                                           \
    int __real___tsan_atomic##bits##_compare_exchange_weak(volatile type *a, type *c, type v,   \
                                                           int mo, int fmo);                    \
    HL_NOT_WATCHED int __wrap___tsan_atomic##bits##_compare_exchange_weak(                      \
        volatile type *a, type *c, type v, int mo, int fmo) {                                   \
        noted(a, sizeof(type));                                                                 \
        contend(a, sizeof(type));                                                               \
        type expected = *c;                                                                     \
        int took = __real___tsan_atomic##bits##_compare_exchange_weak(a, c, v, mo, fmo);      \
        if (took) added(a, sizeof(type), (unsigned long)(type)(v - expected), 1);               \
        return took;            \
    }                                                                                           \
    type __real___tsan_atomic##bits##_compare_exchange_val(volatile type *a, type c, type v,    \
                                                           int mo, int fmo);                    \
    HL_NOT_WATCHED type __wrap___tsan_atomic##bits##_compare_exchange_val(                      \
        volatile type *a, type c, type v, int mo, int fmo) {                                    \
        noted(a, sizeof(type));                                                                 \
        contend(a, sizeof(type));                                                               \
        type was = __real___tsan_atomic##bits##_compare_exchange_val(a, c, v, mo, fmo);         \
        if (was == c) added(a, sizeof(type), (unsigned long)(type)(v - c), 1);                  \
        return was;                                                                             \
    }
HL_WRAP_ATOMICS(8, unsigned char)
HL_WRAP_ATOMICS(16, unsigned short)
HL_WRAP_ATOMICS(32, unsigned int)
HL_WRAP_ATOMICS(64, unsigned long)

/* the lock routines a cell may call (hybridlab.tools.exercise.CALLS_ALLOWED) write the lock
 * object they are given: the same watch, the lock's bytes */
#define HL_WRAP_LOCK(type, name)                                                               \
    int __real_##name(type *lock);                                                              \
    HL_NOT_WATCHED int __wrap_##name(type *lock) {                                              \
        noted(lock, sizeof *lock);                                                              \
        return __real_##name(lock);                                                             \
    }
#define HL_WRAP_OMP_LOCK(type, name)                                                           \
    void __real_##name(type *lock);                                                             \
    HL_NOT_WATCHED void __wrap_##name(type *lock) {                                             \
        noted(lock, sizeof *lock);                                                              \
        __real_##name(lock);                                                                    \
    }
HL_WRAP_OMP_LOCK(omp_lock_t, omp_init_lock)
HL_WRAP_OMP_LOCK(omp_lock_t, omp_set_lock)
HL_WRAP_OMP_LOCK(omp_lock_t, omp_unset_lock)
HL_WRAP_OMP_LOCK(omp_lock_t, omp_destroy_lock)
HL_WRAP_LOCK(omp_lock_t, omp_test_lock)
HL_WRAP_OMP_LOCK(omp_nest_lock_t, omp_init_nest_lock)
HL_WRAP_OMP_LOCK(omp_nest_lock_t, omp_set_nest_lock)
HL_WRAP_OMP_LOCK(omp_nest_lock_t, omp_unset_nest_lock)
HL_WRAP_OMP_LOCK(omp_nest_lock_t, omp_destroy_nest_lock)
HL_WRAP_LOCK(omp_nest_lock_t, omp_test_nest_lock)
HL_WRAP_LOCK(pthread_mutex_t, pthread_mutex_lock)
HL_WRAP_LOCK(pthread_mutex_t, pthread_mutex_unlock)
HL_WRAP_LOCK(pthread_mutex_t, pthread_mutex_trylock)
HL_WRAP_LOCK(pthread_mutex_t, pthread_mutex_destroy)
HL_WRAP_LOCK(pthread_spinlock_t, pthread_spin_lock)
HL_WRAP_LOCK(pthread_spinlock_t, pthread_spin_unlock)
HL_WRAP_LOCK(pthread_spinlock_t, pthread_spin_trylock)
HL_WRAP_LOCK(pthread_spinlock_t, pthread_spin_destroy)
int __real_pthread_mutex_init(pthread_mutex_t *lock, const pthread_mutexattr_t *attr);
HL_NOT_WATCHED int __wrap_pthread_mutex_init(pthread_mutex_t *lock, const pthread_mutexattr_t *attr) {
    noted(lock, sizeof *lock);
    return __real_pthread_mutex_init(lock, attr);
}
int __real_pthread_spin_init(pthread_spinlock_t *lock, int shared);
HL_NOT_WATCHED int __wrap_pthread_spin_init(pthread_spinlock_t *lock, int shared) {
    noted(lock, sizeof *lock);
    return __real_pthread_spin_init(lock, shared);
}

void *__real_memcpy(void *d, const void *s, size_t size);
void *__real_memmove(void *d, const void *s, size_t size);
void *__real_memset(void *d, int c, size_t size);
HL_NOT_WATCHED void *__wrap_memcpy(void *d, const void *s, size_t size) {
    noted(d, size);
    plain(d, size);
    return __real_memcpy(d, s, size);
}
HL_NOT_WATCHED void *__wrap_memmove(void *d, const void *s, size_t size) {
    noted(d, size);
    plain(d, size);
    return __real_memmove(d, s, size);
}
HL_NOT_WATCHED void *__wrap_memset(void *d, int c, size_t size) {
    noted(d, size);
    plain(d, size);
    return __real_memset(d, c, size);
}

HL_NOT_WATCHED static void watch(long *bins, long nbins) {
    if (!bins && bins_at) /* count_bins returned: the last changes accounted, the kit's ones off */
        for (long b = 0; b < 4096 && b < bin_count; b++) {
            settle(b);
            bins_at[b] -= added_by_kit[b];
        }
    for (long b = 0; bins && b < 4096 && b < nbins; b++) accounted[b] = bins[b], last_writer[b] = -1;
    bins_at = bins;
    watch_lo = (char *)bins, watch_hi = (char *)(bins + (bins ? nbins : 0));
}
#else
static inline void watch(long *bins, long nbins) { (void)bins, (void)nbins; }
#endif

/* the count's parameters, into the kit's state (not instrumented: see HL_KIT_STATE) */
HL_NOT_WATCHED static void set_count(long n, int nbins, int rank, unsigned long salt) {
    element_count = n, bin_count = nbins, my_rank = rank, bin_salt = salt;
}

static void kit_count(long n, int nbins, long *bins) {
#pragma omp parallel for reduction(+ : bins[:nbins])
    for (long i = 0; i < n; i++) bins[bin_of(i)]++;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    static const char *const variants[] = {"kit", "student"};
    int ok = 1;
    int variant = hl_param_choice(ctx, "variant", variants, 2);
    long n = hl_param_long(ctx, "n", 1, &ok);
    long nbins = hl_param_long(ctx, "nbins", 1, &ok);
    long salt = hl_param_long(ctx, "salt", 0, &ok);
    if (!ok || variant < 0) return -1;
    if (n > (1L << 26)) return hl_fail(ctx, "n=%ld is too large (at most 2^26)", n);
    if (nbins > 4096) return hl_fail(ctx, "nbins=%ld is too large (at most 4096)", nbins);
#ifndef HL_STUDENT_RACE_BINS
    if (variant == 1)
        return hl_fail(ctx, "variant=student needs the student's code (student_c.build_student)");
#endif
    set_count(n, (int)nbins, ctx->rank, (unsigned long)salt);
    long *bins = calloc((size_t)nbins, sizeof *bins), *want = calloc((size_t)nbins, sizeof *want);
    if (!bins || !want) {
        free(bins), free(want);
        return hl_fail(ctx, "no memory for %ld bins", nbins);
    }
    for (long i = 0; i < n; i++) want[bin(i, ctx->rank, bin_salt, bin_count)]++;
    if (variant == 0) kit_count(n, (int)nbins, bins);
#ifdef HL_STUDENT_RACE_BINS
    else {
        watch(bins, nbins);
        HL_KEEP(ctx, n, nbins, (long)bins, (long)want, variant); /* the cell runs on this stack */
        count_bins(n, (int)nbins, bins);
        HL_KEPT_CHECK("count_bins", n, nbins, (long)bins, (long)want, variant);
        watch(NULL, 0);
    }
#endif
    long threads = 0, team = 0, calls = 0, largest = 0, writes = -1; /* -1: not watched */
    long silent = -1, odd_writes = -1; /* threads that asked but added nothing; odd atomics */
    long most_added = -1, taken_off = -1, not_seen = -1; /* -1: not watched */
    long fewest = 0;       /* the fewest elements a thread that asked for any asked for */
    long undercount = -1;  /* threads that added less than half the elements they asked for */
    for (int t = 0; t < HL_MAX_THREADS; t++) {
        threads += calls_of[t] > 0;
        calls += calls_of[t];
        if (calls_of[t] > largest) largest = calls_of[t];
        if (calls_of[t] > 0 && (fewest == 0 || calls_of[t] < fewest)) fewest = calls_of[t];
        if (team_of[t] > team) team = team_of[t];
#ifdef HL_WATCH_BINS
        long w = __atomic_load_n(&writes_of[t], __ATOMIC_RELAXED);
        if (w > writes) writes = w;
        long a = __atomic_load_n(&added_of[t], __ATOMIC_RELAXED);
        if (t == 0) {
            silent = 0, odd_writes = __atomic_load_n(&odd_atomics, __ATOMIC_RELAXED);
            taken_off = __atomic_load_n(&taken, __ATOMIC_RELAXED);
            not_seen = __atomic_load_n(&unseen, __ATOMIC_RELAXED);
        }
        if (a > most_added) most_added = a;
        silent += calls_of[t] > 0 && a <= 0; /* a write of 0 or of the same value adds nothing */
        if (t == 0) undercount = 0;
        undercount += calls_of[t] > 0 && 2 * a < calls_of[t]; /* looked up for another thread */
#endif
    }
    hl_emit(ctx, "\"record\":\"threads\",\"threads\":%ld,\"team\":%ld,\"calls\":%ld,"
            "\"largest\":%ld,\"writes\":%ld,\"silent\":%ld,\"odd_atomics\":%ld,\"added\":%ld,"
            "\"taken\":%ld,\"unseen\":%ld,\"n\":%ld,\"fewest\":%ld,\"undercount\":%ld,"
            "\"pace_waits\":%ld", threads, team, calls, largest, writes, silent, odd_writes,
            most_added, taken_off, not_seen, n, fewest, undercount,
            __atomic_load_n(&pace_waits, __ATOMIC_RELAXED));
    long short_calls = calls < n;
    MPI_Allreduce(MPI_IN_PLACE, bins, (int)nbins, MPI_LONG, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, want, (int)nbins, MPI_LONG, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, &short_calls, 1, MPI_LONG, MPI_SUM, comm);
    long wrong = 0;
    for (long b = 0; b < nbins; b++) wrong += bins[b] != want[b];
    if (ctx->rank == 0) {
        for (long b = 0; b < nbins; b++)
            hl_emit(ctx, "\"record\":\"bin\",\"bin\":%ld,\"count\":%ld", b, bins[b]);
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"wrong\":%ld,\"short_ranks\":%ld,"
                "\"variant\":\"%s\"", wrong == 0 && short_calls == 0, wrong, short_calls,
                variants[variant]);
    }
    free(bins), free(want);
    return 0;
}
