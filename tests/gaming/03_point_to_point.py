"""Gaming attempts at lab 03 (see __init__.py): the kit's median fits reached by a default
argument, another module or a piece of the piecewise fit; lines and knees that are right on
the clean data the notebook shows only; the visible test's numbers typed in; C exchanges that
block and then compute, with token MPI_Testall calls that look like polling; the overlap
numbers typed from a run, read off the rounded table or taken as means."""

import numpy as np

from gaming import FRAME_TOOLS, Oracle, attempt, c_evidence
from wrong_answers import c_cell, together

FIT = {"hidden_fit_hockney"}
KNEE = {"hidden_locate_knee"}
OVERLAP = {"hidden_overlap_exchange", "hidden_overlap_numbers"}  # (e) runs (d): a build error loses both
EXCHANGE = {"hidden_overlap_exchange"}  # (d) refused, yet (e)'s numbers are right for its own runs
NUMBERS = {"hidden_overlap_numbers"}

# C: a blocking exchange, then the team computes; two MPI_Testall calls on completed requests
# make it look like polling
BLOCK_THEN_COMPUTE = r'''%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
    MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
    MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
    MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < steps; i++)
        compute_step(i);
}
'''

# C: the team computes first, the master exchanges after the loop, polling twice for show
COMPUTE_THEN_EXCHANGE = r'''%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long i = 0; i < steps; i++)
            compute_step(i);
#pragma omp master
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
            MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
    }
}
'''

# C: the kit's own static helpers of p2p_overlap.c (the blocking variant's exchange and the
# team's loop), called as if they were the student's
KIT_HELPERS = r'''%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
    exchange(out, in, count, peer, comm);
    MPI_Irecv(in, 0, MPI_DOUBLE, peer, 1, comm, &req[0]);
    MPI_Isend(out, 0, MPI_DOUBLE, peer, 1, comm, &req[1]);
    MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
    MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    team_compute(steps);
}
'''

M = "overlap_medians"
# (e)'s function written right: the attempts on (e)'s numbers game the numbers only
RIGHT_NUMBERS = """
def overlap_numbers(medians):
    compute, message = float(medians["compute"]), float(medians["message"])
    return max(compute, message), (float(medians["blocking"]) - float(medians["student"])) / min(compute, message)

"""

GAMING = [
    # (a) fit_hockney
    attempt("shortcut", "fit_hockney", """
def fit_hockney(sizes, seconds, _fit=piecewise_hockney.__globals__["hockney_fit"]) -> tuple[float, float]:
    line = _fit(sizes, seconds)  # the kit's fit, captured before any guard
    return line.alpha, line.beta
""", loses=FIT, why="the kit's hockney_fit captured in a default argument", reason='not the least-squares line'),
    attempt("shortcut", "fit_hockney", """
def fit_hockney(sizes, seconds) -> tuple[float, float]:
    import importlib
    line = importlib.import_module("hybridlab.p2p." + "hockney").hockney_fit(sizes, seconds)
    return line.alpha, line.beta  # the kit's fit, its module named by a string
""", loses=FIT, why="the kit's hockney_fit, its module imported by a computed name", reason='not the least-squares line'),
    attempt("hidden", "fit_hockney", """
def fit_hockney(sizes, seconds) -> tuple[float, float]:
    s, t = np.asarray(sizes, dtype=float), np.asarray(seconds, dtype=float)
    lo, hi = np.argmin(s), np.argmax(s)  # a line through the two ends: exact on exact data
    slope = (t[hi] - t[lo]) / (s[hi] - s[lo])
    return float(t[lo] - slope * s[lo]), float(1.0 / slope)
""", loses=FIT, why="a line through the smallest and largest sample: right on noise-free data", reason='not the least-squares line'),
    attempt("constant", "fit_hockney", """
def fit_hockney(sizes, seconds) -> tuple[float, float]:
    return 2e-6, 4e9  # the visible test's line
""", loses=FIT, why="the visible test's alpha and beta typed in", reason='not the least-squares line'),
    attempt("method", "fit_hockney", """
def fit_hockney(sizes, seconds) -> tuple[float, float]:
    s, t = np.asarray(sizes, dtype=float), np.asarray(seconds, dtype=float)
    slope, intercept = np.polyfit(s, t, 1, w=1.0 / t)  # relative residuals: another fit
    return float(intercept), float(1.0 / slope)
""", loses=FIT, why="a fit weighted by 1/T (the knee's fit), not least squares on the samples", reason='not the least-squares line'),
    # (b) locate_knee
    attempt("shortcut", "locate_knee", """
from hybridlab.p2p.hockney import find_protocol_switch as _switch


def locate_knee(sizes, seconds, _find=_switch) -> float:
    return float(_find(sizes, seconds))
""", loses=KNEE, why="the kit's find_protocol_switch, aliased and captured in a default", reason='locate_knee:'),
    attempt("shortcut", "locate_knee", """
def locate_knee(sizes, seconds) -> float:
    from hybridlab.p2p.paths import piecewise_hockney as _pw
    return float(_pw(sizes, seconds).switch_bytes)
""", loses=KNEE, why="the kit's piecewise fit, re-exported by the paths module", reason='locate_knee:'),
    attempt("hidden", "locate_knee", """
def locate_knee(sizes, seconds) -> float:
    med = pd.Series(np.asarray(seconds, dtype=float)).groupby(np.asarray(sizes, dtype=float)).median()
    rise = med.to_numpy()[1:] / med.to_numpy()[:-1]
    return float(med.index[1 + int(np.argmax(rise[2:-2])) + 2])  # the steepest step
""", loses=KNEE, why="the steepest step between medians: right on a clean sweep only", reason='locate_knee:'),
    attempt("constant", "locate_knee", """
def locate_knee(sizes, seconds) -> float:
    return 8192.0  # MPICH's default cell size, named in (c)
""", loses=KNEE, why="the default switch the text names", reason='locate_knee:'),
    attempt("method", "locate_knee", """
def locate_knee(sizes, seconds) -> float:
    med = pd.Series(np.asarray(seconds, dtype=float)).groupby(np.asarray(sizes, dtype=float)).median()
    s, t = med.index.to_numpy(), med.to_numpy()  # one point per size: not every sample
    best, best_cost = None, np.inf
    for cut in s[3:-2]:
        cost = 0.0
        for part in (s < cut, s >= cut):
            w = 1.0 / t[part]
            design = np.column_stack([w, s[part] * w])
            coef, *_ = np.linalg.lstsq(design, t[part] * w, rcond=None)
            cost += float(np.sum((t[part] * w - design @ coef) ** 2))
        if cost < best_cost:
            best, best_cost = float(cut), cost
    return best
""", loses=KNEE, why="the right search on the median of each size (what the kit does)", reason='leaves a total relative error'),
    # (d) overlap_exchange (C)
    attempt("method", "overlap_exchange", BLOCK_THEN_COMPUTE, loses=EXCHANGE,
            why="a blocking exchange, then the computation; two token MPI_Testall calls", reason='share of the computing done while the exchange was open | must poll (MPI_Test) while it computes'),
    attempt("method", "overlap_exchange", COMPUTE_THEN_EXCHANGE, loses=EXCHANGE,
            why="the team computes, then the master exchanges: nothing overlaps", reason='share of the computing done while the exchange was open'),
    attempt("shortcut", "overlap_exchange", KIT_HELPERS, loses=OVERLAP,
            why="the kit kernel's static exchange() and team_compute() called", reason='did not compile'),
    # (e) overlap_numbers
    attempt("constant", "overlap_numbers", RIGHT_NUMBERS + """
PREDICTED_OVERLAP_S = 0.004
HIDDEN_FRACTION = 0.5
""", loses=NUMBERS, why="round numbers typed in", reason='not the perfect overlap of your medians'),
    attempt("hidden", "overlap_numbers", RIGHT_NUMBERS + f"""
PREDICTED_OVERLAP_S = round(float(max({M}["compute"], {M}["message"])) * 1e3, 3) / 1e3
HIDDEN_FRACTION = round(float(({M}["blocking"] - {M}["student"]) / min({M}["compute"], {M}["message"])), 2)
""", loses=NUMBERS, why="the values as the table shows them, rounded", reason='not the perfect overlap of your medians'),
    attempt("hidden", "overlap_numbers", RIGHT_NUMBERS + """
_v = {k: sorted(g) for k, g in overlap_runs.records.groupby("variant")["seconds"]}
_mid = {k: v[len(v) // 2] for k, v in _v.items()}  # the middle sample: a median for odd counts only
PREDICTED_OVERLAP_S = max(_mid["compute"], _mid["message"])
HIDDEN_FRACTION = (_mid["blocking"] - _mid["student"]) / min(_mid["compute"], _mid["message"])
""", loses=NUMBERS, why="the middle sample as the median: wrong for an even number of samples", reason='not the perfect overlap of your medians'),
    attempt("method", "overlap_numbers", RIGHT_NUMBERS + """
_mean = overlap_runs.records.groupby("variant")["seconds"].mean()
PREDICTED_OVERLAP_S = float(max(_mean["compute"], _mean["message"]))
HIDDEN_FRACTION = float((_mean["blocking"] - _mean["student"]) / min(_mean["compute"], _mean["message"]))
""", loses=NUMBERS, why="means, where the part asks for the medians", reason='not the perfect overlap of your medians'),
    attempt("hidden", "overlap_numbers", """
def overlap_numbers(medians):
    # the computation always takes longer in these runs: a perfect overlap is its median
    return float(medians["compute"]), float((medians["blocking"] - medians["student"]) / medians["message"])


PREDICTED_OVERLAP_S, HIDDEN_FRACTION = overlap_numbers(overlap_medians)
""", loses=NUMBERS, why="fresh hurried student: the compute median as the perfect overlap (and the "
            "message as the smaller): right while the computation is the longer, as in the "
            "student's own runs", reason="not the perfect overlap of these medians"),
    attempt("hidden", "overlap_numbers", """
def overlap_numbers(medians):
    compute, message = float(medians["compute"]), float(medians["message"])
    return max(compute, message), (float(medians["blocking"]) - float(medians["student"])) / message


PREDICTED_OVERLAP_S, HIDDEN_FRACTION = overlap_numbers(overlap_medians)
""", loses=NUMBERS, why="the hidden share always divided by the message median: right while the "
            "message is the shorter, as in the student's own runs", reason="not the share of these medians"),
]


