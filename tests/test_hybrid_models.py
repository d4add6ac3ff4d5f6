"""Lab 01 (programming models and thread levels): its kernels, checks, figure and notebook.

The kernels are checked for what they must guarantee whatever the timing (thread levels as the
MPI reports them; no value overwritten behind a barrier before the receive, none stale behind a
barrier after it). That the race shows without the barriers is timing, so it is asserted only as
"on at least one of a few tries", with the injected delay that makes it near certain.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib
import nbformat
import pandas as pd
import pytest

import hybridlab as hl
from hybridlab.hybrid_models.plots import MODEL_NAMES, programming_models
from hybridlab.hybrid_models.tables import thread_level_table
from hybridlab.machine.thread_levels import THREAD_LEVELS
from solutions_c import RING_EXCHANGE

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
LAB = "01_programming_models"
SOURCE = ROOT / "grading" / "source" / LAB / f"{LAB}.ipynb"
SHM = "/dev/shm/mpich_shm_*"
PAIRS_2X2 = [(0, 0), (0, 1), (1, 0), (1, 1)]


# ------------------------------------------------------------------------------ thread_levels


@pytest.mark.parametrize("level", THREAD_LEVELS)
def test_thread_levels_reports_what_mpi_provided_on_every_thread(level):
    res = hl.run_program("thread_levels", ranks=2, threads=2, thread_level=level, requested=level)
    rec = res.records
    assert sorted(zip(rec["rank"], rec["thread"], strict=True)) == PAIRS_2X2
    assert set(rec["requested"]) == {level}
    assert rec["provided"].nunique() == 1, "every rank and thread sees the same level"
    provided = rec["provided"].iloc[0]
    assert provided in THREAD_LEVELS
    assert (rec["query"] == rec["provided"]).all()
    assert (rec["query_value"] == rec["provided_value"]).all()
    # the header's metadata (MPI_Query_thread after MPI_Init_thread) says the same
    assert res.meta["thread_level"] == provided
    ok = THREAD_LEVELS.index(provided) >= THREAD_LEVELS.index(level)
    assert rec["level_ok"].eq(ok).all()
    # the thread that called MPI_Init_thread is the master of the team: thread 0, and only it
    assert rec.loc[rec["is_thread_main"], "thread"].tolist() == [0, 0]
    assert (rec["threads"] == 2).all()


def test_thread_level_constants_increase_in_the_order_of_the_names():
    values = []
    for level in THREAD_LEVELS:
        rec = hl.run_program(
            "thread_levels", ranks=1, threads=1, thread_level=level, requested=level
        ).records
        values.append(int(rec["requested_value"].iloc[0]))
    assert values == sorted(values) and len(set(values)) == 4


def test_thread_levels_rejects_an_unknown_level():
    with pytest.raises(hl.KernelError, match="masteronly"):
        hl.run_program("thread_levels", ranks=1, threads=1, requested="masteronly")


# -------------------------------------------------------------------------------- master_race


def race(ranks: int, threads: int, before: int, after: int, **params) -> pd.DataFrame:
    params.setdefault("iterations", 10)
    return hl.run_program(
        "master_race",
        ranks=ranks,
        threads=threads,
        thread_level="funneled",
        barrier_before=before,
        barrier_after=after,
        timeout=120,
        **params,
    ).records


@pytest.mark.parametrize("ranks,threads", [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (1, 3)])
def test_master_race_with_both_barriers_reads_nothing_wrong(ranks, threads):
    for delay in (1000, 0):
        rec = race(ranks, threads, 1, 1, delay_us=delay, iterations=8)
        assert len(rec) == ranks * threads * 8, "one record per rank, thread and iteration"
        assert sorted(set(rec["iteration"])) == list(range(1, 9))
        assert rec["wrong"].sum() == 0


def test_each_barrier_prevents_its_own_kind_of_wrong_value():
    """Whatever the timing: barrier (1) means nothing overwritten, barrier (2) nothing stale."""
    for before, after in ((1, 0), (0, 1)):
        rec = race(2, 2, before, after, delay_us=1000)
        assert (rec["wrong"] == rec["overwritten"] + rec["stale"]).all()
        if before:
            assert rec["overwritten"].sum() == 0
        if after:
            assert rec["stale"].sum() == 0


@pytest.mark.parametrize("ranks", [1, 2])
def test_the_race_shows_without_barriers(ranks):
    """With the injected delay each missing barrier shows its error (at least once in 3 tries)."""
    wanted = {(0, 1): "overwritten", (1, 0): "stale", (0, 0): "overwritten"}
    for (before, after), column in wanted.items():
        seen = 0
        for _ in range(3):
            seen = int(race(ranks, 2, before, after, delay_us=1000)[column].sum())
            if seen > 0:
                break
        assert seen > 0, f"no {column} value with barrier_before={before}, after={after}"


def test_master_race_checks_its_parameters():
    with pytest.raises(hl.KernelError, match="barrier_before and barrier_after are 0 or 1"):
        race(1, 1, 2, 1)
    with pytest.raises(hl.KernelError, match="iterations"):
        race(1, 1, 1, 1, iterations=0)


def test_lab_kernels_compile_without_warnings():
    for name in ("thread_levels", "master_race"):
        assert hl.build(name).warnings == (), name


def test_kernels_run_in_the_engines_at_the_engines_level():
    with hl.Cluster(ranks=2, threads=2) as cluster:
        rec = cluster.run("thread_levels", requested=cluster.thread_level).records
        assert set(rec["provided"]) == {cluster.thread_level}
        assert rec.loc[rec["is_thread_main"], "thread"].tolist() == [0, 0]
        clean = cluster.run("master_race", barrier_before=1, barrier_after=1, iterations=5)
        assert clean.records["wrong"].sum() == 0
        assert len(clean.records) == 2 * 2 * 5


# --------------------------------------------------------------------------- checks, plots


def test_the_taxonomy_figure_names_every_model():
    fig = programming_models()
    texts = " ".join(t.get_text().replace("\n", " ") for t in fig.axes[0].texts)
    for name in (*MODEL_NAMES, "hybrid MPI + OpenMP", "overlapping", "masteronly"):
        assert name in texts, name
    for level in ("SINGLE", "FUNNELED", "MULTIPLE"):
        assert f"thread level: {level}" in texts
    assert "Rabenseifner" in texts
    fig.canvas.draw()  # renders without error
    matplotlib.pyplot.close(fig)


def test_thread_level_table_marks_a_level_below_the_request():
    frame = pd.DataFrame(
        {
            "requested": ["multiple", "multiple", "single"],
            "rank": [0, 0, 0],
            "thread": [0, 1, 0],
            "provided": ["funneled", "funneled", "single"],
            "query": ["funneled", "funneled", "single"],
            "is_thread_main": [True, False, True],
        }
    )
    html = thread_level_table(frame).to_html()
    assert html.count("#f6d5d5") == 1 and html.count("#d9efd9") == 1  # one rule each
    assert html.count("font-style: italic") == 1  # not colour only (one rule, two cells)
    assert "enough" not in html, "whether the level was enough is lab 01 (d)'s question"
    assert html.index(">single<") < html.index(">multiple<"), "rows in the order of the levels"
    with pytest.raises(ValueError, match="is_thread_main"):
        thread_level_table(frame.drop(columns="is_thread_main"))


# ------------------------------------------------------------------------------- notebook


def _cell(nb: nbformat.NotebookNode, grade_id: str) -> str:
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return cell.source


def test_the_racy_exercise_fails_until_both_barriers_are_in():
    """The exercise is fair: the kernel as given, or with one barrier, reads wrong values;
    the instructor's fix reads none."""
    nb = nbformat.read(SOURCE, as_version=4)
    scope: dict = {}
    exec(_cell(nb, "racy_source"), scope)
    exec(_cell(nb, "fixed_source"), scope)
    racy, fixed = scope["racy_source"], scope["fixed_source"]
    assert fixed.count("#pragma omp barrier") == 2 and racy.count("#pragma omp barrier") == 0
    half = {
        "racy": racy,
        "only before": racy.replace(
            "\n#pragma omp masked\n", "\n#pragma omp barrier\n#pragma omp masked\n"
        ),
        "only after": racy.replace(
            "\n            /* second loop", "\n#pragma omp barrier\n            /* second loop"
        ),
    }
    for name, code in half.items():
        kernel = hl.build_source(f"lab01_{name.replace(' ', '_')}", code)
        assert kernel.warnings == ()
        wrong = 0
        for _ in range(3):
            wrong = int(
                hl.run_program(kernel, 2, 2, thread_level="funneled", iterations=10)
                .records["wrong"]
                .sum()
            )
            if wrong:
                break
        assert wrong > 0, f"the {name} kernel never read a wrong value"
    kernel = hl.build_source("lab01_fixed", fixed)
    for _ in range(3):
        rec = hl.run_program(kernel, 2, 2, thread_level="funneled", iterations=10).records
        assert sorted(zip(rec["rank"], rec["thread"], strict=True)) == PAIRS_2X2
        assert rec["wrong"].sum() == 0


