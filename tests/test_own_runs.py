"""The student's own kernel runs (own_runs.py, replay.py): kept beside a notebook as it runs,
checked before grading uses them, replayed before the reference run. Real runs under mpiexec;
the sandboxed round trip is in test_grading_sandbox.py."""

from __future__ import annotations

import hashlib
import json
import shutil

import nbformat
import pytest

import hybridlab as hl
from hybridlab.course import notebooks
from hybridlab.runs import own_runs, replay
from test_build import GOOD as ANSWER  # a kernel that reports one parameter


def hello(spin_ms: int = 1):
    return hl.run_program("hello_hybrid", ranks=2, threads=1, spin_ms=spin_ms)


@pytest.fixture
def fresh(monkeypatch):
    """This process's count of runs reset, nothing kept unless a test says so."""
    monkeypatch.setattr(replay, "_seen", type(replay._seen)())
    monkeypatch.delenv(replay.OWN, raising=False)
    monkeypatch.delenv(replay.LOG, raising=False)
    monkeypatch.delenv("HYBRIDLAB_QUICK", raising=False)
    return monkeypatch


@pytest.fixture
def kept(fresh, tmp_path):
    """A runs folder as the kit writes it: two real runs of hello_hybrid (spin 1, then 2 ms)."""
    folder = tmp_path / "lab_runs"
    fresh.setenv(replay.ENV, f"record:{folder}")
    first, second = hello(1), hello(2)
    fresh.setattr(replay, "_seen", type(replay._seen)())
    fresh.setenv(replay.ENV, "off")
    return folder, first, second


def _redigest(folder):
    """Redo the index as a forger would (the checks cannot tell)."""
    index = json.loads((folder / own_runs.INDEX).read_text())
    index["runs"] = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.glob("*.json")
        if p.name != own_runs.INDEX
    }
    index["digest"] = hashlib.sha256(json.dumps(index["runs"], sort_keys=True).encode()).hexdigest()
    (folder / own_runs.INDEX).write_text(json.dumps(index))


def _run_of(folder, spin_ms):
    """The kept file of the run hello(spin_ms)."""
    (path,) = [
        p
        for p in folder.glob("*-0.json")
        if f"spin_ms={spin_ms}" in json.loads(p.read_text())["identity"]["argv"]
    ]
    return path


def test_a_notebook_keeps_its_runs_beside_itself(tmp_path, monkeypatch):
    monkeypatch.delenv(replay.ENV, raising=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import hybridlab as hl\n"
            "r = hl.run_program('hello_hybrid', ranks=1, threads=1, spin_ms=1)\n"
            "r = hl.run_program('hello_hybrid', ranks=1, threads=1, spin_ms=1)"
        )
    ]
    path = tmp_path / "my lab.ipynb"
    nbformat.write(nb, path)
    (tmp_path / "other.ipynb").write_text(path.read_text())  # the kernel must tell them apart
    notebooks.run_notebook(path, tmp_path / "out", quick=True)
    folder = tmp_path / "my lab_runs"
    runs = sorted(p.name for p in folder.iterdir())
    assert len(runs) == 3 and own_runs.INDEX in runs, runs  # 2 runs of one kind and the index
    summary = own_runs.check(folder, tmp_path / "checked", quick=True)
    assert summary["problem"] is None and summary["used"] == 2 and not summary["rejected"]
    data = json.loads((folder / runs[0]).read_text())
    assert data["identity"]["name"] == "hello_hybrid" and data["quick"] is True
    # grading in full mode does not take runs made with the quick sizes
    full = own_runs.check(folder, tmp_path / "checked-full", quick=False)
    assert full["used"] == 0 and "quick problem sizes" in next(iter(full["rejected"].values()))


