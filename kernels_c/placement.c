/* placement: fixed work per rank, memory-bound or compute-bound, for weak scaling under placements.
 *
 * Lab 06 runs it on 1, 2, ... ranks with the same work on every rank (weak scaling, as H2MOL in
 * Smith et al. 2004, section 6: "constant the number of grid points per processor"), packed and spread. If the
 * ranks share nothing, each rank's time stays flat as ranks are added; if they share a memory
 * bus (or a core), it rises. Two kinds of work:
 *
 *   work=memory   triad a[i] = b[i] + s*c[i] over n doubles (24 n bytes per repetition, counted
 *                 the STREAM way), arrays first touched by the threads that use them;
 *   work=compute  for each of n integers, `depth` dependent multiply-adds in registers (a 64-bit
 *                 linear congruential step), summed: no memory traffic beyond the loop counter;
 *   work=both     memory, then compute over `compute_n` integers, in one launch.
 *
 * Method (hl_measure; book: How the kit measures): warm-up, inner repetitions until a sample lasts
 * `target_ms` (the ranks agree, so they work at the same time), a discarded pass, then `samples`
 * samples. Thread 0 of every rank
 * emits one record per sample: seconds per repetition, bytes or operations per repetition.
 *
 * Correctness: every repetition's checksum is compared with the serial value. The triad data
 * are multiples of 0.5 far below 2^52 and the integer sum wraps modulo 2^64, so both checksums
 * are exact in any summation order; a mismatch fails the kernel.
 */
#include "hybridlab.h" /* first: it defines _GNU_SOURCE */

#include <stdint.h>
#include <sys/mman.h>

const char *const hl_kernel_description =
    "fixed work per rank (weak scaling): work=memory (triad) or work=compute (integer "
    "multiply-add chain); one record per sample per rank";

const hl_param hl_kernel_params[] = {
    {"work", "memory", "memory (triad, 24 n bytes), compute (n x depth multiply-adds) or both"},
    {"n", "2000000", "elements per rank (doubles per array for memory, integers for compute)"},
    {"compute_n", "20000", "integers per rank for the compute part of work=both"},
    {"depth", "64", "multiply-adds per element (compute only)"},
    {"samples", "10", "outer samples"},
    {"target_ms", "20", "milliseconds each sample lasts at least"},
    HL_END_PARAMS,
};

#define SCALAR 0.5
#define PAGE 4096
#define SHIFT 1344 /* bytes between the arrays' offsets within a page: 21 cache lines */
#define MAX_N (1L << 34)
#define LCG_A 6364136223846793005ULL
#define LCG_C 1442695040888963407ULL

typedef struct {
    int compute;
    long n, depth;
    double *a, *b, *c;
    double expect;           /* memory: sum of a[] */
    uint64_t expect_int;     /* compute: wrapped sum */
    long bad;
} work_args;

static double b_value(long i) { return (double)(i % 8); }
static double c_value(long i) { return (double)(i % 4); }

static uint64_t chain(uint64_t x, long depth) {
    for (long k = 0; k < depth; k++) x = x * LCG_A + LCG_C;
    return x;
}

static void run_memory(work_args *w, long inner) {
    double *restrict a = w->a;
    const double *restrict b = w->b;
    const double *restrict c = w->c;
    const long n = w->n;
    for (long r = 0; r < inner; r++) {
        double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
        for (long i = 0; i < n; i++) {
            a[i] = b[i] + SCALAR * c[i];
            sum += a[i];
        }
        if (sum != w->expect) w->bad++;
    }
}

static void run_compute(work_args *w, long inner) {
    const long n = w->n, depth = w->depth;
    for (long r = 0; r < inner; r++) {
        uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
        for (long i = 0; i < n; i++) sum += chain((uint64_t)i, depth);
        if (sum != w->expect_int) w->bad++;
    }
}

static void run(void *arg, long inner) {
    work_args *w = arg;
    if (w->compute)
        run_compute(w, inner);
    else
        run_memory(w, inner);
}

