/* touch_schedule: does the first touch match the compute loop's schedule? (lab 05 exercise)
 *
 * Each rank maps two fresh arrays a and b of `rows` rows of `row_pages` pages each (row-major,
 * transparent huge pages off, so a page is a base page) and protects them (PROT_NONE). The
 * initialisation then runs - variant=serial: the master thread alone; variant=student (built by
 * hybridlab.memory.exercise with the student's code): init_arrays() - and every page's first
 * access faults once: the handler records the OpenMP thread that made it and opens the page.
 * That is who first touched each page, and so (Linux's first-touch policy) on which NUMA node
 * the page lives; it works on a machine with one NUMA node too, where move_pages would say
 * "node 0" for every page.
 *
 * The compute loop is the kit's: `sweeps` times, in parallel with schedule(static, chunk) over
 * the rows (chunk rows at a time, round robin over the threads),
 *     a[i][j] = 0.5 * a[i][j] + b[i][j]
 * and it records which thread computed on each page. Every element is then checked against
 * the same recurrence on the values the initialisation must write: a[i][j] = (i + j) % 7,
 * b[i][j] = 1 + (i % 3).
 *
 * Records: "pages" per rank, runs of consecutive pages (array a or b) with one toucher and one
 * computer: first, count, toucher (-1: never touched), computer; "sweep" per thread: best
 * seconds of its share of one sweep; "check" on rank 0: ok (every element right on every
 * rank), wrong (elements), pages, mismatched (pages whose toucher is not their computer,
 * all ranks), untouched (pages never touched by the initialisation).
 */
#include "hybridlab.h"

#include <stdatomic.h>
#include <sys/mman.h>

#ifdef HL_STUDENT_TOUCH
void init_arrays(double *a, double *b, long rows, long cols, long chunk);
#define VARIANTS 2
#else
#define VARIANTS 1
#endif

const char *const hl_kernel_description =
    "first touch against the compute loop's schedule(static, chunk): who first touched each "
    "page (recorded by a fault handler) and who computes on it; every element checked";

const hl_param hl_kernel_params[] = {
    {"variant", "serial", "serial (the master initialises) | student (lab 05 exercise)"},
    {"rows", "64", "rows of each array"},
    {"row_pages", "1", "pages per row"},
    {"chunk", "1", "rows per chunk of the compute loop's schedule(static, chunk)"},
    {"sweeps", "5", "timed sweeps of the compute loop (best is kept)"},
    HL_END_PARAMS,
};

/* ------------------------------------------------ who first touches each page (SIGSEGV) */

static char *touch_base;
static size_t touch_pages;
static long touch_page;
static atomic_int *touch_owner; /* per page: the first thread, -1 before */
static struct sigaction touch_saved;

static void touch_fault(int sig, siginfo_t *info, void *context) {
    (void)context;
    char *addr = info->si_addr;
    if (touch_base && addr >= touch_base && addr < touch_base + touch_pages * touch_page) {
        size_t p = (size_t)(addr - touch_base) / (size_t)touch_page;
        int none = -1;
        atomic_compare_exchange_strong(&touch_owner[p], &none, omp_get_thread_num());
        mprotect(touch_base + p * touch_page, (size_t)touch_page, PROT_READ | PROT_WRITE);
        return;
    }
    sigaction(sig, &touch_saved, NULL); /* not ours: the fault happens again, for the kit's handler */
}

static int touch_begin(char *base, size_t pages, long page, atomic_int *owner) {
    for (size_t p = 0; p < pages; p++) atomic_init(&owner[p], -1);
    touch_base = base, touch_pages = pages, touch_page = page, touch_owner = owner;
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = touch_fault;
    act.sa_flags = SA_SIGINFO;
    sigemptyset(&act.sa_mask);
    if (sigaction(SIGSEGV, &act, &touch_saved) != 0) return -1;
    return mprotect(base, pages * (size_t)page, PROT_NONE);
}

static void touch_end(void) {
    mprotect(touch_base, touch_pages * (size_t)touch_page, PROT_READ | PROT_WRITE);
    sigaction(SIGSEGV, &touch_saved, NULL);
    touch_base = NULL;
}

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
    char *base = mmap(NULL, pages * (size_t)page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    atomic_int *toucher = malloc(pages * sizeof *toucher);
    int *computer = malloc(pages * sizeof *computer);
    if (base == MAP_FAILED || !toucher || !computer)
        return hl_fail(ctx, "no memory for 2 x %zu pages", per_array);
#ifdef MADV_NOHUGEPAGE
    madvise(base, pages * (size_t)page, MADV_NOHUGEPAGE);
#endif
    double *a = (double *)base, *b = (double *)(base + per_array * (size_t)page);

    if (touch_begin(base, pages, page, toucher) != 0)
        return hl_fail(ctx, "could not protect the arrays: %s", strerror(errno));
    if (variant == 0) {
        for (long i = 0; i < rows; i++)
            for (long j = 0; j < cols; j++) a[i * cols + j] = a0(i, j), b[i * cols + j] = b0(i);
    }
#ifdef HL_STUDENT_TOUCH
    if (variant == 1) init_arrays(a, b, rows, cols, chunk);
#endif
    touch_end();

    for (size_t p = 0; p < pages; p++) computer[p] = -1;
    int nthreads = omp_get_max_threads();
    double *best = malloc((size_t)nthreads * sizeof *best);
    if (!best) return hl_fail(ctx, "no memory");
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
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
                    }
            }
            double took = hl_now() - t0;
            if (took < best[t]) best[t] = took;
#pragma omp barrier
        }
        hl_emit(ctx, "\"record\":\"sweep\",\"seconds\":%.9g,\"chunk\":%ld", best[t], chunk);
    }

    long wrong = 0, mismatched = 0, untouched = 0;
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            double x = a0(i, j), y = b0(i);
            for (long s = 0; s < sweeps; s++) x = 0.5 * x + y;
            wrong += a[i * cols + j] != x || b[i * cols + j] != y;
        }
    for (size_t p = 0; p < pages;) {
        size_t q = p, end = p < per_array ? per_array : pages; /* a run stays in one array */
        int who = atomic_load(&toucher[p]);
        while (q < end && atomic_load(&toucher[q]) == who && computer[q] == computer[p]) q++;
        hl_emit(ctx, "\"record\":\"pages\",\"array\":\"%s\",\"first\":%zu,\"count\":%zu,"
                     "\"toucher\":%d,\"computer\":%d,\"threads\":%d,\"chunk\":%ld,\"row_pages\":%ld",
                p < per_array ? "a" : "b", p < per_array ? p : p - per_array, q - p, who,
                computer[p], nthreads, chunk, row_pages);
        if (who != computer[p]) mismatched += (long)(q - p);
        if (who < 0) untouched += (long)(q - p);
        p = q;
    }
    long counts[3] = {wrong, mismatched, untouched};
    MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_LONG, MPI_SUM, comm);
    if (ctx->rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"wrong\":%ld,\"mismatched\":%ld,"
                     "\"untouched\":%ld,\"pages\":%zu,\"threads\":%d,\"variant\":\"%s\"",
                counts[0] == 0, counts[0], counts[1], counts[2], pages, nthreads, variants[variant]);
    free(best);
    free(toucher);
    free(computer);
    munmap(base, pages * (size_t)page);
    return 0;
}
