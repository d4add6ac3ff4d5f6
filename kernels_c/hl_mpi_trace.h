/* hl_mpi_trace.h: records every MPI call a kernel makes, with the thread that made it.
 *
 * Not included by hand: hybridlab.build(name, trace_mpi=True) and build_source(..., trace_mpi=True)
 * compile the kernel with -DHL_TRACE_MPI -include hl_mpi_trace.h. This header first includes
 * hybridlab.h (so the kit's own MPI calls - hl_measure's barriers and reductions, the records'
 * gather - are compiled untraced and never count against the kernel), then defines a wrapper per
 * MPI function below and redirects the name to it (`#define MPI_Send hl_traced_MPI_Send`), the
 * profiling-interface idea of the MUST correctness checker done at compile time, so it works the
 * same in a library an engine loads with ctypes and in a program under mpiexec.
 *
 * Each wrapper takes the clock (CLOCK_MONOTONIC, one clock for all threads), calls the real
 * function, takes the clock again and keeps one entry: the call, start, end, OpenMP thread number,
 * whether it is MPI's main thread (MPI_Is_thread_main: the thread that initialised MPI), whether
 * it runs inside an active parallel region (omp_in_parallel), the nesting level, team size, the
 * OS thread id, its CPU and NUMA node, and how many other calls of the rank were inside MPI when
 * it began. Entries go to a per-rank buffer (a slot taken with an atomic counter) of
 * HL_TRACE_MAX_CALLS; the counters below stay exact beyond it.
 *
 * After hl_kernel returns, hl_run() emits one record per kept call:
 *   "record":"mpi_call","call":"MPI_Send","start":S,"end":E (seconds since the kernel began),
 *   "main":0|1,"in_parallel":0|1,"level":L,"team":N,"tid":T,"concurrent":K
 * (rank, thread, cpu and numa first, as every record) and one summary per rank:
 *   "record":"mpi_trace","calls":C,"kept":K,"not_main":A,"in_parallel":B,"concurrent":D
 * hybridlab.runs.records puts them in Results.mpi_calls and Results.meta["mpi_trace"];
 * hybridlab.runs.compliance judges them against a thread level.
 *
 * The names are redirected once: traced source cannot `#define MPI_Send MPI_Ssend` itself (a
 * redefinition); build it with flags=("-DHL_SYNCHRONOUS_SENDS",) instead.
 *
 * What judges a method, beside the thread of each call: whether the student's translation unit
 * made the call ("student": 1) or the kit's kernel; every Wait and Test call records whether
 * it completed ("done": 1 for Wait, the flag for Test, -1 for other calls); every collective
 * records its communicator's size and members as MPI_COMM_WORLD ranks ("comm_size", "comm":
 * "0,2"); every point-to-point call (sends, receives, their persistent and partitioned inits)
 * records its communicator's handle as MPI_Comm_c2f gives it ("comm_id", one value per
 * communicator of the rank: the same for two calls on one communicator, another for a duplicate),
 * its tag (the send tag of MPI_Sendrecv; MPI_ANY_TAG as the library defines it) and its count
 * of elements ("count"; -1, MPI_UNDEFINED and -1 for other calls); and the kit's helpers a student calls to compute (lab 04's stencil_rows, lab 03's
 * compute_step) record when they computed with hl_trace_compute(start, end), one
 * "record":"computed" interval per stretch of a thread's computing between its MPI calls.
 *
 * A whole program (its own main; built with -DHL_WHOLE_PROGRAM, hybridlab.slurm.jobs.build_program) has no
 * hl_run: MPI_Init_thread and MPI_Init are wrapped to start the trace and remember the level asked
 * for and the one provided (HL_PROVIDE_AT_MOST=<level> makes the program see at most that level,
 * as a library built with less thread support would give), and MPI_Finalize writes the trace of
 * each rank to $HL_TRACE_DIR/trace-<rank>.jsonl (a "meta" line, an "mpi_init" record, the calls
 * and the summary, as above) before it finalises. A rank that never finalises writes none.
 *
 * Student C is its own translation unit (built with -DHL_STUDENT_TU, hybridlab.runs.student_c): its
 * calls go to the same buffers as the kit kernel's it is linked with (hidden-visibility globals
 * defined in the kernel's translation unit), so one trace holds both.
 */
#ifndef HL_MPI_TRACE_H
#define HL_MPI_TRACE_H

#ifndef HL_TRACE_MPI
#error "hl_mpi_trace.h is included by build(..., trace_mpi=True), which also defines HL_TRACE_MPI"
#endif

#include "hybridlab.h"
#include <stdatomic.h>

#ifndef HL_TRACE_MAX_CALLS
#define HL_TRACE_MAX_CALLS 32768
#endif

