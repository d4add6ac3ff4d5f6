"""Gaming attempts at lab 04: the kit's own exchange reached from the student's C, an unsafe or
rank-pair-only exchange, no overlap passing as overlap, shares hard-coded for the tables the
notebook shows, face counts that only hold for the published process grid. ORACLES: (b) and (c)'s
functions on hidden inputs, judged by the reference written here (never in the kit)."""

import importlib.util
import os
from pathlib import Path

import numpy as np
import pandas as pd

from gaming import FRAME_TOOLS, REFUSED, Oracle, attempt, c_evidence, solution_cell
from wrong_answers import c_cell, together

_spec = importlib.util.spec_from_file_location(
    "wrong_answers_04", Path(__file__).resolve().parents[1] / "wrong_answers" / "04_halo_exchange.py")
_wrong = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_wrong)
EXCHANGE = _wrong.EXCHANGE
OVERLAP = '%%c OVERLAP_C halo2d\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {{\n    long w = nx + 2;\n{body}\n}}\n'

A = {"hidden_exchange_halos"}
B = {"hidden_phase_shares"}
C = {"hidden_halo_faces"}
D = {"hidden_overlap_iteration"}
# (d)'s refusals (halo.exercise.judge_overlap): no free thread computed inside a window; the
# master's share of the interior kept for after its Wait while a free thread sat idle
NO_FREE_ROWS = "other than the master between the posting of the requests and their completion"
KEPT_SHARE = "not kept for the master"
HELD = "then computed rows after it"
EARLY = "post the exchange first"  # halo.exercise._assert_posted_first
ONCE = "computed more than once"  # every interior row once per iteration
# the master's exchange, posted and completed (the solution's), and in a masked block
POSTS = """\
        MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &req[1]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[2]);
        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &req[3]);
"""
EXCHANGE_WAIT = "        MPI_Request req[4];\n" + POSTS + "        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n"
POST_WAIT = "#pragma omp masked\n    {\n" + EXCHANGE_WAIT + "    }\n"

# (c)'s second function, right: the attempts at halo_faces get the faces wrong, not this
PREDICT_HALO = _wrong.PREDICT_HALO

EDGES = """\
#pragma omp barrier
#pragma omp single
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }"""


# the master's exchange as a fresh attacker (xena, 2026-12-02) posts it, and what comes after
_STATIC_REQUESTS = """void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    static MPI_Request req[4];
    #pragma omp masked
    {
"""
TOKEN_THEN_EDGES = """    if (omp_get_thread_num() == 1 && m > 2) stencil_rows(m - 1, m - 1);
    #pragma omp masked
    {
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
"""


def _master_posts(before: str = "", after: str = "", rest: str = TOKEN_THEN_EDGES,
                  note: str = "") -> str:
    """(d) as xena writes it (`note`: before the function): the master, in a masked block, does
    `before`, posts the exchange (POSTS) into static requests and does `after`; then a barrier
    and `rest` (by default a token row by thread 1, then the master's wait and edge rows)."""
    return ("%%c OVERLAP_C halo2d\n" + note + _STATIC_REQUESTS + before + POSTS + after
            + "    }\n    #pragma omp barrier\n" + rest)


def _hurried(note: str, in_window: str = "", after: str = "") -> str:
    """(d) as a fresh hurried student writes it (`note`: what it does): the master posts the
    exchange in a masked block, does `in_window`, waits; then the team does `after` and a single
    thread the edge rows."""
    return ("\n%%c OVERLAP_C halo2d\n/* hurried: " + note + """ */
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    #pragma omp masked
    {
        MPI_Request req[4];
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &req[0]);
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[1]);
        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 0, comm, &req[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[3]);
""" + in_window + """        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
""" + after + """    #pragma omp single
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
""")


