"""Hybrid C written in a notebook cell (hybridlab.runs.student_c) and the kernels of labs 05-07's C
exercises: the kit's own variants check themselves, on real and made-up nodes; a student's code
that is right passes, and one that calls MPI from a worker thread is refused."""

from __future__ import annotations

import pytest

import hybridlab as hl
from hybridlab.errors import ThreadComplianceError
from hybridlab.mapping.exercise import build_student_nodes, check_student_nodes
from hybridlab.memory import tables as mt
from hybridlab.runs.student_c import build_student
from solutions_c import NODE_SUM


def test_the_unanswered_skeleton_and_missing_functions_are_refused():
    with pytest.raises(NotImplementedError):
        build_student("s", "node_sum", "HL_STUDENT_NODES",
                      "\nvoid node_sum(void) {\n    /* YOUR CODE HERE */\n}\n", ("node_sum",))
    with pytest.raises(ValueError, match="split_nodes"):
        build_student_nodes("void node_sum(void) { return; }")


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
    worker = NODE_SUM.replace("#pragma omp masked\n",
                              "if (omp_get_thread_num() == omp_get_num_threads() - 1)\n")
    with pytest.raises(ThreadComplianceError, match="funneled"):
        check_student_nodes(build_student_nodes(worker, "t_nodes_worker"), shapes=((2, 2, 1),),
                            n=64, reps=1)


OVERLAP_CELL = r"""
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
#pragma omp masked
    {
        MPI_Request req[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &req[1]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[2]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &req[3]);
        COMPLETE_HERE
    }
    INTERIOR
#pragma omp barrier
#pragma omp single
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
"""
WAIT = "MPI_Waitall(4, req, MPI_STATUSES_IGNORE);"
INTERIOR = "\n#pragma omp for schedule(dynamic) nowait\n    for (long i = 2; i < m; i++) stencil_rows(i, i);"


def _overlap_run(completion: str, interior: str, name: str):
    from hybridlab.runs.student_c import overlap_share

    code = OVERLAP_CELL.replace("COMPLETE_HERE", completion).replace("INTERIOR", interior)
    kernel = build_student(name, "halo2d", "HL_STUDENT_OVERLAP", code, ("overlap_iteration",))
    res = hl.run_program(kernel, ranks=2, threads=2, thread_level="funneled", variant="overlap",
                         nx=64, ny=200, iterations=4, stagger_us=20000, timeout=60)
    return overlap_share(res)


def test_the_trace_tells_overlap_from_a_wait_then_compute():
    """Computing while a rank waits for its late neighbour falls inside the window; the same
    rows computed after the Waitall (token Testall calls after it) fall outside every window."""
    overlapped = _overlap_run(WAIT, INTERIOR, "t_overlap_yes")
    assert overlapped.max() > 0.0, overlapped
    tokens = WAIT + " int f;" + " MPI_Testall(4, req, &f, MPI_STATUSES_IGNORE);" * 2
    after = "\n#pragma omp barrier" + INTERIOR
    assert _overlap_run(tokens, after, "t_overlap_no").max() == 0.0


def test_a_cell_is_its_own_unit_and_reaches_nothing_static_of_the_kernel():
    cell = ("void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n"
            "    copy_row(0, 0); (void)a; (void)m; (void)nx; (void)up; (void)down; (void)comm;\n}")
    with pytest.raises(hl.BuildError, match=r"cell:2"):  # the cell's own line number
        build_student("t_static", "halo2d", "HL_STUDENT_EXCHANGE", cell, ("exchange_halos",))


def test_collectives_name_their_communicator_and_the_kernels_own_calls_are_apart():
    from hybridlab.runs.student_c import collective_comms

    flat = NODE_SUM.split("void node_sum")[0] + r"""
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    (void)node; (void)leaders; (void)rank_sum;
#pragma omp masked
    MPI_Allreduce(mine, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}"""
    kernel = build_student_nodes(flat, "t_nodes_flat")
    res = hl.run_program(kernel, ranks=3, threads=1, thread_level="funneled",
                         variant="student", ranks_per_node=1, n=8, reps=1)
    calls = collective_comms(res)
    allreduce = calls[calls["call"] == "MPI_Allreduce"]
    assert len(allreduce) and set(allreduce["members"]) == {(0, 1, 2)}
    assert set(allreduce["comm_size"]) == {3}
    assert (res.mpi_calls["student"] == 0).any()  # the kernel's own calls, kept apart


