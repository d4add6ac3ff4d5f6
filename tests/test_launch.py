"""Kernels as standalone programs under mpiexec: records, failures, nothing left behind."""

import re
import shutil
import subprocess

import pytest

import hybridlab as hl
from conftest import LIBRARY_NAMES, mpi_leftovers, venv_mpi
from faulty_kernels import CRASH, HANG
from hybridlab.errors import failed_node, failed_rank
from hybridlab.machine import launcher
from hybridlab.runs.launch import failure_text


def test_hello_reports_every_rank_and_thread_with_its_cpu():
    res = hl.run_program("hello_hybrid", ranks=2, threads=2, spin_ms=1)
    assert sorted(zip(res.records["rank"], res.records["thread"], strict=True)) == [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
    ]
    assert set(res.records["thread_level"]) == {"funneled"}
    assert res.records["cpu"].ge(0).all()
    assert res.meta["run_by"] == "mpiexec" and "-n 2" in res.meta["command"]
    assert {"before", "after"} <= res.meta["probe"].keys()
    assert res.meta["mpi_library"].startswith(LIBRARY_NAMES[venv_mpi()])


def test_an_oversubscribed_run_carries_a_warning():
    res = hl.run_program(
        "hello_hybrid", ranks=2, threads=len(hl.read_topology().usable) + 1, spin_ms=0
    )
    assert any(w.startswith("oversubscribed") for w in res.warnings)


def test_binding_to_cores_gives_each_thread_its_own_cpu():
    topo = hl.read_topology()
    if len(topo.usable) < 2:
        pytest.skip("needs two CPUs")
    res = hl.run_program("hello_hybrid", ranks=1, threads=2, bind="cores", spin_ms=1)
    assert [len(a) for a in res.records["allowed_cpus"]] == [1, 1]
    assert res.records["cpu"].nunique() == 2
    piled = hl.run_program("hello_hybrid", ranks=1, threads=2, bind="one-core", spin_ms=1)
    assert piled.records["cpu"].nunique() == 1


def test_the_thread_level_asked_for_is_the_one_reported():
    res = hl.run_program("hello_hybrid", ranks=1, thread_level="multiple", spin_ms=0)
    assert set(res.records["thread_level"]) == {"multiple"}


def test_bad_parameter_values_come_back_as_the_kernels_message():
    with pytest.raises(hl.KernelError, match="spin_ms=-1 must be at least 0"):
        hl.run_program("hello_hybrid", ranks=1, spin_ms=-1)
    with pytest.raises(hl.KernelError, match="spin_ms=soon is not an integer"):
        hl.run_program("hello_hybrid", ranks=1, spin_ms="soon")


def test_unknown_parameters_and_placements_are_refused_before_launch():
    with pytest.raises(ValueError, match="no parameter spin"):
        hl.run_program("hello_hybrid", ranks=1, spin=3)
    with pytest.raises(hl.PlacementError):
        hl.run_program("hello_hybrid", ranks=0)


def test_a_segfault_names_the_rank():
    kernel = hl.build_source("crash", CRASH)
    with pytest.raises(
        hl.KernelCrash, match=r"rank 1 of crash died \(signal 11 \(SIGSEGV\)\)"
    ) as caught:
        hl.run_program(kernel, ranks=2, timeout=60)
    assert caught.value.rank == 1
    assert mpi_leftovers() == []


def test_a_deadlock_times_out_and_leaves_nothing_behind():
    kernel = hl.build_source("hang", HANG)
    with pytest.raises(hl.KernelTimeout, match="did not finish within 2 s") as caught:
        hl.run_program(kernel, ranks=2, timeout=2)
    # what the processes were doing: the two ranks waiting in MPI_Recv, with their CPU time
    assert re.search(
        r"They were: .*\bhang x2: [a-z, -]+, \d+\.\d and \d+\.\d s of CPU", str(caught.value)
    )
    assert mpi_leftovers() == []


def test_every_program_prints_its_parameters_with_help():
    kernel = hl.build("hello_hybrid")
    out = subprocess.run(
        [str(kernel.program), "--help"], capture_output=True, text=True, check=True
    )
    assert "spin_ms" in out.stdout and "usage: mpiexec -n RANKS" in out.stdout


