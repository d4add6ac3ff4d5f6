"""Lab 13: gaming attempts (tests/gaming/__init__.py), at least three per automatic part: a
hand-written Sendrecv exchange with the right numbers, a graph communicator instead of the
Cartesian one, a token collective, the eager reduction dressed up with the extra iteration, a
blocking MPI_Allreduce, constants and the notebook's own runs. ORACLES: (b) and (d)'s functions
on hidden inputs, judged by the reference written here (never in the kit)."""

import runpy
from pathlib import Path

import numpy as np
import pandas as pd

from gaming import FRAME_TOOLS, Oracle, attempt, c_evidence
from wrong_answers import c_cell, changed, together

# the right answers the attempts start from, as the wrong answers write them
_SOURCES = runpy.run_path(str(Path(__file__).resolve().parents[1] / "wrong_answers"
                              / "13_neighbourhood_collectives.py"))  # fmt: skip
GRID, RESIDUAL, PER_ITERATION = _SOURCES["GRID"], _SOURCES["RESIDUAL"], _SOURCES["PER_ITERATION"]
A, B, C, D = _SOURCES["A"], _SOURCES["B"], _SOURCES["C"], _SOURCES["D"]


def neighbour(code: str) -> str:
    return c_cell("NEIGHBOUR_C", "neighbour_halo", code)


def residual(code: str) -> str:
    return c_cell("RESIDUAL_C", "neighbour_halo", code)


SENDRECV = GRID + """
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    /* the right halos by hand: four MPI_Sendrecv on the Cartesian communicator */
    long w = n + 2;
    int up, down, left, right;
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    MPI_Datatype col;
    MPI_Type_vector((int)m, 1, (int)w, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    MPI_Sendrecv(&a[m * w + 1], (int)n, MPI_DOUBLE, down, 1, &a[1], (int)n, MPI_DOUBLE, up, 1,
                 grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[w + 1], (int)n, MPI_DOUBLE, up, 2, &a[(m + 1) * w + 1], (int)n, MPI_DOUBLE,
                 down, 2, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[w + n], 1, col, right, 3, &a[w], 1, col, left, 3, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[w + 1], 1, col, left, 4, &a[w + n + 1], 1, col, right, 4, grid,
                 MPI_STATUS_IGNORE);
    MPI_Type_free(&col);
}
"""

GRAPH = _SOURCES["EXCHANGE"].replace("    long w = n + 2;\n    MPI_Datatype row, col;", """
    /* the same exchange on a graph communicator made from the Cartesian neighbours */
    static MPI_Comm graph = MPI_COMM_NULL;
    int hood[4];
    MPI_Cart_shift(grid, 0, 1, &hood[0], &hood[1]);
    MPI_Cart_shift(grid, 1, 1, &hood[2], &hood[3]);
    if (graph == MPI_COMM_NULL)
        MPI_Dist_graph_create_adjacent(grid, 4, hood, MPI_UNWEIGHTED, 4, hood, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &graph);
    long w = n + 2;
    MPI_Datatype row, col;""").replace("recv, types, grid);", "recv, types, graph);")

FIXED_DIMS = _SOURCES["EXCHANGE"].replace(
    "MPI_Dims_create(size, 2, dims);",
    "dims[0] = dims[1] = 0; /* whatever was asked: the visible test's 2 x 2 is MPI's choice */\n"
    "    MPI_Dims_create(size, 2, dims);")

TOKEN = GRID + """
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    /* one collective of nothing per iteration; the halo keeps the start values */
    (void)a, (void)m, (void)n;
    int zero[4] = {0, 0, 0, 0};
    MPI_Aint at[4] = {0, 0, 0, 0};
    MPI_Datatype types[4] = {MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE};
    double nothing[1];
    MPI_Neighbor_alltoallw(nothing, zero, at, types, nothing + 0, zero, at, types, grid);
}
"""

EAGER = """
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    /* the reduction completed at once, and the extra iteration added to match the count */
    double mine, sum = 0.0;
    MPI_Request request;
    for (long it = 0; it < max_iterations; it++) {
        mine = jacobi_iteration();
        MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        if (sum < tolerance) {
            if (it + 1 < max_iterations) jacobi_iteration();
            return sum;
        }
    }
    return sum;
}
"""

BLOCKING = """
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    /* the kit's blocking loop, one iteration more at the end */
    double mine, sum = 0.0;
    for (long it = 0; it < max_iterations; it++) {
        mine = jacobi_iteration();
        MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
        if (sum < tolerance) {
            if (it + 1 < max_iterations) jacobi_iteration();
            return sum;
        }
    }
    return sum;
}
"""

