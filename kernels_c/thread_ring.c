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
 * no lock at all, kept 4/4 in 2 of 4 gradings before (2026-12-07). A thread spinning on a failed
 * try of a lock another thread holds waits too, until it takes it ("lock_fault" names one that
 * calls MPI without it). The hold's state lies on the kernel's sealed pages, where a store of the
 * cell faults (fresh attacker A14 kept 4/4 by storing into a static of it, 2026-12-07).
 *
 * Each thread emits one record: wrong (elements not what was sent; the student's exchange: whose
 * tag is not (t, k)), checksum (sum of every element received), iterations, count, block (the
 * address of its receive block: a traced run's receive buffers are compared with it,
 * hybrid_models.exercise.foreign_receives), and with the student's exchange sent (the sum of
 * every element the kit put in its own blocks), unexcluded (above; 0: none) and lock_fault
 * (RING_FAULT_*; 0: none).
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
/* A hold that ran out (RING_HOLD_LIMIT) while another thread was in the cell, neither inside
 * MPI nor waiting: the holding thread's record says so ("unexcluded": that thread + 1); the
 * first one ends every hold of the run. */
#define RING_HOLD_LIMIT 1.0
/* What a thread did with a lock that no thread waiting for it does ("lock_fault" in its record,
 * hybrid_models.exercise.unexcluded): an MPI call after a failed try of a lock (omp_test_lock,
 * a trylock) it has not taken since (ABANDONED: a thread that tries a lock and goes on without
 * it was not waiting while it tried), a lock taken that the kit saw another thread hold
 * (TAKEN: not released through the unlock calls) or released while another thread held it. */
enum { RING_FAULT_NONE, RING_FAULT_ABANDONED, RING_FAULT_TAKEN, RING_FAULT_RELEASED };
#define RING_HELD 4 /* the locks a thread is seen holding at once (more: not followed) */

/* The hold's state, out of the cell's reach (issue 36: fresh attacker A14 kept 4/4 by storing
 * 1 into the static that ended every hold, found at a fixed offset from a static of the cell;
 * the threads' states could have been marked PARKED the same way, and the wrappers' pointers to
 * the runtime's functions pointed at the cell's own code): the kernel's sealed evidence
 * (hybridlab.h, HL_SEALED), read-only pages the kit writes through /proc/self/mem, zeroed before
 * each kernel call. Each thread writes only its own slot (hl_sealed_put checks that a write
 * landed), any thread ran_out. Reads are plain loads. */
typedef struct {
    int state;         /* RING_AWAY ... RING_DONE */
    int saved;         /* its state before the wait it is PARKED in */
    int unexcluded;    /* the thread + 1 that ran the cell while a call of this one ran out */
    int fault;         /* RING_FAULT_* (the first) */
    int inside;        /* 1: inside one of the cell's MPI calls (from its hold to its end) */
    int spare;
    uintptr_t pending; /* the lock of its last failed try, not taken since (0: none) */
    uintptr_t held[RING_HELD]; /* the locks it took (set, test, lock, trylock) and still holds */
    int depth[RING_HELD];      /* ... how many times (a nest lock, a recursive mutex) */
} ring_slot;
enum {
    RING_GOMP_CRITICAL_START, RING_GOMP_CRITICAL_NAME_START, RING_GOMP_ATOMIC_START,
    RING_GOMP_BARRIER, RING_GOMP_ORDERED_START, RING_GOMP_LOOP_END, RING_GOMP_SECTIONS_END,
    RING_GOMP_BARRIER_CANCEL, RING_GOMP_LOOP_END_CANCEL, RING_GOMP_SECTIONS_END_CANCEL,
    RING_GOMP_SINGLE_COPY_START, RING_OMP_SET_LOCK, RING_OMP_SET_NEST_LOCK, RING_OMP_TEST_LOCK,
    RING_OMP_TEST_NEST_LOCK, RING_OMP_UNSET_LOCK, RING_OMP_UNSET_NEST_LOCK,
    RING_PTHREAD_MUTEX_LOCK, RING_PTHREAD_MUTEX_TRYLOCK, RING_PTHREAD_MUTEX_UNLOCK,
    RING_PTHREAD_SPIN_LOCK, RING_PTHREAD_SPIN_TRYLOCK, RING_PTHREAD_SPIN_UNLOCK, RING_REALS
};
static const char *const ring_names[RING_REALS] = {
    "GOMP_critical_start", "GOMP_critical_name_start", "GOMP_atomic_start", "GOMP_barrier",
    "GOMP_ordered_start", "GOMP_loop_end", "GOMP_sections_end", "GOMP_barrier_cancel",
    "GOMP_loop_end_cancel", "GOMP_sections_end_cancel", "GOMP_single_copy_start",
    "omp_set_lock", "omp_set_nest_lock", "omp_test_lock", "omp_test_nest_lock",
    "omp_unset_lock", "omp_unset_nest_lock", "pthread_mutex_lock", "pthread_mutex_trylock",
    "pthread_mutex_unlock", "pthread_spin_lock", "pthread_spin_trylock", "pthread_spin_unlock"};
