"""The thread-compliance checker on real kernels: each variant of one exchange is run under
mpiexec (and two in the engines), its MPI calls traced (build_source(..., trace_mpi=True)), and
judged at every thread level."""

from __future__ import annotations

import pytest

import hybridlab as hl
from hybridlab.kernels.build import build_source
from hybridlab.machine.thread_levels import THREAD_LEVELS
from hybridlab.runs import compliance
from hybridlab.runs.records import RecordError

# Rank 0 and rank 1 swap one long each way (rounds times) with tag = the calling thread, called
# as `variant` says. 'concurrent' makes rank 0's two threads overlap in MPI for certain: thread 0
# is inside MPI_Sendrecv from before its send (tag 0) until rank 1 answers (tag 3), which rank 1
# does only after thread 1's MPI_Recv of tag 1 (sent by rank 1 after tag 0 arrived) has ended and
# thread 1 has sent tag 4: the two calls' intervals must intersect.
EXCHANGE = r"""
#include "hybridlab.h"
const char *const hl_kernel_description = "one exchange, called from the threads a variant says";
static const char *const variants[] = {"outside", "master", "thread1", "nested", "critical",
                                       "concurrent", "unsafe"};
const hl_param hl_kernel_params[] = {
    {"variant", "outside", "outside | master | thread1 | nested | critical | concurrent | unsafe"},
    {"rounds", "1", "exchanges per calling thread"},
    HL_END_PARAMS};

static long swap(MPI_Comm comm, int rank, int tag, long mine) {
    long got = -1;
    if (rank == 0) {
        MPI_Send(&mine, 1, MPI_LONG, 1, tag, comm);
        MPI_Recv(&got, 1, MPI_LONG, 1, tag, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&got, 1, MPI_LONG, 0, tag, comm, MPI_STATUS_IGNORE);
        MPI_Send(&mine, 1, MPI_LONG, 0, tag, comm);
    }
    return got;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1, rank, size;
    int variant = hl_param_choice(ctx, "variant", variants, 7);
    long rounds = hl_param_long(ctx, "rounds", 1, &ok);
    if (variant < 0 || !ok) return -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size != 2) return hl_fail(ctx, "needs 2 ranks");
    long sum = 0, mine = 10 * (rank + 1);
    if (variant == 0) {
        for (long r = 0; r < rounds; r++) sum += swap(comm, rank, 0, mine);
    } else if (variant == 6) { /* both send first: safe only while MPI buffers the message */
        MPI_Send(&mine, 1, MPI_LONG, 1 - rank, 0, comm);
        MPI_Recv(&sum, 1, MPI_LONG, 1 - rank, 0, comm, MPI_STATUS_IGNORE);
    } else if (variant == 1 || variant == 2) {
        int caller = variant == 1 ? 0 : 1;
#pragma omp parallel num_threads(2) reduction(+ : sum)
        if (omp_get_thread_num() == caller)
            for (long r = 0; r < rounds; r++) sum += swap(comm, rank, 0, mine);
    } else if (variant == 3) { /* thread 0 of the inner team of outer thread 1: not MPI's main */
        omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : sum)
        {
            int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2) reduction(+ : sum)
            if (outer == 1 && omp_get_thread_num() == 0)
                for (long r = 0; r < rounds; r++) sum += swap(comm, rank, 0, mine);
        }
    } else if (variant == 4) { /* every thread, one at a time: post, then complete */
#pragma omp parallel num_threads(2) reduction(+ : sum)
        {
            long got = -1;
            int t = omp_get_thread_num(), peer = 1 - rank;
            MPI_Request req[2];
#pragma omp critical
            {
                MPI_Isend(&mine, 1, MPI_LONG, peer, t, comm, &req[0]);
                MPI_Irecv(&got, 1, MPI_LONG, peer, t, comm, &req[1]);
            }
#pragma omp barrier
#pragma omp critical
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            sum += got;
        }
    } else if (rank == 1) { /* concurrent: rank 1 answers from its main thread */
        long v = 0;
        MPI_Recv(&v, 1, MPI_LONG, 0, 0, comm, MPI_STATUS_IGNORE);
        MPI_Send(&mine, 1, MPI_LONG, 0, 1, comm);
        MPI_Recv(&v, 1, MPI_LONG, 0, 4, comm, MPI_STATUS_IGNORE);
        sum += v;
        MPI_Send(&mine, 1, MPI_LONG, 0, 3, comm);
    } else {
#pragma omp parallel num_threads(2) reduction(+ : sum)
        {
            long got = -1;
            if (omp_get_thread_num() == 0) {
                MPI_Sendrecv(&mine, 1, MPI_LONG, 1, 0, &got, 1, MPI_LONG, 1, 3, comm,
                             MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&got, 1, MPI_LONG, 1, 1, comm, MPI_STATUS_IGNORE);
                MPI_Send(&mine, 1, MPI_LONG, 1, 4, comm);
            }
            sum += got;
        }
    }
    hl_emit(ctx, "\"sum\":%ld", sum);
    return 0;
}
"""


