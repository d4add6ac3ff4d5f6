/* thread_halo: lab 04's 2-D Jacobi grid (hl_grid2d.h: row decomposition, halo rows exchanged
 * every iteration) with threads that communicate (lab 12).
 *
 *   funneled     one parallel region; the master exchanges the halo rows as T slices of columns
 *                (thread t's slice: columns 1 + t*nx/T .. (t+1)*nx/T), every slice its own
 *                message per direction and tag, with MPI_Irecv/MPI_Isend/MPI_Waitall (FUNNELED)
 *   multiple     (HL_STUDENT_MULTIPLE) the same messages, each thread sending and receiving its
 *                own slice at once: the student's thread_comms (once) and exchange_slice (every
 *                thread, every iteration). Needs MPI_THREAD_MULTIPLE.
 *   tasks        (HL_STUDENT_TASKS) the student's task_iteration, called by one thread (`omp
 *                single`) per iteration: OpenMP tasks with `depend` exchange the halo rows while
 *                others compute the rows that do not need them (stencil_rows, hl_grid2d.h); the
 *                halo rows hold NaN until the exchange fills them. Needs MPI_THREAD_MULTIPLE.
 *   partitioned  MPI-4 partitioned communication: the halo rows are partitioned sends of T
 *                partitions (MPI_Psend_init / MPI_Precv_init once, MPI_Startall each
 *                iteration); thread t copies its slice of rows 1 and m back and marks it ready
 *                (MPI_Pready); the master asks once for every partition of the received rows
 *                (MPI_Parrived: "arrived_early" in the timer records counts those already
 *                there) and completes the messages (MPI_Waitall).
 *                Needs MPI_THREAD_MULTIPLE and nx divisible by T. Where the library has no
 *                partitioned calls (MPI_VERSION below 4 and not Open MPI 5, known at compile
 *                time), rank 0 emits one "skipped" record saying so and nothing runs.
 *   pready       (HL_STUDENT_PREADY) the same partitioned messages written by the student:
 *                partitioned_init sets them up once (outside any parallel region), and per
 *                iteration, after the sweep wrote the new rows into b and the halo rows from a
 *                neighbour were set to NaN, pready_iteration starts them, copies rows 1 and m
 *                back in a parallel region where thread t marks its partition ready, and
 *                completes them; the kit then copies rows 2..m-1. Needs MPI_THREAD_MULTIPLE, nx
 *                divisible by T and the partitioned calls (without them: the "skipped" record).
 *
 * Per iteration: the stencil and the copy (jacobi), the exchange (halo), delta over threads and
 * ranks (reduction); waits at barriers are "other", as in halo2d.c, whose records and checksum
 * these runs give (hybridlab.halo.serial.jacobi2d reproduces the checksum). stagger_us makes odd
 * ranks start each exchange (tasks: each iteration) that late, so that the threads of even ranks
 * are surely inside MPI together (multiple) and halos surely in flight (tasks).
 */
#include "hybridlab.h"
#include <stdint.h>

#if defined(HL_STUDENT_MULTIPLE) || defined(HL_STUDENT_TASKS) || defined(HL_STUDENT_PREADY)
#include "thread_halo_student.h"
#endif
#if defined(HL_STUDENT_TASKS) || defined(HL_STUDENT_PREADY)
#define HL_GRID2D_STENCIL_ROWS 1 /* stencil_rows and poison_halos */
#endif
#if defined(HL_STUDENT_TASKS) && defined(HL_TRACE_MPI)
static void hold_for_exchange(void);
#define HL_GRID2D_BEFORE_INTERIOR hold_for_exchange /* stencil_rows' interior rows (lab 12 (b)) */
#endif
#include "hl_grid2d.h"
#include <sys/syscall.h>

/* What the judges read of this kernel's state lives in hybridlab.h's sealed evidence, read-only to
 * every thread (the cell is linked into the same program: a static, a _Thread_local or a heap
 * block whose pointer sits in one is found from a static of the cell's at the offset the link
 * fixes, and rewritten). First the grid's (hl_grid2d.h's GRID2D_EV); then (b)'s task ids and
 * hold, (d)'s copies, meetings and the iteration; then, per OS thread (gettid: slot_of), what
 * was _Thread_local - the task a thread runs ((b)'s "parent" and "made_after"), the body's own
 * time ("busy"), the team barriers it passed, its copies and the CPU time since its copy ((d)'s
 * "barriers", "calls", "call_cpu"). A thread's slot is written by that thread only (a pwrite,
 * no lock: the Archer run sees no synchronisation the cell did not make), claimed once under
 * the sealed lock (run_pready claims the team's before any student code). */
#define SLOTS 64 /* OS threads a run may use (a run with more stops) */
typedef struct {
    long tid;                   /* gettid() of the slot's thread (0: free) */
    double running_since;       /* (b) the wrapped task this thread runs now began (-1: none) */
    long running_id;            /*     its number (0: none) */
    long body_on;               /*     task_iteration's body runs on this thread */
    double body_busy;           /*     its own time so far in this iteration */
    double seg_wall, seg_cpu;   /*     the body's current segment began */
    long seg_vcsw;
    long barriers;              /* (d) team barriers passed (the build's GOMP_barrier wraps) */
    long copied_in;             /*     the iteration of its last copy_partition (-1: none) */
    long copies;                /*     copy_partition calls */
    double own_cpu, own_since;  /*     CPU time since the copy, up to own_since (call_cpu) */
    long marked_in;             /*     the iteration of its last mark (-1: none) */
} thread_evidence;
typedef struct {
    grid2d_evidence grid; /* first: GRID2D_EV (hl_grid2d.h) */
    long threads;         /* slots claimed */
    long student_calls, calls_at_iteration; /* (b) the hold (hold_for_exchange) */
    double hold_until;
    long tasks_made;      /* (b) tasks made so far ("id") */
    grid2d *g;            /* (d) the grid copy_partition copies in */
    long parts, size;     /*     partitions; copy records the log has room for */
    long iteration, copies_met, marks_met; /* the iteration; arrived at the meetings in it */
    long broken, marks_unmet;
    thread_evidence slot[SLOTS];
} halo_evidence;
_Static_assert(sizeof(halo_evidence) <= HL_SEALED_DATA, "halo_evidence: too large");
#define EV HL_SEALED(halo_evidence)
#define EV_GET(p) (*(const volatile __typeof__(*(p)) *)(p))

/* A write of the kit's into the sealed evidence from any thread: without a lock where the page
 * is written through /proc/self/mem, under the sealed lock where it takes mprotect windows. */
static __attribute__((unused)) void ev_put(const void *dst, const void *src, size_t n) {
    if (*(const volatile int *)&hl_sealed.s.ready && *(const volatile int *)&hl_sealed.s.mem >= 0) {
        hl_sealed_put(dst, src, n);
        return;
    }
#pragma omp critical(hl_sealed_lock)
    hl_sealed_put(dst, src, n);
}
#define EV_SET(p, value)                                                                          \
    do {                                                                                          \
        __typeof__(*(p)) set_ = (value);                                                          \
        ev_put((p), &set_, sizeof set_);                                                          \
    } while (0)

