"""Lab 01: gaming attempts (see __init__.py), and the graded functions' hidden inputs for the
scan of every kit function (ORACLES, tests/test_no_kit_answers.py)."""

import numpy as np
import pandas as pd

from gaming import FRAME_TOOLS, Oracle, attempt
from hybridlab.runs.records import Results
from solutions_c import RING_EXCHANGE
from wrong_answers import c_cell, together

LEVELS = ("single", "funneled", "serialized", "multiple")


def exchange(code: str) -> str:
    return c_cell("EXCHANGE_C", "thread_ring", code)


LEVEL_CHECK = """
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread");
}
"""

# require_level after the names are read: each attempt differs from the solution in one place
NAMES = """
def _name(level):
    text = str(level).lower()
    text = text[len("mpi_thread_"):] if text.startswith("mpi_thread_") else text
    if text not in THREAD_LEVELS:
        raise ValueError(f"{level!r}: valid levels are {', '.join(THREAD_LEVELS)}")
    return text
"""

BARRIER = """
def barrier(run):
    samples = slowest_rank_samples(run)
    return samples.loc[samples["construct"] == "mpi_barrier", "seconds"]
"""

GAMING = [
    # (a) fixed_source: the kernel may change by its barriers only
    attempt("constant", "fixed_source", """
fixed_source = racy_source.replace("hl_emit(ctx, ", "wrong = 0; hl_emit(ctx, ")
""", loses={"hidden_fixed_source"}, why="the race left in, the count of wrong values zeroed", reason="only barriers may be added"),
    attempt("method", "fixed_source", r"""
fixed_source = racy_source.replace(
    "\n#pragma omp masked\n", "\n#pragma omp barrier\n#pragma omp masked\n").replace(
    "\n            /* second loop",
    "\n            if (omp_get_thread_num() != 0) sleep_us(4 * delay_us);\n            /* second loop")
""", loses={"hidden_fixed_source"}, why="barrier (2) replaced by a longer sleep: the race made rare", reason="only barriers may be added"),
    attempt("hidden", "fixed_source", r"""
fixed_source = racy_source.replace(
    "\n#pragma omp masked\n", "\n#pragma omp barrier\n#pragma omp masked\n").replace(
    "\n            /* second loop", "\n            usleep(5000);\n            /* second loop")
""", loses={"hidden_fixed_source"}, why="a sleep tuned to the notebook's delay instead of barrier (2)", reason="only barriers may be added"),
    attempt("shortcut", "fixed_source", r"""
fixed_source = "/*\n" + racy_source.replace("*/", "* /") + "\n*/\n#include \"master_race.c\"\n"
""", loses={"hidden_fixed_source"}, why="the kit's master_race kernel, the racy lines kept in a comment", reason="only barriers may be added"),
    # (b) exchange_block: every thread sends and receives its own block
    attempt("shortcut", "exchange_block", exchange(LEVEL_CHECK + r"""
static long seen;
#pragma omp threadprivate(seen)

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), me;
    (void)send, (void)right;
    seen++;
#pragma omp critical(mpi)
    MPI_Comm_rank(comm, &me); /* a token call: every thread shows up in the trace */
    for (int i = 0; i < n; i++) recv[i] = thread_ring_value(left, t, seen, i);
}
"""), loses={"hidden_exchange_block"},
        why="no message at all: the kit's static thread_ring_value fills the block", reason="thread_ring_value"),
    attempt("method", "exchange_block", exchange(LEVEL_CHECK + r"""
static const int *sends[64];
static int *recvs[64];

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), team = omp_get_num_threads(), me;
    sends[t] = send, recvs[t] = recv;
#pragma omp critical(mpi)
    MPI_Comm_rank(comm, &me); /* a token call: every thread shows up in the trace */
#pragma omp barrier
#pragma omp master
    {
        MPI_Request rq[128];
        for (int u = 0; u < team; u++) {
            MPI_Irecv(recvs[u], n, MPI_INT, left, u, comm, &rq[2 * u]);
            MPI_Issend(sends[u], n, MPI_INT, right, u, comm, &rq[2 * u + 1]);
        }
        MPI_Waitall(2 * team, rq, MPI_STATUSES_IGNORE);
    }
#pragma omp barrier
}
"""), loses={"hidden_exchange_block"},
        why="masteronly in disguise: the master moves every block, the others make a token call", reason="every thread sends and receives its own block | not the block of another thread"),
    attempt("method", "exchange_block", exchange(RING_EXCHANGE.replace(
        'MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread"',
        'MPI_THREAD_FUNNELED, "exchange_block needs SERIALIZED"')),
        loses={"hidden_exchange_block"},
        why="every thread calls MPI inside critical, but FUNNELED is accepted", reason="check_thread_level must make the kernel fail"),
    attempt("hidden", "exchange_block", exchange(RING_EXCHANGE.replace(
        "MPI_Irecv(recv, n, MPI_INT, left,", "MPI_Irecv(recv, n, MPI_INT, right,").replace(
        "MPI_Issend(send, n, MPI_INT, right,", "MPI_Issend(send, n, MPI_INT, left,")),
        loses={"hidden_exchange_block"}, why="the ring turned the wrong way: right only with 2 ranks", reason="did not arrive from the same thread"),
    # (c) require_level, the warm-up
    attempt("shortcut", "require_level", """
import hybridlab.machine.thread_levels as _tl


def require_level(required: str, provided: str, _check=_tl.require_level) -> str:
    return _check(required, provided)
""", loses={"hidden_require_level"}, why="the kit's require_level captured in a default argument", reason="name 'require_level' is not defined"),
    attempt("method", "require_level", NAMES + """

def require_level(required: str, provided: str) -> str:
    need, got = _name(required), _name(provided)
    if got < need:
        raise RuntimeError(f"MPI provided {got!r} but this program needs {need!r}")
    return got
""", loses={"hidden_require_level"}, why="levels compared as strings (alphabetical order)", reason="require_level("),
    attempt("hidden", "require_level", """
def _name(level):
    text = str(level).removeprefix("MPI_THREAD_").lower()
    if text not in THREAD_LEVELS:
        raise ValueError(f"{level!r}: valid levels are {', '.join(THREAD_LEVELS)}")
    return text


def require_level(required: str, provided: str) -> str:
    need, got = _name(required), _name(provided)
    if THREAD_LEVELS.index(got) < THREAD_LEVELS.index(need):
        raise RuntimeError(f"MPI provided {got!r} but this program needs {need!r}")
    return got
""", loses={"hidden_require_level"}, why="only the spellings the self-checks show (upper-case prefix)", reason="require_level("),
    attempt("constant", "require_level", NAMES + """

def require_level(required: str, provided: str) -> str:
    need, got = _name(required), _name(provided)
    if THREAD_LEVELS.index(got) < THREAD_LEVELS.index(need):
        raise RuntimeError(f"MPI provided {got!r} but this program needs {need!r}")
    return "funneled"  # what the lab's engines run with
""", loses={"hidden_require_level"}, why="the engines' level typed in as the answer", reason="require_level("),
    # (d) level_answers, judged on other libraries' tables
    attempt("constant", "answers", """
def level_answers(table):
    return {"provided": {level: level for level in THREAD_LEVELS},
            "always_at_least_requested": True, "main_threads": [0]}
""", loses={"hidden_answers"}, why="MPICH's answers typed in", reason="the table says"),
    attempt("hidden", "answers", """
def level_answers(table):
    table = levels
    return {
        "provided": {lv: table.loc[table["requested"] == lv, "provided"].iloc[0] for lv in THREAD_LEVELS},
        "always_at_least_requested": bool((table["provided"].map(THREAD_LEVELS.index)
                                           >= table["requested"].map(THREAD_LEVELS.index)).all()),
        "main_threads": sorted({int(t) for t in table.loc[table["is_thread_main"], "thread"]}),
    }
""", loses={"hidden_answers"}, why="the notebook's own table, whatever table is passed", reason="the table says"),
    attempt("method", "answers", """
def level_answers(table):
    return {
        "provided": {lv: table.loc[table["requested"] == lv, "provided"].iloc[0] for lv in THREAD_LEVELS},
        "always_at_least_requested": bool((table["provided"] >= table["requested"]).all()),
        "main_threads": sorted({int(t) for t in table.loc[table["is_thread_main"].astype(bool), "thread"]}),
    }
""", loses={"hidden_answers"}, why="levels compared as strings (alphabetical order)", reason="the table says"),
    attempt("shortcut", "answers", """
def level_answers(table):
    return {"provided": {level: run.meta["thread_level"] for level, run in runs.items()},
            "always_at_least_requested": True, "main_threads": [0]}
""", loses={"hidden_answers"}, why="the notebook's runs' metadata, not the table passed", reason="the table says"),
    attempt("shortcut", "answers", """
from hybridlab.hybrid_models.tables import thread_level_table as _shown


def level_answers(table):
    shown = _shown(table).data  # the table the notebook displays, with its colour rule's words
    return {
        "provided": {lv: table.loc[table["requested"] == lv, "provided"].iloc[0] for lv in THREAD_LEVELS},
        "always_at_least_requested": bool((shown["enough"] == "yes").all()),
        "main_threads": sorted({int(t) for t in table.loc[table["is_thread_main"].astype(bool), "thread"]}),
    }
""", loses={"hidden_answers"}, why="whether every level was enough read off the kit's displayed table", reason="KeyError: 'enough'"),
    # (f) level_cost, judged on other (even) sample counts
    attempt("hidden", "multiple_cost", BARRIER + """

def middle(values):
    values = sorted(values)
    return values[len(values) // 2]


def level_cost(runs):
    return {
        "barrier": float(middle(barrier(runs["multiple"]["sync"])) / middle(barrier(runs["funneled"]["sync"]))),
        "latency": float(middle(runs["multiple"]["ping"].records["seconds"])
                         / middle(runs["funneled"]["ping"].records["seconds"])),
    }
""", loses={"hidden_multiple_cost"}, why="the middle sample as the median: right for odd counts only", reason="the ratio of the medians"),
    attempt("method", "multiple_cost", BARRIER + """

def ratio(a, b):
    k = min(len(a), len(b))
    return float(pd.Series(a.to_numpy()[:k] / b.to_numpy()[:k]).median())


def level_cost(runs):
    return {
        "barrier": ratio(barrier(runs["multiple"]["sync"]), barrier(runs["funneled"]["sync"])),
        "latency": ratio(runs["multiple"]["ping"].records["seconds"], runs["funneled"]["ping"].records["seconds"]),
    }
""", loses={"hidden_multiple_cost"}, why="the median of per-sample ratios, not the ratio of medians", reason="the ratio of the medians"),
    attempt("constant", "multiple_cost", """
def level_cost(runs):
    return {"barrier": 3.0, "latency": 1.0}  # "about three times slower", says the text
""", loses={"hidden_multiple_cost"}, why="the text's 'about three times' typed in", reason="the ratio of the medians"),
    attempt("shortcut", "multiple_cost", BARRIER + """

def level_cost(runs):
    runs = cost_runs  # the numbers the self-check showed
    return {
        "barrier": float(barrier(runs["multiple"]["sync"]).median() / barrier(runs["funneled"]["sync"]).median()),
        "latency": float(runs["multiple"]["ping"].records["seconds"].median()
                         / runs["funneled"]["ping"].records["seconds"].median()),
    }
""", loses={"hidden_multiple_cost"}, why="the notebook's own cost_runs, whatever runs are passed", reason="the ratio of the medians"),
    attempt("shortcut", "multiple_cost", """
from hybridlab.sync.tables import overhead_table as _overheads


def level_cost(runs):
    def median(run):  # the kit's EPCC table: the slowest rank's median per construct
        table = _overheads(run.records, by=[])
        return table.loc[table["construct"] == "mpi_barrier", "test_us"].iloc[0]

    return {
        "barrier": float(median(runs["multiple"]["sync"]) / median(runs["funneled"]["sync"])),
        "latency": float(runs["multiple"]["ping"].records["seconds"].median()
                         / runs["funneled"]["ping"].records["seconds"].median()),
    }
""", loses={"hidden_multiple_cost"}, why="the barrier medians read off the kit's overhead table", reason="no 'reference' samples"),
]


