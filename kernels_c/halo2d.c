/* halo2d: 2-D Jacobi with a 1-D row decomposition and MPI_Sendrecv halos, after Luecke et al.
 * (Cray XT5, sections 2-3): pure MPI and the three hybrid versions.
 *
 *   pure     no OpenMP; compute, copy, two MPI_Sendrecv, MPI_Allreduce of delta
 *   hybrid1  a parallel region per iteration (compute + copy); MPI outside it (FUNNELED)
 *   hybrid2  one parallel region for all iterations; `omp single` sends the halos and reduces
 *            delta (MPI_THREAD_SERIALIZED, as Luecke et al. asks)
 *   hybrid3  one parallel region; `omp sections`: the two MPI_Sendrecv and the allreduce run in
 *            different threads at once (MPI_THREAD_MULTIPLE)
 * Loops use schedule(runtime); the schedule and chunk parameters set it (hl_param_schedule).
 *
 * Grid: nx columns by ny rows of interior points plus a fixed boundary ring, and the Jacobi
 * iteration, as hl_grid2d.h describes (shared with lab 12's thread_halo.c).
 *
 * Records: every thread of every rank emits one record per phase (jacobi = stencil + copy,
 * halo = MPI_Sendrecv, reduction = combining delta + MPI_Allreduce, other = waiting at the
 * barriers that end each loop and region) and `total` (its whole iteration loop); rank 0 also
 * emits a checksum record: the sum of the interior after the last iteration (MPI_Reduce over
 * ranks) and the last delta.
 *
 * timeline=1 also keeps every interval a thread spends in a phase (hl_phase in hybridlab.h) for
 * the first timeline_iterations iterations and emits one "timeline" record per interval: phase,
 * iteration, start and end in seconds since a common start right after an MPI_Barrier, the
 * same layout as the imbalance kernel, for hybridlab.runs.traces.chrome_trace. A thread's intervals
 * never overlap, and those of a phase add up to its timer total when every iteration is kept
 * (`total` is the whole loop, not an interval). Threads with nothing to do between parallel
 * regions (hybrid1, while the master communicates) have gaps on their track.
 *
 * Lab 04's exercises compile this file with the student's code (hybridlab.halo.exercise):
 * HL_STUDENT_EXCHANGE adds variant=student (hybrid 1 calling the student's exchange_halos) and
 * HL_STUDENT_OVERLAP variant=overlap (funnelled with overlap: one parallel region, every thread
 * calls the student's overlap_iteration, which exchanges from the master and computes with
 * stencil_rows; the call counts as jacobi). In variant=overlap the halo rows that come from a
 * neighbour are set to NaN before every iteration, so a row computed before its halo arrived
 * spoils the checksum, and stencil_rows counts the interior rows computed while a halo was still
 * NaN (early_rows in the checksum record: the overlap achieved). stagger_us makes odd ranks start
 * even iterations and even ranks odd ones that late (each in turn), so their neighbours' halos
 * are surely in flight for that long, on every rank in half of its iterations; row_us
 * makes every row stencil_rows computes take that much longer (it sleeps), so the interior holds
 * work on the scale of a timeslice of a busy machine (lab 04 judges the overlap from the trace).
 * In variant=student each rank's block starts from the formula plus a part drawn from a secret
 * the rank draws for the run and tells no other rank (draw_start, below): a halo row can only
 * come from its neighbour; the secret goes to the tracer's stream ("halo_start") and the judge
 * recomputes the sweep from it (hybridlab.halo.serial.drawn_start2d). There stagger_us makes a
 * rank call exchange_halos that late in every third iteration, rank r in those where (r + it) is
 * a multiple of 3: a rank's two neighbours are then late in different iterations, so the rows
 * from above arrive first in some and those from below in others, and a halo placed by arrival
 * order rather than by source lands in the wrong row (a receive from MPI_ANY_SOURCE, or a
 * matched probe's, whose row is chosen by the order of the messages, kept 4/4 while the ranks
 * always left the iteration's MPI_Allreduce in the same order, 2026-12-06).
 */
