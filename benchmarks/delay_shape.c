/* The omp parallel overhead with three shapes of the busy delay, interleaved sample by sample in
 * one process (bench_delay_shape.py builds and runs it): the kit's hl_delay as it is now
 * (hybridlab.h, pasted in by the script below), the kit's delay before 2026-12-03 (a
 * `long` counter), and a delay of EPCC's shape (an `int` counter, in its own unit at -O3,
 * delay_shape_epcc.c). Each shape is sized to 100 ns by its own reference loop, as each suite
 * sizes its own; the overhead is the median time per region less the median time per
 * reference repetition, as EPCC's syncbench reports it. Prints one line per shape. */
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void epcc_shape_delay(int length);

static inline void KIT_DELAY

static inline void long_counter_delay(long length) {
    float a = 0.0f;
    for (long i = 0; i < length; i++) a += (float)i;
    if (a < 0.0f) printf("%f\n", a);
}

enum { SHAPES = 3 };
static const char *const names[SHAPES] = {"kit now", "kit before (long counter)", "EPCC's shape"};
static long lengths[SHAPES];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void delay_of(int shape) {
    if (shape == 0) hl_delay(lengths[0]);
    else if (shape == 1) long_counter_delay(lengths[1]);
    else epcc_shape_delay((int)lengths[2]);
}

static void reference(int shape, long reps) {
    for (long j = 0; j < reps; j++) delay_of(shape);
}

static void regions(int shape, long reps) {
    for (long j = 0; j < reps; j++) {
#pragma omp parallel
        delay_of(shape);
    }
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int samples = argc > 1 ? atoi(argv[1]) : 300;
    const long reps = 1000;
    if (samples < 1) return 2;
#pragma omp parallel
    { /* the team exists before anything is timed */ }
    for (int s = 0; s < SHAPES; s++) {
        for (lengths[s] = 1;; lengths[s]++) {
            double t0 = now();
            reference(s, 10000);
            if ((now() - t0) / 10000 >= 100e-9) break;
        }
    }
    double *times[2 * SHAPES];
    for (int v = 0; v < 2 * SHAPES; v++) times[v] = malloc((size_t)samples * sizeof(double));
    for (int i = 0; i < samples; i++) {
        for (int k = 0; k < 2 * SHAPES; k++) {
            int v = (k + i) % (2 * SHAPES), s = v % SHAPES;
            double t0 = now();
            if (v < SHAPES) reference(s, reps);
            else regions(s, reps);
            times[v][i] = (now() - t0) / (double)reps * 1e9;
        }
    }
    for (int v = 0; v < 2 * SHAPES; v++) qsort(times[v], (size_t)samples, sizeof(double), by_value);
    for (int s = 0; s < SHAPES; s++) {
        double ref = times[s][samples / 2], par = times[s + SHAPES][samples / 2];
        printf("%s\t%ld\t%.1f\t%.1f\t%.1f\n", names[s], lengths[s], ref, par, par - ref);
    }
    return 0;
}
