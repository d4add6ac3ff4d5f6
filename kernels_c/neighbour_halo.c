/* neighbour_halo: lab 04's 2-D Jacobi (hl_grid2d.h: the same start, stencil and checksum as
 * halo2d.c) on a process grid, for lab 13's neighbourhood collectives and overlapped residual.
 *
 * The nx x ny interior is split into dims[0] x dims[1] blocks (rows of processes x columns of
 * processes; the first ny mod dims[0] block rows get one row more, likewise for columns). One
 * iteration: the stencil and copy on the block (OpenMP threads, a parallel region per
 * iteration: phases jacobi and other), the halo exchange (halo), the residual delta summed over the ranks
 * (reduction); with tolerance > 0 the loop stops after the first iteration whose delta is below
 * it. MPI is called by the main thread only (FUNNELED).
 *
 *   blocking  the kit's: rows only (dims = P x 1, rank r holds block row r), lab 04's two
 *             MPI_Sendrecv of rows, MPI_Allreduce of delta every iteration
 *   student   (HL_STUDENT_NEIGHBOUR, lab 13 (a)) the student's make_grid(comm, dims) returns a
 *             Cartesian communicator of the px x py process grid asked (0: the student's
 *             MPI_Dims_create chooses); the kernel reads its dims, periods and coordinates
 *             (MPI_Cart_get) and refuses one that is not Cartesian, not 2-D, periodic, not of
 *             every rank or not the shape asked; each block's place comes from its coordinates.
 *             Every iteration the student's neighbour_exchange fills the block's four halo sides,
 *             then MPI_Allreduce of delta. Each rank's block starts perturbed by a secret of its
 *             own (below), so no rank can compute its neighbours' edges: the halo must come
 *             from them
 *   overlap   (HL_STUDENT_RESIDUAL, lab 13 (b)) rows, as blocking; the student's
 *             solve_overlapped runs the loop, calling the kit's jacobi_iteration (stencil and copy,
 *             recorded as computing in the trace, then the row exchange) and reducing delta
 *             itself; its residual is the last delta it received. The kit counts the iterations
 *
 * The kernel checks every run against a serial sweep of the whole grid on rank 0 (the same
 * stencil_row, so the same doubles): every point of every block exactly, the number of
 * iterations done (blocking: the first K whose delta is below tolerance, or all; overlap: one
 * more, min(K + 1, iterations), the convergence test being one iteration late; student: all)
 * and the residual (relative 1e-10: sums over ranks are added in another order).
 *
 * The student variant's secret: each rank draws SECRET_WORDS 64-bit words at run time
 * (getrandom) after make_grid and tells no other rank; every interior point (i, j) of its block
 * starts at initial(i, j) + perturbation(key, i * (nx + 2) + j), a multiple of 2^-52 below 1
 * that every word of the key decides (mix64 of the point's index and each word in turn), so the
 * sum is exact. A rank's key is 256 bytes: no reduction the part allows (16 bytes an iteration)
 * carries it in fewer than 16 iterations. The "secret" record (per rank, before the student's
 * neighbour_exchange first runs: the records are out of the cell's reach) holds the key (hex
 * words), the block's place and the process grid: the judge outside
 * (hybridlab.neighbour.exercise.secret_start) rebuilds the perturbed start from it and sweeps it
 * itself; the kernel's own check gathers the keys after the run (the kit's MPI_Gather).
 *
 * Records: per rank, thread 0's "timer" records (hl_halo.h phases; overlap: reduction = the time
 * outside the kit's helpers, the student's reduction and its waits), with px, py (the process
 * grid), rows, cols (the block) and iterations (done); rank 0's "checksum" (the interior's sum,
 * as halo2d's) and "check" records (ok, wrong points, iterations and expected_iterations,
 * residual and expected_residual, first_wrong_row/col: the first wrong point, global, or -1).
 */
#include "hybridlab.h"
#include "hl_grid2d.h"
#include <limits.h>
#include <stdint.h>
#include <sys/random.h>

#if defined(HL_STUDENT_NEIGHBOUR) || defined(HL_STUDENT_RESIDUAL)
#include "neighbour_halo_student.h"
#endif

#define MAX_POINTS (1L << 24) /* the reference grid is broadcast to every rank */

