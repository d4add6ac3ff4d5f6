"""hybridlab.simulate: the kit's kernels under SimGrid SMPI (lab 14). A 16-rank simulation here
(a few seconds); the 256-rank ones are marked `simgrid` (make test-simgrid)."""

from __future__ import annotations

import pytest

from hybridlab.errors import KernelError
from hybridlab.simulate import (
    SimulationError,
    available,
    check_simulable,
    hector,
    laptop,
    named,
    simulate,
)
from hybridlab.simulate.calibrate import START, bytes_sent, ceiling, check, fit, halo_rows
from hybridlab.simulate.platforms import FITTED, FITTED_ON, core_bandwidth

needs_simgrid = pytest.mark.skipif(not available(), reason="SimGrid's smpicc/smpirun not installed")


def phase(res, name: str) -> float:
    rows = res.records[res.records["phase"] == name]
    return float(rows["seconds"].max())


@needs_simgrid
def test_a_16_rank_halo_is_simulated_and_marked():
    res = simulate("halo3d", 16, "xt6", nx=64, ny=64, nz=64, iterations=2, dims="4x2x2")
    rec = res.records
    assert set(rec["rank"]) == set(range(16))
    assert rec["simulated"].all()
    assert not {"cpu", "numa", "host"} & set(rec.columns)
    assert set(zip(rec["px"], rec["py"], rec["pz"], strict=True)) == {(4, 2, 2)}
    assert phase(res, "halo") > 0 and phase(res, "jacobi") < 1e-6  # network only: no stencil
    assert res.meta["simulated"] and res.meta["pss_peak_bytes"] > 0
    assert any("node_latency" in w for w in res.warnings)  # assumed values named


@needs_simgrid
def test_grading_gives_back_the_reference_runs_simulation(tmp_path, monkeypatch):
    """A simulation is a run like a kernel's: the reference run keeps it, a graded notebook gets
    it back without running smpirun (lab 14's cells), and another simulation is run."""
    from hybridlab.simulate import run as sim_run

    grid = dict(nx=32, ny=32, nz=32, iterations=1, dims="2x2x1")
    monkeypatch.setenv("HYBRIDLAB_RUNS", f"record:{tmp_path}")
    made = simulate("halo3d", 4, "xt6", **grid)
    assert len(list(tmp_path.glob("*-0.json"))) == 1 and "replayed" not in made.meta

    def no_smpirun(*_, **__):
        raise AssertionError("smpirun ran although the reference run has this simulation")

    monkeypatch.setenv("HYBRIDLAB_RUNS", f"replay:{tmp_path}")
    monkeypatch.setattr(sim_run, "_run", no_smpirun)
    monkeypatch.setattr(sim_run.replay, "_seen", type(sim_run.replay._seen)())
    again = simulate("halo3d", 4, "xt6", **grid)
    assert again.meta["replayed"] == "reference"
    assert again.records["seconds"].tolist() == made.records["seconds"].tolist()
    assert again.meta["pss_peak_bytes"] == made.meta["pss_peak_bytes"]
    with pytest.raises(AssertionError, match="smpirun ran"):  # another grid: simulated anew
        simulate("halo3d", 4, "xt6", **{**grid, "nx": 48})


@needs_simgrid
def test_records_past_the_shared_malloc_threshold_arrive_whole():
    """Rank 0 gathers about 3.5 MB of timeline records, above smpi/auto-shared-malloc-thresh:
    folded onto shared pages, they arrived as zeros (hl_runtime.h allocates them past SMPI)."""
    res = simulate("halo3d", 16, "xt6", nx=64, ny=64, nz=64, iterations=400, dims="4x2x2",
                   timeline=1, timeline_iterations=400)  # fmt: skip
    timeline = res.records.query("record == 'timeline'")
    assert len(timeline) == 16 * 400 * 3  # every rank: halo, jacobi and reduction each iteration
    assert set(timeline["rank"]) == set(range(16))


@needs_simgrid
def test_the_halo_grows_with_the_message_as_the_platform_says():
    small = simulate("halo3d", 16, "xt6", ranks_per_node=1, nx=32, ny=32, nz=32, iterations=1,
                     dims="4x2x2")  # fmt: skip
    big = simulate("halo3d", 16, "xt6", ranks_per_node=1, nx=256, ny=256, nz=256, iterations=1,
                   dims="4x2x2")  # fmt: skip
    assert phase(big, "halo") > 3 * phase(small, "halo")  # 64x the bytes per face


@needs_simgrid
def test_a_wrong_process_grid_is_the_kernels_error():
    with pytest.raises(KernelError, match="dims=3x3x3 has 27 ranks"):
        simulate("halo3d", 16, "xt6", nx=32, ny=32, nz=32, iterations=1, dims="3x3x3")