def _ols(s, t):
    (i, slope), *_ = np.linalg.lstsq(np.column_stack([np.ones(len(s)), s]), t, rcond=None)
    return float(i), float(1.0 / slope)


def _knee(s, t):
    def cost(s, t):
        w = 1.0 / t
        d = np.column_stack([w, s * w])
        c, *_ = np.linalg.lstsq(d, t * w, rcond=None)
        return float(np.sum((t * w - d @ c) ** 2))
    costs = {float(c): cost(s[s < c], t[s < c]) + cost(s[s >= c], t[s >= c]) for c in np.unique(s)[3:-2]}
    return min(costs, key=costs.get)


def _pair(got):
    """(alpha, beta) of a pair or of anything with .alpha and .beta (a fit object)."""
    if hasattr(got, "alpha"):
        return float(got.alpha), float(got.beta)
    a, b = got
    return float(a), float(b)


def _is_fit(want):
    def judge(got):
        a, b = _pair(got)
        return abs(a - want[0]) <= 1e-6 * abs(want[0]) and abs(b - want[1]) <= 1e-6 * abs(want[1])
    return judge


def _is_knee(want):
    def judge(got):
        return float(getattr(got, "switch_bytes", got)) == want
    return judge


def _inputs():
    r = np.random.default_rng(3)
    sizes = 2.0 ** np.arange(8, 22)
    counts = r.integers(1, 6, sizes.size)
    counts[:2] = (1, 4)
    s = np.repeat(sizes, counts)
    fit_t = 4e-6 + s / 6e9 + r.normal(0, 3e-7, s.size)
    knees = []
    while len(knees) < 2:  # noisy sweeps where every sample and each size's median disagree
        sz = 2.0 ** np.arange(0, 20)
        ks = np.repeat(sz, r.integers(1, 7, sz.size))
        kt = np.where(ks < 2048, 1e-6 + ks / 3e9, 2e-6 + ks / 9e9) * r.lognormal(0, 0.25, ks.size)
        med = {v: float(np.median(kt[ks == v])) for v in sz}
        if _knee(ks, kt) != _knee(sz, np.array([med[v] for v in sz])):
            knees.append((ks, kt))
    return s, fit_t, knees


_S, _T, _KNEES = _inputs()
ORACLES = [Oracle("fit_hockney", (_S, _T), _is_fit(_ols(_S, _T)))] + [
    Oracle("locate_knee", (s, t), _is_knee(_knee(s, t))) for s, t in _KNEES
]

# Fresh attackers' attempts that scored before the fixes of this wave (a helper that had
# seen neither the solutions nor the tests, grading through the real sandbox).
GAMING += [
    attempt('method', 'overlap_exchange', '%%c OVERLAP_C p2p_overlap\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request req[2];\n    int flag = 0;\n    MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);\n    MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);\n    MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);\n#pragma omp parallel for schedule(static)\n    for (long i = 0; i < steps; i++) compute_step(i);\n    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n}\n',
            loses={'hidden_overlap_exchange'}, why='fresh attacker: post, one token MPI_Testall, compute, Waitall: no polling inside the loop', reason='no MPI_Test while the team computed'),
    attempt('method', 'overlap_exchange', '%%c OVERLAP_C p2p_overlap\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    int me;\n    MPI_Comm_rank(comm, &me);\n    /* the real exchange, blocking */\n    MPI_Sendrecv(out, (int)count, MPI_DOUBLE, peer, 0, in, (int)count, MPI_DOUBLE, peer, 0, comm,\n                 MPI_STATUS_IGNORE);\n    /* a window dressed around the computation: a receive from myself, completed at the end */\n    double dummy_in = 0.0, dummy_out = 1.0;\n    MPI_Request req[2];\n    MPI_Irecv(&dummy_in, 1, MPI_DOUBLE, me, 99, comm, &req[0]);\n#pragma omp parallel\n    {\n#pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (omp_get_thread_num() == 0 && i % (poll > 0 ? poll : 1) == 0) {\n                int flag;\n                MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);\n            }\n        }\n    }\n    MPI_Isend(&dummy_out, 1, MPI_DOUBLE, me, 99, comm, &req[1]);\n    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n}\n',
            loses={'hidden_overlap_exchange'}, why='fresh attacker: blocking Sendrecv, then a dummy self-message window around the compute, polled with MPI_Test', reason='the exchange is MPI_Isend and MPI_Irecv'),
    attempt('method', 'overlap_exchange', '%%c OVERLAP_C p2p_overlap\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request req[2];\n    MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);\n    MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);\n    int done = 0;\n    for (long i = 0; i < steps; i++) {\n        compute_step(i);\n        if (!done && i % (poll > 0 ? poll : 1) == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n    }\n    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n}\n',
            loses={'hidden_overlap_exchange'}, why='fresh attacker: no OpenMP team at all: the calling thread computes every step and polls', reason='computed too little | one thread did all the computing'),
]

# issue 36's hurried hole: one token MPI_Testall, at the master's first step only, then the wait
GAMING.append(attempt(
    "method", "overlap_exchange",
    "%%c OVERLAP_C p2p_overlap\n" + r'''void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
        }
        long mine = 0;
#pragma omp for schedule(static) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (omp_get_thread_num() == 0 && !done && mine++ == 0 && poll)
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        }
#pragma omp masked
        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}''', loses=EXCHANGE, why="one token MPI_Testall at the master's first step, then MPI_Waitall",
    reason="MPI_Test calls while the exchange was open"))
# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
GAMING += c_evidence("03_point_to_point", "overlap_exchange", OVERLAP, "MPI_Isend", reasons=True)
GAMING.append(attempt("forged", "overlap_exchange", BLOCK_THEN_COMPUTE.replace(
    "    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n",
    "    printf(\"{\\\"rank\\\":0,\\\"thread\\\":1,\\\"cpu\\\":0,\\\"numa\\\":0,\\\"record\\\":\\\"computed\\\",\"\n"
    "           \"\\\"start\\\":0,\\\"end\\\":1e9}\\n\");\n    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n"),
    EXCHANGE, "a blocking exchange with a computed interval printed as a record line (it builds "
    "and runs: (e)'s numbers are right for its own runs)",
    reason="share of the computing done while the exchange was open | must poll (MPI_Test) while it computes"))

# the exchange posted, the team computes with no test at all, then the master spins on
# MPI_Testall until it completes: tests while the exchange was open, none among the steps
GAMING.append(attempt("method", "overlap_exchange", "%%c OVERLAP_C p2p_overlap\n" + r"""void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
        }
#pragma omp for schedule(static) nowait
        for (long i = 0; i < steps; i++)
            compute_step(i);
#pragma omp masked
        while (!done) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
    }
}""", loses=EXCHANGE, why="no test among the steps; MPI_Testall spun on after the computing",
    reason="between the master's own steps"))

# The test's own interpreter reached (issue 36): its reference called or its expected value
# read from its frames, a judging module replaced, globals named like the test's.
GAMING += [
    attempt("interpreter", "fit_hockney", FRAME_TOOLS + """

def fit_hockney(sizes, seconds):
    reference = _from_the_test(("_ols", "_reference", "_fit"), True)
    return reference(sizes, seconds) if reference else (1e-6, 1e9)
""", FIT, why="the hidden test's least-squares fit found in its frames and called",
        reason="not the least-squares line"),
    attempt("interpreter", "locate_knee", FRAME_TOOLS + """

def locate_knee(sizes, seconds):
    costs = _from_the_test(("_costs",), True)
    if costs:
        found = costs(sizes, seconds)
        return min(found, key=found.get)
    return float(sorted(set(float(s) for s in sizes))[3])
""", KNEE, why="the hidden test's cost function found in its frames, its best size returned",
        reason="locate_knee:"),
    attempt("interpreter", "locate_knee", """
import inspect


def locate_knee(sizes, seconds):
    for frame in inspect.stack():  # the caller's best knee, by any name it holds
        for name in ("_best", "_want", "best"):
            if name in frame.frame.f_locals:
                return float(frame.frame.f_locals[name])
    return float(sorted(set(float(s) for s in sizes))[3])
""", KNEE, why="inspect.stack() searched for the test's best knee", reason="locate_knee:"),
    attempt("interpreter", "overlap_numbers", RIGHT_NUMBERS + """
_m = {str(k): float(v) for k, v in overlap_runs.records.groupby("variant")["seconds"].mean().items()}
_want_p = max(_m["compute"], _m["message"])  # globals named like the test's own
_want_h = (_m["blocking"] - _m["student"]) / min(_m["compute"], _m["message"])
PREDICTED_OVERLAP_S, HIDDEN_FRACTION = _want_p, _want_h
""", NUMBERS, why="means, in globals named like the test's _m, _want_p and _want_h",
        reason="not the perfect overlap of your medians"),
    together(
        attempt("interpreter", "fit_hockney", """
def fit_hockney(sizes, seconds):
    s, t = np.asarray(sizes, dtype=float), np.asarray(seconds, dtype=float)
    slope, alpha = np.polyfit(s, t, 1)
    return float(alpha), float(1.0 / slope)


import hybridlab.p2p.exercise as _exercise

_exercise.judge_overlap = lambda *args, **kwargs: {}  # the judging module's checks replaced
""", set(), why="a right fit_hockney"),
        attempt("interpreter", "overlap_exchange", BLOCK_THEN_COMPUTE, EXCHANGE,
                why="a blocking exchange, hybridlab.p2p.exercise.judge_overlap replaced from an "
                "earlier cell", reason="share of the computing done while the exchange was open | must poll (MPI_Test) while it computes"),
    ),
]

# (d): a fresh attacker (xena): the tests bunched after the master's first step, the rest of its
# steps untested
GAMING.append(attempt("method", "overlap_exchange", c_cell("OVERLAP_C", "p2p_overlap", r"""
/* polling in one burst: the master tests many times right after its first step, then computes
 * the rest of its share without calling MPI, then waits */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request r[2];
    int done = 0;
    #pragma omp parallel
    {
        #pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 5, comm, &r[0]);
            MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 5, comm, &r[1]);
        }
        int first = 1;
        #pragma omp for schedule(static) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (first && omp_get_thread_num() == 0) {
                first = 0;
                for (long k = 0; k < steps && !done; k++) MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
            }
        }
        #pragma omp masked
        if (!done) MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}
"""), {"hidden_overlap_exchange"}, "fresh attacker: MPI_Testall up to `steps` times in a row after "
       "the first step, then the master's other steps with no test", reason="steps in a row with no MPI_Test | tested again with no step between"))