#include "hybridlab.h"
#include "hl_memory.h"
#if defined(HL_STUDENT_EXCHANGE) || defined(HL_STUDENT_OVERLAP)
#define HL_STUDENT_VARIANTS 1
#ifdef HL_STUDENT_OVERLAP
#define HL_GRID2D_STENCIL_ROWS 1 /* stencil_rows and poison_halos */
#endif
#include "hl_grid2d.h"
#include "halo2d_student.h" /* exchange_halos (a), overlap_iteration and stencil_rows (d) */
#else
#include "hl_grid2d.h"
#endif

const char *const hl_kernel_description =
    "2-D Jacobi, 1-D row decomposition, MPI_Sendrecv halos (Luecke et al.): pure MPI and hybrid "
    "versions 1-3; per-thread phase timers jacobi/halo/reduction/other (timeline=1: also each "
    "interval's start and end) and a checksum";

const hl_param hl_kernel_params[] = {
    {"variant", "pure", "pure | hybrid1 | hybrid2 | hybrid3 (Luecke et al. versions 1-3)"},
    {"nx", "256", "interior columns (length of a halo message)"},
    {"ny", "256", "interior rows, split over the ranks in blocks"},
    {"iterations", "100", "Jacobi iterations"},
    HL_SCHEDULE_PARAMS,
    {"stagger_us", "0", "variant=overlap (lab 04 exercise): odd and even ranks in turn start an iteration late; variant=student: rank r exchanges that late where r + iteration is a multiple of 3"},
    {"row_us", "0", "variant=overlap: each row stencil_rows computes also takes this long (sleeps)"},
    HL_TIMELINE_PARAMS,
    {"memory", "0", "1: each rank also emits its memory (PSS, lab 11) before the grid is freed"},
    HL_END_PARAMS,
};

enum { V_PURE, V_HYBRID1, V_HYBRID2, V_HYBRID3, V_STUDENT, V_OVERLAP, V_ALL };
#ifdef HL_STUDENT_VARIANTS
#define V_COUNT V_ALL
#else
#define V_COUNT V_STUDENT
#endif
static const char *const variant_names[V_ALL] = {"pure",    "hybrid1", "hybrid2",
                                                 "hybrid3", "student", "overlap"};

static void run_pure(grid2d *g) {
    hl_timers *me = &g->acc[0];
    double start = hl_now();
    for (long it = 0; it < g->iterations; it++) {
        hl_timers_iteration(me, 1, it);
        double t0 = hl_now(), local = 0.0;
        for (long i = 1; i <= g->m; i++) local += stencil_row(g, i);
        for (long i = 1; i <= g->m; i++) copy_row(g, i);
        me->partial = local;
        double t1 = hl_phase(me, HL_JACOBI, t0);
        send_down(g);
        send_up(g);
        hl_phase(me, HL_HALO, t1);
        reduce_delta(g, 1, me);
    }
    me->t[HL_TOTAL] = hl_now() - start;
}

static void exchange_hybrid1(grid2d *g) {
#ifdef HL_STUDENT_EXCHANGE
    if (g->student) {
        exchange_halos(g->a, g->m, g->nx, g->up, g->down, g->comm);
        grid2d_kept(g, "exchange_halos");
        return;
    }
#endif
    send_down(g);
    send_up(g);
}

