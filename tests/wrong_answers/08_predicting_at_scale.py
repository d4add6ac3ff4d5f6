"""Wrong answers to lab 08's graded parts (see __init__.py)."""

from functools import partial

from wrong_answers import changed, wrong

# part (b)'s answer, right: each wrong answer below changes one thing in it
PREDICT_SECONDS = """
def predict_seconds(cal, side, dims, threads, iterations):
    local = [-(-side // p) for p in dims]
    points = local[0] * local[1] * local[2]
    faces = []
    for d, p in enumerate(dims):
        other = [local[e] for e in range(3) if e != d]
        faces += [8 * other[0] * other[1]] * min(2, p - 1)
    ranks = dims[0] * dims[1] * dims[2]
    scale = cal["mem_bw_all_Bps"] / cal["mem_bw_1_Bps"]
    rate = cal["stencil_rate"] * min(1.0, scale / min(ranks * threads, cal.machine["cpus"]))
    t = points / (threads * rate)
    for s in faces:
        if s < cal["switch_bytes"]:
            t += cal["latency_s"] + s / cal["bandwidth_small_Bps"]
        else:
            t += cal["latency_large_s"] + s / cal["bandwidth_Bps"]
    t += (cal["mpi_barrier_s"] if ranks > 1 else 0.0) + (cal["omp_barrier_s"] if threads > 1 else 0.0)
    return float(t * iterations)
"""


predict_with = partial(changed, PREDICT_SECONDS)


WRONG = [
    wrong(
        "epsilon",
        """
def epsilon(f_comm, n, m=1, f_non=0.0):
    return overlap.epsilon(f_comm, n, m, f_non)


def eps_bounds(n, m=1, f_non=0.0):
    return overlap.epsilon_max(n, m), overlap.epsilon_min(n, m)
""",
        loses={"hidden_epsilon"},
        why="a one-line call of the kit's overlap model (gone from the kit)", reason='AttributeError',
    ),
    wrong(
        "epsilon",
        """
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + f / m + (1.0 - f - f_non) * n / (n - m))  # adds the two instead of max


def eps_bounds(n, m=1, f_non=0.0):
    return 1.0 + m * (1.0 - 1.0 / n), 1.0 - m / n
""",
        loses={"hidden_epsilon"},
        why="communication and overlappable work added, as if nothing overlapped", reason="not the model's",
    ),
    wrong(
        "epsilon",
        """
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, (1.0 - f - f_non) * n / (n - m)))


def eps_bounds(n, m=1, f_non=0.0):
    best = (1.0 - f_non) * m * n / (n - m + m * n)
    return float(epsilon(best, n, m, f_non)), float(epsilon(0.0, n, m, f_non))  # one end only
""",
        loses={"hidden_epsilon"},
        why="eps_min read at f_comm = 0 only: wrong when m < 1 (the other end is lower)", reason="not the model's bounds",
    ),
    wrong(
        "predict_seconds",
        """
def predict_seconds(cal, side, dims, threads, iterations):
    from hybridlab.modelling import predict
    ranks = dims[0] * dims[1] * dims[2]
    g = predict.halo3d_geometry(side, ranks)
    return predict.predict_halo3d(cal, g.points, g.face_bytes, ranks, threads, iterations)["total"]
""",
        loses={"hidden_predict_seconds"},
        why="the kit's geometry and model called (gone from the kit)", reason='AttributeError',
    ),
    wrong(
        "predict_seconds",
        predict_with("local = [-(-side // p) for p in dims]",
                     "local = [side // p for p in dims]  # the average block, not the largest"),
        loses={"hidden_predict_seconds"},
        why="side // p: the average block, where the busiest rank holds the largest", reason='predict_seconds(side',
    ),
    wrong(
        "predict_seconds",
        predict_with("* min(2, p - 1)", "* min(1, p - 1)  # one face per split dimension, even p > 2"),
        loses={"hidden_predict_seconds"},
        why="a middle rank's second neighbour forgotten (p > 2)", reason='predict_seconds(side',
    ),
    wrong(
        "predict_seconds",
        predict_with('rate = cal["stencil_rate"] * min(1.0, scale / min(ranks * threads, cal.machine["cpus"]))',
                     'rate = cal["stencil_rate"]  # threads never share memory bandwidth'),
        loses={"hidden_predict_seconds"},
        why="r_eff left out: compute scales with threads although memory bandwidth does not", reason='predict_seconds(side',
    ),
    wrong(
        "predict_master_only",
        """
def predict_master_only(rows, setup):
    from hybridlab.modelling.predict import a23_face_bytes
    rate = float(rows.set_index("threads").loc[1, "halo_s"]) / a23_face_bytes(1, setup)
    return {int(t): rate * a23_face_bytes(int(t), setup) for t in rows["threads"]}
""",
        loses={"hidden_predict_master_only"},
        why="the kit's face bytes of section 4 called (gone from the kit)", reason='ImportError',
    ),
    wrong(
        "predict_master_only",
        """
def predict_master_only(rows, setup):
    one = float(rows.set_index("threads").loc[1, "halo_s"])
    return {int(t): one * int(t) for t in rows["threads"]}  # halo grows with the threads
""",
        loses={"hidden_predict_master_only"},
        why="halo time proportional to the threads instead of the face bytes", reason="not the model's prediction",
    ),
    wrong(
        "predict_master_only",
        """
def predict_master_only(rows, setup):
    def face_bytes(threads):
        local = int(setup["local"])
        lx = local * threads
        return 8 * 2 * (local * local + lx * local + lx * local)  # every face, neighbour or not

    one = float(rows.set_index("threads").loc[1, "halo_s"])
    return {int(t): one / face_bytes(1) * face_bytes(int(t)) for t in rows["threads"]}
""",
        loses={"hidden_predict_master_only"},
        why="faces along a dimension with one process counted (24 threads: px / T = 1)", reason="not the model's prediction",
    ),
]