const char *const hl_kernel_description =
    "2-D Jacobi on a process grid: the kit's row exchange with a blocking MPI_Allreduce, the "
    "student's neighbourhood-collective halo on a Cartesian communicator (a), or the student's "
    "overlapped residual (b); checked point by point against a serial sweep";

const hl_param hl_kernel_params[] = {
    {"variant", "blocking", "blocking (kit) | student (lab 13 a) | overlap (lab 13 b)"},
    {"nx", "256", "interior columns"},
    {"ny", "256", "interior rows"},
    {"iterations", "100", "Jacobi iterations (the most, with a tolerance)"},
    {"px", "0", "variant=student: rows of processes asked of make_grid (0: MPI_Dims_create's)"},
    {"py", "0", "variant=student: columns of processes asked of make_grid (0: its choice)"},
    {"tolerance", "0", "stop after the first iteration whose delta is below this (0: never)"},
    HL_END_PARAMS,
};

enum { V_BLOCKING, V_STUDENT, V_OVERLAP, V_ALL };
static const char *const variant_names[V_ALL] = {"blocking", "student", "overlap"};

#define SECRET_WORDS 32 /* a rank's key: 256 bytes */

/* One block of the grid: the first global row and column it holds (1-based). */
typedef struct {
    grid2d g; /* g.nx: the block's columns; g.m its rows */
    long row0, col0;
    int nthreads;
    int secret;                   /* the student variant: the start perturbed by key */
    uint64_t key[SECRET_WORDS];
} block;

/* What the run is judged by that changes, or is read, while the student's calls run: sealed
 * evidence (hybridlab.h), read-only pages the kit writes through /proc/self/mem, not the block on
 * the kernel's stack, where a cell scanning up from its own frame set the tolerance to 0, so that
 * a loop that never tests it kept (b)'s points (issue 36's F13_tolerance, 4/4). */
typedef struct {
    double tolerance; /* the run's parameter, sealed before the student's first call */
    long done;        /* iterations done: the kit's loop, or jacobi_iteration's calls */
} neighbour_evidence;
_Static_assert(sizeof(neighbour_evidence) <= HL_SEALED_DATA, "neighbour_evidence: too large");
#define run_ev (*HL_SEALED(neighbour_evidence))

/* splitmix64's finaliser */
static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The perturbation of the global point at index `at` (row * (nx + 2) + column) of a block with
 * `key`: every word of the key decides it; a whole number of 2^-52 below 1. */
static double perturbation(const uint64_t key[SECRET_WORDS], uint64_t at) {
    uint64_t h = at;
    for (int w = 0; w < SECRET_WORDS; w++) h = mix64(h + key[w]);
    return (double)(h >> 12) * 0x1p-52;
}

/* A fresh key (getrandom; the clock mixed where it fails). */
static void draw_key(uint64_t key[SECRET_WORDS]) {
    size_t want = SECRET_WORDS * sizeof key[0];
    if (getrandom(key, want, 0) != (ssize_t)want) {
        uint64_t z = (uint64_t)(hl_now() * 1e9) ^ ((uint64_t)getpid() << 32);
        for (int w = 0; w < SECRET_WORDS; w++) key[w] = mix64(z += 0x9e3779b97f4a7c15ULL);
    }
}

/* Part k of `total` points split in `parts` (the first total mod parts get one more): its size,
 * and its first point (1-based) in *first. */
static long split(long total, int parts, int k, long *first) {
    long base = total / parts, extra = total % parts;
    *first = 1 + k * base + (k < extra ? k : extra);
    return base + (k < extra ? 1 : 0);
}

/* Allocate the block at coords of a dims process grid and set it to the start. Collective. */
static int block_setup(hl_ctx *ctx, block *k, long nx, long ny, const int dims[2],
                       const int coords[2]) {
    grid2d *g = &k->g;
    g->m = split(ny, dims[0], coords[0], &k->row0);
    g->nx = split(nx, dims[1], coords[1], &k->col0);
    g->w = g->nx + 2;
    size_t points = (size_t)(g->m + 2) * (size_t)g->w;
    g->a = malloc(points * sizeof(double));
    g->b = malloc(points * sizeof(double));
    g->acc = hl_timers_new(k->nthreads);
    int mine_ok = g->a && g->b && g->acc, all_ok = 0;
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, g->comm);
    if (!all_ok) return hl_fail(ctx, "no memory for a %ld x %ld grid on some rank", nx, ny);
