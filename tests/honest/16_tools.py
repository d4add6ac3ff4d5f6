"""Right answers to lab 16 written another way: the count with `omp atomic`, with private counts
added under `omp critical`, or with a critical section round each increment (serial in effect:
the part says it is accepted); the diagnosis from the level's rule in other words and the request
counted; the share from a groupby."""

from honest import right

HONEST = [
    right("count_bins", r"""
%%c COUNT_C race_bins
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(dynamic, 512)
    for (long i = 0; i < n; i++) {
        int b = bin_of(i);
#pragma omp atomic
        bins[b]++;
    }
}
""", why="omp atomic on each increment, a dynamic schedule"),
    right("count_bins", r"""
%%c COUNT_C race_bins
#include <stdlib.h>

void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
    {
        long *mine = calloc((size_t)nbins, sizeof *mine);
#pragma omp for nowait
        for (long i = 0; i < n; i++) mine[bin_of(i)]++;
#pragma omp critical(add_bins)
        for (int b = 0; b < nbins; b++) bins[b] += mine[b];
        free(mine);
    }
}
""", why="private counts per thread, added up under a named critical"),
    right("count_bins", r"""
%%c COUNT_C race_bins
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
#pragma omp critical
        bins[bin_of(i)]++;  /* right, serial in effect: the part accepts it */
    }
}
""", why="a critical section round each increment"),
    right("diagnose", r"""
def diagnose(calls):
    by_rank = dict(tuple(calls.groupby("rank")))
    wrong_thread = sorted(int(r) for r, c in by_rank.items() if (c["main"] == 0).any())
    if wrong_thread:
        return ("level", wrong_thread)
    polled = sorted(int(r) for r, c in by_rank.items()
                    if ((c["call"] == "MPI_Test") & (c["done"] == 0)).sum() > 0)
    if polled:
        return ("deadlock", polled)
    late = []
    for r, c in by_rank.items():
        done = c.loc[c["call"].isin(["MPI_Waitall", "MPI_Wait", "MPI_Test"]), "start"]
        started = c.loc[c["call"].isin(["MPI_Isend", "MPI_Irecv"]), "start"]
        if len(started) and (done.empty or (started > done.max()).any()):
            late.append(int(r))
    return ("request", sorted(late)) if late else ("none", [])
""", why="main == 0 for the level, the calls after each rank's last completion for the request"),
    right("diagnose", r"""
def diagnose(calls):
    ranks = sorted(set(int(r) for r in calls["rank"]))
    if (calls["main"] != 1).any():  # MPI from a thread that did not initialise it
        return "level", sorted(set(int(r) for r in calls.loc[calls["main"] != 1, "rank"]))
    if ((calls["call"] == "MPI_Test") & (calls["done"] == 0)).any():
        return "deadlock", ranks
    leaking = []
    for r in ranks:
        c = calls[calls["rank"] == r].sort_values("start")
        pending = 0
        for call in c["call"]:
            if call in ("MPI_Isend", "MPI_Irecv"):
                pending += 1
            elif call == "MPI_Waitall":
                pending = 0  # this kernel's Waitall completes every request it started
        if pending:
            leaking.append(r)
    return ("request", leaking) if leaking else ("none", [])
""", why="main != 1 for the level, pending requests counted for the request"),
    right("outside_share", r"""
def outside_share(timeline):
    t = timeline.assign(length=timeline["end"] - timeline["start"])
    per_phase = t.groupby("phase")["length"].sum()
    return float(per_phase.drop("jacobi", errors="ignore").sum() / per_phase.sum())
""", why="a groupby per phase"),
    right("outside_share", r"""
def outside_share(timeline):
    total = outside = 0.0
    for row in timeline.itertuples(index=False):
        length = float(row.end) - float(row.start)
        total += length
        if row.phase != "jacobi":
            outside += length
    return outside / total
""", why="a loop over the rows"),
    # a fresh attacker's (helperG) right answer, kept at full points by the kit's watch on bins
    right("count_bins", r"""
%%c COUNT_C race_bins
#include <omp.h>
#include <stdlib.h>
void count_bins(long n, int nbins, long *bins) {
    omp_lock_t *lk = malloc(sizeof(omp_lock_t) * nbins);
    for (int b = 0; b < nbins; b++) omp_init_lock(&lk[b]);
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        int b = bin_of(i);
        omp_set_lock(&lk[b]);
        bins[b]++;
        omp_unset_lock(&lk[b]);
    }
    for (int b = 0; b < nbins; b++) omp_destroy_lock(&lk[b]);
    free(lk);
}
""", why="one OpenMP lock per bin"),
    right("diagnose", r"""
def diagnose(calls: pd.DataFrame) -> tuple:
    c = calls.sort_values("start")
    bad = c[(c["main"] != 1) | (c["thread"] != 0)]
    if len(bad):
        return ("level", sorted(int(r) for r in bad["rank"].unique()))
    tests = c[(c["call"] == "MPI_Test") & (c["done"] == 0)]
    if len(tests):
        return ("deadlock", sorted(int(r) for r in tests["rank"].unique()))
    culprits = []
    for r, g in c.groupby("rank"):
        comp = g[g["call"].isin(["MPI_Wait", "MPI_Waitall", "MPI_Test", "MPI_Testall", "MPI_Waitany", "MPI_Waitsome", "MPI_Testany", "MPI_Testsome"])]
        last = comp["start"].max() if len(comp) else -1.0
        starts = g[g["call"].isin(["MPI_Isend", "MPI_Irecv", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend"]) & (g["start"] > last)]
        if len(starts):
            culprits.append(int(r))
    if culprits:
        return ("request", sorted(culprits))
    return ("none", [])
""", why="sorted by time, the requests started after each rank's last completion call"),
    # atomic read-modify-writes as builtins and C11 calls, kept when the split update (an atomic
    # load and an atomic store) is refused from the cell's IR (attackD, 2026-12-04)
    right("count_bins", r"""
%%c COUNT_C race_bins
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(guided)
    for (long i = 0; i < n; i++) __atomic_fetch_add(&bins[bin_of(i)], 1, __ATOMIC_RELAXED);
}
""", why="the GCC/clang builtin __atomic_fetch_add on each increment"),
    right("count_bins", r"""
%%c COUNT_C race_bins
#include <stdatomic.h>

void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        _Atomic long *p = (_Atomic long *)&bins[bin_of(i)];
        if (i % 2) {
            atomic_fetch_add(p, 1);
        } else {  /* a compare-and-swap loop: a load, then one read-modify-write */
            long seen = atomic_load_explicit(p, memory_order_relaxed);
            while (!atomic_compare_exchange_weak(p, &seen, seen + 1)) {}
        }
    }
}
""", why="C11 atomic_fetch_add and a compare-and-swap loop"),
    # kept when each thread's first compare-and-swap on a bin is made to fail (2026-12-04)
    right("count_bins", r"""
%%c COUNT_C race_bins
/* a compare-and-swap loop, retried until it takes */
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
        long old = __atomic_load_n(p, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(p, &old, old + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
    }
}
""", why="a builtin compare-and-swap loop, retried until it takes"),
    # every thread adds its own private counts (attackD's), as the part now asks
    right("count_bins", r"""
%%c COUNT_C race_bins
#include <stdlib.h>
/* each thread counts a strided share of the elements privately; critical adds them in */
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
    {
        long *own = calloc((size_t)nbins, sizeof(long));
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        for (long i = t; i < n; i += T) own[bin_of(i)]++;
#pragma omp critical(merge_bins)
        for (int b = 0; b < nbins; b++) bins[b] += own[b];
        free(own);
    }
}
""", why="strided private counts, each thread adds its own under a named critical"),
    # kept when the kit credits each thread with what its writes add (2026-12-04, fixer helper-f2):
    # a reduction in a second loop with the look-up loop's static schedule, and private counts merged
    # bin by bin with atomic adds (of 0 where a thread has none)
    right("count_bins", r"""
%%c COUNT_C race_bins
#include <stdlib.h>
/* the bins looked up first, then counted by a second loop with the same static schedule and an
 * array reduction */
void count_bins(long n, int nbins, long *bins) {
    int *idx = malloc(sizeof(int) * (n > 0 ? n : 1));
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) idx[i] = bin_of(i);
#pragma omp for schedule(static) reduction(+ : bins[:nbins])
        for (long i = 0; i < n; i++) bins[idx[i]] += 1;
    }
    free(idx);
}
""", why="the bins looked up, then counted by a second static loop with an array reduction"),
    right("count_bins", r"""
%%c COUNT_C race_bins
#include <stdlib.h>
/* private counts per thread, each bin merged with an atomic add (of 0 too, where a thread has none) */
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
    {
        long *mine = calloc((size_t)nbins, sizeof *mine);
#pragma omp for
        for (long i = 0; i < n; i++) mine[bin_of(i)] += 1;
        for (int b = 0; b < nbins; b++) {
#pragma omp atomic update
            bins[b] = bins[b] + mine[b];
        }
        free(mine);
    }
}
""", why="private counts per thread merged bin by bin with `omp atomic update`"),
    # kept when bin_of paces the team and each thread's share is read (2026-12-04, fixer helper-f7):
    # the schedules whose shares depend on timing, one element per dynamic chunk and explicit tasks
    right("count_bins", r"""
%%c COUNT_C race_bins
/* one element per chunk of a dynamic schedule, each increment atomic */
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(dynamic, 1)
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
#pragma omp atomic update
        *p += 1;
    }
}
""", why="one element per chunk of a dynamic schedule, an atomic update through a pointer"),
    right("count_bins", r"""
%%c COUNT_C race_bins
#include <stdlib.h>
/* one thread makes a task per block of 256 elements; each task counts its block privately and adds
 * its counts in with atomics; the team runs the tasks */
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
#pragma omp single
    for (long start = 0; start < n; start += 256) {
#pragma omp task firstprivate(start)
        {
            long *mine = calloc((size_t)nbins, sizeof *mine);
            long end = start + 256 < n ? start + 256 : n;
            for (long i = start; i < end; i++) mine[bin_of(i)]++;
            for (int b = 0; b < nbins; b++)
                if (mine[b]) {
#pragma omp atomic
                    bins[b] += mine[b];
                }
            free(mine);
        }
    }
}
""", why="explicit tasks of 256 elements made by one thread, each adding its private counts atomically"),
    # a fresh attacker's right answer (L16r8, 2026-12-05): every count under one pthread mutex;
    # 0/4 at the build while the C library's locks were not among what a cell may call
    right("count_bins", '%%c COUNT_C race_bins\n#include <pthread.h>\nstatic pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;\nvoid count_bins(long n, int nbins, long *bins) {\n#pragma omp parallel for schedule(static)\n    for (long i = 0; i < n; i++) {\n        int b = bin_of(i);\n        pthread_mutex_lock(&mu);\n        bins[b]++;\n        pthread_mutex_unlock(&mu);\n    }\n}\n',
          why="each increment under a pthread mutex"),
]