def test_off_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(replay.ENV, "off")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import hybridlab as hl\nhl.run_program('hello_hybrid', ranks=1, spin_ms=1)"
        )
    ]
    nbformat.write(nb, tmp_path / "lab.ipynb")
    notebooks.run_notebook(tmp_path / "lab.ipynb", tmp_path / "out", quick=True)
    assert not (tmp_path / "lab_runs").exists()


def test_the_checks_take_intact_runs_and_leave_out_the_rest(kept, tmp_path):
    folder, _, _ = kept
    assert own_runs.check(folder, tmp_path / "a", quick=False)["used"] == 2
    first = _run_of(folder, 1)

    edited = tmp_path / "edited"
    shutil.copytree(folder, edited)
    data = json.loads((edited / first.name).read_text())
    (edited / first.name).write_text(json.dumps({**data, "seconds": 0.5}))
    (edited / "notes.txt").write_text("not a run")
    summary = own_runs.check(edited, tmp_path / "b", quick=False)
    assert summary["used"] == 1
    assert "content changed after it was recorded" in summary["rejected"][first.name]
    assert "not a run file" in summary["rejected"]["notes.txt"]
    assert not (tmp_path / "b" / first.name).exists()

    # consistent forgeries of the index still fail the checks of the run itself
    cases = {
        "another kernel under this run's name": (
            lambda d: d["identity"].update(name="bench_compute"),
            "identity does not match its name",
        ),
        "a failed self-check": (
            lambda d: d["texts"].__setitem__(
                0, [d["texts"][0][0], d["texts"][0][1] + '{"ok": 0}\n']
            ),
            "own check failed (ok=0)",
        ),
        "fields missing": (lambda d: d.pop("probes"), "incomplete (missing or malformed: probes)"),
        "records that are not JSON": (
            lambda d: d["texts"].__setitem__(0, [d["texts"][0][0], "garbage\n"]),
            "not the kernel's records",
        ),
    }
    for what, (change, why) in cases.items():
        forged = tmp_path / what.replace(" ", "-")
        shutil.copytree(folder, forged)
        data = json.loads((forged / first.name).read_text())
        change(data)
        (forged / first.name).write_text(json.dumps(data))
        _redigest(forged)
        summary = own_runs.check(forged, tmp_path / f"{forged.name}-checked", quick=False)
        assert why in summary["rejected"].get(first.name, ""), (what, summary)

    # a run of a kernel the kit does not have, under its own (consistent) name
    alien = tmp_path / "alien"
    shutil.copytree(folder, alien)
    data = json.loads(first.read_text())
    data["identity"]["name"] = "my_miner"
    name = f"{replay.key_of(data['identity'])}-0.json"
    (alien / name).write_text(json.dumps(data))
    _redigest(alien)
    summary = own_runs.check(alien, tmp_path / "alien-checked", quick=False)
    assert "a kernel the kit does not have" in summary["rejected"][name], summary


def test_a_folder_the_kit_did_not_write_is_not_used(kept, tmp_path):
    folder, _, _ = kept
    assert "there is none" in own_runs.check(None, tmp_path / "a", quick=False)["problem"]
    assert (
        "there is none" in own_runs.check(tmp_path / "nope", tmp_path / "b", quick=False)["problem"]
    )
    emptied = tmp_path / "emptied"
    emptied.mkdir()
    assert (
        "no readable index.json" in own_runs.check(emptied, tmp_path / "c", quick=False)["problem"]
    )
    edited = tmp_path / "edited"
    shutil.copytree(folder, edited)
    index = json.loads((edited / own_runs.INDEX).read_text())
    index["runs"]["0" * 24 + "-0.json"] = "0" * 64
    (edited / own_runs.INDEX).write_text(json.dumps(index))
    summary = own_runs.check(edited, tmp_path / "d", quick=False)
    assert "edited after the runs were recorded" in summary["problem"]
    assert not [p for p in (tmp_path / "d").iterdir() if p.name != replay.CHECKED]


