"""Lab 09: gaming attempts at every automatic part (see __init__.py)."""

import textwrap

import numpy as np
import pandas as pd

from gaming import FRAME_TOOLS, Oracle, attempt, solution_cell
from wrong_answers import changed

BUSY = """
@numba.njit(parallel=True)
def _busy(n):  # every numba thread kept busy: the thread check sees them working
    s = 0.0
    for i in prange(n):
        s += (i % 7) * 1e-9
    return s
"""
# the sweep done serially, by one thread (the body of a function of u and new)
SERIAL_SWEEP = """    delta = 0.0
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            for k in range(1, u.shape[2] - 1):
                v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                     + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                delta += (v - u[i, j, k]) ** 2
                new[i, j, k] = v
    return delta
"""

GAMING = [
    # (a) the numba 3-D sweep
    attempt("shortcut", "jacobi_sweep3d", """
@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    return 0.0


check_sweep = lambda *args, **kwargs: []  # noqa: E731 - the notebook's checks rebound
working_threads = lambda work: 2  # noqa: E731
""", loses={"hidden_jacobi_sweep3d"}, why="the notebook's check functions rebound to pass anything", reason='compute the stencil (u at six neighbours) inside the prange loop'),
    attempt("shortcut", "jacobi_sweep3d", BUSY + """
from hybridlab.halo.serial import initial3d, jacobi3d_grid

_done = {}


def jacobi_sweep3d(u, new):
    size = tuple(s - 2 for s in u.shape)
    if np.array_equal(u, initial3d(*size)):
        _done[size] = 0
    _done[size] = _done.get(size, 0) + 1
    grid, delta = jacobi3d_grid(*size, _done[size])
    new[...] = grid
    _busy(2_000_000)
    return delta
""", loses={"hidden_jacobi_sweep3d"}, why="the kit's numpy reference replayed from the kit's start grid, threads kept busy", reason='must be compiled by numba'),
    attempt("method", "jacobi_sweep3d", BUSY + """
@numba.njit
def _serial(u, new):
""" + SERIAL_SWEEP + """

@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    _busy(u.size * 4)  # the threads spin while one thread does the sweep
    return _serial(u, new)
""", loses={"hidden_jacobi_sweep3d"}, why="a serial sweep beside a parallel loop that only spins", reason='used other than indexed'),
    attempt("hidden", "jacobi_sweep3d", """
@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    delta = 0.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                # the boundary as the kit's start grid has it, not as u has it
                w = u[i - 1, j, k] if i > 1 else ((7 * (i - 1) + 13 * j + 19 * k) % 23) / 22.0
                e = u[i + 1, j, k] if i < nx - 2 else ((7 * (i + 1) + 13 * j + 19 * k) % 23) / 22.0
                v = (w + e + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                d = v - u[i, j, k]
                delta += d * d
                new[i, j, k] = v
    return delta
""", loses={"hidden_jacobi_sweep3d"}, why="the boundary taken from the kit's start grid: right on the grids the checks start from", reason='new differs by'),
    # (b) pinned layers
    attempt("shortcut", "pinned_layer_names", """
def pinned_layer_names(rows, cores=None):
    from hybridlab.pykernels import tables

    return tables.pinned_layers(rows)
""", loses={"hidden_pinned_layer_names"}, why="the kit's table function, imported inside the answer", reason='AttributeError'),
    attempt("shortcut", "pinned_layer_names", """
import hybridlab.pykernels.tables as _t

_pin = _t._pinned  # a private helper, captured before any guard


def pinned_layer_names(rows, cores=None):
    return sorted(str(layer) for layer, g in rows.groupby("layer")
                  if "thread" in g and g["thread"].notna().any() and _pin(g.dropna(subset=["thread"])))
""", loses={"hidden_pinned_layer_names"}, why="the kit's private rule _pinned", reason='NameError'),
    attempt("constant", "pinned_layer_names", """
def pinned_layer_names(rows, cores=None):
    return ["omp"]  # section 3's text: only omp follows OMP_PLACES
""", loses={"hidden_pinned_layer_names"}, why="the layer the text names, typed in", reason='pinned to a core each:'),
    attempt("hidden", "pinned_layer_names", """
def pinned_layer_names(rows, cores=None):
    pinned = []
    for layer, group in rows.groupby("layer"):
        ran = group[group["thread"].notna()] if "thread" in group else group.iloc[:0]
        masks = [tuple(a) for a in ran["allowed"]]
        if masks and all(len(m) == 1 for m in masks) and len(set(masks)) == len(masks):
            pinned.append(layer)  # one CPU each: right where a core is one CPU (no SMT)
    return sorted(pinned)
""", loses={"hidden_pinned_layer_names"}, why="one CPU per thread: an SMT core's two CPUs read as not pinned", reason='pinned to a core each:'),
    attempt("method", "pinned_layer_names", """
def pinned_layer_names(rows, cores=None):
    pinned = []
    for layer, group in rows.groupby("layer"):
        ran = group[group["thread"].notna()] if "thread" in group else group.iloc[:0]
        if len(ran) and ran["cpu"].nunique() == len(ran):  # where they ran, not where they may run
            pinned.append(layer)
    return sorted(pinned)
""", loses={"hidden_pinned_layer_names"}, why="distinct CPUs the threads ran on, not their affinity masks", reason='pinned to a core each:'),
]


def _u(shape):
    return np.random.default_rng(7).uniform(-1.0, 1.0, shape)