/* This OS thread's slot (claimed at its first use). */
static __attribute__((unused)) const thread_evidence *slot_of(void) {
    const halo_evidence *ev = EV;
    long tid = (long)syscall(SYS_gettid), n = EV_GET(&ev->threads);
    for (long i = 0; i < n && i < SLOTS; i++)
        if (EV_GET(&ev->slot[i].tid) == tid) return &ev->slot[i];
    const thread_evidence *got = NULL;
#pragma omp critical(hl_sealed_lock)
    {
        n = EV_GET(&ev->threads);
        for (long i = 0; i < n && i < SLOTS && !got; i++)
            if (EV_GET(&ev->slot[i].tid) == tid) got = &ev->slot[i];
        if (!got && n < SLOTS) {
            thread_evidence fresh = {.tid = tid, .running_since = -1.0, .copied_in = -1,
                                     .marked_in = -1};
            hl_sealed_put(&ev->slot[n], &fresh, sizeof fresh);
            long more = n + 1;
            hl_sealed_put(&ev->threads, &more, sizeof more);
            got = &ev->slot[n];
        }
    }
    if (!got) hl_sealed_stop("more threads than thread_halo keeps evidence for");
    return got;
}

/* Adds inc to a sealed counter and returns its new value (any thread). */
static __attribute__((unused)) long ev_add(const long *p, long inc) {
    long v;
#pragma omp critical(hl_sealed_lock)
    {
        v = EV_GET(p) + inc;
        hl_sealed_put(p, &v, sizeof v);
    }
    return v;
}


const char *const hl_kernel_description =
    "2-D Jacobi (lab 04's grid) with threads that communicate: the master sends every thread's "
    "slice (funneled), every thread its own (the student's multiple), tasks overlapping the "
    "halos (the student's tasks), MPI-4 partitioned sends with MPI_Pready per thread";

const hl_param hl_kernel_params[] = {
    {"variant", "funneled", "funneled | multiple | tasks | partitioned | pready"},
    {"nx", "256", "interior columns (length of a halo row)"},
    {"ny", "256", "interior rows, split over the ranks in blocks"},
    {"iterations", "100", "Jacobi iterations"},
    HL_SCHEDULE_PARAMS,
    {"stagger_us", "0", "odd ranks start each exchange (tasks: iteration) this late"},
    HL_TIMELINE_PARAMS,
    HL_END_PARAMS,
};

enum { V_FUNNELED, V_MULTIPLE, V_TASKS, V_PARTITIONED, V_PREADY, V_COUNT };
static const char *const variant_names[V_COUNT] = {"funneled", "multiple", "tasks",
                                                   "partitioned", "pready"};

/* Thread t's slice of the columns: `count` columns from `first`. */
static void slice_of(int t, int nthreads, long nx, long *first, long *count) {
    long lo = t * nx / nthreads, hi = (t + 1) * nx / nthreads;
    *first = 1 + lo;
    *count = hi - lo;
}

/* Odd ranks wait stagger_us before the barrier that starts an exchange. */
static void stagger(grid2d *g, hl_timers *me) {
#pragma omp masked
    if (g->rank % 2 == 1) hl_sleep_us(g->stagger_us);
    hl_barrier_phase(me, HL_OTHER);
}

/* The master exchanges every thread's slice: 4 messages per slice, tags 2 s (down) and 2 s + 1
 * (up). */
static void exchange_funneled(grid2d *g, int nthreads) {
    MPI_Request *req = malloc((size_t)4 * nthreads * sizeof *req);
    for (int s = 0; s < nthreads; s++) {
        long first, count;
        slice_of(s, nthreads, g->nx, &first, &count);
        MPI_Request *r = req + 4 * s;
        MPI_Irecv(&A(g, 0, first), (int)count, MPI_DOUBLE, g->up, 2 * s, g->comm, &r[0]);
        MPI_Irecv(&A(g, g->m + 1, first), (int)count, MPI_DOUBLE, g->down, 2 * s + 1, g->comm,
                  &r[1]);
        MPI_Isend(&A(g, g->m, first), (int)count, MPI_DOUBLE, g->down, 2 * s, g->comm, &r[2]);
        MPI_Isend(&A(g, 1, first), (int)count, MPI_DOUBLE, g->up, 2 * s + 1, g->comm, &r[3]);
    }
    MPI_Waitall(4 * nthreads, req, MPI_STATUSES_IGNORE);
    free(req);
}

/* funneled and multiple: one region; per iteration the sweep, the exchange (the master's or
 * every thread's own), delta. comms: the student's communicator per thread (multiple). */
static void run_exchange(grid2d *g, int nthreads, int variant, const MPI_Comm *comms) {
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
        hl_timers *me = &g->acc[t];
        double start = hl_now();
        for (long it = 0; it < g->iterations; it++) {
            hl_timers_iteration(me, 1, it);
#ifdef HL_TRACE_MPI
#pragma omp masked
            hl_trace_step(it); /* the exchange's calls carry their iteration (lab 12 (a)) */
#endif
            sweep(g, me);
            stagger(g, me);
            double h0 = hl_now();
            if (variant == V_FUNNELED) {
#pragma omp masked
                exchange_funneled(g, nthreads);
            }
#ifdef HL_STUDENT_MULTIPLE
            else {
                exchange_slice(g->a, g->m, g->nx, g->up, g->down, comms[t]);
                grid2d_kept(g, "exchange_slice");
            }
#endif
            hl_phase(me, HL_HALO, h0);
            hl_barrier_phase(me, HL_OTHER);
#pragma omp masked
            reduce_delta(g, nthreads, me);
            hl_barrier_phase(me, HL_OTHER);
        }
        me->t[HL_TOTAL] = hl_now() - start;
    }
    (void)comms;
}

#if defined(HL_STUDENT_MULTIPLE) || defined(HL_STUDENT_PREADY)
/* A "halo_rows" record: the addresses of the grid's rows 0, 1, m and m + 1 at column 1, the
 * buffers the student's messages name (the trace's "buffer" and "sent": lab 12 (a), whose
 * columns each thread moved; (d), the partitioned set-ups' rows). */
static void emit_rows(hl_ctx *ctx, const grid2d *g) {
    hl_emit(ctx, "\"record\":\"halo_rows\",\"row_0\":%lu,\"row_1\":%lu,\"row_m\":%lu,"
                 "\"row_m1\":%lu",
            (unsigned long)(uintptr_t)&A(g, 0, 1), (unsigned long)(uintptr_t)&A(g, 1, 1),
            (unsigned long)(uintptr_t)&A(g, g->m, 1), (unsigned long)(uintptr_t)&A(g, g->m + 1, 1));
}
#endif

#ifdef HL_STUDENT_MULTIPLE
/* variant=multiple: the student's communicators, the run, then the ones that differ from comm
 * freed (each once). */
static void run_multiple(grid2d *g, int nthreads) {
    MPI_Comm *comms = malloc((size_t)nthreads * sizeof *comms);
    for (int t = 0; t < nthreads; t++) comms[t] = g->comm;
    thread_comms(g->comm, nthreads, comms);
    grid2d_kept(g, "thread_comms");
    run_exchange(g, nthreads, V_MULTIPLE, comms);
    for (int t = 0; t < nthreads; t++) {
        int seen = comms[t] == g->comm || comms[t] == MPI_COMM_NULL;
        for (int u = 0; u < t && !seen; u++) seen = comms[u] == comms[t];
        if (!seen) MPI_Comm_free(&comms[t]);
    }
    free(comms);
}
#endif

