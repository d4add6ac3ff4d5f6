/* hl_grid2d.h: lab 04's 2-D Jacobi grid with a 1-D row decomposition (halo2d.c), shared with the
 * kernels that exchange its halo rows in other ways (thread_halo.c, lab 12). Include it after
 * hybridlab.h in one kernel file.
 *
 * Global point (i, j), i = 0..ny+1 (row), j = 0..nx+1 (column), starts at
 *     u0(i, j) = ((7 i + 13 j) mod 17) / 16
 * (boundary included; the boundary never changes). One iteration:
 *     new(i,j) = 0.25 * (u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1))     (added in this order)
 *     delta    = sum over the interior of (new - u)^2, summed over ranks (MPI_Allreduce)
 *     u        = new on the interior, then the halo rows are exchanged.
 * Rows are split in blocks: the first ny mod P ranks get one row more. hybridlab.halo.serial
 * reproduces this in numpy (jacobi2d).
 *
 * grid2d_setup checks the grid, splits it, allocates and first-touches it; grid2d_finish checks
 * and emits what every variant emits (the halo phase timers, "timeline" with timeline=1, and rank
 * 0's "checksum" record); grid2d_free frees it.
 *
 * Define HL_GRID2D_STENCIL_ROWS (a kernel linked with a student's unit) for stencil_rows(first,
 * last), the helper the student computes with: it records each call's interval and rows in the
 * MPI trace (hl_trace_rows; run_poisoned marks each iteration with hl_trace_step), takes row_us
 * longer per row when asked (a wider grid's rows in a judged run on a busy machine), counts
 * interior rows computed while a halo was still pending (early_rows), stamps its task
 * (hl_trace_task_stamp: a task iteration learns which rows its own body computed, outside every
 * task), and keeps a call outside 1..m for grid2d_finish to refuse; poison_halos sets the
 * halo rows that come from a neighbour to NaN, so a row computed before its halo arrived spoils
 * the checksum; run_poisoned runs a student's overlapped iteration with them.
 */
#ifndef HL_GRID2D_H
#define HL_GRID2D_H

#include "hybridlab.h"
#include "hl_halo.h"

#ifndef HL_HALO_MAX_POINTS /* hl_halo.h's limit on a grid's points, where it sets none */
#define HL_HALO_MAX_POINTS 400000000L
#endif

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
    int student;  /* call the student's exchange (the kernel's student variant) */
    int rank;
    long stagger_us;          /* a rank starts an iteration this late (run_poisoned: in turn) */
    long row_us;              /* stencil_rows: each row also takes this long, as a wider grid's */
} grid2d;

/* What the kit counts while the student's calls run (stencil_rows, the task marks) is not in the
 * grid - a local of the kernel, on the stack the cell runs on, where a cell scanning up from its
 * own frame rewrote interior_after_calls (f46's L12 gaming attempt) - but in hybridlab.h's sealed
 * evidence, read-only to every thread, zeroed by hl_run before each kernel call:
 * GRID2D_EV->bad_first, ... (hl_sealed_add to count). */
typedef struct {
    grid2d *grid;             /* the grid stencil_rows works on (one run at a time) */
    long bad_first, bad_last; /* a stencil_rows call outside 1..m (0 if none) */
    /* a task iteration (hl_trace_task_mark): stencil_rows calls and the student's MPI calls in
     * its own body, outside every task; stencil_rows calls in a nested parallel region; calls
     * computing row 1 or m in a task that made MPI calls before (or was created by one after),
     * and calls computing interior rows (2..m-1) in such a task (the exchange's own) */
    long inline_rows, inline_calls, nested_rows, edges_after_calls, interior_after_calls;
} grid2d_evidence;
#ifdef HL_SEALED /* (a kernel's unit) */
_Static_assert(sizeof(grid2d_evidence) <= HL_SEALED_DATA, "grid2d_evidence: too large");
#define GRID2D_EV HL_SEALED(grid2d_evidence)
/* Interior rows computed while a halo was still pending: shown in the checksum record, judged by
 * nothing, so not sealed - a sealed add (a lock and a pwrite) on every early interior call would
 * slow the very compute lab 04 times; one relaxed atomic add instead, per run_poisoned. */
static long grid2d_early_rows __attribute__((unused));
#endif

#define A(g, i, j) ((g)->a[(i) * (g)->w + (j)])
#define B(g, i, j) ((g)->b[(i) * (g)->w + (j)])

