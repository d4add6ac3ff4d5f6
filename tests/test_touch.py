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
static const char *const inits[] = {"serial", "static", "read_first", "none", "null", "rewritten",
                                    "rewritten_watched"};
const hl_param hl_kernel_params[] = {
    {"init", "static", "serial | static | read_first (master reads, team writes) | none | null "
                       "| rewritten (static, then the master writes every element again) "
                       "| rewritten_watched (the same, every write watched: hl_touch_watch)"},
    {"pages", "64", "pages in the array"},
    HL_END_PARAMS};

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    (void)comm;
    int ok = 1, init = hl_param_choice(ctx, "init", inits, 7);
    long pages = hl_param_long(ctx, "pages", 1, &ok);
    if (init < 0 || !ok) return -1;
    long n = pages * sysconf(_SC_PAGESIZE) / (long)sizeof(double);
    double *a = hl_touch_alloc(ctx, (size_t)n * sizeof *a), read = 0.0;
    if (!a) return -1;
    if (init == 0)
        for (long i = 0; i < n; i++) a[i] = 1.0;
    if (init == 2)
        for (long i = 0; i < n; i++) read += a[i];
    if (init == 6) hl_touch_watch(1);
    if (init == 1 || init == 2 || init == 5 || init == 6) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = 1.0;
    }
    if (init == 5 || init == 6)
        for (long i = 0; i < n; i++) a[i] = 1.0;
    if (init == 6) hl_touch_watch(0);
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


def test_every_watched_write_by_another_os_thread_is_seen_without_stepping(kernel):
    """Watched (hl_touch_watch), the master's writes after the team's show on every page of
    thread 1, not only its sealed ones; each write a plain store the fault handler does itself
    (no instruction stepped: the trap after a stepped instruction was most of the cost)."""
    res = run(kernel, "rewritten_watched")
    checked_sum(res)
    owners = page_owners(res)
    assert owners["writer"].tolist() == [0] * 32 + [1] * 32
    assert (owners["rewriter"][:32] == -1).all()
    assert (owners["rewriter"][32:] == 0).all()
    assert (owners["rewriter_tid"][32:] == owners["writer_tid"][0]).all()
    (summary,) = res.records[res.records["record"] == "touch_array"].to_dict("records")
    assert summary["faults"] >= 64 * 512 and summary["stepped"] == 0


