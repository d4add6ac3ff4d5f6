"""Gaming attempts at lab 08 (see __init__.py): the kit's old overlap and halo models reached
by a default argument or another module, the slide's bounds typed in or used where 40 % of the
work cannot overlap, a bound found on a grid, predictions right only for the two runs the
notebook makes or the XT6 setting it shows, and the measurement or the published times handed
back as predictions."""

import numpy as np
import pandas as pd

from gaming import FRAME_TOOLS, Oracle, attempt
from hybridlab.modelling.calibration import Calibration, Quantity

EPS = {"hidden_epsilon"}
PRED = {"hidden_predict_seconds"}
MASTER = {"hidden_predict_master_only"}

RIGHT_EPSILON = """
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))
"""

GAMING = [
    attempt("shortcut", "epsilon", """
import hybridlab.modelling.overlap as _ov


def epsilon(f_comm, n, m=1, f_non=0.0, _kit=getattr(_ov, "epsilon", None)):
    return _kit(f_comm, n, m, f_non)  # the kit's model, captured in a default


def eps_bounds(n, m=1, f_non=0.0, _hi=getattr(_ov, "epsilon_max", None), _lo=getattr(_ov, "epsilon_min", None)):
    return _hi(n, m), _lo(n, m)
""", loses=EPS, why="the kit's overlap.epsilon and bounds captured in default arguments", reason='TypeError'),
    attempt("hidden", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    return 1.0 + m * (1.0 - 1.0 / n), 1.0 - m / n  # the slide's formulas, whatever f_non
""", loses=EPS, why="the slide's bounds: right for f_non = 0 and m >= 1 only", reason="not the model's bounds"),
    attempt("constant", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    return {2: (1.5, 0.5), 4: (1.75, 0.75), 8: (1.875, 0.875)}.get(n, (1.5, 0.5))  # slide 42
""", loses=EPS, why="the slide's printed bounds typed in", reason="not the model's bounds"),
    attempt("method", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    e = epsilon(np.linspace(0.0, 1.0 - f_non, 1001), n, m, f_non)  # a search over a grid
    return float(e.max()), float(e.min())
""", loses=EPS, why="the bounds searched on a grid of f_comm: close, not the closed form", reason='values of f_comm: derive the bounds, not search'),
    attempt("method", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    lo, hi = 0.0, 1.0 - f_non  # a ternary search for the peak, to the last bit
    for _ in range(200):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if epsilon(a, n, m, f_non) < epsilon(b, n, m, f_non):
            lo = a
        else:
            hi = b
    ends = (float(epsilon(0.0, n, m, f_non)), float(epsilon(1.0 - f_non, n, m, f_non)))
    return float(epsilon((lo + hi) / 2, n, m, f_non)), min(ends)
""", loses=EPS, why="the peak found by a fine search of the student's own epsilon, not derived",
            # (a search under the test's line counter: past the cell's limit on a loaded grader)
            reason='values of f_comm: derive the bounds, not search | ran past its time limit'),
    attempt("shortcut", "predict_seconds", """
def predict_seconds(cal, side, dims, threads, iterations):
    from hybridlab.modelling.explorer import breakdown
    ranks = dims[0] * dims[1] * dims[2]
    face = 8 * (side // max(dims)) ** 2
    step = breakdown(cal, ranks, threads, face, cal["bandwidth_Bps"], node_cores=max(threads, 1),
                     points=side ** 3)
    return step["total"] * iterations  # the explorer's model, not halo3d's
""", loses=PRED, why="the explorer's breakdown in place of the halo3d model", reason='predict_seconds(side'),
    attempt("hidden", "predict_seconds", """
def predict_seconds(cal, side, dims, threads, iterations):
    # the two runs of this notebook only: 2 x 1 x 1 with one face, or one rank of 2 threads
    rate = cal["stencil_rate"] * min(1.0, cal["mem_bw_all_Bps"] / cal["mem_bw_1_Bps"] / 2)
    if tuple(dims) == (2, 1, 1):
        face = 8 * side * side
        t = side ** 3 / 2 / rate + cal["latency_large_s"] + face / cal["bandwidth_Bps"] + cal["mpi_barrier_s"]
    else:
        t = side ** 3 / (threads * rate) + cal["omp_barrier_s"]
    return float(t * iterations)
""", loses=PRED, why="right for the notebook's two runs (large faces, 2 CPUs) only", reason='predict_seconds(side'),
    attempt("constant", "predict_seconds", """
def predict_seconds(cal, side, dims, threads, iterations):
    return 0.05 * iterations / 30  # a time read off an earlier run
""", loses=PRED, why="a measured time typed in as the prediction", reason='predict_seconds(side'),
    attempt("shortcut", "predict_master_only", """
def predict_master_only(rows, setup):
    from hybridlab.modelling import predict
    fb = predict.a23_face_bytes  # the kit's face bytes of section 4
    rate = float(rows.set_index("threads").loc[1, "halo_s"]) / fb(1, setup)
    return {int(t): rate * fb(int(t), setup) for t in rows["threads"]}
""", loses=MASTER, why="the kit's a23_face_bytes (gone from the kit)", reason='AttributeError'),
    attempt("hidden", "predict_master_only", """
def predict_master_only(rows, setup):
    xt6 = {"px": 24, "py": 4, "pz": 2, "local": 144}  # the setting section 4 shows, whatever is given

    def face_bytes(t):
        lx, l = xt6["local"] * t, xt6["local"]
        return 8 * sum(2 * a for a, p in zip((l * l, lx * l, lx * l), (xt6["px"] // t, xt6["py"], xt6["pz"])) if p > 1)

    one = float(rows.set_index("threads").loc[1, "halo_s"])
    return {int(t): one / face_bytes(1) * face_bytes(int(t)) for t in rows["threads"]}
""", loses=MASTER, why="the XT6 geometry hard-coded: right for A.23 only", reason="not the model's prediction"),
    attempt("constant", "predict_master_only", """
def predict_master_only(rows, setup):
    return {int(t): float(h) for t, h in zip(rows["threads"], rows["halo_s"])}  # the published times
""", loses=MASTER, why="the published halo times handed back as the prediction", reason="not the model's prediction"),
]


def _eps(f, n, m, f_non):
    return 1.0 / (f_non + np.maximum(np.asarray(f, dtype=float) / m, (1.0 - np.asarray(f, dtype=float) - f_non) * n / (n - m)))


def _close_all(want):
    def judge(got):
        g = np.asarray(got, dtype=float).ravel()
        w = np.asarray(want, dtype=float).ravel()
        return g.shape == w.shape and bool(np.all(np.abs(g - w) <= 1e-9 * np.abs(w)))
    return judge