@pytest.mark.parametrize("escape", [
    "MPI_Reduce_scatter(mine, sum, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);",  # untraced
    "%:undef MPI_Allreduce\n",  # the redirect undone, spelt with a digraph
    "int w(int) __asm__(\"MPI_Barrier\");\n",  # a symbol named in assembly
])
def test_a_cell_cannot_call_mpi_where_the_trace_does_not_see_it(escape):
    cell = NODE_SUM.replace("#pragma omp barrier\n}", "#pragma omp barrier\n}\n", 1)
    if escape.startswith("MPI_"):
        cell += ("void hide(const double *mine, double *sum, int *counts) {\n    "
                 f"{escape}\n}}\n")  # fmt: skip
    else:  # before the calls it would hide (judged by its effect: tests/test_unit_checks.py)
        cell = escape + cell
    with pytest.raises(hl.BuildError, match="tracer|asm|not traced by the kit"):
        build_student("t_escape", "node_sum", "HL_STUDENT_NODES", cell, ("node_sum",))


def _handed_to_hl_sample(target: str) -> str:
    """NODE_SUM whose split_nodes first has the kit's inline hl_sample call `target` (an address
    the cell computes, or one of its own functions) with two arguments of its choice."""
    call = f"""static double pad[2];
static void mine(void *arg, long inner) {{ (void)arg; (void)inner; }}
static void handed(void) {{
    hl_sample((hl_work_fn)({target}), (void *)pad, 0, 1, pad);
}}
"""
    return call + NODE_SUM.replace("    int rank, node_rank;\n", "    int rank, node_rank;\n    handed();\n", 1)


def test_the_kits_helpers_call_only_the_cells_own_functions():
    """A fresh attacker had hl_sample (inlined from the kit's header, so its indirect call was the
    kit's) call omp_set_lock and the real PMPI_Wait at an offset from a function the cell may
    name; the helper now stops the run unless the address is in the cell's own code."""
    own = build_student_nodes(_handed_to_hl_sample("&mine"), "t_nodes_own")
    rows = check_student_nodes(own, shapes=((2, 2, 1),), n=16, reps=1)
    assert len(rows) == 1  # the run went through
    near = build_student_nodes(_handed_to_hl_sample("(unsigned long)&omp_unset_lock - 0x20"), "t_nodes_near")
    with pytest.raises(hl.KernelError, match="not the cell's own"):
        check_student_nodes(near, shapes=((2, 2, 1),), n=16, reps=1)


def test_library_routines_that_call_back_are_refused():
    cell = NODE_SUM.replace("    int rank, node_rank;\n", "    int rank, node_rank;\n"
                            "    int keys[2] = {2, 1};\n    qsort(keys, 2, sizeof *keys, NULL);\n", 1)
    with pytest.raises(hl.BuildError, match="qsort"):
        build_student_nodes(cell, "t_nodes_qsort")


def test_a_c_library_routine_inlined_into_the_cell_is_the_cells_call():
    """glibc's bsearch is inlined at -O2: its call of the comparator carries stdlib-bsearch.h's
    line, and a fresh attacker called omp_set_lock and the real PMPI_Wait as comparators."""
    cell = NODE_SUM.replace("    int rank, node_rank;\n", "    int rank, node_rank;\n"
                            "    static const int keys[2] = {1, 2};\n    int key = 2;\n"
                            "    (void)bsearch(&key, keys, 2, sizeof key,\n"
                            "                  (int (*)(const void *, const void *))"
                            "((unsigned long)&omp_unset_lock - 0x20));\n", 1)
    with pytest.raises(hl.BuildError, match="calls through a function pointer"):
        build_student_nodes(cell, "t_nodes_bsearch")


