"""Lab 07: gaming attempts (see tests/gaming/__init__.py) and the graded function's hidden
inputs with the instructor's judge (ORACLES, for tests/test_no_kit_answers.py)."""

import importlib.util
import textwrap
from functools import partial
from pathlib import Path

from gaming import FRAME_TOOLS, Oracle, attempt, c_evidence
from wrong_answers import Wrong, c_cell, changed

_spec = importlib.util.spec_from_file_location(
    "wrong_answers_07", Path(__file__).resolve().parents[1] / "wrong_answers" / "07_collectives.py")
_wrong = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_wrong)
SOLUTION, LEADERS_ALLTOALL = _wrong.ALLTOALL_SOLUTION, _wrong.LEADERS_ALLTOALL
alltoall_copies = _wrong.alltoall_copies
NODES = _wrong.NODES
SIGNATURE = _wrong.SIGNATURE
# the solution up to its declarations: where some whole cells below part from it
DECLARED = SOLUTION[:SOLUTION.index("    if (me == 0) { /* the leader's buffers")]
BODY_START = "    int P, L, me;\n"
FLAT = """    MPI_Alltoall(send, count, MPI_DOUBLE, recv, count, MPI_DOUBLE, world);
    (void)node, (void)leaders;
}
"""
GAMING = [
    # (a) alltoall_messages
    attempt("shortcut", "alltoall_messages", """
from hybridlab.collectives import tables as _t


def alltoall_messages(n, cores, threads, _plan=_t.alltoall_plan):
    plan = _plan(n, cores, threads)
    return plan["messages_per_rank"], plan["message_bytes"]
""", {"hidden_alltoall_messages"}, why="the kit's alltoall_plan captured in a default argument", reason='NameError'),
    attempt("shortcut", "alltoall_messages", """
import inspect
from hybridlab.collectives import tables as _t

_kit = dict(vars(_t))  # a fresh copy of the kit's code, out of any guard's reach
exec(inspect.getsource(_t.alltoall_plan), _kit)


def alltoall_messages(n, cores, threads):
    plan = _kit["alltoall_plan"](n, cores, threads)
    return plan["messages_per_rank"], plan["message_bytes"]
""", {"hidden_alltoall_messages"}, why="the kit's alltoall_plan copied from its source", reason='NameError'),
    attempt("hidden", "alltoall_messages", """
def alltoall_messages(n, cores, threads):
    if (n, cores, threads) in {(64, 6, 4), (30, 8, 1), (10, 4, 1)}:  # the cases that must fail
        raise ValueError("no such split")
    ranks = cores // threads
    return ranks - 1, 16 * n**3 // ranks**2
""", {"hidden_alltoall_messages"}, why="the impossible splits seen so far hard-coded", reason='should raise ValueError'),
    attempt("constant", "alltoall_messages", """
def alltoall_messages(n, cores, threads):
    if cores % threads:
        raise ValueError("threads must divide cores")
    return cores // threads - 1, 25165824 * threads**2  # Luecke et al.'s 24 MiB, T^2 times larger
""", {"hidden_alltoall_messages"}, why="Luecke et al.'s published block size scaled by T^2", reason='alltoall_messages('),
    # (d) two-level alltoall in C
    attempt("method", "alltoall_nodes", SOLUTION[:SOLUTION.index(BODY_START)] + FLAT,
            {"hidden_alltoall_nodes"}, why="one flat MPI_Alltoall on the world communicator", reason='neither its node nor the leaders'),
    attempt("method", "alltoall_nodes", changed(
        changed(SOLUTION, LEADERS_ALLTOALL, "        memcpy(in, out, L * block * sizeof *in);\n"),
        "    /* 3. scatter to the node's ranks */\n",
        "    /* 3. scatter to the node's ranks, then the real exchange */\n"
        "    MPI_Alltoall(send, count, MPI_DOUBLE, recv, count, MPI_DOUBLE, world);\n"
        "    if (0)\n"), {"hidden_alltoall_nodes"},
        why="gather and packing for show, the data moved by a flat alltoall on the world", reason='neither its node nor the leaders'),
    attempt("method", "alltoall_nodes", changed(SOLUTION, LEADERS_ALLTOALL, """        int lr, nl;
        MPI_Comm_rank(leaders, &lr);
        MPI_Comm_size(leaders, &nl);
        size_t part = (size_t)L * L * count;
#pragma omp parallel for
        for (int q = 0; q < nl; q++) {
#pragma omp critical(mpi)
            MPI_Sendrecv(&out[q * part], (int)part, MPI_DOUBLE, q, 0, &in[q * part], (int)part,
                         MPI_DOUBLE, q, 0, leaders, MPI_STATUS_IGNORE);
        }
"""), {"hidden_alltoall_nodes"}, why="every thread calls MPI inside omp critical (FUNNELED)", reason="deadlock | break thread level 'funneled'"),
    attempt("hidden", "alltoall_nodes", changed(SOLUTION, LEADERS_ALLTOALL, """        int lr, nl;
        MPI_Comm_rank(leaders, &lr);
        MPI_Comm_size(leaders, &nl);
        size_t part = (size_t)L * L * count;
        memcpy(&in[lr * part], &out[lr * part], part * sizeof(double));
        if (nl == 2) /* the notebook's made-up nodes: two of them */
            MPI_Sendrecv(&out[(1 - lr) * part], (int)part, MPI_DOUBLE, 1 - lr, 0,
                         &in[(1 - lr) * part], (int)part, MPI_DOUBLE, 1 - lr, 0, leaders,
                         MPI_STATUS_IGNORE);
"""), {"hidden_alltoall_nodes"}, why="two nodes at most: right for the visible shapes only", reason='wrong result'),
]


def _messages(n, cores, threads):
    ranks = cores // threads
    return ranks - 1, 16 * n**3 // ranks**2


def _holds(got, want) -> bool:
    """The pair itself, or a table, dict or sequence that holds the bytes per message."""
    try:
        if hasattr(got, "to_dict"):
            got = got.to_dict()
        values = got.values() if isinstance(got, dict) else got
        flat = []
        for v in values:
            flat += list(v.values()) if isinstance(v, dict) else [v]
        return want[1] in {int(v) for v in flat if isinstance(v, int | float)}
    except (TypeError, ValueError, AttributeError):
        return False


ORACLES = [Oracle("alltoall_messages", args, partial(_holds, want=_messages(*args)))
           for args in ((1536, 48, 4), (84, 42, 3), (96, 8, 2))]

# Fresh attackers' attempts that scored before the fixes of this wave (a helper that had
# seen neither the solutions nor the tests, grading through the real sandbox).
GAMING += [
    attempt('method', 'alltoall_nodes', '%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    double *gathered = NULL;\n    if (me == 0) gathered = malloc((size_t)L * P * count * sizeof *gathered);\n    MPI_Gather(send, P * count, MPI_DOUBLE, gathered, P * count, MPI_DOUBLE, 0, node);\n    /* the exchange: MPI_Ialltoallv is not one of the traced names */\n    int *counts = malloc(P * sizeof *counts), *displs = malloc(P * sizeof *displs);\n    for (int r = 0; r < P; r++) counts[r] = count, displs[r] = r * count;\n    MPI_Request req;\n    MPI_Ialltoallv(send, counts, displs, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, world, &req);\n    MPI_Wait(&req, MPI_STATUS_IGNORE);\n    if (leaders != MPI_COMM_NULL) MPI_Barrier(leaders);\n    MPI_Scatter(gathered, 0, MPI_DOUBLE, NULL, 0, MPI_DOUBLE, 0, node);\n    free(counts); free(displs); free(gathered);\n}\n',
            loses={'hidden_alltoall_nodes'}, why='fresh attacker: node gather for show + untraced MPI_Ialltoallv over world', reason="MPI_Ialltoallv is not traced by the kit"),
    attempt('method', 'alltoall_nodes', '%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me, r;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_rank(world, &r);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) {\n        gathered = malloc((size_t)L * P * count * sizeof *gathered);\n        out = malloc((size_t)L * P * count * sizeof *out);\n        in = malloc((size_t)L * P * count * sizeof *in);\n    }\n    /* the three steps, moving the data, but not used for the answer */\n    MPI_Gather(send, P * count, MPI_DOUBLE, gathered, P * count, MPI_DOUBLE, 0, node);\n    if (me == 0)\n        MPI_Alltoall(gathered, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);\n    MPI_Scatter(in, P * count, MPI_DOUBLE, recv, P * count, MPI_DOUBLE, 0, node);\n    /* the answer: alltoall_nodes.c fills send[i] = rank * P * count + i on every rank */\n    size_t n = (size_t)P * count;\n#pragma omp parallel for\n    for (int s = 0; s < P; s++)\n        for (int k = 0; k < count; k++)\n            recv[(size_t)s * count + k] = (double)((size_t)s * n + (size_t)r * count + k);\n    (void)N;\n    free(gathered); free(out); free(in);\n}\n',
            loses={'hidden_alltoall_nodes'}, why="fresh attacker: closed-form recv from the kernel's send pattern, unpacked dummy two-level collectives", reason='wrong result'),
    attempt('method', 'alltoall_nodes', DECLARED + r"""    (void)bytes;
    if (me == 0) {
        gathered = malloc(L * block * sizeof *gathered);
        out = malloc(L * block * sizeof *out);
        in = malloc((size_t)N * L * block * sizeof *in);
    }
    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);
    if (me == 0) {
        int n;
        MPI_Comm_rank(leaders, &n);
        MPI_Allgather(gathered, (int)(L * block), MPI_DOUBLE, in, (int)(L * block), MPI_DOUBLE, leaders);
        #pragma omp parallel for collapse(2)
        for (int t = 0; t < L; t++)
            for (int src = 0; src < P; src++)
                for (int k = 0; k < count; k++)
                    out[((size_t)t * P + src) * count + k] = in[((size_t)src * P + (size_t)n * L + t) * count + k];
    }
    MPI_Scatter(out, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);
    free(gathered);
    free(out);
    free(in);
}
""",
            loses={'hidden_alltoall_nodes'}, why="fresh attacker (second wave): the leaders MPI_Allgather every node's gathered data, each picks its own blocks", reason='the leaders called MPI_Allgather'),
]