#define HL_TRACE_COMM_CHARS 96 /* a collective's members, "0,1,2,...", cut with "+" beyond */
#ifndef HL_TRACE_MAX_COMPUTE
#define HL_TRACE_MAX_COMPUTE 32768
#endif
#define HL_TRACE_COMPUTE_GAP 20e-6 /* a thread's computing within this of its last: one interval */

typedef struct {
    const char *call;
    double start, end;
    long tid;
    int thread, main, in_parallel, level, team, cpu, numa, concurrent, done, comm_size, student;
    int comm_id, tag; /* point to point: MPI_Comm_c2f of its communicator, its tag */
    long count;       /* point to point: elements (of a partition, for partitioned calls) */
    char comm[HL_TRACE_COMM_CHARS];
} hl_trace_call;

typedef struct {
    double start, end;
    int thread, cpu, numa;
} hl_trace_interval;

/* One trace per rank, shared by the kernel's translation unit (which defines it) and the student's
 * (which only declares it); hidden: not seen by other libraries of the process. */
#ifdef HL_STUDENT_TU
#define HL_TRACE_SHARED extern __attribute__((visibility("hidden")))
#else
#define HL_TRACE_SHARED __attribute__((visibility("hidden")))
#endif
HL_TRACE_SHARED hl_trace_call hl_trace_calls[HL_TRACE_MAX_CALLS];
HL_TRACE_SHARED atomic_long hl_trace_count;      /* calls made (kept: the first MAX_CALLS) */
HL_TRACE_SHARED atomic_long hl_trace_not_main;   /* calls from a thread other than MPI's main */
HL_TRACE_SHARED atomic_long hl_trace_parallel;   /* calls inside an active parallel region */
HL_TRACE_SHARED atomic_long hl_trace_overlapped; /* calls that began while another was in MPI */
HL_TRACE_SHARED atomic_int hl_trace_active;      /* calls inside MPI right now */
HL_TRACE_SHARED double hl_trace_origin;
HL_TRACE_SHARED hl_trace_interval hl_trace_intervals[HL_TRACE_MAX_COMPUTE];
HL_TRACE_SHARED atomic_long hl_trace_interval_count;
static _Thread_local long hl_trace_tid; /* the calling thread's OS id, asked once per thread */
HL_TRACE_SHARED _Thread_local long hl_trace_open_interval; /* 1 + this thread's open interval */

#ifndef HL_STUDENT_TU
static void hl_trace_reset(void) {
    atomic_store(&hl_trace_interval_count, 0);
    atomic_store(&hl_trace_count, 0);
    atomic_store(&hl_trace_not_main, 0);
    atomic_store(&hl_trace_parallel, 0);
    atomic_store(&hl_trace_overlapped, 0);
    atomic_store(&hl_trace_active, 0);
    hl_trace_origin = hl_now();
}
#endif

static inline void hl_trace_begin(hl_trace_call *c, const char *call) {
    c->call = call;
    c->thread = omp_get_thread_num();
    c->in_parallel = omp_in_parallel();
    c->level = omp_get_level();
    c->team = omp_get_num_threads();
    if (!hl_trace_tid) hl_trace_tid = (long)syscall(SYS_gettid);
    c->tid = hl_trace_tid;
    c->main = 0;
    MPI_Is_thread_main(&c->main);
    hl_where(&c->cpu, &c->numa);
    c->done = -1;
    c->comm_size = 0;
    c->comm_id = -1;
    c->tag = MPI_UNDEFINED;
    c->count = -1;
#ifdef HL_STUDENT_TU
    c->student = 1; /* made by the student's code, not the kernel's */
#else
    c->student = 0;
#endif
    c->comm[0] = '\0';
    hl_trace_open_interval = 0; /* the thread's next computing is a new interval */
    c->concurrent = atomic_fetch_add(&hl_trace_active, 1);
    c->start = hl_now();
}

/* The communicator of a collective: its size and members as MPI_COMM_WORLD ranks. */
static inline void hl_trace_comm(hl_trace_call *c, MPI_Comm comm) {
    int n = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &n) != MPI_SUCCESS) return;
    c->comm_size = n;
    MPI_Group group, world;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        int w = MPI_UNDEFINED;
        MPI_Group_translate_ranks(group, 1, &i, world, &w);
        int k = snprintf(c->comm + used, sizeof c->comm - used, "%s%d", i ? "," : "", w);
        if (k < 0 || used + (size_t)k >= sizeof c->comm - 2) {
            snprintf(c->comm + used, sizeof c->comm - used, "+");
            break;
        }
        used += (size_t)k;
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
}

/* A kit helper computed from `start` to `end` (hl_now()) on the calling thread: extends the
 * thread's open interval when it follows closely with no MPI call between, else starts one. */
