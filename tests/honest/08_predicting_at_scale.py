"""Right answers to lab 08 written another way: epsilon through np.where, the bounds in closed
form without calling it, or from one call on the three candidate shares; the prediction with
math.ceil and a loop over the axes, or with numpy arrays; the masteronly halo from the one-thread
row found by its value wherever it sits, with the face bytes summed per axis or in one line."""

from honest import right

HONEST = [
    # (a) epsilon and eps_bounds
    right("epsilon", """
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    comm = f / m                            # the reserved threads' communication
    work = (1.0 - f - f_non) * n / (n - m)  # the overlappable work on the other n - m threads
    return 1.0 / (f_non + np.where(comm > work, comm, work))


def eps_bounds(n, m=1, f_non=0.0):
    best = (1.0 - f_non) * m * n / (n - m + m * n)  # where the two terms meet
    eps_max = 1.0 / (f_non + best / m)
    at_zero = 1.0 / (f_non + (1.0 - f_non) * n / (n - m))
    at_end = 1.0 / (f_non + (1.0 - f_non) / m)
    return eps_max, min(at_zero, at_end)
""", why="np.where for the max; the bounds in closed form, epsilon never called"),
    right("epsilon", """
def epsilon(f_comm, n, m=1, f_non=0.0):
    def one(f):
        return 1.0 / (f_non + max(f / m, (1.0 - f - f_non) * n / (n - m)))
    return np.vectorize(one, otypes=[float])(f_comm)


def eps_bounds(n, m=1, f_non=0.0):
    shares = np.array([0.0, (1.0 - f_non) * m * n / (n - m + m * n), 1.0 - f_non])
    e = epsilon(shares, n, m, f_non)  # the two ends and the crossing: one call, three values
    return float(e[1]), float(min(e[0], e[2]))
""", why="np.vectorize over a scalar model; the bounds from one call on the three candidates"),
    right("epsilon", """
def epsilon(f_comm, n, m=1, f_non=0.0):
    # T_masteronly / T_reserved, written as a min of two ratios
    ov = 1 - f_non - np.asarray(f_comm, dtype=float)
    r = np.minimum(1 / (f_non + np.asarray(f_comm, dtype=float) / m), 1 / (f_non + ov * n / (n - m)))
    return r if np.ndim(f_comm) else float(r)


def eps_bounds(n, m=1, f_non=0.0):
    # the curve is the min of a falling and a rising branch: its top is where they cross, its
    # bottom at one of the ends; evaluate the model at those three shares only
    g = 1 - f_non
    cross = g * m * n / (n - m + m * n)
    top, left, right = epsilon(np.array([cross, 0.0, g]), n, m, f_non)
    return float(top), float(min(left, right))
""", why="attacker U's u08_right2: epsilon as the min of two reciprocals, the bounds unpacked from "
         "one call on the crossing and the two ends"),
    # (b) predict_seconds
    right("predict_seconds", """
import math


def predict_seconds(cal, side, dims, threads, iterations):
    px, py, pz = (int(p) for p in dims)
    bx, by, bz = (math.ceil(side / p) for p in (px, py, pz))  # the busiest rank's block
    ranks = px * py * pz
    sharing = min(ranks * threads, cal.machine["cpus"])
    r_eff = cal["stencil_rate"] * min(1.0, cal["mem_bw_all_Bps"] / (cal["mem_bw_1_Bps"] * sharing))
    compute = bx * by * bz / (threads * r_eff)
    halo = 0.0
    for p, area in ((px, by * bz), (py, bx * bz), (pz, bx * by)):
        neighbours = 0 if p == 1 else (1 if p == 2 else 2)
        size = 8 * area
        if size < cal["switch_bytes"]:
            halo += neighbours * (cal["latency_s"] + size / cal["bandwidth_small_Bps"])
        else:
            halo += neighbours * (cal["latency_large_s"] + size / cal["bandwidth_Bps"])
    sync = (cal["mpi_barrier_s"] if ranks > 1 else 0.0) + (cal["omp_barrier_s"] if threads > 1 else 0.0)
    return iterations * (compute + halo + sync)
""", why="math.ceil for the block, a loop over the three axes with their neighbours"),
    right("predict_seconds", """
def predict_seconds(cal, side, dims, threads, iterations):
    d = np.array(dims, dtype=np.int64)
    block = (side + d - 1) // d
    faces = 8.0 * np.array([block[1] * block[2], block[0] * block[2], block[0] * block[1]])
    count = np.minimum(2, d - 1)
    per_face = np.where(faces < cal["switch_bytes"],
                        cal["latency_s"] + faces / cal["bandwidth_small_Bps"],
                        cal["latency_large_s"] + faces / cal["bandwidth_Bps"])
    ranks = int(d.prod())
    scale = cal["mem_bw_all_Bps"] / cal["mem_bw_1_Bps"]
    rate = cal["stencil_rate"] * min(1.0, scale / min(ranks * threads, cal.machine["cpus"]))
    barriers = (cal["mpi_barrier_s"] if ranks > 1 else 0.0) + (cal["omp_barrier_s"] if threads > 1 else 0.0)
    step = float(block.prod()) / (threads * rate) + float((count * per_face).sum()) + barriers
    return float(step * iterations)
""", why="numpy arrays for the block, faces and their costs"),
    # (c) predict_master_only
    right("predict_master_only", """
def predict_master_only(rows, setup):
    l = int(setup["local"])

    def sent(t):
        grid = (int(setup["px"]) // t, int(setup["py"]), int(setup["pz"]))
        block = (l * t, l, l)
        total = 0
        for axis in range(3):
            if grid[axis] > 1:
                a, b = [block[k] for k in range(3) if k != axis]
                total += 2 * 8 * a * b
        return total

    one = float(rows.loc[rows["threads"] == 1, "halo_s"].iloc[0])
    return {int(t): one * sent(int(t)) / sent(1) for t in rows["threads"]}
""", why="the one-thread row selected by its value, the bytes summed per axis"),
    right("predict_master_only", """
def predict_master_only(rows, setup):
    table = rows.set_index(rows["threads"].astype(int))["halo_s"].astype(float)
    px, py, pz, l = (int(setup[k]) for k in ("px", "py", "pz", "local"))

    def face_bytes(t):
        x_face, other_face = l * l, l * t * l
        return 16 * (x_face * (px // t > 1) + other_face * (py > 1) + other_face * (pz > 1))

    per_byte = table.loc[1] / face_bytes(1)
    return {t: per_byte * face_bytes(t) for t in table.index}
""", why="a table indexed by threads, the face bytes in one line"),
    # a fresh attacker's (helper-51): a helper named `_r`, as a hidden test names its own
    # generator; it lost 0/3 when the hidden cell's names replaced the student's (issue 36)
    right("epsilon", """import numpy as np


def _r(f, n, m, f_non):
    # T_reserved / T_masteronly
    return f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m))


def epsilon(f_comm, n, m=1, f_non=0.0):
    return 1.0 / _r(np.asarray(f_comm, dtype=float), n, m, f_non)


def eps_bounds(n, m=1, f_non=0.0):
    top = 1.0 - f_non
    cross = top * n * m / (n - m + n * m)   # where the two terms of the max are equal
    return float(1.0 / _r(cross, n, m, f_non)), float(1.0 / max(_r(0.0, n, m, f_non), _r(top, n, m, f_non)))
""", why="a private helper named _r, like the hidden test's own names"),
    # a fresh attacker's (S, 2026-12-05): full points before and after the test counted reach
    right("epsilon", r'''
from fractions import Fraction


def epsilon(f_comm, n, m=1, f_non=0.0):
    # elementwise, in plain Python: 1 / (f_non + max(f_comm / m, f_ov * n / (n - m)))
    def one(f):
        return 1.0 / (f_non + max(f / m, (1.0 - f_non - f) * n / (n - m)))
    if hasattr(f_comm, "shape") and getattr(f_comm, "ndim", 0):
        import numpy
        return numpy.vectorize(one, otypes=[float])(f_comm)
    return one(float(f_comm))


def eps_bounds(n, m=1, f_non=0.0):
    # exact rational arithmetic (the inputs' binary values), rounded once at the end
    N, M, A = Fraction(n), Fraction(m), 1 - Fraction(f_non)
    k = N / (N - M)
    t_best = Fraction(f_non) + A * k / (1 + k * M)          # where f/m meets f_ov k
    t_worst = Fraction(f_non) + max(A * k, A / M)           # an end of [0, 1 - f_non]
    return float(1 / t_best), float(1 / t_worst)
''', why="the bounds in exact Fraction arithmetic; epsilon in plain Python, vectorised"),
    right("epsilon", r'''
import numpy as np


def epsilon(f_comm, n, m=1, f_non=0.0):
    # T_masteronly / T_reserved: reserved takes f_non + max(f_comm / m, f_ov * n / (n - m))
    f = np.asarray(f_comm, dtype=float)
    t = f_non + np.maximum(f / m, (1.0 - f_non - f) * (n / (n - m)))
    e = 1.0 / t
    return e if e.ndim else float(e)


def eps_bounds(n, m=1, f_non=0.0):
    # T_reserved is the max of a rising line and a falling line in f_comm: its minimum (eps_max)
    # is where they cross, its maximum (eps_min) at an end of [0, 1 - f_non]
    a = 1.0 - f_non
    k = n / (n - m)
    cross = a * k * m / (1.0 + k * m)
    e = epsilon(np.array([cross, 0.0, a]), n, m, f_non)
    return float(e[0]), float(min(e[1], e[2]))
''', why="the crossing share and the two ends, epsilon called once on the three"),
]

