/* p2p_overlap: a message exchanged while an OpenMP team computes (lab 03's exercise).
 *
 * Ranks pair up (0 with 1, 2 with 3, ...); each sends `bytes` to its partner and receives as
 * many from it, and an OpenMP team computes `steps` work steps (compute_step: a fixed chain of
 * `flops` multiply-adds, its result kept per step). Per sample, timed from a barrier:
 *
 *   compute   the team's steps only (no message)
 *   message   the master's MPI_Sendrecv only (no computation)
 *   blocking  the exchange first (MPI_Sendrecv), then the steps: what overlap must beat
 *   student   the student's overlap_exchange (lab 03 exercise; HL_STUDENT_P2P_OVERLAP): the
 *             master starts MPI_Isend/MPI_Irecv, the team computes while the master polls with
 *             MPI_Test, then the master completes the requests (late_us: in each sample one
 *             rank of each pair, each in turn, calls it that late, so its partner's exchange
 *             is open at least that long: the judged runs, hybridlab.p2p.exercise; step_us:
 *             compute_step sleeps that long after each step, on every thread alike, so that
 *             a team sharing the steps gives the master about 1/T of them however loaded the
 *             machine, and a master that only posts and waits none: the runs of a team, where
 *             the master's own share is judged)
 *
 * One record per variant and sample: seconds. Every received value and every step's result are
 * checked (received against the partner's values, results against a serial computation made
 * once before the samples, each step computed exactly once); a wrong one fails the run with a message naming it. The student's
 * code sees MPI_Send as MPI_Ssend (the standard allows a send to wait for its receive), so an
 * order that relies on buffering deadlocks.
 *
 * The values a rank sends are drawn from a secret it draws afresh for each sample (getrandom) and
 * tells its partner only once the sample's exchange has returned (the kit's own MPI_Sendrecv,
 * the "reveal"): nothing in a process says what its partner will send, so the values received
 * cannot be made from the rank's own (a fresh attacker's T03_zero and T03_self derived the
 * partner's rank * 1e6 + sample * 1e3 + k % 997 from their own buffer and moved no data, 4/4
 * kept, 2026-12-05). The reveal's record (student 0) gives the judge the kit's communicator and
 * the partner (hybridlab.p2p.exercise._check_postings).
 */
#include "hybridlab.h"
#include <stdatomic.h>
#include <stdint.h>
#include <sys/random.h>

#ifdef HL_STUDENT_P2P_OVERLAP
#include "p2p_overlap_student.h" /* overlap_exchange, and the kit's compute_step */
#endif

const char *const hl_kernel_description =
    "a message exchanged between rank pairs while an OpenMP team computes: compute only, message "
    "only, blocking (message then compute), and the student's overlap (lab 03)";

const hl_param hl_kernel_params[] = {
    {"variants", "compute,message,blocking", "comma list of compute, message, blocking, student"},
    {"bytes", "1048576", "message size in bytes (a multiple of 8: doubles)"},
    {"steps", "2000", "work steps the team computes per sample"},
    {"flops", "2000", "multiply-adds per work step"},
    {"poll", "10", "student: the master calls MPI_Test about every `poll` of its steps"},
    {"samples", "5", "timed samples per variant (after one untimed warm-up)"},
    {"late_us", "0", "student: one rank of each pair (each in turn) calls it this late"},
    {"step_us", "0", "compute_step sleeps this long after each step, on every thread"},
    HL_END_PARAMS,
};

enum { V_COMPUTE, V_MESSAGE, V_BLOCKING, V_STUDENT, V_COUNT };
static const char *const variant_names[V_COUNT] = {"compute", "message", "blocking", "student"};

static double *results;      /* one result per step, NaN until computed */
static double *expected;     /* each step's result, computed once serially */
static long flops_per_step;  /* multiply-adds per step */
static atomic_long computed; /* compute_step calls in this sample */
static long step_us;         /* the sleep after each step, on every thread */

static double step_value(long i) {
    double x = (double)(i % 1000) * 1e-3;
    for (long k = 0; k < flops_per_step; k++) x = x * 0.999999 + 1e-6;
    return x;
}