static inline void hl_trace_compute(double start, double end) {
    long open = hl_trace_open_interval - 1;
    if (open >= 0 && start - hl_trace_intervals[open].end < HL_TRACE_COMPUTE_GAP) {
        hl_trace_intervals[open].end = end;
        return;
    }
    long slot = atomic_fetch_add(&hl_trace_interval_count, 1);
    if (slot >= HL_TRACE_MAX_COMPUTE) return;
    hl_trace_interval *v = &hl_trace_intervals[slot];
    v->start = start;
    v->end = end;
    v->thread = omp_get_thread_num();
    hl_where(&v->cpu, &v->numa);
    hl_trace_open_interval = slot + 1;
}

/* Keep the call, ended at `end`. */
static inline void hl_trace_keep(hl_trace_call *c, double end) {
    c->end = end;
    atomic_fetch_sub(&hl_trace_active, 1);
    if (!c->main) atomic_fetch_add(&hl_trace_not_main, 1);
    if (c->in_parallel) atomic_fetch_add(&hl_trace_parallel, 1);
    if (c->concurrent) atomic_fetch_add(&hl_trace_overlapped, 1);
    long slot = atomic_fetch_add(&hl_trace_count, 1);
    if (slot < HL_TRACE_MAX_CALLS) hl_trace_calls[slot] = *c;
}

static inline void hl_trace_end(hl_trace_call *c) { hl_trace_keep(c, hl_now()); }

/* A collective's end: its communicator read after the call's end is taken (not its cost). */
static inline void hl_trace_end_comm(hl_trace_call *c, MPI_Comm comm) {
    double end = hl_now();
    hl_trace_comm(c, comm);
    hl_trace_keep(c, end);
}

#ifndef HL_STUDENT_TU
static void hl_trace_emit(hl_ctx *ctx) {
    long calls = atomic_load(&hl_trace_count);
    long kept = calls < HL_TRACE_MAX_CALLS ? calls : HL_TRACE_MAX_CALLS;
    char line[640];
    for (long i = 0; i < kept; i++) {
        const hl_trace_call *c = &hl_trace_calls[i];
        int n = snprintf(line, sizeof line,
                         "{\"rank\":%d,\"thread\":%d,\"cpu\":%d,\"numa\":%d,\"record\":\"mpi_call\","
                         "\"call\":\"%s\",\"start\":%.9f,\"end\":%.9f,\"main\":%d,"
                         "\"in_parallel\":%d,\"level\":%d,\"team\":%d,\"tid\":%ld,"
                         "\"concurrent\":%d,\"done\":%d,\"comm_size\":%d,\"comm\":\"%s\","
                         "\"student\":%d,\"comm_id\":%d,\"tag\":%d,\"count\":%ld}\n",
                         ctx->rank, c->thread, c->cpu, c->numa, c->call ? c->call : "?",
                         c->start - hl_trace_origin, c->end - hl_trace_origin, c->main,
                         c->in_parallel, c->level, c->team, c->tid, c->concurrent, c->done,
                         c->comm_size, c->comm, c->student, c->comm_id, c->tag, c->count);
        hl_append(ctx, line, (size_t)n);
    }
    long intervals = atomic_load(&hl_trace_interval_count);
    if (intervals > HL_TRACE_MAX_COMPUTE) intervals = HL_TRACE_MAX_COMPUTE;
    for (long i = 0; i < intervals; i++) {
        const hl_trace_interval *v = &hl_trace_intervals[i];
        int n = snprintf(line, sizeof line,
                         "{\"rank\":%d,\"thread\":%d,\"cpu\":%d,\"numa\":%d,\"record\":\"computed\","
                         "\"start\":%.9f,\"end\":%.9f}\n",
                         ctx->rank, v->thread, v->cpu, v->numa, v->start - hl_trace_origin,
                         v->end - hl_trace_origin);
        hl_append(ctx, line, (size_t)n);
    }
    int cpu, numa;
    hl_where(&cpu, &numa);
    int n = snprintf(line, sizeof line,
                     "{\"rank\":%d,\"thread\":%d,\"cpu\":%d,\"numa\":%d,\"record\":\"mpi_trace\","
                     "\"calls\":%ld,\"kept\":%ld,\"not_main\":%ld,\"in_parallel\":%ld,"
                     "\"concurrent\":%ld}\n",
                     ctx->rank, omp_get_thread_num(), cpu, numa, calls, kept,
                     atomic_load(&hl_trace_not_main), atomic_load(&hl_trace_parallel),
                     atomic_load(&hl_trace_overlapped));
    hl_append(ctx, line, (size_t)n);
}
#endif