GAMING = [
    attempt("method", "neighbour_exchange", neighbour(SENDRECV), A,
            "a hand-written MPI_Sendrecv exchange: the right numbers, no neighbourhood collective", reason="the halo went by point-to-point calls"),
    attempt("method", "neighbour_exchange", neighbour(GRAPH), A,
            "the collective on a graph communicator, not the Cartesian one", reason="not a graph"),
    attempt("hidden", "neighbour_exchange", neighbour(FIXED_DIMS), A,
            "MPI_Dims_create's grid whatever was asked: right for the visible test's 2 x 2 only",
            reason="process grid; asked"),
    attempt("constant", "neighbour_exchange", neighbour(TOKEN), A,
            "a token collective of nothing: the halo left at its start values",
            reason="wrong result"),
    attempt("shortcut", "neighbour_exchange", neighbour(GRID + """
void send_down(void *g);
void send_up(void *g);
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    (void)a, (void)m, (void)n, (void)grid;  /* the kernel's own row exchange, reached by name */
    send_down(0);
    send_up(0);
}
"""), A, "the kernel's own row exchange declared and called", reason="BuildError"),
    attempt("hidden", "per_iteration", changed(PER_ITERATION,
            'slowest = total.loc[total["seconds"].astype(float).idxmax(), "rank"]',
            'slowest = timers["rank"].min()'),
            B, "the lowest-numbered rank, the slowest in the visible test", reason="the slowest rank's seconds per iteration"),
    attempt("constant", "per_iteration", """
PHASES = ["jacobi", "halo", "reduction", "other", "total"]


def per_iteration(timers):
    return {"jacobi": 0.1, "halo": 0.2, "reduction": 0.05, "other": 0.0, "total": 0.36}
""", B, "the visible test's answer typed in", reason="the slowest rank's seconds per iteration"),
    attempt("shortcut", "per_iteration", """
PHASES = ["jacobi", "halo", "reduction", "other", "total"]


def per_iteration(timers):
    from hybridlab.halo.tables import breakdown_table
    row = breakdown_table([type("R", (), {"records": timers})()], how="max").iloc[0]
    return {p: float(row[p]) / float(timers["iterations"].iloc[0]) for p in PHASES}
""", B, "the kit's lab 04 breakdown table (each phase's largest over the ranks)",
            reason="cannot concatenate object"),
    attempt("method", "solve_overlapped", residual(EAGER), C,
            "MPI_Iallreduce then MPI_Wait at once, the extra iteration added for the count", reason="computed while a reduction was in flight"),
    attempt("method", "solve_overlapped", residual(BLOCKING), C,
            "a blocking MPI_Allreduce with the extra iteration", reason="your code called MPI_Allreduce"),
    attempt("hidden", "solve_overlapped", residual(RESIDUAL.replace(
        "for (long it = 1; it < max_iterations; it++)", "for (long it = 1; it < 60; it++)")), C,
        "the visible test's 60 iterations written in", reason="wrong result"),
    attempt("constant", "solve_overlapped", residual(RESIDUAL.replace(
        "MPI_Wait(&request, MPI_STATUS_IGNORE);\n    return sum;",
        "MPI_Wait(&request, MPI_STATUS_IGNORE);\n    return 0.02;")), C,
        "the residual typed in where the loop runs out", reason="wrong result"),
    attempt("constant", "own_prediction", """
def predicted_overlapped(blocking):
    return 40e-6  # read off my table


def hidden_share(blocking, overlapped):
    return 0.5
""", D, "numbers read off the student's own table", reason="predicted_overlapped (total - reduction)"),
    attempt("shortcut", "own_prediction", """
def predicted_overlapped(blocking):
    return float(measured["predicted"].iloc[0]) * 1e-6  # the notebook's own table


def hidden_share(blocking, overlapped):
    return float(measured["hidden share"].iloc[0])
""", D, "the notebook's table of its own runs instead of the arguments",
            reason="name 'measured' is not defined"),
    attempt("hidden", "own_prediction", """
def predicted_overlapped(blocking):
    t = blocking.set_index("phase")["seconds"]  # one rank, as in the visible test
    it = float(blocking["iterations"].iloc[0])
    return float(t["total"] - t["reduction"]) / it


def hidden_share(blocking, overlapped):
    b = blocking.set_index("phase")["seconds"] / float(blocking["iterations"].iloc[0])
    o = overlapped.set_index("phase")["seconds"] / float(overlapped["iterations"].iloc[0])
    return float((b["total"] - o["total"]) / b["reduction"])
""", D, "a table of one rank, as the visible test's", reason="TypeError"),
]

# ------------------------------------------------------------------------------- ORACLES
PHASES = ["jacobi", "halo", "reduction", "other", "total"]
_G = np.random.default_rng(13)


def _timers(ranks: int, iterations: int) -> pd.DataFrame:
    parts = _G.uniform(0.1, 1.0, size=(ranks, 4))
    total = parts.sum(axis=1) * 1.1
    total[ranks - 1] += 1.0  # the slowest rank is the last
    return pd.DataFrame([{"rank": r, "phase": p, "iterations": iterations,
                          "seconds": float(total[r] if p == "total" else parts[r, k])}
                         for r in range(ranks) for k, p in enumerate(PHASES)])  # fmt: skip


def _per(t: pd.DataFrame) -> dict:
    tot = t[t["phase"] == "total"]
    mine = t[t["rank"] == tot.loc[tot["seconds"].idxmax(), "rank"]]
    its = float(mine["iterations"].iloc[0])
    return {p: float(mine.loc[mine["phase"] == p, "seconds"].iloc[0]) / its for p in PHASES}


def _dict_answer(want: dict):
    def judge(got) -> bool:
        try:
            return all(abs(float(got[p]) - w) <= 1e-9 * max(abs(w), 1e-12) for p, w in want.items())
        except Exception:  # noqa: BLE001 - anything that is not such a dict is not the answer
            return False
    return judge


def _number_answer(want: float):
    def judge(got) -> bool:
        try:
            return abs(float(got) - want) <= 1e-9 * max(abs(want), 1e-12)
        except Exception:  # noqa: BLE001
            return False
    return judge


_T1, _T2 = _timers(4, 300), _timers(3, 1200)
_P1, _P2 = _per(_T1), _per(_T2)
ORACLES = [
    Oracle("per_iteration", (_T1,), _dict_answer(_P1)),
    Oracle("own_prediction", (_T1,), _number_answer(_P1["total"] - _P1["reduction"])),
    Oracle("own_prediction", (_T1, _T2),
           _number_answer((_P1["total"] - _P2["total"]) / _P1["reduction"])),
]

