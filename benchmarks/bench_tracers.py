#!/usr/bin/env python
"""What the two tracers cost: an MPI call traced for thread compliance (trace_mpi=True,
kernels_c/hl_mpi_trace.h) against the same call untraced, and a page initialised under the
first-touch tracer (kernels_c/hl_touch.h) against a plain fresh mapping; written to
benchmarks/tracers_results.md.

* MPI: hl_measure (EPCC's method) times MPI_Comm_rank, an 8-byte Isend/Irecv/Waitall exchange
  between two ranks and MPI_Barrier, per call, in one kernel built twice (traced and not), on 2
  ranks x 1 thread under mpiexec; the overhead is the difference of the medians. Past the trace
  buffer (32768 calls per rank) the wrapper still counts but keeps nothing, which is what most of
  the timed calls here do: the figure is the wrapper's clock, thread and CPU queries.
* Pages: the seconds to write every page of a fresh array of `pages` pages once, traced (two
  faults and an mprotect per page) and untraced (the kernel's own first-touch fault), per page,
  the median over `--repeats` runs.

Load before and after is recorded beside the figures. Nothing is asserted.

    python benchmarks/bench_tracers.py [--repeats 3] [--quick] [--out benchmarks/tracers_results.md]
"""

from __future__ import annotations

import sys

import hybridlab as hl
from _common import Progress, summary, table
from _runner import Bench
from hybridlab.kernels.build import build_source

say = Progress("bench_tracers")

CALLS = r"""
#include "hybridlab.h"
const char *const hl_kernel_description = "per-call time of a few MPI calls (hl_measure)";
const hl_param hl_kernel_params[] = {{"outer", "20", "samples"}, HL_END_PARAMS};
typedef struct { MPI_Comm comm; int rank, peer; long out, in; } state;
static void rank_calls(void *arg, long inner) {
    state *s = arg;
    for (long i = 0; i < inner; i++) MPI_Comm_rank(s->comm, &s->rank);
}
static void exchange(void *arg, long inner) {
    state *s = arg;
    MPI_Request r[2];
    for (long i = 0; i < inner; i++) {
        MPI_Isend(&s->out, 1, MPI_LONG, s->peer, 0, s->comm, &r[0]);
        MPI_Irecv(&s->in, 1, MPI_LONG, s->peer, 0, s->comm, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}
static void barrier(void *arg, long inner) {
    state *s = arg;
    for (long i = 0; i < inner; i++) MPI_Barrier(s->comm);
}
int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    hl_method m = hl_method_default(ctx);
    m.outer = (int)hl_param_long(ctx, "outer", 1, &ok);
    if (!ok) return -1;
    state s = {.comm = comm, .peer = ctx->rank ^ 1, .out = ctx->rank};
    const char *names[] = {"MPI_Comm_rank", "exchange (Isend+Irecv+Waitall)", "MPI_Barrier"};
    hl_work_fn works[] = {rank_calls, exchange, barrier};
    for (int w = 0; w < 3; w++) {
        hl_result r;
        if (hl_measure(ctx, names[w], works[w], NULL, &s, &m, &r) != 0) return -1;
        for (int i = 0; i < r.outer; i++)
            hl_emit(ctx, "\"work\":\"%s\",\"sample\":%d,\"seconds\":%.9g", names[w], i, r.test[i]);
        hl_result_free(&r);
    }
    return 0;
}
"""

PAGES = r"""
#include "hybridlab.h"
#include "hl_touch.h"
#include <sys/mman.h>
const char *const hl_kernel_description = "seconds to write each page of a fresh array once";
const hl_param hl_kernel_params[] = {{"pages", "4096", "pages"}, {"traced", "1", "0 | 1"},
                                     HL_END_PARAMS};
int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    (void)comm;
    int ok = 1;
    long pages = hl_param_long(ctx, "pages", 1, &ok), traced = hl_param_long(ctx, "traced", 0, &ok);
    if (!ok) return -1;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (size_t)pages * page;
    char *a = traced ? hl_touch_alloc(ctx, bytes)
                     : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!a || a == MAP_FAILED) return hl_fail(ctx, "no memory");
    double t0 = hl_now();
    for (long p = 0; p < pages; p++) a[(size_t)p * page] = 1;
    double seconds = hl_now() - t0;
    if (traced) hl_touch_emit(ctx, a, "a"); else munmap(a, bytes);
    hl_emit(ctx, "\"per_page\":%.9g", seconds / (double)pages);
    return 0;
}
"""


def call_rows(outer: int, repeats: int) -> list[list[object]]:
    kernels = {t: build_source("bench_calls", CALLS, trace_mpi=t) for t in (False, True)}
    samples: dict[tuple[str, bool], list[float]] = {}
    for _ in range(repeats):
        for traced, kernel in kernels.items():
            res = hl.run_program(kernel, ranks=2, threads=1, bind="cores", outer=outer)
            rows = res.records.dropna(subset=["work"])
            for work, group in rows.groupby("work", sort=False):
                samples.setdefault((work, traced), []).extend(group["seconds"].tolist())
    rows = []
    for work in dict.fromkeys(w for w, _ in samples):
        plain, traced = (summary(samples[(work, t)])["median"] for t in (False, True))
        rows.append([work, f"{plain * 1e6:.3f}", f"{traced * 1e6:.3f}",
                     f"{(traced - plain) * 1e9:.0f}", len(samples[(work, True)])])  # fmt: skip
        say(f"{work}: {plain * 1e6:.3f} us plain, {traced * 1e6:.3f} us traced")
    return rows


def page_rows(pages: int, repeats: int) -> list[list[object]]:
    kernel = build_source("bench_pages", PAGES)
    per_page = {t: [] for t in (0, 1)}
    for _ in range(repeats):
        for traced in (0, 1):
            res = hl.run_program(kernel, ranks=1, threads=1, pages=pages, traced=traced)
            per_page[traced] += res.records["per_page"].dropna().tolist()
    plain, traced = (summary(per_page[t])["median"] for t in (0, 1))
    say(f"pages: {plain * 1e6:.2f} us plain, {traced * 1e6:.2f} us traced per page")
    return [[pages, f"{plain * 1e6:.2f}", f"{traced * 1e6:.2f}", f"{traced / plain:.1f}", repeats]]


def main(argv: list[str] | None = None) -> int:
    bench = Bench("bench_tracers", __doc__ or "", "tracers_results.md", argv,
                  quick_help="fewer samples and pages", progress=say)  # fmt: skip
    args = bench.args
    outer, pages = (5, 1024) if args.quick else (20, 16384)
    bench.checkpoint("start")
    calls = call_rows(outer, args.repeats)
    bench.checkpoint("after the MPI calls")
    touch = page_rows(pages, args.repeats)
    bench.checkpoint("end")
    lines = ["## An MPI call traced for thread compliance (2 ranks x 1 thread, bound)", ""]
    lines += table(["call", "plain us/call (median)", "traced us/call (median)",
                    "overhead ns/call", "samples"], calls)  # fmt: skip
    lines += ["## A page written first under the first-touch tracer (1 rank x 1 thread)", ""]
    lines += table(["pages", "plain us/page", "traced us/page", "traced / plain", "runs"], touch)
    return bench.report("What the tracers cost", lines)


if __name__ == "__main__":
    sys.exit(main())
