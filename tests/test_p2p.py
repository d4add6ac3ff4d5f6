"""Lab 03 (point to point): the pingpong kernel is correct and strict about its parameters, the
plots render and the notebook runs headless (solution and released versions). The fits
themselves are tested in tests/test_p2p_hockney.py, the published tables in test_reference.py.

No timing is asserted anywhere: timings go to benchmarks/bench_p2p.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

import hybridlab as hl
from hybridlab.p2p import paths as p2p_paths
from hybridlab.p2p.exercise import path_sweeps
from hybridlab.p2p.hockney import piecewise_hockney
from hybridlab.p2p.plots import (
    aggregation_plot,
    knee_plot,
    paths_plot,
    progress_plot,
    sendmodes_plot,
    sweep_plot,
)
from hybridlab.p2p.switches import switches
from hybridlab.p2p.tables import aggregation_ratio, progress_table
from hybridlab.reference import REFERENCE
from two_nodes_records import two_node_run
from wrong_answers import lab_module

matplotlib.use("Agg")

TINY = {"iterations": 5, "skip": 2, "iterations_large": 3, "skip_large": 1, "samples": 2}


# -------------------------------------------------------------------------------- kernel


def test_kernel_builds_without_warnings():
    k = hl.build("pingpong")
    assert k.warnings == ()
    assert {
        "mode",
        "min_bytes",
        "max_bytes",
        "iterations",
        "skip",
        "iterations_large",
        "skip_large",
        "large_bytes",
        "samples",
        "send_modes",
        "late_us",
        "k",
        "echo",
    } <= k.params.keys()
    assert k.params["echo"]["default"] == "0"  # separate buffers, as osu_latency
    assert k.params["large_bytes"]["default"] == "8192"  # OSU's LARGE_MESSAGE_SIZE


def test_sweep_records_every_size_and_sample_with_osu_counts():
    res = hl.run_program("pingpong", ranks=2, min_bytes=1, max_bytes=65536, **TINY)
    df = res.records
    sizes = [2**i for i in range(17)]
    assert len(df) == len(sizes) * 2
    assert set(df["rank"]) == {0} and set(df["mode"]) == {"sweep"}
    assert sorted(df["bytes"].unique()) == sizes
    for _, group in df.groupby("bytes"):
        assert sorted(group["sample"]) == [0, 1]
    small, large = df[df["bytes"] <= 8192], df[df["bytes"] > 8192]
    assert (small["iterations"] == 5).all() and (small["skip"] == 2).all()
    assert (large["iterations"] == 3).all() and (large["skip"] == 1).all()
    assert (df["seconds"] > 0).all()
    assert np.allclose(df["bandwidth_Bps"], df["bytes"] / df["seconds"], rtol=1e-5)


@pytest.mark.parametrize("echo", [0, 1])
def test_sweep_answers_from_its_own_buffer_or_echoes_and_checks_both_ways(echo):
    """echo=0 (the default, as osu_latency): rank 1 answers from a send buffer of its own;
    echo=1: it sends back what it received. Either way both ranks check what arrived."""
    res = hl.run_program("pingpong", ranks=2, min_bytes=1, max_bytes=4096, echo=echo, **TINY)
    assert set(res.records["echo"]) == {echo}
    assert len(res.records) == 13 * 2


def test_sweep_stops_at_max_bytes_even_when_not_a_power_of_two():
    res = hl.run_program("pingpong", ranks=2, min_bytes=3, max_bytes=100, **TINY)
    assert sorted(res.records["bytes"].unique()) == [3, 6, 12, 24, 48, 96]


def test_sendmodes_record_sender_and_late_receiver():
    res = hl.run_program(
        "pingpong",
        ranks=2,
        mode="sendmodes",
        min_bytes=8,
        max_bytes=64,
        samples=1,
        late_us=5000,
    )
    df = res.records
    modes = ["send", "ssend", "bsend", "isend"]
    assert set(df["send_mode"]) == set(modes)
    assert df.groupby("role")["rank"].unique().map(list).to_dict() == {
        "receiver": [1],
        "sender": [0],
    }
    assert len(df) == 2 * 4 * 4  # roles x sizes x modes
    receiver = df[df["role"] == "receiver"]
    assert (receiver["posted_seconds"] >= 0.005).all()  # it really arrived late
    sender = df[df["role"] == "sender"]
    assert (sender["seconds"] >= sender["call_seconds"]).all()
    assert (sender.loc[sender["send_mode"] != "isend", "wait_seconds"] == 0).all()
    # a synchronous send cannot complete before the receive is posted
    assert (sender.loc[sender["send_mode"] == "ssend", "call_seconds"] >= 0.002).all()
    assert np.allclose(df["late_seconds"], 0.005)


def busy_sender(**params) -> hl.Results:
    """The busy-sender experiment (mode=progress) with a 64 KiB message on 2 ranks."""
    return hl.run_program("pingpong", ranks=2, mode="progress", max_bytes=65536, **params)


def test_progress_busy_sender_records_every_case():
    res = busy_sender(compute_us=2000, poll_us="0,100", samples=2)
    df = res.records
    assert set(df["send"]) == {"isend", "bsend"} and set(df["poll_us"]) == {0, 100}
    assert len(df) == 2 * 2 * 2 * 2  # roles x sends x polls x samples
    assert (df["async_progress"] == 0).all()
    sender = df[df["role"] == "sender"]
    assert (sender["compute_seconds"] >= 0.002).all()  # it really computed that long
    assert (df.loc[df["role"] == "receiver", "recv_wait_seconds"] >= 0).all()
    table = progress_table(res)
    assert len(table) == 4 and table["receiver_wait_s"].notna().all()
    named = progress_table({"run": res})
    assert list(named["case"]) == ["run: " + c for c in table["case"]]
    fig = progress_plot(table, REFERENCE["001-table-4"].frame)
    bars = fig.axes[0].patches  # one bar per case, as long as the receiver's wait
    assert [b.get_width() for b in bars] == pytest.approx(list(table["receiver_wait_s"] * 1e3))
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == list(table["case"])
    assert "H2MOL" in fig.axes[1].get_title() and len(fig.axes[1].patches) > 0


def test_progress_with_asynchronous_progress_thread():
    res = busy_sender(compute_us=1000, poll_us="0", samples=1, thread_level="multiple",
                      env={"MPICH_ASYNC_PROGRESS": "1"})  # fmt: skip
    assert (res.records["async_progress"] == 1).all()


def _library_variables(implementation: str, env: dict[str, str]) -> dict[str, str]:
    """Every variable the MPI library reads, with the value it takes under `env`, from its own
    tool: MPICH's mpivars (MPIR_CVAR_*) or Open MPI's ompi_info (OMPI_MCA_*)."""
    bin_ = Path(sys.executable).parent
    full = {**os.environ, **env, **hl.Placement().environment(implementation, 1)}
    if implementation == "mpich":
        out = subprocess.run([bin_ / "mpivars"], env=full, capture_output=True, text=True,
                             timeout=60, check=True).stdout  # fmt: skip
        found = re.findall(r"^\s*(MPIR_CVAR_\w+)\s*=(\S*)", out, re.MULTILINE)
        return dict(found)
    out = subprocess.run([bin_ / "ompi_info", "--parsable", "--all", "--level", "9"], env=full,
                         capture_output=True, text=True, timeout=60, check=True).stdout  # fmt: skip
    found = re.findall(r"^mca:[^:]+:[^:]+:param:(\w+):value:(.*)$", out, re.MULTILINE)
    return {f"OMPI_MCA_{name}": value for name, value in found}


def test_lab03_switches_are_variables_the_library_reads():
    """Every variable lab 03 sets for the MPI behind mpiexec is one that library reads, and takes
    the value given (a misspelt one would leave the knee where it was, silently)."""
    implementation = hl.mpi_info().implementation
    sw = switches(implementation)
    aliases = {"MPICH_ASYNC_PROGRESS": "MPIR_CVAR_ASYNC_PROGRESS"}  # MPICH's documented alias
    for env in (sw.raised, sw.no_single_copy, sw.async_progress or {}):
        known = _library_variables(implementation, env)
        for name, value in env.items():
            assert known.get(aliases.get(name, name)) == value, (name, value)
    assert sw.raised[sw.knee_variable] == "65536"
    assert (sw.async_progress is None) == bool(sw.no_async)
    with pytest.raises(ValueError, match="not of 'lam'"):
        switches("lam")
    # the library starts with them (MPICH refuses a cell larger than its pack buffer)
    raised = hl.run_program("pingpong", ranks=2, max_bytes=16, env=sw.raised, **TINY)
    assert len(raised.records) == 5 * 2
    table = progress_table(hl.run_program("pingpong", ranks=2, mode="progress", max_bytes=65536,
                                          compute_us=1000, poll_us="0", samples=1,
                                          env=sw.no_single_copy))  # fmt: skip
    texts = progress_plot(table, note=sw.no_async).axes[0].texts
    shown = [t.get_text().replace("\n", " ") for t in texts]
    assert shown == ([sw.no_async] if sw.no_async else [])


def test_sendmodes_subset():
    res = hl.run_program(
        "pingpong", ranks=2, mode="sendmodes", send_modes=" bsend, isend", max_bytes=4, samples=1
    )
    assert set(res.records["send_mode"]) == {"bsend", "isend"}


def test_aggregate_compares_k_messages_with_one():
    res = hl.run_program(
        "pingpong", ranks=2, mode="aggregate", min_bytes=4, max_bytes=64, k=8, **TINY
    )
    df = res.records
    assert set(df["variant"]) == {"one", "split"}
    assert len(df) == 5 * 2 * 2
    split = df[df["variant"] == "split"]
    assert (split["messages"] == 8).all() and (df["k"] == 8).all()
    assert split.set_index("bytes")["message_bytes"].groupby(level=0).first().to_dict() == {
        4: 0,
        8: 1,
        16: 2,
        32: 4,
        64: 8,
    }
    assert (df.loc[df["variant"] == "one", "messages"] == 1).all()


def test_extra_ranks_idle_and_in_the_engines():
    res = hl.run_program("pingpong", ranks=3, max_bytes=16, **TINY)
    assert set(res.records["rank"]) == {0}
    with hl.Cluster(ranks=2, threads=1) as cluster:
        sweep = cluster.run("pingpong", max_bytes=1024, **TINY)
        modes = cluster.run("pingpong", mode="sendmodes", max_bytes=1024, late_us=100, samples=1)
        agg = cluster.run("pingpong", mode="aggregate", max_bytes=1024, **TINY)
    assert len(sweep.records) == 11 * 2
    assert len(modes.records) == 11 * 4 * 2
    assert len(agg.records) == 11 * 2 * 2


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"mode": "pingping"},
            r"unknown mode 'pingping' \(valid: sweep, sendmodes, aggregate, progress\)",
        ),
        ({"min_bytes": 0}, r"parameter min_bytes=0 must be at least 1"),
        ({"min_bytes": 64, "max_bytes": 8}, r"min_bytes=64 is above max_bytes=8"),
        ({"max_bytes": 1 << 31}, r"max_bytes=2147483648 must be at most 1073741824"),
        ({"iterations": 0}, r"parameter iterations=0 must be at least 1"),
        ({"samples": "many"}, r"parameter samples=many is not an integer"),
        ({"k": 0}, r"parameter k=0 must be at least 1"),
        ({"late_us": -1}, r"parameter late_us=-1 must be at least 0"),
        ({"echo": 2}, r"parameter echo=2 must be 0 or 1"),
        (
            {"mode": "sendmodes", "send_modes": "send,rsend"},
            r"unknown send mode 'rsend' \(valid: send, ssend, bsend, isend\)",
        ),
        ({"mode": "sendmodes", "send_modes": " , "}, r"send_modes is empty"),
        ({"mode": "progress", "poll_us": "0,x"}, r"poll_us: 'x' is not a number"),
        ({"mode": "progress", "compute_us": -1}, r"parameter compute_us=-1 must be at least 0"),
    ],
)
def test_rejects_bad_parameters(params, message):
    with pytest.raises(hl.KernelError, match=message):
        hl.run_program("pingpong", ranks=2, **params)


def test_needs_two_ranks():
    with pytest.raises(hl.KernelError, match=r"pingpong needs at least 2 ranks \(got 1\)"):
        hl.run_program("pingpong", ranks=1, max_bytes=8)


# ---------------------------------------------------------------------------------- plots


def _synthetic_sweep() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    sizes = 2 ** np.arange(0, 21)
    rows = []
    for b in sizes:
        t = 1e-6 + b / 2e9 if b < 8192 else 4e-6 + b / 10e9
        for sample in range(3):
            rows.append(
                {
                    "mode": "sweep",
                    "bytes": int(b),
                    "sample": sample,
                    "seconds": t * (1 + 0.01 * rng.standard_normal()),
                }
            )
    return pd.DataFrame(rows)


def test_sweep_plot_shows_fit_and_knee():
    df = _synthetic_sweep()
    fig = sweep_plot(df)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any(label.startswith("below: alpha=") for label in labels)
    assert any("knee: 8192 B" in t.get_text() for t in fig.axes[0].texts)
    pw = piecewise_hockney(df["bytes"], df["seconds"])
    time_axes, bandwidth_axes = sweep_plot(df, pw).axes
    median = [line for line in time_axes.lines if line.get_label() == "median"][0]
    assert list(median.get_xdata()) == sorted(set(df["bytes"]))  # one point per size
    fits = [line.get_label() for line in time_axes.lines if line.get_linestyle() == "--"]
    assert fits == [f"below: alpha={pw.below.alpha * 1e6:.2f} us, beta={pw.below.beta / 1e9:.2f} GB/s",
                    f"above: alpha={pw.above.alpha * 1e6:.2f} us, beta={pw.above.beta / 1e9:.2f} GB/s"]
    knee = [line for line in bandwidth_axes.lines if line.get_linestyle() == ":"][0]
    assert list(knee.get_xdata()) == [pw.switch_bytes] * 2


def test_knee_plot_draws_each_sweep_its_knee_and_the_prediction():
    df = _synthetic_sweep()
    fig = knee_plot({"default": df, "raised": df.assign(seconds=2 * df["seconds"])}, [8192, 65536], 65536)
    ax = fig.axes[0]
    curves = [line for line in ax.lines if line.get_marker() in ("o", "s")]
    assert [c.get_label() for c in curves] == ["default", "raised"]
    assert [c.get_marker() for c in curves] == ["o", "s"]  # not told apart by colour alone
    assert {"default knee", "raised knee"} <= {t.get_text().strip() for t in ax.texts}
    assert list(curves[1].get_ydata()) == pytest.approx(list(2 * curves[0].get_ydata()))
    vertical = [(line.get_xdata()[0], line.get_linestyle()) for line in ax.lines if line not in curves]
    assert vertical == [(8192, ":"), (65536, ":"), (65536, "--")]
    assert [c.get_color() for c in curves] == [v.get_color() for v in ax.lines[2:4]]  # knee = its sweep's colour
    assert len(knee_plot({"default": df}).axes[0].lines) == 1  # no knee found yet, no prediction


def test_sendmodes_and_aggregation_plots_render():
    rows = []
    for mode in ("send", "ssend", "bsend", "isend"):
        for b in (8, 64, 8192, 65536):
            wait = 0.005 if (mode == "ssend" or (mode == "send" and b >= 8192)) else 1e-6
            call = 1e-6 if mode == "isend" else wait
            w = 0.005 if (mode == "isend" and b >= 8192) else 0.0
            rows.append(("sender", 0, mode, b, call, w, 0.005))
            rows.append(("receiver", 1, mode, b, 1e-6, 0.0, 0.005))
    df = pd.DataFrame(
        rows,
        columns=[
            "role",
            "rank",
            "send_mode",
            "bytes",
            "call_seconds",
            "wait_seconds",
            "late_seconds",
        ],
    )
    fig = sendmodes_plot(df, REFERENCE["001-table-4"].frame)
    calls, waits, published = fig.axes
    drawn = {line.get_label(): line for line in calls.lines}
    assert set(drawn) >= {"send", "ssend", "bsend", "isend", "receiver late by"}
    assert list(drawn["ssend"].get_ydata()) == pytest.approx([5.0] * 4)  # ms: waits at every size
    assert list(drawn["send"].get_ydata()) == pytest.approx([1e-3, 1e-3, 5.0, 5.0])  # the knee
    assert {line.get_label() for line in waits.lines} >= {"isend: MPI_Wait", "receiver: recv call"}
    assert "Table 4" in published.get_title()
    assert len(sendmodes_plot(df).axes) == 2  # without the published panel
    agg = []
    for v in 2 ** np.arange(3, 16):
        agg.append(("one", int(v), 8, 1e-6 + v / 1e9))
        agg.append(("split", int(v), 8, 8e-6 + v / 1e9))
    agg = pd.DataFrame(agg, columns=["variant", "bytes", "k", "seconds"])
    table = aggregation_ratio(agg)
    assert table["ratio"].iloc[0] == pytest.approx((1e-6 + 8e-9) / (8e-6 + 8e-9))
    assert list(table["message_bytes"][:2]) == [1, 2]
    fit = piecewise_hockney(_synthetic_sweep()["bytes"], _synthetic_sweep()["seconds"]).below
    fig = aggregation_plot(agg, REFERENCE["002-slides-14-17"].frame, fit=fit)
    mine, sr8000 = fig.axes
    measured = [line for line in mine.lines if line.get_label() == "measured (median)"][0]
    assert list(measured.get_ydata()) == pytest.approx(list(table["ratio"]))
    assert any(line.get_label().startswith("Hockney") for line in mine.lines)
    heights = [bar.get_height() for bar in sr8000.patches]  # hybrid over pure, published
    assert len(heights) == 2 and all(0 < h for h in heights)
    alone = aggregation_plot(agg).axes
    assert len(alone) == 1 and not any(line.get_label().startswith("Hockney") for line in alone[0].lines)


# ------------------------------------------------------------------------------ notebooks


# ------------------------------------------------------------- the exercise: overlap in C

GOOD_OVERLAP = r"""
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel
    {
#pragma omp master
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
        }
        long mine = 0;