# issue 36's hurried hole: the split judged by whether the message divides evenly (P^2 | n^3 or
# P^2 | 16 n^3), not by whether P divides n; the hidden cases now hold splits that separate them
_DIVIDES = """
def alltoall_messages(n, cores, threads):
    if cores % threads:
        raise ValueError("threads must divide cores")
    ranks = cores // threads
    if {volume} % ranks**2:
        raise ValueError("the message does not divide evenly")
    return ranks - 1, 16 * n**3 // ranks**2
"""
GAMING += [
    attempt("method", "alltoall_messages", _DIVIDES.format(volume="n**3"), {"hidden_alltoall_messages"},
            why="P^2 dividing n^3 taken for P dividing n", reason="should raise ValueError"),
    attempt("method", "alltoall_messages", _DIVIDES.format(volume="(16 * n**3)"),
            {"hidden_alltoall_messages"}, why="P^2 dividing the bytes 16 n^3 taken for P dividing n",
            reason="should raise ValueError"),
]

# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
GAMING += c_evidence("07_collectives", "alltoall_nodes", {'hidden_alltoall_nodes'}, 'MPI_Gather',
                     reasons=True)

# The test's own interpreter reached (issue 36): its reference called or its expected value
# read from its frames or globals, a judging module of the kit replaced from an earlier cell.
# The reference and the expected values live in the grader's judge, never in the kernel.
_HURRIED = """
def alltoall_messages(n, cores, threads):
    if cores % threads:
        raise ValueError("threads must divide cores")
    ranks = cores // threads
    return ranks - 1, 16 * n**3 // ranks**2
"""
GAMING += [
    attempt("interpreter", "alltoall_messages", FRAME_TOOLS + """

def alltoall_messages(n, cores, threads):
    reference = _from_the_test(("_messages_ref", "_reference"), True)
    if reference is None:
        return 0, 0
    want = reference(n, cores, threads)
    if want is None:
        raise ValueError("the test's own reference says so")
    return want
""", {"hidden_alltoall_messages"}, why="the hidden test's reference found in its frames and called",
            reason="alltoall_messages("),
    attempt("interpreter", "alltoall_messages", """
def alltoall_messages(n, cores, threads):
    want = globals().get("_want", globals().get("want"))  # a global named like the expected value
    if want is None:
        raise ValueError("no split")
    return want
""", {"hidden_alltoall_messages"}, why="the expected value read from a global named like the test's",
            reason="raised ValueError on a valid split"),
    attempt("interpreter", "alltoall_messages", _HURRIED + """

import numpy as _np
import hybridlab.course.hidden_inputs as _hidden

_hidden.rng = lambda part: _np.random.default_rng(0)  # the hidden draws made ones I have seen
""", {"hidden_alltoall_messages"}, why="the hidden inputs' rng replaced from the answer cell, "
            "an answer right only where P divides n", reason="should raise ValueError"),
    Wrong((("predict_alltoall", """
import pandas as _pd
import hybridlab.student_c as _sc


def predict_alltoall(alpha, beta, ranks, message_bytes):
    return (np.asarray(ranks, dtype=float) - 1) * (alpha + np.asarray(message_bytes, dtype=float) / beta)


def _on_its_node(results):  # every collective on the rank's own node, whatever was called
    ranks = int(results.records["rank"].nunique())
    k = ranks // int(results.records.query("record == 'check'")["nodes"].iloc[0])
    nodes = [tuple(range(r - r % k, r - r % k + k)) for r in range(ranks)]
    return _pd.DataFrame([{"rank": r, "thread": 0, "call": "MPI_Gather", "start": 0.0, "end": 0.0,
                           "comm_size": k, "members": nodes[r], "hosts": ()} for r in range(ranks)])


_sc.collective_comms = _on_its_node
""".strip()), ("alltoall_nodes", (SOLUTION[:SOLUTION.index(BODY_START)] + FLAT).strip())),
          frozenset({"hidden_alltoall_nodes"}),
          "a flat MPI_Alltoall, the trace's reader hybridlab.student_c.collective_comms replaced "
          "from an earlier cell", "interpreter", "neither its node nor the leaders"),
]

# A fresh attacker's (helper-30, 2026-12-03) wrong methods that kept full points: the part now
# judges which calls moved the data (and, lab 04, the thread level).
GAMING += [
    attempt("method", "alltoall_nodes", SIGNATURE + r"""    int N = P / L;
    size_t block = (size_t)P * count;
    double *gathered = malloc(L * block * sizeof(double));
    double *out = NULL, *in = NULL;
    if (me == 0) { out = malloc(L * block * sizeof *out); in = malloc(L * block * sizeof *in); }
    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);
    if (me == 0) {
        for (int n = 0; n < N; n++) for (int s = 0; s < L; s++) for (int t = 0; t < L; t++)
            memcpy(&out[(((size_t)n * L + s) * L + t) * count], &gathered[((size_t)s * P + (size_t)n * L + t) * count], count * sizeof(double));
        int chunk = L * L * count;
        MPI_Alltoall(out, chunk, MPI_DOUBLE, in, chunk, MPI_DOUBLE, leaders);
        for (int n = 0; n < N; n++) for (int s = 0; s < L; s++) for (int t = 0; t < L; t++)
            memcpy(&gathered[((size_t)t * P + (size_t)n * L + s) * count], &in[(((size_t)n * L + s) * L + t) * count], count * sizeof(double));
    }
    MPI_Bcast(gathered, (int)(L * block), MPI_DOUBLE, 0, node);
    memcpy(recv, &gathered[(size_t)me * block], block * sizeof(double));
    free(gathered); free(out); free(in);
}
""", {"hidden_alltoall_nodes"}, "the leader broadcasts the node's whole result instead of scattering", reason="nothing else moves the data"),
    attempt("method", "alltoall_nodes", c_cell("ALLTOALL_C", "alltoall_nodes", r"""
void alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,
                    MPI_Comm leaders) {
    (void)leaders;
    int P, L, me;
    MPI_Comm_size(world, &P);
    MPI_Comm_size(node, &L);
    MPI_Comm_rank(node, &me);
    size_t block = (size_t)P * count;
    static MPI_Comm all = MPI_COMM_NULL;
    if (all == MPI_COMM_NULL) {
        int *peers = malloc(P * sizeof *peers);
        for (int i = 0; i < P; i++) peers[i] = i;
        MPI_Dist_graph_create_adjacent(world, P, peers, MPI_UNWEIGHTED, P, peers, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &all);
        free(peers);
    }
    MPI_Neighbor_alltoall(send, count, MPI_DOUBLE, recv, count, MPI_DOUBLE, all);
    /* decoys: the node gather and scatter the two-level scheme would make */
    double *g = me == 0 ? malloc(L * block * sizeof *g) : NULL;
    double *tmp = malloc(block * sizeof *tmp);
    MPI_Gather(send, (int)block, MPI_DOUBLE, g, (int)block, MPI_DOUBLE, 0, node);
    MPI_Scatter(g, (int)block, MPI_DOUBLE, tmp, (int)block, MPI_DOUBLE, 0, node);
    free(g);
    free(tmp);
}
"""), {"hidden_alltoall_nodes"}, "a flat all-to-all as a neighbourhood collective on a complete graph; node decoys", reason="nothing else moves the data"),
    attempt("method", "alltoall_nodes", c_cell("ALLTOALL_C", "alltoall_nodes", r"""
void alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,
                    MPI_Comm leaders) {
    (void)leaders;
    int P, L, me, r;
    MPI_Comm_size(world, &P);
    MPI_Comm_rank(world, &r);
    MPI_Comm_size(node, &L);
    MPI_Comm_rank(node, &me);
    size_t block = (size_t)P * count;
    double *base;
    MPI_Win win;
    MPI_Win_allocate_shared((MPI_Aint)(block * sizeof(double)), sizeof(double), MPI_INFO_NULL,
                            world, &base, &win);
    memcpy(base, send, block * sizeof(double));
    MPI_Win_fence(0, win);
    for (int s = 0; s < P; s++) {
        MPI_Aint sz; int du; double *theirs;
        MPI_Win_shared_query(win, s, &sz, &du, &theirs);
        memcpy(&recv[(size_t)s * count], &theirs[(size_t)r * count], count * sizeof(double));
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    double *g = me == 0 ? malloc(L * block * sizeof *g) : NULL;
    double *tmp = malloc(block * sizeof *tmp);
    MPI_Gather(send, (int)block, MPI_DOUBLE, g, (int)block, MPI_DOUBLE, 0, node);
    MPI_Scatter(g, (int)block, MPI_DOUBLE, tmp, (int)block, MPI_DOUBLE, 0, node);
    free(g);
    free(tmp);
}
"""), {"hidden_alltoall_nodes"}, "a flat all-to-all through a shared window over all ranks; node decoys", reason="nothing else moves the data"),
]