@pytest.fixture(scope="module")
def exchange():
    built = build_source("compliance_exchange", EXCHANGE, trace_mpi=True)
    assert built.warnings == ()
    return built


def run(kernel, variant, level="multiple", **params):
    """The variant under mpiexec, MPI initialised at `level` (MPICH works at a lower one too,
    but the concurrent variant is only safe under multiple)."""
    return hl.run_program(
        kernel, ranks=2, threads=2, thread_level=level, timeout=120, variant=variant, **params
    )


def passes(results, level):
    return compliance.violations(results, level) == []


def levels_passed(results):
    return [level for level in THREAD_LEVELS if passes(results, level)]


def test_calls_outside_parallel_regions_pass_every_level(exchange):
    res = run(exchange, "outside", level="single", rounds=3)
    assert res.records["sum"].tolist() == [60, 30]  # 3 rounds of the other rank's value
    assert levels_passed(res) == list(THREAD_LEVELS)
    table = compliance.calls_table(res)
    sends = table[table["call"] == "MPI_Send"]
    assert sends[["rank", "thread", "calls", "needs"]].values.tolist() == [
        [0, 0, 3, "single"],
        [1, 0, 3, "single"],
    ]


def test_a_master_only_exchange_passes_funneled_but_not_single(exchange):
    res = run(exchange, "master", level="funneled")
    assert res.records["sum"].tolist() == [20, 10]
    compliance.check(res, "funneled")
    with pytest.raises(hl.ThreadComplianceError) as caught:
        compliance.check(res, "single")
    message = str(caught.value)
    assert "break thread level 'single'" in message
    assert "MPI_Send on rank 0, thread 0" in message and "MPI_Recv on rank 1, thread 0" in message
    assert "inside a parallel region of 2 threads; needs 'funneled'" in message


def test_the_same_exchange_from_thread_1_fails_funneled(exchange):
    res = run(exchange, "thread1", level="funneled")  # MPICH lets it run; the checker does not
    assert res.records["sum"].tolist() == [20, 10]
    with pytest.raises(hl.ThreadComplianceError) as caught:
        compliance.check(res, "funneled")
    error = caught.value
    assert error.level == "funneled"
    named = sorted((v.rank, v.thread, v.call, v.needs) for v in error.violations)
    assert named == [
        (0, 1, "MPI_Recv", "serialized"),
        (0, 1, "MPI_Send", "serialized"),
        (1, 1, "MPI_Recv", "serialized"),
        (1, 1, "MPI_Send", "serialized"),
    ]
    assert "MPI_Send on rank 0, thread 1 (once): called from thread 1, not the main thread" in str(
        error
    )
    assert "allows MPI calls only from the main thread" in str(error)
    assert levels_passed(res) == ["serialized", "multiple"]


def test_thread_0_of_a_nested_team_is_not_the_main_thread(exchange):
    res = run(exchange, "nested", level="funneled")
    assert res.records["sum"].tolist() == [20, 10]
    found = compliance.violations(res, "funneled")
    assert {(v.thread, v.call) for v in found} == {(0, "MPI_Send"), (0, "MPI_Recv")}
    assert all("not the main thread" in v.why for v in found)


def test_critical_protected_calls_from_every_thread_pass_serialized_not_funneled(exchange):
    res = run(exchange, "critical", level="serialized")
    assert res.records["sum"].tolist() == [40, 20]  # both threads got the other rank's value
    compliance.check(res, "serialized")
    table = compliance.calls_table(res)
    assert set(table["thread"]) == {0, 1}
    assert set(table["call"]) >= {"MPI_Isend", "MPI_Irecv", "MPI_Waitall"}
    with pytest.raises(hl.ThreadComplianceError, match=r"MPI_Isend on rank \d, thread 1"):
        compliance.check(res, "funneled")


