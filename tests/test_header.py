"""kernels_c/hybridlab.h: the method API a kernel builds on, checked through a small kernel.

hl_measure's steps are counted, not timed: warm-up (1 call), calibration (1, 2, 4, ... inner),
one discarded pass of inner, then outer samples of inner; the ranks agree on inner.
"""

from __future__ import annotations

import pytest

import hybridlab as hl
from hybridlab.kernels.build import build_source

SOURCE = r"""
#include "hybridlab.h"
#include "hl_halo.h"

const char *const hl_kernel_description = "self-test of the method header";
const hl_param hl_kernel_params[] = {
    {"letters", "c,a", "comma list of a, b, c"},
    {"numbers", "1.5, 2", "comma list of numbers"},
    {"size", "two", "one, two or three"},
    {"needs", "single", "the thread level the kernel requires"},
    {"outer", "4", "samples"},
    HL_SCHEDULE_PARAMS,
    HL_END_PARAMS,
};

typedef struct {
    long delay, test_reps, reference_reps;
} counts;

static void test(void *arg, long inner) {
    counts *c = arg;
    for (long i = 0; i < inner; i++) hl_delay(c->delay);
    c->test_reps += inner;
}

static void reference(void *arg, long inner) {
    counts *c = arg;
    for (long i = 0; i < inner; i++) hl_delay(c->delay);
    c->reference_reps += inner;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    static const char *const letters[] = {"a", "b", "c"};
    static const char *const sizes[] = {"one", "two", "three"};
    static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
    static const char *const level_names[] = {"single", "funneled", "serialized", "multiple"};
    int ok = 1, picked[8];
    double numbers[8];
    int nletters = hl_param_names(ctx, "letters", "letter", letters, 3, picked, 8);
    if (nletters < 0) return -1;
    int nnumbers = hl_param_numbers(ctx, "numbers", numbers, 8);
    if (nnumbers < 0) return -1;
    int size = hl_param_choice(ctx, "size", sizes, 3);
    if (size < 0) return -1;
    int needs = hl_param_choice(ctx, "needs", level_names, 4);
    if (needs < 0) return -1;
    if (hl_require_level(ctx, levels[needs], "this test calls MPI as %s", level_names[needs]))
        return -1;
    long outer = hl_param_long(ctx, "outer", 1, &ok);
    if (!ok) return -1;
    long chunk = 0;
    const char *schedule = hl_param_schedule(ctx, &chunk);
    if (!schedule) return -1;
    omp_sched_t kind;
    int got_chunk;
    omp_get_schedule(&kind, &got_chunk);
    hl_emit(ctx, "\"schedule\":\"%s\",\"chunk\":%ld,\"omp_kind\":%d,\"omp_chunk\":%d",
            schedule, chunk, (int)kind, got_chunk);

    double t0 = hl_start_together(comm);
    hl_sleep_us(1000 * (ctx->rank + 1));
    hl_emit(ctx, "\"slowest\":%.17g", hl_slowest_since(comm, t0));

    for (int i = 0; i < nletters && i < 8; i++) hl_emit(ctx, "\"letter\":%d", picked[i]);
    for (int i = 0; i < nnumbers && i < 8; i++) hl_emit(ctx, "\"number\":%g", numbers[i]);
    hl_emit(ctx, "\"size\":%d,\"no_delay\":%ld", size, hl_delay_length(comm, 0.0));

    counts c = {.delay = hl_delay_length(comm, 1e-6)};
    hl_method method = hl_method_default(ctx);
    method.target = 1e-4;
    method.outer = (int)outer;
    hl_result r;
    if (hl_measure(ctx, "delay", test, reference, &c, &method, &r) != 0) return -1;
    for (int i = 0; i < r.outer; i++)
        hl_emit(ctx, "\"sample\":%d,\"test\":%.9g,\"reference\":%.9g", i, r.test[i],
                r.reference[i]);
    hl_emit(ctx,
            "\"inner\":%ld,\"reference_inner\":%ld,\"test_reps\":%ld,\"reference_reps\":%ld,"
            "\"delay\":%ld",
            r.inner, r.reference_inner, c.test_reps, c.reference_reps, c.delay);
    hl_result_free(&r);

    int nthreads = omp_get_max_threads();
    hl_timers *acc = hl_timers_new(nthreads);
    if (!acc) return hl_fail(ctx, "no memory");
#pragma omp parallel num_threads(nthreads)
    {
        hl_timers *me = &acc[omp_get_thread_num()];
        me->t[HL_JACOBI] = 1.0 + omp_get_thread_num();
        me->partial = 1.0 + omp_get_thread_num();
        hl_barrier_phase(me, HL_OTHER);
    }
    hl_emit(ctx, "\"partials\":%g", hl_timers_sum(acc, nthreads));
    hl_emit_timers(ctx, acc, nthreads, hl_halo_phase_names, HL_HALO_PHASES, "\"tag\":\"%s\"",
                   "self-test");
    free(acc);
    return 0;
}
"""