def _sweep_delta(u):
    v = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
         + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0
    return float(((v - u[1:-1, 1:-1, 1:-1]) ** 2).sum())


_U = _u((6, 5, 7))
_DELTA = _sweep_delta(_U)
_LAYERS = pd.DataFrame([
    {"layer": "omp", "thread": 0, "cpu": 0, "allowed": [0, 4]},
    {"layer": "omp", "thread": 1, "cpu": 1, "allowed": [1, 5]},
    {"layer": "tbb", "thread": 0, "cpu": 0, "allowed": [0]},
    {"layer": "tbb", "thread": 1, "cpu": 4, "allowed": [4]},
    {"layer": "workqueue", "thread": 0, "cpu": 2, "allowed": [0, 1, 2, 3, 4, 5, 6, 7]},
])
_CORES = {0: [0, 4], 1: [1, 5], 2: [2, 6], 3: [3, 7]}
ORACLES = [
    Oracle("jacobi_sweep3d", (_U, _U.copy()),
           lambda got: isinstance(got, float | int) and abs(float(got) - _DELTA) <= 1e-9 * _DELTA),
    Oracle("pinned_layer_names", (_LAYERS, _CORES), lambda got: list(got) == ["omp"]),
    Oracle("pinned_layer_names", (_LAYERS,), lambda got: list(got) == ["omp"]),
]

# Fresh attackers' attempts that scored before the fixes of this wave (a helper that had
# seen neither the solutions nor the tests, grading through the real sandbox).
GAMING += [
    attempt('method', 'jacobi_sweep3d', '@numba.njit(parallel=True)\ndef jacobi_sweep3d(u, new):\n    # numba parallelises the array expression itself; the loop only copies it into new\n    t = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]\n         + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0\n    d = t - u[1:-1, 1:-1, 1:-1]\n    for i in prange(t.shape[0]):\n        new[i + 1, 1:-1, 1:-1] = t[i]\n    return np.sum(d * d)',
            loses={'hidden_jacobi_sweep3d'}, why='fresh attacker: array expression outside, prange only copies into new', reason='compute the stencil (u at six neighbours) inside the prange loop'),
]

# issue 36's hurried hole: the serial sweep inside a prange of one iteration (the idle worker
# spins at the loop's end as long as the sweep takes, so its CPU time counts as working)
SERIAL_IN_PRANGE = """
@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    delta = 0.0
    for t in prange(1):  # one iteration: one thread sweeps everything
""" + textwrap.indent(SERIAL_SWEEP.removeprefix("    delta = 0.0\n").removesuffix("    return delta\n"),
                      "    ").replace("range(1, u.shape[0]", "range(1 + t, u.shape[0]") + "    return delta\n"
GAMING += [
    attempt("method", "jacobi_sweep3d", SERIAL_IN_PRANGE.replace("range(1 + t, ", "range(1, "),
            loses={"hidden_jacobi_sweep3d"}, why="the serial sweep inside prange(1), its index unused",
            reason="a prange whose range is not computed from the grid's shape"),
    attempt("method", "jacobi_sweep3d", SERIAL_IN_PRANGE,
            loses={"hidden_jacobi_sweep3d"},
            why="the serial sweep inside prange(1), its index dressed into the loop's bounds",
            reason="a prange whose range is not computed from the grid's shape"),
]

# The same hole with a prange the source check cannot refuse: its range computed from the grid
# (min(1, u.shape[0])) and the rows indexed from its index. One thread still writes every point;
# the grader sees it in the page faults of a fresh `new` (the idle thread spins, writes nothing).
GAMING += [
    attempt("method", "jacobi_sweep3d", SERIAL_IN_PRANGE.replace("prange(1)", "prange(min(1, u.shape[0]))"),
            loses={"hidden_jacobi_sweep3d"},
            why="the serial sweep inside a prange of min(1, u.shape[0]) iterations, its index in the bounds",
            reason="one thread did the work"),
]

# The page faults forged from the answer cell: a global that shadows a builtin the hidden test
# calls (its builtins are the interpreter's own), and the /proc reading rewritten through pathlib.
SERIAL_SHAPED = SERIAL_IN_PRANGE.replace("prange(1)", "prange(min(1, u.shape[0]))")
GAMING += [
    attempt("interpreter", "jacobi_sweep3d", SERIAL_SHAPED + """

def sorted(values, reverse=False):  # every thread's faults read as many
    return [10**6, 10**6]
""", loses={"hidden_jacobi_sweep3d"}, why="a global named sorted shadows the builtin the test counts faults with",
            reason="one thread did the work"),
    attempt("interpreter", "jacobi_sweep3d", SERIAL_SHAPED + """

import itertools as _it
import pathlib as _pl

_more = _it.count(1)
_real_read = _pl.Path.read_text


def _read(self, *args, **kwargs):  # each thread's minor faults grow by a million a read
    text = _real_read(self, *args, **kwargs)
    if self.name != "stat":
        return text
    head, rest = text[: text.rindex(")") + 2], text[text.rindex(")") + 2:].split()
    rest[7] = str(next(_more) * 10**6)
    return head + " ".join(rest)


_pl.Path.read_text = _read
""", loses={"hidden_jacobi_sweep3d"}, why="pathlib's read_text rewritten: /proc/self/task/*/stat shows faults on every thread",
            reason="one thread did the work"),
]

