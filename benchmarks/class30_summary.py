"""One table of every lab's latest class-of-30 record (issue 40.3).

Reads benchmarks/grading_class30_NN_results.json (one lab per file, as bench_grading.py writes it
with --out) and writes grading_class30_summary.md: the time each lab's class of 30 took, the
speed probe measured in the same run, and that time scaled to the fastest probe among the
records, so that labs recorded on slower hours compare with the others.

    python benchmarks/class30_summary.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORD = re.compile(r"grading_class30_(\d\d)_results\.json")
GOAL_S = 120


def records() -> list[dict]:
    """The parallel run of each lab's record file, with the file's machine."""
    found = []
    for path in sorted(HERE.glob("grading_class30_*_results.json")):
        if not RECORD.fullmatch(path.name):
            continue
        data = json.loads(path.read_text())
        for run in data["results"]:
            if run["label"] == "parallel" and run.get("speed_s"):
                found.append({**run, "machine": data["machine"], "file": path.name})
    return found


def table(found: list[dict]) -> list[str]:
    """The summary's Markdown lines."""
    fastest = min(r["speed_s"] for r in found)
    passed = sum(r["grade_s"] < GOAL_S for r in found)
    scaled_pass = sum(r["grade_s"] * fastest / r["speed_s"] < GOAL_S for r in found)
    lines = [
        "# A class of 30, every lab: the latest records",
        "",
        "Written by `python benchmarks/class30_summary.py` from each lab's "
        "`grading_class30_NN_results.json` (`bench_grading.py --submissions 30 --sequential 0 "
        "--labs LAB --kinds solution,blank --size quick`, one lab a run, nothing else running). "
        "The speed probe (a fresh Python importing nbgrader, pandas and matplotlib, best of 3, "
        "just before the run) varied between records on the same VM: the identical import took "
        f"{fastest:.2f}-{max(r['speed_s'] for r in found):.2f} s. `at the fastest probe` scales "
        f"each time by {fastest:.2f} s / its own probe: what the class would have taken in the "
        "fastest hour seen, assuming the grading slows as the probe does.",
        "",
        f"- under {GOAL_S} s as measured: {passed} of {len(found)} labs; at the fastest probe: "
        f"{scaled_pass} of {len(found)}",
        "",
        "| lab | date (UTC) | git | grading s | probe s | grading / probe | at the fastest probe s "
        "| own CPU s a submission | goal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in found:
        scaled = r["grade_s"] * fastest / r["speed_s"]
        own = f"{r['own_cpu_s'] / r['n']:.1f}" if r.get("own_cpu_s") else "-"
        goal = "PASS" if r["grade_s"] < GOAL_S else "MISS"
        if goal == "MISS" and scaled < GOAL_S:
            goal += " (at the fastest probe: PASS)"
        lines.append(
            f"| {r['lab']} | {r['machine']['date'][:16].replace('T', ' ')} | "
            f"{r['machine']['git'].split()[0]} | {r['grade_s']:.0f} | {r['speed_s']:.2f} | "
            f"{r['grade_s'] / r['speed_s']:.0f} | {scaled:.0f} | {own} | {goal} |"
        )
    return lines


def main() -> None:
    found = records()
    if not found:
        raise SystemExit("no grading_class30_NN_results.json with a speed probe in benchmarks/")
    out = HERE / "grading_class30_summary.md"
    out.write_text("\n".join(table(found)) + "\n")
    print(f"{out.name}: {len(found)} labs")


if __name__ == "__main__":
    main()
