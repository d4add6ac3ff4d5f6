"""A real nbgrader round trip on every lab, in a temporary copy of the course folder.

Slow (every lab in full, about 15 minutes on 2 cores): `make test-grading-full` runs it; the
bad-input cases run on a tiny lab in test_grading_sandbox.py, within `make test`.
Per lab, one release and one sandboxed grading run serve every check: three students submit
the instructor solution, the blank released lab, and a solution one of whose answers deadlocks
(labs 00 and 04: a ring or halo exchange; lab 10: a whole program whose rank 0 waits for a
message nobody sends, so every cell that runs it runs past its cell time limit), crashes (lab 01:
a C kernel that segfaults on rank 1) or raises or answers wrongly (labs 02, 03, 06, 07 and 08,
whose graded exercises run no MPI code; lab 05: bandwidth from the mean of all passes instead of
STREAM's best after the first; lab 09: a numba kernel that is right but serial).
"""

from __future__ import annotations

import copy
import csv
import glob
import html
import io
import re
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from conftest import SHM, orphaned_segments
from faulty_kernels import UNSAFE_EXCHANGE
from gaming import load as gaming_attempts
from honest import load as honest_answers
from hybridlab import grading
from hybridlab.machine import reaper
from whole_program_c import JACOBI_PROGRAM
from wrong_answers import Wrong, c_cell, together
from wrong_answers import load as wrong_answers

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Broken:
    """A submission whose answer to one part deadlocks or crashes."""

    answer: str  # grade_id of the answer cell replaced
    source: str  # what the student wrote instead
    parts: frozenset[str]  # grade_ids of the test cells that must score zero
    error: str  # the exception those test cells end with (or words of the error it shows)
    # ungraded cells besides test_<answer> that run the answer too, so fail or time out with it
    also: frozenset[str] = frozenset()


DEADLOCKING_RING = """
def ring_exchange():
    \"\"\"Blocking synchronous send first on every rank: nobody ever reaches the receive.\"\"\"
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    comm.ssend(rank, dest=(rank + 1) % size)
    return comm.recv(source=(rank - 1) % size)
"""

CRASHING_FIX = """
fixed_source = racy_source.replace(
    "int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {",
    "int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {\\n    if (ctx->rank == 1) { volatile int *p = 0; *p = 1; }",
)
"""

FAILING_REPORT = """
def imbalance_report(timeline):
    master = timeline[timeline["thread"] == 0]
    spent = (master["end"] - master["start"]).groupby([master["phase"], master["rank"]]).sum()
    return {"efficiency": len(spent) / 0, "lost_rank_seconds": 0.0, "predicted_seconds": 0.0}
"""

FAILING_KNEE = """
def locate_knee(sizes, seconds):
    return sorted(sizes)[len(sizes)]  # one past the end
"""

DEADLOCKING_HALO = c_cell("EXCHANGE_C", "halo2d", UNSAFE_EXCHANGE)

WRAPPING_CUT = """
def cut_edges(rows, cols, node_of_rank):
    count = 0  # wraps around at the edges: a torus, not the grid that was asked for
    for r in range(rows):
        for c in range(cols):
            rank = r * cols + c
            count += node_of_rank[rank] != node_of_rank[r * cols + (c + 1) % cols]
            count += node_of_rank[rank] != node_of_rank[((r + 1) % rows) * cols + c]
    return count
"""

WRONG_MESSAGE_COUNT = """
def alltoall_messages(n, cores, threads):
    ranks = cores // threads
    return ranks, 16 * n**3 // ranks  # counts its own block; sends its whole slab to each rank
"""

FORGOTTEN_RESERVE = """
def epsilon(f_comm, n, m=1, f_non=0.0):
    f = np.asarray(f_comm, dtype=float)
    return 1.0 / (f_non + np.maximum(f / m, 1.0 - f - f_non))  # n - m threads as fast as n


def eps_bounds(n, m=1):
    return 1.0 + m * (1.0 - 1.0 / n), 1.0 - m / n
"""

MEAN_BANDWIDTH = """
def bandwidth_table(raw):
    \"\"\"Averages every pass, the first included: not STREAM's best of N.\"\"\"
    mean = raw.groupby("threads").agg(best_s=("seconds", "mean"), nbytes=("bytes", "first"))
    mean["gb_s"] = mean["nbytes"] / mean["best_s"] / 1e9
    mean["pct_of_max"] = 100 * mean["gb_s"] / mean["gb_s"].max()
    mean["speedup"] = mean["gb_s"] / mean["gb_s"].loc[1]
    mean["efficiency"] = mean["speedup"] / mean.index
    return mean
"""

