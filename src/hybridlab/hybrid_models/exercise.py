"""Lab 01's exchange exercise: the student's exchange_block() built into thread_ring.c, checked.

    from hybridlab.hybrid_models.exercise import build_student_ring, check_ring
    kernel = build_student_ring(code)             # traced: Results.mpi_calls per thread
    check_ring(cluster.run(kernel, ...))          # AssertionError naming the first wrong block

The expected values come from a serial reference in Python (ring_reference), not from the
kernel's own count.
"""

from __future__ import annotations

import re

import pandas as pd

from ..build import Kernel, build_source
from ..records import Results

STUDENT_PROLOGUE = '#define HL_STUDENT_EXCHANGE 1\n#include "thread_ring.c"\n'
STUDENT_FUNCTIONS = (
    "int check_thread_level(hl_ctx *ctx)",
    "void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm)",
)
# Sends whose completion says the receive was posted: a standard send may return early because
# the library buffered it, which hides an ordering that deadlocks elsewhere.
STANDARD_SENDS = ("MPI_Send", "MPI_Isend", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Bsend",
                  "MPI_Ibsend", "MPI_Rsend", "MPI_Irsend")


def ring_value(rank: int, thread: int, k: int, i: int) -> int:
    """What thread `thread` of `rank` sends in iteration k, element i (thread_ring.c)."""
    return ((k * 64 + rank) * 64 + thread) * 1000 + i % 1000


def ring_reference(ranks: int, threads: int, iterations: int, count: int) -> pd.DataFrame:
    """Serial reference: per (rank, thread) the checksum of every block it should receive."""
    rows = []
    for rank in range(ranks):
        left = (rank - 1) % ranks
        for thread in range(threads):
            total = sum(
                ring_value(left, thread, k, i)
                for k in range(1, iterations + 1)
                for i in range(count)
            )
            rows.append({"rank": rank, "thread": thread, "expected": float(total)})
    return pd.DataFrame(rows)


def student_ring_source(code: str) -> str:
    """The whole kernel: thread_ring.c with the student's two functions (code of a C cell)."""
    if "NotImplementedError" in code or "YOUR CODE HERE" in code:
        raise NotImplementedError("write check_thread_level and exchange_block first")
    for signature in STUDENT_FUNCTIONS:
        name = re.search(r"(\w+)\(", signature).group(1)
        if not re.search(rf"\b{name}\s*\(", code):
            raise ValueError(f"the code must define {signature} {{ ... }}")
    return STUDENT_PROLOGUE + code


def build_student_ring(code: str, name: str = "student_ring") -> Kernel:
    """Compile the student's exchange into thread_ring with every MPI call traced."""
    return build_source(name, student_ring_source(code), trace_mpi=True)


def check_ring(results: Results) -> pd.DataFrame:
    """Compare each thread's received checksum with the serial reference; AssertionError names
    the first (rank, thread) that got wrong data. Returns the comparison."""
    rec = results.records
    rec = rec[rec["checksum"].notna()] if "checksum" in rec else rec
    ranks = len(results.meta["ranks"])
    threads = int(results.meta["ranks"][0]["omp_max_threads"])
    assert len(rec) == ranks * threads, (
        f"{len(rec)} records, expected one per thread of every rank ({ranks} x {threads})"
    )
    iterations, count = int(rec["iterations"].iloc[0]), int(rec["count"].iloc[0])
    want = ring_reference(ranks, threads, iterations, count)
    got = rec[["rank", "thread", "checksum", "wrong"]].astype(float)
    both = want.merge(got.astype({"rank": int, "thread": int}), on=["rank", "thread"], how="left")
    for row in both.itertuples():
        assert row.checksum == row.expected and row.wrong == 0, (
            f"rank {row.rank}, thread {row.thread}: received checksum {row.checksum}, expected "
            f"{row.expected} ({int(row.wrong)} elements wrong): its block did not arrive from "
            "the same thread of the left neighbour"
        )
    return both


def standard_sends(calls: pd.DataFrame) -> list[str]:
    """The standard-mode sends among a calls table (compliance.calls_table)."""
    return sorted(set(calls["call"]) & set(STANDARD_SENDS))