@pytest.mark.parametrize(
    "kernel, threads, level, params, says",
    [
        ("halo3d", 2, "single", {}, "threads inside a simulated rank"),
        ("halo3d", 1, "single", {"variant": "masteronly"}, "threads inside a simulated rank"),
        ("halo2d", 1, "single", {"variant": "hybrid2"}, "threads inside a simulated rank"),
        ("halo3d", 1, "funneled", {}, "only MPI_THREAD_SINGLE"),
        ("stream", 1, "single", {}, "cannot be simulated here"),
    ],
)
def test_what_smpi_cannot_run_is_refused_clearly(kernel, threads, level, params, says):
    with pytest.raises(SimulationError, match=says):
        check_simulable(kernel, threads, level, params)


def test_platform_values_say_where_they_come_from():
    xt4 = named("xt4").table()
    named_as = {
        "node_latency": "node_latency",
        "intra_share": "intra_bandwidth",
        "copy_traffic": "pack",
    }
    for value, row in named_as.items():
        label = f"fitted on {FITTED_ON}" if value in FITTED else "assumed"
        assert xt4.loc[row, "source"].startswith(label)
    assert set(FITTED) == {"copy_traffic"}  # the latencies and intra-node bandwidth stay assumed
    assert "fitted on" in xt4.loc["pack", "source"] and "per byte sent" in xt4.loc["pack", "source"]
    assert "Tables A.16-A.17, XT4" in FITTED_ON  # fitted on the XT4's rows, never the XT6's
    assert xt4.loc["intra_latency", "source"].startswith("assumed")
    assert "Stathopoulos 2010" in xt4.loc["node_bandwidth", "source"]
    assert xt4.loc["cores", "number"] == 4 and named("xt6").table().loc["cores", "number"] == 24
    mine = laptop(2e-6, 5e9, 2)
    assert mine.hockney(inter_node=False) == (2e-6, 5e9)
    assert mine.table().loc["intra_latency", "source"].startswith("measured")
    with pytest.raises(ValueError):
        laptop(-1.0, 5e9, 2)


@pytest.mark.simgrid
@needs_simgrid
def test_256_ranks_of_the_reports_xt4_grid():
    res = simulate("halo3d", 256, "xt4", nx=6144, ny=768, nz=384, iterations=2, dims="32x4x2")
    assert set(res.records["lx"]) == {192} and res.records["rank"].nunique() == 256
    assert phase(res, "halo") > 0 and res.meta["nodes"] == 64


@pytest.mark.simgrid
@needs_simgrid
def test_a_simulated_ping_pong_follows_the_platforms_hockney_line():
    alpha, beta = 3e-6, 4e9
    res = simulate("pingpong", 2, laptop(alpha, beta, 2), min_bytes=1 << 20, max_bytes=1 << 20,
                   iterations=5, skip=1, iterations_large=5, skip_large=1, samples=1)  # fmt: skip
    seconds = float(res.records["seconds"].median())
    assert seconds == pytest.approx(alpha + (1 << 20) / beta, rel=0.05)


@pytest.mark.simgrid
@needs_simgrid
def test_alltoall_at_64_ranks_finishes_with_the_pair_algorithm():
    res = simulate("alltoall", 64, "xt6", min_bytes=1024, max_bytes=1024, iterations=2, skip=1,
                   samples=1)  # fmt: skip
    assert "--cfg=smpi/alltoall:pair" in res.meta["smpi_options"]
    assert res.records["rank"].nunique() == 64


@needs_simgrid
def test_the_packing_cost_is_charged_to_every_send():
    run = dict(nx=128, ny=64, nz=64, iterations=1, dims="4x2x2")
    free = simulate("halo3d", 16, hector("XT6", {"copy_traffic": 0.0}), **run)
    packed = simulate("halo3d", 16, hector("XT6", {"copy_traffic": 2e-9 * core_bandwidth("XT6")}),
                      **run)  # fmt: skip
    assert "--cfg=smpi/ois:0:0:2e-09" in packed.meta["smpi_options"]
    assert not any("smpi/ois" in o for o in free.meta["smpi_options"])
    # 32^3 blocks: the slowest rank sends four 8 KiB faces, at least 4 x 8192 x 2 ns more
    assert phase(packed, "halo") - phase(free, "halo") >= 4 * 8192 * 2e-9 * 0.99


def test_the_copying_cost_is_one_cores_share_of_the_memory_bandwidth():
    """pack (s/B) = copy_traffic over the node's memory bandwidth shared by its cores: the same
    fitted traffic is cheaper per byte on the XT6 (85.3 GB/s over 24 cores) than the XT4 (12.8
    over 4)."""
    assert core_bandwidth("XT4") == pytest.approx(12.8e9 / 4)
    assert core_bandwidth("XT6") == pytest.approx(85.3e9 / 24)
    for system in ("xt4", "xt6"):
        p = named(system)
        assert p.pack.number == pytest.approx(
            FITTED["copy_traffic"] / core_bandwidth(system.upper())
        )
    assert named("xt6").pack.number < named("xt4").pack.number
    assert laptop(2e-6, 5e9, 2).pack.number == 0.0


