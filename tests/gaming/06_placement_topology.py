"""Lab 06: gaming attempts (see tests/gaming/__init__.py) and the graded functions' hidden inputs
with the instructor's judge (ORACLES, for tests/test_no_kit_answers.py)."""

import pandas as pd

from gaming import FRAME_TOOLS, Oracle, attempt, c_evidence
from solutions_c import NODE_SUM
from wrong_answers import c_cell, changed, together

NODES_SOLUTION = c_cell("NODES_C", "node_sum", NODE_SUM)
# node_sum after the threads' sum: the master's three steps, replaced by the attempts
MASTER = """#pragma omp masked
    {
        int node_rank;
        MPI_Comm_rank(node, &node_rank);
        MPI_Reduce(node_rank == 0 ? MPI_IN_PLACE : rank_sum, rank_sum, n, MPI_DOUBLE, MPI_SUM, 0,
                   node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }"""

GAMING = [
    # (a) cut_edges
    attempt("shortcut", "cut_edges", """
from hybridlab.mapping import tables as _t


def cut_edges(rows, cols, node_of_rank, _kit=_t.cut_links):
    return len(_kit(rows, cols, list(node_of_rank)))
""", {"hidden_cut_edges"}, why="the kit's cut_links captured in a default argument", reason="NameError"),
    attempt("shortcut", "cut_edges", """
import matplotlib.pyplot as plt
from hybridlab.mapping.plots import rank_map_plot


def cut_edges(rows, cols, node_of_rank):
    fig = rank_map_plot(rows, cols, list(node_of_rank))  # its title counted the cut links
    count = int(fig.axes[0].get_title().split()[0])
    plt.close(fig)
    return count
""", {"hidden_cut_edges"}, why="the count read from the title of the kit's map drawing", reason="IndexError"),
    attempt("shortcut", "cut_edges", """
import inspect
from hybridlab.mapping import tables as _t

_kit = dict(vars(_t))  # a fresh copy of the kit's code, out of any guard's reach
exec(inspect.getsource(_t.grid_links) + inspect.getsource(_t.cut_links), _kit)


def cut_edges(rows, cols, node_of_rank):
    return len(_kit["cut_links"](rows, cols, list(node_of_rank)))
""", {"hidden_cut_edges"}, why="the kit's cut_links copied from its source", reason="NameError"),
    attempt("method", "cut_edges", """
def cut_edges(rows, cols, node_of_rank):
    nodes = list(node_of_rank)
    k = len(set(nodes))
    if k == 1:
        return 0
    if all(nodes[r] == r % k for r in range(len(nodes))):  # round robin: closed form
        return rows * (cols - 1) + (rows - 1) * cols * (cols % k != 0)
    if nodes == sorted(nodes):  # sequential: one cut row between nodes
        return (k - 1) * cols
    return 2 * (k - 1)  # blocks
""", {"hidden_cut_edges"}, why="closed forms of the three launcher maps instead of counting links", reason="the links between nodes are"),
    attempt("hidden", "cut_edges", """
def cut_edges(rows, cols, node_of_rank):
    nodes = tuple(node_of_rank)
    known = {(2, 8, tuple(r % 2 for r in range(16))): 14, (2, 8, (0,) * 8 + (1,) * 8): 8,
             (2, 8, (0,) * 4 + (1,) * 4 + (0,) * 4 + (1,) * 4): 2}
    if (rows, cols, nodes) in known:
        return known[(rows, cols, nodes)]
    return sum(nodes[r] != nodes[r + 1] for r in range(len(nodes) - 1))
""", {"hidden_cut_edges"}, why="slide 13's maps hard-coded, else neighbours in rank order", reason="the links between nodes are"),
    attempt("constant", "cut_edges", """
from hybridlab.mapping import tables
from hybridlab.reference import REFERENCE


def cut_edges(rows, cols, node_of_rank):
    published = dict(REFERENCE["002-slide-13"].frame.itertuples(index=False))
    for name, known in tables.slide13_maps().items():
        if list(node_of_rank) == known:
            return published[name]
    return 0
""", {"hidden_cut_edges"}, why="Rabenseifner's published counts looked up, 0 for any other map", reason="the links between nodes are"),
    # (d) memory_bandwidth
    attempt("shortcut", "memory_bandwidth", """
from hybridlab.mapping.exercise import weak_summary


def memory_bandwidth(records):
    slowest = weak_summary(records)
    slowest = slowest[slowest["work"] == "memory"].set_index(["bind", "ranks"])
    mem = records[records["work"] == "memory"]
    per_rank = mem.groupby(["bind", "ranks"])["bytes"].first().loc[slowest.index]
    ranks = slowest.index.get_level_values("ranks").to_numpy()
    gbps = ranks * per_rank.to_numpy() / slowest["seconds"].to_numpy() / 1e9
    return pd.DataFrame({"GBps": gbps}, index=slowest.index)
""", {"hidden_memory_bandwidth"}, why="the kit's weak_summary: ranks x the slowest rank's bandwidth", reason="summed, give"),
    attempt("method", "memory_bandwidth", """
def memory_bandwidth(records):
    mem = records[records["work"] == "memory"].copy()
    mem["GBps"] = mem["bytes"] / mem["seconds"] / 1e9
    per_rank = mem.groupby(["bind", "ranks", "rank"])["GBps"].median()
    return per_rank.groupby(["bind", "ranks"]).sum().to_frame("GBps")
""", {"hidden_memory_bandwidth"},
        why="the median of per-sample bandwidths: the same only for odd sample counts", reason="summed, give"),
    attempt("hidden", "memory_bandwidth", """
def memory_bandwidth(records):
    records = weak if len(records) > 7 else records  # the notebook's own runs, or the example
    mem = records[records["work"] == "memory"]
    per_rank = mem.groupby(["bind", "ranks", "rank"]).agg(seconds=("seconds", "median"),
                                                          bytes=("bytes", "first"))
    per_rank["GBps"] = per_rank["bytes"] / per_rank["seconds"] / 1e9
    return per_rank.groupby(["bind", "ranks"])[["GBps"]].sum()
""", {"hidden_memory_bandwidth"}, why="right for the notebook's own records only, whatever it is given", reason="the records hold"),
    attempt("constant", "memory_bandwidth", """
def memory_bandwidth(records):
    index = pd.MultiIndex.from_tuples([("cores", 1), ("cores", 2)], names=["bind", "ranks"])
    return pd.DataFrame({"GBps": [2.0, 3.0]}, index=index)
""", {"hidden_memory_bandwidth"}, why="the visible example's answer typed in",
        reason="memory_bandwidth: ("),
    # (e) node-aware ranks in C
    attempt("method", "node_sum", changed(NODES_SOLUTION, MASTER, """#pragma omp masked
    MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);"""),
        {"hidden_node_sum"}, why="one flat MPI_Allreduce on the world: the node scheme skipped", reason="neither its node nor the leaders"),
    attempt("method", "node_sum", changed(NODES_SOLUTION, MASTER, """#pragma omp masked
    {
        MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node); /* a node step, for show */
    }"""), {"hidden_node_sum"},
        why="a node broadcast as decoration: the sum itself by an allreduce on the world", reason="neither its node nor the leaders"),
    attempt("method", "node_sum", changed(NODES_SOLUTION, MASTER, """#pragma omp critical(mpi)
    { /* every thread in turn, each pass the whole sum */
        int node_rank;
        double *part = malloc(n * sizeof *part);
        memcpy(part, rank_sum, n * sizeof *part);
        MPI_Comm_rank(node, &node_rank);
        MPI_Reduce(node_rank == 0 ? MPI_IN_PLACE : part, part, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(part, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
        free(part);
    }"""), {"hidden_node_sum"},
        why="every thread calls MPI inside omp critical: FUNNELED broken, the sums right", reason="ThreadComplianceError"),
    attempt("hidden", "node_sum", changed(NODES_SOLUTION,
        "MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);",
        "MPI_Comm_split(world, rank / 2, rank, node); /* the notebook's nodes hold 2 ranks */"),
        {"hidden_node_sum"}, why="nodes of two ranks hard-coded: right for the visible shapes only", reason="wrong result"),
    attempt("shortcut", "node_sum", changed(NODES_SOLUTION,
        "    MPI_Comm_rank(*node, &node_rank);\n"
        "    MPI_Comm_split(world, node_rank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);",
        "    *leaders = hl_node_leaders(world, *node); /* the kit's own reference */\n"
        "    (void)node_rank;"), {"hidden_node_sum"},
        why="the kit's static hl_node_leaders called from the student's code", reason="kit node helpers called"),
]


def _cut(rows, cols, nodes):
    return sum(nodes[r * cols + c] != nodes[r * cols + c + 1]
               for r in range(rows) for c in range(cols - 1)) + sum(
        nodes[r * cols + c] != nodes[(r + 1) * cols + c]
        for r in range(rows - 1) for c in range(cols))


def _number(got, want):
    """The count, or a collection of exactly that many links."""
    try:
        if isinstance(got, list | tuple | set | dict):
            return len(got) == want and all(isinstance(x, tuple) for x in got)
        return int(got) == want and not isinstance(got, bool)
    except (TypeError, ValueError):
        return False