STORES = r"""
#include "hybridlab.h"
#include "hl_touch.h"
#include <immintrin.h>
const char *const hl_kernel_description = "store instructions into a watched traced array";
static const char *const groups[] = {"plain", "stepped"};
const hl_param hl_kernel_params[] = {
    {"group", "plain", "plain (stores the fault handler does) | stepped (others)"},
    HL_END_PARAMS};

/* every store form hl_touch_plain_store does, into p (4 pages, page-aligned) */
__attribute__((noinline)) static void plain_stores(char *p) {
    long v = 0x1122334455667788L, idx = 5;
    __m128d x = _mm_set_pd(3.25, -1.5);
    register __m128d x0 asm("xmm0") = _mm_set_pd(-2.0, 0.125);
    register __m128d x9 asm("xmm9") = _mm_set_pd(7.0, 9.5);
    register char *r13 asm("r13") = p + 4096;
    register char *r12 asm("r12") = p + 4096;
    __asm__ volatile("movq %[v], (%[p])" :: [v] "r"(v), [p] "r"(p) : "memory");
    __asm__ volatile("movl %k[v], 8(%[p])" :: [v] "r"(v + 1), [p] "r"(p) : "memory");
    __asm__ volatile("movw %w[v], 0x100(%[p])" :: [v] "r"(v + 2), [p] "r"(p) : "memory");
    __asm__ volatile("movb %b[v], 12(%[p],%[i],8)" :: [v] "r"(v + 3), [p] "r"(p), [i] "r"(idx) : "memory");
    __asm__ volatile("movb %%ah, 3(%[p])" :: "a"(v), [p] "r"(p) : "memory");
    __asm__ volatile("movb %%sil, 5(%[p])" :: "S"(v + 7), [p] "r"(p) : "memory");
    __asm__ volatile("movq $-5, 16(%[p])" :: [p] "r"(p) : "memory");
    __asm__ volatile("movl $0x12345678, 24(%[p])" :: [p] "r"(p) : "memory");
    __asm__ volatile("movw $0x1234, 28(%[p])" :: [p] "r"(p) : "memory");
    __asm__ volatile("movb $0x7f, 30(%[p])" :: [p] "r"(p) : "memory");
    __asm__ volatile("movnti %[v], 32(%[p])" :: [v] "r"(v + 9), [p] "r"(p) : "memory");
    __asm__ volatile("movnti %k[v], 44(%[p])" :: [v] "r"(v + 10), [p] "r"(p) : "memory");
    __asm__ volatile("movsd %[x], 40(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movss %[x], 52(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movups %[x], 65(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movupd %[x], 81(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movaps %[x], 112(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movapd %[x], 128(%[p])" :: [x] "x"(x9), [p] "r"(p) : "memory");
    __asm__ volatile("movlps %[x], 144(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movhps %[x], 152(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movlpd %[x], 160(%[p])" :: [x] "x"(x9), [p] "r"(p) : "memory");
    __asm__ volatile("movhpd %[x], 168(%[p])" :: [x] "x"(x9), [p] "r"(p) : "memory");
    __asm__ volatile("movdqa %[x], 176(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movdqu %[x], 193(%[p])" :: [x] "x"(x9), [p] "r"(p) : "memory");
    __asm__ volatile("movq %[x], 216(%[p])" :: [x] "x"(x9), [p] "r"(p) : "memory");
    __asm__ volatile("movd %[x], 228(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    /* movq %xmm0, 0x78(%rdi) as 66 REX.W 0f 7e */
    __asm__ volatile(".byte 0x66, 0x48, 0x0f, 0x7e, 0x47, 0x78" :: "x"(x0), "D"(p + 0x100) : "memory");
    __asm__ volatile("movntps %[x], 240(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movntpd %[x], 256(%[p])" :: [x] "x"(x9), [p] "r"(p) : "memory");
    __asm__ volatile("movntdq %[x], 272(%[p])" :: [x] "x"(x), [p] "r"(p) : "memory");
    __asm__ volatile("movq %[v], 8(%%r13)" :: [v] "r"(v + 11), "r"(r13) : "memory");
    __asm__ volatile("movq %[v], (%%r12)" :: [v] "r"(v + 12), "r"(r12) : "memory");
    __asm__ volatile("movq %[v], (,%[i],1)" :: [v] "r"(v + 13), [i] "r"(p + 4096 + 24) : "memory");
    __asm__ volatile("movq %[v], -8(%[p],%[i],4)" :: [v] "r"(v + 14), [p] "r"(p + 8192), [i] "r"(idx) : "memory");
    __asm__ volatile("movl %k[v], 4(%%r13,%[i],8)" :: [v] "r"(v + 15), "r"(r13), [i] "r"(idx + 100) : "memory");
    __asm__ volatile("sfence" ::: "memory");
}

/* stores it leaves to one stepped instruction: read-modify-writes, one across a page's end */
__attribute__((noinline)) static void other_stores(char *p) {
    long v = 0x0102030405060708L;
    __asm__ volatile("addq $3, 8(%[p])" :: [p] "r"(p) : "memory");
    __asm__ volatile("movq %[v], 4092(%[p])" :: [v] "r"(v), [p] "r"(p) : "memory");
    __asm__ volatile("xchgq %[v], 8200(%[p])" : [v] "+r"(v) : [p] "r"(p) : "memory");
    __asm__ volatile("incl 12300(%[p])" :: [p] "r"(p) : "memory");
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    (void)comm;
    int group = hl_param_choice(ctx, "group", groups, 2);
    if (group < 0) return -1;
    size_t bytes = 4 * (size_t)sysconf(_SC_PAGESIZE);
    char *want = aligned_alloc((size_t)sysconf(_SC_PAGESIZE), bytes);
    char *a = hl_touch_alloc(ctx, bytes);
    if (!want || !a) return -1;
    memset(want, 0, bytes);
    (group ? other_stores : plain_stores)(want);
    hl_touch_watch(1);
    (group ? other_stores : plain_stores)(a);
    hl_touch_watch(0);
    if (hl_touch_emit(ctx, a, "a") != 0) return -1;
    long differ = 0;
    for (size_t i = 0; i < bytes; i++) differ += a[i] != want[i];
    hl_emit(ctx, "\"differ\":%ld", differ);
    free(want);
    hl_touch_free(a);
    return 0;
}
"""


def test_the_watch_does_plain_stores_itself_and_steps_the_others():
    """hl_touch_plain_store decodes each store form it takes (mov of a register, byte registers
    and immediates; movnti; SSE2's stores of an xmm register) with any address form and stores
    exactly what the instruction would: the bytes equal the same instructions' on plain memory,
    no instruction stepped. Read-modify-writes and a store across a page's end are stepped."""
    built = build_source("touch_stores", STORES)
    for group, stepped in (("plain", False), ("stepped", True)):
        res = hl.run_program(built, ranks=1, threads=1, group=group, timeout=120)
        assert res.records["differ"].dropna().tolist() == [0]
        (summary,) = res.records[res.records["record"] == "touch_array"].to_dict("records")
        assert (summary["stepped"] > 0) == stepped, (group, summary)
        assert summary["written"] == (3 if group == "plain" else 4)