#pragma omp parallel for schedule(static) num_threads(k->nthreads)
    for (long li = 0; li < g->m + 2; li++)
        for (long j = 0; j < g->w; j++) {
            long i = k->row0 - 1 + li, c = k->col0 - 1 + j;
            double u = initial(i, c);
            if (k->secret && li >= 1 && li <= g->m && j >= 1 && j <= g->nx)
                u += perturbation(k->key, (uint64_t)(i * (nx + 2) + c));
            A(g, li, j) = B(g, li, j) = u;
        }
    return 0;
}

/* The start's halo from the neighbours on the student's communicator (the kit's own exchange,
 * before the student's code first sees the block): each block's perturbed edges into its
 * neighbours' halos, as the serial sweep starts. An edge of the start tells nothing of the
 * columns and rows behind it, which the next iterations' edges depend on. */
static void start_halo(block *k, MPI_Comm cart) {
    grid2d *g = &k->g;
    int up, down, left, right, n = (int)g->nx;
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);
    MPI_Datatype col;
    MPI_Type_vector((int)g->m, 1, (int)g->w, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    MPI_Sendrecv(&A(g, g->m, 1), n, MPI_DOUBLE, down, 1, &A(g, 0, 1), n, MPI_DOUBLE, up, 1, cart,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&A(g, 1, 1), n, MPI_DOUBLE, up, 2, &A(g, g->m + 1, 1), n, MPI_DOUBLE, down, 2,
                 cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&A(g, 1, n), 1, col, right, 3, &A(g, 1, 0), 1, col, left, 3, cart,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&A(g, 1, 1), 1, col, left, 4, &A(g, 1, n + 1), 1, col, right, 4, cart,
                 MPI_STATUS_IGNORE);
    MPI_Type_free(&col);
}

/* The student variant's "secret" record: the key and the block's place (before the student's
 * exchange first runs). */
static void emit_secret(hl_ctx *ctx, const block *k, const int dims[2], const int coords[2]) {
    char hex[SECRET_WORDS * 16 + 1];
    for (int w = 0; w < SECRET_WORDS; w++)
        snprintf(hex + 16 * w, 17, "%016llx", (unsigned long long)k->key[w]);
    hl_emit(ctx,
            "\"record\":\"secret\",\"key\":\"%s\",\"row0\":%ld,\"col0\":%ld,\"rows\":%ld,"
            "\"cols\":%ld,\"px\":%d,\"py\":%d,\"prow\":%d,\"pcol\":%d",
            hex, k->row0, k->col0, k->g.m, k->g.nx, dims[0], dims[1], coords[0], coords[1]);
}

/* The stencil and copy of the whole block by the team (hl_grid2d.h's sweep: thread 0's jacobi
 * and other phases), recorded as computing in the trace; each thread's part of delta in its
 * timers' partial. */
static void compute_block(block *k) {
#ifdef HL_TRACE_MPI
    double t0 = hl_now();
#endif
#pragma omp parallel num_threads(k->nthreads)
    sweep(&k->g, &k->g.acc[omp_get_thread_num()]);
#ifdef HL_TRACE_MPI
    hl_trace_compute(t0, hl_now());
#endif
}

/* The kit's loop (blocking and student): sweep, exchange, MPI_Allreduce of delta, test. */
static void run_blocking(block *k, MPI_Comm cart) {
    grid2d *g = &k->g;
    hl_timers *me = &g->acc[0];
    double start = hl_now();
    (void)cart;
    for (long it = 0; it < g->iterations; it++) {
        hl_timers_iteration(me, 1, it);
        compute_block(k);
        double t1 = hl_now();
#ifdef HL_STUDENT_NEIGHBOUR
        if (cart != MPI_COMM_NULL) {
            neighbour_exchange(g->a, g->m, g->nx, cart);
            grid2d_kept(g, "neighbour_exchange");
        } else
#endif
        {
            send_down(g);
            send_up(g);
        }
        hl_phase(me, HL_HALO, t1);
        reduce_delta(g, k->nthreads, me);
        HL_SEALED_SET(run_ev, done, it + 1);
        if (run_ev.tolerance > 0 && g->delta < run_ev.tolerance) break;
    }
    me->t[HL_TOTAL] = hl_now() - start;
}