_MAP = [0, 1, 1, 2, 0, 0, 2, 1, 1, 0, 2, 2, 0, 1, 0]  # 3 x 5, three nodes
_RECORDS = pd.DataFrame({
    "work": ["memory"] * 8, "bind": ["spread"] * 8, "ranks": [2] * 8,
    "rank": [0, 0, 0, 0, 1, 1, 1, 1], "seconds": [0.5, 0.25, 1.0, 2.0, 0.1, 0.3, 0.2, 0.4],
    "bytes": [1e9] * 4 + [3e9] * 4,
})
_GBPS = 1e9 / 0.75 / 1e9 + 3e9 / 0.25 / 1e9


def _bandwidth(got):
    try:
        return abs(float(got.loc[("spread", 2), "GBps"]) - _GBPS) < 1e-9
    except Exception:  # noqa: BLE001 - anything else is not the answer
        return False


ORACLES = [
    Oracle("cut_edges", (3, 5, _MAP), lambda got: _number(got, _cut(3, 5, _MAP))),
    Oracle("cut_edges", (4, 6, [r % 3 for r in range(24)]),
           lambda got: _number(got, _cut(4, 6, [r % 3 for r in range(24)]))),
    Oracle("memory_bandwidth", (_RECORDS,), _bandwidth),
]

# Fresh attackers' attempts that scored before the fixes of this wave (a helper that had
# seen neither the solutions nor the tests, grading through the real sandbox).
GAMING += [
    attempt('method', 'node_sum', '%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int rank, nrank;\n    MPI_Comm_rank(world, &rank);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);\n    MPI_Comm_rank(*node, &nrank);\n    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);\n}\n\n/* the kernel\'s value(rank, thread, i), copied from node_sum.c: the sum needs no data */\nstatic double value(int rank, int thread, long i) {\n    return (double)((long)(rank * 64 + thread + 1) * 1000 + i % 991);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    (void)mine;\n    int T = omp_get_num_threads();\n#pragma omp barrier\n#pragma omp masked\n    {\n        int size; double dummy = 0, got = 0;\n        MPI_Comm_size(MPI_COMM_WORLD, &size);\n        for (int i = 0; i < n; i++) {\n            double s = 0;\n            for (int r = 0; r < size; r++)\n                for (int t = 0; t < T; t++) s += value(r, t, i);\n            sum[i] = s;\n        }\n        /* the three steps, for show */\n        MPI_Reduce(&dummy, &got, 1, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) MPI_Allreduce(&dummy, &got, 1, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(&got, 1, MPI_DOUBLE, 0, node);\n        (void)rank_sum;\n    }\n#pragma omp barrier\n}\n',
            loses={'hidden_node_sum'}, why="fresh attacker: closed-form sum from the kernel's value(), dummy node/leader collectives",
            reason="wrong result | carried"),
    attempt('method', 'node_sum', '%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int rank, nrank;\n    MPI_Comm_rank(world, &rank);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);\n    MPI_Comm_rank(*node, &nrank);\n    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    for (int i = 0; i < n; i++) {\n#pragma omp atomic\n        rank_sum[i] += mine[i];\n    }\n#pragma omp barrier\n#pragma omp masked\n    {\n        int P;\n        MPI_Comm_size(MPI_COMM_WORLD, &P);\n        /* node step, traced, for show */\n        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) MPI_Barrier(leaders);\n        MPI_Barrier(node);\n        /* the real sum, flat over all ranks: MPI_Reduce_scatter is not a traced name */\n        double *rep = malloc((size_t)n * P * sizeof *rep);\n        int *counts = malloc(P * sizeof *counts);\n        for (int r = 0; r < P; r++) {\n            counts[r] = n;\n            for (int i = 0; i < n; i++) rep[(size_t)r * n + i] = rank_sum[i];\n        }\n        MPI_Reduce_scatter(rep, sum, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n        free(rep); free(counts);\n    }\n#pragma omp barrier\n}\n',
            loses={'hidden_node_sum'}, why='fresh attacker: traced node reduce for show + flat MPI_Reduce_scatter (untraced name) over world', reason="MPI_Reduce_scatter is not traced by the kit"),
]

# The test's own interpreter reached (issue 36): its reference called, its expected value read,
# a judging module of the kit replaced from an earlier cell.
CUT_EDGES = """
def cut_edges(rows, cols, node_of_rank):
    nodes = list(node_of_rank)
    right = sum(nodes[r * cols + c] != nodes[r * cols + c + 1]
                for r in range(rows) for c in range(cols - 1))
    return right + sum(nodes[i] != nodes[i + cols] for i in range(len(nodes) - cols))
"""
GAMING += [
    attempt("interpreter", "cut_edges", FRAME_TOOLS + """

def cut_edges(rows, cols, node_of_rank):
    reference = _from_the_test(("_cut_ref", "_reference"), True)
    return reference(rows, cols, list(node_of_rank)) if reference else 0
""", {"hidden_cut_edges"}, why="the hidden test's reference found in its frames and called",
        reason="the links between nodes are"),
    attempt("interpreter", "cut_edges", FRAME_TOOLS + """

def cut_edges(rows, cols, node_of_rank):
    return _from_the_test(("_want", "want", "_expected"), False) or 0
""", {"hidden_cut_edges"}, why="the hidden test's expected value read from its frames",
        reason="the links between nodes are"),
    attempt("interpreter", "memory_bandwidth", FRAME_TOOLS + """
import pandas as pd


def memory_bandwidth(records):
    reference = _from_the_test(("_bandwidth_ref", "_reference"), True)
    found = reference(records) if reference else {("cores", 1): 1.0}
    return pd.Series(found, name="GBps").rename_axis(["bind", "ranks"]).to_frame()
""", {"hidden_memory_bandwidth"}, why="the hidden test's reference found in its frames and called",
        reason="the records hold"),
    attempt("interpreter", "memory_bandwidth", FRAME_TOOLS + """
import pandas as pd


def memory_bandwidth(records):
    found = _from_the_test(("_want", "want"), False) or {("cores", 1): 1.0}
    return pd.Series(found, name="GBps").rename_axis(["bind", "ranks"]).to_frame()
""", {"hidden_memory_bandwidth"}, why="the hidden test's expected value read from its frames",
        reason="the records hold"),
    together(
        attempt("interpreter", "cut_edges", CUT_EDGES + """

import pandas as pd
import hybridlab.runs.student_c as _sc


def _on_its_node(results):  # every rank's collective on its own node, whatever was called
    records = results.records
    ranks = int(records["rank"].nunique())
    nodes = int(records.query("record == 'node'")["nodes"].iloc[0])
    k = -(-ranks // nodes)
    rows = []
    for r in range(ranks):
        node = tuple(range(r - r % k, min(r - r % k + k, ranks)))
        rows.append({"rank": r, "thread": 0, "call": "MPI_Reduce", "start": 0.0, "end": 0.0,
                     "comm_size": len(node), "members": node, "hosts": ()})
    return pd.DataFrame(rows)


_sc.collective_comms = _on_its_node
""", set(), why="a right cut_edges"),
        attempt("interpreter", "node_sum", changed(NODES_SOLUTION, MASTER, """#pragma omp masked
    MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);"""),
            {"hidden_node_sum"}, why="a flat MPI_Allreduce, the trace's reader "
            "hybridlab.runs.student_c.collective_comms replaced from the earlier cell",
            reason="neither its node nor the leaders"),
    ),
]
# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
GAMING += c_evidence("06_placement_topology", "node_sum", {"hidden_node_sum"}, "MPI_Allreduce",
                     reasons=True)

# Issue 36's other ways into the test's interpreter: its frames read with inspect.stack(), a
# global named like the grader's reference.
GAMING += [
    attempt("interpreter", "memory_bandwidth", """
import inspect

import pandas as pd


def memory_bandwidth(records):
    for frame in inspect.stack()[1:]:  # the calling test's locals: its expected bandwidths
        found = frame.frame.f_locals.get("_want")
        if isinstance(found, dict):
            return pd.Series(found, name="GBps").rename_axis(["bind", "ranks"]).to_frame()
    index = pd.MultiIndex.from_tuples([("cores", 1)], names=["bind", "ranks"])
    return pd.DataFrame({"GBps": [1.0]}, index=index)
""", {"hidden_memory_bandwidth"}, why="the expected bandwidths looked for in inspect.stack()",
            reason="the records hold"),
    attempt("interpreter", "cut_edges", """
def _cut_ref(rows, cols, nodes):  # named like the grader's reference: links wrap around
    return sum(nodes[r * cols + c] != nodes[r * cols + (c + 1) % cols]
               for r in range(rows) for c in range(cols)) + sum(
        nodes[r * cols + c] != nodes[((r + 1) % rows) * cols + c]
        for r in range(rows) for c in range(cols))


def cut_edges(rows, cols, node_of_rank):
    return int(_cut_ref(rows, cols, list(node_of_rank)))
""", {"hidden_cut_edges"}, why="a global _cut_ref like the grader's reference, both on a torus",
            reason="the links between nodes are"),
]