# The test's own interpreter reached (issue 36): its reference called, its expected value read,
# a judging module of the kit replaced from an earlier cell.
GAMING += [
    attempt("interpreter", "per_iteration", FRAME_TOOLS + """
PHASES = ["jacobi", "halo", "reduction", "other", "total"]


def per_iteration(timers):
    reference = _from_the_test(("_want", "_reference"), True)
    return reference(timers) if reference else {p: 0.0 for p in PHASES}
""", B, "the hidden test's reference found in its frames and called",
    reason="the slowest rank's seconds per iteration"),
    attempt("interpreter", "per_iteration", FRAME_TOOLS + """
PHASES = ["jacobi", "halo", "reduction", "other", "total"]


def per_iteration(timers):
    return _from_the_test(("_w", "want"), False) or {p: 0.0 for p in PHASES}
""", B, "the hidden test's expected values read from its frames",
    reason="the slowest rank's seconds per iteration"),
    attempt("interpreter", "own_prediction", FRAME_TOOLS + """
def predicted_overlapped(blocking):
    found = _from_the_test(("want", "_want"), False)
    return float(found) if isinstance(found, float) else 0.0


def hidden_share(blocking, overlapped):
    found = _from_the_test(("want", "_want"), False)
    return float(found) if isinstance(found, float) else 0.5
""", D, "the hidden test's expected values read from its frames",
    reason="predicted_overlapped (total - reduction)"),
    together(
        attempt("interpreter", "per_iteration", PER_ITERATION + """

import hybridlab.neighbour.exercise as _ex

_ex.check_student_residual = lambda *args, **kwargs: None
""", set(), "a right per_iteration"),
        attempt("interpreter", "solve_overlapped", residual(BLOCKING), C,
                "a blocking MPI_Allreduce, hybridlab.neighbour.exercise.check_student_residual "
                "replaced from an earlier cell",
                reason="your code called MPI_Allreduce"),
    ),
]
# (a) in its nonblocking form: the request completed one call late (the sweep reads a halo in
# flight; the result may still come out right), or "completed" by a Wait or Waitall of another
# request; the posting hidden from the tracer
POSTED = _SOURCES["POSTED"]
_POST_AND_WAIT = """    MPI_Request req;
    MPI_Ineighbor_alltoallw(a, counts, send, types, a, counts, recv, types, grid, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
"""


def _late(shown: str = "") -> str:
    """(a) with its exchange completed one call late, `shown` (a completion of something else)
    after the posting."""
    return neighbour(changed(POSTED, _POST_AND_WAIT, """\
    static MPI_Request req = MPI_REQUEST_NULL;
    MPI_Wait(&req, MPI_STATUS_IGNORE);  /* the previous call's exchange, one iteration late */
    MPI_Ineighbor_alltoallw(a, counts, send, types, a, counts, recv, types, grid, &req);
""" + shown))


_BARRIER = "    MPI_Request shown;\n    MPI_Ibarrier(grid, &shown);\n"
GAMING += [
    attempt("method", "neighbour_exchange", _late(), A, "MPI_Ineighbor_alltoallw completed at the "
            "next call: the sweep between reads a halo in flight",
            reason="was not completed before the next sweep | wrong result | were never completed by a wait or test"),
    attempt("method", "neighbour_exchange",
            _late(_BARRIER + "    MPI_Wait(&shown, MPI_STATUS_IGNORE);\n"), A,
            "MPI_Ineighbor_alltoallw left in flight behind a Wait on an MPI_Ibarrier's request",
            reason="was not completed before the next sweep | wrong result | were never completed by a wait or test"),
    attempt("method", "neighbour_exchange",
            _late(_BARRIER + "    MPI_Waitall(1, &shown, MPI_STATUSES_IGNORE);\n"), A,
            "MPI_Ineighbor_alltoallw left in flight behind an MPI_Waitall of an MPI_Ibarrier's "
            "request", reason="was not completed before the next sweep | wrong result | were never completed by a wait or test"),
    attempt("untraced", "neighbour_exchange",
            neighbour("#un\\\ndef MPI_Ineighbor_alltoallw\n" + POSTED), A,
            "MPI_Ineighbor_alltoallw reached untraced: an #undef a line splice hides from a text "
            "filter", reason="out of the tracer's sight"),
]
# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
GAMING += c_evidence("13_neighbourhood_collectives", "neighbour_exchange", A, "MPI_Cart_create",
                     reasons=True)
GAMING += c_evidence("13_neighbourhood_collectives", "solve_overlapped", C, "MPI_Iallreduce",
                     reasons=True)

# Issue 36's other ways into the test's interpreter: its frames read with inspect.stack(), a
# global named like the grader's reference.
GAMING += [
    attempt("interpreter", "per_iteration", """
import inspect

PHASES = ["jacobi", "halo", "reduction", "other", "total"]


def per_iteration(timers):
    for frame in inspect.stack()[1:]:  # the calling test's locals: its expected seconds
        found = frame.frame.f_locals.get("_w")
        if isinstance(found, dict):
            return found
    return {p: 0.0 for p in PHASES}
""", B, "the expected seconds looked for in the frames of inspect.stack()",
            reason="the slowest rank's seconds per iteration"),
    attempt("interpreter", "per_iteration", """
PHASES = ["jacobi", "halo", "reduction", "other", "total"]


def _reference(t):  # named like the grader's reference: rank 0's seconds, per iteration
    mine = t[t["rank"] == t["rank"].min()]
    its = float(mine["iterations"].iloc[0])
    return {p: float(mine.loc[mine["phase"] == p, "seconds"].iloc[0]) / its for p in PHASES}


def per_iteration(timers):
    return _reference(timers)
""", B, "a global _reference like the grader's, both reading the lowest rank",
            reason="the slowest rank's seconds per iteration"),
]

