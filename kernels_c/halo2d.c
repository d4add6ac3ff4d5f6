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
 * Grid: nx columns by ny rows of interior points plus a fixed boundary ring. Global point
 * (i, j), i = 0..ny+1 (row), j = 0..nx+1 (column), starts at
 *     u0(i, j) = ((7 i + 13 j) mod 17) / 16
 * (boundary included; the boundary never changes). One iteration:
 *     new(i,j) = 0.25 * (u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1))     (added in this order)
 *     delta    = sum over the interior of (new - u)^2, summed over ranks (MPI_Allreduce)
 *     u        = new on the interior, then the halo rows are exchanged.
 * Rows are split in blocks: the first ny mod P ranks get one row more. hybridlab.halo.serial
 * reproduces this in numpy (jacobi2d).
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
 * same layout as the imbalance kernel, for hybridlab.traces.chrome_trace. A thread's intervals
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
 * each iteration that late, so their neighbours' halos are surely in flight for that long.
 */
#include "hybridlab.h"
#include "hl_halo.h"

#if defined(HL_STUDENT_EXCHANGE) || defined(HL_STUDENT_OVERLAP)
#define HL_STUDENT_VARIANTS 1
#include "halo2d_student.h" /* exchange_halos (a), overlap_iteration and stencil_rows (d) */
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
    {"stagger_us", "0", "variant=overlap (lab 04 exercise): odd ranks start each iteration late"},
    HL_TIMELINE_PARAMS,
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

#define TAG_DOWN 1 /* a message travelling to rank + 1 */
#define TAG_UP 2   /* a message travelling to rank - 1 */

typedef struct {
    MPI_Comm comm;
    long nx, m; /* interior columns; rows owned by this rank */
    long w;     /* row length with the halo columns: nx + 2 */
    double *a, *b;
    int up, down;   /* neighbour ranks or MPI_PROC_NULL */
    long iterations;
    hl_timers *acc; /* per thread: phase seconds, and its part of delta */
    double delta; /* global delta of the last iteration */
    int student;  /* call the student's exchange_halos (lab 04 exercise) */
    int rank;
    long stagger_us;          /* variant=overlap: odd ranks start each iteration this late */
    long early_rows;          /* variant=overlap: interior rows computed before a halo arrived */
    int bad_first, bad_last;  /* variant=overlap: a stencil_rows call outside 1..m (0 if none) */
} grid2d;

#define A(g, i, j) ((g)->a[(i) * (g)->w + (j)])
#define B(g, i, j) ((g)->b[(i) * (g)->w + (j)])

static double initial(long i, long j) { return (double)((7 * i + 13 * j) % 17) / 16.0; }

/* Stencil on row i into b; returns the row's sum of squared changes. */
static inline double stencil_row(grid2d *g, long i) {
    double d2 = 0.0;
    /* simd: the sum of squares may be reassociated (vectorised); the checksum is unaffected */
#pragma omp simd reduction(+ : d2)
    for (long j = 1; j <= g->nx; j++) {
        double v = 0.25 * (A(g, i - 1, j) + A(g, i + 1, j) + A(g, i, j - 1) + A(g, i, j + 1));
        double d = v - A(g, i, j);
        d2 += d * d;
        B(g, i, j) = v;
    }
    return d2;
}

static inline void copy_row(grid2d *g, long i) {
    memcpy(&A(g, i, 1), &B(g, i, 1), (size_t)g->nx * sizeof(double));
}

/* Luecke et al.'s exchange: b's edge rows (equal to a's after the copy) into a's halo rows. */
static void send_down(grid2d *g) {
    MPI_Sendrecv(&B(g, g->m, 1), (int)g->nx, MPI_DOUBLE, g->down, TAG_DOWN, &A(g, 0, 1),
                 (int)g->nx, MPI_DOUBLE, g->up, TAG_DOWN, g->comm, MPI_STATUS_IGNORE);
}

static void send_up(grid2d *g) {
    MPI_Sendrecv(&B(g, 1, 1), (int)g->nx, MPI_DOUBLE, g->up, TAG_UP, &A(g, g->m + 1, 1),
                 (int)g->nx, MPI_DOUBLE, g->down, TAG_UP, g->comm, MPI_STATUS_IGNORE);
}

/* delta: the threads' parts summed in thread order, then over the ranks; timed as the reduction
 * of the calling thread. */
static void reduce_delta(grid2d *g, int nthreads, hl_timers *me) {
    double r0 = hl_now(), local = hl_timers_sum(g->acc, nthreads);
    MPI_Allreduce(&local, &g->delta, 1, MPI_DOUBLE, MPI_SUM, g->comm);
    hl_phase(me, HL_REDUCTION, r0);
}

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

/* Stencil then copy, each with schedule(runtime) and a timed barrier between and after; called
 * by every thread of the team. */