GAMING = [
    # ------------------------------------------------------------------ (a) exchange_halos
    attempt(
        "shortcut", "exchange_halos",
        EXCHANGE.format(body="""\
    (void)w;
    grid2d g = {.a = a, .b = a, .m = m, .nx = nx, .w = nx + 2, .up = up, .down = down,
                .comm = comm};
    send_down(&g);  /* the kit's own exchange (static in halo2d.c) */
    send_up(&g);"""),
        loses=A,
        why="calls halo2d.c's static send_down/send_up, reachable when the C is appended to it",
        reason="BuildError",
    ),
    attempt(
        "method", "exchange_halos",
        EXCHANGE.format(body="""\
    MPI_Request r;
    MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);  /* completes only because MPI buffers the message */
    MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Recv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    MPI_Recv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, MPI_STATUS_IGNORE);"""),
        loses=A,
        why="every rank waits for its sends before it receives: safe only while sends go eager",
        reason="deadlock",
    ),
    attempt(
        "hidden", "exchange_halos",
        EXCHANGE.format(body="""\
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    (void)up; (void)down;
    if (size < 2) return;
    int partner = rank ^ 1;  /* two ranks, as in the visible test: each is the other's neighbour */
    if (partner >= size) return;
    if (rank % 2 == 0)
        MPI_Sendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, partner, 1, &a[(m + 1) * w + 1],
                     (int)nx, MPI_DOUBLE, partner, 2, comm, MPI_STATUS_IGNORE);
    else
        MPI_Sendrecv(&a[1 * w + 1], (int)nx, MPI_DOUBLE, partner, 2, &a[0 * w + 1], (int)nx,
                     MPI_DOUBLE, partner, 1, comm, MPI_STATUS_IGNORE);"""),
        loses=A,
        why="pairs rank 2k with 2k + 1: right for the one or two ranks the visible test runs",
        reason="the halo rows do not hold the neighbours' edge rows",
    ),
    attempt(
        "hidden", "exchange_halos",
        EXCHANGE.format(body="""\
    int len = nx < 13 ? (int)nx : 13;  /* 13: the visible test's grid width, never past a row */
    MPI_Sendrecv(&a[m * w + 1], len, MPI_DOUBLE, down, 1, &a[0 * w + 1], len, MPI_DOUBLE, up, 1,
                 comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[1 * w + 1], len, MPI_DOUBLE, up, 2, &a[(m + 1) * w + 1], len, MPI_DOUBLE,
                 down, 2, comm, MPI_STATUS_IGNORE);"""),
        loses=A,
        why="row length capped at the visible test's nx = 13: right on narrower grids only",
        reason="the halo rows do not hold the neighbours' edge rows",
    ),
    # ------------------------------------------------------------------ (b) phase_shares
    attempt(
        "constant", "phase_shares",
        """def phase_shares(table: pd.DataFrame) -> pd.DataFrame:
    phases = ["jacobi", "halo", "reduction", "other"]
    t = table.set_index("label")[phases].astype(float)
    out = t.div(t.sum(axis=1), axis=0)
    # every breakdown shown (mine, the published one) is jacobi-bound but the visible example's
    out["dominant"] = ["other" if lab == "1x2 hybrid1" else "jacobi" for lab in out.index]
    return out""",
        loses=B,
        why="dominant hard-coded: jacobi everywhere but the visible example's second row",
        reason="the largest phase is",
    ),
    attempt(
        "shortcut", "phase_shares",
        """def phase_shares(table: pd.DataFrame) -> pd.DataFrame:
    phases = ["jacobi", "halo", "reduction", "other"]
    t = table.set_index("label")[phases].astype(float)
    rows = table.set_index("label")
    # breakdown_table's own sum column, or the run's total as the published tables give it
    whole = rows["sum"] if "sum" in rows else rows["total"] if "total" in rows else t.sum(axis=1)
    out = t.div(whole.astype(float), axis=0)
    out["dominant"] = t.idxmax(axis=1)
    return out""",
        loses=B,
        why="divides by the kit table's sum column or the table's total: wrong wherever the "
            "total is a run time, not the four phases' sum",
        reason="the four phases' own sum gives",
    ),
    attempt(
        "hidden", "phase_shares",
        """def phase_shares(table: pd.DataFrame) -> pd.DataFrame:
    phases = ["jacobi", "halo", "reduction", "other"]
    t = table.set_index("label")[phases].astype(float)
    out = t.div(t.sum(axis=1), axis=0)
    out["dominant"] = ["jacobi" if r.jacobi >= r.other else "other" for r in t.itertuples()]
    return out""",
        loses=B,
        why="dominant chosen between the two phases that dominate in the tables shown",
        reason="the largest phase is",
    ),
    attempt(
        "method", "phase_shares",
        """def phase_shares(table: pd.DataFrame) -> pd.DataFrame:
    phases = ["jacobi", "halo", "reduction", "other"]
    t = table.set_index("label")[phases].astype(float)
    whole = table.set_index("label")["total"].astype(float) if "total" in table else t.sum(axis=1)
    out = t.div(whole, axis=0)  # the published total: 'the time' of the run
    out["dominant"] = t.idxmax(axis=1)
    return out""",
        loses=B,
        why="divides by the table's total column (a published or measured run time), not the "
            "sum of the four phases",
        reason="the four phases' own sum gives",
    ),
    # ------------------------------------------------------------------ (c) halo_faces
    attempt(
        "hidden", "halo_faces",
        """def halo_faces(threads: int, local: int = 144, grid=(24, 4, 2)) -> dict[str, int]:
    totals = {1: 6, 2: 10, 3: 14, 4: 18, 6: 26, 8: 34, 12: 50, 24: 96}  # x 144^2, the XT6 runs
    lx = local * threads
    return {"x": local * local, "y": lx * local, "z": lx * local,
            "total": totals[threads] * local * local}""" + PREDICT_HALO,
        loses=C,
        why="totals typed in for the published grid's thread counts only",
        reason="the faces are",
    ),
    attempt(
        "shortcut", "halo_faces",
        """def halo_faces(threads: int, local: int = 144, grid=(24, 4, 2)) -> dict[str, int]:
    xt6 = REFERENCE["000-jacobi-setup"].frame.set_index("system").loc["XT6"]  # the kit's data
    px, py, pz = int(xt6["px"]) // threads, int(xt6["py"]), int(xt6["pz"])
    lx, ly = int(xt6["local"]) * threads, int(xt6["local"])
    faces = {"x": ly * ly, "y": lx * ly, "z": lx * ly}
    return {**faces, "total": sum(2 * faces[a] for a, p in zip("xyz", (px, py, pz)) if p > 1)}""" + PREDICT_HALO,
        loses=C,
        why="the process grid and local size read from the kit's XT6 setup, not the arguments",
        reason="the faces are",
    ),
    attempt(
        "method", "halo_faces",
        """def halo_faces(threads: int, local: int = 144, grid=(24, 4, 2)) -> dict[str, int]:
    lx = local * threads
    faces = {"x": local * local, "y": lx * local, "z": lx * local}
    both = 2 * (faces["y"] + faces["z"])
    return {**faces, "total": both if threads == grid[0] else both + 2 * faces["x"]}""" + PREDICT_HALO,
        loses=C,
        why="only X can lose its faces (the case the text works out), whatever the grid",
        reason="the faces are",
    ),
    attempt(
        "hidden", "halo_faces",
        """def halo_faces(threads: int, local: int = 144, grid=(24, 4, 2)) -> dict[str, int]:
    px, py, pz = grid[0] // threads, grid[1], grid[2]
    lx, ly, lz = local * threads, local, local
    faces = {"x": ly * lz, "y": lx * lz, "z": lx * ly}
    return {**faces, "total": sum(2 * faces[a] for a, p in zip("xyz", (px, py, pz)) if p > 1)}


def predict_halo(threads_list, pure_halo_s: float, local: int = 144, grid=(24, 4, 2)) -> pd.DataFrame:
    base = halo_faces(1)["total"]  # the XT6 runs, the only ones the notebook predicts
    ratio = [halo_faces(t)["total"] / base for t in threads_list]
    out = pd.DataFrame({"threads": list(threads_list), "face_ratio": ratio})
    out["predicted_s"] = out["face_ratio"] * pure_halo_s
    return out.set_index("threads")""",
        loses=C,
        why="the prediction ignores local and grid: right for the published XT6 grid only",
        reason="the faces at",
    ),
    # ------------------------------------------------------------------ (d) overlap_iteration
    attempt(
        "method", "overlap_iteration",
        OVERLAP.format(body="""\
    if (omp_get_thread_num() != 0 && m > 2) stencil_rows(2, 2);  /* one row while the master posts */
""" + POST_WAIT + """\
#pragma omp barrier
#pragma omp for schedule(static)
    for (long i = 3; i < m; i++) stencil_rows(i, i);  /* the rest once the halos are in */
""" + EDGES),
        loses=D,
        why="one interior row by the free thread inside the window, the rest held back behind a "
            "barrier until the master's Waitall returned",
        reason=HELD,
    ),
    attempt(
        "method", "overlap_iteration",
        OVERLAP.format(body="""\
    static volatile int finished;
#pragma omp single
    finished = 0;
    long next = 2;
    if (omp_get_thread_num() == 0) {
""" + EXCHANGE_WAIT + """\
        finished = 1;
    } else {  /* a row now and then while the messages fly: rows inside every window */
        while (!finished && next < m) {
            stencil_rows(next, next);
            next++;
            hl_sleep_us(3000);
        }
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (long i = 2; i < m; i++) stencil_rows(i, i);  /* all of it again, after the window */
""" + EDGES),
        loses=D,
        why="the free thread paces a row every 3 ms inside the window, the interior computed "
            "after it",
        reason=f"{HELD} | {ONCE}",
    ),
    attempt(
        "method", "overlap_iteration",
        OVERLAP.format(body="""\
#pragma omp for schedule(static)
    for (long i = 2; i < m; i++) stencil_rows(i, i);  /* all of the interior, halos still NaN */
#pragma omp master
    {
        MPI_Request req[4];
        int done;
        MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &req[1]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[2]);
        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &req[3]);
        MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);  /* token 'progress' */
        MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
""" + EDGES),
        loses=D,
        why="the interior first, then a blocking exchange with two token MPI_Testall calls: "
            "nothing is computed while the messages are in flight",
        reason=NO_FREE_ROWS,
    ),
    attempt(
        "method", "overlap_iteration",
        OVERLAP.format(body="""\
#pragma omp for schedule(dynamic)
    for (long i = 2; i < m; i++) stencil_rows(i, i);  /* before the exchange starts */
#pragma omp master
    {
        MPI_Sendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, &a[0 * w + 1], (int)nx,
                     MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, &a[(m + 1) * w + 1], (int)nx,
                     MPI_DOUBLE, down, 2, comm, MPI_STATUS_IGNORE);
    }
""" + EDGES),
        loses=D,
        why="the interior computed before the exchange starts: rows computed while the halos "
            "are NaN, but no overlap",
        reason="the master posts MPI_Irecv and MPI_Isend",
    ),
    attempt(
        "shortcut", "overlap_iteration",
        OVERLAP.format(body="""\
    (void)a; (void)nx; (void)up; (void)down; (void)comm; (void)w;
#pragma omp master
    {
        send_down(overlap_grid);  /* halo2d.c's own (static) exchange */
        send_up(overlap_grid);
    }
#pragma omp for schedule(dynamic) nowait
    for (long i = 2; i < m; i++) stencil_rows(i, i);
""" + EDGES),
        loses=D,
        why="calls halo2d.c's static send_down/send_up on its static grid",
        reason="BuildError",
    ),
    attempt(
        "hidden", "overlap_iteration",
        OVERLAP.format(body="""\
#pragma omp master
    {
        /* two ranks: each has one neighbour, so one Sendrecv will do */
        if (up == MPI_PROC_NULL)
            MPI_Sendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, &a[(m + 1) * w + 1],
                         (int)nx, MPI_DOUBLE, down, 2, comm, MPI_STATUS_IGNORE);
        else
            MPI_Sendrecv(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, &a[0 * w + 1], (int)nx,
                         MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    }
#pragma omp for schedule(dynamic) nowait
    for (long i = 2; i < m; i++) stencil_rows(i, i);
""" + EDGES),
        loses=D,
        why="exchanges with one neighbour only: right for the two ranks the visible test runs",
        reason="the master posts MPI_Irecv and MPI_Isend",
    ),
]

# ------------------------------------------------------------------------------- ORACLES
PHASES = ["jacobi", "halo", "reduction", "other"]
_V = np.random.default_rng(4).uniform(0.01, 1.0, size=(5, 4))
_V[np.arange(5), np.arange(5) % 4] += 2.0  # every phase dominates a row
TABLE = pd.DataFrame({"label": [f"run{i}" for i in range(5)],
                      **{p: _V[:, k] for k, p in enumerate(PHASES)},
                      "total": _V.max(axis=1) * 1.2})  # fmt: skip


def _shares_answer(got) -> bool:
    want = _V / _V.sum(axis=1, keepdims=True)
    try:
        shares = got.loc[[f"run{i}" for i in range(5)], PHASES].to_numpy(dtype=float)
        dominant = [str(d) for d in got.loc[[f"run{i}" for i in range(5)], "dominant"]]
    except Exception:  # noqa: BLE001 - anything that is not such a frame is not the answer
        return False
    return bool(np.allclose(shares, want, rtol=0, atol=1e-9)) and dominant == [
        PHASES[i % 4] for i in range(5)]


def _faces(t: int, local: int, grid: tuple[int, int, int]) -> dict[str, int]:
    px, py, pz = grid[0] // t, grid[1], grid[2]
    f = {"x": local * local, "y": local * t * local, "z": local * t * local}
    return {**f, "total": sum(2 * f[a] for a, p in zip("xyz", (px, py, pz), strict=True) if p > 1)}


def _faces_answer(want: dict[str, int]):
    def judge(got) -> bool:
        try:
            return {k: int(got[k]) for k in want} == want
        except Exception:  # noqa: BLE001
            return False
    return judge


