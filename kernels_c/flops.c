/* flops: a compute kernel with a chosen arithmetic intensity (lab 05: the compute ceiling of the
 * roofline, and the compute-bound side of saturation).
 *
 * Each thread owns a slice of an array of n doubles (static blocks). A sweep loads every element
 * once, applies `fma` updates x = x * A + B to it (2 flops each, one multiply and one add), and
 * stores it: 2 * fma flops and 16 bytes (read + write, write-allocate not counted) per element,
 * so the arithmetic intensity is fma / 8 flop/byte. Elements are processed 16 at a time in
 * independent chains, so the updates pipeline and vectorise: with a small, cache-resident
 * array and many updates this measures the flop rate the kit's compiler flags reach (the
 * roofline's ceiling); with a large array and few updates it is memory-bound.
 *
 * Method: warm-up sweep, `sweeps` sweeps per sample (sweeps=0: hl_calibrate doubles them until
 * a sample lasts 10 ms on the slowest rank), `ntimes` samples each timed on the slowest rank
 * (hl_start_together / hl_slowest_since), best kept. The result is
 * checked: every element's final value equals the same recurrence replayed on a scalar.
 * Records: rank 0 emits "flops" (best_s, flops, bytes, gflop_s, intensity) and every sample as
 * "time"; every thread emits "thread".
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "compute kernel: x = x*A + B applied `fma` times per element (2 flops each, 16 bytes per "
    "element), best of N; intensity = fma / 8 flop/byte";

const hl_param hl_kernel_params[] = {
    {"n", "4096", "elements per thread (4096: 32 KiB, in the L1/L2 cache)"},
    {"fma", "64", "multiply-add updates per element and sweep (intensity fma/8 flop/byte)"},
    {"sweeps", "0", "sweeps per sample (0: enough for about 10 ms)"},
    {"ntimes", "10", "samples (best kept)"},
    HL_END_PARAMS,
};

#define LANES 16
static const double MUL = 0.999999, ADD = 1e-6;

typedef struct {
    double *x;
    long n, fma;
    long done; /* sweeps applied so far, for the check */
} sweeps_args;

static void sweep(double *restrict x, long n, long fma) {
#pragma omp for schedule(static)
    for (long i = 0; i < n; i += LANES) {
        double v[LANES];
        for (int l = 0; l < LANES; l++) v[l] = x[i + l];
        for (long k = 0; k < fma; k++)
#pragma omp simd
            for (int l = 0; l < LANES; l++) v[l] = v[l] * MUL + ADD;
        for (int l = 0; l < LANES; l++) x[i + l] = v[l];
    }
}

/* `inner` sweeps by the team (an hl_work_fn). */
static void run_sweeps(void *arg, long inner) {
    sweeps_args *w = arg;
#pragma omp parallel
    for (long s = 0; s < inner; s++) sweep(w->x, w->n, w->fma);
    w->done += inner;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long per_thread = hl_param_long(ctx, "n", LANES, &ok);
    if (!ok) return -1;
    long fma = hl_param_long(ctx, "fma", 1, &ok);
    if (!ok) return -1;
    long sweeps = hl_param_long(ctx, "sweeps", 0, &ok);
    if (!ok) return -1;
    long ntimes = hl_param_long(ctx, "ntimes", 1, &ok);
    if (!ok) return -1;
    if (per_thread > (1L << 28)) return hl_fail(ctx, "parameter n=%ld is too large", per_thread);
    if (fma > 1000000) return hl_fail(ctx, "parameter fma=%ld is too large", fma);
    if (ntimes > 1000) return hl_fail(ctx, "parameter ntimes=%ld is too large", ntimes);
    int nt = omp_get_max_threads();
    per_thread = (per_thread + LANES - 1) / LANES * LANES;
    long n = per_thread * nt;
    double *x = malloc((size_t)n * sizeof(double));
    double *samples = malloc((size_t)ntimes * sizeof(double));
    if (!x || !samples) {
        free(x);
        free(samples);
        return hl_fail(ctx, "no memory for %ld doubles", n);
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 7);

    sweeps_args w = {x, n, fma, 0};
    if (sweeps == 0)
        sweeps = hl_calibrate(comm, run_sweeps, &w, 0.01); /* warms up first */
    else
        run_sweeps(&w, 1); /* warm-up */
    for (long k = 0; k < ntimes; k++) {
        double t0 = hl_start_together(comm);
        run_sweeps(&w, sweeps);
        samples[k] = hl_slowest_since(comm, t0);
    }
    long done = w.done;
    /* Check: replay the recurrence for each starting value 1..7 (the compiler may contract
     * x*A+B into an FMA in the kernel but not here, so allow a relative 1e-9). */
    long wrong = 0;
    for (int start = 0; start < 7; start++) {
        double v = 1.0 + start;
        for (long s = 0; s < done * fma; s++) v = v * MUL + ADD;
        for (long i = start; i < n; i += 7)
            if (fabs(x[i] - v) > 1e-9 * fabs(v)) wrong++;
    }
    long wrong_all = wrong;
    MPI_Reduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, 0, comm);
#pragma omp parallel
    hl_emit(ctx, "\"record\":\"thread\",\"threads\":%d", nt);
    if (ctx->rank == 0) {
        double flops = 2.0 * (double)fma * (double)n * (double)sweeps * (double)ctx->size;
        double bytes = 16.0 * (double)n * (double)sweeps * (double)ctx->size;
        double best = 1e300;
        for (long k = 0; k < ntimes; k++) {
            best = fmin(best, samples[k]);
            hl_emit(ctx, "\"record\":\"time\",\"repetition\":%ld,\"seconds\":%.9g,\"flops\":%.0f,"
                    "\"bytes\":%.0f,\"threads\":%d,\"ranks\":%d,\"fma\":%ld,\"n\":%ld",
                    k, samples[k], flops, bytes, nt, ctx->size, fma, per_thread);
        }
        hl_emit(ctx, "\"record\":\"flops\",\"best_s\":%.9g,\"flops\":%.0f,\"bytes\":%.0f,"
                "\"gflop_s\":%.6g,\"intensity\":%.6g,\"sweeps\":%ld,\"threads\":%d,\"ranks\":%d,"
                "\"fma\":%ld,\"n\":%ld,\"ok\":%d,\"wrong\":%ld",
                best, flops, bytes, 1e-9 * flops / best, (double)fma / 8.0, sweeps, nt,
                ctx->size, fma, per_thread, wrong_all == 0, wrong_all);
    }
    free(x);
    free(samples);
    return 0;
}