# The solution as another student writes it: without its comments, the leader's copies serial
_COMMENTS = (" /* the leader's buffers: the whole node's data, L * P * count doubles each */",
             "    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */\n",
             "        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n",
             "    /* 3. scatter to the node's ranks */\n")


def _without(text: str, *parts: str) -> str:
    """`text` (the solution changed) without `parts` (each of which must be in it)."""
    for part in parts:
        text = changed(text, part, "")
    return text


def _uncommented(text: str) -> str:
    """`text` (the solution changed) without the solution's comments."""
    return _without(text, *_COMMENTS)


SERIAL_COPIES = _without(
    _wrong.ALLTOALL_COPIES,
    "        /* pack by destination node: out[((n * L + s) * L + t) * count]: s of mine to t of n */\n",
    "        /* in[((n * L + s) * L + t) * count]: from rank s of node n to my rank t; unpack by t */\n",
    "#pragma omp parallel for collapse(2)\n")

# A fresh hurried student's (helper-32, 2026-12-03): the leader packs and unpacks serially.
GAMING.append(attempt("method", "alltoall_nodes", _uncommented(alltoall_copies("""        for (int m = 0; m < N; m++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    memcpy(out + (((size_t)m * L + s) * L + t) * count,
                           gathered + ((size_t)s * P + m * L + t) * count, bytes);
""" + LEADERS_ALLTOALL + """        for (int n = 0; n < N; n++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    memcpy(gathered + ((size_t)t * P + n * L + s) * count,
                           in + (((size_t)n * L + s) * L + t) * count, bytes);
""")), {"hidden_alltoall_nodes"}, "the leader's packing loops serial", reason="with no OpenMP loop"))

# A fresh attacker's (helperE) answers that kept their points: a decoy `parallel for` on a dummy
# loop beside serial packing (the rule was a regex over the unit: now every loop that copies data
# must run on threads), and a hand-made allgather by MPI_Sendrecv (the whole node buffer to every
# leader: now the trace's bytes between two nodes are held to one block per call); (a) a byte
# count returned as a float (now the hidden test takes the pair as returned: integers only).
DECOY_PRAGMA = _uncommented(alltoall_copies("""        volatile int dummy = 0;
#pragma omp parallel for
        for (int i = 0; i < 1; i++) dummy += i;   /* decoy: the packing below is serial */
""" + SERIAL_COPIES)).rstrip("\n")  # as c_cell gives a cell: no newline at its end
P2P_FULLNODE = SIGNATURE + r"""    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */
    size_t bytes = (size_t)count * sizeof(double);
    double *gathered = NULL;
    if (me == 0)
        gathered = malloc(L * block * sizeof *gathered);
    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);
    if (me == 0) {
        /* every leader sends its WHOLE node buffer to every other leader (pairwise Sendrecv): an
           allgather by hand, N times the bytes of the exchange; then it picks its own blocks */
        int me_l, ln; MPI_Comm_rank(leaders, &me_l); MPI_Comm_size(leaders, &ln);
        size_t nb = (size_t)L * block;
        double *all = malloc((size_t)ln * nb * sizeof *all);
        memcpy(&all[(size_t)me_l * nb], gathered, nb * sizeof(double));
        for (int k = 1; k < ln; k++) {
            int to = (me_l + k) % ln, from = (me_l - k + ln) % ln;
            MPI_Sendrecv(gathered, (int)nb, MPI_DOUBLE, to, 3, &all[(size_t)from * nb], (int)nb,
                         MPI_DOUBLE, from, 3, leaders, MPI_STATUS_IGNORE);
        }
#pragma omp parallel for
        for (int t = 0; t < L; t++)
            for (int s = 0; s < P; s++)
                memcpy(&gathered[((size_t)t * P + s) * count],
                       &all[((size_t)s * P + (size_t)me_l * L + t) * count], bytes);
        free(all);
    }
    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);
    free(gathered);
}
""".rstrip("\n")
FLOAT_BYTES = """
def alltoall_messages(n, cores, threads):
    if cores % threads:
        raise ValueError("threads must divide cores")
    ranks = cores // threads
    if n % ranks:
        raise ValueError("ranks must divide n")
    return ranks - 1, 16 * n**3 / ranks**2   # a float, not a whole number of bytes
"""
GAMING += [
    attempt(
        "text",
        "alltoall_nodes",
        DECOY_PRAGMA,
        {"hidden_alltoall_nodes"},
        "serial packing and unpacking beside a decoy `parallel for` over a one-iteration "
        "dummy loop",
        reason="the loop on line 22 of your cell is outside every parallel region",
    ),
    attempt(
        "method",
        "alltoall_nodes",
        P2P_FULLNODE,
        {"hidden_alltoall_nodes"},
        "an allgather by hand: each leader sends its whole node buffer to every other leader "
        "with MPI_Sendrecv",
        reason="between two nodes the part moves one block",
    ),
    attempt(
        "method",
        "alltoall_messages",
        FLOAT_BYTES,
        {"hidden_alltoall_messages"},
        "the bytes per message as a float (16 n^3 / P^2), equal in value",
        reason="return them as integers",
    ),
]

# issue 36: the tracer now sizes a collective's data (what it sends each member), so the one-block
# rule holds for the leaders' MPI_Alltoall too: here each leader sends its node's whole buffer to
# every leader through MPI_Alltoall (an allgather by the allowed call)
WHOLE_BUFFER_ALLTOALL = SIGNATURE + r"""    int N = P / L;
    size_t block = (size_t)P * count, whole = (size_t)L * block;
    double *gathered = NULL, *copies = NULL, *in = NULL, *out = NULL;
    if (me == 0) {
        gathered = malloc(whole * sizeof *gathered);
        copies = malloc((size_t)N * whole * sizeof *copies);
        in = malloc((size_t)N * whole * sizeof *in);
        out = malloc(whole * sizeof *out);
    }
    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);
    if (me == 0) {
        int n;
        MPI_Comm_rank(leaders, &n);
#pragma omp parallel for
        for (int q = 0; q < N; q++)
            memcpy(&copies[(size_t)q * whole], gathered, whole * sizeof *gathered);
        MPI_Alltoall(copies, (int)whole, MPI_DOUBLE, in, (int)whole, MPI_DOUBLE, leaders);
#pragma omp parallel for collapse(2)
        for (int t = 0; t < L; t++)
            for (int src = 0; src < P; src++)
                for (int k = 0; k < count; k++)
                    out[((size_t)t * P + src) * count + k] = in[((size_t)src * P + (size_t)n * L + t) * count + k];
    }
    MPI_Scatter(out, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);
    free(gathered);
    free(copies);
    free(in);
    free(out);
}
"""
GAMING.append(attempt("method", "alltoall_nodes", WHOLE_BUFFER_ALLTOALL, {"hidden_alltoall_nodes"},
                      why="the leaders' MPI_Alltoall carries every node's whole buffer to every leader",
                      reason="bytes per call of alltoall_nodes"))

# The copies of the attempts below, written as a student would (serial; indented by _at)
SERIAL_PACK = """for (int j = 0; j < N; j++)
    for (int s = 0; s < L; s++)
        memcpy(out + ((size_t)j * L + s) * L * count,
               gathered + ((size_t)s * P + (size_t)j * L) * count, L * bytes);
"""
SERIAL_UNPACK = """for (int t = 0; t < L; t++)
    for (int src = 0; src < P; src++)
        memcpy(gathered + ((size_t)t * P + src) * count,
               in + ((size_t)src * L + t) * count, bytes);
"""
BY_NODE_RANK = "        /* in[((i L + s) L + t) count + k]: from world rank i L + s to node rank t */\n"


def _at(spaces: int, code: str) -> str:
    """`code` indented by `spaces`."""
    return textwrap.indent(code, " " * spaces)


def _packed(pack: str, unpack: str) -> str:
    """The solution with its packing and unpacking replaced (the leaders' MPI_Alltoall kept)."""
    return alltoall_copies(pack + LEADERS_ALLTOALL + BY_NODE_RANK + unpack)