/* A wrapper that records `name` and calls `real` between hl_trace_begin and hl_trace_end. */
#define HL_TRACED_AS(wrapper, name, real, params, args)                                           \
    static inline int wrapper params {                                                            \
        hl_trace_call c_;                                                                         \
        hl_trace_begin(&c_, name);                                                                \
        int rc_ = real args;                                                                      \
        hl_trace_end(&c_);                                                                        \
        return rc_;                                                                               \
    }

/* The same, keeping whether the call completed what it waited for or tested (`flag`, an expression
 * of the arguments read after the call). */
#define HL_TRACED_DONE(name, params, args, flag)                                                  \
    static inline int hl_traced_MPI_##name params {                                               \
        hl_trace_call c_;                                                                         \
        hl_trace_begin(&c_, "MPI_" #name);                                                        \
        int rc_ = MPI_##name args;                                                                \
        c_.done = (flag);                                                                         \
        hl_trace_end(&c_);                                                                        \
        return rc_;                                                                               \
    }

/* The same for a collective, keeping its communicator `comm` (a parameter's name). */
#define HL_TRACED_COMM(name, params, args, comm)                                                  \
    static inline int hl_traced_MPI_##name params {                                               \
        hl_trace_call c_;                                                                         \
        hl_trace_begin(&c_, "MPI_" #name);                                                        \
        int rc_ = MPI_##name args;                                                                \
        hl_trace_end_comm(&c_, comm);                                                             \
        return rc_;                                                                               \
    }

/* The same for a point-to-point call, keeping its communicator's handle, tag and count (expressions
 * of the parameters). */
#define HL_TRACED_P2P_AS(wrapper, name, real, params, args, comm, tag_, count_)                   \
    static inline int wrapper params {                                                            \
        hl_trace_call c_;                                                                         \
        hl_trace_begin(&c_, name);                                                                \
        int rc_ = real args;                                                                      \
        c_.comm_id = (int)MPI_Comm_c2f(comm);                                                     \
        c_.tag = (tag_);                                                                          \
        c_.count = (long)(count_);                                                                \
        hl_trace_end(&c_);                                                                        \
        return rc_;                                                                               \
    }
#define HL_TRACED_P2P(name, params, args, comm, tag_, count_)                                     \
    HL_TRACED_P2P_AS(hl_traced_MPI_##name, "MPI_" #name, MPI_##name, params, args, comm, tag_,    \
                     count_)

/* One wrapper per traced function: hl_traced_MPI_Send records "MPI_Send" and calls MPI_Send. */
#define HL_TRACED(name, params, args)                                                             \
    HL_TRACED_AS(hl_traced_MPI_##name, "MPI_" #name, MPI_##name, params, args)

/* point to point */
HL_TRACED_P2P(Send, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c),
              c, g, n)
HL_TRACED_P2P(Ssend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c),
              c, g, n)
HL_TRACED_P2P(Bsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c),
              c, g, n)
HL_TRACED_P2P(Rsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c),
              c, g, n)
HL_TRACED_P2P(Recv, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Status *st),
              (b, n, t, s, g, c, st), c, g, n)
HL_TRACED_P2P(Isend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
              (b, n, t, d, g, c, r), c, g, n)
HL_TRACED_P2P(Issend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
              (b, n, t, d, g, c, r), c, g, n)
HL_TRACED_P2P(Ibsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
              (b, n, t, d, g, c, r), c, g, n)
HL_TRACED_P2P(Irsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
              (b, n, t, d, g, c, r), c, g, n)
HL_TRACED_P2P(Irecv, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *r),
              (b, n, t, s, g, c, r), c, g, n)
HL_TRACED_P2P(Sendrecv,
              (const void *sb, int sn, MPI_Datatype st, int d, int sg, void *rb, int rn,
               MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Status *status),
              (sb, sn, st, d, sg, rb, rn, rt, s, rg, c, status), c, sg, sn)
HL_TRACED_P2P(Sendrecv_replace,
              (void *b, int n, MPI_Datatype t, int d, int sg, int s, int rg, MPI_Comm c,
               MPI_Status *status),
              (b, n, t, d, sg, s, rg, c, status), c, sg, n)