def test_overlapping_calls_from_two_threads_fail_serialized(exchange):
    res = run(exchange, "concurrent", level="multiple")
    assert res.records["sum"].tolist() == [20 + 20, 10]
    with pytest.raises(hl.ThreadComplianceError) as caught:
        compliance.check(res, "serialized")
    found = caught.value.violations
    assert {(v.rank, v.call) for v in found} >= {(0, "MPI_Sendrecv"), (0, "MPI_Recv")}
    assert all(v.rank == 0 and v.needs == "multiple" for v in found)
    (sendrecv,) = [v for v in found if v.call == "MPI_Sendrecv"]
    assert sendrecv.thread == 0 and "on thread 1 was inside MPI too" in sendrecv.why
    assert res.meta["mpi_trace"][0]["concurrent"] >= 1  # the C counter saw it as well
    compliance.check(res, "multiple")
    table = compliance.calls_table(res)
    assert set(table[table["rank"] == 0]["needs"]) == {"single", "multiple"}


@pytest.mark.parametrize("variant", ["outside", "master", "thread1", "nested", "critical"])
def test_anything_passes_multiple(exchange, variant):
    compliance.check(run(exchange, variant), "multiple")


def test_the_kits_own_mpi_calls_are_not_counted():
    # hl_measure's barriers and reductions, called on the main thread inside a parallel region
    # that the kernel opens, are the kit's: a kernel that calls no MPI itself has no calls.
    source = r"""
#include "hybridlab.h"
const char *const hl_kernel_description = "measures an empty loop";
const hl_param hl_kernel_params[] = {HL_END_PARAMS};
static void nothing(void *arg, long inner) { (void)arg; for (long i = 0; i < inner; i++) {} }
int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    (void)comm;
    hl_method m = hl_method_default(ctx);
    m.outer = 2;
    hl_result r;
    int rc = hl_measure(ctx, "empty", nothing, NULL, NULL, &m, &r);
    hl_result_free(&r);
    return rc;
}
"""
    res = hl.run_program(build_source("compliance_kit", source, trace_mpi=True), ranks=2)
    assert res.traced and len(res.mpi_calls) == 0
    assert [t["calls"] for t in res.meta["mpi_trace"]] == [0, 0]
    compliance.check(res, "single")


def test_calls_past_the_trace_buffer_are_still_judged(exchange):
    """A run of the harness streams every call up to the stream's size (HL_TRACE_MAX_CALLS KiB,
    asked of the file, not of a counter), then says it is full: refused as too many calls to
    judge. A kernel the engines load keeps its buffer's first calls, and the counters judge the
    rest."""
    small = build_source(
        "compliance_exchange", EXCHANGE, flags=("-DHL_TRACE_MAX_CALLS=2",), trace_mpi=True
    )
    with pytest.raises(RecordError, match="more MPI calls than its trace keeps"):
        run(small, "thread1", level="funneled", rounds=5)
    streamed = run(exchange, "thread1", level="funneled", rounds=5)
    assert [(t["kept"], t["calls"]) for t in streamed.meta["mpi_trace"]] == [(12, 12), (12, 12)]
    assert sum(v.count for v in compliance.violations(streamed, "funneled")) == 20
    with hl.Cluster(ranks=2, threads=2, timeout=120) as cluster:
        res = cluster.run(small, variant="thread1", rounds=5)
    assert [t["kept"] for t in res.meta["mpi_trace"]] == [2, 2]  # Comm_rank, Comm_size
    assert [t["calls"] for t in res.meta["mpi_trace"]] == [12, 12]
    found = compliance.violations(res, "funneled")
    assert [(v.rank, v.count, v.needs) for v in found] == [
        (0, 10, "serialized"),
        (1, 10, "serialized"),
    ]
    assert "threads not recorded" in str(found[0])


def test_tracing_is_part_of_the_build_and_cannot_be_bypassed(exchange):
    plain = build_source("compliance_exchange", EXCHANGE)
    assert plain.library != exchange.library
    assert "-DHL_TRACE_MPI" in exchange.flags and "-DHL_TRACE_MPI" not in plain.flags
    res = hl.run_program(plain, ranks=2, variant="outside")
    assert not res.traced and len(res.records) == 2
    with pytest.raises(ValueError, match="trace_mpi=True"):
        compliance.check(res, "funneled")
    # the profiling name is refused; a student's unit is judged fully (tests/test_unit_checks.py)
    with pytest.raises(hl.BuildError, match="PMPI_Send: a traced kernel calls MPI by the names"):
        build_source("sneaky", EXCHANGE.replace("MPI_Send(", "PMPI_Send(", 1), trace_mpi=True)