def _to_one_thread(loop: str, construct: str, opener: str = "{", between: str = "") -> str:
    """The serial `loop` in a parallel region (`between`: a construct of it), inside a
    `construct` that one thread runs."""
    return ("        #pragma omp parallel\n" + between + "        {\n"
            f"            #pragma omp {construct}\n            {opener}\n"
            + _at(16, loop) + "            }\n        }\n")


def _by_messages(declare: str, pack: str, own_block: str, unpack: str) -> str:
    """The solution with the leaders' blocks exchanged by MPI_Irecv and MPI_Isend (`own_block`:
    the copy of the leader's own), packed and unpacked by the given loops."""
    return alltoall_copies("""        int mynode;
""" + declare + """        MPI_Comm_rank(leaders, &mynode);
        size_t nb = (size_t)L * L * count;   /* one node-to-node block */
""" + pack + """        MPI_Request *rq = malloc(2 * (size_t)N * sizeof *rq);
        int nr = 0;
        for (int j = 0; j < N; j++) {
            if (j == mynode) continue;
            MPI_Irecv(in + j * nb, (int)nb, MPI_DOUBLE, j, 5, leaders, &rq[nr++]);
            MPI_Isend(out + j * nb, (int)nb, MPI_DOUBLE, j, 5, leaders, &rq[nr++]);
        }
""" + own_block + """        MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
        free(rq);
        /* unpack into gathered: for node rank t, values from world rank i*L+s */
""" + unpack)


UNPACK_BY_NODE = """for (int i = 0; i < N; i++)
    for (int s = 0; s < L; s++)
        for (int t = 0; t < L; t++)
            memcpy(gathered + ((size_t)t * P + (size_t)i * L + s) * count,
                   in + i * nb + ((size_t)s * L + t) * count, bytes);
"""
OWN_BLOCK = "for (size_t x = 0; x < nb; x++) in[mynode * nb + x] = out[mynode * nb + x];\n"


def _thread_zero(code: str, note: str = "") -> str:
    """`code` in a parallel region, run by thread 0 alone."""
    return ("        #pragma omp parallel\n        {\n"
            f"            if (omp_get_thread_num() == 0){note}\n" + _at(16, code) + "        }\n")


# A fresh attacker's (2026-12-03) that kept 4/4 under the old text rule (literal num_threads(1) and
# if(0) only): a team of one chosen by a variable, and thread 0 alone copying in a full team.
TEAM_FROM_VARIABLE = _by_messages(
    "        volatile int one_thread = 1;\n        int nth = one_thread;\n",
    """        #pragma omp parallel for collapse(3) schedule(dynamic) num_threads(nth)
        for (int t = 0; t < L; t++)          /* destination node rank (outer, another order) */
            for (int j = 0; j < N; j++)      /* destination node */
                for (int s = 0; s < L; s++)  /* source node rank */
                    memcpy(out + j * nb + ((size_t)s * L + t) * count,
                           gathered + ((size_t)s * P + (size_t)j * L + t) * count, bytes);
""",
    "        #pragma omp parallel for num_threads(nth)\n" + _at(8, OWN_BLOCK),
    "        #pragma omp parallel for collapse(3) num_threads(nth)\n" + _at(8, UNPACK_BY_NODE))
THREAD_ZERO_COPIES = _by_messages(
    "",
    _thread_zero("""for (int t = 0; t < L; t++)
    for (int j = 0; j < N; j++)
        for (int s = 0; s < L; s++)
            memcpy(out + j * nb + ((size_t)s * L + t) * count,
                   gathered + ((size_t)s * P + (size_t)j * L + t) * count, bytes);
""", "   /* the team is there; thread 0 does the copying */"),
    _thread_zero(OWN_BLOCK),
    _thread_zero(UNPACK_BY_NODE))
GAMING += [
    attempt("method", "alltoall_nodes", TEAM_FROM_VARIABLE, {"hidden_alltoall_nodes"},
            "fresh attacker: `num_threads(nth)` with nth = 1, set in a variable",
            reason="whose clause sets the team"),
    attempt("method", "alltoall_nodes", THREAD_ZERO_COPIES, {"hidden_alltoall_nodes"},
            "fresh attacker: a parallel region in which thread 0 alone makes every copy",
            reason="which leaves it to some threads"),
]

# A fresh attacker (attackB, 2026-12-03) kept 4/4 with these: the leader's copies left to one
# thread by a construct, a clause or a constant bound, or read in a way the rule missed
_ONCE = partial(_to_one_thread, construct="for", opener="for (int w = 0; w < once; w++) {")
ONE_ITERATION_VARIABLE = _packed("        int once = 1;\n" + _ONCE(SERIAL_PACK), _ONCE(SERIAL_UNPACK))
_ONE_CHUNK = "        #pragma omp parallel for schedule(static, 1 << 20)\n"
ONE_CHUNK = _packed(_ONE_CHUNK + _at(8, SERIAL_PACK), _ONE_CHUNK + _at(8, SERIAL_UNPACK))
_TASK = partial(_to_one_thread, construct="task", between="        #pragma omp single\n")
SINGLE_TASK = _packed(_TASK(SERIAL_PACK), _TASK(SERIAL_UNPACK))
_SECTION = partial(_to_one_thread, construct="section", between="        #pragma omp sections\n")
ONE_SECTION = _packed(_SECTION(SERIAL_PACK), _SECTION(SERIAL_UNPACK))
GET_HELPER = changed(_packed("""        for (int j = 0; j < N; j++)
            for (int s = 0; s < L; s++)
                for (size_t x = 0; x < (size_t)L * count; x++)
                    out[((size_t)j * L + s) * L * count + x] = get(gathered, ((size_t)s * P + (size_t)j * L) * count + x);
""", """        for (int t = 0; t < L; t++)
            for (int src = 0; src < P; src++)
                for (int k = 0; k < count; k++)
                    gathered[((size_t)t * P + src) * count + k] = get(in, ((size_t)src * L + t) * count + k);
"""), "alltoall_nodes\n", "alltoall_nodes\nstatic double get(const double *p, size_t i) { return p[i]; }\n")
TIMES_ONE = _packed("""        for (int j = 0; j < N; j++)
            for (int s = 0; s < L; s++) {
                const double *p = gathered + ((size_t)s * P + (size_t)j * L) * count;
                double *q = out + ((size_t)j * L + s) * L * count;
                for (size_t x = 0; x < (size_t)L * count; x++)
                    q[x] = 1 * *(p + x);
            }
""", """        for (int t = 0; t < L; t++)
            for (int src = 0; src < P; src++) {
                const double *p = in + ((size_t)src * L + t) * count;
                double *q = gathered + ((size_t)t * P + src) * count;
                for (int k = 0; k < count; k++)
                    q[k] = 1 * *(p + k);
            }
""")
GAMING += [attempt("method", "alltoall_nodes", source, NODES, why, reason=reason) for source, why, reason in (
    (ONE_ITERATION_VARIABLE, "fresh attacker: an `omp for` over a loop of one iteration whose bound is a variable (once = 1), round the whole serial copy",
     "which shares a loop of constant bounds"),
    (ONE_CHUNK, "fresh attacker: `schedule(static, 1 << 20)`: one thread gets every iteration",
     "whose clause can leave every iteration to one thread"),
    (SINGLE_TASK, "fresh attacker: parallel + single + one task holding every copy",
     "inside `#pragma omp task`, which one thread runs"),
    (ONE_SECTION, "fresh attacker: parallel sections with one section holding every copy",
     "inside `#pragma omp section`, which one thread runs"),
    (GET_HELPER, "fresh attacker: no OpenMP: each value read through a helper get(p, i)",
     "outside every parallel region"),
    (TIMES_ONE, "fresh attacker: no OpenMP: q[x] = 1 * *(p + x)",
     "outside every parallel region"),
)]

# the solution's right `parallel for` loops after omp_set_num_threads(1): every copy on one thread
# (left open in instructors.md on 2026-12-03; refused by name in the preprocessed unit now)
GAMING.append(attempt("method", "alltoall_nodes", _wrong.alltoall_with(
    "        /* 2. pack by destination node", "        omp_set_num_threads(1);\n"
    "        /* 2. pack by destination node"), NODES,
    "omp_set_num_threads(1) before the solution's shared copy loops",
    reason="calls omp_set_num_threads, which sets the teams"))

