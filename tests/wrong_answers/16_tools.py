"""Lab 16_tools: wrong answers (tests/wrong_answers/__init__.py), at least two per hidden part,
each naming the error its part loses with."""

from wrong_answers import c_cell, wrong

WRONG = [
    wrong("count_bins", c_cell("COUNT_C", "race_bins", """
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel for
    for (long i = 0; i < n; i++) bins[bin_of(i)]++;  /* the first try, its race left in */
}
"""), {"hidden_count_bins"}, "the race left in", reason="Archer reports races in your count"),
    wrong("count_bins", c_cell("COUNT_C", "race_bins", """
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for reduction(+ : bins[:nbins])
    for (long i = 0; i < n / 2; i++) bins[bin_of(i)]++;  /* half the elements */
}
"""), {"hidden_count_bins"}, "counts half the elements", reason="bin_of was asked for"),
    wrong("count_bins", c_cell("COUNT_C", "race_bins", """
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel for reduction(+ : bins[:nbins])
    for (long i = 0; i <= n; i++) bins[bin_of(i)]++;  /* one element too many */
}
"""), {"hidden_count_bins"}, "an element past the end", reason="wrong bins"),
    wrong("diagnose", """
def diagnose(calls):
    if (calls["thread"] != 0).any():
        return "level", sorted(int(r) for r in calls.loc[calls["thread"] != 0, "rank"].unique())
    return "none", []  # never looks for a request or a deadlock
""", {"hidden_diagnose"}, "finds the thread level only",
        reason="a trace of mistake=request | a trace of mistake=deadlock | a trace of mistake=level"),
    wrong("diagnose", """
def diagnose(calls):
    off = calls[(calls["thread"] != 0) | (calls["main"] == 0)]
    if len(off):
        return "level", sorted(int(r) for r in off["rank"].unique())
    if ((calls["call"] == "MPI_Test") & (calls["done"] == 0)).any():
        return "deadlock", [0]  # only the first rank, not every one that waits
    ends = calls[calls["call"].str.startswith(("MPI_Wait", "MPI_Test"))].groupby("rank")["start"].max()
    late = sorted(int(r) for r, c in calls.groupby("rank")
                  if c.loc[c["call"].isin(["MPI_Isend", "MPI_Irecv"]), "start"].max() > ends.get(r, -1.0))
    return ("request", late) if late else ("none", [])
""", {"hidden_diagnose"}, "names one rank of a deadlock", reason="a trace of mistake=deadlock"),
    wrong("outside_share", """
def outside_share(timeline):
    length = timeline["end"] - timeline["start"]
    return float(length[timeline["phase"] == "halo"].sum() / length.sum())  # the halo only
""", {"hidden_outside_share"}, "counts the halo phase only",
        reason="whose share outside jacobi is"),
    wrong("outside_share", """
def outside_share(timeline):
    return float((timeline["phase"] != "jacobi").mean())  # a share of intervals, not of time
""", {"hidden_outside_share"}, "a share of intervals, not of time",
        reason="whose share outside jacobi is"),
]
