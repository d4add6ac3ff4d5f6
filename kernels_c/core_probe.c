/* core_probe: round trip of a cache line between two CPUs, in nanoseconds.
 *
 * Two threads pinned to cpu_a and cpu_b bounce a counter through one shared atomic variable.
 * A round trip of tens of nanoseconds means the two CPUs are SMT siblings of one core; a few
 * hundred means separate cores. Recorded before and after a measurement, it tells apart the
 * machine states that a virtual machine can move between (book: How the kit measures, "Where
 * it ran").
 * No MPI: the harness calls hl_probe_roundtrip_ns() from its own process.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    _Alignas(64) atomic_long ball;
    int cpu_a, cpu_b;
    long iters;
    long warmup;
    int pin_failed;
} probe;

static int pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *responder(void *arg) {
    probe *p = arg;
    if (pin(p->cpu_b) != 0) p->pin_failed = 1;
    for (long i = 0; i < p->warmup + p->iters; i++) {
        while (atomic_load_explicit(&p->ball, memory_order_acquire) != 2 * i + 1) {
            if (p->pin_failed) return NULL;
        }
        atomic_store_explicit(&p->ball, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The best of `rounds` timings of `iters` round trips, in ns; -1 if the CPUs cannot be used. */
double hl_probe_roundtrip_ns(int cpu_a, int cpu_b, long iters, int rounds) {
    double best = -1.0;
    if (cpu_a == cpu_b || iters < 1) return -1.0; /* one CPU would bounce only at scheduler ticks */
    for (int r = 0; r < rounds; r++) {
        probe p = {.cpu_a = cpu_a, .cpu_b = cpu_b, .iters = iters, .warmup = iters / 4 + 100};
        atomic_init(&p.ball, 0);
        pthread_t t;
        cpu_set_t saved;
        pthread_getaffinity_np(pthread_self(), sizeof saved, &saved);
        if (pin(cpu_a) != 0) return -1.0;
        if (pthread_create(&t, NULL, responder, &p) != 0) return -1.0;
        double t0 = 0.0;
        for (long i = 0; i < p.warmup + iters && !p.pin_failed; i++) {
            if (i == p.warmup) t0 = now(); /* both threads are pinned and running by now */
            atomic_store_explicit(&p.ball, 2 * i + 1, memory_order_release);
            while (atomic_load_explicit(&p.ball, memory_order_acquire) != 2 * i + 2) {
                if (p.pin_failed) break;
            }
        }
        double dt = now() - t0;
        pthread_join(t, NULL);
        pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
        if (p.pin_failed) return -1.0;
        double ns = dt / (double)iters * 1e9;
        if (best < 0 || ns < best) best = ns;
    }
    return best;
}

int main(int argc, char **argv) {
    int a = argc > 1 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
    double ns = hl_probe_roundtrip_ns(a, b, 20000, 5);
    if (ns < 0) {
        fprintf(stderr, "core_probe: cannot pin threads to CPUs %d and %d\n", a, b);
        return 1;
    }
    printf("{\"cpu_a\":%d,\"cpu_b\":%d,\"roundtrip_ns\":%.1f}\n", a, b, ns);
    return 0;
}