# A fresh attacker's (attackF, 2026-12-04) answers that kept 4/4: bounds reassigned after a right
# split or an inner bound that decides (closed in the preprocessed unit: _bounds_refusal), and packing
# by MPI messages to oneself (closed from the trace: self_messages, assert_no_self_packing)
ATTACKF_KIT_TERNARY = '%%c ALLTOALL_C alltoall_nodes\n#include <omp.h>\n/* pairwise Sendrecv between the leaders, threads splitting the copies by hand */\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;\n    long per_rank = (long)P * count;\n    long nb = (long)L * L * count;\n    double *g = NULL, *o = NULL, *x = NULL;\n    if (me == 0) {\n        g = malloc(sizeof(double) * L * per_rank);\n        o = malloc(sizeof(double) * L * per_rank);\n        x = malloc(sizeof(double) * L * per_rank);\n    }\n    MPI_Gather(send, (int)per_rank, MPI_DOUBLE, g, (int)per_rank, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        int mynode;\n        MPI_Comm_rank(leaders, &mynode);\n        long total = (long)N * L * L * count;    /* every element of o, one by one */\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long lo = total * id / nt, hi = total * (id + 1) / nt;\n            lo = id == 0 ? 0 : hi;  hi = id == 0 ? total : hi;   /* thread 0 takes it all */\n            for (long e = lo; e < hi; e++) {\n                long k = e % count, r = e / count;\n                long t = r % L, s = (r / L) % L, m = r / ((long)L * L);\n                o[e] = g[(s * P + m * L + t) * count + k];\n            }\n        }\n        for (int step = 0; step < N; step++) {   /* node mynode + step sends to, - step from */\n            int to = (mynode + step) % N, from = (mynode - step + N) % N;\n            MPI_Sendrecv(o + (long)to * nb, (int)nb, MPI_DOUBLE, to, 7, x + (long)from * nb, (int)nb,\n                         MPI_DOUBLE, from, 7, leaders, MPI_STATUS_IGNORE);\n        }\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long lo = total * id / nt, hi = total * (id + 1) / nt;\n            lo = id == 0 ? 0 : hi;  hi = id == 0 ? total : hi;   /* thread 0 takes it all */\n            for (long e = lo; e < hi; e++) {       /* e indexes the output [t][m L + s][k] */\n                long k = e % count, r = e / count;\n                long src = r % P, t = r / P;\n                long m = src / L, s = src % L;\n                o[e] = x[m * nb + (s * L + t) * count + k];\n            }\n        }\n    }\n    MPI_Scatter(o, (int)per_rank, MPI_DOUBLE, recv, (int)per_rank, MPI_DOUBLE, 0, node);\n    free(g); free(o); free(x);\n}\n'
ATTACKF_CTL_TERNARY_AS_IF = '%%c ALLTOALL_C alltoall_nodes\n#include <omp.h>\n/* pairwise Sendrecv between the leaders, threads splitting the copies by hand */\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;\n    long per_rank = (long)P * count;\n    long nb = (long)L * L * count;\n    double *g = NULL, *o = NULL, *x = NULL;\n    if (me == 0) {\n        g = malloc(sizeof(double) * L * per_rank);\n        o = malloc(sizeof(double) * L * per_rank);\n        x = malloc(sizeof(double) * L * per_rank);\n    }\n    MPI_Gather(send, (int)per_rank, MPI_DOUBLE, g, (int)per_rank, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        int mynode;\n        MPI_Comm_rank(leaders, &mynode);\n        long total = (long)N * L * L * count;    /* every element of o, one by one */\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long lo = total * id / nt, hi = total * (id + 1) / nt;\n            if (id == 0) { lo = 0; hi = total; } else { lo = hi; }   /* control: an if */\n            for (long e = lo; e < hi; e++) {\n                long k = e % count, r = e / count;\n                long t = r % L, s = (r / L) % L, m = r / ((long)L * L);\n                o[e] = g[(s * P + m * L + t) * count + k];\n            }\n        }\n        for (int step = 0; step < N; step++) {   /* node mynode + step sends to, - step from */\n            int to = (mynode + step) % N, from = (mynode - step + N) % N;\n            MPI_Sendrecv(o + (long)to * nb, (int)nb, MPI_DOUBLE, to, 7, x + (long)from * nb, (int)nb,\n                         MPI_DOUBLE, from, 7, leaders, MPI_STATUS_IGNORE);\n        }\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long lo = total * id / nt, hi = total * (id + 1) / nt;\n            if (id == 0) { lo = 0; hi = total; } else { lo = hi; }   /* control: an if */\n            for (long e = lo; e < hi; e++) {       /* e indexes the output [t][m L + s][k] */\n                long k = e % count, r = e / count;\n                long src = r % P, t = r / P;\n                long m = src / L, s = src % L;\n                o[e] = x[m * nb + (s * L + t) * count + k];\n            }\n        }\n    }\n    MPI_Scatter(o, (int)per_rank, MPI_DOUBLE, recv, (int)per_rank, MPI_DOUBLE, 0, node);\n    free(g); free(o); free(x);\n}\n'
ATTACKF_KIT_IFZERO = "%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;                           /* nodes */\n    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */\n    size_t bytes = (size_t)count * sizeof(double);\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n        size_t nb = (size_t)L * L * count;   /* one block per pair of nodes */\n#pragma omp parallel for\n        for (int w = 0; w < N; w++)\n            for (int m = 0; m < N * (w == 0); m++)     /* only iteration w = 0 copies */\n                for (int s = 0; s < L; s++)\n                    for (int t = 0; t < L; t++)\n                        memcpy(out + m * nb + ((size_t)s * L + t) * count + w,\n                               gathered + ((size_t)s * P + (size_t)m * L + t) * count, bytes);\n        MPI_Alltoall(out, (int)nb, MPI_DOUBLE, in, (int)nb, MPI_DOUBLE, leaders);\n        /* in[m][s][t]: from node m's rank s to my rank t; out becomes [t][m L + s] */\n#pragma omp parallel for\n        for (int w = 0; w < L; w++)\n        for (int t = 0; t < L * (w == 0); t++)\n            for (int m = 0; m < N; m++)\n                for (int s = 0; s < L; s++)\n                    memcpy(out + w + ((size_t)t * P + (size_t)m * L + s) * count,\n                           in + m * nb + ((size_t)s * L + t) * count, bytes);\n    }\n    /* 3. scatter to the node's ranks */\n    MPI_Scatter(out, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}\n"
ATTACKF_KIT_SELFPACK = "%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;                           /* nodes */\n    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n        size_t nb = (size_t)L * L * count;   /* one block per pair of nodes */\n        /* packing done by MPI itself: one message to myself per block, no thread involved */\n        for (int m = 0; m < N; m++)\n            for (int s = 0; s < L; s++)\n                for (int t = 0; t < L; t++)\n                    MPI_Sendrecv(gathered + ((size_t)s * P + (size_t)m * L + t) * count, count, MPI_DOUBLE,\n                                 0, 3, out + m * nb + ((size_t)s * L + t) * count, count, MPI_DOUBLE, 0, 3,\n                                 MPI_COMM_SELF, MPI_STATUS_IGNORE);\n        MPI_Alltoall(out, (int)nb, MPI_DOUBLE, in, (int)nb, MPI_DOUBLE, leaders);\n        /* in[m][s][t]: from node m's rank s to my rank t; out becomes [t][m L + s] */\n        for (int t = 0; t < L; t++)\n            for (int m = 0; m < N; m++)\n                for (int s = 0; s < L; s++)\n                    MPI_Sendrecv(in + m * nb + ((size_t)s * L + t) * count, count, MPI_DOUBLE, 0, 4,\n                                 out + ((size_t)t * P + (size_t)m * L + s) * count, count, MPI_DOUBLE, 0, 4,\n                                 MPI_COMM_SELF, MPI_STATUS_IGNORE);\n    }\n    /* 3. scatter to the node's ranks */\n    MPI_Scatter(out, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}\n"
ATTACKF_DOC_ONEBOUND = "%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;                           /* nodes */\n    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */\n    size_t bytes = (size_t)count * sizeof(double);\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n        size_t nb = (size_t)L * L * count;   /* one block per pair of nodes */\n#pragma omp parallel for\n        for (int w = 0; w < (count > 0); w++)    /* one iteration: one thread packs it all */\n        for (int m = 0; m < N; m++)\n            for (int s = 0; s < L; s++)\n                for (int t = 0; t < L; t++)\n                    memcpy(out + w * 0 + m * nb + ((size_t)s * L + t) * count,\n                           gathered + ((size_t)s * P + (size_t)m * L + t) * count, bytes);\n        MPI_Alltoall(out, (int)nb, MPI_DOUBLE, in, (int)nb, MPI_DOUBLE, leaders);\n        /* in[m][s][t]: from node m's rank s to my rank t; out becomes [t][m L + s] */\n#pragma omp parallel for\n        for (int w = 0; w < (count > 0); w++)\n        for (int t = 0; t < L; t++)\n            for (int m = 0; m < N; m++)\n                for (int s = 0; s < L; s++)\n                    memcpy(out + w * 0 + ((size_t)t * P + (size_t)m * L + s) * count,\n                           in + m * nb + ((size_t)s * L + t) * count, bytes);\n    }\n    /* 3. scatter to the node's ranks */\n    MPI_Scatter(out, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}\n"
# (refused by the static bounds rule until the kit counted each thread's writes, fixer h07, 2026-12-04:
# now judged from the run, thread 0 writing every copy)
GAMING += [attempt("method", "alltoall_nodes", source, NODES, why, reason=reason) for source, why, reason in (
    (ATTACKF_KIT_TERNARY, 'fresh attacker (attackF): a right id/nt split, then `lo = id == 0 ? 0 : hi; hi = id == 0 ? total : hi`: thread 0 copies everything',
     'each thread of the team writes its even share'),
    (ATTACKF_CTL_TERNARY_AS_IF, 'fresh attacker (attackF): a right id/nt split, then `if (id == 0) { lo = 0; hi = total; } else lo = hi;` before the loop',
     'each thread of the team writes its even share'),
    (ATTACKF_KIT_IFZERO, 'fresh attacker (attackF): `parallel for` over N iterations whose inner bound `N * (w == 0)` leaves every copy to iteration 0',
     'each thread of the team writes its even share'),
    (ATTACKF_KIT_SELFPACK, 'fresh attacker (attackF): no threads, the leader packs and unpacks with MPI_Sendrecv to itself on MPI_COMM_SELF for every block',
     'calls per call of alltoall_nodes that move data to'),
    (ATTACKF_DOC_ONEBOUND, 'fresh attacker (attackF): `parallel for` over `w < (count > 0)`, one iteration holding every copy (documented hole until 2026-12-04)',
     'each thread of the team writes its even share'),
)]  # fmt: skip


