/* fft3d: a distributed 3-D FFT of an n x n x n complex grid, the transpose done by MPI_Alltoall,
 * after the hybrid program of Luecke et al., section 4: slabs of m = n / p planes per rank,
 * 1-D FFTs along the local dimensions, a global transpose with MPI_Alltoall, 1-D FFTs along the
 * third dimension, and a second MPI_Alltoall that brings the result back to the input's layout
 * ("normal form"). Pure MPI is the same program with one thread per rank.
 *
 * Layout (row-major, the last index fastest): rank r holds x[k][j][i] = x(j1 = i, j2 = j,
 * j3 = r*m + k). The phases, in Luecke et al.'s loop numbering:
 *   loop 1  FFT along i (m*n FFTs of length n)          fft
 *   loop 2  transpose i <-> j inside each plane          rearrange
 *   loop 3  FFT along j                                 fft
 *   loop 4  pack: block q gets the k1 in [q*m, q*m+m)    rearrange
 *           MPI_Alltoall, n*m*m complex numbers to each rank           alltoall
 *   loop 5  unpack so that j3 is contiguous             rearrange
 *   loop 6  FFT along j3                                fft
 *   loop 7  pack: block q gets the k3 in [q*m, q*m+m)    rearrange
 *           MPI_Alltoall back                                          alltoall
 *   loop 8  unpack into out[k3 local][k2][k1]           rearrange
 * The threads share every loop (schedule(runtime): the `schedule` parameter, or OMP_SCHEDULE with
 * schedule=runtime); only the master thread calls MPI (Luecke et al. used omp single with
 * MPI_THREAD_MULTIPLE; funneled is enough here). Every thread times the phases between the
 * barriers that end the loops (hl_phase); the records are the master's.
 *
 * 1-D FFTs: FFTW 3 (libfftw3.so.3, loaded at run time with dlopen, one plan per length executed
 * by every thread on its own lines, as Luecke et al. called ACML's ZFFT1M inside `omp do`), or, when FFTW
 * is absent or fft=builtin, a radix-2 Cooley-Tukey written here (n a power of two). Records
 * say which.
 *
 * Input: x(j1, j2, j3) = sin(0.1 j1 + 0.37 j2 + 0.73 j3 + 0.011 j1 j3)
 *                       + i cos(0.05 j1 j2 - 0.2 j3)        (hybridlab.collectives.fft_input)
 * Checks (every repetition's result is the same): Parseval, sum |X|^2 = n^3 sum |x|^2, to 1e-9
 * relative; `checks` output points against a direct DFT sum; a weighted checksum of all points
 * for the lab to compare with numpy.fft.fftn; dump=1 emits every output point (small n only).
 */
#include "hybridlab.h"

#include <complex.h>
#include <dlfcn.h>

const char *const hl_kernel_description =
    "Distributed 3-D FFT (slabs, two MPI_Alltoall transposes, OpenMP over the local loops) "
    "after Luecke et al., section 4; phases fft / rearrange / alltoall timed per repetition; checked";

const hl_param hl_kernel_params[] = {
    {"n", "64", "grid side: n^3 complex points; ranks must divide n"},
    {"repetitions", "5", "timed repetitions after one warm-up (Luecke et al.: minimum of 10 trials)"},
    HL_SCHEDULE_PARAMS,
    {"fft", "auto", "1-D FFTs: auto (FFTW if it loads, else builtin), fftw or builtin"},
    {"checks", "4", "output points per rank checked against a direct DFT sum"},
    {"dump", "0", "1: emit every output point as a record (n <= 32)"},
    HL_END_PARAMS,
};

typedef double complex cplx;

/* ------------------------------------------------------------------ 1-D FFTs */

/* The few FFTW 3 functions used, declared here so that no header is needed. */
typedef void *fftw_plan_t;
typedef struct {
    void *lib;
    fftw_plan_t (*plan_many)(int, const int *, int, cplx *, const int *, int, int, cplx *,
                             const int *, int, int, int, unsigned);
    void (*execute_dft)(const fftw_plan_t, cplx *, cplx *);
    void (*destroy)(fftw_plan_t);
    const char *version;
} fftw_api;

#define FFTW_FORWARD (-1)
#define FFTW_ESTIMATE (1U << 6)
#define FFTW_UNALIGNED (1U << 1)

