/* bench_compute: a self-timed triad with a checksum allreduce, for the engines-vs-mpiexec check.
 *
 * Each repetition runs a[i] = b[i] + s * c[i] over n doubles with `omp parallel for`, sums a[]
 * in the same loop (a reduction, so no extra memory pass) and MPI_Allreduces that checksum over
 * the communicator, so every repetition involves OpenMP threads, memory traffic and MPI progress.
 * The method is the kit's (hl_measure; book: How the kit measures): warm-up, inner repetitions
 * until one sample lasts about 1 ms on every rank, a discarded pass, then `samples` outer
 * samples. Thread 0 of every rank emits one record per sample with the seconds per repetition
 * and the bytes a repetition moves on that rank (24 * n, the STREAM way).
 *
 * The data are chosen so that the checksum is exact in any summation order (every value and
 * every partial sum is a multiple of 0.5 far below 2^52): it must equal the serial expectation
 * exactly, or the kernel fails.
 *
 * The arrays live in one fresh mmap with fixed offsets (0, 1344 and 2688 bytes past a page
 * boundary, so the three streams do not alias), not in malloc'd memory: in a long-lived engine
 * glibc raises its mmap threshold after the first large free, so later mallocs of the same size
 * come from the heap at other offsets than in a fresh program. With mmap the layout is the same
 * whichever process runs the kernel, and the comparison is of the processes alone.
 */
#include "hybridlab.h" /* first: it defines _GNU_SOURCE */

#include <sys/mman.h>

const char *const hl_kernel_description =
    "triad a=b+s*c over n doubles per rank (omp parallel for) plus an allreduce of its checksum; "
    "one record per sample";

const hl_param hl_kernel_params[] = {
    {"n", "2000000", "doubles per array on each rank (three arrays)"},
    {"samples", "20", "outer samples, each at least 1 ms of repetitions"},
    HL_END_PARAMS,
};

#define TRIAD_SCALAR 0.5
#define TARGET_SECONDS 1e-3
#define PAGE 4096
#define SHIFT 1344 /* bytes between the arrays' offsets within a page: 21 cache lines */
#define MAX_N (1L << 36)

typedef struct {
    double *a, *b, *c;
    long n;
    MPI_Comm comm;
    double local_expect;  /* the checksum of one rank's a[] */
    double global_expect; /* the allreduced checksum of every repetition */
    double bad_value; /* the first wrong checksum seen, if any */
    long bad;         /* how many repetitions had a wrong checksum */
} triad_args;

static double b_value(long i) { return (double)(i % 8); }
static double c_value(long i) { return (double)(i % 4); }

static void triad(void *arg, long inner) {
    triad_args *t = arg;
    double *restrict a = t->a;
    const double *restrict b = t->b;
    const double *restrict c = t->c;
    const long n = t->n;
    for (long r = 0; r < inner; r++) {
        double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
        for (long i = 0; i < n; i++) {
            a[i] = b[i] + TRIAD_SCALAR * c[i];
            sum += a[i];
        }
        double local = sum;
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, t->comm);
        if (sum != t->global_expect) {
            if (t->bad == 0) t->bad_value = sum;
            t->bad++;
        }
    }
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long n = hl_param_long(ctx, "n", 1, &ok);
    if (!ok) return -1;
    long samples = hl_param_long(ctx, "samples", 1, &ok);
    if (!ok) return -1;
    if (samples > 1000000)
        return hl_fail(ctx, "parameter samples=%ld is too large (at most 1000000)", samples);

    if (n > MAX_N) return hl_fail(ctx, "parameter n=%ld is too large (at most %ld)", n, MAX_N);

    triad_args t = {.n = n, .comm = comm};
    size_t stride = ((size_t)n * sizeof(double) + PAGE - 1) / PAGE * PAGE + PAGE;
    char *region = mmap(NULL, 3 * stride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    int have = region != MAP_FAILED, everyone = 0;
    MPI_Allreduce(&have, &everyone, 1, MPI_INT, MPI_MIN, comm);
    if (!everyone) {
        if (region != MAP_FAILED) munmap(region, 3 * stride);
        return hl_fail(ctx, "rank %d: could not allocate 3 x %ld doubles (n too large?)",
                       ctx->rank, n);
    }
    t.a = (double *)(region);
    t.b = (double *)(region + stride + SHIFT);
    t.c = (double *)(region + 2 * stride + 2 * SHIFT);

    /* First touch by the threads that will use each part (the same static schedule). */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        t.a[i] = 0.0;
        t.b[i] = b_value(i);
        t.c[i] = c_value(i);
    }
    for (long i = 0; i < n; i++) t.local_expect += b_value(i) + TRIAD_SCALAR * c_value(i);
    t.global_expect = t.local_expect * (double)ctx->size;

    /* hl_measure's calibration agrees on inner across ranks at every step, so the timed work may
     * hold the allreduce: every rank calls it equally often. */
    hl_method method = {.comm = comm, .target = TARGET_SECONDS, .outer = (int)samples};
    hl_result r;
    if (hl_measure(ctx, "triad", triad, NULL, &t, &method, &r) != 0) {
        munmap(region, 3 * stride);
        return -1;
    }

    int rc = 0;
    if (t.bad) {
        rc = hl_fail(ctx,
                     "rank %d: wrong checksum in %ld repetitions (got %.17g, expected %.17g "
                     "locally / %.17g over %d ranks)",
                     ctx->rank, t.bad, t.bad_value, t.local_expect, t.global_expect, ctx->size);
    } else {
        int threads = omp_get_max_threads();
        for (int i = 0; i < r.outer; i++)
            hl_emit(ctx,
                    "\"phase\":\"triad\",\"sample\":%d,\"seconds\":%.9g,\"bytes\":%ld,"
                    "\"inner\":%ld,\"threads\":%d",
                    i, r.test[i], 24 * n, r.inner, threads);
    }
    munmap(region, 3 * stride);
    hl_result_free(&r);
    return rc;
}
