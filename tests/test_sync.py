"""Lab 02 (synchronisation): kernels correct and strict about parameters, plots render, and the
notebook runs headless (solution and released versions). Its published tables: test_reference.py.

No timing is asserted anywhere: timings go to benchmarks/bench_sync.py.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import hybridlab as hl
from gaming import source_of
from hybridlab.reference import REFERENCE
from hybridlab.sync.plots import (
    barrier_range_plot,
    overhead_plot,
    timeline_plot,
    wait_policy_plot,
)
from hybridlab.sync.tables import (
    barrier_table,
    overhead_table,
    slowest_rank_samples,
    wait_policy_table,
)
from solutions_c import CONSTRUCT_ATOMIC as ATOMIC

matplotlib.use("Agg")

OPENMP = ["parallel", "for", "barrier", "single", "critical", "reduction"]
ALL = ["reference", *OPENMP, "mpi_barrier", "hybrid_barrier"]
FAST = {"samples": 3, "target_ms": 0.05}


# ------------------------------------------------------------------------------- syncbench


def test_kernels_build_without_warnings():
    sync, imb = hl.build("syncbench"), hl.build("imbalance")
    assert sync.warnings == () and imb.warnings == ()
    assert {"construct", "delay_ns", "samples", "target_ms"} <= sync.params.keys()
    assert sync.params["samples"]["default"] == "20"
    assert {
        "work_ms",
        "imbalance",
        "weights",
        "iterations",
        "num_threads",
        "mode",
    } <= imb.params.keys()


def test_syncbench_runs_every_construct_on_two_ranks():
    res = hl.run_program("syncbench", ranks=2, threads=1, construct=",".join(ALL), **FAST)
    df = res.records
    assert len(df) == 2 * len(ALL) * 3
    assert set(df["construct"]) == set(ALL)
    assert set(df["thread"]) == {0}  # one record per sample, from thread 0 of each rank
    for (rank, construct), group in df.groupby(["rank", "construct"]):
        assert sorted(group["sample"]) == [0, 1, 2], (rank, construct)
        # one repetition count per construct; how many depends on the machine's speed and load
        # (a preempted calibration may already reach the target with one repetition)
        assert group["inner"].nunique() == 1 and group["inner"].iloc[0] >= 1
    # the ranks agree on the repetitions of every construct (collective loops stay matched)
    assert (df.groupby("construct")["inner"].nunique() == 1).all()
    assert (df["seconds"] > 0).all()
    assert (df["ranks"] == 2).all() and (df["threads"] == 1).all()
    assert df["delay_length"].nunique() == 1 and (df["delay_ns"] == 100).all()


def test_syncbench_self_checks_pass_with_two_threads():
    res = hl.run_program("syncbench", ranks=1, threads=2, construct=",".join(ALL), **FAST)
    df = res.records
    assert set(df["construct"]) == set(ALL)
    assert (df["threads"] == 2).all()


def test_syncbench_without_delay_still_measures():
    res = hl.run_program(
        "syncbench", ranks=1, threads=1, construct="reference,barrier", delay_ns=0, **FAST
    )
    assert (res.records["delay_length"] == 0).all()
    assert len(res.records) == 6


def test_syncbench_in_the_engines_matches_the_program_records():
    with hl.Cluster(ranks=2, threads=1) as cluster:
        res = cluster.run("syncbench", construct="reference,mpi_barrier,hybrid_barrier", **FAST)
        imb = cluster.run("imbalance", work_ms=1, iterations=2)
    assert len(res.records) == 2 * 3 * 3
    assert set(res.records["construct"]) == {"reference", "mpi_barrier", "hybrid_barrier"}
    assert len(imb.records) == 2 * 2 * 2


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"construct": "reference,nowait"},
            r"unknown construct 'nowait' \(valid: reference, parallel, for, barrier, single, "
            r"critical, reduction, mpi_barrier, hybrid_barrier\)",
        ),
        ({"construct": " , "}, r"construct is empty"),
        ({"samples": 0}, r"parameter samples=0 must be at least 1"),
        ({"target_ms": 0}, r"target_ms=0 must be above 0"),
        ({"delay_ns": -5}, r"parameter delay_ns=-5 must be at least 0"),
        ({"delay_ns": "fast"}, r"parameter delay_ns=fast is not a number"),
    ],
)
def test_syncbench_rejects_bad_parameters(params, message):
    with pytest.raises(hl.KernelError, match=message):
        hl.run_program("syncbench", ranks=1, threads=1, **params)



def test_syncbench_refuses_a_team_that_may_change_between_regions():
    with pytest.raises(hl.KernelError, match="OMP_DYNAMIC is true"):
        hl.run_program("syncbench", ranks=1, threads=2, construct="reference,parallel",
                       env={"OMP_DYNAMIC": "true"}, **FAST)  # fmt: skip


@pytest.mark.parametrize("construct", ["parallel", "reduction", "barrier"])
def test_syncbench_catches_a_team_smaller_than_asked(construct):
    # OMP_THREAD_LIMIT caps every team at 1 thread: the parallel region (checked before its
    # timed loop, its own region holding only the delay) and the others must say so
    with pytest.raises(hl.KernelError, match="other than 2 threads|self-check failed"):
        hl.run_program("syncbench", ranks=1, threads=2, construct=construct,
                       env={"OMP_THREAD_LIMIT": "1"}, **FAST)  # fmt: skip

# ------------------------------------------------------------------------------- imbalance


def _check_phase_order(df: pd.DataFrame, phases: tuple[str, str]) -> None:
    for (_, _), group in df.groupby(["rank", "thread"]):
        group = group.sort_values(["iteration", "start"])
        assert list(group["phase"]) == list(phases) * group["iteration"].nunique()
        starts, ends = group["start"].to_numpy(), group["end"].to_numpy()
        assert (starts <= ends).all()
        assert (starts[1:] >= ends[:-1] - 1e-9).all()  # phases follow each other
        assert np.allclose(group["seconds"], ends - starts, atol=1e-8)


def test_imbalance_gives_each_rank_its_weight_and_records_every_phase():
    res = hl.run_program("imbalance", ranks=2, threads=1, work_ms=2, imbalance=0.5, iterations=3)
    df = res.records
    assert len(df) == 2 * 1 * 3 * 2
    assert set(df["phase"]) == {"compute", "barrier"}
    assert set(df["mode"]) == {"barrier"}
    weights = df.groupby("rank")["weight"].first()
    assert weights.to_dict() == {0: 1.0, 1: 1.5}
    assert df.groupby("rank")["work_ms"].first().to_dict() == {0: 2.0, 1: 3.0}
    assert (df["cpu_seconds"] >= 0).all()
    assert (df.loc[df["phase"] == "compute", "mpi_seconds"] == 0).all()
    _check_phase_order(df, ("compute", "barrier"))


def test_imbalance_with_explicit_weights():
    res = hl.run_program("imbalance", ranks=2, threads=1, work_ms=1, weights="0, 3", iterations=2)
    df = res.records
    assert df.groupby("rank")["work_ms"].first().to_dict() == {0: 0.0, 1: 3.0}
    assert df.groupby("rank")["weight"].first().to_dict() == {0: 0.0, 1: 3.0}
    _check_phase_order(df, ("compute", "barrier"))


def test_imbalance_num_threads_parameter_sets_the_team():
    res = hl.run_program("imbalance", ranks=1, threads=1, work_ms=1, iterations=2, num_threads=2)
    df = res.records
    assert set(df["thread"]) == {0, 1}
    assert (df["threads"] == 2).all()
    _check_phase_order(df, ("compute", "barrier"))


@pytest.mark.parametrize("comm", ["pingpong", "sleep"])
def test_sleeping_mode_records_master_comm_and_idle_threads(comm):
    res = hl.run_program(
        "imbalance",
        ranks=1,
        threads=2,
        mode="sleeping",
        work_ms=1,
        comm_ms=2,
        iterations=2,
        comm=comm,
        env={"OMP_WAIT_POLICY": "passive"},
    )
    df = res.records
    assert set(df.loc[df["thread"] == 0, "phase"]) == {"compute", "comm"}
    assert set(df.loc[df["thread"] == 1, "phase"]) == {"compute", "idle"}
    comm_rows = df[df["phase"] == "comm"]
    if comm == "pingpong":
        assert (comm_rows["trips"] > 0).all()
    else:
        assert (comm_rows["trips"] == 0).all()
    assert (df["comm_ms"] == 2).all()
    table = wait_policy_table({"passive": res})
    assert list(table["role"]) == ["master (communicates)", "waits"]


def test_sleeping_mode_pingpong_partners_agree():
    res = hl.run_program(
        "imbalance", ranks=2, threads=1, mode="sleeping", work_ms=1, comm_ms=2, iterations=2
    )
    trips = res.records[res.records["phase"] == "comm"].groupby("rank")["trips"].sum()
    assert trips[0] == trips[1] > 0


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"weights": "1,2,3"}, r"weights has 3 values for 2 ranks: give one per rank"),
        ({"weights": "1,heavy"}, r"weights: 'heavy' is not a number"),
        ({"weights": "1,-2"}, r"weights: '-2' is not a number between 0 and 1e6"),
        ({"mode": "nap"}, r"unknown mode 'nap' \(valid: barrier, sleeping\)"),
        ({"comm": "carrier-pigeon"}, r"unknown comm 'carrier-pigeon' \(valid: pingpong, sleep\)"),
        ({"iterations": 0}, r"parameter iterations=0 must be at least 1"),
        ({"imbalance": -1}, r"parameter imbalance=-1 must be at least 0"),
    ],
)
def test_imbalance_rejects_bad_parameters(params, message):
    with pytest.raises(hl.KernelError, match=message):
        hl.run_program("imbalance", ranks=2, threads=1, work_ms=1, **params)


# ---------------------------------------------------------------------------------- plots


def _synthetic_syncbench() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for threads in (1, 2):
        for construct, base in (("reference", 1e-7), ("barrier", 3e-7 * threads)):
            for sample in range(10):
                for rank in (0, 1):
                    noise = 5e-6 if (construct == "barrier" and threads == 2 and sample == 3) else 0
                    rows.append(
                        {
                            "rank": rank,
                            "thread": 0,
                            "cpu": rank,
                            "numa": 0,
                            "construct": construct,
                            "sample": sample,
                            "inner": 1024,
                            "seconds": base * (1 + 0.01 * rng.standard_normal()) + noise,
                            "threads": threads,
                            "ranks": 2,
                        }
                    )
    return pd.DataFrame(rows)


def test_overhead_table_uses_the_slowest_rank_and_the_kit_statistics():
    df = _synthetic_syncbench()
    slow = slowest_rank_samples(df)
    assert len(slow) == len(df) // 2
    table = overhead_table(df, by=["threads"])
    assert list(table["construct"]) == ["barrier", "barrier"]
    one = table[table["threads"] == 1].iloc[0]
    assert one["overhead_us"] == pytest.approx(0.2, rel=0.05)
    assert bool(one["trusted"]) and bool(one["resolved"])
    noisy = table[table["threads"] == 2].iloc[0]
    assert not bool(noisy["trusted"])  # one preempted sample: flagged, not hidden
    with pytest.raises(ValueError, match="no 'reference' samples"):
        overhead_table(df[df["construct"] != "reference"], by=["threads"])


def test_overhead_plot_marks_untrusted_points_and_handles_categories():
    table = overhead_table(_synthetic_syncbench(), by=["threads"])
    fig = overhead_plot(table, x="threads")
    labels = fig.axes[0].get_legend().get_texts()
    assert "hollow: spread too wide to trust" in [t.get_text() for t in labels]
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "some error bars extend beyond the frame" in texts
    shaped = table.assign(shape=["1x2", "2x1"])
    fig = overhead_plot(shaped, x="shape", log=True)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["1x2", "2x1"]


def _synthetic_timeline() -> pd.DataFrame:
    rows = []
    for rank, work in ((0, 0.010), (1, 0.020)):
        for it in range(2):
            t0 = it * 0.021
            rows.append((rank, 0, it, "compute", t0, t0 + work, work))
            rows.append((rank, 0, it, "barrier", t0 + work, t0 + 0.021, 0.021 - work))
    return pd.DataFrame(
        rows, columns=["rank", "thread", "iteration", "phase", "start", "end", "seconds"]
    )


def test_timeline_and_barrier_table():
    tl = _synthetic_timeline()
    fig = timeline_plot(tl)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["rank 0 thread 0", "rank 1 thread 0"]
    assert len(ax.collections) == 4  # one bar set per (phase, lane)
    table = barrier_table(tl)
    assert table.loc["barrier", "max_s"] == pytest.approx(0.022)
    assert table.loc["barrier", "min_s"] == pytest.approx(0.002)
    assert table.loc["barrier", "avg_s"] == pytest.approx(0.012)
    assert table.loc["compute", "slowest_rank"] == 1
    assert table.loc["barrier", "slowest_rank"] == 0  # the rank that waits most
    fig = barrier_range_plot({"a": table, "b": table}, REFERENCE["001-table-3"].frame)
    ours, published = fig.axes
    assert [b.get_height() for b in ours.patches] == pytest.approx([12.0, 12.0])  # avg, ms
    assert [t.get_text() for t in ours.get_xticklabels()] == ["a", "b"]
    h2mol = REFERENCE["001-table-3"].frame.query("routine == 'MPI_Barrier'")
    assert [b.get_height() for b in published.patches] == pytest.approx(list(h2mol["avg_s"]))
    with pytest.raises(ValueError, match="missing"):
        timeline_plot(tl.drop(columns=["start"]))


def test_wait_policy_plot_renders():
    rows = []
    for thread, phase, cpu in ((0, "comm", 0.010), (1, "idle", 0.0001)):
        rows.append((0, thread, 0, "compute", 0.0, 0.005, 0.005, 0.005))
        rows.append((0, thread, 0, phase, 0.005, 0.015, 0.010, cpu))
    df = pd.DataFrame(
        rows,
        columns=["rank", "thread", "iteration", "phase", "start", "end", "seconds", "cpu_seconds"],
    )
    table = wait_policy_table({"passive": df})
    assert table["cpu_share_while_waiting"].round(3).tolist() == [1.0, 0.01]
    fig = wait_policy_plot({"passive": df, "again": df})
    assert len(fig.axes[0].get_xticklabels()) == 4


# ------------------------------------------------------------------------------ notebooks


# ------------------------------------------------------------- construct_bench (exercise d)



def test_construct_bench_example_counts_every_update_and_emits_both_loops():
    res = hl.run_program("construct_bench", ranks=1, threads=2, samples=3, target_ms=0.1,
                         check_reps=1000)
    rec = res.records
    count = rec[rec["record"] == "updates"].iloc[0]
    assert (count["construct"], int(count["updates"])) == ("critical", 2 * 1000)
    samples = rec[rec["record"] == "sample"]
    assert sorted(samples.groupby("kind").size().items()) == [("reference", 3), ("test", 3)]


def test_student_construct_is_checked_for_its_construct_and_reference():
    from hybridlab.sync.exercise import build_student_construct, check_construct, check_source

    res = hl.run_program(build_student_construct(ATOMIC, "test_construct_atomic"), ranks=1,
                         threads=2, samples=3, target_ms=0.1, check_reps=1000)
    samples = check_construct(ATOMIC, res)
    assert set(samples["kind"]) == {"test", "reference"} and set(samples["construct"]) == {"atomic"}
    with pytest.raises(AssertionError, match="worked example"):
        check_source(ATOMIC.replace('"atomic"', '"critical"').replace("omp atomic", "omp critical"))
    with pytest.raises(AssertionError, match="does not use the atomic"):
        check_source(ATOMIC.replace("#pragma omp atomic\n", "/* #pragma omp atomic */\n"))
    once = ATOMIC.replace("#pragma omp atomic\n        s->updates += 1;\n    }",
                          "s->delay += 0;\n    }\n#pragma omp atomic\n    s->updates += inner;")
    with pytest.raises(AssertionError, match="outside the loop that calls hl_delay"):
        check_source(once)  # one atomic per thread and call, after the loop
    last = ATOMIC.replace("#pragma omp atomic\n        s->updates += 1;",
                          "if (j == inner - 1) {\n#pragma omp atomic\n        s->updates += inner;\n}")
    with pytest.raises(AssertionError, match="cell:10: the atomic construct may be skipped"):
        check_source(last)  # in the loop, but run by its last repetition only
    assert check_source(ATOMIC.replace("omp parallel\n", "omp parallel if(1)\n")) == "atomic"


def test_a_loop_unrolled_round_the_construct_is_refused():
    from hybridlab.sync.exercise import check_source, repeated_delays

    two = ATOMIC.replace("hl_delay(s->delay);", "hl_delay(s->delay);\n        hl_delay(s->delay);")
    with pytest.raises(AssertionError, match="cell:10: the loop that holds the atomic construct "
                                             "calls hl_delay 2 times per pass"):
        check_source(two)  # two delays, one atomic per pass: half the atomics timed
    macro = ATOMIC.replace("hl_delay(s->delay);\n", "D4\n", 1).replace(
        "void construct_test", "#define D4 hl_delay(s->delay); hl_delay(s->delay); "
        "hl_delay(s->delay); hl_delay(s->delay);\nvoid construct_test")
    with pytest.raises(AssertionError, match="calls hl_delay 4 times per pass"):
        check_source(macro)  # the preprocessed unit: the macro expanded
    assert repeated_delays("for (j = 0; j < n; j++) { construct_delay(d);\n#pragma omp atomic\n"
                           "x += 1; }", "atomic") == (-1, 1)
    # a statement macro's do { } while (0) runs once: the delay is still the loop's (a fresh
    # attacker's right answer n02macro lost 3/3 to "stands outside the loop that calls hl_delay")
    once = ATOMIC.replace("hl_delay(s->delay);", "DELAY(s);").replace(
        "void construct_test", "#define DELAY(s) do { hl_delay((s)->delay); } while (0)\n"
        "void construct_test")
    assert once != ATOMIC and check_source(once) == "atomic"
    # a loop of delays with no construct, the construct in another (a fresh attacker's n02det2:
    # the timed calls ran the delays alone)
    alone = ATOMIC.replace("void construct_test(void *arg, long inner) {",
                           "void construct_test(void *arg, long inner) {\n"
                           "    for (long k = 0; k < inner; k++) hl_delay(0);", 1)
    assert alone != ATOMIC
    with pytest.raises(AssertionError, match="hl_delay is called in a loop with no atomic construct"):
        check_source(alone)


@pytest.mark.parametrize("change, message", [
    (("reference_loop, s", "NULL, s"), "must time construct_test against reference_loop"),
    (("construct_test, reference_loop", "reference_loop, reference_loop"), "another function as the test"),
    (("omp parallel\n", "omp parallel num_threads(1)\n"), "in a team of 1 thread"),
    (("hl_delay(s->delay);", "s->delay += 0;"), "ran hl_delay 0 times"),
    (("#pragma omp parallel\n", ""), "at nesting level 0"),
], ids=["no-reference", "reference-as-test", "team-of-one", "no-delay", "serial"])
def test_student_construct_run_is_judged_by_what_the_kit_saw(change, message):
    """The cell's hl_delay and hl_measure are the kit's: the kernel counts each thread's delays
    per call of the test and checks which functions hl_measure times."""
    from hybridlab.sync.exercise import build_student_construct

    kernel = build_student_construct(ATOMIC.replace(*change), "test_construct_seen")
    with pytest.raises(hl.KernelError, match=message):
        hl.run_program(kernel, ranks=1, threads=2, samples=3, target_ms=0.1, check_reps=1000)


def test_construct_method_is_read_from_the_compiled_code():
    from hybridlab.sync.exercise import check_method

    assert check_method(ATOMIC) == "atomic"
    beside = ATOMIC.replace("#pragma omp atomic\n        s->updates += 1;",
                            "#pragma omp atomic\n        s->delay += 0;\n#pragma omp critical\n"
                            "        s->updates += 1;")
    with pytest.raises(AssertionError, match="GOMP_critical"):
        check_method(beside)  # a token atomic, the update under a critical section
    in_string = ATOMIC.replace("#pragma omp atomic\n        s->updates += 1;",
                               'const char *says = "#pragma omp atomic"; (void)says;\n'
                               "        __sync_fetch_and_add(&s->updates, 1);")
    with pytest.raises(AssertionError, match="does not use the atomic"):
        check_method(in_string)  # the pragma only in a string literal
    single = ATOMIC.replace('"atomic"', '"single"').replace("omp atomic", "omp single")
    assert check_method(single) == "single"
    # the table's barrier: single's own (no nowait), and after masked
    with pytest.raises(AssertionError, match="compiled single test has no barrier"):
        check_method(single.replace("omp single", "omp single nowait"))
    masked = ATOMIC.replace('"atomic"', '"master"').replace("omp atomic", "omp masked")
    with pytest.raises(AssertionError, match="compiled master test has no barrier"):
        check_method(masked)
    barrier = masked.replace("s->updates += 1;", "s->updates += 1;\n#pragma omp barrier")
    assert check_method(barrier) == "master"
    # the cell's own synchronisation beside the construct (a fresh attacker's, 2026-12-03)
    ticket = ATOMIC.replace("s->updates += 1;", "s->updates += 1;\n"
                            "        __atomic_fetch_add(&s->delay, 0, __ATOMIC_RELAXED);")
    with pytest.raises(AssertionError, match="atomic builtin or type"):
        check_method(ticket)
    skipped = barrier.replace("#pragma omp barrier", "if (s->delay >= 0) goto done;\n"
                              "#pragma omp barrier\n        done:;")
    with pytest.raises(AssertionError, match="no goto round the construct"):
        check_method(skipped)


HELPER = """const char *const construct_name = "atomic";