#pragma omp for schedule(static) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (omp_get_thread_num() == 0 && !done && mine++ % poll == 0)
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        }
#pragma omp master
        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}
"""


def test_student_overlap_checked_for_data_thread_level_and_polling():
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    rows = check_student_overlap(build_student_overlap(GOOD_OVERLAP), threads=(1, 2))
    assert all(r["MPI_Test calls per rank and sample"] >= 1 for r in rows)
    worker = GOOD_OVERLAP.replace("#pragma omp master", "if (omp_get_thread_num() == 1)").replace(
        "omp_get_thread_num() == 0 &&", "omp_get_thread_num() == 1 &&"
    )
    with pytest.raises(hl.ThreadComplianceError, match="on rank 0, thread 1"):
        check_student_overlap(build_student_overlap(worker, "p2p_worker"), threads=(2,))
    silent = GOOD_OVERLAP.replace("mine++ % poll == 0", "mine++ < 0 && poll")
    with pytest.raises(AssertionError, match="must poll|poll while computing"):
        check_student_overlap(build_student_overlap(silent, "p2p_silent"), threads=(2,))
    # one token test at the master's first step, then the wait: polling in name only, at any
    # thread count (the tests are counted among the master's own steps)
    token = GOOD_OVERLAP.replace("mine++ % poll == 0", "mine++ == 0 && poll")
    for threads in (1, 2):
        with pytest.raises(AssertionError, match=rf"{threads} thread\(s\), 40 steps: MPI_Test calls "
                                                 "while the exchange was open, between the master's"):
            check_student_overlap(build_student_overlap(token, "p2p_token"), threads=(threads,),
                                  steps=40, bytes=2**20, flops=500)
    twice = GOOD_OVERLAP.replace("#pragma omp for schedule(static) nowait\n", "")
    with pytest.raises(hl.KernelError, match="compute_step was called"):
        check_student_overlap(build_student_overlap(twice, "p2p_twice"), threads=(2,))


def test_the_judged_state_of_p2p_overlap_is_out_of_the_cells_reach():
    """Lab 03 (d), issue 36: what the kernel judges a sample by (the run's parameters, the
    arrays' pointers, each step's count of compute_step calls) lives on the kernel's sealed pages
    (p2p_overlap.c's overlap_evidence), not in statics a cell reaches at the link's offset from
    one of its own: SEAL-A's p03_skip_poke (every other step computed, the kit's `computed`,
    `results` and `expected` rewritten) kept 12/12 twice before. The sealed page can be read, not
    written (a store there stops the run); a step outside 0..steps-1 is named, never written."""
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    probe = "static long anchor;\n" + GOOD_OVERLAP.replace(
        "    MPI_Request req[2];\n", "    MPI_Request req[2];\n    anchor++;\n", 1)
    kernel = build_student_overlap(probe, "p2p_seal_probe")
    data = {}
    for line in subprocess.run(["nm", str(kernel.program)], capture_output=True, text=True,
                               check=True).stdout.splitlines():  # fmt: skip
        parts = line.split()
        if len(parts) == 3 and parts[1] in "bBdD":
            data[parts[2]] = int(parts[0], 16)
    assert {"anchor", "hl_sealed"} <= set(data)
    kept = {"computed", "results", "expected", "flops_per_step", "step_us"} & set(data)
    assert not kept, f"p2p_overlap.c keeps {sorted(kept)} where a cell can write them"
    # the skipped steps' counts written on the sealed page: the store faults
    offset = data["hl_sealed"] + 4096 - data["anchor"]
    poke = probe.replace("for (long i = 0; i < steps; i++) {", "for (long i = 0; i < steps; i += 2) {")
    poke = poke.replace("        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n    }\n",
                        "        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n    }\n"
                        f"    *(volatile long *)((char *)&anchor + {offset:#x}) = steps;\n")  # fmt: skip
    assert poke.count("i += 2") == 1 and "= steps;" in poke
    with pytest.raises(hl.KernelCrash, match="SIGSEGV"):
        check_student_overlap(build_student_overlap(poke, "p2p_seal_poke"), threads=(2,))
    stray = GOOD_OVERLAP.replace("        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n",
                                 "        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);\n"
                                 "#pragma omp masked\n        compute_step(steps);\n")  # fmt: skip
    assert stray != GOOD_OVERLAP
    with pytest.raises(hl.KernelError, match=r"compute_step was called with i = 64, outside 0\.\.63"):
        check_student_overlap(build_student_overlap(stray, "p2p_seal_stray"), threads=(2,))


def test_team_shares_count_the_other_threads_steps_inside_the_windows():
    """Lab 03 (d): team_shares reads the kit's compute intervals (pieces, counted inside a
    window in proportion to their time there) against the windows; judge_team wants, in most
    multi-thread runs, each thread other than the master at 1/(4T) of all steps (attackH h03c:
    a token thread, 4/4 kept); the share while the exchange was open is not judged."""
    from types import SimpleNamespace

    from hybridlab.p2p.exercise import LEAST, OTHERS, judge_team, team_shares

    calls = pd.DataFrame({"rank": [0], "thread": [0], "student": [1]})
    windows = pd.DataFrame({"rank": [0], "window": [0], "start": [1.0], "end": [3.0]})
    work = pd.DataFrame({"rank": [0, 0, 0, 0], "thread": [0, 1, 1, 2],
                         "start": [1.0, 2.0, 4.0, 0.0], "end": [3.0, 4.0, 5.0, 0.5],
                         "pieces": [10, 4, 2, 4]})  # fmt: skip
    res = SimpleNamespace(mpi_calls=calls, compute=work)
    others, least = team_shares(res, windows, 3)
    # inside: the master's 10, half of thread 1's first 4; all: thread 1 has 6, thread 2 4 of 20
    assert others == pytest.approx(2 / 12) and least == pytest.approx(4 / 20)
    row = {"threads": 2, OTHERS: 0.3, LEAST: 0.3}
    token = {"threads": 3, OTHERS: 0.01, LEAST: 0.0}
    judge_team([{"threads": 1, OTHERS: 0.0, LEAST: 0.0}, row, row, token])  # most runs: enough
    with pytest.raises(AssertionError, match="threads other than the master computed too little"):
        judge_team([row, token, token])
    judge_team([row, {"threads": 2, OTHERS: 0.0, LEAST: 0.3}])  # none while open: not judged
    with pytest.raises(AssertionError, match="1/\\(4T\\)"):
        judge_team([row, {"threads": 2, OTHERS: 0.3, LEAST: 0.1}])


def test_a_token_team_thread_is_refused():
    """The master computes every step but the last while it polls, thread 1 the last step:
    the serial path with a token team (attackH h03c)."""
    from gaming import source_of
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    token = source_of("03_point_to_point", "fresh attacker: the master computes all steps but one")
    with pytest.raises(AssertionError, match="threads other than the master computed too little"):
        check_student_overlap(build_student_overlap(token, "p2p_token_team"), threads=(2, 3),
                              steps=40, bytes=2**20, flops=500, poll=4)


def test_a_blocking_exchange_with_a_step_inside_is_refused():
    """attackI d03e (4/4 twice): the master posts, computes one step, tests once and waits in
    MPI_Waitall while the team waits at a barrier, then computes the rest: the master's own
    steps after its Wait (at one thread too); adapted so that only the other threads compute
    after the wait: one step, then the Wait, with the team idle inside the window."""
    from gaming import source_of
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    d03e = build_student_overlap(source_of("03_point_to_point", "fresh attacker (attackI d03e)"),
                                 "p2p_d03e")
    for threads in (1, 3):
        with pytest.raises(AssertionError, match=rf"{threads} threads, 40 steps: the master "
                                                 r"blocked \(in a Wait.* more of the master's steps"):
            check_student_overlap(d03e, threads=(threads, 2), steps=40, bytes=2**20, flops=500)
    d03g = build_student_overlap(source_of("03_point_to_point", "fresh attacker (attackI d03g)"),
                                 "p2p_d03g")
    with pytest.raises(AssertionError, match=r"tested again with no step between .* more of the master's steps"):
        check_student_overlap(d03g, threads=(1, 2), steps=40, bytes=2**20, flops=500)
    spun = build_student_overlap(source_of("03_point_to_point", "fresh attacker (k03spin1)"),
                                 "p2p_k03spin1")  # the same requests in another array
    with pytest.raises(AssertionError, match=r"tested again with no step between"):
        check_student_overlap(spun, threads=(1, 2), steps=40, bytes=2**23, flops=500)
    after = build_student_overlap(source_of("03_point_to_point", "d03e adapted"), "p2p_d03e_team")
    with pytest.raises(AssertionError, match="2 threads, 40 steps: .* the other threads computing "
                                             "nothing meanwhile"):
        check_student_overlap(after, threads=(1, 2), steps=40, bytes=2**20, flops=500)  # 1: honest


def test_a_wait_made_of_tests_is_judged_by_request_not_by_array():
    """_spins (a fresh attacker's k03spin1/k03spin2, 2026-12-05, 4/4 while arrays were compared
    as text): a request a test found not done, tested again with no step of the master's between,
    is a spin, in whatever array or call; a step between, a completed request, or a Testsome
    draining what completed are not."""
    from hybridlab.p2p.exercise import _spins

    def tests(*calls):
        return pd.DataFrame([{"call": c, "requests": r, "request": q, "done": d, "start": t}
                             for t, (c, r, q, d) in enumerate(calls)])  # fmt: skip

    both, with_null = ("MPI_Testall", "3,7", 0, 0), ("MPI_Testall", "3,7,-1", 0, 0)
    assert _spins(tests(both, with_null, both), []) == 2
    one_by_one = [("MPI_Test", "", 3, 0), ("MPI_Test", "", 7, 0)] * 3
    assert _spins(tests(*one_by_one), []) == 4
    assert _spins(tests(*one_by_one), [0.5, 1.5, 2.5, 3.5, 4.5]) == 0  # a step before each test
    first_done = [("MPI_Test", "", 3, 1), ("MPI_Test", "", 7, 0), ("MPI_Test", "", 7, 0)]
    assert _spins(tests(*first_done), []) == 1
    assert _spins(tests(("MPI_Testsome", "3", 0, 1), ("MPI_Testsome", "7", 0, 1)), []) == 0


# ------------------------------------------------ the multi-node section (lab 03)


def test_paths_on_two_nodes_each_get_a_fit_and_a_knee(tmp_path):
    sweeps = {path: two_node_run(f"pingpong_{path.replace(' ', '_')}")
              for path in (p2p_paths.INSIDE, p2p_paths.ACROSS)}  # fmt: skip
    fits = p2p_paths.path_fits(sweeps)
    table = p2p_paths.paths_table(sweeps, fits).set_index("path")
    assert table.loc[p2p_paths.INSIDE, "hosts"] == 1  # real records: both ranks on node1 ...
    assert table.loc[p2p_paths.ACROSS, "hosts"] == 2  # ... and one rank on each node
    for path, fit in fits.items():
        sizes = sorted(sweeps[path].records["bytes"].unique())
        assert sizes[0] < fit.switch_bytes <= sizes[-1]  # the knee is one of the swept sizes
        assert table.loc[path, "knee_bytes"] == fit.switch_bytes
        assert table.loc[path, "one_MiB_us"] > 0  # the sweep reached 1 MiB
    published = p2p_paths.published_paths(REFERENCE["002-slides-14-17"].frame)
    assert list(published["path"]) == [p2p_paths.INSIDE, p2p_paths.ACROSS]
    assert list(published["milliseconds"]) == [2.0, 9.6]
    assert float(published["ratio_to_inside"].iloc[1]) == pytest.approx(4.8)
    fig = paths_plot(sweeps, fits, published, note="a note")
    assert len(fig.axes) == 2 and "a note" in [t.get_text() for t in fig.axes[0].texts]
    fig.savefig(tmp_path / "paths.png")


def test_path_sweeps_on_one_node_has_only_the_inside_path():
    sweeps = path_sweeps(1, min_bytes=1, max_bytes=64, samples=1, iterations=10, skip=1,
                         iterations_large=2, skip_large=1)  # fmt: skip
    assert list(sweeps) == [p2p_paths.INSIDE]
    assert len(sweeps[p2p_paths.INSIDE].meta["hosts"]) == 1


def test_overlap_numbers_are_recomputed_apart():
    """Lab 03 (e) graded apart (p2p.exercise.overlap_apart): the student's C run again, the
    answer cell run again on that run in a child process. A right cell gives the numbers of that
    run's medians and of the drawn Series; numbers typed in (attackG's G03a9) do not; a cell
    reading a name the run does not give fails with its error."""
    import statistics

    from hybridlab.p2p.exercise import overlap_apart

    right = """
