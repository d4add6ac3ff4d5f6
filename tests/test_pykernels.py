"""Lab 09 (numba kernels): the numba Jacobi equals the numpy reference bit for bit (the same
additions in the same order; the checksum, summed in another order, to 1e-12) and the C kernel
halo2d to 1e-12, in a real 2-rank cluster; numba caches in the kit's folder; its pool follows the
placement's threads; the student checks catch a wrong or serial kernel. The notebook runs in
tests/test_notebooks.py, its grading round trip in tests/test_grading.py.

No timing is asserted: timings go to benchmarks/bench_pykernels.py.
"""

from __future__ import annotations

import matplotlib
import numba
import numpy as np
import pytest

import hybridlab as hl
from hybridlab.halo.serial import initial2d, jacobi2d, jacobi2d_grid
from hybridlab.machine.placement import Placement
from hybridlab.paths import numba_cache_dir
from hybridlab.pykernels import jacobi, probe
from hybridlab.pykernels.exercise import (
    check_sweep,
    engine_threads,
    gil_table,
    jit_times,
    layer_reports,
    numba_jacobi,
    thread_work,
    working_threads,
)
from hybridlab.pykernels.plots import jit_plot, layer_maps
from hybridlab.pykernels.tables import layer_table, numba_vs_c, ratio_table

matplotlib.use("Agg")

NX, NY, ITERATIONS = 37, 29, 7  # rows split unevenly over 2 ranks, odd row length


@numba.njit
def serial_sweep3d(u, new):  # the faulty answer of the grading round trip: no prange
    delta = 0.0
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            for k in range(1, u.shape[2] - 1):
                v = u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                v = (v + u[i, j, k - 1] + u[i, j, k + 1]) / 6.0
                delta += (v - u[i, j, k]) ** 2
                new[i, j, k] = v
    return delta


