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

#define BATCH 64      /* round trips timed together: the best batch's mean is the result */
#define STOP (-1L)     /* the ball's value that sends the responder home */

typedef struct {
    _Alignas(64) atomic_long ball;
    int cpu_b;
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
    for (long i = 0;; i++) {
        long seen;
        while ((seen = atomic_load_explicit(&p->ball, memory_order_acquire)) != 2 * i + 1) {
            if (seen == STOP || p->pin_failed) return NULL;
        }
        atomic_store_explicit(&p->ball, 2 * i + 2, memory_order_release);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The best mean round trip, in ns, over batches of BATCH round trips: `iters` round trips at
 * most (after a warm-up), ending early once `budget_s` seconds have passed and one batch is
 * timed. A batch that a descheduled thread stretched is simply not the best, so a loaded
 * machine gives the same figure as a quiet one, in bounded time. -1 if the CPUs cannot be used. */
double hl_probe_roundtrip_ns(int cpu_a, int cpu_b, long iters, double budget_s) {
    if (cpu_a == cpu_b || iters < BATCH) return -1.0; /* one CPU bounces only at scheduler ticks */
    probe p = {.cpu_b = cpu_b};
    atomic_init(&p.ball, 0);
    pthread_t t;
    cpu_set_t saved;
    pthread_getaffinity_np(pthread_self(), sizeof saved, &saved);
    if (pin(cpu_a) != 0) return -1.0;
    if (pthread_create(&t, NULL, responder, &p) != 0) return -1.0;
    long warmup = iters / 4 + 100;
    double best = -1.0, t0 = 0.0, started = now();
    for (long i = 0; !p.pin_failed; i++) {
        long k = i - warmup;
        if (k >= 0 && k % BATCH == 0) {
            double t = now();
            if (k > 0) {
                double ns = (t - t0) / BATCH * 1e9;
                if (best < 0 || ns < best) best = ns;
                if (k >= iters || t - started > budget_s) break;
            }
            t0 = t;
        }
        atomic_store_explicit(&p.ball, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&p.ball, memory_order_acquire) != 2 * i + 2) {
            if (p.pin_failed) break;
        }
    }
    atomic_store_explicit(&p.ball, STOP, memory_order_release);
    pthread_join(t, NULL);
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
    return p.pin_failed ? -1.0 : best;
}

int main(int argc, char **argv) {
    int a = argc > 1 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
    double ns = hl_probe_roundtrip_ns(a, b, 20000, 0.05);
    if (ns < 0) {
        fprintf(stderr, "core_probe: cannot pin threads to CPUs %d and %d\n", a, b);
        return 1;
    }
    printf("{\"cpu_a\":%d,\"cpu_b\":%d,\"roundtrip_ns\":%.1f}\n", a, b, ns);
    return 0;
}
