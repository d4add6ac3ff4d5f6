/* syncbench: the cost of OpenMP and MPI synchronisation, measured the EPCC way.
 *
 * Each construct wraps the same short busy delay (delay_ns, EPCC's delay()), repeated `inner`
 * times; the reference loop runs the delay alone, with no OpenMP and no MPI. The overhead of a
 * construct is its time per repetition minus the reference time per repetition, computed in
 * Python from the raw samples (hybridlab.stats.overhead), never here. The test loops follow EPCC
 * syncbench 4.0 (testpr, testfor, testbar, testsing, testcrit, testred); mpi_barrier is the
 * delay then MPI_Barrier on every rank; hybrid_barrier is the two-level barrier of a masteronly
 * code (as in EPCC's mixed-mode suite): an omp barrier, MPI_Barrier on the master, another omp
 * barrier.
 *
 * Method (DESIGN section 5): warm-up, then inner repetitions doubled until one sample lasts at
 * least target_ms on every rank (the ranks agree after every step, so loops that contain MPI
 * collectives stay matched), a discarded pass, then `samples` outer samples. Thread 0 of each
 * rank emits one record per sample: construct, sample, inner, seconds per repetition.
 *
 * Self-checks: the reduction gives `threads` per repetition, the critical section counts every
 * entry exactly once, the worksharing loop runs every iteration once, single runs once per
 * repetition, and every parallel region has the expected number of threads.
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "EPCC syncbench: time per repetition of OpenMP/MPI constructs around a short delay, and of "
    "the reference loop (the delay alone); one record per outer sample and construct";

const hl_param hl_kernel_params[] = {
    {"construct", "reference,barrier",
     "comma list of reference, parallel, for, barrier, single, critical, reduction, "
     "mpi_barrier, hybrid_barrier"},
    {"delay_ns", "100", "busy delay inside each construct and in the reference loop, ns"},
    {"samples", "20", "outer samples per construct"},
    {"target_ms", "1", "inner repetitions double until one sample lasts this many ms"},
    HL_END_PARAMS,
};

#define MAX_CONSTRUCTS 32

typedef enum {
    C_REFERENCE,
    C_PARALLEL,
    C_FOR,
    C_BARRIER,
    C_SINGLE,
    C_CRITICAL,
    C_REDUCTION,
    C_MPI_BARRIER,
    C_HYBRID_BARRIER,
    C_COUNT
} construct_t;

static const char *const construct_names[C_COUNT] = {
    "reference", "parallel",  "for",         "barrier",        "single",
    "critical",  "reduction", "mpi_barrier", "hybrid_barrier",
};

typedef struct {
    MPI_Comm comm;
    long delay_length; /* iterations of delay() */
    int nthreads;      /* the team size every parallel region must have */
    long expected;     /* what the self-check counter should reach */
    long counted;      /* what it reached */
    long wrong_team;   /* parallel regions with an unexpected number of threads */
} bench_args;

/* EPCC's delay(): a chain of dependent float additions the compiler cannot remove or vectorise
 * (no -ffast-math), with a test that never prints but keeps the result alive. */
static void delay(long length) {
    float a = 0.0f;
    for (long i = 0; i < length; i++) a += (float)i;
    if (a < 0.0f) printf("%f\n", a);
}

static void check_team(bench_args *b) {
    if (omp_get_num_threads() != b->nthreads) {
#pragma omp atomic
        b->wrong_team++;
    }
}

static void refer(void *arg, long inner) {
    bench_args *b = arg;
    for (long j = 0; j < inner; j++) delay(b->delay_length);
}

static void testpr(void *arg, long inner) {
    bench_args *b = arg;
    for (long j = 0; j < inner; j++) {
#pragma omp parallel
        {
            delay(b->delay_length);
            if (omp_get_thread_num() == 0) check_team(b);
        }
    }
}

