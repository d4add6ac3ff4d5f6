"""The MPI-call tracer records what the MPI+X labs ask of a student: MPI-3 shared-memory windows,
neighbourhood collectives on a Cartesian communicator (with its members), persistent and MPI-4
partitioned sends. A traced whole program is run with the venv's mpiexec and its trace read back."""

from __future__ import annotations

import subprocess

import pytest

from hybridlab.machine.topology import find_mpiexec
from hybridlab.slurm import jobs, steps
from tracer_probe import build_probe

pytestmark = pytest.mark.timeout(240)

PROGRAM = r"""
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* a shared window on the node's communicator: the neighbour's value read by a load */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *mine, *theirs;
    MPI_Win win;
    MPI_Win_allocate_shared(sizeof(double), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    MPI_Win_fence(0, win);
    *mine = 10.0 + nrank;
    MPI_Win_fence(0, win);
    MPI_Aint bytes;
    int unit;
    MPI_Win_shared_query(win, (nrank + 1) % nsize, &bytes, &unit, &theirs);
    double shared = *theirs;
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    /* the ring as a neighbourhood collective on a periodic Cartesian communicator */
    int dims[1] = {0}, periods[1] = {1};
    MPI_Dims_create(size, 1, dims);
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    double out[2] = {rank, rank}, in[2] = {-1, -1};
    int counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Neighbor_alltoallv(out, counts, displs, MPI_DOUBLE, in, counts, displs, MPI_DOUBLE, ring);

    /* a partitioned send of two partitions to the next rank */
    double part_out[2] = {rank, rank}, part_in[2] = {-1, -1};
    MPI_Request req[2];
    MPI_Psend_init(part_out, 2, 1, MPI_DOUBLE, (rank + 1) % size, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
    MPI_Precv_init(part_in, 2, 1, MPI_DOUBLE, (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
    MPI_Startall(2, req);
    MPI_Pready(0, req[0]);
    MPI_Pready(1, req[0]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);

    printf("got rank=%d shared=%g left=%g right=%g part=%g\n", rank, shared, in[0], in[1], part_in[1]);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
"""