HL_TRACED_DONE(Wait, (MPI_Request *r, MPI_Status *st), (r, st), 1)
HL_TRACED_DONE(Waitall, (int n, MPI_Request r[], MPI_Status *st), (n, r, st), 1)
HL_TRACED_DONE(Waitany, (int n, MPI_Request r[], int *i, MPI_Status *st), (n, r, i, st), 1)
HL_TRACED_DONE(Waitsome, (int n, MPI_Request r[], int *k, int i[], MPI_Status *st), (n, r, k, i, st), 1)
HL_TRACED_DONE(Test, (MPI_Request *r, int *f, MPI_Status *st), (r, f, st), *f)
HL_TRACED_DONE(Testall, (int n, MPI_Request r[], int *f, MPI_Status *st), (n, r, f, st), *f)
HL_TRACED_DONE(Testany, (int n, MPI_Request r[], int *i, int *f, MPI_Status *st), (n, r, i, f, st), *f)
HL_TRACED_DONE(Testsome, (int n, MPI_Request r[], int *k, int i[], MPI_Status *st), (n, r, k, i, st), (*k != MPI_UNDEFINED && *k > 0))
HL_TRACED(Probe, (int s, int g, MPI_Comm c, MPI_Status *st), (s, g, c, st))
HL_TRACED(Iprobe, (int s, int g, MPI_Comm c, int *f, MPI_Status *st), (s, g, c, f, st))
HL_TRACED(Get_count, (const MPI_Status *st, MPI_Datatype t, int *n), (st, t, n))
HL_TRACED(Request_free, (MPI_Request *r), (r))

/* -DHL_SYNCHRONOUS_SENDS: MPI_Send and MPI_Isend, still recorded as themselves, are made an
 * MPI_Ssend and an MPI_Issend (a request that completes only once the receive matched), so that an
 * ordering that is only safe while MPI buffers the message deadlocks for certain (what lab 04's
 * exercise does untraced with `#define MPI_Send MPI_Ssend`, which cannot redefine the name here) */
HL_TRACED_P2P_AS(hl_traced_MPI_Send_synchronous, "MPI_Send", MPI_Ssend,
                 (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c),
                 (b, n, t, d, g, c), c, g, n)
HL_TRACED_P2P_AS(hl_traced_MPI_Isend_synchronous, "MPI_Isend", MPI_Issend,
                 (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
                 (b, n, t, d, g, c, r), c, g, n)

/* collectives */
HL_TRACED_COMM(Barrier, (MPI_Comm c), (c), c)
HL_TRACED_COMM(Ibarrier, (MPI_Comm c, MPI_Request *r), (c, r), c)
HL_TRACED_COMM(Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c), c)
HL_TRACED_COMM(Ibcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r),
          (b, n, t, root, c, r), c)
HL_TRACED_COMM(Reduce,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),
          (sb, rb, n, t, op, root, c), c)
HL_TRACED_COMM(Allreduce, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c), c)
HL_TRACED_COMM(Iallreduce,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c,
           MPI_Request *r),
          (sb, rb, n, t, op, c, r), c)
HL_TRACED_COMM(Scan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c), c)
HL_TRACED_COMM(Exscan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c), c)
HL_TRACED_COMM(Reduce_scatter_block,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c), c)
HL_TRACED_COMM(Alltoall,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c), c)
HL_TRACED_COMM(Ialltoall,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c,
           MPI_Request *r),
          (sb, sn, st, rb, rn, rt, c, r), c)
HL_TRACED_COMM(Alltoallv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
           const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rd, rt, c), c)
HL_TRACED_COMM(Allgather,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c), c)
HL_TRACED_COMM(Allgatherv,
          (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int rd[],
           MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rd, rt, c), c)
HL_TRACED_COMM(Gather,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
           MPI_Comm c),
          (sb, sn, st, rb, rn, rt, root, c), c)
HL_TRACED_COMM(Gatherv,
          (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int rd[],
           MPI_Datatype rt, int root, MPI_Comm c),
          (sb, sn, st, rb, rn, rd, rt, root, c), c)
HL_TRACED_COMM(Scatter,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
           MPI_Comm c),
          (sb, sn, st, rb, rn, rt, root, c), c)
HL_TRACED_COMM(Scatterv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb, int rn,
           MPI_Datatype rt, int root, MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rt, root, c), c)

/* communicators, topologies and datatypes */
HL_TRACED(Comm_rank, (MPI_Comm c, int *r), (c, r))
HL_TRACED(Comm_size, (MPI_Comm c, int *n), (c, n))
HL_TRACED(Comm_split, (MPI_Comm c, int colour, int key, MPI_Comm *out), (c, colour, key, out))
HL_TRACED(Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm *out),
          (c, type, key, info, out))
HL_TRACED(Comm_dup, (MPI_Comm c, MPI_Comm *out), (c, out))
HL_TRACED(Comm_free, (MPI_Comm *c), (c))
HL_TRACED(Cart_create,
          (MPI_Comm c, int nd, const int dims[], const int periods[], int reorder, MPI_Comm *out),
          (c, nd, dims, periods, reorder, out))
