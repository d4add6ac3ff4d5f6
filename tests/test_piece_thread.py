"""The thread a computed piece is recorded under (kernels_c/hl_trace.c, outermost_thread): the
outermost team's number, which no region a cell opens can change, 0 only for MPI's main thread.
omp_get_thread_num() is 0 on any thread inside a parallel region of one thread nested in its own
and inside a target region run on the host: a fresh attacker's A14 d03_c3 had thread 1 compute
lab 03's master steps in such a nested team, recorded as the master's (4/4 twice, 2026-12-07)."""

from __future__ import annotations

import pytest

import hybridlab as hl
from hybridlab.kernels.build import build_source

# One piece of rows [k, k] per case k (rows: a piece never joined with another): 0 the main
# thread outside regions, 1 thread 1 of a team, 2 thread 1 in a nested team of one (its number 0
# there), 3 thread 1 in a target region run on the host (number 0 at level 0), 4 thread 1 of a
# team of two nested in thread 1 (another OS thread: outermost number 1), 5 the main thread in a
# nested team of one, 6 a thread of a team of two opened inside thread 1's target region
PIECES = r"""
#include "hybridlab.h"
const char *const hl_kernel_description = "computed pieces recorded from nested regions";
const hl_param hl_kernel_params[] = {HL_END_PARAMS};

static void piece(long k) {
    double t0 = hl_now();
    hl_trace_rows(t0, hl_now(), k, k);
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    (void)comm;
    piece(0);
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
            piece(1);
#pragma omp parallel num_threads(1)
            piece(2);
#pragma omp target
            piece(3);
#pragma omp parallel num_threads(2)
            if (omp_get_thread_num() == 1) piece(4);
#pragma omp target
            {
#pragma omp parallel num_threads(2)
                if (omp_get_thread_num() == 1) piece(6);
            }
        } else {
#pragma omp parallel num_threads(1)
            piece(5);
        }
    }
    hl_emit(ctx, "\"done\":1");
    return 0;
}
"""


@pytest.fixture(scope="module")
def pieces():
    built = build_source("piece_thread", PIECES, trace_mpi=True)
    res = hl.run_program(built, ranks=1, threads=2, timeout=120)
    return res.compute


def test_a_piece_carries_the_outermost_teams_number(pieces):
    by_case = {int(r.first): r for r in pieces.itertuples()}
    assert sorted(by_case) == [0, 1, 2, 3, 4, 5, 6], pieces
    threads = {k: int(r.thread) for k, r in by_case.items()}
    # the main thread is 0 wherever it is; thread 1 is 1 in a nested team of one and in a team of
    # two nested in it (its second thread another OS thread of the outer team's thread 1's)
    assert threads[0] == 0 and threads[5] == 0
    assert threads[1] == 1 and threads[2] == 1 and threads[4] == 1
    # a target region run on the host numbers its threads afresh: never the main thread's 0
    assert threads[3] == -1 and threads[6] != 0
    assert int(by_case[2].tid) == int(by_case[1].tid) == int(by_case[3].tid)
    assert int(by_case[4].tid) != int(by_case[1].tid)
