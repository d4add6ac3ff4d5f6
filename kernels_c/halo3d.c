/* halo3d: 3-D Jacobi (7-point stencil) on a 3-D process grid (MPI_Dims_create, MPI_Cart_create),
 * after Stathopoulos 2010, section 4.6 (the Jacobi kernel on HECToR): pure MPI, master only, funnelled and
 * multiple; blocking (MPI_Sendrecv per face) or non-blocking (MPI_Irecv/MPI_Isend, MPI_Waitall)
 * halo exchange.
 *
 *   pure        one thread: halo exchange, stencil, MPI_Allreduce of delta
 *   masteronly  as pure, with `omp for` on the stencil; MPI outside the parallel region
 *   funnelled   the master thread exchanges the halos while the other threads update the inner
 *               points (those that need no halo); then the master updates its own share of the
 *               inner points and the whole boundary shell. master_share = the fraction of the
 *               inner X planes the master takes (Stathopoulos's "optimal" runs shrink it)
 *   comm_wait_us  (pure, masteronly, funnelled) the master sleeps this long after each halo
 *               exchange, inside the halo phase: an emulated network wait (lab 08 measures the
 *               overlap model of Rabenseifner, slide 42 with it on machines with few cores)
 *   multiple    threads own slabs of X planes; each thread exchanges its own part of the Y and
 *               Z faces (the first and last threads also the X faces) and updates its slab
 *               (MPI_THREAD_MULTIPLE)
 * Threads split the local block along X (the first dimension), as in Stathopoulos 2010.
 *
 * Process grid: dims=PXxPYxPZ (Stathopoulos's 16x4x2 ... on 128 ranks), or MPI_Dims_create's
 * (dims=auto).
 *
 * Grid: nx x ny x nz interior points plus a fixed boundary; global point (i, j, k), each index
 * from 0 to n+1, starts at u0 = ((7 i + 13 j + 19 k) mod 23) / 22. One iteration:
 *     new = (u(i-1) + u(i+1) + u(j-1) + u(j+1) + u(k-1) + u(k+1)) / 6     (in this order)
 *     delta = sum over the interior of (new - u)^2 (MPI_Allreduce); then old and new swap.
 * Each dimension is split in blocks (the first n mod p coordinates get one more). The numpy
 * reference is hybridlab.halo.serial.jacobi3d.
 *
 * Records as halo2d: per rank and thread, phases jacobi / halo / reduction / other (barrier
 * waits) / total; rank 0 emits the checksum (interior sum after the last iteration) and delta.
 * timeline=1, as in halo2d, adds one "timeline" record per interval a thread spent in a phase
 * (start and end since a common start) for the first timeline_iterations iterations: a trace
 * for hybridlab.runs.traces.chrome_trace. In masteronly the other threads' tracks have gaps while
 * the master exchanges and reduces outside the parallel region; in funnelled they wait in the
 * barrier (other) while the master finishes the halo and the boundary shell.
 */
#include "hybridlab.h"
#include "hl_halo.h"

/* -DHL_NETWORK_ONLY (hybridlab.simulate's network-only runs under SimGrid SMPI, which does not
 * simulate computation then): no first touch, no stencil, no face copies, no checksum; the
 * arrays are allocated and never touched, so paper-size grids cost no memory and no time, and
 * only the messages are real (their sizes as in a full run). */
#ifdef HL_NETWORK_ONLY
#define HL_COMPUTES 0
#else
#define HL_COMPUTES 1
#endif

const char *const hl_kernel_description =
    "3-D Jacobi on a 3-D process grid (Stathopoulos 2010, section 4.6): pure, masteronly, funnelled "
    "(tunable master share), multiple; blocking or non-blocking halos; phase timers (timeline=1: "
    "also each interval's start and end), checksum";