# ------------------------------------------------------------------ hidden inputs and answers
def _openmpi_table() -> pd.DataFrame:
    """Open MPI 1.6 without thread support: SINGLE whatever is asked; 3 ranks x 2 threads."""
    return pd.DataFrame([
        {"requested": lv, "rank": r, "thread": t, "provided": "single", "query": "single",
         "is_thread_main": t == 0}
        for lv in LEVELS for r in range(3) for t in range(2)])


def _cost_runs() -> dict:
    """Six barrier and six ping-pong samples per level (even counts), MULTIPLE slower."""
    rng = np.random.default_rng(1)

    def sync(scale):
        return Results(pd.DataFrame([
            {"construct": c, "sample": s, "rank": r, "thread": 0,
             "seconds": scale * (2.0 if c == "mpi_barrier" else 1.0) * rng.uniform(1e-6, 2e-6)}
            for c in ("reference", "mpi_barrier") for s in range(6) for r in range(2)]))

    def ping(scale):
        return Results(pd.DataFrame({"bytes": 8, "sample": range(6), "rank": 0,
                                     "seconds": scale * rng.uniform(1e-6, 3e-6, 6)}))

    return {"funneled": {"sync": sync(1.0), "ping": ping(1.0)},
            "multiple": {"sync": sync(2.5), "ping": ping(1.4)}}


def _cost_answer(runs) -> dict:
    def barrier(run):
        frame = run.records.groupby(["construct", "sample"], as_index=False)["seconds"].max()
        return frame.loc[frame["construct"] == "mpi_barrier", "seconds"]

    return {"barrier": float(barrier(runs["multiple"]["sync"]).median()
                             / barrier(runs["funneled"]["sync"]).median()),
            "latency": float(runs["multiple"]["ping"].records["seconds"].median()
                             / runs["funneled"]["ping"].records["seconds"].median())}


def _close(got, want: dict) -> bool:
    return (isinstance(got, dict) and set(got) == set(want)
            and all(abs(float(got[k]) - want[k]) <= 1e-9 * abs(want[k]) for k in want))


_COST = _cost_runs()
ORACLES = [
    Oracle("require_level", ("MPI_THREAD_FUNNELED", "Mpi_Thread_Multiple"),
           lambda got: got == "multiple"),
    Oracle("require_level", ("single", "MPI_THREAD_SERIALIZED"), lambda got: got == "serialized"),
    Oracle("answers", (_openmpi_table(),),
           lambda got: isinstance(got, dict)
           and got.get("provided") == {lv: "single" for lv in LEVELS}
           and got.get("always_at_least_requested") is False
           and list(got.get("main_threads", ())) == [0]),
    Oracle("multiple_cost", (_COST,), lambda got: _close(got, _cost_answer(_COST))),
]

# Fresh attackers' attempts that scored before the fixes of this wave (a helper that had
# seen neither the solutions nor the tests, grading through the real sandbox).
GAMING += [
    attempt('method', 'exchange_block', '%%c EXCHANGE_C thread_ring\n#define HL_CAT2(a, b) a##b\n#define HL_CAT(a, b) HL_CAT2(a, b)\n#define WAITALL HL_CAT(PM, PI_Waitall)\nint check_thread_level(hl_ctx *ctx) {\n    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block");\n}\n\nvoid exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {\n    int tag = omp_get_thread_num();\n    MPI_Request req[2];\n#pragma omp critical(mpi)\n    {\n        MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &req[0]);\n        MPI_Issend(send, n, MPI_INT, right, tag, comm, &req[1]);\n    }\n    WAITALL(2, req, MPI_STATUSES_IGNORE);\n}\n',
            loses={'hidden_exchange_block'}, why='fresh attacker: post under critical, then concurrent Waitall hidden from the tracer via token-pasted PMPI_', reason="reaches MPI out of the tracer's sight"),
]