static void sweep(grid2d *g, hl_timers *me) {
    double t0 = hl_now(), local = 0.0;
#pragma omp for schedule(runtime) nowait
    for (long i = 1; i <= g->m; i++) local += stencil_row(g, i);
    me->partial = local;
    hl_phase(me, HL_JACOBI, t0);
    hl_barrier_phase(me, HL_OTHER);
    double t1 = hl_now();
#pragma omp for schedule(runtime) nowait
    for (long i = 1; i <= g->m; i++) copy_row(g, i);
    hl_phase(me, HL_JACOBI, t1);
}

static void exchange_hybrid1(grid2d *g) {
#ifdef HL_STUDENT_EXCHANGE
    if (g->student) {
        exchange_halos(g->a, g->m, g->nx, g->up, g->down, g->comm);
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
        double h0 = hl_now();
        exchange_hybrid1(g);
        hl_phase(&g->acc[0], HL_HALO, h0);
        reduce_delta(g, nthreads, &g->acc[0]);
    }
    double total = hl_now() - start;
    for (int t = 0; t < nthreads; t++) g->acc[t].t[HL_TOTAL] = total;
}

#ifdef HL_STUDENT_OVERLAP
static grid2d *overlap_grid; /* the grid stencil_rows works on (one run at a time) */

/* A halo row that comes from a neighbour and still holds the NaN set before the iteration. */
static int halo_pending(const grid2d *g) {
    double top = ((volatile const double *)g->a)[1];
    double bottom = ((volatile const double *)g->a)[(g->m + 1) * g->w + 1];
    return (g->up != MPI_PROC_NULL && isnan(top)) || (g->down != MPI_PROC_NULL && isnan(bottom));
}

void stencil_rows(long first, long last) {
    grid2d *g = overlap_grid;
    if (first < 1 || last > g->m || first > last) {
#pragma omp critical(hl_overlap_bad)
        if (!g->bad_first && !g->bad_last) {
            g->bad_first = (int)first;
            g->bad_last = (int)last;
        }
        return;
    }
    long inner = 0; /* rows that need no halo: 2..m-1 */
    for (long i = first; i <= last; i++) inner += i > 1 && i < g->m;
    if (inner > 0 && halo_pending(g)) {
#pragma omp atomic
        g->early_rows += inner;
    }
#ifdef HL_TRACE_MPI
    double t0 = hl_now();
#endif
    for (long i = first; i <= last; i++) stencil_row(g, i);
#ifdef HL_TRACE_MPI
    hl_trace_compute(t0, hl_now());
#endif
}

/* The halo rows that come from a neighbour become NaN: only an exchange makes them numbers. */
static void poison_halos(grid2d *g) {
    for (long j = 1; j <= g->nx; j++) {
        if (g->up != MPI_PROC_NULL) A(g, 0, j) = NAN;
        if (g->down != MPI_PROC_NULL) A(g, g->m + 1, j) = NAN;
    }
}

/* Funnelled with overlap, the student's way: one region; per iteration the master (late on odd
 * ranks by stagger_us) poisons the halos, every thread calls overlap_iteration, then the copy
 * and delta (omp for) and the master's reduction. */