typedef struct {
    int ready;   /* 1 once the run's team and the runtime's functions are kept (hl_kernel) */
    int team;    /* the slots a lock's holder is looked for in */
    int ran_out; /* a hold ran out: the holds of the run are over */
    void *real[RING_REALS]; /* the runtime's own function under each wrapper (RTLD_NEXT) */
    ring_slot slot[RING_MAX_THREADS];
} ring_evidence;
_Static_assert(sizeof(ring_evidence) <= HL_SEALED_DATA, "ring_evidence: too large");
#define ring (*HL_SEALED(ring_evidence))
#define RING_READ(x) (*(const volatile __typeof__(x) *)&(x)) /* a fresh load of sealed state */

/* A write of the kit's into the sealed evidence. Where the process has no guarded descriptor of
 * /proc/self/mem (no seccomp), hl_sealed_put opens a brief mprotect window for each write, which
 * two threads must not do at once (one's window closed under the other's store): one at a time. */
static atomic_flag ring_window = ATOMIC_FLAG_INIT;
static void ring_put(const void *dst, const void *src, size_t n) {
    int windows = !RING_READ(hl_sealed.s.ready) || RING_READ(hl_sealed.s.mem) < 0;
    if (windows)
        while (atomic_flag_test_and_set(&ring_window)) {
        }
    hl_sealed_put(dst, src, n);
    if (windows) atomic_flag_clear(&ring_window);
}
static void ring_set(const int *field, int value) { ring_put(field, &value, sizeof value); }

/* The calling thread's slot: its number in the kernel's team (0 outside it); -1 in a nested
 * region (not followed) or before the run's state is ready. */
static int ring_me(void) {
    if (!RING_READ(ring.ready) || omp_get_level() > 1) return -1;
    int t = omp_get_thread_num();
    return t >= 0 && t < RING_MAX_THREADS ? t : -1;
}

/* The thread the kit saw take `lock` and not release it, other than `not`; -1: none. */
static int ring_holder(uintptr_t lock, int not) {
    int team = RING_READ(ring.team);
    for (int v = 0; v < team && v < RING_MAX_THREADS; v++)
        for (int i = 0; v != not && i < RING_HELD; i++)
            if (RING_READ(ring.slot[v].held[i]) == lock && RING_READ(ring.slot[v].depth[i]) > 0)
                return v;
    return -1;
}

/* Whether thread u, in the cell, waits for a lock: its last try failed on a lock another thread
 * holds, and it has not taken it since (it may call nothing else of MPI before: ABANDONED). */
static int ring_trying(int u) {
    uintptr_t lock = RING_READ(ring.slot[u].pending);
    return lock && ring_holder(lock, u) >= 0;
}

/* Lab 01 (b): each of the student's MPI calls inside a parallel region, once begun, waits
 * until another of the cell's calls of the rank is inside MPI too (threads that nothing keeps
 * apart then overlap for certain, and the trace shows it: hybridlab.runs.compliance) or until
 * every other thread of the team waits at a lock, a critical section or a barrier of the cell
 * (or tries a lock another thread holds, until it takes it), is in the kernel's own code
 * between exchanges or past its last (mutual exclusion: the call goes on at once). A thread
 * that runs the cell's own code for RING_HOLD_LIMIT s (a busy loop, a sleep) while a call
 * waits, neither calling MPI nor waiting for the thread inside, keeps its turn by when it
 * calls, not by exclusion: the holding thread's record names it
 * (hybrid_models.exercise.unexcluded). Called again with NULL as the call ends. */