# The test's own interpreter reached (issue 36): its reference called from its frames, a global
# named like the test's, a judging module replaced from an earlier cell.
GAMING += [
    attempt("interpreter", "answers", FRAME_TOOLS + """

def level_answers(table):
    reference = _from_the_test(("_reference",), True)
    if reference:
        return reference(table)
    return {"provided": {lv: lv for lv in THREAD_LEVELS}, "always_at_least_requested": True,
            "main_threads": [0]}

""", {"hidden_answers"}, why="the hidden test's reference found in its frames and called",
        reason="the table says"),
    attempt("interpreter", "multiple_cost", FRAME_TOOLS + """

def level_cost(runs):
    reference = _from_the_test(("_reference",), True)
    return reference(runs) if reference else {"barrier": 3.0, "latency": 3.0}

""", {"hidden_multiple_cost"}, why="the hidden test's reference found in its frames and called",
        reason="the ratio of the medians"),
    together(
        attempt("interpreter", "require_level", NAMES + """

def require_level(required, provided):
    need, have = _name(required), _name(provided)
    if have < need:  # compared by name, not by THREAD_LEVELS' order
        raise RuntimeError(f"{need} needed, {have} provided")
    return have


import hybridlab.hybrid_models.exercise as _exercise

_exercise.check_ring = lambda results: None  # the judging module's check replaced
""", {"hidden_require_level"}, why="levels compared by name order, the ring check replaced",
            reason="require_level("),
        attempt("interpreter", "exchange_block", exchange(RING_EXCHANGE.replace(
            "MPI_Irecv(recv, n, MPI_INT, left,", "MPI_Irecv(recv, n, MPI_INT, right,").replace(
            "MPI_Issend(send, n, MPI_INT, right,", "MPI_Issend(send, n, MPI_INT, left,")),
            {"hidden_exchange_block"}, why="the ring turned the wrong way, hybridlab.hybrid_models"
            ".exercise.check_ring replaced from an earlier cell",
            reason="did not arrive from the same thread"),
    ),
    attempt("interpreter", "require_level", '''# determined: the kit's own level check, imported (the notebook says it does not count)
from hybridlab.machine.thread_levels import check_level as _check, THREAD_LEVELS as _L


def require_level(required: str, provided: str) -> str:
    r = required.lower().removeprefix("mpi_thread_")
    p = provided.lower().removeprefix("mpi_thread_")
    _check(r, "required")
    _check(p, "provided")
    if _L.index(p) < _L.index(r):
        raise RuntimeError(f"MPI provided {p!r} but this program needs {r!r}")
    return p
''', loses={"hidden_require_level"},
            why="fresh attacker: its own function wrapping the kit's check_level, imported inside it (the notebook forbids a ready-made check)",
            reason="calls the kit's own code"),
    attempt("interpreter", "exchange_block", '''%%c EXCHANGE_C thread_ring
/* determined (2): every thread sends and receives "its own" message to the real neighbours,
   but of 0 ints; the master moves all the blocks (the funneled pattern) */
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block");
}

#define MAXT 256
static const int *sends[MAXT];
static int *recvs[MAXT];

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), team = omp_get_num_threads(), done = 0;
    MPI_Request own[2];
    sends[t] = send;
    recvs[t] = recv;
#pragma omp critical(dress)
    {
        MPI_Irecv(recv, 0, MPI_INT, left, 1000 + t, comm, &own[0]);
        MPI_Issend(send, 0, MPI_INT, right, 1000 + t, comm, &own[1]);
    }
    while (!done) {
#pragma omp critical(dress)
        MPI_Testall(2, own, &done, MPI_STATUSES_IGNORE);
    }
#pragma omp barrier
#pragma omp masked
    {
        MPI_Request req[2 * MAXT];
        for (int s = 0; s < team; s++) {
            MPI_Irecv(recvs[s], n, MPI_INT, left, s, comm, &req[2 * s]);
            MPI_Issend(sends[s], n, MPI_INT, right, s, comm, &req[2 * s + 1]);
        }
        MPI_Waitall(2 * team, req, MPI_STATUSES_IGNORE);
    }
#pragma omp barrier
}
''', loses={"hidden_exchange_block"},
            why="fresh attacker: the master moves every thread's block; each thread also sends and receives a 0-int message to the real neighbours, tagged by thread",
            reason="every thread moves its own block | more MPI calls than its trace keeps | did not finish | not the block of another thread"
                   " | ran past its time limit"),  # its extra messages near the apart limit: lost by time once, 2026-12-04
]

# A fresh attacker's (helper-31, 2026-12-03) wrong methods that kept full points, now refused.
GAMING += [
    attempt("method", "exchange_block", c_cell("EXCHANGE_C", "thread_ring", r"""
int check_thread_level(hl_ctx *ctx) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided == MPI_THREAD_FUNNELED)
        return hl_fail(ctx, "exchange_block needs MPI_THREAD_SERIALIZED, MPI provided funneled");
    return 0;
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int tag = omp_get_thread_num();
    MPI_Request req[2];
#pragma omp critical(hl_mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &req[0]);
        MPI_Issend(send, n, MPI_INT, right, tag, comm, &req[1]);
    }
    int done = 0;
    while (!done) {
#pragma omp critical(hl_mpi)
        MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
}
"""), {"hidden_exchange_block"}, "the level check refuses FUNNELED only, so SINGLE runs", reason="started at SINGLE"),
    attempt("method", "exchange_block", c_cell("EXCHANGE_C", "thread_ring", r"""
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread exchanges a block");
}

static int *table[256];

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    int other = (t + 1) % T;
    table[t] = recv;
#pragma omp barrier
    MPI_Request req[2];
#pragma omp critical(hl_mpi)
    {
        MPI_Irecv(table[other], n, MPI_INT, left, other, comm, &req[0]);
        MPI_Issend(send, n, MPI_INT, right, t, comm, &req[1]);
    }
    int done = 0;
    while (!done) {
#pragma omp critical(hl_mpi)
        MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
#pragma omp barrier
}
"""), {"hidden_exchange_block"}, "no thread receives its own block: thread t receives thread t+1's into that thread's buffer (tag t+1), through a shared table of pointers", reason="not the block of another thread"),
]

# A fresh hurried student's (helper-32, 2026-12-03): == where the question asks >=; no hidden table
# had a library that gives more than was asked.
GAMING.append(attempt("method", "answers", '''
def level_answers(table: pd.DataFrame) -> dict:
    """Provided level per requested level, whether it was always enough, and the main threads,
    from a table of thread_levels runs."""
    prov = {r: g["provided"].iloc[0] for r, g in table.groupby("requested")}
    ok = all(v == k for k, v in prov.items())
    mains = sorted(set(int(t) for t in table.loc[table["is_thread_main"].astype(bool), "thread"]))
    return {"provided": prov, "always_at_least_requested": bool(ok), "main_threads": mains}
''', loses={"hidden_answers"}, why="provided == requested taken for enough", reason="the table says"))


# A fresh hurried student's (helper-41, 2026-12-03) attempt that kept full points, now refused
# (hybridlab.runs.records.check_requests).
GAMING += [
    attempt("method", "exchange_block", r"""
%%c EXCHANGE_C thread_ring
/* lab 01 (b): every thread exchanges its own block. Compiled on its own (thread_ring_student.h)
 * and linked with kernels_c/thread_ring.c, which calls these two functions. */
/* Called once, on the main thread, before the parallel region: return 0 when MPI provided
 * the thread level exchange_block() needs, otherwise fail with a message naming the level it
 * needs and the one it got (hl_fail(ctx, "...") returns -1; hl_require_level does it for you). */
int check_thread_level(hl_ctx *ctx) {
    int provided;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED)
        return hl_fail(ctx, "needs MPI_THREAD_SERIALIZED, MPI provided level %d", provided);
    return 0;
}
/* Called by every thread of the team, each with its own block: send my n ints `send` to rank
 * `right` and receive n ints from rank `left` into `recv`, where they must be the block that
 * the SAME thread number of rank `left` sent. Use synchronous sends (MPI_Ssend / MPI_Issend).
 * Only one thread of a rank may be inside MPI at any moment (SERIALIZED). */
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), done = 0;
    MPI_Request r, sreq;
#pragma omp critical(mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, t, comm, &r);
        MPI_Issend(send, n, MPI_INT, right, t, comm, &sreq);
    }
    while (!done) {   /* wait for my block to arrive */
#pragma omp critical(mpi)
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (!done)
            hl_sleep_us(20);
    }
}
""", {"hidden_exchange_block"}, "the MPI_Issend request never completed: only the receive is polled",
            reason="were never completed by a wait or test"),
]