#ifdef HL_STUDENT_RESIDUAL
static block *solver_block; /* the block jacobi_iteration works on (one run at a time) */

double jacobi_iteration(void) {
    block *k = solver_block;
    grid2d *g = &k->g;
    grid2d_kept(g, "solve_overlapped"); /* the grid as the run began, on the stack it runs on */
    hl_timers_iteration(g->acc, 1, run_ev.done);
    compute_block(k);
    double t1 = hl_now();
    send_down(g);
    send_up(g);
    hl_phase(&g->acc[0], HL_HALO, t1);
    HL_SEALED_SET(run_ev, done, run_ev.done + 1);
    return hl_timers_sum(g->acc, k->nthreads);
}

/* The student's loop; what its time is not in the kit's helpers is its reduction. */
static void run_overlap(block *k) {
    hl_timers *me = &k->g.acc[0];
    solver_block = k;
    double start = hl_now();
    k->g.delta = solve_overlapped(k->g.iterations, run_ev.tolerance, k->g.comm);
    grid2d_kept(&k->g, "solve_overlapped");
    me->t[HL_TOTAL] = hl_now() - start;
    me->t[HL_REDUCTION] = me->t[HL_TOTAL] - me->t[HL_JACOBI] - me->t[HL_HALO] - me->t[HL_OTHER];
}
#endif

#ifdef HL_STUDENT_NEIGHBOUR
/* The student's communicator: Cartesian, 2-D, not periodic, every rank, the shape asked.
 * Collective; 0 with dims and coords set, or -1 with ctx->error set on every rank. */
static int student_grid(hl_ctx *ctx, MPI_Comm comm, long px, long py, MPI_Comm *cart, int dims[2],
                        int coords[2]) {
    int asked[2] = {(int)px, (int)py}, periods[2] = {0, 0}, topo = MPI_UNDEFINED, nd = 0, size = 0;
    char why[256] = "";
    *cart = make_grid(comm, asked);
    if (*cart == MPI_COMM_NULL)
        snprintf(why, sizeof why, "returned MPI_COMM_NULL on rank %d", ctx->rank);
    else if (MPI_Topo_test(*cart, &topo), topo != MPI_CART)
        snprintf(why, sizeof why, "rank %d's communicator has no Cartesian topology "
                 "(MPI_Cart_create makes one)", ctx->rank);
    else if (MPI_Cartdim_get(*cart, &nd), nd != 2)
        snprintf(why, sizeof why, "a %d-D Cartesian communicator; the process grid is 2-D", nd);
    else if (MPI_Comm_size(*cart, &size), size != ctx->size)
        snprintf(why, sizeof why, "the communicator holds %d of the %d ranks", size, ctx->size);
    else if (MPI_Cart_get(*cart, 2, dims, periods, coords), periods[0] || periods[1])
        snprintf(why, sizeof why, "a periodic process grid: the grid's boundary is fixed, not "
                 "wrapped around (periods = {0, 0})");
    else if ((px && dims[0] != px) || (py && dims[1] != py))
        snprintf(why, sizeof why, "a %d x %d process grid; asked %ld x %ld (0: any)", dims[0],
                 dims[1], px, py);
    int mine = why[0] == '\0', all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!mine) return hl_fail(ctx, "make_grid: %s", why);
    if (!all) return hl_fail(ctx, "make_grid: the communicator is wrong on another rank");
    return 0;
}
#endif

/* Rank 0's serial sweep of the whole grid until the variant stops: the grid (broadcast into
 * ref, (ny + 2) x (nx + 2)), the iterations expected and the residual expected. Collective. */