def test_shared_windows_neighbourhood_collectives_and_partitioned_sends_are_traced(tmp_path):
    program = jobs.build_program("trace_mpi3", PROGRAM)
    mpi = find_mpiexec()
    trace = tmp_path / "trace"
    trace.mkdir()
    env = {**steps.mpi_environment(mpi.implementation), jobs.TRACE_DIR: str(trace),
           "OMP_NUM_THREADS": "1"}  # fmt: skip
    done = subprocess.run([mpi.mpiexec, "-n", "2", str(program.program)], capture_output=True,
                          text=True, timeout=120, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    got = sorted(line for line in done.stdout.splitlines() if line.startswith("got "))
    assert got == ["got rank=0 shared=11 left=1 right=1 part=1",
                   "got rank=1 shared=10 left=0 right=0 part=0"]  # fmt: skip
    calls = jobs.traced_results(trace).mpi_calls
    for rank in (0, 1):
        mine = calls[calls["rank"] == rank]
        made = set(mine["call"])
        assert made >= {"MPI_Win_allocate_shared", "MPI_Win_fence", "MPI_Win_shared_query",
                        "MPI_Win_free", "MPI_Cart_create", "MPI_Neighbor_alltoallv",
                        "MPI_Psend_init", "MPI_Precv_init", "MPI_Startall", "MPI_Pready",
                        "MPI_Waitall"}  # fmt: skip
        assert (mine["call"] == "MPI_Win_fence").sum() == 3
        assert (mine["call"] == "MPI_Pready").sum() == 2
        neighbour = mine[mine["call"] == "MPI_Neighbor_alltoallv"].iloc[0]
        assert int(neighbour["comm_size"]) == 2 and neighbour["comm"] == "0,1"


NONBLOCKING = r"""
#include <mpi.h>
#include <stdio.h>

/* each nonblocking neighbourhood collective on a periodic ring, completed by MPI_Wait (the
 * alltoallw by MPI_Test until done), with its blocking allgatherv beside them */
int main(int argc, char **argv) {
    int provided, rank, size, dims[1] = {0}, periods[1] = {1};
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 1, dims);
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    double me = rank, two[2] = {rank, rank}, got[5][2];
    int ones[2] = {1, 1}, at[2] = {0, 1}, done = 0;
    MPI_Aint bytes[2] = {0, sizeof(double)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Request r;
    MPI_Ineighbor_allgather(&me, 1, MPI_DOUBLE, got[0], 1, MPI_DOUBLE, ring, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Ineighbor_allgatherv(&me, 1, MPI_DOUBLE, got[1], ones, at, MPI_DOUBLE, ring, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Ineighbor_alltoall(two, 1, MPI_DOUBLE, got[2], 1, MPI_DOUBLE, ring, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Ineighbor_alltoallv(two, ones, at, MPI_DOUBLE, got[3], ones, at, MPI_DOUBLE, ring, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Ineighbor_alltoallw(two, ones, bytes, types, got[4], ones, bytes, types, ring, &r);
    while (!done) MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    MPI_Request both[2];  /* two at once: the requests an MPI_Waitall is given */
    MPI_Ibarrier(ring, &both[0]);
    MPI_Ineighbor_allgather(&me, 1, MPI_DOUBLE, got[0], 1, MPI_DOUBLE, ring, &both[1]);
    MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
    MPI_Request pair[2];  /* two more, completed one by one: the request each completion took */
    MPI_Ineighbor_alltoall(two, 1, MPI_DOUBLE, got[2], 1, MPI_DOUBLE, ring, &pair[0]);
    MPI_Ibarrier(ring, &pair[1]);
    int which, outcount = 0, at_done[2];
    MPI_Waitany(2, pair, &which, MPI_STATUS_IGNORE);
    while (outcount == 0) MPI_Testsome(2, pair, &outcount, at_done, MPI_STATUSES_IGNORE);
    double all[2];
    MPI_Neighbor_allgatherv(&me, 1, MPI_DOUBLE, all, ones, at, MPI_DOUBLE, ring);
    double sum = all[0] + all[1];
    for (int k = 0; k < 5; k++) sum += got[k][0] + got[k][1];
    printf("got rank=%d sum=%g\n", rank, sum);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
"""
POSTED = ("MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall",
          "MPI_Ineighbor_alltoallv", "MPI_Ineighbor_alltoallw")


def test_nonblocking_neighbourhood_collectives_are_traced_with_the_request_that_completes_them(
        tmp_path):
    program = jobs.build_program("trace_ineighbor", NONBLOCKING)
    mpi = find_mpiexec()
    trace = tmp_path / "trace"
    trace.mkdir()
    env = {**steps.mpi_environment(mpi.implementation), jobs.TRACE_DIR: str(trace),
           "OMP_NUM_THREADS": "1"}  # fmt: skip
    done = subprocess.run([mpi.mpiexec, "-n", "2", str(program.program)], capture_output=True,
                          text=True, timeout=120, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    # on a ring of 2 both neighbours are the other rank: 12 values of it
    got = sorted(line for line in done.stdout.splitlines() if line.startswith("got "))
    assert got == ["got rank=0 sum=12", "got rank=1 sum=0"]
    calls = jobs.traced_results(trace).mpi_calls
    for rank in (0, 1):
        mine = calls[calls["rank"] == rank].sort_values("start").reset_index(drop=True)
        assert (mine["call"] == "MPI_Neighbor_allgatherv").sum() == 1
        for name in POSTED:
            at = mine.index[mine["call"] == name][0]
            posted = mine.loc[at]
            assert int(posted["comm_size"]) == 2 and posted["comm"] == "0,1", posted.to_dict()
            assert int(posted["request"]) != -1, posted.to_dict()
            after = mine.loc[at + 1:]
            completes = after[after["call"].isin(["MPI_Wait", "MPI_Test"]) & (after["done"] == 1)]
            assert int(completes.iloc[0]["request"]) == int(posted["request"]), (name, mine)
        tests = mine[mine["call"] == "MPI_Test"]
        assert (tests["done"] == 1).sum() == 1 and (tests["done"] == 0).sum() == len(tests) - 1
        barrier = mine[mine["call"] == "MPI_Ibarrier"].iloc[0]
        second = mine[mine["call"] == "MPI_Ineighbor_allgather"].iloc[1]
        (waitall,) = mine.loc[mine["call"] == "MPI_Waitall", "requests"]
        assert waitall == f"{int(barrier['request'])},{int(second['request'])}", mine
        # MPI_Waitany and MPI_Testsome keep the requests they completed, of the two given
        third = mine[mine["call"] == "MPI_Ineighbor_alltoall"].iloc[1]
        last_barrier = mine[mine["call"] == "MPI_Ibarrier"].iloc[1]
        (anyone,) = mine.loc[mine["call"] == "MPI_Waitany", "requests"]
        some = mine[(mine["call"] == "MPI_Testsome") & (mine["done"] == 1)]
        assert len(some) == 1, mine
        completed = sorted([anyone, some.iloc[0]["requests"]])
        assert completed == sorted([str(int(third["request"])), str(int(last_barrier["request"]))]), mine


HANGS_AFTER_A_CALL = r"""
#include <mpi.h>

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Barrier(MPI_COMM_WORLD);
    volatile long spin = 0;
    for (;;) spin++; /* whatever the program did next, the barrier's record is out of it */
}
"""


def test_each_call_is_in_its_rank_stream_the_moment_it_returns(tmp_path):
    """With HL_TRACE_STREAM (launch.trace_stream, set for every run the harness starts) a call's
    record leaves the process when the call ends: no later store of the program can change it."""
    import time

    from hybridlab.runs.launch import STREAM

    program = jobs.build_program("trace_stream_hang", HANGS_AFTER_A_CALL)
    env = {**steps.mpi_environment(find_mpiexec().implementation), STREAM: str(tmp_path),
           "OMP_NUM_THREADS": "1"}  # fmt: skip
    proc = subprocess.Popen([str(program.program)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    stream = tmp_path / "stream-0.jsonl"
    try:
        for _ in range(300):
            if stream.exists() and "MPI_Barrier" in stream.read_text():
                break
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait()
    lines = stream.read_text().splitlines()
    assert len(lines) == 2 and '"record":"stream_origin"' in lines[0], lines  # the clock's origin
    assert lines[1].startswith("@hl - 0 1 {") and '"call":"MPI_Barrier"' in lines[1], lines


SEAL_PROBE = r"""
#include <stdio.h>
#include <stdlib.h>
void hl_trace_reset(void);

int main(int argc, char **argv) {  /* argv[1]: where the tracer's sealed page is, from main */
    volatile int *stream_fd = (volatile int *)((char *)main + atol(argv[1]));
    if (argc > 2) hl_trace_reset();  /* a run started: the page sealed */
    *stream_fd = 7;  /* what a memory scanner did to drop its calls from the stream */
    puts("written");
    return 0;
}
"""


def test_what_frames_the_stream_is_read_only_once_a_run_starts(tmp_path):
    """The stream's file, the key, the clock's origin and the records' hash are on a page the
    tracer seals when a run starts (kernels_c/hl_trace.c): a store into it from the process's
    code (an attacker found the stream's descriptor beside the key and set it to -1 to drop its
    calls) faults. Before any run the page is ordinary data, which shows the probe's aim is true."""
    probe, offset = build_probe(tmp_path, SEAL_PROBE)
    before = subprocess.run([str(probe), offset], capture_output=True, text=True, timeout=60)
    assert before.returncode == 0 and "written" in before.stdout, before
    during = subprocess.run([str(probe), offset, "run"], capture_output=True, text=True, timeout=60)
    assert during.returncode == -11 and "written" not in during.stdout, during  # SIGSEGV