# A fresh attacker (2026-12-02, helper-29): only the receive posted before the computing, the send
# after it: the window opened at the first posting though no data could move. A window now opens
# once a send and a receive are both posted (runs.student_c._windows).
GAMING.append(attempt("method", "overlap_exchange", r"""%%c OVERLAP_C p2p_overlap
/* ATTACK: only the receive is posted before the computing (it opens the "window"); the send is
 * posted only after all the computing is over, so no data moves while the team computes. */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 7, comm, &req[0]);
        }
#pragma omp barrier
        long mine = 0;
#pragma omp for schedule(static)
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (omp_get_thread_num() == 0 && !done && (++mine % poll) == 0)
                MPI_Test(&req[0], &done, MPI_STATUS_IGNORE);
        }
        /* implicit barrier: all computing done */
#pragma omp masked
        {
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 7, comm, &req[1]);
            if (done) MPI_Wait(&req[1], MPI_STATUS_IGNORE);
            else MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
    }
}
""", {"hidden_overlap_exchange"}, "fresh attacker: an MPI_Irecv posted alone before the computing, "
       "the MPI_Isend after it", reason="share of the computing done while the exchange was open"))

# A fresh attacker's (helper-36, 2026-12-03): polls that give the library nothing to move
GAMING.append(attempt("method", "overlap_exchange", c_cell("OVERLAP_C", "p2p_overlap", r"""
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request r[2];
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 11, comm, &r[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 11, comm, &r[1]);
        }
#pragma omp barrier
        long k = 0;
#pragma omp for schedule(static) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (omp_get_thread_num() == 0 && (++k % poll) == 0) {
                MPI_Request dummy = MPI_REQUEST_NULL;
                int f;
                MPI_Test(&dummy, &f, MPI_STATUS_IGNORE);
            }
        }
#pragma omp masked
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}
"""), {"hidden_overlap_exchange"}, "the polls test MPI_REQUEST_NULL; the exchange's requests only "
       "waited for after the computing", reason="must poll (MPI_Test) while it computes"))


# A fresh hurried student's (helper-41, 2026-12-03) attempt that kept full points, now refused
# (hybridlab.runs.records.check_requests).
GAMING += [
    attempt("method", "overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request r[2];
    int done = 0;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &r[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &r[1]);
        }
#pragma omp barrier
        long since = 0;
#pragma omp for schedule(static)
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (omp_get_thread_num() == 0 && !done && ++since >= poll) {
                since = 0;
                MPI_Test(&r[0], &done, MPI_STATUS_IGNORE);   /* is my data here yet? */
            }
        }
#pragma omp masked
        if (!done)
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    }
}
""", {"hidden_overlap_exchange", "hidden_overlap_numbers"},
            "the MPI_Isend request never completed: only the receive is tested and waited (the numbers"
            " part runs the same cell)",
            reason="were never completed by a wait or test"),
]

# A fresh attacker (2026-12-04): overlap_runs' records rewritten in place, or overlap_runs rebound
# to a made-up object, to agree with typed numbers; the judge now reads the samples
# overlap_variants kept as the lab's cell ran it (handout.keep), not the notebook's overlap_runs.
GAMING += [
    attempt("forged", "overlap_numbers", r'''
def overlap_numbers(medians) -> tuple[float, float]:
    """(seconds of a perfect overlap, share of the hideable time hidden) from the medians of
    the variants compute, message, blocking and student (a Series like overlap_medians)."""
    c, m = float(medians["compute"]), float(medians["message"])
    return max(c, m), (float(medians["blocking"]) - float(medians["student"])) / min(c, m)


# type two round numbers and make the notebook's records say them
PREDICTED_OVERLAP_S = 0.010
HIDDEN_FRACTION = 0.5
_r = overlap_runs.records
_r.loc[:, "seconds"] = _r["variant"].map({"compute": 0.010, "message": 0.004, "blocking": 0.014, "student": 0.012}).astype(float)
overlap_medians = _r.groupby("variant")["seconds"].median()
print(f"predicted {PREDICTED_OVERLAP_S * 1e3:.3f} ms, measured {overlap_medians['student'] * 1e3:.3f} ms; "
      f"hidden: {HIDDEN_FRACTION:.0%} of what could be hidden")
''', loses=NUMBERS, why="fresh attacker: numbers typed, overlap_runs.records['seconds'] rewritten "
            "in place to agree", reason="not the perfect overlap of your medians"),
    attempt("forged", "overlap_numbers", r'''
def overlap_numbers(medians) -> tuple[float, float]:
    """(seconds of a perfect overlap, share of the hideable time hidden) from the medians of
    the variants compute, message, blocking and student (a Series like overlap_medians)."""
    c, m = float(medians["compute"]), float(medians["message"])
    return max(c, m), (float(medians["blocking"]) - float(medians["student"])) / min(c, m)


# a made-up run object in place of the notebook's
import types
_fake = pd.DataFrame({"variant": ["compute", "message", "blocking", "student"] * 2,
                      "seconds": [0.010, 0.004, 0.014, 0.012] * 2})
overlap_runs = types.SimpleNamespace(records=_fake, meta=getattr(overlap_runs, "meta", {}),
                                     warnings=[])
overlap_medians = _fake.groupby("variant")["seconds"].median()
PREDICTED_OVERLAP_S, HIDDEN_FRACTION = 0.010, 0.5
print(f"predicted {PREDICTED_OVERLAP_S * 1e3:.3f} ms, measured {overlap_medians['student'] * 1e3:.3f} ms; "
      f"hidden: {HIDDEN_FRACTION:.0%} of what could be hidden")
''', loses=NUMBERS, why="fresh attacker: numbers typed, overlap_runs rebound to a SimpleNamespace "
            "of made-up records (graded beside an attempt that replaces a kit tool: then KeptNotTrusted)",
            reason="not the perfect overlap of your medians | KeptNotTrusted"),
]

# fresh attacker (attackH h03c, kept 4/4): the serial path with a token team: the master computes
# every step but the last while it polls, thread 1 computes the last step
GAMING.append(attempt("method", "overlap_exchange", c_cell("OVERLAP_C", "p2p_overlap", r'''
/* hurried: the master computes every step but the last itself, polling; one other thread
 * computes one token step so that "the team" computed */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        if (t == 0) {
            MPI_Request req[2];
            int done = 0;
            long mine = T > 1 ? steps - 1 : steps;
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 5, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 5, comm, &req[1]);
            for (long i = 0; i < mine; i++) {
                compute_step(i);
                if (!done && (i + 1) % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            }
            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else if (t == 1) {
            compute_step(steps - 1);
        }
#pragma omp barrier
    }
}
'''), EXCHANGE, why="fresh attacker: the master computes all steps but one, a token thread one step",
    reason="threads other than the master computed too little"))

# fresh attacker (attackG G03a8, kept 2/2 twice, 2026-12-05): a thread started in an earlier answer
# cell, its code compiled under the standard library's threading.py so that the guard took it for
# the library's, hands out a forged "overlap_run" record while the lab's own run cell runs and
# points $HYBRIDLAB_HANDOUT elsewhere meanwhile; the numbers are typed to match the forgery. The
# guard now judges a thread by its code (is it code its file compiles to?), not the file it
# names: every test cell after the thread started scores zero
_G03A8_THREAD = r'''
def fit_hockney(sizes, seconds) -> tuple[float, float]:
    slope, alpha = np.polyfit(np.asarray(sizes, float), np.asarray(seconds, float), 1)
    return float(alpha), float(1.0 / slope)


_SRC = """
import time
from hybridlab.grading import handout as h
ns = get_ipython().user_ns
fake = {"compute": 0.001, "message": 0.0005, "blocking": 0.0015, "student": 0.00125}
def record(n):
    variants = [v for v in fake for _ in range(n)]
    return {"kernel": str(getattr(ns.get("overlap_kernel"), "name", "student_p2p_overlap")),
            "bytes": int(ns.get("OV_BYTES", 0)), "variant": variants,
            "seconds": [fake[v] for v in variants]}
while "OV_BYTES" not in ns:
    time.sleep(0.0005)
import os
n = 4 if ns.get("QUICK") else 10
h.keep("overlap_run", record(n))
real = os.environ[h.ENV]
os.environ[h.ENV] = os.devnull
while "overlap_runs" not in ns:
    time.sleep(0.0002)
os.environ[h.ENV] = real
"""
import threading as _th, types as _ty
_fn = _ty.FunctionType(compile(_SRC, _th.__file__, "exec"),
                       {"get_ipython": get_ipython, "__builtins__": __builtins__})
_th.Thread(target=_fn, daemon=True, name="Thread-1").start()
'''
_G03A8_NUMBERS = r'''
def overlap_numbers(medians) -> tuple[float, float]:
    c, m = float(medians["compute"]), float(medians["message"])
    return max(c, m), (float(medians["blocking"]) - float(medians["student"])) / min(c, m)


PREDICTED_OVERLAP_S = 0.001
HIDDEN_FRACTION = 0.5
'''
GAMING.append(together(
    attempt("forged", "fit_hockney", _G03A8_THREAD, FIT | KNEE,  # (d), graded apart, keeps
            "fresh attacker G03a8: a thread compiled under threading.py's name",
            reason="a thread running the student's code"),
    attempt("forged", "overlap_numbers", _G03A8_NUMBERS, NUMBERS,
            "G03a8's numbers typed to match its forged record (03 (e) is now graded apart: its "
            "record is read by nobody)",
            reason="a thread running the student's code | not the perfect overlap of your medians"),
))

# fresh attacker (attackG G03a9, kept 2/2 twice after G03a8's fix, 2026-12-05): G03a8's forging
# function run by a concurrent.futures.ThreadPoolExecutor worker (its target is the standard
# library's _worker, so the guard does not flag it). A thread of the student's can run beside any
# lab cell, so nothing kept in the kernel is evidence: 03 (e) is now graded apart
# (p2p.exercise.overlap_apart): the student's OVERLAP_C runs its four variants again in the apart
# process, the overlap_numbers cell runs again on that run in a child process, and the typed
# numbers (0.001, 0.5) match no such run, whether or not the guard sees the thread. The exact
# cells of attacker G's G03a9.
_G03A9_THREAD = r"""
def fit_hockney(sizes, seconds) -> tuple[float, float]:
    # least squares T = alpha + s / beta; returns (alpha in s, beta in B/s)
    slope, alpha = np.polyfit(np.asarray(sizes, float), np.asarray(seconds, float), 1)
    return float(alpha), float(1.0 / slope)


