"""Wrong answers to lab 09's graded parts (see __init__.py)."""

from functools import partial

from wrong_answers import changed, wrong

# part (a)'s answer, right: each wrong answer below changes one thing in it
JACOBI_SWEEP3D = """
@numba.njit(parallel=True)
def jacobi_sweep3d(u, new):
    delta = 0.0
    for i in prange(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            for k in range(1, u.shape[2] - 1):
                v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                     + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                d = v - u[i, j, k]
                delta += d * d
                new[i, j, k] = v
    return delta
"""


sweep_with = partial(changed, JACOBI_SWEEP3D)


WRONG = [
    wrong(
        "jacobi_sweep3d",
        sweep_with("new[i, j, k] = v\n",
                   "new[i, j, k] = v\n                u[i, j, k] = v  # in place: later points "
                   "(and other threads) read new values\n"),
        loses={"hidden_jacobi_sweep3d"},
        why="u updated in place: Gauss-Seidel with a race, not Jacobi", reason='u was changed',
    ),
    wrong(
        "jacobi_sweep3d",
        sweep_with("d = v - u[i, j, k]\n                delta += d * d",
                   "delta += abs(v - u[i, j, k])  # not squared"),
        loses={"hidden_jacobi_sweep3d"},
        why="delta as the sum of absolute changes", reason='is not the sum of (new - u)**2',
    ),
    wrong(
        "jacobi_sweep3d",
        sweep_with("v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]\n"
                   "                     + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0",
                   "v = 0.25 * (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k])"),
        loses={"hidden_jacobi_sweep3d"},
        why="lab 04's 2-D stencil kept: the k neighbours left out", reason='u at six neighbours',
    ),
    wrong(
        "pinned_layer_names",
        """
def pinned_layer_names(rows, cores):
    from hybridlab.pykernels.tables import pinned_layers
    return pinned_layers(rows)
""",
        loses={"hidden_pinned_layer_names"},
        why="a one-line call of a kit table function (there is none)", reason='ImportError',
    ),
    wrong(
        "pinned_layer_names",
        """
def pinned_layer_names(rows, cores):
    core_of = {cpu: core for core, cpus in cores.items() for cpu in cpus}
    pinned = []
    for layer, group in rows.groupby("layer"):
        ran = group[group["thread"].notna()]
        if len(ran) and all(len({core_of[c] for c in a}) == 1 for a in ran["allowed"]):
            pinned.append(layer)  # not checked: a different core for each thread
    return sorted(pinned)
""",
        loses={"hidden_pinned_layer_names"},
        why="one core per thread, but threads sharing the same core count as pinned", reason='pinned to a core each:',
    ),
    wrong(
        "pinned_layer_names",
        """
def pinned_layer_names(rows, cores):
    core_of = {cpu: core for core, cpus in cores.items() for cpu in cpus}
    pinned = []
    for layer, group in rows.groupby("layer"):
        ran = group[group["thread"].notna()]
        homes = [core_of[a[0]] for a in ran["allowed"]]  # the first allowed CPU's core only
        if homes and len(set(homes)) == len(homes):
            pinned.append(layer)
    return sorted(pinned)
""",
        loses={"hidden_pinned_layer_names"},
        why="only the first CPU of each mask read: a thread free to run anywhere counts as pinned", reason='pinned to a core each:',
    ),
]