SERIAL_SWEEP = """
@numba.njit
def jacobi_sweep3d(u, new):  # right values, but range instead of prange: one thread does it all
    delta = 0.0
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            for k in range(1, u.shape[2] - 1):
                v = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                     + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                delta += (v - u[i, j, k]) ** 2
                new[i, j, k] = v
    return delta
"""

# lab 10: a whole program whose rank 0 waits for a message nobody sends. Every cell that runs it
# waits for its job (the visible test of the job script, the traced run, the hidden test, whose
# jobs have 90 s) and is stopped first by its own cell time limit (4x the solution's time in that
# cell, at least 10 s): the grader zeroes the cell ("the cell ran past its time limit"), ends the
# job with the sandbox and runs the notebook again without that cell.
TIME_LIMIT = "ran past its time limit"  # what the grader writes in a cell stopped at its limit
WAITING_PROGRAM = "%%c JACOBI_C\n" + JACOBI_PROGRAM.replace(
    "    MPI_Barrier(MPI_COMM_WORLD);\n    double t0",
    "    if (rank == 0) MPI_Recv(&n, 1, MPI_LONG, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n"
    "    MPI_Barrier(MPI_COMM_WORLD);\n    double t0",
)

LABS = {
    "00_getting_started": Broken(
        "ring_exchange",
        DEADLOCKING_RING,
        frozenset({"hidden_ring_exchange"}),
        "KernelTimeout",
    ),
    "01_programming_models": Broken(
        "fixed_source",
        CRASHING_FIX,
        frozenset({"hidden_fixed_source"}),
        "KernelCrash",
    ),
    "02_synchronisation": Broken(
        "imbalance_report",
        FAILING_REPORT,
        frozenset({"hidden_imbalance_report"}),
        "ZeroDivisionError",
    ),
    "03_point_to_point": Broken(
        "locate_knee",
        FAILING_KNEE,
        frozenset({"hidden_locate_knee"}),
        "IndexError",
    ),
    "04_halo_exchange": Broken(
        "exchange_halos",
        DEADLOCKING_HALO,
        frozenset({"hidden_exchange_halos"}),
        "KernelTimeout",
    ),
    "06_placement_topology": Broken(
        "cut_edges",
        WRAPPING_CUT,
        frozenset({"hidden_cut_edges"}),
        "AssertionError",
    ),
    "07_collectives": Broken(
        "alltoall_messages",
        WRONG_MESSAGE_COUNT,
        frozenset({"hidden_alltoall_messages"}),
        "AssertionError",
    ),
    "08_predicting_at_scale": Broken(
        "epsilon",
        FORGOTTEN_RESERVE,
        frozenset({"hidden_epsilon"}),
        "AssertionError",
    ),
    "09_python_kernels": Broken(
        "jacobi_sweep3d",
        SERIAL_SWEEP,
        frozenset({"hidden_jacobi_sweep3d"}),
        "AssertionError",
    ),
    "10_whole_program": Broken(
        "jacobi_program",
        WAITING_PROGRAM,
        frozenset({"hidden_jacobi_program"}),
        TIME_LIMIT,
        frozenset({"test_job_script", "shapes_runs", "traced_run"}),
    ),
    "05_memory_numa": Broken(
        "bandwidth_table",
        MEAN_BANDWIDTH,
        frozenset({"hidden_bandwidth_table"}),
        "AssertionError",
    ),
    "11_shared_memory": Broken(
        "shm_jacobi",
        c_cell("SHM_C", "shm_halo", (
            "void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above,\n"
            "                double *halo_below) {\n"
            "    int rank;\n    MPI_Comm_rank(comm, &rank);\n"
            "    if (rank == 1) { volatile int *p = 0; *p = 1; }\n}")),
        frozenset({"hidden_shm_jacobi"}),
        "KernelCrash",
    ),
    "12_threads_communicate": Broken(
        "exchange_slice",
        c_cell("MULTIPLE_C", "thread_halo", (
            "void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {\n"
            "    for (int t = 0; t < nthreads; t++) comms[t] = comm;\n}\n"
            "void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {\n"
            "    int rank;\n    MPI_Comm_rank(mine, &rank);\n"
            "    if (rank == 1) { volatile int *p = 0; *p = 1; }\n}")),
        frozenset({"hidden_exchange_slice"}),
        "KernelCrash",
    ),
    "13_neighbourhood_collectives": Broken(
        "neighbour_exchange",
        c_cell("NEIGHBOUR_C", "neighbour_halo", (
            "MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {\n"
            "    int size, periods[2] = {0, 0};\n    MPI_Comm grid;\n"
            "    MPI_Comm_size(comm, &size);\n    MPI_Dims_create(size, 2, dims);\n"
            "    MPI_Cart_create(comm, 2, dims, periods, 1, &grid);\n    return grid;\n}\n"
            "void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {\n"
            "    int rank;\n    MPI_Comm_rank(grid, &rank);\n"
            "    if (rank == 1) { volatile int *p = 0; *p = 1; }\n"
            "    (void)a, (void)m, (void)n;\n}")),
        frozenset({"hidden_neighbour_exchange"}),
        "KernelCrash",
    ),
    "14_simulated_scale": Broken(
        "hybrid_iteration",
        "def hybrid_iteration(t_point, local_points, threads, efficiency, network):\n"
        "    return t_point * local_points / (efficiency - efficiency) + network\n",
        frozenset({"hidden_hybrid_iteration"}),
        "ZeroDivisionError",
    ),
    "15_offload": Broken(
        "jacobi_offload",
        c_cell("JACOBI_C", "offload_halo", (
            "void jacobi_offload(double *u, double *unew, long m, long w, long iterations,\n"
            "                    int device, MPI_Comm comm) {\n"
            "    int rank;\n    MPI_Comm_rank(comm, &rank);\n"
            "    if (rank == 1) { volatile int *p = 0; *p = 1; }\n"
            "#pragma omp target map(tofrom : u[0:w]) device(device)\n"  # (b) computes on a device
            "    u[w / 2] = 0.5 * u[w / 2] + 1.0;\n"
            "    (void)unew, (void)m, (void)iterations;\n}")),
        frozenset({"hidden_jacobi_offload"}),
        "KernelCrash",
    ),
    "16_tools": Broken(
        "count_bins",
        c_cell("COUNT_C", "race_bins", (
            "void count_bins(long n, int nbins, long *bins) {\n"
            "    (void)n, (void)nbins, (void)bins;\n"
            "    volatile int *p = 0; *p = 1;\n}")),
        frozenset({"hidden_count_bins"}),
        "KernelCrash",
    ),
}