def _mapped() -> set[str]:
    import psutil

    used: set[str] = set()
    for proc in psutil.process_iter():
        try:
            used.update(m.path for m in proc.memory_maps(grouped=True))
        except (psutil.Error, OSError):
            continue
    return used


# ------------------------------------------------------------------- thread_ring (exercise b)



def test_ring_reference_is_what_each_thread_of_the_left_rank_sends():
    from hybridlab.hybrid_models.exercise import ring_reference, ring_value

    ref = ring_reference(ranks=3, threads=2, iterations=2, count=3).set_index(["rank", "thread"])
    want = sum(ring_value(2, 1, k, i) for k in (1, 2) for i in range(3))  # rank 0's left is 2
    assert ref.loc[(0, 1), "expected"] == want
    assert len(ref) == 6


def test_masteronly_thread_ring_is_right_and_funneled():
    from hybridlab.hybrid_models.exercise import check_ring
    from hybridlab.runs import compliance

    res = hl.run_program(hl.build("thread_ring", trace_mpi=True), ranks=2, threads=2,
                         thread_level="funneled", iterations=2)
    check_ring(res)
    compliance.check(res, "funneled")
    table = compliance.calls_table(res)
    assert set(table["thread"]) == {0} and set(table["call"]) == {"MPI_Sendrecv"}