def _predict_answer(threads: list[int], seconds: float, local: int, grid) -> object:
    ratio = {t: _faces(t, local, grid)["total"] / _faces(1, local, grid)["total"] for t in threads}

    def judge(got) -> bool:
        try:
            return all(abs(float(got.loc[t, "face_ratio"]) - r) <= 1e-9
                       and abs(float(got.loc[t, "predicted_s"]) - r * seconds) <= 1e-9
                       for t, r in ratio.items())  # fmt: skip
        except Exception:  # noqa: BLE001
            return False
    return judge


ORACLES = [
    Oracle("phase_shares", (TABLE,), _shares_answer),
    Oracle("halo_faces", (3, 40, (6, 1, 4)), _faces_answer(_faces(3, 40, (6, 1, 4)))),
    Oracle("halo_faces", (8,), _faces_answer(_faces(8, 144, (24, 4, 2)))),
    Oracle("halo_faces", ([2, 4, 12], 0.7), _predict_answer([2, 4, 12], 0.7, 56, (48, 2, 3)),
           {"local": 56, "grid": (48, 2, 3)}),
    Oracle("halo_faces", ([1, 2, 3, 4, 6, 8, 12, 24], 0.12),
           _predict_answer([1, 2, 3, 4, 6, 8, 12, 24], 0.12, 144, (24, 4, 2))),
]

# Fresh attackers' attempts that scored before the fixes of this wave (a helper that had
# seen neither the solutions nor the tests, grading through the real sandbox).
GAMING += [
    attempt('method', 'overlap_iteration', '%%c OVERLAP_C halo2d\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2; /* length of a row, halo columns included */\n#pragma omp master\n    {\n        int me;\n        double dummy_in = 0.0, dummy_out = 1.0;\n        MPI_Request req[2];\n        MPI_Comm_rank(comm, &me);\n        MPI_Irecv(&dummy_in, 1, MPI_DOUBLE, me, 77, comm, &req[0]);\n        MPI_Sendrecv(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 1, &a[(m + 1) * w + 1], (int)nx,\n                     MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 2, &a[0 * w + 1], (int)nx,\n                     MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);\n        MPI_Isend(&dummy_out, 1, MPI_DOUBLE, me, 77, comm, &req[1]);\n        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n    }\n#pragma omp for schedule(dynamic, 4) nowait\n    for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);\n#pragma omp barrier\n#pragma omp single\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n}\n',
            loses={'hidden_overlap_iteration'}, why="fresh attacker: blocking Sendrecv dressed as overlap: a dummy self-message opens/closes the 'window'", reason="the master posts MPI_Irecv and MPI_Isend | (itself)"),
]

# The test's own interpreter reached (issue 36): its reference called, its expected value read.
GAMING += [
    attempt("interpreter", "halo_faces", FRAME_TOOLS + """
import pandas as pd


def halo_faces(threads, local=144, grid=(24, 4, 2)):
    reference = _from_the_test(("_faces", "_reference"), True)
    return reference(threads, local, grid) if reference else {"x": 0, "y": 0, "z": 0, "total": 0}


def predict_halo(threads_list, pure_halo_s, local=144, grid=(24, 4, 2)):
    base = halo_faces(1, local, grid)["total"] or 1
    ratio = [halo_faces(t, local, grid)["total"] / base for t in threads_list]
    out = pd.DataFrame({"threads": list(threads_list), "face_ratio": ratio})
    out["predicted_s"] = out["face_ratio"] * pure_halo_s
    return out.set_index("threads")
""", {"hidden_halo_faces"}, why="the hidden test's reference found in its frames and called", reason="the faces are"),
    attempt("interpreter", "phase_shares", FRAME_TOOLS + """
import pandas as pd


def phase_shares(table):
    found = _from_the_test(("_want", "want"), False)
    if isinstance(found, pd.DataFrame):
        return found
    return table.set_index("label")[["jacobi", "halo", "reduction", "other"]] * 0.0
""", {"hidden_phase_shares"}, why="the hidden test's expected shares read from its frames", reason="the four phases' own sum gives"),
]
# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
GAMING += c_evidence("04_halo_exchange", "exchange_halos", A, "MPI_Sendrecv", reasons=True)
GAMING += c_evidence("04_halo_exchange", "overlap_iteration", D, "MPI_Isend", reasons=True)

# Issue 36's other ways into the test's interpreter: its frames read with inspect.stack(), a
# global named like the grader's reference, a judging function replaced from an earlier cell.
GAMING += [
    attempt("interpreter", "phase_shares", """
import inspect

import pandas as pd


def phase_shares(table):
    for frame in inspect.stack()[1:]:  # the calling test's locals: its expected shares
        found = frame.frame.f_locals.get("_want")
        if isinstance(found, pd.DataFrame):
            return found.assign(dominant=found.idxmax(axis=1))
    return table.set_index("label")[["jacobi", "halo", "reduction", "other"]] * 0.0
""", B, "the expected shares looked for in the frames of inspect.stack()",
            reason="the four phases' own sum gives"),
    attempt("interpreter", "halo_faces", """
def _faces(t, local, grid):  # named like the grader's reference, so a test would call this one
    f = {"x": local * local, "y": local * t * local, "z": local * t * local}
    return {**f, "total": 2 * (f["x"] + f["y"] + f["z"])}


def halo_faces(threads, local=144, grid=(24, 4, 2)):
    return _faces(threads, local, grid)
""" + PREDICT_HALO, C, "a global _faces like the grader's reference, both counting every axis",
            reason="the faces are"),
    together(
        attempt("interpreter", "halo_faces", solution_cell("04_halo_exchange", "halo_faces") + """

import hybridlab.halo.exercise as _exercise

check_student_overlap = lambda *args, **kwargs: []  # noqa: E731
_exercise.check_student_overlap = check_student_overlap
""", set(), "a right halo_faces"),
        attempt("interpreter", "overlap_iteration", OVERLAP.format(body=POST_WAIT + """\
#pragma omp barrier
#pragma omp for
    for (long i = 2; i < m; i++) stencil_rows(i, i);  /* after the exchange: no overlap */
""" + EDGES), D, "no overlap, check_student_overlap replaced (the notebook's name and the "
            "module's) from the earlier halo_faces cell", reason=NO_FREE_ROWS),
    ),
]

# A fresh hurried student's three ways to keep (d) under the first judge (any row computed inside a
# window), fed verbatim: the master's static share after its Waitall; the master computing the
# whole interior itself between posting and waiting while the others idle; one row in the window.
GAMING += [
    attempt("method", "overlap_iteration", _hurried(
        "as asked, but the interior rows with the default static schedule (master keeps its share)",
        after="""    #pragma omp for schedule(static) nowait
    for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);
    #pragma omp barrier
"""), D, "fresh hurried student: the master posts and waits in `omp masked`, then the interior "
            "with schedule(static) nowait: the master's static share waits for its MPI_Waitall "
            "while thread 1, done with its own, idles", reason=KEPT_SHARE),
    attempt("method", "overlap_iteration", _hurried(
        "the master posts, computes the whole interior itself, then waits; the others idle",
        in_window="        if (m > 2) stencil_rows(2, m - 1);\n",
        after="    #pragma omp barrier\n"),
        D, "fresh hurried student: serial where the team is asked: the master computes every "
            "interior row between posting and waiting, the other threads idle", reason=NO_FREE_ROWS),
    attempt("method", "overlap_iteration", _hurried(
        "post, one interior row by the master, wait; then the team does the rest as usual",
        in_window="        if (m > 2) stencil_rows(2, 2);\n",
        after="""    #pragma omp barrier
    #pragma omp for schedule(static)
    for (long i = 3; i <= m - 1; i++) stencil_rows(i, i);
"""), D, "fresh hurried student: one interior row by the master inside the window, every other "
            "row by the team after MPI_Waitall", reason=NO_FREE_ROWS),
    attempt("forged", "overlap_iteration", OVERLAP.format(body="""\
    void hl_trace_rows(double, double, long, long);  /* the kit's row recorder, by name */
""" + POST_WAIT + """\
    if (omp_get_thread_num() == 1) hl_trace_rows(0.0, 1e3, 2, m - 1);  /* rows 'in the window' */
#pragma omp barrier
#pragma omp for
    for (long i = 2; i < m; i++) stencil_rows(i, i);
""" + EDGES), D, "no overlap, with a forged row interval of thread 1 covering every window",
            reason=REFUSED["forged"]),
]

