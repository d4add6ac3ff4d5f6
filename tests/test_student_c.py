"""Hybrid C written in a notebook cell (hybridlab.student_c) and the kernels of labs 05-07's C
exercises: the kit's own variants check themselves, on real and made-up nodes; a student's code
that is right passes, and one that calls MPI from a worker thread is refused."""

from __future__ import annotations

import pytest

import hybridlab as hl
from hybridlab.errors import ThreadComplianceError
from hybridlab.mapping.exercise import build_student_nodes, check_student_nodes
from hybridlab.memory import tables as mt
from hybridlab.student_c import build_student
from solutions_c import NODE_SUM


def test_the_unanswered_skeleton_and_missing_functions_are_refused():
    with pytest.raises(NotImplementedError):
        build_student("s", "node_sum", "HL_STUDENT_NODES", "# YOUR CODE HERE\n", ("node_sum",))
    with pytest.raises(ValueError, match="split_nodes"):
        build_student_nodes("void node_sum(void) {}")


@pytest.mark.parametrize("per_node, nodes", [(0, 1), (1, 3), (2, 2)])
def test_node_sum_flat_checks_itself_on_real_and_made_up_nodes(per_node, nodes):
    res = hl.run_program("node_sum", ranks=3, threads=2, ranks_per_node=per_node, n=50)
    check = res.records.query("record == 'check'").iloc[0]
    assert int(check["ok"]) == 1 and int(check["wrong"]) == 0
    node = res.records.query("record == 'node'")
    assert set(node["nodes"]) == {nodes}
    assert sorted(node.query("leader == 1")["rank"]) == sorted({int(n) for n in node["node"]})


def test_alltoall_nodes_flat_and_unequal_nodes():
    res = hl.run_program("alltoall_nodes", ranks=4, ranks_per_node=2, count=3)
    check = res.records.query("record == 'check'").iloc[0]
    assert int(check["ok"]) == 1 and int(check["nodes"]) == 2
    with pytest.raises(hl.KernelError, match="same number of consecutive ranks"):
        hl.run_program("alltoall_nodes", ranks=3, ranks_per_node=2)


def test_touch_schedule_serial_init_is_all_the_masters():
    res = hl.run_program("touch_schedule", ranks=1, threads=2, chunk=2, rows=8)
    pages = mt.touch_vs_compute(res)
    assert len(pages) == 16 and set(pages["writer"]) == {0}
    assert sorted(set(pages["computer"])) == [0, 1]
    assert int(pages["matches"].sum()) == 8  # the pages thread 0 computes on


def test_a_right_node_sum_passes_and_a_worker_thread_calling_mpi_is_refused():
    rows = check_student_nodes(build_student_nodes(NODE_SUM, "t_nodes"), shapes=((3, 2, 2),),
                               n=64, reps=1)
    assert list(rows["nodes"]) == [2] and rows["leaders"][0] == [0, 2]
    worker = NODE_SUM.replace("#pragma omp master\n",
                              "if (omp_get_thread_num() == omp_get_num_threads() - 1)\n")
    with pytest.raises(ThreadComplianceError, match="funneled"):
        check_student_nodes(build_student_nodes(worker, "t_nodes_worker"), shapes=((2, 2, 1),),
                            n=64, reps=1)