def test_student_ring_serialized_is_right_compliant_and_refuses_funneled():
    from hybridlab.hybrid_models.exercise import build_student_ring, check_ring, standard_sends
    from hybridlab.runs import compliance

    kernel = build_student_ring(RING_EXCHANGE, name="test_student_ring")
    res = hl.run_program(kernel, ranks=2, threads=2, thread_level="serialized", iterations=2)
    check_ring(res)
    compliance.check(res, "serialized")
    with pytest.raises(hl.ThreadComplianceError):
        compliance.check(res, "funneled")  # thread 1 calls MPI
    table = compliance.calls_table(res)
    assert set(zip(table["rank"], table["thread"], strict=True)) == set(PAIRS_2X2)
    assert standard_sends(table) == []
    with pytest.raises(hl.KernelError, match="SERIALIZED"):
        hl.run_program(kernel, ranks=2, threads=2, thread_level="funneled", iterations=1)


def test_a_receive_into_another_threads_block_is_found_from_the_trace():
    """Each thread receives the block meant for the next thread, into that thread's buffer (the
    values all arrive right): the trace's receive buffers fall in another thread's block."""
    from hybridlab.hybrid_models.exercise import build_student_ring, check_ring, foreign_receives

    right = hl.run_program(build_student_ring(RING_EXCHANGE, name="test_student_ring"), ranks=2,
                           threads=2, thread_level="serialized", iterations=2)  # fmt: skip
    assert foreign_receives(right) == []
    swapped = RING_EXCHANGE.replace(  # a table of the threads' buffers, barriers round it
        "    int tag = omp_get_thread_num();",
        "    static int *table[64];\n    int tag = omp_get_thread_num(), other = (tag + 1) % "
        "omp_get_num_threads();\n    table[tag] = recv;\n#pragma omp barrier").replace(
        "MPI_Irecv(recv, n, MPI_INT, left, tag,", "MPI_Irecv(table[other], n, MPI_INT, left, other,"
    ).replace("        if (!done) hl_sleep_us(20);\n    }\n", "        if (!done) hl_sleep_us(20);\n"
              "    }\n#pragma omp barrier\n")  # fmt: skip
    assert swapped != RING_EXCHANGE
    res = hl.run_program(build_student_ring(swapped, name="test_ring_swapped"), ranks=2,
                         threads=2, thread_level="serialized", iterations=2)  # fmt: skip
    check_ring(res)
    assert "into thread" in foreign_receives(res)[0]


def test_student_ring_with_one_tag_for_all_threads_gets_the_wrong_blocks():
    from hybridlab.hybrid_models.exercise import build_student_ring, check_ring

    kernel = build_student_ring(
        RING_EXCHANGE.replace("int tag = omp_get_thread_num();", "int tag = 0;"), "test_ring_tag0"
    )
    # one tag: a block meets whichever receive the other rank's threads posted first, which can be
    # the right one by luck (2 threads x 2 exchanges were all right once, on a loaded machine):
    # 3 threads and 10 exchanges make a run that is right throughout far less likely
    res = hl.run_program(kernel, ranks=2, threads=3, thread_level="serialized", iterations=10)
    with pytest.raises(AssertionError, match="did not arrive from the same thread"):
        check_ring(res)


