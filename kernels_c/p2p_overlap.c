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
 * checked (received against the partner's values, each step computed exactly once: its calls
 * counted on the kernel's sealed pages, see overlap_evidence; results against a serial computation
 * made once before the samples); a wrong one fails the run with a message naming it. The student's
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

/* What the judging reads, out of the cell's reach (issue 36): the run's parameters, the kit's
 * arrays and each step's count of compute_step calls live in the kernel's sealed evidence
 * (hybridlab.h, HL_SEALED), read-only pages the kit writes through /proc/self/mem and zeroes
 * before each kernel call; reads are plain loads. Kept as statics of this unit they sat at a fixed
 * offset from any static of the cell (the link fixes it): a cell could set the count of calls,
 * point `results` at `expected`, make the steps free (flops_per_step 0) or change the slowed
 * steps (step_us) and the variants chosen, so that a sample that skipped steps passed. The
 * steps' values (results, expected) stay on the heap: the verdict is the sealed counts (each
 * step's calls, one pwrite per call, in one critical section: a few us a step on a loaded VM);
 * results against expected only catches the kit's own faults. */
enum { OV_DONE = 15872 }; /* steps counted one by one; more: step i in slot i % OV_DONE */
typedef struct {
    long ready;                 /* 1 from the parameters' put to the kernel's end */
    int rank;                   /* ctx->rank at the start (the late rank's turn) */
    int nchosen, chosen[V_COUNT];
    long bytes, steps, flops, poll, samples, late_us, step_us, count;
    double *results;            /* one result per step, NaN until computed (the heap) */
    const double *expected;     /* each step's result, computed once serially (the heap) */
    long stray, stray_i;        /* compute_step calls with i outside 0..steps-1, the first's i */
    unsigned short done[OV_DONE]; /* this sample's compute_step calls per step (or slot) */
} overlap_evidence;
_Static_assert(sizeof(overlap_evidence) <= HL_SEALED_DATA, "overlap_evidence: too large");
#define ev (*HL_SEALED(overlap_evidence))
#define EV(field) (*(const volatile __typeof__(ev.field) *)&ev.field) /* a fresh load */
#define EV_SET(field, value) HL_SEALED_SET(ev, field, value)

static double step_value(long i, long flops) {
    double x = (double)(i % 1000) * 1e-3;
    for (long k = 0; k < flops; k++) x = x * 0.999999 + 1e-6;
    return x;
}