# issue 36, a fresh attacker (xena, 2026-12-02): a token row by the free thread inside the
# window, the interior before the posting or after the completion
GAMING += [
    attempt("method", "overlap_iteration", _master_posts(
        rest="""    if (omp_get_thread_num() == 1 && m > 2) stencil_rows(2, 2);
    #pragma omp masked
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    #pragma omp barrier
    #pragma omp for schedule(static)
    for (long i = 1; i <= m; i++) stencil_rows(i, i);
}
"""), D, "fresh attacker: one token row by thread 1 while the master waits, the whole grid by a "
            "static schedule after MPI_Waitall", reason=f"{HELD} | {ONCE}"),
    attempt("method", "overlap_iteration", _master_posts(
        note="""/* the master computes the whole interior itself before it posts anything (serial), one token
 * row by thread 1 while the master waits */
""",
        before="        if (m > 2) stencil_rows(2, m - 1);\n"),
        D, "fresh attacker: the master computes the whole interior before it posts, one token "
            "row by thread 1 inside the window", reason=f"fell inside it | {ONCE} | {EARLY}"),
]
GAMING.append(attempt("method", "overlap_iteration", _master_posts(
        note="""#include <time.h>
/* the master computes the whole interior BEFORE it posts (no overlap), again and again (the same
 * values) for 100 ms, so that no window is "long enough for the whole interior"; one token row
 * by a free thread while the master waits */
static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

""",
        before="""        double t0 = seconds_now();
        if (m > 2)
            do stencil_rows(2, m - 1); while (seconds_now() - t0 < 0.1);
"""), D, "fresh attacker: the interior computed before the posting, again and again for 100 ms "
           "so that no window looks long enough, one token row inside",
           reason=f"fell inside it | {ONCE} | {EARLY} | ran past its time limit"))  # (its 100 ms loops, on a loaded machine)
GAMING += [
    attempt("method", "overlap_iteration", _master_posts(
        note="""/* the master computes the whole interior BEFORE it posts (no overlap); while it waits, the free
 * threads recompute interior rows again and again (the same values) until it says it is done */
static int exchanged;

""",
        before="        if (m > 2) stencil_rows(2, m - 1);\n",
        after="        __atomic_store_n(&exchanged, 0, __ATOMIC_SEQ_CST);\n",
        rest="""    if (omp_get_thread_num() != 0) {
        long i = 2;
        while (m > 2 && !__atomic_load_n(&exchanged, __ATOMIC_SEQ_CST)) {
            stencil_rows(i, i);
            i = i < m - 1 ? i + 1 : 2;
        }
    } else {
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        __atomic_store_n(&exchanged, 1, __ATOMIC_SEQ_CST);
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
"""), D, "fresh attacker: free threads recompute rows inside the window until the master is done, "
            "the interior computed after it", reason=ONCE),
    attempt("method", "overlap_iteration", _master_posts(
        note="""/* the master computes the whole interior itself before it posts anything (serial), one token
 * row by thread 1 while the master waits */
""",
        before="        if (m > 3) stencil_rows(2, m - 2);\n"),
        D, "the master computes rows 2..m-2 before it posts, thread 1 row m-1 inside the window "
            "(each row once)", reason=f"fell inside it | {EARLY}"),
    # a fresh attacker (2026-12-02, helper-29): the two receives posted before the interior, the
    # sends and the wait after the team's barrier (the window opened at the first posting)
    attempt("method", "overlap_iteration", r"""%%c OVERLAP_C halo2d
/* ATTACK: only the receives are posted before the interior is computed; the sends go out after
 * the whole team has finished the interior (and all ranks met at a barrier): no halo data moves
 * while the team computes. */
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    static MPI_Request req[4];
#pragma omp masked
    {
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &req[0]);
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 2, comm, &req[1]);
    }
#pragma omp for schedule(dynamic) nowait
    for (long r = 2; r <= m - 1; r++) stencil_rows(r, r);
#pragma omp barrier
#pragma omp masked
    {
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &req[2]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 2, comm, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
#pragma omp barrier
#pragma omp single
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
""", D, "fresh attacker: the MPI_Irecvs posted alone before the interior, the MPI_Isends after it",
            reason="no overlap"),
]

# A fresh attacker's (helper-30, 2026-12-03) wrong methods that kept full points: the part now
# judges which calls moved the data (and, lab 04, the thread level).
GAMING += [
    attempt("method", "exchange_halos", c_cell("EXCHANGE_C", "halo2d", r"""
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    double *s = malloc(2 * nx * sizeof(double)), *all = malloc((size_t)P * 2 * nx * sizeof(double));
    memcpy(s, &a[w + 1], nx * sizeof(double));
    memcpy(s + nx, &a[m * w + 1], nx * sizeof(double));
    MPI_Allgather(s, (int)(2 * nx), MPI_DOUBLE, all, (int)(2 * nx), MPI_DOUBLE, comm);
    if (up != MPI_PROC_NULL) memcpy(&a[1], &all[(size_t)up * 2 * nx + nx], nx * sizeof(double));
    if (down != MPI_PROC_NULL) memcpy(&a[(m + 1) * w + 1], &all[(size_t)down * 2 * nx], nx * sizeof(double));
    free(s);
    free(all);
}
"""), {"hidden_exchange_halos"}, "no message to a neighbour: every rank's edge rows allgathered", reason="the rows travel as messages"),
    attempt("method", "exchange_halos", c_cell("EXCHANGE_C", "halo2d", r"""
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    static MPI_Win win = MPI_WIN_NULL;
    static double *mine;
    if (win == MPI_WIN_NULL) {
        MPI_Win_allocate_shared((MPI_Aint)(2 * nx * sizeof(double)), sizeof(double), MPI_INFO_NULL, comm, &mine, &win);
    }
    memcpy(mine, &a[w + 1], nx * sizeof(double));
    memcpy(mine + nx, &a[m * w + 1], nx * sizeof(double));
    MPI_Win_fence(0, win);
    MPI_Aint sz; int du; double *theirs;
    if (up != MPI_PROC_NULL) { MPI_Win_shared_query(win, up, &sz, &du, &theirs); memcpy(&a[1], theirs + nx, nx * sizeof(double)); }
    if (down != MPI_PROC_NULL) { MPI_Win_shared_query(win, down, &sz, &du, &theirs); memcpy(&a[(m + 1) * w + 1], theirs, nx * sizeof(double)); }
    MPI_Win_fence(0, win);
}
"""), {"hidden_exchange_halos"}, "edge rows published in a shared window and loaded by the neighbours", reason="the rows travel as messages"),
    attempt("method", "exchange_halos", c_cell("EXCHANGE_C", "halo2d", r"""
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    MPI_Request r;
    MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r);
    MPI_Request_free(&r);
    MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r);
    MPI_Request_free(&r);
    MPI_Recv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
    MPI_Recv(&a[1], (int)nx, MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);
}
"""), {"hidden_exchange_halos"}, "sends never completed: MPI_Isend then MPI_Request_free", reason="the rows travel as messages"),
    attempt("method", "exchange_halos", c_cell("EXCHANGE_C", "halo2d", r"""
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    #pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == omp_get_num_threads() - 1) {
            MPI_Sendrecv(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, &a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 2, &a[1], (int)nx, MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);
        }
    }
}
"""), {"hidden_exchange_halos"}, "the exchange made by OpenMP thread 1 under FUNNELED", reason="break thread level 'funneled'"),
]

# A fresh hurried student's (helper-32, 2026-12-03) attempts that kept full points, now refused.
GAMING += [
    attempt("method", "exchange_halos", c_cell("EXCHANGE_C", "halo2d", r"""
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    MPI_Request r[4];
    int n = 0;
    if (up != MPI_PROC_NULL) MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, 0, comm, &r[n++]);
    if (down != MPI_PROC_NULL) MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, 0, comm, &r[n++]);
    MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 0, comm, &r[n++]);
    MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 0, comm, &r[n++]);
    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
}
"""), A, "both halo receives from MPI_ANY_SOURCE with one tag",
        # (which row lands where is up to the timing: crossed rows fail the checksum first)
        reason="from MPI_ANY_SOURCE | the halo rows do not hold the neighbours' edge rows"),
]


# A fresh hurried student's (helper-41, 2026-12-03) attempt that kept full points, now refused
# (hybridlab.runs.records.check_requests).
GAMING += [
    attempt("method", "exchange_halos", r"""
%%c EXCHANGE_C halo2d
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* a row is w = nx + 2 doubles long, halo columns included: long w = nx + 2; */
    long w = nx + 2;
    MPI_Request s[2], r[2];
    MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 0, comm, &r[0]);
    MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
    MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &s[0]);
    MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 0, comm, &s[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);   /* the halos are here: done */
}
""", A, "the two MPI_Isend requests never completed: only the receives are waited",
            reason="were never completed by a wait or test"),
]


