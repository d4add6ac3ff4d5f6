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
 * hybridlab.records puts them in Results.mpi_calls and Results.meta["mpi_trace"];
 * hybridlab.compliance judges them against a thread level.
 *
 * The names are redirected once: traced source cannot `#define MPI_Send MPI_Ssend` itself (a
 * redefinition); build it with flags=("-DHL_SYNCHRONOUS_SENDS",) instead.
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

typedef struct {
    const char *call;
    double start, end;
    long tid;
    int thread, main, in_parallel, level, team, cpu, numa, concurrent;
} hl_trace_call;

static hl_trace_call hl_trace_calls[HL_TRACE_MAX_CALLS];
static atomic_long hl_trace_count;      /* calls made (kept: the first HL_TRACE_MAX_CALLS) */
static atomic_long hl_trace_not_main;   /* calls from a thread other than MPI's main thread */
static atomic_long hl_trace_parallel;   /* calls inside an active parallel region */
static atomic_long hl_trace_overlapped; /* calls that began while another was inside MPI */
static atomic_int hl_trace_active;      /* calls inside MPI right now */
static double hl_trace_origin;
static _Thread_local long hl_trace_tid; /* the calling thread's OS id, asked once per thread */

static void hl_trace_reset(void) {
    atomic_store(&hl_trace_count, 0);
    atomic_store(&hl_trace_not_main, 0);
    atomic_store(&hl_trace_parallel, 0);
    atomic_store(&hl_trace_overlapped, 0);
    atomic_store(&hl_trace_active, 0);
    hl_trace_origin = hl_now();
}

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
    c->concurrent = atomic_fetch_add(&hl_trace_active, 1);
    c->start = hl_now();
}

static inline void hl_trace_end(hl_trace_call *c) {
    c->end = hl_now();
    atomic_fetch_sub(&hl_trace_active, 1);
    if (!c->main) atomic_fetch_add(&hl_trace_not_main, 1);
    if (c->in_parallel) atomic_fetch_add(&hl_trace_parallel, 1);
    if (c->concurrent) atomic_fetch_add(&hl_trace_overlapped, 1);
    long slot = atomic_fetch_add(&hl_trace_count, 1);
    if (slot < HL_TRACE_MAX_CALLS) hl_trace_calls[slot] = *c;
}

static void hl_trace_emit(hl_ctx *ctx) {
    long calls = atomic_load(&hl_trace_count);
    long kept = calls < HL_TRACE_MAX_CALLS ? calls : HL_TRACE_MAX_CALLS;
    char line[512];
    for (long i = 0; i < kept; i++) {
        const hl_trace_call *c = &hl_trace_calls[i];
        int n = snprintf(line, sizeof line,
                         "{\"rank\":%d,\"thread\":%d,\"cpu\":%d,\"numa\":%d,\"record\":\"mpi_call\","
                         "\"call\":\"%s\",\"start\":%.9f,\"end\":%.9f,\"main\":%d,"
                         "\"in_parallel\":%d,\"level\":%d,\"team\":%d,\"tid\":%ld,"
                         "\"concurrent\":%d}\n",
                         ctx->rank, c->thread, c->cpu, c->numa, c->call ? c->call : "?",
                         c->start - hl_trace_origin, c->end - hl_trace_origin, c->main,
                         c->in_parallel, c->level, c->team, c->tid, c->concurrent);
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

/* A wrapper that records `name` and calls `real` between hl_trace_begin and hl_trace_end. */
#define HL_TRACED_AS(wrapper, name, real, params, args)                                           \
    static inline int wrapper params {                                                            \
        hl_trace_call c_;                                                                         \
        hl_trace_begin(&c_, name);                                                                \
        int rc_ = real args;                                                                      \
        hl_trace_end(&c_);                                                                        \
        return rc_;                                                                               \
    }

/* One wrapper per traced function: hl_traced_MPI_Send records "MPI_Send" and calls MPI_Send. */
#define HL_TRACED(name, params, args)                                                             \
    HL_TRACED_AS(hl_traced_MPI_##name, "MPI_" #name, MPI_##name, params, args)

/* point to point */
HL_TRACED(Send, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c))
HL_TRACED(Ssend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c))
HL_TRACED(Bsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c))
HL_TRACED(Rsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c))
HL_TRACED(Recv, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Status *st),
          (b, n, t, s, g, c, st))
HL_TRACED(Isend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
          (b, n, t, d, g, c, r))
HL_TRACED(Issend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
          (b, n, t, d, g, c, r))
HL_TRACED(Ibsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
          (b, n, t, d, g, c, r))
HL_TRACED(Irsend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
          (b, n, t, d, g, c, r))
HL_TRACED(Irecv, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *r),
          (b, n, t, s, g, c, r))
