"""No function a student can import computes a graded answer (issue 28): every function and class
of the installed hybridlab package, public or private, top-level or a method, is called with each
graded part's hidden inputs (tests/gaming/<lab>.py, ORACLES), and none may return a value the
instructor's judge accepts. Functions that start processes are left out (they compute nothing a
part asks and may not be called with arbitrary values); each call is bounded in time."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import signal
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import pytest

import hybridlab
from gaming import oracles
from hybridlab.grading import known_labs

LABS = known_labs(Path(__file__).resolve().parents[1] / "grading")
# Modules that start, stop or kill processes, or grade: nothing there computes a lab's answer.
SKIPPED = (
    "hybridlab.engines.cluster", "hybridlab.engines.controller", "hybridlab.engines.supervisor",
    "hybridlab.engines.engine", "hybridlab.runs.launch", "hybridlab.runs.run_path",
    "hybridlab.machine.launcher", "hybridlab.machine.reaper", "hybridlab.machine.probe",
    "hybridlab.kernels.build", "hybridlab.course.kernelspec", "hybridlab.course.notebooks",
    "hybridlab.course.doctor", "hybridlab.course.labsettings", "hybridlab.grading", "hybridlab.cli",
    "hybridlab.slurm.jobs", "hybridlab.slurm.steps",
    "hybridlab.engines.once",  # starts MPI jobs; its seal's audit hook cannot be removed
)  # fmt: skip
SKIPPED_NAMES = ("run", "start", "stop", "kill", "reap", "build", "launch", "main", "show", "save")
SECONDS = 1


def _modules():
    for info in pkgutil.walk_packages(hybridlab.__path__, "hybridlab."):
        if info.name.startswith(SKIPPED):
            continue
        try:
            yield importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - a module that needs what is absent is not reachable
            continue


def kit_callables() -> dict[str, object]:
    """'module.name' -> every function, class and method defined in the package."""
    found: dict[str, object] = {}
    for module in _modules():
        for name, value in vars(module).items():
            if any(word in name.lower() for word in SKIPPED_NAMES):
                continue
            if inspect.isfunction(value) and value.__module__.startswith("hybridlab"):
                found[f"{value.__module__}.{value.__qualname__}"] = value
            elif inspect.isclass(value) and value.__module__.startswith("hybridlab"):
                found[f"{value.__module__}.{value.__qualname__}"] = value
                for attr, member in vars(value).items():
                    if any(word in attr.lower() for word in SKIPPED_NAMES):
                        continue
                    if isinstance(member, staticmethod | classmethod):
                        found[f"{value.__module__}.{value.__qualname__}.{attr}"] = getattr(
                            value, attr)
    return found


UNINTERRUPTED = ("/numba/", "/llvmlite/")  # stopped inside, they leave LLVM objects half freed
# (a clean-clone run under load segfaulted in llvmlite's __del__ after a timed-out compile)


def _inside(frame, folders: tuple[str, ...]) -> bool:
    while frame is not None:
        if any(f in frame.f_code.co_filename for f in folders):
            return True
        frame = frame.f_back
    return False


@contextmanager
def _bounded(seconds: int):
    """Raise TimeoutError after `seconds`, but never inside numba or llvmlite: there the alarm
    comes again a moment later (at most a minute more)."""
    deadline = time.monotonic() + seconds + 60

    def stop(_, frame):
        if _inside(frame, UNINTERRUPTED) and time.monotonic() < deadline:
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            return
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _answers(func, oracle) -> bool:
    try:
        with _bounded(SECONDS), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = func(*oracle.args, **oracle.kwargs)
        return bool(oracle.is_answer(got))
    except BaseException:  # noqa: BLE001 - anything that fails to answer is not an answer
        return False


@pytest.mark.parametrize("lab", LABS)
def test_no_kit_function_returns_a_graded_answer(lab, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # whatever a function given these inputs writes stays here
    judged = oracles(lab)
    if not judged:
        pytest.skip(f"{lab}: no graded function takes inputs a kit function could be given")
    kit = kit_callables()
    assert len(kit) > 100, "the scan found too few kit functions to mean anything"
    found = [f"{oracle.part}: {name}" for oracle in judged for name, func in kit.items()
             if _answers(func, oracle)]
    assert found == [], "kit functions that compute a graded answer:\n" + "\n".join(found)


def test_the_scan_finds_a_kit_function_that_answers():
    """The scan itself can fail: a judge that accepts what a known kit function returns."""
    from gaming import Oracle
    from hybridlab.runs import stats

    probe = Oracle("probe", ([1.0, 2.0, 3.0, 4.0],),
                   lambda got: _close(getattr(got, "median", None), 2.5))
    hits = [name for name, func in kit_callables().items() if _answers(func, probe)]
    assert f"{stats.__name__}.summarize" in hits, hits


def _close(got, want: float) -> bool:
    try:
        return abs(float(got) - want) <= 1e-12
    except (TypeError, ValueError):
        return False