void compute_step(long i) {
#ifdef HL_TRACE_MPI
    double t0 = hl_now();
#endif
    if (!EV(ready)) return; /* (no run of the kernel: nothing to compute) */
    long steps = EV(steps);
    if (i < 0 || i >= steps) { /* counted, never written: results holds steps values */
#pragma omp critical(hl_sealed_lock)
        {
            long stray[2] = {EV(stray) + 1, EV(stray) ? EV(stray_i) : i};
            hl_sealed_put(&ev.stray, stray, sizeof stray);
        }
        return;
    }
    EV(results)[i] = step_value(i, EV(flops));
    long slot = i % OV_DONE;
    /* one thread at a time: a step computed by two threads at once counts twice, and where
     * /proc/self/mem cannot be written hl_sealed_put opens the page for a moment */
#pragma omp critical(hl_sealed_lock)
    {
        unsigned short calls = EV(done[slot]);
        if (calls < 0xffff) {
            calls++;
            hl_sealed_put(&ev.done[slot], &calls, sizeof calls);
        }
    }
    long sleep_us = EV(step_us);
    if (sleep_us > 0) hl_sleep_us(sleep_us); /* a longer step: inside the traced interval */
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

/* The first wrong thing of a sample (message: "" when all is right): the values received, then
 * the steps, from the sealed counts of compute_step's calls. */
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
    if (EV(stray)) {
        snprintf(message, size,
                 "%s, sample %ld: compute_step was called with i = %ld, outside 0..%ld (%ld such "
                 "calls): each step once", variant_names[v], sample, EV(stray_i), steps - 1,
                 EV(stray));
        return;
    }
    long slots = steps < OV_DONE ? steps : OV_DONE, calls = 0;
    for (long b = 0; b < slots; b++) calls += EV(done[b]);
    if (calls != steps) {
        snprintf(message, size,
                 "%s, sample %ld: compute_step was called %ld times for %ld steps (each step "
                 "once)", variant_names[v], sample, calls, steps);
        return;
    }
    for (long b = 0; b < slots; b++) {
        long want = steps / OV_DONE + (b < steps % OV_DONE), got = EV(done[b]);
        if (got == want) continue;
        if (steps <= OV_DONE && got == 0)
            snprintf(message, size, "%s, sample %ld: step %ld was not computed",
                     variant_names[v], sample, b);
        else if (steps <= OV_DONE)
            snprintf(message, size, "%s, sample %ld: step %ld was computed %ld times (each step "
                     "once)", variant_names[v], sample, b, got);
        else
            snprintf(message, size, "%s, sample %ld: the steps %ld + k x %d were computed %ld "
                     "times, not %ld (each step once)", variant_names[v], sample, b, OV_DONE,
                     got, want);
        return;
    }
    const double *results = EV(results), *expected = EV(expected);
    for (long i = 0; i < steps; i++)
        if (results[i] != expected[i]) {
            snprintf(message, size, "%s, sample %ld: step %ld's result is %.17g, not %.17g (the "
                     "kit's arrays are written by compute_step only)", variant_names[v], sample,
                     i, results[i], expected[i]);
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
    long step_us = hl_param_long(ctx, "step_us", 0, &ok);
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
    /* the run, sealed before any of the cell's code runs; read back from there from now on */
    EV_SET(rank, ctx->rank);
    EV_SET(nchosen, nchosen);
    hl_sealed_put(ev.chosen, chosen, sizeof chosen);
    EV_SET(bytes, bytes);
    EV_SET(steps, steps);
    EV_SET(flops, flops);
    EV_SET(poll, poll);
    EV_SET(samples, samples);
    EV_SET(late_us, late_us);
    EV_SET(step_us, step_us);
    EV_SET(count, count);
    double *out = malloc((size_t)(count ? count : 1) * sizeof(double));
    double *in = malloc((size_t)(count ? count : 1) * sizeof(double));
    double *results = malloc((size_t)steps * sizeof(double));
    double *expected = malloc((size_t)steps * sizeof(double));
    int mine_ok = out && in && results && expected, all_ok = 0;
    MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int rc = 0;
    if (!all_ok) {
        rc = hl_fail(ctx, "no memory for %ld bytes and %ld steps on some rank", bytes, steps);
        free(out);
        free(in);
        free(results);
        free(expected);
        return rc;
    }
    for (long i = 0; i < steps; i++) expected[i] = step_value(i, flops);
    EV_SET(results, results);
    EV_SET(expected, expected);
    EV_SET(ready, 1);
    static const unsigned short no_calls[OV_DONE];
    static const long no_stray[2];
    long slots = steps < OV_DONE ? steps : OV_DONE;
    char message[256];
    for (int c = 0; c < EV(nchosen) && rc == 0; c++) {
        int v = EV(chosen[c]);
        for (long s = -1; s < EV(samples); s++) { /* sample -1: warm-up, not recorded */
            uint64_t secret = drawn_secret();
            for (long k = 0; k < count; k++) {
                out[k] = pattern(secret, k);
                in[k] = NAN;
            }
            double *fresh = EV(results);
            for (long i = 0; i < steps; i++) fresh[i] = NAN;
            hl_sealed_put(ev.done, no_calls, (size_t)slots * sizeof *no_calls);
            hl_sealed_put(&ev.stray, no_stray, sizeof no_stray);
            double t0 = hl_start_together(comm);
            /* the judged runs: the partner late in turn, so the other's exchange is open that
             * long and its team has the time to compute inside it (the overlap judged there) */
            if (v == V_STUDENT && EV(late_us) > 0 && ((EV(rank) + s + 2) & 1))
                hl_sleep_us(EV(late_us));
#ifdef HL_STUDENT_P2P_OVERLAP /* the cell runs on this stack: what a sample is judged by, kept */
            long t0_bits;
            memcpy(&t0_bits, &t0, sizeof t0_bits);
            HL_KEEP(ctx, v, s, c, count, steps, peer, (long)secret, t0_bits, (long)in, (long)out);
#endif
            run_variant(v, out, in, count, peer, comm, steps, EV(poll));
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
                        variant_names[v], s, seconds, EV(bytes), steps, EV(flops), EV(poll),
                        omp_get_max_threads());
        }
    }
    EV_SET(ready, 0); /* compute_step writes no more */
    free(out);
    free(in);
    free(EV(results));
    free((void *)EV(expected));
    return rc;
}