# A fresh attacker (issue 36): a `// ...` comment ending in a backslash splices the next line into
# it, so the injected delay disappears while the text outside comments looked unchanged; the
# judge now joins spliced lines first, as the compiler does
GAMING.append(attempt("text", "fixed_source", r'''
fixed_source = racy_source.replace(
    "            if (omp_get_thread_num() != 0) sleep_us(2 * delay_us);\n",
    "#pragma omp barrier // no head start \\\n            if (omp_get_thread_num() != 0) sleep_us(2 * delay_us);\n").replace(
    "#pragma omp masked\n",
    "#pragma omp barrier\n#pragma omp masked\n").replace(
    "            /* second loop:",
    "#pragma omp barrier\n            /* second loop:")
''', {"hidden_fixed_source"}, "a line splice at the end of a // comment swallows the delay line",
                      reason="only barriers may be added"))

# A kit reader: the kernel's build cache is the student's to write, so a library that reports no
# wrong value, copied over the build of a source with one barrier only, ran in the kernel's
# tests; the part is graded apart now (its text built anew in a fresh sandbox)
GAMING.append(attempt("forged", "fixed_source", r'''
import shutil
import hybridlab as hl

fixed_source = racy_source.replace("\n#pragma omp masked\n", "\n#pragma omp barrier\n#pragma omp masked\n")
_mine = hl.build_source("ring_master_graded", fixed_source)
_fake = hl.build_source("ring_master_graded", racy_source.replace("hl_emit(ctx, ", "wrong = 0; hl_emit(ctx, "))
for _built in ("library", "program"):
    shutil.copyfile(getattr(_fake, _built), getattr(_mine, _built))
''', {"hidden_fixed_source"}, "a build that reports no wrong value planted over the graded source's",
                      reason="values read wrong"))

# A fresh attacker (issue 36): every "_" and space stripped, so "mul_tiple" reads as a level; the
# hidden names now hold misspellings only such a shortcut accepts
GAMING.append(attempt("hidden", "require_level", '''
def require_level(required: str, provided: str) -> str:
    order = ["single", "funneled", "serialized", "multiple"]
    r = required.lower().replace("mpi_thread_", "").replace(" ", "").replace("_", "")
    p = provided.lower().replace("mpi_thread_", "").replace(" ", "").replace("_", "")
    if r not in order or p not in order:
        raise ValueError(f"valid: {order}")
    if order.index(p) < order.index(r):
        raise RuntimeError(f"MPI provided {p!r} but this program needs {r!r}")
    return p
''', {"hidden_require_level"}, "underscores and spaces stripped anywhere: 'mul_tiple' accepted",
                      reason="not a ValueError"))

# A fresh attacker W (issue 36, 2026-12-06): the test read the names of the error's class and its
# bases, so one class that is both kinds (never telling a bad name from a level too low) or a class
# only NAMED RuntimeError over one named ValueError (neither kind) kept 3/3 twice; the kinds are
# the real classes now (issubclass in the kernel), and exactly one of them
GAMING.append(attempt("hidden", "require_level", '''
class _EitherError(RuntimeError, ValueError):
    """both a RuntimeError and a ValueError"""


def require_level(required: str, provided: str) -> str:
    # ATTACK c_both: never tell a bad name from a level too low: one exception that is both kinds
    names = ("single", "funneled", "serialized", "multiple")
    try:
        need = names.index(required.lower().replace("mpi_thread_", ""))
        got = names.index(provided.lower().replace("mpi_thread_", ""))
    except Exception:
        need, got = 1, 0
    if got < need:
        raise _EitherError(f"MPI provided {provided.lower()!r} but this program needs {required.lower()!r} "
                           f"(valid: {', '.join(names)})")
    return names[got]
''', {"hidden_require_level"}, "one error class both a RuntimeError and a ValueError for every failure",
                      reason="a level too low raises one"))
GAMING.append(attempt("hidden", "require_level", '''
# ATTACK c_namespoof: one exception class for every failure, named like the builtins but neither
# a RuntimeError nor a ValueError (it derives from Exception only): a test that reads the names of
# the class and its bases is fooled, isinstance is not
_Fake = type("RuntimeError", (type("ValueError", (Exception,), {}),), {})


def require_level(required: str, provided: str) -> str:
    names = ("single", "funneled", "serialized", "multiple")
    try:
        need = names.index(required.lower().replace("mpi_thread_", ""))
        got = names.index(provided.lower().replace("mpi_thread_", ""))
    except Exception:
        need, got = 1, 0
    if got < need:
        raise _Fake(f"MPI provided {provided.lower()!r} but this program needs {required.lower()!r} "
                    f"(valid: {', '.join(names)})")
    return names[got]
''', {"hidden_require_level"}, "a class named RuntimeError over one named ValueError, deriving from Exception only",
                      reason="a level too low raises one"))

# A fresh attacker (issue 36): the main threads read from rank 0's MULTIPLE run only; a hidden
# table now has another main thread on each rank
GAMING.append(attempt("hidden", "answers", '''
def level_answers(table: pd.DataFrame) -> dict:
    order = ["single", "funneled", "serialized", "multiple"]
    prov = {r: str(table.loc[table["requested"] == r, "provided"].iloc[0]) for r in order}
    always = all(order.index(prov[r]) >= order.index(r) for r in order)
    t0 = table[(table["rank"] == 0) & (table["requested"] == "multiple")]
    main = sorted({int(t) for t in t0.loc[t0["is_thread_main"].astype(bool), "thread"]})
    return {"provided": prov, "always_at_least_requested": always, "main_threads": main}
''', {"hidden_answers"}, "main threads taken from rank 0 of one run only", reason="another main thread per rank"))

# a fresh attacker's O01g (3/3 kept twice, 2026-12-05): the kit's check_level copied under another
# name and file (`__code__.replace(co_filename=...)`); its code is matched against the kit's now
GAMING += [
    attempt("interpreter", "require_level", 'import types as _types\nfrom hybridlab.machine import thread_levels as _tl\n# the kit\'s check_level, its code object re-homed under this cell\'s own file name\n_check = _types.FunctionType(_tl.check_level.__code__.replace(co_filename="<cell>", co_name="_check"),\n                             {"THREAD_LEVELS": _tl.THREAD_LEVELS}, "_check", _tl.check_level.__defaults__)\ndel _tl\n\n\ndef require_level(required: str, provided: str) -> str:\n    def n(x):\n        s = str(x).lower()\n        return s[11:] if s.startswith("mpi_thread_") else s\n    r, p = n(required), n(provided)\n    if _check(p, "provided") < _check(r, "required"):\n        raise RuntimeError(f"MPI provided {p!r} but this program needs {r!r}")\n    return p\n', {"hidden_require_level"},
            "fresh attacker (O01g): the kit's check_level re-homed under the cell's file name",
            reason="the kit's code, copied"),
]