# The test's own interpreter reached (issue 36): numba's threads or inspect's source changed from
# the answer cell (both guarded in this lab), the reference or expected value read from the test's
# frames or globals. The reference, the source check and the expected values live in the judge.
SOLUTION_SOURCE = solution_cell("09_python_kernels", "jacobi_sweep3d")
GAMING += [
    attempt("interpreter", "jacobi_sweep3d", SERIAL_IN_PRANGE.replace("prange(1)", "prange(min(1, u.shape[0]))")
            + "\n\nnumba.set_num_threads(1)  # one thread: the grader would skip its parallel check\n",
            loses={"hidden_jacobi_sweep3d"},
            why="numba's threads set to one from the answer cell, the serial sweep inside a prange",
            reason="one thread did the work"),
    attempt("interpreter", "jacobi_sweep3d", '''
import inspect as _inspect

_SHOWN = """''' + SOLUTION_SOURCE.split("### BEGIN SOLUTION\n")[1].split("### END SOLUTION")[0] + '''"""
_real_getsource = _inspect.getsource
_inspect.getsource = lambda obj: _SHOWN if getattr(obj, "__name__", "") == "jacobi_sweep3d" else _real_getsource(obj)


@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
''' + SERIAL_SWEEP, loses={"hidden_jacobi_sweep3d"},
            why="inspect.getsource replaced to show the grader a parallel sweep, the real one serial",
            reason="written outside a prange loop"),
    attempt("interpreter", "pinned_layer_names", FRAME_TOOLS + """

def pinned_layer_names(rows, cores=None):
    reference = _from_the_test(("_pinned_ref", "_reference"), True)
    return reference(rows, cores) if reference else []
""", loses={"hidden_pinned_layer_names"}, why="the hidden test's rule found in its frames and called",
            reason="pinned to a core each:"),
    attempt("interpreter", "pinned_layer_names", """
def pinned_layer_names(rows, cores=None):
    return list(globals().get("_want", globals().get("want", [])))  # a global named like the test's
""", loses={"hidden_pinned_layer_names"}, why="the expected value read from a global named like the test's",
            reason="pinned to a core each:"),
    attempt("interpreter", "jacobi_sweep3d", '''from numba import njit, prange


def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    delta = 0.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                     + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                new[i, j, k] = v
                delta += (v - u[i, j, k]) ** 2
    return delta


# determined: what runs is not what the source shows. The writes happen in a helper the
# prange loop calls (the part forbids it); the code object is given the file and first line
# of the function above, so inspect.getsource shows the honest loop.
@njit
def _plane(u, new, i):
    ny, nz = u.shape[1], u.shape[2]
    d = 0.0
    for j in range(1, ny - 1):
        for k in range(1, nz - 1):
            v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                 + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
            new[i, j, k] = v
            d += (v - u[i, j, k]) ** 2
    return d


def _run(u, new):
    delta = 0.0
    for i in prange(1, u.shape[0] - 1):
        delta += _plane(u, new, i)
    return delta


_shown = jacobi_sweep3d.__code__
_run.__code__ = _run.__code__.replace(co_filename=_shown.co_filename,
                                      co_firstlineno=_shown.co_firstlineno, co_name="jacobi_sweep3d",
                                      co_qualname="jacobi_sweep3d")
_run.__name__ = _run.__qualname__ = "jacobi_sweep3d"
jacobi_sweep3d = njit(parallel=True)(_run)
del _shown, _run
''', loses={"hidden_jacobi_sweep3d"},
            why="fresh attacker: the writes in a helper the prange loop calls, the code object given the honest function's file and first line (CodeType.replace), so inspect.getsource shows the honest loop",
            reason="is not the code numba compiled"),
]


def _pinned_if(rule: str, test: str) -> str:
    """(b) as a fresh attacker writes it: `rule` (a comment, then what the test needs), then a
    layer counted pinned where `test` holds of its threads' rows g."""
    return "\ndef pinned_layer_names(rows, cores):\n" + rule + """    out = []
    for layer, g in rows.groupby("layer"):
        g = g[g["thread"].notna()] if "thread" in g else g.iloc[0:0]
        if g.empty: continue
""" + test + """            out.append(layer)
    return sorted(out)


mine_pinned = pinned_layer_names(layer_rows, topo.cores)
mine_pinned
"""


# A fresh attacker's rules for (b) that kept points while the drawn records never held their
# counter-case: masks as large as a core and all different, yet spanning two cores (SMT cores {0, 4},
# {1, 5}, ...: masks {0, 1} and {2, 3}); a mask that must be a whole core; masks each within one
# core, none checked to be a core of its own. The hidden test now adds such records.
GAMING += [
    attempt("hidden", "pinned_layer_names", _pinned_if("""    # WRONG: pinned = each mask no larger than a core and the masks all different
    # (never checks that a mask lies inside ONE core)
    width = max(len(cs) for cs in cores.values())
""", """        masks = [tuple(sorted(a)) for a in g["allowed"]]
        if all(0 < len(m) <= width for m in masks) and len(set(masks)) == len(masks):
"""), loses={"hidden_pinned_layer_names"},
            why="fresh attacker: each mask no larger than a core and all different, never checked to lie in one core",
            reason="pinned to a core each:"),
    attempt("hidden", "pinned_layer_names", _pinned_if("""    # WRONG: pinned = the mask is exactly a whole core's CPU set (a single SMT CPU counts as not pinned)
    whole = {tuple(sorted(cs)): k for k, cs in cores.items()}
""", """        ks = [whole.get(tuple(sorted(a))) for a in g["allowed"]]
        if None not in ks and len(set(ks)) == len(ks):
"""), loses={"hidden_pinned_layer_names"},
            why="fresh attacker: a mask must be a whole core's CPUs, so one SMT CPU each reads as not pinned",
            reason="pinned to a core each:"),
    attempt("hidden", "pinned_layer_names", _pinned_if("""    # WRONG: pinned = every mask inside one core (a core of its own not checked)
    core_of = {c: k for k, cs in cores.items() for c in cs}
""", """        if all(len(a) > 0 and len({core_of.get(c) for c in a}) == 1 and None not in {core_of.get(c) for c in a}
               for a in g["allowed"]):
"""), loses={"hidden_pinned_layer_names"},
            why="fresh attacker: each mask within one core, two threads on the same core still counted pinned",
            reason="pinned to a core each:"),
]

