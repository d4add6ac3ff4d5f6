/* syncbench: the cost of OpenMP and MPI synchronisation, measured the EPCC way.
 *
 * Each construct wraps the same short busy delay (delay_ns, EPCC's delay()), repeated `inner`
 * times; the reference loop runs the delay alone, with no OpenMP and no MPI. The overhead of a
 * construct is its time per repetition minus the reference time per repetition, computed in
 * Python from the raw samples (hybridlab.runs.stats.overhead), never here. The test loops follow EPCC
 * syncbench 4.0 (testpr, testfor, testbar, testsing, testcrit, testred); mpi_barrier is the
 * delay then MPI_Barrier on every rank; hybrid_barrier is the two-level barrier of a masteronly
 * code (as in EPCC's mixed-mode suite): an omp barrier, MPI_Barrier on the master, another omp
 * barrier.
 *
 * Method (hl_measure in hybridlab.h; book: How the kit measures): warm-up, then inner
 * repetitions doubled until one sample lasts at least target_ms on every rank (the ranks agree
 * after every step, so loops that contain MPI collectives stay matched), a discarded pass, then
 * `samples` outer samples. Thread 0 of each rank emits one record per sample: construct,
 * sample, inner, seconds per repetition.
 *
 * The timed regions are EPCC's: testpr's holds the delay alone, and what the regions read (the
 * delay length, the team size) is set before the measurements and never written during them,
 * as EPCC's globals are (see `timed` below for what that is worth).
 *
 * Self-checks: the reduction gives `threads` per repetition, the critical section counts every
 * entry exactly once, the worksharing loop runs every iteration once, single runs once per
 * repetition, and the parallel regions have the expected number of threads (checked in every
 * region that spans a timed loop, and in one region before each construct; OMP_DYNAMIC, which
 * would let the team change between regions, is refused).
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

enum {
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
};

static const char *const construct_names[C_COUNT] = {
    "reference", "parallel",  "for",         "barrier",        "single",
    "critical",  "reduction", "mpi_barrier", "hybrid_barrier",
};

typedef struct {
    MPI_Comm comm;
    int nthreads;    /* the team size every parallel region must have */
    long expected;   /* what the self-check counter should reach */
    long counted;    /* what it reached */
    long wrong_team; /* parallel regions with an unexpected number of threads */
} bench_args;

/* What the timed regions read, as EPCC's globals delaylength and nthreads: set once before the
 * measurements and never written while they run, on a cache line of its own. A value the worker
 * threads reach through the master's stack (GCC passes a region's shared locals in a struct
 * the master writes before every fork) costs a cache line from the master's core per region,
 * inside the time: 40-100 ns of a 700 ns fork and join on a 2-core VM, the gap of the kit's
 * `omp parallel` to EPCC's (benchmarks/anchors.md). */
static struct {
    _Alignas(64) long delay_length; /* iterations of hl_delay() */
    int nthreads;
} timed;

/* Called by every thread of a new team: thread 0 counts a team of the wrong size. */
static void check_team(bench_args *b) {
    if (omp_get_thread_num() == 0 && omp_get_num_threads() != b->nthreads) {
#pragma omp atomic
        b->wrong_team++;
    }
}

/* The team of a parallel region as testpr opens one, checked outside its timed loop (its region
 * holds only what EPCC's does): with dynamic adjustment off, every region gets this team. */
static void check_one_team(bench_args *b) {
#pragma omp parallel
    check_team(b);
}

/* The self-check: what a test loop should have counted, and what it counted. */
static void tally(bench_args *b, long expected, long counted) {
    b->expected += expected;
    b->counted += counted;
}

static void refer(void *arg, long inner) {
    (void)arg;
    for (long j = 0; j < inner; j++) hl_delay(timed.delay_length);
}

static void testpr(void *arg, long inner) {
    (void)arg;
    for (long j = 0; j < inner; j++) {
#pragma omp parallel
        hl_delay(timed.delay_length);
    }
}

static void testfor(void *arg, long inner) {
    bench_args *b = arg;
    long done = 0;
#pragma omp parallel reduction(+ : done)
    {
        check_team(b);
        for (long j = 0; j < inner; j++) {
#pragma omp for
            for (int i = 0; i < timed.nthreads; i++) {
                hl_delay(timed.delay_length);
                done++;
            }
        }
    }
    tally(b, inner * timed.nthreads, done);
}

/* testbar, and with a communicator the two-level barrier of a masteronly code: after the omp
 * barrier the master calls MPI_Barrier, and the team waits for it at a second omp barrier. */