# (a): a fresh attacker (xena): the halo by an ordinary MPI_Alltoallv, a zero-count
# neighbourhood collective for show
GAMING.append(attempt("method", "neighbour_exchange", neighbour(r"""
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 0, &grid);
    return grid;
}

/* the halo goes by an ordinary MPI_Alltoallv over the grid communicator; the neighbourhood
 * collective is a zero-count call that moves nothing */
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    int size, nb[4];
    long w = n + 2;
    MPI_Comm_size(grid, &size);
    MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]);
    int *sc = calloc(size, sizeof(int)), *sd = calloc(size, sizeof(int));
    int *rc = calloc(size, sizeof(int)), *rd = calloc(size, sizeof(int));
    double *sb = malloc((2 * n + 2 * m + 4) * sizeof(double));
    double *rb = malloc((2 * n + 2 * m + 4) * sizeof(double));
    long len[4] = {n, n, m, m};
    /* displacements ordered by rank */
    long off = 0;
    for (int r = 0; r < size; r++)
        for (int k = 0; k < 4; k++)
            if (nb[k] == r) { sc[r] = rc[r] = (int)len[k]; sd[r] = rd[r] = (int)off; off += len[k]; }
    for (int k = 0; k < 4; k++) {
        if (nb[k] == MPI_PROC_NULL) continue;
        double *p = sb + sd[nb[k]];
        for (long i = 0; i < len[k]; i++)
            p[i] = k == 0 ? a[1 * w + 1 + i] : k == 1 ? a[m * w + 1 + i]
                 : k == 2 ? a[(1 + i) * w + 1] : a[(1 + i) * w + n];
    }
    MPI_Alltoallv(sb, sc, sd, MPI_DOUBLE, rb, rc, rd, MPI_DOUBLE, grid);
    for (int k = 0; k < 4; k++) {
        if (nb[k] == MPI_PROC_NULL) continue;
        double *p = rb + rd[nb[k]];
        for (long i = 0; i < len[k]; i++) {
            if (k == 0) a[0 * w + 1 + i] = p[i];
            else if (k == 1) a[(m + 1) * w + 1 + i] = p[i];
            else if (k == 2) a[(1 + i) * w + 0] = p[i];
            else a[(1 + i) * w + n + 1] = p[i];
        }
    }
    double dummy = 0.0;
    MPI_Neighbor_alltoall(&dummy, 0, MPI_DOUBLE, &dummy, 0, MPI_DOUBLE, grid);
    free(sc); free(sd); free(rc); free(rd); free(sb); free(rb);
}
"""), A, "fresh attacker: the halo by MPI_Alltoallv on the grid communicator, a zero-count "
           "MPI_Neighbor_alltoall for show", reason="the halo goes by the neighbourhood collective alone"))
GAMING.append(attempt("method", "neighbour_exchange", neighbour(r"""
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 0, &grid);
    return grid;
}

/* the halo goes by 64-byte MPI_Allreduce(MPI_SUM) calls (each rank's edges in its own slot of a
 * zeroed buffer: x + 0 + 0 = x exactly); the neighbourhood collective moves nothing */
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    int size, rank, up, down, left, right;
    long w = n + 2, most[2] = {m, n}, big[2];
    MPI_Comm_size(grid, &size);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    MPI_Allreduce(most, big, 2, MPI_LONG, MPI_MAX, grid);
    long M = big[0], N = big[1], S = 2 * N + 2 * M, total = S * size;
    long padded = (total + 7) / 8 * 8;
    double *all = calloc(padded, sizeof(double));
    double *mine = all + rank * S;
    for (long j = 0; j < n; j++) { mine[j] = a[w + 1 + j]; mine[N + j] = a[m * w + 1 + j]; }
    for (long i = 0; i < m; i++) { mine[2 * N + i] = a[(1 + i) * w + 1]; mine[2 * N + M + i] = a[(1 + i) * w + n]; }
    for (long k = 0; k < padded; k += 8)
        MPI_Allreduce(MPI_IN_PLACE, all + k, 8, MPI_DOUBLE, MPI_SUM, grid);
    if (up != MPI_PROC_NULL) for (long j = 0; j < n; j++) a[1 + j] = all[up * S + N + j];
    if (down != MPI_PROC_NULL) for (long j = 0; j < n; j++) a[(m + 1) * w + 1 + j] = all[down * S + j];
    if (left != MPI_PROC_NULL) for (long i = 0; i < m; i++) a[(1 + i) * w] = all[left * S + 2 * N + M + i];
    if (right != MPI_PROC_NULL) for (long i = 0; i < m; i++) a[(1 + i) * w + n + 1] = all[right * S + 2 * N + i];
    double dummy = 0.0;
    MPI_Neighbor_alltoall(&dummy, 0, MPI_DOUBLE, &dummy, 0, MPI_DOUBLE, grid);
    free(all);
}
"""), A, "fresh attacker: the halo in 64-byte MPI_Allreduce(MPI_IN_PLACE, MPI_SUM) pieces, a "
           "zero-count MPI_Neighbor_alltoall for show", reason="the halo goes by the neighbourhood collective alone"))

# A fresh attacker's (helper-30, 2026-12-03) wrong methods that kept full points: the part now
# judges which calls moved the data (and, lab 04, the thread level).
GAMING += [
    attempt("method", "neighbour_exchange", c_cell("NEIGHBOUR_C", "neighbour_halo", r"""
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    int periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Cart_create(comm, 2, dims, periods, 0, &grid);
    return grid;
}

void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    static long K = -1;
    long w = n + 2;
    if (K < 0) {
        long mine = m > n ? m : n;
        MPI_Allreduce(&mine, &K, 1, MPI_LONG, MPI_MAX, grid);
    }
    int nb[4];
    MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]);
    double *s = calloc(4 * K, sizeof(double)), *r = calloc(16 * K, sizeof(double));
    for (long j = 0; j < n; j++) { s[j] = a[w + 1 + j]; s[K + j] = a[m * w + 1 + j]; }
    for (long i = 0; i < m; i++) { s[2 * K + i] = a[(i + 1) * w + 1]; s[3 * K + i] = a[(i + 1) * w + n]; }
    MPI_Neighbor_allgather(s, (int)(4 * K), MPI_DOUBLE, r, (int)(4 * K), MPI_DOUBLE, grid);
    /* from up: its bottom row; from down: its top row; from left: its right col; from right: its left col */
    if (nb[0] != MPI_PROC_NULL) for (long j = 0; j < n; j++) a[1 + j] = r[0 * 4 * K + K + j];
    if (nb[1] != MPI_PROC_NULL) for (long j = 0; j < n; j++) a[(m + 1) * w + 1 + j] = r[1 * 4 * K + j];
    if (nb[2] != MPI_PROC_NULL) for (long i = 0; i < m; i++) a[(i + 1) * w] = r[2 * 4 * K + 3 * K + i];
    if (nb[3] != MPI_PROC_NULL) for (long i = 0; i < m; i++) a[(i + 1) * w + n + 1] = r[3 * 4 * K + 2 * K + i];
    double d0[4], d1[4];
    MPI_Neighbor_alltoall(d0, 0, MPI_DOUBLE, d1, 0, MPI_DOUBLE, grid); /* decoy */
    free(s);
    free(r);
}
"""), {"hidden_neighbour_exchange"}, "the halo moved by MPI_Neighbor_allgather, a zero-count alltoall as decoy", reason="the halo goes by the neighbourhood collective alone"),
]

