"""A real one-node Slurm cluster: the engines and programs start through srun, lab 00 runs in it.

The test configures and starts munged (as the munge user), slurmctld and slurmd (as root) in a
scratch folder with ports of their own, and waits until the node is idle. Then, with the
notebook's process in the shell of `salloc -n 2` and again as a job step (as batchspawner starts
JupyterLab): a Cluster, a kernel on its 2 ranks, a crash and a restart, standalone programs with
each bind, a run kept under srun given back to the same run under mpiexec (slurm_job.py); lab 00's
instructor notebook headless in quick mode; and lab 10's whole program and batch script submitted
by hybridlab.slurm.jobs through the real `sbatch --wait` (each shape, its threads' binding, a
traced run, an over-request refused). Everything is stopped afterwards, and the test checks that
no daemon, step or engine of it is left.

Run with `make test-slurm`; `make test` leaves it out (marker `slurm`). Needs root and Debian's
slurm-wlm and munge (`apt-get install slurm-wlm munge`); skipped with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from hybridlab.runs import compliance
from hybridlab.slurm import jobs
from hybridlab.slurm.local_slurm import SlurmCluster, started, why_slurm_cannot_run
from whole_program_c import JACOBI_PROGRAM, JOB_SCRIPT, PROBE_PROGRAM, reference_checksum

pytestmark = [pytest.mark.slurm, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[1]
LAB = "00_getting_started"
JOB_SECONDS = 600  # one salloc'd job at most (lab 00 in quick mode is one of them)


@pytest.fixture(scope="module")
def slurm():
    why = why_slurm_cannot_run()
    if why:
        pytest.skip(why)
    with started() as cluster:  # fails at teardown if a process of it is left
        yield cluster


# Where the notebook runs: in the shell of `salloc -n 2` (JupyterLab started from it), or as a
# job step of a one-task job with 2 CPUs (as batchspawner's `srun jupyterhub-singleuser` does).
SHELL = ["salloc", "-n", "2"]
STEP = ["salloc", "-n", "1", "--cpus-per-task=2", "srun", "-n", "1", "--cpus-per-task=2"]


def salloc(slurm: SlurmCluster, command: list[str], where: list[str] = SHELL):
    """Run `command` inside an allocation (`where`); fail with the output and the daemons' logs
    when it fails."""
    try:
        done = slurm.run(
            [*where, *command],
            timeout=JOB_SECONDS, check=False, cwd=ROOT,
            env={**slurm.env, "PYTHONPATH": str(ROOT / "tests")},
        )  # fmt: skip
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"salloc did not finish within {JOB_SECONDS} s: {err}\n{slurm.logs()}")
    if done.returncode != 0:
        pytest.fail(f"salloc exited {done.returncode}:\n{done.stdout[-3000:]}\n"
                    f"{done.stderr[-3000:]}\n{slurm.logs()}")  # fmt: skip
    return done


@pytest.mark.parametrize("where", [SHELL, STEP], ids=["salloc-shell", "job-step"])
def test_the_engines_and_programs_start_through_srun_and_record_their_placement(
    slurm, tmp_path, where
):
    out = tmp_path / "seen.json"
    salloc(slurm, [sys.executable, str(ROOT / "tests" / "slurm_job.py"), str(out)], where)
    seen = json.loads(out.read_text())
    assert seen["job"] and seen["launcher"] == "srun"
    assert seen["doctor"].startswith("srun") and f"job {seen['job']}" in seen["doctor"]
    assert "srun" in seen["repr"]
    assert all(step is not None for step in seen["step"]), "the engines are not a Slurm step"
    engines = seen["engines"]
    assert engines["meta_launcher"] == "srun"
    assert sorted(r["rank"] for r in engines["records"]) == [0, 1]
    assert all(r["cpu"] in seen["usable"] for r in engines["records"])
    assert out.with_suffix(".png").stat().st_size > 0  # drawn as on a laptop
    assert seen["crash"]["rank"] == 1, seen["crash"]
    assert seen["after_restart"] == 2
    assert seen["engines_left"] == []

    programs = seen["programs"]
    assert {p["run_by"] for p in programs.values()} == {"srun"}
    assert all(p["command"].split()[0].endswith("srun") for p in programs.values())
    cores = programs["cores"]["records"]  # --cpu-bind=cores: a CPU of its own for each rank
    assert "--cpu-bind=cores" in programs["cores"]["command"]
    assert all(len(r["allowed"]) == 1 for r in cores)
    assert len({r["allowed"][0] for r in cores}) == 2
    piled = programs["one-core"]["records"]  # --cpus-per-task 1: both threads on one CPU
    assert len({tuple(r["allowed"]) for r in piled}) == 1 and len(piled[0]["allowed"]) == 1
    free = programs["none"]["records"]  # --cpu-bind=none: every CPU of the allocation
    assert all(len(r["allowed"]) == 2 for r in free)
    assert seen["mpiexec_inside"]["run_by"] == "mpiexec"  # HYBRIDLAB_LAUNCHER=mpiexec still works
    assert seen["mpiexec_inside"]["ranks"] == [0, 1]
    # a run kept under srun is the run mpiexec makes (what grading a hub's student does)
    assert seen["srun_run_replayed"] == {"recorded_by": "srun", "replayed": "reference",
                                         "same": True}  # fmt: skip
    assert "not one MPI world" in seen["without_pmi"] and "--mpi=none" in seen["without_pmi"]


def test_lab_00_runs_headless_inside_the_allocation(slurm, tmp_path):
    notebook = ROOT / "grading" / "source" / LAB / f"{LAB}.ipynb"
    code = (
        "import sys\n"
        "from hybridlab.course import notebooks\n"
        "notebooks.run_notebook(sys.argv[1], sys.argv[2], quick=True, timeout=600)\n"
    )
    salloc(slurm, [sys.executable, "-c", code, str(notebook), str(tmp_path)])
    nb = nbformat.read(tmp_path / notebook.name, as_version=4)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert errors == []
    shown = "\n".join(
        o.get("data", {}).get("text/plain", "") for c in nb.cells for o in c.get("outputs", [])
    )
    assert re.search(r"Cluster\(ranks=2, threads=1, .*srun", shown), "the lab's cluster used srun"
    images = sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    assert images >= 3


@pytest.fixture()
def on_slurm(slurm, monkeypatch):
    """This process as a login node of the cluster: Slurm's commands reach it (SLURM_CONF), no
    job of an outer Slurm or a forced local runner leaks in."""
    for var in [v for v in os.environ if v.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_"))]:
        monkeypatch.delenv(var)
    monkeypatch.delenv("HYBRIDLAB_JOBS", raising=False)
    monkeypatch.setenv("SLURM_CONF", str(slurm.conf))
    return slurm


def test_lab_10s_job_runs_through_sbatch_and_slurm_refuses_an_over_request(on_slurm, tmp_path):
    slurm = on_slurm
    assert jobs.slurm_answers(), "sinfo does not reach the test's cluster"
    folder = tmp_path / "job"
    jobs.compile_line("mpicc -std=c11 -O2 -fopenmp jacobi.c -o jacobi", JACOBI_PROGRAM, folder)
    script = folder / "jacobi.sbatch"
    script.write_text(JOB_SCRIPT)
    n, iterations = 41, 9  # 41 rows do not divide over 2 ranks
    want = reference_checksum(n, iterations)
    for ranks, threads in ((2, 1), (1, 2)):
        result = jobs.submit(script, args=[str(n), str(iterations)], timeout=120,
                             sbatch_args=[f"--ntasks={ranks}", f"--cpus-per-task={threads}"])  # fmt: skip
        assert result.runner == "slurm" and "Slurm (sbatch --wait)" in result.describe()
        assert not result.job_id.startswith("local"), result.describe()
        assert result.ok, f"{result.describe()}\n{result.output}\n{slurm.logs()}"
        assert str(result.granted.get("ntasks")) == str(ranks), result.granted
        assert str(result.granted.get("cpus_per_task")) == str(threads), result.granted
        (line,) = result.lines("jacobi")
        assert (int(line["n"]), int(line["iterations"]), int(line["ranks"]),
                int(line["threads"])) == (n, iterations, ranks, threads), line  # fmt: skip
        assert abs(float(line["checksum"]) - want) <= 1e-9 * abs(want), (line, want)
        placed = {(int(p["rank"]), int(p["thread"])): p for p in result.lines("place")}
        assert sorted(placed) == [(r, t) for r in range(ranks) for t in range(threads)], placed
        assert len({p["cpu"] for p in placed.values()}) == ranks * threads, placed
        assert {p["host"] for p in placed.values()} == {result.granted["node"]}, placed

    # the grader's probe in place of ./jacobi: each thread bound to a core of its own by srun
    probe = jobs.build_program("lab10_probe", PROBE_PROGRAM.replace("TOKEN", "4242L"),
                               trace_mpi=False)  # fmt: skip
    probed = tmp_path / "probe"
    probed.mkdir()
    (probed / "jacobi").write_bytes(probe.program.read_bytes())
    (probed / "jacobi").chmod(0o755)
    for ranks, threads in ((2, 1), (1, 2)):
        result = jobs.submit(JOB_SCRIPT, folder=probed, args=["a", "b"], timeout=120,
                             sbatch_args=[f"--ntasks={ranks}", f"--cpus-per-task={threads}"]).check()  # fmt: skip
        assert result.runner == "slurm"
        (summary,) = result.lines("probe")
        assert summary == {"token": "4242", "ranks": str(ranks), "threads": str(threads),
                           "argv": "a,b"}, result.output  # fmt: skip
        allowed = [p["allowed"] for p in result.lines("place")]
        assert len(allowed) == ranks * threads and all("," not in a for a in allowed), allowed
        assert len(set(allowed)) == len(allowed), f"two threads on one core: {allowed}"

    # srun without --cpus-per-task (Slurm 22.05 to 23.02 do not take it from sbatch): the lab
    # says a rank's threads then share one core, as the local runner's srun does
    alone = JOB_SCRIPT.replace(" --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind", " --cpu-bind")
    assert alone != JOB_SCRIPT
    result = jobs.submit(alone, folder=probed, args=["a", "b"], timeout=120,
                         sbatch_args=["--ntasks=1", "--cpus-per-task=2"]).check()  # fmt: skip
    allowed = [p["allowed"] for p in result.lines("place")]
    version = slurm.run(["sbatch", "--version"], timeout=30).stdout.split()[-1]
    if version.startswith("22.05") or version.startswith("23.02"):
        assert len(allowed) == 2 and len(set(allowed)) == 1 and "," not in allowed[0], (
            f"Slurm {version}: {result.output}")

    # traced, as the notebook's "Which thread called MPI?" cell runs it
    traced = jobs.build_program("jacobi_traced", JACOBI_PROGRAM)
    job, trace = jobs.run_traced(JOB_SCRIPT, traced, tmp_path / "traced", args=["30", "4"],
                                 timeout=120)  # fmt: skip
    job.check()
    assert job.runner == "slurm" and trace is not None, job.output
    init = trace.records[trace.records["record"] == "mpi_init"]
    assert sorted(init["rank"]) == [0, 1] and set(init["required"]) == {"funneled"}
    compliance.check(trace, "funneled")

    # more than the node has: this cluster (EnforcePartLimits=NO, Debian's default) takes the job
    # and keeps it pending (PartitionConfig) for good; the kit sees that, cancels it and says
    # what was asked and what the partition has, well before the job's time limit
    started = time.monotonic()
    with pytest.raises(jobs.JobRequestError) as refused:
        jobs.submit(script, sbatch_args=["--ntasks=64", "--cpus-per-task=8"], timeout=300)
    message = str(refused.value)
    assert "Slurm cannot run 64 tasks x 8 CPUs per task (512 CPUs on a node)" in message, message
    assert "reason PartitionConfig" in message and "1 node of" in message, message
    assert time.monotonic() - started < 60, message
    assert slurm.run(["squeue", "--noheader"], timeout=30).stdout.strip() == ""


TERMINAL_USER = "hybridlab-slurm-user"


def _as_user(command: list[str], *, timeout: float, env: dict[str, str] | None = None, cwd=None):
    return subprocess.run(["runuser", "-u", TERMINAL_USER, "--", "env", *(f"{k}={v}" for k, v in (env or {}).items()),
                           *command], capture_output=True, text=True, timeout=timeout, cwd=cwd)  # fmt: skip


def test_a_users_own_slurm_runs_lab_10s_job_from_a_terminal():
    """As the image's student (no root): `hybridlab slurm start` gives the user a one-node Slurm
    of their own; in a terminal, mpicc and `sbatch --wait` run lab 10's program and script; `stop`
    leaves nothing."""
    why = why_slurm_cannot_run()
    if why or os.geteuid() != 0:
        pytest.skip(why or "makes a user: needs root")
    if subprocess.run(["id", TERMINAL_USER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--create-home", TERMINAL_USER], check=True, capture_output=True)
    venv_bin = Path(sys.executable).parent
    if _as_user([sys.executable, "-c", "import hybridlab"], timeout=60).returncode != 0:
        pytest.skip(f"{TERMINAL_USER} cannot run this venv's Python ({sys.executable} is "
                    "under a folder other users cannot read)")  # fmt: skip
    base = Path(tempfile.mkdtemp(prefix="hybridlab-user-slurm-"))  # pytest's tmp is root's own
    folder, job = base / "slurm", base / "job"
    job.mkdir()
    (job / "jacobi.c").write_text(JACOBI_PROGRAM)
    (job / "jacobi.sbatch").write_text(JOB_SCRIPT)
    for path in (base, job, job / "jacobi.c", job / "jacobi.sbatch"):
        shutil.chown(path, TERMINAL_USER)
    base.chmod(0o755)  # munged wants its socket's folders open to all (its clients' way in)
    path = {"PATH": f"{venv_bin}:/usr/bin:/bin"}
    started = _as_user([str(venv_bin / "hybridlab"), "slurm", "start", str(folder)], timeout=150, env=path)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"export SLURM_CONF={folder / 'slurm.conf'}" in started.stdout
        terminal = (f"export SLURM_CONF={folder / 'slurm.conf'} && cd {job} && "
                    "mpicc -std=c11 -O2 -fopenmp jacobi.c -o jacobi && "
                    "sbatch --wait jacobi.sbatch 41 9 && cat slurm-*.out")  # fmt: skip
        done = _as_user(["bash", "-c", terminal], timeout=180, env=path)
        assert done.returncode == 0, done.stdout + done.stderr
        (line,) = [ln for ln in done.stdout.splitlines() if ln.startswith("jacobi ")]
        fields = dict(f.split("=", 1) for f in line.split()[1:])
        assert (fields["ranks"], fields["threads"]) == ("2", "1"), line
        want = reference_checksum(41, 9)
        assert abs(float(fields["checksum"]) - want) <= 1e-9 * abs(want), (line, want)
        squeue = _as_user(["squeue", "--noheader"], timeout=30,
                          env={"SLURM_CONF": str(folder / "slurm.conf")})  # fmt: skip
        assert squeue.returncode == 0 and squeue.stdout.strip() == ""
    finally:
        stopped = _as_user([str(venv_bin / "hybridlab"), "slurm", "stop", str(folder)], timeout=120, env=path)
        shutil.rmtree(base, ignore_errors=True)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert not folder.exists()
    left = [p.info["name"] for p in psutil.process_iter(["name", "username"])
            if p.info["username"] == TERMINAL_USER]  # fmt: skip
    assert not left, f"left running as {TERMINAL_USER}: {left}"