#if defined(HL_STUDENT_TASKS) && defined(HL_TRACE_MPI)
/* The run's schedule made neutral: which ready task a thread takes first is libgomp's choice (a
 * thread waiting in a taskwait takes its own children most recent first, so a trailing taskwait
 * had the creating thread compute the whole interior before it reached the exchange's task,
 * created first, while the other threads of an oversubscribed machine slept: a fresh attacker's
 * right answer r12b lost 4/4, 2026-12-05). An interior row about to be computed before the
 * student's code made any MPI call in the iteration, while a halo is pending, waits until it
 * has (a task posting the exchange ran on another thread) or until HOLD_US after the
 * iteration's first hold: where the tasks let the exchange start first it does, and rows
 * ordered before the exchange (depend, a taskgroup, an exchange task created after the
 * interior's) still come before it. The student's calls are counted by the tracer's hook. */
#define HOLD_US 50000L
/* (sealed: EV->student_calls, the student's MPI calls so far (count_call); calls_at_iteration,
 * student_calls when task_iteration was called; hold_until, the iteration's hold ends then (0:
 * none yet)) */
static void count_call(void) { (void)ev_add(&EV->student_calls, 1); }

static void hold_for_exchange(void) {
    if (!halo_pending(overlap_grid)) return;
    const halo_evidence *ev = EV;
    long at = EV_GET(&ev->calls_at_iteration);
    if (EV_GET(&ev->student_calls) != at) return;
    double until = hl_now() + HOLD_US * 1e-6;
#pragma omp critical(hl_sealed_lock)
    {
        if (EV_GET(&ev->hold_until) == 0.0)
            hl_sealed_put(&ev->hold_until, &until, sizeof until);
        else
            until = EV_GET(&ev->hold_until);
    }
    while (EV_GET(&ev->student_calls) == at && hl_now() < until) hl_sleep_us(100);
}
#endif

#if defined(HL_STUDENT_TASKS) && defined(HL_TRACE_MPI)
/* Each task the cell creates starts with a clean stamp (hl_trace_task_fresh): the build wraps
 * libgomp's entries for `task` and `taskloop` (thread_comm.exercise.TASKS_FLAGS; GCC 12's
 * signatures), so an interior task the posting task creates after its posts is not read as the
 * posting task's own rows (a fresh attacker's r12e, 2026-12-05, a right answer, lost 4/4). */
#include <stdbool.h>
/* weak: a build without the wraps (TASKS_FLAGS) never calls these wrappers */
extern void __real_GOMP_task(void (*)(void *), void *, void (*)(void *, void *), long, long, bool,
                             unsigned, void **, int, void *) __attribute__((weak));
extern void __real_GOMP_taskloop(void (*)(void *), void *, void (*)(void *, void *), long, long,
                                 unsigned, unsigned long, int, long, long, long)
    __attribute__((weak));
extern void __real_GOMP_taskloop_ull(void (*)(void *), void *, void (*)(void *, void *), long,
                                     long, unsigned, unsigned long, int, unsigned long long,
                                     unsigned long long, unsigned long long) __attribute__((weak));
/* Each task GOMP_task makes also runs through run_task, which writes a "task_run" record to the
 * trace's stream as the task ends: the thread that ran it, when it was created, began and ended
 * (thread_comm.exercise.early_edges: a task computing row 1 or m must begin after the halo it reads
 * arrived, held by depend alone, and not be created, after it arrived, by a task that began before:
 * a fresh attacker's edge tasks on an unrelated depend item spun on the halo row until it was no
 * longer NaN, M12b_nanspin, 2026-12-05). The task's data gets a head in front of it: the task's
 * own function, its copy function, where its data begins, when it was created and when the task
 * that created it began. */
#include <stdlib.h>
#include <sys/resource.h>
#include <stdint.h>
/* Each task's depend list as the runtime got it (GCC 12's GOMP_task array: the addresses and
 * their kinds), written in its "task_run" record as "deps": "o:<hex>" for out, inout or
 * mutexinoutset (libgomp orders mutexinoutset as out), "i:<hex>" for in, "s:<hex>" for
 * inoutset; with the task's "id" and its creator's ("parent": 0 for task_iteration's body), so
 * thread_comm.exercise.early_edges judges what the runtime linked, not the names in the text (a
 * fresh attacker's edge task named in depend(in: halos) a block-local `halos` shadowing the
 * exchange's, and task_iteration's body spun on a plain counter, T12b_flagspin2, 4/4, 2026-12-05). */
#define DEPS_SHOWN 16
#define GOMP_DEPEND_FLAG 8 /* GOMP_TASK_FLAG_DEPEND (gomp-constants.h) */
typedef struct {
    /* A detached task's event handle (`detach(ev)`): libgomp writes it into the first word of the
     * data it runs the task with, where GCC puts the task's copy of ev, so here; run_task hands
     * it on to the task's own data (a fresh attacker's right answer, A2's l12_task_detach, crashed
     * when the handle overwrote fn, 0/4, 2026-12-07). */
    void *event;
    void (*fn)(void *);
    void (*cpyfn)(void *, void *);
    long offset;          /* the task's own data, from the head */
    int detached;         /* made with detach: its event is the task data's first word */
    double created;       /* hl_now() as GOMP_task was called */
    double creator_began; /* when the wrapped task that created it began (-1: none did) */
    double creator_busy;  /* task_iteration's body: its own time before it (-1: another creator) */
    long id, parent;      /* this task's number (from 1) and its creator's (0: the body) */
    char deps[DEPS_SHOWN * 20 + 4];
} task_head;
/* (sealed, this thread's slot: running_since, when the wrapped task this thread runs now began,
 * -1 for none; running_id, its number, 0 for none) */
/* Detached tasks (`detach(ev)`): a "task_detached" record names a wrapped task's event as it
 * begins, a "task_fulfill" record each omp_fulfill_event (wrapped: TASKS_FLAGS) with the wrapped
 * task that called it ("by": 0 for none): thread_comm.exercise.TaskGraph reads a task held by
 * depend on a detached task as held until the task that fulfilled its event had called it (the
 * runtime completes a detached task, and releases its depend(out: ...), only then). */
static void event_record(const char *record, const char *who, long id, omp_event_handle_t event) {
    char fields[128];
    snprintf(fields, sizeof fields, "\"record\":\"%s\",\"%s\":%ld,\"event\":\"%lx\"", record, who,
             id, (unsigned long)(uintptr_t)event);
    double now = hl_now();
    hl_trace_event(fields, now, now);
}
extern void __real_omp_fulfill_event(omp_event_handle_t) __attribute__((weak));
void __wrap_omp_fulfill_event(omp_event_handle_t event) {
    event_record("task_fulfill", "by", EV_GET(&slot_of()->running_id), event);
    if (__real_omp_fulfill_event) __real_omp_fulfill_event(event);
}
/* (sealed: EV->tasks_made, the tasks made so far) */

