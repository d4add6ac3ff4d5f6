"""The benchmark kernel and script behave: records, errors, reports. No timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import hybridlab as hl
from hybridlab.kernels.build import build

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "run_benchmarks.py"


def test_bench_compute_builds_without_warnings():
    kernel = build("bench_compute")
    assert kernel.warnings == ()
    assert {"n", "samples"} <= kernel.params.keys()


def test_bench_compute_gives_one_record_per_sample_and_rank():
    n = 10_000
    res = hl.run_program("bench_compute", ranks=2, threads=1, n=n, samples=3)
    df = res.records
    assert len(df) == 6
    assert df.groupby("rank")["sample"].apply(sorted).tolist() == [[0, 1, 2], [0, 1, 2]]
    assert set(df["phase"]) == {"triad"}
    assert set(df["thread"]) == {0}
    assert (df["seconds"] > 0).all()
    assert (df["bytes"] == 24 * n).all()
    assert (df["inner"] >= 1).all()
    assert {"before", "after"} <= res.meta["probe"].keys()


@pytest.mark.parametrize("param", ["n", "samples"])
def test_a_bad_parameter_is_a_kernel_error_that_names_it(param):
    with pytest.raises(hl.KernelError, match=rf"parameter {param}=0 must be at least 1"):
        hl.run_program("bench_compute", ranks=2, threads=1, **{param: 0})


def test_run_benchmarks_quick_writes_the_report_and_the_json(tmp_path):
    out = tmp_path / "R.md"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--repeats", "1", "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "[bench" in done.stderr  # progress on stderr
    report = out.read_text()
    for heading in (
        "# hybridlab benchmarks",
        "## Machine",
        "## Cluster start and stop",
        "## Engines vs mpiexec",
        "## What the numbers mean",
    ):
        assert f"\n{heading}\n" in f"\n{report}", heading
    assert "Quick mode" in report
    assert "PASS" in report or "MISS" in report
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["quick"] is True and data["repeats"] == 1
    assert {"machine", "start_stop", "compare"} <= data.keys()
    assert len(data["start_stop"]["repeats"]) == 1
    assert [(c["ranks"], c["threads"]) for c in data["compare"]] == [(2, 1), (1, 2)]
    for c in data["compare"]:
        assert c["error"] is None
        assert sorted(r["mode"] for r in c["runs"]) == ["engines", "mpiexec"]
        assert c["ratio"] > 0


def test_the_osu_style_reference_of_bench_p2p_runs(tmp_path):
    """bench_p2p's side-by-side reference (benchmarks/p2p_osu.py) compiles and launches through
    the kit's launcher: one half round trip per size of its sweep."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import p2p_osu
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    seconds, command = p2p_osu.run_reference(p2p_osu.compile_reference(tmp_path))
    assert set(p2p_osu.SIZES) <= set(seconds)
    assert all(s > 0 for s in seconds.values())
    assert "osu_style_latency" in command


BENCHMARKS = sorted(p.name for p in (REPO / "benchmarks").glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("script", BENCHMARKS)
def test_every_benchmark_script_answers_help(script):
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / script), "--help"],
                          capture_output=True, text=True, timeout=120, cwd=REPO, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]


def test_bench_anchors_says_which_suites_it_did_not_find(tmp_path):
    out = tmp_path / "anchors.md"
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_anchors.py"), "--refs", str(tmp_path),
         "--only", "openmp,triad", "--out", str(out)],
        capture_output=True, text=True, timeout=120, cwd=REPO, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = out.read_text()
    assert "no `syncbench` (EPCC syncbench) found" in report
    assert "no `stream` (STREAM 5.10) found" in report
    assert "osu_latency" not in report  # only the groups asked for
    assert "- CPU:" in report and "Machine (lscpu):" in report
    assert str(tmp_path) not in report  # no machine's folders in a committed report


def test_bench_anchors_refuses_an_unknown_group(tmp_path):
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_anchors.py"), "--only", "openmp,fft",
         "--out", str(tmp_path / "a.md")],
        capture_output=True, text=True, timeout=120, cwd=REPO, check=False,
    )  # fmt: skip
    assert done.returncode != 0 and "unknown group(s) fft" in done.stderr