# The notebook's own name for the build replaced from an earlier cell: the hidden test imports
# its tools itself, so the flat allreduce is still what it builds and runs.
GAMING += [
    together(
        attempt("interpreter", "cut_edges", CUT_EDGES + """

import hybridlab.mapping.exercise as _exercise

_build_kit = _exercise.build_student_nodes
_SOLUTION = r'''""" + NODES_SOLUTION.split("\n", 1)[1] + """'''


def build_student_nodes(code, name="student_nodes"):  # whatever the cell, the right C is built
    return _build_kit("\\n" + _SOLUTION, name)
""", set(), why="a right cut_edges"),
        attempt("interpreter", "node_sum", changed(NODES_SOLUTION, MASTER, """#pragma omp masked
    MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);"""),
            {"hidden_node_sum"}, why="a flat MPI_Allreduce, the notebook's build_student_nodes "
            "replaced from the earlier cell by one that builds a right answer",
            reason="neither its node nor the leaders"),
    ),
    attempt("interpreter", "node_sum", '''%%c NODES_C node_sum
/* determined: a reduce on the node (to show one), then the real sum by point-to-point over
   the whole world to rank 0 and back: no collective on the world ever */
static MPI_Comm world_c;
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r; MPI_Comm_rank(world, &r);
    world_c = world;
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    int nr; MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
#pragma omp atomic
        rank_sum[i] += mine[i];
    }
#pragma omp barrier
#pragma omp masked
    {
        int r, p, nr;
        MPI_Comm_rank(world_c, &r); MPI_Comm_size(world_c, &p);
        MPI_Comm_rank(node, &nr);
        double *tmp = malloc((size_t)n * sizeof *tmp);
        MPI_Reduce(rank_sum, tmp, n, MPI_DOUBLE, MPI_SUM, 0, node);  /* for show */
        if (r == 0) {
            for (int i = 0; i < n; i++) sum[i] = rank_sum[i];
            for (int q = 1; q < p; q++) {
                MPI_Recv(tmp, n, MPI_DOUBLE, q, 77, world_c, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; i++) sum[i] += tmp[i];
            }
            for (int q = 1; q < p; q++) MPI_Ssend(sum, n, MPI_DOUBLE, q, 78, world_c);
        } else {
            MPI_Ssend(rank_sum, n, MPI_DOUBLE, 0, 77, world_c);
            MPI_Recv(sum, n, MPI_DOUBLE, 0, 78, world_c, MPI_STATUS_IGNORE);
        }
        free(tmp);
    }
#pragma omp barrier
}
''', loses={"hidden_node_sum"},
            why="fresh attacker: every rank sends its sum point to point over the world to rank 0, which sends the total back; one MPI_Reduce on the node made and thrown away",
            reason="only the leaders exchange | made no reduction with the other leaders | reductions with the other leaders"),
]

# A fresh attacker's (helper-36, 2026-12-03) wrong methods that kept full points, now refused:
# the scheme's steps done without the reductions it names
GAMING += [
    attempt("method", "node_sum", changed(NODES_SOLUTION, MASTER, """#pragma omp masked
    {
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL) {  /* the leaders' sum passed round a ring of messages */
            int L, me;
            MPI_Comm_size(leaders, &L);
            MPI_Comm_rank(leaders, &me);
            double *pass = malloc(n * sizeof *pass), *got = malloc(n * sizeof *got);
            for (int i = 0; i < n; i++) pass[i] = sum[i];
            for (int k = 1; k < L; k++) {
                MPI_Sendrecv(pass, n, MPI_DOUBLE, (me + 1) % L, 5, got, n, MPI_DOUBLE,
                             (me + L - 1) % L, 5, leaders, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; i++) { sum[i] += got[i]; pass[i] = got[i]; }
            }
            free(pass), free(got);
        }
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }"""), {"hidden_node_sum"}, why="the leaders combine by a ring of MPI_Sendrecv, never a reduction",
        reason="made no reduction with the other leaders | reductions with the other leaders"),
    attempt("method", "node_sum", changed(NODES_SOLUTION, MASTER, """#pragma omp masked
    {
        int k;
        MPI_Comm_size(node, &k);
        double *all = malloc((size_t)k * n * sizeof *all);  /* every rank's sums, added here */
        MPI_Allgather(rank_sum, n, MPI_DOUBLE, all, n, MPI_DOUBLE, node);
        for (int i = 0; i < n; i++) {
            sum[i] = 0;
            for (int j = 0; j < k; j++) sum[i] += all[(size_t)j * n + i];
        }
        free(all);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }"""), {"hidden_node_sum"}, why="the node's step an MPI_Allgather and a sum of the cell's own",
        reason="made no reduction on its node | reductions on its node"),
]

# A fresh hurried student's (helper-41, 2026-12-03) attempt that kept 4/4, now refused: every
# thread adds into the shared rank_sum with no atomic or critical section (Archer sees the race).
GAMING += [
    attempt("method", "node_sum", """
%%c NODES_C node_sum
/* node: the ranks of this rank's node (MPI_COMM_TYPE_SHARED), ordered by world rank.
   leaders: node rank 0 of every node, ordered by world rank; MPI_COMM_NULL on the other ranks. */
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nrank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nrank);
    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}
/* Called by every thread of a parallel region. mine: this thread's n values; rank_sum: n
   doubles shared by the rank's threads, zero on entry; sum: n doubles shared by the threads,
   on return the sum over all threads of all ranks. Only the master thread calls MPI. */
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
        rank_sum[i] += mine[i];
    }
#pragma omp barrier
#pragma omp masked
    {
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
""", {"hidden_node_sum"}, why="the threads' adds into rank_sum unguarded: a data race",
            reason="Archer saw the threads of a rank race"),
]

# the cell's split_nodes as the attempts below write it (right: they lose on node_sum)
SPLIT_NODES = r'''void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nrank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nrank);
    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}
'''

# fresh attacker (attackH h06c, h06e, kept 4/4): each add split into an atomic read and an atomic
# write (adds lost, no race Archer reports); gathers summed by hand beside zero-count reductions
GAMING += [
    attempt("method", "node_sum", c_cell("NODES_C", "node_sum", r'''
/* hurried: each add split into an atomic read and an atomic write (not one atomic update):
 * two threads can read the same old value and one add is lost; no access is a data race, so
 * a race detector reports nothing */
''' + SPLIT_NODES + r'''
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
        double old;
#pragma omp atomic read
        old = rank_sum[i];
#pragma omp atomic write
        rank_sum[i] = old + mine[i];
    }
#pragma omp barrier
#pragma omp masked
    {
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
'''), {"hidden_node_sum"}, why="fresh attacker: omp atomic read then omp atomic write per add",
            reason="not an atomic read and an atomic write"),
    attempt("method", "node_sum", c_cell("NODES_C", "node_sum", r'''
/* hurried: the node's and the leaders' steps are gathers summed by hand; a zero-count
 * MPI_Reduce on the node and a zero-count MPI_Allreduce on the leaders stand in for the
 * reductions the scheme asks for */
#include <stdlib.h>

''' + SPLIT_NODES + r'''
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
#pragma omp atomic update
        rank_sum[i] += mine[i];
    }
#pragma omp barrier
#pragma omp masked
    {
        int nsize, nrank;
        double dummy = 0.0, got = 0.0;
        MPI_Comm_size(node, &nsize);
        MPI_Comm_rank(node, &nrank);
        double *all = malloc(sizeof(double) * (size_t)n * (size_t)nsize);
        MPI_Gather(rank_sum, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, node);
        MPI_Reduce(&dummy, &got, 0, MPI_DOUBLE, MPI_SUM, 0, node);
        if (nrank == 0) {
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int k = 0; k < nsize; k++) s += all[(size_t)k * n + i];
                sum[i] = s;
            }
        }
        free(all);
        if (leaders != MPI_COMM_NULL) {
            int lsize;
            MPI_Comm_size(leaders, &lsize);
            double *lall = malloc(sizeof(double) * (size_t)n * (size_t)lsize);
            MPI_Allgather(sum, n, MPI_DOUBLE, lall, n, MPI_DOUBLE, leaders);
            MPI_Allreduce(&dummy, &got, 0, MPI_DOUBLE, MPI_SUM, leaders);
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int k = 0; k < lsize; k++) s += lall[(size_t)k * n + i];
                sum[i] = s;
            }
            free(lall);
        }
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
'''), {"hidden_node_sum"}, why="fresh attacker: MPI_Gather / MPI_Allgather summed by hand beside "
            "zero-count MPI_Reduce / MPI_Allreduce decoys", reason="carried 0 bytes"),
]

