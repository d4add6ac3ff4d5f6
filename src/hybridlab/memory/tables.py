"""Lab 05's numbers: array sizes, byte and flop counts, and tables built from kernel records.

Nothing here runs a kernel: the functions take the Results (or record frames) that
`hybridlab.memory.exercise` returns, so the lab, the tests and the benchmark read them alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..machine.topology import Topology
from ..runs.records import Results, as_frame, require_columns

STREAM_KERNELS = ("copy", "scale", "add", "triad")
STREAM_FLOPS = {"copy": 0, "scale": 1, "add": 1, "triad": 2}  # per iteration (STREAM's count)
QUICK_NOTE = (
    "quick mode: arrays smaller than 4x the last-level cache, so this is not a STREAM-valid "
    "memory bandwidth (the arrays may sit in the cache)"
)
# The three arrays together never take more than this: the grader's sandbox holds 3 GiB by
# default (grading.sandbox), kernel and engines included, and a machine whose last-level cache
# is hundreds of MiB (a 480 MiB L3 seen on a 2-CPU cloud VM) would otherwise ask 4 x 480 MiB
# per array, 5.6 GiB in all, and be killed there.
STREAM_MAX_BYTES = 1 << 30
CAPPED_NOTE = (
    "arrays capped at 1 GiB for the three together, smaller than STREAM's 4x the last-level "
    "cache on this machine: part of them may sit in the cache, so the bandwidth may read high"
)

# The course's kernels on the roofline: flops and bytes per point (or element) and iteration,
# bytes counted as STREAM counts them (each array streamed once; no write-allocate), with the
# assumption that a stencil's neighbour rows stay in the cache (the "layer condition").
COURSE_KERNELS = {
    "triad (this lab)": {"flops": 2, "bytes": 24, "note": "a = b + s*c: 2 flops, 3 arrays"},
    "Jacobi 2-D (lab 04 halo2d)": {
        "flops": 7,
        "bytes": 32,
        "note": "4 flops for the mean of 4 neighbours, 3 for delta; read u, write new, "
        "copy new back into u: 4 streams of 8 bytes",
    },
}


def stream_elements(topology: Topology, quick: bool = False) -> int:
    """Elements per STREAM array: 4 x the last-level cache (STREAM's rule), at least 2^21 and
    at most STREAM_MAX_BYTES for the three arrays (CAPPED_NOTE).

    Quick mode takes a quarter of the cache instead (fast, but not STREAM-valid: QUICK_NOTE)."""
    llc = topology.last_level_cache_bytes() or 8 * 1024 * 1024
    if quick:
        return min(max(1 << 17, llc // 4 // 8), STREAM_MAX_BYTES // 24)
    return min(max(1 << 21, 4 * llc // 8), STREAM_MAX_BYTES // 24)


def stream_note(topology: Topology, n: int, quick: bool) -> str:
    """What a plot or a table of STREAM arrays of `n` elements must say: QUICK_NOTE,
    CAPPED_NOTE, or nothing when they are at least 4x the last-level cache."""
    if quick:
        return QUICK_NOTE
    return CAPPED_NOTE if 8 * n < 4 * topology.last_level_cache_bytes() else ""


def _frames(runs: Results | pd.DataFrame | Iterable[Results | pd.DataFrame]) -> pd.DataFrame:
    if isinstance(runs, (Results, pd.DataFrame)):
        runs = [runs]
    frames = [as_frame(r) for r in runs]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def stream_table(runs: Results | Iterable[Results]) -> pd.DataFrame:
    """One row per run and STREAM kernel: threads, ranks, init, schedule, best/avg seconds,
    bytes, GB/s (1e9 bytes per second, as STREAM prints MB/s with 1e6)."""
    f = _frames(runs)
    require_columns(f, ["record"], "STREAM records")
    s = f[f["record"] == "stream"]
    cols = ["kernel", "ranks", "threads", "init", "schedule", "chunk", "n", "best_s", "avg_s",
            "max_s", "bytes", "gb_s"]  # fmt: skip
    return s[cols].reset_index(drop=True)


def raw_times(runs: Results | Iterable[Results], kernel: str = "triad") -> pd.DataFrame:
    """Every pass of one STREAM kernel: threads, repetition, seconds, bytes (the raw data)."""
    f = _frames(runs)
    t = f[(f["record"] == "time") & (f["kernel"] == kernel)]
    return t[["threads", "repetition", "seconds", "bytes"]].reset_index(drop=True)


def flops_table(runs: Results | Iterable[Results]) -> pd.DataFrame:
    """One row per run of the flops kernel: threads, fma, intensity, best seconds, GFLOP/s."""
    f = _frames(runs)
    s = f[f["record"] == "flops"]
    return s[["threads", "ranks", "fma", "n", "intensity", "best_s", "flops", "bytes",
              "gflop_s"]].reset_index(drop=True)  # fmt: skip


def page_runs(runs: Results | Iterable[Results]) -> pd.DataFrame:
    """The page map as runs of consecutive pages: init, policy, first, count, node, toucher."""
    f = _frames(runs)
    p = f[f["record"] == "pages"]
    return p[["init", "policy", "threads", "first", "count", "node", "toucher"]].reset_index(
        drop=True
    )


def page_nodes(res: Results) -> np.ndarray:
    """The NUMA node of every page of one first_touch run (-2: not present, as move_pages)."""
    runs = page_runs(res)
    out = np.full(int((runs["first"] + runs["count"]).max()), -3, dtype=int)
    for row in runs.itertuples():
        out[int(row.first) : int(row.first) + int(row.count)] = int(row.node)
    return out


OWNER_COLUMNS = ["rank", "array", "page", "toucher", "toucher_cpu", "writer", "writer_cpu",
                 "writer_tid", "rewriter", "rewriter_tid"]


def page_owners(res: Results | pd.DataFrame, array: str | None = None) -> pd.DataFrame:
    """Who first touched each page of the arrays one run traced with hl_touch.h (one row per
    rank, array and page): toucher, the thread whose access came first, and writer, the thread
    whose first write placed the page (first touch), with the CPUs they ran on and the writer's
    OS thread (writer_tid); rewriter and rewriter_tid, the first later write by another OS thread
    than the writer (hl_touch.h seals written pages again); -1 where no thread touched, wrote or
    rewrote the page (and for records made before the tracer recorded OS threads). `array` keeps
    one array's pages."""
    f = as_frame(res)
    if "record" not in f or not (f["record"] == "touch").any():
        raise ValueError(
            "no page records: the kernel must trace its array with hl_touch_alloc and emit it "
            "with hl_touch_emit (kernels_c/hl_touch.h)"
        )
    runs_ = f[f["record"] == "touch"]
    if array is not None:
        runs_ = runs_[runs_["array"] == array]
        if runs_.empty:
            known = ", ".join(sorted(set(f.loc[f["record"] == "touch", "array"])))
            raise ValueError(f"no traced array named {array!r} (traced: {known})")
    counts = runs_["count"].astype(int).to_numpy()
    firsts = runs_["first"].astype(int)
    pages = np.concatenate([np.arange(a, a + n) for a, n in zip(firsts, counts, strict=True)])
    table = pd.DataFrame({"rank": np.repeat(runs_["rank"].astype(int).to_numpy(), counts),
                          "array": np.repeat(runs_["array"].to_numpy(), counts), "page": pages})  # fmt: skip
    for column in OWNER_COLUMNS[3:]:
        values = runs_[column] if column in runs_ else pd.Series(-1, index=runs_.index)
        table[column] = np.repeat(values.fillna(-1).astype(int).to_numpy(), counts)
    return table.sort_values(["rank", "array", "page"], kind="stable").reset_index(drop=True)


def thread_nodes(res: Results) -> dict[int, int]:
    """thread -> the NUMA node it ran on, from the sweep records of a first_touch run."""
    f = as_frame(res)
    s = f[f["record"] == "sweep"]
    return {int(t): int(n) for t, n in zip(s["thread"], s["numa"], strict=True)}


def sweep_table(runs: Results | Iterable[Results]) -> pd.DataFrame:
    """Per thread of each first_touch run: pages, local pages, GB/s of its best sweep."""
    f = _frames(runs)
    s = f[f["record"] == "sweep"].copy()
    s["gb_s"] = 1e-9 * s["bytes"] / s["seconds"]
    s["local_share"] = s["local_pages"] / s["pages"]
    s[["thread", "pages", "local_pages"]] = s[["thread", "pages", "local_pages"]].astype(int)
    return s[["init", "policy", "thread", "cpu", "numa", "pages", "local_pages", "local_share",
              "seconds", "gb_s"]].reset_index(drop=True)  # fmt: skip


def matrix_table(res: Results, value: str = "best_s") -> pd.DataFrame:
    """Reader x owner GB/s of a numa_matrix run (rows: reading thread, columns: owner)."""
    f = as_frame(res)
    c = f[f["record"] == "cell"].copy()
    c[["reader", "owner"]] = c[["reader", "owner"]].astype(int)
    c["gb_s"] = 1e-9 * c["bytes"] / c[value]
    return c.pivot(index="reader", columns="owner", values="gb_s")


def matrix_contrast(matrix: pd.DataFrame) -> float:
    """Mean of the diagonal (own data) over the mean off the diagonal (others' data)."""
    m = matrix.to_numpy(dtype=float)
    if m.shape[0] < 2:
        return float("nan")
    off = m[~np.eye(m.shape[0], dtype=bool)]
    return float(np.mean(np.diag(m)) / np.mean(off))


XT6_DIES = {0: "own data", 1: "neighbouring die", 2: "counterpart die", 3: "diagonally opposite die"}


def xt6_relation(thread: int, data_thread: int, per_die: int = 6) -> str:
    """Where a thread's data was initialised relative to it on an XT6 node (Armstrong et al.'s OpenMP test).

    [derived] Armstrong et al. says threads are placed sequentially, 6 per die, dies 0-1 on socket 0 and 2-3
    on socket 1; 'counterpart' is the same die of the other socket. The classification is this
    kit's reading of the slide's description, not printed in the source."""
    a, b = thread // per_die, data_thread // per_die
    if a == b:
        return XT6_DIES[0]
    if a // 2 == b // 2:
        return XT6_DIES[1]
    if a % 2 == b % 2:
        return XT6_DIES[2]
    return XT6_DIES[3]


def xt6_openmp_test(reference: pd.DataFrame) -> pd.DataFrame:
    """004's 24-thread table with the derived relation of each thread to its data."""
    out = reference.copy()
    out["relation"] = [
        xt6_relation(int(t), int(d))
        for t, d in zip(out["thread"], out["data_init_thread"], strict=True)
    ]
    return out


def schedule_table(runs: Sequence[Results]) -> pd.DataFrame:
    """Triad GB/s per schedule (init=parallel with a static first touch, as Luecke et al., section 1)."""
    t = stream_table(runs)
    t = t[t["kernel"] == "triad"].copy()
    t["label"] = [s if c == 0 else f"{s},{c}" for s, c in zip(t["schedule"], t["chunk"], strict=True)]
    return t[["label", "schedule", "chunk", "threads", "init", "best_s", "gb_s"]].reset_index(drop=True)


def machine_level(topology: Topology) -> str:
    """Which level of the memory hierarchy the threads x owners matrix can show here."""
    if len(topology.numa_nodes) > 1:
        return "numa"
    return "cache"


def saturation_table(stream_runs: Sequence[Results], flops_runs: Sequence[Results]) -> pd.DataFrame:
    """threads, triad GB/s and flops GFLOP/s (the kernels' own best-of-N). Percentages, speedups
    and efficiencies are lab 05's part (a), computed by the student's bandwidth_table."""
    s = stream_table(stream_runs)
    s = s[s["kernel"] == "triad"].set_index("threads")
    f = flops_table(flops_runs).set_index("threads")
    out = pd.DataFrame({"triad_gb_s": s["gb_s"], "flops_gflop_s": f["gflop_s"]})
    return out.rename_axis("threads").reset_index()



def touch_vs_compute(res: Results) -> pd.DataFrame:
    """touch_schedule's pages: page_owners (who first touched and wrote each page) with
    `computer` and `computer_tid`, the thread (OpenMP number and OS thread) the compute loop's
    schedule has compute on it, from the kernel's "compute" runs; `matches` is True where the
    writer (whose write placed the page) is that OS thread (by number too where the OS thread is
    not known; a team of one nested in it numbers it 0), and no other OS thread wrote the page
    after it."""
    runs = res.records[res.records["record"] == "compute"]
    require_columns(runs, ["array", "first", "count", "computer"], "touch_vs_compute")
    tids = runs["computer_tid"] if "computer_tid" in runs else pd.Series(-1, index=runs.index)
    computed = pd.DataFrame(
        [(int(r.rank), str(r.array), int(r.first) + k, int(r.computer), int(tid))
         for r, tid in zip(runs.itertuples(), tids.fillna(-1), strict=True)
         for k in range(int(r.count))],
        columns=["rank", "array", "page", "computer", "computer_tid"],
    )  # fmt: skip
    table = page_owners(res).merge(computed, on=["rank", "array", "page"], how="outer")
    ints = ["writer", "writer_tid", "rewriter", "rewriter_tid", "computer", "computer_tid"]
    table[ints] = table[ints].fillna(-1).astype(int)
    table["matches"] = (((table["writer"] == table["computer"]) | (table["writer_tid"] >= 0))
                        & (table["writer_tid"] == table["computer_tid"])
                        & (table["rewriter_tid"] < 0))  # fmt: skip
    return table