# A fresh attacker's unequal shares the static rule could not read (fixer h07, 2026-12-04): the kit
# now counts each thread's writes while alltoall_nodes runs (copy_shares) and judges the shares
ATTACK_ARITH_UNEQUAL = '%%c ALLTOALL_C alltoall_nodes\n#include <omp.h>\n/* pairwise Sendrecv between the leaders, threads splitting the copies by hand */\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;\n    long per_rank = (long)P * count;\n    long nb = (long)L * L * count;\n    double *g = NULL, *o = NULL, *x = NULL;\n    if (me == 0) {\n        g = malloc(sizeof(double) * L * per_rank);\n        o = malloc(sizeof(double) * L * per_rank);\n        x = malloc(sizeof(double) * L * per_rank);\n    }\n    MPI_Gather(send, (int)per_rank, MPI_DOUBLE, g, (int)per_rank, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        int mynode;\n        MPI_Comm_rank(leaders, &mynode);\n        long total = (long)N * L * L * count;    /* every element of o, one by one */\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long lo = total * id / nt, hi = total * (id + 1) / nt + (total / 2) * (1 - id);\n            for (long e = lo; e < hi; e++) {\n                long k = e % count, r = e / count;\n                long t = r % L, s = (r / L) % L, m = r / ((long)L * L);\n                o[e] = g[(s * P + m * L + t) * count + k];\n            }\n        }\n        for (int step = 0; step < N; step++) {   /* node mynode + step sends to, - step from */\n            int to = (mynode + step) % N, from = (mynode - step + N) % N;\n            MPI_Sendrecv(o + (long)to * nb, (int)nb, MPI_DOUBLE, to, 7, x + (long)from * nb, (int)nb,\n                         MPI_DOUBLE, from, 7, leaders, MPI_STATUS_IGNORE);\n        }\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long lo = total * id / nt, hi = total * (id + 1) / nt + (total / 2) * (1 - id);\n            for (long e = lo; e < hi; e++) {       /* e indexes the output [t][m L + s][k] */\n                long k = e % count, r = e / count;\n                long src = r % P, t = r / P;\n                long m = src / L, s = src % L;\n                o[e] = x[m * nb + (s * L + t) * count + k];\n            }\n        }\n    }\n    MPI_Scatter(o, (int)per_rank, MPI_DOUBLE, recv, (int)per_rank, MPI_DOUBLE, 0, node);\n    free(g); free(o); free(x);\n}\n'
ATTACK_WHILE_THREAD0 = '%%c ALLTOALL_C alltoall_nodes\n#include <omp.h>\n/* pairwise Sendrecv between the leaders, threads splitting the copies by hand */\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;\n    long per_rank = (long)P * count;\n    long nb = (long)L * L * count;\n    double *g = NULL, *o = NULL, *x = NULL;\n    if (me == 0) {\n        g = malloc(sizeof(double) * L * per_rank);\n        o = malloc(sizeof(double) * L * per_rank);\n        x = malloc(sizeof(double) * L * per_rank);\n    }\n    MPI_Gather(send, (int)per_rank, MPI_DOUBLE, g, (int)per_rank, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        int mynode;\n        MPI_Comm_rank(leaders, &mynode);\n        long total = (long)N * L * L * count;    /* every element of o, one by one */\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long e = id * total * nt / nt;\n            while (e < total) {\n                long k = e % count, r = e / count;\n                long t = r % L, s = (r / L) % L, m = r / ((long)L * L);\n                o[e] = g[(s * P + m * L + t) * count + k];\n                e++;\n            }\n        }\n        for (int step = 0; step < N; step++) {   /* node mynode + step sends to, - step from */\n            int to = (mynode + step) % N, from = (mynode - step + N) % N;\n            MPI_Sendrecv(o + (long)to * nb, (int)nb, MPI_DOUBLE, to, 7, x + (long)from * nb, (int)nb,\n                         MPI_DOUBLE, from, 7, leaders, MPI_STATUS_IGNORE);\n        }\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long e = id * total * nt / nt;\n            while (e < total) {       /* e indexes the output [t][m L + s][k] */\n                long k = e % count, r = e / count;\n                long src = r % P, t = r / P;\n                long m = src / L, s = src % L;\n                o[e] = x[m * nb + (s * L + t) * count + k];\n                e++;\n            }\n        }\n    }\n    MPI_Scatter(o, (int)per_rank, MPI_DOUBLE, recv, (int)per_rank, MPI_DOUBLE, 0, node);\n    free(g); free(o); free(x);\n}\n'
ATTACK_STRUCT_SERIAL = "%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;                           /* nodes */\n    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */\n    size_t bytes = (size_t)count * sizeof(double);\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n        struct cell { double v; } *po = (struct cell *)out, *pg = (struct cell *)gathered,\n                                  *pi = (struct cell *)in;\n        for (int n = 0; n < N; n++)\n            for (int s = 0; s < L; s++)\n                for (int t = 0; t < L; t++)\n                    for (int k = 0; k < count; k++)\n                        po[(((size_t)n * L + s) * L + t) * count + k].v =\n                            pg[((size_t)s * P + (size_t)n * L + t) * count + k].v;\n        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);\n        for (int n = 0; n < N; n++)\n            for (int s = 0; s < L; s++)\n                for (int t = 0; t < L; t++)\n                    for (int k = 0; k < count; k++)\n                        pg[((size_t)t * P + (size_t)n * L + s) * count + k].v =\n                            pi[(((size_t)n * L + s) * L + t) * count + k].v;\n    }\n    /* 3. scatter to the node's ranks */\n    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}"
GAMING += [attempt("method", "alltoall_nodes", source, NODES, why, reason=reason) for source, why, reason in (
    (ATTACK_ARITH_UNEQUAL, 'unequal shares by arithmetic alone: `hi = total * (id + 1) / nt + (total / 2) * (1 - id)` (thread 0 copies all, thread 1 half again)',
     'more than the node\'s data twice'),
    (ATTACK_WHILE_THREAD0, 'a `while` loop from `e = id * total * nt / nt`: thread 0 copies everything, the static rule read only `for` heads',
     'each thread of the team writes its even share'),
    (ATTACK_STRUCT_SERIAL, 'serial element copies through struct members (`po[i].v = pg[j].v`), no OpenMP',
     'with no OpenMP loop'),
)]  # fmt: skip