# lab -> a part about the student's own runs: (answer cell, the variable the solution computes
# there and a student may type in from their own run instead, the hidden test that runs the cell
# again apart on runs it draws: a typed number scores nothing, with or without the runs folder)
OWN_DATA = {
    "00_getting_started": ("piling_slowdown", "slowdown", "hidden_piling_slowdown"),
}

pytestmark = [pytest.mark.slow, pytest.mark.grading_full, pytest.mark.timeout(3600)]


def packed(attempts: list[Wrong]) -> list[Wrong]:
    """Wrong answers, gaming attempts and honest answers packed into as few submissions as their
    answer cells allow: at most one attempt per answer cell in each, no two that lose the same
    cell (each must be seen losing it for its own reason), and no honest answer beside an
    attempt that loses its part (it must be seen keeping it). Cells run in order, so an attempt
    can change only the hidden tests after its cell, and any it changes on its own are already in
    its `loses`: a submission must lose exactly the union of its attempts' parts and keep every
    other point (a failure names every attempt in it)."""
    rounds: list[list[Wrong]] = []
    for attempt in attempts:
        cells = {cell for cell, _ in attempt.answers}
        free = [
            r for r in rounds
            if not cells & {c for m in r for c, _ in m.answers}
            and not (attempt.loses | _keeps(attempt)) & {g for m in r for g in m.loses}
            and not attempt.loses & {g for m in r for g in _keeps(m)}
        ]
        if free:
            free[0].append(attempt)
        else:
            rounds.append([attempt])
    return [together(*r) if len(r) > 1 else r[0] for r in rounds]


def _keeps(answer: Wrong) -> set[str]:
    """The hidden cells an honest answer must be seen keeping (hidden_<its answer cell>): no
    attempt that loses them shares its submission."""
    return ({f"hidden_{cell}" for cell, _ in answer.answers if cell not in answer.blank}
            if answer.kind == "honest" else set())  # fmt: skip


def source(lab: str) -> Path:
    return ROOT / "grading" / "source" / lab / f"{lab}.ipynb"


