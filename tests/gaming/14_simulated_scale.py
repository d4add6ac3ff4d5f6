"""Lab 14_simulated_scale: gaming attempts (tests/gaming/__init__.py), at least three per automatic part."""

from gaming import FRAME_TOOLS, attempt

GAMING = [
    attempt(
        "shortcut",
        "halo_prediction",
        """
def halo_prediction(local, dims, alpha, beta):
    # the simulator instead of the model: a platform with this alpha and beta, one halo simulated
    from hybridlab import simulate as sim
    p = sim.laptop(alpha, beta, 1)
    n = [int(local[d]) * int(dims[d]) for d in range(3)]
    res = sim.simulate("halo3d", int(dims[0] * dims[1] * dims[2]), p, nx=n[0], ny=n[1], nz=n[2],
                       iterations=1, dims="x".join(str(int(d)) for d in dims))
    return float(res.records.query("phase == 'halo'")["seconds"].max())
""",
        {"hidden_halo_prediction"},
        "the kit's simulation in place of the Hockney prediction",
        reason="faces of the slowest rank",
    ),
    attempt(
        "method",
        "halo_prediction",
        """
def halo_prediction(local, dims, alpha, beta):
    # one message of all the faces' bytes: a single latency
    seconds, nbytes = alpha, 0.0
    for d in range(3):
        others = [int(local[e]) for e in range(3) if e != d]
        nbytes += min(int(dims[d]) - 1, 2) * 8.0 * others[0] * others[1]
    return seconds + nbytes / beta
""",
        {"hidden_halo_prediction"},
        "one latency for the whole exchange instead of one per message",
        reason="faces of the slowest rank",
    ),
    attempt(
        "constant",
        "halo_prediction",
        """
def halo_prediction(local, dims, alpha, beta):
    if tuple(dims) == (1, 1, 1):
        return 0.0
    return 1e-6 + 800 / 1e9  # the visible test's second case
""",
        {"hidden_halo_prediction"},
        "the visible test's numbers typed in",
        reason="faces of the slowest rank",
    ),
    attempt(
        "method",
        "beside_report",
        """
def beside_report(simulated, report, iterations):
    # rows matched by position, not by decomposition
    sim_s = list(simulated.values())[: len(report)]
    rep = report["halo_s"].to_numpy()[: len(sim_s)] / iterations * 1e3
    out = pd.DataFrame({"simulated_ms": [s * 1e3 for s in sim_s], "report_ms": rep},
                       index=list(report["decomposition"])[: len(sim_s)])
    out["ratio"] = out["simulated_ms"] / out["report_ms"]
    return out
""",
        {"hidden_beside_report"},
        "rows paired by their order instead of their decomposition",
        reason="the decompositions in both",
    ),
    attempt(
        "hidden",
        "beside_report",
        """
def beside_report(simulated, report, iterations):
    # the report's iterations of Table A.16 (20) instead of the argument
    out = pd.DataFrame({"report_ms": report.set_index("decomposition")["halo_s"] / 20 * 1e3})
    out["simulated_ms"] = pd.Series(simulated, dtype=float) * 1e3
    out = out.dropna()[["simulated_ms", "report_ms"]]
    out["ratio"] = out["simulated_ms"] / out["report_ms"]
    return out
""",
        {"hidden_beside_report"},
        "the notebook's iteration count written in",
        reason="per iteration, ms",
    ),
    attempt(
        "constant",
        "beside_report",
        """
def beside_report(simulated, report, iterations):
    return pd.DataFrame({"simulated_ms": [2.0], "report_ms": [4.0], "ratio": [0.5]}, index=["2x1x1"])
""",
        {"hidden_beside_report"},
        "the visible test's answer typed in",
        reason="the decompositions in both",
    ),
    attempt(
        "shortcut",
        "hybrid_iteration",
        """
def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    # the report's measured time per iteration instead of the model
    pub = JACOBI.frame.query("table == 'A.23' and scheme == 'Master Only'").set_index("threads")
    return float(pub.loc[threads, "total_s"]) / 50 if threads in pub.index else network
""",
        {"hidden_hybrid_iteration"},
        "the published totals read back instead of the model",
        reason="T-times larger block, T threads at the efficiency",
    ),
    attempt(
        "method",
        "hybrid_iteration",
        """
def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    # compute and network overlapped: the larger of the two
    return max(t_point * local_points / efficiency, network)
""",
        {"hidden_hybrid_iteration"},
        "overlap assumed where masteronly has none",
        reason="T-times larger block, T threads at the efficiency",
    ),
    attempt(
        "constant",
        "hybrid_iteration",
        """
def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    return 1e-6 if network == 0.0 else 0.06  # the visible test, and about the report's 3 s / 50
""",
        {"hidden_hybrid_iteration"},
        "the visible test's answer and a typical value",
        reason="T-times larger block, T threads at the efficiency",
    ),
]