/* task_iteration's own time (kernels run it in tasks_call): between its task creations, its CPU
 * time, or, where it blocked in a system call (a voluntary context switch: a pipe, a poll, a
 * futex), the wall time; plus the CPU time of tasks the runtime ran inside its creation calls.
 * A body that creates tasks spends microseconds; one that waits for another task's progress
 * before it creates the edge task (a spin on a plain counter, a blocking read) spends the
 * exchange's time. Time the machine took the thread away for (an involuntary switch) is not
 * counted. */
/* (sealed, this thread's slot: body_on, body_busy, seg_wall, seg_cpu, seg_vcsw) */
static void thread_usage(double *cpu, long *vcsw) {
    struct rusage u;
    getrusage(RUSAGE_THREAD, &u);
    *cpu = (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
           + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
    *vcsw = u.ru_nvcsw;
}
static void body_segment_start(const thread_evidence *me) {
    struct {
        double wall, cpu;
        long vcsw;
    } seg;
    seg.wall = hl_now();
    thread_usage(&seg.cpu, &seg.vcsw);
    ev_put(&me->seg_wall, &seg, sizeof seg);
}
static void body_busy_add(const thread_evidence *me, double more) {
    EV_SET(&me->body_busy, EV_GET(&me->body_busy) + more);
}
static void body_segment_end(const thread_evidence *me) {
    double cpu;
    long vcsw;
    thread_usage(&cpu, &vcsw);
    body_busy_add(me, vcsw > EV_GET(&me->seg_vcsw) ? hl_now() - EV_GET(&me->seg_wall)
                                                   : cpu - EV_GET(&me->seg_cpu));
}
/* this thread's running task, as a pair */
static void set_running(const thread_evidence *me, double since, long id) {
    struct {
        double since;
        long id;
    } running = {since, id};
    ev_put(&me->running_since, &running, sizeof running);
}

static void depend_text(char *out, size_t size, unsigned flags, void **depend) {
    out[0] = 0;
    if (!(flags & GOMP_DEPEND_FLAG) || !depend) return;
    size_t total = (uintptr_t)depend[0], nout, nmutex = 0, nin, first = 2, used = 0;
    if (total) {
        nout = (uintptr_t)depend[1];
        nin = total - nout;
    } else { /* GCC 11+: total, out/inout, mutexinoutset, in, then depobj entries {addr, kind} */
        total = (uintptr_t)depend[1];
        nout = (uintptr_t)depend[2];
        nmutex = (uintptr_t)depend[3];
        nin = (uintptr_t)depend[4];
        first = 5;
    }
    for (size_t i = 0; i < total && i < DEPS_SHOWN; i++) {
        void *addr = depend[first + i];
        char kind = i < nout + nmutex ? 'o' : 'i';
        if (i >= nout + nmutex + nin) { /* a depobj: its address and kind (GOMP_DEPEND_*) */
            void **obj = (void **)depend[first + i];
            uintptr_t k = (uintptr_t)obj[1];
            addr = obj[0];
            kind = k == 1 ? 'i' : k == 5 ? 's' : 'o';
        }
        int n = snprintf(out + used, size - used, "%s%c:%lx", used ? "," : "", kind,
                         (unsigned long)(uintptr_t)addr);
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
    }
}

static void run_task(void *arg) {
    const task_head head = *(const task_head *)arg;
    const thread_evidence *me = slot_of();
    double start = hl_now(), outer = EV_GET(&me->running_since), cpu0 = 0.0;
    long outer_id = EV_GET(&me->running_id), vcsw0;
    int inside_body = EV_GET(&me->body_on) && outer < 0; /* run inside the body's creation */
    if (inside_body) thread_usage(&cpu0, &vcsw0);
    set_running(me, start, head.id);
    if (head.detached) {
        memcpy((char *)arg + head.offset, &head.event, sizeof head.event);
        event_record("task_detached", "id", head.id, (omp_event_handle_t)(uintptr_t)head.event);
    }
    head.fn((char *)arg + head.offset);
    set_running(me, outer, outer_id); /* a task run inside another at a scheduling point: the
                                         outer's again */
    if (inside_body) {
        double cpu;
        long vcsw;
        thread_usage(&cpu, &vcsw);
        body_busy_add(me, cpu - cpu0);
    }
    char fields[480];
    snprintf(fields, sizeof fields,
             "\"record\":\"task_run\",\"thread\":%d,\"waited\":%.9f,\"made_after\":%.9f,"
             "\"busy\":%.9f,\"id\":%ld,\"parent\":%ld,\"deps\":\"%s\"",
             omp_get_thread_num(), start - head.created,
             head.creator_began < 0 ? -1.0 : head.created - head.creator_began, head.creator_busy,
             head.id, head.parent, head.deps);
    hl_trace_event(fields, start, hl_now()); /* created: start - waited; its creator began
                                                made_after before that (-1: no wrapped task) */
}

static void copy_task(void *to, void *from) {
    const task_head *head = from;
    memcpy(to, head, sizeof *head);
    head->cpyfn((char *)to + head->offset, (char *)from + head->offset);
}

void __wrap_GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long size,
                      long align, bool if_clause, unsigned flags, void **depend, int priority,
                      void *detach) {
    int creator = hl_trace_task_fresh();
    long aligned = align > (long)_Alignof(task_head) ? align : (long)_Alignof(task_head);
    long offset = ((long)sizeof(task_head) + aligned - 1) / aligned * aligned;
    char *block = aligned_alloc((size_t)aligned, (size_t)((offset + size + aligned - 1) / aligned
                                                          * aligned));
    if (!block) { /* no memory for the head: the task as it was, unrecorded */
        __real_GOMP_task(fn, data, cpyfn, size, align, if_clause, flags, depend, priority, detach);
        hl_trace_task_restore(creator);
        return;
    }
    const thread_evidence *me = slot_of();
    double running_since = EV_GET(&me->running_since);
    int from_body = EV_GET(&me->body_on) && running_since < 0;
    if (from_body) body_segment_end(me);
    task_head head = {NULL, fn, cpyfn, offset, detach != NULL, hl_now(), running_since,
                      from_body ? EV_GET(&me->body_busy) : -1.0, ev_add(&EV->tasks_made, 1),
                      EV_GET(&me->running_id), ""};
    depend_text(head.deps, sizeof head.deps, flags, depend);
    memcpy(block, &head, sizeof head);
    if (size > 0) memcpy(block + offset, data, (size_t)size);
    __real_GOMP_task(run_task, block, cpyfn ? copy_task : NULL, offset + size, aligned, if_clause,
                     flags, depend, priority, detach);
    free(block); /* GOMP_task copied it (or ran the task) before it returned */
    hl_trace_task_restore(creator);
    if (from_body) body_segment_start(me);
}
/* A taskloop the body makes: with nogroup, its CPU time counts as the body's (the runtime's lock
 * waits and the machine's pauses do not); without, its implicit taskgroup is a wait of the
 * body's, all of its wall time counted. */