static inline double initial(long i, long j) { return (double)((7 * i + 13 * j) % 17) / 16.0; }

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

/* Luecke et al.'s exchange: b's edge rows (equal to a's after the copy) into a's halo rows
 * (halo2d.c, and neighbour_halo.c's row decomposition, lab 13). */
static inline void send_down(grid2d *g) {
    MPI_Sendrecv(&B(g, g->m, 1), (int)g->nx, MPI_DOUBLE, g->down, TAG_DOWN, &A(g, 0, 1),
                 (int)g->nx, MPI_DOUBLE, g->up, TAG_DOWN, g->comm, MPI_STATUS_IGNORE);
}

static inline void send_up(grid2d *g) {
    MPI_Sendrecv(&B(g, 1, 1), (int)g->nx, MPI_DOUBLE, g->up, TAG_UP, &A(g, g->m + 1, 1),
                 (int)g->nx, MPI_DOUBLE, g->down, TAG_UP, g->comm, MPI_STATUS_IGNORE);
}

/* delta: the threads' parts summed in thread order, then over the ranks; timed as the reduction
 * of the calling thread. */
static inline void reduce_delta(grid2d *g, int nthreads, hl_timers *me) {
    double r0 = hl_now(), local = hl_timers_sum(g->acc, nthreads);
    MPI_Allreduce(&local, &g->delta, 1, MPI_DOUBLE, MPI_SUM, g->comm);
    hl_phase(me, HL_REDUCTION, r0);
}

/* Stencil then copy, each with schedule(runtime) and a timed barrier between and after; called
 * by every thread of the team. */
static inline void sweep(grid2d *g, hl_timers *me) {
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

/* The delta parts of an overlapped iteration (new rows in b) and the copy back, shared by the
 * team (omp for); the calling thread's part goes to me->partial. */
static inline void delta_and_copy(grid2d *g, hl_timers *me) {
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
}

/* Check the grid against the ranks, split its rows, allocate a and b and the timers of nthreads
 * threads (with a timeline of `keep` iterations) and first-touch them. 0, or -1 with ctx->error
 * set (collective: every rank agrees). */
static inline int grid2d_setup(hl_ctx *ctx, grid2d *g, MPI_Comm comm, long nx, long ny, long iterations,
                        int nthreads, long keep) {
    if (nx > 100000000L || ny > 100000000L || nx * ny > HL_HALO_MAX_POINTS)
        return hl_fail(ctx, "grid nx=%ld x ny=%ld is too large (at most %g points)", nx, ny,
                       (double)HL_HALO_MAX_POINTS);
    if (ny < ctx->size)
        return hl_fail(ctx,
                       "grid too small: ny=%ld rows cannot be split over %d ranks (each rank "
                       "needs at least one row); use ny >= %d or fewer ranks",
                       ny, ctx->size, ctx->size);
    g->comm = comm;
    g->nx = nx;
    g->w = nx + 2;
    g->iterations = iterations;
    g->rank = ctx->rank;
    long base = ny / ctx->size, extra = ny % ctx->size;
    g->m = base + (ctx->rank < extra ? 1 : 0);
    long first = 1 + ctx->rank * base + (ctx->rank < extra ? ctx->rank : extra); /* global row */
    g->up = ctx->rank > 0 ? ctx->rank - 1 : MPI_PROC_NULL;
    g->down = ctx->rank < ctx->size - 1 ? ctx->rank + 1 : MPI_PROC_NULL;

    size_t points = (size_t)(g->m + 2) * (size_t)g->w;
    g->a = malloc(points * sizeof(double));
    g->b = malloc(points * sizeof(double));
    g->acc = hl_timers_new(nthreads);
    int mine_ok = g->a && g->b && g->acc && hl_timeline_new(g->acc, nthreads, keep) == 0;
    int all_ok = 0;
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) return hl_fail(ctx, "no memory for a %ld x %ld grid on some rank", nx, ny);
    /* First touch by the threads that will update the rows (static schedule). */
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (long li = 0; li < g->m + 2; li++)
        for (long j = 0; j < g->w; j++)
            A(g, li, j) = B(g, li, j) = initial(first - 1 + li, j);
    return 0;
}

static inline void grid2d_free(grid2d *g, int nthreads) {
    free(g->a);
    free(g->b);
    hl_timers_free(g->acc, nthreads);
}

