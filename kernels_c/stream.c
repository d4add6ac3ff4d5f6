/* stream: the four STREAM kernels (McCalpin's stream.c 5.10, counted and checked the same way)
 * as the kit's memory-bandwidth reference (lab 05).
 *
 *   copy   c[j] = a[j]                 16 bytes per iteration (read a, write c)
 *   scale  b[j] = s * c[j]             16 bytes
 *   add    c[j] = a[j] + b[j]          24 bytes
 *   triad  a[j] = b[j] + s * c[j]      24 bytes
 * Bytes are counted as STREAM counts them: every array read or written once, write-allocate
 * traffic NOT counted (a cache that reads a line before writing it moves 8 more bytes per
 * iteration for each written array: 24, 24, 32, 32).
 *
 * Method (STREAM's rules): each array at least 4x the last-level cache (n=0 sizes it from
 * sysfs: 4 x the largest data/unified cache, at least 2^21 elements); `ntimes` passes of the
 * chosen kernels in order; the first pass is dropped and the best of the rest is reported (and
 * avg/max); the arrays evolve as in STREAM (a=1, b=2, c=0, a*=2 before timing) and are checked
 * at the end against the same recurrence on scalars (relative error below 1e-13).
 * With several ranks every rank has its own arrays, a barrier starts each kernel, and a pass
 * takes the slowest rank's time; bytes are summed over ranks (STREAM's MPI version does so).
 *
 * Initialisation is the first touch: init=parallel uses the same static schedule as the
 * kernels (STREAM's default), init=serial lets the master touch everything (every page then
 * sits on the master's NUMA node). The kernels' loops use schedule(runtime), set by `schedule`
 * and `chunk` (hl_param_schedule), for lab 05's schedules-on-first-touched-data part.
 *
 * Records: rank 0 emits one "time" record per kernel and pass (seconds, bytes: the raw data),
 * one "stream" record per kernel (best/avg/max seconds, bytes, GB/s = 1e-9 bytes / best) and a
 * "check" record; every thread of every rank emits a "thread" record (where it ran).
 */
#include "hybridlab.h"

#include <sys/mman.h>

const char *const hl_kernel_description =
    "STREAM copy/scale/add/triad (best of N, first pass dropped, bytes counted as STREAM, "
    "results checked): the kit's memory-bandwidth reference";

const hl_param hl_kernel_params[] = {
    {"n", "0", "elements per array (0: 4 x the last-level cache, from sysfs)"},
    {"ntimes", "10", "passes of every kernel (the first is dropped; at least 2)"},
    {"kernels", "copy,scale,add,triad", "comma-separated subset of copy,scale,add,triad"},
    {"init", "parallel", "first touch: parallel (static, as the kernels) | serial (master)"},
    HL_SCHEDULE_PARAMS,
    HL_END_PARAMS,
};

enum { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_COUNT };
static const char *const kernel_names[K_COUNT] = {"copy", "scale", "add", "triad"};
static const int kernel_arrays[K_COUNT] = {2, 2, 3, 3}; /* arrays touched per iteration */
static const double SCALAR = 3.0;

/* The largest data or unified cache in sysfs (bytes); 0 when sysfs says nothing. */
static long largest_cache_bytes(void) {
    long best = 0;
    for (int i = 0; i < 16; i++) {
        char path[128], text[64] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (!fgets(text, sizeof text, f)) text[0] = '\0';
        fclose(f);
        if (strncmp(text, "Instruction", 11) == 0) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f) continue;
        long v = 0;
        char unit = 0;
        if (fscanf(f, "%ld%c", &v, &unit) >= 1) {
            if (unit == 'K') v *= 1024;
            else if (unit == 'M') v *= 1024 * 1024;
            else if (unit == 'G') v *= 1024L * 1024 * 1024;
            if (v > best) best = v;
        }
        fclose(f);
    }
    return best;
}

static void run_kernel(int k, long n, double *restrict a, double *restrict b,
                       double *restrict c) {
    switch (k) {
    case K_COPY:
#pragma omp parallel for schedule(runtime)
        for (long j = 0; j < n; j++) c[j] = a[j];
        break;
    case K_SCALE:
#pragma omp parallel for schedule(runtime)
        for (long j = 0; j < n; j++) b[j] = SCALAR * c[j];
        break;
    case K_ADD:
#pragma omp parallel for schedule(runtime)
        for (long j = 0; j < n; j++) c[j] = a[j] + b[j];
        break;
    default:
#pragma omp parallel for schedule(runtime)
        for (long j = 0; j < n; j++) a[j] = b[j] + SCALAR * c[j];
        break;
    }
}