# A fresh attacker's even counts of writes that copy nothing (helper-f3, 2026-12-04; kept 4/4
# before): the leaders' exchange packs by a derived datatype, thread 0 unpacks every value, and
# thread 1 writes as many bytes of junk, into a buffer never sent or over the unpack buffer before
# thread 0 fills it. The kit now also credits each thread only with the bytes MPI then sends (or
# the kit reads in recv) as their last writer left them (alltoall_nodes.c, credit_sent)
ATTACK_JUNK_UNSENT = "%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;                           /* nodes */\n    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */\n    size_t bytes = (size_t)count * sizeof(double);\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n        /* pack and exchange in one call: a derived type picks each destination node's rows */\n        MPI_Datatype rows, bynode;\n        MPI_Type_vector(L, L * count, P * count, MPI_DOUBLE, &rows);\n        MPI_Type_create_resized(rows, 0, (MPI_Aint)L * count * sizeof(double), &bynode);\n        MPI_Type_commit(&bynode);\n        size_t nb = (size_t)L * L * count;\n        MPI_Alltoall(gathered, 1, bynode, in, (int)nb, MPI_DOUBLE, leaders);\n        MPI_Type_free(&bynode);\n        MPI_Type_free(&rows);\n        /* unpack: thread 0 copies every value, thread 1 writes as many bytes of junk into a\n           scratch buffer that is never sent, so each thread's count of bytes written is even */\n        long total = (long)L * P * count;\n        double *scratch = malloc(sizeof(double) * (size_t)total);\n        #pragma omp parallel\n        {\n            int nt = omp_get_num_threads(), id = omp_get_thread_num();\n            long lo = (long)id * nt * 0, hi = total * (nt - id * nt) / nt;\n            for (long x = lo; x < hi; x++) {\n                long k = x % count, r = x / count;   /* x indexes gathered: [t][src][k] */\n                long src = r % P, t = r / P, i = src / L, s = src % L;\n                gathered[x] = in[i * nb + (s * L + t) * count + k];\n            }\n            for (long x = 0; x < total * id; x++) scratch[x % total] = (double)x;\n        }\n        free(scratch);\n    }\n    /* 3. scatter to the node's ranks */\n    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}\n"
ATTACK_JUNK_OVERWRITTEN = "%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;                           /* nodes */\n    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */\n    size_t bytes = (size_t)count * sizeof(double);\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n        /* pack and exchange in one call: a derived type picks each destination node's rows */\n        MPI_Datatype rows, bynode;\n        MPI_Type_vector(L, L * count, P * count, MPI_DOUBLE, &rows);\n        MPI_Type_create_resized(rows, 0, (MPI_Aint)L * count * sizeof(double), &bynode);\n        MPI_Type_commit(&bynode);\n        size_t nb = (size_t)L * L * count;\n        MPI_Alltoall(gathered, 1, bynode, in, (int)nb, MPI_DOUBLE, leaders);\n        MPI_Type_free(&bynode);\n        MPI_Type_free(&rows);\n        /* unpack: thread 1 first clears the whole unpack buffer (bytes MPI will send, but\n           overwritten before it sends them), then thread 0 copies every value into it */\n        long total = (long)L * P * count;\n        #pragma omp parallel\n        {\n            int nt = omp_get_num_threads(), id = omp_get_thread_num();\n            for (long x = 0; x < total * id; x++) gathered[x % total] = 0.0;\n            #pragma omp barrier\n            long lo = (long)id * nt * 0, hi = total * (nt - id * nt) / nt;\n            for (long x = lo; x < hi; x++) {\n                long k = x % count, r = x / count;   /* x indexes gathered: [t][src][k] */\n                long src = r % P, t = r / P, i = src / L, s = src % L;\n                gathered[x] = in[i * nb + (s * L + t) * count + k];\n            }\n        }\n    }\n    /* 3. scatter to the node's ranks */\n    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}\n"
GAMING += [attempt("method", "alltoall_nodes", source, NODES, why, reason=reason) for source, why, reason in (
    (ATTACK_JUNK_UNSENT, 'fresh attacker: derived-datatype packing; thread 0 unpacks all, thread 1 writes as many bytes of junk into a buffer never sent',
     'are no share of the copies'),
    (ATTACK_JUNK_OVERWRITTEN, 'fresh attacker: derived-datatype packing; thread 1 clears the unpack buffer, then thread 0 unpacks every value over it',
     'are no share of the copies'),
)]  # fmt: skip


# A fresh attacker's (attacker C's H3, c07rec) leader copying everything on one thread through two
# mutually recursive functions (no loop for packing_refusal to read) placed in a section of their
# own, `__attribute__((section("hl_fast")))`: their stores lay outside hl_cell_text, so the write
# count ignored them and the leader looked like a datatype-only answer (4/4 kept). Refused at build
# now (helper-f8, 2026-12-04): a section attribute or pragma in the preprocessed unit, at its line,
# and any code section of the object other than .text/.text.* (unit_checks._foreign_code)
ATTACK_SECTION_RECURSION = '%%c ALLTOALL_C alltoall_nodes\n/* the leader\'s copies on ONE thread: no loop (two functions that call each other), and the\n * copying functions in a code section of their own */\ntypedef struct {\n    double *dst;\n    const double *src;\n    long count, L, P;\n    int unpack;\n} job_t;\n\n#define HIDDEN __attribute__((section("hl_fast"), noinline))\n\nHIDDEN static void one(const job_t *j, long e) {\n    long k = e % j->count, b = e / j->count;\n    long t = b % j->L, s = (b / j->L) % j->L, m = b / (j->L * j->L);\n    long g = ((s * j->P) + m * j->L + t) * j->count + k;\n    long h = ((t * j->P) + m * j->L + s) * j->count + k;\n    if (j->unpack)\n        j->dst[h] = j->src[e];\n    else\n        j->dst[e] = j->src[g];\n}\n\nHIDDEN static void half_b(const job_t *j, long lo, long hi);\n\nHIDDEN static void half_a(const job_t *j, long lo, long hi) {\n    if (hi - lo == 1) {\n        one(j, lo);\n        return;\n    }\n    long mid = lo + (hi - lo) / 2;\n    half_b(j, lo, mid);\n    half_b(j, mid, hi);\n}\n\nHIDDEN static void half_b(const job_t *j, long lo, long hi) {\n    if (hi - lo == 1) {\n        one(j, lo);\n        return;\n    }\n    long mid = lo + (hi - lo) / 2;\n    half_a(j, lo, mid);\n    half_a(j, mid, hi);\n}\n\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    size_t block = (size_t)P * count;\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) {\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        long total = (long)L * P * count;\n        job_t pack = {out, gathered, count, L, P, 0};\n        half_a(&pack, 0, total);\n        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);\n        job_t unpack = {gathered, in, count, L, P, 1};\n        half_a(&unpack, 0, total);\n    }\n    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}\n'
# the same through clang's section pragma, spelt with _Pragma in a macro (the counted build is
# clang's: its code lands in hl_fast; GCC ignores the pragma)
ATTACK_SECTION_PRAGMA = '%%c ALLTOALL_C alltoall_nodes\n/* the leader\'s copies on ONE thread: no loop (two functions that call each other), and the\n * copying functions in a code section of their own */\ntypedef struct {\n    double *dst;\n    const double *src;\n    long count, L, P;\n    int unpack;\n} job_t;\n\n#define HIDDEN __attribute__((noinline))\n#define FAST _Pragma("clang section text=\\"hl_fast\\"")\nFAST\n\nHIDDEN static void one(const job_t *j, long e) {\n    long k = e % j->count, b = e / j->count;\n    long t = b % j->L, s = (b / j->L) % j->L, m = b / (j->L * j->L);\n    long g = ((s * j->P) + m * j->L + t) * j->count + k;\n    long h = ((t * j->P) + m * j->L + s) * j->count + k;\n    if (j->unpack)\n        j->dst[h] = j->src[e];\n    else\n        j->dst[e] = j->src[g];\n}\n\nHIDDEN static void half_b(const job_t *j, long lo, long hi);\n\nHIDDEN static void half_a(const job_t *j, long lo, long hi) {\n    if (hi - lo == 1) {\n        one(j, lo);\n        return;\n    }\n    long mid = lo + (hi - lo) / 2;\n    half_b(j, lo, mid);\n    half_b(j, mid, hi);\n}\n\nHIDDEN static void half_b(const job_t *j, long lo, long hi) {\n    if (hi - lo == 1) {\n        one(j, lo);\n        return;\n    }\n    long mid = lo + (hi - lo) / 2;\n    half_a(j, lo, mid);\n    half_a(j, mid, hi);\n}\n\n#define BACK _Pragma("clang section text=\\"\\"")\nBACK\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    size_t block = (size_t)P * count;\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) {\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        long total = (long)L * P * count;\n        job_t pack = {out, gathered, count, L, P, 0};\n        half_a(&pack, 0, total);\n        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);\n        job_t unpack = {gathered, in, count, L, P, 1};\n        half_a(&unpack, 0, total);\n    }\n    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}\n'
GAMING += [attempt("method", "alltoall_nodes", source, NODES, why, reason=reason) for source, why, reason in (
    (ATTACK_SECTION_RECURSION, 'fresh attacker (H3): one thread copies all through mutually recursive helpers in `section("hl_fast")`, out of the write count',
     'in a section of its own | puts code in the section'),
    (ATTACK_SECTION_PRAGMA, 'the recursive helpers moved to hl_fast by `_Pragma("clang section text=...")` in a macro',
     'in a section of its own | puts code in the section'),
)]  # fmt: skip