def _model(c, side, dims, threads, iterations):
    local = [-(-side // p) for p in dims]
    faces = []
    for d, p in enumerate(dims):
        other = [local[e] for e in range(3) if e != d]
        faces += [8 * other[0] * other[1]] * min(2, p - 1)
    ranks = dims[0] * dims[1] * dims[2]
    rate = c["stencil_rate"] * min(1.0, c["mem_bw_all_Bps"] / c["mem_bw_1_Bps"] / min(ranks * threads, c.machine["cpus"]))
    t = local[0] * local[1] * local[2] / (threads * rate)
    for s in faces:
        t += (c["latency_s"] + s / c["bandwidth_small_Bps"] if s < c["switch_bytes"]
              else c["latency_large_s"] + s / c["bandwidth_Bps"])
    t += (c["mpi_barrier_s"] if ranks > 1 else 0.0) + (c["omp_barrier_s"] if threads > 1 else 0.0)
    return t * iterations


def _face_bytes(threads, s):
    px, py, pz = int(s["px"]) // threads, int(s["py"]), int(s["pz"])
    lx, side = int(s["local"]) * threads, int(s["local"])
    areas = (side * side, lx * side, lx * side)
    return 8 * sum(2 * a for a, p in zip(areas, (px, py, pz), strict=True) if p > 1)


def _is_master(rows, setup):
    rate = float(rows["halo_s"].iloc[0]) / _face_bytes(1, setup)
    want = {int(t): rate * _face_bytes(int(t), setup) for t in rows["threads"]}

    def judge(got):
        got = {int(k): float(v) for k, v in dict(got).items()}
        return sorted(got) == sorted(want) and all(abs(got[t] - w) <= 1e-9 * w for t, w in want.items())
    return judge


_F = np.linspace(0.05, 0.55, 8)
_CAL = Calibration({k: Quantity(v, "", "oracle") for k, v in {
    "latency_s": 3e-6, "bandwidth_Bps": 7e9, "bandwidth_small_Bps": 1.5e9, "latency_large_s": 9e-6,
    "switch_bytes": 16384.0, "mem_bw_1_Bps": 1.2e10, "mem_bw_all_Bps": 5e10, "stencil_rate": 3e8,
    "omp_barrier_s": 2e-6, "mpi_barrier_s": 7e-6}.items()}, {"cpus": 12})
_ROWS = pd.DataFrame({"threads": [1, 2, 3, 6], "halo_s": [0.3, 0.5, 0.8, 1.7]})
_SETUP = pd.Series({"px": 12, "py": 3, "pz": 1, "local": 50})

ORACLES = [
    Oracle("epsilon", (_F, 6.5, 0.5, 0.35), _close_all(_eps(_F, 6.5, 0.5, 0.35))),
    Oracle("epsilon", (6.5, 0.5, 0.35), _close_all([_eps(0.35 * 0 + (0.65 * 0.5 * 6.5) / (6.0 + 3.25), 6.5, 0.5, 0.35),
                                                   min(_eps(0.0, 6.5, 0.5, 0.35), _eps(0.65, 6.5, 0.5, 0.35))])),
    Oracle("predict_seconds", (_CAL, 97, (5, 3, 2), 3, 11), lambda got: abs(float(got) - _model(_CAL, 97, (5, 3, 2), 3, 11)) <= 1e-9 * _model(_CAL, 97, (5, 3, 2), 3, 11)),
    Oracle("predict_master_only", (_ROWS, _SETUP), _is_master(_ROWS, _SETUP)),
]

# issue 36's hurried holes: the call-count guard passed with one vectorised call (and a second
# to refine) over two million shares; the first row taken as the one-thread row
GAMING += [
    attempt("method", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    f = np.linspace(0.0, 1.0 - f_non, 2_000_001)  # one call, two million shares
    e = epsilon(f, n, m, f_non)
    i = int(np.argmax(e))
    finer = np.linspace(f[max(i - 1, 0)], f[min(i + 1, f.size - 1)], 2_000_001)  # and one more
    return float(epsilon(finer, n, m, f_non).max()), float(e.min())
""", loses=EPS, why="a search in two vectorised calls over two million shares each",
            reason="values of f_comm: derive the bounds, not search"),
    attempt("method", "predict_master_only", """
def predict_master_only(rows, setup):
    def face_bytes(threads):
        px, py, pz = int(setup["px"]) // threads, int(setup["py"]), int(setup["pz"])
        l, lx = int(setup["local"]), int(setup["local"]) * threads
        return 8 * sum(2 * a for a, p in zip((l * l, lx * l, lx * l), (px, py, pz)) if p > 1)

    rate = float(rows["halo_s"].iloc[0]) / face_bytes(1)  # the first row taken as one thread
    return {int(t): rate * face_bytes(int(t)) for t in rows["threads"]}
""", loses=MASTER, why="the first row taken as the one-thread row", reason="not the model's prediction"),
]

# The test's own interpreter reached (issue 36): its reference called or its expected value
# read from its frames or globals, numpy replaced from the answer cell. The references and the
# expected values live in the grader's judge, never in the kernel.
GAMING += [
    attempt("interpreter", "epsilon", RIGHT_EPSILON + """

_real_size = np.size
np.size = lambda a, axis=None: 1  # the hidden test counts f_comm values with np.size


def eps_bounds(n, m=1, f_non=0.0):
    fs = np.linspace(0.0, 1.0 - f_non, 2_000_001)
    eps = epsilon(fs, n, m, f_non)
    return float(eps.max()), float(min(eps[0], eps[-1]))
""", EPS, why="a search over two million shares, np.size replaced so the call count reads one",
            reason="derive the bounds, not search"),
    attempt("interpreter", "epsilon", FRAME_TOOLS + RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    reference = _from_the_test(("_bounds_ref", "_reference"), True)
    return reference(n, m, f_non) if reference else (1.0, 1.0)
""", EPS, why="the hidden test's reference bounds found in its frames and called",
            reason="not the model's bounds | called _getframe"),
    attempt("interpreter", "predict_seconds", FRAME_TOOLS + """

def predict_seconds(cal, side, dims, threads, iterations):
    model = _from_the_test(("_model", "_reference"), True)
    return model(cal, side, dims, threads, iterations) if model else 1.0
""", PRED, why="the hidden test's model found in its frames and called", reason="not the model's"),
    attempt("interpreter", "predict_master_only", FRAME_TOOLS + """

def predict_master_only(rows, setup):
    reference = _from_the_test(("_predicted", "_reference"), True)
    found = reference(rows, setup) if reference else _from_the_test(("_want", "want"), False)
    return found or {int(t): float(h) for t, h in zip(rows["threads"], rows["halo_s"])}
""", MASTER, why="the hidden test's reference or expected value found in its frames",
            reason="not the model's prediction"),
]

# A fresh attacker's (2026-12-03) that kept 3/3: a ternary search on a private copy of the formula,
# epsilon never called (the call count saw nothing). The test now also counts the lines and calls
# of the student's own Python that eps_bounds runs, and refuses a look at the tracing or frames.
GAMING += [
    attempt("method", "epsilon", """def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))


def _eps_private(f, n, m, f_non):
    return 1.0 / (f_non + max(f / m, (1.0 - f - f_non) * n / (n - m)))


def eps_bounds(n, m=1, f_non=0.0):
    # no closed form: a ternary search on a private copy (epsilon itself is never called)
    lo, hi = 0.0, 1.0 - f_non
    for _ in range(300):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if _eps_private(a, n, m, f_non) < _eps_private(b, n, m, f_non):
            lo = a
        else:
            hi = b
    top = _eps_private((lo + hi) / 2, n, m, f_non)
    bottom = min(_eps_private(0.0, n, m, f_non), _eps_private(1.0 - f_non, n, m, f_non))
    return top, bottom
""", EPS, why="fresh attacker: a ternary search of 300 steps on a private copy of the formula",
            reason="lines and"),
]


# A fresh attacker's (helper-51, 2026-12-03) that kept 3/3: the same search run on another thread
# (a threading.Thread, a ThreadPoolExecutor), whose lines the calling thread's trace never sees.
# The test now refuses a thread started, waited for or handed work while eps_bounds runs.
GAMING += [
    attempt("method", "epsilon", """import numpy as np
import threading


def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))


def _search(n, m, f_non, out):
    # a ternary search on a private copy of the model: no closed form
    def r(f):
        return f_non + max(f / m, (1.0 - f - f_non) * n / (n - m))
    lo, hi = 0.0, 1.0 - f_non
    for _ in range(400):
        a = lo + (hi - lo) / 3
        b = hi - (hi - lo) / 3
        if r(a) < r(b):
            hi = b
        else:
            lo = a
    best = 1.0 / r((lo + hi) / 2)
    worst = 1.0 / max(r(0.0), r(1.0 - f_non))
    out.append((best, worst))


def eps_bounds(n, m=1, f_non=0.0):
    out = []
    t = threading.Thread(target=_search, args=(n, m, f_non, out))
    t.start()
    t.join()
    return out[0]
""", EPS, why="fresh attacker: a ternary search on a private copy, run in a threading.Thread",
            reason="another thread's work"),
    attempt("method", "epsilon", """import numpy as np
from concurrent.futures import ThreadPoolExecutor


def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))


def _golden(n, m, f_non):
    # a golden-section search of 300 steps on a private copy of the model
    def ratio(f):
        return f_non + max(f / m, (1.0 - f - f_non) * n / (n - m))
    g = (5 ** 0.5 - 1) / 2
    lo, hi = 0.0, 1.0 - f_non
    for _ in range(300):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if ratio(a) < ratio(b):
            hi = b
        else:
            lo = a
    return 1.0 / ratio((lo + hi) / 2), 1.0 / max(ratio(0.0), ratio(1.0 - f_non))


def eps_bounds(n, m=1, f_non=0.0):
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_golden, n, m, f_non).result()
""", EPS, why="fresh attacker: a golden-section search on a private copy, run in a ThreadPoolExecutor",
            reason="another thread's work"),
]

# A fresh attacker's (attackF, 2026-12-04), 3/3 before: the counter counted calls through the
# global name `epsilon` only, and the line counter took code compiled under a library's file
# name for the library's. Calls of epsilon's code object are now counted however it is reached,
# and code is the library's only when its file's own text compiles to it.
_ZOOM = RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0, _e=epsilon):
    # a zooming grid search on my own epsilon, reached through a reference captured at definition
    top = 1.0 - f_non
    g = np.linspace(0.0, top, 200001)
    v = _e(g, n, m, f_non)
    i = int(np.argmax(v)); w = top / 200000
    g = np.linspace(max(0.0, g[i] - w), min(top, g[i] + w), 200001)
    v2 = _e(g, n, m, f_non)
    i = int(np.argmax(v2)); w = 2 * w / 200000
    g = np.linspace(max(0.0, g[i] - w), min(top, g[i] + w), 200001)
    v3 = _e(g, n, m, f_non)
    return float(v3.max()), float(v.min())
"""
_FAKEFILE = RIGHT_EPSILON + '''
import os as _os
_SRC = """
def eps_bounds(n, m=1, f_non=0.0):
    def e(f):
        return 1.0 / (f_non + max(f / m, (1 - f_non - f) * n / (n - m)))
    lo, hi = 0.0, 1.0 - f_non
    a, b = lo, hi
    for _ in range(400):          # ternary search for the largest epsilon
        x1 = a + (b - a) / 3
        x2 = b - (b - a) / 3
        if e(x1) < e(x2):
            a = x1
        else:
            b = x2
    return e((a + b) / 2), min(e(lo), e(hi))
"""
_ns = {}
exec(compile(_SRC, _os.path.join(_os.path.dirname(np.__file__), "_core", "FILE"), "exec"), _ns)
eps_bounds = _ns["eps_bounds"]
'''
GAMING += [
    attempt("method", "epsilon", _ZOOM, EPS,
            why="fresh attacker: zooming numpy grids on the student's epsilon through a default argument",
            reason="values of f_comm: derive the bounds, not search"),
    attempt("method", "epsilon", _FAKEFILE.replace("FILE", "_hl_search.py"), EPS,
            why="fresh attacker: a ternary search compiled under a file name in numpy's folder",
            reason="lines and"),
    attempt("method", "epsilon", _FAKEFILE.replace("FILE", "numeric.py"), EPS,
            why="a ternary search compiled under the name of a real numpy file",
            reason="lines and"),
]

# A fresh attacker's (O08f, 2026-12-05), 3/3 before: a zooming grid of 100,001 points written
# inline in numpy (never calling epsilon, a handful of lines: numpy's loops run in C). The test now
# counts the bytes the student's own code holds at once, event by event (tracemalloc: numpy's arrays
# are traced): a closed form holds a few kilobytes, one grid of that size 800 KB.
GAMING.append(attempt("method", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    top, k = 1.0 - f_non, n / (n - m)
    g = np.linspace(0.0, top, 100001); r = f_non + np.maximum(g / m, (top - g) * k); i = int(np.argmin(r)); worst = float(r.max())
    g = np.linspace(g[max(i - 1, 0)], g[min(i + 1, 100000)], 100001); r = f_non + np.maximum(g / m, (top - g) * k); i = int(np.argmin(r))
    g = np.linspace(g[max(i - 1, 0)], g[min(i + 1, 100000)], 100001); r = f_non + np.maximum(g / m, (top - g) * k)
    return 1.0 / float(r.min()), 1.0 / worst
""", EPS, why="fresh attacker: an inline numpy grid of 100,001 points zoomed twice", reason="bytes, line by line"))