HL_TRACED(Sendrecv,
          (const void *sb, int sn, MPI_Datatype st, int d, int sg, void *rb, int rn,
           MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Status *status),
          (sb, sn, st, d, sg, rb, rn, rt, s, rg, c, status))
HL_TRACED(Sendrecv_replace,
          (void *b, int n, MPI_Datatype t, int d, int sg, int s, int rg, MPI_Comm c,
           MPI_Status *status),
          (b, n, t, d, sg, s, rg, c, status))
HL_TRACED(Wait, (MPI_Request *r, MPI_Status *st), (r, st))
HL_TRACED(Waitall, (int n, MPI_Request r[], MPI_Status *st), (n, r, st))
HL_TRACED(Waitany, (int n, MPI_Request r[], int *i, MPI_Status *st), (n, r, i, st))
HL_TRACED(Waitsome, (int n, MPI_Request r[], int *k, int i[], MPI_Status *st), (n, r, k, i, st))
HL_TRACED(Test, (MPI_Request *r, int *f, MPI_Status *st), (r, f, st))
HL_TRACED(Testall, (int n, MPI_Request r[], int *f, MPI_Status *st), (n, r, f, st))
HL_TRACED(Testany, (int n, MPI_Request r[], int *i, int *f, MPI_Status *st), (n, r, i, f, st))
HL_TRACED(Testsome, (int n, MPI_Request r[], int *k, int i[], MPI_Status *st), (n, r, k, i, st))
HL_TRACED(Probe, (int s, int g, MPI_Comm c, MPI_Status *st), (s, g, c, st))
HL_TRACED(Iprobe, (int s, int g, MPI_Comm c, int *f, MPI_Status *st), (s, g, c, f, st))
HL_TRACED(Get_count, (const MPI_Status *st, MPI_Datatype t, int *n), (st, t, n))
HL_TRACED(Request_free, (MPI_Request *r), (r))

/* -DHL_SYNCHRONOUS_SENDS: MPI_Send, still recorded as MPI_Send, is made an MPI_Ssend, so that an
 * ordering that is only safe while MPI buffers the message deadlocks for certain (what lab 04's
 * exercise does untraced with `#define MPI_Send MPI_Ssend`, which cannot redefine the name here) */
HL_TRACED_AS(hl_traced_MPI_Send_synchronous, "MPI_Send", MPI_Ssend,
             (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c))

/* collectives */
HL_TRACED(Barrier, (MPI_Comm c), (c))
HL_TRACED(Ibarrier, (MPI_Comm c, MPI_Request *r), (c, r))
HL_TRACED(Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c))
HL_TRACED(Ibcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r),
          (b, n, t, root, c, r))
HL_TRACED(Reduce,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),
          (sb, rb, n, t, op, root, c))
HL_TRACED(Allreduce, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c))
HL_TRACED(Iallreduce,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c,
           MPI_Request *r),
          (sb, rb, n, t, op, c, r))
HL_TRACED(Scan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c))
HL_TRACED(Exscan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c))
HL_TRACED(Reduce_scatter_block,
          (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
          (sb, rb, n, t, op, c))
HL_TRACED(Alltoall,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c))
HL_TRACED(Ialltoall,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c,
           MPI_Request *r),
          (sb, sn, st, rb, rn, rt, c, r))
HL_TRACED(Alltoallv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
           const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rd, rt, c))
HL_TRACED(Allgather,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rt, c))
HL_TRACED(Allgatherv,
          (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int rd[],
           MPI_Datatype rt, MPI_Comm c),
          (sb, sn, st, rb, rn, rd, rt, c))
HL_TRACED(Gather,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
           MPI_Comm c),
          (sb, sn, st, rb, rn, rt, root, c))
HL_TRACED(Gatherv,
          (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int rd[],
           MPI_Datatype rt, int root, MPI_Comm c),
          (sb, sn, st, rb, rn, rd, rt, root, c))
HL_TRACED(Scatter,
          (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
           MPI_Comm c),
          (sb, sn, st, rb, rn, rt, root, c))
HL_TRACED(Scatterv,
          (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb, int rn,
           MPI_Datatype rt, int root, MPI_Comm c),
          (sb, sn, sd, st, rb, rn, rt, root, c))

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
HL_TRACED(Abort, (MPI_Comm c, int code), (c, code))

#ifdef HL_SYNCHRONOUS_SENDS /* MPI_Send waits for its receive, as the standard allows it to */
#define MPI_Send hl_traced_MPI_Send_synchronous
#else
#define MPI_Send hl_traced_MPI_Send
#endif
#define MPI_Ssend hl_traced_MPI_Ssend
#define MPI_Bsend hl_traced_MPI_Bsend
#define MPI_Rsend hl_traced_MPI_Rsend
#define MPI_Recv hl_traced_MPI_Recv
#define MPI_Isend hl_traced_MPI_Isend
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
#define MPI_Abort hl_traced_MPI_Abort

#endif /* HL_MPI_TRACE_H */