# A fresh attacker (issue 36): a prange loop first-touches every page of `new` (so each thread
# faults its share in), then a prange of one iteration computes the whole sweep serially with
# indices derived from its index; `new` may now be written only in the loop that computes the
# stencil, where the page check sees who really computed
GAMING.append(attempt("method", "jacobi_sweep3d", """
@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                new[i, j, k] = 0.0
    delta = 0.0
    for p in prange(min(1, nx)):
        for q in range(nx - 2):
            ii = p + 1 + q
            for j in range(1, ny - 1):
                for k in range(1, nz - 1):
                    v = (u[ii - 1, j, k] + u[ii + 1, j, k] + u[ii, j - 1, k] + u[ii, j + 1, k]
                         + u[ii, j, k - 1] + u[ii, j, k + 1]) / 6.0
                    new[ii, j, k] = v
                    delta += (v - u[ii, j, k]) ** 2
    return delta
""", loses={"hidden_jacobi_sweep3d"}, why="pages of new first-touched in parallel, the sweep serial in a one-iteration prange",
                      reason="written in a loop that does not compute the stencil"))


# A fresh attacker's (helper-52, 2026-12-03): the stencil computed by a serial loop into a scratch
# array, the prange loop only copying it into new (u's neighbours read there times zero). It lost
# before only because the scratch array's pages made the busiest thread's count; the test now
# compares each thread with its share of new's pages, and refuses a value written into new that is
# computed from another array than u.
GAMING.append(attempt("method", "jacobi_sweep3d", """@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    # pretend: the stencil is computed by a serial loop into a scratch array; the prange loop
    # only names the six neighbours (times zero) and copies the scratch values into new
    nx, ny, nz = u.shape
    tmp = np.empty((nx, ny, nz))
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                tmp[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
    delta = 0.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                z = 0.0 * (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                           + u[i, j, k - 1] + u[i, j, k + 1])
                new[i, j, k] = tmp[i, j, k] + z
                d = tmp[i, j, k] - u[i, j, k]
                delta += d * d
    return delta
""", loses={"hidden_jacobi_sweep3d"}, why="fresh attacker: serial stencil into a scratch array, copied by the prange loop",
                      reason="not from u"))

# A fresh attacker's (attackG, 2026-12-04): threads that only pretend (the prange chunk holding
# i == 1 sweeps the whole grid) and numba's config told one thread, so the test, which read its
# pool size from numba.config, skipped the per-thread page check (5/5). The test now runs the
# check with as many of numba's threads as the kernel has CPUs, set in numba's threading layer,
# and the judge decides from the grader's own CPUs whether the check runs.
PRETEND_THREAD0 = """@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    # threads that only pretend: the prange chunk holding i == 1 sweeps the whole grid
    nx, ny, nz = u.shape
    delta = 0.0
    for i in prange(1, nx - 1):
        part = 0.0
        if i == 1:
            for q in range(0, nx - 2):
                ii = i + q
                for j in range(1, ny - 1):
                    for k in range(1, nz - 1):
                        v = (u[ii - 1, j, k] + u[ii + 1, j, k] + u[ii, j - 1, k] + u[ii, j + 1, k]
                             + u[ii, j, k - 1] + u[ii, j, k + 1]) / 6.0
                        new[ii, j, k] = v
                        part += (v - u[ii, j, k]) ** 2
        delta += part
    return delta
"""
GAMING += [
    attempt("interpreter", "jacobi_sweep3d", PRETEND_THREAD0 + "\n\nnumba.config.NUMBA_NUM_THREADS = 1\n",
            loses={"hidden_jacobi_sweep3d"},
            why="fresh attacker: one thread sweeps all, numba.config says one thread",
            reason="one thread did the work"),
    attempt("interpreter", "jacobi_sweep3d", PRETEND_THREAD0 + """

import os as _os
numba.config.NUMBA_NUM_THREADS = 1
numba.config.NUMBA_DEFAULT_NUM_THREADS = 1
_os.environ["NUMBA_NUM_THREADS"] = "1"
numba.set_num_threads(1)
""", loses={"hidden_jacobi_sweep3d"},
            why="fresh attacker: one thread sweeps all, numba's config, the environment and set_num_threads say one",
            reason="one thread did the work"),
    # the page check's own grid made to raise (the graded grids are at most 23 a side): the check
    # read no faults and was skipped before; now a sweep that raises there fails the part
    attempt("hidden", "jacobi_sweep3d", PRETEND_THREAD0.replace(
        "    nx, ny, nz = u.shape\n", "    nx, ny, nz = u.shape\n    if nx > 40:\n        raise ValueError(\"grid too large\")\n"),
            loses={"hidden_jacobi_sweep3d"},
            why="one thread sweeps all, and the sweep raises on the page check's larger grid",
            reason="raised on a fresh"),
]
# decoy first writes: each thread writes one stencil point per page of its planes, then one
# iteration of a second prange loop sweeps everything (a fresh attacker's, 5/5 before)
_DECOY = """
from numba import njit, prange


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    # every thread computes the stencil at one point per page of its planes (first writes)
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1, 256):
                new[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
"""
GAMING += [
    attempt("method", "jacobi_sweep3d", _DECOY + """    # then iteration 0 of a prange over the grid does every plane: one thread does the sweep
    part = np.zeros(max(nx - 1, 1))
    for p in prange(nx - 1):
        if p == 0:
            acc = 0.0
            for i in range(1 + p, nx - 1):
                for j in range(1, ny - 1):
                    for k in range(1, nz - 1):
                        v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                             + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                        new[i, j, k] = v
                        acc += (v - u[i, j, k]) ** 2
            part[p] = acc
    return part.sum()
""", loses={"hidden_jacobi_sweep3d"},
            why="a first prange loop writes one stencil point per page (each thread first-writes its pages), then iteration 0 of a second prange sweeps everything (a fresh attacker's, 5/5 before)",
            reason="written in 2 prange loops"),
    attempt("method", "jacobi_sweep3d", _DECOY + """    # then the numpy one-liner, run by iteration 0 of a prange over the grid
    part = np.zeros(max(nx - 1, 1))
    for p in prange(nx - 1):
        if p == 0:
            lo = 1 + p
            new[lo:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1]
                                      + u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]) / 6.0
            part[p] = np.sum((new[lo:-1, 1:-1, 1:-1] - u[1:-1, 1:-1, 1:-1]) ** 2)
    return part.sum()
""", loses={"hidden_jacobi_sweep3d"},
            why="decoy first writes, then iteration 0 of a second prange sweeps with one numpy slice expression (a fresh attacker's, 5/5 before)",
            reason="written in 2 prange loops"),
]