@pytest.fixture(scope="module")
def kernel():
    built = build_source("header_selftest", SOURCE)
    assert built.warnings == ()
    return built


def test_lists_choices_and_the_method_steps(kernel):
    res = hl.run_program(kernel, ranks=2, threads=2, timeout=120)
    df = res.records
    for _rank, mine in df.groupby("rank"):
        assert mine["letter"].dropna().tolist() == [2, 0]
        assert mine["number"].dropna().tolist() == [1.5, 2.0]
        assert mine["size"].dropna().tolist() == [1]
        assert mine["no_delay"].dropna().tolist() == [0]
        samples = mine.dropna(subset=["sample"])
        assert samples["sample"].tolist() == [0, 1, 2, 3]
        assert (samples["test"] > 0).all() and (samples["reference"] > 0).all()
        (done,) = mine.dropna(subset=["test_reps"]).to_dict("records")
        assert done["delay"] >= 1
        for inner, reps in [("inner", "test_reps"), ("reference_inner", "reference_reps")]:
            n = int(done[inner])
            assert n >= 1 and n & (n - 1) == 0  # doubled from 1
            # warm-up 1 + calibration 1 + 2 + ... + n + discarded n + 4 samples of n
            assert int(done[reps]) == 1 + (2 * n - 1) + n + 4 * n
    finished = df.dropna(subset=["test_reps"])
    assert finished["inner"].nunique() == 1  # the ranks agree
    assert finished["reference_inner"].nunique() == 1
    assert finished["delay"].nunique() == 1
    assert df["partials"].dropna().tolist() == [3.0, 3.0]  # 1 + 2 per rank, thread order


def test_schedule_and_the_slowest_rank(kernel):
    res = hl.run_program(kernel, ranks=2, threads=1, timeout=120, outer=1, schedule="dynamic",
                         chunk=3)  # fmt: skip
    df = res.records
    (row,) = df.dropna(subset=["schedule"]).drop_duplicates("schedule").to_dict("records")
    assert (row["schedule"], row["chunk"]) == ("dynamic", 3)
    assert (row["omp_kind"], row["omp_chunk"]) == (2, 3)  # omp_sched_dynamic, as set
    slowest = df["slowest"].dropna()
    assert len(slowest) == 2 and slowest.nunique() == 1  # every rank gets the slowest's time


def test_timer_records_name_each_phase_and_thread(kernel):
    res = hl.run_program(kernel, ranks=1, threads=2, timeout=120, outer=1)
    timers = res.records[res.records["record"] == "timer"]
    assert sorted(timers["phase"].unique()) == ["halo", "jacobi", "other", "reduction", "total"]
    assert len(timers) == 2 * 5
    assert set(timers["tag"]) == {"self-test"}
    jacobi = timers[timers["phase"] == "jacobi"].set_index("thread")["seconds"]
    assert jacobi.to_dict() == {0: 1.0, 1: 2.0}
    assert (timers[timers["phase"] == "other"]["seconds"] >= 0).all()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"letters": "a,zz"}, r"unknown letter 'zz' \(valid: a, b, c\)"),
        ({"letters": " , "}, r"parameter letters is empty: name at least one"),
        ({"numbers": "1,x"}, r"numbers: 'x' is not a number"),
        ({"size": "four"}, r"parameter size=four is not one of one, two, three"),
        ({"schedule": "auto"}, r"schedule=auto is not one of static, dynamic, guided, runtime"),
        ({"chunk": -1}, r"parameter chunk=-1 must be at least 0"),
        (
            {"needs": "multiple"},
            r"this test calls MPI as multiple and needs MPI_THREAD_MULTIPLE, "
            r"but MPI provided only 'funneled'",
        ),
    ],
)
def test_parameter_errors_name_the_parameter(kernel, params, message):
    with pytest.raises(hl.KernelError, match=message):
        hl.run_program(kernel, ranks=1, threads=1, thread_level="funneled", timeout=60, **params)