static int fftw_load(fftw_api *api) {
    const char *names[] = {"libfftw3.so.3", "libfftw3.so", NULL};
    memset(api, 0, sizeof *api);
    for (int i = 0; names[i] && !api->lib; i++) api->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        const char *prefix = getenv("CONDA_PREFIX");
        char path[1024];
        if (prefix) {
            snprintf(path, sizeof path, "%s/lib/libfftw3.so.3", prefix);
            api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (!api->lib) return 0;
    *(void **)&api->plan_many = dlsym(api->lib, "fftw_plan_many_dft");
    *(void **)&api->execute_dft = dlsym(api->lib, "fftw_execute_dft");
    *(void **)&api->destroy = dlsym(api->lib, "fftw_destroy_plan");
    const char *version = dlsym(api->lib, "fftw_version"); /* a char array, not a pointer */
    api->version = version ? version : "fftw3";
    if (!api->plan_many || !api->execute_dft || !api->destroy) {
        dlclose(api->lib);
        api->lib = NULL;
        return 0;
    }
    return 1;
}

typedef struct {
    long n;
    int use_fftw;
    fftw_api fftw;
    fftw_plan_t plan;  /* one line of length n, in place */
    cplx *twiddle;     /* builtin: exp(-2 pi i k / n), k < n/2 */
    long *reverse;     /* builtin: bit reversal of 0..n-1 */
} fft1d;

static int is_power_of_two(long n) { return n > 0 && (n & (n - 1)) == 0; }

static int fft1d_init(fft1d *f, long n, const char *which, char *why, size_t why_cap) {
    memset(f, 0, sizeof *f);
    f->n = n;
    if (strcmp(which, "builtin") != 0 && fftw_load(&f->fftw)) {
        cplx *line = malloc(sizeof(cplx) * (size_t)n);
        int len = (int)n;
        if (line)
            f->plan = f->fftw.plan_many(1, &len, 1, line, NULL, 1, len, line, NULL, 1, len,
                                        FFTW_FORWARD, FFTW_ESTIMATE | FFTW_UNALIGNED);
        free(line);
        if (f->plan) {
            f->use_fftw = 1;
            return 0;
        }
    }
    if (strcmp(which, "fftw") == 0) {
        snprintf(why, why_cap, "fft=fftw but libfftw3.so.3 could not be loaded (install FFTW 3: "
                               "Debian libfftw3-double3, conda fftw)");
        return -1;
    }
    if (!is_power_of_two(n)) {
        snprintf(why, why_cap, "the builtin FFT needs n a power of two (got n=%ld); install FFTW 3 "
                               "for other sizes", n);
        return -1;
    }
    f->twiddle = malloc(sizeof(cplx) * (size_t)(n / 2 + 1));
    f->reverse = malloc(sizeof(long) * (size_t)n);
    if (!f->twiddle || !f->reverse) {
        snprintf(why, why_cap, "out of memory for FFT tables");
        return -1;
    }
    for (long k = 0; k < n / 2; k++) f->twiddle[k] = cexp(-2.0 * M_PI * I * (double)k / (double)n);
    int bits = 0;
    while ((1L << bits) < n) bits++;
    for (long i = 0; i < n; i++) {
        long r = 0;
        for (int b = 0; b < bits; b++) r |= ((i >> b) & 1L) << (bits - 1 - b);
        f->reverse[i] = r;
    }
    return 0;
}

static void fft1d_free(fft1d *f) {
    if (f->use_fftw) {
        f->fftw.destroy(f->plan);
        /* the library stays loaded: unloading FFTW while other plans may exist is unsafe */
    }
    free(f->twiddle);
    free(f->reverse);
}

/* Forward FFT of one contiguous line of length n, in place; safe to call from any thread. */
static void fft1d_line(const fft1d *f, cplx *a) {
    if (f->use_fftw) {
        f->fftw.execute_dft(f->plan, a, a);
        return;
    }
    long n = f->n;
    for (long i = 0; i < n; i++) {
        long r = f->reverse[i];
        if (r > i) {
            cplx t = a[i];
            a[i] = a[r];
            a[r] = t;
        }
    }
    for (long len = 2; len <= n; len <<= 1) {
        long half = len / 2, step = n / len;
        for (long start = 0; start < n; start += len)
            for (long k = 0; k < half; k++) {
                cplx w = f->twiddle[k * step] * a[start + k + half];
                a[start + k + half] = a[start + k] - w;
                a[start + k] += w;
            }
    }
}

/* ------------------------------------------------------------------- the grid */

static cplx input(long j1, long j2, long j3) {
    double re = sin(0.1 * j1 + 0.37 * j2 + 0.73 * j3 + 0.011 * j1 * j3);
    double im = cos(0.05 * j1 * j2 - 0.2 * j3);
    return re + I * im;
}

/* The weight of output point (k1, k2, k3) in the checksum (hybridlab.collectives.fft_checksum) */
static double weight(long k1, long k2, long k3) { return 1.0 + (double)((k1 + 2 * k2 + 3 * k3) % 7); }

enum { PH_FFT, PH_REARRANGE, PH_ALLTOALL, PH_COUNT };
static const char *const phase_names[PH_COUNT] = {"fft", "rearrange", "alltoall"};

typedef struct {
    long n, m;
    int p, rank;
    cplx *x, *y;
    const fft1d *f;
    MPI_Comm comm;
} grid;

/* The global transpose, inside the team's parallel region: the master sends every rank its
 * block of `send` with MPI_Alltoall (n*m*m numbers each), the team waits at a barrier. Returns
 * the end of the thread's alltoall phase. */
static double transpose(const grid *g, cplx *send, cplx *recv, hl_timers *me, double mark) {
    const int count = (int)(g->n * g->m * g->m);
#pragma omp masked
    MPI_Alltoall(send, count, MPI_C_DOUBLE_COMPLEX, recv, count, MPI_C_DOUBLE_COMPLEX, g->comm);
#pragma omp barrier
    return hl_phase(me, PH_ALLTOALL, mark);
}

/* One forward 3-D FFT of g->x by `nthreads` threads; the result is left in g->x (normal form).
 * Adds each thread's phase times (between the barriers that end the loops) to acc[thread]. */
static void fft3d(grid *g, hl_timers *acc, int nthreads) {
    const long n = g->n, m = g->m, p = g->p;
    cplx *x = g->x, *y = g->y;
    const fft1d *f = g->f;
#pragma omp parallel num_threads(nthreads)
    {
        hl_timers *me = &acc[omp_get_thread_num()];
        double mark = hl_now();
        /* loop 1: FFT along i */
#pragma omp for schedule(runtime) collapse(2)
        for (long k = 0; k < m; k++)
            for (long j = 0; j < n; j++) fft1d_line(f, &x[(k * n + j) * n]);
        mark = hl_phase(me, PH_FFT, mark);
        /* loop 2: y[k][i][j] = x[k][j][i] */
#pragma omp for schedule(runtime) collapse(2)
        for (long k = 0; k < m; k++)
            for (long i = 0; i < n; i++)
                for (long j = 0; j < n; j++) y[(k * n + i) * n + j] = x[(k * n + j) * n + i];
        mark = hl_phase(me, PH_REARRANGE, mark);
        /* loop 3: FFT along j (now contiguous); y[k][k1][k2] */
#pragma omp for schedule(runtime) collapse(2)
        for (long k = 0; k < m; k++)
            for (long i = 0; i < n; i++) fft1d_line(f, &y[(k * n + i) * n]);
        mark = hl_phase(me, PH_FFT, mark);
        /* loop 4: x[q][k][b][a] = y[k][q*m + b][a]: block q holds the k1 rank q will own */
#pragma omp for schedule(runtime) collapse(2)
        for (long q = 0; q < p; q++)
            for (long k = 0; k < m; k++)
                for (long b = 0; b < m; b++)
                    memcpy(&x[((q * m + k) * m + b) * n], &y[(k * n + q * m + b) * n],
                           sizeof(cplx) * (size_t)n);
        mark = hl_phase(me, PH_REARRANGE, mark);
        mark = transpose(g, x, y, me, mark);
        /* loop 5: y[q][k][b][a] came from rank q (j3 = q*m + k): x[b][a][q*m + k] */
#pragma omp for schedule(runtime) collapse(2)
        for (long b = 0; b < m; b++)
            for (long a = 0; a < n; a++)
                for (long q = 0; q < p; q++)
                    for (long k = 0; k < m; k++)
                        x[(b * n + a) * n + q * m + k] = y[((q * m + k) * m + b) * n + a];
        mark = hl_phase(me, PH_REARRANGE, mark);
        /* loop 6: FFT along j3 */
#pragma omp for schedule(runtime) collapse(2)
        for (long b = 0; b < m; b++)
            for (long a = 0; a < n; a++) fft1d_line(f, &x[(b * n + a) * n]);
        mark = hl_phase(me, PH_FFT, mark);
        /* loop 7: y[q][b][a][c] = x[b][a][q*m + c]: block q holds the k3 rank q will own */
#pragma omp for schedule(runtime) collapse(2)
        for (long q = 0; q < p; q++)
            for (long b = 0; b < m; b++)
                for (long a = 0; a < n; a++)
                    memcpy(&y[((q * m + b) * n + a) * m], &x[(b * n + a) * n + q * m],
                           sizeof(cplx) * (size_t)m);
        mark = hl_phase(me, PH_REARRANGE, mark);
        mark = transpose(g, y, x, me, mark);
        /* loop 8: x[q][b][a][c] came from rank q (k1 = q*m + b): y[c][a][q*m + b] */
#pragma omp for schedule(runtime) collapse(2)
        for (long c = 0; c < m; c++)
            for (long a = 0; a < n; a++)
                for (long q = 0; q < p; q++)
                    for (long b = 0; b < m; b++)
                        y[(c * n + a) * n + q * m + b] = x[((q * m + b) * n + a) * m + c];
        hl_phase(me, PH_REARRANGE, mark);
    }
    cplx *swap = g->x; /* the result is in y: make it x */
    g->x = g->y;
    g->y = swap;
}

static void fill(grid *g) {
    const long n = g->n, m = g->m;
#pragma omp parallel for schedule(static) collapse(2)
    for (long k = 0; k < m; k++)
        for (long j = 0; j < n; j++)
            for (long i = 0; i < n; i++) g->x[(k * n + j) * n + i] = input(i, j, g->rank * m + k);
}

/* The direct DFT sum at one output point (k1, k2, k3), over the whole input. */
static cplx direct(long n, long k1, long k2, long k3) {
    cplx sum = 0, *w = malloc(sizeof(cplx) * (size_t)n);
    if (!w) return NAN;
    for (long e = 0; e < n; e++) w[e] = cexp(-2.0 * M_PI * I * (double)e / (double)n);
    for (long j3 = 0; j3 < n; j3++)
        for (long j2 = 0; j2 < n; j2++)
            for (long j1 = 0; j1 < n; j1++)
                sum += input(j1, j2, j3) * w[(j1 * k1 + j2 * k2 + j3 * k3) % n];
    free(w);
    return sum;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long n = hl_param_long(ctx, "n", 2, &ok);
    long reps = ok ? hl_param_long(ctx, "repetitions", 1, &ok) : 0;
    long checks = ok ? hl_param_long(ctx, "checks", 0, &ok) : 0;
    long dump = ok ? hl_param_long(ctx, "dump", 0, &ok) : 0;
    if (!ok) return -1;
    const char *which = hl_param_str(ctx, "fft");
    if (strcmp(which, "auto") && strcmp(which, "fftw") && strcmp(which, "builtin"))
        return hl_fail(ctx, "unknown fft '%s' (valid: auto, fftw, builtin)", which);
    long chunk = 0;
    const char *schedule = hl_param_schedule(ctx, &chunk);
    if (!schedule) return -1;
    int p = ctx->size, rank = ctx->rank;
    if (n % p != 0)
        return hl_fail(ctx, "%d ranks do not divide n=%ld: MPI_Alltoall needs equal slabs "
                            "(Luecke et al., section 4: 'assume that p divides n evenly')", p, n);
    if (n > 1024) return hl_fail(ctx, "n=%ld is above 1024", n);
    if (dump && n > 32) return hl_fail(ctx, "dump=1 needs n <= 32 (got n=%ld)", n);
    long m = n / p;
    if (n * m * m > 2147483647L) return hl_fail(ctx, "n*m*m is above the int count of MPI");

    fft1d f;
    char why[256] = "";
    int mine = fft1d_init(&f, n, which, why, sizeof why), worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MIN, comm);
    if (worst != 0) {
        fft1d_free(&f);
        return hl_fail(ctx, "%s", why[0] ? why : "another rank could not set up its FFTs");
    }
    size_t points = (size_t)(n * n * m);
    grid g = {n, m, p, rank, malloc(sizeof(cplx) * points), malloc(sizeof(cplx) * points), &f,
              comm};
    int nthreads = omp_get_max_threads();
    hl_timers *acc = hl_timers_new(nthreads);
    int have = g.x && g.y && acc, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(g.x), free(g.y), hl_timers_free(acc, nthreads), fft1d_free(&f);
        return hl_fail(ctx, "could not allocate two arrays of %zu complex numbers", points);
    }
    const char *library = f.use_fftw ? f.fftw.version : "builtin radix-2";
    double in_energy = 0.0;
    fill(&g);
    for (size_t i = 0; i < points; i++) in_energy += creal(g.x[i] * conj(g.x[i]));

    long wrong = 0;
    double worst_rel = 0.0;
    for (long rep = -1; rep < reps; rep++) { /* rep -1: warm-up, not recorded */
        hl_timers_clear(acc, nthreads);
        fill(&g);
        double t0 = hl_start_together(comm);
        fft3d(&g, acc, nthreads);
        double total = hl_now() - t0;
        /* Parseval on every repetition: cheap, and catches a transpose that lost data */
        double out_energy = 0.0, sums[2] = {in_energy, 0.0}, all_sums[2];
        for (size_t i = 0; i < points; i++) out_energy += creal(g.x[i] * conj(g.x[i]));
        sums[1] = out_energy;
        MPI_Allreduce(sums, all_sums, 2, MPI_DOUBLE, MPI_SUM, comm);
        double expect = (double)n * n * n * all_sums[0];
        double rel = fabs(all_sums[1] - expect) / expect;
        if (rel > worst_rel) worst_rel = rel;
        if (rel > 1e-9) wrong++;
        if (rep < 0) continue;
        for (int ph = 0; ph < PH_COUNT; ph++)
            hl_emit(ctx,
                    "\"record\":\"phase\",\"phase\":\"%s\",\"repetition\":%ld,\"n\":%ld,"
                    "\"ranks\":%d,\"threads\":%d,\"schedule\":\"%s\",\"fft\":\"%s\","
                    "\"seconds\":%.9e",
                    phase_names[ph], rep, n, p, nthreads, schedule, library, acc[0].t[ph]);
        hl_emit(ctx,
                "\"record\":\"phase\",\"phase\":\"total\",\"repetition\":%ld,\"n\":%ld,"
                "\"ranks\":%d,\"threads\":%d,\"schedule\":\"%s\",\"fft\":\"%s\",\"seconds\":%.9e",
                rep, n, p, nthreads, schedule, library, total);
    }

    /* checksum of the result (the same every repetition), and direct DFT checks */
    double cs[2] = {0, 0}, all_cs[2];
    for (long c = 0; c < m; c++)
        for (long b = 0; b < n; b++)
            for (long a = 0; a < n; a++) {
                cplx v = g.x[(c * n + b) * n + a];
                double w = weight(a, b, rank * m + c);
                cs[0] += w * creal(v);
                cs[1] += w * cimag(v);
                if (dump)
                    hl_emit(ctx, "\"record\":\"point\",\"k1\":%ld,\"k2\":%ld,\"k3\":%ld,"
                                 "\"re\":%.17g,\"im\":%.17g",
                            a, b, rank * m + c, creal(v), cimag(v));
            }
    MPI_Allreduce(cs, all_cs, 2, MPI_DOUBLE, MPI_SUM, comm);
    double dft_error = 0.0;
    for (long k = 0; k < checks; k++) {
        long c = (k * 7 + rank) % m, b = (k * 13 + 3 * rank + 1) % n, a = (k * 29 + 5) % n;
        cplx want = direct(n, a, b, rank * m + c), got = g.x[(c * n + b) * n + a];
        double err = cabs(got - want) / (cabs(want) + 1.0);
        if (err > dft_error) dft_error = err;
    }
    double dft_all = 0.0;
    MPI_Allreduce(&dft_error, &dft_all, 1, MPI_DOUBLE, MPI_MAX, comm);
    double tol = 1e-9 * (double)n;
    if (rank == 0)
        hl_emit(ctx,
                "\"record\":\"check\",\"n\":%ld,\"ranks\":%d,\"threads\":%d,\"fft\":\"%s\","
                "\"checksum_re\":%.17g,\"checksum_im\":%.17g,\"parseval_rel_error\":%.3e,"
                "\"dft_points\":%ld,\"dft_rel_error\":%.3e,\"message_bytes\":%ld,"
                "\"messages_per_rank\":%d",
                n, p, omp_get_max_threads(), library, all_cs[0], all_cs[1], worst_rel,
                checks * p, dft_all, (long)(sizeof(cplx) * (size_t)(n * m * m)), p);
    free(g.x), free(g.y), hl_timers_free(acc, nthreads);
    fft1d_free(&f);
    long wrong_all = 0;
    MPI_Allreduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, comm);
    if (wrong_all)
        return hl_fail(ctx, "Parseval check failed (relative error %.2e): the transform is wrong",
                       worst_rel);
    if (dft_all > tol)
        return hl_fail(ctx, "direct DFT check failed: relative error %.2e above %.1e", dft_all, tol);
    return 0;
}
