from pathlib import Path

from conftest import venv_mpi
from hybridlab.machine.topology import mpi_info, parse_cpu_list, read_topology
from hybridlab.paths import venv_bin


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


def fake_sysfs(root: Path) -> Path:
    """Two sockets, one NUMA node each, two cores per socket, two hardware threads per core."""
    _write(root / "cpu" / "online", "0-7")
    for cpu in range(8):
        socket, core, sibling = cpu // 4, (cpu % 4) // 2, cpu % 2
        topo = root / "cpu" / f"cpu{cpu}" / "topology"
        _write(topo / "physical_package_id", str(socket))
        _write(topo / "core_id", str(core))
        cache = root / "cpu" / f"cpu{cpu}" / "cache"
        pair = f"{cpu - sibling}-{cpu - sibling + 1}"
        for index, (level, kind, size, shared) in enumerate(
            [
                (1, "Data", "32K", pair),
                (2, "Unified", "1024K", pair),
                (3, "Unified", "16384K", "0-3" if socket == 0 else "4-7"),
            ]
        ):
            _write(cache / f"index{index}" / "level", str(level))
            _write(cache / f"index{index}" / "type", kind)
            _write(cache / f"index{index}" / "size", size)
            _write(cache / f"index{index}" / "shared_cpu_list", shared)
    _write(root / "node" / "node0" / "cpulist", "0-3")
    _write(root / "node" / "node1" / "cpulist", "4-7")
    return root


def test_cpu_lists_are_parsed_like_the_kernel_writes_them():
    assert parse_cpu_list("0-3,8,10-11\n") == [0, 1, 2, 3, 8, 10, 11]
    assert parse_cpu_list("") == []


def test_sockets_numa_nodes_cores_and_caches_are_read_from_sysfs(tmp_path):
    topo = read_topology(fake_sysfs(tmp_path))
    assert len(topo.cpus) == 8
    assert topo.sockets == [0, 1]
    assert topo.numa_nodes == {0: [0, 1, 2, 3], 1: [4, 5, 6, 7]}
    assert len(topo.cores) == 4 and topo.smt == 2
    assert topo.cores[0] == [0, 1] and topo.cores[3] == [6, 7]
    assert topo.last_level_cache_bytes() == 16 * 1024**2
    summary = topo.summary()
    assert summary["numa_nodes"] == 2 and summary["cores"] == 4
    assert "L3u 16384 KiB x2" in summary["caches"]


def test_this_machine_is_read_and_its_mpi_is_the_venvs():
    topo = read_topology()
    assert topo.cpus and topo.usable
    mpi = mpi_info(str(venv_bin() / "mpiexec"))
    assert mpi.implementation == venv_mpi() and mpi.in_venv and mpi.version


def test_an_open_mpi_launcher_is_recognised(tmp_path):
    fake = tmp_path / "mpiexec"
    fake.write_text("#!/bin/sh\necho 'mpiexec (Open MPI) 5.0.3'\n")
    fake.chmod(0o755)
    mpi = mpi_info(str(fake))
    assert (mpi.implementation, mpi.version, mpi.in_venv) == ("openmpi", "5.0.3", False)


def test_find_mpiexec_prefers_this_venvs_launcher():
    from hybridlab.machine.topology import find_mpiexec

    mpi = find_mpiexec()
    assert mpi.mpiexec == str(venv_bin() / "mpiexec") and mpi.in_venv


def test_shape_for_allocation_grows_from_two_by_two():
    from hybridlab.machine.topology import shape_for_allocation

    shapes = {n: shape_for_allocation(n) for n in (1, 2, 4, 7, 8, 12, 16, 32, 64, 128)}
    assert shapes[1] == shapes[2] == shapes[4] == shapes[7] == (2, 2)  # the laptop's, as today
    assert shapes[8] == shapes[12] == (2, 4)
    assert shapes[16] == (4, 4)
    assert shapes[32] == shapes[64] == shapes[128] == (4, 8)  # capped at 32 CPUs
    assert shape_for_allocation(128, most=64) == (8, 8)


def test_allocation_cpus_is_no_more_than_slurm_gave(monkeypatch):
    import os

    from hybridlab.machine.topology import allocation_cpus

    mask = len(os.sched_getaffinity(0))
    monkeypatch.delenv("SLURM_CPUS_ON_NODE", raising=False)
    assert allocation_cpus() == mask
    monkeypatch.setenv("SLURM_CPUS_ON_NODE", "1")
    assert allocation_cpus() == 1
    monkeypatch.setenv("SLURM_CPUS_ON_NODE", str(mask + 8))
    assert allocation_cpus() == mask
