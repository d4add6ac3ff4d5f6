#!/usr/bin/env python
"""Grading a class: N submissions of labs 02 and 04 (solution, blank, faulty), sandboxed, from
nothing (a fresh course folder and gradebook; the kernel build cache as `make setup` leaves it),
in parallel (the default pool) and one at a time, with the solution's kernel runs replayed
(the default) and measured again (replay off, one at a time: the path before replay), written to
benchmarks/grading_results.md.

Where the time goes, per submission, from the grader's own records: the nbgrader process as a
whole, the notebook execution inside it (kernel and sandbox start + cells), the cells that start
a cluster, the other cells; the rest of the process is nbgrader itself (reading, restoring cells,
writing the gradebook). Nothing is asserted.

    python benchmarks/bench_grading.py [--submissions 30] [--sequential 10] [--labs 02_synchronisation,04_halo_exchange] [--own-runs] [--size full|quick]

--sequential K grades K submissions one at a time (K < N: the per-submission mean is also
scaled to N, and labelled so).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from _common import Progress
from _runner import Bench
from hybridlab.course import notebooks
from hybridlab.grading import autograde, course, gradebook, reference
from hybridlab.grading.execute import cell_key
from hybridlab.runs import own_runs

REPO = Path(__file__).resolve().parent.parent

FAULTY = {  # answer cell -> a wrong answer that fails fast
    "02_synchronisation": (
        "imbalance_report",
        "def imbalance_report(timeline):\n"
        '    return {"efficiency": len(timeline) / 0}  # divides by zero\n',
    ),
    "04_halo_exchange": (
        "exchange_halos",
        "%%c EXCHANGE_C halo2d\n"
        "void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n"
        "    (void)a; (void)m; (void)nx; (void)up; (void)down; (void)comm;  /* never exchanges */\n"
        "}\n",
    ),
}
# Submissions that cost the grader time, not points: every answer cell loops for ever ("hung"),
# or ends its own kernel ("killer"). What each answer cell becomes:
EVERY_ANSWER = {"hung": "while True:\n    pass\n", "killer": "import os\nos._exit(1)\n"}
KINDS = ("solution", "blank", "faulty", *EVERY_ANSWER)

say = Progress("bench_grading")


def student_runs(lab: str, quick: bool) -> Path:
    """The runs folder a student hands in: the solution run headless as a student runs it
    (at the benchmark's size, its kernel runs kept beside it: hybridlab.runs.own_runs)."""
    folder = Path(tempfile.mkdtemp(prefix=f"bench-student-{lab}-"))
    shutil.copytree(REPO / "grading" / "source" / lab, folder, dirs_exist_ok=True)
    saved = os.environ.pop("HYBRIDLAB_RUNS", None)
    start = time.monotonic()
    try:
        notebooks.run_notebook(folder / f"{lab}.ipynb", folder / "executed", quick=quick)
    finally:
        if saved is not None:
            os.environ["HYBRIDLAB_RUNS"] = saved
    runs = own_runs.runs_folder(folder / f"{lab}.ipynb")
    say(
        f"{lab}: a student's run kept {len(list(runs.glob('*-*.json')))} runs in "
        f"{time.monotonic() - start:.0f} s"
    )
    return runs


# The machine's speed at the work grading does most (starting Python and importing nbgrader, pandas
# and matplotlib): measured beside each run, so that runs on other days compare as ratios.
SPEED_PROBE = "import nbgrader.apps.autogradeapp, pandas, matplotlib.pyplot"


def machine_speed_s(repeat: int = 3) -> float:
    """Seconds of the best of `repeat` fresh Pythons running SPEED_PROBE."""
    best = float("inf")
    for _ in range(repeat):
        start = time.monotonic()
        subprocess.run([sys.executable, "-c", SPEED_PROBE], check=True)
        best = min(best, time.monotonic() - start)
    return best


def busy_cpu_s() -> float:
    """CPU seconds the whole machine has been busy since boot (/proc/stat: user, nice, system,
    irq, softirq, steal). The sandboxes' processes are not all this process's waited children,
    so their rusage would miss some; on a quiet machine the difference over a run is the run's."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


CPUACCT = Path("/sys/fs/cgroup/cpuacct")  # cgroup v1's CPU accounting, where the machine has it


class OwnCpu:
    """The CPU seconds of this process and everything it starts, from a cpuacct cgroup of its
    own (the sandboxes' memory and pids cgroups are other hierarchies: their processes stay
    counted), so a figure that other work on the machine does not enter. None where no cpuacct
    cgroup can be made (cgroup v2 only, or no permission)."""

    def __init__(self) -> None:
        self.group: Path | None = None
        try:
            group = CPUACCT / f"hybridlab-bench-{os.getpid()}"
            group.mkdir()
            (group / "cgroup.procs").write_text(str(os.getpid()))
            self.group = group
        except OSError:
            pass

    def seconds(self) -> float | None:
        if self.group is None:
            return None
        return int((self.group / "cpuacct.usage").read_text()) / 1e9

    def close(self) -> None:
        """This process back in the root group; the group removed once its last process left."""
        if self.group is not None:
            with contextlib.suppress(OSError):
                (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
                self.group.rmdir()


def _answered(solution, answers: dict[str, str] | None = None, every: str | None = None):
    """The solution with the answer cells named in `answers` (or every answer cell) replaced."""
    nb = nbformat.from_dict(json.loads(json.dumps(solution)))
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("solution") or meta.get("grade"):
            continue
        if every is not None:
            cell.source = every
        elif meta.get("grade_id") in (answers or {}):
            cell.source = answers[meta["grade_id"]]
    return nb


def make_class(
    root: Path, lab: str, n: int, released: Path, runs: Path | None = None,
    kinds: tuple[str, ...] = ("solution", "blank", "faulty"),
) -> dict[str, str]:  # fmt: skip
    solution = nbformat.read(course.source_notebook(root, lab), as_version=4)
    notebooks_by_kind = {"solution": solution, "blank": nbformat.read(released, as_version=4)}
    if "faulty" in kinds:
        answer_id, wrong = FAULTY[lab]
        notebooks_by_kind["faulty"] = _answered(solution, {answer_id: wrong})
    for kind, source in EVERY_ANSWER.items():
        notebooks_by_kind[kind] = _answered(solution, every=source)
    made = {}
    for i in range(n):
        kind = kinds[i % len(kinds)]
        student = f"s{i:03d}-{kind}"
        folder = root / "submitted" / student / lab
        folder.mkdir(parents=True)
        nbformat.write(notebooks_by_kind[kind], folder / f"{lab}.ipynb")
        if runs is not None:  # every submission hands in the same student's runs folder
            shutil.copytree(runs, own_runs.runs_folder(folder / f"{lab}.ipynb"))
        made[student] = kind
    return made


def phases(root: Path, lab: str) -> dict[str, float]:
    """Mean seconds per submission: process, execution, cluster-start cells, other cells (the
    parts graded apart with their test cells), the grader's guard cells, sandbox and kernel start
    (to the first cell)."""
    source = nbformat.read(course.source_notebook(root, lab), as_version=4)
    cluster_cells = {
        cell_key(c, i)
        for i, c in enumerate(source.cells)
        if c.cell_type == "code" and "Cluster(" in c.source
    }
    kinds = ("process", "execution", "cluster cells", "other cells", "guard cells", "start")
    rows = {k: [] for k in kinds}
    for rec in gradebook.load_records(course.read_lab(root, lab)).values():
        if not rec.get("phases"):
            continue
        p = rec["phases"][0]
        cells = p.get("cells", {})
        rows["process"].append(rec["seconds"])
        rows["execution"].append(p["total"])
        rows["cluster cells"].append(sum(v for k, v in cells.items() if k in cluster_cells))
        rows["other cells"].append(sum(v for k, v in cells.items() if k not in cluster_cells))
        rows["guard cells"].append(p.get("guard", 0.0))
        rows["start"].append(p.get("start", 0.0))
    return {k: statistics.mean(v) if v else 0.0 for k, v in rows.items()}


def one_lab(
    lab: str, n: int, jobs: int | None, label: str, *, replay: bool = True, runs: Path | None = None,
    kinds: tuple[str, ...] = ("solution", "blank", "faulty"), quick: bool = False,
) -> dict:  # fmt: skip
    """Grade n submissions of `lab` in a fresh course (`replay`: c.GradingPolicy.replay_runs; `runs`:
    the runs folder every submission hands in; `quick`: the problem sizes, the reference run's
    and the submissions' alike)."""
    root = Path(tempfile.mkdtemp(prefix=f"bench-grading-{lab}-")) / "course"
    root.mkdir(parents=True)
    config = (REPO / "grading" / "nbgrader_config.py").read_text()
    (root / "nbgrader_config.py").write_text(config + f"\nc.GradingPolicy.replay_runs = {replay}\n")
    shutil.copytree(REPO / "grading" / "source" / lab, root / "source" / lab)
    start = time.monotonic()
    (released,) = course.release([lab], root=root, labs_dir=root / "labs")
    release_s = time.monotonic() - start
    made = make_class(root, lab, n, released, runs, kinds)
    speed_s = machine_speed_s()
    load_before = os.getloadavg()[0]
    own = OwnCpu()  # made before the reference run: everything after it is counted
    start, cpu_start, own_start = time.monotonic(), busy_cpu_s(), own.seconds()
    timing = reference.reference_timing(course.read_lab(root, lab), quick=quick, sandboxed=True)
    reference_s = time.monotonic() - start
    say(f"{lab} {label}: reference run {reference_s:.0f} s; grading {n} submissions")
    report = autograde.grade(lab, root=root, jobs=jobs, quick=quick, progress=True)
    seconds, cpu_s = time.monotonic() - start, busy_cpu_s() - cpu_start
    own_s = None if own_start is None else own.seconds() - own_start
    own.close()
    rows = gradebook.rows(course.read_lab(root, lab))
    outcome = {}
    for r in rows:
        key = (made[r["student"]], r["outcome"])
        outcome[key] = outcome.get(key, 0) + 1
    result = {
        "lab": lab,
        "label": label,
        "kinds": list(kinds),
        "replay": replay,
        "size": "quick" if quick else "full",
        "n": n,
        "jobs": int(re.search(r"(\d+) at a time", report).group(1)),
        "release_s": release_s,
        "reference_s": reference_s,
        "grade_s": seconds,
        "cpu_s": cpu_s,
        "own_cpu_s": own_s,
        "speed_s": speed_s,
        "solution_s": timing["total"],
        "phases": phases(root, lab),
        "outcomes": {f"{k} -> {o}": c for (k, o), c in sorted(outcome.items())},
        "scores": {
            kind: sorted({r["total"] for r in rows if made[r["student"]] == kind}) for kind in kinds
        },
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "report_tail": report.splitlines()[0],
        "own_runs": runs is not None,
        "kernel_runs": sorted(
            {
                note
                for rec in gradebook.load_records(course.read_lab(root, lab)).values()
                for note in rec.get("notes", [])
                if note.startswith("kernel runs:")
            }
        )[:3],
    }
    shutil.rmtree(root.parent, ignore_errors=True)
    say(f"{lab} {label}: {seconds:.0f} s ({result['jobs']} at a time)")
    return result


GOAL_S = 120  # 30 submissions of any lab on 2 cores, quiet (issue 40; 180 s before)
HUNG_GOAL_S = 120  # a small class with a submission whose every answer hangs (issue 31)
SEQUENTIAL_MEASURING = "sequential, measuring"  # one at a time, no replay: the path before replay
OWN_RUNS = "parallel, own runs"  # every submission hands in a student's runs folder


def load_sentence(results: list[dict]) -> str:
    """What the recorded load averages say about the figures (the grading's own load included)."""
    loads = [r[k] for r in results for k in ("load_before", "load_after")]
    cpus = os.cpu_count() or 1
    span = f"the load average (1 min) was {min(loads):.1f}-{max(loads):.1f} on {cpus} CPUs"
    if min(r["load_before"] for r in results) > cpus:
        return (
            f"**The machine was busy with other work before these runs started** ({span}, "
            "before and after each run in the table): times are upper bounds of what an idle "
            "machine takes, and the parallel/sequential ratio is blurred."
        )
    return (
        f"No other work was running when each run started: {span}, the grading's own processes "
        "included (before and after each run in the table)."
    )


def goal_lines(results: list[dict]) -> list[str]:
    """Each parallel run of 30 against the goal."""
    lines = []
    for r in results:
        if r["label"] not in ("parallel", OWN_RUNS):
            continue
        hung = any(k in EVERY_ANSWER for k in r.get("kinds", ()))
        goal = HUNG_GOAL_S if hung else GOAL_S
        what = f"{r['n']} submissions of {r['lab']}" + (
            f" ({', '.join(r['kinds'])})" if hung else ""
        )
        lines.append(
            f"- goal, {what} in under {goal} s: {r['grade_s']:.0f} s, "
            + ("PASS" if r["grade_s"] < goal else "MISS")
        )
    return lines


def write(results: list[dict], bench: Bench) -> None:
    """The report and its JSON (with the machine), rewritten after every run."""
    args = bench.args
    lines = [
        load_sentence(results),
        "",
        *goal_lines(results),
        "",
        "Each run starts from nothing: a fresh course folder and gradebook, `nbgrader "
        "generate_assignment`, the solution's reference run in the sandbox (which sets the "
        "time limits and records the solution's kernel runs), then every submission in its own "
        "bubblewrap sandbox, at the problem sizes of `--size` (`size`: full, the course's "
        "default, or quick). With replay (the default) a submission gets the "
        "solution's recorded output for each kernel run it makes the same way, and its own C "
        "code and other runs run for real; `sequential, measuring` turns replay off "
        "(`c.GradingPolicy.replay_runs = False`) and grades one at a time: the grader's path before "
        f"replay. The class takes its submissions in turn from `--kinds {args.kinds}`: the "
        "instructor solution, the blank released lab, a faulty answer (lab 02: "
        "`imbalance_report` divides by zero; lab 04: `exchange_halos` never exchanges), `hung` "
        "(every answer cell loops for ever) and `killer` (every answer cell ends its kernel). "
        "`parallel, own runs` (with `--own-runs`) grades "
        "the same class with every submission handing in the runs folder of one student's "
        "headless run of the solution: its runs are checked and replayed before the "
        "reference run's.",
        "",
        "`CPU s per submission`: the CPU seconds the machine was busy from the reference run's "
        "start to the last submission's end (/proc/stat: every process, so only meaningful on "
        "a quiet machine), over the submissions; `own CPU s per submission`: the same span's CPU "
        "seconds of the grading's own processes alone (a cpuacct cgroup around the benchmark and "
        "everything it starts: other work on the machine does not enter it, so it compares runs "
        "made while the machine was busy; `-` where no such cgroup can be made). `speed probe s`: a fresh Python "
        f"importing nbgrader, pandas and matplotlib (`{SPEED_PROBE}`), best of 3, just before "
        "the run: most of a submission is that kind of work, so `grading / probe` compares "
        "runs made on days when the machine runs at another speed.",
        "",
        "| lab | run | size | replay | submissions | at a time | release s | reference s | grading s (incl. reference) | per submission s | CPU s per submission | own CPU s per submission | speed probe s | grading / probe | load before / after |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        cpu = f"{r['cpu_s'] / r['n']:.1f}" if "cpu_s" in r else "-"
        own = f"{r['own_cpu_s'] / r['n']:.1f}" if r.get("own_cpu_s") is not None else "-"
        probe = (
            f"{r['speed_s']:.2f} | {r['grade_s'] / r['speed_s']:.0f}" if "speed_s" in r else "- | -"
        )
        lines.append(
            f"| {r['lab']} | {r['label']} | {r.get('size', '?')} | "
            f"{'yes' if r.get('replay', True) else 'no'} | "
            f"{r['n']} | {r['jobs']} | {r['release_s']:.0f} | "
            f"{r['reference_s']:.0f} | {r['grade_s']:.0f} | {r['grade_s'] / r['n']:.1f} | "
            f"{cpu} | {own} | {probe} | {r['load_before']:.1f} / {r['load_after']:.1f} |"
        )
    lines += ["", "## The whole class: parallel beside one at a time", ""]
    for p in (r for r in results if r["label"] == "parallel"):
        for s in (r for r in results if r["lab"] == p["lab"] and r["label"] != "parallel"):
            if s["label"] == OWN_RUNS:
                lines.append(
                    f"- {p['lab']}: with the students' own runs {s['grade_s'] / s['n']:.1f} s "
                    f"per submission against {p['grade_s'] / p['n']:.1f} s with the reference "
                    f"run only ({s['n']} and {p['n']} submissions, reference run included; "
                    f"what served the runs: {'; '.join(s.get('kernel_runs', []))})"
                )
                continue
            scaled = (s["grade_s"] - s["reference_s"]) / s["n"] * p["n"] + s["reference_s"]
            lines.append(
                f"- {p['lab']}: parallel {p['grade_s']:.0f} s for {p['n']}; {s['label']} "
                f"{s['grade_s']:.0f} s for {s['n']}"
                + (
                    f", scaled to {p['n']}: {scaled:.0f} s (measured per submission x {p['n']} "
                    "+ its reference run, not run)"
                    if s["n"] != p["n"]
                    else ""
                )
                + f"; parallel is {scaled / p['grade_s']:.2f}x faster"
            )
    lines += [
        "",
        "## Where the time goes (mean seconds per submission)",
        "",
        "| lab | run | nbgrader process | notebook execution | cluster-start cells | other cells | guard cells | sandbox + kernel start | the rest of the execution (kernel stop, judging) | nbgrader itself |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        ph = r["phases"]
        lines.append(
            f"| {r['lab']} | {r['label']} | {ph['process']:.1f} | {ph['execution']:.1f} | "
            f"{ph['cluster cells']:.1f} | {ph['other cells']:.1f} | {ph['guard cells']:.1f} | "
            f"{ph['start']:.1f} | "
            f"{ph['execution'] - ph['cluster cells'] - ph['other cells'] - ph['guard cells'] - ph['start']:.1f} | "
            f"{ph['process'] - ph['execution']:.1f} |"
        )
    lines += [
        "",
        "In a parallel run the per-submission times overlap (each is longer than alone, "
        "the class is shorter).",
        "",
        "## Outcomes and scores",
        "",
    ]
    for r in results:
        lines.append(f"- {r['lab']} {r['label']}: {r['outcomes']}; totals by kind {r['scores']}")
    bench.report("Grading a class: sandboxed, parallel", lines, {"results": results})


def options(p) -> None:
    p.add_argument("--submissions", type=int, default=30)
    p.add_argument("--sequential", type=int, default=10)
    p.add_argument("--labs", default="02_synchronisation,04_halo_exchange")
    p.add_argument(
        "--own-runs",
        action="store_true",
        help="also grade the class with every submission handing in a student's runs folder",
    )
    p.add_argument(
        "--kinds",
        default="solution,blank,faulty",
        help=f"the class's submissions, in turn, from {', '.join(KINDS)}",
    )
    p.add_argument(
        "--size", choices=("full", "quick"), default="full",
        help="problem sizes graded at (full: the course's default size)",
    )
    p.add_argument(
        "--from-json", action="store_true", help="rewrite the report from its JSON, measure nothing"
    )


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_grading", __doc__, "grading_results.md", argv, repeats=None,
                  options=options, progress=say,
                  quick={"submissions": 4, "sequential": 0, "labs": "02_synchronisation"},
                  quick_help="4 submissions of lab 02, nothing sequential: a smoke run")  # fmt: skip
    args = bench.args
    if args.from_json:
        write(json.loads(args.out.with_suffix(".json").read_text())["results"], bench)
        say(f"rewrote {args.out} from its JSON")
        return 0
    kinds = tuple(args.kinds.split(","))
    quick = args.size == "quick"
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise SystemExit(f"bench_grading: unknown kinds {unknown}: choose from {', '.join(KINDS)}")
    results = []
    bench.checkpoint("before")
    for lab in args.labs.split(","):
        if "faulty" in kinds and lab not in FAULTY:
            raise SystemExit(
                f"bench_grading: no faulty answer for {lab}: leave 'faulty' out of --kinds"
            )
        results.append(one_lab(lab, args.submissions, None, "parallel", kinds=kinds, quick=quick))
        write(results, bench)
        if args.own_runs:
            runs = student_runs(lab, quick)
            results.append(one_lab(lab, args.submissions, None, OWN_RUNS, runs=runs, quick=quick))
            write(results, bench)
            shutil.rmtree(runs.parent, ignore_errors=True)
        if args.sequential:
            results.append(one_lab(lab, args.sequential, 1, "sequential", quick=quick))
            write(results, bench)
            results.append(
                one_lab(lab, args.sequential, 1, SEQUENTIAL_MEASURING, replay=False, quick=quick)
            )
            write(results, bench)
    bench.checkpoint("after")
    write(results, bench)
    say(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