def test_the_launcher_is_mpiexec_outside_slurm_and_srun_when_asked_inside(monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.delenv(launcher.CHOICE, raising=False)
    assert launcher.choose().kind == "mpiexec"
    if shutil.which("srun") is None:
        pytest.skip("no srun here (apt-get install slurm-client) to build its command line")
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    chosen = launcher.choose()
    assert chosen.kind == "srun" and "job 42" in chosen.describe()
    cmd = chosen.command(hl.Placement(2, 2, "cores"), ["prog"])
    assert cmd[1:7] == ["-n", "2", "--nodes=1", "--ntasks-per-node=2", "--cpus-per-task", "2"]
    assert cmd[-1] == "prog"
    assert {"--cpu-bind=cores", "--mpi=pmi2", "--overlap"} <= set(cmd)
    monkeypatch.setenv(launcher.CHOICE, "mpiexec")
    assert launcher.choose().kind == "mpiexec"


def test_mpich_ranks_on_one_machine_start_without_ucx_memory_hooks(monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.delenv("UCX_MEM_EVENTS", raising=False)
    mpich = launcher.Launcher("mpiexec", "mpiexec", hl.mpi_info(), "test")
    if mpich.mpi.implementation != "mpich":
        pytest.skip("the kit's MPI here is not MPICH")
    assert mpich.environment({})["UCX_MEM_EVENTS"] == "no"
    monkeypatch.setenv("UCX_MEM_EVENTS", "yes")  # set by the user: kept
    assert mpich.environment({})["UCX_MEM_EVENTS"] == "yes"
    monkeypatch.delenv("UCX_MEM_EVENTS")
    monkeypatch.setenv("SLURM_JOB_ID", "42")  # ranks may span nodes: UCX's hooks stay
    assert "UCX_MEM_EVENTS" not in mpich.environment({})


def test_srun_asked_for_where_it_cannot_run_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv(launcher.CHOICE, "srun")
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    if shutil.which("srun"):
        with pytest.raises(launcher.LauncherError, match="not inside a Slurm allocation"):
            hl.run_program("hello_hybrid", ranks=1)
    monkeypatch.setenv("PATH", str(tmp_path))  # no srun on it
    with pytest.raises(launcher.LauncherError, match="no srun on PATH"):
        hl.Cluster(ranks=1)
    monkeypatch.setenv(launcher.CHOICE, "qsub")
    with pytest.raises(launcher.LauncherError, match="must be one of auto, srun, mpiexec"):
        launcher.choose()


def test_a_dead_task_is_read_from_sruns_report():
    report = "srun: error: node2: task 1: Segmentation fault (core dumped)\n"
    assert failed_rank(report) == (1, "Segmentation fault (core dumped)")
    assert failed_node(report) == "node2"


def test_nodes_beyond_one_need_an_allocation_of_that_many_nodes(monkeypatch):
    for name in ("SLURM_JOB_ID", "SLURM_JOB_NUM_NODES", "SLURM_NNODES", launcher.CHOICE):
        monkeypatch.delenv(name, raising=False)
    assert launcher.allocation_nodes() == 1
    with pytest.raises(launcher.LauncherError, match=r"not inside one: .*`salloc -N 2 "):
        hl.Cluster(ranks=2, nodes=2)
    with pytest.raises(launcher.LauncherError, match=r"`salloc -N 2 "):
        hl.run_program("hello_hybrid", ranks=2, nodes=2)
    with pytest.raises(ValueError, match="must divide by nodes"):
        hl.Cluster(ranks=3, nodes=2)
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    monkeypatch.setenv("SLURM_NNODES", "2")
    assert launcher.allocation_nodes() == 2
    monkeypatch.setenv("SLURM_JOB_NUM_NODES", "3")
    assert launcher.allocation_nodes() == 3
    with pytest.raises(launcher.LauncherError, match="has 3 nodes: use nodes=3 or fewer"):
        launcher.check_nodes(launcher.choose(), 4)
    monkeypatch.setenv(launcher.CHOICE, "mpiexec")
    if venv_mpi() == "mpich":  # MPICH's mpiexec (Hydra) spreads ranks over nodes itself
        assert launcher.choose(2).kind == "mpiexec"
    else:
        with pytest.raises(launcher.LauncherError, match="starts the ranks with srun"):
            launcher.choose(2)


def test_mpichs_ranks_across_nodes_are_started_by_its_own_mpiexec_not_srun(monkeypatch):
    """Slurm 22.05's pmi2 plugin cuts MPICH's long PMI-1 requests (book/slurm.md): across
    nodes the kit takes MPICH's mpiexec (Hydra, its own PMI server), whose proxies srun starts."""
    if venv_mpi() != "mpich" or shutil.which("srun") is None:
        pytest.skip("needs the kit's MPICH and srun (apt-get install slurm-client)")
    for name in (launcher.CHOICE, launcher.SRUN_MPI, launcher.HYDRA_SRUN, "SLURMD_NODENAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    monkeypatch.setenv("SLURM_JOB_NUM_NODES", "3")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "node[1-3]")
    monkeypatch.setenv("SLURM_JOB_CPUS_PER_NODE", "8(x2),4")
    monkeypatch.setenv("PMI_FD", "7")  # a notebook's own job step: not passed on
    assert launcher.choose(1).kind == "srun"  # on one node MPICH publishes nothing via the PMI
    chosen = launcher.choose(2)
    assert chosen.kind == "mpiexec" and "Hydra" in chosen.describe()
    cmd = chosen.command(hl.Placement(4, 2, "cores", nodes=2), ["prog"])
    assert cmd[1:7] == ["-n", "4", "-ppn", "2", "-hosts", "node1,node2"]
    assert cmd[7:9] == ["-launcher", "slurm"] and cmd[-1] == "prog"
    env = chosen.environment({})
    assert env["SLURM_OVERLAP"] == "1" and "PMI_FD" not in env
    assert env[launcher.HYDRA_SRUN] == "--mpi=none --overlap --cpus-per-task=4 --cpu-bind=none"
    monkeypatch.setenv("SLURMD_NODENAME", "node3")  # the notebook runs on node3: its ranks first
    assert "node3,node1" in chosen.command(hl.Placement(2, 1, nodes=2), ["prog"])
    monkeypatch.setenv(launcher.CHOICE, "srun")  # asked for: srun it is
    assert launcher.choose(2).kind == "srun"
    monkeypatch.setenv(launcher.CHOICE, "auto")
    monkeypatch.setenv(launcher.SRUN_MPI, "pmix")  # a site's MPICH built for PMIx
    assert launcher.choose(2).kind == "srun"


def test_slurm_node_lists_are_expanded_in_order():
    assert launcher.expand_nodelist("node[1-3,7],gpu01,cn[08-10]") == [
        "node1", "node2", "node3", "node7", "gpu01", "cn08", "cn09", "cn10",
    ]  # fmt: skip
    assert launcher.expand_nodelist("vm") == ["vm"]
    assert launcher.expand_nodelist("") == []


def mpiexec_as_the_kit_does(program, ranks: int, *args: str) -> subprocess.CompletedProcess:
    """`program` started on `ranks` ranks with the kit's launcher flags and environment, as a
    user's own mpiexec command would be (Open MPI as root: allowed; more ranks than cores)."""
    chosen, placement = launcher.choose(), hl.Placement(ranks, 1, "none")
    env = placement.environment(chosen.mpi.implementation, 1)
    return subprocess.run(chosen.command(placement, [str(program), *args]), capture_output=True,
                          text=True, timeout=60, env=chosen.environment(env))  # fmt: skip


def test_help_is_printed_once_however_many_ranks_start():
    done = mpiexec_as_the_kit_does(hl.build("hello_hybrid").program, 3, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("spin_ms") == 1, done.stdout


ABORTS = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    printf("giving up: the grid is too small\n");  /* stdout, buffered: lost unless flushed */
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 0;
}
"""


def test_a_reason_printed_before_mpi_abort_reaches_the_error():
    program = hl.build_source("aborts", ABORTS, ("-DHL_WHOLE_PROGRAM",), trace_mpi=True).program
    done = mpiexec_as_the_kit_does(program, 1)
    assert done.returncode != 0
    assert "giving up: the grid is too small" in failure_text(done.stdout, done.stderr)
    assert failure_text('{"record": "x"}\n', "") == "(it printed nothing)"