# A tester's wrong method that kept full points: the next iteration's value written into the
# MPI_Iallreduce's send buffer while the reduction is in flight (MPI 3.0, section 5.12 forbids
# it; MPICH copied the one double at the posting, so the numbers came out right). The tracer
# hashes a non-blocking collective's send buffer at the posting and again at the completion of
# its request (hl_trace.c, HL_POSTED: "send_changed" in the completion's record).
REUSED_SEND = """
/* WRONG: one variable is both the in-flight send buffer and the next iteration's value (MPI owns
   it until the wait): right numbers only because the library copied the one double at posting */
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double mine, sum = 0.0;
    MPI_Request req;
    mine = jacobi_iteration();
    long done = 1;
    MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
    while (1) {
        if (done >= max_iterations) { MPI_Wait(&req, MPI_STATUS_IGNORE); return sum; }
        mine = jacobi_iteration();            /* overwrites the send buffer in flight */
        done++;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (sum < tolerance) return sum;
        MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
    }
}
"""
GAMING.append(attempt("method", "solve_overlapped", residual(REUSED_SEND), C,
                      "one variable both the MPI_Iallreduce's send buffer in flight and the next "
                      "iteration's value: right numbers only because MPICH copied it at posting",
                      reason="the send buffer must stay untouched until the reduction completes"))


# A fresh attacker (attackG, 2026-12-04): the real MPI reached at an offset from MPI_UNWEIGHTED's
# address and called by the header's inline hl_sample or by bsearch (see lab 12's)
_KIT_EAGER_REUSE = r'''
%%c RESIDUAL_C neighbour_halo
/* kit-reader: the eager path (the reduction waited for right after its posting), disguised.
 * The real PMPI_Wait and PMPI_Ibarrier are reached by address (MPI_UNWEIGHTED's target in libmpi
 * plus this libmpi's fixed offsets) and called by the header-inlined hl_sample, out of the
 * tracer's sight. After the untraced wait, MPICH hands the freed request handle to the untraced
 * Ibarrier, so the traced MPI_Wait made after the next iteration completes a live request with
 * the very handle the tracer recorded at the posting. */
static double pad[1];

static unsigned long libmpi_anchor(void) {
    return (unsigned long)(void *)MPI_UNWEIGHTED;
}

static void real_wait(MPI_Request *r) {
    unsigned long at = libmpi_anchor() - 11739020UL;
    hl_sample((hl_work_fn)at, (void *)r, 1L /* MPI_STATUS_IGNORE */, 1, pad);
}

static void real_ibarrier(MPI_Comm c, MPI_Request *r) {
    unsigned long at = libmpi_anchor() - 12707436UL;
    hl_sample((hl_work_fn)at, (void *)(long)c, (long)r, 1, pad);
}

double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double part[2], sum = 0.0;
    int cur = 0;
    long it = 0;
    MPI_Request req, tmp;
    if (max_iterations < 1) return 0.0;
    part[cur] = jacobi_iteration();
    it = 1;
    for (;;) {
        MPI_Iallreduce(&part[cur], &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
        tmp = req;
        real_wait(&tmp);                 /* eager: the sum is known now */
        real_ibarrier(comm, &tmp);       /* the same handle, live again */
        if (sum < tolerance || it >= max_iterations) {
            if (it < max_iterations) { jacobi_iteration(); it++; }   /* one late, by hand */
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            return sum;
        }
        part[1 - cur] = jacobi_iteration();
        it++;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        cur = 1 - cur;
    }
}
'''
GAMING += [
    attempt("forged", "solve_overlapped", _KIT_EAGER_REUSE, C,
            "attackG: the reduction waited for at once by the real PMPI_Wait (reached from MPI_UNWEIGHTED's address) through hl_sample, its request handle reused by a real PMPI_Ibarrier that the traced MPI_Wait completes after the computing: 4/4 kept",
            reason="not the cell's own"),
    attempt("forged", "solve_overlapped", changed(changed(_KIT_EAGER_REUSE, '    hl_sample((hl_work_fn)at, (void *)r, 1L /* MPI_STATUS_IGNORE */, 1, pad);', '    bsearch(r, pad, 1, sizeof pad[0], (int (*)(const void *, const void *))at);'), '    hl_sample((hl_work_fn)at, (void *)(long)c, (long)r, 1, pad);', '    bsearch((void *)(long)c, r, 1, sizeof *r, (int (*)(const void *, const void *))at);'), C,
            "attackG: the same, both real calls made as bsearch's comparator: 4/4 kept",
            reason='calls through a function pointer | bsearch'),
]


# A fresh attacker (attackF, F13e): the next iteration's value written into the MPI_Iallreduce's
# send buffer while the reduction is in flight and the posted bytes put back before MPI_Wait, so
# the tracer's hashes at the posting and at the completion agree (4/4 kept). The tracer now also
# counts the stores into the send buffer's first bytes between the posting and the completion
# with the x86 debug registers on every thread (hl_trace.c, HL_POSTED: "send_writes").
_PUT_BACK = r'''
%%c RESIDUAL_C neighbour_halo
/* the next value is written into the in-flight send buffer (MPI forbids it), and the old
   bytes are put back before MPI_Wait so the tracer's before/after hash matches */
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double mine, sum = 0.0;
    MPI_Request req;
    long it = 1;
    mine = jacobi_iteration();
    MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
    for (;;) {
        int computed = 0;
        double posted = mine, fresh = 0.0;
        if (it < max_iterations) {
            mine = jacobi_iteration();      /* written while in flight */
            (void)hl_now();                 /* an external call: the store really happens */
            fresh = mine;
            it++;
            computed = 1;
        }
        mine = posted;                      /* restored before the completion */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (sum < tolerance || !computed) return sum;
        mine = fresh;
        MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
    }
}
'''
GAMING.append(attempt("method", "solve_overlapped", _PUT_BACK, C,
                      "attackF F13e: the next value written into the in-flight send buffer, the "
                      "posted bytes put back before MPI_Wait so the hashes agree: 4/4 kept",
                      reason="even if its bytes are put back before it"))