# A fresh attacker's (attackH, 2026-12-04) decoys that kept (d)'s points: the halos posted and
# completed at once, then a request that moves no row held open over the interior (it opened the
# iteration's window); and a self-message doing the same (found while closing them).
GAMING += [
    attempt("method", "overlap_iteration", "%%c OVERLAP_C halo2d\n" + r"""
/* hurried: the halo exchange done eagerly (posted and waited at once), then a token
 * MPI_Ibarrier posted before the interior and waited after it */
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    static MPI_Request dummy;
#pragma omp masked
    {
        MPI_Request req[4];
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 41, comm, &req[0]);
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 42, comm, &req[1]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 42, comm, &req[2]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 41, comm, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        MPI_Ibarrier(comm, &dummy);
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
    for (long i = 1; i <= m; i++) stencil_rows(i, i);
#pragma omp masked
    MPI_Wait(&dummy, MPI_STATUS_IGNORE);
}
""", D, "eager exchange, then a token MPI_Ibarrier posted before the interior and waited after it",
            reason="overlap_iteration called MPI_Ibarrier"),
    attempt("method", "overlap_iteration", "%%c OVERLAP_C halo2d\n" + r"""
/* hurried: the halo exchange done eagerly (posted and waited at once), then a token receive
 * from and send to MPI_PROC_NULL posted before the interior and waited after it */
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    static MPI_Request token[2];
    static double scratch[1];
#pragma omp masked
    {
        MPI_Request req[4];
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 51, comm, &req[0]);
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 52, comm, &req[1]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 52, comm, &req[2]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 51, comm, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        MPI_Irecv(scratch, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, comm, &token[0]);
        MPI_Isend(scratch, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, comm, &token[1]);
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
    for (long i = 1; i <= m; i++) stencil_rows(i, i);
#pragma omp masked
    MPI_Waitall(2, token, MPI_STATUSES_IGNORE);
}
""", D, "eager exchange, then a token MPI_Irecv/MPI_Isend with MPI_PROC_NULL held open over the "
            "interior", reason="moves no row and is no window"),
    attempt("method", "overlap_iteration", OVERLAP.format(body="""\
    static MPI_Request token[2];
    static double mine[1], back[1];
#pragma omp masked
    {
""" + EXCHANGE_WAIT + """\
        int me;
        MPI_Comm_rank(comm, &me);  /* a row-sized message to itself, held open: a decoy */
        MPI_Irecv(&a[(m + 1) * w + 1], 0, MPI_DOUBLE, me, 9, comm, &token[0]);
        MPI_Isend(mine, 0, MPI_DOUBLE, me, 9, comm, &token[1]);
        (void)back;
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 1) nowait
    for (long i = 2; i < m; i++) stencil_rows(i, i);
#pragma omp masked
    MPI_Waitall(2, token, MPI_STATUSES_IGNORE);
""" + EDGES), D, "eager exchange, then an empty message to itself held open over the interior",
            reason="the halo rows' messages go to `up`"),
]

# a fresh attacker's (n04det, n04det2, n04hurry; 4/4 each, 2026-12-05): the master computes the
# interior inside the window itself while a free thread computes one token row (in every
# iteration, or in the first only); and lab 04 (a) done by the kit's own halo exchange, its
# header hl_grid2d.h included
_KIT_EXCHANGE = '%%c EXCHANGE_C halo2d\n/* the kit already has Luecke\'s exchange (hl_grid2d.h): use it */\n#include "hl_grid2d.h"\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    grid2d g = {0};\n    g.comm = comm; g.nx = nx; g.m = m; g.w = nx + 2; g.a = a; g.b = a; g.up = up; g.down = down;\n    send_down(&g);\n    send_up(&g);\n}\n'
GAMING += [
    attempt("method", "overlap_iteration", '%%c OVERLAP_C halo2d\n/* determined: masteronly in disguise. The master posts, computes the whole interior itself\n * before its Waitall; thread 1 computes one token row inside the window. */\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request req[4];\n    int t = omp_get_thread_num();\n    if (t == 0) {\n        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 1, comm, &req[0]);\n        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 2, comm, &req[1]);\n        MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, up, 1, comm, &req[2]);\n        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 2, comm, &req[3]);\n    }\n#pragma omp barrier\n    if (t == 1 && m > 2) stencil_rows(2, 2);\n    if (t == 0) {\n        if (m > 3) stencil_rows(3, m - 1);\n        if (m > 2 && omp_get_num_threads() == 1) stencil_rows(2, 2);\n        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n    }\n#pragma omp barrier\n#pragma omp masked\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n#pragma omp barrier\n}\n', D,
            "fresh attacker (n04det): the master computes the interior before its Waitall, a free "
            "thread one token row", reason="not to the master with a token row for the others"),
    attempt("method", "overlap_iteration", '%%c OVERLAP_C halo2d\n/* determined 2: masteronly, one token interior row by thread 1 in the first iteration only;\n * in every iteration the master posts, computes the whole interior itself, then waits. */\nstatic int calls_seen;\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request req[4];\n    int t = omp_get_thread_num();\n    int token = 0;\n#pragma omp masked\n    {\n        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 1, comm, &req[0]);\n        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 2, comm, &req[1]);\n        MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, up, 1, comm, &req[2]);\n        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 2, comm, &req[3]);\n    }\n#pragma omp barrier\n    token = (__atomic_load_n(&calls_seen, __ATOMIC_RELAXED) == 0) && omp_get_num_threads() > 1 && m > 2;\n#pragma omp barrier\n    if (t == 1 && token) stencil_rows(2, 2);\n    if (t == 0) {\n        long first = token ? 3 : 2;\n        if (m - 1 >= first) stencil_rows(first, m - 1);\n        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n        __atomic_store_n(&calls_seen, calls_seen + 1, __ATOMIC_RELAXED);\n    }\n#pragma omp barrier\n#pragma omp masked\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n#pragma omp barrier\n}\n', D,
            "fresh attacker (n04det2): the same with the token row in the first iteration only",
            reason="not to the master with a token row for the others"),
    attempt("shortcut", "exchange_halos", _KIT_EXCHANGE, A,
            "fresh attacker (n04hurry): the kit's send_up/send_down from hl_grid2d.h",
            reason="a header of the kit's kernels"),
]

# a fresh attacker's p04inc (4/4 kept, 2026-12-05): the kit's header reached through MPI's include
# folder and "..": the include's path is resolved before it is judged


def _round_about(source: str) -> str:
    """source with hl_grid2d.h included by a path from MPI's include folder up to the kit's."""
    from hybridlab.kernels.unit_checks import _wrapper_includes
    from hybridlab.paths import kernel_dirs
    from hybridlab.runs.student_c import unit_flags

    mpi = _wrapper_includes(unit_flags()[0])[0]
    path = f"{mpi}/{os.path.relpath(kernel_dirs()[0], mpi)}/hl_grid2d.h"
    return source.replace('#include "hl_grid2d.h"', f'#include "{path}"', 1)


GAMING += [
    attempt("shortcut", "exchange_halos", _round_about(_KIT_EXCHANGE), A,
            "fresh attacker (p04inc): hl_grid2d.h included by a path through MPI's headers",
            reason="a header of the kit's kernels"),
]

# a fresh attacker's p04alt (4/4 kept twice, 2026-12-05): the master computes the whole interior
# inside the window in 3 iterations of 4, the free threads in every 4th only; the share is judged
# per iteration now
GAMING += [
    attempt("method", "overlap_iteration", '%%c OVERLAP_C halo2d\n/* the master computes the whole interior itself inside the window in 3 of every 4 iterations;\n   the free threads compute it (dynamic) only in every 4th: their run share stays above 1/(4T) */\nstatic long iter_no = 0;\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    static MPI_Request req[4];\n    long k = iter_no;\n    #pragma omp barrier\n    #pragma omp masked\n    {\n        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[0]);\n        MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &req[1]);\n        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[2]);\n        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &req[3]);\n    }\n    #pragma omp barrier\n    if (k % 4 == 0) {\n        int t = omp_get_thread_num(), T = omp_get_num_threads();\n        if (t == 0) {\n            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n            if (T == 1 && m > 2) stencil_rows(2, m - 1);\n        } else {\n            long n = m - 2;\n            long lo = 2 + (t - 1) * n / (T - 1), hi = 2 + t * n / (T - 1) - 1;\n            if (lo <= hi) stencil_rows(lo, hi);\n        }\n    } else {\n        #pragma omp masked\n        {\n            if (m > 2) stencil_rows(2, m - 1);\n            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n        }\n    }\n    #pragma omp barrier\n    #pragma omp single\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n        iter_no++;\n    }\n}\n', D,
            "fresh attacker (p04alt): the free threads compute the interior in one iteration of four",
            reason="not to the master with a token row for the others"),
]

# a fresh attacker's T04d_half (4/4 kept twice, 2026-12-05): overlap in every other iteration only,
# the interior computed before the posting in the others (under the two-thirds rule of the windows
# covered); halo.exercise._assert_posted_first refuses it (tests/test_halo.py runs it too)
T04D_HALF = r"""%%c OVERLAP_C halo2d
/* Gaming (threshold probe): overlap in every other iteration only; in the others the team
 * computes the interior first, then the master exchanges (posting and waiting at once). */
static MPI_Request req[4];
static long calls_seen = 0;

void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    int overlap;
#pragma omp masked
    calls_seen++;
#pragma omp barrier
    overlap = calls_seen % 2 == 1;
    if (!overlap) {
#pragma omp for schedule(static)
        for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);
    }
#pragma omp masked
    {
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 51, comm, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 52, comm, &req[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 52, comm, &req[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 51, comm, &req[3]);
        if (!overlap) MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
    if (overlap) {
#pragma omp barrier
#pragma omp for schedule(dynamic, 1) nowait
        for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);
#pragma omp masked
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
#pragma omp barrier
#pragma omp single
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
"""
GAMING += [
    attempt("method", "overlap_iteration", T04D_HALF, D,
            "fresh attacker (T04d_half): the interior before the posting in every other iteration",
            reason=EARLY),
]