const hl_param hl_kernel_params[] = {
    {"variant", "pure", "pure | masteronly | funnelled | multiple"},
    {"nx", "64", "global interior points along X (threads split X)"},
    {"ny", "64", "global interior points along Y"},
    {"nz", "64", "global interior points along Z (contiguous in memory)"},
    {"iterations", "20", "Jacobi iterations"},
    {"nonblocking", "0", "1: MPI_Irecv/MPI_Isend + MPI_Waitall; 0: MPI_Sendrecv per face"},
    {"master_share", "equal",
     "funnelled: fraction (0-1) of the inner X planes the master updates; equal = 1/threads"},
    {"comm_wait_us", "0",
     "pure, masteronly, funnelled: the master sleeps this long after each exchange (emulated "
     "network wait, counted as halo)"},
    {"dims", "auto",
     "process grid PXxPYxPZ (e.g. 16x4x2, Stathopoulos's decompositions); auto: "
     "MPI_Dims_create"},
    HL_TIMELINE_PARAMS,
    HL_END_PARAMS,
};

enum { V_PURE, V_MASTERONLY, V_FUNNELLED, V_MULTIPLE, V_COUNT };
static const char *const variant_names[V_COUNT] = {"pure", "masteronly", "funnelled",
                                                   "multiple"};

typedef struct {
    MPI_Comm cart;
    long l[3];     /* local interior extents lx, ly, lz */
    long sj, si;   /* strides of j and i: (lz+2), (ly+2)(lz+2) */
    double *a, *b; /* current and next iterate (swapped) */
    int nb[3][2];  /* neighbour ranks [dim][0 = minus, 1 = plus] */
    int nonblocking;
    long iterations;
    long wait_us;   /* emulated network wait after each exchange (master only) */
    hl_timers *acc; /* per thread: phase seconds, and its part of delta */
    double delta;
} grid3d;

#define IDX(g, i, j, k) ((i) * (g)->si + (j) * (g)->sj + (k))

static double initial(long i, long j, long k) {
    return (double)((7 * i + 13 * j + 19 * k) % 23) / 22.0;
}

/* Stencil on the box [i0,i1] x [j0,j1] x [k0,k1] from a into b; the box's sum of squared
 * changes. */
static double stencil_box(grid3d *g, long i0, long i1, long j0, long j1, long k0, long k1) {
    const double *a = g->a;
    double *b = g->b, d2 = 0.0;
    const long si = g->si, sj = g->sj;
    if (!HL_COMPUTES) i1 = i0 - 1;
    for (long i = i0; i <= i1; i++)
        for (long j = j0; j <= j1; j++)
#pragma omp simd reduction(+ : d2)
            for (long k = k0; k <= k1; k++) {
                long p = i * si + j * sj + k;
                double v =
                    (a[p - si] + a[p + si] + a[p - sj] + a[p + sj] + a[p - 1] + a[p + 1]) / 6.0;
                double d = v - a[p];
                d2 += d * d;
                b[p] = v;
            }
    return d2;
}

/* The points that read a halo value: every point with an index at 1 or at the extent. */
static double stencil_shell(grid3d *g) {
    long lx = g->l[0], ly = g->l[1], lz = g->l[2];
    double d2 = stencil_box(g, 1, 1, 1, ly, 1, lz);
    if (lx > 1) d2 += stencil_box(g, lx, lx, 1, ly, 1, lz);
    if (lx > 2) {
        d2 += stencil_box(g, 2, lx - 1, 1, 1, 1, lz);
        if (ly > 1) d2 += stencil_box(g, 2, lx - 1, ly, ly, 1, lz);
        if (ly > 2) {
            d2 += stencil_box(g, 2, lx - 1, 2, ly - 1, 1, 1);
            if (lz > 1) d2 += stencil_box(g, 2, lx - 1, 2, ly - 1, lz, lz);
        }
    }
    return d2;
}

/* ------------------------------------------------------------------ halo exchange */

/* The face of dimension d on side s (0 minus, 1 plus), restricted to X planes [i0, i1] for the
 * Y and Z faces: `layer` 0 is the halo, 1 the owned plane next to it. Packs to / unpacks from
 * buf. Returns the number of values. */