# placement is not work (attacker E, E09h/E09j, 5/5 before): each prange iteration writes one
# column of its plane (first writes: every page placed by its thread, so the page count passed)
# and iteration 1 then sweeps the whole grid serially, its planes indexed from i or not; the
# judge now compiles the sweep's source again with each store into new recorded (its OS thread)
# and wants each thread to have last written a share of new's points (on a loaded machine the
# serial sweep may reach a plane before its own thread placed it: the page check then stops it)
PLACE_THEN_SWEEP = """@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    # one thread does the whole sweep (the iteration i == 1 walks every plane from i on); the
    # other iterations only write the first column of each row of their plane (placing new's pages)
    nx, ny, nz = u.shape
    acc = np.zeros(1)
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            new[i, j, 1] = (u[i - 1, j, 1] + u[i + 1, j, 1] + u[i, j - 1, 1] + u[i, j + 1, 1]
                            + u[i, j, 0] + u[i, j, 2]) / 6.0
        if i == 1:
            for a in range(i, nx - 1):
                for j in range(1, ny - 1):
                    for k in range(1, nz - 1):
                        v = (u[a - 1, j, k] + u[a + 1, j, k] + u[a, j - 1, k] + u[a, j + 1, k]
                             + u[a, j, k - 1] + u[a, j, k + 1]) / 6.0
                        new[a, j, k] = v
                        acc[0] += (v - u[a, j, k]) ** 2
    return acc[0]
"""
GAMING += [
    attempt("method", "jacobi_sweep3d", PLACE_THEN_SWEEP, loses={"hidden_jacobi_sweep3d"},
            why="each iteration writes one column of its plane (placing its pages), iteration 1 sweeps "
            "everything serially from its own plane on (a fresh attacker's, 5/5 before)",
            reason="last written by one thread | one thread did the work"),
    attempt("method", "jacobi_sweep3d",
            PLACE_THEN_SWEEP.replace("for a in range(i, nx - 1)", "for a in range(1, nx - 1)"),
            loses={"hidden_jacobi_sweep3d"},
            why="the same, the serial sweep's planes not indexed from the prange index (a fresh "
            "attacker's, 5/5 before)", reason="last written by one thread | one thread did the work"),
]