def test_trace_records_a_kernel_forges_are_refused():
    forged = EXCHANGE.replace(
        'hl_emit(ctx, "\\"sum\\":%ld", sum);',
        'hl_emit(ctx, "\\"record\\":\\"mpi_trace\\",\\"calls\\":0,\\"kept\\":0,'
        '\\"not_main\\":0,\\"in_parallel\\":0,\\"concurrent\\":0");',
    )
    assert forged != EXCHANGE
    with pytest.raises(ValueError, match="records (lost or )?forged"):  # a second summary
        run(build_source("compliance_forged", forged, trace_mpi=True), "thread1")


def test_synchronous_sends_make_an_unsafe_order_deadlock_and_are_still_named_mpi_send(exchange):
    assert run(exchange, "unsafe").records["sum"].tolist() == [20, 10]  # MPICH buffers it
    ssend = build_source(
        "compliance_exchange", EXCHANGE, flags=("-DHL_SYNCHRONOUS_SENDS",), trace_mpi=True
    )
    table = compliance.calls_table(run(ssend, "outside"))
    assert "MPI_Send" in set(table["call"]) and "MPI_Ssend" not in set(table["call"])
    with pytest.raises(hl.KernelTimeout):
        hl.run_program(ssend, ranks=2, threads=1, timeout=20, variant="unsafe")


def test_the_checker_works_on_kernels_the_engines_load(exchange):
    with hl.Cluster(ranks=2, threads=2, timeout=120) as cluster:
        master = cluster.run(exchange, variant="master")
        thread1 = cluster.run(exchange, variant="thread1")
    assert master.records["sum"].tolist() == [20, 10]
    compliance.check(master, "funneled")  # the engine's thread is MPI's main thread
    assert all(r["calls"] == 4 for r in master.meta["mpi_trace"])  # reset between runs
    with pytest.raises(hl.ThreadComplianceError, match="MPI_Send on rank 0, thread 1"):
        compliance.check(thread1, "funneled")


def test_the_calls_plot_marks_the_calls_that_break_the_level(exchange, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from hybridlab.plots import mpi_calls_plot

    res = run(exchange, "thread1", level="funneled")
    fig = mpi_calls_plot(res, level="funneled")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "rank 0, thread 0",
        "rank 0, thread 1",
        "rank 1, thread 0",
        "rank 1, thread 1",
    ]
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert len(hatched) == 4  # Send and Recv of thread 1 on both ranks
    assert "4 call(s) break it" in ax.get_title()
    labels = {t.get_text() for t in ax.texts}
    assert {"Send x1", "Recv x1", "Comm_rank x1"} <= labels
    # the level each segment needs is written on it too, not told by its colour alone
    named = [t.get_text() for t in ax.texts if t.get_text() in THREAD_LEVELS]
    assert len(named) == len([p for p in ax.patches if p.get_width() > 0])
    assert "serialized" in named  # thread 1's Send and Recv
    fig.savefig(tmp_path / "calls.png", dpi=80)


@pytest.mark.parametrize(
    ("variant", "asks", "fails"),
    [
        ("pure", "single", None),  # one thread per rank
        ("hybrid1", "single", None),  # masteronly: MPI between parallel regions
        ("hybrid2", "serialized", "single"),  # halos inside `omp single`, in the parallel region
    ],
)
def test_the_kits_halo_kernel_stays_within_the_level_it_asks_for(variant, asks, fails):
    halo = hl.build("halo2d", trace_mpi=True)
    res = hl.run_program(
        halo, ranks=2, threads=2, thread_level=asks, variant=variant, nx=32, ny=32,
        iterations=5, timeout=120,
    )  # fmt: skip
    compliance.check(res, asks)
    assert set(compliance.calls_table(res)["call"]) >= {"MPI_Sendrecv", "MPI_Allreduce"}
    if fails:
        with pytest.raises(hl.ThreadComplianceError, match="MPI_Sendrecv"):
            compliance.check(res, fails)