#define GOMP_NOGROUP_FLAG 2048 /* GOMP_TASK_FLAG_NOGROUP (gomp-constants.h) */
static int taskloop_begin(double *wall, double *cpu) {
    const thread_evidence *me = slot_of();
    if (!(EV_GET(&me->body_on) && EV_GET(&me->running_since) < 0)) return 0;
    long vcsw;
    body_segment_end(me);
    *wall = hl_now();
    thread_usage(cpu, &vcsw);
    return 1;
}
static void taskloop_end(unsigned flags, double wall, double cpu) {
    double now_cpu;
    long vcsw;
    thread_usage(&now_cpu, &vcsw);
    const thread_evidence *me = slot_of();
    body_busy_add(me, flags & GOMP_NOGROUP_FLAG ? now_cpu - cpu : hl_now() - wall);
    body_segment_start(me);
}
void __wrap_GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                          long size, long align, unsigned flags, unsigned long num_tasks,
                          int priority, long start, long end, long step) {
    int creator = hl_trace_task_fresh();
    double wall = 0.0, cpu = 0.0;
    int from_body = taskloop_begin(&wall, &cpu);
    __real_GOMP_taskloop(fn, data, cpyfn, size, align, flags, num_tasks, priority, start, end,
                         step);
    if (from_body) taskloop_end(flags, wall, cpu);
    hl_trace_task_restore(creator);
}
void __wrap_GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                              long size, long align, unsigned flags, unsigned long num_tasks,
                              int priority, unsigned long long start, unsigned long long end,
                              unsigned long long step) {
    int creator = hl_trace_task_fresh();
    double wall = 0.0, cpu = 0.0;
    int from_body = taskloop_begin(&wall, &cpu);
    __real_GOMP_taskloop_ull(fn, data, cpyfn, size, align, flags, num_tasks, priority, start, end,
                             step);
    if (from_body) taskloop_end(flags, wall, cpu);
    hl_trace_task_restore(creator);
}
#endif

#ifdef HL_STUDENT_TASKS
/* variant=tasks (run_poisoned): one thread calls task_iteration and the team runs its tasks,
 * all done at the single's barrier; the call's task is marked (hl_trace_task_mark), so what its
 * own body computed and called outside every task is counted.
 *
 * task_iteration's stack frame stays as it left it until its tasks are done (the lab says they
 * are all done at the end of the single): a task given one of its locals by reference (shared(a)
 * on its parameter a) reads it after task_iteration returned, from stack memory this thread
 * reused at the single's barrier (the task wrapper's frames, a task run there), so the exchange's
 * task received the halo rows into whatever the slot held then: a right answer, the interior as
 * a taskloop grainsize(4) nogroup, died on SIGSEGV in 1 run of 5 once the wrapper's frames grew
 * (2026-12-05), and an edge task given m by reference computed another row. Right after the
 * call this thread moves its stack pointer FRAME_KEPT further down without writing there, so
 * everything it runs until the barrier ends (the unmarking, the barrier, the tasks it takes
 * there) runs below the old frame. noinline: the alloca must end with this call, not with an
 * iteration loop it was inlined into. */
#define FRAME_KEPT (64 * 1024) /* task_iteration's frame and its helpers' below it, with room */
static __attribute__((noinline)) void tasks_call(grid2d *g) {
#pragma omp single
    {
#ifdef HL_TRACE_MPI
        EV_SET(&EV->calls_at_iteration, EV_GET(&EV->student_calls));
        EV_SET(&EV->hold_until, 0.0);
#endif
        hl_trace_task_mark();
#ifdef HL_TRACE_MPI
        const thread_evidence *me = slot_of();
        struct {
            long on;
            double busy;
        } body = {1, 0.0};
        ev_put(&me->body_on, &body, sizeof body);
        body_segment_start(me);
#endif
        task_iteration(g->a, g->m, g->nx, g->up, g->down, g->comm);
        char *kept = __builtin_alloca(FRAME_KEPT); /* until tasks_call returns: past the barrier */
        __asm__ volatile("" : : "r"(kept) : "memory");
        grid2d_kept(g, "task_iteration"); /* (below the kept frame, as what follows) */
#ifdef HL_TRACE_MPI
        EV_SET(&me->body_on, 0L);
#endif
        long seen[2] = {0, 0}; /* this iteration's, added to the sealed evidence (hl_grid2d.h) */
        hl_trace_task_unmark(&seen[0], &seen[1]);
        if (seen[0]) hl_sealed_add(&GRID2D_EV->inline_rows, seen[0]);
        if (seen[1]) hl_sealed_add(&GRID2D_EV->inline_calls, seen[1]);
    }
}
#endif

#ifdef HL_HAVE_PARTITIONED
/* variant=partitioned: up to two partitioned sends and two receives of T partitions each (none
 * towards MPI_PROC_NULL), set up once. */
typedef struct {
    MPI_Request send[2], recv[2], all[4];
    int sends, recvs;
} partitioned;

static void partitioned_setup(grid2d *g, int parts, partitioned *p) {
    MPI_Count per = g->nx / parts;
    p->sends = p->recvs = 0;
    if (g->up != MPI_PROC_NULL) {
        MPI_Psend_init(&A(g, 1, 1), parts, per, MPI_DOUBLE, g->up, TAG_UP, g->comm, MPI_INFO_NULL,
                       &p->send[p->sends++]);
        MPI_Precv_init(&A(g, 0, 1), parts, per, MPI_DOUBLE, g->up, TAG_DOWN, g->comm,
                       MPI_INFO_NULL, &p->recv[p->recvs++]);
    }
    if (g->down != MPI_PROC_NULL) {
        MPI_Psend_init(&A(g, g->m, 1), parts, per, MPI_DOUBLE, g->down, TAG_DOWN, g->comm,
                       MPI_INFO_NULL, &p->send[p->sends++]);
        MPI_Precv_init(&A(g, g->m + 1, 1), parts, per, MPI_DOUBLE, g->down, TAG_UP, g->comm,
                       MPI_INFO_NULL, &p->recv[p->recvs++]);
    }
    for (int i = 0; i < p->sends; i++) p->all[i] = p->send[i];
    for (int i = 0; i < p->recvs; i++) p->all[p->sends + i] = p->recv[i];
}

/* Thread t copies its slice of the edge rows back, marks its partition of each send ready and
 * copies its share of the other rows. */
static void partitioned_copy(grid2d *g, partitioned *p, int t, long per) {
    long first = 1 + t * per;
    memcpy(&A(g, 1, first), &B(g, 1, first), (size_t)per * sizeof(double));
    memcpy(&A(g, g->m, first), &B(g, g->m, first), (size_t)per * sizeof(double));
    for (int i = 0; i < p->sends; i++) MPI_Pready(t, p->send[i]);
#pragma omp for schedule(static) nowait
    for (long i = 2; i < g->m; i++) copy_row(g, i);
}

/* The partitions of the received rows already there (MPI_Parrived, one look each). Threads
 * spinning on MPI_Parrived hung under Open MPI 5 with 2 threads: the master looks, once. */
static long partitions_arrived(partitioned *p, int parts) {
    long n = 0;
    for (int i = 0; i < p->recvs; i++)
        for (int t = 0; t < parts; t++) {
            int arrived = 0;
            MPI_Parrived(p->recv[i], t, &arrived);
            n += arrived;
        }
    return n;
}