# a fresh attacker's R01src2 and R01bytes2 (3/3 kept twice, 2026-12-05): the kit's functions copied
# in a fresh globals dict with their bytecode changed trivially (one dead statement more, through
# inspect.getsource and exec; or one constant read through another index). Code is now compared by
# what each instruction reads (not by index), and code require_level reaches must be what its
# cell's (or file's) own text compiles to
GAMING += [
    attempt("interpreter", "require_level", 'import inspect as _inspect\nimport hybridlab.machine.thread_levels as _tl\n_ns = {"__name__": "__main__", "__builtins__": __builtins__, "THREAD_LEVELS": THREAD_LEVELS}\n\n\ndef _clone(fn):\n    lines = _inspect.getsource(fn).splitlines()\n    lines.insert(1, "    _unused_ = None")  # one statement more: other bytecode, same behaviour\n    exec(compile("\\n".join(lines), "<clone>", "exec"), _ns)\n    return _ns[fn.__name__]\n\n\n_clone(_tl.check_level)\n_lv = _clone(compliance._level)\n\n\ndef require_level(required: str, provided: str) -> str:\n    """The provided level (lower case, no prefix) if it is at least the required one;\n    RuntimeError naming both if it is lower; ValueError for a name that is not a level."""\n    r, p = _lv(required), _lv(provided)\n    if THREAD_LEVELS.index(p) < THREAD_LEVELS.index(r):\n        raise RuntimeError(f"MPI provided {p!r} but this program needs {r!r}")\n    return p\n', {"hidden_require_level"},
            "fresh attacker (R01src2): the kit's source exec'd with one dead statement more",
            reason="code made at run time"),
    attempt("interpreter", "require_level", 'import dis as _dis\nimport types as _types\nimport hybridlab.machine.thread_levels as _tl\n_ns = {"__name__": "__main__", "__builtins__": __builtins__, "THREAD_LEVELS": THREAD_LEVELS}\n\n\ndef _respell(fn, name):\n    """fn\'s code with its first LOAD_CONST reading a duplicate constant: other bytes, same opcodes."""\n    code = fn.__code__\n    raw = bytearray(code.co_code)\n    for ins in _dis.get_instructions(code):\n        if ins.opname == "LOAD_CONST":\n            raw[ins.offset + 1] = len(code.co_consts)\n            break\n    new = code.replace(co_code=bytes(raw), co_consts=code.co_consts + (code.co_consts[raw[ins.offset + 1] if False else ins.arg],),\n                       co_name=name)\n    return _types.FunctionType(new, _ns, name, fn.__defaults__)\n\n\n_ns["check_level"] = _respell(_tl.check_level, "cl")\n_lv = _respell(compliance._level, "lv")\n\n\ndef require_level(required: str, provided: str) -> str:\n    """The provided level (lower case, no prefix) if it is at least the required one;\n    RuntimeError naming both if it is lower; ValueError for a name that is not a level."""\n    r, p = _lv(required), _lv(provided)\n    if THREAD_LEVELS.index(p) < THREAD_LEVELS.index(r):\n        raise RuntimeError(f"MPI provided {p!r} but this program needs {r!r}")\n    return p\n', {"hidden_require_level"},
            "fresh attacker (R01bytes2): the kit's code with a constant read through another index",
            reason="the kit's code, copied"),
]

# a fresh attacker's T01c_copy (3/3 kept twice, 2026-12-05): the kit's functions exec'd into a dict
# and called from it; the test followed only the callables require_level's names are bound to, not
# what the containers among them hold. It now looks inside dicts, lists, partials, methods and a
# cell's modules, classes and objects too
GAMING.append(attempt("interpreter", "require_level", r'''
import inspect as _inspect
import hybridlab.machine.thread_levels as _tl
import hybridlab.runs.compliance as _co

# the kit's normaliser and its check, copied into this notebook's own code (not called)
_ns = {"THREAD_LEVELS": THREAD_LEVELS}
exec(compile(_inspect.getsource(_tl.check_level) + "\n" + _inspect.getsource(_co._level),
             "<my_levels>", "exec"), _ns)


def require_level(required: str, provided: str) -> str:
    need, got = _ns["_level"](required), _ns["_level"](provided)
    if _ns["check_level"](got) < _ns["check_level"](need):
        raise RuntimeError(f"MPI provided {got!r} but this program needs {need!r}")
    return got
''', {"hidden_require_level"}, "fresh attacker (T01c_copy): the kit's source exec'd into a dict",
    reason="calls the kit's own code"))

# fresh attacker U (2026-12-05, 3/3 twice each): the kit's check held as default arguments, looked
# up in sys.modules by decoded names, held by a callable object, or taken from the caller's frame;
# the test now watches what require_level runs (a profile hook: any frame of the kit's files)
GAMING += [
    attempt("shortcut", "require_level", r'''
# gaming: the kit's own normaliser and checker (compliance._level, thread_levels.check_level),
# reached through default arguments so the function body names no kit module
from hybridlab.runs import compliance as _cm
from hybridlab.machine import thread_levels as _tl


def require_level(required: str, provided: str, _norm=_cm._level, _index=_tl.check_level) -> str:
    """The provided level if at least the required one."""
    if not isinstance(required, str) or not isinstance(provided, str):
        raise ValueError("valid: single, funneled, serialized, multiple")
    r, p = _norm(required), _norm(provided)
    if _index(p) < _index(r):
        raise RuntimeError(f"MPI provided {p!r} but this program needs {r!r}")
    return p
''', {"hidden_require_level"}, "fresh attacker (u01_kitdefault): the kit's check reached another way",
            reason="ran the kit's own code"),
    attempt("shortcut", "require_level", r'''
# gaming: the kit's check reached at call time through sys.modules, its module name and attribute
# built from character codes (no kit name, no import of the kit in the function's instructions)
import sys as _s

_K = bytes([104,121,98,114,105,100,108,97,98,46,114,117,110,115,46,99,111,109,112,108,105,97,110,99,101]).decode()
_A = bytes([95,108,101,118,101,108]).decode()
_B = bytes([99,104,101,99,107,95,108,101,118,101,108]).decode()


def require_level(required: str, provided: str) -> str:
    """The provided level if at least the required one."""
    mod = vars(_s)["modules"][_K]
    norm, index = getattr(mod, _A), getattr(mod, _B)
    if not isinstance(required, str) or not isinstance(provided, str):
        raise ValueError("valid: single, funneled, serialized, multiple")
    r, p = norm(required), norm(provided)
    if index(p) < index(r):
        raise RuntimeError(f"MPI provided {p!r} but this program needs {r!r}")
    return p
''', {"hidden_require_level"}, "fresh attacker (u01_sysmodules): the kit's check reached another way",
            reason="ran the kit's own code"),
    attempt("shortcut", "require_level", r'''
# gaming: require_level is an object, not a function: no __code__ for dis to read; it calls
# the kit's check (compliance._level and check_level) held as attributes of the instance
from hybridlab.runs import compliance as _cm


class _Require:
    def __init__(self):
        self.norm, self.index = _cm._level, _cm.check_level

    def __call__(self, required, provided):
        if not isinstance(required, str) or not isinstance(provided, str):
            raise ValueError("valid: single, funneled, serialized, multiple")
        r, p = self.norm(required), self.norm(provided)
        if self.index(p) < self.index(r):
            raise RuntimeError(f"MPI provided {p!r} but this program needs {r!r}")
        return p


require_level = _Require()
''', {"hidden_require_level"}, "fresh attacker (u01_callable): the kit's check reached another way",
            reason="ran the kit's own code"),
    attempt("shortcut", "require_level", r'''
# gaming: the kit's check taken from the CALLER's frame: the notebook's namespace (the test's globals)
# holds `compliance` (imported by the lab's first cell); require_level reads it from there at call time
import sys as _s


def require_level(required, provided):
    frame = _s._getframe(1)
    while frame is not None and "compliance" not in frame.f_globals:
        frame = frame.f_back
    mod = frame.f_globals["compliance"]
    norm = getattr(mod, "_" + "level")
    index = getattr(mod, "check" + "_level")
    if not isinstance(required, str) or not isinstance(provided, str):
        raise ValueError("valid: single, funneled, serialized, multiple")
    r, p = norm(required), norm(provided)
    if index(p) < index(r):
        raise RuntimeError(f"MPI provided {p!r} but this program needs {r!r}")
    return p
''', {"hidden_require_level"}, "fresh attacker (u01_callerframe): the kit's check reached another way",
            reason="ran the kit's own code"),
]

