/* imbalance: barrier time is load imbalance, and threads that idle while the master communicates.
 *
 * mode=barrier: every iteration, each thread of rank r computes for work_ms * weight[r] (the
 * rank's work split evenly over its threads, so the compute phase lasts that long), then the
 * rank synchronises the hybrid way: omp barrier, MPI_Barrier on the master, omp barrier. A rank
 * that got less work waits in the barrier for the one that got the most: Smith et al. 2004
 * section 9 (Table 3, Figures 4-5). Weights are 1 + imbalance * r / (P - 1) unless `weights`
 * gives one per rank.
 *
 * mode=sleeping: every iteration, all threads compute for work_ms, then only the master
 * communicates for comm_ms (MPI ping-pong with the neighbouring rank, or with itself on a lone
 * rank; or a plain sleep with comm=sleep) while the other threads wait at an omp barrier: the
 * "sleeping threads" of masteronly hybrid codes (Rabenseifner, slides 10, 15, 35).
 * Each thread's CPU time (CLOCK_THREAD_CPUTIME_ID) beside its wall time shows whether the idle
 * threads really sleep (OMP_WAIT_POLICY=passive) or spin (active).
 *
 * "Work" is a busy loop whose speed is measured once at the start (the ranks agree on the
 * fastest rate), so a rank given twice the work takes about twice as long on an idle core.
 *
 * Records: the threads' timelines (hybridlab.h: hl_phase with CPU time, hl_emit_timeline_each),
 * one "timeline" record per (rank, thread, iteration, phase), emitted after the timed loop, with
 * start and end in seconds since a common start (the end of an initial MPI_Barrier), the wall
 * and CPU seconds of the phase, and the master's seconds inside MPI and round trips in it.
 * Phases: compute and barrier (mode=barrier); compute, comm (the master) and idle (the others)
 * (mode=sleeping). The kernel checks that every thread recorded every phase in order
 * (hl_timeline_check) and that the ping-pong partners agree on the number of round trips.
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "per-rank work with a chosen imbalance, then a hybrid barrier (mode=barrier); or compute, "
    "then master-only communication while the other threads wait (mode=sleeping); one record "
    "per rank, thread, iteration and phase with start/end times and CPU time";

const hl_param hl_kernel_params[] = {
    {"mode", "barrier", "barrier (imbalance then barrier) or sleeping (master-only comm phase)"},
    {"work_ms", "20", "compute phase of a rank of weight 1, ms per iteration"},
    {"imbalance", "0.5", "rank r gets weight 1 + imbalance * r / (P - 1)"},
    {"weights", "", "comma list of one weight per rank (overrides imbalance)"},
    {"iterations", "5", "compute + synchronisation steps"},
    {"num_threads", "0", "OpenMP threads per rank (0: OMP_NUM_THREADS)"},
    {"comm_ms", "20", "mode=sleeping: length of the master-only communication phase, ms"},
    {"comm", "pingpong", "mode=sleeping: pingpong (MPI with the neighbour rank) or sleep"},
    HL_END_PARAMS,
};

#define PINGPONG_TAG 4242

enum { PH_COMPUTE, PH_BARRIER, PH_COMM, PH_IDLE, PH_COUNT };
static const char *const phase_names[PH_COUNT] = {"compute", "barrier", "comm", "idle"};

/* What the master did in each iteration's synchronisation: seconds inside MPI, round trips. */
typedef struct {
    double *mpi;
    long *trips;
} master_log;

/* The fields of an interval's record that only this kernel knows (an hl_interval_fields_fn). */
static void master_fields(char *buf, size_t cap, int thread, const hl_interval *v, void *state) {
    const master_log *master = state;
    int master_sync = thread == 0 && v->phase != PH_COMPUTE;
    double mpi = master_sync ? master->mpi[v->iteration] : 0.0;
    long trips = master_sync ? master->trips[v->iteration] : 0;
    snprintf(buf, cap, "\"mpi_seconds\":%.9f,\"trips\":%ld", mpi, trips);
}

/* Iterations of hl_delay() ("work") per second of CPU time, agreed across ranks (the fastest
 * rate): hl_delay_rate over runs of at least 5 ms. */
#define RATE_RUN_SECONDS 5e-3

