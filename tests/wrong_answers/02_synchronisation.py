"""Lab 02: wrong answers to every graded part (see __init__.py)."""

from solutions_c import CONSTRUCT_ATOMIC as ATOMIC
from wrong_answers import c_cell, changed, wrong


def construct(code: str) -> str:
    return c_cell("CONSTRUCT_C", "construct_bench", code)


SOLUTION_NUMBERS = """
def _interval_us(test, reference):
    t, r = np.asarray(test, dtype=float), np.asarray(reference, dtype=float)
    middle, half = t.mean() - r.mean(), 1.96 * (t.std(ddof=1) + r.std(ddof=1))
    return float((middle - half) * 1e6), float((middle + half) * 1e6)


my_interval_us = _interval_us(my_samples.loc[my_samples["kind"] == "test", "seconds"],
                              my_samples.loc[my_samples["kind"] == "reference", "seconds"])
compare_with = "critical"
_at = sweep[sweep["threads"] == CPUS]
lab_interval_us = _interval_us(_at.loc[_at["construct"] == compare_with, "seconds"],
                               _at.loc[_at["construct"] == "reference", "seconds"])
"""

WRONG = [
    # (a) EPCC's interval, the warm-up
    wrong("epcc_interval", """
def epcc_interval(test, reference) -> tuple[float, float]:
    t, r = np.asarray(test, dtype=float), np.asarray(reference, dtype=float)
    middle, half = t.mean() - r.mean(), 1.96 * (t.std() + r.std())
    return float(middle - half), float(middle + half)
""", loses={"hidden_epcc_interval"}, why="population standard deviation (ddof=0)", reason="is not EPCC's interval"),
    wrong("epcc_interval", """
def epcc_interval(test, reference) -> tuple[float, float]:
    t, r = np.asarray(test, dtype=float), np.asarray(reference, dtype=float)
    middle, half = np.median(t) - np.median(r), 1.96 * (t.std(ddof=1) + r.std(ddof=1))
    return float(middle - half), float(middle + half)
""", loses={"hidden_epcc_interval"}, why="medians instead of EPCC's means", reason="interval"),
    wrong("epcc_interval", """
def epcc_interval(test, reference) -> tuple[float, float]:
    t, r = np.asarray(test, dtype=float), np.asarray(reference, dtype=float)
    middle, half = t.mean() - r.mean(), 1.96 * np.hypot(t.std(ddof=1), r.std(ddof=1))
    return float(middle - half), float(middle + half)
""", loses={"hidden_epcc_interval"}, why="the kit's spread (sds added in quadrature), not EPCC's sum", reason="is not EPCC's interval"),
    # (b) imbalance report and the prediction
    wrong("imbalance_report", """
def imbalance_report(timeline: pd.DataFrame) -> dict[str, float]:
    spent = (timeline["end"] - timeline["start"]).groupby([timeline["phase"], timeline["rank"]]).sum()
    compute, wait = spent["compute"], spent["barrier"]
    imbalance_wait = wait - wait.min()
    run = timeline["end"].max() - timeline["start"].min()
    return {"efficiency": float(compute.mean() / compute.max()),
            "lost_rank_seconds": float(imbalance_wait.sum()),
            "predicted_seconds": float(run - imbalance_wait.mean())}
""", loses={"hidden_imbalance_report"}, why="every thread's rows summed, not the master's", reason="the timeline gives"),
    wrong("imbalance_report", """
def imbalance_report(timeline: pd.DataFrame) -> dict[str, float]:
    master = timeline[timeline["thread"] == 0]
    spent = (master["end"] - master["start"]).groupby([master["phase"], master["rank"]]).sum()
    compute, wait = spent["compute"], spent["barrier"]
    imbalance_wait = wait - wait.min()
    run = timeline["end"].max() - timeline["start"].min()
    return {"efficiency": float(compute.mean() / compute.max()),
            "lost_rank_seconds": float(imbalance_wait.sum()),
            "predicted_seconds": float(run - imbalance_wait.max())}
""", loses={"hidden_imbalance_report"}, why="prediction subtracts the longest wait, not the average rank's", reason="predicted_seconds"),
    # (c) H2MOL's savings
    wrong("h2mol_savings", """
def h2mol_savings(rows: pd.DataFrame) -> pd.DataFrame:
    excess = rows["max_s"] - rows["min_s"]
    return pd.DataFrame({"lost_processor_seconds": (rows["processors"] * excess).to_numpy(),
                         "saving_s": excess.to_numpy()},
                        index=pd.Index(rows["processors"].to_numpy(), name="processors"))
""", loses={"hidden_h2mol_savings"}, why="maximum minus minimum instead of average minus minimum", reason="saving_s at"),
    wrong("h2mol_savings", """
def h2mol_savings(rows: pd.DataFrame) -> pd.DataFrame:
    excess = rows["avg_s"] - rows["min_s"]
    return pd.DataFrame({"lost_processor_seconds": excess.to_numpy(), "saving_s": excess.to_numpy()},
                        index=pd.Index(rows["processors"].to_numpy(), name="processors"))
""", loses={"hidden_h2mol_savings"}, why="processor-seconds not multiplied by the processor count", reason="lost_processor_seconds at"),
    # (d) the student's construct in C
    wrong("construct_code", construct(ATOMIC.replace('"atomic"', '"critical"').replace("omp atomic", "omp critical")),
          loses={"hidden_construct"}, why="the worked example (critical) handed back", reason="is the worked example"),
    wrong("construct_code", construct(ATOMIC.replace("#pragma omp atomic\n", "")),
          loses={"hidden_construct"}, why="no construct at all: a race on the counter", reason="does not use the atomic construct"),
    wrong("construct_code", construct(ATOMIC.replace("reference_loop, s", "NULL, s")),
          loses={"hidden_construct", "hidden_construct_overhead"},
          why="hl_measure without the reference loop: no overhead can be computed either", reason="must time construct_test against reference_loop"),
    # (d) the numbers, from the student's own samples
    wrong("construct_overhead", changed(SOLUTION_NUMBERS, "t.mean() - r.mean()", "np.median(t) - np.median(r)"),
          loses={"hidden_construct_overhead"}, why="medians instead of EPCC's means", reason="interval"),
    wrong("construct_overhead", changed(SOLUTION_NUMBERS, 'sweep["threads"] == CPUS', 'sweep["threads"] == 1'),
          loses={"hidden_construct_overhead"}, why="the lab's samples at one thread, not at the run's thread count", reason="the lab's interval at CPUS threads"),
]
