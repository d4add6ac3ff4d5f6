"""Lab 16_tools: gaming attempts (tests/gaming/__init__.py), at least three per automatic part."""

from gaming import attempt
from wrong_answers import c_cell

GAMING = [
    attempt(
        "hidden",
        "global_sum",
        c_cell("SUM_C", "race_bins", """
void global_sum(const double *mine, double *sum, int n, MPI_Comm comm) {
    /* right for the 2 ranks of the visible test only: swap with the other rank */
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Sendrecv(mine, n, MPI_DOUBLE, 1 - rank, 0, sum, n, MPI_DOUBLE, 1 - rank, 0, comm,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) sum[i] += mine[i];
}
"""),
        {"hidden_global_sum"},
        "a swap that is a sum for two ranks only",
    ),
    attempt(
        "method",
        "global_sum",
        c_cell("SUM_C", "race_bins", """
void global_sum(const double *mine, double *sum, int n, MPI_Comm comm) {
    /* right numbers on any number of ranks, but a ring of P - 1 messages, not one collective */
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *pass = malloc((size_t)n * sizeof *pass), *got = malloc((size_t)n * sizeof *got);
    for (int i = 0; i < n; i++) sum[i] = pass[i] = mine[i];
    for (int step = 1; step < size; step++) {
        MPI_Sendrecv(pass, n, MPI_DOUBLE, (rank + 1) % size, step, got, n, MPI_DOUBLE,
                     (rank + size - 1) % size, step, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) sum[i] += got[i], pass[i] = got[i];
    }
    free(pass), free(got);
}
"""),
        {"hidden_global_sum"},
        "a ring of messages passing as the collective",
    ),
    attempt(
        "constant",
        "global_sum",
        c_cell("SUM_C", "race_bins", """
void global_sum(const double *mine, double *sum, int n, MPI_Comm comm) {
    /* the kernel's values typed in from its comment, for salt=0: no message at all */
    int size;
    MPI_Comm_size(comm, &size);
    (void)mine;
    for (int i = 0; i < n; i++) {
        sum[i] = 0;
        for (int r = 0; r < size; r++) sum[i] += (r + 1) * 1000 + (i * 7) % 997;
    }
}
"""),
        {"hidden_global_sum"},
        "the values of the visible test written down",
    ),
    attempt(
        "hidden",
        "best_rate",
        """
def best_rate(times, n, ranks):
    return n * ranks / float(times["seconds"].iloc[0])  # the visible test's first row is its best
""",
        {"hidden_best_rate"},
        "the first repetition, the best only in the visible test",
    ),
    attempt(
        "constant",
        "best_rate",
        """
def best_rate(times, n, ranks):
    return 400.0  # the visible test's answer
""",
        {"hidden_best_rate"},
        "the visible test's answer typed in",
    ),
    attempt(
        "shortcut",
        "best_rate",
        """
def best_rate(times, n, ranks):
    return N * 2 / float(kit.records.query("record == 'time'")["seconds"].min())  # the lab's run
""",
        {"hidden_best_rate"},
        "the notebook's own run instead of the arguments",
    ),
]