/* STREAM's checkSTREAMresults: replay the recurrence on scalars, compare average errors. */
static double relative_error(const double *x, long n, double want) {
    double sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
    for (long j = 0; j < n; j++) sum += fabs(x[j] - want);
    return sum / (double)n / fabs(want);
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1, chosen[K_COUNT];
    long n = hl_param_long(ctx, "n", 0, &ok);
    if (!ok) return -1;
    long ntimes = hl_param_long(ctx, "ntimes", 2, &ok);
    if (!ok) return -1;
    int picked[K_COUNT];
    int count = hl_param_names(ctx, "kernels", "kernel", kernel_names, K_COUNT, picked, K_COUNT);
    if (count < 0) return -1;
    for (int k = 0; k < K_COUNT; k++) chosen[k] = 0;
    for (int i = 0; i < count && i < K_COUNT; i++) chosen[picked[i]] = 1;
    static const char *const inits[] = {"parallel", "serial"};
    int init_kind = hl_param_choice(ctx, "init", inits, 2);
    if (init_kind < 0) return -1;
    const char *init = inits[init_kind];
    long chunk = 0;
    const char *sname = hl_param_schedule(ctx, &chunk);
    if (!sname) return -1;
    if (ntimes > 1000) return hl_fail(ctx, "parameter ntimes=%ld is too large (at most 1000)", ntimes);
    long llc = largest_cache_bytes();
    int sized = n == 0;
    if (sized) {
        n = 4 * llc / (long)sizeof(double);
        if (n < (1L << 21)) n = 1L << 21;
    }
    if (n > (1L << 31)) return hl_fail(ctx, "parameter n=%ld is too large (at most 2^31)", n);

    size_t bytes = (size_t)n * sizeof(double);
    double *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double *b = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double *c = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double *times = calloc((size_t)(K_COUNT * ntimes), sizeof(double));
    int mine_ok = a != MAP_FAILED && b != MAP_FAILED && c != MAP_FAILED && times, all_ok = 0;
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        if (a != MAP_FAILED) munmap(a, bytes);
        if (b != MAP_FAILED) munmap(b, bytes);
        if (c != MAP_FAILED) munmap(c, bytes);
        free(times);
        return hl_fail(ctx, "no memory for three arrays of %ld doubles on some rank", n);
    }

    /* First touch: with the kernels' static schedule, or by the master alone. */
    if (init_kind == 0) {
#pragma omp parallel for schedule(static)
        for (long j = 0; j < n; j++) {
            a[j] = 1.0;
            b[j] = 2.0;
            c[j] = 0.0;
        }
    } else {
        for (long j = 0; j < n; j++) {
            a[j] = 1.0;
            b[j] = 2.0;
            c[j] = 0.0;
        }
    }
    int nthreads = omp_get_max_threads();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++) a[j] *= 2.0; /* as STREAM, outside the timing */

    for (long pass = 0; pass < ntimes; pass++)
        for (int k = 0; k < K_COUNT; k++) {
            if (!chosen[k]) continue;
            double t0 = hl_start_together(comm);
            run_kernel(k, n, a, b, c);
            times[k * ntimes + pass] = hl_slowest_since(comm, t0);
        }

    /* Replay on scalars, in the same order. */
    double aj = 2.0, bj = 2.0, cj = 0.0;
    for (long pass = 0; pass < ntimes; pass++) {
        if (chosen[K_COPY]) cj = aj;
        if (chosen[K_SCALE]) bj = SCALAR * cj;
        if (chosen[K_ADD]) cj = aj + bj;
        if (chosen[K_TRIAD]) aj = bj + SCALAR * cj;
    }
    double err[3] = {relative_error(a, n, aj), relative_error(b, n, bj),
                     cj != 0.0 ? relative_error(c, n, cj) : 0.0};
    double worst = fmax(err[0], fmax(err[1], err[2])), worst_all = worst;
    MPI_Reduce(&worst, &worst_all, 1, MPI_DOUBLE, MPI_MAX, 0, comm);

#pragma omp parallel
    hl_emit(ctx, "\"record\":\"thread\",\"threads\":%d,\"init\":\"%s\"", nthreads, init);

    if (ctx->rank == 0) {
        const char *common = "\"n\":%ld,\"ranks\":%d,\"threads\":%d,\"init\":\"%s\","
                             "\"schedule\":\"%s\",\"chunk\":%ld";
        char tail[256];
        snprintf(tail, sizeof tail, common, n, ctx->size, nthreads, init, sname, chunk);
        for (int k = 0; k < K_COUNT; k++) {
            if (!chosen[k]) continue;
            double total_bytes = (double)kernel_arrays[k] * (double)bytes * (double)ctx->size;
            double best = 1e300, sum = 0.0, most = 0.0;
            for (long p = 0; p < ntimes; p++) {
                double t = times[k * ntimes + p];
                hl_emit(ctx, "\"record\":\"time\",\"kernel\":\"%s\",\"repetition\":%ld,"
                        "\"seconds\":%.9g,\"bytes\":%.0f,%s", kernel_names[k], p, t, total_bytes,
                        tail);
                if (p == 0) continue; /* STREAM drops the first pass */
                best = fmin(best, t);
                most = fmax(most, t);
                sum += t;
            }
            hl_emit(ctx, "\"record\":\"stream\",\"kernel\":\"%s\",\"best_s\":%.9g,\"avg_s\":%.9g,"
                    "\"max_s\":%.9g,\"bytes\":%.0f,\"gb_s\":%.6g,\"ntimes\":%ld,%s",
                    kernel_names[k], best, sum / (double)(ntimes - 1), most, total_bytes,
                    1e-9 * total_bytes / best, ntimes, tail);
        }
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"relative_error\":%.3g,"
                "\"array_bytes\":%zu,\"llc_bytes\":%ld,\"sized_from_cache\":%d,"
                "\"at_least_4x_llc\":%d,%s",
                worst_all < 1e-13, worst_all, bytes, llc, sized,
                llc > 0 && (long)bytes >= 4 * llc, tail);
    }
    munmap(a, bytes);
    munmap(b, bytes);
    munmap(c, bytes);
    free(times);
    return 0;
}