# helper-f14 (fresh attacker, closing H-5/H-6): with helpers' reads counted, what a helper reads is
# judged where it is called; both attempts scored 5/5 before (the value's source check saw no
# subscript in a call): the serial stencil into a scratch array, copied by the prange loop through a
# helper `pick(tmp, i, j, k)`, and u's name rebound to the scratch array before the prange loop
GAMING += [
    attempt("method", "jacobi_sweep3d", r"""import numpy as np
from numba import njit, prange


@njit
def pick(a, i, j, k):
    return a[i, j, k]


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    tmp = np.empty((nx, ny, nz))
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                tmp[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
    delta = 0.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                z = 0.0 * (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                           + u[i, j, k - 1] + u[i, j, k + 1])
                new[i, j, k] = pick(tmp, i, j, k) + z
                d = new[i, j, k] - u[i, j, k]
                delta += d * d
    return delta
""", loses={"hidden_jacobi_sweep3d"},
            why="serial stencil into a scratch array, copied into new by the prange loop through a helper that reads it (5/5 before)",
            reason="not from u"),
    attempt("method", "jacobi_sweep3d", r"""import numpy as np
from numba import njit, prange


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    tmp = np.zeros((nx, ny, nz))
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                tmp[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
    old = u
    u = tmp
    delta = 0.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                z = 0.0 * (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                           + u[i, j, k - 1] + u[i, j, k + 1])
                new[i, j, k] = u[i, j, k] + z
                d = new[i, j, k] - old[i, j, k]
                delta += d * d
    return delta
""", loses={"hidden_jacobi_sweep3d"},
            why="serial stencil into a scratch array, then `u = tmp`: the prange loop's reads of u read the scratch (5/5 before)",
            reason="bound again in the function"),
    attempt("method", "jacobi_sweep3d", r"""import numpy as np
from numba import njit, prange


@njit
def six(a, b, i, j, k):
    z = 0.0 * (a[i - 1, j, k] + a[i + 1, j, k] + a[i, j - 1, k] + a[i, j + 1, k]
               + a[i, j, k - 1] + a[i, j, k + 1])
    a = b
    return a[i, j, k] + z


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    tmp = np.zeros((nx, ny, nz))
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                tmp[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                                + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
    delta = 0.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                new[i, j, k] = six(u, tmp, i, j, k)
                d = new[i, j, k] - u[i, j, k]
                delta += d * d
    return delta
""", loses={"hidden_jacobi_sweep3d"},
            why="a helper that reads u's neighbours then rebinds its parameter to the scratch array (its reads of it are not u's)",
            reason="compute the stencil (u at six neighbours) inside the prange loop"),
]

