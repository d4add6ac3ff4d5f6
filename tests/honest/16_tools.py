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
    if (calls["thread"] > 0).any():
        return "level", sorted(set(int(r) for r in calls.loc[calls["thread"] > 0, "rank"]))
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
""", why="thread > 0 for the level, pending requests counted for the request"),
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
]