static void reference(block *k, int variant, long nx, long ny, double *ref, long *expected,
                      double *residual) {
    grid2d r = {.nx = nx, .m = ny, .w = nx + 2, .a = ref};
    double out[2] = {0.0, 0.0};
    int rank, size;
    MPI_Comm_rank(k->g.comm, &rank);
    MPI_Comm_size(k->g.comm, &size);
    /* the student variant: every block's place and key on rank 0 (after the student's loop) */
    enum { PLACE = 4, ROW = PLACE + SECRET_WORDS };
    uint64_t mine[ROW] = {(uint64_t)k->row0, (uint64_t)k->col0, (uint64_t)k->g.m,
                          (uint64_t)k->g.nx};
    memcpy(mine + PLACE, k->key, sizeof k->key);
    uint64_t *blocks = k->secret && rank == 0 ? malloc((size_t)size * ROW * sizeof *blocks) : NULL;
    if (k->secret)
        MPI_Gather(mine, ROW, MPI_UINT64_T, blocks, ROW, MPI_UINT64_T, 0, k->g.comm);
    if (rank == 0) {
        r.b = malloc((size_t)(ny + 2) * (size_t)(nx + 2) * sizeof(double));
        for (long i = 0; i < ny + 2; i++)
            for (long j = 0; j < nx + 2; j++) A(&r, i, j) = B(&r, i, j) = initial(i, j);
        for (int q = 0; blocks && q < size; q++) {
            const uint64_t *b = blocks + (size_t)q * ROW;
            for (long i = (long)b[0]; i < (long)(b[0] + b[2]); i++)
                for (long j = (long)b[1]; j < (long)(b[1] + b[3]); j++)
                    A(&r, i, j) = B(&r, i, j) =
                        initial(i, j) + perturbation(b + PLACE, (uint64_t)(i * (nx + 2) + j));
        }
        free(blocks);
        long converged = 0; /* the first iteration whose delta is below tolerance */
        for (long it = 1; it <= k->g.iterations; it++) {
            double delta = 0.0;
            for (long i = 1; i <= ny; i++) delta += stencil_row(&r, i);
            for (long i = 1; i <= ny; i++) copy_row(&r, i);
            out[0] = (double)it;
            if (!converged) out[1] = delta;
            if (!converged && run_ev.tolerance > 0 && delta < run_ev.tolerance) converged = it;
            if (converged && (variant != V_OVERLAP || it > converged)) break;
        }
        free(r.b);
    }
    MPI_Bcast(out, 2, MPI_DOUBLE, 0, k->g.comm);
    MPI_Bcast(ref, (int)((ny + 2) * (nx + 2)), MPI_DOUBLE, 0, k->g.comm);
    *expected = (long)out[0];
    *residual = out[1];
}

/* Compare the block with the reference and emit rank 0's checksum and check records. */
static void check(hl_ctx *ctx, block *k, int variant, long nx, long ny) {
    grid2d *g = &k->g;
    double *ref = malloc((size_t)(ny + 2) * (size_t)(nx + 2) * sizeof(double));
    long expected = 0;
    double want = 0.0;
    reference(k, variant, nx, ny, ref, &expected, &want);
    long wrong = 0, first = LONG_MAX; /* the first wrong point, as (row) * (nx + 2) + column */
    double local = 0.0, checksum = 0.0;
    for (long i = 1; i <= g->m; i++)
        for (long j = 1; j <= g->nx; j++) {
            long at = (k->row0 - 1 + i) * (nx + 2) + (k->col0 - 1 + j);
            local += A(g, i, j);
            if (A(g, i, j) != ref[at]) {
                wrong++;
                if (at < first) first = at;
            }
        }
    free(ref);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, g->comm);
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_LONG, MPI_MIN, g->comm);
    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, g->comm);
    if (ctx->rank != 0) return;
    double residual = g->delta;
    int residual_ok = fabs(residual - want) <= 1e-10 * fabs(want);
    long done = run_ev.done;
    int ok = wrong == 0 && done == expected && residual_ok;
    hl_emit(ctx,
            "\"record\":\"checksum\",\"checksum\":%.17g,\"delta\":%.17g,\"variant\":\"%s\","
            "\"ranks\":%d,\"nx\":%ld,\"ny\":%ld,\"iterations\":%ld",
            checksum, residual, variant_names[variant], ctx->size, nx, ny, done);
    hl_emit(ctx,
            "\"record\":\"check\",\"ok\":%d,\"wrong\":%ld,\"points\":%ld,\"iterations\":%ld,"
            "\"expected_iterations\":%ld,\"residual\":%.17g,\"expected_residual\":%.17g,"
            "\"first_wrong_row\":%ld,\"first_wrong_col\":%ld,\"variant\":\"%s\"",
            ok, wrong, nx * ny, done, expected, residual, want,
            wrong ? first / (nx + 2) : -1L, wrong ? first % (nx + 2) : -1L,
            variant_names[variant]);
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    int variant = hl_param_choice(ctx, "variant", variant_names, V_ALL);
    long nx = hl_param_long(ctx, "nx", 1, &ok), ny = hl_param_long(ctx, "ny", 1, &ok);
    long iterations = hl_param_long(ctx, "iterations", 1, &ok);
    long px = hl_param_long(ctx, "px", 0, &ok), py = hl_param_long(ctx, "py", 0, &ok);
    double tolerance = hl_param_double(ctx, "tolerance", 0.0, &ok);
    if (!ok || variant < 0) return -1;
    if (nx * ny > MAX_POINTS)
        return hl_fail(ctx, "grid nx=%ld x ny=%ld is too large (at most %ld points)", nx, ny,
                       MAX_POINTS);