/* The grid's fields set up once (grid2d_setup, and the kernel's own before a run), kept sealed
 * across the student's calls: the grid is a local of the kernel, on the stack the cell runs on
 * (hybridlab.h, hl_keep). grid2d_keep before the run; grid2d_kept(g, "exchange_halos") after
 * each call stops the run when one changed. (The counters the kit adds to during the calls -
 * bad_first, inline_rows, ... - are sealed evidence, grid2d_evidence; early_rows, judged by
 * nothing, is a plain count.) */
#ifdef HL_KEEP /* (a kernel's unit, not a student's) */
static inline void grid2d_keep(hl_ctx *ctx, const grid2d *g) {
    HL_KEEP(ctx, (long)g, (long)g->comm, g->nx, g->m, g->w, (long)g->a, (long)g->b, g->up,
            g->down, g->iterations, (long)g->acc, g->student, g->rank, g->stagger_us, g->row_us);
}

static inline void grid2d_kept(const grid2d *g, const char *call) {
    HL_KEPT_CHECK(call, (long)g, (long)g->comm, g->nx, g->m, g->w, (long)g->a, (long)g->b, g->up,
                  g->down, g->iterations, (long)g->acc, g->student, g->rank, g->stagger_us,
                  g->row_us);
}
#endif

/* After the iterations: refuse a stencil_rows call outside 1..m and a NaN checksum (a row
 * computed before its halo arrived), then emit the timers (and timeline) with the run's fields
 * and rank 0's checksum record; `extra` adds fields to the timer records (",\"key\":value" or
 * ""). Collective; 0, or -1 with ctx->error set. A kernel's unit only (the sealed evidence: a
 * student's unit that includes this header compiles, and the build names the header). */
#ifdef GRID2D_EV
static inline int grid2d_finish(hl_ctx *ctx, grid2d *g, int nthreads, long ny, long keep, double origin,
                         const char *variant, const char *extra) {
    long early_rows = 0, mine = __atomic_load_n(&grid2d_early_rows, __ATOMIC_RELAXED);
    long bad_first = hl_sealed_get(&GRID2D_EV->bad_first);
    long bad_last = hl_sealed_get(&GRID2D_EV->bad_last);
    MPI_Reduce(&mine, &early_rows, 1, MPI_LONG, MPI_SUM, 0, g->comm);
    double local = 0.0, checksum = 0.0;
    for (long i = 1; i <= g->m; i++)
        for (long j = 1; j <= g->nx; j++) local += A(g, i, j);
    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, g->comm);
    if (bad_first || bad_last)
        return hl_fail(ctx, "stencil_rows(%ld, %ld) on rank %d: rows run from 1 to m = %ld, first <= last",
                       bad_first, bad_last, ctx->rank, g->m);
    if (ctx->rank == 0 && !isfinite(checksum)) /* only the student variants poison halos */
        return hl_fail(ctx, "the checksum is NaN: a row next to a halo was computed before the halo "
                            "arrived (halo rows hold NaN until the exchange fills them)");
    char tail[512];
    snprintf(tail, sizeof tail,
             "\"variant\":\"%s\",\"ranks\":%d,\"threads\":%d,\"nx\":%ld,\"ny\":%ld,"
             "\"rows\":%ld,\"iterations\":%ld%s",
             variant, ctx->size, nthreads, g->nx, ny, g->m, g->iterations, extra);
    if (hl_halo_emit(ctx, g->acc, nthreads, keep, origin, tail) != 0) return -1;
    if (ctx->rank == 0)
        hl_emit(ctx,
                "\"record\":\"checksum\",\"checksum\":%.17g,\"delta\":%.17g,\"variant\":\"%s\","
                "\"ranks\":%d,\"threads\":%d,\"nx\":%ld,\"ny\":%ld,\"iterations\":%ld,"
                "\"early_rows\":%ld",
                checksum, g->delta, variant, ctx->size, nthreads, g->nx, ny, g->iterations,
                early_rows);
    return 0;
}
#endif

#ifdef HL_GRID2D_STENCIL_ROWS
/* the grid stencil_rows works on (one run at a time), sealed */
#define overlap_grid (*(grid2d *const volatile *)&GRID2D_EV->grid)