void compute_step(long i) {
#ifdef HL_TRACE_MPI
    double t0 = hl_now();
#endif
    results[i] = step_value(i);
    atomic_fetch_add(&computed, 1);
    if (step_us > 0) hl_sleep_us(step_us); /* a longer step: inside the traced interval */
#ifdef HL_TRACE_MPI
    hl_trace_compute(t0, hl_now());
#endif
}

/* The secret a rank draws for one sample (getrandom; the clock where it fails). */
static uint64_t drawn_secret(void) {
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) r = (uint64_t)(hl_now() * 1e9);
    return r;
}

/* Value k of the message made from `secret` (splitmix64: a whole number below 2^44, exact in a
 * double). */
static double pattern(uint64_t secret, long k) {
    uint64_t z = secret + 0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 20);
}

/* The partner's secret of this sample, told once the exchange has returned (the kit's call). */
enum { REVEAL_TAG = 32767 };
static uint64_t revealed(uint64_t mine, int peer, MPI_Comm comm) {
    uint64_t theirs = 0;
    MPI_Sendrecv(&mine, 1, MPI_UINT64_T, peer, REVEAL_TAG, &theirs, 1, MPI_UINT64_T, peer,
                 REVEAL_TAG, comm, MPI_STATUS_IGNORE);
    return theirs;
}

static void team_compute(long steps) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < steps; i++) compute_step(i);
}

static void exchange(const double *out, double *in, long count, int peer, MPI_Comm comm) {
    MPI_Sendrecv(out, (int)count, MPI_DOUBLE, peer, 3, in, (int)count, MPI_DOUBLE, peer, 3, comm,
                 MPI_STATUS_IGNORE);
}

static void run_variant(int v, const double *out, double *in, long count, int peer,
                        MPI_Comm comm, long steps, long poll) {
    switch (v) {
    case V_COMPUTE: team_compute(steps); break;
    case V_MESSAGE: exchange(out, in, count, peer, comm); break;
    case V_BLOCKING:
        exchange(out, in, count, peer, comm);
        team_compute(steps);
        break;
    default:
#ifdef HL_STUDENT_P2P_OVERLAP
        overlap_exchange(out, in, count, peer, comm, steps, poll);
#else
        (void)poll;
#endif
        break;
    }
}