HL_TRACED(Cart_shift, (MPI_Comm c, int dir, int disp, int *s, int *d), (c, dir, disp, s, d))
HL_TRACED(Cart_coords, (MPI_Comm c, int r, int nd, int coords[]), (c, r, nd, coords))
HL_TRACED(Type_contiguous, (int n, MPI_Datatype t, MPI_Datatype *out), (n, t, out))
HL_TRACED(Type_vector, (int n, int len, int stride, MPI_Datatype t, MPI_Datatype *out),
          (n, len, stride, t, out))
HL_TRACED(Type_commit, (MPI_Datatype *t), (t))
HL_TRACED(Type_free, (MPI_Datatype *t), (t))
HL_TRACED(Dims_create, (int n, int nd, int dims[]), (n, nd, dims))
HL_TRACED(Cart_rank, (MPI_Comm c, const int coords[], int *r), (c, coords, r))
HL_TRACED(Dist_graph_create_adjacent,
          (MPI_Comm c, int ni, const int srcs[], const int sw[], int no, const int dsts[],
           const int dw[], MPI_Info info, int reorder, MPI_Comm *out),
          (c, ni, srcs, sw, no, dsts, dw, info, reorder, out))
HL_TRACED(Comm_group, (MPI_Comm c, MPI_Group *g), (c, g))
HL_TRACED(Group_translate_ranks, (MPI_Group a, int n, const int ra[], MPI_Group b, int rb[]),
          (a, n, ra, b, rb))
HL_TRACED(Group_free, (MPI_Group *g), (g))
HL_TRACED(Query_thread, (int *level), (level))

/* persistent and MPI-4 partitioned point to point (MPICH 4+, Open MPI 5) */
HL_TRACED_P2P(Send_init,
              (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
              (b, n, t, d, g, c, r), c, g, n)
HL_TRACED_P2P(Recv_init, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *r),
              (b, n, t, s, g, c, r), c, g, n)
HL_TRACED(Start, (MPI_Request *r), (r))
HL_TRACED(Startall, (int n, MPI_Request r[]), (n, r))
/* MPI-4 partitioned calls, where the library has them (Open MPI 5's mpi.h says 3.1 but has
 * them): a traced build against an MPI without them still compiles */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define HL_TRACE_PARTITIONED 1
HL_TRACED_P2P(Psend_init,
              (const void *b, int parts, MPI_Count n, MPI_Datatype t, int d, int g, MPI_Comm c,
               MPI_Info info, MPI_Request *r),
              (b, parts, n, t, d, g, c, info, r), c, g, n)
HL_TRACED_P2P(Precv_init,
              (void *b, int parts, MPI_Count n, MPI_Datatype t, int s, int g, MPI_Comm c,
               MPI_Info info, MPI_Request *r),
              (b, parts, n, t, s, g, c, info, r), c, g, n)
HL_TRACED(Pready, (int part, MPI_Request r), (part, r))
HL_TRACED(Pready_range, (int low, int high, MPI_Request r), (low, high, r))
HL_TRACED_DONE(Parrived, (MPI_Request r, int part, int *f), (r, part, f), *f)
#endif

/* neighbourhood collectives (on a Cartesian or graph communicator: its members are recorded) */
HL_TRACED_COMM(Neighbor_alltoall,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c), c)
HL_TRACED_COMM(Neighbor_alltoallv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
           const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rd, rt, c), c)
HL_TRACED_COMM(Neighbor_alltoallw,
          (const void *sb, const int sn[], const MPI_Aint sd[], const MPI_Datatype st[], void *rb,
           const int rn[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rd, rt, c), c)
HL_TRACED_COMM(Ineighbor_alltoallv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
           const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c, MPI_Request *r),
          (sb, sn, sd, st, rb, rn, rd, rt, c, r), c)
HL_TRACED_COMM(Neighbor_allgather,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c), c)

/* MPI-3 shared memory windows (MPI+MPI): the allocation is a collective on its communicator */
HL_TRACED_COMM(Win_allocate_shared,
          (MPI_Aint size, int unit, MPI_Info info, MPI_Comm c, void *base, MPI_Win *w),
          (size, unit, info, c, base, w), c)
HL_TRACED(Win_shared_query, (MPI_Win w, int r, MPI_Aint *size, int *unit, void *base),
          (w, r, size, unit, base))
HL_TRACED(Win_fence, (int a, MPI_Win w), (a, w))
HL_TRACED(Win_sync, (MPI_Win w), (w))
HL_TRACED(Win_lock_all, (int a, MPI_Win w), (a, w))
HL_TRACED(Win_unlock_all, (MPI_Win w), (w))
HL_TRACED(Win_free, (MPI_Win *w), (w))

/* MPI_Abort ends the process without flushing stdio: a reason printed with printf just before
 * would be lost ("exited with status 255" and nothing else), so the buffers are flushed first. */