static void run_overlap(grid2d *g, int nthreads) {
    overlap_grid = g;
#pragma omp parallel num_threads(nthreads)
    {
        hl_timers *me = &g->acc[omp_get_thread_num()];
        double start = hl_now();
        for (long it = 0; it < g->iterations; it++) {
            hl_timers_iteration(me, 1, it);
#pragma omp masked
            {
                if (g->rank % 2 == 1) hl_sleep_us(g->stagger_us);
                poison_halos(g);
            }
            hl_barrier_phase(me, HL_OTHER);
            double t0 = hl_now();
            overlap_iteration(g->a, g->m, g->nx, g->up, g->down, g->comm);
            hl_phase(me, HL_JACOBI, t0);
            hl_barrier_phase(me, HL_OTHER);
            double t1 = hl_now(), local = 0.0;
#pragma omp for schedule(static) nowait
            for (long i = 1; i <= g->m; i++) {
                for (long j = 1; j <= g->nx; j++) {
                    double d = B(g, i, j) - A(g, i, j);
                    local += d * d;
                }
                copy_row(g, i);
            }
            me->partial = local;
            hl_phase(me, HL_JACOBI, t1);
            hl_barrier_phase(me, HL_OTHER);
#pragma omp masked
            reduce_delta(g, nthreads, me);
            hl_barrier_phase(me, HL_OTHER);
        }
        me->t[HL_TOTAL] = hl_now() - start;
    }
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
    if (nx > 100000000L || ny > 100000000L || nx * ny > 400000000L)
        return hl_fail(ctx, "grid nx=%ld x ny=%ld is too large (at most 4e8 points)", nx, ny);
    if (ny < ctx->size)
        return hl_fail(ctx,
                       "grid too small: ny=%ld rows cannot be split over %d ranks (each rank "
                       "needs at least one row); use ny >= %d or fewer ranks",
                       ny, ctx->size, ctx->size);
    long stagger_us = hl_param_long(ctx, "stagger_us", 0, &ok);
    if (!ok) return -1;
    if (stagger_us > 1000000L) return hl_fail(ctx, "parameter stagger_us=%ld is above 1 s", stagger_us);
#ifndef HL_STUDENT_EXCHANGE
    if (variant == V_STUDENT) return hl_fail(ctx, "variant student needs exchange_halos (lab 04)");
#endif
#ifndef HL_STUDENT_OVERLAP
    if (variant == V_OVERLAP) return hl_fail(ctx, "variant overlap needs overlap_iteration (lab 04)");
#endif
    long keep = hl_param_timeline(ctx, iterations);
    if (keep < 0) return -1;

    if (variant == V_HYBRID3 &&
        hl_require_level(ctx, MPI_THREAD_MULTIPLE,
                         "variant hybrid3 calls MPI from several threads at once (omp sections)"))
        return -1;
    if (variant == V_HYBRID2 &&
        hl_require_level(ctx, MPI_THREAD_SERIALIZED,
                         "variant hybrid2 calls MPI inside `omp single` (any thread)"))
        return -1;

    int nthreads = variant == V_PURE ? 1 : omp_get_max_threads();

    grid2d g = {.comm = comm, .nx = nx, .w = nx + 2, .iterations = iterations,
                .student = variant == V_STUDENT, .rank = ctx->rank, .stagger_us = stagger_us};
    long base = ny / ctx->size, extra = ny % ctx->size;
    g.m = base + (ctx->rank < extra ? 1 : 0);
    long first = 1 + ctx->rank * base + (ctx->rank < extra ? ctx->rank : extra); /* global row */
    g.up = ctx->rank > 0 ? ctx->rank - 1 : MPI_PROC_NULL;
    g.down = ctx->rank < ctx->size - 1 ? ctx->rank + 1 : MPI_PROC_NULL;

    size_t points = (size_t)(g.m + 2) * (size_t)g.w;
    g.a = malloc(points * sizeof(double));
    g.b = malloc(points * sizeof(double));
    g.acc = hl_timers_new(nthreads);
    int mine_ok = g.a && g.b && g.acc && hl_timeline_new(g.acc, nthreads, keep) == 0, all_ok = 0;
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int rc = 0;
    if (!all_ok) {
        rc = hl_fail(ctx, "no memory for a %ld x %ld grid on some rank", nx, ny);
        goto done;
    }
    /* First touch by the threads that will update the rows (static schedule). */
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (long li = 0; li < g.m + 2; li++)
        for (long j = 0; j < g.w; j++)
            A(&g, li, j) = B(&g, li, j) = initial(first - 1 + li, j);

    MPI_Barrier(comm);
    const double origin = hl_now(); /* the timeline's common start */
    switch (variant) {
    case V_PURE: run_pure(&g); break;
    case V_HYBRID1:
    case V_STUDENT: run_hybrid1(&g, nthreads); break;
    case V_HYBRID2: run_one_region(&g, nthreads, communicate_single); break;
#ifdef HL_STUDENT_OVERLAP
    case V_OVERLAP: run_overlap(&g, nthreads); break;
#endif
    default: run_one_region(&g, nthreads, communicate_sections); break;
    }
    long early_rows = 0;
    MPI_Reduce(&g.early_rows, &early_rows, 1, MPI_LONG, MPI_SUM, 0, comm);

    double local = 0.0, checksum = 0.0;
    for (long i = 1; i <= g.m; i++)
        for (long j = 1; j <= nx; j++) local += A(&g, i, j);
    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (g.bad_first || g.bad_last) {
        rc = hl_fail(ctx, "stencil_rows(%d, %d) on rank %d: rows run from 1 to m = %ld, first <= last",
                     g.bad_first, g.bad_last, ctx->rank, g.m);
        goto done;
    }
    if (ctx->rank == 0 && !isfinite(checksum)) { /* only variant=overlap poisons halos */
        rc = hl_fail(ctx, "the checksum is NaN: a row next to a halo was computed before the halo "
                          "arrived (halo rows hold NaN until the exchange fills them)");
        goto done;
    }

    char tail[512];
    snprintf(tail, sizeof tail,
             "\"variant\":\"%s\",\"ranks\":%d,\"threads\":%d,\"nx\":%ld,\"ny\":%ld,"
             "\"rows\":%ld,\"iterations\":%ld,\"schedule\":\"%s\",\"chunk\":%ld",
             variant_names[variant], ctx->size, nthreads, nx, ny, g.m, iterations,
             schedule, chunk);
    if ((rc = hl_halo_emit(ctx, g.acc, nthreads, keep, origin, tail)) != 0) goto done;
    if (ctx->rank == 0)
        hl_emit(ctx,
                "\"record\":\"checksum\",\"checksum\":%.17g,\"delta\":%.17g,\"variant\":\"%s\","
                "\"ranks\":%d,\"threads\":%d,\"nx\":%ld,\"ny\":%ld,\"iterations\":%ld,"
                "\"early_rows\":%ld",
                checksum, g.delta, variant_names[variant], ctx->size, nthreads, nx, ny,
                iterations, early_rows);
done:
    free(g.a);
    free(g.b);
    hl_timers_free(g.acc, nthreads);
    return rc;
}