# A fresh attacker W (2026-12-06): the bounds from the candidates where the maximum can sit (the two
# ends and the crossing), and the bounds written out case by case
HONEST += [
    right("epsilon", r'''
def epsilon(f_comm, n, m=1, f_non=0.0):
    # legit e_piecewise: np.where on which term of the max wins, works for numbers and arrays
    f = np.asarray(f_comm, dtype=float)
    comm, over = f / m, (1.0 - f_non - f) * (n / (n - m))
    t = f_non + np.where(comm >= over, comm, over)
    return t.__rtruediv__(1.0) if t.ndim else 1.0 / float(t)


def eps_bounds(n, m=1, f_non=0.0):
    # T is the max of two lines in f_comm: convex, so its minimum (eps_max) is where the lines cross,
    # f* = m n F / (n - m + m n) with F = 1 - f_non, and its maximum (eps_min) at an end, 0 or F
    F = 1.0 - f_non
    star = m * n * F / (n - m + m * n)
    e = np.asarray(epsilon(np.array([0.0, star, F]), n, m, f_non), dtype=float)
    return float(e[1]), float(min(e[0], e[2]))
''', why="fresh attacker W (08a_legit_where_candidates): the three candidates through np.where"),
    right("epsilon", r'''
from fractions import Fraction as _Fr


def epsilon(f_comm, n, m=1, f_non=0.0):
    # legit e_direct: the ratio written out; numbers stay numbers, arrays stay arrays
    if np.ndim(f_comm):
        f = np.asarray(f_comm, dtype=float)
        return 1.0 / (f_non + np.maximum(f / m, (1 - f_non - f) * n / (n - m)))
    return 1.0 / (f_non + max(f_comm / m, (1 - f_non - f_comm) * n / (n - m)))


def eps_bounds(n, m=1, f_non=0.0):
    # closed forms, derived: eps_max at the crossing, eps_min at the ends (no call to epsilon)
    F = 1.0 - f_non
    t_min = f_non + n * F / (n - m + m * n)
    t_max = f_non + max(0.0, F * n / (n - m), F / m) if f_non else max(F * n / (n - m), F / m)
    return 1.0 / t_min, 1.0 / t_max
''', why="fresh attacker W (08a_legit_closed_forms): each bound as its own closed form"),
]