static void run_hybrid1(grid2d *g, int nthreads) {
    double start = hl_now();
    for (long it = 0; it < g->iterations; it++) {
        hl_timers_iteration(g->acc, nthreads, it);
#pragma omp parallel num_threads(nthreads)
        {
            hl_timers *me = &g->acc[omp_get_thread_num()];
            sweep(g, me);
            hl_barrier_phase(me, HL_OTHER);
        }
        if (g->student && g->stagger_us > 0 && (g->rank + it) % 3 == 0)
            hl_sleep_us(g->stagger_us); /* the neighbours' rows arrive in either order */
        double h0 = hl_now();
        exchange_hybrid1(g);
        hl_phase(&g->acc[0], HL_HALO, h0);
        reduce_delta(g, nthreads, &g->acc[0]);
    }
    double total = hl_now() - start;
    for (int t = 0; t < nthreads; t++) g->acc[t].t[HL_TOTAL] = total;
}

#ifdef HL_STUDENT_EXCHANGE
#include <sys/random.h>
/* (a)'s start (variant=student): each rank adds to the start of its block's interior points a
 * part drawn from a secret it draws for the run (getrandom) and tells no other rank, so no rank
 * can write down its neighbours' rows: a halo row can only come from the neighbour's message (a
 * fresh attacker's G04a_redundant sent messages of the halo's shape carrying a row count and
 * swept its halo rows itself from the start formula, 4/4 twice, 2026-12-05). The part of global
 * point (i, j) is the splitmix64 finaliser of secret ^ (i << 32) ^ j, shifted right by 44, over
 * 2^20: a whole number of 2^-20 below 1, so the start value (the formula's sixteenths plus the
 * part) is exact and hybridlab.halo.serial.drawn_start2d reproduces it. The secret is written to
 * the tracer's stream ("halo_start": the secret in hex, the block's first global row and rows),
 * a file the process cannot read, before the student's code runs; its copies here are wiped.
 * The kit then exchanges the start's edge rows itself (its own MPI_Sendrecv), so the first
 * sweep sees the neighbours' drawn rows. */
