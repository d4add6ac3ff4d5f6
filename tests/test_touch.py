"""kernels_c/hl_touch.h, the first-touch page tracer, on real kernels: which thread touched and
which wrote each page (and its OS thread), which other OS thread wrote a page again after it was
sealed, read back with hybridlab.memory.tables.page_owners; a real segfault in a traced kernel is
still a KernelCrash."""

from __future__ import annotations

import matplotlib
import pytest

import hybridlab as hl
from hybridlab.kernels.build import build_source
from hybridlab.memory.plots import page_owner_plot
from hybridlab.memory.tables import page_owners

matplotlib.use("Agg")

SOURCE = r"""
#include "hybridlab.h"
#include "hl_touch.h"
const char *const hl_kernel_description = "an array initialised as `init` says, pages traced";
static const char *const inits[] = {"serial", "static", "read_first", "none", "null", "rewritten"};
const hl_param hl_kernel_params[] = {
    {"init", "static", "serial | static | read_first (master reads, team writes) | none | null "
                       "| rewritten (static, then the master writes every element again)"},
    {"pages", "64", "pages in the array"},
    HL_END_PARAMS};

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    (void)comm;
    int ok = 1, init = hl_param_choice(ctx, "init", inits, 6);
    long pages = hl_param_long(ctx, "pages", 1, &ok);
    if (init < 0 || !ok) return -1;
    long n = pages * sysconf(_SC_PAGESIZE) / (long)sizeof(double);
    double *a = hl_touch_alloc(ctx, (size_t)n * sizeof *a), read = 0.0;
    if (!a) return -1;
    if (init == 0)
        for (long i = 0; i < n; i++) a[i] = 1.0;
    if (init == 2)
        for (long i = 0; i < n; i++) read += a[i];
    if (init == 1 || init == 2 || init == 5) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = 1.0;
    }
    if (init == 5)
        for (long i = 0; i < n; i++) a[i] = 1.0;
    if (init == 4) {
        volatile double *nowhere = NULL;
        *nowhere = 1.0;
    }
    if (hl_touch_emit(ctx, a, "a") != 0) return -1;
    double sum = read;
    for (long i = 0; i < n; i++) sum += a[i];
    hl_emit(ctx, "\"sum\":%.1f,\"elements\":%ld", sum, n);
    hl_touch_free(a);
    return 0;
}
"""


@pytest.fixture(scope="module")
def kernel():
    built = build_source("touch_trace", SOURCE)
    assert built.warnings == ()
    return built


def run(kernel, init, threads=2, pages=64):
    return hl.run_program(kernel, ranks=1, threads=threads, init=init, pages=pages, timeout=120)


def checked_sum(res, written=True):
    row = res.records[res.records["sum"].notna()].iloc[0]
    assert row["sum"] == (row["elements"] if written else 0.0)


def test_a_serial_initialisation_gives_every_page_to_thread_0(kernel):
    res = run(kernel, "serial")
    checked_sum(res)
    owners = page_owners(res)
    assert owners["page"].tolist() == list(range(64))
    assert set(owners["writer"]) == {0} and set(owners["toucher"]) == {0}
    (summary,) = res.records[res.records["record"] == "touch_array"].to_dict("records")
    assert (summary["pages"], summary["touched"], summary["written"]) == (64, 64, 64)


def test_a_static_loop_gives_each_thread_its_half(kernel):
    res = run(kernel, "static")
    checked_sum(res)
    owners = page_owners(res, "a")
    assert owners["writer"].tolist() == [0] * 32 + [1] * 32
    assert owners["toucher"].tolist() == owners["writer"].tolist()
    assert (owners["writer_cpu"] >= 0).all()


def test_each_writer_is_named_by_its_os_thread_too(kernel):
    owners = page_owners(run(kernel, "static"))
    first, second = owners["writer_tid"][:32], owners["writer_tid"][32:]
    assert first.nunique() == 1 and second.nunique() == 1 and first[0] != second[32] > 0
    assert (owners["rewriter"] == -1).all() and (owners["rewriter_tid"] == -1).all()


def test_a_sealed_page_written_again_by_another_os_thread_names_it(kernel):
    res = run(kernel, "rewritten")
    checked_sum(res)
    owners = page_owners(res)
    assert owners["writer"].tolist() == [0] * 32 + [1] * 32
    # the master's own pages: written again by their writer, nothing recorded
    assert (owners["rewriter"][:32] == -1).all()
    # thread 1's pages other than its latest 16 (still open) were sealed: the master's write shows
    again = owners.iloc[32:48]
    assert (again["rewriter"] == 0).all()
    assert (again["rewriter_tid"] == owners["writer_tid"][0]).all()
    (summary,) = res.records[res.records["record"] == "touch_array"].to_dict("records")
    assert summary["written"] == 64


def test_a_read_does_not_place_a_page_the_first_write_does(kernel):
    res = run(kernel, "read_first")
    checked_sum(res)
    owners = page_owners(res)
    assert set(owners["toucher"]) == {0}  # the master read every page first
    assert owners["writer"].tolist() == [0] * 32 + [1] * 32


def test_untouched_pages_have_no_owner(kernel):
    res = run(kernel, "none", threads=1, pages=8)
    checked_sum(res, written=False)  # reads after emit see zeros
    owners = page_owners(res)
    assert owners["toucher"].tolist() == [-1] * 8 and owners["writer"].tolist() == [-1] * 8


def test_a_null_dereference_in_a_traced_kernel_still_crashes(kernel):
    with pytest.raises(hl.KernelCrash, match="rank 0 .*SIGSEGV") as caught:
        run(kernel, "null")
    assert caught.value.rank == 0


def test_the_tracer_works_in_the_engines_and_leaves_crashes_to_the_kit(kernel):
    with hl.Cluster(ranks=2, threads=2, timeout=120) as cluster:
        res = cluster.run(kernel, init="static", pages=16)
        again = cluster.run(kernel, init="serial", pages=16)  # the same library, loaded once
        with pytest.raises(hl.KernelCrash, match="rank"):
            cluster.run(kernel, init="null", pages=16)
    owners = page_owners(res)
    assert sorted(set(owners["rank"])) == [0, 1]
    for _rank, mine in owners.groupby("rank"):
        assert mine["writer"].tolist() == [0] * 8 + [1] * 8
    assert set(page_owners(again)["writer"]) == {0}


def test_page_owners_says_what_is_missing(kernel):
    res = run(kernel, "serial", threads=1, pages=4)
    with pytest.raises(ValueError, match="no traced array named 'b' \\(traced: a\\)"):
        page_owners(res, "b")
    plain = hl.run_program("hello_hybrid", ranks=1, threads=1, spin_ms=1)
    with pytest.raises(ValueError, match="hl_touch_alloc"):
        page_owners(plain)


def test_the_owner_map_labels_each_thread(kernel, tmp_path):
    fig = page_owner_plot(page_owners(run(kernel, "read_first")))
    ax = fig.axes[0]
    assert {t.get_text() for t in ax.texts} == {"t0", "t1"}
    assert {p.get_hatch() for p in ax.patches} >= {"//"}  # thread 1's hatch beside its colour
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["thread 0", "thread 1", "read first by another thread"]
    fig.savefig(tmp_path / "owners.png", dpi=80)