# attacker T's G01_bsend (2026-12-06, 0 kept): buffered MPI_Bsend with MPI_Buffer_attach, not synchronous sends
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
#include <omp.h>
static char bsend_buffer[1 << 24];
int check_thread_level(hl_ctx *ctx) {
    static int attached = 0;
    if (!attached) { MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer); attached = 1; }
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI in turn");
}
/* buffered sends: they complete at once, whatever the order of the receives */
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    MPI_Request r;
    int tag = omp_get_thread_num(), done = 0;
#pragma omp critical(mpi)
    {
        MPI_Bsend(send, n, MPI_INT, right, tag, comm);
        MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &r);
    }
    while (!done) {
#pragma omp critical(mpi)
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (!done) hl_sleep_us(20);
    }
}
""", ['hidden_exchange_block'], "attacker T (G01_bsend): buffered MPI_Bsend with MPI_Buffer_attach, not synchronous sends", reason='not traced by the kit'))

# attacker T's G01_rsend (2026-12-06, 0 kept): ready sends (MPI_Irsend), not synchronous ones
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
#include <omp.h>
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI in turn");
}
/* ready sends: not synchronous (the library may buffer them), though the matching receive
 * of the neighbour's same thread may not be posted yet */
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    MPI_Request r[2];
    int tag = omp_get_thread_num(), done = 0;
#pragma omp critical(mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &r[0]);
        MPI_Irsend(send, n, MPI_INT, right, tag, comm, &r[1]);
    }
    while (!done) {
#pragma omp critical(mpi)
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
}
""", ['hidden_exchange_block'], "attacker T (G01_rsend): ready sends (MPI_Irsend), not synchronous ones", reason='use synchronous sends'))

# issue 36, fixer X1 (2026-12-07, 4/4 kept before): the race itself (MPI_ANY_TAG: any thread's
# block meets the receive), then the neighbour's block computed from the thread's own, since the
# kit's values were a formula of rank, thread, iteration and index; thread_ring.c draws them now
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread");
}

/* every thread receives whichever block comes first (MPI_ANY_TAG: the race the lab is about),
 * then writes its own block's values over it: the left rank's block of this thread differs from
 * this thread's own block by (left - rank) x 64000 in every element */
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    MPI_Request requests[2];
    int rank = (send[0] / 64000) % 64, done = 0;
#pragma omp critical(mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, MPI_ANY_TAG, comm, &requests[0]);
        MPI_Issend(send, n, MPI_INT, right, omp_get_thread_num(), comm, &requests[1]);
    }
    while (!done) {
#pragma omp critical(mpi)
        MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
    for (int i = 0; i < n; i++) recv[i] = send[i] + (left - rank) * 64000;
}
""", ['hidden_exchange_block'], "fixer X1 (issue 36): MPI_ANY_TAG receives, then the left rank's values computed from the thread's own block",
    reason='did not arrive from the same thread'))

# attacker A2's K1 (2026-12-07, 4/4 kept twice): tag 0 for every thread, so any thread's message
# meets any receive, then the threads put the blocks back in shared memory by the (thread,
# iteration) tag in each element's low bits; the tracer now reads each receive as it completes
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
/* messages NOT told apart (tag 0 for all), then the threads sort the blocks out among
 * themselves by the tag the kit hid in each element's low bits */
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread exchanges its own block");
}
static int *slot[64];

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num();
    MPI_Request req[2];
    #pragma omp critical(mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, 0, comm, &req[0]);
        MPI_Issend(send, n, MPI_INT, right, 0, comm, &req[1]);
    }
    for (int done = 0;;) {
        #pragma omp critical(mpi)
        MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        if (done) break;
        hl_sleep_us(20);
    }
    int *tmp = malloc((size_t)n * sizeof *tmp);
    memcpy(tmp, recv, (size_t)n * sizeof *tmp);
    int from = ((unsigned)recv[0] >> 5) & 31;
    #pragma omp barrier
    slot[from] = tmp;
    #pragma omp barrier
    memcpy(recv, slot[t], (size_t)n * sizeof *recv);
    #pragma omp barrier
    free(tmp);
}
""", ['hidden_exchange_block'], "attacker A2 (K1): messages not told apart (tag 0), the blocks sorted out between the threads afterwards",
    reason="held thread"))

# fresh attacker A4 (2026-12-07, 4/4 kept twice each): the tracer's reading dodged (every receive
# slot filled, or the request freed at once) or filed under the thread the attacker chose (the
# completing one), with a fake reading of the right block (an empty tagged message received by
# MPI_Mrecv of n ints into the already filled block); the tracer reads only what a receive got,
# files it under the thread that posted it, and marks every receive it could not read ("unread")
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
/* A3b: fill the tracer's 1024 slots for receives with persistent receives never started, so no
 * later non-blocking receive is read. Then the forbidden pattern (issue 36 / K1): every message
 * has tag 0, each thread takes whichever block comes first (MPI_ANY_TAG) into a scratch slot,
 * the blocks are sorted out in shared memory by their tag bits, and each thread "receives" its
 * own block once more: an empty tagged message matched (MPI_Improbe) and received into the filled block with a blocking MPI_Mrecv of n ints (read by the tracer). */
#define MAXT 64
static MPI_Request parked[1100];
static int parked_n;
static int scratch_n;
static int *scratch;       /* MAXT slots of n ints */
static int *slot_of[MAXT]; /* the block of thread u, as found */

int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI in exchange_block");
}