def points(lab: str) -> dict[str, float]:
    """grade_id -> points of every autograded test cell of the instructor notebook (written
    answers, graded by hand in the formgrader, are left out)."""
    nb = nbformat.read(source(lab), as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
        and not c.metadata["nbgrader"].get("solution")
    }


def with_answers(solution: nbformat.NotebookNode, mistake: Wrong) -> nbformat.NotebookNode:
    """The solution with the answer cells a wrong answer names replaced."""
    nb = copy.deepcopy(solution)
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    for grade_id, text in mistake.answers:
        assert grade_id in cells, f"no answer cell {grade_id!r} ({mistake.why})"
        cells[grade_id].source = text
    return nb


def submit(root: Path, lab: str, student: str, nb: nbformat.NotebookNode) -> None:
    folder = root / "submitted" / student / lab
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{lab}.ipynb")


@pytest.fixture(scope="module", params=sorted(LABS))
def course(request, tmp_path_factory):
    """Release one lab in a copy of grading/, then autograde three submissions in one run."""
    lab, broken = request.param, LABS[request.param]
    root = tmp_path_factory.mktemp(f"course-{lab}")
    shutil.copy(ROOT / "grading" / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "grading" / "source", root / "source")
    timings = {}

    start = time.monotonic()
    (released,) = grading.release([lab], root=root, labs_dir=root / "labs")
    timings["release"] = time.monotonic() - start

    solution = nbformat.read(source(lab), as_version=4)
    faulty = copy.deepcopy(solution)
    replaced = 0
    for cell in faulty.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == broken.answer:
            cell.source = broken.source.strip()
            replaced += 1
    assert replaced == 1, f"{lab} has no answer cell {broken.answer!r}"
    submit(root, lab, "solution", solution)
    submit(root, lab, "blank", nbformat.read(released, as_version=4))
    submit(root, lab, "faulty", faulty)
    # each loses exactly its parts; the honest answers none
    wrongs = packed(wrong_answers(lab) + gaming_attempts(lab) + honest_answers(lab))
    for i, mistake in enumerate(wrongs):
        submit(root, lab, f"wrong{i:02d}", with_answers(solution, mistake))
    own = lab in OWN_DATA
    if own:  # a student's answer typed in from their own run, with and without their runs
        student = nbformat.read(released, as_version=4)  # what a student runs: no hidden tests
        answers = {
            c.metadata["nbgrader"]["grade_id"]: c.source
            for c in solution.cells
            if c.metadata.get("nbgrader", {}).get("solution")
        }
        for cell in student.cells:
            cell.source = answers.get(
                cell.metadata.get("nbgrader", {}).get("grade_id"), cell.source
            )
        answer, typed = own_run_answer(lab, student, tmp_path_factory.mktemp(f"student-{lab}"))
        submit(root, lab, "own", typed)
        shutil.copytree(answer, root / "submitted" / "own" / lab / f"{lab}_runs")
        submit(root, lab, "ownless", typed)

    tag = f"test-grading-{uuid.uuid4().hex[:8]}"
    shm_before = set(glob.glob(SHM))
    start = time.monotonic()
    report = grading.grade(lab, root=root, quick=True, tag=tag, progress=False)
    timings["grade (3 submissions)"] = time.monotonic() - start
    print(report)
    print(lab, "timings:", {k: f"{v:.0f} s" for k, v in timings.items()})

    def autograded(student: str) -> nbformat.NotebookNode:
        return nbformat.read(root / "autograded" / student / lab / f"{lab}.ipynb", as_version=4)

    return SimpleNamespace(
        lab=lab,
        broken=broken,
        points=points(lab),
        root=root,
        released=released,
        report=report,
        tag=tag,
        shm_before=shm_before,
        scores={
            student: {g: v for g, v in got.items() if g in points(lab)}
            for student, got in grading.scores(grading.read_lab(root, lab)).items()
        },
        autograded=autograded,
        timings=timings,
        wrongs=wrongs,
        own=own,
    )