SORTED_AFTERWARDS = r"""
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread exchanges its own block");
}
static int *slot[64];

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    MPI_Request req[2];
#pragma omp critical(mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, 0, comm, &req[0]);
        MPI_Issend(send, n, MPI_INT, right, 0, comm, &req[1]);
    }
    for (int done = 0; !done;) {
#pragma omp critical(mpi)
        MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
    int *copy = malloc((size_t)n * sizeof *copy);
    memcpy(copy, recv, (size_t)n * sizeof *copy);
#pragma omp barrier
    slot[((unsigned)copy[0] >> 5) & 31] = copy; /* the sender's thread, from the element's tag */
#pragma omp barrier
    memcpy(recv, slot[omp_get_thread_num()], (size_t)n * sizeof *recv);
#pragma omp barrier
    free(copy);
}
"""


def test_the_messages_themselves_must_tell_the_threads_apart():
    """Attack K1 (2026-12-07, 4/4 kept): every thread receives with tag 0, so any thread's
    message meets any receive, and the threads then put the blocks back in shared memory by the
    tag in their elements: the data check passes. The tracer reads each receive as it completes
    ("held"): a thread's receive held another thread's block. The right exchange holds only its
    own, summing to what the left rank's same thread sent."""
    from hybridlab.hybrid_models.exercise import build_student_ring, check_ring, held_blocks

    res = hl.run_program(build_student_ring(SORTED_AFTERWARDS, name="test_ring_sorted"), ranks=2,
                         threads=2, thread_level="serialized", iterations=6)  # fmt: skip
    check_ring(res)  # the blocks were put back: the data alone cannot tell
    assert any("held thread" in f for f in held_blocks(res)), held_blocks(res)
    right = hl.run_program(build_student_ring(RING_EXCHANGE, name="test_student_ring"), ranks=3,
                           threads=2, thread_level="serialized", iterations=3)  # fmt: skip
    assert held_blocks(right) == []
    assert (right.mpi_calls["held"].fillna("") != "").sum() == 3 * 2 * 3  # one per receive


def _ring_run(code: str, name: str, iterations: int = 3) -> hl.Results:
    """A corpus answer's exchange run at 2 ranks x 2 threads, SERIALIZED."""
    from hybridlab.hybrid_models.exercise import build_student_ring

    return hl.run_program(build_student_ring(code, name=name), ranks=2, threads=2,
                          thread_level="serialized", iterations=iterations)  # fmt: skip


def _gaming(why: str) -> str:
    from gaming import source_of

    return source_of("01_programming_models", why)


def test_a_matched_probes_receive_is_a_receive_read_over_what_it_got():
    """A4's right answer r1 (MPI_Improbe and MPI_Mrecv, its own tag, status ignored) lost 4/4 as
    "0 receives": MPI_Mrecv is a receive, and the tracer reads what each got (its status, which
    the tracer has even when the cell ignores it), filed under the thread that posted it."""
    from honest import source_of
    from hybridlab.hybrid_models.exercise import RECEIVES, check_ring, held_blocks, received_bytes

    mprobe = source_of("01_programming_models", "each thread's own message found by MPI_Improbe")
    res = _ring_run(mprobe, "test_ring_mprobe")
    check_ring(res)
    assert held_blocks(res) == []
    assert {"MPI_Mrecv", "MPI_Imrecv"} <= set(RECEIVES)
    assert received_bytes(res) == {(r, t): 3 * 1024 * 4 for r in range(2) for t in range(2)}


def test_a_receive_the_tracer_could_not_read_fails_the_exchange():
    """A4's A3b (every receive slot of the tracer filled by 1100 persistent receives never
    started) and A4b (each receive's request freed at once, its buffer polled) kept 4/4 with a
    fake reading: an empty message received by MPI_Mrecv of n ints into the block already filled
    through shared memory. The calls that left a receive unread say so ("unread"), and an empty
    message reads as nothing."""
    from hybridlab.hybrid_models.exercise import check_ring, held_blocks

    full = _ring_run(_gaming("attacker A4 (A3b)"), "test_ring_slots_full")
    check_ring(full)  # the blocks were put back: the data alone cannot tell
    assert any("could not keep to read" in f for f in held_blocks(full)), held_blocks(full)
    freed = _ring_run(_gaming("attacker A4 (A4b)"), "test_ring_freed")
    check_ring(freed)
    found = held_blocks(freed)
    assert any("freed a receive before it completed" in f for f in found), found
    assert sum("sum to 0," in f for f in found) == 4, found  # the empty messages held nothing