# A fresh attacker's (S, 2026-12-05), 3/3 before: grids made before eps_bounds runs and written in
# place (out=), in an anonymous mmap or in numpy arrays kept on an object of a cell: no bytes were
# allocated while eps_bounds ran, so the byte count saw none. The test now also sums the buffers
# the student's frames reach (their locals, the globals their code names, closures, defaults,
# containers and objects of a cell), each buffer once.
GAMING += [
    attempt("method", "epsilon", r'''
import mmap as _mmap

import numpy as _np


def epsilon(f_comm, n, m=1, f_non=0.0):
    # T_masteronly / T_reserved for communication share f_comm (number or numpy array)
    f = _np.asarray(f_comm, dtype=float)
    out = 1.0 / (f_non + _np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))
    return out if out.ndim else float(out)


_N = 200001
_BUF = _mmap.mmap(-1, 3 * 8 * _N)  # the grid's memory, outside Python's allocators
_G = _np.frombuffer(_BUF, dtype=float, count=_N, offset=0)
_E = _np.frombuffer(_BUF, dtype=float, count=_N, offset=8 * _N)
_T = _np.frombuffer(_BUF, dtype=float, count=_N, offset=16 * _N)


def eps_bounds(n, m=1, f_non=0.0):
    # no derivation: a 200001-point grid of f_comm, zoomed twice, every array in place
    top = 1.0 - f_non; k = n / (n - m); lo, hi = 0.0, top; worst = 0.0
    for _ in range(3):
        _G.fill((hi - lo) / (_N - 1)); _G[0] = lo; _np.cumsum(_G, out=_G); _G[-1] = hi; _np.divide(_G, m, out=_E); _np.subtract(top, _G, out=_T); _np.multiply(_T, k, out=_T); _np.maximum(_E, _T, out=_E); b = int(_E.argmin()); worst = max(worst, f_non + float(_E[0]), f_non + float(_E[-1])); best = f_non + float(_E[b]); w = (hi - lo) / (_N - 1); lo, hi = max(0.0, float(_G[b]) - w), min(top, float(_G[b]) + w)
    return 1.0 / best, 1.0 / worst
''', EPS,
            why="fresh attacker: a 200,001-point grid in an anonymous mmap, zoomed in place",
            reason="bytes, line by line"),
    attempt("method", "epsilon", r'''
import numpy as _np


def epsilon(f_comm, n, m=1, f_non=0.0):
    f = _np.asarray(f_comm, dtype=float)
    out = 1.0 / (f_non + _np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))
    return out if out.ndim else float(out)


class _Work:
    pass


_W = _Work()
_W.bufs = [_np.empty(200001) for _ in range(3)]


def eps_bounds(n, m=1, f_non=0.0):
    G, E, T = _W.bufs
    N = G.size
    top = 1.0 - f_non; k = n / (n - m); lo, hi = 0.0, top; worst = 0.0
    for _ in range(3):
        G.fill((hi - lo) / (N - 1)); G[0] = lo; _np.cumsum(G, out=G); G[-1] = hi; _np.divide(G, m, out=E); _np.subtract(top, G, out=T); _np.multiply(T, k, out=T); _np.maximum(E, T, out=E); b = int(E.argmin()); worst = max(worst, f_non + float(E[0]), f_non + float(E[-1])); best = f_non + float(E[b]); w = (hi - lo) / (N - 1); lo, hi = max(0.0, float(G[b]) - w), min(top, float(G[b]) + w)
    return 1.0 / best, 1.0 / worst
''', EPS,
            why="a grid made at the cell's run on an object's attribute, zoomed in place",
            reason="bytes, line by line"),
    # fresh attacker U (2026-12-05, 3/3 twice each): the search in C compiled in the answer cell
    # and called by ctypes (no Python line runs); the test's line counter switched off through
    # ctypes.pythonapi.PyEval_SetTrace/SetProfile (no sys call), then a search in Python
    attempt("method", "epsilon", r"""
# gaming: the search is C: a ternary search for the maximum and a scan for the minimum, compiled
# here with cc and called through ctypes: no Python line runs, no value is handed to epsilon,
# no byte numpy or Python allocates
import ctypes as _ct, os as _os, subprocess as _sp, tempfile as _tf

def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    t = f_non + np.maximum(f / m, (1.0 - f_non - f) * n / (n - m))
    out = 1.0 / t
    return float(out) if out.ndim == 0 else out


_SRC = r'''
static double g(double f, double n, double m, double fn) {
    double a = f / m, b = (1.0 - fn - f) * n / (n - m);
    return 1.0 / (fn + (a > b ? a : b));
}
void bounds(double n, double m, double fn, double *out) {
    double lo = 0.0, hi = 1.0 - fn, mn = 1e300;
    for (int i = 0; i < 2000; i++) {
        double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
        if (g(a, n, m, fn) < g(b, n, m, fn)) lo = a; else hi = b;
    }
    for (long k = 0; k <= 1000000; k++) { double v = g((1.0 - fn) * k / 1e6, n, m, fn); if (v < mn) mn = v; }
    out[0] = g((lo + hi) / 2, n, m, fn); out[1] = mn;
}
'''
_dir = _tf.mkdtemp()
with open(_os.path.join(_dir, "b.c"), "w") as _f:
    _f.write(_SRC)
_sp.run(["cc", "-O2", "-shared", "-fPIC", "-o", _os.path.join(_dir, "b.so"), _os.path.join(_dir, "b.c")], check=True)
_LIB = _ct.CDLL(_os.path.join(_dir, "b.so"))
_OUT = (_ct.c_double * 2)()


def eps_bounds(n, m=1, f_non=0.0):
    _LIB.bounds(_ct.c_double(n), _ct.c_double(m), _ct.c_double(f_non), _OUT)
    return _OUT[0], _OUT[1]
""", EPS, why="fresh attacker (u08_ctypes): a ternary search and a scan in C, built in the cell, "
                "called through ctypes", reason="compiled code of its own through ctypes"),
    attempt("method", "epsilon", r'''
# gaming (v3): eps_bounds switches the grader's line tracer and profiler off from C (CPython's own
# PyEval_SetTrace / PyEval_SetProfile through ctypes.pythonapi: no sys function called, nothing read
# back), then runs a ternary search in a Python loop and runs a ternary search in a Python loop: a search, not a closed form
import ctypes as _ct
_SETT = _ct.pythonapi.PyEval_SetTrace
_SETP = _ct.pythonapi.PyEval_SetProfile
_SETT.argtypes = _SETP.argtypes = [_ct.c_void_p, _ct.c_void_p]
_SETT.restype = _SETP.restype = None

def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    t = f_non + np.maximum(f / m, (1.0 - f_non - f) * n / (n - m))
    out = 1.0 / t
    return float(out) if out.ndim == 0 else out


def _search(n, m, f_non):
    lo, hi = 0.0, 1.0 - f_non
    g = lambda f: 1.0 / (f_non + max(f / m, (1.0 - f_non - f) * n / (n - m)))
    for _ in range(120):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if g(a) < g(b):
            lo = a
        else:
            hi = b
    top = g((lo + hi) / 2)
    low = g(0.0)
    for k in range(1, 201):  # a scan of 201 points for the smallest, no list kept
        val = g((1.0 - f_non) * k / 200)
        if val < low:
            low = val
    return top, low


def eps_bounds(n, m=1, f_non=0.0):
    _SETT(None, None)
    _SETP(None, None)
    return _search(n, m, f_non)
''', EPS | PRED | MASTER, why="fresh attacker (u08_untrace3): the test's tracing switched off "
                "through the interpreter's C API, then a search in Python (every later test is "
                "refused once the interpreter's tracing was reached)",
            reason="test tool changed | switched off the test's line counter"),
]