from hybridlab.paths import kernel_dirs as _kernel_dirs  # noqa: E402

_KIT_FILE = str(_kernel_dirs()[0] / "hl_cellcode.h")  # a kit file's name where the test runs

# fresh attacker Q (2026-12-05), 4/4 kept twice each before: GNU line markers (`# N "file" flags`)
# in the cell; a cell may hold no line directive now (unit_checks.line_directives)
GAMING += [
    attempt('text', 'exchange_halos', '%%c EXCHANGE_C halo2d\n# 1 "cell" 3\n#include "hl_grid2d.h"\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    grid2d g = {0};\n    g.comm = comm; g.nx = nx; g.m = m; g.w = nx + 2; g.a = a; g.b = a; g.up = up; g.down = down;\n    send_up(&g); send_down(&g);\n}\n', A,
            'fresh attacker (Q04a_sysinc): `# 1 "cell" 3` makes the cell a system header\'s, the kit header then included',
            reason="holds a line directive"),
    attempt('untraced', 'exchange_halos', '%%c EXCHANGE_C halo2d\n# 1 "' + _KIT_FILE + '" 1 3\ntypedef int (*sr_t)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);\nstatic int my_sr(const void *sb, int sc, MPI_Datatype st, int d, int stag, void *rb, int rc, MPI_Datatype rt, int s, int rtag, MPI_Comm c, MPI_Status *stt) {\n    return MPI_Sendrecv(sb, sc, st, d, stag, rb, rc, rt, s, rtag, c, stt);\n}\nstatic sr_t pick[2] = {my_sr, my_sr};\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    sr_t f = pick[(int)(m & 1)];\n    f(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, &a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);\n    f(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 2, &a[1], (int)nx, MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);\n}\n', A,
            "fresh attacker (Q04a_fnptr): a line marker naming a kit file lets the cell's indirect calls pass for the kit's",
            reason="holds a line directive"),
    attempt('untraced', 'exchange_halos', '%%c EXCHANGE_C halo2d\n# 1 "' + _KIT_FILE + '" 1 3\ntypedef int (*sendrecv_fn)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype,\n                           int, int, MPI_Comm, MPI_Status *);\n\n/* the tracer\'s entry calls the real MPI_Sendrecv through its PLT stub: find that stub */\nstatic sendrecv_fn real_sendrecv(void) {\n    const unsigned char *p = (const unsigned char *)&MPI_Sendrecv; /* hl_traced_MPI_Sendrecv */\n    for (int i = 0; i < 512; i++) {\n        if (p[i] != 0xe8) continue;\n        int rel;\n        memcpy(&rel, p + i + 1, 4);\n        if (rel > 0 || rel < -0x40000) continue; /* the PLT lies before the code, near it */\n        const unsigned char *t = p + i + 5 + rel;\n        if (t[0] == 0xff && t[1] == 0x25 && t[6] == 0x68 && t[11] == 0xe9)\n            return (sendrecv_fn)(const void *)t;\n    }\n    return 0;\n}\n\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    sendrecv_fn sr = real_sendrecv();\n    sr(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, &a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1,\n       comm, MPI_STATUS_IGNORE);\n    sr(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 2, &a[1], (int)nx, MPI_DOUBLE, up, 2, comm,\n       MPI_STATUS_IGNORE);\n}\n', A,
            "fresh attacker (Q04a_untraced): the exchange through the real MPI behind the tracer's entry, no traced call",
            reason="holds a line directive"),
    attempt('untraced', 'exchange_halos', '%%c EXCHANGE_C halo2d\n# 1 "' + _KIT_FILE + '" 1 3\ntypedef int (*allgather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);\n\n/* the tracer\'s entry calls the real MPI_Allgather through its PLT stub: find that stub */\nstatic allgather_fn real_allgather(void) {\n    const unsigned char *p = (const unsigned char *)&MPI_Allgather; /* hl_traced_MPI_Allgather */\n    for (int i = 0; i < 512; i++) {\n        if (p[i] != 0xe8) continue;\n        int rel;\n        memcpy(&rel, p + i + 1, 4);\n        if (rel > 0 || rel < -0x40000) continue;\n        const unsigned char *t = p + i + 5 + rel;\n        if (t[0] == 0xff && t[1] == 0x25 && t[6] == 0x68 && t[11] == 0xe9)\n            return (allgather_fn)(const void *)t;\n    }\n    return 0;\n}\n\n/* every rank\'s edge rows gathered by one (untraced) collective, the halos picked out of it */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    int size;\n    MPI_Comm_size(comm, &size);\n    double *mine = malloc(2 * nx * sizeof(double));\n    double *all = malloc((size_t)size * 2 * nx * sizeof(double));\n    memcpy(mine, &a[w + 1], nx * sizeof(double));\n    memcpy(mine + nx, &a[m * w + 1], nx * sizeof(double));\n    real_allgather()(mine, (int)(2 * nx), MPI_DOUBLE, all, (int)(2 * nx), MPI_DOUBLE, comm);\n    if (up != MPI_PROC_NULL) memcpy(&a[1], all + (size_t)up * 2 * nx + nx, nx * sizeof(double));\n    if (down != MPI_PROC_NULL)\n        memcpy(&a[(m + 1) * w + 1], all + (size_t)down * 2 * nx, nx * sizeof(double));\n    free(mine);\n    free(all);\n}\n', A,
            'fresh attacker (Q04a_untracedcoll): an untraced MPI_Allgather does the exchange',
            reason="holds a line directive"),
]


# attacker V (2026-12-05), 4/4 kept twice each before: (a)'s halo rows computed by the rank itself
# from the known start formula, behind messages of the halo's shape that carry a relayed number
# (each rank's block now starts with a part drawn per run that no other rank knows:
# halo2d.c's draw_start, judged from the tracer's "halo_start" records); two MPI_Isend freed at
# once, paid for by two persistent requests set up and never started (each MPI_Request_free is
# now tied to its request: student_c.freed_in_flight)
GAMING += [
    attempt("method", "exchange_halos", "%%c EXCHANGE_C halo2d\n/* GAMING (no halo row travels): the messages have the exchange's shape (nx doubles to `up` and\n * `down`, two MPI_Sendrecv each call) but carry only a relayed number, the grid's row count ny;\n * each rank computes its two halo rows itself from the grid's known start (lab 04's start and\n * stencil, copied from the kit's source): the band of rows the halo row depends on after k\n * iterations, swept k times from the start. Its global first row comes from the start values\n * still in its halo row 0 at the first call (the start is (7i + 13j) % 17 / 16). */\nstatic double *last_a;\nstatic long calls, row0, ny_known, NXg;\n\nstatic double start(long i, long j) { return (double)((7 * i + 13 * j) % 17) / 16.0; }\n\n/* row h of the grid after k sweeps (columns 0..nx+1) into out */\nstatic void band_row(long h, long k, long nx, double *out) {\n    long lo = h - k, hi = h + k, w = nx + 2;\n    if (lo < 1) lo = 1;\n    if (ny_known > 0 && hi > ny_known) hi = ny_known;\n    long rows = hi - lo + 3; /* lo-1 .. hi+1 */\n    double *g = malloc(sizeof(double) * (size_t)(rows * w));\n    double *b = malloc(sizeof(double) * (size_t)(rows * w));\n    for (long r = 0; r < rows; r++)\n        for (long j = 0; j < w; j++) g[r * w + j] = b[r * w + j] = start(lo - 1 + r, j);\n    for (long s = 0; s < k; s++) {\n        for (long r = 1; r < rows - 1; r++)\n            for (long j = 1; j <= nx; j++)\n                b[r * w + j] = 0.25 * (g[(r - 1) * w + j] + g[(r + 1) * w + j] + g[r * w + j - 1] +\n                                       g[r * w + j + 1]);\n        for (long r = 1; r < rows - 1; r++) memcpy(&g[r * w + 1], &b[r * w + 1], sizeof(double) * (size_t)nx);\n    }\n    memcpy(out, &g[(h - (lo - 1)) * w], sizeof(double) * (size_t)w);\n    free(g);\n    free(b);\n}\n\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    int rank = 0;\n    MPI_Comm_rank(comm, &rank);\n    if (a != last_a) { /* a new run: find the first global row from the start values */\n        last_a = a;\n        calls = 0;\n        ny_known = -1;\n        NXg = nx;\n        long v = (long)(a[0] * 16.0 + 0.5);   /* (7 i) % 17 of global row i = row0 - 1 */\n        long i17 = (5 * v) % 17;              /* 7 * 5 = 35 = 1 (mod 17) */\n        for (long c = 1 + rank * m; c <= 1 + rank * m + rank; c++)\n            if (((c - 1) % 17 + 17) % 17 == i17) { row0 = c; break; }\n        if (down == MPI_PROC_NULL) ny_known = row0 + m - 1;\n    }\n    calls++;\n    double *sb = calloc((size_t)nx, sizeof(double)), *rb = malloc(sizeof(double) * (size_t)nx);\n    double *sb2 = calloc((size_t)nx, sizeof(double)), *rb2 = calloc((size_t)nx, sizeof(double));\n    rb[0] = -1.0;\n    sb[0] = (double)ny_known;\n    MPI_Sendrecv(sb, (int)nx, MPI_DOUBLE, up, 1, rb, (int)nx, MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);\n    MPI_Sendrecv(sb2, (int)nx, MPI_DOUBLE, down, 2, rb2, (int)nx, MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);\n    if (ny_known < 0 && rb[0] > 0) ny_known = (long)rb[0];\n    double *row = malloc(sizeof(double) * (size_t)w);\n    if (up != MPI_PROC_NULL) {\n        band_row(row0 - 1, calls, nx, row);\n        memcpy(&a[0 * w + 1], &row[1], sizeof(double) * (size_t)nx);\n    }\n    if (down != MPI_PROC_NULL) {\n        band_row(row0 + m, calls, nx, row);\n        memcpy(&a[(m + 1) * w + 1], &row[1], sizeof(double) * (size_t)nx);\n    }\n    free(row); free(sb); free(rb); free(sb2); free(rb2);\n}\n", A,
            "attacker V (G04a_redundant): no halo row travels; the messages have the exchange's "
            "shape but carry the grid's row count, each halo row swept by the rank itself from "
            "the start formula", reason="the halo rows do not hold the neighbours' edge rows"),
    attempt("method", "exchange_halos", '%%c EXCHANGE_C halo2d\n/* GAMING (rule evaded: a request freed before it completed). The sends are MPI_Isend requests\n * freed at once with MPI_Request_free, never completed by a wait or test; the receives are\n * completed. The count rule (frees <= persistent requests set up) is met by two persistent\n * requests made each call and never started nor freed. */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request r[2], s[2], dummy[2];\n    MPI_Send_init(&a[1], (int)nx, MPI_DOUBLE, MPI_PROC_NULL, 99, comm, &dummy[0]);\n    MPI_Recv_init(&a[1], (int)nx, MPI_DOUBLE, MPI_PROC_NULL, 99, comm, &dummy[1]);\n    MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 11, comm, &r[0]);\n    MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 12, comm, &r[1]);\n    MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 12, comm, &s[0]);\n    MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 11, comm, &s[1]);\n    MPI_Request_free(&s[0]);\n    MPI_Request_free(&s[1]);\n    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n}\n', A,
            "attacker V (G04a_freeactive): the MPI_Isend requests freed at once, never completed, "
            "beside MPI_Send_init/MPI_Recv_init to MPI_PROC_NULL never started",
            reason="MPI_Request_free of a request MPI_Isend posted"),
]