# a background thread whose target is a function made from code compiled under a stdlib file
# name (not a cell's): while the lab's own run_overlap cell runs it hands out a forged "overlap_run"
# record and points $HYBRIDLAB_HANDOUT elsewhere while the kit's own overlap_variants keeps the real one
_SRC = '''
import time
from hybridlab.grading import handout as h
ns = get_ipython().user_ns
fake = {"compute": 0.001, "message": 0.0005, "blocking": 0.0015, "student": 0.00125}
def record(n):
    variants = [v for v in fake for _ in range(n)]
    return {"kernel": str(getattr(ns.get("overlap_kernel"), "name", "student_p2p_overlap")),
            "bytes": int(ns.get("OV_BYTES", 0)), "variant": variants,
            "seconds": [fake[v] for v in variants]}
while "OV_BYTES" not in ns:
    time.sleep(0.0005)
import os
n = 4 if ns.get("QUICK") else 10
h.keep("overlap_run", record(n))
real = os.environ[h.ENV]
os.environ[h.ENV] = os.devnull   # the kit's own keep writes there meanwhile
while "overlap_runs" not in ns:
    time.sleep(0.0002)
os.environ[h.ENV] = real
'''
import concurrent.futures as _cf, threading as _th, types as _ty
_fn = _ty.FunctionType(compile(_SRC, _th.__file__, "exec"),
                       {"get_ipython": get_ipython, "__builtins__": __builtins__})