# fresh attacker (helper-f3's round, 2026-12-04): full-size reductions (the n values, so the bytes
# the trace counts pass) whose results are never used, beside gathers summed by hand: 4/4 before;
# the kit now scales what each rank gives its node's reduction and each leader the leaders'
# (node_sum.c's nudge), and a sum that did not move with them is refused
GAMING += [
    attempt("method", "node_sum", c_cell("NODES_C", "node_sum", r'''
/* hurried: full-size MPI_Reduce on the node and MPI_Allreduce on the leaders, carrying the n
 * values (the bytes the trace counts), their results never used; the sums are made by hand from
 * an MPI_Gather on the node and an MPI_Allgather among the leaders */
#include <stdlib.h>

''' + SPLIT_NODES + r'''
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
#pragma omp atomic update
        rank_sum[i] += mine[i];
    }
#pragma omp barrier
#pragma omp masked
    {
        int nsize, nrank;
        MPI_Comm_size(node, &nsize);
        MPI_Comm_rank(node, &nrank);
        double *junk = malloc(sizeof(double) * (size_t)n);
        double *all = malloc(sizeof(double) * (size_t)n * (size_t)nsize);
        MPI_Reduce(rank_sum, junk, n, MPI_DOUBLE, MPI_SUM, 0, node); /* for the trace */
        MPI_Gather(rank_sum, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, node);
        if (nrank == 0)
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int k = 0; k < nsize; k++) s += all[(size_t)k * n + i];
                sum[i] = s;
            }
        free(all);
        if (leaders != MPI_COMM_NULL) {
            int lsize;
            MPI_Comm_size(leaders, &lsize);
            double *lall = malloc(sizeof(double) * (size_t)n * (size_t)lsize);
            MPI_Allreduce(sum, junk, n, MPI_DOUBLE, MPI_SUM, leaders); /* for the trace */
            MPI_Allgather(sum, n, MPI_DOUBLE, lall, n, MPI_DOUBLE, leaders);
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int k = 0; k < lsize; k++) s += lall[(size_t)k * n + i];
                sum[i] = s;
            }
            free(lall);
        }
        free(junk);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
'''), {"hidden_node_sum"}, why="fresh attacker: full-size MPI_Reduce / MPI_Allreduce whose "
            "results are dropped, beside MPI_Gather / MPI_Allgather summed by hand",
            reason="did not come out of your reductions"),
    attempt("method", "node_sum", c_cell("NODES_C", "node_sum", r'''
/* hurried: a full-size MPI_Reduce on the node (the bytes the trace counts), its result never
 * used: the node's sum made by hand from an MPI_Gather; the leaders' step a real reduction */
#include <stdlib.h>

''' + SPLIT_NODES + r'''
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
#pragma omp atomic update
        rank_sum[i] += mine[i];
    }
#pragma omp barrier
#pragma omp masked
    {
        int nsize, nrank;
        MPI_Comm_size(node, &nsize);
        MPI_Comm_rank(node, &nrank);
        double *junk = malloc(sizeof(double) * (size_t)n);
        double *all = malloc(sizeof(double) * (size_t)n * (size_t)nsize);
        MPI_Reduce(rank_sum, junk, n, MPI_DOUBLE, MPI_SUM, 0, node); /* for the trace */
        MPI_Gather(rank_sum, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, node);
        if (nrank == 0)
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int k = 0; k < nsize; k++) s += all[(size_t)k * n + i];
                sum[i] = s;
            }
        free(all);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        free(junk);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
'''), {"hidden_node_sum"}, why="fresh attacker: the node's step an MPI_Gather summed by hand "
            "beside a full-size MPI_Reduce whose result is dropped; the leaders' step a real reduction",
            reason="did not come out of your reductions"),
]

# Attacker F's F06e and F06i (20:43 UTC, 4/4 three times: issue H1 of attacker F's report): the
# master makes the three collectives on zeros and copies into `sum` the kernel's nudged expectation,
# found on the heap through the parallel region's shared pointers up its stack. Closed by helper-f10
# (the sum judged outside the process: no expected sum in the run; node_sum.c, node_sum_verdict).
# F06e's cell kept a complete honest answer as a fallback "if nothing is found", which the kit now
# always takes (when its scan does not fault), so its forgery stands here without that fallback;
# F06i's fallback (no node broadcast) is wrong on several nodes, its cell is kept exact.
GAMING += [
    attempt("method", "node_sum", "%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int wr, nr;\n    MPI_Comm_rank(world, &wr);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, wr, MPI_INFO_NULL, node);\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 1 : MPI_UNDEFINED, wr, leaders);\n}\n\n/* The kit's expected sum, found through the pointers on this (the master) thread's stack:\n   hl_kernel's frame, a few frames up, holds the parallel region's shared pointers, among them\n   the nudged expectation: a heap block of n doubles, large, finite and not whole. */\nstatic const double *find_expect(const double *sum, int n) {\n    size_t want = ((size_t)n * sizeof(double) + 8 + 15) & ~(size_t)15;\n    volatile uintptr_t here = 0;\n    const uintptr_t *sp = (const uintptr_t *)&here;\n    const double *found = NULL;\n    for (int k = 0; k < 1024 && !found; k++) {\n        uintptr_t v = sp[k];\n        if ((v & 15) || v == (uintptr_t)sum) continue;\n        uintptr_t s = (uintptr_t)sum;\n        if (v + ((uintptr_t)1 << 24) < s || v > s + ((uintptr_t)1 << 24)) continue;\n        if ((((const size_t *)v)[-1] & ~(size_t)7) != want) continue;\n        const double *d = (const double *)v;\n        int ok = 1, frac = 0;\n        for (int i = 0; i < n && ok; i++) {\n            double x = d[i];\n            if (!(x > 1000.0 && x < 1e15)) ok = 0;\n            else if (x != (double)(long long)x) frac++;\n        }\n        if (ok && frac > n / 2) found = d;\n    }\n    return found;\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    static const double *expect;\n#pragma omp barrier\n#pragma omp master\n    expect = find_expect(sum, n);\n#pragma omp barrier\n#pragma omp barrier\n#pragma omp master\n    {\n        double *zeros = calloc((size_t)n, sizeof *zeros), *junk = calloc((size_t)n, sizeof *junk);\n        const double *give = zeros;\n        MPI_Reduce(give, junk, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL)\n            MPI_Allreduce(MPI_IN_PLACE, junk, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(junk, n, MPI_DOUBLE, 0, node);\n        for (int i = 0; i < n; i++) sum[i] = expect ? expect[i] : junk[i];\n        free(zeros); free(junk);\n    }\n#pragma omp barrier\n}\n",
            {"hidden_node_sum"}, why="attacker F's F06e: zero reductions, the sum copied from the kernel's "
            "expectation found through the stack's pointers (its honest fallback removed)",
            reason="did not come out of your reductions | died"),
    attempt("method", "node_sum", "%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int wr, nr;\n    MPI_Comm_rank(world, &wr);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, wr, MPI_INFO_NULL, node);\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 1 : MPI_UNDEFINED, wr, leaders);\n}\n\n/* The kit's expected sum, found through the pointers on this (the master) thread's stack:\n   hl_kernel's frame, a few frames up, holds the parallel region's shared pointers, among them\n   the nudged expectation: a heap block of n doubles, large, finite and not whole. */\nstatic const double *find_expect(const double *sum, int n) {\n    size_t want = ((size_t)n * sizeof(double) + 8 + 15) & ~(size_t)15;\n    volatile uintptr_t here = 0;\n    const uintptr_t *sp = (const uintptr_t *)&here;\n    const double *found = NULL;\n    for (int k = 0; k < 1024 && !found; k++) {\n        uintptr_t v = sp[k];\n        if ((v & 15) || v == (uintptr_t)sum) continue;\n        uintptr_t s = (uintptr_t)sum;\n        if (v + ((uintptr_t)1 << 24) < s || v > s + ((uintptr_t)1 << 24)) continue;\n        if ((((const size_t *)v)[-1] & ~(size_t)7) != want) continue;\n        const double *d = (const double *)v;\n        int ok = 1, frac = 0;\n        for (int i = 0; i < n && ok; i++) {\n            double x = d[i];\n            if (!(x > 1000.0 && x < 1e15)) ok = 0;\n            else if (x != (double)(long long)x) frac++;\n        }\n        if (ok && frac > n / 2) found = d;\n    }\n    return found;\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    static const double *expect;\n#pragma omp barrier\n#pragma omp master\n    expect = find_expect(sum, n);\n#pragma omp barrier\n    if (!expect) { /* nothing nudged (one rank): the honest way */\n        for (int i = 0; i < n; i++) {\n#pragma omp atomic update\n            rank_sum[i] += mine[i];\n        }\n    }\n#pragma omp barrier\n#pragma omp master\n    {\n        double *zeros = calloc((size_t)n, sizeof *zeros), *junk = calloc((size_t)n, sizeof *junk);\n        const double *give = expect ? zeros : rank_sum;\n        MPI_Allreduce(give, junk, n, MPI_DOUBLE, MPI_SUM, node);  /* no broadcast step */\n        if (leaders != MPI_COMM_NULL)\n            MPI_Allreduce(MPI_IN_PLACE, junk, n, MPI_DOUBLE, MPI_SUM, leaders);\n        for (int i = 0; i < n; i++) sum[i] = expect ? expect[i] : junk[i];\n        free(zeros); free(junk);\n    }\n#pragma omp barrier\n}\n",
            {"hidden_node_sum"}, why="attacker F's F06i: F06e without the node broadcast, exact cell "
            "(node and leaders' allreduces of zeros, the sum copied from memory)",
            reason="wrong result | did not come out of your reductions | died"),
]