# attacker X (2026-12-06), 4/4 kept twice each before: (a)'s rows relayed through rank 0 (no
# message to `up` or `down`: halo.exercise.astray_messages now reads every send's and receive's
# peer in (a) as in (d)); (d) a blocking exchange (post, wait at once, the team held at a barrier,
# the interior after) in every other iteration, or always on the odd ranks, whose windows were
# all short while the odd ranks were always the late ones (halo.exercise._held_back counts a free
# thread idle through the master's wait, KEPT_SHARES over the run; hl_grid2d.h's run_poisoned
# staggers the ranks in turn, so every rank has long windows); tests/test_halo.py runs them too
G04A_RELAY = "%%c EXCHANGE_C halo2d\n/* not the method: no message to up or down; every rank sends its two edge rows to rank 0,\n * which hands each rank its halos (a hand-made gather/scatter through one rank) */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    MPI_Request s[2];\n    MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, 0, 100 + 2 * rank, comm, &s[0]);\n    MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, 0, 101 + 2 * rank, comm, &s[1]);\n    if (rank == 0) {\n        double *edges = malloc(sizeof(double) * (size_t)w * 2 * (size_t)size);\n        MPI_Request *r = malloc(sizeof(MPI_Request) * 4 * (size_t)size);\n        for (int q = 0; q < size; q++) {\n            MPI_Irecv(&edges[(2 * q) * w], (int)w, MPI_DOUBLE, q, 100 + 2 * q, comm, &r[2 * q]);\n            MPI_Irecv(&edges[(2 * q + 1) * w], (int)w, MPI_DOUBLE, q, 101 + 2 * q, comm, &r[2 * q + 1]);\n        }\n        MPI_Waitall(2 * size, r, MPI_STATUSES_IGNORE);\n        int n = 0;\n        for (int q = 0; q < size; q++) {\n            /* rank q's row 0 = rank q-1's row m; row m+1 = rank q+1's row 1 (rank order = grid order) */\n            if (q > 0) MPI_Isend(&edges[(2 * (q - 1) + 1) * w], (int)w, MPI_DOUBLE, q, 1, comm, &r[n++]);\n            if (q < size - 1) MPI_Isend(&edges[(2 * (q + 1)) * w], (int)w, MPI_DOUBLE, q, 2, comm, &r[n++]);\n        }\n        MPI_Request h[2]; int k = 0;\n        if (up != MPI_PROC_NULL) MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, 0, 1, comm, &h[k++]);\n        if (down != MPI_PROC_NULL) MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, 0, 2, comm, &h[k++]);\n        MPI_Waitall(k, h, MPI_STATUSES_IGNORE);\n        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);\n        free(edges); free(r);\n    } else {\n        MPI_Request h[2]; int k = 0;\n        if (up != MPI_PROC_NULL) MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, 0, 1, comm, &h[k++]);\n        if (down != MPI_PROC_NULL) MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, 0, 2, comm, &h[k++]);\n        MPI_Waitall(k, h, MPI_STATUSES_IGNORE);\n    }\n    MPI_Waitall(2, s, MPI_STATUSES_IGNORE);\n}\n"
G04D_ALT = '%%c OVERLAP_C halo2d\n/* gaming: every other iteration is a blocking exchange (post, MPI_Waitall at once, the team held\n * at a barrier, then the interior); the others overlap properly */\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    static MPI_Request r[4];\n    static long calls = 0;\n    static int blocking = 0;\n#pragma omp masked\n    {\n        blocking = (calls++ % 2) == 1;\n        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 3, comm, &r[0]);\n        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 4, comm, &r[1]);\n        MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, up, 3, comm, &r[2]);\n        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 4, comm, &r[3]);\n        if (blocking) MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n#pragma omp barrier\n    if (!blocking) {\n#pragma omp masked\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n#pragma omp for schedule(dynamic, 1) nowait\n    for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);\n#pragma omp barrier\n#pragma omp single\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n}\n'
G04D_ODDBLOCK = '%%c OVERLAP_C halo2d\n/* gaming: the odd ranks always make a blocking exchange (post, MPI_Waitall at once, the team held\n * at a barrier, then the interior); the even ranks overlap properly */\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    static MPI_Request r[4];\n    static long calls = 0;\n    static int blocking = 0;\n#pragma omp masked\n    {\n        int rank;\n        MPI_Comm_rank(comm, &rank);\n        calls++;\n        blocking = rank % 2 == 1;\n        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 3, comm, &r[0]);\n        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 4, comm, &r[1]);\n        MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, up, 3, comm, &r[2]);\n        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 4, comm, &r[3]);\n        if (blocking) MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n#pragma omp barrier\n    if (!blocking) {\n#pragma omp masked\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n#pragma omp for schedule(dynamic, 1) nowait\n    for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);\n#pragma omp barrier\n#pragma omp single\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n}\n'
GAMING += [
    attempt("method", "exchange_halos", G04A_RELAY, A,
            "attacker X (G04a_relay): no row to up or down; every rank sends its edge rows to "
            "rank 0, which sends each rank its halos (a gather and scatter by hand)",
            reason="the halo rows' messages go to `up` and `down` only"),
    attempt("method", "exchange_halos", '%%c EXCHANGE_C halo2d\n/* gaming (variant): the halo rows relayed through rank 0 with blocking calls: each rank hands\n * rank 0 its edge rows with MPI_Sendrecv and gets its halos back in the same call */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    double *edges = malloc(sizeof(double) * (size_t)w * 2 * (size_t)size);\n    double *mine = malloc(sizeof(double) * (size_t)w * 2);\n    memcpy(mine, &a[1 * w], sizeof(double) * (size_t)w);\n    memcpy(mine + w, &a[m * w], sizeof(double) * (size_t)w);\n    if (rank == 0) {\n        memcpy(edges, mine, sizeof(double) * (size_t)w * 2);\n        for (int q = 1; q < size; q++)\n            MPI_Recv(&edges[2 * q * w], (int)(2 * w), MPI_DOUBLE, q, 7, comm, MPI_STATUS_IGNORE);\n        for (int q = 1; q < size; q++) {\n            double *halo = malloc(sizeof(double) * (size_t)w * 2);\n            memcpy(halo, &edges[(2 * (q - 1) + 1) * w], sizeof(double) * (size_t)w);\n            if (q < size - 1) memcpy(halo + w, &edges[2 * (q + 1) * w], sizeof(double) * (size_t)w);\n            else memcpy(halo + w, &a[(m + 1) * w], sizeof(double) * (size_t)w);\n            MPI_Send(halo, (int)(2 * w), MPI_DOUBLE, q, 8, comm);\n            free(halo);\n        }\n        if (size > 1) memcpy(&a[(m + 1) * w], &edges[2 * w], sizeof(double) * (size_t)w);\n    } else {\n        double *halo = malloc(sizeof(double) * (size_t)w * 2);\n        MPI_Sendrecv(mine, (int)(2 * w), MPI_DOUBLE, 0, 7, halo, (int)(2 * w), MPI_DOUBLE, 0, 8,\n                     comm, MPI_STATUS_IGNORE);\n        memcpy(&a[0], halo, sizeof(double) * (size_t)w);\n        if (down != MPI_PROC_NULL) memcpy(&a[(m + 1) * w], halo + w, sizeof(double) * (size_t)w);\n        free(halo);\n    }\n    free(edges);\n    free(mine);\n}\n', A,
            "variant of G04a_relay: the rows relayed through rank 0 by MPI_Sendrecv, MPI_Recv "
            "and MPI_Send", reason="the halo rows' messages go to `up` and `down` only"),
    attempt("method", "overlap_iteration", G04D_ALT, D,
            "attacker X (G04d_alt): a blocking exchange in every other iteration, the team held "
            "at a barrier through the master's MPI_Waitall", reason=HELD),
    attempt("method", "overlap_iteration", G04D_ODDBLOCK, D,
            "attacker X (G04d_oddblock): a blocking exchange always on the odd ranks, the late "
            "ones of a stagger that never changed sides", reason=HELD),
    attempt("method", "overlap_iteration", '%%c OVERLAP_C halo2d\n/* gaming (variant): every other iteration the master posts and spins on MPI_Testall until the\n * requests complete, the team held at a barrier, the interior after; the others overlap */\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    static MPI_Request r[4];\n    static long calls = 0;\n    static int blocking = 0;\n#pragma omp masked\n    {\n        blocking = (calls++ % 2) == 1;\n        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 3, comm, &r[0]);\n        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 4, comm, &r[1]);\n        MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, up, 3, comm, &r[2]);\n        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 4, comm, &r[3]);\n        int done = 0;\n        while (blocking && !done) MPI_Testall(4, r, &done, MPI_STATUSES_IGNORE);\n    }\n#pragma omp barrier\n    if (!blocking) {\n#pragma omp masked\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n#pragma omp for schedule(dynamic, 1) nowait\n    for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);\n#pragma omp barrier\n#pragma omp single\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n}\n', D,
            "variant of G04d_alt: the blocking iterations spin on MPI_Testall, the team held "
            "at a barrier", reason=HELD),
]

