"""The `hybridlab` command as a user types it."""

import os
import subprocess
import sys
from pathlib import Path

import nbformat

from conftest import mpi_leftovers, venv_mpi

HYBRIDLAB = str(Path(sys.executable).parent / "hybridlab")


def run(*args, env=None, cwd=None):
    return subprocess.run(
        [HYBRIDLAB, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
        check=False,
    )


def test_doctor_describes_the_machine_and_finds_no_problem_here():
    done = run("doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"MPI             {venv_mpi()} " in done.stdout and "numa_nodes" in done.stdout and "[ok] ready" in done.stdout


def test_doctor_names_a_foreign_mpiexec_first_on_path(tmp_path):
    fake = tmp_path / "mpiexec"
    fake.write_text("#!/bin/sh\necho 'mpiexec (Open MPI) 5.0.3'\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    done = run("doctor", env=env)
    assert done.returncode == 1
    assert f"the mpiexec first on PATH ({fake}, openmpi) is not this venv's" in done.stdout


def test_build_all_builds_every_kernel():
    done = run("build", "--all")
    assert done.returncode == 0, done.stderr
    assert "hello_hybrid:" in done.stdout and "core_probe:" in done.stdout


def test_build_of_an_unknown_kernel_fails_with_the_list():
    done = run("build", "nope")
    assert done.returncode == 1 and "available: " in done.stderr


def test_run_executes_a_notebook_keeps_its_figures_and_cleans_up(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import hybridlab as hl\nfrom hybridlab.plots import placement_map\n"
            "cluster = hl.Cluster(ranks=2).start()\nres = cluster.run('hello_hybrid', spin_ms=1)\n"
            "placement_map(res, cluster.topology);\nprint(cluster.tag)"
        ),
        nbformat.v4.new_code_cell(
            "%%px\nfrom mpi4py import MPI\nprint('rank', MPI.COMM_WORLD.rank)"
        ),
        # no cluster.stop(): the runner must clean up what the notebook left running
    ]
    nbformat.write(nb, tmp_path / "demo.ipynb")
    done = run("run", "demo.ipynb", "--out", "out", "--quick", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    executed = nbformat.read(tmp_path / "out" / "demo.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for o in executed.cells[1].outputs)
    assert "rank 0" in printed and "rank 1" in printed
    assert len(list((tmp_path / "out" / "figures").glob("demo-cell00-*.png"))) == 1
    tag = "".join(o.get("text", "") for o in executed.cells[0].outputs).split()[-1]
    assert tag.startswith("cluster-") and mpi_leftovers(tag) == []


def test_run_reports_the_failing_cell(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import os\nos.write(2, b'the kernel wrote this\\n')"),
                nbformat.v4.new_code_cell("raise ValueError('broken lab')")]  # fmt: skip
    nbformat.write(nb, tmp_path / "bad.ipynb")
    done = run("run", "bad.ipynb", "--out", "out", cwd=tmp_path)
    assert done.returncode == 1 and "broken lab" in done.stderr
    assert (tmp_path / "out" / "bad.ipynb").exists()
    # the kernel's own stderr reaches the terminal, without ipykernel's warning on every start
    assert "the kernel wrote this" in done.stderr and "without encryption" not in done.stderr


def test_slurm_help_is_whole_and_so_is_each_actions():
    for args in (("slurm", "--help"), ("slurm", "start", "--help")):
        done = run(*args)
        assert done.returncode == 0, done.stderr
        assert "on a laptop (`hybridlab slurm start`)" in " ".join(done.stdout.split())
        assert "--nodes NODES" in done.stdout


def test_clean_removes_segments_no_process_uses(tmp_path):
    stale = Path("/dev/shm/mpich_shm_hybridlab_test")
    stale.write_bytes(b"\0" * 64)
    done = run("clean")
    assert done.returncode == 0 and not stale.exists()


def test_clean_stops_engines_whose_notebook_died(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text(
        "import os, signal, hybridlab as hl\n"
        "c = hl.Cluster(ranks=2).start()\n"
        "print('up', c.tag, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert "up" in done.stdout
    cleaned = run("clean")
    assert cleaned.returncode == 0
    stopped = int(cleaned.stdout.split("stopped ")[1].split()[0])
    assert stopped >= 3  # two engines, their launcher and the controller
    assert mpi_leftovers(done.stdout.split()[-1]) == []