def test_the_bytes_each_process_sends_grow_with_its_threads():
    """The slowest process's faces: 2 X faces, T-times longer Y (2) and Z (1) faces."""
    face4, face6 = 192 * 192 * 8, 144 * 144 * 8
    a16 = halo_rows(["A.16"], [1, 2, 4])
    assert [bytes_sent(r) for r in a16] == [5 * face4, 8 * face4, 14 * face4]
    a23 = {r.threads: bytes_sent(r) for r in halo_rows(["A.23"], [1, 6, 12, 24])}
    assert a23 == {1: 5 * face6, 6: 20 * face6, 12: (1 + 36) * face6, 24: 72 * face6}


def test_a_latency_above_the_link_time_of_the_smallest_face_is_outside_the_physical_range():
    rows = halo_rows(["A.16", "A.17"], [1, 2, 4])
    assert ceiling("node_latency", rows) == pytest.approx(192 * 192 * 8 / 6.4e9)
    assert ceiling("intra_share", rows) == 1.0 and ceiling("copy_traffic", rows) == float("inf")


@needs_simgrid
def test_the_fitted_platform_follows_the_fitting_rows_growth_with_threads():
    """A.16 (128 processes, 1, 2, 4 threads): within 0.8-1.25 of the report, and growing with
    the threads as the report's halo does (7.54, 10.08, 18.80 ms)."""
    got = check(halo_rows(["A.16"], [1, 2, 4]))
    assert got["ratio"].between(0.8, 1.25).all(), got
    assert got["simulated_ms"].is_monotonic_increasing
    assert got["simulated_ms"].iloc[-1] > 2 * got["simulated_ms"].iloc[0]


@pytest.mark.simgrid
@needs_simgrid
def test_the_held_out_xt6_rows_are_within_the_band():
    """The XT6's evenly placed Master Only rows, never fitted: 0.8-1.25 of the report."""
    rows = halo_rows(["A.23"], [1, 2, 3, 6]) + halo_rows(["A.24"], [1])
    got = check(rows)
    assert got["ratio"].between(0.8, 1.25).all(), got


@pytest.mark.simgrid
@needs_simgrid
def test_the_blocking_exchange_waits_along_the_line_of_ranks_the_nonblocking_does_not():
    """Why the calibration simulates the non-blocking exchange: from 16 to 32 ranks along X the
    report's one-thread halo is flat (7.54, 7.20 ms), the blocking one grows, the other not."""
    rows = halo_rows(["A.16", "A.17"], [1])
    blocking = check(rows, nonblocking=0)["simulated_ms"]
    nonblocking = check(rows)["simulated_ms"]
    assert blocking.iloc[1] > 1.5 * blocking.iloc[0]
    assert nonblocking.iloc[1] == pytest.approx(nonblocking.iloc[0], rel=0.1)


@pytest.mark.simgrid
@needs_simgrid
def test_the_fitted_copy_traffic_is_the_least_squares_minimum_on_the_fitting_rows():
    rows = halo_rows(["A.16", "A.17"], [1, 2, 4])

    def squares(traffic: float) -> float:
        return float(((check(rows, {"copy_traffic": traffic})["ratio"] - 1) ** 2).sum())

    best = squares(FITTED["copy_traffic"])
    assert best <= squares(FITTED["copy_traffic"] * 0.9)
    assert best <= squares(FITTED["copy_traffic"] * 1.1)


@pytest.mark.simgrid
@needs_simgrid
def test_the_fit_recovers_values_it_made_the_rows_from():
    """Rows simulated with known values are fitted back from another start point."""
    known = {**START, "copy_traffic": 10.0}
    rows = halo_rows(["A.16"], [1, 2, 4])
    made = [
        type(r)(r.table, r.system, r.processors, r.threads, ms)
        for r, ms in zip(rows, check(rows, known)["simulated_ms"], strict=True)
    ]
    got = fit(made, ("copy_traffic",))  # from START's 4 bytes per byte
    simulated = check(made, got)
    assert simulated["ratio"].between(0.97, 1.03).all(), (got, simulated)
    assert got["copy_traffic"] == pytest.approx(known["copy_traffic"], rel=0.05)


def test_fitted_values_are_physical():
    assert FITTED and all(v > 0 for v in FITTED.values())
    assert FITTED.get("intra_share", 0.5) <= 1
    assert FITTED["copy_traffic"] >= 1  # the face is read at least once