def test_replay_takes_own_runs_first_then_the_reference_then_measures(kept, tmp_path, fresh):
    folder, first, second = kept
    # the reference run: hello(1) twice; the student's folder has hello(1) and hello(2) once
    reference = tmp_path / "reference"
    fresh.setenv(replay.ENV, f"record:{reference}")
    hello(1)
    ref_again = hello(1)  # a second run of the same kind: only the reference has it

    checked = tmp_path / "checked"
    own_runs.check(folder, checked, quick=False)
    log = tmp_path / "log.jsonl"
    fresh.setattr(replay, "_seen", type(replay._seen)())
    fresh.setenv(replay.ENV, f"replay:{reference}")
    fresh.setenv(replay.OWN, str(checked))
    fresh.setenv(replay.LOG, str(log))
    got = [hello(1), hello(2), hello(1), hello(3)]
    assert [r.meta.get("replayed") for r in got] == ["own", "own", "reference", None]
    assert got[0].meta["seconds"] == first.meta["seconds"]
    assert got[1].meta["seconds"] == second.meta["seconds"]
    assert got[2].meta["seconds"] == ref_again.meta["seconds"]
    assert replay.OWN_WARNING in got[0].warnings and replay.WARNING in got[2].warnings
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["source"] for e in entries] == ["own", "own", "reference", "measured"]
    assert "no such run" in entries[2]["why"] and "reference run has none" in entries[3]["why"]


def test_a_run_made_under_srun_is_the_run_grading_makes_under_mpiexec(fresh, tmp_path):
    """On a Slurm hub the student's runs go through srun, grading's through the sandbox's
    mpiexec: the launcher is not part of a run's identity, its placement is. make test has no
    Slurm: the recorded run is made by this machine's mpiexec and recorded as srun's (run_path.run's
    run_by, what launch.run_program passes under srun); test_slurm.py records under a real srun."""
    from hybridlab.runs import run_path

    folder = tmp_path / "lab_runs"
    fresh.setenv(replay.ENV, f"record:{folder}")
    real_run = run_path.run
    fresh.setattr(run_path, "run", lambda *a, **k: real_run(*a, **{**k, "run_by": "srun"}))
    on_hub = hello(1)
    fresh.setattr(run_path, "run", real_run)
    assert on_hub.meta["run_by"] == "srun"
    (recorded,) = folder.glob("*-0.json")
    assert json.loads(recorded.read_text())["identity"]["how"] == "program"
    assert own_runs.check(folder, tmp_path / "checked", quick=False)["used"] == 1

    log = tmp_path / "log.jsonl"
    fresh.setattr(replay, "_seen", type(replay._seen)())
    fresh.setenv(replay.ENV, f"replay:{tmp_path / 'no-reference'}")
    fresh.setenv(replay.OWN, str(tmp_path / "checked"))
    fresh.setenv(replay.LOG, str(log))
    graded = hello(1)  # the sandbox's launcher: mpiexec
    assert graded.meta["replayed"] == "own" and graded.meta["run_by"] == "mpiexec"
    assert graded.meta["seconds"] == on_hub.meta["seconds"]
    assert graded.records["cpu"].tolist() == on_hub.records["cpu"].tolist()
    # another placement of the same kernel and arguments is another run: measured
    fresh.setattr(replay, "_seen", type(replay._seen)())
    spread = hl.run_program("hello_hybrid", ranks=2, threads=1, bind="cores", spin_ms=1)
    assert "replayed" not in spread.meta
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["source"] for e in entries] == ["own", "measured"]
    assert "no such run (same kernel, arguments, placement" in entries[1]["why"]