HL_TRACED_AS(hl_traced_MPI_Abort_unflushed, "MPI_Abort", MPI_Abort, (MPI_Comm c, int code), (c, code))
static inline int hl_traced_MPI_Abort(MPI_Comm c, int code) {
    fflush(stdout);
    fflush(stderr);
    return hl_traced_MPI_Abort_unflushed(c, code);
}

#ifdef HL_SYNCHRONOUS_SENDS /* a standard send waits for its receive, as the standard allows */
#define MPI_Send hl_traced_MPI_Send_synchronous
#define MPI_Isend hl_traced_MPI_Isend_synchronous
#else
#define MPI_Send hl_traced_MPI_Send
#define MPI_Isend hl_traced_MPI_Isend
#endif
#define MPI_Ssend hl_traced_MPI_Ssend
#define MPI_Bsend hl_traced_MPI_Bsend
#define MPI_Rsend hl_traced_MPI_Rsend
#define MPI_Recv hl_traced_MPI_Recv
#define MPI_Issend hl_traced_MPI_Issend
#define MPI_Ibsend hl_traced_MPI_Ibsend
#define MPI_Irsend hl_traced_MPI_Irsend
#define MPI_Irecv hl_traced_MPI_Irecv
#define MPI_Sendrecv hl_traced_MPI_Sendrecv
#define MPI_Sendrecv_replace hl_traced_MPI_Sendrecv_replace
#define MPI_Wait hl_traced_MPI_Wait
#define MPI_Waitall hl_traced_MPI_Waitall
#define MPI_Waitany hl_traced_MPI_Waitany
#define MPI_Waitsome hl_traced_MPI_Waitsome
#define MPI_Test hl_traced_MPI_Test
#define MPI_Testall hl_traced_MPI_Testall
#define MPI_Testany hl_traced_MPI_Testany
#define MPI_Testsome hl_traced_MPI_Testsome
#define MPI_Probe hl_traced_MPI_Probe
#define MPI_Iprobe hl_traced_MPI_Iprobe
#define MPI_Get_count hl_traced_MPI_Get_count
#define MPI_Request_free hl_traced_MPI_Request_free
#define MPI_Barrier hl_traced_MPI_Barrier
#define MPI_Ibarrier hl_traced_MPI_Ibarrier
#define MPI_Bcast hl_traced_MPI_Bcast
#define MPI_Ibcast hl_traced_MPI_Ibcast
#define MPI_Reduce hl_traced_MPI_Reduce
#define MPI_Allreduce hl_traced_MPI_Allreduce
#define MPI_Iallreduce hl_traced_MPI_Iallreduce
#define MPI_Scan hl_traced_MPI_Scan
#define MPI_Exscan hl_traced_MPI_Exscan
#define MPI_Reduce_scatter_block hl_traced_MPI_Reduce_scatter_block
#define MPI_Alltoall hl_traced_MPI_Alltoall
#define MPI_Ialltoall hl_traced_MPI_Ialltoall
#define MPI_Alltoallv hl_traced_MPI_Alltoallv
#define MPI_Allgather hl_traced_MPI_Allgather
#define MPI_Allgatherv hl_traced_MPI_Allgatherv
#define MPI_Gather hl_traced_MPI_Gather
#define MPI_Gatherv hl_traced_MPI_Gatherv
#define MPI_Scatter hl_traced_MPI_Scatter
#define MPI_Scatterv hl_traced_MPI_Scatterv
#define MPI_Comm_rank hl_traced_MPI_Comm_rank
#define MPI_Comm_size hl_traced_MPI_Comm_size
#define MPI_Comm_split hl_traced_MPI_Comm_split
#define MPI_Comm_split_type hl_traced_MPI_Comm_split_type
#define MPI_Comm_dup hl_traced_MPI_Comm_dup
#define MPI_Comm_free hl_traced_MPI_Comm_free
#define MPI_Cart_create hl_traced_MPI_Cart_create
#define MPI_Cart_shift hl_traced_MPI_Cart_shift
#define MPI_Cart_coords hl_traced_MPI_Cart_coords
#define MPI_Type_contiguous hl_traced_MPI_Type_contiguous
#define MPI_Type_vector hl_traced_MPI_Type_vector
#define MPI_Type_commit hl_traced_MPI_Type_commit
#define MPI_Type_free hl_traced_MPI_Type_free
#define MPI_Dims_create hl_traced_MPI_Dims_create
#define MPI_Cart_rank hl_traced_MPI_Cart_rank
#define MPI_Dist_graph_create_adjacent hl_traced_MPI_Dist_graph_create_adjacent
#define MPI_Comm_group hl_traced_MPI_Comm_group
#define MPI_Group_translate_ranks hl_traced_MPI_Group_translate_ranks
#define MPI_Group_free hl_traced_MPI_Group_free
#define MPI_Query_thread hl_traced_MPI_Query_thread
#define MPI_Send_init hl_traced_MPI_Send_init
#define MPI_Recv_init hl_traced_MPI_Recv_init
#define MPI_Start hl_traced_MPI_Start
#define MPI_Startall hl_traced_MPI_Startall
#ifdef HL_TRACE_PARTITIONED
#define MPI_Psend_init hl_traced_MPI_Psend_init
#define MPI_Precv_init hl_traced_MPI_Precv_init
#define MPI_Pready hl_traced_MPI_Pready
#define MPI_Pready_range hl_traced_MPI_Pready_range
#define MPI_Parrived hl_traced_MPI_Parrived
#endif
#define MPI_Neighbor_alltoall hl_traced_MPI_Neighbor_alltoall
#define MPI_Neighbor_alltoallv hl_traced_MPI_Neighbor_alltoallv
#define MPI_Neighbor_alltoallw hl_traced_MPI_Neighbor_alltoallw
#define MPI_Ineighbor_alltoallv hl_traced_MPI_Ineighbor_alltoallv
#define MPI_Neighbor_allgather hl_traced_MPI_Neighbor_allgather
#define MPI_Win_allocate_shared hl_traced_MPI_Win_allocate_shared
#define MPI_Win_shared_query hl_traced_MPI_Win_shared_query
#define MPI_Win_fence hl_traced_MPI_Win_fence
#define MPI_Win_sync hl_traced_MPI_Win_sync
#define MPI_Win_lock_all hl_traced_MPI_Win_lock_all
#define MPI_Win_unlock_all hl_traced_MPI_Win_unlock_all
#define MPI_Win_free hl_traced_MPI_Win_free
#define MPI_Abort hl_traced_MPI_Abort