def test_a_reading_is_filed_under_the_thread_that_posted_the_receive():
    """A4's A5: MPI_ANY_TAG receives, each request handed to the thread whose block landed in it
    to complete with MPI_Wait, so the readings were filed under the right threads. A reading
    belongs to the thread that posted the receive."""
    from hybridlab.hybrid_models.exercise import check_ring, held_blocks

    res = _ring_run(_gaming("attacker A4 (A5)"), "test_ring_handoff", iterations=6)
    check_ring(res)
    assert any("held thread" in f for f in held_blocks(res)), held_blocks(res)


def test_student_ring_blocks_come_only_from_mpi():
    """Issue 36: the kit's blocks were a formula of rank, thread, iteration and index, so a cell
    could take any thread's message (MPI_ANY_TAG, the race) and write the left rank's values over
    it from its own block. The student's blocks are drawn afresh in every run now: the same
    cell gets the wrong blocks, and two runs of the right exchange send different values."""
    from hybridlab.hybrid_models.exercise import build_student_ring, check_ring

    computed = RING_EXCHANGE.replace(
        "MPI_Irecv(recv, n, MPI_INT, left, tag,", "MPI_Irecv(recv, n, MPI_INT, left, MPI_ANY_TAG,"
    ).replace("        if (!done) hl_sleep_us(20);\n    }\n",
              "        if (!done) hl_sleep_us(20);\n    }\n    int rank = (send[0] / 64000) % 64;\n"
              "    for (int i = 0; i < n; i++) recv[i] = send[i] + (left - rank) * 64000;\n")
    assert computed.count("MPI_ANY_TAG") == 1 and "64000;" in computed
    res = hl.run_program(build_student_ring(computed, name="test_ring_computed"), ranks=3,
                         threads=2, thread_level="serialized", iterations=2)  # fmt: skip
    with pytest.raises(AssertionError, match="did not arrive from the same thread"):
        check_ring(res)
    kernel = build_student_ring(RING_EXCHANGE, name="test_student_ring")
    sent = [hl.run_program(kernel, ranks=2, threads=2, thread_level="serialized",
                           iterations=1).records.sort_values(["rank", "thread"])["sent"].tolist()
            for _ in range(2)]  # fmt: skip
    assert sent[0] != sent[1], "the blocks' values are the same in two runs"


def test_student_ring_needs_both_functions_and_reaches_nothing_of_the_kernel():
    from hybridlab.hybrid_models.exercise import build_student_ring

    with pytest.raises(ValueError, match="check_thread_level"):
        build_student_ring("void exchange_block(void) { return; }")
    with pytest.raises(NotImplementedError):
        build_student_ring("/* YOUR CODE HERE */")
    # the kernel's own value formula is static in thread_ring.c: a cell cannot call it
    reaching = RING_EXCHANGE.replace("int tag = omp_get_thread_num();",
                                     "int tag = thread_ring_value(0, 0, 1, 0) & 0;")
    with pytest.raises(hl.BuildError, match="thread_ring_value"):
        build_student_ring(reaching, name="test_ring_reaching")


def test_student_ring_records_each_threads_own_synchronous_sends_and_receives():
    from hybridlab.hybrid_models.exercise import build_student_ring
    from hybridlab.runs import compliance

    kernel = build_student_ring(RING_EXCHANGE, name="test_student_ring")
    res = hl.run_program(kernel, ranks=3, threads=2, thread_level="serialized", iterations=2)
    assert set(res.mpi_calls["student"]) == {1}  # the kernel itself calls no MPI in this build
    table = compliance.calls_table(res).set_index(["rank", "thread", "call"])["calls"]
    for rank in range(3):
        for thread in range(2):
            assert table[(rank, thread, "MPI_Issend")] == 2
            assert table[(rank, thread, "MPI_Irecv")] == 2


def test_a_clock_or_a_timed_wait_in_the_exchange_is_refused_at_the_build():
    """A7's c4 kept 4/4 twice with no lock: each thread called MPI only in its own 500 us slot of
    hl_now, so no two calls overlapped in the run the trace saw. The cell reads no clock and
    times no wait (lab 12's list, hl_sample too); the one pause allowed is a constant
    hl_sleep_us in the loop that tests the requests, as the solution's."""
    from hybridlab.hybrid_models.exercise import build_student_ring

    with pytest.raises(ValueError, match=r"no hl_now \(line \d+\)"):
        build_student_ring(_gaming("attacker A7 (c4)"), name="test_ring_slots")
    with pytest.raises(ValueError, match="no hl_sleep_us"):
        build_student_ring(_gaming("attacker A7's c4 without a clock"), name="test_ring_sleeps")
    sampled = RING_EXCHANGE.replace("int tag = omp_get_thread_num();",
                                    "int tag = omp_get_thread_num();\n"
                                    "    double spent[1];\n"
                                    "    hl_sample(NULL, NULL, 1, 1, spent);")
    with pytest.raises(ValueError, match="no hl_sample"):
        build_student_ring(sampled, name="test_ring_sampled")
    unpolled = RING_EXCHANGE.replace("MPI_Request requests[2];",
                                     "MPI_Request requests[2];\n    hl_sleep_us(20);")
    with pytest.raises(ValueError, match="no hl_sleep_us"):
        build_student_ring(unpolled, name="test_ring_unpolled")
    build_student_ring(RING_EXCHANGE, name="test_student_ring")  # the pause between tests


