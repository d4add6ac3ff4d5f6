/* touch_schedule: does the first touch match the compute loop's schedule? (lab 05 exercise)
 *
 * Each rank gets two fresh arrays a and b of `rows` rows of `row_pages` pages each (row-major),
 * traced by hl_touch.h. The initialisation then runs - variant=serial: the master thread alone;
 * variant=student (built by hybridlab.memory.exercise with the student's code): init_arrays() -
 * and the tracer records which thread's write placed each page (Linux's first-touch policy puts
 * the page on that thread's NUMA node); it works on a machine with one NUMA node too, where
 * move_pages would say "node 0" for every page.
 *
 * The compute loop is the kit's: `sweeps` times, in parallel with schedule(static, chunk) over
 * the rows (chunk rows at a time, round robin over the threads),
 *     a[i][j] = 0.5 * a[i][j] + b[i][j]
 * and it records which thread (OpenMP thread number and OS thread, gettid) computed on each page:
 * the initialisation's writer must be that OS thread too, not a nested team's thread of the same
 * number. Every element is then checked against
 * the same recurrence on the values the initialisation must write: a[i][j] = (i + j) % 7,
 * b[i][j] = 1 + (i % 3).
 *
 * Records: hl_touch.h's "touch" runs per rank and array (toucher, writer, their CPUs, the
 * writer's OS thread, a later writer from another OS thread); "compute" per rank, runs of
 * consecutive pages of one array computed on by one thread: array, first, count, computer,
 * computer_tid (its OS thread); "sweep" per thread: best seconds of its share of one sweep;
 * "check" on rank 0: ok (every element right on every rank), wrong (elements), pages (per rank).
 */
#include "hybridlab.h"
#include "hl_touch.h"

#ifdef HL_STUDENT_TOUCH
#include "touch_schedule_student.h"
#define VARIANTS 2
#else
#define VARIANTS 1
#endif

const char *const hl_kernel_description =
    "first touch against the compute loop's schedule(static, chunk): who first wrote each page "
    "(hl_touch.h) and who computes on it; every element checked";

const hl_param hl_kernel_params[] = {
    {"variant", "serial", "serial (the master initialises) | student (lab 05 exercise)"},
    {"rows", "64", "rows of each array"},
    {"row_pages", "1", "pages per row"},
    {"chunk", "1", "rows per chunk of the compute loop's schedule(static, chunk)"},
    {"sweeps", "5", "timed sweeps of the compute loop (best is kept)"},
    HL_END_PARAMS,
};

/* ------------------------------------------------------------------------- kernel */

static double a0(long i, long j) { return (double)((i + j) % 7); }
static double b0(long i) { return (double)(1 + i % 3); }

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    static const char *const variants[] = {"serial", "student"};
    int variant = hl_param_choice(ctx, "variant", variants, VARIANTS);
    if (variant < 0) return -1;
    long rows = hl_param_long(ctx, "rows", 1, &ok);
    long row_pages = ok ? hl_param_long(ctx, "row_pages", 1, &ok) : 0;
    long chunk = ok ? hl_param_long(ctx, "chunk", 1, &ok) : 0;
    long sweeps = ok ? hl_param_long(ctx, "sweeps", 1, &ok) : 0;
    if (!ok) return -1;
    if (rows * row_pages > (1L << 18)) return hl_fail(ctx, "rows x row_pages is too large");
    if (sweeps > 1000) return hl_fail(ctx, "parameter sweeps=%ld is too large", sweeps);
    long page = sysconf(_SC_PAGESIZE), cols = row_pages * page / (long)sizeof(double);
    size_t per_array = (size_t)(rows * row_pages), pages = 2 * per_array;
    size_t bytes = per_array * (size_t)page;
    double *a = hl_touch_alloc(ctx, bytes);
    double *b = a ? hl_touch_alloc(ctx, bytes) : NULL;
    int *computer = malloc(2 * pages * sizeof *computer), *computer_tid = computer + pages;
    if (!a || !b || !computer) return computer ? -1 : hl_fail(ctx, "no memory for the page map");

    if (variant == 0) {
        for (long i = 0; i < rows; i++)
            for (long j = 0; j < cols; j++) a[i * cols + j] = a0(i, j), b[i * cols + j] = b0(i);
    }
    int nthreads = omp_get_max_threads(); /* the compute loop's team, whatever the cell sets */