#ifdef HL_WHOLE_PROGRAM
/* ------------------------------------------------ a whole program: its own main (see above) */
static int hl_trace_required = -1, hl_trace_provided = -1;


/* HL_PROVIDE_AT_MOST=funneled: the program sees at most FUNNELED, whatever MPI gave */
static inline int hl_trace_capped(int provided) {
    const char *cap = getenv("HL_PROVIDE_AT_MOST");
    static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
    for (int i = 0; cap && i < 4; i++)
        if (!strcmp(cap, hl_level_name(levels[i])) && provided > levels[i]) return levels[i];
    return provided;
}

static inline int hl_traced_MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int rc = MPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) *provided = hl_trace_capped(*provided);
    hl_trace_required = required;
    hl_trace_provided = rc == MPI_SUCCESS ? *provided : -1;
    hl_trace_reset();
    return rc;
}

static inline int hl_traced_MPI_Init(int *argc, char ***argv) {
    int provided;
    return hl_traced_MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

static inline int hl_traced_MPI_Finalize(void) {
    const char *dir = getenv("HL_TRACE_DIR");
    if (dir && *dir) {
        hl_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        PMPI_Comm_rank(MPI_COMM_WORLD, &ctx.rank); /* untraced: not the program's calls */
        PMPI_Comm_size(MPI_COMM_WORLD, &ctx.size);
        char line[640], host[256] = "?";
        gethostname(host, sizeof host - 1);
        int cpu, numa;
        hl_where(&cpu, &numa);
        int n = snprintf(line, sizeof line,
                         "{\"meta\":true,\"rank\":%d,\"size\":%d,\"host\":\"%s\","
                         "\"thread_level\":\"%s\"}\n"
                         "{\"rank\":%d,\"thread\":0,\"cpu\":%d,\"numa\":%d,\"record\":\"mpi_init\","
                         "\"required\":\"%s\",\"provided\":\"%s\"}\n",
                         ctx.rank, ctx.size, host, hl_level_name(hl_trace_provided), ctx.rank,
                         cpu, numa, hl_level_name(hl_trace_required),
                         hl_level_name(hl_trace_provided));
        hl_append(&ctx, line, (size_t)n);
        hl_trace_emit(&ctx);
        char path[4096];
        snprintf(path, sizeof path, "%s/trace-%d.jsonl", dir, ctx.rank);
        FILE *f = fopen(path, "w");
        if (f) {
            if (ctx.out) fwrite(ctx.out, 1, ctx.len, f);
            fclose(f);
        }
        free(ctx.out);
    }
    return MPI_Finalize();
}
#define MPI_Init_thread hl_traced_MPI_Init_thread
#define MPI_Init hl_traced_MPI_Init
#define MPI_Finalize hl_traced_MPI_Finalize
#endif /* HL_WHOLE_PROGRAM */

#endif /* HL_MPI_TRACE_H */