# A fresh attacker W (issue 36, 2026-12-06): short searches under the line and byte budgets kept
# 3/3 twice: 9 zooming rounds of 201 points (41 lines), 16 rounds of 17 (62 lines), one 64-point
# grid and a secant between the points that bracket the crossing (15 lines, exact). A line of the
# student's run more than 6 times (a loop) or more than 8 values in one array or list of theirs (a
# grid) now fails the part, and the budgets are 60 lines and 32 KiB
GAMING += [
    attempt("method", "epsilon", r'''
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    t = f_non + np.maximum(f / m, (1.0 - f_non - f) * n / (n - m))
    out = 1.0 / t
    return out if out.ndim else float(out)


def eps_bounds(n, m=1, f_non=0.0):
    # ATTACK e_zoom201: a zooming grid search (9 rounds of 201 points, a few lines each, small arrays),
    # the formula inline, never a closed form; epsilon handed only the 3 points at the end
    F = 1.0 - f_non; lo, hi = 0.0, F
    for _ in range(9):
        g = np.linspace(lo, hi, 201); i = int(np.argmin(np.maximum(g / m, (F - g) * n / (n - m))))
        lo, hi = g[max(i - 1, 0)], g[min(i + 1, 201 - 1)]
    e = epsilon(np.array([0.0, (lo + hi) / 2, F]), n, m, f_non)
    return float(e.max()), float(e.min())
''', EPS, why="fresh attacker W (08a_zoom201): 9 zooming rounds of 201-point numpy grids", reason="times and held"),
    attempt("method", "epsilon", r'''
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    t = f_non + np.maximum(f / m, (1.0 - f_non - f) * n / (n - m))
    out = 1.0 / t
    return out if out.ndim else float(out)


def eps_bounds(n, m=1, f_non=0.0):
    # ATTACK e_zoom17: a zooming grid search (16 rounds of 17 points, a few lines each, small arrays),
    # the formula inline, never a closed form; epsilon handed only the 3 points at the end
    F = 1.0 - f_non; lo, hi = 0.0, F
    for _ in range(16):
        g = np.linspace(lo, hi, 17); i = int(np.argmin(np.maximum(g / m, (F - g) * n / (n - m))))
        lo, hi = g[max(i - 1, 0)], g[min(i + 1, 17 - 1)]
    e = epsilon(np.array([0.0, (lo + hi) / 2, F]), n, m, f_non)
    return float(e.max()), float(e.min())
''', EPS, why="fresh attacker W (08a_zoom17): 16 zooming rounds of 17 points",
            reason="lines and | times and held"),
    attempt("method", "epsilon", r'''
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    t = f_non + np.maximum(f / m, (1.0 - f_non - f) * n / (n - m))
    out = 1.0 / t
    return out if out.ndim else float(out)


def eps_bounds(n, m=1, f_non=0.0):
    # ATTACK e_grid64: a 64-point grid of f_comm, the best point and its neighbours found by argmin,
    # the crossing then located by one secant between the neighbours (no derivation at all)
    F = 1.0 - f_non; g = np.linspace(0.0, F, 64); d = g / m - (F - g) * n / (n - m)
    i = int(np.argmax(d >= 0)); a, b = g[i - 1], g[i]
    k = a - d[i - 1] * (b - a) / (d[i] - d[i - 1])
    e = epsilon(np.array([0.0, k, F]), n, m, f_non)
    return float(e.max()), float(e.min())
''', EPS, why="fresh attacker W (08a_grid64_secant): a 64-point grid, then a secant across the bracket",
            reason="times and held"),
]


