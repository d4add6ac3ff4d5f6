"""Lab 08's runs (the only module of the topic that launches kernels): the calibration of this
machine with the kernels of labs 02-05, the emulated-overlap runs of halo3d (lab 04's kernel)
and the runs the lab predicts.

    from hybridlab.modelling.exercise import load_or_measure, overlap_runs
    cal = load_or_measure("calibration.json", quick=True)   # measures only what the file lacks
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

import hybridlab as hl

from ..memory.tables import stream_elements, stream_note
from ..p2p.hockney import piecewise_hockney
from ..runs.launch import run_program
from ..runs.records import Results
from ..sync.tables import overhead_table
from .calibration import (
    DEFAULT_FILE,
    QUANTITIES,
    Calibration,
    Quantity,
    load,
    now,
    save,
    this_machine,
)

TIMEOUT = 300.0


def _cores() -> int:
    return len(hl.read_topology().usable)


def measure_network(quick: bool = False) -> dict[str, Quantity]:
    """Lab 03's ping-pong sweep (2 ranks bound to cores, median of the samples per size) and
    its two-piece Hockney fit (p2p.hockney)."""
    counts = (dict(iterations=200, skip=20, iterations_large=20, skip_large=2, samples=3)
              if quick else dict(iterations=1000, skip=100, iterations_large=100, skip_large=10,
                                 samples=5))  # fmt: skip
    max_bytes = 1 << (20 if quick else 22)
    res = run_program("pingpong", ranks=2, threads=1, bind="cores", timeout=TIMEOUT,
                      mode="sweep", min_bytes=1, max_bytes=max_bytes, **counts)  # fmt: skip
    sweep = res.records.groupby("bytes", as_index=False)["seconds"].median()
    fit = piecewise_hockney(sweep["bytes"], sweep["seconds"])
    where = (f"pingpong (lab 03), 2 ranks x 1 thread, 1 B-{max_bytes // 1024} KiB, "
             "median of samples; Hockney fit (p2p.hockney)")  # fmt: skip
    below, above = f", below {fit.switch_bytes:.0f} B", f", from {fit.switch_bytes:.0f} B"
    return {
        "latency_s": _latency(fit.below.alpha, where + below),
        "bandwidth_Bps": Quantity(fit.above.beta, "B/s", where + above),
        "bandwidth_small_Bps": Quantity(fit.below.beta, "B/s", where + below),
        "latency_large_s": _latency(fit.above.alpha, where + above),
        "switch_bytes": Quantity(fit.switch_bytes, "B", where + ": the best two-line split"),
    }


def _latency(alpha: float, where: str) -> Quantity:
    """A fitted latency; a negative intercept (noise: the line resolves no latency) kept as 0,
    and the source says so."""
    if alpha >= 0:
        return Quantity(alpha, "s", where)
    return Quantity(0.0, "s", where + f"; the fit gave {alpha * 1e6:.3g} us, taken as 0")


def measure_memory(quick: bool = False) -> dict[str, Quantity]:
    """Lab 05's STREAM triad with 1 thread and with every core (best of the passes)."""
    topology = hl.read_topology()
    n = stream_elements(topology, quick)
    note = stream_note(topology, n, quick)
    out = {}
    for name, threads in (("mem_bw_1_Bps", 1), ("mem_bw_all_Bps", _cores())):
        res = run_program("stream", ranks=1, threads=threads, bind="cores", timeout=TIMEOUT,
                          n=n, ntimes=5 if quick else 10, kernels="triad")  # fmt: skip
        row = res.records.query("record == 'stream'").iloc[0]
        out[name] = Quantity(float(row["gb_s"]) * 1e9, "B/s",
                             f"stream (lab 05), triad, {threads} thread(s), n = {n}"
                             + (f"; {note}" if note else ""))  # fmt: skip
    return out


def measure_stencil(quick: bool = False) -> dict[str, Quantity]:
    """Lab 04's halo3d, pure MPI on one rank: interior points updated per second of its jacobi
    phase (the compute the halo models need)."""
    side, iterations = (64, 10) if quick else (128, 10)
    res = run_program("halo3d", ranks=1, threads=1, bind="cores", timeout=TIMEOUT,
                      variant="pure", nx=side, ny=side, nz=side, iterations=iterations)  # fmt: skip
    t = res.records.query("record == 'timer' and phase == 'jacobi'")["seconds"].max()
    return {"stencil_rate": Quantity(side**3 * iterations / float(t), "point/s",
                                     f"halo3d (lab 04), pure, 1 x 1, {side}^3, {iterations} "
                                     "iterations: points / jacobi time")}  # fmt: skip