static long face_copy(grid3d *g, int d, int s, int layer, long i0, long i1, double *buf,
                      int unpack) {
    long lx = g->l[0], ly = g->l[1], lz = g->l[2], n = 0;
    long at = s ? g->l[d] + 1 - layer : layer; /* halo: 0 or l+1; owned: 1 or l */
    long ilo = d == 0 ? at : i0, ihi = d == 0 ? at : i1;
    long jlo = d == 1 ? at : 1, jhi = d == 1 ? at : ly;
    long klo = d == 2 ? at : 1, khi = d == 2 ? at : lz;
    (void)lx;
    if (!HL_COMPUTES) /* network only: the face's size, its data never read or written */
        return (ihi >= ilo ? ihi - ilo + 1 : 0) * (jhi - jlo + 1) * (khi - klo + 1);
    double *u = g->a;
    for (long i = ilo; i <= ihi; i++)
        for (long j = jlo; j <= jhi; j++)
            for (long k = klo; k <= khi; k++, n++) {
                if (unpack)
                    u[IDX(g, i, j, k)] = buf[n];
                else
                    buf[n] = u[IDX(g, i, j, k)];
            }
    return n;
}

/* Tag of a message travelling along dimension d towards side s, for thread slot t. */
static int face_tag(int d, int s, int t) { return 8 * t + 2 * d + s; }

typedef struct {
    double *send[6], *recv[6];
} face_bufs;

/* Exchange the faces named in `faces` (bit 2d+s) of X planes [i0, i1] with the neighbours;
 * `slot` tells apart the threads of `multiple` (0 for the others). Blocking: one MPI_Sendrecv
 * per face with the neighbour on that side. Non-blocking: MPI_Irecv all, MPI_Isend all,
 * MPI_Waitall. Halos facing no neighbour (the global boundary) are left as they are. */
static void exchange(grid3d *g, int faces, long i0, long i1, int slot, face_bufs *fb) {
    MPI_Request req[12];
    int nreq = 0;
    long count[6] = {0};
    for (int f = 0; f < 6; f++) {
        if (!(faces & (1 << f))) continue;
        int d = f / 2, s = f % 2, peer = g->nb[d][s], t = d == 0 ? 0 : slot;
        count[f] = face_copy(g, d, s, 1, i0, i1, fb->send[f], 0);
        if (g->nonblocking) {
            MPI_Irecv(fb->recv[f], (int)count[f], MPI_DOUBLE, peer, face_tag(d, 1 - s, t),
                      g->cart, &req[nreq++]);
        } else {
            MPI_Sendrecv(fb->send[f], (int)count[f], MPI_DOUBLE, peer, face_tag(d, s, t),
                         fb->recv[f], (int)count[f], MPI_DOUBLE, peer, face_tag(d, 1 - s, t),
                         g->cart, MPI_STATUS_IGNORE);
        }
    }
    if (g->nonblocking) {
        for (int f = 0; f < 6; f++) {
            if (!(faces & (1 << f))) continue;
            int d = f / 2, s = f % 2, t = d == 0 ? 0 : slot;
            MPI_Isend(fb->send[f], (int)count[f], MPI_DOUBLE, g->nb[d][s], face_tag(d, s, t),
                      g->cart, &req[nreq++]);
        }
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    }
    for (int f = 0; f < 6; f++)
        if ((faces & (1 << f)) && g->nb[f / 2][f % 2] != MPI_PROC_NULL)
            face_copy(g, f / 2, f % 2, 0, i0, i1, fb->recv[f], 1);
}