# attacker V (G13a_zero, G13a_decoy; 4/4 twice each): every rank sweeps the WHOLE grid itself
# (lab 04's start and stencil, copied from the installed kernel; the global sizes from one
# 16-byte MPI_Allreduce) and fills its halo from its own copy; the iteration's neighbourhood
# collective sends 0 elements (zero) or receives the true edges into scratch (decoy). Each rank's
# block now starts perturbed by a key only that rank draws (neighbour_halo.c, "secret"), and the
# judge rebuilds the start from the records; a collective receiving less than the halo's bytes
# is refused too ("recv_bytes").
# the two attempts' common part: the whole grid kept and swept by every rank, its halo filled from it
_WHOLE_GRID_SWEEP = r''' * the kit's source) and sweeps it itself once per call, then fills its halo from that copy. The
 * global sizes come from one 16-byte MPI_Allreduce on the first call (the part allows 16 bytes of
 * reduction per iteration). The collective at the end is the only neighbourhood collective. */
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 0, &grid);
    return grid;
}

static double *G, *H;
static long NX, NY, R0, C0, W;
static MPI_Comm seen = MPI_COMM_NULL;

static double start(long i, long j) { return (double)((7 * i + 13 * j) % 17) / 16.0; }

static long first_of(long total, int parts, int k) {
    long base = total / parts, extra = total % parts;
    return 1 + k * base + (k < extra ? k : extra);
}

static void setup(long m, long n, MPI_Comm grid) {
    int dims[2], periods[2], coords[2];
    MPI_Cart_get(grid, 2, dims, periods, coords);
    long mine[2] = {coords[1] == 0 ? m : 0, coords[0] == 0 ? n : 0}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, grid);
    NY = all[0];
    NX = all[1];
    W = NX + 2;
    R0 = first_of(NY, dims[0], coords[0]);
    C0 = first_of(NX, dims[1], coords[1]);
    free(G);
    free(H);
    G = malloc(sizeof(double) * (size_t)((NY + 2) * W));
    H = malloc(sizeof(double) * (size_t)((NY + 2) * W));
    for (long i = 0; i < NY + 2; i++)
        for (long j = 0; j < W; j++) G[i * W + j] = H[i * W + j] = start(i, j);
    seen = grid;
}

static void sweep_all(void) {
    for (long i = 1; i <= NY; i++)
        for (long j = 1; j <= NX; j++)
            H[i * W + j] = 0.25 * (G[(i - 1) * W + j] + G[(i + 1) * W + j] + G[i * W + j - 1] +
                                   G[i * W + j + 1]);
    for (long i = 1; i <= NY; i++) memcpy(&G[i * W + 1], &H[i * W + 1], sizeof(double) * (size_t)NX);
}

void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    long w = n + 2;
    if (grid != seen) setup(m, n, grid);
    sweep_all();
    for (long j = 1; j <= n; j++) {
        a[0 * w + j] = G[(R0 - 1) * W + (C0 - 1 + j)];
        a[(m + 1) * w + j] = G[(R0 + m) * W + (C0 - 1 + j)];
    }
    for (long i = 1; i <= m; i++) {
        a[i * w + 0] = G[(R0 - 1 + i) * W + (C0 - 1)];
        a[i * w + n + 1] = G[(R0 - 1 + i) * W + (C0 + n)];
    }
'''
_WHOLE_GRID_ZERO = r'''
%%c NEIGHBOUR_C neighbour_halo
/* GAMING: no halo moves. Every rank keeps the whole grid (lab 04's start and stencil, copied from
''' + _WHOLE_GRID_SWEEP + r'''    double nothing[4] = {0, 0, 0, 0};
    MPI_Neighbor_alltoall(nothing, 0, MPI_DOUBLE, nothing, 0, MPI_DOUBLE, grid); /* 0 elements */
}
'''
_WHOLE_GRID_DECOY = r'''
%%c NEIGHBOUR_C neighbour_halo
/* GAMING: no halo moves into the halo (a full-size collective lands in scratch). Every rank keeps the whole grid (lab 04's start and stencil, copied from
''' + _WHOLE_GRID_SWEEP + r'''    /* a full-size exchange of the true edges, received into scratch and thrown away */
    static double *scratch;
    static long cap;
    if (cap < (m + 2) * w) { free(scratch); scratch = malloc(sizeof(double) * (size_t)((m + 2) * w)); cap = (m + 2) * w; }
    MPI_Datatype row, col;
    MPI_Type_contiguous((int)n, MPI_DOUBLE, &row);
    MPI_Type_vector((int)m, 1, (int)w, MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    int counts[4] = {1, 1, 1, 1};
    MPI_Datatype types[4] = {row, row, col, col};
    const MPI_Aint d = (MPI_Aint)sizeof(double);
    MPI_Aint sd[4] = {(1 * w + 1) * d, (m * w + 1) * d, (1 * w + 1) * d, (1 * w + n) * d};
    MPI_Aint rd[4] = {(0 * w + 1) * d, ((m + 1) * w + 1) * d, (1 * w + 0) * d, (1 * w + n + 1) * d};
    MPI_Neighbor_alltoallw(a, counts, sd, types, scratch, counts, rd, types, grid);
    MPI_Type_free(&row);
    MPI_Type_free(&col);
}
'''
GAMING += [
    attempt("method", "neighbour_exchange", _WHOLE_GRID_ZERO, A,
            "attackV G13a_zero: the whole grid swept by every rank, a 0-element collective: 4/4 "
            "kept", reason="wrong result"),
    attempt("forged", "neighbour_exchange", _WHOLE_GRID_DECOY, A,
            "attackV G13a_decoy: the whole grid swept by every rank, a full-size alltoallw "
            "received into scratch: 4/4 kept", reason="wrong result"),
]