@numba.njit(parallel=True)
def parallel_sweep3d(u, new):  # the lab's answer, in a different order of additions
    delta = 0.0
    for i in numba.prange(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            for k in range(1, u.shape[2] - 1):
                v = u[i, j, k - 1] + u[i, j, k + 1] + u[i, j - 1, k] + u[i, j + 1, k]
                v = (v + u[i - 1, j, k] + u[i + 1, j, k]) / 6.0
                delta += (v - u[i, j, k]) ** 2
                new[i, j, k] = v
    return delta


def gauss_seidel(u, new):  # 2-D, updates in place: a different method
    delta = 0.0
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            v = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
            delta += (v - u[i, j]) ** 2
            u[i, j] = new[i, j] = v
    return delta


@pytest.fixture(scope="module")
def cluster():
    with hl.Cluster(ranks=2, threads=1, bind="none") as c:
        yield c


def test_the_numba_sweep_equals_the_numpy_reference_bit_for_bit():
    u = initial2d(NX, NY)
    new = u.copy()
    for _ in range(ITERATIONS):
        delta = jacobi.sweep(u, new)
        u, new = new, u
    want, want_delta = jacobi2d_grid(NX, NY, ITERATIONS)
    assert np.array_equal(u, want)
    assert np.isclose(delta, want_delta, rtol=1e-12)


def test_a_rank_block_is_the_rows_of_the_whole_grid():
    whole = initial2d(NX, NY)
    for ranks in (1, 2, 3, 5):
        blocks = [jacobi.block_rows(NY, ranks, r) for r in range(ranks)]
        assert sum(m for _, m in blocks) == NY and blocks[0][0] == 1
        for (first, m), nxt in zip(blocks, blocks[1:] + [(NY + 1, 0)], strict=True):
            assert first + m == nxt[0]
            assert np.array_equal(
                initial2d(NX, NY, first - 1, m + 2), whole[first - 1 : first + m + 1]
            )


def test_numba_caches_in_the_kits_folder():
    times = jit_times(nx=8)
    folder = numba_cache_dir()
    assert numba.config.CACHE_DIR == str(folder)
    assert any(folder.rglob("jacobi.sweep-*.nbi")) and any(folder.rglob("jacobi.sweep-*.nbc"))
    cached = times.set_index("step").loc["load from the cache"]
    assert cached["cache_hits"] == 1 and cached["cache_misses"] == 0
    assert str(cached["cache_path"]).startswith(str(folder))
    assert times.set_index("step").loc["compile, no cache", "cache_misses"] == 1


def test_numba_threads_follow_the_placement():
    for threads in (1, 3):
        env = Placement(2, threads, "cores").engine_environment("mpich", 8)
        assert env["NUMBA_NUM_THREADS"] == env["OMP_NUM_THREADS"] == str(threads)


def test_in_the_engines_numba_equals_numpy_and_the_c_kernel(cluster):
    res = numba_jacobi(cluster, NX, NY, ITERATIONS, gather=True)
    want, want_delta = jacobi2d_grid(NX, NY, ITERATIONS)
    assert np.array_equal(res.meta["grid"], want[1:-1, 1:-1])  # bit for bit
    checksum, _ = jacobi2d(NX, NY, ITERATIONS)
    assert np.isclose(res.meta["checksum"], checksum, rtol=1e-12, atol=0)
    assert np.isclose(res.meta["delta"], want_delta, rtol=1e-12)
    c = cluster.run("halo2d", variant="hybrid1", nx=NX, ny=NY, iterations=ITERATIONS)
    c_check = c.records.query("record == 'checksum'").iloc[0]
    assert np.isclose(res.meta["checksum"], c_check["checksum"], rtol=1e-12, atol=0)
    assert np.isclose(res.meta["delta"], c_check["delta"], rtol=1e-12)
    table = numba_vs_c([res, c], ITERATIONS)
    assert set(table["variant"]) == {"numba", "hybrid1"}
    assert (table[["jacobi", "halo", "reduction", "total"]] >= 0).all().all()
    ratios = ratio_table(table)
    assert len(ratios) == 1 and ratios["total numba/C"].iloc[0] > 0


def test_the_engines_pool_has_the_placements_threads(cluster):
    rows, reports = engine_threads(cluster)
    assert [r["rank"] for r in reports] == [0, 1]
    for rep in reports:
        assert rep["NUMBA_NUM_THREADS"] == "1" and rep["numba_threads"] == 1
        assert rep["layer"] in ("omp", "workqueue", "tbb")
    assert sorted(rows["rank"]) == [0, 1] and set(rows["thread"]) == {0}
    assert rows["cpu"].between(0, 4096).all()


def test_the_gil_probe_reports_every_case_on_rank_0(cluster):
    table = gil_table(cluster, seconds=0.05)
    assert list(table["rank 0's thread is in"]) == [
        "time.sleep (releases the GIL)",
        "comm.Recv, waiting for rank 1",
        "numba kernel",
        "numba kernel, nogil=True",
    ]
    assert (table["steps/s"] >= 0).all() and table["share of sleep"].iloc[0] == 1
    with pytest.raises(ValueError, match="at least 2 ranks"):
        gil_table(hl.Cluster(ranks=1))


def test_each_layer_in_its_own_process_with_two_threads():
    rows, reports = layer_reports(threads=2, bind="none", layers=("workqueue", "no-such-layer"))
    table = layer_table(rows).set_index("layer")
    assert table.loc["workqueue", "available"] and table.loc["workqueue", "threads"] == 2
    assert not table.loc["no-such-layer", "available"]
    assert reports[0]["NUMBA_NUM_THREADS"] == "2"
    assert "pinned" not in table  # which layers pinned their threads is lab 09's exercise
    fig = layer_maps(rows, hl.read_topology())
    assert [ax.get_title().split(":")[0] for ax in fig.axes] == ["layer workqueue", "layer no-such-layer"]
    assert "not available" in fig.axes[1].get_title()
    fig = jit_plot(jit_times(nx=8))
    assert len(fig.axes[0].patches) == 4


def test_the_student_checks_catch_a_wrong_or_serial_kernel():
    rows = check_sweep(jacobi.sweep, sizes=((5, 4), (13, 11), (1, 9)))  # 2-D: the kit's kernel
    assert all(r["max_rel_error"] == 0 for r in rows)
    with pytest.raises(AssertionError, match="differs from the reference"):
        check_sweep(gauss_seidel, sizes=((6, 5),))
    check_sweep(parallel_sweep3d)  # 3-D, another order of additions: within 1e-12
    check_sweep(serial_sweep3d)  # right, but serial
    work = thread_work(serial_sweep3d, size=(64, 64, 64), seconds=0.1)
    assert working_threads(work) == 1
    if numba.get_num_threads() >= 2 and probe.thread_cpu_seconds():
        work = thread_work(parallel_sweep3d, size=(64, 64, 64), seconds=0.1)
        assert working_threads(work) >= 2, work


def test_the_gil_counter_stops_when_the_action_raises():
    """A probe whose action fails (a bad communicator) must not leave its counting thread
    spinning in the process: it took the GIL from every test after it."""
    import threading

    from hybridlab.pykernels.probe import _counted

    before = threading.active_count()
    with pytest.raises(ZeroDivisionError):
        _counted(lambda: 1 / 0)
    assert threading.active_count() == before