static int alloc_bufs(grid3d *g, long xplanes, face_bufs *fb) {
    long size[3] = {g->l[1] * g->l[2], xplanes * g->l[2], xplanes * g->l[1]};
    int ok = 1;
    for (int f = 0; f < 6; f++) {
        fb->send[f] = malloc((size_t)(size[f / 2] > 0 ? size[f / 2] : 1) * sizeof(double));
        fb->recv[f] = malloc((size_t)(size[f / 2] > 0 ? size[f / 2] : 1) * sizeof(double));
        ok = ok && fb->send[f] && fb->recv[f];
    }
    return ok;
}

static void free_bufs(face_bufs *fb) {
    for (int f = 0; f < 6; f++) {
        free(fb->send[f]);
        free(fb->recv[f]);
    }
}

static void swap(grid3d *g) {
    double *t = g->a;
    g->a = g->b;
    g->b = t;
}

/* After the stencil (by the master, after a barrier, when threads share it): delta from the
 * threads' parts in thread order and over the ranks, then the next iterate; timed as the
 * reduction. */
static void reduce_and_swap(grid3d *g, int nthreads, hl_timers *me) {
    double r0 = hl_now(), sum = hl_timers_sum(g->acc, nthreads);
    MPI_Allreduce(&sum, &g->delta, 1, MPI_DOUBLE, MPI_SUM, g->cart);
    swap(g);
    hl_phase(me, HL_REDUCTION, r0);
}

/* Block split of [1, n] into `parts`: the first n mod parts get one more. */
static void block(long n, int parts, int which, long *lo, long *hi) {
    long base = n / parts, extra = n % parts;
    *lo = 1 + which * base + (which < extra ? which : extra);
    *hi = *lo + base + (which < extra ? 1 : 0) - 1;
}

/* ------------------------------------------------------------------------ variants */

static void run_pure(grid3d *g, face_bufs *fb) {
    hl_timers *me = &g->acc[0];
    double start = hl_now();
    for (long it = 0; it < g->iterations; it++) {
        hl_timers_iteration(me, 1, it);
        double t0 = hl_now();
        exchange(g, 63, 1, g->l[0], 0, fb);
        hl_sleep_us(g->wait_us);
        double t1 = hl_phase(me, HL_HALO, t0);
        me->partial = stencil_box(g, 1, g->l[0], 1, g->l[1], 1, g->l[2]);
        hl_phase(me, HL_JACOBI, t1);
        reduce_and_swap(g, 1, me);
    }
    me->t[HL_TOTAL] = hl_now() - start;
}

static void run_masteronly(grid3d *g, int nthreads, face_bufs *fb) {
    double start = hl_now();
    for (long it = 0; it < g->iterations; it++) {
        hl_timers_iteration(g->acc, nthreads, it);
        double t0 = hl_now();
        exchange(g, 63, 1, g->l[0], 0, fb);
        hl_sleep_us(g->wait_us);
        hl_phase(&g->acc[0], HL_HALO, t0);
#pragma omp parallel num_threads(nthreads)
        {
            hl_timers *me = &g->acc[omp_get_thread_num()];
            double j0 = hl_now(), local = 0.0;
#pragma omp for schedule(static) nowait
            for (long i = 1; i <= g->l[0]; i++)
                local += stencil_box(g, i, i, 1, g->l[1], 1, g->l[2]);
            me->partial = local;
            hl_phase(me, HL_JACOBI, j0);
            hl_barrier_phase(me, HL_OTHER);
        }
        reduce_and_swap(g, nthreads, &g->acc[0]);
    }
    double total = hl_now() - start;
    for (int t = 0; t < nthreads; t++) g->acc[t].t[HL_TOTAL] = total;
}

/* The master's inner X planes: [2, 2 + share*inner - 1]; the others split the rest. */
static void funnelled_range(grid3d *g, int nthreads, double share, int t, long *lo, long *hi) {
    long inner = g->l[0] - 2 > 0 ? g->l[0] - 2 : 0;
    long mine = nthreads == 1 ? inner : (long)(share * (double)inner + 0.5);
    if (mine > inner) mine = inner;
    if (t == 0) {
        *lo = 2;
        *hi = 2 + mine - 1;
        return;
    }
    long rlo, rhi;
    block(inner - mine, nthreads - 1, t - 1, &rlo, &rhi);
    *lo = 2 + mine + rlo - 1;
    *hi = 2 + mine + rhi - 1;
}