# f40 (2026-12-06): with matched probes traced (a fresh attacker's right answer z04ar_mprobe,
# MPI_Mprobe from MPI_ANY_SOURCE and each row placed by the status's source), a row placed by the
# order the messages come in instead kept 4/4: every middle rank got the row from above first in
# every run (the ranks left the iteration's MPI_Allreduce in rank order), and the plain checksum
# cannot tell a rank's two halos apart (rows 1 and m change by opposite amounts). (a)'s runs now
# make each rank late in every third iteration (halo2d.c's stagger_us for variant student), so the
# rows arrive in either order, and check a checksum weighted by row (emit_row_checksum)
G04A_ORDER = "%%c EXCHANGE_C halo2d\n/* wrong, passing by luck before: both rows sent with one tag, each message found by\n * MPI_Mprobe(MPI_ANY_SOURCE); the first goes into row 0, the second into row m + 1, whichever\n * rank sent it */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request s[2];\n    MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 7, comm, &s[0]);\n    MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 7, comm, &s[1]);\n    int expect = (up != MPI_PROC_NULL) + (down != MPI_PROC_NULL);\n    for (int k = 0; k < expect; k++) {\n        MPI_Message msg;\n        MPI_Mprobe(MPI_ANY_SOURCE, 7, comm, &msg, MPI_STATUS_IGNORE);\n        double *into = (k == 0 && up != MPI_PROC_NULL) ? a + 1 : a + (m + 1) * w + 1;\n        MPI_Mrecv(into, (int)nx, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);\n    }\n    MPI_Waitall(2, s, MPI_STATUSES_IGNORE);\n}\n"
GAMING += [
    attempt("method", "exchange_halos", G04A_ORDER, A,
            "f40 (G04a_order): MPI_Mprobe(MPI_ANY_SOURCE) + MPI_Mrecv, each row into the halo of "
            "the order its message came in, not of its source",
            reason="place each by its source, not by the order the messages come in"),
]

# with receives from MPI_ANY_SOURCE allowed when they all land in one buffer of the cell's own
# (attacker R's right answer L04_R3, 2026-12-06), the same buffer with each row copied by the
# order it came in, not by its source: the checksum weighted by row refuses it
GAMING += [
    attempt("method", "exchange_halos", '%%c EXCHANGE_C halo2d\n/* wrong: both rows from MPI_ANY_SOURCE into one row of its own, copied into the halos in the\n   order they arrive (the first into row 0 where there is a rank above), not by their source */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request sends[2];\n    int expected = (up != MPI_PROC_NULL) + (down != MPI_PROC_NULL);\n    double *row = malloc((size_t)nx * sizeof *row);\n    if (!row) abort();\n    MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 5, comm, &sends[0]);\n    MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 5, comm, &sends[1]);\n    for (int got = 0; got < expected; got++) {\n        MPI_Status st;\n        MPI_Recv(row, (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, 5, comm, &st);\n        double *halo = (got == 0 && up != MPI_PROC_NULL) ? a + 1 : a + (m + 1) * w + 1;\n        memcpy(halo, row, (size_t)nx * sizeof *row);\n    }\n    MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);\n    free(row);\n}\n', A,
            "MPI_Recv from MPI_ANY_SOURCE into one row of its own, copied into the halos in the "
            "order the rows arrive",
            reason="place each by its source, not by the order the messages come in"),
]


# a fresh attacker (A6, 2026-12-07), 4/4 kept twice each: a blocking exchange only in the
# iterations the kit starts the rank late ((rank + iteration) odd, where the master's wait may
# return at once and no timing is judged), an honest overlap in the others: x1 posts and waits at
# once, the team held at a barrier, the interior after; x6 waits, then the master computes the
# whole interior alone. halo.exercise._assert_one_order reads the master's program order (rows
# only after its wait in some iterations, only before it in others); tests/test_halo.py runs them
ORDER = "the same order in every iteration"
A6_X1_STAGGER_BLOCK = "%%c OVERLAP_C halo2d\n/* overlap only in the iterations this rank starts on time (the kit's stagger: rank + iteration\n * even); in the others a plain blocking exchange: the team held at a barrier round the wait */\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    static MPI_Request req[4];\n    static long it = 0;\n    static int rank = -1;\n    static int overlap;\n#pragma omp masked\n    {\n        if (rank < 0) MPI_Comm_rank(comm, &rank);\n        overlap = (rank + it) % 2 == 0;\n        it++;\n        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 0, comm, &req[0]);\n        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 1, comm, &req[1]);\n        MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, up, 0, comm, &req[2]);\n        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 1, comm, &req[3]);\n        if (!overlap) MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n    }\n#pragma omp barrier\n#pragma omp for schedule(dynamic, 1) nowait\n    for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);\n#pragma omp masked\n    if (overlap) MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n#pragma omp barrier\n#pragma omp single\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n}\n"
A6_X6_LATE_MASTER = '%%c OVERLAP_C halo2d\n/* in the iterations this rank starts late (rank + iteration odd) a blocking exchange and the\n * master computes the whole interior alone after its MPI_Waitall, the free threads idle; on\n * time, a real overlap */\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    static MPI_Request req[4];\n    static long it = 0;\n    static int rank = -1;\n    static int late;\n#pragma omp masked\n    {\n        if (rank < 0) MPI_Comm_rank(comm, &rank);\n        late = (rank + it) % 2 == 1;\n        it++;\n        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 0, comm, &req[0]);\n        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 1, comm, &req[1]);\n        MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, up, 0, comm, &req[2]);\n        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 1, comm, &req[3]);\n        if (late) {\n            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n            if (m > 2) stencil_rows(2, m - 1);\n        }\n    }\n#pragma omp barrier\n    if (!late) {\n#pragma omp for schedule(dynamic, 1) nowait\n        for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);\n#pragma omp masked\n        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n#pragma omp barrier\n    }\n#pragma omp single\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n}\n'
GAMING += [
    attempt("method", "overlap_iteration", A6_X1_STAGGER_BLOCK, D,
            "attacker A6 (x1_d_stagger_block): in the iterations the rank starts late the master "
            "posts and waits at once while the team waits at a barrier; overlap in the others",
            reason=ORDER),
    attempt("method", "overlap_iteration", A6_X6_LATE_MASTER, D,
            "attacker A6 (x6_d_late_master): in the iterations the rank starts late a blocking "
            "MPI_Waitall, then the master computes the whole interior alone; overlap in the others",
            reason=ORDER),
]