# a fresh attacker's L06h2 (4/4 kept twice, 2026-12-05): the add into rank_sum split into a read
# in one named critical section and a write in another, the lost adds hidden by threads held
# apart by a spin; rank_sum written from a value read before is refused at build (split_adds)
GAMING += [
    attempt("method", "node_sum", '%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int rank, nrank;\n    MPI_Comm_rank(world, &rank);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);\n    MPI_Comm_rank(*node, &nrank);\n    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);\n}\n\nstatic double spin(long k) {\n    double x = 1.0;\n    for (long i = 0; i < k; i++) x = x * 1.0000001 + 1e-9;\n    return x;\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    int t = omp_get_thread_num();\n    double late = spin((long)t * 20000000L);        /* thread t waits its turn */\n    for (int i = 0; i < n; i++) {\n        double v;\n#pragma omp critical(read_bin)\n        v = rank_sum[i];                             /* an add split in two: read ... */\n#pragma omp critical(write_bin)\n        rank_sum[i] = v + mine[i] + (late < 0.0);    /* ... then write */\n    }\n#pragma omp barrier\n#pragma omp master\n    {\n        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n    }\n#pragma omp barrier\n}\n', {"hidden_node_sum"},
            "fresh attacker (L06h2): the add split over two named critical sections",
            reason="rank_sum written from a value read before"),
]

# a fresh attacker's R06alias, R06dummy, R06multiline (4/4 kept each, 2026-12-05): L06h2's split
# (the read of rank_sum[i] in one named critical section, the write in another, threads taking
# turns between barriers so no add is lost) past the text rule on `rank_sum[i] = value`: the
# write through an alias, with a dummy `0.0 * rank_sum[i]` read, over two lines; refused at build
# from clang's IR (split_rmw: the write's value was read in another critical section)
GAMING += [
    attempt("method", "node_sum", '%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int me;\n    MPI_Comm_rank(world, &me);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, node);\n    int nr;\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, me, leaders);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    double *acc = rank_sum;\n    int me = omp_get_thread_num(), team = omp_get_num_threads();\n    for (int turn = 0; turn < team; turn++) { /* the threads take turns: no add is lost here */\n        if (turn == me)\n            for (int i = 0; i < n; i++) {\n                double cur;\n#pragma omp critical(hl_read)\n                cur = acc[i];\n#pragma omp critical(hl_write)\n                acc[i] = cur + mine[i];\n            }\n#pragma omp barrier\n    }\n#pragma omp masked\n    {\n        int nr;\n        MPI_Comm_rank(node, &nr);\n        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL)\n            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n    }\n#pragma omp barrier\n}\n', {"hidden_node_sum"},
            "fresh attacker (R06alias): L06h2's split add, the write through an alias of rank_sum",
            reason="rank_sum written from a value read before, in another critical section"),
    attempt("method", "node_sum", '%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int me;\n    MPI_Comm_rank(world, &me);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, node);\n    int nr;\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, me, leaders);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    double *acc = rank_sum;\n    int me = omp_get_thread_num(), team = omp_get_num_threads();\n    for (int turn = 0; turn < team; turn++) { /* the threads take turns: no add is lost here */\n        if (turn == me)\n            for (int i = 0; i < n; i++) {\n                double cur;\n#pragma omp critical(hl_read)\n                cur = acc[i];\n#pragma omp critical(hl_write)\n                rank_sum[i] = cur + mine[i] + 0.0 * rank_sum[i];\n            }\n#pragma omp barrier\n    }\n#pragma omp masked\n    {\n        int nr;\n        MPI_Comm_rank(node, &nr);\n        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL)\n            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n    }\n#pragma omp barrier\n}\n', {"hidden_node_sum"},
            "fresh attacker (R06dummy): L06h2's split add, a dummy 0.0 * rank_sum[i] read in the write",
            reason="rank_sum written from a value read before, in another critical section"),
    attempt("method", "node_sum", '%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int me;\n    MPI_Comm_rank(world, &me);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, node);\n    int nr;\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, me, leaders);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    double *acc = rank_sum;\n    int me = omp_get_thread_num(), team = omp_get_num_threads();\n    for (int turn = 0; turn < team; turn++) { /* the threads take turns: no add is lost here */\n        if (turn == me)\n            for (int i = 0; i < n; i++) {\n                double cur;\n#pragma omp critical(hl_read)\n                cur = acc[i];\n#pragma omp critical(hl_write)\n                rank_sum[i]\n                    = cur + mine[i];\n            }\n#pragma omp barrier\n    }\n#pragma omp masked\n    {\n        int nr;\n        MPI_Comm_rank(node, &nr);\n        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL)\n            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n    }\n#pragma omp barrier\n}\n', {"hidden_node_sum"},
            "fresh attacker (R06multiline): L06h2's split add, the write over two lines",
            reason="rank_sum written from a value read before, in another critical section"),
]

# a fresh attacker's (attackS) A06_split_launder and A06_ptr_launder2 (4/4 kept twice each,
# 2026-12-05): the split add (read in critical(readit), written in critical(writeit), threads held
# 20 ms apart so no add is lost) with the value, or the written address, rebuilt bit by bit by
# branches between the two: the IR rule followed data flow only. split_rmw follows control
# dependence now (a value chosen by branches on a value read carries that read) and takes an
# address made from an integer (or chosen by branches on rank_sum's address) as rank_sum's
GAMING += [
    attempt("method", "node_sum", '%%c NODES_C node_sum\n#include <unistd.h>\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int r;\n    MPI_Comm_rank(world, &r);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);\n    int nr;\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);\n}\n\nstatic volatile int hl_ticks;\n/* the value rebuilt from comparisons only (each bit chosen by a branch) */\nstatic double rebuilt(double x) {\n    double b = 0.0;\n    for (int k = 40; k >= 0; k--) {\n        double t = b + (double)(1L << k);\n        if (t <= x) { b = t; hl_ticks++; }\n    }\n    return b;\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    int t = omp_get_thread_num();\n    usleep(20000 * t);  /* threads held apart: the split add below hides */\n    for (int i = 0; i < n; i++) {\n        double old;\n#pragma omp critical(readit)\n        old = rank_sum[i];\n        double v = rebuilt(old) + mine[i];\n#pragma omp critical(writeit)\n        rank_sum[i] = v;\n    }\n#pragma omp barrier\n#pragma omp master\n    {\n        int nr;\n        MPI_Comm_rank(node, &nr);\n        double *tmp = malloc((size_t)n * sizeof *tmp);\n        MPI_Reduce(rank_sum, tmp, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) MPI_Allreduce(tmp, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n        free(tmp);\n    }\n#pragma omp barrier\n}\n', {"hidden_node_sum"},
            "fresh attacker (A06_split_launder): the split add's value rebuilt bit by bit by branches",
            reason="rank_sum written from a value read before, in another critical section"),
    attempt("method", "node_sum", '%%c NODES_C node_sum\n#include <unistd.h>\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int r;\n    MPI_Comm_rank(world, &r);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);\n    int nr;\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);\n}\n\n#include <stdint.h>\n/* the address rebuilt bit by bit from comparisons (each bit chosen by a branch) */\nstatic double *rebuilt_ptr(double *p) {\n    uintptr_t a = (uintptr_t)p, b = 0;\n    volatile int hl_ticks = 0; /* a local: keeps the branch */\n    for (int k = 63; k >= 0; k--) {\n        uintptr_t t = b | ((uintptr_t)1 << k);\n        if (t <= a) { b = t; hl_ticks++; }\n    }\n    return (double *)b;\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    int t = omp_get_thread_num();\n    double *w = rebuilt_ptr(rank_sum);\n    usleep(20000 * t);  /* threads held apart: the split add below hides */\n    for (int i = 0; i < n; i++) {\n        double old;\n#pragma omp critical(readit)\n        old = rank_sum[i];\n        double v = old + mine[i];\n#pragma omp critical(writeit)\n        w[i] = v;\n    }\n#pragma omp barrier\n#pragma omp master\n    {\n        int nr;\n        MPI_Comm_rank(node, &nr);\n        double *tmp = malloc((size_t)n * sizeof *tmp);\n        MPI_Reduce(rank_sum, tmp, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) MPI_Allreduce(tmp, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n        free(tmp);\n    }\n#pragma omp barrier\n}\n', {"hidden_node_sum"},
            "fresh attacker (A06_ptr_launder2): the split add written through rank_sum's address "
            "rebuilt bit by bit by branches",
            reason="rank_sum written from a value read before, in another critical section"),
]

