/* construct_bench: the EPCC method around one OpenMP construct, written in a notebook (lab 02).
 *
 * What is timed is stated by three things, in EPCC syncbench's way (book: How the kit measures):
 *     construct_test(arg, inner)     a parallel region in which every thread repeats `inner`
 *                                    times: hl_delay(s->delay), then the construct, which
 *                                    protects one update of s->updates
 *     reference_loop(arg, inner)     the delay alone, `inner` times, no OpenMP (as syncbench's)
 *     measure_construct(...)         one hl_measure() call: warm-up, inner repetitions calibrated
 *                                    to target_ms, a discarded pass, `samples` outer samples of
 *                                    the reference, then of the test
 * and construct_name says which construct it is. The kernel emits every raw sample; Python
 * computes overhead = median(test) - median(reference).
 *
 * Built as it is, construct_test and measure_construct are the worked example below
 * (`critical`); built by hybridlab.sync.exercise with HL_STUDENT_CONSTRUCT, they are the
 * student's.
 *
 * Behavioural checks: the measurement must have made at least one update per timed repetition
 * (the test timed was construct_test, not the reference under its name); after it the test runs
 * once more with no delay (threads
 * contend for every update) for `check_reps` repetitions, and the kernel reports how many
 * updates arrived ("updates" record): a construct that protects the update loses none.
 *
 * Records: one per sample and kind ("sample": construct, kind test|reference, sample, inner,
 * seconds per repetition), one "updates" record (updates, repetitions, threads).
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "EPCC test and reference loops of one OpenMP construct (worked example or the student's)";

const hl_param hl_kernel_params[] = {
    {"delay_ns", "100", "EPCC delay before each construct, nanoseconds"},
    {"samples", "20", "outer samples of each loop (EPCC: 20)"},
    {"target_ms", "1", "inner repetitions grow until one sample lasts this long"},
    {"check_reps", "200000", "repetitions of the contention check (no delay)"},
    HL_END_PARAMS,
};

#include "construct_bench_student.h" /* construct_state, and the student's functions */

/* EPCC's reference: the delay alone, with no OpenMP and no MPI. */
void reference_loop(void *arg, long inner) {
    construct_state *s = arg;
    for (long j = 0; j < inner; j++) hl_delay(s->delay);
}

#ifndef HL_STUDENT_CONSTRUCT
const char *const construct_name = "critical";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp critical
        s->updates += 1;
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method,
                      hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
#endif

static void emit_samples(hl_ctx *ctx, const char *kind, const double *seconds, int outer,
                         long inner) {
    for (int i = 0; i < outer; i++)
        hl_emit(ctx,
                "\"record\":\"sample\",\"construct\":\"%s\",\"kind\":\"%s\",\"sample\":%d,"
                "\"inner\":%ld,\"seconds\":%.9e",
                construct_name, kind, i, inner, seconds[i]);
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    double delay_ns = hl_param_double(ctx, "delay_ns", 0.0, &ok);
    long samples = hl_param_long(ctx, "samples", 2, &ok);
    double target_ms = hl_param_double(ctx, "target_ms", 0.001, &ok);
    long check_reps = hl_param_long(ctx, "check_reps", 1, &ok);
    if (!ok) return -1;
    construct_state state = {.delay = hl_delay_length(comm, delay_ns * 1e-9), .updates = 0};
    hl_method method = hl_method_default(ctx);
    method.target = target_ms * 1e-3;
    method.outer = (int)samples;
    hl_result r = {0};
    if (measure_construct(ctx, &state, &method, &r) != 0) {
        if (!ctx->error[0]) hl_fail(ctx, "measure_construct() failed");
        return -1;
    }
    if (state.updates < (long)r.inner * r.outer) { /* the test timed was not construct_test */
        hl_result_free(&r);
        return hl_fail(ctx, "measure_construct() timed a loop that made %ld updates in %ld timed "
                            "repetitions: hl_measure's test must be construct_test",
                       (long)state.updates, (long)r.inner * r.outer);
    }
    if (r.reference) emit_samples(ctx, "reference", r.reference, r.outer, r.reference_inner);
    if (r.test) emit_samples(ctx, "test", r.test, r.outer, r.inner);
    hl_result_free(&r);

    state.delay = 0;
    state.updates = 0;
    construct_test(&state, check_reps);
    hl_emit(ctx, "\"record\":\"updates\",\"construct\":\"%s\",\"updates\":%ld,\"repetitions\":%ld,"
                 "\"threads\":%d",
            construct_name, (long)state.updates, check_reps, omp_get_max_threads());
    return 0;
}
