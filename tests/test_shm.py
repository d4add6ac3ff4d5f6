"""Lab 11's topic (hybridlab.shm) and kernel (shm_halo.c): the shared-window Jacobi against numpy
on one and two (MPICH clique) nodes, the race without synchronisation, PSS per node, and the
judge of a student's shm_jacobi: the right answer passes, a barrier without MPI_Win_sync fails
on its trace, no synchronisation fails on stale reads."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from hybridlab.errors import KernelError
from hybridlab.halo.serial import jacobi2d
from hybridlab.runs.launch import run_program
from hybridlab.shm.exercise import build_student_shm, check_student_shm, memory_runs, nodes_env
from hybridlab.shm.tables import node_memory
from solutions_c import SHM_JACOBI

pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize(("ranks", "nodes", "sync"), [(2, 1, "fence"), (3, 1, "lock_all"),
                                                      (4, 2, "fence")])  # fmt: skip
def test_the_kit_window_gives_numpy_checksum(ranks, nodes, sync):
    res = run_program("shm_halo", ranks=ranks, variant="shared", sync=sync, nx=30, ny=13,
                      iterations=6, stagger_us=2000, env=nodes_env(nodes))  # fmt: skip
    check = res.records.query("record == 'check'").iloc[0]
    assert int(check["ok"]) == 1 and int(check["stale_reads"]) == 0
    assert abs(float(check["checksum"]) - jacobi2d(30, 13, 6)[0]) < 1e-10


def test_without_synchronisation_a_delayed_neighbour_is_read_stale():
    res = run_program("shm_halo", ranks=2, variant="shared", sync="none", nx=30, ny=13,
                      iterations=6, stagger_us=3000, allreduce=0)  # fmt: skip
    check = res.records.query("record == 'check'").iloc[0]
    assert int(check["ok"]) == 0 and int(check["stale_reads"]) > 0


def test_memory_per_node_counts_the_halo_copies_of_pure_mpi_only():
    table = node_memory(memory_runs(4096, 8, 2, iterations=2)).set_index("model")
    row = (4096 + 2) * 8
    assert table.loc["pure MPI", "halo_mb"] * 1e6 == 4 * row  # a and b, one neighbour each side
    assert table.loc["MPI+MPI (shared window)", "halo_mb"] == 0.0
    assert (table["pss_mb"] > table["grid_mb"]).all()  # PSS holds the grid and the processes


def test_the_right_answer_passes_on_one_and_two_nodes():
    right = build_student_shm(SHM_JACOBI, name="test_shm_right")
    rows = check_student_shm(right, runs=((3, 1), (4, 2)), nx=11, ny=9, iterations=3)
    assert list(rows["stale_reads"]) == [0, 0]


@pytest.mark.parametrize(("fence", "instead", "says"), [
    ("        MPI_Win_fence(0, win);\n        if (up", "        MPI_Barrier(node);\n        if (up",
     "a barrier alone"),
    ("        MPI_Win_fence(0, win);\n        if (up", "        if (up", "stale reads"),
])  # fmt: skip
def test_a_missing_memory_synchronisation_fails(fence, instead, says):
    kernel = build_student_shm(SHM_JACOBI.replace(fence, instead, 1), name="test_shm_wrong")
    with pytest.raises(AssertionError, match=says):
        check_student_shm(kernel, runs=((3, 1),), nx=11, ny=9, iterations=3)


# the off-node halos as the solution moves them, and as an honest answer of lab 11's corpus does
_HONEST = runpy.run_path(str(Path(__file__).resolve().parent / "honest" / "11_shared_memory.py"))
SENDRECV_HALOS, NONBLOCKING_HALOS = _HONEST["MESSAGES"], _HONEST["NONBLOCKING"]


def test_a_wait_of_nothing_is_no_message_inside_the_node():
    """The off-node halos posted and completed by one MPI_Waitall on every rank (of no request
    where both neighbours share the node) is right; a row sent inside the node is not."""
    assert SENDRECV_HALOS in SHM_JACOBI
    right = build_student_shm(SHM_JACOBI.replace(SENDRECV_HALOS, NONBLOCKING_HALOS),
                              name="test_shm_waitall")
    rows = check_student_shm(right, runs=((3, 1), (4, 2)), nx=11, ny=9, iterations=3)
    assert list(rows["stale_reads"]) == [0, 0]
    inside = ("        double spare[2][n];  /* the rows of neighbours on the node, by message too */\n"
              + NONBLOCKING_HALOS.replace("if (up != MPI_PROC_NULL)", "if (rank > 0)")
              .replace("if (down != MPI_PROC_NULL)", "if (rank < size - 1)")
              .replace(", up,", ", rank - 1,").replace(", down,", ", rank + 1,")
              .replace("Irecv(halo_above", "Irecv(above ? spare[0] : halo_above")
              .replace("Irecv(halo_below", "Irecv(below ? spare[1] : halo_below"))
    wrong = build_student_shm(SHM_JACOBI.replace(SENDRECV_HALOS, inside), name="test_shm_inside")
    with pytest.raises(AssertionError, match="inside a node nothing travels as a message"):
        check_student_shm(wrong, runs=((3, 1),), nx=11, ny=9, iterations=3)


_FIRST_FENCE = "    for (long it = 0; it < iterations; it++) {\n        MPI_Win_fence(0, win);"
_LAST_FENCE = "    MPI_Win_fence(0, win);\n    shm_finish(mine);"


def test_true_fence_asserts_are_right_and_false_ones_refused():
    """MPI_MODE_NOPRECEDE on a rank's first fence and MPI_MODE_NOSUCCEED after its last sweep
    are true (a right answer); MPI_MODE_NOSTORE before a sweep is false: the sweeps store."""
    honest = SHM_JACOBI.replace(_FIRST_FENCE, "    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);\n"
                                "    for (long it = 0; it < iterations; it++) {\n"
                                "        if (it > 0) MPI_Win_fence(MPI_MODE_NOPUT, win);", 1)
    honest = honest.replace(_LAST_FENCE, "    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);\n"
                            "    shm_finish(mine);", 1)
    assert honest.count("MPI_MODE_") == 3
    check_student_shm(build_student_shm(honest, name="test_shm_asserts"), runs=((3, 1),), nx=11,
                      ny=9, iterations=3)
    lying = SHM_JACOBI.replace(_FIRST_FENCE, _FIRST_FENCE.replace("(0,", "(MPI_MODE_NOSTORE,"))
    with pytest.raises(AssertionError, match="asserts MPI_MODE_NOSTORE, which is false there"):
        check_student_shm(build_student_shm(lying, name="test_shm_lying"), runs=((3, 1),), nx=11,
                          ny=9, iterations=3)


def test_a_copy_of_a_neighbours_block_is_not_the_block():
    """The neighbour's block copied after each fence and the copy read: the kit finds where each
    block a sweep is given lies (shared file and offset), so the copy's reads are not the block's."""
    copying = SHM_JACOBI.replace(
        "        shm_sweep(mine, above, below, it);",
        "        double *ca = above ? malloc(shm_block_bytes()) : NULL;\n"
        "        double *cb = below ? malloc(shm_block_bytes()) : NULL;\n"
        "        if (ca) memcpy(ca, above, shm_block_bytes());\n"
        "        if (cb) memcpy(cb, below, shm_block_bytes());\n"
        "        shm_sweep(mine, ca, cb, it);\n"
        "        free(ca);\n        free(cb);", 1)
    with pytest.raises(KernelError, match="not of the block in the window"):
        check_student_shm(build_student_shm(copying, name="test_shm_copies"), runs=((3, 1),),
                          nx=11, ny=9, iterations=3)


def test_a_row_type_of_ones_own_is_allowed_and_no_reduction_carries_a_row():
    """(a): datatype constructors, commit and free move nothing and are allowed; a non-blocking
    reduction (a halo row summed with zeros) is not a message."""
    from hybridlab.shm.exercise import POINT_TO_POINT, TYPE_CALLS

    assert {"MPI_Type_contiguous", "MPI_Type_commit", "MPI_Type_free"} <= TYPE_CALLS
    assert not {"MPI_Ireduce", "MPI_Iallreduce", "MPI_Ibarrier"} & POINT_TO_POINT


def test_a_cell_that_zeroes_the_kits_run_state_from_its_own_statics_no_longer_keeps_the_part():
    """f46: the neighbours' blocks read through private copies, then shm_halo.c's run state (a
    static in the library's data, beside the cell's own statics) found by scanning from one of
    the cell's statics and its count of reads not of the window (unread) set to 0 after
    shm_finish: check_student_shm passed it. The run state is hybridlab.h's sealed evidence now
    (read-only pages written through /proc/self/mem): the run dies or is judged on the count."""
    from gaming import source_of

    cell = source_of("11_shared_memory", "the neighbours' blocks read through private copies")
    code = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    with pytest.raises(KernelError, match="signal 11|not of the block in the window"):
        check_student_shm(build_student_shm(code, name="test_shm_sealed_run"), runs=((2, 1),),
                          nx=24, ny=11, iterations=4)


def test_a_cell_that_writes_the_kits_run_state_through_the_kits_own_descriptor_loses_the_part():
    """Attacker U's route on a kernel U did not try: the blocks read through private copies, then
    shm_halo.c's count of them (unread) found in the sealed page and set to 0 through the kit's
    own /proc/self/mem descriptor by stdout's FILE (fflush: lseek, then write): check_student_shm
    passed it. hybridlab.h's seccomp filter leaves that descriptor to the kit's pwrite64."""
    from gaming import source_of

    cell = source_of("11_shared_memory", "the kit's own /proc/self/mem descriptor")
    kernel = build_student_shm(cell, name="test_shm_sealed_descriptor")
    with pytest.raises(KernelError, match="not of the block in the window"):
        check_student_shm(kernel, runs=((2, 1),), nx=24, ny=11, iterations=4)


def test_a_copy_read_is_counted_where_the_cell_cannot_write_the_count():
    """Attacker V: the neighbours' blocks copied into private memory after each fence and the
    copies swept from, while the read counts the kit kept in each block's header (in the window,
    the cell's to write) were bumped by hand: check_student_shm passed it. Where each sweep read
    is sealed evidence now (the shared file and offset of the blocks shm_sweep is given, against
    where each neighbour's block lies), so the copies' reads are counted as not of the window."""
    from gaming import source_of

    cell = source_of("11_shared_memory", "the neighbours' blocks copied into private memory")
    kernel = build_student_shm(cell, name="test_shm_bumped_counts")
    with pytest.raises(KernelError, match="8 of the 8 reads .* not of the block in the window"):
        check_student_shm(kernel, runs=((3, 1),), nx=11, ny=9, iterations=2)


def test_a_row_across_nodes_comes_by_message_before_every_sweep():
    """Attacker A1 (S2): no message across nodes; the grid's height learnt from one
    MPI_Comm_split and the whole grid swept privately by the ranks next to another node, their
    halo rows copied from it: check_student_shm passed it on two nodes. Each sweep of a rank
    with a neighbour on another node now needs one more row-sized receive from that rank."""
    from gaming import source_of

    cell = source_of("11_shared_memory", "no message across nodes: the grid's height")
    code = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    kernel = build_student_shm(code, name="test_shm_recompute")
    with pytest.raises(AssertionError, match=r"before its sweep\(s\) \[0, 1, 2\] it had not "
                       "received that rank's row by a message"):  # fmt: skip
        check_student_shm(kernel, runs=((2, 2),), nx=9, ny=4, iterations=3)


def test_a_row_counts_only_if_the_neighbour_held_it_when_it_arrived():
    """Fresh attacker A5 (a4): `iterations` dummy row-sized messages swapped before the first
    sweep and the far neighbour's edge rows stepped locally from the grid's known start kept
    4/4: the count of row-sized receives was all the judge saw. A receive now counts for the rows
    of the neighbour it got (the tracer's reading, hashed, against the kit's sealed hashes of
    each block's edge rows): dummies are none. Real rows stepped ahead and sent before the
    neighbour held them (a4 turned) count only for state 0: they arrived too early."""
    from gaming import source_of

    for attack, says in (("no halo row ever travels", r"\[0, 1, 2\]"), ("a4 turned", r"\[1, 2\]")):
        cell = source_of("11_shared_memory", attack)
        kernel = build_student_shm(cell, name="test_shm_no_rows")
        with pytest.raises(AssertionError, match=rf"before its sweep\(s\) {says} it had not "
                           "received that rank's row by a message"):  # fmt: skip
            check_student_shm(kernel, runs=((2, 2),), nx=9, ny=4, iterations=3)


def test_a_deep_halo_of_the_neighbours_real_rows_keeps_the_part():
    """A halo two rows deep every second sweep (ghost-zone expansion, A5's a2): the rows are the
    neighbour's, received once it held them, and its edge row of the sweep between is stepped
    from them; the judge counts a state's rows as deep as the sweeps they cover."""
    from honest import source_of

    cell = source_of("11_shared_memory", "a deep halo (ghost-zone expansion)")
    kernel = build_student_shm(cell, name="test_shm_deep_halo")
    rows = check_student_shm(kernel, runs=((4, 2), (2, 2)), nx=9, ny=9, iterations=5)
    assert list(rows["stale_reads"]) == [0, 0]


@pytest.mark.parametrize(("extra", "says"), [
    ("        MPI_Comm spare;  /* a communicator made every iteration: a collective channel */\n"
     "        MPI_Comm_dup(node, &spare);\n        MPI_Comm_free(&spare);\n",
     "called MPI_Comm_dup after its first sweep had begun"),
    ("        double word = 0.0;  /* a message of one double beside the row */\n"
     "        if (down != MPI_PROC_NULL) MPI_Send(&word, 1, MPI_DOUBLE, down, 9, comm);\n"
     "        if (up != MPI_PROC_NULL) MPI_Recv(&word, 1, MPI_DOUBLE, up, 9, comm, MPI_STATUS_IGNORE);\n",
     "sent 8 bytes in a message to rank 1, less than a row"),
    ("        if (down != MPI_PROC_NULL)  /* a row sent to oneself: computed here, \"received\" */\n"
     "            MPI_Sendrecv_replace(halo_below, n, MPI_DOUBLE, rank, 9, rank, 9, comm,\n"
     "                                 MPI_STATUS_IGNORE);\n",
     "sent a message to rank 0, not a neighbour on another node"),
])  # fmt: skip
def test_no_communicator_made_in_the_loop_and_no_message_but_a_row_to_a_far_neighbour(extra, says):
    """Attacker A1 (S3) carried the rows across nodes bit by bit as the colours of
    MPI_Comm_split every iteration: communicators are made before the first sweep only. A
    message to a neighbour on another node carries a whole row (a row-sized receive with a short
    message would let the halo come from elsewhere), and a message goes to such a neighbour
    only (a row computed here and sent to oneself would be a row received)."""
    loop = "        shm_sweep(mine, above, below, it);"
    assert loop in SHM_JACOBI
    kernel = build_student_shm(SHM_JACOBI.replace(loop, extra + loop, 1), name="test_shm_extra")
    with pytest.raises(AssertionError, match=says):
        check_student_shm(kernel, runs=((2, 2),), nx=9, ny=4, iterations=3)


def test_a_neighbours_block_found_by_address_arithmetic_is_not_asked_for():
    """A8's K3: MPICH lays a node's segments out back to back, so the block below is the own
    block's end and the block above as far before it; the queries name the node's first rank and
    the own, never a neighbour. The tracer records which rank each MPI_Win_shared_query names and
    the segment it returned, the kit the address shm_sweep was given: none of the queries naming
    the neighbour returned it."""
    arithmetic = SHM_JACOBI.replace(
        "    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes, &unit, &above);\n"
        "    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes, &unit, &below);\n",
        "    double *first = NULL, *own = NULL;\n"
        "    MPI_Win_shared_query(win, 0, &bytes, &unit, &first);\n"
        "    MPI_Win_shared_query(win, nrank, &bytes, &unit, &own);\n"
        "    if (nrank > 0) above = (double *)((char *)own - bytes);\n"
        "    if (nrank < nsize - 1) below = (double *)((char *)own + bytes);\n", 1)
    assert arithmetic != SHM_JACOBI
    with pytest.raises(AssertionError, match="no MPI_Win_shared_query naming that rank"):
        check_student_shm(build_student_shm(arithmetic, name="test_shm_arithmetic"),
                          runs=((3, 1),), nx=11, ny=9, iterations=3)