def test_c_built_in_the_notebook_is_run_by_the_grader_not_taken_from_the_folder(fresh, tmp_path):
    kernel = hl.build_source("answer", ANSWER)
    folder = tmp_path / "lab_runs"
    fresh.setenv(replay.ENV, f"record:{folder}")
    hl.run_program(kernel, ranks=1, value=7)
    summary = own_runs.check(folder, tmp_path / "checked", quick=False)
    assert summary["used"] == 0
    assert "C code written in the notebook" in next(iter(summary["rejected"].values()))
    # even a run file slipped into the checked copy is not taken for notebook C
    for p in folder.glob("*-0.json"):
        shutil.copy(p, tmp_path / "checked" / p.name)
    fresh.setattr(replay, "_seen", type(replay._seen)())
    fresh.setenv(replay.ENV, f"replay:{tmp_path / 'no-reference'}")
    fresh.setenv(replay.OWN, str(tmp_path / "checked"))
    fresh.setenv(replay.LOG, str(tmp_path / "log.jsonl"))
    again = hl.run_program(kernel, ranks=1, value=7)
    assert "replayed" not in again.meta and again.records["value"].tolist() == [7]
    (entry,) = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert entry["source"] == "measured" and "never taken from your runs folder" in entry["why"]


def test_the_students_check_passes_a_lab_whose_own_c_runs_are_not_replayed(fresh, tmp_path):
    """A lab with a C cell: its runs are never replayed by design, which is no failure."""
    from hybridlab import cli
    from hybridlab.runs import course_size

    course_size.write(tmp_path, "quick")
    (tmp_path / "lab.ipynb").write_text("{}")
    folder = tmp_path / "lab_runs"
    _record(fresh, folder, True, 1)
    fresh.setenv("HYBRIDLAB_QUICK", "1")
    fresh.setenv(replay.ENV, f"record:{folder}")
    hl.run_program(hl.build_source("answer", ANSWER), ranks=1, value=7)
    ok, text = course_size.check_runs(tmp_path / "lab.ipynb")
    assert ok, text
    assert "1 of C code you wrote in the notebook, which grading builds and runs again" in text
    assert "not usable at all" not in text
    assert cli.main(["check-runs", str(tmp_path / "lab.ipynb")]) == 0


def test_a_folder_that_cannot_be_written_does_not_stop_the_lab(fresh, tmp_path):
    fresh.delenv(replay.ENV, raising=False)  # a student's notebook keeps its runs
    blocked = tmp_path / "lab_runs"
    blocked.write_text("a file where the folder would go")
    with pytest.warns(UserWarning, match="cannot be kept"):
        replay.record(blocked / "x-0.json", {"name": "k"}, [], {}, 0.0, [])
    fresh.setenv(replay.ENV, f"record:{blocked}")  # the reference run must be complete
    with pytest.raises(OSError):
        replay.record(blocked / "x-0.json", {"name": "k"}, [], {}, 0.0, [])


# ------------------------------------------------------------------- sizes (issue 31)


def _record(fresh, folder, quick: bool | None, *spins: int) -> None:
    """Real runs of hello(spin) kept in `folder`, at the quick sizes, the full ones, or (None)
    as the course file in the working folder says."""
    if quick is None:
        fresh.delenv("HYBRIDLAB_QUICK", raising=False)
    else:
        fresh.setenv("HYBRIDLAB_QUICK", "1" if quick else "0")
    fresh.setenv(replay.ENV, f"record:{folder}")
    for spin in spins:
        hello(spin)
    fresh.setattr(replay, "_seen", type(replay._seen)())
    fresh.setenv(replay.ENV, "off")
    fresh.delenv("HYBRIDLAB_QUICK", raising=False)


def test_a_lab_runs_at_the_course_size_unless_HYBRIDLAB_QUICK_says(fresh, tmp_path):
    from hybridlab.runs import course_size

    fresh.chdir(tmp_path)  # where a released lab runs: beside its notebook
    assert hl.quick_mode() is False and hl.grading_size_note() == "full mode"  # not released
    course_size.write(tmp_path, "quick")
    assert hl.quick_mode() is True
    assert hl.grading_size_note() == "quick mode, the size this course grades at"
    fresh.setenv("HYBRIDLAB_QUICK", "0")  # the student's (or the grader's) choice wins
    assert hl.quick_mode() is False
    assert "this course grades at the quick size" in hl.grading_size_note()
    fresh.delenv("HYBRIDLAB_QUICK")
    # a run records the size it was made at: the course's here
    _record(fresh, tmp_path / "lab_runs", None, 1)
    (path,) = (tmp_path / "lab_runs").glob("*-0.json")
    assert json.loads(path.read_text())["quick"] is True
    with pytest.raises(ValueError, match="expected one of quick, full"):
        course_size.write(tmp_path, "medium")