static void thread_ring_hold(int (*inside)(void)) {
    if (!omp_in_parallel() || !RING_READ(ring.ready)) return;
    int nested = omp_get_level() > 1;
    int me = nested ? omp_get_ancestor_thread_num(1) : omp_get_thread_num();
    int team = nested ? omp_get_team_size(1) : omp_get_num_threads();
    if (team < 2 || team > RING_MAX_THREADS || me < 0 || me >= team) return;
    if (!inside) { /* the call has ended (hl_trace_on_student_hold) */
        if (RING_READ(ring.slot[me].inside)) ring_set(&ring.slot[me].inside, 0);
        return;
    }
    /* which threads are inside MPI: the slots' flags, not the tracer's count (inside), which
     * lies in memory a cell can write */
    ring_set(&ring.slot[me].inside, 1);
    if (RING_READ(ring.slot[me].pending) && !RING_READ(ring.slot[me].fault))
        ring_set(&ring.slot[me].fault, RING_FAULT_ABANDONED);
    if (RING_READ(ring.ran_out)) return;
    double until = hl_now() + RING_HOLD_LIMIT;
    for (;;) {
        int waiting = 1, running = -1;
        for (int u = 0; u < team; u++) {
            if (u == me) continue;
            if (RING_READ(ring.slot[u].inside)) return; /* another call inside MPI: they overlap */
            int state = RING_READ(ring.slot[u].state);
            if (state == RING_CELL && !ring_trying(u)) running = u, waiting = 0;
        }
        if (waiting) return;
        if (hl_now() >= until) {
            if (running >= 0 && !RING_READ(ring.ran_out)) {
                ring_set(&ring.ran_out, 1);
                ring_set(&ring.slot[me].unexcluded, running + 1);
            }
            return;
        }
        hl_sleep_us(10);
    }
}

/* The waits of OpenMP a cell's code reaches (its critical sections, locks, barriers, ordered
 * regions, the barriers that end a worksharing construct), each the runtime's own function
 * called through: the thread is PARKED while inside; and the locks' tries and releases, which
 * say who holds which lock. Defined here, hidden, so the student's unit linked beside this one
 * calls them; the runtime's own is the next definition (RTLD_NEXT), kept on the sealed pages
 * for the run (hl_kernel). */
static void *ring_runtime(const char *name) {
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "thread_ring: the OpenMP runtime has no %s\n", name);
        abort();
    }
    return f;
}
static void *ring_real(int which) {
    void *f = RING_READ(ring.real[which]);
    return f ? f : ring_runtime(ring_names[which]);
}
/* The run's state made ready: the team and the runtime's functions kept (master thread, before
 * any of the student's code runs in this kernel call; hl_run zeroed the evidence). */
static void ring_ready(int team) {
    void *real[RING_REALS];
    for (int i = 0; i < RING_REALS; i++) real[i] = ring_runtime(ring_names[i]);
    ring_put(ring.real, real, sizeof real);
    ring_set(&ring.team, team < RING_MAX_THREADS ? team : RING_MAX_THREADS);
    ring_set(&ring.ready, 1);
}
static int ring_park(void) {
    int t = ring_me();
    if (t < 0) return -1;
    int both[2] = {RING_PARKED, RING_READ(ring.slot[t].state)}; /* state, saved */
    ring_put(&ring.slot[t].state, both, sizeof both);
    return t;
}
static void ring_unpark(int t) {
    if (t >= 0) ring_set(&ring.slot[t].state, RING_READ(ring.slot[t].saved));
}
/* Thread t (ring_me) took `lock` (unparked too when `parked`); failed a try of it (taken 0);
 * releases it (taken -1), before the runtime's release. */