/* Returns the partitions found arrived before the master's MPI_Waitall, over all iterations. */
static long run_partitioned(grid2d *g, int nthreads) {
    long early = 0;
    partitioned p;
    partitioned_setup(g, nthreads, &p);
    long per = g->nx / nthreads;
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
        hl_timers *me = &g->acc[t];
        double start = hl_now();
        for (long it = 0; it < g->iterations; it++) {
            hl_timers_iteration(me, 1, it);
            double t0 = hl_now(), local = 0.0;
#pragma omp for schedule(runtime) nowait
            for (long i = 1; i <= g->m; i++) local += stencil_row(g, i);
            me->partial = local;
            hl_phase(me, HL_JACOBI, t0);
            stagger(g, me); /* the halo rows are read: now they may be received into */
            double h0 = hl_now();
#pragma omp masked
            MPI_Startall(p.sends + p.recvs, p.all);
            hl_barrier_phase(me, HL_OTHER);
            partitioned_copy(g, &p, t, per);
            hl_barrier_phase(me, HL_OTHER);
#pragma omp masked
            {
                early += partitions_arrived(&p, nthreads);
                MPI_Waitall(p.sends + p.recvs, p.all, MPI_STATUSES_IGNORE);
                reduce_delta(g, nthreads, me);
            }
            hl_phase(me, HL_HALO, h0);
            hl_barrier_phase(me, HL_OTHER);
        }
        me->t[HL_TOTAL] = hl_now() - start;
    }
    for (int i = 0; i < p.sends + p.recvs; i++) MPI_Request_free(&p.all[i]);
    return early;
}
#endif

#if defined(HL_STUDENT_PREADY) && defined(HL_HAVE_PARTITIONED)
/* The kit's copy_partition (thread_halo_student.h): each call copies partition t of rows 1 and m
 * from b into a and is logged with the thread that made it, when, and the iteration. */
typedef struct {
    double start, end;
    long iteration, barriers; /* barriers: the team barriers its thread had passed */
    int thread, partition, level, team; /* level: omp_get_level() (1 in the cell's region) */
    int met;                            /* the whole team had come to copy_partition */
} partition_copy;

/* The copy records kept in the process only where the run has no trace stream (then each copy is
 * on the stream as it is made, hl_trace_event, out of the process's reach): the grid, the
 * partitions, the iteration and the calls made are sealed (EV->g, parts, size, iteration, and
 * each thread's slot's copies). */
static struct {
    long logged; /* log entries taken */
    partition_copy *log;
} copying;

/* The team barriers each OS thread passed: the cell's build wraps GOMP_barrier (libgomp's entry of
 * `#pragma omp barrier`, thread_comm.exercise.PREADY_FLAGS); a copy records its thread's count,
 * so threads that copy after different numbers of barriers (turns, one thread a turn: a fresh
 * attacker's G12a5, 2026-12-05, conditional calls of a helper holding a barrier) are seen by what
 * ran, not by the cell's text. Without the wrap (Archer's clang build) __real_ is weak and unused.
 * GOMP_barrier_cancel: the same barrier where the region can be cancelled. */
static void barrier_passed(void) { /* (sealed: this thread's slot's barriers) */
    const thread_evidence *me = slot_of();
    EV_SET(&me->barriers, EV_GET(&me->barriers) + 1);
}
extern void __real_GOMP_barrier(void) __attribute__((weak));
extern _Bool __real_GOMP_barrier_cancel(void) __attribute__((weak));
void __wrap_GOMP_barrier(void) {
    barrier_passed();
    if (__real_GOMP_barrier) __real_GOMP_barrier();
}
_Bool __wrap_GOMP_barrier_cancel(void) { /* a barrier where cancellation is in use */
    barrier_passed();
    return __real_GOMP_barrier_cancel ? __real_GOMP_barrier_cancel() : 0;
}
/* The implicit barriers at the end of worksharing constructs without nowait, which GCC does not
 * compile to GOMP_barrier: a dynamic or guided `omp for` (GOMP_loop_end and GOMP_loop_end_cancel,
 * the ull loops' too: the tracer wraps them, hl_trace_loop_waits counts those that wait), `omp
 * sections` (GOMP_sections_end) and its cancellable form, and `single copyprivate`
 * (GOMP_single_copy_start waits for the thread that ran the block, which waits in
 * GOMP_single_copy_end): turns separated by an empty `omp for schedule(dynamic)` kept 4/4 (a
 * fresh attacker's J12tgt and J12b, 2026-12-05). */
extern long hl_trace_loop_waits(void) __attribute__((weak));
extern void __real_GOMP_sections_end(void) __attribute__((weak));
extern _Bool __real_GOMP_sections_end_cancel(void) __attribute__((weak));
extern void *__real_GOMP_single_copy_start(void) __attribute__((weak));
extern void __real_GOMP_single_copy_end(void *) __attribute__((weak));
void __wrap_GOMP_sections_end(void) {
    barrier_passed();
    if (__real_GOMP_sections_end) __real_GOMP_sections_end();
}
_Bool __wrap_GOMP_sections_end_cancel(void) {
    barrier_passed();
    return __real_GOMP_sections_end_cancel ? __real_GOMP_sections_end_cancel() : 0;
}
void *__wrap_GOMP_single_copy_start(void) { /* NULL: this thread runs the block, no wait yet */
    void *data = __real_GOMP_single_copy_start ? __real_GOMP_single_copy_start() : 0;
    if (data) barrier_passed();
    return data;
}
void __wrap_GOMP_single_copy_end(void *data) {
    barrier_passed();
    if (__real_GOMP_single_copy_end) __real_GOMP_single_copy_end(data);
}

/* Copies and marks made together: a thread's first copy_partition of an iteration, and its
 * first MPI call after it (its mark), wait until every thread of the team has come that far (at
 * most MEET_S: then that copy or mark is recorded as not met, and for the rest of the run
 * nobody waits). Threads held apart by anything but a wait the text checks see (a busy delay growing
 * with the thread number: a fresh attacker's J12c, 2026-12-05, marks 10-30 ms apart, 4/4 kept)
 * copy and mark at the same time anyway; threads in real turns (one waiting for another's mark)
 * never all arrive. The counters are sealed (EV->copies_met and marks_met, arrived this iteration,
 * reset by the master before it; broken, a meeting ran out of time: nobody waits any more;
 * marks_unmet, marks made without the team, partition_copies' record; each thread's slot's
 * copied_in and marked_in, the iteration of its last copy and mark). Under ThreadSanitizer
 * (Archer's build) nobody meets: no lock there that Archer would read as the student's
 * synchronisation. */
#define MEET_S 3.0

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) /* Archer's build (pready_races): no meeting, see meet() */
#define HL_NO_MEETING 1
#endif
#endif

/* 1: the whole team arrived. Under ThreadSanitizer nobody waits: a cell's own turns on a plain
 * variable must race there, and a read spun on for seconds while the first thread waited here
 * leaves ThreadSanitizer no stack to report it with (the race went unreported). */
static int meet(const long *arrived) {
#ifdef HL_NO_MEETING
    (void)arrived;
    return 1;
#endif
    const halo_evidence *ev = EV;
    (void)ev_add(arrived, 1);
    double until = hl_now() + MEET_S;
    while (EV_GET(arrived) < EV_GET(&ev->parts)) {
        if (EV_GET(&ev->broken)) return 1; /* said */
        if (hl_now() > until) {
            EV_SET(&ev->broken, 1L);
            return 0;
        }
        hl_sleep_us(50);
    }
    return 1;
}

