/* numa_matrix: who computes on whose data. Thread o first-touches block o; then every thread
 * t reads every block o in turn (round s: block (t + s) mod T, so no two threads read the same
 * block at once) and times it: a threads x data-owners matrix of bandwidth (lab 05, after Armstrong et al.'s
 * "OpenMP test": 24 threads each working on a matrix initialised by itself or by a thread on
 * another die of a Cray XT6 node).
 *
 *   refresh=0  blocks are touched once and then only read: with blocks much larger than the
 *              caches this measures memory, and on a machine with several NUMA nodes the
 *              diagonal (own data, local node) is faster than the rest (remote node)
 *   refresh=1  before every read the owner writes its block again, so the reader finds it in
 *              the owner's private cache (or the shared cache): with cache-sized blocks this
 *              shows the same mechanism one level down, on any machine with private caches
 *
 * The sum of every read is checked against the values the owner wrote (exact integers).
 * Records: "cell" per (reader, owner): best and median seconds over `reps`, bytes, the owner's
 * cpu and numa node (the reader's are the record's own cpu and numa); rank 0 adds "check".
 */
#include "hybridlab.h"

#include <sys/mman.h>

const char *const hl_kernel_description =
    "threads x data-owners bandwidth matrix: each thread reads blocks first touched (refresh=1: "
    "just written) by every thread";

const hl_param hl_kernel_params[] = {
    {"block_bytes", "262144", "bytes per block (one per thread)"},
    {"refresh", "1", "1: the owner rewrites its block before each read (cache level); 0: not"},
    {"reps", "20", "timed reads of each block by each thread (best and median kept)"},
    HL_END_PARAMS,
};

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    (void)comm;
    int ok = 1;
    long block_bytes = hl_param_long(ctx, "block_bytes", 4096, &ok);
    if (!ok) return -1;
    long refresh = hl_param_long(ctx, "refresh", 0, &ok);
    if (!ok) return -1;
    long reps = hl_param_long(ctx, "reps", 1, &ok);
    if (!ok) return -1;
    if (refresh > 1) return hl_fail(ctx, "parameter refresh=%ld must be 0 or 1", refresh);
    if (reps > 100000) return hl_fail(ctx, "parameter reps=%ld is too large", reps);
    if (block_bytes > (1L << 31)) return hl_fail(ctx, "parameter block_bytes=%ld is too large", block_bytes);
    int nt = omp_get_max_threads();
    if (nt > 256) return hl_fail(ctx, "at most 256 threads (asked for %d)", nt);
    long n = block_bytes / (long)sizeof(double);
    size_t stride = ((size_t)n * sizeof(double) + 4095) & ~(size_t)4095; /* page-aligned blocks */
    char *base = mmap(NULL, stride * (size_t)nt, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double *samples = malloc((size_t)nt * (size_t)nt * (size_t)reps * sizeof(double));
    int owner_cpu[256], owner_numa[256];
    if (base == MAP_FAILED || !samples) {
        if (base != MAP_FAILED) munmap(base, stride * (size_t)nt);
        free(samples);
        return hl_fail(ctx, "no memory for %d blocks of %ld bytes", nt, block_bytes);
    }
    long bad = 0;
#pragma omp parallel num_threads(nt) reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        double *mine = (double *)(base + stride * (size_t)t);
        for (long i = 0; i < n; i++) mine[i] = (double)t; /* first touch by the owner */
        hl_where(&owner_cpu[t], &owner_numa[t]);
        long version = 0;
        for (int s = 0; s < nt; s++) {
            int o = (t + s) % nt;
            const double *theirs = (const double *)(base + stride * (size_t)o);
            for (long r = 0; r < reps; r++) {
                if (refresh) {
                    version++;
                    for (long i = 0; i < n; i++) mine[i] = (double)(t + version);
                }
#pragma omp barrier
                double t0 = hl_now(), sum = 0.0;
#pragma omp simd reduction(+ : sum)
                for (long i = 0; i < n; i++) sum += theirs[i];
                samples[((size_t)t * (size_t)nt + (size_t)o) * (size_t)reps + (size_t)r] =
                    hl_now() - t0;
                /* every owner is at the same version: each thread refreshes once per rep */
                double want = (double)n * (double)(o + (refresh ? version : 0));
                if (sum != want) bad++;
#pragma omp barrier
            }
        }
    }
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        for (int o = 0; o < nt; o++) {
            double *row = &samples[((size_t)t * (size_t)nt + (size_t)o) * (size_t)reps];
            qsort(row, (size_t)reps, sizeof *row, cmp_double);
            hl_emit(ctx, "\"record\":\"cell\",\"reader\":%d,\"owner\":%d,\"owner_cpu\":%d,"
                    "\"owner_numa\":%d,\"best_s\":%.9g,\"median_s\":%.9g,\"bytes\":%ld,"
                    "\"block_bytes\":%ld,\"refresh\":%ld,\"threads\":%d",
                    t, o, owner_cpu[o], owner_numa[o], row[0], row[reps / 2],
                    n * (long)sizeof(double), block_bytes, refresh, nt);
        }
    }
    if (ctx->rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"wrong_sums\":%ld,\"threads\":%d", bad == 0,
                bad, nt);
    munmap(base, stride * (size_t)nt);
    free(samples);
    return 0;
}