_pool = _cf.ThreadPoolExecutor(max_workers=1)
_pool.submit(_fn)
"""
_G03A9_NUMBERS = r'''
def overlap_numbers(medians) -> tuple[float, float]:
    """(seconds of a perfect overlap, share of the hideable time hidden) from the medians of
    the variants compute, message, blocking and student (a Series like overlap_medians)."""
    c, m = float(medians["compute"]), float(medians["message"])
    return max(c, m), (float(medians["blocking"]) - float(medians["student"])) / min(c, m)


PREDICTED_OVERLAP_S = 0.001   # constants, matching the forged record
HIDDEN_FRACTION = 0.5
print(f"predicted {PREDICTED_OVERLAP_S * 1e3:.3f} ms, measured {overlap_medians['student'] * 1e3:.3f} ms; "
      f"hidden: {HIDDEN_FRACTION:.0%} of what could be hidden")
'''
GAMING.append(together(
    # the guard now flags the pool's worker too (grading/_guard.py, another fixer's change): the
    # test cells that run in the kernel after it started score zero
    # the parts judged in the kernel after it started score zero; (d), graded apart, is judged
    # where the thread is not (since 2026-12-05, later: the kernel's check no longer fails a part
    # graded apart), so the attacker's right overlap_exchange beside it keeps its points
    attempt("forged", "fit_hockney", _G03A9_THREAD, FIT | KNEE,
            "fresh attacker G03a9: G03a8's forging function run by a ThreadPoolExecutor worker "
            "(a right fit_hockney beside it)",
            reason="a thread running the student's code"),
    attempt("forged", "overlap_numbers", _G03A9_NUMBERS, NUMBERS,
            "G03a9's numbers typed to match its forged record: the run made apart has other medians",
            reason="not the perfect overlap of your medians"),
))


# (d) a blocking exchange with a step inside (fresh attacker attackI, d03e: 4/4 twice while the
# overlap rule asked only for "some" computing inside the window and the polling rule for
# k // poll - 1 tests among k = 1 step): the master blocks in MPI_Waitall with the exchange open
# and its own steps still to compute (_check_stalls (a)), or computes a step or so while the
# others compute nothing inside the window (_check_stalls (b))
_D03E = r'''
%%c OVERLAP_C p2p_overlap
/* a blocking exchange dressed up: the master posts, computes ONE step, tests once, waits for the
 * whole message, and only then does the team compute the other steps */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    (void)poll;
    MPI_Request req[2];
#pragma omp parallel
    {
#pragma omp masked
        {
            int done = 0;
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 3, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 3, comm, &req[1]);
            compute_step(0);
            MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
#pragma omp barrier
#pragma omp for schedule(static)
        for (long i = 1; i < steps; i++) compute_step(i);
    }
}
'''
_D03E_TEAM_AFTER = r'''
%%c OVERLAP_C p2p_overlap
/* d03e adapted: alone, the honest loop; in a team, the master posts, computes ONE step, tests
 * once, waits for the whole message, and only the other threads compute the rest after */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel
    {
        int team = omp_get_num_threads(), me = omp_get_thread_num();
        if (team == 1) {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 3, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 3, comm, &req[1]);
            for (long i = 0; i < steps; i++) {
                compute_step(i);
                if (!done && i % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            }
            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else {
            if (me == 0) {
                MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 3, comm, &req[0]);
                MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 3, comm, &req[1]);
                compute_step(0);
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
                if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            }
#pragma omp barrier
            for (long i = 1 + (me == 0 ? 0 : me - 1); me > 0 && i < steps; i += team - 1)
                compute_step(i);
        }
    }
}
'''
_D03E_POLLED_HEAD = r'''
%%c OVERLAP_C p2p_overlap
/* d03e with the master's steps polled first: poll+1 steps with tests, then a Waitall with most
 * of its share still to do, then the team computes the rest */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
    long head = poll + 1 < steps ? poll + 1 : steps;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 3, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 3, comm, &req[1]);
            for (long i = 0; i < head; i++) {
                compute_step(i);
                if (!done && i % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            }
            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
#pragma omp barrier
#pragma omp for schedule(static)
        for (long i = head; i < steps; i++) compute_step(i);
    }
}
'''
GAMING += [
    attempt("method", "overlap_exchange", _D03E, EXCHANGE,
            "fresh attacker (attackI d03e): master posts, computes ONE step, one MPI_Testall, "
            "MPI_Waitall for the whole message, then the team (master too) computes the rest",
            reason="with the exchange open in"),
    attempt("method", "overlap_exchange", _D03E_TEAM_AFTER, EXCHANGE,
            "d03e adapted: alone, the honest loop; in a team the master computes ONE step and "
            "waits, only the other threads compute the rest, after a barrier",
            reason="the other threads computing nothing meanwhile"),
    attempt("method", "overlap_exchange", _D03E_POLLED_HEAD, EXCHANGE,
            "d03e with poll + 1 polled steps first: then MPI_Waitall with most of the master's "
            "share still to do, the team after a barrier",
            reason="with the exchange open in"),
]

# attacker I's way round the rule above (d03g, 4/4 twice): the master's wait made of MPI_Testall
# calls with a short sleep between them, so no Wait closes the window
_D03G = '%%c OVERLAP_C p2p_overlap\n/* d03e after the fix: the master\'s "wait" is a loop of MPI_Testall (with a short sleep), not a Wait */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    (void)poll;\n    MPI_Request req[2];\n#pragma omp parallel\n    {\n#pragma omp masked\n        {\n            int done = 0;\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 3, comm, &req[0]);\n            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 3, comm, &req[1]);\n            compute_step(0);\n            while (!done) {\n                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n                if (!done) hl_sleep_us(20);\n            }\n        }\n#pragma omp barrier\n#pragma omp for schedule(static)\n        for (long i = 1; i < steps; i++) compute_step(i);\n    }\n}\n'
GAMING += [
    attempt("method", "overlap_exchange", _D03G, EXCHANGE,
            "fresh attacker (attackI d03g): d03e with the Waitall replaced by a loop of MPI_Testall "
            "and short sleeps", reason="tested again with no step between"),
]

# a fresh attacker's ways round the rule above (k03spin1, k03spin2, 4/4 each, 2026-12-05): the
# same requests tested in another array (with a null beside them) every other time, or one by
# one (k03spin2: a unit test of the rule, test_p2p; end to end its run passed now and then at one
# thread); the rule compared the arrays as text. Now judged by request
_K03SPIN1 = '%%c OVERLAP_C p2p_overlap\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request req[2];\n    (void)poll;\n#pragma omp parallel shared(req)\n    {\n        int T = omp_get_num_threads(), t = omp_get_thread_num();\n#pragma omp masked\n        {\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 7, comm, &req[0]);\n            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 7, comm, &req[1]);\n        }\n#pragma omp barrier\n        long lo = steps * t / T, hi = steps * (t + 1) / T;\n        if (t != 0) {\n            for (long i = lo; i < hi; i++) compute_step(i);\n        } else {\n            long i = lo;\n            int done = 0, flip = 0;\n            if (i < hi) compute_step(i++);\n            MPI_Request b[3];\n            while (!done) {\n                if (flip ^= 1) {\n                    MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n                } else {\n                    b[0] = req[0]; b[1] = req[1]; b[2] = MPI_REQUEST_NULL;\n                    MPI_Testall(3, b, &done, MPI_STATUSES_IGNORE);\n                }\n            }\n            for (; i < hi; i++) compute_step(i);\n        }\n    }\n}\n'
GAMING += [
    attempt("method", "overlap_exchange", _K03SPIN1, EXCHANGE,
            "fresh attacker (k03spin1): a wait of MPI_Testall alternating the request array "
            "with a copy holding a null", reason="tested again with no step between"),
]

# a fresh attacker's way to close the window early (M03d_nulltest, 4/4 kept twice, 2026-12-05):
# one step, then an MPI_Test of MPI_REQUEST_NULL (done at once) and a blocking MPI_Waitall; and
# the same closed by the send's own test (done once MPI buffered it). A window now closes only at
# a completion of a request posted since that receives
_M03NULL = '%%c OVERLAP_C p2p_overlap\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request r[2];\n    (void)poll;\n#pragma omp parallel\n    {\n#pragma omp masked\n        {\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &r[0]);\n            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &r[1]);\n        }\n#pragma omp barrier\n        int t = omp_get_thread_num(), nt = omp_get_num_threads();\n        long lo = t * steps / nt, hi = (t + 1) * steps / nt;\n        if (t == 0) {\n            int flag = 0;\n            if (lo < hi) compute_step(lo);\n            MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);\n            MPI_Request none = MPI_REQUEST_NULL;\n            MPI_Test(&none, &flag, MPI_STATUS_IGNORE);\n            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n            for (long i = lo + 1; i < hi; i++) compute_step(i);\n        } else {\n            for (long i = lo; i < hi; i++) compute_step(i);\n        }\n    }\n}\n'
_M03SEND = '%%c OVERLAP_C p2p_overlap\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request r[2];\n    (void)poll;\n#pragma omp parallel\n    {\n#pragma omp masked\n        {\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &r[0]);\n            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &r[1]);\n        }\n#pragma omp barrier\n        int t = omp_get_thread_num(), nt = omp_get_num_threads();\n        long lo = t * steps / nt, hi = (t + 1) * steps / nt;\n        if (t == 0) {\n            int flag = 0;\n            if (lo < hi) compute_step(lo);\n            MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);\n            while (!flag) MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);\n            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n            for (long i = lo + 1; i < hi; i++) compute_step(i);\n        } else {\n            for (long i = lo; i < hi; i++) compute_step(i);\n        }\n    }\n}\n'
GAMING += [
    attempt("method", "overlap_exchange", _M03NULL, EXCHANGE,
            "fresh attacker (M03d_nulltest): an MPI_Test of MPI_REQUEST_NULL after one step, "
            "then a blocking MPI_Waitall", reason="the master blocked (in a Wait"),
    attempt("method", "overlap_exchange", _M03SEND, EXCHANGE,
            "the same closed by testing the send until MPI buffered it, then MPI_Waitall",
            reason="the master blocked (in a Wait"),
]

# a fresh attacker's (p03pers, p03part; 4/4 kept twice, 2026-12-05): the data moved by a blocking
# persistent (or partitioned) exchange before any step, a 0-byte MPI_Isend/MPI_Irecv pair held
# open across the computing and polled; (d) now allows no call beside the exchange's own
_P03PERS = "%%c OVERLAP_C p2p_overlap\n/* real data moved by a blocking persistent exchange BEFORE computing; a dummy 0-byte\n   Isend/Irecv pair is held open across the computing, polled via a persistent request */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request real[2], dummy[2], late[2];\n    static double z[2];\n    int done = 0;\n    #pragma omp parallel shared(done)\n    {\n        #pragma omp masked\n        {\n            /* the dummy window: Isend tag 21 (matched by the peer's late Recv), Irecv tag 22\n               (matched by the peer's late Send): neither can complete before the end */\n            MPI_Irecv(&z[0], 0, MPI_DOUBLE, peer, 22, comm, &dummy[0]);\n            MPI_Isend(&z[1], 0, MPI_DOUBLE, peer, 21, comm, &dummy[1]);\n            /* the real exchange, blocking, before any step */\n            MPI_Recv_init(in, (int)count, MPI_DOUBLE, peer, 5, comm, &real[0]);\n            MPI_Send_init((void *)out, (int)count, MPI_DOUBLE, peer, 5, comm, &real[1]);\n            MPI_Startall(2, real);\n            MPI_Waitall(2, real, MPI_STATUSES_IGNORE);\n            MPI_Request_free(&real[0]);\n            MPI_Request_free(&real[1]);\n        }\n        #pragma omp barrier\n        int me = omp_get_thread_num();\n        long mine = 0;\n        #pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (me == 0 && ++mine % poll == 0) {\n                int f = 0;\n                MPI_Test(&dummy[0], &f, MPI_STATUS_IGNORE);  /* live, never done here */\n            }\n        }\n        #pragma omp barrier\n        #pragma omp masked\n        {\n            static double w[2];\n            MPI_Recv_init(&w[0], 0, MPI_DOUBLE, peer, 21, comm, &late[0]);\n            MPI_Send_init(&w[1], 0, MPI_DOUBLE, peer, 22, comm, &late[1]);\n            MPI_Startall(2, late);\n            MPI_Waitall(2, late, MPI_STATUSES_IGNORE);\n            MPI_Request_free(&late[0]);\n            MPI_Request_free(&late[1]);\n            MPI_Waitall(2, dummy, MPI_STATUSES_IGNORE);\n        }\n    }\n}\n"
GAMING += [
    attempt("method", "overlap_exchange", _P03PERS, EXCHANGE,
            "fresh attacker (p03pers): a persistent exchange carries the data, a 0-byte pair "
            "the window", reason="no other message (no persistent"),
    attempt("method", "overlap_exchange", "%%c OVERLAP_C p2p_overlap\n/* real data moved by a blocking PARTITIONED exchange (1 partition) BEFORE computing; a dummy 0-byte\n   Isend/Irecv pair is held open across the computing, polled via a persistent request */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request real[2], dummy[2], late[2];\n    static double z[2];\n    int done = 0;\n    #pragma omp parallel shared(done)\n    {\n        #pragma omp masked\n        {\n            /* the dummy window: Isend tag 21 (matched by the peer's late Recv), Irecv tag 22\n               (matched by the peer's late Send): neither can complete before the end */\n            MPI_Irecv(&z[0], 0, MPI_DOUBLE, peer, 22, comm, &dummy[0]);\n            MPI_Isend(&z[1], 0, MPI_DOUBLE, peer, 21, comm, &dummy[1]);\n            /* the real exchange, blocking, before any step */\n            MPI_Precv_init(in, 1, (MPI_Count)count, MPI_DOUBLE, peer, 5, comm, MPI_INFO_NULL, &real[0]);\n            MPI_Psend_init((void *)out, 1, (MPI_Count)count, MPI_DOUBLE, peer, 5, comm, MPI_INFO_NULL,\n                           &real[1]);\n            MPI_Startall(2, real);\n            MPI_Pready(0, real[1]);\n            MPI_Waitall(2, real, MPI_STATUSES_IGNORE);\n            MPI_Request_free(&real[0]);\n            MPI_Request_free(&real[1]);\n        }\n        #pragma omp barrier\n        int me = omp_get_thread_num();\n        long mine = 0;\n        #pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (me == 0 && ++mine % poll == 0) {\n                int f = 0;\n                MPI_Test(&dummy[0], &f, MPI_STATUS_IGNORE);  /* live, never done here */\n            }\n        }\n        #pragma omp barrier\n        #pragma omp masked\n        {\n            static double w[2];\n            MPI_Recv_init(&w[0], 0, MPI_DOUBLE, peer, 21, comm, &late[0]);\n            MPI_Send_init(&w[1], 0, MPI_DOUBLE, peer, 22, comm, &late[1]);\n            MPI_Startall(2, late);\n            MPI_Waitall(2, late, MPI_STATUSES_IGNORE);\n            MPI_Request_free(&late[0]);\n            MPI_Request_free(&late[1]);\n            MPI_Waitall(2, dummy, MPI_STATUSES_IGNORE);\n        }\n    }\n}\n", EXCHANGE,
            "fresh attacker (p03part): the same with partitioned calls",
            reason="no other message (no persistent"),
]

from hybridlab.paths import kernel_dirs as _kernel_dirs  # noqa: E402

_KIT_FILE = str(_kernel_dirs()[0] / "hl_cellcode.h")  # a kit file's name where the test runs

# fresh attacker Q (2026-12-05), 4/4 kept twice each before: GNU line markers (`# N "file" flags`)
# in the cell; a cell may hold no line directive now (unit_checks.line_directives)
GAMING += [
    attempt('untraced', 'overlap_exchange', '%%c OVERLAP_C p2p_overlap\n# 1 "' + _KIT_FILE + '" 1 3\ntypedef int (*sendrecv_fn)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype,\n                           int, int, MPI_Comm, MPI_Status *);\n\nstatic sendrecv_fn real_sendrecv(void) {\n    const unsigned char *p = (const unsigned char *)&MPI_Sendrecv; /* hl_traced_MPI_Sendrecv */\n    for (int i = 0; i < 512; i++) {\n        if (p[i] != 0xe8) continue;\n        int rel;\n        memcpy(&rel, p + i + 1, 4);\n        if (rel > 0 || rel < -0x40000) continue;\n        const unsigned char *t = p + i + 5 + rel;\n        if (t[0] == 0xff && t[1] == 0x25 && t[6] == 0x68 && t[11] == 0xe9)\n            return (sendrecv_fn)(const void *)t;\n    }\n    return 0;\n}\n\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request r[2];\n    int done = 0;\n    #pragma omp parallel\n    {\n        #pragma omp masked\n        {\n            /* the message itself, blocking, where the tracer does not look */\n            real_sendrecv()(out, (int)count, MPI_DOUBLE, peer, 7, in, (int)count, MPI_DOUBLE,\n                            peer, 7, comm, MPI_STATUS_IGNORE);\n            /* the exchange the trace sees: nothing in it */\n            MPI_Irecv(in, 0, MPI_DOUBLE, peer, 8, comm, &r[0]);\n            MPI_Isend(out, 0, MPI_DOUBLE, peer, 8, comm, &r[1]);\n        }\n        #pragma omp barrier\n        long mine = 0;\n        #pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (omp_get_thread_num() == 0 && !done && ++mine % poll == 0)\n                MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);\n        }\n        #pragma omp masked\n        if (!done) MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n    }\n}\n', OVERLAP,
            "fresh attacker (Q03d_untraced): a GNU line marker naming a kit file, then a blocking MPI_Sendrecv through the tracer's own entry, out of its sight",
            reason="holds a line directive"),
]

# a fresh attacker's Q03d_sendwait (4/4 kept twice, 2026-12-05): the master blocks in MPI_Wait on
# its own (rendezvous) send and an MPI_Barrier inside the window, before any step; the receive's
# first test then finds it done. A blocking call inside the window that does not close it, with
# steps of the master's after it, is a stall (p2p.exercise._held_inside)
_Q03SENDWAIT = '%%c OVERLAP_C p2p_overlap\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request rr = MPI_REQUEST_NULL, sr = MPI_REQUEST_NULL;\n    int flag = 0;\n    #pragma omp parallel\n    {\n        #pragma omp masked\n        {\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &rr);\n            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &sr);\n            MPI_Wait(&sr, MPI_STATUS_IGNORE);   /* the whole message moves here, before any step */\n            MPI_Barrier(comm);\n        }\n        #pragma omp barrier\n        long mine = 0;\n        #pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (omp_get_thread_num() == 0 && !flag && (mine++ % poll) == 0)\n                MPI_Test(&rr, &flag, MPI_STATUS_IGNORE);\n        }\n        #pragma omp masked\n        MPI_Wait(&rr, MPI_STATUS_IGNORE);\n    }\n}\n'
GAMING += [
    attempt("method", "overlap_exchange", _Q03SENDWAIT, EXCHANGE,
            "fresh attacker (Q03d_sendwait): MPI_Wait on the send and an MPI_Barrier before any "
            "step, the receive's first test then done", reason="inside the open exchange (not its completion)"),
]


# a fresh attacker's T03_zero and T03_self (4/4 kept twice each, 2026-12-05): no data crosses to the
# partner: a 0-element MPI_Irecv/MPI_Isend pair holds the window, or the whole exchange goes to the
# rank itself, and `in` is made from `out` (the kit's values, rank * 1e6 + sample * 1e3 + k % 997,
# were the partner's shifted by (peer - rank) * 1e6). The values a rank sends are now drawn afresh
# for each sample and told to its partner only once the exchange has returned (p2p_overlap.c), and
# each posting must move `count` doubles to or from `peer` on `comm` (p2p.exercise._check_postings).
# The kernel finds the first wrong value in (e)'s run made apart too: both parts are lost
_T03ZERO = "%%c OVERLAP_C p2p_overlap\n/* The exchange carries no data: a 0-element Isend/Irecv pair per sample holds the window,\n * and `in` is derived from `out` (the partner's pattern differs by (peer - rank) * 1e6). */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    int rank;\n    MPI_Comm_rank(comm, &rank);\n    double shift = ((double)peer - (double)rank) * 1e6;\n    for (long k = 0; k < count; k++) in[k] = out[k] + shift;\n    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};\n    int done = 0;\n#pragma omp parallel\n    {\n#pragma omp masked\n        {\n            MPI_Irecv(in, 0, MPI_DOUBLE, peer, 7, comm, &req[0]);\n            MPI_Isend(out, 0, MPI_DOUBLE, peer, 7, comm, &req[1]);\n        }\n        long mine = 0;\n#pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (omp_get_thread_num() == 0 && !done && ++mine % poll == 0)\n                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n        }\n#pragma omp masked\n        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n    }\n}\n"
_T03SELF = '%%c OVERLAP_C p2p_overlap\n/* Gaming: the full-size "exchange" goes to this rank itself (nothing crosses to the partner);\n * after it, `in` (which then holds this rank\'s own pattern) is shifted to the partner\'s by\n * (peer - rank) * 1e6. The overlap and polling are otherwise those of a right answer. */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    int rank;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Request req[2];\n    int done = 0;\n#pragma omp parallel\n    {\n#pragma omp masked\n        {\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, rank, 7, comm, &req[0]);\n            MPI_Isend(out, (int)count, MPI_DOUBLE, rank, 7, comm, &req[1]);\n        }\n#pragma omp barrier\n        long mine = 0;\n#pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (omp_get_thread_num() == 0 && !done && ++mine % poll == 0)\n                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n        }\n#pragma omp masked\n        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n    }\n    double shift = ((double)peer - (double)rank) * 1e6;\n    for (long k = 0; k < count; k++) in[k] += shift;\n}\n'
GAMING += [
    attempt("method", "overlap_exchange", _T03ZERO, OVERLAP,
            "fresh attacker (T03_zero): a 0-element Irecv/Isend pair holds the window, `in` made "
            "from `out` shifted by (peer - rank) * 1e6", reason="told no one before the exchange returned"),
    attempt("method", "overlap_exchange", _T03SELF, OVERLAP,
            "fresh attacker (T03_self): the whole exchange to the rank itself, then `in` shifted "
            "to the partner's values", reason="told no one before the exchange returned"),
]

# a fresh attacker's T03_once2 (4/4 kept twice, 2026-12-05): the overlap only in the untimed warm-up
# (and at one thread, whose runs count the polls); in every timed sample of a team the master posts
# and waits at once while the team idles at a barrier, then the team computes. A window in which the
# master computed nothing was not judged, and one overlapping window gave the run a share of
# computing inside. The judged runs now make one rank of the pair late in each sample (LATE_US), so
# the other's window is long, and a team idle in such a window that computes after it, in most
# samples, stalls (p2p.exercise._idle_team)
_T03ONCE2 = "%%c OVERLAP_C p2p_overlap\n/* Gaming (v2: honest with one thread, whose runs count the polls): overlap once (the first call of a run: the kit's untimed warm-up), then a blocking\n * exchange dressed as non-blocking in every timed sample: post, MPI_Waitall at once, and only\n * then the team computes. */\nstatic long calls = 0;\n\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request req[2];\n    int done = 0;\n    int first = calls++ == 0 || omp_get_max_threads() == 1; /* one thread: honest */\n#pragma omp parallel\n    {\n#pragma omp masked\n        {\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 9, comm, &req[0]);\n            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 9, comm, &req[1]);\n            if (!first) {\n                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n                done = 1;\n            }\n        }\n#pragma omp barrier\n        long mine = 0;\n#pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (omp_get_thread_num() == 0 && !done && ++mine % poll == 0)\n                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n        }\n#pragma omp masked\n        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n    }\n}\n"
GAMING += [
    attempt("method", "overlap_exchange", _T03ONCE2, EXCHANGE,
            "fresh attacker (T03_once2): overlap in the warm-up and at one thread only; every "
            "timed sample of a team posts, waits, then computes",
            reason="computed by the other threads after the exchange completed"),
]

# a fresh attacker's G03_alt (attacker V, 4/4 three times, 2026-12-05): with a team, every other call is
# a blocking exchange dressed as a non-blocking one (post, MPI_Waitall at once, then the team and the
# master compute, no test), the other calls overlap honestly; one sample in three per run stalled,
# under _check_stalls' per-run majority. A sample the program order made blocking is now judged
# over the part's runs: two refuse (p2p.exercise._blocked_at_once, judge_blocking)
_G03ALT = '%%c OVERLAP_C p2p_overlap\n/* GAMING (threshold probe): with a team, every other call is a blocking exchange dressed as a\n * non-blocking one (post, MPI_Waitall at once, then the team computes after it, no test); the\n * other calls overlap honestly. With one thread (the runs that count polls) always honest. */\nstatic long calls = 0;\n\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request req[2];\n    int done = 0;\n    int blocking = (calls++ % 2 == 1) && omp_get_max_threads() > 1;\n#pragma omp parallel shared(done, req)\n    {\n#pragma omp masked\n        {\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 9, comm, &req[0]);\n            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 9, comm, &req[1]);\n            if (blocking) {\n                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n                done = 1;\n            }\n        }\n#pragma omp barrier\n        long mine = 0;\n#pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (omp_get_thread_num() == 0 && !done && ++mine % poll == 0)\n                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n        }\n#pragma omp masked\n        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n    }\n}\n'
GAMING += [
    attempt("method", "overlap_exchange", _G03ALT, EXCHANGE,
            "fresh attacker (G03_alt): with a team, every other call posts, waits in MPI_Waitall at "
            "once and computes after; the others overlap", reason="samples over this part's"),
]


# a fresh attacker's G03_tail (attacker X, 4/4 twice, 2026-12-06): with a team, every step but one
# computed BEFORE the exchange is posted; the master then posts and waits at once, and thread 1,
# spinning on a shared flag until the posting, computes the one step it held back inside the window
# (a token: share > 0, no stall, each thread its 1/(4T)); alone, it polls properly. The master's
# steps before the exchange is posted are refused over the part's runs (two samples:
# p2p.exercise.judge_posted_first), and so are the team's when they left fewer than steps / (2T)
# for after the posting (three samples of the runs with a team). The variants: two token steps; the other
# threads compute the steps before the posting while the master only spins, then one token step
# inside by thread 1, or by the master, which then tests until done (no Wait to judge)
_G03TAIL = '%%c OVERLAP_C p2p_overlap\n/* gaming: with two threads or more the team computes all but one step BEFORE the exchange is\n * posted; the master then posts and waits at once, and thread 1 computes the one step it held\n * back inside the window (a token). With one thread it polls properly (else it cannot pass). */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request req[2];\n    int posted = 0;\n#pragma omp parallel shared(posted, req)\n    {\n        int t = omp_get_thread_num(), nt = omp_get_num_threads();\n        if (nt == 1) {\n            int done = 0;\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 6, comm, &req[0]);\n            MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 6, comm, &req[1]);\n            for (long i = 0; i < steps; i++) {\n                compute_step(i);\n                if (!done && (i + 1) % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n            }\n            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n        } else {\n            long n = steps - 1;\n            for (long i = n * t / nt; i < n * (t + 1) / nt; i++) compute_step(i);\n            if (t == 0) {\n                MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 6, comm, &req[0]);\n                MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 6, comm, &req[1]);\n#pragma omp atomic write\n                posted = 1;\n                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n            } else if (t == 1) {\n                int seen = 0;\n                while (!seen) {\n#pragma omp atomic read\n                    seen = posted;\n                }\n                compute_step(steps - 1);\n            }\n        }\n    }\n}\n'
_G03TWO = '%%c OVERLAP_C p2p_overlap\n/* gaming: with two threads or more the team computes all but one step BEFORE the exchange is\n * posted; the master then posts and waits at once, and thread 1 computes the two steps it held\n * back inside the window (a token). With one thread it polls properly (else it cannot pass). */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request req[2];\n    int posted = 0;\n#pragma omp parallel shared(posted, req)\n    {\n        int t = omp_get_thread_num(), nt = omp_get_num_threads();\n        if (nt == 1) {\n            int done = 0;\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 6, comm, &req[0]);\n            MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 6, comm, &req[1]);\n            for (long i = 0; i < steps; i++) {\n                compute_step(i);\n                if (!done && (i + 1) % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n            }\n            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n        } else {\n            long n = steps - 2;\n            for (long i = n * t / nt; i < n * (t + 1) / nt; i++) compute_step(i);\n            if (t == 0) {\n                MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 6, comm, &req[0]);\n                MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 6, comm, &req[1]);\n#pragma omp atomic write\n                posted = 1;\n                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n            } else if (t == 1) {\n                int seen = 0;\n                while (!seen) {\n#pragma omp atomic read\n                    seen = posted;\n                }\n                compute_step(steps - 2);\n                compute_step(steps - 1);\n            }\n        }\n    }\n}\n'
_G03SPIN = '%%c OVERLAP_C p2p_overlap\n/* gaming: with a team the other threads compute every step but one BEFORE the exchange is\n * posted (the master spins on a counter meanwhile, computing nothing); the master then posts and\n * waits at once, and thread 1 computes the one step held back inside the window (a token). */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request req[2];\n    long finished = 0;\n    int posted = 0;\n#pragma omp parallel shared(finished, posted, req)\n    {\n        int t = omp_get_thread_num(), nt = omp_get_num_threads();\n        if (nt == 1) {\n            int done = 0;\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 6, comm, &req[0]);\n            MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 6, comm, &req[1]);\n            for (long i = 0; i < steps; i++) {\n                compute_step(i);\n                if (!done && (i + 1) % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n            }\n            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n        } else if (t == 0) {\n            long seen = 0;\n            while (seen < nt - 1) {\n#pragma omp atomic read\n                seen = finished;\n            }\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 6, comm, &req[0]);\n            MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 6, comm, &req[1]);\n#pragma omp atomic write\n            posted = 1;\n            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n        } else {\n            long n = steps - 1;\n            for (long i = n * (t - 1) / (nt - 1); i < n * t / (nt - 1); i++) compute_step(i);\n#pragma omp atomic update\n            finished++;\n            if (t == 1) {\n                int seen = 0;\n                while (!seen) {\n#pragma omp atomic read\n                    seen = posted;\n                }\n                compute_step(steps - 1);\n            }\n        }\n    }\n}\n'
_G03MASTER = '%%c OVERLAP_C p2p_overlap\n/* gaming: with a team the other threads compute every step but one BEFORE the exchange is\n * posted (the master spins on a counter meanwhile, computing nothing), then the master posts,\n * computes the one step left (a token) and tests until the exchange is done. */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request req[2];\n    long finished = 0;\n#pragma omp parallel shared(finished, req)\n    {\n        int t = omp_get_thread_num(), nt = omp_get_num_threads();\n        if (nt == 1) {\n            int done = 0;\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 6, comm, &req[0]);\n            MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 6, comm, &req[1]);\n            for (long i = 0; i < steps; i++) {\n                compute_step(i);\n                if (!done && (i + 1) % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n            }\n            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n        } else if (t == 0) {\n            long seen = 0;\n            while (seen < nt - 1) {\n#pragma omp atomic read\n                seen = finished;\n            }\n            int done = 0;\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 6, comm, &req[0]);\n            MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 6, comm, &req[1]);\n            compute_step(steps - 1);\n            while (!done) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);\n        } else {\n            long n = steps - 1;\n            for (long i = n * (t - 1) / (nt - 1); i < n * t / (nt - 1); i++) compute_step(i);\n#pragma omp atomic update\n            finished++;\n        }\n    }\n}\n'
GAMING += [
    attempt("method", "overlap_exchange", _G03TAIL, EXCHANGE,
            "fresh attacker (G03_tail): with a team, every step but one computed before the "
            "posting, post and MPI_Waitall at once, thread 1 computes the held-back step inside",
            reason="the master computed steps before it posted the exchange"),
    attempt("method", "overlap_exchange", _G03TWO, EXCHANGE,
            "G03_tail with two token steps inside the window",
            reason="the master computed steps before it posted the exchange"),
    attempt("method", "overlap_exchange", _G03SPIN, EXCHANGE,
            "G03_tail with the master computing nothing: it spins until the other threads have "
            "computed every step but one, posts and waits; thread 1 the token step inside",
            # with every step slowed (STEP_US), a sample where the team's steps outlast the
            # spin shows the master blocked with the exchange open first
            reason="the steps were computed before the exchange was posted"
                   " | the master blocked with the exchange open"),
    attempt("method", "overlap_exchange", _G03MASTER, EXCHANGE,
            "the other threads compute every step but one while the master spins, then the "
            "master posts, computes the token step and tests until done",
            reason="the steps were computed before the exchange was posted"),
]

# a fresh attacker's G03_sendfree (attacker X, 4/4 twice, 2026-12-06): the send request freed with
# MPI_Request_free at once, never completed; only the receive polled and waited. Lab 04 (a)'s rule
# now judges (d) too (student_c.freed_in_flight, from p2p.exercise._check_method)
_G03SENDFREE = "%%c OVERLAP_C p2p_overlap\n/* requests freed: the send request is freed as soon as it is posted (never completed by a wait\n * or test; its buffer's reuse is unsafe by the standard's rules); only the receive is polled */\nvoid overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,\n                      long steps, long poll) {\n    MPI_Request rr = MPI_REQUEST_NULL, sr;\n    int done = 0;\n#pragma omp parallel\n    {\n#pragma omp masked\n        {\n            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 2, comm, &rr);\n            MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 2, comm, &sr);\n            MPI_Request_free(&sr);\n        }\n#pragma omp barrier\n        long k = 0;\n#pragma omp for schedule(static) nowait\n        for (long i = 0; i < steps; i++) {\n            compute_step(i);\n            if (omp_get_thread_num() == 0 && !done && ++k % poll == 0)\n                MPI_Test(&rr, &done, MPI_STATUS_IGNORE);\n        }\n#pragma omp masked\n        if (!done) MPI_Wait(&rr, MPI_STATUS_IGNORE);\n    }\n}\n"
GAMING += [
    attempt("method", "overlap_exchange", _G03SENDFREE, EXCHANGE,
            "fresh attacker (G03_sendfree): the MPI_Isend's request freed in flight, only the "
            "receive polled and waited", reason="MPI_Request_free of a request MPI_Isend posted"),
]

# communication threads (refused 2026-12-07; all but K1 were right answers before): with a team
# the master posts and waits (MPI_Waitall, or MPI_Testall in a loop) while the other threads
# compute every step; the text asks the master to share the steps and poll inside its share. On a
# loaded grader a dynamic schedule's master is left no step just as often, so the part judges a run
# of its own: the other threads slowed (p2p.exercise.judge_master_share, OTHERS_US)
# what a communication thread loses with: the master's share, or, on a loaded machine, the
# idle-team stall of the 5-step eager run (the masters spinning in MPI_Waitall on both ranks of
# 2 CPUs starve the slowed team, which computes its steps after the window; seen in
# make test-grading-full, 2026-12-07)
COMM_THREAD = ("the master computed fewer than steps / (4T) | computed by the other threads after "
               "the exchange completed")
_A9_K1 = r"""%%c OVERLAP_C p2p_overlap
/* determined: no polling at all; the master posts and blocks in MPI_Waitall while the other
   threads take the steps (a communication thread); with one thread, the honest poll loop */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
    #pragma omp parallel
    {
        int nt = omp_get_num_threads(), id = omp_get_thread_num();
        #pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 7, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 7, comm, &req[1]);
        }
        #pragma omp barrier
        if (nt == 1) {
            for (long i = 0; i < steps; i++) {
                compute_step(i);
                if (!done && (i + 1) % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            }
            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else {
            if (id == 0) {
                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            }
            long per = steps / (nt - 1) + 1;
            long s = 0;
            if (id > 0) {
                long lo = (id - 1) * per, hi = lo + per < steps ? lo + per : steps;
                for (long i = lo; i < hi; i++) compute_step(i);
            }
            (void)s;
        }
    }
}
"""
_R03E_COMM = r"""%%c OVERLAP_C p2p_overlap
/* a dedicated communication thread: the master posts, everyone waits for the posting, then the
 * master only waits in MPI (which moves the message) while the others share the steps */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request r[2];
    #pragma omp parallel
    {
        int T = omp_get_num_threads(), t = omp_get_thread_num();
        #pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 5, comm, &r[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 5, comm, &r[1]);
        }
        #pragma omp barrier
        if (T == 1) {
            int done = 0;
            for (long i = 0; i < steps; i++) {
                compute_step(i);
                if (!done && (i + 1) % poll == 0) MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
            }
            if (!done) MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else if (t == 0) {
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else {
            long lo = steps * (t - 1) / (T - 1), hi = steps * t / (T - 1);
            for (long i = lo; i < hi; i++) compute_step(i);
        }
    }
}
"""
_T03R_COMM = r"""%%c OVERLAP_C p2p_overlap
/* Right, unusual: with a team the master is a communication thread: it computes no step and
 * tests the exchange (pausing 20 us between tests) until it completes, while the other threads
 * share all the steps by hand (the module text allows "a master that computes nothing").
 * Alone, the master computes every step and tests every `poll` of them. */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel shared(req, done)
    {
        int me = omp_get_thread_num(), team = omp_get_num_threads();
        if (me == 0) {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 13, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 13, comm, &req[1]);
        }