@pytest.mark.parametrize("why", ["persistent requests per thread (MPI_Ssend_init",
                                 "a persistent receive per thread (MPI_Recv_init)"])
def test_a_persistent_request_is_a_message_at_every_start(why):
    """A7's right answers r2 (MPI_Ssend_init and MPI_Recv_init, started by MPI_Startall) and r3
    (MPI_Recv_init started by MPI_Start, beside MPI_Issend) lost 4/4: MPI_Ssend_init was not
    traced, and a started persistent receive was not counted. Each start is a message of the
    thread that started it, with its set-up's peer and bytes."""
    from honest import source_of
    from hybridlab.hybrid_models.exercise import RECEIVES, SYNCHRONOUS_SENDS, check_ring, messages

    res = _ring_run(source_of("01_programming_models", why), "test_ring_persistent")
    check_ring(res)
    moved = messages(res)
    for rank in range(2):
        for thread in range(2):
            own = moved[(moved["rank"] == rank) & (moved["thread"] == thread)]
            sends = own[own["call"].isin(SYNCHRONOUS_SENDS)]
            receives = own[own["call"].isin((*RECEIVES, "MPI_Recv_init"))]
            assert len(sends) == 3 and len(receives) == 3, own
            assert set(sends["peer"]) == {1 - rank} and sends["bytes"].sum() == 3 * 1024 * 4


# ------------------------------------------------------- the lab's runs, tables and pictures

CONFIGS = {"no barriers": (0, 0), "both barriers": (1, 1)}


def test_master_race_runs_without_a_cluster_run_one_rank_that_sends_to_itself():
    from hybridlab.hybrid_models.exercise import master_race_runs
    from hybridlab.hybrid_models.plots import race_plot
    from hybridlab.hybrid_models.tables import race_totals

    race = master_race_runs(CONFIGS, delay_us=1000, iterations=4)
    assert list(race) == list(CONFIGS)
    assert all(len(run.meta["ranks"]) == 1 and len(run.records) == 2 * 4 for run in race.values())
    totals = race_totals(race)
    assert list(totals.index) == list(CONFIGS) and list(totals.columns) == ["overwritten", "stale", "wrong"]
    assert totals.loc["both barriers", "wrong"] == 0
    assert (totals["wrong"] == totals["overwritten"] + totals["stale"]).all()
    fig = race_plot(race, ranks=1, threads=2, delay_us=1000)
    racy, fixed = fig.axes
    drawn = sum(bar.get_height() for bar in racy.patches)  # overwritten and stale, stacked
    assert drawn == totals.loc["no barriers", "overwritten"] + totals.loc["no barriers", "stale"]
    assert [t.get_text() for t in fixed.texts] == ["no wrong value"]
    assert [ax.get_title() for ax in fig.axes] == list(CONFIGS)


def test_level_cost_runs_and_plot_show_each_levels_samples():
    from hybridlab.hybrid_models.exercise import level_cost_runs
    from hybridlab.hybrid_models.plots import level_cost_plot
    from hybridlab.sync.tables import slowest_rank_samples

    cost = level_cost_runs(("funneled", "multiple"), ranks=2, quick=True)
    assert {r["sync"].meta["thread_level"] for r in cost.values()} == {"funneled", "multiple"}
    barrier, latency = level_cost_plot(cost).axes
    assert [t.get_text() for t in barrier.get_xticklabels()] == ["funneled", "multiple"]
    samples = slowest_rank_samples(cost["multiple"]["sync"])
    mine = samples.loc[samples["construct"] == "mpi_barrier", "seconds"] * 1e6
    assert len(mine) == 8  # one per sample (quick): the ranks agree on everything but the time
    dots = [line for line in barrier.lines if line.get_marker() == "o"]
    assert sorted(dots[1].get_ydata()) == pytest.approx(sorted(mine))  # the slowest rank's, µs
    ping = cost["funneled"]["ping"].records["seconds"] * 1e6
    assert sorted(latency.lines[0].get_ydata()) == pytest.approx(sorted(ping))