/* A halo row that comes from a neighbour and still holds the NaN set before the iteration. */
static int halo_pending(const grid2d *g) {
    double top = ((volatile const double *)g->a)[1];
    double bottom = ((volatile const double *)g->a)[(g->m + 1) * g->w + 1];
    return (g->up != MPI_PROC_NULL && isnan(top)) || (g->down != MPI_PROC_NULL && isnan(bottom));
}

void stencil_rows(long first, long last) {
    grid2d *g = overlap_grid;
    const grid2d_evidence *ev = GRID2D_EV;
    if (first < 1 || last > g->m || first > last) {
#pragma omp critical(hl_overlap_bad)
        if (!hl_sealed_get(&ev->bad_first) && !hl_sealed_get(&ev->bad_last)) {
            long bad[2] = {first, last};
            hl_sealed_put(&ev->bad_first, bad, sizeof bad);
        }
        return;
    }
    long inner = 0; /* rows that need no halo: 2..m-1 */
    for (long i = first; i <= last; i++) inner += i > 1 && i < g->m;
#ifdef HL_GRID2D_BEFORE_INTERIOR /* a kernel's hold of interior rows (thread_halo.c, lab 12 (b)) */
    if (inner > 0) HL_GRID2D_BEFORE_INTERIOR();
#endif
    if (inner > 0 && halo_pending(g)) __atomic_fetch_add(&grid2d_early_rows, inner, __ATOMIC_RELAXED);
#ifdef HL_TRACE_MPI
    int before = hl_trace_task_stamp(0); /* MPI calls its task made before it; -1: not marked */
    if (before > 0 && (first == 1 || last == g->m)) hl_sealed_add(&ev->edges_after_calls, 1);
    if (before > 0 && inner > 0) hl_sealed_add(&ev->interior_after_calls, 1);
    if (before >= 0 && omp_get_level() > 1) hl_sealed_add(&ev->nested_rows, 1);
    double t0 = hl_now();
#endif
    for (long i = first; i <= last; i++) stencil_row(g, i);
    hl_sleep_us(g->row_us * (last - first + 1));
#ifdef HL_TRACE_MPI
    hl_trace_rows(t0, hl_now(), first, last);
#endif
}

/* The halo rows that come from a neighbour become NaN: only an exchange makes them numbers. */
static void poison_halos(grid2d *g) {
    for (long j = 1; j <= g->nx; j++) {
        if (g->up != MPI_PROC_NULL) A(g, 0, j) = NAN;
        if (g->down != MPI_PROC_NULL) A(g, g->m + 1, j) = NAN;
    }
}

/* The student's overlapped iteration in one parallel region: per iteration the master (late by
 * stagger_us on odd ranks in even iterations and on even ranks in odd ones: each rank's window
 * is long in half of its iterations, so every rank's overlap is judged) poisons the halos,
 * every thread calls `iteration` (timed as jacobi), then delta and the copy (omp for) and the
 * master's reduction. */
static inline void run_poisoned(grid2d *g, int nthreads, void (*iteration)(grid2d *)) {
    HL_OWN_CODE(iteration, "run_poisoned");
    hl_sealed_put(&GRID2D_EV->grid, &g, sizeof g);
    __atomic_store_n(&grid2d_early_rows, 0, __ATOMIC_RELAXED);
#pragma omp parallel num_threads(nthreads)
    {
        hl_timers *me = &g->acc[omp_get_thread_num()];
        double start = hl_now();
        for (long it = 0; it < g->iterations; it++) {
            hl_timers_iteration(me, 1, it);
#pragma omp masked
            {
                if ((g->rank + it) % 2 == 1) hl_sleep_us(g->stagger_us); /* each in turn */
                poison_halos(g);
#ifdef HL_TRACE_MPI
                hl_trace_step(it);
#endif
            }
            hl_barrier_phase(me, HL_OTHER);
            double t0 = hl_now();
            iteration(g);
            hl_phase(me, HL_JACOBI, t0);
            hl_barrier_phase(me, HL_OTHER);
            delta_and_copy(g, me);
            hl_barrier_phase(me, HL_OTHER);
#pragma omp masked
            reduce_delta(g, nthreads, me);
            hl_barrier_phase(me, HL_OTHER);
        }
        me->t[HL_TOTAL] = hl_now() - start;
    }
}
#endif /* HL_GRID2D_STENCIL_ROWS */

#endif /* HL_GRID2D_H */