static void testfor(void *arg, long inner) {
    bench_args *b = arg;
    long done = 0;
#pragma omp parallel reduction(+ : done)
    {
        if (omp_get_thread_num() == 0) check_team(b);
        for (long j = 0; j < inner; j++) {
#pragma omp for
            for (int i = 0; i < b->nthreads; i++) {
                delay(b->delay_length);
                done++;
            }
        }
    }
    b->expected += inner * b->nthreads;
    b->counted += done;
}

static void testbar(void *arg, long inner) {
    bench_args *b = arg;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) check_team(b);
        for (long j = 0; j < inner; j++) {
            delay(b->delay_length);
#pragma omp barrier
        }
    }
}

static void testsing(void *arg, long inner) {
    bench_args *b = arg;
    long done = 0;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) check_team(b);
        for (long j = 0; j < inner; j++) {
#pragma omp single
            {
                delay(b->delay_length);
                done++; /* one thread at a time, ordered by single's implied barrier */
            }
        }
    }
    b->expected += inner;
    b->counted += done;
}

static void testcrit(void *arg, long inner) {
    bench_args *b = arg;
    long done = 0, each = inner / b->nthreads;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) check_team(b);
        for (long j = 0; j < each; j++) {
#pragma omp critical
            {
                delay(b->delay_length);
                done++;
            }
        }
    }
    b->expected += each * b->nthreads;
    b->counted += done;
}

static void testred(void *arg, long inner) {
    bench_args *b = arg;
    long total = 0;
    for (long j = 0; j < inner; j++) {
        long aaaa = 0;
#pragma omp parallel reduction(+ : aaaa)
        {
            delay(b->delay_length);
            aaaa += 1;
        }
        total += aaaa;
    }
    b->expected += inner * b->nthreads;
    b->counted += total;
}

static void testmpibar(void *arg, long inner) {
    bench_args *b = arg;
    for (long j = 0; j < inner; j++) {
        delay(b->delay_length);
        MPI_Barrier(b->comm);
    }
}

static void testhybridbar(void *arg, long inner) {
    bench_args *b = arg;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) check_team(b);
        for (long j = 0; j < inner; j++) {
            delay(b->delay_length);
#pragma omp barrier
#pragma omp master
            MPI_Barrier(b->comm);
#pragma omp barrier
        }
    }
}

static const hl_work_fn construct_work[C_COUNT] = {
    refer, testpr, testfor, testbar, testsing, testcrit, testred, testmpibar, testhybridbar,
};

/* Split the comma list into constructs; an unknown name is an error that lists the valid ones. */
static int parse_constructs(hl_ctx *ctx, const char *list, construct_t *out, int *count) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list ? list : "");
    *count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        size_t n = strlen(tok);
        while (n > 0 && tok[n - 1] == ' ') tok[--n] = '\0';
        if (n == 0) continue;
        int found = -1;
        for (int c = 0; c < C_COUNT; c++)
            if (strcmp(tok, construct_names[c]) == 0) found = c;
        if (found < 0) {
            char valid[300] = "";
            for (int c = 0; c < C_COUNT; c++) {
                strncat(valid, c ? ", " : "", sizeof valid - strlen(valid) - 1);
                strncat(valid, construct_names[c], sizeof valid - strlen(valid) - 1);
            }
            return hl_fail(ctx, "unknown construct '%s' (valid: %s)", tok, valid);
        }
        if (*count >= MAX_CONSTRUCTS)
            return hl_fail(ctx, "at most %d constructs per run", MAX_CONSTRUCTS);
        out[(*count)++] = (construct_t)found;
    }
    if (*count == 0) return hl_fail(ctx, "parameter construct is empty: name at least one");
    return 0;
}

static double thread_cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Iterations of delay() that last delay_ns, from a run long enough to read the clock well, timed
 * with the thread's CPU clock (a preempted run still counts only the time it ran). The ranks
 * agree on the largest count, so every rank does the same work. */