static void barrier_loop(bench_args *b, long inner, MPI_Comm comm) {
#pragma omp parallel
    {
        check_team(b);
        for (long j = 0; j < inner; j++) {
            hl_delay(timed.delay_length);
#pragma omp barrier
            if (comm != MPI_COMM_NULL) {
#pragma omp masked
                MPI_Barrier(comm);
#pragma omp barrier
            }
        }
    }
}

static void testbar(void *arg, long inner) { barrier_loop(arg, inner, MPI_COMM_NULL); }

static void testsing(void *arg, long inner) {
    bench_args *b = arg;
    long done = 0;
#pragma omp parallel
    {
        check_team(b);
        for (long j = 0; j < inner; j++) {
#pragma omp single
            {
                hl_delay(timed.delay_length);
                done++; /* one thread at a time, ordered by single's implied barrier */
            }
        }
    }
    tally(b, inner, done);
}

static void testcrit(void *arg, long inner) {
    bench_args *b = arg;
    long done = 0, each = inner / timed.nthreads;
#pragma omp parallel
    {
        check_team(b);
        for (long j = 0; j < each; j++) {
#pragma omp critical
            {
                hl_delay(timed.delay_length);
                done++;
            }
        }
    }
    tally(b, each * timed.nthreads, done);
}

/* EPCC's testred: one sum over all repetitions, each region adding 1 per thread (so the sum
 * also checks every region's team). */
static void testred(void *arg, long inner) {
    bench_args *b = arg;
    long aaaa = 0;
    for (long j = 0; j < inner; j++) {
#pragma omp parallel reduction(+ : aaaa)
        {
            hl_delay(timed.delay_length);
            aaaa += 1;
        }
    }
    tally(b, inner * timed.nthreads, aaaa);
}

static void testmpibar(void *arg, long inner) {
    bench_args *b = arg;
    for (long j = 0; j < inner; j++) {
        hl_delay(timed.delay_length);
        MPI_Barrier(b->comm);
    }
}

static void testhybridbar(void *arg, long inner) {
    bench_args *b = arg;
    barrier_loop(b, inner, b->comm);
}

static const hl_work_fn construct_work[C_COUNT] = {
    refer, testpr, testfor, testbar, testsing, testcrit, testred, testmpibar, testhybridbar,
};

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1, constructs[MAX_CONSTRUCTS];
    int count = hl_param_names(ctx, "construct", "construct", construct_names, C_COUNT,
                               constructs, MAX_CONSTRUCTS);
    if (count < 0) return -1;
    if (count > MAX_CONSTRUCTS)
        return hl_fail(ctx, "at most %d constructs per run", MAX_CONSTRUCTS);
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

    hl_method method = {.comm = comm, .target = target_ms * 1e-3, .outer = (int)samples};
    if (omp_get_dynamic())
        return hl_fail(ctx, "OMP_DYNAMIC is true: the runtime may then change the team from one "
                            "region to the next; syncbench times fixed teams (unset OMP_DYNAMIC)");
    bench_args b = {.comm = comm, .nthreads = omp_get_max_threads()};
    timed.delay_length = hl_delay_length(comm, delay_ns * 1e-9);
    timed.nthreads = b.nthreads;
    int rc = 0;
    for (int k = 0; k < count; k++) {
        const char *name = construct_names[constructs[k]];
        hl_result r;
        b.expected = b.counted = b.wrong_team = 0;
        check_one_team(&b);
        if (hl_measure(ctx, name, construct_work[constructs[k]], NULL, &b, &method, &r) != 0)
            return -1; /* every rank fails here together */
        if (rc != 0) {
            /* keep running the collective loops with the other ranks, so no rank is left
             * waiting in a barrier for one whose self-check failed */
        } else if (b.wrong_team)
            rc = hl_fail(ctx, "rank %d: %s: %ld parallel regions had other than %d threads "
                              "(OMP_DYNAMIC or a thread limit?)",
                         ctx->rank, name, b.wrong_team, b.nthreads);
        else if (b.counted != b.expected)
            rc = hl_fail(ctx, "rank %d: %s: self-check failed: counted %ld, expected %ld",
                         ctx->rank, name, b.counted, b.expected);
        else
            for (int i = 0; i < r.outer; i++)
                hl_emit(ctx,
                        "\"construct\":\"%s\",\"sample\":%d,\"inner\":%ld,\"seconds\":%.9g,"
                        "\"threads\":%d,\"ranks\":%d,\"delay_ns\":%g,\"delay_length\":%ld,"
                        "\"target_ms\":%g",
                        name, i, r.inner, r.test[i], b.nthreads, ctx->size, delay_ns,
                        timed.delay_length, target_ms);
        hl_result_free(&r);
    }
    return rc;
}