/* The weight of this rank: from the `weights` list, or from `imbalance`. */
static int rank_weight(hl_ctx *ctx, double imbalance, double *weight) {
    int P = ctx->size;
    double *w = malloc((size_t)P * sizeof *w);
    if (!w) return hl_fail(ctx, "rank %d: no memory for %d weights", ctx->rank, P);
    int n = hl_param_numbers(ctx, "weights", w, P), rc = 0;
    if (n < 0)
        rc = -1;
    else if (n == 0)
        *weight = P > 1 ? 1.0 + imbalance * (double)ctx->rank / (double)(P - 1) : 1.0;
    else if (n != P)
        rc = hl_fail(ctx, "weights has %d value%s for %d rank%s: give one per rank", n,
                     n == 1 ? "" : "s", P, P == 1 ? "" : "s");
    for (int r = 0; rc == 0 && r < n; r++)
        if (!(w[r] >= 0.0) || w[r] > 1e6)
            rc = hl_fail(ctx, "weights: '%g' is not a number between 0 and 1e6", w[r]);
    if (rc == 0 && n > 0) *weight = w[ctx->rank];
    free(w);
    return rc;
}

/* The master-only communication phase; returns the round trips made. */
static long comm_phase(MPI_Comm comm, int rank, int size, double seconds, int sleep_only) {
    if (sleep_only) {
        hl_sleep_seconds(seconds);
        return 0;
    }
    int partner = rank ^ 1;
    if (partner >= size) partner = rank;
    double t0 = hl_now();
    long trips = 0;
    int go = 1, echo = 0;
    if (partner == rank) { /* a lone rank exchanges with itself */
        do {
            MPI_Sendrecv(&go, 1, MPI_INT, rank, PINGPONG_TAG, &echo, 1, MPI_INT, rank,
                         PINGPONG_TAG, comm, MPI_STATUS_IGNORE);
            trips++;
        } while (hl_now() - t0 < seconds);
    } else if (rank < partner) { /* the leader decides when to stop and tells the partner */
        do {
            go = hl_now() - t0 < seconds;
            MPI_Send(&go, 1, MPI_INT, partner, PINGPONG_TAG, comm);
            MPI_Recv(&echo, 1, MPI_INT, partner, PINGPONG_TAG, comm, MPI_STATUS_IGNORE);
            trips++;
        } while (go);
    } else {
        do {
            MPI_Recv(&go, 1, MPI_INT, partner, PINGPONG_TAG, comm, MPI_STATUS_IGNORE);
            MPI_Send(&go, 1, MPI_INT, partner, PINGPONG_TAG, comm);
            trips++;
        } while (go);
    }
    return trips;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    const char *mode = hl_param_str(ctx, "mode");
    int sleeping = 0;
    if (strcmp(mode, "sleeping") == 0)
        sleeping = 1;
    else if (strcmp(mode, "barrier") != 0)
        return hl_fail(ctx, "unknown mode '%s' (valid: barrier, sleeping)", mode);
    double work_ms = hl_param_double(ctx, "work_ms", 0.0, &ok);
    if (!ok) return -1;
    double imbalance = hl_param_double(ctx, "imbalance", 0.0, &ok);
    if (!ok) return -1;
    long iterations = hl_param_long(ctx, "iterations", 1, &ok);
    if (!ok) return -1;
    long threads = hl_param_long(ctx, "num_threads", 0, &ok);
    if (!ok) return -1;
    double comm_ms = hl_param_double(ctx, "comm_ms", 0.0, &ok);
    if (!ok) return -1;
    const char *comm_kind = hl_param_str(ctx, "comm");
    int sleep_only = 0;
    if (strcmp(comm_kind, "sleep") == 0)
        sleep_only = 1;
    else if (strcmp(comm_kind, "pingpong") != 0)
        return hl_fail(ctx, "unknown comm '%s' (valid: pingpong, sleep)", comm_kind);
    if (iterations > HL_TIMELINE_MAX_ITERATIONS)
        return hl_fail(ctx, "parameter iterations=%ld is too large (at most %d)", iterations,
                       HL_TIMELINE_MAX_ITERATIONS);
    if (work_ms > 60000.0 || comm_ms > 60000.0)
        return hl_fail(ctx, "work_ms and comm_ms must be at most 60000 (one minute)");
    if (threads > 1024) return hl_fail(ctx, "parameter num_threads=%ld is too large", threads);
    double weight = 1.0;
    if (rank_weight(ctx, imbalance, &weight) != 0) return -1;

    int nthreads = threads > 0 ? (int)threads : omp_get_max_threads();
    hl_timers *acc = hl_timers_new(nthreads);
    master_log master = {calloc((size_t)iterations, sizeof(double)),
                         calloc((size_t)iterations, sizeof(long))};
    int have = acc && master.mpi && master.trips;
    have = have && hl_timeline_new(acc, nthreads, iterations) == 0;
    int everyone = 0, rc = 0;
    MPI_Allreduce(&have, &everyone, 1, MPI_INT, MPI_MIN, comm);
    if (!everyone) {
        rc = hl_fail(ctx, "rank %d: no memory for %ld iterations of records", ctx->rank,
                     iterations);
        goto done;
    }
    hl_timeline_cpu(acc, nthreads);

    double rate = hl_delay_rate(comm, RATE_RUN_SECONDS);
    double my_ms = sleeping ? work_ms : work_ms * weight;
    long length = (long)(rate * my_ms * 1e-3 + 0.5);
    long bad_team = 0;

    const double origin = hl_start_together(comm); /* the common start */
#pragma omp parallel num_threads(nthreads) reduction(+ : bad_team)
    {
        int me = omp_get_thread_num();
        if (omp_get_num_threads() != nthreads) bad_team++;
        hl_timers *mine = &acc[me];
        int sync_phase = !sleeping ? PH_BARRIER : me == 0 ? PH_COMM : PH_IDLE;
        double t = hl_phase_begin(mine);
        for (long it = 0; it < iterations; it++) {
            hl_timers_iteration(mine, 1, it);
            hl_delay(length);
            t = hl_phase(mine, PH_COMPUTE, t);
#pragma omp barrier
#pragma omp masked
            {
                double m0 = hl_now();
                if (sleeping)
                    master.trips[it] = comm_phase(comm, ctx->rank, ctx->size, comm_ms * 1e-3,
                                                  sleep_only);
                else
                    MPI_Barrier(comm);
                master.mpi[it] = hl_now() - m0;
            }
#pragma omp barrier
            t = hl_phase(mine, sync_phase, t);
        }
    }

    /* Ping-pong partners must agree on the number of round trips. */
    int bad_trips = 0;
    if (sleeping && !sleep_only && ctx->size > 1) {
        int partner = ctx->rank ^ 1;
        long my_trips = 0, their_trips = 0;
        for (long it = 0; it < iterations; it++) my_trips += master.trips[it];
        if (partner >= ctx->size) partner = ctx->rank;
        MPI_Sendrecv(&my_trips, 1, MPI_LONG, partner, PINGPONG_TAG + 1, &their_trips, 1, MPI_LONG,
                     partner, PINGPONG_TAG + 1, comm, MPI_STATUS_IGNORE);
        bad_trips = my_trips != their_trips;
    }

    rc = hl_timeline_check(ctx, acc, nthreads); /* collective: every rank calls it */
    if (bad_team)
        rc = hl_fail(ctx, "rank %d: the parallel region had other than %d threads", ctx->rank,
                     nthreads);
    else if (bad_trips)
        rc = hl_fail(ctx, "rank %d: ping-pong partners counted different round trips",
                     ctx->rank);
    if (rc != 0) goto done;

    char tail[256];
    snprintf(tail, sizeof tail,
             "\"mode\":\"%s\",\"weight\":%g,\"work_ms\":%g,\"comm_ms\":%g,\"threads\":%d,"
             "\"ranks\":%d",
             sleeping ? "sleeping" : "barrier", sleeping ? 1.0 : weight, my_ms,
             sleeping ? comm_ms : 0.0, nthreads, ctx->size);
    hl_emit_timeline_each(ctx, acc, nthreads, phase_names, PH_COUNT, origin, master_fields,
                          &master, tail);
done:
    hl_timers_free(acc, nthreads);
    free(master.mpi);
    free(master.trips);
    return rc;
}