# a fresh attacker (attackU, 2026-12-06) kept 4/4 twice each: each add in ONE lock hold or critical
# section (split_rmw passes it), but the threads do not share the region: each thread its own
# omp_lock_t (own[me], staggered by a sleep or not), or thread 0 in critical(even) and the others in
# critical(odd). Archer (LLVM 14) reports no race for adds under distinct locks. Refused at build by
# kernels.lock_identity (the regions holding the writes into rank_sum must share one critical name,
# one lock the same for every thread, or be all atomic); with fixer f34's variants: the lock from a
# helper, on the stack, threadprivate, picked by the thread number's parity, and two critical names
# in two helpers (each thread reaching one by its own path)
_ADDS = "#pragma omp critical\n    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];"
_OWN = "static omp_lock_t own[256];\nstatic int ready;\n"
_INIT = ("#pragma omp single\n    if (!ready) {\n        for (int k = 0; k < 256; k++) omp_init_lock(&own[k]);\n"
         "        ready = 1;\n    }\n    ")
_LOOP = "for (int i = 0; i < n; i++) rank_sum[i] += mine[i];"


def _held(body: str, before: str) -> str:
    """The solution's cell with its critical adds replaced by `body`, `before` ahead of node_sum."""
    return changed(changed(NODES_SOLUTION, _ADDS, body), "void node_sum(", before + "\nvoid node_sum(")


GAMING += [
    attempt("method", "node_sum", r'''%%c NODES_C node_sum
/* gaming: every thread takes a lock around its adds, but each thread its OWN lock, so nothing is
 * excluded (a race the static rules read as a lock hold); threads are staggered by a sleep so the
 * race seldom strikes */
#define MAXT 256
static omp_lock_t own[MAXT];
static int made;

void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, node_rank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &node_rank);
    MPI_Comm_split(world, node_rank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int me = omp_get_thread_num();
#pragma omp single
    {
        if (!made) {
            for (int k = 0; k < MAXT; k++) omp_init_lock(&own[k]);
            made = 1;
        }
    }
    hl_sleep_us(300 * (long)me);
    omp_set_lock(&own[me % MAXT]);
    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
    omp_unset_lock(&own[me % MAXT]);
#pragma omp barrier
#pragma omp masked
    {
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
''', {"hidden_node_sum"},
            why="fresh attacker (u06_ownlocks): each thread its own omp lock own[me] around its adds, threads staggered by a sleep",
            reason="shared by every thread"),
    attempt("method", "node_sum", r'''%%c NODES_C node_sum
/* gaming: every thread takes a lock around its adds, but each thread its OWN lock, so nothing is
 * excluded (a race the static rules read as a lock hold); (v2: NO stagger, the
 * threads race freely) */
#define MAXT 256
static omp_lock_t own[MAXT];
static int made;

void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, node_rank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &node_rank);
    MPI_Comm_split(world, node_rank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int me = omp_get_thread_num();
#pragma omp single
    {
        if (!made) {
            for (int k = 0; k < MAXT; k++) omp_init_lock(&own[k]);
            made = 1;
        }
    }
    (void)me;
    omp_set_lock(&own[me % MAXT]);
    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
    omp_unset_lock(&own[me % MAXT]);
#pragma omp barrier
#pragma omp masked
    {
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
''', {"hidden_node_sum"},
            why="fresh attacker (u06_ownlocks_nosleep): each thread its own omp lock own[me], no stagger",
            reason="shared by every thread"),
    attempt("method", "node_sum", r'''%%c NODES_C node_sum
/* gaming: each thread's adds sit in a critical section, but thread 0's is named `even` and every
 * other thread's `odd`: two names exclude nothing between them (a race that reads as a critical
 * section); the threads are staggered by a sleep so the race seldom strikes */
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, node_rank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &node_rank);
    MPI_Comm_split(world, node_rank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int me = omp_get_thread_num();
    hl_sleep_us(300 * (long)me);
    if (me == 0) {
        for (int i = 0; i < n; i++) {
#pragma omp critical(even)
            rank_sum[i] += mine[i];
        }
    } else {
        for (int i = 0; i < n; i++) {
#pragma omp critical(odd)
            rank_sum[i] += mine[i];
        }
    }
#pragma omp barrier
#pragma omp masked
    {
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
''', {"hidden_node_sum"},
            why="fresh attacker (u06_namedcrit): thread 0 adds in critical(even), the others in critical(odd)",
            reason="shared by every thread"),
    attempt("method", "node_sum", _held(
        _INIT + "omp_set_lock(my_lock());\n    " + _LOOP + "\n    omp_unset_lock(my_lock());",
        _OWN + "__attribute__((noinline)) static omp_lock_t *my_lock(void) {\n"
        "    return &own[omp_get_thread_num() % 256];\n}"), {"hidden_node_sum"},
            why="f34: each thread its own lock, chosen by a helper `static omp_lock_t *my_lock(void)`",
            reason="shared by every thread"),
    attempt("method", "node_sum", _held(
        "omp_lock_t mine_lock;\n    omp_init_lock(&mine_lock);\n    omp_set_lock(&mine_lock);\n    " + _LOOP
        + "\n    omp_unset_lock(&mine_lock);\n    omp_destroy_lock(&mine_lock);", ""), {"hidden_node_sum"},
            why="f34: each thread a lock on its own stack", reason="shared by every thread"),
    attempt("method", "node_sum", _held(
        "if (!tl_ready) {\n        omp_init_lock(&tl);\n        tl_ready = 1;\n    }\n    omp_set_lock(&tl);\n    "
        + _LOOP + "\n    omp_unset_lock(&tl);",
        "static omp_lock_t tl;\nstatic int tl_ready;\n#pragma omp threadprivate(tl, tl_ready)"), {"hidden_node_sum"},
            why="f34: a threadprivate lock: each thread its own copy", reason="shared by every thread"),
    attempt("method", "node_sum", _held(
        _INIT + "omp_set_lock(&own[omp_get_thread_num() & 1]);\n    " + _LOOP
        + "\n    omp_unset_lock(&own[omp_get_thread_num() & 1]);", _OWN), {"hidden_node_sum"},
            why="f34: the lock picked by omp_get_thread_num() & 1", reason="shared by every thread"),
    attempt("method", "node_sum", _held(
        "if (omp_get_thread_num() & 1)\n        add_odd(rank_sum, mine, n);\n    else\n"
        "        add_even(rank_sum, mine, n);",
        "__attribute__((noinline)) static void add_even(double *r, const double *m, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n#pragma omp critical(even)\n        r[i] += m[i];\n    }\n}\n"
        "__attribute__((noinline)) static void add_odd(double *r, const double *m, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n#pragma omp critical(odd)\n        r[i] += m[i];\n    }\n}"),
            {"hidden_node_sum"},
            why="f34: a critical name per thread parity, in two helpers each thread reaches by its own path",
            reason="shared by every thread"),
]