/* Time one kind of work on every rank at once (hl_measure); emit its samples. */
static int measure(hl_ctx *ctx, work_args *w, long samples, double target) {
    const char *name = w->compute ? "compute" : "memory";
    w->bad = 0;
    hl_method method = hl_method_default(ctx);
    method.target = target;
    method.outer = (int)samples;
    hl_result r;
    if (hl_measure(ctx, name, run, NULL, w, &method, &r) != 0) return -1;
    int rc = 0, threads = omp_get_max_threads();
    double bytes = w->compute ? 0.0 : 24.0 * (double)w->n;
    double ops = w->compute ? (double)w->n * (double)w->depth : 2.0 * (double)w->n;
    if (w->bad)
        rc = hl_fail(ctx, "rank %d: wrong %s checksum in %ld repetitions", ctx->rank, name,
                     w->bad);
    for (long i = 0; rc == 0 && i < samples; i++)
        hl_emit(ctx,
                "\"work\":\"%s\",\"sample\":%ld,\"seconds\":%.9g,\"bytes\":%.0f,\"ops\":%.0f,"
                "\"inner\":%ld,\"threads\":%d,\"n\":%ld",
                name, i, r.test[i], bytes, ops, r.inner, threads, w->n);
    hl_result_free(&r);
    return rc;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    const char *work = hl_param_str(ctx, "work");
    long n = hl_param_long(ctx, "n", 1, &ok);
    long compute_n = hl_param_long(ctx, "compute_n", 1, &ok);
    long depth = hl_param_long(ctx, "depth", 1, &ok);
    long samples = hl_param_long(ctx, "samples", 1, &ok);
    double target_ms = hl_param_double(ctx, "target_ms", 0.001, &ok);
    if (!ok) return -1;
    int both = strcmp(work, "both") == 0, memory = both || strcmp(work, "memory") == 0;
    int compute = both || strcmp(work, "compute") == 0;
    if (!memory && !compute)
        return hl_fail(ctx, "parameter work=%s must be memory, compute or both", work);
    if (n > MAX_N) return hl_fail(ctx, "parameter n=%ld is too large (at most %ld)", n, MAX_N);
    if (compute_n > MAX_N) return hl_fail(ctx, "parameter compute_n=%ld is too large", compute_n);
    if (samples > 100000) return hl_fail(ctx, "parameter samples=%ld is too large", samples);
    if (depth > 1000000) return hl_fail(ctx, "parameter depth=%ld is too large", depth);

    work_args w = {.n = n, .depth = depth};
    size_t stride = ((size_t)n * sizeof(double) + PAGE - 1) / PAGE * PAGE + PAGE;
    char *region = NULL;
    if (memory) {
        region = mmap(NULL, 3 * stride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                      0);
        if (region == MAP_FAILED) region = NULL;
    }
    int have = !memory || region, everyone = 0;
    MPI_Allreduce(&have, &everyone, 1, MPI_INT, MPI_MIN, comm);
    if (!everyone) {
        if (region) munmap(region, 3 * stride);
        return hl_fail(ctx, "rank %d: could not allocate the arrays (n=%ld too large?)",
                       ctx->rank, n);
    }
    int rc = 0;
    if (memory) {
        w.a = (double *)region;
        w.b = (double *)(region + stride + SHIFT);
        w.c = (double *)(region + 2 * stride + 2 * SHIFT);
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) { /* first touch by the threads that will use each part */
            w.a[i] = 0.0;
            w.b[i] = b_value(i);
            w.c[i] = c_value(i);
        }
        for (long i = 0; i < n; i++) w.expect += b_value(i) + SCALAR * c_value(i);
        rc = measure(ctx, &w, samples, target_ms * 1e-3);
    }
    if (compute && rc == 0) {
        w.compute = 1;
        w.n = both ? compute_n : n;
        for (long i = 0; i < w.n; i++) w.expect_int += chain((uint64_t)i, depth);
        rc = measure(ctx, &w, samples, target_ms * 1e-3);
    }
    if (region) munmap(region, 3 * stride);
    return rc;
}