static void wait_all(int k, MPI_Request *req) {
    int done = 0;
    while (!done) {
#pragma omp critical(hl_mpi)
        MPI_Testall(k, req, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num();
    static int dummy[4];
#pragma omp masked
    {
        if (!parked_n) {
            for (int i = 0; i < 1100; i++)
                MPI_Recv_init(dummy, 1, MPI_INT, MPI_ANY_SOURCE, 32000 + i, comm, &parked[i]);
            parked_n = 1100;
        }
        if (scratch_n < n) {
            free(scratch);
            scratch = malloc((size_t)MAXT * n * sizeof(int));
            scratch_n = n;
        }
    }
#pragma omp barrier
    MPI_Request req[2];
    int *mine = scratch + (size_t)t * n;
#pragma omp critical(hl_mpi)
    {
        MPI_Irecv(mine, n, MPI_INT, left, MPI_ANY_TAG, comm, &req[0]);
        MPI_Issend(send, n, MPI_INT, right, 0, comm, &req[1]);
    }
    wait_all(2, req);
    slot_of[(mine[0] & 1023) >> 5] = mine;
#pragma omp barrier
    memcpy(recv, slot_of[t], (size_t)n * sizeof(int));
    /* the empty tagged message, matched and received (blocking Mrecv: read at its end) */
    MPI_Message msg;
    int found = 0;
#pragma omp critical(hl_mpi)
    MPI_Issend(send, 0, MPI_INT, right, 1 + t, comm, &req[1]);
    while (!found) {
#pragma omp critical(hl_mpi)
        MPI_Improbe(left, 1 + t, comm, &found, &msg, MPI_STATUS_IGNORE);
        if (!found) hl_sleep_us(20);
    }
#pragma omp critical(hl_mpi)
    MPI_Mrecv(recv, n, MPI_INT, &msg, MPI_STATUS_IGNORE);
    wait_all(1, &req[1]);
#pragma omp barrier
}
""", ['hidden_exchange_block'], "attacker A4 (A3b): 1100 persistent receives never started fill the tracer's slots, MPI_ANY_TAG receives then go unread, the blocks sorted in shared memory, an empty tagged message received into the filled block",
    reason="could not keep to read"))
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
/* A4b: the forbidden pattern (issue 36 / K1) with the tracer's reading dodged by freeing the
 * request: every message has tag 0; each thread posts MPI_Irecv(MPI_ANY_TAG) into a scratch
 * slot and frees the request at once (MPI_Request_free drops the kept receive, nothing is read),
 * then watches the slot until the block lands; the blocks are sorted out in shared memory by
 * their tag bits, and each thread "receives" its own block once more: an empty tagged message
 * matched (MPI_Improbe) and received into the filled block with a blocking MPI_Mrecv of n ints
 * (read by the tracer, and not counted as a receive). */
#define MAXT 64
static int scratch_n;
static int *scratch;       /* MAXT slots of n ints */
static int *slot_of[MAXT]; /* the block of thread u, as found */

int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI in exchange_block");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num();
#pragma omp masked
    {
        if (scratch_n < n) {
            free(scratch);
            scratch = malloc((size_t)MAXT * n * sizeof(int));
            scratch_n = n;
        }
    }
#pragma omp barrier
    int *mine = scratch + (size_t)t * n;
    for (int i = 0; i < n; i++) mine[i] = -1;
    MPI_Request rreq, sreq;
    int done = 0;
#pragma omp critical(hl_mpi)
    {
        MPI_Irecv(mine, n, MPI_INT, left, MPI_ANY_TAG, comm, &rreq);
        MPI_Request_free(&rreq);
        MPI_Issend(send, n, MPI_INT, right, 0, comm, &sreq);
    }
    while (!done) {
#pragma omp critical(hl_mpi)
        MPI_Test(&sreq, &done, MPI_STATUS_IGNORE);
        if (!done) hl_sleep_us(20);
    }
    for (int i = n - 1; i >= 0; i--)
        while (mine[i] == -1) { /* an empty probe keeps MPI's progress going */
            int f = 0;
#pragma omp critical(hl_mpi)
            MPI_Iprobe(left, 32767, comm, &f, MPI_STATUS_IGNORE);
            hl_sleep_us(20);
        }
    slot_of[(mine[0] & 1023) >> 5] = mine;
#pragma omp barrier
    memcpy(recv, slot_of[t], (size_t)n * sizeof(int));
    MPI_Message msg;
    int found = 0;
    done = 0;
#pragma omp critical(hl_mpi)
    MPI_Issend(send, 0, MPI_INT, right, 1 + t, comm, &sreq);
    while (!found) {
#pragma omp critical(hl_mpi)
        MPI_Improbe(left, 1 + t, comm, &found, &msg, MPI_STATUS_IGNORE);
        if (!found) hl_sleep_us(20);
    }
#pragma omp critical(hl_mpi)
    MPI_Mrecv(recv, n, MPI_INT, &msg, MPI_STATUS_IGNORE);
    while (!done) {
#pragma omp critical(hl_mpi)
        MPI_Test(&sreq, &done, MPI_STATUS_IGNORE);
        if (!done) hl_sleep_us(20);
    }
#pragma omp barrier
}
""", ['hidden_exchange_block'], "attacker A4 (A4b): each MPI_ANY_TAG MPI_Irecv freed at once and its buffer polled, the blocks sorted in shared memory, an empty tagged message received into the filled block",
    reason="freed a receive before it completed"))
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
/* A5: the forbidden pattern (issue 36 / K1) with the tracer's reading put on the right thread:
 * every message has tag 0 and each thread posts MPI_Irecv(MPI_ANY_TAG) into a scratch slot;
 * it watches the slot (driving MPI's progress with empty probes) until the block has landed,
 * reads whose block it is from the tag bits, and hands its request to that thread, which
 * completes it with MPI_Wait: the tracer reads the buffer in the completing call's record, so
 * every reading is filed under the thread whose block it holds. */
#define MAXT 64
static int scratch_n;
static int *scratch;               /* MAXT slots of n ints */
static int *slot_of[MAXT];         /* the block of thread u, as found */
static MPI_Request req_of[MAXT];   /* the receive that holds it */

int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI in exchange_block");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num();
#pragma omp masked
    {
        if (scratch_n < n) {
            free(scratch);
            scratch = malloc((size_t)MAXT * n * sizeof(int));
            scratch_n = n;
        }
    }
#pragma omp barrier
    int *mine = scratch + (size_t)t * n;
    for (int i = 0; i < n; i++) mine[i] = -1;
    MPI_Request rreq, sreq;
    int done = 0;
#pragma omp critical(hl_mpi)
    {
        MPI_Irecv(mine, n, MPI_INT, left, MPI_ANY_TAG, comm, &rreq);
        MPI_Issend(send, n, MPI_INT, right, 0, comm, &sreq);
    }
    while (mine[0] == -1 || mine[n - 1] == -1) {
        int f = 0;
#pragma omp critical(hl_mpi)
        MPI_Iprobe(left, 32767, comm, &f, MPI_STATUS_IGNORE);
        hl_sleep_us(20);
    }
    int owner = (mine[0] & 1023) >> 5;
    slot_of[owner] = mine;
    req_of[owner] = rreq;
#pragma omp barrier
    /* complete the receive that holds my block (posted by whichever thread) */
#pragma omp critical(hl_mpi)
    MPI_Wait(&req_of[t], MPI_STATUS_IGNORE);
    memcpy(recv, slot_of[t], (size_t)n * sizeof(int));
    while (!done) {
#pragma omp critical(hl_mpi)
        MPI_Test(&sreq, &done, MPI_STATUS_IGNORE);
        if (!done) hl_sleep_us(20);
    }
#pragma omp barrier
}
""", ['hidden_exchange_block'], "attacker A4 (A5): MPI_ANY_TAG receives, each request handed to the thread whose block landed in it, which completes it with MPI_Wait",
    reason="held thread"))

# fresh attacker A7 (2026-12-07): lab 01 (b) with no lock, each thread calling MPI only in its own
# time slot (4/4 twice); the cell reads no clock and times no wait (hybrid_models.timing_faults)
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread, one at a time");
}

/* cheat (timing game): no mutual exclusion; each thread calls MPI only inside its own time
 * slot of the clock (slots of 500 us, thread t owns slot t mod T), so calls never overlap in
 * practice though nothing serialises them */
static void my_slot(int t, int T) {
    for (;;) {
        long us = (long)(hl_now() * 1e6);
        long phase = us % (500L * T);
        if (phase >= 500L * t + 50 && phase < 500L * t + 350) return;
        hl_sleep_us(20);
    }
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    MPI_Request r[2];
    int done = 0;
    my_slot(t, T);
    MPI_Irecv(recv, n, MPI_INT, left, t, comm, &r[0]);
    MPI_Issend(send, n, MPI_INT, right, t, comm, &r[1]);
    while (!done) {
        my_slot(t, T);
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(100);
    }
}
""", ['hidden_exchange_block'], "attacker A7 (c4): no lock, each thread calls MPI only in its own 500 us slot of hl_now",
    reason="no hl_now"))
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread, one at a time");
}

/* the clock-slot game without a clock: thread t sleeps t x 3 ms before it calls MPI at all and
 * completes its exchange before the next thread wakes; nothing serialises the calls */

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    MPI_Request r[2];
    int done = 0;
    (void)T;
    hl_sleep_us(3000 * t);
    MPI_Irecv(recv, n, MPI_INT, left, t, comm, &r[0]);
    MPI_Issend(send, n, MPI_INT, right, t, comm, &r[1]);
    while (!done) {
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(100);
    }
}
""", ['hidden_exchange_block'], "attacker A7's c4 without a clock: thread t sleeps t x 3 ms before its calls, no lock",
    reason="no hl_sleep_us"))
# its lost attempts, kept lost now that a persistent synchronous send and a started persistent
# receive count: a standard send made persistent is a standard send
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread, one at a time");
}

/* cheat: standard-mode send dressed as a persistent request (MPI_Send_init + MPI_Start) */
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num();
    MPI_Request r[2];
    int done = 0;
#pragma omp critical(mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, t, comm, &r[0]);
        MPI_Send_init(send, n, MPI_INT, right, t, comm, &r[1]);
        MPI_Start(&r[1]);
    }
    while (!done) {
#pragma omp critical(mpi)
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
#pragma omp critical(mpi)
    MPI_Request_free(&r[1]);
}
""", ['hidden_exchange_block'], "attacker A7 (c1): a standard-mode send dressed as a persistent request (MPI_Send_init + MPI_Start)",
    reason="use synchronous sends"))
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread, one at a time");
}