def own_run_answer(lab: str, solution, folder: Path) -> tuple[Path, nbformat.NotebookNode]:
    """Run a student's answered notebook headless as they do (quick, runs kept beside it);
    return its runs folder and the notebook with OWN_DATA's answer typed in from that run."""
    import os

    from hybridlab.course import notebooks
    from hybridlab.runs import own_runs

    answer_id, name, _ = OWN_DATA[lab]
    nb = copy.deepcopy(solution)
    nb.cells.append(nbformat.v4.new_code_cell(f"print('OWN-VALUE', repr(float({name})))"))
    path = folder / f"{lab}.ipynb"
    nbformat.write(nb, path)
    saved = os.environ.pop("HYBRIDLAB_RUNS", None)  # the tests' default is off
    try:
        executed, _ = notebooks.run_notebook(path, folder / "executed", quick=True, timeout=1200)
    finally:
        if saved is not None:
            os.environ["HYBRIDLAB_RUNS"] = saved
    text = "".join(
        o.get("text", "")
        for c in nbformat.read(executed, as_version=4).cells
        for o in c.get("outputs", [])
    )
    value = float(re.search(r"OWN-VALUE (\S+)", text).group(1))
    typed = copy.deepcopy(solution)
    for cell in typed.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == answer_id:
            lines = cell.source.splitlines()
            last = max(i for i, line in enumerate(lines) if line.startswith(f"{name} = "))
            lines[last] = f"{name} = {value!r}  # typed in from my run"
            cell.source = "\n".join(lines)
    return own_runs.runs_folder(path), typed


def test_a_students_runs_folder_is_used_and_a_number_typed_from_it_scores_nothing(course):
    if not course.own:
        pytest.skip(f"{course.lab} has no part in OWN_DATA")
    part = OWN_DATA[course.lab][2]
    assert course.scores["own"] == {**course.points, part: 0.0}, course.report
    assert course.scores["ownless"] == {**course.points, part: 0.0}, course.report
    lines = [
        o["text"]
        for c in course.autograded("own").cells
        for o in c.get("outputs", [])
        if o.get("name") == "stdout" and o.get("text", "").startswith("Data: ")
    ]
    # the lab's runs came from the student's folder (the hidden tests' own runs, which the
    # student never made, from the reference run)
    assert any("your own runs (" in line for line in lines), lines


def test_committed_lab_is_up_to_date(course):
    fresh = nbformat.read(course.released, as_version=4)
    committed = nbformat.read(ROOT / "labs" / f"{course.lab}.ipynb", as_version=4)
    stale = f"labs/{course.lab}.ipynb is out of date with grading/source: run `make release`"
    assert [c.cell_type for c in fresh.cells] == [c.cell_type for c in committed.cells], stale
    for new, old in zip(fresh.cells, committed.cells, strict=True):
        assert new.source == old.source, f"{stale}\n(first difference in: {old.source[:80]!r})"
        assert new.metadata.get("nbgrader") == old.metadata.get("nbgrader"), stale
    assert all(not c.get("outputs") for c in committed.cells if c.cell_type == "code")


def manual_points(lab: str) -> float:
    """Points of the written answers, which the formgrader scores by hand after autograding."""
    nb = nbformat.read(source(lab), as_version=4)
    return sum(
        float(c.metadata["nbgrader"]["points"])
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade") and c.metadata["nbgrader"].get("solution")
    )


def test_solution_gets_full_marks(course):
    assert course.scores["solution"] == course.points
    total = sum(course.points.values())
    most = total + manual_points(course.lab)  # the report's maximum counts the written answers
    assert re.search(rf"solution\s.*\s{total:g} / {most:g}", course.report), course.report