# A fresh attacker's (Z, z08_mapgrid2, 2026-12-06), 3/3 twice: a grid of 5001 shares refined in four
# stages, each stage ONE line of map/zip/max chains over operator functions and itertools.repeat,
# the model inlined (epsilon never called): no Python line runs per point and no array is held, so
# the lines, calls and bytes looked like a closed form's. The test now also times the CPU time of
# the student's thread inside eps_bounds (the test's own hooks left out), against this machine's
# pace (the test's own 4,000 divisions in map): past 25 paces in the faster of the case and the case
# with n moved by an unknown amount, the part fails. A closed form takes under 5 paces (Fraction
# the slowest), these searches 45 to 160.
GAMING += [
    attempt("method", "epsilon", r'''
import numpy as np
from itertools import repeat as R
from operator import add as A, mul as M, sub as S, truediv as D


def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    d = f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m))
    out = 1.0 / d
    return float(out) if out.ndim == 0 else out


def eps_bounds(n, m=1, f_non=0.0):
    # a grid search refined three times, every point evaluated by C iterators (one line a stage)
    F, c, N = 1.0 - f_non, n / (n - m), 5000
    e, f, lo, h = *max(zip(map(D, R(1.0), map(A, R(f_non), map(max, map(D, map(M, range(N + 1), R(F / N)), R(m)), map(M, map(S, R(F), map(M, range(N + 1), R(F / N))), R(c))))), map(M, range(N + 1), R(F / N)))), max(0.0, 0.0), F / N
    e, f, lo, h = *max(zip(map(D, R(1.0), map(A, R(f_non), map(max, map(D, map(A, R(max(0.0, f - h)), map(M, range(N + 1), R(2 * h / N))), R(m)), map(M, map(S, R(F), map(A, R(max(0.0, f - h)), map(M, range(N + 1), R(2 * h / N)))), R(c))))), map(A, R(max(0.0, f - h)), map(M, range(N + 1), R(2 * h / N))))), 0.0, 2 * h / N
    e, f, lo, h = *max(zip(map(D, R(1.0), map(A, R(f_non), map(max, map(D, map(A, R(max(0.0, f - h)), map(M, range(N + 1), R(2 * h / N))), R(m)), map(M, map(S, R(F), map(A, R(max(0.0, f - h)), map(M, range(N + 1), R(2 * h / N)))), R(c))))), map(A, R(max(0.0, f - h)), map(M, range(N + 1), R(2 * h / N))))), 0.0, 2 * h / N
    e, f, lo, h = *max(zip(map(D, R(1.0), map(A, R(f_non), map(max, map(D, map(A, R(max(0.0, f - h)), map(M, range(N + 1), R(2 * h / N))), R(m)), map(M, map(S, R(F), map(A, R(max(0.0, f - h)), map(M, range(N + 1), R(2 * h / N)))), R(c))))), map(A, R(max(0.0, f - h)), map(M, range(N + 1), R(2 * h / N))))), 0.0, 2 * h / N
    return e, min(map(D, R(1.0), map(A, R(f_non), map(max, map(D, map(M, range(N + 1), R(F / N)), R(m)), map(M, map(S, R(F), map(M, range(N + 1), R(F / N))), R(c))))))
''', EPS, why="fresh attacker Z (z08_mapgrid2): a 4-stage grid of 5001 points, each stage one "
                "line of map/zip/max over operator functions, the model inlined", reason="CPU time"),
    attempt("method", "epsilon", r'''
import numpy as np
from itertools import repeat, tee
from operator import add, mul, sub, truediv


def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))


def eps_bounds(n, m=1, f_non=0.0):
    # a grid of 4001 shares zoomed in three rounds (a loop): tee hands the shares out three times,
    # C works out every point (map over operator functions), min picks the (T, f) pair
    F, c, lo, w = 1.0 - f_non, n / (n - m), 0.0, (1.0 - f_non) / 4000
    for _ in range(3):
        a, b, g = tee(map(add, repeat(lo), map(mul, range(4001), repeat(w))), 3)
        t, f = min(zip(map(max, map(truediv, a, repeat(m)), map(mul, map(sub, repeat(F), b), repeat(c))), g))
        lo, w = max(0.0, f - w), 2 * w / 4000
    return 1.0 / (f_non + t), 1.0 / (f_non + max(F * c, F / m))
''', EPS, why="a smaller C-iterator search: 3 zooming rounds (a loop) of 4001 shares, tee and "
                "min(zip(...)) over operator functions", reason="CPU time"),
]


# f41 (2026-12-06): the test's own hooks read the student's locals (a list's length, an array's size,
# an object's attributes) and so could run the student's code, untraced and, with the time now
# judged, untimed: a list subclass whose __len__ ran a ternary search kept 3/3. The hooks now read
# values through their base types (list.__len__, np.ndarray.size, dict.values, gc.get_referents), so
# no code of the student's runs inside them.
GAMING += [
    attempt("interpreter", "epsilon", r'''
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))


class _Box(list):
    # a list whose length, asked for by anyone, runs a ternary search first
    def __len__(self):
        if hasattr(self, "args") and not hasattr(self, "out"):
            n, m, f_non = self.args
            r = lambda f: f_non + max(f / m, (1.0 - f - f_non) * n / (n - m))
            lo, hi = 0.0, 1.0 - f_non
            for _ in range(200):
                a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
                lo, hi = (a, hi) if r(a) > r(b) else (lo, b)
            self.out = (1.0 / r((lo + hi) / 2), 1.0 / max(r(0.0), r(1.0 - f_non)))
        return 0


def eps_bounds(n, m=1, f_non=0.0):
    box = _Box()
    box.args = (n, m, f_non)
    return box.out
''', EPS, why="a ternary search run by a list subclass's __len__, which the test's hooks called",
            reason="no attribute 'out'"),
]