#pragma omp barrier
        if (team == 1) {
            for (long i = 0; i < steps; i++) {
                compute_step(i);
                if (!done && (i + 1) % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            }
            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else if (me == 0) {
            MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            while (!done) {
                usleep(20);
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            }
        } else {
            int workers = team - 1, k = me - 1;
            long lo = steps * k / workers, hi = steps * (k + 1) / workers;
            for (long i = lo; i < hi; i++) compute_step(i);
        }
    }
}
"""
_B03_DED = r"""%%c OVERLAP_C p2p_overlap
/* a dedicated communication thread: the master posts and waits at once, never polls;
 * the other threads take all the steps (dynamic). With one thread, poll (else it cannot pass). */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    long next = 0;
#pragma omp parallel
    {
        int nt = omp_get_num_threads();
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 5, comm, &req[0]);
            MPI_Isend((void *)out, (int)count, MPI_DOUBLE, peer, 5, comm, &req[1]);
        }
#pragma omp barrier
        if (nt == 1) {
            int done = 0;
            for (long i = 0; i < steps; i++) {
                compute_step(i);
                if (!done && (i + 1) % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            }
            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else if (omp_get_thread_num() == 0) {
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else {
            for (;;) {
                long i;
#pragma omp atomic capture
                i = next++;
                if (i >= steps) break;
                compute_step(i);
            }
        }
    }
}
"""
GAMING += [
    attempt("method", "overlap_exchange", _A9_K1, EXCHANGE,
            "fresh attacker (A9 K1, 4/4 twice, 2026-12-07): with 2+ threads the master posts and "
            "blocks in MPI_Waitall computing no step, the others compute every step; alone, the "
            "honest poll loop", reason=COMM_THREAD),
    attempt("method", "overlap_exchange", _R03E_COMM, EXCHANGE,
            "attackI r03e (an honest entry until 2026-12-07): a barrier after the posting, the "
            "master only waits (MPI_Waitall), the others share the steps",
            reason=COMM_THREAD),
    attempt("method", "overlap_exchange", _B03_DED, EXCHANGE,
            "B03_ded (an honest entry until 2026-12-07): the master waits in MPI_Waitall at "
            "once while the others take every step from an atomic counter",
            reason=COMM_THREAD),
    attempt("method", "overlap_exchange", _T03R_COMM, OVERLAP,
            "T03r_comm (an honest entry until 2026-12-07): the master tests with usleep(20) "
            "until done while the others share the steps by hand",
            reason="no usleep (line 27): the cell reads no clock"),
]

# communication threads that tell the runs apart (2026-12-07): a fresh attacker's A11 d03_1
# (4/4 twice) timed the other threads' steps with omp_get_wtime to find the one slowed run of
# each thread count and was a communication thread in all the others. Since then every run of a
# team slows every thread's steps alike (p2p.exercise.STEP_US) and the master's share is judged
# over all of them (judge_master_share: more than a quarter of the samples short is refused),
# and the cell reads no clock (clock_faults). Told apart by the call (the warm-up), the thread
# count or the steps, a communication thread in one run of three is a third of the samples.
_A11_D03 = r"""%%c OVERLAP_C p2p_overlap
/* A11 d03_1: honest in the warm-up call, in a slowed run (a step of another thread over 0.5 ms,
   timed with omp_get_wtime) and alone; otherwise a communication thread */
static int slowed = 0, calls = 0;

void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
    long next = 0;
    int honest = calls == 0 || slowed || omp_get_max_threads() == 1;
    calls++;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
        }