/* cheat: the block travels by a standard-mode send made persistent (MPI_Send_init +
 * MPI_Start, which only buffering completes early); a synchronous send of no data (a token,
 * MPI_Issend of 0 ints on its own tag) stands in for the synchronous send the part asks for */
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num();
    MPI_Request r[4];
    int done = 0, token = 0;
#pragma omp critical(mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, t, comm, &r[0]);
        MPI_Irecv(&token, 0, MPI_INT, left, 1000 + t, comm, &r[1]);
        MPI_Send_init(send, n, MPI_INT, right, t, comm, &r[2]);
        MPI_Start(&r[2]);
        MPI_Issend(&token, 0, MPI_INT, right, 1000 + t, comm, &r[3]);
    }
    while (!done) {
#pragma omp critical(mpi)
        MPI_Testall(4, r, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
#pragma omp critical(mpi)
    MPI_Request_free(&r[2]);
}
""", ['hidden_exchange_block'], "attacker A7 (c5): the block by MPI_Send_init + MPI_Start, an empty MPI_Issend token for the synchronous send",
    reason="use synchronous sends"))

# fresh attacker A12 (2026-12-07): lab 01 (b) with no mutual exclusion, 4/4 in 2 of 4 gradings
# (an overlap was seen only when one happened to occur) and, with turns kept by busy work, 4/4
# three times; the student-exchange build now holds each call until another thread is inside MPI
# too or every other thread waits at a lock, a critical section or a barrier (thread_ring.c)
# Without the lock the serialized-level library's own state is shared unguarded: the check of the
# blocks may see a corrupted delivery before the overlap (CI stop 68 did), each check a loss of (b):
NO_LOCK_LOSSES = ("break thread level 'serialized' | every block must arrive by the thread's own receive"
                  " | did not arrive from the same thread | waited 1 s inside MPI")
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block");
}
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), done = 0;
    MPI_Request r[2];
    MPI_Irecv(recv, n, MPI_INT, left, t, comm, &r[0]);
    MPI_Issend((void *)send, n, MPI_INT, right, t, comm, &r[1]);
    while (!done) {
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(2000);
    }
}
""", ['hidden_exchange_block'], 'attacker A12 (l01_d_nolock_test): no lock, every thread posts and tests freely with the allowed 2 ms pause between tests',
    reason=NO_LOCK_LOSSES))
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block");
}
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), done = 0;
    MPI_Request r[2];
    MPI_Irecv(recv, n, MPI_INT, left, t, comm, &r[0]);
    MPI_Issend((void *)send, n, MPI_INT, right, t, comm, &r[1]);
    while (!done) {
        MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(10000);
    }
}
""", ['hidden_exchange_block'], 'attacker A12 (l01_d_nolock_test2): no lock, every thread posts and tests freely with a 10 ms pause between tests',
    reason=NO_LOCK_LOSSES))
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
static long sink[64 * 16];
static _Thread_local long calls = 0;

static void spin(long rounds) {
    long acc = 0;
    for (long k = 0; k < rounds; k++)
        acc = acc * 6364136223846793005L + k;
    sink[16 * (omp_get_thread_num() % 64)] += acc;
}

int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    const long SLOT = 25000000L; /* some tens of ms of spinning */
    spin(calls == 0 ? SLOT * t : SLOT * T);
    calls++;
    MPI_Request r[2];
    MPI_Irecv(recv, n, MPI_INT, left, t, comm, &r[0]);
    MPI_Issend((void *)send, n, MPI_INT, right, t, comm, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
}
""", ['hidden_exchange_block'], "attacker A12 (l01_d_spinslots3): no lock, each thread's calls in its own turn kept by a counted arithmetic loop (no clock, no sleep)",
    reason=NO_LOCK_LOSSES))  # any of them, by the turns' timing

# fresh attacker A14 (2026-12-07, issue 36): lab 01 (b), the hold's state written from the cell
# through a pointer at a fixed offset from a static of the cell (same program, .bss): 4/4; the
# hold's state is now on the kernel's sealed pages (thread_ring.c), and a failed try of a lock
# another thread holds counts as waiting only until that thread calls MPI (lock_fault)
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
static int anchor;

int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    volatile int *ran_out = (volatile int *)((char *)&anchor + 0x1047C);
    *ran_out = 1;
    int tag = omp_get_thread_num(), flag = 0;
    MPI_Request req[2];
    MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &req[0]);
    MPI_Issend(send, n, MPI_INT, right, tag, comm, &req[1]);
    MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
    while (!flag) {
        hl_sleep_us(5000);
        MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
    }
}
""", ['hidden_exchange_block'], "attacker A14 (b01_c2_poke): the kit's static that ended every hold (ring_ran_out) set through a pointer at a fixed offset from a static of the cell, then no lock at all",
    reason="break thread level 'serialized' | waited 1 s inside MPI | every block must arrive | died on signal"))
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
static int anchor;

int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    volatile int *ran_out = (volatile int *)((char *)&anchor + 0x1047C);
    *ran_out = 1;
    int tag = omp_get_thread_num(), flag = 0;
    MPI_Request req[2];
    MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &req[0]);
    MPI_Issend(send, n, MPI_INT, right, tag, comm, &req[1]);
    while (!flag) {
        hl_sleep_us(7000);
        MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
    }
}
""", ['hidden_exchange_block'], "attacker A14 (b01_c2b_poke_pause7): the hold's static set through a pointer at a fixed offset, no lock, a 7 ms pause before each test",
    reason="break thread level 'serialized' | waited 1 s inside MPI | every block must arrive | died on signal"))
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
#include <stdatomic.h>
static int anchor;
static atomic_flag busy = ATOMIC_FLAG_INIT;

int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    volatile int *ran_out = (volatile int *)((char *)&anchor + 0x10478);
    *ran_out = 1;
    int tag = omp_get_thread_num(), flag = 0;
    MPI_Request req[2];
    while (atomic_flag_test_and_set(&busy)) {
    }
    MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &req[0]);
    MPI_Issend(send, n, MPI_INT, right, tag, comm, &req[1]);
    atomic_flag_clear(&busy);
    while (!flag) {
        while (atomic_flag_test_and_set(&busy)) {
        }
        MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
        atomic_flag_clear(&busy);
        if (!flag) hl_sleep_us(20);
    }
}
""", ['hidden_exchange_block'], "attacker A14 (b01_c3_poke_spinflag): the hold's static set through a pointer at a fixed offset, a spin flag of the cell's own (atomic_flag) around each call",
    reason="break thread level 'serialized' | waited 1 s inside MPI | every block must arrive | died on signal"))
GAMING.append(attempt('method', 'exchange_block', r"""
%%c EXCHANGE_C thread_ring
static omp_lock_t locks[2];
static int made;
int check_thread_level(hl_ctx *ctx) {
    if (!made) { omp_init_lock(&locks[0]); omp_init_lock(&locks[1]); made = 1; }
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread calls MPI");
}
static _Thread_local int mine_held;
static void pause_(void) {
    int t = omp_get_thread_num();
    for (long i = 0; i < 200000; i++) if (omp_test_lock(&locks[1 - t])) { omp_unset_lock(&locks[1 - t]); }
}
void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), flag = 0;
    if (!mine_held) { omp_set_lock(&locks[t]); mine_held = 1; }
    MPI_Request req[2];
    pause_();
    MPI_Irecv(recv, n, MPI_INT, left, t, comm, &req[0]);
    MPI_Issend(send, n, MPI_INT, right, t, comm, &req[1]);
    while (!flag) {
        pause_();
        MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
    }
}
""", ['hidden_exchange_block'], "F01p: each thread holds a lock of its own for good and, before each MPI call, spins on failed omp_test_lock of the other's (which looks like waiting), then calls MPI without it",
    reason='it called MPI after a try of a lock'))