# A fresh attacker S (2026-12-06, 3/3 twice each): the search in machine code compiled by numba when
# the answer cell runs (njit with a signature, so compiled eagerly): eps_bounds only calls it, so the
# hooks saw a closed form (4 lines, no value held, epsilon never called, the CPU time of 2,600 or
# even 260,000 points of compiled code under the pace bound). The ctypes route was refused already.
# Now compiled code of the notebook's own that eps_bounds calls, reaches or runs fails the part: a
# call of its Python the interpreter did not run (numba's dispatcher shows the profiler a frame whose
# lines never run), a numba dispatcher among what its frames reach, a built-in, ctypes or cffi
# function whose machine code lies in no library file (a JIT's memory, a library of the student's
# own), and any page of such machine code the processor ran while eps_bounds ran (Linux's referenced
# bits, cleared before the call: a compiled entry called from C, a numba-built ufunc)
GAMING += [
    attempt("method", "epsilon", r'''
import numpy as np
import numba as _nb


def epsilon(f_comm, n, m=1, f_non=0.0):
    # T_masteronly / T_reserved for communication share f_comm (number or numpy array)
    f = np.asarray(f_comm, dtype=float)
    e = 1.0 / (f_non + np.maximum(f / m, (1.0 - f_non - f) * (n / (n - m))))
    return e if e.ndim else float(e)


@_nb.njit("UniTuple(float64, 2)(float64, float64, float64)", cache=False)
def _search(n, m, f_non):
    # no derivation: golden-section search of the model, in machine code
    top = 1.0 - f_non
    k = n / (n - m)
    lo = 0.0
    hi = top
    r = 0.6180339887498949
    for _ in range(300):
        a = hi - r * (hi - lo)
        b = lo + r * (hi - lo)
        ea = 1.0 / (f_non + max(a / m, (top - a) * k))
        eb = 1.0 / (f_non + max(b / m, (top - b) * k))
        if ea < eb:
            lo = a
        else:
            hi = b
    best = 0.0
    worst = 1e300
    for i in range(2001):
        x = lo + (hi - lo) * i / 2000.0
        e = 1.0 / (f_non + max(x / m, (top - x) * k))
        if e > best:
            best = e
    for x in (0.0, top):
        e = 1.0 / (f_non + max(x / m, (top - x) * k))
        if e < worst:
            worst = e
    return best, worst


_search(2.0, 1.0, 0.0)


def eps_bounds(n, m=1, f_non=0.0):
    return _search(float(n), float(m), float(f_non))
''', EPS, why="fresh attacker S (A08_numba_golden): a golden-section search and a 2001-point scan "
                "in a numba.njit function compiled when the cell runs", reason="may not call compiled code"),
    attempt("method", "epsilon", r'''
import numpy as np
import numba as _nb


def epsilon(f_comm, n, m=1, f_non=0.0):
    # T_masteronly / T_reserved for communication share f_comm (number or numpy array)
    f = np.asarray(f_comm, dtype=float)
    e = 1.0 / (f_non + np.maximum(f / m, (1.0 - f_non - f) * (n / (n - m))))
    return e if e.ndim else float(e)


@_nb.njit("UniTuple(float64, 2)(float64, float64, float64)", cache=False)
def _search(n, m, f_non):
    # no derivation at all: a brute-force scan of 200001 points, then zoom three times around the best
    top = 1.0 - f_non
    k = n / (n - m)
    best, at = 0.0, 0.0
    for i in range(200001):
        x = top * i / 200000.0
        e = 1.0 / (f_non + max(x / m, (top - x) * k))
        if e > best:
            best, at = e, x
    lo, hi = max(0.0, at - top / 200000.0), min(top, at + top / 200000.0)
    for _ in range(3):
        for i in range(20001):
            x = lo + (hi - lo) * i / 20000.0
            e = 1.0 / (f_non + max(x / m, (top - x) * k))
            if e >= best:
                best, at = e, x
        w = (hi - lo) / 20000.0
        lo, hi = max(0.0, at - w), min(top, at + w)
    worst = 1e300
    for x in (0.0, top):
        e = 1.0 / (f_non + max(x / m, (top - x) * k))
        if e < worst:
            worst = e
    return best, worst


_search(2.0, 1.0, 0.0)


def eps_bounds(n, m=1, f_non=0.0):
    return _search(float(n), float(m), float(f_non))
''', EPS, why="fresh attacker S (A08_numba_bigscan): a 200,001-point scan zoomed three times in "
                "an eagerly compiled numba.njit function", reason="may not call compiled code"),
    attempt("method", "epsilon", r'''
# gaming: the same golden-section search, compiled by numba.cfunc and called through its ctypes
# function pointer (no new library is loaded: the machine code lies in numba's JIT memory)
import numpy as np
import numba as _nb


def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    e = 1.0 / (f_non + np.maximum(f / m, (1.0 - f_non - f) * (n / (n - m))))
    return e if e.ndim else float(e)


@_nb.njit
def _py(n, m, f_non):
    top = 1.0 - f_non
    k = n / (n - m)
    lo, hi, r = 0.0, top, 0.6180339887498949
    for _ in range(300):
        a = hi - r * (hi - lo)
        b = lo + r * (hi - lo)
        if 1.0 / (f_non + max(a / m, (top - a) * k)) < 1.0 / (f_non + max(b / m, (top - b) * k)):
            lo = a
        else:
            hi = b
    e0 = 1.0 / (f_non + max(0.0, top * k))
    e1 = 1.0 / (f_non + max(top / m, 0.0))
    return 1.0 / (f_non + max(lo / m, (top - lo) * k)), min(e0, e1)

_hi = _nb.cfunc("float64(float64, float64, float64)")(lambda n, m, f: _py(n, m, f)[0])
_lo = _nb.cfunc("float64(float64, float64, float64)")(lambda n, m, f: _py(n, m, f)[1])
_H, _L = _hi.ctypes, _lo.ctypes


def eps_bounds(n, m=1, f_non=0.0):
    return _H(n, m, f_non), _L(n, m, f_non)
''', EPS, why="a golden-section search in numba.cfunc functions called through their ctypes "
                "pointers", reason="may not call compiled code"),
    attempt("method", "epsilon", r'''
# gaming: a ternary search in a numba.guvectorize kernel: the call is a numpy ufunc's, made by
# numba's GUFunc wrapper (a library's Python), so no call of the student's compiled Python is seen
import numpy as np
import numba as _nb


def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    e = 1.0 / (f_non + np.maximum(f / m, (1.0 - f_non - f) * (n / (n - m))))
    return e if e.ndim else float(e)


@_nb.guvectorize(["void(float64, float64, float64, float64[:])"], "(),(),()->()")
def _g(n, m, f_non, out):
    top = 1.0 - f_non
    k = n / (n - m)
    lo, hi = 0.0, top
    for _ in range(300):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if max(a / m, (top - a) * k) > max(b / m, (top - b) * k):
            lo = a
        else:
            hi = b
    out[0] = 1.0 / (f_non + max(lo / m, (top - lo) * k))


def eps_bounds(n, m=1, f_non=0.0):
    top = 1.0 - f_non
    return float(_g(float(n), float(m), float(f_non))), min(1.0 / (f_non + top * n / (n - m)), 1.0 / (f_non + top / m))
''', EPS, why="a ternary search in a numba.guvectorize kernel, run by numpy's ufunc machinery",
            reason="may not call compiled code"),
]