# the hold on the student's calls (thread_ring.c's thread_ring_hold): fresh attacker A12's no-lock
# exchange kept 4/4 in 2 of 4 gradings (an overlap seen only when one happened to occur), and its
# turns kept by busy work 4/4 three times, 2026-12-07
NO_LOCK = RING_EXCHANGE.replace("#pragma omp critical(mpi)\n", "").replace(
    "hl_sleep_us(20)", "hl_sleep_us(10000)")
SPIN_LOCK = RING_EXCHANGE.replace(
    "void exchange_block(", "static int owner = -1;\n\nstatic void take(void) {\n"
    "    int free_ = -1;\n    while (!__atomic_compare_exchange_n(&owner, &free_, 1, 0, "
    "__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))\n        free_ = -1;\n}\n\n"
    "static void give(void) { __atomic_store_n(&owner, -1, __ATOMIC_RELEASE); }\n\n"
    "void exchange_block(").replace(
    "#pragma omp critical(mpi)\n    {\n", "    take();\n    {\n").replace(
    "        MPI_Issend(send, n, MPI_INT, right, tag, comm, &requests[1]);\n    }\n",
    "        MPI_Issend(send, n, MPI_INT, right, tag, comm, &requests[1]);\n    }\n    give();\n"
    ).replace("#pragma omp critical(mpi)\n        MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);",
              "        take();\n        MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);\n"
              "        give();")  # fmt: skip


def test_threads_without_mutual_exclusion_overlap_in_every_run():
    """No lock, a 10 ms pause between tests: each call waits inside MPI until the other thread
    calls too, so the run breaks SERIALIZED every time; the instructor's exchange only waits for
    the other thread to reach the critical section, and nothing is named."""
    from hybridlab.hybrid_models.exercise import unexcluded
    from hybridlab.runs import compliance

    assert NO_LOCK.count("critical") == 0 and "hl_sleep_us(10000)" in NO_LOCK
    for _ in range(2):
        res = _ring_run(NO_LOCK, "test_ring_no_lock")
        with pytest.raises(hl.ThreadComplianceError, match="serialized"):
            compliance.check(res, "serialized")
    right = _ring_run(RING_EXCHANGE, "test_student_ring", iterations=6)
    compliance.check(right, "serialized")
    assert unexcluded(right) == []


def test_a_wait_the_kit_cannot_see_is_named_after_the_hold():
    """A spin lock of the cell's own (atomics): the waiting thread runs the cell's code, which the
    kit cannot tell from a turn kept by busy work; the call inside MPI waits 1 s for it, then the
    holding thread's record names the other thread."""
    from hybridlab.hybrid_models.exercise import unexcluded

    assert SPIN_LOCK.count("take();") == 2 and SPIN_LOCK.count("give();") == 2, SPIN_LOCK
    found = unexcluded(_ring_run(SPIN_LOCK, "test_ring_spin_lock", iterations=2))
    assert found and "waited 1 s inside MPI while thread" in found[0], found


# the hold's state out of the cell's reach (issue 36): fresh attacker A14 kept 4/4 by storing 1
# into thread_ring.c's static ring_ran_out through a pointer at a fixed offset from a static of the
# cell (same program, .bss); the state now lies on the kernel's sealed pages, which a store faults
POKE = RING_EXCHANGE.replace("#pragma omp critical(mpi)\n", "").replace(
    "hl_sleep_us(20)", "hl_sleep_us(5000)").replace(
    "void exchange_block(", "static int anchor;\n\nvoid exchange_block(").replace(
    "    int tag = omp_get_thread_num();",
    "    *(volatile int *)((char *)&anchor + (POKED)) = VALUE;\n    int tag = omp_get_thread_num();")


def _poke_offset(name: str, symbol: str, plus: int) -> int:
    """The distance from the cell's `anchor` to `symbol` + plus in the program POKE builds
    (nm; the same layout for every offset poked)."""
    import subprocess

    from hybridlab.hybrid_models.exercise import build_student_ring

    kernel = build_student_ring(POKE.replace("POKED", "0").replace("VALUE", "0"), name=name)
    names = {}
    for line in subprocess.run(["nm", str(kernel.program)], capture_output=True, text=True,
                               check=True).stdout.splitlines():  # fmt: skip
        parts = line.split()
        if len(parts) == 3 and parts[2] in ("anchor", symbol):
            names[parts[2]] = int(parts[0], 16)
    return names[symbol] + plus - names["anchor"]