/* The CPU time a thread used since its copy_partition of this iteration ended, the kit's meeting
 * at its mark left out: before each of its MPI calls in the region, a "call_cpu" record says how
 * much (thread_comm.exercise.judge_pready). A thread that marks as soon as it has copied spends
 * microseconds there (its earlier marks); one that computes before a mark, for longer the higher
 * its number, hands its partitions over in turns with no wait the text or the meeting sees (a
 * busy loop before the marks of the second send, after the first send's met: A2's
 * l12_pready_busy, 30 ms apart, 4/4 kept, 2026-12-07). CPU time, not the clock: a thread the
 * machine takes away between its copy and its mark has used none. (Sealed: each thread's slot's
 * own_cpu, this iteration's, up to its own_since.) */
static void own_set(const thread_evidence *me, double cpu) {
    double own[2] = {cpu, hl_thread_cpu_now()}; /* own_cpu, own_since */
    ev_put(&me->own_cpu, own, sizeof own);
}

#ifdef HL_TRACE_MPI
/* Only a call of the region itself (level 1, where the copies are made) is the mark: a call in
 * a nested team of one thread (the same OS thread) let the meeting pass and the real marks
 * follow in turns, one barrier apart (a fresh attacker's Q12d_turns, 2026-12-05). */
static void at_student_call(void) { /* the first after its copy is its mark: the team meets */
    if (omp_get_level() != 1) return;
    const halo_evidence *ev = EV;
    const thread_evidence *me = slot_of();
    long iteration = EV_GET(&ev->iteration);
    if (EV_GET(&me->copied_in) != iteration) return;
    double now = hl_now();
    double own_cpu = EV_GET(&me->own_cpu) + hl_thread_cpu_now() - EV_GET(&me->own_since);
    char fields[160];
    snprintf(fields, sizeof fields,
             "\"record\":\"call_cpu\",\"iteration\":%ld,\"thread\":%d,\"cpu\":%.9f",
             iteration, omp_get_thread_num(), own_cpu);
    hl_trace_event(fields, now, now);
    if (EV_GET(&me->marked_in) != iteration) {
        EV_SET(&me->marked_in, iteration);
        if (!meet(&ev->marks_met)) (void)ev_add(&ev->marks_unmet, 1);
    }
    own_set(me, own_cpu);
}
#endif

void copy_partition(int t) {
    const halo_evidence *ev = EV;
    const thread_evidence *me = slot_of();
    grid2d *g = EV_GET(&ev->g);
    long iteration = EV_GET(&ev->iteration), parts = EV_GET(&ev->parts);
    int met = 1;
    if (EV_GET(&me->copied_in) != iteration) {
        EV_SET(&me->copied_in, iteration);
        met = meet(&ev->copies_met);
    }
    double t0 = hl_now();
    if (t >= 0 && t < parts) {
        long per = g->nx / parts, first = 1 + t * per;
        memcpy(&A(g, 1, first), &B(g, 1, first), (size_t)per * sizeof(double));
        memcpy(&A(g, g->m, first), &B(g, g->m, first), (size_t)per * sizeof(double));
    }
    EV_SET(&me->copies, EV_GET(&me->copies) + 1);
    long barriers = EV_GET(&me->barriers) + (hl_trace_loop_waits ? hl_trace_loop_waits() : 0);
    partition_copy made = {t0,      hl_now(),         iteration,     barriers,
                           omp_get_thread_num(), t, omp_get_level(), omp_get_num_threads(), met};
    char fields[256]; /* on the trace's stream now: a later store into the log changes nothing */
    snprintf(fields, sizeof fields,
             "\"record\":\"partition_copy\",\"iteration\":%ld,\"copier\":%d,\"partition\":%d,"
             "\"level\":%d,\"team\":%d,\"barriers\":%ld,\"met\":%d",
             made.iteration, made.thread, made.partition, made.level, made.team, made.barriers,
             met);
    if (!hl_trace_event(fields, made.start, made.end)) { /* no stream: the log */
        long slot;
#pragma omp atomic capture
        slot = copying.logged++;
        if (slot < EV_GET(&ev->size)) copying.log[slot] = made;
    }
    own_set(me, 0.0);
}

/* One "partition_copy" record per logged copy_partition call (times as the trace's), a
 * "partition_copies" record with the count of calls: the evidence of who copied what; and a
 * "halo_rows" record with the addresses of the grid's rows 0, 1, m and m + 1 at column 1 (the
 * buffers the partitioned set-ups must name, as the trace records them: "buffer"). */
static void emit_copies(hl_ctx *ctx) {
    const halo_evidence *ev = EV;
    const grid2d *g = EV_GET(&ev->g);
    emit_rows(ctx, g);
    double origin = hl_trace_origin_time();
    int streamed = hl_trace_streaming(); /* then each copy went to the stream as it was made */
    long count = 0, size = EV_GET(&ev->size); /* the calls made, every thread's */
    for (long i = 0; i < EV_GET(&ev->threads) && i < SLOTS; i++) count += EV_GET(&ev->slot[i].copies);
    long kept = streamed || count < size ? count : size;
    for (long i = 0; i < (streamed ? 0 : kept); i++) {
        const partition_copy *c = &copying.log[i];
        hl_emit(ctx, "\"record\":\"partition_copy\",\"iteration\":%ld,\"copier\":%d,"
                     "\"partition\":%d,\"start\":%.9f,\"end\":%.9f,\"level\":%d,"
                     "\"team\":%d,\"barriers\":%ld,\"met\":%d",
                c->iteration, c->thread, c->partition, c->start - origin, c->end - origin,
                c->level, c->team, c->barriers, c->met);
    }
    hl_emit(ctx, "\"record\":\"partition_copies\",\"calls\":%ld,\"kept\":%ld,\"marks_unmet\":%ld",
            count, kept, EV_GET(&ev->marks_unmet));
}

/* variant=pready: the student's partitioned requests (set up once), then per iteration the
 * sweep into b (every thread), the master (late on odd ranks by stagger_us) poisoning the halos
 * from a neighbour, the student's pready_iteration from the main thread outside any region, the
 * copy of rows 2..m-1 and the reduction. -1 (ctx->error set) when partitioned_init returned a
 * count outside 0..4. */