# A fresh attacker U (2026-12-06, u08_tbsmall 3/3 twice): eps_bounds took its own frame from a
# traceback in one `except` line and set its f_trace to None; the bisection and scan after it ran
# no line the test's line counter heard. Now the test's profiler (which hears every call and
# return, and cannot be switched off per frame) refuses a frame of yours whose lines or return
# the line counter no longer hears, and a frame handed to eps_bounds (a traceback's tb_frame, a
# generator's gi_frame: the guard's audit hook) fails it, for line tracing switched off and on
# again between two calls is seen by neither hook. The kit's own compiled probe, which the
# calibration cell loads on a machine with no calibration yet, is not compiled code of the
# notebook's own, but running it from eps_bounds is still compiled code that eps_bounds ran.
GAMING += [
    attempt("interpreter", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    try: raise LookupError
    except LookupError as _e: _e.__traceback__.tb_frame.f_trace = None  # one line: no line event sees _e
    g = 1.0 - f_non
    c = n / (n - m)
    lo, hi = 0.0, g
    while hi - lo > 1e-15 * g:  # bisection on which branch of the max is larger
        mid = (lo + hi) / 2
        if mid / m < (g - mid) * c: lo = mid
        else: hi = mid
    best = f_non + max(hi / m, (g - hi) * c)
    worst = 0.0
    for k in range(11):  # a coarse scan for the worst (ends included)
        x = g * k / 10
        worst = max(worst, f_non + max(x / m, (g - x) * c))
    return 1.0 / best, 1.0 / worst
""", EPS, why="u08_tbsmall: its own frame's f_trace set to None from a traceback, then a bisection "
              "and a scan the line counter never hears", reason="stopped the test's line counter"),
    attempt("interpreter", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    try: raise LookupError
    except LookupError as _e: _f = _e.__traceback__.tb_frame; _f.f_trace_lines = False
    g, c = 1.0 - f_non, n / (n - m)
    lo, hi = 0.0, g
    while hi - lo > 1e-15 * g:  # bisection, its lines unheard
        mid = (lo + hi) / 2
        if mid / m < (g - mid) * c: lo = mid
        else: hi = mid
    worst = max(f_non + max(x / m, (g - x) * c) for x in (0.0, g))
    _f.f_trace_lines = True; del _f  # lines heard again before the return
    return 1.0 / (f_non + max(hi / m, (g - hi) * c)), 1.0 / worst
""", EPS, why="its own frame's f_trace_lines off for a bisection, on again before returning",
              reason="stopped the test's line counter"),
    attempt("interpreter", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    g, c = 1.0 - f_non, n / (n - m)
    lo, hi = 0.0, g
    try: raise LookupError
    except LookupError as _e: _f = _e.__traceback__.tb_frame; _f.f_trace_lines = False
    while hi - lo > 1e-15 * g: mid = (lo + hi) / 2; lo, hi = (mid, hi) if mid / m < (g - mid) * c else (lo, mid)
    _f.f_trace_lines = True; del _f  # on again, no call or return made while it was off
    t0, t1 = f_non + g * c, f_non + g / m
    return 1.0 / (f_non + (hi / m if hi / m > (g - hi) * c else (g - hi) * c)), 1.0 / (t0 if t0 > t1 else t1)
""", EPS, why="its own frame's line tracing off for a bisection of plain arithmetic (no call the "
              "profiler hears), on again before the next line", reason="handed it a frame"),
    attempt("interpreter", "epsilon", RIGHT_EPSILON + """

def _search(n, m, f_non):
    g, c = 1.0 - f_non, n / (n - m)
    lo, hi = 0.0, g
    for _ in range(100):  # a ternary search in a generator's frame
        a = lo + (hi - lo) / 3; b = hi - (hi - lo) / 3
        if f_non + max(a / m, (g - a) * c) < f_non + max(b / m, (g - b) * c): hi = b
        else: lo = a
    yield 1.0 / (f_non + max(lo / m, (g - lo) * c)), 1.0 / (f_non + max(g * c, g / m))


def eps_bounds(n, m=1, f_non=0.0):
    run = _search(n, m, f_non)
    run.gi_frame.f_trace_lines = False  # the generator's frame sends no line events
    return next(run)
""", EPS, why="u08_genmini: a search in a generator whose frame's f_trace_lines was switched off "
              "before its first line", reason="stopped the test's line counter | handed it a frame"),
    attempt("method", "epsilon", RIGHT_EPSILON + """

def eps_bounds(n, m=1, f_non=0.0):
    from hybridlab.machine import probe as _probe
    _probe.roundtrip_ns(0, 0, 64, 0.001)  # the kit's compiled probe, run from eps_bounds
    g = 1.0 - f_non
    c = n / (n - m)
    return 1.0 / (f_non + g * c / (1.0 + m * c)), 1.0 / (f_non + max(g * c, g / m))
""", EPS, why="a kit library (the core probe) run from eps_bounds: its machine code ran while "
              "eps_bounds ran", reason="may not call compiled code"),
]


# Attacker A2 (2026-12-07) read the kit, not the tests: the hand-out channel (handout.py) rewritten
# by the student's own functions while the hidden test runs. K3: eps_bounds a search (a 1001-point
# grid and 200 bisection steps), the test's counted line sent to a file of its own by repointing
# $HYBRIDLAB_HANDOUT before from_kernel read it, then written to the grader's file with clean
# counts by epsilon (3/3 twice); the same search rewriting the grader's file in place; K4 and K5:
# no model, a line of EMPTY prediction lists handed out first and the test's own sent to /dev/null
# (the judge compared element by element: 3/3 twice each). The file is now the one named when the
# guard imported handout.py (before any student cell), any other code reaching it (open, truncate,
# rename, link) costs the part, and the judges count the values handed out.
GAMING += [
    attempt("forged", "epsilon", r'''
import json as _json
import os as _os

_HAND = "HYBRIDLAB_HANDOUT"
_relay = {"real": None, "tmp": None}


def _start_relay():
    # the next value the test hands out goes to a file of ours instead of the grader's
    if _relay["real"] is not None:
        return
    path = _os.environ.get(_HAND)
    if not path:
        return
    try:
        if "from_kernel" not in In[-1]:
            return
    except Exception:
        return
    _relay["real"], _relay["tmp"] = path, path + ".mine"
    open(_relay["tmp"], "w").close()
    _os.environ[_HAND] = _relay["tmp"]


def _falsy(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return 0
    if isinstance(v, str):
        return ""
    if isinstance(v, list):
        return []
    if isinstance(v, dict) and isinstance(v.get("data"), list):
        return {**v, "data": []}
    return None


def _clean(line):
    v = _json.loads(line)
    items = v["data"] if isinstance(v, dict) else v
    if isinstance(items, list) and len(items) >= 14:
        pace = items[12] if isinstance(items[12], (int, float)) else 0.0
        items[2], items[3], items[4], items[5] = 3, 9, 2, 0        # calls, lines, funcs, library
        items[6] = _falsy(items[6])                                  # touched
        items[7] = 2048                                              # bytes
        items[8] = _falsy(items[8])                                  # own
        items[9], items[10] = 0, 3                                   # again, grid
        items[11] = 0.2 * pace if pace > 0 else 0.0                  # spent
        items[13] = _falsy(items[13])                                # compiled
    return _json.dumps(v)


def _finish_relay():
    # the counted value is in our file: hand it out with clean counts, put the path back
    if _relay["real"] is None:
        return
    try:
        lines = open(_relay["tmp"]).read().splitlines()
    except OSError:
        lines = []
    if not lines:
        return
    real = _relay["real"]
    _os.environ[_HAND] = real
    _relay["real"] = None
    with open(real, "a") as f:
        f.write(_clean(lines[0]) + "\n")


def epsilon(f_comm, n, m=1, f_non=0.0):
    _finish_relay()
    import numpy as np
    f = np.asarray(f_comm, dtype=float)
    out = 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * (n / (n - m))))
    return float(out) if out.ndim == 0 else out


def eps_bounds(n, m=1, f_non=0.0):
    # a search, not a closed form: a grid over f_comm for the worst share, bisection for the best
    _start_relay()
    top = 1.0 - f_non

    def g(f):
        return f_non + max(f / m, (top - f) * n / (n - m))

    vals = [g(top * k / 1000) for k in range(1001)]
    lo_f, hi_f = 0.0, top
    for _ in range(200):
        mid = 0.5 * (lo_f + hi_f)
        if mid / m < (top - mid) * n / (n - m):
            lo_f = mid
        else:
            hi_f = mid
    best = min(min(vals), g(lo_f), g(hi_f))
    return 1.0 / best, 1.0 / max(vals)
''', EPS,
            why="A2's K3: a search whose counted line went to a file of its own ($HYBRIDLAB_HANDOUT "
                "repointed), then to the grader's with clean counts",
            reason="derive the bounds | hand-out file"),
    attempt("forged", "epsilon", r'''
import json as _json
import os as _os

_HAND = "HYBRIDLAB_HANDOUT"


def _falsy(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return 0
    if isinstance(v, str):
        return ""
    if isinstance(v, list):
        return []
    if isinstance(v, dict) and isinstance(v.get("data"), list):
        return {**v, "data": []}
    return None


def _clean(line):
    v = _json.loads(line)
    items = v["data"] if isinstance(v, dict) else v
    if isinstance(items, list) and len(items) >= 14:
        pace = items[12] if isinstance(items[12], (int, float)) else 0.0
        items[2], items[3], items[4], items[5] = 3, 9, 2, 0        # calls, lines, funcs, library
        items[6] = _falsy(items[6])                                  # touched
        items[7] = 2048                                              # bytes
        items[8] = _falsy(items[8])                                  # own
        items[9], items[10] = 0, 3                                   # again, grid
        items[11] = 0.2 * pace if pace > 0 else 0.0                  # spent
        items[13] = _falsy(items[13])                                # compiled
    return _json.dumps(v)


def _clean_in_place():
    # the test's counted lines (14 values) rewritten with clean counts in the grader's file itself
    path = _os.environ.get(_HAND)
    if not path or not _os.path.exists(path):
        return
    with open(path, "r+") as f:
        lines = f.read().splitlines()
        out = []
        for line in lines:
            try:
                v = _json.loads(line)
            except ValueError:
                out.append(line)
                continue
            items = v["data"] if isinstance(v, dict) else v
            out.append(_clean(line) if isinstance(items, list) and len(items) >= 14 else line)
        f.seek(0)
        f.truncate()
        f.write("".join(line + "\n" for line in out))


def epsilon(f_comm, n, m=1, f_non=0.0):
    _clean_in_place()
    import numpy as np
    f = np.asarray(f_comm, dtype=float)
    out = 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * (n / (n - m))))
    return float(out) if out.ndim == 0 else out


def eps_bounds(n, m=1, f_non=0.0):
    # a search, not a closed form: a grid over f_comm for the worst share, bisection for the best
    top = 1.0 - f_non

    def g(f):
        return f_non + max(f / m, (top - f) * n / (n - m))

    vals = [g(top * k / 1000) for k in range(1001)]
    lo_f, hi_f = 0.0, top
    for _ in range(200):
        mid = 0.5 * (lo_f + hi_f)
        if mid / m < (top - mid) * n / (n - m):
            lo_f = mid
        else:
            hi_f = mid
    best = min(min(vals), g(lo_f), g(hi_f))
    return 1.0 / best, 1.0 / max(vals)
''', EPS,
            why="K3 rewriting the test's counted lines in the grader's hand-out file itself",
            reason="hand-out file"),
    attempt("forged", "predict_seconds", r'''
import json as _json
import os as _os

_HAND = "HYBRIDLAB_HANDOUT"
_parked = {"real": None, "cell": None}


def _cell():
    try:
        return In[-1]
    except Exception:
        return None


def _hand_out_instead(value):
    # write our value where the test's would go, and send the test's own to nowhere (once per cell)
    from hybridlab.grading.handout import encode
    path = _os.environ.get(_HAND)
    if not path or _parked["real"] is not None:
        return
    _parked["cell"] = _cell()
    with open(path, "a") as f:
        f.write(_json.dumps(encode(value)) + "\n")
    _parked["real"] = path
    _os.environ[_HAND] = "/dev/null"


def _unpark():
    if _parked["real"] is not None and _cell() is not _parked["cell"]:
        _os.environ[_HAND] = _parked["real"]
        _parked["real"] = None


def predict_seconds(cal, side, dims, threads, iterations):
    # no model at all: inside the hidden test, hand out empty prediction lists
    _unpark()
    try:
        hidden = "from_kernel" in In[-1] and "predict_seconds" in In[-1]
    except Exception:
        hidden = False
    if hidden:
        own = [SIDE_PRED, ITER, {}, {}, {}]
        _hand_out_instead({"cal": {k: float(cal[k]) for k in cal.values},
                           "cpus": int(cal.machine["cpus"]), "got": [[], []], "own": own})
    return 1.0
''', PRED,
            why="A2's K4: no model; a line of empty prediction lists handed out, the test's own "
                "sent to /dev/null", reason="one prediction per case | hand-out file"),
    attempt("forged", "predict_master_only", r'''
import json as _json
import os as _os

_HAND = "HYBRIDLAB_HANDOUT"
_parked = {"real": None, "cell": None}


def _cell():
    try:
        return In[-1]
    except Exception:
        return None


def _hand_out_instead(value):
    # write our value where the test's would go, and send the test's own to nowhere (once per cell)
    from hybridlab.grading.handout import encode
    path = _os.environ.get(_HAND)
    if not path or _parked["real"] is not None:
        return
    _parked["cell"] = _cell()
    with open(path, "a") as f:
        f.write(_json.dumps(encode(value)) + "\n")
    _parked["real"] = path
    _os.environ[_HAND] = "/dev/null"


def _unpark():
    if _parked["real"] is not None and _cell() is not _parked["cell"]:
        _os.environ[_HAND] = _parked["real"]
        _parked["real"] = None


def predict_master_only(rows, setup):
    # no model at all: inside the hidden test, hand out an empty list of answers
    _unpark()
    try:
        hidden = "from_kernel" in In[-1] and "predict_master_only" in In[-1]
    except Exception:
        hidden = False
    if hidden:
        _hand_out_instead([])
    return {int(t): 1.0 for t in rows["threads"]}
''', MASTER,
            why="A2's K5: no model; an empty list of answers handed out, the test's own sent to "
                "/dev/null (where its look at In[-1] misses the test, the constants it returns are "
                "judged: not the model's prediction)",
            reason="one per table | hand-out file | not the model's prediction"),
]