# attacker S's R16a_private_atomic (2026-12-06, full points)
HONEST.append(right('count_bins', r"""
%%c COUNT_C race_bins
/* each thread counts its elements into counts of its own, then adds each of its counts into
 * bins with one atomic add */
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
    {
        long *own = calloc((size_t)nbins, sizeof *own);
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) own[bin_of(i)]++;
        for (int b = 0; b < nbins; b++)
            if (own[b]) {
#pragma omp atomic update
                bins[b] += own[b];
            }
        free(own);
    }
}
""", why='private counts per thread (calloc in the region), added into bins with omp atomic update'))

# attacker S's R16b_rules (2026-12-06, full points)
HONEST.append(right('diagnose', r"""
def diagnose(calls: pd.DataFrame) -> tuple:
    # level: a call made by a thread other than the one that initialised MPI (main == 0);
    # deadlock: every rank polled with MPI_Test that found nothing before it ever sent;
    # request: a rank started a request after its last completion call
    c = calls.sort_values(["start"]).reset_index(drop=True)
    ranks = sorted(int(r) for r in c["rank"].unique())
    level = sorted({int(r) for r in c.loc[c["main"].astype(int) == 0, "rank"]})
    if level:
        return ("level", level)
    waiting = []
    for r in ranks:
        mine = c[c["rank"] == r]
        sends = mine[mine["call"].isin(["MPI_Isend", "MPI_Send"])]
        first_send = sends["start"].min() if len(sends) else float("inf")
        idle = mine[(mine["call"] == "MPI_Test") & (mine["done"].fillna(0).astype(int) == 0)
                    & (mine["start"] < first_send)]
        if len(idle):
            waiting.append(r)
    if waiting and len(waiting) == len(ranks):
        return ("deadlock", waiting)
    completes = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test", "MPI_Testall",
                 "MPI_Testany", "MPI_Testsome", "MPI_Request_free"}
    starts = {"MPI_Isend", "MPI_Irecv", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend"}
    leaked = []
    for r in ranks:
        mine = c[c["rank"] == r]
        done = mine[mine["call"].isin(completes)]
        last = done["start"].max() if len(done) else float("-inf")
        if ((mine["call"].isin(starts)) & (mine["start"] > last)).any():
            leaked.append(r)
    if leaked:
        return ("request", leaked)
    return ("none", [])
""", why='rules on the trace: main == 0, polling before the first send, a request started after the last completion'))