def test_an_isendrecv_opens_a_window_unless_both_its_sides_are_proc_null():
    """MPI-4's MPI_Isendrecv posts a send and a receive in one request: a window opens on it
    alone, but not on one whose send and receive both name MPI_PROC_NULL (a token request held
    open round an exchange already done)."""
    import pandas as pd

    from hybridlab.runs.student_c import _windows

    def calls(peer: int, recv_peer: int) -> pd.DataFrame:
        return pd.DataFrame([
            {"call": "MPI_Isendrecv", "start": 0.0, "end": 0.1, "thread": 0, "done": 0,
             "peer": peer, "recv_peer": recv_peer, "step": 0},
            {"call": "MPI_Wait", "start": 0.5, "end": 0.6, "thread": 0, "done": 1, "peer": -1,
             "recv_peer": -1, "step": 0}])  # fmt: skip

    assert [w["start"] for w in _windows(calls(1, 1))] == [0.0]
    assert [w["start"] for w in _windows(calls(-1, 1))] == [0.0]
    assert _windows(calls(-1, -1)) == []


def test_a_completion_of_no_request_posted_closes_no_window():
    """An MPI_Test of MPI_REQUEST_NULL reports done at once, as does one of a send MPI buffered:
    neither closes the window the exchange's requests opened (a fresh attacker's M03d_nulltest
    blocked in MPI_Waitall after it, outside every window); the MPI_Waitall of the posted requests
    closes it."""
    import pandas as pd

    from hybridlab.runs.student_c import _windows

    def call(name, start, **fields):
        return {"call": name, "start": start, "end": start + 0.01, "thread": 0, "done": 0,
                "peer": 1, "posted": -1, "request": -1, "requests": "", "step": 0, **fields}

    calls = pd.DataFrame([call("MPI_Irecv", 0.0, posted=5), call("MPI_Isend", 0.1, posted=6),
                          call("MPI_Test", 0.2, done=1),  # MPI_REQUEST_NULL: request -1
                          call("MPI_Test", 0.3, done=1, request=9),  # a request never posted
                          call("MPI_Test", 0.4, done=1, request=6),  # the send's: MPI buffered it
                          call("MPI_Waitall", 0.5, done=1, requests="5,6")])  # fmt: skip
    assert [(w["start"], w["end"]) for w in _windows(calls)] == [(0.1, 0.51)]
    # a cut list of requests ("+") or a posting whose request is unknown: any completion closes
    cut = calls.assign(requests=["", "", "", "", "", "+"])
    assert [w["end"] for w in _windows(cut)] == [0.51]
    blind = calls.assign(posted=[5, float("nan"), -1, -1, -1, -1],
                         request=[-1, float("nan"), -1, 9, 6, -1])
    assert [round(w["end"], 6) for w in _windows(blind)] == [0.21]


def test_a_send_completed_before_any_receive_opens_no_later_window():
    """A late rank's receive, posted before the computing, completed at its first test; its
    send, posted after the computing, was waited: that send may not stay counted, or the next
    sample's receive opened a window at once and the whole computing looked overlapped (an older
    gaming entry of lab 03 (d) kept 4/4 so once the graded runs staggered the ranks)."""
    import pandas as pd

    from hybridlab.runs.student_c import _windows

    def call(name, start, **fields):
        return {"call": name, "start": start, "end": start + 0.01, "thread": 0, "done": 0,
                "peer": 1, "posted": -1, "request": -1, "requests": "", "step": 0, **fields}

    sample = [call("MPI_Irecv", 0.0, posted=5), call("MPI_Test", 0.1, done=1, request=5),
              call("MPI_Isend", 0.5, posted=6), call("MPI_Wait", 0.6, done=1, request=6)]
    later = [call("MPI_Irecv", 1.0, posted=7), call("MPI_Test", 1.1, request=7),
             call("MPI_Isend", 1.5, posted=8), call("MPI_Waitall", 1.6, done=1, requests="7,8")]
    # the second sample's window opens at its send (1.5), not at its receive (1.0)
    assert [w["start"] for w in _windows(pd.DataFrame(sample + later))] == [1.5]