static void ring_lock(int t, const void *at, int taken, int parked) {
    if (t < 0) return;
    uintptr_t lock = (uintptr_t)at;
    ring_slot s;
    memcpy(&s, (const void *)&ring.slot[t], sizeof s);
    if (taken == 0) {
        if (s.pending != lock) ring_put(&ring.slot[t].pending, &lock, sizeof lock);
        return;
    }
    if (parked) s.state = s.saved;
    int mine = -1, free_ = -1;
    for (int i = 0; i < RING_HELD; i++) {
        if (s.depth[i] > 0 && s.held[i] == lock) mine = i;
        if (s.depth[i] <= 0 && free_ < 0) free_ = i;
    }
    if (taken > 0) {
        if (ring_holder(lock, t) >= 0 && !s.fault) s.fault = RING_FAULT_TAKEN;
        if (s.pending == lock) s.pending = 0;
        if (mine >= 0) s.depth[mine]++;
        else if (free_ >= 0) s.held[free_] = lock, s.depth[free_] = 1;
    } else if (mine >= 0) {
        if (--s.depth[mine] == 0) s.held[mine] = 0;
    } else if (ring_holder(lock, t) >= 0 && !s.fault) {
        s.fault = RING_FAULT_RELEASED;
    } else if (!parked) {
        return; /* a lock the kit never saw taken: nothing changes */
    }
    ring_put(&ring.slot[t], &s, sizeof s);
}
#define RING_WAIT(which, name, params, args)                                                     \
    __attribute__((visibility("hidden"))) void name params;                                     \
    void name params {                                                                            \
        void(*real) params = (void(*) params)ring_real(which);                                  \
        int was = ring_park();                                                                    \
        real args;                                                                                \
        ring_unpark(was);                                                                         \
    }
#define RING_WAIT_RETURNING(type, which, name, params, args)                                     \
    __attribute__((visibility("hidden"))) type name params;                                     \
    type name params {                                                                            \
        type(*real) params = (type(*) params)ring_real(which);                                  \
        int was = ring_park();                                                                    \
        type r = real args;                                                                       \
        ring_unpark(was);                                                                         \
        return r;                                                                                 \
    }
/* a lock's blocking take (parked while it waits; taken when `got`), its try (taken when `got`,
 * a failed try when `tried`), its release */
#define RING_TAKE_VOID(which, name, params, args, lock)                                           \
    __attribute__((visibility("hidden"))) void name params;                                     \
    void name params {                                                                            \
        void(*real) params = (void(*) params)ring_real(which);                                  \
        int was = ring_park();                                                                    \
        real args;                                                                                \
        ring_lock(was, lock, 1, 1);                                                               \
    }
#define RING_TAKE(type, which, name, params, args, lock, got)                                    \
    __attribute__((visibility("hidden"))) type name params;                                     \
    type name params {                                                                            \
        type(*real) params = (type(*) params)ring_real(which);                                  \
        int was = ring_park();                                                                    \
        type r = real args;                                                                       \
        if (got) ring_lock(was, lock, 1, 1);                                                      \
        else ring_unpark(was);                                                                    \
        return r;                                                                                 \
    }
#define RING_RELEASE_VOID(which, name, params, args, lock)                                        \
    __attribute__((visibility("hidden"))) void name params;                                     \
    void name params {                                                                            \
        void(*real) params = (void(*) params)ring_real(which);                                  \
        ring_lock(ring_me(), lock, -1, 0);                                                        \
        real args;                                                                                \
    }
#define RING_TRY(type, which, name, params, args, lock, got, tried)                              \
    __attribute__((visibility("hidden"))) type name params;                                     \
    type name params {                                                                            \
        type(*real) params = (type(*) params)ring_real(which);                                  \
        type r = real args;                                                                       \
        if ((got) || (tried)) ring_lock(ring_me(), lock, (got) ? 1 : 0, 0);                       \
        return r;                                                                                 \
    }
#define RING_RELEASE(type, which, name, params, args, lock)                                      \
    __attribute__((visibility("hidden"))) type name params;                                     \
    type name params {                                                                            \
        type(*real) params = (type(*) params)ring_real(which);                                  \
        ring_lock(ring_me(), lock, -1, 0);                                                        \
        return real args;                                                                         \
    }