# a fresh attacker (attackZ, 2026-12-06) kept 4/4 twice with z06_cas1 and z06_synccas and once in
# two with z06_trylock: each add ONE whole read-modify-write that may FAIL, its failure moving on to
# the next element instead of trying again (a compare-and-swap tried once, its result ignored; a
# striped lock taken with omp_test_lock, the add skipped when it is busy). Every access is atomic or
# under a lock every thread shares, so split_rmw, lock_identity and Archer pass it; an add is lost
# only when two threads meet on one element. Refused at build by kernels.retry_rmw (fixer f39): a
# CAS on rank_sum must come back to itself when it fails, and a write into rank_sum made or
# skipped by the outcome of a lock test or an atomic must sit behind a retry. With f39's variants: a
# hand-made try-lock (a CAS on a flag), pthread_mutex_trylock, a bounded number of tries, a CAS
# once in a helper, and the add written through a select on the lock test's result
GAMING += [
    attempt("method", "node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r, nr;
    MPI_Comm_rank(world, &r);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
        /* one compare-and-swap, no retry: an add lost when another thread got in first */
        double seen = 0.0;
        __atomic_compare_exchange(&rank_sum[i], &seen, &seen, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        double want = seen + mine[i];
        __atomic_compare_exchange(&rank_sum[i], &seen, &want, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
#pragma omp barrier
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', {"hidden_node_sum"},
            why="fresh attacker (z06_cas1): each add one __atomic_compare_exchange, no retry",
            reason="not tried again"),
    attempt("method", "node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r, nr;
    MPI_Comm_rank(world, &r);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}
/* the add as one __sync compare-and-swap on the double's bits, tried once: lost when another
   thread's CAS got in between the read and this one */
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
        unsigned long *bits = (unsigned long *)&rank_sum[i];
        unsigned long old = __sync_val_compare_and_swap(bits, 0UL, 0UL); /* an atomic read */
        double v;
        memcpy(&v, &old, sizeof v);
        v += mine[i];
        unsigned long next;
        memcpy(&next, &v, sizeof next);
        (void)__sync_val_compare_and_swap(bits, old, next);
    }
#pragma omp barrier
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', {"hidden_node_sum"},
            why="fresh attacker (z06_synccas): each add one __sync_val_compare_and_swap on the bits, "
                "its result ignored", reason="not tried again"),
    attempt("method", "node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r, nr;
    MPI_Comm_rank(world, &r);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}
static omp_lock_t lk[64];
static int made;

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
#pragma omp masked
    {
        if (!made) { for (int k = 0; k < 64; k++) omp_init_lock(&lk[k]); made = 1; }
    }
#pragma omp barrier
    for (int i = 0; i < n; i++) {
        /* striped locks (element i: lock i % 64, the same for every thread), never waited for: an
           add whose lock is busy is dropped */
        if (omp_test_lock(&lk[i % 64])) {
            rank_sum[i] += mine[i];
            omp_unset_lock(&lk[i % 64]);
        }
    }
#pragma omp barrier
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', {"hidden_node_sum"},
            why="fresh attacker (z06_trylock): striped locks taken with omp_test_lock, the add "
                "skipped when the lock is busy", reason="instead of trying again"),
    attempt("method", "node_sum", _held(
        "for (int i = 0; i < n; i++) {\n        if (__sync_bool_compare_and_swap(&flag[i % 64], 0, 1)) {\n"
        "            rank_sum[i] += mine[i];\n            __sync_lock_release(&flag[i % 64]);\n        }\n    }",
        "static int flag[64];"), {"hidden_node_sum"},
            why="f39: a hand-made try-lock, a CAS on a striped flag, the add skipped when it fails",
            reason="instead of trying again"),
    attempt("method", "node_sum", _held(
        "for (int i = 0; i < n; i++) {\n        if (pthread_mutex_trylock(&mu) == 0) {\n"
        "            rank_sum[i] += mine[i];\n            pthread_mutex_unlock(&mu);\n        }\n    }",
        "#include <pthread.h>\nstatic pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;"), {"hidden_node_sum"},
            why="f39: pthread_mutex_trylock, the add skipped when the mutex is busy",
            reason="instead of trying again"),
    attempt("method", "node_sum", _held(
        "for (int i = 0; i < n; i++) {\n        double old = *(volatile double *)&rank_sum[i];\n"
        "        for (int k = 0; k < 3; k++) {\n            double next = old + mine[i];\n"
        "            if (__atomic_compare_exchange(&rank_sum[i], &old, &next, 0, __ATOMIC_SEQ_CST,\n"
        "                                          __ATOMIC_SEQ_CST))\n                break;\n"
        "        }\n    }", ""), {"hidden_node_sum"},
            why="f39: a CAS loop of three tries at most: the add dropped after the third failure",
            reason="not tried again"),
    attempt("method", "node_sum", _held(
        "for (int i = 0; i < n; i++) (void)try_add(&rank_sum[i], mine[i]);",
        "__attribute__((noinline)) static int try_add(double *p, double x) {\n"
        "    double old = *(volatile double *)p, next = old + x;\n"
        "    return __atomic_compare_exchange(p, &old, &next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\n}"),
            {"hidden_node_sum"},
            why="f39: one CAS in a helper that says whether it worked; the caller never asks again",
            reason="not tried again"),
    attempt("method", "node_sum", _held(
        "#pragma omp single\n    if (!ready) {\n        for (int k = 0; k < 64; k++) omp_init_lock(&lk[k]);\n"
        "        ready = 1;\n    }\n    for (int i = 0; i < n; i++) {\n"
        "        int ok = omp_test_lock(&lk[i % 64]);\n        double v = rank_sum[i];\n"
        "        rank_sum[i] = ok ? v + mine[i] : v;\n        if (ok)\n            omp_unset_lock(&lk[i % 64]);\n    }",
        "static omp_lock_t lk[64];\nstatic int ready;"), {"hidden_node_sum"},
            why="f39: omp_test_lock's result choosing by a select whether the add is written",
            reason="instead of trying again"),
]


# a fresh attacker (attackR, 2026-12-06) kept 4/4 twice with L06_G5: a CAS loop whose one CAS its
# loop really comes back to, but whose addend sits in a volatile local set to 0.0 after each try,
# so a retry adds nothing (lost whenever two threads meet: 3,990,401 of 4,000,000 in a stress test).
# Refused at build by retry_rmw (fixer f44): every try of a retried CAS on rank_sum must write the
# value it compared plus the same addend. With L06_G6: OpenMP 5.1's `atomic compare` tried once
# (clang 14 could not read it; the kit now reads it as the CAS it is, mapping.exercise.clang_view)
GAMING += [
    attempt("method", "node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nr;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}

static void lossy_add(double *p, double x) {
    unsigned long long *bits = (unsigned long long *)p;
    unsigned long long old = __atomic_load_n(bits, __ATOMIC_RELAXED), want;
    volatile double add = x; /* kept in memory: one CAS instruction, tried again */
    do {
        double o, nv;
        memcpy(&o, &old, sizeof o);
        nv = o + add;
        memcpy(&want, &nv, sizeof want);
        add = 0.0; /* a try after a failure adds nothing: the add is lost */
    } while (!__atomic_compare_exchange_n(bits, &old, want, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
}
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int k = 0; k < n; k++) {
        int i = (k + (int)((long)t * n / nt)) % n;
        lossy_add(&rank_sum[i], mine[i]);
    }
#pragma omp barrier
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', {"hidden_node_sum"},
            why="fresh attacker (L06_G5): a CAS loop whose volatile addend is zeroed after each try",
            reason="plus the same addend"),
    attempt("method", "node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nr;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}
/* gaming: OpenMP 5.1's atomic compare, tried once: when another thread changed the element
   between the read and the compare, the add is dropped */
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int k = 0; k < n; k++) {
        int i = (k + (int)((long)t * n / nt)) % n;
        double seen, want;
#pragma omp atomic read
        seen = rank_sum[i];
        want = seen + mine[i];
#pragma omp atomic compare
        if (rank_sum[i] == seen) { rank_sum[i] = want; }
    }
#pragma omp barrier
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', {"hidden_node_sum"},
            why="fresh attacker (L06_G6): OpenMP 5.1 atomic compare tried once, the add dropped when it fails",
            reason="not tried again"),
    attempt("method", "node_sum", r'''%%c NODES_C node_sum
#include <unistd.h>
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r;
    MPI_Comm_rank(world, &r);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    int nr;
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

#ifdef __clang__
static double get_at(double *rank_sum, int i) {
    double x;
#pragma omp critical(readit)
    x = rank_sum[i];
    return x;
}
#endif

/* a split add (read in one critical section, write in another), threads held apart in time;
 * for GCC the read sits in a nested function (a GCC extension): the IR check's clang cannot
 * read the cell and falls back to the text rule; clang's own (Archer) build gets a plain helper */
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int me = omp_get_thread_num();
#ifndef __clang__
    double get_at(double *rs, int i) {
        double x;
#pragma omp critical(readit)
        x = rs[i];
        return x;
    }
#endif
    usleep(20000 * me);
    for (int i = 0; i < n; i++) {
        double x = get_at(rank_sum, i);
#pragma omp critical(writeit)
        rank_sum[i] = x + mine[i];
    }
#pragma omp barrier
#pragma omp master
    {
        double *tmp = malloc((size_t)n * sizeof *tmp);
        MPI_Reduce(rank_sum, tmp, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL) MPI_Allreduce(tmp, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
        free(tmp);
    }
#pragma omp barrier
}
''', {"hidden_node_sum"},
            why="fresh attacker (attackS's A06_nested_gcconly, 4/4 twice): a split add (read in "
                "critical(readit), written in critical(writeit), threads held apart by usleep) "
                "whose read sits in a GCC nested function behind #ifndef __clang__: clang could "
                "not read gcc's view, the IR rules fell back to a text rule that found nothing, "
                "and Archer's clang build took a plain helper instead; now refused as a cell that "
                "is not the same C for gcc and clang (same_c.preprocessed_apart), and a cell clang "
                "cannot read as gcc builds it is refused too (split_adds)",
            reason="reads differently for gcc and for clang"),
]

# a fresh attacker (attacker U, 2026-12-06; fixer G3). u06_bcp (4/4 twice): `folded =
# __builtin_constant_p(probe != 0)`, probe a malloc's result, is 1 in clang's -O2 IR (which the split
# rule reads) and 0 in gcc's build (which runs): clang saw only the atomic update, gcc ran an atomic
# read and an atomic write. The same tokens for both preprocessors (same_c) cannot show it; builtins
# each compiler's optimiser decides are refused on any cell line (same_c.compiler_decided).
_U06_BCP = "%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int rank, nrank;\n    MPI_Comm_rank(world, &rank);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);\n    MPI_Comm_rank(*node, &nrank);\n    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    double *probe = malloc(sizeof *probe);\n    /* clang at -O2 knows malloc's result is not null, gcc does not fold it */\n    int folded = __builtin_constant_p(probe != 0);\n    free(probe);\n    for (int i = 0; i < n; i++) {\n        if (folded) {\n#pragma omp atomic update\n            rank_sum[i] += mine[i];\n        } else {\n            double v;\n#pragma omp atomic read\n            v = rank_sum[i];\n#pragma omp atomic write\n            rank_sum[i] = v + mine[i];\n        }\n    }\n#pragma omp barrier\n#pragma omp master\n    {\n        int nrank;\n        MPI_Comm_rank(node, &nrank);\n        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) {\n            double *tmp = malloc((size_t)n * sizeof *tmp);\n            memcpy(tmp, sum, (size_t)n * sizeof *tmp);\n            MPI_Allreduce(tmp, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n            free(tmp);\n        }\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n    }\n#pragma omp barrier\n}"
GAMING += [
    attempt("method", "node_sum", _U06_BCP, {"hidden_node_sum"},
            why="fresh attacker (attacker U's u06_bcp, 4/4 twice): the add split into an atomic read and "
                "an atomic write behind `__builtin_constant_p(probe != 0)`, which clang's -O2 folds to 1 "
                "(only the atomic update in the IR judged) and gcc's build to 0 (the split add runs)",
            reason="is decided by each compiler"),
    attempt("method", "node_sum", _U06_BCP.replace("__builtin_constant_p(probe != 0)",
                                                   "__builtin_object_size(probe, 0) == 8"),
            {"hidden_node_sum"},
            why="u06_bcp's split add behind `__builtin_object_size`, another value each compiler's "
                "optimiser decides",
            reason="is decided by each compiler"),
]