def test_a_store_into_the_holds_state_faults():
    """A14's poke aimed at where the hold now keeps ran_out (the sealed evidence: hl_sealed's
    data, after its 24-byte head; ring_evidence's ready and team first): the store faults."""
    assert "critical" not in POKE and "anchor" in POKE
    offset = _poke_offset("test_ring_poke_probe", "hl_sealed", 24 + 8)
    code = POKE.replace("POKED", str(offset)).replace("VALUE", "1")
    with pytest.raises(hl.KernelCrash, match="signal 11|SIGSEGV"):
        _ring_run(code, "test_ring_poke_sealed")


def test_the_tracers_count_of_calls_inside_mpi_does_not_end_the_hold():
    """The tracer's count of calls inside MPI (hl_trace.c's `active`, writable) set high by the
    cell: the hold reads which threads are inside MPI from its own sealed slots, so the no-lock
    exchange still overlaps and breaks SERIALIZED."""
    from hybridlab.runs import compliance

    offset = _poke_offset("test_ring_poke_probe", "active", 0)
    res = _ring_run(POKE.replace("POKED", str(offset)).replace("VALUE", "1000"),
                    "test_ring_poke_active")  # fmt: skip
    with pytest.raises(hl.ThreadComplianceError, match="serialized"):
        compliance.check(res, "serialized")


# A14's right answer r3 lost 0/4 ("unexcluded"): a thread spinning on omp_test_lock was not seen
# waiting; a failed try of a lock another thread holds is a wait now, until the thread takes it
TEST_LOCK = RING_EXCHANGE.replace(
    "void exchange_block(",
    "static void take(void) {\n    while (!omp_test_lock(&mpi_lock)) {\n    }\n}\n\n"
    "void exchange_block(").replace(
    "int check_thread_level(hl_ctx *ctx) {\n",
    "static omp_lock_t mpi_lock;\nstatic int lock_made;\n\n"
    "int check_thread_level(hl_ctx *ctx) {\n    if (!lock_made) {\n        omp_init_lock(&mpi_lock);\n"
    "        lock_made = 1;\n    }\n").replace(
    "#pragma omp critical(mpi)\n    {\n", "    take();\n    {\n").replace(
    "        MPI_Issend(send, n, MPI_INT, right, tag, comm, &requests[1]);\n    }\n",
    "        MPI_Issend(send, n, MPI_INT, right, tag, comm, &requests[1]);\n    }\n"
    "    omp_unset_lock(&mpi_lock);\n").replace(
    "#pragma omp critical(mpi)\n        MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);",
    "        take();\n        MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);\n"
    "        omp_unset_lock(&mpi_lock);")  # fmt: skip
# ... and a thread that tries the other's lock, fails, and calls MPI without it was not waiting
FAKE_TRY = RING_EXCHANGE.replace("#pragma omp critical(mpi)\n", "").replace(
    "void exchange_block(", "static _Thread_local int mine;\n\n"
    "static void seem_to_wait(int t) {\n    for (long i = 0; i < 200000; i++)\n"
    "        if (omp_test_lock(&locks[1 - t])) omp_unset_lock(&locks[1 - t]);\n}\n\n"
    "void exchange_block(").replace(
    "int check_thread_level(hl_ctx *ctx) {\n",
    "static omp_lock_t locks[2];\n\n"
    "int check_thread_level(hl_ctx *ctx) {\n    omp_init_lock(&locks[0]);\n    omp_init_lock(&locks[1]);\n").replace(
    "    int tag = omp_get_thread_num();",
    "    int tag = omp_get_thread_num();\n    if (!mine) {\n        omp_set_lock(&locks[tag]);\n"
    "        mine = 1;\n    }\n    seem_to_wait(tag);").replace(
    "        MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);",
    "        seem_to_wait(tag);\n        MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);")  # fmt: skip


def test_a_spin_on_a_try_lock_waits_and_a_try_given_up_is_named():
    from hybridlab.hybrid_models.exercise import unexcluded
    from hybridlab.runs import compliance

    assert TEST_LOCK.count("take();") == 2 and "critical" not in TEST_LOCK, TEST_LOCK
    right = _ring_run(TEST_LOCK, "test_ring_test_lock", iterations=6)
    compliance.check(right, "serialized")
    assert unexcluded(right) == []
    assert FAKE_TRY.count("seem_to_wait(tag);") == 2 and "critical" not in FAKE_TRY, FAKE_TRY
    found = unexcluded(_ring_run(FAKE_TRY, "test_ring_fake_try", iterations=2))
    assert found and "after a try of a lock" in found[0], found