def test_blank_lab_gets_zero_without_a_timeout(course):
    assert set(course.scores["blank"]) == set(course.points)
    assert all(score == 0 for score in course.scores["blank"].values())
    nb = course.autograded("blank")
    names = {o.ename for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"}
    assert "KernelTimeout" not in names and "CellTimeoutError" not in names
    assert not any(ran_too_long(o) for c in nb.cells for o in c.get("outputs", [])), course.report


def ran_too_long(output) -> bool:
    """An error output of a timeout: the kit's (KernelTimeout, JobTimeout) or nbclient's, or the
    grader's cell time limit (the cell zeroed and the notebook run again without it)."""
    return output.output_type == "error" and (
        "Timeout" in output.ename or TIME_LIMIT in str(output.get("evalue", ""))
    )


def test_a_deadlock_or_crash_loses_only_its_part_and_leaves_nothing(course):
    broken = course.broken
    expected = {gid: (0.0 if gid in broken.parts else p) for gid, p in course.points.items()}
    assert course.scores["faulty"] == expected
    nb = course.autograded("faulty")
    # a kernel's own timeout, or the grader's limit of the cell when that comes first (a cell's
    # limit is 4x its reference time: often shorter than a kernel run's timeout)
    failed = {
        c.metadata.get("nbgrader", {}).get("grade_id")
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.output_type == "error"
        and (broken.error in (o.ename + o.evalue) or ("Timeout" in broken.error and ran_too_long(o)))
    }
    # the part: its hidden cells and the ungraded visible tests before them (and the other
    # ungraded cells that run the answer)
    part = broken.parts | {g.replace("hidden_", "test_", 1) for g in broken.parts} | broken.also
    assert failed & part, f"{broken.error} expected in {sorted(part)}: {failed}"
    timed_out = {
        c.metadata.get("nbgrader", {}).get("grade_id")
        for c in nb.cells
        for o in c.get("outputs", [])
        if ran_too_long(o)
    }
    assert timed_out <= part, f"cells outside the broken part timed out: {timed_out}"
    assert reaper.tagged(f"{course.tag}-faulty") == [], "processes of the autograde run survived"
    assert orphaned_segments(course.shm_before) == [], "MPI shared memory was left behind"


def test_each_wrong_answer_loses_exactly_its_parts(course):
    wrong = []
    for i, mistake in enumerate(course.wrongs):
        expected = {gid: (0.0 if gid in mistake.loses else p) for gid, p in course.points.items()}
        got = course.scores[f"wrong{i:02d}"]
        if got != expected:
            diff = {g: (got.get(g), expected[g]) for g in expected if got.get(g) != expected[g]}
            wrong.append(f"wrong{i:02d} [{mistake.kind}] ({mistake.why}): (scored, expected) {diff}")
    assert wrong == [], "\n".join(wrong)


def errors_of(nb: nbformat.NotebookNode) -> dict[str, str]:
    """grade_id -> "ename: evalue" of each graded cell that ended in an error (the grader's
    record an instructor reads; the student's feedback keeps only the name)."""
    return {
        c.metadata["nbgrader"]["grade_id"]: "\n".join(
            f"{o.ename}: {o.evalue}" for o in c.get("outputs", []) if o.output_type == "error"
        )
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade_id")
        and any(o.output_type == "error" for o in c.get("outputs", []))
    }


def test_each_attempt_loses_for_its_stated_reason(course):
    """An attempt that names its reason lost its part with that error, not with another (a C
    string that does not compile, a name an earlier cell left undefined)."""
    wrong = []
    for i, submission in enumerate(course.wrongs):
        errors = errors_of(course.autograded(f"wrong{i:02d}"))
        for mistake in submission.each():
            if not mistake.reason:
                continue
            seen = {g: errors.get(g, "(no error)") for g in sorted(mistake.loses)}
            if not any(r in e for r in mistake.reason.split(" | ") for e in seen.values()):
                wrong.append(f"wrong{i:02d} [{mistake.kind}] ({mistake.why}): wanted "
                             f"{mistake.reason!r}, the cells ended with {seen}")
    assert wrong == [], "\n".join(wrong)


def _hidden_lines(lab: str) -> set[str]:
    """Lines between the hidden-test markers that are not also visible code."""
    hidden, shown = set(), set()
    for cell in nbformat.read(source(lab), as_version=4).cells:
        inside = False
        for line in cell.source.splitlines():
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            else:
                (hidden if inside else shown).add(line.strip())
    return {h for h in hidden if len(h) >= 20 and not any(h in s for s in shown)}


def test_feedback_exists_without_hidden_tests(course):
    lab = course.lab
    lines = _hidden_lines(lab)
    assert len(lines) > 5
    pages = sorted((course.root / "feedback").glob(f"*/{lab}/{lab}.html"))
    assert {"solution", "blank", "faulty"} <= {p.parts[-3] for p in pages}
    for page in pages:
        raw = page.read_text()
        text = html.unescape(re.sub(r"<[^>]+>", "", raw))
        student = page.parts[-3]
        own = {  # what the student wrote is theirs to see, even where a hidden test has it too
            line.strip()
            for path in (course.root / "submitted" / student / lab).glob("*.ipynb")
            for cell in nbformat.read(path, as_version=4).cells
            for line in cell.source.splitlines()
        }
        leaked = [line for line in lines if line in text and line not in own]
        assert leaked == [], f"{student}'s feedback shows hidden tests: {leaked[:3]}"
        assert "Score" in text
    assert grading.feedback_leaks(grading.read_lab(course.root, lab)) == []
    students = 3 + len(course.wrongs) + (2 if course.own else 0)
    rows = csv.DictReader(io.StringIO((course.root / "grades.csv").read_text()))
    assert sum(1 for row in rows if row["lab"] == lab) == students
    assert "hidden_" in (course.root / "grades.csv").read_text().splitlines()[0]