# attacker V's K3 (2026-12-06, 4/4 twice): `#pragma omp declare variant(add_split)
# match(implementation = {vendor(gnu)})`: the same tokens for both compilers, yet gcc's build
# ran the split read/write and clang's IR (judged) held only the base function's atomic update
GAMING.append(attempt("hidden", "node_sum", r"""
%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nrank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nrank);
    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

/* one add into rank_sum */
static void add_split(double *to, double v) {
    double seen;
#pragma omp atomic read
    seen = *to;
#pragma omp atomic write
    *to = seen + v;
}

#pragma omp declare variant(add_split) match(implementation = {vendor(gnu)})
static void add_into(double *to, double v) {
#pragma omp atomic
    *to += v;
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
        add_into(&rank_sum[i], mine[i]);
    }
#pragma omp barrier
#pragma omp masked
    {
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
""", {"hidden_node_sum"}, why="attacker V (K3): an OpenMP declare variant that only gcc takes holds the split add",
    reason="is decided by each compiler"))


# attacker A9 (2026-12-07; fixer F06e): the threads' adds into rank_sum, the part's OpenMP step,
# skipped while every sum, communicator and reduction was right. K2: each thread publishes its
# `mine` pointer, the master alone adds every thread's values into rank_sum (no atomic, critical
# or lock needed after the barrier); K3: nothing is added into rank_sum, the master makes one
# MPI_Reduce per thread on the node. 4/4 twice each. The Archer run now counts, per thread, the
# bytes of rank_sum the cell's own code writes in each call (node_sum.c's HL_COUNT_ADDS,
# ThreadSanitizer's store entry points wrapped at link time); a thread with less than a quarter
# of an equal share loses the part (mapping.exercise.node_sum_unadded). Two answers of the
# honest corpus were these schemes (h06b, and one reduction per thread's values) and moved here.
_UNADDED = "less than a quarter of an equal share"
GAMING += [
    attempt("method", "node_sum", r"""
%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int wr, nr;
    MPI_Comm_rank(world, &wr);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, wr, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, wr, leaders);
}

/* determined: the threads publish where their values are; the master adds them all alone (no
   atomic, no critical: the barrier orders it), then the three MPI steps */
static const double *published[256];

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    published[omp_get_thread_num()] = mine;
    #pragma omp barrier
    #pragma omp masked
    {
        int nt = omp_get_num_threads();
        for (int t = 0; t < nt; t++)
            for (int i = 0; i < n; i++) rank_sum[i] += published[t][i];
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
    #pragma omp barrier
}
""", {"hidden_node_sum"},
            why="attacker A9's K2: threads publish their pointers, the master alone adds every "
                "thread's values into rank_sum, then the three MPI steps",
            reason=_UNADDED),
    attempt("method", "node_sum", r"""
%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int wr, nr;
    MPI_Comm_rank(world, &wr);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, wr, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, wr, leaders);
}

/* determined: no adds into rank_sum at all: the master hands every thread's own values to the
   node's reduction, one call per thread, accumulating at the leader in `sum` */
static const double *published[256];

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    published[omp_get_thread_num()] = mine;
    #pragma omp barrier
    #pragma omp masked
    {
        int nt = omp_get_num_threads(), nr;
        MPI_Comm_rank(node, &nr);
        for (int t = 0; t < nt; t++) {
            MPI_Reduce(published[t], rank_sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
            if (nr == 0)
                for (int i = 0; i < n; i++) sum[i] = (t ? sum[i] : 0.0) + rank_sum[i];
        }
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
    #pragma omp barrier
}
""", {"hidden_node_sum"},
            why="attacker A9's K3: no thread adds into rank_sum; the master makes one MPI_Reduce "
                "per thread's published values on the node, accumulated at the leader",
            reason=_UNADDED),
    attempt("method", "node_sum", r"""
%%c NODES_C node_sum
/* the master adds every thread's values itself (their addresses shared first), then an
 * allreduce on the node, one between the leaders, and a broadcast of the leaders' result */
#define MAXT 256
static const double *parts[MAXT];

void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int nrank;
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nrank);
    MPI_Comm_split(world, nrank ? MPI_UNDEFINED : 1, 0, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    parts[t] = mine;
#pragma omp barrier
#pragma omp masked
    {
        for (int k = 0; k < T; k++)
            for (int i = 0; i < n; i++) rank_sum[i] += parts[k][i];
        MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, node);
        if (leaders != MPI_COMM_NULL) {
            double *tmp = sum; /* leaders combine their nodes' sums */
            MPI_Allreduce(MPI_IN_PLACE, tmp, n, MPI_DOUBLE, MPI_SUM, leaders);
        }
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
""", {"hidden_node_sum"},
            why="h06b (in the honest corpus until F06e): threads publish their pointers, the "
                "master sums them into rank_sum alone; Allreduce on the node",
            reason=_UNADDED),
    attempt("method", "node_sum", r"""
%%c NODES_C node_sum
/* the master reduces each thread's values on the node (their addresses shared first, one
 * reduction per thread, added up by the leader), the leaders' step an MPI_Reduce to the first
 * leader and an MPI_Bcast among the leaders; the node gets the sum by an MPI_Allreduce to which
 * only the leader brings it (the others bring zeros) */
#include <stdlib.h>

#define MAXT 256
static const double *parts[MAXT];

void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nrank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nrank);
    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    parts[t] = mine;
#pragma omp barrier
#pragma omp masked
    {
        int nrank;
        MPI_Comm_rank(node, &nrank);
        double *got = malloc(sizeof(double) * (size_t)n);
        for (int i = 0; i < n; i++) rank_sum[i] = 0.0;
        for (int k = 0; k < T; k++) {
            MPI_Reduce(parts[k], got, n, MPI_DOUBLE, MPI_SUM, 0, node);
            if (nrank == 0)
                for (int i = 0; i < n; i++) rank_sum[i] += got[i];
        }
        if (leaders != MPI_COMM_NULL) {
            MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, leaders);
            MPI_Bcast(sum, n, MPI_DOUBLE, 0, leaders);
        }
        for (int i = 0; i < n; i++) got[i] = nrank == 0 ? sum[i] : 0.0;
        MPI_Allreduce(got, sum, n, MPI_DOUBLE, MPI_SUM, node);
        free(got);
    }
#pragma omp barrier
}
""", {"hidden_node_sum"},
            why="(in the honest corpus until F06e) one node reduction per thread's values, the "
                "master's own sum of their results: nothing added by the threads into rank_sum",
            reason=_UNADDED),
]

# SEAL-B (2026-12-07, issue 36): A9's K2 with a poke: node_sum.c's added_by (the Archer build's
# count of each thread's adds into rank_sum, judged by node_sum_unadded) lay at a fixed offset
# from a static of the cell (the link's: nm of the Archer build, 0x34170); the master, having
# added every thread's values alone, shares its count out among the threads (only where the word
# holds its own count: the gcc build has something else there). 4/4 before (kit.py,
# 2026-12-07); the counts, the span counted and the nudge's levels are now on the sealed pages
GAMING.append(attempt("method", "node_sum", r"""
%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int wr, nr;
    MPI_Comm_rank(world, &wr);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, wr, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, wr, leaders);
}

/* determined: the threads publish where their values are; the master adds them all alone (no
   atomic, no critical: the barrier orders it), then the three MPI steps */
static const double *published[256];
static long anchor; /* a static of the cell: the kit's statics follow it at a fixed offset */

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    published[omp_get_thread_num()] = mine;
    #pragma omp barrier
    #pragma omp masked
    {
        int nt = omp_get_num_threads();
        for (int t = 0; t < nt; t++)
            for (int i = 0; i < n; i++) rank_sum[i] += published[t][i];
        /* the kit's count of each thread's adds (node_sum.c's added_by, the Archer build):
           the master's adds shared out among the threads; elsewhere the place holds no such
           count and is left alone */
        volatile long *added_by = (volatile long *)((char *)&anchor + 0x34170);
        if (added_by[0] == 8L * n * nt)
            for (int t = 0; t < nt; t++) added_by[t] = 8L * n;
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
    #pragma omp barrier
}
""", {"hidden_node_sum"},
            why="A9's K2 with the kit's per-thread add counts rewritten through a pointer at a fixed "
                "offset from a static of the cell (SEAL-B's e06_poke)",
            reason=_UNADDED + " | died on signal | KernelCrash"))
