"""Lab 02: wrong answers to every graded part (see __init__.py)."""

from solutions_c import CONSTRUCT_ATOMIC as ATOMIC
from wrong_answers import wrong


def construct(code: str) -> str:
    return f'CONSTRUCT_C = r"""{code}"""'


SOLUTION_NUMBERS = """
_test = my_samples.loc[my_samples["kind"] == "test", "seconds"]
_ref = my_samples.loc[my_samples["kind"] == "reference", "seconds"]
my_overhead_us = float((_test.median() - _ref.median()) * 1e6)
compare_with = "critical"
lab_overhead_us = float(omp_table.loc[(omp_table["threads"] == CPUS)
                                      & (omp_table["construct"] == compare_with), "overhead_us"].iloc[0])
"""

WRONG = [
    # (a) the overhead, the warm-up
    wrong("overhead_from_samples", """
from hybridlab.stats import overhead as _kit_overhead


def overhead_from_samples(test, reference) -> tuple[float, float]:
    o = _kit_overhead(list(test), list(reference))
    return o.value, o.spread
""", loses={"hidden_overhead_from_samples"}, why="a one-line call of the kit's stats.overhead"),
    wrong("overhead_from_samples", """
def overhead_from_samples(test, reference) -> tuple[float, float]:
    t, r = np.asarray(test, dtype=float), np.asarray(reference, dtype=float)
    return float(np.median(t) - np.median(r)), float(np.hypot(t.std(), r.std()))
""", loses={"test_overhead_from_samples", "hidden_overhead_from_samples"},
        why="population standard deviation (ddof=0)"),
    wrong("overhead_from_samples", """
def overhead_from_samples(test, reference) -> tuple[float, float]:
    t, r = np.asarray(test, dtype=float), np.asarray(reference, dtype=float)
    return float(t.mean() - r.mean()), float(np.hypot(t.std(ddof=1), r.std(ddof=1)))
""", loses={"hidden_overhead_from_samples"}, why="means instead of medians"),
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
""", loses={"hidden_imbalance_report"}, why="every thread's rows summed, not the master's"),
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
""", loses={"hidden_imbalance_report"}, why="prediction subtracts the longest wait, not the average rank's"),
    # (c) H2MOL's savings
    wrong("h2mol_savings", """
def h2mol_savings(rows: pd.DataFrame) -> pd.DataFrame:
    excess = rows["max_s"] - rows["min_s"]
    return pd.DataFrame({"lost_processor_seconds": (rows["processors"] * excess).to_numpy(),
                         "saving_s": excess.to_numpy()},
                        index=pd.Index(rows["processors"].to_numpy(), name="processors"))


savings = h2mol_savings(barrier_rows)
largest_saving_at = int(savings["saving_s"].idxmax())
""", loses={"hidden_h2mol_savings"}, why="maximum minus minimum instead of average minus minimum"),
    wrong("h2mol_savings", """
def h2mol_savings(rows: pd.DataFrame) -> pd.DataFrame:
    excess = rows["avg_s"] - rows["min_s"]
    return pd.DataFrame({"lost_processor_seconds": (rows["processors"] * excess).to_numpy(),
                         "saving_s": excess.to_numpy()},
                        index=pd.Index(rows["processors"].to_numpy(), name="processors"))


savings = h2mol_savings(barrier_rows)
largest_saving_at = int(savings["lost_processor_seconds"].idxmax())
""", loses={"hidden_h2mol_savings"}, why="largest saving read from processor-seconds, not run time"),
    # (d) the student's construct in C
    wrong("construct_code", construct(ATOMIC.replace('"atomic"', '"critical"').replace("omp atomic", "omp critical")),
          loses={"test_construct", "hidden_construct"}, why="the worked example (critical) handed back"),
    wrong("construct_code", construct(ATOMIC.replace("#pragma omp atomic\n", "")),
          loses={"test_construct", "hidden_construct"}, why="no construct at all: a race on the counter"),
    wrong("construct_code", construct(ATOMIC.replace("reference_loop, s", "NULL, s")),
          loses={"test_construct", "hidden_construct", "hidden_construct_overhead"},
          why="hl_measure without the reference loop: no overhead can be computed either"),
    # (d) the numbers, from the student's own samples
    wrong("construct_overhead", SOLUTION_NUMBERS.replace("_test.median() - _ref.median()", "_test.mean() - _ref.mean()"),
          loses={"hidden_construct_overhead"}, why="means instead of medians"),
    wrong("construct_overhead", SOLUTION_NUMBERS.replace('(omp_table["threads"] == CPUS)', '(omp_table["threads"] == 1)'),
          loses={"hidden_construct_overhead"}, why="the lab's figure at one thread, not at the run's thread count"),
]
