"""Lab 05's measurements: the only module of the memory topic that runs kernels.

Every function returns hybridlab Results (records + where it ran + the probe state); the tables
in hybridlab.memory.tables turn them into numbers and hybridlab.memory.plots into pictures.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

import numpy as np
import pandas as pd

import hybridlab as hl

from ..kernels.c_cells import unanswered
from ..runs.records import Results, parse_lines
from ..runs.student_c import build_student, preprocessed, run_student
from . import tables

TIMEOUT = 300.0


def cores() -> int:
    """Usable CPUs of this process (what the thread sweeps go up to)."""
    return len(hl.read_topology().usable)


def run_stream(threads: int = 1, *, n: int, ntimes: int = 10, kernels: str = "copy,scale,add,triad",
               init: str = "parallel", schedule: str = "static", chunk: int = 0,
               bind: str = "cores", ranks: int = 1, cluster=None) -> Results:  # fmt: skip
    """The STREAM kernels, as a program under mpiexec (or in the engines of `cluster`)."""
    params = dict(n=n, ntimes=ntimes, kernels=kernels, init=init, schedule=schedule, chunk=chunk)
    if cluster is not None:
        return cluster.run("stream", timeout=TIMEOUT, **params)
    return hl.run_program("stream", ranks=ranks, threads=threads, bind=bind, timeout=TIMEOUT,
                          **params)  # fmt: skip


def run_flops(threads: int = 1, *, n: int = 4096, fma: int = 64, ntimes: int = 20,
              bind: str = "cores", ranks: int = 1) -> Results:  # fmt: skip
    """The compute kernel (fma updates per element: intensity fma/8 flop/byte)."""
    return hl.run_program("flops", ranks=ranks, threads=threads, bind=bind, timeout=TIMEOUT,
                          n=n, fma=fma, ntimes=ntimes)  # fmt: skip


def saturation(n: int, *, max_threads: int | None = None, ntimes: int = 10
               ) -> tuple[list[Results], list[Results]]:  # fmt: skip
    """Triad (memory-bound) and flops (compute-bound) for 1..cores threads, bound to cores."""
    top = max_threads or cores()
    stream_runs = [run_stream(t, n=n, ntimes=ntimes, kernels="triad") for t in range(1, top + 1)]
    flops_runs = [run_flops(t) for t in range(1, top + 1)]
    return stream_runs, flops_runs


def run_first_touch(init: str = "parallel", *, threads: int | None = None, pages: int = 4096,
                    policy: str = "default", node: int = 0, bind: str = "cores") -> Results:  # fmt: skip
    """Place a fresh array by `init` (and a memory policy), read every page's node back."""
    t = threads or cores()
    return hl.run_program("first_touch", ranks=1, threads=t, bind=bind, timeout=TIMEOUT,
                          init=init, pages=pages, policy=policy, node=node)  # fmt: skip


def numactl_command(option: str) -> list[str] | None:
    """['numactl', option] where numactl is installed, else None."""
    exe = shutil.which("numactl")
    return [exe, option] if exe else None