static int run_pready(hl_ctx *ctx, grid2d *g, int nthreads) {
    MPI_Request req[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    EV_SET(&EV->iteration, -2L); /* (before the first iteration: no copy is of it) */
#pragma omp parallel num_threads(nthreads)
    (void)slot_of(); /* the team's slots claimed before any student code (the Archer run: no
                        lock while the cell's region runs) */
    int n = partitioned_init(g->a, g->m, g->nx, g->up, g->down, nthreads, g->comm, req);
    grid2d_kept(g, "partitioned_init");
    if (n < 0 || n > 4) return hl_fail(ctx, "partitioned_init returned %d requests: 0 to 4", n);
    const halo_evidence *ev = EV;
    struct {
        grid2d *g;
        long parts, size;
    } set = {g, nthreads, 4 * nthreads * (g->iterations + 1)};
    ev_put(&ev->g, &set, sizeof set);
    copying.logged = 0;
    copying.log = malloc((size_t)set.size * sizeof *copying.log);
    if (!copying.log) return hl_fail(ctx, "out of memory for the copy log");
    hl_timers *master = &g->acc[0];
    double start = hl_now();
    for (long it = 0; it < g->iterations; it++) {
#pragma omp parallel num_threads(nthreads)
        {
            hl_timers *me = &g->acc[omp_get_thread_num()];
            hl_timers_iteration(me, 1, it);
            double t0 = hl_now(), local = 0.0;
#pragma omp for schedule(runtime)
            for (long i = 1; i <= g->m; i++) local += stencil_row(g, i);
            me->partial = local;
            hl_phase(me, HL_JACOBI, t0);
        }
        double h0 = hl_now();
        if (g->rank % 2 == 1) hl_sleep_us(g->stagger_us);
        poison_halos(g);
        long meeting[3] = {it, 0, 0}; /* the iteration; none arrived at its copies and marks */
        ev_put(&ev->iteration, meeting, sizeof meeting);
#ifdef HL_TRACE_MPI
        hl_trace_step(it); /* the student's marks carry their iteration, as the copies */
#endif
        pready_iteration(g->a, g->b, g->m, g->nx, nthreads, n, req);
        grid2d_kept(g, "pready_iteration");
        hl_phase(master, HL_HALO, h0);
        double t1 = hl_now();
#pragma omp parallel for num_threads(nthreads) schedule(static)
        for (long i = 2; i < g->m; i++) copy_row(g, i);
        hl_phase(master, HL_JACOBI, t1);
        reduce_delta(g, nthreads, master);
    }
    for (int t = 0; t < nthreads; t++) g->acc[t].t[HL_TOTAL] = hl_now() - start;
    for (int i = 0; i < n; i++)
        if (req[i] != MPI_REQUEST_NULL) MPI_Request_free(&req[i]);
    emit_copies(ctx);
    free(copying.log);
    return 0;
}
#endif

/* The level a variant needs, or -1 (the kernel already failed). */
static int require(hl_ctx *ctx, int variant) {
    static const char *const why[V_COUNT] = {
        "variant funneled calls MPI from the master inside the parallel region",
        "variant multiple: every thread exchanges its own slice at once",
        "variant tasks: the exchange runs in a task, on any thread",
        "variant partitioned: every thread calls MPI_Pready and MPI_Parrived",
        "variant pready: every thread calls MPI_Pready"};
    int level = variant == V_FUNNELED ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE;
    return hl_require_level(ctx, level, why[variant]) ? -1 : 0;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    int variant = hl_param_choice(ctx, "variant", variant_names, V_COUNT);
    if (variant < 0) return -1;
    long nx = hl_param_long(ctx, "nx", 1, &ok);
    long ny = hl_param_long(ctx, "ny", 1, &ok);
    long iterations = hl_param_long(ctx, "iterations", 0, &ok);
    long stagger_us = hl_param_long(ctx, "stagger_us", 0, &ok);
    if (!ok) return -1;
    long chunk = 0;
    const char *schedule = hl_param_schedule(ctx, &chunk);
    if (!schedule) return -1;
    if (stagger_us > 1000000L) return hl_fail(ctx, "parameter stagger_us=%ld is above 1 s", stagger_us);
    long keep = hl_param_timeline(ctx, iterations);
    if (keep < 0) return -1;
#ifndef HL_STUDENT_MULTIPLE
    if (variant == V_MULTIPLE)
        return hl_fail(ctx, "variant multiple needs the student's exchange_slice (lab 12, part a)");
#endif
#ifndef HL_STUDENT_TASKS
    if (variant == V_TASKS)
        return hl_fail(ctx, "variant tasks needs the student's task_iteration (lab 12, part b)");
#endif
#ifndef HL_STUDENT_PREADY
    if (variant == V_PREADY)
        return hl_fail(ctx, "variant pready needs the student's pready_iteration (lab 12, part d)");
#endif
#ifndef HL_HAVE_PARTITIONED
    if (variant == V_PARTITIONED || variant == V_PREADY) {
        if (ctx->rank == 0)
            hl_emit(ctx, "\"record\":\"skipped\",\"variant\":\"%s\",\"reason\":\"this MPI "
                         "library implements MPI %d.%d and has no partitioned communication "
                         "(MPI_Psend_init, MPI_Pready: MPI 4.0 and later, Open MPI 5)\"",
                    variant_names[variant], MPI_VERSION, MPI_SUBVERSION);
        return 0;
    }
#endif
    if (require(ctx, variant) != 0) return -1;
    int nthreads = omp_get_max_threads();
    if ((variant == V_PARTITIONED || variant == V_PREADY) && nx % nthreads != 0)
        return hl_fail(ctx, "variant %s: nx=%ld must be divisible by the %d threads "
                            "(a partition per thread, all of one size)", variant_names[variant],
                       nx, nthreads);

    grid2d g = {.stagger_us = stagger_us};
    int rc = grid2d_setup(ctx, &g, comm, nx, ny, iterations, nthreads, keep);
    if (rc != 0) goto done;
    long arrived = -1; /* partitioned: partitions already there before the master's MPI_Waitall */
    grid2d_keep(ctx, &g); /* the student's calls run on this stack (hl_grid2d.h) */
    MPI_Barrier(comm);
    const double origin = hl_now(); /* the timeline's common start */
    switch (variant) {
    case V_FUNNELED: run_exchange(&g, nthreads, V_FUNNELED, NULL); break;
#ifdef HL_STUDENT_MULTIPLE
    case V_MULTIPLE: run_multiple(&g, nthreads), emit_rows(ctx, &g); break;
#endif
#ifdef HL_STUDENT_TASKS
    case V_TASKS:
#ifdef HL_TRACE_MPI
        hl_trace_on_student_call(count_call); /* hold_for_exchange's count */
#endif
        run_poisoned(&g, nthreads, tasks_call);
        break;
#endif
#ifdef HL_HAVE_PARTITIONED
    case V_PARTITIONED: arrived = run_partitioned(&g, nthreads); break;
#endif
#if defined(HL_STUDENT_PREADY) && defined(HL_HAVE_PARTITIONED)
    case V_PREADY:
#ifdef HL_TRACE_MPI
        hl_trace_on_student_call(at_student_call);
#endif
        rc = run_pready(ctx, &g, nthreads);
        break;
#endif
    default: break;
    }
    char extra[384];
    snprintf(extra, sizeof extra,
             ",\"schedule\":\"%s\",\"chunk\":%ld,\"stagger_us\":%ld,\"arrived_early\":%ld,"
             "\"inline_rows\":%ld,\"inline_calls\":%ld,\"nested_rows\":%ld,"
             "\"edges_after_calls\":%ld,\"interior_after_calls\":%ld",
             schedule, chunk, stagger_us, arrived, hl_sealed_get(&GRID2D_EV->inline_rows),
             hl_sealed_get(&GRID2D_EV->inline_calls), hl_sealed_get(&GRID2D_EV->nested_rows),
             hl_sealed_get(&GRID2D_EV->edges_after_calls),
             hl_sealed_get(&GRID2D_EV->interior_after_calls));
    rc = grid2d_finish(ctx, &g, nthreads, ny, keep, origin, variant_names[variant], extra);
done:
    grid2d_free(&g, nthreads);
    return rc;
}