# f41 (2026-12-06): the test now times eps_bounds (the CPU time of the student's thread, against this
# machine's pace), after one untimed call on another n: a first call's imports are not timed
HONEST += [
    right("epsilon", r'''
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))


def eps_bounds(n, m=1, f_non=0.0):
    # exact to 40 digits with decimal, imported (and its context made) at the first call
    import decimal
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        D = decimal.Decimal
        N, M, Z = D(n), D(m), D(f_non)
        F = 1 - Z
        k = N / (N - M)                       # the overlappable work's slowdown on n - m threads
        best = Z + F * k / (1 + k * M)         # T_reserved where f/m meets (F - f) k
        worst = Z + max(F * k, F / M)          # T_reserved at an end, f = 0 or f = F
        return float(1 / best), float(1 / worst)
''', why="the bounds in 40-digit decimal arithmetic, decimal imported at the first call"),
]


# f48 (2026-12-06): compiled code of the notebook's own reached from eps_bounds now fails the part.
# Fresh attacker S's right answers (a 2x2 solve, an exact secant step), closed forms through math's
# built-ins, and a notebook that uses numba elsewhere (not in eps_bounds) keep their points
HONEST += [
    right("epsilon", r'''
import numpy as np


def epsilon(f_comm, n, m=1, f_non=0.0):
    f_ov = (1.0 - f_non) - np.asarray(f_comm, dtype=float)
    t_fr = f_non + np.maximum(np.asarray(f_comm, dtype=float) / m, f_ov * n / (n - m))
    out = np.divide(1.0, t_fr)
    return out if np.ndim(out) else float(out)


def eps_bounds(n, m=1, f_non=0.0):
    # T_reserved(f) = f_non + max(L1(f), L2(f)) with L1 rising, L2 falling (two lines).
    # Its smallest value (the largest epsilon) is where L1 = L2: solve the 2x2 linear system
    #   t - f/m = 0,   t + f n/(n-m) = (1 - f_non) n/(n-m)
    # for (f, t). Its largest value (smallest epsilon) is at one end of [0, 1 - f_non].
    k = n / (n - m)
    f_star, _t = np.linalg.solve([[-1.0 / m, 1.0], [k, 1.0]], [0.0, (1.0 - f_non) * k])
    e = epsilon(np.array([f_star, 0.0, 1.0 - f_non]), n, m, f_non)
    return float(e[0]), float(min(e[1], e[2]))
''', why="fresh attacker S (R08_linsolve): the crossing from np.linalg.solve on the two lines"),
    right("epsilon", r'''
import numpy as np


def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    e = 1.0 / (f_non + np.maximum(f / m, (1.0 - f_non - f) * (n / (n - m))))
    return e if e.ndim else float(e)


def eps_bounds(n, m=1, f_non=0.0):
    # the two terms of max() are straight lines in f_comm, so their difference d(f) is one too:
    # its root (where reserved is fastest) is one secant step from the two ends, exactly
    top = 1.0 - f_non
    ends = np.array([0.0, top])
    d = ends / m - (top - ends) * n / (n - m)          # d(0) < 0 < d(top) when both exist
    cross = float(np.interp(0.0, d, ends))
    e = epsilon(np.array([cross, 0.0, top]), n, m, f_non)
    return float(e[0]), float(min(e[1], e[2]))
''', why="fresh attacker S (R08_secant): one exact secant step (np.interp) on the two lines' difference"),
    right("epsilon", r'''
import math

import numba
import numpy as np


@numba.njit("float64(float64, float64, float64, float64)")
def _eps_one(f, n, m, f_non):  # a compiled epsilon of one share, for a quick check of the cell only
    return 1.0 / (f_non + max(f / m, (1.0 - f - f_non) * n / (n - m)))


def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))


def eps_bounds(n, m=1, f_non=0.0):
    # closed forms through math's built-ins: T at the crossing and the larger T of the two ends
    top = 1.0 - f_non
    t_best = math.fsum((f_non, top * n / (n - m + m * n)))
    t_worst = math.fsum((f_non, max(top * n / (n - m), top / m)))
    return 1.0 / t_best, 1.0 / t_worst


assert abs(_eps_one(2 / 3, 2.0, 1.0, 0.0) - 1.5) < 1e-12  # numba used in the cell, not by eps_bounds
''', why="closed forms through math.fsum; numba compiles a check in the cell, eps_bounds never reaches it"),
]
