"""Lab 14_simulated_scale: wrong answers (tests/wrong_answers/__init__.py), at least two per hidden part."""

from wrong_answers import wrong

WRONG = [
    wrong(
        "halo_prediction",
        """
def halo_prediction(local, dims, alpha, beta):
    # every rank as if it had all six neighbours: the boundary faces counted
    lx, ly, lz = local
    return 2 * (3 * alpha + 8.0 * (ly * lz + lx * lz + lx * ly) / beta)
""",
        {"hidden_halo_prediction"},
        "six faces on every rank, even with one or two ranks along a dimension",
        reason="faces of the slowest rank",
    ),
    wrong(
        "halo_prediction",
        """
def halo_prediction(local, dims, alpha, beta):
    # the face of dimension d taken as local[d] squared (the wrong two extents)
    seconds = 0.0
    for d in range(3):
        seconds += min(int(dims[d]) - 1, 2) * (alpha + 8.0 * local[d] ** 2 / beta)
    return seconds
""",
        {"hidden_halo_prediction"},
        "a face's size from its own dimension's extent",
        reason="faces of the slowest rank",
    ),
    wrong(
        "beside_report",
        """
def beside_report(simulated, report, iterations):
    # the report's total over all iterations, not per iteration
    out = pd.DataFrame({"report_ms": report.set_index("decomposition")["halo_s"] * 1e3})
    out["simulated_ms"] = pd.Series(simulated, dtype=float) * 1e3
    out = out.dropna()
    out["ratio"] = out["simulated_ms"] / out["report_ms"]
    return out
""",
        {"hidden_beside_report"},
        "forgets to divide the report's time by its iterations",
        reason="per iteration, ms",
    ),
    wrong(
        "beside_report",
        """
def beside_report(simulated, report, iterations):
    # the ratio upside down: report over simulated
    out = pd.DataFrame({"report_ms": report.set_index("decomposition")["halo_s"] / iterations * 1e3})
    out["simulated_ms"] = pd.Series(simulated, dtype=float) * 1e3
    out = out.dropna()
    out["ratio"] = out["report_ms"] / out["simulated_ms"]
    return out
""",
        {"hidden_beside_report"},
        "the ratio inverted",
        reason="ratio: simulated over report",
    ),
    wrong(
        "hybrid_iteration",
        """
def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    # the block does not grow with the threads: T threads on a pure-MPI block
    return t_point * local_points / (threads * efficiency) + network
""",
        {"hidden_hybrid_iteration"},
        "forgets that a rank's block is T times larger",
        reason="T-times larger block, T threads at the efficiency",
    ),
    wrong(
        "hybrid_iteration",
        """
def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    # efficiency multiplied instead of divided
    return t_point * local_points * efficiency + network
""",
        {"hidden_hybrid_iteration"},
        "multiplies by the efficiency",
        reason="T-times larger block, T threads at the efficiency",
    ),
]