# A kernel that tries what a cell could do with the C library it may call: stdout's FILE pointed at
# another descriptor (its _fileno), written with fputs and fflush. `target` "stream": the descriptor of
# the rank's trace stream, a framed line with the run's key (a cell can read both: the key is on
# the tracer's read-only page); "own": a file the kernel opened itself, to show the FILE works;
# "silence": stdout left pointing at a closed descriptor, where the kit would print the records.
FORGE = r"""
#include "hybridlab.h"
const char *const hl_kernel_description = "stdout pointed at another descriptor and written";
const hl_param hl_kernel_params[] = {{"target", "stream", "stream | own | silence"},
                                     HL_END_PARAMS};

static int stream_descriptor(void) {
    char link[64], path[4096];
    for (int fd = 3; fd < 1024; fd++) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        if (n > 0 && (path[n] = '\0', strstr(path, "/stream-"))) return fd;
    }
    return -1;
}

static size_t forge(int fd, const char *line) {
    fflush(stdout);
    int own = stdout->_fileno;
    stdout->_fileno = fd;
    int ok = fputs(line, stdout) >= 0;
    ok = fflush(stdout) == 0 && ok;
    stdout->_IO_write_ptr = stdout->_IO_write_base; /* what could not be written, dropped */
    stdout->_fileno = own;
    return ok ? strlen(line) : 0;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    static const char *const targets[] = {"stream", "own", "silence"};
    int target = hl_param_choice(ctx, "target", targets, 3), rank;
    if (target < 0) return -1;
    MPI_Comm_rank(comm, &rank);
    char key[80] = "-", line[512], path[4096] = "";
    FILE *k = fopen(getenv("HL_RECORD_KEY_FILE") ? getenv("HL_RECORD_KEY_FILE") : "/", "r");
    if (k) { key[fread(key, 1, 64, k)] = '\0'; fclose(k); }
    snprintf(line, sizeof line, "@hl %s %d 1 {\"rank\":%d,\"thread\":0,\"record\":\"mpi_call\","
             "\"call\":\"MPI_Forged\",\"start\":0,\"end\":1}\n", key, rank, rank);
    int fd = stream_descriptor(), guarded = -1;
    if (fd >= 0) { /* the stream's first line says whether the tracer guards it */
        char link[64], first[256] = "";
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        path[n > 0 ? n : 0] = '\0';
        FILE *s = fopen(path, "r");
        if (s && fgets(first, sizeof first, s)) guarded = strstr(first, "\"guarded\":1") != NULL;
        if (s) fclose(s);
    }
    if (target == 1) {
        snprintf(path, sizeof path, "%s/own-%d", getenv("HL_TRACE_STREAM"), rank);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    }
    size_t wrote = fd >= 0 ? forge(fd, line) : 0;
    long direct = fd >= 0 ? (long)write(fd, "x", 1) : -2;
    hl_emit(ctx, "\"fd\":%d,\"guarded\":%d,\"forged\":%zu,\"direct\":%ld", fd, guarded, wrote,
            direct);
    if (target == 2) {
        fflush(stdout);
        stdout->_fileno = 1023;
    }
    return 0;
}
"""


def test_the_stream_takes_lines_from_the_tracer_alone():
    """stdout's FILE aimed at the trace stream's descriptor writes nothing there (the tracer's
    seccomp guard, kernels_c/hl_stream_guard.h): no forged call reaches the records, and the
    stream says it is guarded. The same FILE aimed at a file of the kernel's own writes its line;
    aimed at a closed descriptor, it does not stop the kit printing the records."""
    forge = build_source("compliance_forge", FORGE, trace_mpi=True)
    guarded = hl.run_program(forge, ranks=2, threads=1, timeout=120, target="stream")
    kernel = guarded.records
    assert (kernel["fd"] >= 900).all() and (kernel["guarded"] == 1).all(), kernel
    assert (kernel["forged"] == 0).all() and (kernel["direct"] == -1).all()
    assert "MPI_Forged" not in set(guarded.mpi_calls["call"])
    own = hl.run_program(forge, ranks=2, threads=1, timeout=120, target="own")
    mine = own.records
    assert (mine["forged"] > 0).all() and (mine["direct"] == 1).all()
    # the records are printed through the tracer's own copy of stdout, which stdout's FILE is not
    silenced = hl.run_program(forge, ranks=2, threads=1, timeout=120, target="silence")
    assert sorted(silenced.records["rank"]) == [0, 1] and (silenced.records["forged"] == 0).all()