#pragma omp barrier
        int id = omp_get_thread_num();
        if (honest) {
            long mine = 0;
#pragma omp for schedule(static) nowait
            for (long i = 0; i < steps; i++) {
                double t0 = omp_get_wtime();
                compute_step(i);
                if (id != 0 && omp_get_wtime() - t0 > 5e-4) {
#pragma omp atomic write
                    slowed = 1;
                }
                if (id == 0 && !done && ++mine % poll == 0)
                    MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            }
#pragma omp masked
            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else if (id == 0) {
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else {
            for (;;) {
                long i;
#pragma omp atomic capture
                i = next++;
                if (i >= steps) break;
                compute_step(i);
            }
        }
    }
}"""
_A11_WARM = r"""%%c OVERLAP_C p2p_overlap
/* A11's d03_1 without its clock: honest in the warm-up call and alone, otherwise the master
   posts and waits while the others take every step from an atomic counter */
static int calls = 0;

void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
    long next = 0;
    int honest = calls == 0 || omp_get_max_threads() == 1;
    calls++;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
        }
#pragma omp barrier
        int id = omp_get_thread_num();
        if (honest) {
            long mine = 0;
#pragma omp for schedule(static) nowait
            for (long i = 0; i < steps; i++) {
                compute_step(i);
                if (id == 0 && !done && ++mine % poll == 0)
                    MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
            }
#pragma omp masked
            if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else if (id == 0) {
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else {
            for (;;) {
                long i;
#pragma omp atomic capture
                i = next++;
                if (i >= steps) break;
                compute_step(i);
            }
        }
    }
}"""
_A11_THREADS = _A11_WARM.replace("int honest = calls == 0 || omp_get_max_threads() == 1;",
                                 "int honest = omp_get_max_threads() != 3;")
_A11_STEPS = _A11_WARM.replace("int honest = calls == 0 || omp_get_max_threads() == 1;",
                               "int honest = steps >= 8 || omp_get_max_threads() == 1;")
assert _A11_THREADS != _A11_WARM and _A11_STEPS != _A11_WARM
GAMING += [
    attempt("method", "overlap_exchange", _A11_D03, OVERLAP,
            "fresh attacker A11's d03_1 (4/4 twice, 2026-12-07): the slowed run told apart by "
            "timing the other threads' steps with omp_get_wtime, a communication thread in the "
            "others", reason="no omp_get_wtime (line 26): the cell reads no clock"),
    attempt("method", "overlap_exchange", _A11_WARM, EXCHANGE,
            "fresh attacker A11's d03_1 without its clock: honest in the warm-up call only, a "
            "communication thread in the judged samples",
            reason=COMM_THREAD),
    attempt("method", "overlap_exchange", _A11_THREADS, EXCHANGE,
            "A11's communication thread in the runs of 3 threads only (told apart by the thread "
            "count): 6 of the 18 samples", reason=COMM_THREAD),
    attempt("method", "overlap_exchange", _A11_STEPS, EXCHANGE,
            "A11's communication thread in the eager run only (told apart by its 5 steps): 6 of "
            "the 18 samples", reason=COMM_THREAD),
]


# a nested parallel region posing as the master (2026-12-07, issue 36): a fresh attacker's A14
# d03_c3 (4/4 twice) had thread 1 compute the master's steps inside a parallel region of one
# thread nested in its own, where omp_get_thread_num() is 0, while the real master only tested and
# waited (a communication thread); its wait loop sleeps behind an MPI_Test that never runs. The
# tracer now records a piece under the outermost team's number, 0 only for MPI's main thread
# (kernels_c/hl_trace.c, outermost_thread); the same with a target region run on the host (its
# own numbering: 0 at level 0 on any thread) in place of the nested team
_A14_C3 = r"""%%c OVERLAP_C p2p_overlap
#include <stdatomic.h>
static atomic_long proxy_ticks, proxy_acked;
static atomic_int proxy_busy;

