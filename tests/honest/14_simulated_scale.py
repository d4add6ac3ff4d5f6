"""Right answers to lab 14 written another way: the halo's faces summed by a comprehension over
(neighbours, area) pairs, or with numpy; the report beside the simulation joined with merge or
built row by row; the iteration as compute per thread over the efficiency."""

from honest import right

HONEST = [
    # (a) halo_prediction
    right("halo_prediction", """
def halo_prediction(local, dims, alpha, beta):
    nx, ny, nz = (int(v) for v in local)
    areas = (ny * nz, nx * nz, nx * ny)  # the face normal to each dimension
    return sum(min(int(p) - 1, 2) * (alpha + 8.0 * a / beta) for p, a in zip(dims, areas))
""", why="a comprehension over the three (neighbours, face area) pairs"),
    right("halo_prediction", """
def halo_prediction(local, dims, alpha, beta):
    n = np.asarray(local, dtype=float)
    faces = np.clip(np.asarray(dims, dtype=int) - 1, 0, 2)
    area = n.prod() / n  # each face: the product of the other two extents
    return float(np.sum(faces * (alpha + 8.0 * area / beta)))
""", why="numpy: neighbours clipped to 0..2, the face as the block over its own extent"),
    # (b) beside_report
    right("beside_report", """
def beside_report(simulated, report, iterations):
    sim = pd.DataFrame({"decomposition": list(simulated), "simulated_ms": [1e3 * v for v in simulated.values()]})
    pub = report.assign(report_ms=report["halo_s"] * 1e3 / iterations)[["decomposition", "report_ms"]]
    both = sim.merge(pub, on="decomposition", how="inner").set_index("decomposition")
    both["ratio"] = both["simulated_ms"] / both["report_ms"]
    return both
""", why="an inner merge of the two tables"),
    right("beside_report", """
def beside_report(simulated, report, iterations):
    rows = {}
    for label, halo in zip(report["decomposition"], report["halo_s"]):
        if label in simulated:
            per_iteration = float(halo) / iterations * 1000.0
            sim_ms = float(simulated[label]) * 1000.0
            rows[label] = {"simulated_ms": sim_ms, "report_ms": per_iteration, "ratio": sim_ms / per_iteration}
    return pd.DataFrame.from_dict(rows, orient="index", columns=["simulated_ms", "report_ms", "ratio"])
""", why="row by row, only the labels in both"),
    # (c) hybrid_iteration
    right("hybrid_iteration", """
def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    per_thread = local_points * threads / threads  # a T-times larger block shared by T threads
    return per_thread * t_point / efficiency + network
""", why="the points each thread takes, then the efficiency"),
    right("hybrid_iteration", """
def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    serial = t_point * local_points * threads   # one thread alone on the T-times larger block
    speedup = threads * efficiency              # T threads at that efficiency
    return network + serial / speedup
""", why="the serial time of the larger block over the speedup"),
]

# attacker T's R14_beside (2026-12-06, full points twice)
HONEST.append(right('beside_report', r"""
def beside_report(simulated, report, iterations):
    r = report.set_index("decomposition")
    keys = [k for k in simulated if k in r.index]
    sim_ms = pd.Series({k: simulated[k] * 1e3 for k in keys})
    rep_ms = pd.Series({k: float(r.loc[k, "halo_s"]) / iterations * 1e3 for k in keys})
    return pd.DataFrame({"simulated_ms": sim_ms, "report_ms": rep_ms, "ratio": sim_ms / rep_ms})
""", why='set_index, the keys present in both, a Series per column'))