static inline void pause_then_count(construct_state *c) {
    hl_delay(c->delay);
#pragma omp atomic
    c->updates += 1;
    return;
}

static void one_thread(construct_state *s, long inner) {
    for (long j = 0; j < inner; j++)
        pause_then_count(s);
}

void construct_test(void *arg, long inner) {
#pragma omp parallel
    one_thread((construct_state *)arg, inner);
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""


def test_the_construct_is_followed_through_the_cells_helpers():
    """attackF's honest7/honest10: the loop or the delay and atomic in static helpers, read as if
    inlined (the checks' lines still the cell's); a skip inside the helper is still a skip."""
    from hybridlab.kernels.c_text import code_only
    from hybridlab.sync.exercise import check_method, check_source, inlined

    code = code_only(HELPER)
    text, origin = inlined(code, "construct_test")
    assert "one_thread" not in text and text.count("omp atomic") == 1 and "return" not in text
    assert code[origin[text.index("#pragma omp atomic")]:].startswith("#pragma omp atomic")
    assert check_method(HELPER) == "atomic"
    skipped = HELPER.replace("    hl_delay(c->delay);\n", "    hl_delay(c->delay);\n"
                             "    if (c->delay < 0) return;\n")
    with pytest.raises(AssertionError, match="cell:6: the atomic construct may be skipped"):
        check_source(skipped)


def test_a_construct_in_a_branch_of_an_operator_is_a_skip():
    """A fresh attacker's R02tern and R02or (2026-12-05): the atomic in a statement expression
    on one side of ?: or || (it ran only without a delay); a statement expression run every time,
    or a ?: elsewhere in the loop, stays accepted."""
    from hybridlab.sync.exercise import check_source

    def body(statement: str) -> str:
        return HELPER.replace("#pragma omp atomic\n    c->updates += 1;\n", statement)

    ternary = body("(void)(c->delay ? 0 : ({\n#pragma omp atomic\n    c->updates += 1;\n    0; }));\n")
    shorted = body("(void)(c->delay || ({\n#pragma omp atomic\n    c->updates += 1;\n    0; }));\n")
    for code in (ternary, shorted):
        with pytest.raises(AssertionError, match="the atomic construct may be skipped"):
            check_source(code)
    always = body("long k = c->delay > 0 ? 1 : 1;\n(void)({\n#pragma omp atomic\n    c->updates += k;\n    0; });\n")
    assert check_source(always) == "atomic"


def test_an_explicit_barrier_after_single_nowait_ends_the_repetition():
    """attackF's honest5: `single nowait` then `#pragma omp barrier` is single's own barrier."""
    from hybridlab.sync.exercise import check_method

    single = ATOMIC.replace('"atomic"', '"single"').replace("omp atomic", "omp single nowait")
    with pytest.raises(AssertionError, match="compiled single test has no barrier"):
        check_method(single)
    assert check_method(single.replace("s->updates += 1;",
                                       "s->updates += 1;\n#pragma omp barrier")) == "single"


def test_the_construct_must_update_the_teams_counter():
    """attackF's kit_atomic_private_reduction: an atomic on the thread's own count, merged into
    s->updates by a reduction, is refused at its line (the preprocessed cell) and by the kernel
    (s->updates did not grow with the repetitions); handed to a helper as a construct_state of
    its own, by the address its compiled atomic writes (and by the kernel)."""
    from hybridlab.sync.exercise import build_student_construct, check_method, updated_target

    assert updated_target("s->updates += 1;", {"s"}) and updated_target("++(*s).updates;", {"s"})
    assert updated_target("*count += 1;", {"s"}, {"count"})
    assert not updated_target("mine += 1;", {"s"}) and not updated_target("x = s->updates;", {"s"})
    private = """const char *const construct_name = "atomic";

static void bump(construct_state *c) {
#pragma omp atomic
    c->updates += 1;
}

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        long mine = 0;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp atomic
            mine += 1;
        }
        total += mine;
    }
    s->updates += total;
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""
    with pytest.raises(AssertionError, match="cell:16: the atomic construct updates `mine"):
        check_method(private)
    # a thread's own construct_state handed to a helper: the text reads a state pointer, the
    # kernel sees s->updates not growing
    mine = private.replace("long mine = 0;", "construct_state mine = {0};").replace(
        "#pragma omp atomic\n            mine += 1;", "bump(&mine);").replace(
        "total += mine;", "total += mine.updates;")
    with pytest.raises(AssertionError, match="writes an address other than s->updates"):
        check_method(mine)  # the compiled code: the helper's atomic writes `mine`, not s->updates
    kernel = build_student_construct(mine, "test_construct_private")
    with pytest.raises(hl.KernelError, match="s->updates had grown by 0"):
        hl.run_program(kernel, ranks=1, threads=2, samples=3, target_ms=0.1, check_reps=1000)


EARLY_BUMP = source_of("02_synchronisation", "the team's counter bumped once early")


def test_the_teams_counter_must_grow_in_every_repetition():
    """A fresh attacker's counter bumped once early (a pointer set to &s->updates, then moved to
    a count of the thread's own, merged by a reduction) passes the text and a growth check at the
    last repetition; the kernel checks every repetition of the contention run (grown by k when a
    thread begins repetition k + 1; for atomic by one since the thread's previous one). The
    worked example's shapes of single and master (a barrier each repetition) pass."""
    from hybridlab.sync.exercise import build_student_construct, check_method

    with pytest.raises(AssertionError, match="writes an address other than s->updates"):
        check_method(EARLY_BUMP)  # the compiled code: the pointer moved to a count of its own
    kernel = build_student_construct(EARLY_BUMP, "test_construct_early_bump")
    with pytest.raises(hl.KernelError, match=r"s->updates had grown by \d+ when thread \d+ began repetition"):
        hl.run_program(kernel, ranks=1, threads=2, samples=3, target_ms=0.1, check_reps=20000)
    single = ATOMIC.replace('"atomic"', '"single"').replace("#pragma omp atomic", "#pragma omp single")
    for name, code in (("atomic", ATOMIC), ("single", single)):
        run = hl.run_program(build_student_construct(code, f"test_construct_grows_{name}"), ranks=1,
                             threads=3, bind="none", samples=3, target_ms=0.1, check_reps=20000)
        count = run.records[run.records["record"] == "updates"].iloc[0]
        assert count["updates"] == count["repetitions"] * (3 if name == "atomic" else 1)


def test_the_construct_numbers_are_recomputed_apart():
    """Lab 02 (e) graded apart (sync.exercise.overhead_apart): the cell built and run anew, a
    sweep drawn, the answer cells (a) and (e) run again in a child process on those samples. A
    right cell gives EPCC's intervals of them; attackF's forgery (test = reference + 5 us) and a
    cell reading another of the notebook's names do not."""
    import statistics

    from hybridlab.sync.exercise import drawn_sweep, overhead_apart

    sweep = drawn_sweep(4, 5, 0.25)
    assert sorted(set(sweep["threads"])) == [1, 2, 4] and len(sweep) == 3 * 7 * 5
    assert (sweep["seconds"] > 0).all() and {"construct", "sample", "threads"} <= set(sweep)
    epcc = """
def epcc_interval(test, reference):
    import statistics
    t, r = [float(x) for x in test], [float(x) for x in reference]
    middle = statistics.mean(t) - statistics.mean(r)
    half = 1.96 * (statistics.stdev(t) + statistics.stdev(r))
    return middle - half, middle + half
print(undefined_name)  # a line of (a) that fails apart: epcc_interval is defined all the same
"""
    right = """
t = my_samples.loc[my_samples["kind"] == "test", "seconds"]
r = my_samples.loc[my_samples["kind"] == "reference", "seconds"]
my_interval_us = tuple(1e6 * v for v in epcc_interval(t, r))
compare_with = "barrier"
at = sweep[sweep["threads"] == CPUS]
lab_interval_us = tuple(1e6 * v for v in epcc_interval(at.loc[at["construct"] == compare_with, "seconds"],
                                                        at.loc[at["construct"] == "reference", "seconds"]))
"""
    forged = right.replace("t = my_samples", "t0 = my_samples").replace(
        "my_interval_us = tuple(1e6 * v for v in epcc_interval(t, r))",
        "my_interval_us = tuple(1e6 * v for v in epcc_interval(r.to_numpy()[: len(t0)] + 5e-6, r))")
    got = overhead_apart({"epcc_interval": epcc, "construct_overhead": right}, ATOMIC, threads=2,
                         samples=3, target_ms=0.1)
    answers = got["answers"]

    def interval(t, r):
        middle = statistics.fmean(t) - statistics.fmean(r)
        half = 1.96 * (statistics.stdev(t) + statistics.stdev(r))
        return [(middle - half) * 1e6, (middle + half) * 1e6]

    assert got["named"] == "atomic" and answers["compare_with"] == "barrier"
    assert np.allclose(answers["mine"], interval(got["test"], got["reference"]), rtol=1e-9)
    assert np.allclose(answers["lab"], interval(got["sweep"]["barrier"], got["sweep"]["reference"]), rtol=1e-9)
    got = overhead_apart({"epcc_interval": epcc, "construct_overhead": forged}, ATOMIC, threads=2,
                         samples=3, target_ms=0.1)
    assert not np.allclose(got["answers"]["mine"], interval(got["test"], got["reference"]), rtol=1e-6)
    got = overhead_apart({"epcc_interval": epcc, "construct_overhead": "my_interval_us = example_samples"},
                         ATOMIC, threads=2, samples=3, target_ms=0.1)
    assert got["answers"] == {"error": "NameError: name 'example_samples' is not defined"}


def test_construct_check_counts_lost_updates():
    from hybridlab.runs.records import Results
    from hybridlab.sync.exercise import check_construct

    rows = [{"rank": 0, "thread": 0, "record": "sample", "construct": "atomic", "kind": k,
             "sample": i, "inner": 8, "seconds": 1e-6} for k in ("test", "reference") for i in (0, 1)]
    rows.append({"rank": 0, "thread": 0, "record": "updates", "construct": "atomic",
                 "updates": 1999, "repetitions": 1000, "threads": 2})
    res = Results(pd.DataFrame(rows), {})
    with pytest.raises(AssertionError, match="1999 updates arrived of 2000"):
        check_construct(ATOMIC, res)


def test_run_time_plot_draws_the_runs_and_the_prediction_hatched():
    from hybridlab.sync.plots import run_time_plot

    fig = run_time_plot({"imbalanced": 0.030, "rebalanced": 0.020}, 0.021, ranks=2)
    bars = fig.axes[0].patches
    assert [b.get_width() for b in bars] == pytest.approx([30.0, 20.0, 21.0])  # ms
    assert [b.get_hatch() for b in bars] == [None, None, "//"]
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["imbalanced", "rebalanced", "rebalanced (your prediction)"]


def test_syncbench_tags_every_record_with_the_probe_state():
    from hybridlab.sync.exercise import syncbench

    rec = syncbench(1, 1, ["reference", "barrier"], samples=3, target_ms=0.05)
    assert set(rec["construct"]) == {"reference", "barrier"} and len(rec) == 2 * 3
    assert rec["probe"].notna().all() and rec["probe"].nunique() == 1


def test_a_measurement_that_times_the_reference_as_the_test_is_refused():
    """hl_measure(..., (construct_test, reference_loop), reference_loop, ...): a comma operator
    passes the source check but times the reference twice; the kernel sees no update made."""
    from hybridlab.sync import exercise as sx
    from solutions_c import CONSTRUCT_ATOMIC

    cheat = CONSTRUCT_ATOMIC.replace("construct_test, reference_loop",
                                     "(construct_test, reference_loop), reference_loop", 1)
    assert cheat != CONSTRUCT_ATOMIC
    kernel = sx.build_student_construct(cheat, "t_comma")
    with pytest.raises(hl.KernelError, match="must be construct_test"):
        sx.run_construct(kernel, threads=2, samples=4, target_ms=0.2)


def test_a_cell_that_clears_the_kits_findings_from_its_own_statics_no_longer_keeps_the_part():
    """f51: a count of the thread's own after one early update (the contention run's growth check
    notes it in the kit's short_found), then construct_bench.c's statics found by scanning from
    one of the cell's statics (the state pointer kept twice) and the finding cleared: the run
    passed. The kit's findings are hybridlab.h's sealed evidence now (read-only pages written
    through /proc/self/mem): the run fails on the finding, or dies on the store."""
    from hybridlab.sync.exercise import build_student_construct

    cell = source_of("02_synchronisation", "the counter bumped once early, then a private count, and")
    code = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    kernel = build_student_construct(code, "test_construct_sealed")
    with pytest.raises(hl.KernelError, match="s->updates had grown by|signal 11"):
        hl.run_program(kernel, ranks=1, threads=2, samples=3, target_ms=0.1, check_reps=20000)


def test_a_cell_that_rewrites_the_kits_delay_tallies_no_longer_keeps_the_part():
    """Issue 36 (fixer F): f51's private count, the contention run's check that catches it dodged
    by rewriting the kit's per-thread delay tallies (bumped by hl_delay inside the timed loop,
    found by scanning the library's data): 0 before every delay, `inner` after the region. The
    run passed against the old kernel; the kit seals each thread's tally with the time every
    CB_MARK_EVERY delays now, and a tally its marks do not bear out fails the run."""
    from hybridlab.sync.exercise import build_student_construct

    cell = source_of("02_synchronisation", "a private count, the kit's delay tallies found")
    code = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    kernel = build_student_construct(code, "test_construct_tallies")
    with pytest.raises(hl.KernelError, match="by the kit's sealed marks"):
        hl.run_program(kernel, ranks=1, threads=2, samples=3, target_ms=0.1, check_reps=20000)


def test_a_cell_that_writes_the_kits_finding_through_the_kits_own_descriptor_loses_the_part():
    """Attacker U (u02_forge): only the master delays (the kit's sealed finding: wrong_length),
    then the finding cleared through the kit's own /proc/self/mem descriptor, its number read from
    the sealed page, by stdout's FILE (fflush: lseek, then write): the run passed. hybridlab.h's
    seccomp filter leaves that descriptor to the kit's pwrite64: the write fails, the finding
    stands."""
    from hybridlab.sync.exercise import build_student_construct

    cell = source_of("02_synchronisation", "the kit's own /proc/self/mem descriptor")
    kernel = build_student_construct(cell, "test_construct_descriptor")
    with pytest.raises(hl.KernelError, match=r"not hl_delay\(s->delay\)"):
        hl.run_program(kernel, ranks=1, threads=2, samples=3, target_ms=0.1, check_reps=20000)


def test_the_shared_counter_rises_by_every_update_in_every_call():
    """A fresh attacker's x1 (2026-12-07, 3/3 and 2/2 kept): in the timed calls (a delay given),
    threads other than 0 update a construct_state of their own; the contention run (no delay)
    was the only one checked. The kernel checks each call's rise of s->updates now, in a run
    with the contention run: the timed calls' shortfall fails it, with check_reps 0 (lab 02 (e)
    apart, timing only) the run passes; the solution and a master answer (one update per
    repetition) pass."""
    from hybridlab.sync.exercise import build_student_construct, check_method

    private = source_of("02_synchronisation", "fresh attacker (A6 x1_helper_param)")
    with pytest.raises(AssertionError, match="writes an address other than s->updates"):
        check_method(private)  # the text reads a state pointer; the compiled code another address
    kernel = build_student_construct(private, "test_construct_private_timed")
    with pytest.raises(hl.KernelError, match=r"for \d+ repetitions, s->updates rose by \d+, not \d+: "
                       "the atomic construct adds 2"):
        hl.run_program(kernel, ranks=1, threads=2, bind="none", samples=3, target_ms=0.1,
                       check_reps=2000)
    hl.run_program(kernel, ranks=1, threads=2, bind="none", samples=3, target_ms=0.1, check_reps=0)
    master = ATOMIC.replace('"atomic"', '"master"').replace(
        "#pragma omp atomic\n        s->updates += 1;",
        "#pragma omp masked\n        s->updates += 1;\n#pragma omp barrier")
    for name, code in (("atomic", ATOMIC), ("master", master)):
        run = hl.run_program(build_student_construct(code, f"test_construct_rises_{name}"), ranks=1,
                             threads=2, bind="none", samples=3, target_ms=0.1, check_reps=2000)
        count = run.records[run.records["record"] == "updates"].iloc[0]
        assert count["updates"] == count["repetitions"] * (2 if name == "atomic" else 1)


MOVED_POINTER = source_of("02_synchronisation", "fresh attacker (A7 c2d)")


def test_the_address_the_construct_writes_is_read_from_the_compiled_code():
    """A fresh attacker's c2d (2026-12-07, 3/3 kept twice): a pointer set to &s->updates, then
    moved by an offset (0 in the contention run, the thread's own slot in the timed calls, the
    slots added back after the region). The text reads a pointer to the counter; clang's IR of
    the cell shows the atomic's address made by arithmetic on it, and so for single and masked.
    The counter's address kept in a variable set once, the state handed to a helper or kept in
    a struct the region shares, passes; that struct's state swapped for another is refused."""
    from hybridlab.kernels.counter_ir import moved_updates
    from hybridlab.sync.exercise import check_method, construct_ir

    with pytest.raises(AssertionError, match=r"cell line 17: the atomic construct writes an address "
                       "other than s->updates"):
        check_method(MOVED_POINTER)
    moved = MOVED_POINTER.replace("static long slot[256][8];", "static long slot[256][8];\n")
    for name, pragma in (("single", "single"), ("master", "masked")):
        one = moved.replace('"atomic"', f'"{name}"').replace(
            "#pragma omp atomic\n            *p += 1;",
            f"#pragma omp {pragma}\n            *p += 1;\n#pragma omp barrier")
        assert moved_updates(construct_ir(one), name) == ["cell line 18"]
    pointer = ATOMIC.replace("construct_state *s = arg;",
                             "construct_state *s = arg;\n    volatile long *count = &s->updates;")
    pointer = pointer.replace("s->updates += 1;", "*count += 1;")
    job = """const char *const construct_name = "atomic";
struct job { construct_state *s; long n; };
static construct_state other;

static void reps(struct job *jb) {
    for (long j = 0; j < jb->n; j++) {
        hl_delay(jb->s->delay);
#pragma omp atomic
        jb->s->updates += 1;
    }
}

void construct_test(void *arg, long inner) {
    struct job jb = {arg, inner};
#pragma omp parallel
    reps(&jb);
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""
    for code in (ATOMIC, pointer, HELPER, job):
        assert moved_updates(construct_ir(code), "atomic") == []
        assert check_method(code) == "atomic"
    # the state kept in a struct the region shares, swapped for another in the timed calls
    swapped = job.replace("struct job jb = {arg, inner};",
                          "struct job jb = {arg, inner};\n    if (jb.s->delay) jb.s = &other;")
    assert moved_updates(construct_ir(swapped), "atomic") == ["cell line 9"]


def test_the_name_judged_is_the_compiled_one():
    """A fresh attacker's x4 and x5 (2026-12-07, 3/3 and 2/2 kept): "atomic" in a longer name
    (shown_construct_name) or an #if 0 block, "reduction" compiled. construct_name reads the
    preprocessed cell's file-scope definition (a macro's string too, not a local of a function),
    and check_construct refuses records that name another construct."""
    from hybridlab.runs.records import Results
    from hybridlab.sync.exercise import check_construct, check_source, construct_name

    for why in ("fresh attacker (A6 x4_name_spoof)", "fresh attacker (A6 x5_ifzero_name)"):
        code = source_of("02_synchronisation", why)
        assert construct_name(code) == "reduction"
        with pytest.raises(AssertionError, match="does not use the reduction construct"):
            check_source(code)
    macro = ATOMIC.replace('const char *const construct_name = "atomic";',
                           '#define NAMED "atomic"\nconst char *const construct_name = NAMED;')
    assert construct_name(macro) == "atomic"
    local = ATOMIC.replace('const char *const construct_name = "atomic";',
                           'static void shown(void) { const char *construct_name = "single"; '
                           '(void)construct_name; }\nconst char *const construct_name = "atomic";')
    assert construct_name(local) == "atomic"
    rows = [{"rank": 0, "thread": 0, "record": "sample", "construct": "reduction", "kind": k,
             "sample": i, "inner": 8, "seconds": 1e-6} for k in ("test", "reference") for i in (0, 1)]
    rows.append({"rank": 0, "thread": 0, "record": "updates", "construct": "reduction",
                 "updates": 2000, "repetitions": 1000, "threads": 2})
    with pytest.raises(AssertionError, match="records name the construct reduction, not 'atomic'"):
        check_construct(ATOMIC, Results(pd.DataFrame(rows), {}))