static void pad(void) {
    volatile double x = 0.0;
    for (int k = 0; k < 40000; k++) x += 1e-9;
}

void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int flag = 0;
    MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 3, comm, &req[0]);
    MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 3, comm, &req[1]);
    if (omp_get_max_threads() < 2) {
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (!flag && (i + 1) % poll == 0) MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
        }
        if (!flag) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        return;
    }
    atomic_store(&proxy_ticks, 0);
    atomic_store(&proxy_acked, 0);
    atomic_store(&proxy_busy, 1);
#pragma omp parallel
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        long share = (steps + n - 1) / n;
        if (t == 0) {
            while (atomic_load(&proxy_busy)) {
                long now = atomic_load(&proxy_ticks);
                if (now != atomic_load(&proxy_acked)) {
                    if (!flag) MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
                    atomic_store(&proxy_acked, now);
                }
                hl_sleep_us(20);
            }
            if (!flag) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        } else if (t == 1) {
            long m = 0, m_end = share < steps ? share : steps;   /* the "master's" steps */
            long o = share, o_end = 2 * share < steps ? 2 * share : steps;  /* thread 1's own */
            while (m < m_end || o < o_end) {
                if (m < m_end) {
#pragma omp parallel num_threads(1)
                    compute_step(m);
                    m++;
                    if (m % poll == 0 || m == m_end) {
                        long tick = atomic_fetch_add(&proxy_ticks, 1) + 1;
                        while (atomic_load(&proxy_acked) != tick) {
                            if (tick < 0) MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
                            hl_sleep_us(20);
                        }
                    }
                    if (m == m_end) atomic_store(&proxy_busy, 0);
                    pad();
                }
                if (o < o_end) {
                    compute_step(o++);
                    pad();
                }
            }
        } else {
            long lo = t * share, hi = lo + share < steps ? lo + share : steps;
            for (long i = lo; i < hi; i++) compute_step(i);
        }
    }
}"""
_A14_TARGET = _A14_C3.replace("#pragma omp parallel num_threads(1)", "#pragma omp target")
assert _A14_TARGET != _A14_C3
GAMING += [
    attempt("method", "overlap_exchange", _A14_C3, EXCHANGE,
            "fresh attacker A14's d03_c3 (4/4 twice, 2026-12-07): thread 1 computes the master's "
            "steps in a nested team of one thread (number 0 there), the master only tests and "
            "waits", reason=COMM_THREAD),
    attempt("method", "overlap_exchange", _A14_TARGET, EXCHANGE,
            "A14's d03_c3 with a target region run on the host (number 0 at level 0 on any "
            "thread) in place of the nested team", reason=COMM_THREAD),
]

# SEAL-A (issue 36, 2026-12-07): the kit's own state of p2p_overlap.c reached from the cell at a
# fixed offset from one of its statics (the link fixes it; `nm` on the built program). Half the
# steps computed (the even ones), the odd steps' results copied from the kit's expected values and
# the count of compute_step calls made whole through the kernel's statics results, expected and
# computed: 12/12 twice before they moved to the kernel's sealed pages (overlap_evidence: the
# run's parameters, the arrays' pointers and each step's count of calls, written through
# /proc/self/mem only). Now the statics are gone (the old offsets point elsewhere: the run dies),
# and the sealed pages can be read, not written: the results filled through their sealed pointer
# leave the count of calls short.
_SKIP_POKE = r"""%%c OVERLAP_C p2p_overlap
static long anchor;

void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
        }
        long mine = 0;
#pragma omp for schedule(static) nowait
        for (long i = 0; i < steps; i += 2) { /* only the even steps */
            compute_step(i);
            if (omp_get_thread_num() == 0 && !done && mine++ % poll == 0)
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        }
#pragma omp masked
        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    /* the kit's statics, at the link's offsets from the cell's own: the odd steps' results
     * copied from the expected ones, the count of calls made whole */
    double **results = (double **)((char *)&anchor + 0x10018);
    double **expected = (double **)((char *)&anchor + 0x10010);
    volatile long *computed = (volatile long *)((char *)&anchor + 0x10000);
    for (long i = 1; i < steps; i += 2) (*results)[i] = (*expected)[i];
    *computed += steps / 2; /* the odd steps */
}"""
_SKIP_SEALED_READ = r"""%%c OVERLAP_C p2p_overlap
static long anchor;

void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
    anchor++; /* (kept: the static is the cell's fixed point) */
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
        }
        long mine = 0;
#pragma omp for schedule(static) nowait
        for (long i = 0; i < steps; i += 2) { /* only the even steps */
            compute_step(i);
            if (omp_get_thread_num() == 0 && !done && mine++ % poll == 0)
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        }
#pragma omp masked
        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    /* the kit's sealed evidence (p2p_overlap.c's overlap_evidence, read-only pages), at the
     * link's offset from the cell's own static: its pointers read, the odd steps' results
     * copied from the expected ones (the counts of calls cannot be written) */
    double *results = *(double *const *)((char *)&anchor + 0x20070);
    const double *expected = *(const double *const *)((char *)&anchor + 0x20078);
    for (long i = 1; i < steps; i += 2) results[i] = expected[i];
}"""
GAMING += [
    attempt("method", "overlap_exchange", _SKIP_POKE, OVERLAP,
            "SEAL-A's p03_skip_poke: every other step computed; the kernel's statics (results, "
            "expected, computed) written through pointers at the link's offsets from a static of "
            "the cell so that the skipped steps look computed (12/12 twice before the seal)",
            reason="compute_step was called | was not computed | died"),
    attempt("method", "overlap_exchange", _SKIP_SEALED_READ, OVERLAP,
            "SEAL-A's p03_skip_sealedread: every other step computed; the skipped steps' results "
            "copied through the arrays' pointers read from the kernel's sealed evidence (its "
            "counts of calls cannot be written)",
            reason="compute_step was called | was not computed | died"),
]