def test_a_folder_is_checked_at_the_size_most_of_its_runs_were_made_at(fresh, tmp_path):
    full = tmp_path / "full_runs"
    _record(fresh, full, False, 1, 2)
    quick, summary = own_runs.check_sizes(full, tmp_path / "a", quick=True)
    assert quick is False and summary["used"] == 2 and not summary["rejected"]
    assert len(list((tmp_path / "a").glob("*-0.json"))) == 2
    assert not (tmp_path / "a-other-size").exists()
    assert own_runs.other_size(own_runs.check(full, tmp_path / "b", quick=True)) == 2
    # mixed: the size with more usable runs, at least half of the folder
    mixed = tmp_path / "mixed_runs"
    _record(fresh, mixed, True, 1)
    _record(fresh, mixed, False, 2, 3)
    quick, summary = own_runs.check_sizes(mixed, tmp_path / "c", quick=True)
    assert (quick, summary["used"], len(summary["rejected"])) == (False, 2, 1)
    _record(fresh, mixed, True, 4, 5)
    quick, summary = own_runs.check_sizes(mixed, tmp_path / "d", quick=True)
    assert (quick, summary["used"], len(summary["rejected"])) == (True, 3, 2)
    assert len(list((tmp_path / "d").glob("*-0.json"))) == 3  # the quick ones only
    # a folder of the grading size, or an unusable one, stays at the grading size
    assert own_runs.check_sizes(full, tmp_path / "e", quick=False)[0] is False
    assert own_runs.check_sizes(None, tmp_path / "f", quick=True)[0] is True


def test_the_students_check_says_whether_the_runs_match(fresh, tmp_path, capsys):
    from hybridlab import cli
    from hybridlab.runs import course_size

    for name, quick in (("matching", True), ("other", False)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "lab.ipynb").write_text("{}")
        course_size.write(tmp_path / name, "quick")
        _record(fresh, tmp_path / name / "lab_runs", quick, 1, 2)
    ok, text = course_size.check_runs(tmp_path / "matching" / "lab.ipynb")
    assert ok, text
    assert text == (
        "lab_runs: 2 run file(s); 2 made at the quick problem sizes, the size this course grades "
        "at. Grading replays them: hand the folder in with the notebook."
    )
    ok, text = course_size.check_runs(tmp_path / "other" / "lab.ipynb")
    assert not ok
    assert "0 made at the quick problem sizes, the size this course grades at; 2 at the full" in (
        text
    )
    assert "grade this notebook at the full sizes with these runs if" in text
    assert "delete lab_runs, restart the kernel and run all cells again" in text
    # the notebook's function prints the same; the command exits 1 when they do not match
    assert hl.check_my_runs(tmp_path / "other" / "lab.ipynb") is False
    assert capsys.readouterr().out.strip() == text
    assert cli.main(["check-runs", str(tmp_path / "other" / "lab.ipynb")]) == 1
    assert cli.main(["check-runs", str(tmp_path / "matching" / "lab.ipynb")]) == 0
    assert cli.main(["check-runs", "--size", "full", str(tmp_path / "other" / "lab.ipynb")]) == 0
    # no runs folder: every part from the reference runs
    (tmp_path / "none").mkdir()
    ok, text = course_size.check_runs(tmp_path / "none" / "lab.ipynb")
    assert not ok and "not usable: there is none" in text and "no .hybridlab-course.json" in text