#ifndef HL_STUDENT_NEIGHBOUR
    if (variant == V_STUDENT)
        return hl_fail(ctx, "variant student needs make_grid and neighbour_exchange (lab 13 a)");
#endif
#ifndef HL_STUDENT_RESIDUAL
    if (variant == V_OVERLAP) return hl_fail(ctx, "variant overlap needs solve_overlapped (lab 13 b)");
#endif
    if (px > ctx->size || py > ctx->size)
        return hl_fail(ctx, "a %ld x %ld process grid on %d ranks", px, py, ctx->size);

    block k = {.g = {.comm = comm, .iterations = iterations, .rank = ctx->rank},
               .nthreads = omp_get_max_threads(), .secret = variant == V_STUDENT};
    HL_SEALED_SET(run_ev, tolerance, tolerance);
    HL_SEALED_SET(run_ev, done, 0);
    int dims[2] = {ctx->size, 1}, coords[2] = {ctx->rank, 0};
    MPI_Comm cart = MPI_COMM_NULL;
    int rc = 0;
#ifdef HL_STUDENT_NEIGHBOUR
    if (variant == V_STUDENT && (rc = student_grid(ctx, comm, px, py, &cart, dims, coords)) != 0)
        goto done;
#endif
    if (ny < dims[0] || nx < dims[1]) {
        rc = hl_fail(ctx, "grid too small: %ld x %ld points cannot be split over %d x %d "
                     "processes (each needs a point)", ny, nx, dims[0], dims[1]);
        goto done;
    }
    k.g.up = coords[0] > 0 ? ctx->rank - 1 : MPI_PROC_NULL; /* rows: blocking and overlap */
    k.g.down = coords[0] < dims[0] - 1 ? ctx->rank + 1 : MPI_PROC_NULL;
    if (k.secret) draw_key(k.key); /* after make_grid returned: the cell never sees it drawn */
    if ((rc = block_setup(ctx, &k, nx, ny, dims, coords)) != 0) goto done;
    if (k.secret) {
        emit_secret(ctx, &k, dims, coords);
        start_halo(&k, cart);
    }

    grid2d_keep(ctx, &k.g); /* the student's calls run on this stack (hl_grid2d.h) */
    MPI_Barrier(comm);
#ifdef HL_STUDENT_RESIDUAL
    if (variant == V_OVERLAP)
        run_overlap(&k);
    else
#endif
        run_blocking(&k, cart);

    char tail[512];
    snprintf(tail, sizeof tail,
             "\"variant\":\"%s\",\"ranks\":%d,\"threads\":%d,\"nx\":%ld,\"ny\":%ld,\"px\":%d,"
             "\"py\":%d,\"rows\":%ld,\"cols\":%ld,\"iterations\":%ld,\"tolerance\":%.9g",
             variant_names[variant], ctx->size, k.nthreads, nx, ny, dims[0], dims[1], k.g.m,
             k.g.nx, run_ev.done, tolerance);
    hl_halo_emit(ctx, k.g.acc, 1, 0, 0.0, tail); /* thread 0 times every phase */
    check(ctx, &k, variant, nx, ny);
done:
    if (cart != MPI_COMM_NULL) MPI_Comm_free(&cart);
    grid2d_free(&k.g, k.nthreads);
    return rc;
}