static uint64_t start_mix(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double start_part(uint64_t secret, long i, long j) {
    return (double)(start_mix(secret ^ ((uint64_t)i << 32) ^ (uint64_t)j) >> 44) / 1048576.0;
}

static void __attribute__((noinline)) draw_start(hl_ctx *ctx, grid2d *g, long ny) {
    uint64_t secret = 0;
    if (getrandom(&secret, sizeof secret, 0) != (ssize_t)sizeof secret)
        secret = (uint64_t)(hl_now() * 1e9) * 0x9e3779b97f4a7c15ULL;
    long base = ny / ctx->size, extra = ny % ctx->size;
    long first = 1 + ctx->rank * base + (ctx->rank < extra ? ctx->rank : extra); /* global row */
    for (long li = 1; li <= g->m; li++)
        for (long j = 1; j <= g->nx; j++)
            A(g, li, j) = B(g, li, j) =
                initial(first - 1 + li, j) + start_part(secret, first - 1 + li, j);
    char fields[192];
    snprintf(fields, sizeof fields,
             "\"record\":\"halo_start\",\"secret\":\"%016llx\",\"first\":%ld,\"rows\":%ld",
             (unsigned long long)secret, first, g->m);
#ifdef HL_TRACE_MPI
    double t = hl_now();
    if (!hl_trace_event(fields, t, t))
#endif
        hl_emit(ctx, "%s", fields); /* no stream (a kernel the engines run): with the records */
    explicit_bzero(&secret, sizeof secret);
    explicit_bzero(fields, sizeof fields);
    send_down(g);
    send_up(g);
}

/* (a)'s second checksum (variant=student, rank 0's "row_checksum" record): the interior's sum
 * with each value weighted by its global row (1..ny). The plain sum cannot tell a rank's two
 * halos apart: a middle rank that puts the row from below into row 0 and the one from above into
 * row m + 1 changes rows 1 and m by opposite amounts, which cancel in it (a fresh attacker's
 * right answer's order-placed variant, MPI_Mprobe(MPI_ANY_SOURCE) into the halo of the k-th
 * message found, kept its checksum with the rows arriving in either order, f40, 2026-12-06);
 * weighted by the row they do not (hybridlab.halo.exercise.check_student_halo). Collective. */
static void emit_row_checksum(hl_ctx *ctx, grid2d *g, long ny) {
    long base = ny / ctx->size, extra = ny % ctx->size;
    long first = 1 + ctx->rank * base + (ctx->rank < extra ? ctx->rank : extra); /* global row */
    double local = 0.0, weighted = 0.0;
    for (long li = 1; li <= g->m; li++) {
        double row = 0.0;
        for (long j = 1; j <= g->nx; j++) row += A(g, li, j);
        local += (double)(first - 1 + li) * row;
    }
    MPI_Reduce(&local, &weighted, 1, MPI_DOUBLE, MPI_SUM, 0, g->comm);
    if (ctx->rank == 0) hl_emit(ctx, "\"record\":\"row_checksum\",\"checksum\":%.17g", weighted);
}

/* zeros over the stack below the caller, where draw_start's frame and its callees' were */
static void __attribute__((noinline)) scrub_stack(void) {
    volatile unsigned char pad[16384];
    for (size_t k = 0; k < sizeof pad; k++) pad[k] = 0;
}
#endif

#ifdef HL_STUDENT_OVERLAP
/* Funnelled with overlap, the student's way (run_poisoned): every thread calls
 * overlap_iteration. */
static void overlap_call(grid2d *g) {
    overlap_iteration(g->a, g->m, g->nx, g->up, g->down, g->comm);
    grid2d_kept(g, "overlap_iteration");
}
#endif

/* hybrid2's communication: one thread (`omp single`) sends the halos and reduces delta. Luecke et al. runs
 * the single straight after the copy (nowait); the barrier before it is needed here because
 * delta is summed from every thread's part. */
static void communicate_single(grid2d *g, int nthreads, hl_timers *me) {
#pragma omp single nowait
    {
        double h0 = hl_now();
        send_down(g);
        send_up(g);
        hl_phase(me, HL_HALO, h0);
        reduce_delta(g, nthreads, me);
    }
}

/* hybrid3's communication: the two exchanges and the reduction in different threads at once. */
static void communicate_sections(grid2d *g, int nthreads, hl_timers *me) {
#pragma omp sections nowait
    {
#pragma omp section
        {
            double h0 = hl_now();
            send_down(g);
            hl_phase(me, HL_HALO, h0);
        }
#pragma omp section
        {
            double h0 = hl_now();
            send_up(g);
            hl_phase(me, HL_HALO, h0);
        }
#pragma omp section
        reduce_delta(g, nthreads, me);
    }
}

/* hybrid2 and hybrid3: one parallel region for all iterations; after the sweep and a barrier,
 * every thread of the team meets `communicate` (a worksharing construct), then a barrier. */
static void run_one_region(grid2d *g, int nthreads,
                           void (*communicate)(grid2d *, int, hl_timers *)) {
#pragma omp parallel num_threads(nthreads)
    {
        hl_timers *me = &g->acc[omp_get_thread_num()];
        double start = hl_now();
        for (long it = 0; it < g->iterations; it++) {
            hl_timers_iteration(me, 1, it);
            sweep(g, me);
            hl_barrier_phase(me, HL_OTHER);
            communicate(g, nthreads, me);
            hl_barrier_phase(me, HL_OTHER);
        }
        me->t[HL_TOTAL] = hl_now() - start;
    }
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    int variant = hl_param_choice(ctx, "variant", variant_names, V_COUNT);
    if (variant < 0) return -1;
    long nx = hl_param_long(ctx, "nx", 1, &ok);
    if (!ok) return -1;
    long ny = hl_param_long(ctx, "ny", 1, &ok);
    if (!ok) return -1;
    long iterations = hl_param_long(ctx, "iterations", 0, &ok);
    if (!ok) return -1;
    long chunk = 0;
    const char *schedule = hl_param_schedule(ctx, &chunk);
    if (!schedule) return -1;
    long stagger_us = hl_param_long(ctx, "stagger_us", 0, &ok);
    if (!ok) return -1;
    if (stagger_us > 1000000L) return hl_fail(ctx, "parameter stagger_us=%ld is above 1 s", stagger_us);
    long row_us = hl_param_long(ctx, "row_us", 0, &ok);
    if (!ok) return -1;
    if (row_us < 0 || row_us > 100000L) return hl_fail(ctx, "parameter row_us=%ld is not in 0..100000", row_us);
#ifndef HL_STUDENT_EXCHANGE
    if (variant == V_STUDENT) return hl_fail(ctx, "variant student needs exchange_halos (lab 04)");
#endif
#ifndef HL_STUDENT_OVERLAP
    if (variant == V_OVERLAP) return hl_fail(ctx, "variant overlap needs overlap_iteration (lab 04)");
#endif
    long keep = hl_param_timeline(ctx, iterations);
    if (keep < 0) return -1;
    long memory = hl_param_long(ctx, "memory", 0, &ok);
    if (!ok) return -1;

    if (variant == V_HYBRID3 &&
        hl_require_level(ctx, MPI_THREAD_MULTIPLE,
                         "variant hybrid3 calls MPI from several threads at once (omp sections)"))
        return -1;
    if (variant == V_HYBRID2 &&
        hl_require_level(ctx, MPI_THREAD_SERIALIZED,
                         "variant hybrid2 calls MPI inside `omp single` (any thread)"))
        return -1;

    int nthreads = variant == V_PURE ? 1 : omp_get_max_threads();

    grid2d g = {.student = variant == V_STUDENT, .stagger_us = stagger_us, .row_us = row_us};
    int rc = grid2d_setup(ctx, &g, comm, nx, ny, iterations, nthreads, keep);
    if (rc != 0) goto done;
#ifdef HL_STUDENT_EXCHANGE
    if (variant == V_STUDENT) {
        draw_start(ctx, &g, ny);
        scrub_stack();
    }
#endif
    grid2d_keep(ctx, &g); /* the student's calls run on this stack (hl_grid2d.h) */
    MPI_Barrier(comm);
    const double origin = hl_now(); /* the timeline's common start */
    switch (variant) {
    case V_PURE: run_pure(&g); break;
    case V_HYBRID1:
    case V_STUDENT: run_hybrid1(&g, nthreads); break;
    case V_HYBRID2: run_one_region(&g, nthreads, communicate_single); break;
#ifdef HL_STUDENT_OVERLAP
    case V_OVERLAP: run_poisoned(&g, nthreads, overlap_call); break;
#endif
    default: run_one_region(&g, nthreads, communicate_sections); break;
    }
    char extra[128];
    snprintf(extra, sizeof extra, ",\"schedule\":\"%s\",\"chunk\":%ld", schedule, chunk);
#ifdef HL_STUDENT_EXCHANGE
    if (variant == V_STUDENT) emit_row_checksum(ctx, &g, ny); /* every rank, before any refusal */
#endif
    rc = grid2d_finish(ctx, &g, nthreads, ny, keep, origin, variant_names[variant], extra);
    if (rc == 0 && memory) { /* halo copies: a row of a neighbour in a and in b, per neighbour */
        long copies = 2 * ((g.up != MPI_PROC_NULL) + (g.down != MPI_PROC_NULL));
        char tail[256];
        snprintf(tail, sizeof tail,
                 "\"ranks\":%d,\"threads\":%d,\"nx\":%ld,\"rows\":%ld,\"grid_bytes\":%ld,"
                 "\"halo_bytes\":%ld",
                 ctx->size, nthreads, nx, g.m, (long)(2 * (g.m + 2) * g.w * sizeof(double)),
                 (long)(copies * g.w * sizeof(double)));
        hl_emit_memory(ctx, tail);
    }
done:
    grid2d_free(&g, nthreads);
    return rc;
}
