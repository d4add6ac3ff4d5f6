"""Right answers to lab 02 written another way (the construct part so far): master with an
explicit barrier after masked, or a reduction in a parallel region per repetition."""

from honest import right

HONEST = [
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "master";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp masked
            {
                s->updates += 1;
            }
#pragma omp barrier
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    int rc = hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
    return rc;
}
""", why="master: masked in braces, then the barrier the table asks for"),
    right("construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "reduction";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    for (long j = 0; j < inner; j++) {
        long x = 0;
#pragma omp parallel reduction(+:x)
        {
            hl_delay(s->delay);
            x += 1;
        }
        s->updates += x;
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", why="reduction: a parallel region per repetition, its sum added after it"),
]