# attacker V (G13c_inplace_wr; 4/4 twice): MPI_Iallreduce with MPI_IN_PLACE, its buffer (the send
# and receive buffer at once) written and put back in flight; the tracer watched no in-place
# buffer. Now it watches the receive buffer and counts what changes it outside MPI calls
# (hl_trace.c, HL_POSTED_IN).
_IN_PLACE_PUT_BACK = r'''
%%c RESIDUAL_C neighbour_halo
/* GAMING (MPI_IN_PLACE buffer written while in flight, put back): with MPI_IN_PLACE the send
 * buffer is the receive buffer; right after each posting it is written and put back before the
 * completion. Probes whether an in-place reduction's buffer is watched. */
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double buf, keep, next;
    volatile double *v = &buf;
    MPI_Request req;
    long it = 1;
    if (max_iterations <= 0) return 0.0;
    buf = jacobi_iteration();
    for (;;) {
        MPI_Iallreduce(MPI_IN_PLACE, &buf, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
        keep = *v;
        *v = -1.0;           /* in flight: written */
        *v = keep;           /* and put back */
        int more = it < max_iterations;
        if (more) {
            next = jacobi_iteration();
            it++;
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (!more || buf < tolerance) return buf;
        buf = next;
    }
}
'''
GAMING.append(attempt("method", "solve_overlapped", _IN_PLACE_PUT_BACK, C,
                      "attackV G13c_inplace_wr: an MPI_IN_PLACE buffer written and put back in "
                      "flight: 4/4 kept", reason="even if its bytes are put back before it"))

# attacker T's G13_alltoallw (2026-12-06, 0 kept): the halo by MPI_Alltoallw over the grid, a neighbourhood collective of zeros as evidence
GAMING.append(attempt('method', 'neighbour_exchange', r"""
%%c NEIGHBOUR_C neighbour_halo
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 0, &grid);
    return grid;
}

/* The halo really travels by MPI_Alltoallw over all ranks (zero counts except the four
 * neighbours); the neighbourhood collective carries only zeros of the halo's size. */
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    int size, nb[4];
    long w = n + 2;
    MPI_Comm_size(grid, &size);
    MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]);
    MPI_Datatype row, colt;
    MPI_Type_contiguous((int)n, MPI_DOUBLE, &row);
    MPI_Type_vector((int)m, 1, (int)w, MPI_DOUBLE, &colt);
    MPI_Type_commit(&row);
    MPI_Type_commit(&colt);
    int *sc = calloc(size, sizeof(int)), *rc = calloc(size, sizeof(int));
    MPI_Aint *sd = calloc(size, sizeof(MPI_Aint)), *rd = calloc(size, sizeof(MPI_Aint));
    MPI_Datatype *sty = malloc(size * sizeof(MPI_Datatype)), *rty = malloc(size * sizeof(MPI_Datatype));
    for (int r = 0; r < size; r++) { sty[r] = MPI_DOUBLE; rty[r] = MPI_DOUBLE; }
    MPI_Aint sdisp[4] = {(w + 1) * 8, (m * w + 1) * 8, (w + 1) * 8, (w + n) * 8};
    MPI_Aint rdisp[4] = {1 * 8, ((m + 1) * w + 1) * 8, w * 8, (w + n + 1) * 8};
    for (int q = 0; q < 4; q++) {
        if (nb[q] == MPI_PROC_NULL) continue;
        sc[nb[q]] = rc[nb[q]] = 1;
        sty[nb[q]] = rty[nb[q]] = q < 2 ? row : colt;
        sd[nb[q]] = sdisp[q];
        rd[nb[q]] = rdisp[q];
    }
    MPI_Alltoallw(a, sc, sd, sty, a, rc, rd, rty, grid);
    /* the evidence: a neighbourhood collective of zeros, as many bytes as the halo */
    long most = m > n ? m : n;
    double *zeros = calloc(4 * most, sizeof(double)), *junk = malloc(4 * most * sizeof(double));
    MPI_Neighbor_alltoall(zeros, (int)most, MPI_DOUBLE, junk, (int)most, MPI_DOUBLE, grid);
    free(zeros); free(junk); free(sc); free(rc); free(sd); free(rd); free(sty); free(rty);
    MPI_Type_free(&row);
    MPI_Type_free(&colt);
}
""", ['hidden_neighbour_exchange'], "attacker T (G13_alltoallw): the halo by MPI_Alltoallw over the grid, a neighbourhood collective of zeros as evidence", reason='not traced by the kit'))

# attacker T's G13_alltoallv (2026-12-06, 0 kept): the halo by MPI_Alltoallv over the grid, a neighbourhood collective of zeros as evidence
GAMING.append(attempt('method', 'neighbour_exchange', r"""
%%c NEIGHBOUR_C neighbour_halo
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 0, &grid);
    return grid;
}

/* The halo really travels by MPI_Alltoallv over all ranks (zero counts except the four
 * neighbours); the neighbourhood collective carries only zeros of the halo's size. */
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    int size, nb[4];
    long w = n + 2;
    MPI_Comm_size(grid, &size);
    MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]);
    long len[4] = {n, n, m, m};
    long off[4] = {0, n, 2 * n, 2 * n + m};
    double *sb = malloc((2 * n + 2 * m) * sizeof(double)), *rb = malloc((2 * n + 2 * m) * sizeof(double));
    for (long k = 0; k < n; k++) { sb[k] = a[w + 1 + k]; sb[n + k] = a[m * w + 1 + k]; }
    for (long k = 0; k < m; k++) { sb[2 * n + k] = a[(k + 1) * w + 1]; sb[2 * n + m + k] = a[(k + 1) * w + n]; }
    int *sc = calloc(size, sizeof(int)), *sd = calloc(size, sizeof(int));
    int *rc = calloc(size, sizeof(int)), *rd = calloc(size, sizeof(int));
    for (int q = 0; q < 4; q++) {
        if (nb[q] == MPI_PROC_NULL) continue;
        sc[nb[q]] = rc[nb[q]] = (int)len[q];
        sd[nb[q]] = rd[nb[q]] = (int)off[q];
    }
    MPI_Alltoallv(sb, sc, sd, MPI_DOUBLE, rb, rc, rd, MPI_DOUBLE, grid);
    if (nb[0] != MPI_PROC_NULL) for (long k = 0; k < n; k++) a[1 + k] = rb[k];
    if (nb[1] != MPI_PROC_NULL) for (long k = 0; k < n; k++) a[(m + 1) * w + 1 + k] = rb[n + k];
    if (nb[2] != MPI_PROC_NULL) for (long k = 0; k < m; k++) a[(k + 1) * w] = rb[2 * n + k];
    if (nb[3] != MPI_PROC_NULL) for (long k = 0; k < m; k++) a[(k + 1) * w + n + 1] = rb[2 * n + m + k];
    /* the evidence: a neighbourhood collective of zeros, as many bytes as the halo */
    long most = m > n ? m : n;
    double *zeros = calloc(4 * most, sizeof(double)), *junk = malloc(4 * most * sizeof(double));
    MPI_Neighbor_alltoall(zeros, (int)most, MPI_DOUBLE, junk, (int)most, MPI_DOUBLE, grid);
    free(zeros); free(junk); free(sb); free(rb); free(sc); free(rc); free(sd); free(rd);
}
""", ['hidden_neighbour_exchange'], "attacker T (G13_alltoallv): the halo by MPI_Alltoallv over the grid, a neighbourhood collective of zeros as evidence", reason='by the neighbourhood collective alone'))