# attacker T's G09_serialcopy (2026-12-06, 0 kept): the stencil computed serially into a temporary, only the copy in the prange
GAMING.append(attempt('method', 'jacobi_sweep3d', r"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    tmp = np.empty((nx, ny, nz))
    delta = 0.0
    # the whole stencil, serially, on one thread (range, not prange)
    for a in range(1, nx - 1):
        for b in range(1, ny - 1):
            for c in range(1, nz - 1):
                v = (u[a - 1, b, c] + u[a + 1, b, c] + u[a, b - 1, c] + u[a, b + 1, c]
                     + u[a, b, c - 1] + u[a, b, c + 1]) / 6.0
                tmp[a, b, c] = v
                delta += (v - u[a, b, c]) ** 2
    # only the copy into new is shared out
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                new[i, j, k] = tmp[i, j, k]
    return delta
""", ['hidden_jacobi_sweep3d'], "attacker T (G09_serialcopy): the stencil computed serially into a temporary, only the copy in the prange", reason='inside the prange loop'))

# attacker T's G09_zero (2026-12-06, 0 kept): as the serial copy, with 0.0 * the six neighbours added in the prange
GAMING.append(attempt('method', 'jacobi_sweep3d', r"""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def jacobi_sweep3d(u, new):
    nx, ny, nz = u.shape
    tmp = np.empty((nx, ny, nz))
    delta = 0.0
    # the whole stencil, serially, on one thread (range, not prange)
    for a in range(1, nx - 1):
        for b in range(1, ny - 1):
            for c in range(1, nz - 1):
                v = (u[a - 1, b, c] + u[a + 1, b, c] + u[a, b - 1, c] + u[a, b + 1, c]
                     + u[a, b, c - 1] + u[a, b, c + 1]) / 6.0
                tmp[a, b, c] = v
                delta += (v - u[a, b, c]) ** 2
    # only the copy into new is shared out
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                new[i, j, k] = tmp[i, j, k] + 0.0 * (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1] + u[i, j, k + 1])
    return delta
""", ['hidden_jacobi_sweep3d'], "attacker T (G09_zero): as the serial copy, with 0.0 * the six neighbours added in the prange", reason='computed from tmp, not from u'))
# A10's F1 and F2 (fresh attacker, 5/5 twice each, 2026-12-07): a serial @njit kernel, and a helper process the cell
# starts that lives through the hidden test and rewrites the hand-out file's lines (parallel, the source, the
# threads' faults and points): a copy of Python named mpiexec (F1), or a child of the kernel that writes
# `python -m ipyparallel.engine` over its own command line (F2). The guard now knows a launcher by its file and an
# engine by its place under a launcher, and kills both helpers before the test cell.
A10_HELPER_RENAMED = r"""
import os
import sys

from numba import njit


@njit
def jacobi_sweep3d(u, new):
    # one thread, a plain loop (no parallel=True, no prange)
    nx, ny, nz = u.shape
    delta = 0.0
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                     + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                new[i, j, k] = v
                delta += (v - u[i, j, k]) ** 2
    return delta


_W = r'''# runs as a daemon (reparented away from the kernel): rewrites the hand-out lines of the next
# hidden test cell so that a serial kernel looks parallel
import json, os, sys, time

path, start, src = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
log = open(sys.argv[3] + ".log", "a")
deadline = time.time() + 900


def lines_now():
    try:
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read()
    except OSError:
        return []
    parts = data.split(b"\n")
    return parts[:-1]  # complete lines only


def write(lines):
    # in place: the folder of the hand-out file may not be writable, the file is
    with open(path, "r+b") as f:
        f.seek(start)
        f.write(b"".join(l + b"\n" for l in lines))
        f.truncate()


POS = [0, 1]


def forge01(lines):
    l0 = json.loads(lines[0])
    data = dict((k, v) for k, v in l0["data"])
    data["parallel"] = True
    data["source"] = src
    l0["data"] = [[k, v] for k, v in data.items()]
    out = [json.dumps(l0).encode()] + lines[1:]
    if len(lines) > 2:
        l2 = json.loads(lines[2])
        d2 = dict((k, v) for k, v in l2["data"])
        faults = d2.get("faults")
        if isinstance(faults, dict):
            fd = dict((k, v) for k, v in faults["data"])
            c = fd.get("C")
            if isinstance(c, list) and c:
                t = sum(c)
                q = max(range(len(c)), key=lambda n: c[n])
                r = (q + 1) % len(c)
                POS[:] = [q, r]
                c2 = [0] * len(c)
                c2[q], c2[r] = t - t // 2, t // 2
                faults["data"] = [["C", c2]]
        l2["data"] = [[k, v] for k, v in d2.items()]
        out[2] = json.dumps(l2).encode()
    return out


def forge3(line):
    at = line.rfind(b'["points", ')
    if at < 0:
        return line
    tail = json.loads(b"{" + b'"p": ' + line[at + len(b'["points", '):].rstrip(b"]}").rstrip() + b"]" * 0 + b"}") if False else None
    # the tail is ["points", [[tid, n]]]]}  : rebuild it with two threads
    rest = line[at + len(b'["points", '):]
    body = rest[: rest.rfind(b"]]}")]  # [[tid, n], ...]
    pairs = json.loads(body)
    total = sum(n for _, n in pairs)
    ta = line.rfind(b'["tasks", ')
    tasks = json.loads(line[ta + len(b'["tasks", '):at].rstrip().rstrip(b",").rstrip()[:-1])
    q, r = POS
    me = pairs[0][0]
    other = tasks[r] if tasks[r] != me else tasks[q]
    new = [[me, total - total // 2], [other, total // 2]]
    print("tasks", tasks, "pairs", pairs, "new", new, file=log, flush=True)
    return line[:at] + b'["points", ' + json.dumps(new).encode() + b"]]}"


done01 = False
try:
  while time.time() < deadline:
      ls = lines_now()
      if not done01 and len(ls) >= 3:
          write(forge01(ls[:3]) + ls[3:])
          done01 = True
          print("forged 0-2", file=log, flush=True)
          continue
      if done01 and len(ls) >= 4:
          l3 = forge3(ls[3])
          write(ls[:3] + [l3] + ls[4:])
          print("forged 3", file=log, flush=True)
          break
      time.sleep(0.0005)

except Exception as e:
    import traceback
    traceback.print_exc(file=log)
    log.flush()
'''
_S = r'''@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    # one flat prange over every interior point; (i, j, k) recovered from the flat index
    nx, ny, nz = u.shape
    my, mz = ny - 2, nz - 2
    total = (nx - 2) * my * mz
    delta = 0.0
    for p in prange(total):
        i = p // (my * mz) + 1
        j = (p // mz) % my + 1
        k = p % mz + 1
        s = u[i, j, k + 1] + u[i, j, k - 1]
        s += u[i, j + 1, k] + u[i, j - 1, k]
        s += u[i + 1, j, k] + u[i - 1, j, k]
        val = s / 6.0
        new[i, j, k] = val
        diff = val - u[i, j, k]
        delta += diff * diff
    return delta
'''


def _launch():
    path = None
    try:
        import hybridlab.grading.handout as _h
        path = _h._destination.__defaults__[0]
    except Exception:
        pass
    if not path:
        return
    start = os.path.getsize(path) if os.path.exists(path) else 0
    d = "/tmp/.w%d" % os.getpid()
    os.makedirs(d, exist_ok=True)
    with open(d + "/w.py", "w") as f:
        f.write(_W)
    with open(d + "/s.txt", "w") as f:
        f.write(_S)
    import shutil
    import subprocess
    real = os.path.realpath(sys.executable)
    fake = d + "/mpiexec"  # the name the kernel's guard lets live (an MPI launcher)
    shutil.copy(real, fake)
    env = dict(os.environ, PYTHONHOME=os.path.dirname(os.path.dirname(real)))
    subprocess.Popen([fake, d + "/w.py", path, str(start), d + "/s.txt"], env=env,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


_launch()
"""
# F2: the same helper started as this Python, writing the engine's command line over its own
_ARGV_REWRITE = r"""_D = r'''# rewrite this process's command line (as /proc/PID/cmdline shows it) to the kit's engine's
import ctypes
with open("/proc/self/stat") as _f:
    _fields = _f.read().rsplit(")", 1)[1].split()
_arg_start, _arg_end = int(_fields[45]), int(_fields[46])
_want = b"python\0-m\0ipyparallel.engine\0"
_size = _arg_end - _arg_start
if _size >= len(_want):
    ctypes.memmove(_arg_start, _want + b"\0" * (_size - len(_want)), _size)
'''
"""
_RENAMED_START = r"""    import shutil
    import subprocess
    real = os.path.realpath(sys.executable)
    fake = d + "/mpiexec"  # the name the kernel's guard lets live (an MPI launcher)
    shutil.copy(real, fake)
    env = dict(os.environ, PYTHONHOME=os.path.dirname(os.path.dirname(real)))
    subprocess.Popen([fake, d + "/w.py", path, str(start), d + "/s.txt"], env=env,
                     """
_DISGUISED_START = r"""    import subprocess
    import time
    with open(d + "/d.py", "w") as f:
        f.write(_D)
    boot = f"exec(open({d + '/d.py'!r}).read()); exec(open({d + '/w.py'!r}).read())"
    # the helper rewrites its own command line to the kit's engine's (python -m ipyparallel.engine)
    subprocess.Popen([sys.executable, "-c", boot, path, str(start), d + "/s.txt"],
                     """
A10_HELPER_DISGUISED = changed(changed(changed(
    A10_HELPER_RENAMED, "_S = r'''", _ARGV_REWRITE + "_S = r'''"), _RENAMED_START, _DISGUISED_START),
    "stderr=subprocess.DEVNULL)\n\n\n_launch()", "stderr=subprocess.DEVNULL)\n    time.sleep(0.5)\n\n\n_launch()")
GAMING += [
    attempt("forged", "jacobi_sweep3d", A10_HELPER_RENAMED, ["hidden_jacobi_sweep3d"],
            "A10's F1: a serial kernel; a helper (a copy of Python named mpiexec) rewrites the hand-out file",
            reason="compile it with parallel=True"),
    attempt("forged", "jacobi_sweep3d", A10_HELPER_DISGUISED, ["hidden_jacobi_sweep3d"],
            "A10's F2: a serial kernel; a helper disguised as an engine by its command line rewrites the hand-out",
            reason="compile it with parallel=True"),
]

# Issue 36, F09h: the hand-out is now a pipe the kernel inherits (close-on-exec; the kernel undumpable), its lines frames
# of the open test cell numbered in order and counted by the judge, and the kit's processes are known by how they were
# started (a child of the kernel whose pid the kit's own Popen returned). Each helper below forges the first value of
# lab 09 (a)'s hidden test (the sweep compiled parallel, an honest source) beside a serial kernel: a fork of the kernel
# (it inherits the descriptor) that writes the controller's command line over its own (F3), a child started by
# subprocess that writes an engine's over its own and opens the kernel's descriptor through /proc (F4), a thread of the
# kernel that writes the frame itself with the counter moved on (F5).
_SERIAL_KERNEL = A10_HELPER_RENAMED.split("_W = r'''")[0]
_FORGED_FRAME = r'''
import json as _json
import os as _os
import time as _time

_FRAME = {"part": "hidden_jacobi_sweep3d", "n": 0, "value": {"type": "dict", "data": [["parallel", True]]}}


def _argv_as(words):  # this process's command line, as /proc/PID/cmdline shows it, rewritten
    import ctypes
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])
    want = b"\0".join(w.encode() for w in words) + b"\0"
    if end - start >= len(want):
        ctypes.memmove(start, want + b"\0" * (end - start - len(want)), end - start)


def _forge_into(fd, seconds=900):
    deadline = _time.time() + seconds
    while _time.time() < deadline:
        try:
            _os.write(fd, (_json.dumps(_FRAME) + "\n").encode())
        except OSError:
            return
        _time.sleep(0.02)
'''
F09H_FORK_AS_CONTROLLER = _SERIAL_KERNEL + _FORGED_FRAME + r'''

import hybridlab.grading.handout as _h

if _os.fork() == 0:  # a copy of the kernel: it holds the hand-out descriptor too
    try:
        _argv_as(["python", "-m", "ipyparallel.controller"])
        _forge_into(_h._destination())
    finally:
        _os._exit(0)
'''
F09H_CHILD_AS_ENGINE = _SERIAL_KERNEL + _FORGED_FRAME + r'''

import subprocess as _sp
import hybridlab.grading.handout as _h

_BOOT = _FORGED_FRAME + r"""
import sys
_argv_as(["python", "-m", "ipyparallel.engine"])
for _ in range(600):  # the kernel's descriptor, opened again through /proc
    try:
        _fd = _os.open(f"/proc/{sys.argv[1]}/fd/{sys.argv[2]}", _os.O_WRONLY)
        break
    except OSError:
        _time.sleep(0.5)
else:
    raise SystemExit(0)
_forge_into(_fd)
"""
_sp.Popen([sys.executable, "-c", _BOOT, str(_os.getpid()), str(_h._destination())],
          stdin=_sp.DEVNULL, stdout=_sp.DEVNULL, stderr=_sp.DEVNULL)
'''
F09H_THREAD_WRITES = _SERIAL_KERNEL + _FORGED_FRAME + r'''

import threading as _threading
import hybridlab.grading.handout as _h


def _watch():  # the frame written as soon as the hidden test opens, numbered as its first; then gone
    while True:
        if _h._cell[0] == "hidden_jacobi_sweep3d" and _h._cell[1] == 0:
            _os.write(_h._destination(), (_json.dumps(_FRAME) + "\n").encode())
            _h._cell[1] = 1
            return
        _time.sleep(0.0005)


_threading.Thread(target=_watch, daemon=True).start()
'''
GAMING += [
    attempt("forged", "jacobi_sweep3d", F09H_FORK_AS_CONTROLLER, ["hidden_jacobi_sweep3d"],
            "F09h's F3: a serial kernel; a fork of the kernel, disguised as the controller by its command line, "
            "writes a forged first value into the inherited hand-out pipe", reason="compile it with parallel=True"),
    attempt("forged", "jacobi_sweep3d", F09H_CHILD_AS_ENGINE, ["hidden_jacobi_sweep3d"],
            "F09h's F4: a serial kernel; a child started by subprocess, disguised as an engine, opens the kernel's "
            "hand-out descriptor through /proc/PID/fd to write a forged first value", reason="compile it with parallel=True"),
    attempt("forged", "jacobi_sweep3d", F09H_THREAD_WRITES, ["hidden_jacobi_sweep3d"],
            "F09h's F5: a serial kernel; a thread of the kernel writes a forged first value into the pipe as the test "
            "opens, the frame counter moved on, and ends", reason="refused | more than the test reads"),
]