static void run_funnelled(grid3d *g, int nthreads, double share, face_bufs *fb) {
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
        hl_timers *me = &g->acc[t];
        long lo, hi;
        funnelled_range(g, nthreads, share, t, &lo, &hi);
        double start = hl_now();
        for (long it = 0; it < g->iterations; it++) {
            hl_timers_iteration(me, 1, it);
            double local = 0.0, t0 = hl_now();
            if (t == 0) {
                exchange(g, 63, 1, g->l[0], 0, fb);
                hl_sleep_us(g->wait_us);
                t0 = hl_phase(me, HL_HALO, t0);
            }
            if (hi >= lo) local += stencil_box(g, lo, hi, 2, g->l[1] - 1, 2, g->l[2] - 1);
            if (t == 0) local += stencil_shell(g);
            me->partial = local;
            hl_phase(me, HL_JACOBI, t0);
            hl_barrier_phase(me, HL_OTHER);
            if (t == 0) reduce_and_swap(g, nthreads, me);
            hl_barrier_phase(me, HL_OTHER);
        }
        me->t[HL_TOTAL] = hl_now() - start;
    }
}

static void run_multiple(grid3d *g, int nthreads, int *alloc_failed) {
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
        hl_timers *me = &g->acc[t];
        long lo, hi;
        block(g->l[0], nthreads, t, &lo, &hi);
        face_bufs fb;
        int ok = alloc_bufs(g, hi - lo + 1, &fb);
        if (!ok) {
#pragma omp atomic write
            *alloc_failed = 1;
        }
#pragma omp barrier
        int faces = 4 | 8 | 16 | 32 | (t == 0 ? 1 : 0) | (t == nthreads - 1 ? 2 : 0);
        double start = hl_now();
        for (long it = 0; it < g->iterations && !*alloc_failed; it++) {
            hl_timers_iteration(me, 1, it);
            double t0 = hl_now();
            exchange(g, faces, lo, hi, t, &fb);
            double t1 = hl_phase(me, HL_HALO, t0);
            me->partial = stencil_box(g, lo, hi, 1, g->l[1], 1, g->l[2]);
            hl_phase(me, HL_JACOBI, t1);
            hl_barrier_phase(me, HL_OTHER);
            if (t == 0) reduce_and_swap(g, nthreads, me);
            hl_barrier_phase(me, HL_OTHER);
        }
        me->t[HL_TOTAL] = hl_now() - start;
        free_bufs(&fb);
    }
}

/* The process grid: `text` "PXxPYxPZ" whose product is the number of ranks, or "auto"
 * (MPI_Dims_create); 0, or -1 with ctx->error set. */
static int process_grid(hl_ctx *ctx, const char *text, int dims[3]) {
    if (strcmp(text, "auto") == 0) {
        MPI_Dims_create(ctx->size, 3, dims);
        return 0;
    }
    char end;
    if (sscanf(text, "%dx%dx%d%c", &dims[0], &dims[1], &dims[2], &end) != 3 || dims[0] < 1 ||
        dims[1] < 1 || dims[2] < 1)
        return hl_fail(ctx, "parameter dims=%s is not PXxPYxPZ (e.g. 16x4x2) or auto", text);
    if ((long)dims[0] * dims[1] * dims[2] != ctx->size)
        return hl_fail(ctx, "process grid dims=%s has %ld ranks, but the run has %d", text,
                       (long)dims[0] * dims[1] * dims[2], ctx->size);
    return 0;
}