# The test's own interpreter reached (issue 36): its expected value read from its frames.
GAMING += [
    attempt("interpreter", "halo_prediction", FRAME_TOOLS + """

def halo_prediction(local, dims, alpha, beta):
    found = _from_the_test(("_want", "want"), False)
    return float(found) if isinstance(found, float) and found > 0 else 1e-3
""", {"hidden_halo_prediction"}, "the hidden test's expected value read from its frames",
            reason="faces of the slowest rank"),
    attempt("interpreter", "hybrid_iteration", FRAME_TOOLS + """

def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    found = _from_the_test(("_want", "want"), False)
    return float(found) if isinstance(found, float) and found > 0 else 1e-3
""", {"hidden_hybrid_iteration"}, "the hidden test's expected value read from its frames",
            reason="T-times larger block, T threads at the efficiency"),
    attempt("interpreter", "beside_report", FRAME_TOOLS + """
import pandas as pd


def beside_report(simulated, report, iterations):
    found = _from_the_test(("_want", "want", "_got"), False)
    if isinstance(found, pd.DataFrame):
        return found
    return pd.DataFrame({"report_ms": [], "simulated_ms": [], "ratio": []})
""", {"hidden_beside_report"}, "the hidden test's expected table read from its frames",
            reason="the decompositions in both"),
]


# A fresh attacker's model that kept points while no drawn case had one thread at an efficiency
# below 1: the efficiency applied only with more threads than one (the text now says it holds at
# one thread too, and the hidden test's first case is one thread at an efficiency below 1).
GAMING += [
    attempt("method", "hybrid_iteration", """
def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    # WRONG: efficiency applied only with more than one thread
    e = efficiency if threads > 1 else 1.0
    return t_point * local_points / e + network
""", {"hidden_hybrid_iteration"}, "fresh attacker: the efficiency applied only with more than one thread",
            reason="one thread too works at the efficiency"),
]

# attacker T's G14_frame (2026-12-06, 0 kept): walks the callers' frames for the grader's own hybrid_iteration
GAMING.append(attempt('interpreter', 'hybrid_iteration', r"""
import sys as _sys


def _theirs(name, me):
    # walk the callers' frames for the grader's own copy of this function (or an expected value)
    f = _sys._getframe(2)
    seen = []
    while f is not None:
        for scope in (f.f_locals, f.f_globals):
            for k, v in list(scope.items()):
                if callable(v) and v is not me and getattr(v, "__name__", "") == name:
                    return v
        seen.append(f"{f.f_code.co_filename}:{f.f_code.co_name}:{sorted(f.f_locals)[:25]}")
        f = f.f_back
    raise RuntimeError("no reference; frames: " + " | ".join(seen)[:3000])


def hybrid_iteration(t_point, local_points, threads, efficiency, network):
    return _theirs("hybrid_iteration", hybrid_iteration)(t_point, local_points, threads, efficiency, network)
""", ['hidden_hybrid_iteration'], "attacker T (G14_frame): walks the callers' frames for the grader's own hybrid_iteration", reason='no reference; frames'))