def measure_sync(quick: bool = False) -> dict[str, Quantity]:
    """Lab 02's syncbench: EPCC overheads (test - reference) of an OpenMP barrier on every core
    and of MPI_Barrier on 2 ranks (never below 0)."""
    samples = 8 if quick else 20
    out = {}
    for name, ranks, threads, construct in (("omp_barrier_s", 1, _cores(), "barrier"),
                                            ("mpi_barrier_s", 2, 1, "mpi_barrier")):  # fmt: skip
        res = run_program("syncbench", ranks=ranks, threads=threads, bind="cores",
                          timeout=TIMEOUT, construct=f"reference,{construct}",
                          samples=samples)  # fmt: skip
        row = overhead_table(res.records).query("construct == @construct").iloc[0]
        out[name] = Quantity(max(float(row["overhead_us"]), 0.0) * 1e-6, "s",
                             f"syncbench (lab 02), {construct}, {ranks} x {threads}, "
                             f"median of {samples} samples minus the reference loop")  # fmt: skip
    return out


MEASURES: dict[str, Callable[[bool], dict[str, Quantity]]] = {
    "latency_s": measure_network,
    "bandwidth_Bps": measure_network,
    "bandwidth_small_Bps": measure_network,
    "latency_large_s": measure_network,
    "switch_bytes": measure_network,
    "mem_bw_1_Bps": measure_memory,
    "mem_bw_all_Bps": measure_memory,
    "stencil_rate": measure_stencil,
    "omp_barrier_s": measure_sync,
    "mpi_barrier_s": measure_sync,
}


def calibrate(names: Iterable[str] = tuple(QUANTITIES), quick: bool = False) -> Calibration:
    """Measure `names` (each measuring function runs once, whatever it gives besides)."""
    values: dict[str, Quantity] = {}
    for name in names:
        if name not in MEASURES:
            raise KeyError(f"unknown quantity {name!r}; known: {', '.join(MEASURES)}")
        if name not in values:
            values.update(MEASURES[name](quick))
    return Calibration(values, this_machine(), now(), quick)


def load_or_measure(path: str | os.PathLike = DEFAULT_FILE, names: Iterable[str] = tuple(QUANTITIES),
                    quick: bool = False, refresh: bool = False) -> Calibration:  # fmt: skip
    """The calibration in `path`, with whatever of `names` it lacks measured now and saved back
    (all of it when the file is missing, from another machine, or refresh=True). A folder that
    cannot be written to only costs the saving: the numbers are returned all the same."""
    names = list(names)
    cal = None if refresh else load(path)
    if cal is None:
        cal = Calibration(machine=this_machine(), created=now(), quick=quick)
    todo = cal.missing(names)
    if todo:
        cal = cal.merged(calibrate(todo, quick))
        try:
            save(cal, path)
        except OSError:
            pass  # a read-only folder: measured again next time
    return cal


def _overlap_pair(wait_us: int, side: int, iterations: int, threads: int) -> list[Results]:
    """halo3d masteronly and funnelled (master_share 0: the master only "communicates" and
    updates the thin boundary shell) on one rank, with an emulated wait after every exchange."""
    bind = "cores" if threads <= _cores() else "none"
    return [run_program("halo3d", ranks=1, threads=threads, bind=bind, timeout=TIMEOUT,
                        thread_level="funneled", variant=variant, nx=side, ny=side, nz=side,
                        iterations=iterations, comm_wait_us=int(wait_us), **extra)
            for variant, extra in (("masteronly", {}), ("funnelled", {"master_share": 0.0}))]  # fmt: skip


def overlap_runs(fractions: Iterable[float], side: int, iterations: int, threads: int = 2,
                 repeats: int = 2) -> list[Results]:  # fmt: skip
    """The overlap measurement: first masteronly without a wait gives the compute time of one
    iteration t0; then for each target f_comm the wait t0 f / (1 - f) per iteration, each pair
    `repeats` times (measured_epsilon keeps the fastest)."""
    out = _overlap_pair(0, side, iterations, threads)
    timers = out[0].records.query("record == 'timer' and phase == 'total'")
    t0 = float(timers["seconds"].max()) / iterations
    for f in fractions:
        wait = int(round(1e6 * t0 * f / (1.0 - f)))
        for _ in range(repeats):
            out += _overlap_pair(wait, side, iterations, threads)
    return out


def halo_run(ranks: int, threads: int, side: int, iterations: int, cluster=None) -> Results:
    """One halo3d run (masteronly; pure when threads == 1) to compare with a prediction: in the
    engines of `cluster` when given, else under mpiexec."""
    variant = "pure" if threads == 1 else "masteronly"
    params = dict(variant=variant, nx=side, ny=side, nz=side, iterations=iterations)
    if cluster is not None:
        return cluster.run("halo3d", timeout=TIMEOUT, **params)
    return run_program("halo3d", ranks=ranks, threads=threads, timeout=TIMEOUT,
                       bind="cores" if ranks * threads <= _cores() else "none",
                       thread_level="funneled", **params)  # fmt: skip