def run_first_touch_numactl(option: str, init: str = "serial", *, threads: int | None = None,
                            pages: int = 4096) -> Results | None:  # fmt: skip
    """The first_touch program run as `numactl <option> first_touch ...` (one MPI process, no
    mpiexec: a singleton), so numactl's policy is the one the kernel inherits. None without
    numactl."""
    prefix = numactl_command(option)
    if prefix is None:
        return None
    t = threads or cores()
    kernel = hl.build("first_touch")
    placement = hl.Placement(1, t, "cores")
    env = dict(os.environ)
    env.update(placement.environment(hl.mpi_info().implementation, cores()))
    cmd = [*prefix, str(kernel.program), *kernel.arguments({"init": init, "pages": pages})]
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=TIMEOUT, check=False)
    if done.returncode != 0:
        raise hl.KernelError(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    rows, ranks = parse_lines(done.stdout, "first_touch under numactl")
    meta = {"kernel": "first_touch", "command": " ".join(cmd), "run_by": "numactl",
            "seconds": round(time.monotonic() - start, 4), "threads": t, "ranks": 1}  # fmt: skip
    return Results.from_rows(rows, ranks, meta, [])


def run_numa_matrix(threads: int | None = None, *, block_bytes: int, refresh: int = 1,
                    reps: int = 20) -> Results:  # fmt: skip
    """Each thread reads the block every thread first touched: the threads x owners matrix."""
    t = threads or max(2, cores())
    bind = "cores" if t <= cores() else "none"
    return hl.run_program("numa_matrix", ranks=1, threads=t, bind=bind, timeout=TIMEOUT,
                          block_bytes=block_bytes, refresh=refresh, reps=reps)  # fmt: skip


def cache_block_bytes(topology=None) -> int:
    """A block that fits the private (L2) cache of one core: half of the largest private cache."""
    topology = topology or hl.read_topology()
    private = [c.size_bytes for c in topology.caches if len(c.cpus) == 1 and c.kind != "Instruction"]
    return max(16 * 1024, (max(private) if private else 256 * 1024) // 2)


def run_schedules(n: int, *, threads: int | None = None, ntimes: int = 5,
                  choices=(("static", 0), ("dynamic", 0), ("dynamic", 1024), ("guided", 0))
                  ) -> list[Results]:  # fmt: skip
    """Triad with each loop schedule on data first touched with the static schedule."""
    t = threads or cores()
    return [run_stream(t, n=n, ntimes=ntimes, kernels="triad", schedule=s, chunk=c)
            for s, c in choices]  # fmt: skip


def run_jacobi_point(n: int = 1024, iterations: int = 20, threads: int | None = None) -> dict:
    """Lab 04's halo2d (hybrid1, one rank) measured as a point on the roofline: GFLOP/s."""
    t = threads or cores()
    res = hl.run_program("halo2d", ranks=1, threads=t, bind="cores", timeout=TIMEOUT,
                         variant="hybrid1", nx=n, ny=n, iterations=iterations)  # fmt: skip
    r = res.records
    seconds = float(r[(r["record"] == "timer") & (r["phase"] == "jacobi")]["seconds"].max())
    counts = tables.COURSE_KERNELS["Jacobi 2-D (lab 04 halo2d)"]
    flops = counts["flops"] * n * n * iterations
    return {"label": "Jacobi 2-D (lab 04 halo2d)", "intensity": counts["flops"] / counts["bytes"],
            "gflop_s": 1e-9 * flops / seconds, "seconds": seconds, "results": res}  # fmt: skip


# Lab 05's C exercise: a first touch that matches the compute loop (kernels_c/touch_schedule.c).


def run_touch_schedule(threads: int, *, chunk: int, rows: int = 64, row_pages: int = 1,
                       ranks: int = 1) -> Results:  # fmt: skip
    """The kit's serial initialisation against the compute loop's schedule(static, chunk)."""
    return hl.run_program("touch_schedule", ranks=ranks, threads=threads, timeout=TIMEOUT,
                          variant="serial", chunk=chunk, rows=rows, row_pages=row_pages)


# a clause that binds the initialising team otherwise than the compute loop's (proc_bind(master)
# puts every thread on the master's place: the right thread numbers, the master's NUMA node)
PROC_BIND = re.compile(r"^\s*#\s*pragma\s+omp\b.*\bproc_bind\s*\(\s*(\w*)", re.M)


def build_student_touch(code: str, name: str = "student_touch") -> hl.Kernel:
    """The student's init_arrays() built into touch_schedule.c, MPI calls traced. ValueError when
    the cell, preprocessed, binds a team with a proc_bind clause (PROC_BIND): the threads that
    first touch the pages must run where the compute loop's do."""
    if not unanswered(code):
        bound = PROC_BIND.search(preprocessed("touch_schedule", "HL_STUDENT_TOUCH", code))
        if bound:
            raise ValueError(
                f"init_arrays binds its team with proc_bind({bound.group(1)}): the part allows "
                "the team the compute loop uses, bound as it is (the default binding, "
                "OMP_PROC_BIND; no proc_bind clause): each page must be first written where the "
                "thread computing on it runs")
    return build_student(name, "touch_schedule", "HL_STUDENT_TOUCH", code, ("init_arrays",))


def check_student_touch(
    kernel: hl.Kernel,
    shapes: tuple[tuple[int, int, int], ...] = ((1, 2, 1), (1, 2, 4)),
    rows: int = 48,
    row_pages: int = 1,
    timeout: float = 60.0,
) -> tuple[pd.DataFrame, Results]:
    """Run the student's initialisation at each (ranks, threads, chunk). AssertionError when a
    value is wrong, a page was placed by another thread's first write than the thread the
    compute loop has compute on it (or by none, or by a thread of that number in another team:
    another OS thread), or a page was written again by another OS thread after it was placed
    (judge_touch); ThreadComplianceError when a worker thread calls MPI. Returns one row per
    shape and the last run (tables.touch_vs_compute reads its pages)."""
    runs = student_touch_runs(kernel, shapes, rows=rows, row_pages=row_pages, timeout=timeout)
    rows_out = [judge_touch(res, shape, rows=rows, row_pages=row_pages)
                for shape, res in zip(shapes, runs, strict=True)]  # fmt: skip
    return pd.DataFrame(rows_out), runs[-1]


def student_touch_runs(kernel: hl.Kernel, shapes: tuple[tuple[int, int, int], ...], *, rows: int,
                       row_pages: int, timeout: float) -> list[Results]:  # fmt: skip
    """The student's initialisation run at each (ranks, threads, chunk), its pages traced
    (KernelError when the kernel finds a wrong value; ThreadComplianceError when a worker thread
    calls MPI)."""
    return [run_student(kernel, ranks, threads, "funneled", timeout, variant="student",
                        chunk=chunk, rows=rows, row_pages=row_pages)  # fmt: skip
            for ranks, threads, chunk in shapes]


def judge_touch(res: Results, shape: tuple[int, int, int], *, rows: int, row_pages: int) -> dict:
    """One run of student_touch_runs judged from its page records (AssertionError naming some
    pages that fail): every page placed by the first write of the thread computing on it, the
    same OS thread (the page tracer's gettid against the compute loop's: a nested team's thread
    of the same number is another, and a team of one nested in the computing thread, numbered 0,
    is that thread), and written by no other OS thread afterwards (the tracer
    seals written pages: a serial pass over the values after a parallel placement); its row."""
    ranks, threads, chunk = shape
    check = res.records.query("record == 'check'").iloc[0]
    owners = tables.touch_vs_compute(res)
    run = (f"{ranks} ranks x {threads} threads, schedule(static, {chunk}), {rows} rows of "
           f"{row_pages} page(s)")
    _judge_schedule(res, owners, run, threads=threads, chunk=chunk, rows=rows, row_pages=row_pages)
    same_os = (owners["writer_tid"] == owners["computer_tid"]) & (owners["writer_tid"] >= 0)
    bad = owners[(owners["writer"] != owners["computer"]) & ~same_os]  # (a team of one nested in
    # the compute loop's thread runs on that OS thread: its number 0 is the same thread)
    assert bad.empty, (
        f"{run}: {len(bad)} of {len(owners)} pages placed by another thread's "
        f"first write than the thread computing on them (-1: never written), e.g. "
        + ", ".join(f"rank {r.rank} {r.array}[page {r.page}]: written first by {r.writer}, "
                    f"computed by {r.computer}" for r in bad.head(3).itertuples())
    )
    other_team = owners[owners["writer_tid"] != owners["computer_tid"]]
    assert other_team.empty, (
        f"{run}: {len(other_team)} of {len(owners)} pages placed by another OS thread than the "
        "compute loop's thread of that number (a nested team's, or a team the compute loop does "
        "not use), e.g. "
        + ", ".join(f"rank {r.rank} {r.array}[page {r.page}]: thread {r.writer}"
                    for r in other_team.head(3).itertuples())
        + ": the part allows the first write by the compute loop's own threads, in a parallel "
        "region of the outermost level (no nested team)"
    )
    rewritten = owners[owners["rewriter_tid"] >= 0]
    assert rewritten.empty, (
        f"{run}: {len(rewritten)} of {len(owners)} pages written again by another thread after "
        "the thread computing on them placed them, e.g. "
        + ", ".join(f"rank {r.rank} {r.array}[page {r.page}]: placed by thread {r.writer}, then "
                    f"written by thread {r.rewriter}" for r in rewritten.head(3).itertuples())
        + ": the part allows every value written by the thread that computes on its page (in "
        "the parallel team), not a serial pass over the values after the placement"
    )
    return {"ranks": ranks, "threads": threads, "chunk": chunk, "pages": int(check["pages"]),
            "pages_matching": int(owners["matches"].sum())}


def scheduled_computers(rows: int, row_pages: int, threads: int, chunk: int) -> np.ndarray:
    """The thread the compute loop's schedule(static, chunk) over `threads` threads has compute
    on each page of one array of `rows` rows of `row_pages` pages (row-major): row i is in chunk
    i // chunk, dealt round robin. Computed here, from the run's requested shape, not from what
    the kernel recorded."""
    return np.repeat((np.arange(rows) // chunk) % threads, row_pages)


def _judge_schedule(res: Results, owners: pd.DataFrame, run: str, *, threads: int, chunk: int,
                    rows: int, row_pages: int) -> None:
    """AssertionError unless the kit's compute loop ran the requested schedule: every page
    computed by the thread scheduled_computers gives it, and the kernel's records say the
    requested chunk and thread count. A cell runs on the kernel's stack: a fresh attacker (R,
    2026-12-06) rewrote the compute loop's chunk there to the blocks its own first touch used,
    and the judge, which took the computer of each page from the kernel's records, followed it."""
    records = res.records[res.records["record"].isin(["compute", "sweep"])]
    seen_chunks = sorted({int(c) for c in records["chunk"].dropna()}) if "chunk" in records else []
    compute = records[records["record"] == "compute"]
    seen_threads = (sorted({int(t) for t in compute["threads"].dropna()})
                    if "threads" in compute else [])  # fmt: skip
    want = scheduled_computers(rows, row_pages, threads, chunk)
    page = owners["page"].to_numpy(int)
    inside = (page >= 0) & (page < len(want))
    expected = np.where(inside, want[np.clip(page, 0, len(want) - 1)], -2)
    off = owners[owners["computer"].to_numpy(int) != expected]
    expected_off = expected[owners["computer"].to_numpy(int) != expected]
    assert off.empty and seen_chunks == [chunk] and seen_threads in ([], [threads]), (
        f"{run}: the kit's compute loop did not run the requested schedule: its records say "
        f"chunk {', '.join(map(str, seen_chunks)) or '(none)'} and "
        f"{', '.join(map(str, seen_threads)) or '(no)'} threads"
        + (f", and {len(off)} of {len(owners)} pages computed by another thread than "
           f"schedule(static, {chunk}) over {threads} threads gives, e.g. "
           + ", ".join(f"rank {r.rank} {r.array}[page {r.page}]: computed by {r.computer}, "
                       f"scheduled to {w}"
                       for r, w in zip(off.head(3).itertuples(), expected_off[:3], strict=False))
           if not off.empty else "")
        + ": the compute loop is the kit's, with the chunk and team it was asked for; "
        "init_arrays follows it and may not change it (its chunk, its team or the kit's stack)"
    )
