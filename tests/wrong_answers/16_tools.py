"""Lab 16_tools: wrong answers (tests/wrong_answers/__init__.py), at least two per hidden part."""

from wrong_answers import c_cell, wrong

WRONG = [
    wrong(
        "global_sum",
        c_cell("SUM_C", "race_bins", """
void global_sum(const double *mine, double *sum, int n, MPI_Comm comm) {
    MPI_Reduce(mine, sum, n, MPI_DOUBLE, MPI_SUM, 0, comm);  /* only rank 0 gets the sum */
}
"""),
        {"hidden_global_sum"},
        "MPI_Reduce: the sum on rank 0 only",
    ),
    wrong(
        "global_sum",
        c_cell("SUM_C", "race_bins", """
void global_sum(const double *mine, double *sum, int n, MPI_Comm comm) {
    MPI_Allreduce(mine, sum, n, MPI_DOUBLE, MPI_MAX, comm);  /* the largest, not the sum */
}
"""),
        {"hidden_global_sum"},
        "MPI_MAX for MPI_SUM",
    ),
    wrong(
        "best_rate",
        """
def best_rate(times, n, ranks):
    return n * ranks / float(times["seconds"].mean())  # the mean repetition, not the best
""",
        {"hidden_best_rate"},
        "the mean repetition",
    ),
    wrong(
        "best_rate",
        """
def best_rate(times, n, ranks):
    return n / float(times["seconds"].min())  # one rank's values only
""",
        {"hidden_best_rate"},
        "forgets the ranks",
    ),
]