RING_WAIT(RING_GOMP_CRITICAL_START, GOMP_critical_start, (void), ())
RING_WAIT(RING_GOMP_CRITICAL_NAME_START, GOMP_critical_name_start, (void **lock), (lock))
RING_WAIT(RING_GOMP_ATOMIC_START, GOMP_atomic_start, (void), ())
RING_WAIT(RING_GOMP_BARRIER, GOMP_barrier, (void), ())
RING_WAIT(RING_GOMP_ORDERED_START, GOMP_ordered_start, (void), ())
RING_WAIT(RING_GOMP_LOOP_END, GOMP_loop_end, (void), ())
RING_WAIT(RING_GOMP_SECTIONS_END, GOMP_sections_end, (void), ())
RING_WAIT_RETURNING(bool, RING_GOMP_BARRIER_CANCEL, GOMP_barrier_cancel, (void), ())
RING_WAIT_RETURNING(bool, RING_GOMP_LOOP_END_CANCEL, GOMP_loop_end_cancel, (void), ())
RING_WAIT_RETURNING(bool, RING_GOMP_SECTIONS_END_CANCEL, GOMP_sections_end_cancel, (void), ())
RING_WAIT_RETURNING(void *, RING_GOMP_SINGLE_COPY_START, GOMP_single_copy_start, (void), ())
RING_TAKE_VOID(RING_OMP_SET_LOCK, omp_set_lock, (omp_lock_t *lock), (lock), lock)
RING_TAKE_VOID(RING_OMP_SET_NEST_LOCK, omp_set_nest_lock, (omp_nest_lock_t *lock), (lock), lock)
RING_TAKE(int, RING_PTHREAD_MUTEX_LOCK, pthread_mutex_lock, (pthread_mutex_t *mutex), (mutex),
          mutex, r == 0)
RING_TAKE(int, RING_PTHREAD_SPIN_LOCK, pthread_spin_lock, (pthread_spinlock_t *lock), (lock),
          lock, r == 0)
RING_TRY(int, RING_OMP_TEST_LOCK, omp_test_lock, (omp_lock_t *lock), (lock), lock, r != 0, r == 0)
RING_TRY(int, RING_OMP_TEST_NEST_LOCK, omp_test_nest_lock, (omp_nest_lock_t *lock), (lock), lock,
         r > 0, r == 0)
RING_TRY(int, RING_PTHREAD_MUTEX_TRYLOCK, pthread_mutex_trylock, (pthread_mutex_t *mutex),
         (mutex), mutex, r == 0, r == EBUSY)
RING_TRY(int, RING_PTHREAD_SPIN_TRYLOCK, pthread_spin_trylock, (pthread_spinlock_t *lock),
         (lock), lock, r == 0, r == EBUSY)
RING_RELEASE_VOID(RING_OMP_UNSET_LOCK, omp_unset_lock, (omp_lock_t *lock), (lock), lock)
RING_RELEASE_VOID(RING_OMP_UNSET_NEST_LOCK, omp_unset_nest_lock, (omp_nest_lock_t *lock), (lock),
                  lock)
RING_RELEASE(int, RING_PTHREAD_MUTEX_UNLOCK, pthread_mutex_unlock, (pthread_mutex_t *mutex),
             (mutex), mutex)
RING_RELEASE(int, RING_PTHREAD_SPIN_UNLOCK, pthread_spin_unlock, (pthread_spinlock_t *lock),
             (lock), lock)
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
    ring_ready(omp_get_max_threads()); /* before any of the student's code (the evidence: zeroed) */
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
            if (t < RING_MAX_THREADS) ring_set(&ring.slot[t].state, RING_CELL);
            exchange_block(mine, got, (int)n, left, right, comm);
            if (t < RING_MAX_THREADS)
                ring_set(&ring.slot[t].state, k == iterations ? RING_DONE : RING_AWAY);
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
                "\"count\":%ld,\"block\":%lu,\"unexcluded\":%d,\"lock_fault\":%d", wrong,
                checksum, sent, iterations, n, (unsigned long)(uintptr_t)got,
                t < RING_MAX_THREADS ? RING_READ(ring.slot[t].unexcluded) : 0,
                t < RING_MAX_THREADS ? RING_READ(ring.slot[t].fault) : 0);
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