#ifdef HL_STUDENT_TOUCH
    if (variant == 1) {
        /* init_arrays runs on this kernel's stack: the values the compute loop and the check
         * use are kept sealed across it and compared after (hybridlab.h, hl_keep) */
        HL_KEEP(ctx, rows, row_pages, cols, chunk, sweeps, nthreads, (long)per_array, (long)a,
                (long)b, (long)computer, (long)computer_tid);
        hl_touch_watch(1); /* another thread writing a page open to its writer: seen */
        init_arrays(a, b, rows, cols, chunk);
        hl_touch_watch(0);
        HL_KEPT_CHECK("init_arrays", rows, row_pages, cols, chunk, sweeps, nthreads,
                      (long)per_array, (long)a, (long)b, (long)computer, (long)computer_tid);
    }
#endif
    if (hl_touch_emit(ctx, a, "a") != 0 || hl_touch_emit(ctx, b, "b") != 0) return -1;

    for (size_t p = 0; p < pages; p++) computer[p] = computer_tid[p] = -1;
    double *best = malloc((size_t)nthreads * sizeof *best);
    if (!best) return hl_fail(ctx, "no memory");
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num(), tid = (int)syscall(SYS_gettid);
        best[t] = 1e300;
        for (long s = 0; s < sweeps; s++) {
            double t0 = hl_now();
#pragma omp for schedule(static, chunk) nowait
            for (long i = 0; i < rows; i++) {
                for (long j = 0; j < cols; j++) a[i * cols + j] = 0.5 * a[i * cols + j] + b[i * cols + j];
                if (s == 0)
                    for (long q = 0; q < row_pages; q++) {
                        computer[i * row_pages + q] = t;
                        computer[per_array + i * row_pages + q] = t;
                        computer_tid[i * row_pages + q] = tid;
                        computer_tid[per_array + i * row_pages + q] = tid;
                    }
            }
            double took = hl_now() - t0;
            if (took < best[t]) best[t] = took;
#pragma omp barrier
        }
        hl_emit(ctx, "\"record\":\"sweep\",\"seconds\":%.9g,\"chunk\":%ld", best[t], chunk);
    }

    long wrong = 0;
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            double x = a0(i, j), y = b0(i);
            for (long s = 0; s < sweeps; s++) x = 0.5 * x + y;
            wrong += a[i * cols + j] != x || b[i * cols + j] != y;
        }
    for (size_t p = 0; p < pages;) {
        size_t q = p, end = p < per_array ? per_array : pages; /* a run stays in one array */
        while (q < end && computer[q] == computer[p] && computer_tid[q] == computer_tid[p]) q++;
        hl_emit(ctx, "\"record\":\"compute\",\"array\":\"%s\",\"first\":%zu,\"count\":%zu,"
                     "\"computer\":%d,\"computer_tid\":%d,\"threads\":%d,\"chunk\":%ld,"
                     "\"row_pages\":%ld",
                p < per_array ? "a" : "b", p < per_array ? p : p - per_array, q - p, computer[p],
                computer_tid[p], nthreads, chunk, row_pages);
        p = q;
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    if (ctx->rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"wrong\":%ld,\"pages\":%zu,\"threads\":%d,"
                     "\"variant\":\"%s\"",
                wrong == 0, wrong, pages, nthreads, variants[variant]);
    free(best);
    free(computer);
    hl_touch_free(a);
    hl_touch_free(b);
    return 0;
}
