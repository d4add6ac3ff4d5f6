"""Lab 13: wrong answers (tests/wrong_answers/__init__.py), at least two per hidden part."""

from wrong_answers import c_cell, changed, wrong

GRID = """
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 1, &grid);
    return grid;
}
"""

EXCHANGE = GRID + """
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    long w = n + 2;
    MPI_Datatype row, col;
    MPI_Type_contiguous((int)n, MPI_DOUBLE, &row);
    MPI_Type_vector((int)m, 1, (int)w, MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    int counts[4] = {1, 1, 1, 1};
    MPI_Datatype types[4] = {row, row, col, col};
    MPI_Aint d = sizeof(double);
    MPI_Aint send[4] = {(w + 1) * d, (m * w + 1) * d, (w + 1) * d, (w + n) * d};
    MPI_Aint recv[4] = {1 * d, ((m + 1) * w + 1) * d, w * d, (w + n + 1) * d};
    MPI_Neighbor_alltoallw(a, counts, send, types, a, counts, recv, types, grid);
    MPI_Type_free(&row);
    MPI_Type_free(&col);
}
"""

# (a) as its nonblocking form, completed in the same call (right: MPI 3.0, section 7.7)
_BLOCKING_CALL = "    MPI_Neighbor_alltoallw(a, counts, send, types, a, counts, recv, types, grid);\n"
POSTED = EXCHANGE.replace(_BLOCKING_CALL, """    MPI_Request req;
    MPI_Ineighbor_alltoallw(a, counts, send, types, a, counts, recv, types, grid, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
""")
assert POSTED != EXCHANGE

RESIDUAL = """
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double mine = jacobi_iteration(), sum = 0.0;
    MPI_Request request;
    MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &request);
    for (long it = 1; it < max_iterations; it++) {
        double next = jacobi_iteration();
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        if (sum < tolerance) return sum;
        mine = next;
        MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &request);
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return sum;
}
"""

PER_ITERATION = """
PHASES = ["jacobi", "halo", "reduction", "other", "total"]


def per_iteration(timers):
    total = timers[timers["phase"] == "total"]
    slowest = total.loc[total["seconds"].astype(float).idxmax(), "rank"]
    mine = timers[timers["rank"] == slowest]
    iterations = float(mine["iterations"].iloc[0])
    return {p: float(mine.loc[mine["phase"] == p, "seconds"].iloc[0]) / iterations for p in PHASES}
"""

PREDICTION = """
def predicted_overlapped(blocking):
    b = per_iteration(blocking)
    return b["total"] - b["reduction"]


def hidden_share(blocking, overlapped):
    b, o = per_iteration(blocking), per_iteration(overlapped)
    return (b["total"] - o["total"]) / b["reduction"]
"""


def neighbour(code: str) -> str:
    return c_cell("NEIGHBOUR_C", "neighbour_halo", code)


def residual(code: str) -> str:
    return c_cell("RESIDUAL_C", "neighbour_halo", code)


A, B, C, D = ({"hidden_neighbour_exchange"}, {"hidden_per_iteration"},
              {"hidden_solve_overlapped"}, {"hidden_own_prediction"})  # fmt: skip

WRONG = [
    wrong("neighbour_exchange",
          neighbour(changed(EXCHANGE, "MPI_Aint send[4] = {(w + 1) * d, (m * w + 1) * d,",
                            "MPI_Aint send[4] = {(m * w + 1) * d, (w + 1) * d,")),
          A, "the first row sent down and the last up (each dimension's neighbours taken as "
          "down, up)", reason="wrong result"),
    wrong("neighbour_exchange",
          neighbour(changed(EXCHANGE, "MPI_Type_vector((int)m, 1, (int)w, MPI_DOUBLE, &col);",
                            "MPI_Type_contiguous((int)m, MPI_DOUBLE, &col);")),
          A, "a column sent as m doubles in a row (no stride: the next row's values)",
          reason="wrong result"),
    wrong("neighbour_exchange",
          neighbour(changed(EXCHANGE, "periods[2] = {0, 0}", "periods[2] = {1, 1}")),
          A, "a periodic process grid: halos wrapped around the fixed boundary",
          reason="the grid's boundary is fixed"),
    wrong("neighbour_exchange",
          neighbour(changed(POSTED, """    MPI_Request req;
    MPI_Ineighbor_alltoallw(a, counts, send, types, a, counts, recv, types, grid, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
""", """    int rows[4] = {1, 1, 0, 0}, cols[4] = {0, 0, 1, 1};
    MPI_Request req[2];
    MPI_Ineighbor_alltoallw(a, rows, send, types, a, rows, recv, types, grid, &req[0]);
    MPI_Ineighbor_alltoallw(a, cols, send, types, a, cols, recv, types, grid, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    (void)counts;
""")),
          A, "rows and columns in two nonblocking neighbourhood collectives per iteration, not one",
          reason="neighbourhood collectives per rank"),
    wrong("per_iteration",
          changed(PER_ITERATION, 'slowest = total.loc[total["seconds"].astype(float).idxmax(), "rank"]\n'
                  '    mine = timers[timers["rank"] == slowest]\n'
                  '    iterations = float(mine["iterations"].iloc[0])\n'
                  '    return {p: float(mine.loc[mine["phase"] == p, "seconds"].iloc[0]) / iterations for p in PHASES}',
                  'iterations = float(timers["iterations"].iloc[0])\n'
                  '    return {p: float(timers.loc[timers["phase"] == p, "seconds"].mean()) / iterations for p in PHASES}'),
          B, "the mean over the ranks, not the slowest rank", reason="the slowest rank's seconds per iteration"),
    wrong("per_iteration",
          changed(PER_ITERATION, ".iloc[0]) / iterations for p in PHASES}", ".iloc[0]) for p in PHASES}"),
          B, "seconds of the whole run, not per iteration", reason="the slowest rank's seconds per iteration"),
    wrong("solve_overlapped",
          residual(changed(RESIDUAL, "        if (sum < tolerance) return sum;", "        if (sum < tolerance) return mine;")),
          C, "returns this rank's part of the residual, not the sum", reason="wrong result"),
    wrong("solve_overlapped",
          residual(changed(RESIDUAL, "for (long it = 1; it < max_iterations; it++)",
                           "for (long it = 1; it < max_iterations - 1; it++)")),
          C, "one iteration short of max_iterations", reason="wrong result"),
    wrong("own_prediction",
          changed(PREDICTION, 'return b["total"] - b["reduction"]', 'return b["total"] - b["reduction"] - b["other"]'),
          D, "the prediction also takes the barrier waits away", reason="predicted_overlapped (total - reduction)"),
    wrong("own_prediction",
          changed(PREDICTION, '/ b["reduction"]', '/ o["reduction"]'),
          D, "divides by the overlapped run's reduction", reason="hidden_share (the saving"),
]
