/* WRONG: 'reduction' but ONE parallel region (and one reduction) for all `inner` repetitions instead of a region per repetition: the overhead timed is nearly nothing */
const char *const construct_name = "reduction";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long x = 0;
#pragma omp parallel reduction(+ : x)
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
        x += 1;
    }
    s->updates += x;
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
