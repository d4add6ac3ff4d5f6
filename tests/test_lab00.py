"""Lab 00 runs headless: the instructor solution cleanly, the released lab up to its blanks.

Both leave no process of their session and no orphaned MPI shared-memory segment behind.
"""

from __future__ import annotations

import glob
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from hybridlab import reaper, runner

ROOT = Path(__file__).resolve().parents[1]
LAB = "00_getting_started"
SOURCE = ROOT / "grading" / "source" / LAB / f"{LAB}.ipynb"
RELEASED = ROOT / "labs" / f"{LAB}.ipynb"
SHM = "/dev/shm/mpich_shm_*"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def orphaned_segments(before: set[str]) -> list[str]:
    """MPICH segments that appeared since `before` and that no live process maps or holds open."""
    new = set(glob.glob(SHM)) - before
    for proc in psutil.process_iter():
        if not new:
            break
        try:
            new -= {m.path for m in proc.memory_maps(grouped=True)}
            new -= {f.path for f in proc.open_files()}
        except (psutil.Error, OSError):
            continue
    return sorted(new)


@pytest.fixture
def session(monkeypatch):
    """Run a notebook and afterwards check that it left nothing behind.

    The runner reaps its session at the end; the wrapper records which session that was and
    how many processes it had to kill, so the test can look for survivors itself."""
    seen: dict[str, int] = {}
    original = reaper.reap

    def recording_reap(value: str) -> int:
        seen[value] = original(value)
        return seen[value]

    monkeypatch.setattr(reaper, "reap", recording_reap)
    before = set(glob.glob(SHM))
    yield seen
    assert seen, "the runner did not reap its session"
    for value, killed in seen.items():
        assert reaper.tagged(value) == [], f"processes of session {value} survived"
        print(f"session {value}: the reaper killed {killed} leftover process(es)")
    assert orphaned_segments(before) == [], "MPI shared-memory segments were left behind"


def errors(nb: nbformat.NotebookNode) -> list[tuple[int, nbformat.NotebookNode, dict]]:
    return [
        (i, cell, out)
        for i, cell in enumerate(nb.cells)
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]


def test_solution_runs_clean_in_quick_mode(tmp_path, session):
    start = time.monotonic()
    executed, figures = runner.run_notebook(SOURCE, tmp_path, quick=True, timeout=600)
    seconds = time.monotonic() - start
    print(f"instructor notebook, quick mode: {seconds:.1f} s, {len(figures)} figures")
    nb = nbformat.read(executed, as_version=4)
    assert errors(nb) == []
    assert len(figures) >= 3, f"expected at least 3 figures, got {len(figures)}"
    assert all(f.stat().st_size > 1000 for f in figures)
    text = "".join(out.get("text", "") for cell in nb.cells for out in cell.get("outputs", []))
    assert "visible tests for (a) passed" in text
    assert "visible test for (c) passed" in text


def _is_blank_exercise_error(out: dict) -> bool:
    """NotImplementedError, raised here or (for ring_exchange) on the engines."""
    if out["ename"] == "NotImplementedError":
        return True
    return out["ename"] == "CompositeError" and "NotImplementedError" in out["evalue"]


def test_released_lab_fails_only_at_its_blanks(tmp_path, session):
    start = time.monotonic()
    executed, figures = runner.run_notebook(
        RELEASED, tmp_path, quick=True, timeout=600, allow_errors=True
    )
    print(f"released notebook, quick mode: {time.monotonic() - start:.1f} s")
    nb = nbformat.read(executed, as_version=4)
    found = errors(nb)
    assert found, "the released lab's exercise tests should fail before they are answered"
    for index, cell, out in found:
        where = f"cell {index}: {cell.source[:80]!r}"
        assert _is_blank_exercise_error(out), f"unexpected {out['ename']} in {where}"
        assert "nbgrader" in cell.metadata, f"an error outside the exercises, in {where}"
    failing = {cell.metadata["nbgrader"]["grade_id"] for _, cell, _ in found}
    assert {"test_cores_per_rank", "test_shared_cpus", "test_ring_exchange"} <= failing
    assert len(figures) >= 3
