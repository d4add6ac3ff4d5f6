"""A real one-node Slurm cluster: the engines and programs start through srun, lab 00 runs in it.

The test configures and starts munged (as the munge user), slurmctld and slurmd (as root) in a
scratch folder with ports of their own, and waits until the node is idle. Then, with the
notebook's process in the shell of `salloc -n 2` and again as a job step (as batchspawner starts
JupyterLab): a Cluster, a kernel on its 2 ranks, a crash and a restart, standalone programs with
each bind (slurm_job.py); and lab 00's instructor notebook headless in quick mode. Everything is
stopped afterwards, and the test checks that no daemon, step or engine of it is left.

Run with `make test-slurm`; `make test` leaves it out (marker `slurm`). Needs root and Debian's
slurm-wlm and munge (`apt-get install slurm-wlm munge`); skipped with the reason otherwise.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from slurm_cluster import SlurmCluster, started, why_slurm_cannot_run  # noqa: E402

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
    assert "not one MPI world" in seen["without_pmi"] and "--mpi=none" in seen["without_pmi"]


def test_lab_00_runs_headless_inside_the_allocation(slurm, tmp_path):
    notebook = ROOT / "grading" / "source" / LAB / f"{LAB}.ipynb"
    code = (
        "import sys\n"
        "from hybridlab import notebooks\n"
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