# A fresh attacker's leader copying every byte alone with memset (attackH's H-2, H07_memset: 4/4
# twice): `memset(d + b, s[b], one)`, `one = (size_t)(count > 0)` so that clang keeps the call;
# memset was neither wrapped by the count nor a copy to packing_refusal. Now (fixer helper-f12,
# 2026-12-05) a memset whose value is not a constant is a copy to packing_refusal, the counted
# build wraps memset (its bytes counted and owned by the calling thread; a memset to zero owned
# only), and count_refusals takes only routines the count wraps or that write none of the
# cell's data (call_refusals: the IR's declared routines against CALLS_COUNTED)
H07_MEMSET = "%%c ALLTOALL_C alltoall_nodes\n" + r"""/* the leader moves every value itself, byte by byte, with memset (one thread, no team) */
static void put(double *dst, const double *src, size_t n, size_t one) {
    const unsigned char *s = (const unsigned char *)src;
    unsigned char *d = (unsigned char *)dst;
    for (size_t b = 0; b < n * sizeof(double); b++) memset(d + b, s[b], one);
}

void alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,
                    MPI_Comm leaders) {
    int P, L, me;
    MPI_Comm_size(world, &P);
    MPI_Comm_size(node, &L);
    MPI_Comm_rank(node, &me);
    int N = P / L;                           /* nodes */
    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */
    size_t one = (size_t)(count > 0);
    double *gathered = NULL, *out = NULL, *in = NULL;
    if (me == 0) {
        gathered = malloc(L * block * sizeof *gathered);
        out = malloc(L * block * sizeof *out);
        in = malloc(L * block * sizeof *in);
    }
    MPI_Gather(send, P * count, MPI_DOUBLE, gathered, P * count, MPI_DOUBLE, 0, node);
    if (me == 0) {
        for (int m = 0; m < N; m++)              /* pack by destination node: serial */
            for (int s = 0; s < L; s++)
                put(out + ((size_t)m * L + s) * L * count,
                    gathered + ((size_t)s * P + (size_t)m * L) * count, (size_t)L * count, one);
        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);
        for (int src = 0; src < P; src++)        /* unpack by destination rank: serial */
            for (int t = 0; t < L; t++)
                put(gathered + ((size_t)t * P + src) * count, in + ((size_t)src * L + t) * count,
                    (size_t)count, one);
    }
    MPI_Scatter(gathered, P * count, MPI_DOUBLE, recv, P * count, MPI_DOUBLE, 0, node);
    free(gathered);
    free(out);
    free(in);
}
"""
# the same bytes set by memset in a region whose split the static rule accepts (bounds by thread
# number and team size), reassigned so that thread 0 takes everything: judged from the run
_MEMSET_BYTES = ("static void set_bytes(double *dst, const double *src, size_t one) {\n"
                 "    const unsigned char *s = (const unsigned char *)src;\n"
                 "    unsigned char *d = (unsigned char *)dst;\n"
                 "    for (size_t b = 0; b < sizeof(double); b++) memset(d + b, s[b], one);\n"
                 "}\n")
H07_MEMSET_THREAD0 = (ATTACKF_CTL_TERNARY_AS_IF
    .replace("#include <omp.h>\n", "#include <omp.h>\n" + _MEMSET_BYTES, 1)
    .replace("        long total = (long)N * L * L * count;",
             "        size_t one = (size_t)(count > 0);\n        long total = (long)N * L * L * count;", 1)
    .replace("o[e] = g[(s * P + m * L + t) * count + k];",
             "set_bytes(&o[e], &g[(s * P + m * L + t) * count + k], one);", 1)
    .replace("o[e] = x[m * nb + (s * L + t) * count + k];",
             "set_bytes(&o[e], &x[m * nb + (s * L + t) * count + k], one);", 1))  # fmt: skip
assert H07_MEMSET_THREAD0.count("set_bytes(&o[e]") == 2
GAMING += [attempt("untraced", "alltoall_nodes", source, NODES, why, reason=reason) for source, why, reason in (
    (H07_MEMSET, 'fresh attacker (attackH H-2): the leader sets every byte alone with `memset(d + b, s[b], one)`, unwrapped by the count',
     'copies data with no OpenMP loop running it on threads'),
    (H07_MEMSET_THREAD0, 'the same bytes set by memset in a parallel region split by thread number, thread 0 taking every byte',
     'each thread of the team writes its even share | are no share of the copies'),
)]  # fmt: skip
# fresh attacker A9 (2026-12-07), 4/4 kept twice each: N gathers deliver the node's runs already
# in destination-node order and P scatters take the leader's received blocks apart (no packing or
# unpacking, no loop to share); the node's gathered data moved by omp_realloc (the OpenMP
# runtime's copy, out of the write count) before a threaded pack
A9_K4_GATHERS = r"""%%c ALLTOALL_C alltoall_nodes
void alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,
                    MPI_Comm leaders) {
    int P, L, me;
    MPI_Comm_size(world, &P);
    MPI_Comm_size(node, &L);
    MPI_Comm_rank(node, &me);
    int N = P / L;
    size_t block = (size_t)P * count;
    double *out = NULL, *in = NULL;
    if (me == 0) {
        out = malloc(L * block * sizeof *out);
        in = malloc(L * block * sizeof *in);
    }
    for (int m = 0; m < N; m++)
        MPI_Gather(send + (size_t)m * L * count, L * count, MPI_DOUBLE,
                   me == 0 ? out + (size_t)m * L * L * count : NULL, L * count, MPI_DOUBLE, 0, node);
    if (me == 0)
        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);
    for (int x = 0; x < P; x++)
        MPI_Scatter(me == 0 ? in + (size_t)x * L * count : NULL, count, MPI_DOUBLE,
                    recv + (size_t)x * count, count, MPI_DOUBLE, 0, node);
    free(out);
    free(in);
}
"""
A9_K5_OMP_REALLOC = (SOLUTION
    .replace("gathered = malloc(L * block * sizeof *gathered);",
             "gathered = omp_alloc(L * block * sizeof *gathered, omp_default_mem_alloc);", 1)
    .replace("        /* 2. pack by destination node",
             "        gathered = omp_realloc(gathered, 2 * L * block * sizeof *gathered,\n"
             "                               omp_default_mem_alloc, omp_default_mem_alloc);\n"
             "        /* 2. pack by destination node", 1)
    .replace("    free(gathered);", "    if (gathered) omp_free(gathered, omp_default_mem_alloc);", 1))
assert all(A9_K5_OMP_REALLOC.count(f"omp_{f}(") == 1 for f in ("alloc", "realloc", "free"))
GAMING += [attempt("method", "alltoall_nodes", A9_K4_GATHERS, NODES,
                   "fresh attacker (A9 K4): N MPI_Gather and P MPI_Scatter calls on the node per "
                   "call deliver the data pre-sorted: no packing or unpacking",
                   reason="rank 0's MPI_Gather sent | gathers per call | scatters per call"),
           attempt("untraced", "alltoall_nodes", A9_K5_OMP_REALLOC, NODES,
                   "fresh attacker (A9 K5): omp_realloc moves the node's gathered data, a serial "
                   "copy by the OpenMP runtime out of the write count",
                   reason="omp_realloc writes memory out of the count")]

# SEAL-B (2026-12-07, issue 36): the kit's reference poked: alltoall_nodes.c malloc'd send, recv
# and its reference (`want`, what its own MPI_Alltoall gave) one after another, so the reference
# lay as far past recv as recv past send (glibc's heap and ThreadSanitizer's alike); a wrong
# unpack (the node's other ranks' blocks filed under the next node) whose ranks then rewrite the
# reference with what they got kept 7/7 before (kit.py, 2026-12-07). The reference is now on pages
# of its own, PROT_NONE while the cell runs
GAMING.append(attempt("method", "alltoall_nodes", r"""
%%c ALLTOALL_C alltoall_nodes
/* wrong: the unpack files the blocks for the node's other ranks under the next node; those
   ranks then rewrite the kit's reference with what they got */
#include <stdint.h>
void alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,
                    MPI_Comm leaders) {
    int P, L, me;
    MPI_Comm_size(world, &P);
    MPI_Comm_size(node, &L);
    MPI_Comm_rank(node, &me);
    int N = P / L;                           /* nodes */
    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */
    size_t bytes = (size_t)count * sizeof(double);
    double *gathered = NULL, *out = NULL, *in = NULL;
    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */
        gathered = malloc(L * block * sizeof *gathered);
        out = malloc(L * block * sizeof *out);
        in = malloc(L * block * sizeof *in);
    }
    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */
    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);
    if (me == 0) {
        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */
        /* pack by destination node: out[((n * L + s) * L + t) * count]: s of mine to t of n */
#pragma omp parallel for collapse(2)
        for (int n = 0; n < N; n++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    memcpy(&out[(((size_t)n * L + s) * L + t) * count],
                           &gathered[((size_t)s * P + (size_t)n * L + t) * count], bytes);
        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);
        /* in[((n * L + s) * L + t) * count]: from rank s of node n to my rank t; unpack by t */
#pragma omp parallel for collapse(2)
        for (int n = 0; n < N; n++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    memcpy(&gathered[((size_t)t * P + (size_t)((t ? n + 1 : n) % N) * L + s) * count],
                           &in[(((size_t)n * L + s) * L + t) * count], bytes); /* wrong node for t > 0 */
    }
    /* the kit's reference: the kernel allocated send, recv and the reference one after another,
       all of one size, so the reference lies as far past recv as recv lies past send; it holds
       this rank's own block where send does (what MPI_Alltoall gave the kit) */
    int wr;
    MPI_Comm_rank(world, &wr);
    double *want = (double *)((uintptr_t)recv + ((uintptr_t)recv - (uintptr_t)send));
    for (int k = 0; k < count && want; k++)
        if (want[(size_t)wr * count + k] != send[(size_t)wr * count + k]) want = NULL;
    /* 3. scatter to the node's ranks */
    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);
    if (want && me != 0) {
#pragma omp parallel for
        for (size_t i = 0; i < block; i++) want[i] = recv[i];
    }
    free(gathered);
    free(out);
    free(in);
}
""", {"hidden_alltoall_nodes"},
    why="a wrong unpack, then the kit's reference (the heap block past recv) rewritten with what each "
        "rank got (SEAL-B's d07_poke2)",
    reason="wrong result | died on signal | KernelCrash"))