/* The first wrong thing of a sample (message: "" when all is right). */
static void check_sample(int v, const double *in, long count, int peer, uint64_t theirs,
                         long sample, long steps, char *message, size_t size) {
    message[0] = '\0';
    if (v != V_COMPUTE) {
        for (long k = 0; k < count; k++)
            if (in[k] != pattern(theirs, k)) {
                snprintf(message, size,
                         "%s, sample %ld: received value %ld is %.17g, expected %.17g (the "
                         "message from rank %d: values it drew for this sample and told no one "
                         "before the exchange returned)",
                         variant_names[v], sample, k, in[k], pattern(theirs, k), peer);
                return;
            }
    }
    if (v == V_MESSAGE) return;
    long calls = atomic_load(&computed);
    if (calls != steps) {
        snprintf(message, size,
                 "%s, sample %ld: compute_step was called %ld times for %ld steps (each step "
                 "once)", variant_names[v], sample, calls, steps);
        return;
    }
    for (long i = 0; i < steps; i++)
        if (results[i] != expected[i]) {
            snprintf(message, size, "%s, sample %ld: step %ld was not computed", variant_names[v],
                     sample, i);
            return;
        }
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long bytes = hl_param_long(ctx, "bytes", 8, &ok);
    long steps = hl_param_long(ctx, "steps", 1, &ok);
    long flops = hl_param_long(ctx, "flops", 0, &ok);
    long poll = hl_param_long(ctx, "poll", 1, &ok);
    long samples = hl_param_long(ctx, "samples", 1, &ok);
    long late_us = hl_param_long(ctx, "late_us", 0, &ok);
    step_us = hl_param_long(ctx, "step_us", 0, &ok);
    if (!ok) return -1;
    if (late_us > 1000000L || step_us > 1000000L)
        return hl_fail(ctx, "late_us=%ld or step_us=%ld is above 1 s", late_us, step_us);
    if (bytes % 8 != 0 || bytes > (1L << 28))
        return hl_fail(ctx, "bytes=%ld must be a multiple of 8 and at most 256 MiB", bytes);
    if (steps > 100000000L || flops > 100000000L || samples > 10000)
        return hl_fail(ctx, "steps, flops or samples too large");
    if (ctx->size % 2 != 0) return hl_fail(ctx, "ranks pair up: run an even number of ranks");
    int chosen[V_COUNT];
    int nchosen = hl_param_names(ctx, "variants", "variant", variant_names, V_COUNT, chosen, V_COUNT);
    if (nchosen < 0) return -1;
    if (nchosen > V_COUNT) return hl_fail(ctx, "variants: name each at most once");
#ifndef HL_STUDENT_P2P_OVERLAP
    for (int c = 0; c < nchosen; c++)
        if (chosen[c] == V_STUDENT)
            return hl_fail(ctx, "variant student needs overlap_exchange (lab 03's exercise)");
#endif
    long count = bytes / 8;
    int peer = ctx->rank ^ 1;
    flops_per_step = flops;
    double *out = malloc((size_t)(count ? count : 1) * sizeof(double));
    double *in = malloc((size_t)(count ? count : 1) * sizeof(double));
    results = malloc((size_t)steps * sizeof(double));
    expected = malloc((size_t)steps * sizeof(double));
    int mine_ok = out && in && results && expected, all_ok = 0;
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int rc = 0;
    if (!all_ok) {
        rc = hl_fail(ctx, "no memory for %ld bytes and %ld steps on some rank", bytes, steps);
        goto done;
    }
    for (long i = 0; i < steps; i++) expected[i] = step_value(i);
    char message[256];
    for (int c = 0; c < nchosen && rc == 0; c++) {
        int v = chosen[c];
        for (long s = -1; s < samples; s++) { /* sample -1: warm-up, not recorded */
            uint64_t secret = drawn_secret();
            for (long k = 0; k < count; k++) {
                out[k] = pattern(secret, k);
                in[k] = NAN;
            }
            for (long i = 0; i < steps; i++) results[i] = NAN;
            atomic_store(&computed, 0);
            double t0 = hl_start_together(comm);
            /* the judged runs: the partner late in turn, so the other's exchange is open that
             * long and its team has the time to compute inside it (the overlap judged there) */
            if (v == V_STUDENT && late_us > 0 && ((ctx->rank + s + 2) & 1)) hl_sleep_us(late_us);
#ifdef HL_STUDENT_P2P_OVERLAP /* the cell runs on this stack: what a sample is judged by, kept */
            long t0_bits;
            memcpy(&t0_bits, &t0, sizeof t0_bits);
            HL_KEEP(ctx, v, s, c, count, steps, peer, (long)secret, t0_bits, (long)in, (long)out);
#endif
            run_variant(v, out, in, count, peer, comm, steps, poll);
            double seconds = hl_now() - t0;
#ifdef HL_STUDENT_P2P_OVERLAP
            memcpy(&t0_bits, &t0, sizeof t0_bits);
            HL_KEPT_CHECK("overlap_exchange", v, s, c, count, steps, peer, (long)secret,
                          t0_bits, (long)in, (long)out);
#endif
            uint64_t theirs = v == V_COMPUTE ? 0 : revealed(secret, peer, comm);
            secret = 0;
            check_sample(v, in, count, peer, theirs, s, steps, message, sizeof message);
            int bad = message[0] != '\0', any_bad = 0;
            MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
            if (any_bad) {
                rc = bad ? hl_fail(ctx, "%s", message) : hl_fail(ctx, "a partner failed");
                break;
            }
            if (s >= 0)
                hl_emit(ctx,
                        "\"record\":\"sample\",\"variant\":\"%s\",\"sample\":%ld,\"seconds\":%.9g,"
                        "\"bytes\":%ld,\"steps\":%ld,\"flops\":%ld,\"poll\":%ld,\"threads\":%d",
                        variant_names[v], s, seconds, bytes, steps, flops, poll,
                        omp_get_max_threads());
        }
    }
done:
    free(out);
    free(in);
    free(results);
    free(expected);
    return rc;
}