/* ---------------------------------------------------------------------------- kernel */

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    int variant = hl_param_choice(ctx, "variant", variant_names, V_COUNT);
    if (variant < 0) return -1;
    long n[3];
    n[0] = hl_param_long(ctx, "nx", 1, &ok);
    if (!ok) return -1;
    n[1] = hl_param_long(ctx, "ny", 1, &ok);
    if (!ok) return -1;
    n[2] = hl_param_long(ctx, "nz", 1, &ok);
    if (!ok) return -1;
    long iterations = hl_param_long(ctx, "iterations", 0, &ok);
    if (!ok) return -1;
    long nonblocking = hl_param_long(ctx, "nonblocking", 0, &ok);
    if (!ok) return -1;
    if (nonblocking > 1)
        return hl_fail(ctx, "parameter nonblocking=%ld must be 0 or 1", nonblocking);
    long wait_us = hl_param_long(ctx, "comm_wait_us", 0, &ok);
    if (!ok) return -1;
    if (wait_us > 10000000L)
        return hl_fail(ctx, "parameter comm_wait_us=%ld is above 10 s", wait_us);
    long keep = hl_param_timeline(ctx, iterations);
    if (keep < 0) return -1;
    if (wait_us > 0 && variant == V_MULTIPLE)
        return hl_fail(ctx, "comm_wait_us is for pure, masteronly and funnelled (one thread "
                            "communicates); variant multiple has no single master exchange");
    if (n[0] > 100000 || n[1] > 100000 || n[2] > 100000 ||
        n[0] * n[1] * n[2] > HL_HALO_MAX_POINTS)
        return hl_fail(ctx, "grid %ld x %ld x %ld is too large (at most %g points)", n[0], n[1],
                       n[2], (double)HL_HALO_MAX_POINTS);
    int nthreads = variant == V_PURE ? 1 : omp_get_max_threads();
    double share = 1.0 / nthreads;
    const char *sshare = hl_param_str(ctx, "master_share");
    if (!sshare || strcmp(sshare, "equal") != 0) {
        share = hl_param_double(ctx, "master_share", 0.0, &ok);
        if (!ok) return -1;
        if (share > 1.0)
            return hl_fail(ctx, "parameter master_share=%g must be between 0 and 1", share);
    }

    if (variant == V_MULTIPLE &&
        hl_require_level(ctx, MPI_THREAD_MULTIPLE,
                         "variant multiple calls MPI from every thread at once"))
        return -1;
    if ((variant == V_MASTERONLY || variant == V_FUNNELLED) &&
        hl_require_level(ctx, MPI_THREAD_FUNNELED,
                         "variant %s calls MPI from the master thread of a threaded process",
                         variant_names[variant]))
        return -1;

    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
    if (process_grid(ctx, hl_param_str(ctx, "dims"), dims) != 0) return -1;
    for (int d = 0; d < 3; d++)
        if (n[d] < dims[d])
            return hl_fail(ctx,
                           "grid too small: %d ranks form a %d x %d x %d process grid, so "
                           "n%c=%ld must be at least %d",
                           ctx->size, dims[0], dims[1], dims[2], "xyz"[d], n[d], dims[d]);
    if (variant == V_MULTIPLE && n[0] / dims[0] < nthreads)
        return hl_fail(ctx,
                       "variant multiple gives each thread its own X planes: nx=%ld over %d "
                       "ranks along X leaves fewer than %d planes (threads) on some rank",
                       n[0], dims[0], nthreads);

    grid3d g = {.nonblocking = (int)nonblocking, .iterations = iterations, .wait_us = wait_us};
    MPI_Cart_create(comm, 3, dims, periods, 0, &g.cart);
    MPI_Cart_coords(g.cart, ctx->rank, 3, coords);
    long first[3];
    for (int d = 0; d < 3; d++) {
        long lo, hi;
        block(n[d], dims[d], coords[d], &lo, &hi);
        g.l[d] = hi - lo + 1;
        first[d] = lo;
        MPI_Cart_shift(g.cart, d, 1, &g.nb[d][0], &g.nb[d][1]);
    }
    g.sj = g.l[2] + 2;
    g.si = (g.l[1] + 2) * g.sj;
    size_t points = (size_t)(g.l[0] + 2) * (size_t)g.si;
    g.a = malloc(points * sizeof(double));
    g.b = malloc(points * sizeof(double));
    g.acc = hl_timers_new(nthreads);
    face_bufs fb = {{0}, {0}};
    int mine_ok = g.a && g.b && g.acc && hl_timeline_new(g.acc, nthreads, keep) == 0 &&
                  (variant == V_MULTIPLE || alloc_bufs(&g, g.l[0], &fb));
    int all_ok = 0;
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int rc = 0;
    if (!all_ok) {
        rc = hl_fail(ctx, "no memory for a %ld x %ld x %ld grid on some rank", n[0], n[1], n[2]);
        goto done;
    }
    /* First touch by the threads that update the X planes. */
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (long i = 0; i < (HL_COMPUTES ? g.l[0] + 2 : 0); i++)
        for (long j = 0; j < g.l[1] + 2; j++)
            for (long k = 0; k < g.l[2] + 2; k++)
                g.a[IDX(&g, i, j, k)] = g.b[IDX(&g, i, j, k)] =
                    initial(first[0] - 1 + i, first[1] - 1 + j, first[2] - 1 + k);

    MPI_Barrier(comm);
    const double origin = hl_now(); /* the timeline's common start */
    int alloc_failed = 0;
    switch (variant) {
    case V_PURE: run_pure(&g, &fb); break;
    case V_MASTERONLY: run_masteronly(&g, nthreads, &fb); break;
    case V_FUNNELLED: run_funnelled(&g, nthreads, share, &fb); break;
    default: run_multiple(&g, nthreads, &alloc_failed); break;
    }
    int any_failed = 0;
    MPI_Allreduce(&alloc_failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
    if (any_failed) {
        rc = hl_fail(ctx, "no memory for the halo buffers of some thread");
        goto done;
    }

    double local = 0.0, checksum = 0.0;
    for (long i = 1; i <= (HL_COMPUTES ? g.l[0] : 0); i++)
        for (long j = 1; j <= g.l[1]; j++)
            for (long k = 1; k <= g.l[2]; k++) local += g.a[IDX(&g, i, j, k)];
    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);

    char tail[768];
    snprintf(tail, sizeof tail,
             "\"variant\":\"%s\",\"ranks\":%d,\"threads\":%d,\"nx\":%ld,\"ny\":%ld,"
             "\"nz\":%ld,\"px\":%d,\"py\":%d,\"pz\":%d,\"lx\":%ld,\"ly\":%ld,\"lz\":%ld,"
             "\"iterations\":%ld,\"nonblocking\":%ld,\"master_share\":%.6g,"
             "\"comm_wait_us\":%ld",
             variant_names[variant], ctx->size, nthreads, n[0], n[1], n[2], dims[0], dims[1],
             dims[2], g.l[0], g.l[1], g.l[2], iterations, nonblocking, share, wait_us);
    if ((rc = hl_halo_emit(ctx, g.acc, nthreads, keep, origin, tail)) != 0) goto done;
    if (ctx->rank == 0 && HL_COMPUTES)
        hl_emit(ctx,
                "\"record\":\"checksum\",\"checksum\":%.17g,\"delta\":%.17g,\"variant\":\"%s\","
                "\"ranks\":%d,\"threads\":%d,\"nx\":%ld,\"ny\":%ld,\"nz\":%ld,\"iterations\":%ld,"
                "\"nonblocking\":%ld,\"master_share\":%.6g",
                checksum, g.delta, variant_names[variant], ctx->size, nthreads, n[0], n[1], n[2],
                iterations, nonblocking, share);
done:
    if (variant != V_MULTIPLE) free_bufs(&fb);
    free(g.a);
    free(g.b);
    hl_timers_free(g.acc, nthreads);
    MPI_Comm_free(&g.cart);
    return rc;
}