def overlap_numbers(medians):
    c, m = float(medians["compute"]), float(medians["message"])
    return max(c, m), (float(medians["blocking"]) - float(medians["student"])) / min(c, m)


PREDICTED_OVERLAP_S, HIDDEN_FRACTION = overlap_numbers(overlap_medians)
"""
    drawn = [{"blocking": 0.03, "compute": 0.01, "message": 0.025, "student": 0.027}]
    got = overlap_apart({"overlap_numbers": right}, GOOD_OVERLAP, bytes=2**16, flops=500,
                        samples=2, drawn=drawn)
    m = {v: statistics.median(x) for v, x in got["seconds"].items()}
    assert set(m) == {"compute", "message", "blocking", "student"}
    answers = got["answers"]
    assert np.isclose(answers["predicted"], max(m["compute"], m["message"]), rtol=1e-9)
    assert np.isclose(answers["hidden"], (m["blocking"] - m["student"]) / min(m["compute"], m["message"]),
                      rtol=1e-9)
    assert np.allclose(answers["drawn"], [[0.025, 0.003 / 0.01]], rtol=1e-9)
    typed = right.replace("PREDICTED_OVERLAP_S, HIDDEN_FRACTION = overlap_numbers(overlap_medians)",
                          "PREDICTED_OVERLAP_S, HIDDEN_FRACTION = 0.001, 0.5")
    got = overlap_apart({"overlap_numbers": typed}, GOOD_OVERLAP, bytes=2**16, flops=500,
                        samples=2, drawn=drawn)
    m = {v: statistics.median(x) for v, x in got["seconds"].items()}
    assert not np.isclose(got["answers"]["predicted"], max(m["compute"], m["message"]), rtol=1e-6)
    got = overlap_apart({"overlap_numbers": "PREDICTED_OVERLAP_S = example_medians"}, GOOD_OVERLAP,
                        bytes=2**16, flops=500, samples=2, drawn=drawn)
    assert got["answers"] == {"error": "NameError: name 'example_medians' is not defined"}


def test_a_message_beside_the_exchanges_own_pair_is_refused():
    """(d)'s exchange is one MPI_Isend and one MPI_Irecv per sample and nothing else moves data: a
    persistent exchange carrying the data beside a 0-byte pair that holds the window open (a
    fresh attacker's p03pers, 4/4 kept) fails naming the calls."""
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    gaming = lab_module("03_point_to_point", Path(__file__).parent / "gaming")
    source = gaming._P03PERS.split("\n", 1)[1]
    with pytest.raises(AssertionError, match="MPI_Recv_init, MPI_Send_init, MPI_Startall: one MPI_Isend"):
        check_student_overlap(build_student_overlap(source, "p2p_persistent"), threads=(2,))


def test_a_blocking_call_inside_the_window_before_the_steps_is_a_stall():
    """Lab 03 (d) (a fresh attacker's Q03d_sendwait, 4/4 kept twice, 2026-12-05): the master
    posts, blocks in MPI_Wait on its own rendezvous send and an MPI_Barrier before any step (the
    whole message moved there), then computes its static share testing the receive, whose first
    test finds it done: the window closed at that test and only the closing call was judged. A
    blocking call inside the window that is not its completion, with the master's own steps after
    it, is a stall, at one thread and at two."""
    from gaming import source_of
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    code = source_of("03_point_to_point", "fresh attacker (Q03d_sendwait)")
    kernel = build_student_overlap(code, "p2p_q03sendwait")
    with pytest.raises(AssertionError, match=r"MPI_Wait inside the open exchange \(not its "
                                             r"completion\), then \d+ more of the master's steps"):
        check_student_overlap(kernel, threads=(1, 2), steps=40, bytes=2**20, flops=500)
    check_student_overlap(build_student_overlap(GOOD_OVERLAP), threads=(1, 2), steps=40,
                          bytes=2**20, flops=500)  # the honest loop: no blocking call inside


def _exchange_trace(samples: list[dict], threads: int = 2, size: int = 2**20):
    """A synthetic lab 03 (d) run on one rank (rank 0, its partner rank 1): per sample (a dict:
    "post" the time both requests are posted, "done" when the MPI_Waitall that completes them
    returns, "work": (thread, start, end, pieces) intervals of compute_step, and optionally
    "peer", "bytes" and "comm" of the postings), the cell's calls, the kit's reveal
    (MPI_Sendrecv) and MPI_Allreduce after it, and its sample records."""
    from types import SimpleNamespace

    calls, work, records, t, handle = [], [], [], 0.0, 10
    for s, sample in enumerate(samples):
        base = s * 1.0
        for call, offset in (("MPI_Irecv", 0.0), ("MPI_Isend", 1e-6)):
            handle += 1
            calls.append({"rank": 0, "thread": 0, "student": 1, "call": call,
                          "start": base + sample["post"] + offset,
                          "end": base + sample["post"] + offset + 5e-7, "done": -1,
                          "posted": handle, "peer": sample.get("peer", 1),
                          "count": sample.get("bytes", size) // 8,
                          "bytes": sample.get("bytes", size), "comm_id": sample.get("comm", 7),
                          "live": 0, "requests": ""})  # fmt: skip
        calls.append({"rank": 0, "thread": 0, "student": 1, "call": "MPI_Waitall",
                      "start": base + sample["post"] + 2e-6, "end": base + sample["done"],
                      "done": 1, "posted": -1, "peer": -1, "count": -1, "bytes": 0,
                      "comm_id": -1, "live": 2, "requests": f"{handle - 1},{handle}"})  # fmt: skip
        t = base + max([sample["done"]] + [end for _, _, end, _ in sample["work"]]) + 1e-4
        for call, peer, comm in (("MPI_Sendrecv", 1, 7), ("MPI_Allreduce", -1, -1)):
            calls.append({"rank": 0, "thread": 0, "student": 0, "call": call, "start": t,
                          "end": t + 1e-5, "done": -1, "posted": -1, "peer": peer, "count": 1,
                          "bytes": 8, "comm_id": comm, "live": 0, "requests": ""})  # fmt: skip
            t += 2e-5
        for thread, start, end, pieces in sample["work"]:
            work.append({"rank": 0, "thread": thread, "start": base + start, "end": base + end,
                         "pieces": pieces})  # fmt: skip
        records.append({"record": "sample", "variant": "student", "sample": s - 1,
                        "bytes": size, "threads": threads})  # fmt: skip
    return SimpleNamespace(mpi_calls=pd.DataFrame(calls), compute=pd.DataFrame(work),
                           records=pd.DataFrame(records))  # fmt: skip


def test_each_posting_moves_the_message_to_or_from_the_partner():
    """Lab 03 (d) (a fresh attacker's T03_zero and T03_self, 4/4 kept twice, 2026-12-05): a
    0-element MPI_Isend/MPI_Irecv pair held the window while `in` was made from `out`, or the
    whole exchange went to the rank itself. _check_postings reads each posting's bytes, peer and
    communicator from the trace against the run's sample records and the kit's own reveal call:
    `count` doubles, to and from `peer`, on `comm` (a receive may name MPI_ANY_SOURCE)."""
    from hybridlab.p2p.exercise import ANY_SOURCE, _check_postings

    ok = [{"post": 0.0, "done": 0.01, "work": [(0, 0.001, 0.002, 10)]}] * 3
    _check_postings(_exchange_trace(ok))
    anywhere = _exchange_trace(ok)
    anywhere.mpi_calls.loc[anywhere.mpi_calls["call"] == "MPI_Irecv", "peer"] = ANY_SOURCE
    _check_postings(anywhere)
    for change, says in (({"bytes": 0}, r"0 element\(s\), 0 bytes"),
                         ({"peer": 0}, "rank 0 .* as its peer, not the partner, rank 1"),
                         ({"comm": 8}, "another communicator")):  # fmt: skip
        bad = [ok[0], {**ok[1], **change}, ok[2]]
        with pytest.raises(AssertionError, match=says):
            _check_postings(_exchange_trace(bad))
    selfish = _exchange_trace(ok)  # a send to itself is no send to the partner, ANY_SOURCE or not
    selfish.mpi_calls.loc[selfish.mpi_calls["call"] == "MPI_Isend", "peer"] = 0
    with pytest.raises(AssertionError, match="MPI_Isend with rank 0"):
        _check_postings(selfish)


def test_the_values_received_cannot_be_made_from_the_ranks_own():
    """Lab 03 (d): the values a rank sends are drawn afresh for each sample and told to its
    partner only after the exchange returned (p2p_overlap.c), so T03_zero (a 0-element pair,
    `in` shifted from `out`) and T03_self (the whole exchange with itself, then shifted) fail on
    the first value received; the kit's pattern rank * 1e6 + sample * 1e3 + k % 997 let both
    keep 4/4."""
    from gaming import source_of
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    for why, name in (("fresh attacker (T03_zero)", "p2p_t03zero"),
                      ("fresh attacker (T03_self)", "p2p_t03self")):  # fmt: skip
        kernel = build_student_overlap(source_of("03_point_to_point", why), name)
        with pytest.raises(hl.KernelError, match="received value 0 is .* told no one before"):
            check_student_overlap(kernel, threads=(2,), steps=40, bytes=2**16, flops=500)


def test_a_team_that_computes_after_the_exchange_in_most_samples_is_a_stall():
    """Lab 03 (d) (a fresh attacker's T03_once2, 4/4 kept twice, 2026-12-05): the master posts
    and waits at once while the team idles, then the team computes, in every timed sample; only
    the untimed warm-up overlapped, and a window in which the master computed nothing was not
    judged. _check_stalls (c): in a window at least IDLE_WINDOW long in which the master computed
    fewer than steps / (2T) steps, more computing after it than inside while the other threads
    sat idle in it longer than that late computing took is a stall, in most samples a refusal.
    A communication thread whose team computes inside, the window short (the late rank's), or
    one such sample of three, is none."""
    from hybridlab.p2p.exercise import IDLE_WINDOW, _check_stalls

    long_ = 2 * IDLE_WINDOW
    overlapped = {"post": 0.0, "done": long_, "work": [(0, 0.001, 0.0011, 20), (1, 0.001, 0.0011, 20)]}
    after = long_ + 1e-5
    blocked = {"post": 0.0, "done": long_, "work": [(0, after, after + 1e-4, 20),
                                                    (1, after, after + 1e-4, 20)]}  # fmt: skip
    with pytest.raises(AssertionError, match=r"2 of 3 samples .* 20 steps \(100 us\) computed by the "
                                             "other threads after the exchange completed, 0 us "
                                             "of computing inside it"):
        _check_stalls(_exchange_trace([overlapped, blocked, blocked]), 2, 40)
    _check_stalls(_exchange_trace([overlapped, blocked, overlapped]), 2, 40)  # once: outvoted
    # a communication thread (the master computes nothing): its team computes inside the window
    comm = {"post": 0.0, "done": long_, "work": [(1, 0.001, 0.0012, 40)]}
    _check_stalls(_exchange_trace([comm] * 3), 2, 40)
    # ... and the same team idle in the window, computing only once it completed, is a stall
    idle = {"post": 0.0, "done": long_, "work": [(1, after, after + 2e-4, 40)]}
    with pytest.raises(AssertionError, match="3 of 3 samples"):
        _check_stalls(_exchange_trace([idle] * 3), 2, 40)
    # a short window (the late rank's): the message had waited for it; nothing to judge there
    # (a master that then computes its own share is judge_blocking's: test below)
    short = IDLE_WINDOW / 10
    quick = {"post": 0.0, "done": short, "work": [(1, short + 1e-5, short + 1e-4, 40)]}
    _check_stalls(_exchange_trace([quick] * 3), 2, 40)


def test_a_sample_blocked_by_program_order_is_refused_over_the_parts_runs():
    """Lab 03 (d) (a fresh attacker's G03_alt, 4/4 three times, 2026-12-05): with a team, every
    other call posted, waited in MPI_Waitall at once and computed after, the others overlapped:
    one sample in three per run, under _check_stalls' per-run majority. A window in which no
    thread computed, steps computed after it, is the program order's when the master waited
    and then computed steps of its own (any window length), or when the window was at least
    IDLE_WINDOW long (_blocked_at_once); _check_stalls returns those samples and judge_blocking
    (from judge_team) refuses two or more over the part's runs. A communication thread's team
    computing inside, a short window whose master computes nothing after, and a short window
    closed by one test found done before the master's steps are none."""
    from hybridlab.p2p.exercise import (
        BLOCKED,
        IDLE_WINDOW,
        LEAST,
        OTHERS,
        _check_stalls,
        judge_blocking,
        judge_team,
    )

    long_, short = 2 * IDLE_WINDOW, IDLE_WINDOW / 10
    overlapped = {"post": 0.0, "done": long_, "work": [(0, 0.001, 0.0011, 20), (1, 0.001, 0.0011, 20)]}

    def after(done, threads=(0, 1)):
        return {"post": 0.0, "done": done,
                "work": [(t, done + 1e-5, done + 1e-4, 40 // len(threads)) for t in threads]}

    def blocked(*samples, closing="MPI_Waitall"):
        res = _exchange_trace([overlapped, *samples, overlapped][:3])
        res.mpi_calls.loc[res.mpi_calls["call"] == "MPI_Waitall", "call"] = closing
        return _check_stalls(res, 2, 40)

    assert blocked(after(long_)) == [  # G03_alt's blocking sample
        "rank 0 sample 1: no step computed in the open exchange, closed by MPI_Waitall, then 20 "
        "of the master's own steps (40 steps computed after it)"]
    assert len(blocked(after(short))) == 1  # the master's share after its wait: any length
    assert "in the 10.0 ms" in blocked(after(long_, (1,)))[0]  # only the team after, long window
    assert blocked(after(short, (1,))) == []  # the late rank's short window: the team may be late
    comm = {"post": 0.0, "done": long_, "work": [(1, 0.001, 0.0012, 40)]}
    assert blocked(comm) == []  # a communication thread: its team computes inside
    assert blocked(after(short), closing="MPI_Testall") == []  # one test found it done at once
    row = {"threads": 2, OTHERS: 0.5, LEAST: 0.5, BLOCKED: []}
    one = {**row, BLOCKED: ["rank 0 sample 1: ..."]}
    judge_blocking([row, one, row])  # one sample over the part: a paused team may do that
    judge_team([{"threads": 2, OTHERS: 0.5, LEAST: 0.5}])  # rows without the count
    with pytest.raises(AssertionError, match="in 2 samples over this part's 3 runs"):
        judge_team([one, row, one])


def test_g03_alt_every_other_sample_blocking_is_refused():
    """G03_alt end to end (2 and 3 threads, the hidden test's 1 MB message): one blocking sample
    per run, two over the part."""
    from gaming import source_of
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    code = source_of("03_point_to_point", "fresh attacker (G03_alt)")
    with pytest.raises(AssertionError, match="in [23] samples over this part's 2 runs"):
        check_student_overlap(build_student_overlap(code, "p2p_g03alt"), threads=(2, 3), steps=40,
                              bytes=2**20, flops=500)


def test_steps_computed_before_the_posting_are_refused_over_the_parts_runs():
    """Lab 03 (d) (a fresh attacker's G03_tail, 4/4 twice, 2026-12-06): with a team, every step
    but one computed before the exchange was posted, the master posting and waiting at once, one
    held-back step computed inside the window: share > 0, no stall. _posted_late reads, per rank
    and sample, the steps computed before the exchange was in flight (its receive and its send
    posted; an interval across it counted in proportion); judge_posted_first (from judge_team)
    refuses the master's steps before it in two samples over the part's runs, and, in the runs
    with a team, three samples that left fewer than steps / (2T) for after it. Free threads that
    compute their share while a paused master has not yet posted are none, as long as the master
    keeps at least steps / (2T) + 1 (a static share, or half of one)."""
    from hybridlab.p2p.exercise import (
        BLOCKED,
        EARLY,
        LEAST,
        MASTER_FIRST,
        OTHERS,
        SAMPLED,
        _posted_late,
        judge_team,
    )

    def row(samples, threads=2):
        master_first, early, judged = _posted_late(_exchange_trace(samples, threads), threads)
        return {"threads": threads, OTHERS: 0.5, LEAST: 0.5, BLOCKED: [],
                MASTER_FIRST: master_first, EARLY: early, SAMPLED: judged}  # fmt: skip

    post, done = 0.001, 0.011
    tail = {"post": post, "done": done,  # G03_tail: the master's half and thread 1's before
            "work": [(0, 0.0, 0.0009, 20), (1, 0.0, 0.00099, 19), (1, 0.0011, 0.0012, 1)]}
    spin = {"post": post, "done": done,  # the master only spins: thread 1 computes them before
            "work": [(1, 0.0, 0.0009, 39), (1, 0.0011, 0.0012, 1)]}
    static = {"post": post, "done": done,  # thread 1's static share before a paused master's post
              "work": [(1, 0.0, 0.0009, 20), (0, 0.0011, 0.003, 20)]}
    half = {"post": post, "done": done,  # a master with half a share (39 / 4 + 1): 29 before
            "work": [(1, 0.0, 0.0009, 29), (0, 0.0011, 0.003, 10)]}
    half3 = {"post": post, "done": done,  # the same at three threads (37 / 6 + 1): 30 before
             "work": [(1, 0.0, 0.0009, 15), (2, 0.0, 0.0009, 15), (0, 0.0011, 0.003, 7)]}
    across = {"post": post, "done": done,  # thread 1's interval across the posting: 1/3 before
              "work": [(1, 0.0008, 0.0014, 36), (0, 0.0011, 0.003, 4)]}
    overlapped = {"post": 0.0, "done": done, "work": [(0, 0.001, 0.002, 20), (1, 0.001, 0.002, 20)]}

    first, early, judged = _posted_late(_exchange_trace([tail] * 3), 2)
    assert first[0] == "rank 0 sample 0: 20 of the master's steps before it posted"
    assert len(first) == 3 and judged == 3
    assert early[0] == "rank 0 sample 0: 39 of 40 steps before the exchange was posted"
    assert _posted_late(_exchange_trace([across] * 3), 2)[1] == []  # 12 of 40 before
    # the receive posted first, the send only once the steps were computed: nothing was in flight
    late_send = _exchange_trace([{**spin, "post": 0.0}] * 3)
    moved = late_send.mpi_calls["call"].isin(["MPI_Isend", "MPI_Waitall"])
    late_send.mpi_calls.loc[moved, ["start", "end"]] += 0.001
    assert _posted_late(late_send, 2)[1][2] == ("rank 0 sample 2: 39 of 40 steps before the "
                                                "exchange was posted")
    assert _posted_late(_exchange_trace([static, half, overlapped]), 2) == ([], [], 3)
    assert _posted_late(_exchange_trace([half3] * 3, 3), 3) == ([], [], 3)
    with pytest.raises(AssertionError, match="the master computed steps before it posted the "
                                             "exchange in 9 samples over this part's 3 runs"):
        judge_team([row([tail] * 3), row([tail] * 3, 3), row([tail] * 3)])
    # two samples over the part: the master's own program order
    with pytest.raises(AssertionError, match="in 2 samples over this part's 3 runs"):
        judge_team([row([tail, overlapped, tail]), row([overlapped] * 3, 3), row([overlapped] * 3)])
    judge_team([row([tail, overlapped, overlapped]), row([overlapped] * 3, 3),
                row([overlapped] * 3)])  # once: no refusal
    with pytest.raises(AssertionError, match=r"in 9 of the 9 samples \(ranks x samples\) of this "
                                             r"part's runs with a team, the steps were computed "
                                             r"before the exchange was posted"):
        judge_team([row([spin] * 3), row([spin] * 3, 3), row([spin] * 3)])
    with pytest.raises(AssertionError, match="in 3 of the 9 samples"):
        judge_team([row([spin, overlapped, overlapped]), row([overlapped, spin, overlapped], 3),
                    row([overlapped, overlapped, spin])])  # fmt: skip
    judge_team([row([spin, overlapped, overlapped]), row([overlapped] * 3, 3),
                row([overlapped, overlapped, spin])])  # twice: a paused machine may
    # a master paused before it posted, every sample, its share static or half a static one
    judge_team([row([half] * 3), row([half3] * 3, 3), row([static] * 3)])
    judge_team([row([spin] * 3, 1), row([overlapped] * 3), row([overlapped] * 3)])  # one thread
    judge_team([{"threads": 2, OTHERS: 0.5, LEAST: 0.5}])  # rows without the counts


def test_a_master_that_leaves_every_step_to_the_others_is_refused():
    """Lab 03 (d) (a fresh attacker's K1, 4/4 twice, 2026-12-07): with a team the master posts
    and blocks in MPI_Waitall at once, computing no step, while the other threads compute them
    all (a communication thread). _master_short reads, per rank and sample of a run of a team
    (every thread's steps slowed alike), the master's own steps; judge_master_share (from
    judge_team) refuses fewer than steps / (4T) in more than a quarter of the samples over the
    part's runs of a team (A11's d03_1, 2026-12-07: a communication thread in all but the run
    it could tell). A static share, half of one, or one short sample in four, is none."""
    from hybridlab.p2p.exercise import (
        LEAST,
        MASTER_SAMPLED,
        MASTER_SHORT,
        OTHERS,
        _master_short,
        judge_master_share,
        judge_team,
    )

    comm = {"post": 0.0, "done": 0.04, "work": [(1, 1e-5, 0.038, 40)]}
    token = {"post": 0.0, "done": 0.04, "work": [(0, 1e-5, 2e-5, 1), (1, 1e-5, 0.038, 39)]}
    static = {"post": 0.0, "done": 0.02, "work": [(0, 1e-5, 1e-4, 20), (1, 1e-5, 0.02, 20)]}
    half = {"post": 0.0, "done": 0.03, "work": [(0, 1e-5, 1e-4, 5), (1, 1e-5, 0.03, 35)]}

    def row(samples, threads=2):
        short, judged = _master_short(_exchange_trace(samples, threads), threads, 40)
        return {"threads": threads, MASTER_SHORT: short, MASTER_SAMPLED: judged}

    assert _master_short(_exchange_trace([comm, static, token]), 2, 40) == (
        ["2 threads, rank 0 sample 0: 0 of 40", "2 threads, rank 0 sample 2: 1 of 40"], 3)
    with pytest.raises(AssertionError, match=r"in the 3 runs of a team \(2 ranks, every thread's "
                                             r"steps slowed by 500 us\), the master computed "
                                             r"fewer than steps / \(4T\) of the steps in 9 of "
                                             r"the 9 samples .*2 threads, rank 0 sample 0: 0 of 40"):
        judge_master_share([row([comm] * 3), row([comm] * 3), row([comm] * 3, 3)])
    # a communication thread in one run of three (told apart by its thread count or its steps)
    with pytest.raises(AssertionError, match="in 3 of the 9 samples"):
        judge_master_share([row([static] * 3), row([half] * 3), row([token] * 3, 3)])
    with pytest.raises(AssertionError, match="in 3 of the 9 samples"):  # one sample in three
        judge_team([{**row([static, half, comm]), "threads": 2, OTHERS: 0.5, LEAST: 0.5}] * 3)
    judge_master_share([row([static, half, comm]), row([static] * 3), row([half] * 3)])  # 1 in 9
    judge_master_share([row([half] * 3), row([static] * 3, 3)])  # steps / (2T): 5 of 40 at T = 2
    judge_master_share([row([comm] * 3, 1)])  # one thread: not judged
    judge_master_share([{"threads": 2}])  # rows without the counts


def test_a_communication_thread_is_refused_in_every_run_of_a_team():
    """K1 and A11's communication thread end to end: every run of a team slowed alike (STEP_US),
    2 and 3 threads and the hidden test's 1 MB message; the master computes no step, or none
    outside the warm-up call; a dynamic schedule behind a barrier (an honest answer) takes
    about 1/T of them."""
    from gaming import source_of
    from honest import HERE as HONEST
    from hybridlab.p2p.exercise import MASTER_SHORT, build_student_overlap, check_student_overlap
    from wrong_answers import first_source, load

    shape = dict(threads=(2, 3), bytes=2**20, steps=37, flops=500, poll=3, timeout=60)
    for why, name in (("fresh attacker (A9 K1", "p2p_a9k1"),
                      ("fresh attacker A11's d03_1 without its clock", "p2p_a11warm")):  # fmt: skip
        with pytest.raises(AssertionError, match="the master computed fewer than steps / \\(4T\\)"):
            check_student_overlap(build_student_overlap(source_of("03_point_to_point", why), name),
                                  **shape)  # fmt: skip
    dynamic = first_source(load("03_point_to_point", HONEST, "HONEST"), "fresh attacker (h03b)")
    rows = check_student_overlap(build_student_overlap(dynamic, "p2p_h03b"), **shape)
    assert all(not row[MASTER_SHORT] for row in rows), rows


def test_a_clock_or_a_sleep_in_the_cell_is_refused_at_the_build():
    """Lab 03 (d) (a fresh attacker's A11 d03_1, 4/4 twice, 2026-12-07): the cell timed the
    other threads' steps with omp_get_wtime to tell the slowed run from the others. A clock
    read or a sleep (kernels.c_text.CLOCKS_AND_SLEEPS) is refused at the build, naming the
    cell's line; a constant hl_sleep_us in the loop that tests the requests (lab 01 (b)'s
    pause) is allowed."""
    from gaming import source_of
    from hybridlab.p2p.exercise import build_student_overlap, clock_faults
    from hybridlab.runs.student_c import preprocessed_lines

    def faults(code):
        pairs = preprocessed_lines("p2p_overlap", "HL_STUDENT_P2P_OVERLAP", code)
        return clock_faults("\n".join(text for _, text in pairs), [line for line, _ in pairs])

    with pytest.raises(ValueError, match=r"overlap_exchange: no omp_get_wtime \(line 25\): the "
                                         r"cell reads no clock"):
        build_student_overlap(source_of("03_point_to_point", "fresh attacker A11's d03_1 ("),
                              "p2p_a11d03")  # fmt: skip
    paused = source_of("03_point_to_point", "fresh attacker (attackI d03g)")
    assert faults(paused) == []  # hl_sleep_us(20) in its MPI_Testall loop
    assert faults(paused.replace("compute_step(0);", "compute_step(0); hl_sleep_us(20);"))
    assert faults(GOOD_OVERLAP) == []
    for clock, name in (("MPI_Wtime()", "MPI_Wtime"), ("usleep(5)", "usleep"),
                        ("(double)clock()", "clock"), ("hl_now()", "hl_now")):
        found = faults(GOOD_OVERLAP.replace("int done = 0;", f"int done = 0; double t = {clock};"))
        assert found and found[0].startswith(f"no {name} (line "), found


def test_g03_tail_and_the_team_computing_before_the_posting_are_refused():
    """G03_tail and its variants end to end (2 and 3 threads, the hidden test's 1 MB message):
    the master's steps before its posting, or the other threads' while the master spins, then a
    token step inside the window (by thread 1, or by the master, which then tests until done);
    the instructor's solution passes."""
    from gaming import source_of
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    for why, says in (("fresh attacker (G03_tail)", "the master computed steps before it posted"),
                      ("G03_tail with the master computing nothing", "steps were computed before the"),
                      ("the other threads compute every step but one while the master spins",
                       "steps were computed before the")):  # fmt: skip
        code = source_of("03_point_to_point", why)
        with pytest.raises(AssertionError, match=says):
            check_student_overlap(build_student_overlap(code, "p2p_g03tail"), threads=(2, 3),
                                  steps=40, bytes=2**20, flops=500)  # fmt: skip
    check_student_overlap(build_student_overlap(GOOD_OVERLAP), threads=(2, 3), steps=40,
                          bytes=2**20, flops=500)


def test_a_request_freed_in_flight_is_refused():
    """Lab 03 (d) (a fresh attacker's G03_sendfree, 4/4 twice, 2026-12-06): the MPI_Isend's
    request freed with MPI_Request_free at once, never completed, only the receive polled and
    waited. Lab 04 (a)'s rule (student_c.freed_in_flight) judges (d)'s calls too."""
    from gaming import source_of
    from hybridlab.p2p.exercise import build_student_overlap, check_student_overlap

    code = source_of("03_point_to_point", "fresh attacker (G03_sendfree)")
    with pytest.raises(AssertionError, match="MPI_Request_free of a request MPI_Isend posted and "
                                             "no wait or test completed"):
        check_student_overlap(build_student_overlap(code, "p2p_g03sendfree"), threads=(1, 2),
                              steps=40, bytes=2**20, flops=500)  # fmt: skip