# issue 36's F13_tolerance (2026-12-06): (b)'s loop never tests the tolerance (max_iterations
# always), and the kernel's tolerance, in the block on its stack above the cell's frame (found by
# its value, the iterations done, 0, before it), set to 0, so that the kernel's own check
# expected every iteration: 4 of 4 points before. The tolerance and the iterations done are
# hybridlab.h's sealed evidence now: the check expects the tolerance's stop
GAMING.append(attempt("forged", "solve_overlapped", r"""
%%c RESIDUAL_C neighbour_halo
/* the loop ignores the tolerance (max_iterations always); the kit's tolerance, in the block on
 * the kernel's stack above this frame (found by its value, done 0 before it), set to 0, so that
 * the kit's check expects every iteration */
static void __attribute__((noinline)) forge(double tolerance) {
    volatile double here = 0.0; /* a local: the scan starts at its address */
    char *volatile p = (char *)&here;
    for (long k = 8; k < 4096 && tolerance > 0; k += 8) {
        volatile double *t = (volatile double *)(p + k);
        volatile long *done = (volatile long *)(p + k - 8);
        if (*t == tolerance && *done == 0) {
            *t = 0.0; /* every copy: the block's among them */
        }
    }
}

double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    forge(tolerance);
    double mine = jacobi_iteration(), sum = 0.0;
    MPI_Request request;
    MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &request);
    for (long it = 1; it < max_iterations; it++) {
        double next = jacobi_iteration(); /* computed while the reduction travels */
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        mine = next;
        MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &request);
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return sum;
}
""", {"hidden_solve_overlapped"}, "a loop that never tests the tolerance, the kernel's tolerance "
    "found on its stack and set to 0 (F13_tolerance)", reason="wrong result"))


# attacker A1 (C1, C2; 4/4 twice each): one send buffer whose residual sits where the tracer
# did not look: past the 4096 bytes it hashed (C1: double 515 of 520, written in flight and
# left) or past the 32 bytes the debug registers watch (C2: byte 40 of 48, written in flight and
# put back before MPI_Wait). The residual is one value: a reduction of more than RESIDUAL_BYTES,
# or one whose send buffer the registers cover only in part, is refused (neighbour/exercise.py,
# unwatched_postings; the posting's "watched": hl_trace.c, HL_POSTED).
_BEYOND_HASH = r'''
%%c RESIDUAL_C neighbour_halo
/* one send buffer, the next iteration's value written into it while its reduction is in flight;
 * the value at double 515 of a 520-double reduction, past the 4096 bytes hashed */
#define SLOT 515
#define COUNT 520
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    static double buf[COUNT], sum[COUNT];
    MPI_Request req;
    if (max_iterations <= 0) return 0.0;
    buf[SLOT] = jacobi_iteration();
    long done = 1;
    MPI_Iallreduce(buf, sum, COUNT, MPI_DOUBLE, MPI_SUM, comm, &req);
    for (;;) {
        int more = done < max_iterations;
        if (more) { buf[SLOT] = jacobi_iteration(); done++; } /* into the buffer in flight */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (sum[SLOT] < tolerance || !more) return sum[SLOT];
        MPI_Iallreduce(buf, sum, COUNT, MPI_DOUBLE, MPI_SUM, comm, &req);
    }
}
'''
_PUT_BACK_PAST_REGISTERS = r'''
%%c RESIDUAL_C neighbour_halo
/* one send buffer: the next value kept in it while the reduction is in flight and the old one
 * put back before the wait; the value at byte 40 of a 6-double reduction, past the 32 bytes the
 * debug registers watch */
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    static double buf[6], sum[6];
    MPI_Request req;
    if (max_iterations <= 0) return 0.0;
    buf[5] = jacobi_iteration();
    long done = 1;
    MPI_Iallreduce(buf, sum, 6, MPI_DOUBLE, MPI_SUM, comm, &req);
    for (;;) {
        int more = done < max_iterations;
        double posted = buf[5];
        if (more) { buf[5] = jacobi_iteration(); done++; } /* written in flight */
        double next = buf[5];
        buf[5] = posted; /* put back */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        buf[5] = next;
        if (sum[5] < tolerance || !more) return sum[5];
        MPI_Iallreduce(buf, sum, 6, MPI_DOUBLE, MPI_SUM, comm, &req);
    }
}
'''
GAMING += [
    attempt("method", "solve_overlapped", _BEYOND_HASH, C,
            "attacker A1 C1: the next value written into the in-flight send buffer at double 515 "
            "of a 520-double reduction, past the 4096 bytes hashed: 4/4 kept",
            reason="could not watch whole while in flight"),
    attempt("method", "solve_overlapped", _PUT_BACK_PAST_REGISTERS, C,
            "attacker A1 C2: the next value written into the in-flight send buffer at byte 40 of "
            "a 6-double reduction, past the debug registers' 32 bytes, and put back before "
            "MPI_Wait: 4/4 kept", reason="could not watch whole while in flight"),
]