static long delay_length_for(MPI_Comm comm, double delay_ns) {
    long length = 0;
    if (delay_ns > 0) {
        long n = 1 << 14;
        double t = 0.0;
        for (;;) {
            double best = 1e30;
            for (int trial = 0; trial < 3; trial++) {
                double c0 = thread_cpu();
                delay(n);
                double dt = thread_cpu() - c0;
                if (dt > 0 && dt < best) best = dt;
            }
            t = best;
            if ((t >= 2e-3 && t < 1e30) || n >= (1L << 34)) break;
            n *= 2;
        }
        length = (long)(delay_ns * 1e-9 * (double)n / t + 0.5);
        if (length < 1) length = 1;
    }
    long agreed = length;
    MPI_Allreduce(&length, &agreed, 1, MPI_LONG, MPI_MAX, comm);
    return agreed;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1, count = 0;
    construct_t constructs[MAX_CONSTRUCTS];
    if (parse_constructs(ctx, hl_param_str(ctx, "construct"), constructs, &count) != 0) return -1;
    double delay_ns = hl_param_double(ctx, "delay_ns", 0.0, &ok);
    if (!ok) return -1;
    long samples = hl_param_long(ctx, "samples", 1, &ok);
    if (!ok) return -1;
    double target_ms = hl_param_double(ctx, "target_ms", 0.0, &ok);
    if (!ok) return -1;
    if (samples > 100000)
        return hl_fail(ctx, "parameter samples=%ld is too large (at most 100000)", samples);
    if (target_ms <= 0.0 || target_ms > 10000.0)
        return hl_fail(ctx, "parameter target_ms=%g must be above 0 and at most 10000", target_ms);
    if (delay_ns > 1e8) return hl_fail(ctx, "parameter delay_ns=%g is above 0.1 s", delay_ns);

    double *seconds = malloc((size_t)samples * sizeof *seconds);
    if (!seconds) return hl_fail(ctx, "rank %d: no memory for %ld samples", ctx->rank, samples);

    bench_args b = {.comm = comm, .nthreads = omp_get_max_threads()};
    b.delay_length = delay_length_for(comm, delay_ns);
    int rc = 0;
    for (int k = 0; k < count; k++) {
        construct_t c = constructs[k];
        hl_work_fn work = construct_work[c];
        b.expected = b.counted = b.wrong_team = 0;
        MPI_Barrier(comm);
        long inner = hl_calibrate(comm, work, &b, target_ms * 1e-3);
        work(&b, inner); /* one more pass, discarded (EPCC ignores the first timed pass) */
        MPI_Barrier(comm);
        hl_sample(work, &b, inner, (int)samples, seconds);
        if (rc != 0)
            continue; /* keep running the collective loops with the other ranks */
        if (b.wrong_team)
            rc = hl_fail(ctx, "rank %d: %s: %ld parallel regions had other than %d threads "
                              "(OMP_DYNAMIC or a thread limit?)",
                         ctx->rank, construct_names[c], b.wrong_team, b.nthreads);
        else if (b.counted != b.expected)
            rc = hl_fail(ctx, "rank %d: %s: self-check failed: counted %ld, expected %ld",
                         ctx->rank, construct_names[c], b.counted, b.expected);
        else
            for (long i = 0; i < samples; i++)
                hl_emit(ctx,
                        "\"construct\":\"%s\",\"sample\":%ld,\"inner\":%ld,\"seconds\":%.9g,"
                        "\"threads\":%d,\"ranks\":%d,\"delay_ns\":%g,\"delay_length\":%ld,"
                        "\"target_ms\":%g",
                        construct_names[c], i, inner, seconds[i], b.nthreads, ctx->size,
                        delay_ns, b.delay_length, target_ms);
    }
    /* A rank whose self-check failed still ran every construct's loops (they hold collectives),
     * so no rank is left waiting in a barrier for one that gave up. */
    free(seconds);
    return rc;
}