# attacker S's R16c_weights (2026-12-06, full points)
HONEST.append(right('outside_share', r"""
import numpy as np


def outside_share(timeline: pd.DataFrame) -> float:
    # a weighted mean of the indicator "not jacobi", the weights being the intervals' lengths
    length = timeline["end"].to_numpy(float) - timeline["start"].to_numpy(float)
    outside = (timeline["phase"].to_numpy() != "jacobi").astype(float)
    return float(np.average(outside, weights=length))
""", why="np.average of the phase test weighted by the intervals' lengths"))

# attacker V's right answers (2026-12-06, full points graded)
HONEST += [
    right("count_bins", r"""
%%c COUNT_C race_bins
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        int b = bin_of(i);
#pragma omp atomic
        bins[b] += 1;
    }
}
""", why="attacker V: atomic increments"),
    right("count_bins", r"""
%%c COUNT_C race_bins
/* private counts per thread, added into bins under one critical section */
#include <stdlib.h>
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel
    {
        long *mine = calloc((size_t)nbins, sizeof *mine);
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) mine[bin_of(i)] += 1;
#pragma omp critical(merge_bins)
        for (int b = 0; b < nbins; b++) bins[b] += mine[b];
        free(mine);
    }
}
""", why="attacker V: private calloc'd counts merged in a critical section"),
]
