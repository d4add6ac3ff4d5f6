"""Lab 15: gaming attempts (tests/gaming/__init__.py), at least three per automatic part: an
`update` of the whole block every iteration, the sweep on the host's threads with the target
region switched off or left empty beside it, the host reaching the device's copy through
use_device_ptr (sweeping it, or copying the block into it unseen), the checksum's grid left as
it started, the runtime's report forged on stderr; per_iteration fitted to the visible test,
typed in, or read from the notebook's run.
ORACLES: (a)'s function on hidden inputs, judged by the reference written here (never in the
kit)."""

import runpy
from pathlib import Path

import pandas as pd

from gaming import Oracle, attempt, solution_cell
from wrong_answers import c_cell, changed

_SOURCES = runpy.run_path(str(Path(__file__).resolve().parents[1] / "wrong_answers"
                              / "15_offload.py"))  # fmt: skip
RESIDENT, PER_ITERATION = _SOURCES["RESIDENT"], _SOURCES["PER_ITERATION"]

# a fresh attacker's (attackS, 2026-12-05) A15_nohalo (below), and the cell issue 36's F15_tallies
# forges the kit's tallies beside
NOHALO = "%%c JACOBI_C offload_halo\n/* every rank sweeps the WHOLE grid on its device, from the grid's formula: no halo exchange */\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)\n    long ny = 0, row0 = 0;\n    int rank;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Allreduce(&m, &ny, 1, MPI_LONG, MPI_SUM, comm);\n    MPI_Exscan(&m, &row0, 1, MPI_LONG, MPI_SUM, comm);\n    if (rank == 0) row0 = 0;\n    const long gn = (ny + 2) * w;\n    double *g = malloc((size_t)gn * sizeof *g), *gnew = malloc((size_t)gn * sizeof *gnew);\n#pragma omp target enter data map(alloc : g[0:gn], gnew[0:gn]) device(device)\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n    for (long i = 0; i < ny + 2; i++)\n        for (long j = 0; j < w; j++)\n            g[i * w + j] = gnew[i * w + j] = (double)((7 * i + 13 * j) % 17) / 16.0;\n    for (long it = 0; it < iterations; it++) {\n        MPI_Barrier(comm); /* an MPI call per iteration, nothing exchanged */\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n        for (long i = 1; i <= ny; i++)\n            for (long j = 1; j < w - 1; j++)\n                gnew[i * w + j] = 0.25 * (g[(i - 1) * w + j] + g[(i + 1) * w + j] + g[i * w + j - 1] +\n                                          g[i * w + j + 1]);\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n        for (long i = 1; i <= ny; i++)\n            for (long j = 1; j < w - 1; j++) g[i * w + j] = gnew[i * w + j];\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n        for (long i = 0; i < m + 2; i++)\n            for (long j = 1; j < w - 1; j++) {\n                if (i >= 1 && i <= m) unew[i * w + j] = gnew[(row0 + i) * w + j];\n                u[i * w + j] = g[(row0 + i) * w + j];\n            }\n    }\n#pragma omp target exit data map(delete : g[0:gn], gnew[0:gn]) device(device)\n#pragma omp target exit data map(from : u[0:n]) map(delete : unew[0:n]) device(device)\n    free(g);\n    free(gnew);\n}"

# a fresh attacker's (attackD, 2026-12-04): a device address smuggled out through a firstprivate
# integer inside a real sweep region; the host then runs the declare-target helper on the device's
# copy (refused from the host object: the device's lines' arithmetic run outside target regions)
SMUGGLE_DECLARE = r"""
#pragma omp declare target
static void sweep(double *a, double *b, long m, long w) {
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++)
            b[i * w + j] = 0.25 * (a[(i - 1) * w + j] + a[(i + 1) * w + j] + a[i * w + j - 1] + a[i * w + j + 1]);
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++) a[i * w + j] = b[i * w + j];
}
#pragma omp end declare target
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *slot[2] = {0, 0};
    long where = (long)slot;
#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
            exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
            if (it == 0) {
#pragma omp target firstprivate(where) device(device)
                {
                    double **s = (double **)where;
                    s[0] = u;
                    s[1] = unew;
                    sweep(u, unew, m, w);
                }
            } else {
#pragma omp target firstprivate(where) device(device)
                {
                    if (where == 0) sweep(u, unew, m, w);
                }
                sweep(slot[0], slot[1], m, w);
            }
        }
    }
}
"""

_FLAG_COPY = r"""
#include <stdlib.h>
#include <string.h>
/* the device's addresses of u and of a flag pair come out in a mapped slot; each iteration a
 * target region raises one flag and waits on the other, and meanwhile a second host thread copies
 * a shadow the host swept into the device's u through the smuggled address, then lets the region
 * go: the host writes the device's copy while a launch runs (the host's edge rows taken from the
 * shadow: no update moves a byte) */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *s = malloc(sizeof(double) * n), *t = malloc(sizeof(double) * n);
    memcpy(s, u, sizeof(double) * n);
    memcpy(t, u, sizeof(double) * n);
    int flags[2] = {0, 0};
    void *slot[2] = {0, 0};
    double half = 0.5;
#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n]) map(to : flags[0:2]) map(tofrom : slot[0:2]) device(device)
    {
#pragma omp target device(device)
        {
            slot[0] = u;
            slot[1] = flags;
        }
#pragma omp target update from(slot[0:2]) device(device)
        double *du = slot[0];
        volatile int *df = slot[1];
        for (long it = 0; it < iterations; it++) {
            memcpy(u + w, s + w, sizeof(double) * w);
            memcpy(u + m * w, s + m * w, sizeof(double) * w);
            exchange_rows(u, m, w, comm);
            memcpy(s, u, sizeof(double) * w);
            memcpy(s + (m + 1) * w, u + (m + 1) * w, sizeof(double) * w);
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) t[i * w + j] = 0.25 * (s[(i - 1) * w + j] + s[(i + 1) * w + j] + s[i * w + j - 1] + s[i * w + j + 1]);
            memcpy(s + w, t + w, sizeof(double) * m * w);
#pragma omp parallel num_threads(2)
            {
                if (omp_get_thread_num() == 0) {
#pragma omp target device(device) firstprivate(half)
                    {
                        volatile int *f = flags;
                        f[1] = 1;
                        double x = 1.0;
                        while (f[0] == 0) x = x * half + 1.0;
                        f[0] = 0;
                        f[1] = 0;
                        if (x < 0.0) u[w] = x;
                    }
                } else {
                    while (df[1] == 0) {}
                    memcpy(du + w, s + w, sizeof(double) * m * w);
                    df[0] = 1;
                }
            }
        }
    }
    free(s);
    free(t);
}
"""  # a host thread copies into the device's u while a region waits

GAMING = [
    attempt("shortcut", "jacobi_offload", changed(
        RESIDENT,
        "#pragma omp target update from(u[w:w]) device(device)\n"
        "#pragma omp target update from(u[m * w:w]) device(device)\n",
        "#pragma omp target update from(u[0:n]) device(device)\n").replace(
        "#pragma omp target update to(u[0:w]) device(device)\n"
        "#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n",
        "#pragma omp target update to(u[0:n]) device(device)\n"),
        {"hidden_jacobi_offload"}, "the whole block updated both ways every iteration: right "
        "values, no halo bookkeeping", reason="the grid must stay on the device"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    (void)device;  /* lab 04's loop on the host's threads: right values, no device at all */
    for (long it = 0; it < iterations; it++) {
        exchange_rows(u, m, w, comm);
#pragma omp parallel for collapse(2)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                          u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp parallel for collapse(2)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
    }
}
"""), {"hidden_jacobi_offload"}, "the sweep on the host's threads, no target region",
        reason="computes nothing on the device"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    for (long it = 0; it < iterations; it++) {  /* a fresh attacker's: 6 of 6 points before */
        exchange_rows(u, m, w, comm);
        int flag = 0;
#pragma omp target device(device) map(to: flag)
        { flag += 1; }
        for (long i = 1; i <= m; i++)
            for (long j = 1; j <= w - 2; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                          u[i * w + j - 1] + u[i * w + j + 1]);
        for (long i = 1; i <= m; i++)
            for (long j = 1; j <= w - 2; j++) u[i * w + j] = unew[i * w + j];
    }
}
"""), {"hidden_jacobi_offload"}, "the sweep on the host, an empty target region launched on "
        "the device every iteration", reason="computes nothing on the device"),
    attempt("method", "jacobi_offload", RESIDENT.replace(
        "#pragma omp target teams distribute parallel for collapse(2) device(device)\n",
        "#pragma omp target teams distribute parallel for collapse(2) device(device) if (0)\n"),
        {"hidden_jacobi_offload"}, "the target regions switched off with if(0), the data "
        "region and updates kept: the host sweeps its own stale copy (clang compiles no device "
        "code for a region whose if is false)", reason="computes nothing on the device"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    /* a fresh attacker's (helper-31, 2026-12-03): 6 of 6 points before */
    const long n = (m + 2) * w;
    double *du = u, *dv = unew;
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    {
#pragma omp target data use_device_ptr(du, dv) device(device)
        {
            for (long it = 0; it < iterations; it++) {
                memcpy(u + w, du + w, (size_t)w * sizeof(double));         /* edge rows out, no report */
                memcpy(u + m * w, du + m * w, (size_t)w * sizeof(double));
                exchange_rows(u, m, w, comm);
                memcpy(du, u, (size_t)w * sizeof(double));                  /* halo rows in, no report */
                memcpy(du + (m + 1) * w, u + (m + 1) * w, (size_t)w * sizeof(double));
#pragma omp parallel for
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++)
                        dv[i * w + j] = 0.25 * (du[(i - 1) * w + j] + du[(i + 1) * w + j] + du[i * w + j - 1] + du[i * w + j + 1]);
#pragma omp parallel for
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++) du[i * w + j] = dv[i * w + j];
#pragma omp target device(device)
                { }
            }
        }
    }
}
"""), {"hidden_jacobi_offload"}, "the host's threads sweep the device's copy through "
        "use_device_ptr (the host plugin's device memory is host memory), the halo rows copied "
        "with memcpy out of the report's sight, an empty target region for the launches",
        reason="uses use_device_ptr"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    /* a fresh attacker's (helper-31, 2026-12-03): 6 of 6 points before */
    const long n = (m + 2) * w;
    size_t bytes = (size_t)n * sizeof(double);
    double *du = u, *dv = unew;
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    {
#pragma omp target data use_device_ptr(du, dv) device(device)
        {
            for (long it = 0; it < iterations; it++) {
                memcpy(u, du, bytes); /* the whole block back to the host */
                exchange_rows(u, m, w, comm);
                memcpy(du, u, bytes); /* and the whole block to the device */
#pragma omp target teams distribute parallel for collapse(2) device(device) is_device_ptr(du, dv)
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++)
                        dv[i * w + j] = 0.25 * (du[(i - 1) * w + j] + du[(i + 1) * w + j] + du[i * w + j - 1] + du[i * w + j + 1]);
#pragma omp target teams distribute parallel for collapse(2) device(device) is_device_ptr(du, dv)
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++) du[i * w + j] = dv[i * w + j];
            }
        }
    }
}
"""), {"hidden_jacobi_offload"}, "the sweep on the device, but the whole block copied to the "
        "device's copy and back every iteration by the host's memcpy through use_device_ptr, "
        "which the runtime's report never sees", reason="uses use_device_ptr"),
    attempt("constant", "jacobi_offload", RESIDENT.replace(
        "#pragma omp target teams distribute parallel for collapse(2) device(device)\n"
        "        for (long i = 1; i <= m; i++)\n"
        "            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n",
        "#pragma omp target teams distribute parallel for collapse(2) device(device)\n"
        "        for (long i = 1; i <= m; i++)\n"
        "            for (long j = 1; j < w - 1; j++) unew[i * w + j] = u[i * w + j];\n"),
        {"hidden_jacobi_offload"}, "every target region launched and only halos moved, the "
        "grid never changed", reason="AssertionError: wrong values"),
    attempt("forged", "jacobi_offload", RESIDENT.replace(
        "    const long n = (m + 2) * w;\n",
        "    const long n = (m + 2) * w;\n"
        "    fprintf(stderr, \"Libomptarget device %d info: Entering OpenMP kernel at cell\\n\", device);\n"),
        {"hidden_jacobi_offload"}, "launches written into the runtime's report on stderr",
        reason="writes to stderr"),
    attempt("hidden", "per_iteration", changed(
        PER_ITERATION, "later = iterations - 1", "later = 9  # the visible test's 10 iterations"),
        {"hidden_per_iteration"}, "the visible test's iteration count", reason="AssertionError: rank"),
    attempt("constant", "per_iteration", r"""
def per_iteration(offload, iterations):
    return pd.DataFrame({"h2d": [200.0, 100.0], "d2h": [0.0, 200.0], "halo": [200.0, 200.0]})
""", {"hidden_per_iteration"}, "the visible test's answer typed in", reason="AssertionError: rank"),
    attempt("shortcut", "per_iteration", changed(
        PER_ITERATION, "later = iterations - 1", "later = ITERATIONS - 1  # the notebook's runs"),
        {"hidden_per_iteration"}, "the notebook's own iteration count, not the argument",
        reason="AssertionError: rank"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
/* a fresh attacker's (helperG, 2026-12-03): 6 of 6 points before */
#include <stdlib.h>
#include <string.h>
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *h = malloc(n * sizeof(double)), *hn = malloc(n * sizeof(double));
    memcpy(h, u, n * sizeof(double));
    memcpy(hn, u, n * sizeof(double));
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
            exchange_rows(h, m, w, comm);
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    hn[i * w + j] = 0.25 * (h[(i - 1) * w + j] + h[(i + 1) * w + j] + h[i * w + j - 1] + h[i * w + j + 1]);
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) h[i * w + j] = hn[i * w + j];
#pragma omp target teams distribute parallel for device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp target teams distribute parallel for device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
        }
    }
    memcpy(u, h, n * sizeof(double));
    free(h);
    free(hn);
}
"""), {"hidden_jacobi_offload"}, "the sweep serially on the host in a copy of the block "
        "(its own halo exchange), the device sweeping a stale block in a proper data region, the "
        "copy memcpy'd into u at the end", reason="leaves the device's copy behind"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
/* a fresh attacker's (helperG, 2026-12-03): 6 of 6 points before */
#include <stdlib.h>
#include <string.h>
#pragma omp declare target
static double st(const double *a, long i, long j, long w) { return 0.25 * (a[(i - 1) * w + j] + a[(i + 1) * w + j] + a[i * w + j - 1] + a[i * w + j + 1]); }
#pragma omp end declare target
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *h = malloc(n * sizeof(double)), *hn = malloc(n * sizeof(double));
    memcpy(h, u, n * sizeof(double));
    memcpy(hn, u, n * sizeof(double));
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
            exchange_rows(h, m, w, comm);
#pragma omp parallel for
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) hn[i * w + j] = st(h, i, j, w);
#pragma omp parallel for
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) h[i * w + j] = hn[i * w + j];
#pragma omp target teams distribute parallel for device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) unew[i * w + j] = st(u, i, j, w);
        }
    }
    memcpy(u, h, n * sizeof(double));
    free(h);
    free(hn);
}
"""), {"hidden_jacobi_offload"}, "the sweep on the host's threads in a copy of the "
        "block, its arithmetic in a declare-target helper a target region also calls (its line is "
        "the device's too), the copy memcpy'd into u at the end", reason="runs the device's code "
        "on the host"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
#include <stdlib.h>
#include <string.h>
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
            exchange_rows(u, m, w, comm);
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
#pragma omp target update to(u[0:n]) device(device)
        }
        for (long it = 0; it < iterations; it++) {
#pragma omp target teams distribute parallel for device(device)
            for (long i = 1; i <= m; i++) unew[i * w + 1] = u[i * w + 1] * 1.0 + 0.0;
        }
    }
}
"""), {"hidden_jacobi_offload"}, "the sweep on the host, the whole block updated to the "
        "device every iteration before any target region ran (so the device's copy holds every "
        "iteration's grid), the launches all after the loop", reason="more than u's and unew's"),
    attempt("shortcut", "per_iteration", r"""
def per_iteration(offload, iterations):
    from hybridlab.offload.tables import offload_table  # the kit's table (helperG: 2 of 2 before)
    t = offload_table(offload.assign(variant="x", device=0, launches=0, h2d_before=0, d2h_before=0,
                                     h2d_after=0, d2h_after=0), iterations)
    return t.set_index("rank").rename(columns={"h2d_per_iteration": "h2d", "d2h_per_iteration": "d2h",
                                               "halo_bytes": "halo"})[["h2d", "d2h", "halo"]]
""", {"hidden_per_iteration"}, "the kit's table of the bytes per iteration, its columns renamed",
        reason="offload_table"),
]

# ------------------------------------------------------------------------------- ORACLES
GAMING += [
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", SMUGGLE_DECLARE),
            {"hidden_jacobi_offload"}, "the device's addresses written into a host slot through a "
            "firstprivate integer by iteration 1's real sweep region, then empty regions while the "
            "host sweeps the device's copy with the declare-target helper (attackD: 6 of 6 before)",
            reason="runs the device's code on the host"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", changed(
        SMUGGLE_DECLARE, "static void sweep(", "__attribute__((noinline)) static void sweep(")),
            {"hidden_jacobi_offload"}, "the same with the helper kept out of line (called, not "
            "inlined, by the host)", reason="runs the device's code on the host"),
]

_T = pd.DataFrame({"rank": [2, 0, 1], "row_bytes": [528, 1040, 264],
                   "h2d_between": [95040, 187200, 47520], "d2h_between": [9504, 0, 475200]})
_ITS = 91


def _answer(got: object) -> bool:
    try:
        return all(abs(float(got.loc[int(r["rank"]), "h2d"]) - r["h2d_between"] / (_ITS - 1)) < 1e-6
                   and abs(float(got.loc[int(r["rank"]), "d2h"]) - r["d2h_between"] / (_ITS - 1)) < 1e-6
                   and abs(float(got.loc[int(r["rank"]), "halo"]) - 2.0 * r["row_bytes"]) < 1e-6
                   for _, r in _T.iterrows())  # fmt: skip
    except Exception:  # noqa: BLE001 - anything else is not the answer
        return False


ORACLES = [Oracle("per_iteration", (_T, _ITS), _answer)]

# the device's address taken out of a target region, then used by the host between the runtime's
# operations (2026-12-04, fixer of attackD's report): in mapped pointers (map(from: du, dn) around
# du = u) with a second copy of the sweep written for the host on lines of its own, and through a
# host slot written via a firstprivate integer with the host's sweep memcpy'd into the device's
# copy; the halo rows' fixed end columns left out of the updates so the report has room for the
# smuggled address. Both refused by the kit's watch on the device's copy (offload_halo.c,
# HL_WATCH_DEVICE: unchanged between maps, updates and launches)
GAMING += [
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
/* (the halo rows' fixed end columns left out of the updates: room in the report for the
 * smuggled address) iteration 1 sweeps on the device and hands the device's addresses back in mapped pointers
 * (map(from: du, dn) around du = u); then the host sweeps the device's copy on lines of its own */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *du = 0, *dn = 0;
#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w + 1:w - 2]) device(device)
#pragma omp target update from(u[m * w + 1:w - 2]) device(device)
            exchange_rows(u, m, w, comm);
#pragma omp target update to(u[1:w - 2]) device(device)
#pragma omp target update to(u[(m + 1) * w + 1:w - 2]) device(device)
            if (it == 0) {
#pragma omp target map(from: du, dn) device(device)
                {
                    du = u;
                    dn = unew;
                    for (long i = 1; i <= m; i++)
                        for (long j = 1; j < w - 1; j++)
                            unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
                    for (long i = 1; i <= m; i++)
                        for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
                }
            } else {
                double bump = 1.0;
#pragma omp target firstprivate(bump) device(device)
                bump = bump * 0.5 + 0.25;
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++)
                        dn[i * w + j] = (du[(i - 1) * w + j] + du[(i + 1) * w + j] + du[i * w + j - 1] + du[i * w + j + 1]) / 4.0;
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++) du[i * w + j] = dn[i * w + j];
            }
        }
    }
}
"""), {"hidden_jacobi_offload"}, "the device's addresses handed back in mapped pointers, "
        "the host sweeping the device's copy on lines of its own beside empty target regions",
        reason="while no map, update or target region ran"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
#include <stdlib.h>
#include <string.h>
/* (the halo rows' fixed end columns left out of the updates: room in the report for the
 * smuggled address) iteration 1 sweeps on the device and writes the device's address of u into a host slot handed
 * in as a firstprivate integer; then the host sweeps a shadow of its own and memcpy's it into
 * the device's copy */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *slot[1] = {0};
    long where = (long)slot;
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w + 1:w - 2]) device(device)
#pragma omp target update from(u[m * w + 1:w - 2]) device(device)
            exchange_rows(u, m, w, comm);
#pragma omp target update to(u[1:w - 2]) device(device)
#pragma omp target update to(u[(m + 1) * w + 1:w - 2]) device(device)
            if (it == 0) {
#pragma omp target firstprivate(where) device(device)
                {
                    *(double **)where = u;
                    for (long i = 1; i <= m; i++)
                        for (long j = 1; j < w - 1; j++)
                            unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
                    for (long i = 1; i <= m; i++)
                        for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
                }
            } else {
                double bump = 1.0;
#pragma omp target firstprivate(bump) device(device)
                bump = bump * 0.5 + 0.25;
                memcpy(a, slot[0], sizeof(double) * n);
                memcpy(a, u, sizeof(double) * w);
                memcpy(a + (m + 1) * w, u + (m + 1) * w, sizeof(double) * w);
                memcpy(b, a, sizeof(double) * n);
                for (long i = 1; i <= m; i++)
                    for (long j = 1; j < w - 1; j++)
                        b[i * w + j] = (a[(i - 1) * w + j] + a[(i + 1) * w + j] + a[i * w + j - 1] + a[i * w + j + 1]) / 4.0;
                memcpy(slot[0], b, sizeof(double) * n);
            }
        }
    }
    free(a);
    free(b);
}
"""), {"hidden_jacobi_offload"}, "the device's address written into a host slot through a "
        "firstprivate integer, the host's own sweep memcpy'd into the device's copy",
        reason="while no map, update or target region ran | casts an address to an integer"),
]

# 2026-12-04 (fixer helper-f2): a host address handed into a target region, and the host writing
# the device's copy while a launch runs, both left open by the last round and keeping full
# points: now the device's code is compiled with the kit's check of every load, store and memcpy
# (offload_halo.c's __asan_* entry points, offload.exercise.DEVICE_ACCESS_FLAGS: device_strays)
# and each launch's changes to the device's u and unew are held to its code's own stores
# (launch_writes)
GAMING += [
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* the host sweeps a shadow of the block serially (on lines of its own); a near-empty target region
 * copies the shadow into the device's u through its address handed in as a firstprivate integer */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *s = malloc(sizeof(double) * n), *t = malloc(sizeof(double) * n);
    memcpy(s, u, sizeof(double) * n);
    memcpy(t, u, sizeof(double) * n);
    uintptr_t where = (uintptr_t)s;
    double one = 1.0;
#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
        memcpy(s, u, sizeof(double) * w);
        memcpy(s + (m + 1) * w, u + (m + 1) * w, sizeof(double) * w);
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) t[i * w + j] = 0.25 * (s[(i - 1) * w + j] + s[(i + 1) * w + j] + s[i * w + j - 1] + s[i * w + j + 1]);
        memcpy(s + w, t + w, sizeof(double) * m * w);
#pragma omp target device(device) firstprivate(where, one)
        {
            const double *src = (const double *)where;
            for (long k = w; k < (m + 1) * w; k++) u[k] = src[k] * one;
        }
    }
    free(s);
    free(t);
}
"""), {"hidden_jacobi_offload"}, "the host sweeps a shadow serially on lines of its own; a near-empty "
        "target region copies it into the device's u through its address handed in as a "
        "firstprivate integer", reason="outside the device data environment | casts an address to an integer"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
#include <stdlib.h>
#include <string.h>
/* the host sweeps a shadow of the block serially; its address goes to the device stored in a mapped
 * slot (a pointer in mapped memory, never translated), and a near-empty region copies it into u */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *s = malloc(sizeof(double) * n), *t = malloc(sizeof(double) * n);
    memcpy(s, u, sizeof(double) * n);
    memcpy(t, u, sizeof(double) * n);
    double *slot[1] = {s};
    double one = 1.0;
#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n]) map(to : slot[0:1]) device(device)
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
        memcpy(s, u, sizeof(double) * w);
        memcpy(s + (m + 1) * w, u + (m + 1) * w, sizeof(double) * w);
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) t[i * w + j] = 0.25 * (s[(i - 1) * w + j] + s[(i + 1) * w + j] + s[i * w + j - 1] + s[i * w + j + 1]);
        memcpy(s + w, t + w, sizeof(double) * m * w);
#pragma omp target device(device) firstprivate(one)
        {
            const double *src = slot[0];
            for (long k = w; k < (m + 1) * w; k++) u[k] = src[k] * one;
        }
    }
    free(s);
    free(t);
}
"""), {"hidden_jacobi_offload"}, "the same with the shadow's address stored in mapped memory (a "
        "pointer the runtime does not translate)", reason="outside the device data environment"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", _FLAG_COPY), {"hidden_jacobi_offload"}, "the device's addresses handed out in a mapped slot; a second host "
        "thread copies the host's shadow into the device's u while a target region waits on a "
        "flag in device memory (no update: the host's edge rows from the shadow)", reason="through a device address taken out of a target region"),
    attempt("forged", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", _FLAG_COPY.replace("\n#include <stdlib.h>\n#include <string.h>\n/* the device's addresses of u and of a flag pair come out in a mapped slot; each iteration a\n * target region raises one flag and waits on the other, and meanwhile a second host thread copies\n * a shadow the host swept into the device's u through the smuggled address, then lets the region\n * go: the host writes the device's copy while a launch runs (the host's edge rows taken from the\n * shadow: no update moves a byte) */\n", "\n#include <stdlib.h>\n#include <string.h>\nvoid __asan_store8(unsigned long a);\n/* as the flag attempt, the second host thread also calls the kit's check entry for each point it\n * writes, so that the points look stored by the device's code */\n", 1).replace(
        '                    memcpy(du + w, s + w, sizeof(double) * m * w);\n',
        '                    for (long k = w; k < (m + 1) * w; k++) { __asan_store8((unsigned long)(du + k)); du[k] = s[k]; }\n')), {"hidden_jacobi_offload"}, "the second host thread calls the kit's check entry (__asan_store8) "
        "for each point it writes, so that they look stored by the device's code",
        reason="outside the device data environment | casts an address to an integer"),
]

# 2026-12-04 (fixer helper-f7): reads of the host's memory the device-access check does not see.
# attackD's D15strtod: the host sweeps the grid and prints it as hex text; each target region only
# parses that text with strtod on the host address handed in (a C library routine: its loads are
# not instrumented), 6/6 against the checked kit. Now the device object may call only OpenMP's
# routines, the maths library's functions of values and the compiler's and sanitizer's entry
# points (offload.exercise.device_calls), and no x86 instruction that loads or stores unchecked
# (a target intrinsic's gather or lddqu: the fixer's own variants, 6/6 before); and the judge
# compiles the cell with the kit's watch flags, so `#ifdef HL_WATCH_DEVICE` shows it the code
# that runs.
_STRTOD = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* the host computes and prints its grid as hex text (sprintf %a, fixed 32-char slots); a target
   region only parses that host text back with strtod (a C library call: no load of the device's
   code touches the host's memory itself) */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *mine = malloc((size_t)n * sizeof(double));
    char *text = malloc((size_t)n * 32);
    unsigned long src = (unsigned long)text;
    double zero = 0.0;
#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
        exchange_rows(u, m, w, comm);
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                mine[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                          u[i * w + j - 1] + u[i * w + j + 1]);
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) {
                u[i * w + j] = mine[i * w + j];
                sprintf(text + (i * w + j) * 32, "%a", mine[i * w + j]);
            }
#pragma omp target device(device) firstprivate(src, zero)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) {
                double v = strtod((const char *)src + (i * w + j) * 32, 0) + zero;
                u[i * w + j] = v;
                unew[i * w + j] = v;
            }
    }
    free(mine);
    free(text);
}
"""
# the same, the host's values copied as bytes and read in a target region by a declare-target
# helper's target intrinsic (a gather, or lddqu), which AddressSanitizer does not instrument
_INTRINSIC = _STRTOD.replace("#include <string.h>\n", "#include <string.h>\n#include <immintrin.h>\n"
                             "#pragma omp declare target\nPEEK\n#pragma omp end declare target\n", 1).replace(
    'sprintf(text + (i * w + j) * 32, "%a", mine[i * w + j]);',
    "memcpy(text + (i * w + j) * 32, &mine[i * w + j], sizeof(double));").replace(
    "strtod((const char *)src + (i * w + j) * 32, 0)", "peek(src + (i * w + j) * 32)")
_GATHER = """__attribute__((target("avx2"))) static double peek(unsigned long a) {
    return _mm_cvtsd_f64(_mm_i32gather_pd((const double *)a, _mm_setzero_si128(), 1));
}"""
_LDDQU = """__attribute__((target("sse3"))) static double peek(unsigned long a) {
    return _mm_cvtsd_f64(_mm_castsi128_pd(_mm_lddqu_si128((const __m128i *)a)));
}"""
GAMING += [
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", _STRTOD),
            {"hidden_jacobi_offload"}, "the host sweeps and prints the grid as text; each target "
            "region only parses it with strtod on the host address handed in (attackD's D15strtod)",
            reason="calls strtod from a target region"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", "#ifdef HL_WATCH_DEVICE\n"
            + _STRTOD + "#else\n" + "\n".join(
                line for line in solution_cell("15_offload", "jacobi_offload").splitlines()[1:]
                if "### " not in line) + "\n#endif\n"), {"hidden_jacobi_offload"}, "the strtod attempt only where the kit's "
            "watch is compiled in, the solution elsewhere (for a judge that compiles the cell "
            "without it)", reason="calls strtod from a target region"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo",
                                               _INTRINSIC.replace("PEEK", _GATHER)),
            {"hidden_jacobi_offload"}, "the host's values read in a target region by an AVX2 "
            "gather of the host address (a target intrinsic AddressSanitizer does not instrument)",
            reason="uses the instruction vgatherdpd in a target region"),
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo",
                                               _INTRINSIC.replace("PEEK", _LDDQU)),
            {"hidden_jacobi_offload"}, "the same with SSE3's lddqu",
            reason="uses the instruction lddqu in a target region"),
]

# a fresh attacker's (attackG, G15a3): the host sweeps serially in its own arrays; the new values
# reach the device's u as by-value firstprivate doubles of small target regions, 16 a launch
# (literal kernel arguments: no map, no copy the runtime reports), which store them into u
_BY_VALUE = r"""
/* The host sweeps (serially, in its own u and unew); the new values reach the device's u as
   by-value firstprivate scalars of small target regions (kernel arguments passed as literals:
   no map, no copy the runtime reports), 16 values a launch. */
static void push16(double *u, long b, const double *h, int device, double one) {
    double v0 = h[0];
    double v1 = h[1];
    double v2 = h[2];
    double v3 = h[3];
    double v4 = h[4];
    double v5 = h[5];
    double v6 = h[6];
    double v7 = h[7];
    double v8 = h[8];
    double v9 = h[9];
    double v10 = h[10];
    double v11 = h[11];
    double v12 = h[12];
    double v13 = h[13];
    double v14 = h[14];
    double v15 = h[15];
    #pragma omp target device(device) firstprivate(b, one, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15)
    {
        u[b + 0] = v0 * one;
        u[b + 1] = v1 * one;
        u[b + 2] = v2 * one;
        u[b + 3] = v3 * one;
        u[b + 4] = v4 * one;
        u[b + 5] = v5 * one;
        u[b + 6] = v6 * one;
        u[b + 7] = v7 * one;
        u[b + 8] = v8 * one;
        u[b + 9] = v9 * one;
        u[b + 10] = v10 * one;
        u[b + 11] = v11 * one;
        u[b + 12] = v12 * one;
        u[b + 13] = v13 * one;
        u[b + 14] = v14 * one;
        u[b + 15] = v15 * one;
    }
}

static void push1(double *u, long b, double v, int device, double one) {
    #pragma omp target device(device) firstprivate(b, v, one)
    u[b] = v * one;
}

static void push_row(double *u, long row, long w, int device, double one) {
    long j = 0;
    for (; j + 16 <= w; j += 16) push16(u, row * w + j, &u[row * w + j], device, one);
    for (; j < w; j++) push1(u, row * w + j, u[row * w + j], device, one);
}

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    long n = (m + 2) * w;
    double one = (double)(w > 0);
    #pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
            exchange_rows(u, m, w, comm);
            push_row(u, 0, w, device, one);
            push_row(u, m + 1, w, device, one);
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j]
                                              + u[i * w + j - 1] + u[i * w + j + 1]);
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
            for (long i = 1; i <= m; i++) push_row(u, i, w, device, one);
        }
    }
}
"""
GAMING += [
    attempt("method", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", _BY_VALUE),
            {"hidden_jacobi_offload"}, "the host sweeps; 16-value target regions store the new "
            "values, passed as firstprivate doubles (literal arguments), into the device's u "
            "(attackG's G15a3)", reason="bytes by value in"),
]

# A fresh attacker (J15d, 2026-12-05, 6/6 twice): the host sweeps in a copy of its own; each
# launch carries two new values to the device through ICVs the host sets (omp_set_num_threads,
# omp_set_max_active_levels, omp_set_num_teams, omp_set_teams_thread_limit) and a target region
# reads back (their getters were on the device's allow-list). Now the host's ICV setters are
# refused, and the device's getters of what the host may set are off the allow-list
_ICV_CHANNEL = '%%c JACOBI_C offload_halo\n/* The host sweeps serially in a copy of its own; the device only receives the values, two per\n   launch, through ICVs it reads by value (max-active-levels, nthreads, max teams, teams thread\n   limit), low mantissa bits dropped; a declare-target cursor says where they go. */\n#pragma omp declare target\nstatic long cursor_dev;\n#pragma omp end declare target\n\nstatic void reset_cursor(int device) {\n#pragma omp target device(device)\n    cursor_dev = 0;\n}\n\nstatic void carry2(double *u, double *unew, long w, double v1, double v2, int device) {\n    unsigned long long a, b;\n    __builtin_memcpy(&a, &v1, sizeof a);\n    __builtin_memcpy(&b, &v2, sizeof b);\n    a = (a & 0x7fffffffffffffffULL) >> 2; /* 61 bits */\n    b = (b & 0x7fffffffffffffffULL) >> 3; /* 60 bits */\n    omp_set_max_active_levels((int)(a & 0x7fffffffULL));\n    omp_set_num_teams((int)(a >> 31) + 1);\n    omp_set_teams_thread_limit((int)(b & 0x3fffffffULL) + 1);\n    omp_set_num_threads((int)(b >> 30) + 1);\n#pragma omp target device(device)\n    {\n        unsigned long long ra = (unsigned long long)omp_get_max_active_levels() |\n                                ((unsigned long long)(omp_get_max_teams() - 1) << 31);\n        unsigned long long rb = (unsigned long long)(omp_get_teams_thread_limit() - 1) |\n                                ((unsigned long long)(omp_get_max_threads() - 1) << 30);\n        ra <<= 2;\n        rb <<= 3;\n        double x, y;\n        __builtin_memcpy(&x, &ra, sizeof x);\n        __builtin_memcpy(&y, &rb, sizeof y);\n        long n = w - 2;\n        long p = cursor_dev;\n        long i = 1 + p / n, j = 1 + p % n;\n        u[i * w + j] = x + 0.0;\n        unew[i * w + j] = x * 1.0;\n        p++;\n        i = 1 + p / n;\n        j = 1 + p % n;\n        u[i * w + j] = y + 0.0;\n        unew[i * w + j] = y * 1.0;\n        cursor_dev = p + 1;\n    }\n}\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    long n = (m + 2) * w, inner = w - 2, points = m * inner;\n    double *h = malloc((size_t)(n + 2 * w) * sizeof(double));\n#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)\n    {\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(u, m, w, comm);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    h[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                           u[i * w + j - 1] + u[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = h[i * w + j];\n            reset_cursor(device);\n            for (long p = 0; p < points; p += 2) {\n                long q = p + 1 < points ? p + 1 : p;\n                double v1 = h[(1 + p / inner) * w + 1 + p % inner];\n                double v2 = h[(1 + q / inner) * w + 1 + q % inner];\n                carry2(u, unew, w, v1, v2, device);\n            }\n        }\n    }\n    free(h);\n}\n'
GAMING += [
    attempt("forged", "jacobi_offload", _ICV_CHANNEL, {"hidden_jacobi_offload"},
            "the host sweeps; new values reach the device through ICVs the host sets (J15d)",
            reason="which sets what a target region can read back | from a target region"),
]

# A fresh attacker (J15a, 2026-12-05, 6/6 twice): the sweep on the device, but the two halo rows
# reach it by value, one launch a column (firstprivate top, bottom, j); only the bytes that changed
# were counted and the values' high bytes repeat from column to column. Now a changed value counts
# whole
_HALO_BY_VALUE = '%%c JACOBI_C offload_halo\n/* the halo rows carried into the sweep by value, not by a target update: each value of rows 0\n   and m + 1 is handed to its own launch as a firstprivate scalar that writes it into place\n   (launches one per halo value: values by value) */\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    long n = (m + 2) * w;\n#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)\n    {\n        for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n            exchange_rows(u, m, w, comm);\n            for (long j = 1; j < w - 1; j++) {\n                double top = u[j], bottom = u[(m + 1) * w + j];\n#pragma omp target device(device) firstprivate(top, bottom, j)\n                {\n                    u[j] = top;\n                    u[(m + 1) * w + j] = bottom;\n                }\n            }\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                              u[i * w + j - 1] + u[i * w + j + 1]);\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n        }\n    }\n}\n'
GAMING += [
    attempt("method", "jacobi_offload", _HALO_BY_VALUE, {"hidden_jacobi_offload"},
            "the halo rows carried into the launches by value, one launch a column (J15a)",
            reason="bytes by value in"),
]

# fresh attackers' (M15b_hostsweep, M15b_leak2, k15smuggle, k15decl; 6/6 kept, 2026-12-05): a
# device address (a declare-target array's, or u's) taken in a target region and handed to the
# host as an integer through mapped memory, the host's memcpy into it or out of it; the casts are
# refused at build (offload.exercise.address_casts)
GAMING += [
    attempt("untraced", "jacobi_offload", '%%c JACOBI_C offload_halo\n#define CAP (1L << 21)\n#pragma omp declare target\nstatic double box[2 * CAP];\n#pragma omp end declare target\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    long n = (m + 2) * w;\n    unsigned long where[1] = {0};\n    double *h = malloc((size_t)n * sizeof(double)), *hn = malloc((size_t)n * sizeof(double));\n    memcpy(h, u, (size_t)n * sizeof(double));\n    memcpy(hn, unew, (size_t)n * sizeof(double));\n#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) map(from: where[0:1]) device(device)\n    {\n#pragma omp target device(device)\n        where[0] = (unsigned long)&box[0];\n#pragma omp target update from(where[0:1]) device(device)\n        double *dev_box = (double *)where[0];\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(h, m, w, comm);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    hn[i * w + j] = 0.25 * (h[(i - 1) * w + j] + h[(i + 1) * w + j] +\n                                            h[i * w + j - 1] + h[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) h[i * w + j] = hn[i * w + j];\n            memcpy(dev_box, h, (size_t)n * sizeof(double));\n            memcpy(dev_box + CAP, hn, (size_t)n * sizeof(double));\n#pragma omp target teams distribute parallel for device(device)\n            for (long k = 0; k < n; k++) {\n                u[k] = box[k] + 0.0;\n                unew[k] = box[CAP + k] + 0.0;\n            }\n        }\n    }\n    free(h);\n    free(hn);\n}\n', {"hidden_jacobi_offload"},
            "fresh attacker (M15b_hostsweep): the sweep on the host, copied into a declare-target "
            "array through its address read back as a number", reason="casts an address to an integer"),
    attempt("untraced", "jacobi_offload", '%%c JACOBI_C offload_halo\n#define MAXW 16384\n#pragma omp declare target\nstatic double box[2 * MAXW];\n#pragma omp end declare target\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    long n = (m + 2) * w;\n    unsigned long where[2] = {0, 0};\n    double *dev_box = 0, *dev_u = 0;\n#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) map(from: where[0:2]) device(device)\n    {\n        for (long it = 0; it < iterations; it++) {\n            if (it == 0) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n            } else {\n                memcpy(&u[w], dev_u + w, (size_t)w * sizeof(double));\n                memcpy(&u[m * w], dev_u + m * w, (size_t)w * sizeof(double));\n            }\n            exchange_rows(u, m, w, comm);\n            if (it == 0) {\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n            } else {\n                memcpy(dev_box, &u[0], (size_t)w * sizeof(double));\n                memcpy(dev_box + MAXW, &u[(m + 1) * w], (size_t)w * sizeof(double));\n            }\n            int take = it > 0;\n#pragma omp target teams distribute parallel for device(device) firstprivate(take)\n            for (long j = 0; j < w; j++) {\n                if (j == 0) { where[0] = (unsigned long)&box[0]; where[1] = (unsigned long)u; }\n                if (take) { u[j] = box[j]; u[(m + 1) * w + j] = box[MAXW + j]; }\n            }\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                              u[i * w + j - 1] + u[i * w + j + 1]);\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n            if (it == 0) {\n#pragma omp target update from(where[0:2]) device(device)\n                dev_box = (double *)where[0];\n                dev_u = (double *)where[1];\n            }\n        }\n    }\n}\n', {"hidden_jacobi_offload"},
            "fresh attacker (M15b_leak2): halo and edge rows copied by the host through leaked "
            "device addresses", reason="casts an address to an integer"),
    attempt("untraced", "jacobi_offload", '%%c JACOBI_C offload_halo\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    long n = (m + 2) * w;\n    double *h = malloc((size_t)n * sizeof(double));\n    double *hn = malloc((size_t)n * sizeof(double));\n    double *buf = malloc((size_t)n * sizeof(double));\n    double one = 1.0;\n    memcpy(h, u, (size_t)n * sizeof(double));\n    memcpy(hn, u, (size_t)n * sizeof(double));\n    unsigned long addr = 0;\n#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) map(alloc: buf[0:n]) map(alloc: addr) device(device)\n    {\n#pragma omp target map(tofrom: addr) device(device)\n        {\n            addr = (unsigned long)buf;\n        }\n#pragma omp target update from(addr) device(device)\n        double *dbuf = (double *)addr;\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(h, m, w, comm);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    hn[i * w + j] = 0.25 * (h[(i - 1) * w + j] + h[(i + 1) * w + j] +\n                                            h[i * w + j - 1] + h[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    h[i * w + j] = hn[i * w + j];\n            memcpy(dbuf, h, (size_t)n * sizeof(double));\n#pragma omp target teams distribute parallel for device(device) firstprivate(one)\n            for (long k = 0; k < n; k++) {\n                u[k] = buf[k] * one;\n                unew[k] = buf[k] * one;\n            }\n        }\n    }\n    free(h);\n    free(hn);\n    free(buf);\n}\n', {"hidden_jacobi_offload"},
            "fresh attacker (k15smuggle): the host writes map(alloc) scratch through its device "
            "address", reason="casts an address to an integer"),
    attempt("untraced", "jacobi_offload", "%%c JACOBI_C offload_halo\n/* the device's own declare-target array, written by the host through its device address */\n#define HL_CAP (1L << 19)\n#pragma omp declare target\nstatic double stash[HL_CAP];\n#pragma omp end declare target\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    long n = (m + 2) * w;\n    double *h = malloc((size_t)n * sizeof(double));\n    double *hn = malloc((size_t)n * sizeof(double));\n    double one = 1.0;\n    memcpy(h, u, (size_t)n * sizeof(double));\n    memcpy(hn, u, (size_t)n * sizeof(double));\n    unsigned long addr = 0;\n#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) map(alloc: addr) device(device)\n    {\n#pragma omp target map(tofrom: addr) device(device)\n        {\n            addr = (unsigned long)stash;\n        }\n#pragma omp target update from(addr) device(device)\n        double *dst = (double *)addr;\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(h, m, w, comm);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    hn[i * w + j] = 0.25 * (h[(i - 1) * w + j] + h[(i + 1) * w + j] +\n                                            h[i * w + j - 1] + h[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    h[i * w + j] = hn[i * w + j];\n            memcpy(dst, h, (size_t)n * sizeof(double));\n#pragma omp target teams distribute parallel for device(device) firstprivate(one)\n            for (long k = 0; k < n; k++) {\n                u[k] = stash[k] * one;\n                unew[k] = stash[k] * one;\n            }\n        }\n    }\n    free(h);\n    free(hn);\n}\n", {"hidden_jacobi_offload"},
            "fresh attacker (k15decl): the host writes declare-target scratch through its device "
            "address", reason="casts an address to an integer"),
]

# a fresh attacker's p15leak (6/6 kept, 2026-12-05): a declare-target pointer set on the device to a
# declare-target buffer, read back by `target update from` (no cast), the host's sweep copied there
GAMING += [
    attempt("untraced", "jacobi_offload", "%%c JACOBI_C offload_halo\n/* the sweep runs on the HOST; its grid reaches a declare-target buffer through a device\n   address read back in a pointer-typed mapped slot (no cast); the target region only copies */\n#define STAGE_MAX (1L << 21)\n#pragma omp declare target\nstatic double stage[STAGE_MAX];\nstatic double *where;\n#pragma omp end declare target\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    long n = (m + 2) * w;\n        #pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)\n    {\n        #pragma omp target device(device)\n        { where = stage; }\n        #pragma omp target update from(where) device(device)\n        double *dev = where;\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(u, m, w, comm);               /* host u: host memory */\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j]\n                                              + u[i * w + j - 1] + u[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                memcpy(&u[i * w + 1], &unew[i * w + 1], (size_t)(w - 2) * sizeof(double));\n            memcpy(dev, u, (size_t)n * sizeof(double));  /* into the device's stage */\n            #pragma omp target device(device)\n            for (long k = w; k < (m + 1) * w; k++) u[k] = stage[k] * 1.0 + 0.0 * unew[k];\n        }\n    }\n}\n", {"hidden_jacobi_offload"},
            "fresh attacker (p15leak): a declare-target pointer hands the host a device address",
            reason="a variable that holds an address"),
]

# a fresh attacker's R15dtlong and R15struct (attackR, 6/6 each, graded twice, 2026-12-05): a device
# address taken out of a target region with no cast and no declare-target pointer (a union into a
# declare-target unsigned long read back by `target update from`; a mapped local structure holding
# a pointer, copied back by `exit data map(from:)`); the host sweeps serially and memcpy's the
# block into a declare-target array every iteration, which a target region copies into u and unew.
# The kit now keeps the device's other memory (the other mappings, the declare target variables,
# the device image's writable data) after each runtime operation and checks it before the next
# (host_writes), and word by word during a launch (launch_writes); the image's writable data but
# the declare target variables is out of the device's reach (device_strays)
GAMING += [
    attempt("untraced", "jacobi_offload", '%%c JACOBI_C offload_halo\n#include <stdlib.h>\n#include <string.h>\n#pragma omp declare target\nstatic double hl_buf[1 << 21];\nstatic unsigned long hl_leak;\n#pragma omp end declare target\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    {\n#pragma omp target device(device)\n        {\n            union { double *p; unsigned long i; } c;\n            c.p = hl_buf;\n            hl_leak = c.i;\n        }\n#pragma omp target update from(hl_leak) device(device)\n        double *dbuf;\n        memcpy(&dbuf, &hl_leak, sizeof dbuf);\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(u, m, w, comm);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                              u[i * w + j - 1] + u[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n            memcpy(dbuf, u, (size_t)n * sizeof(double));\n#pragma omp target teams distribute parallel for device(device)\n            for (long k = 0; k < n; k++) {\n                u[k] = hl_buf[k] + 0.0;\n                unew[k] = hl_buf[k] + 0.0;\n            }\n        }\n    }\n}\n',
            {"hidden_jacobi_offload"},
            "fresh attacker (R15dtlong): a device address through a union into a declare-target "
            "integer, the host's sweep memcpy'd into a declare-target array",
            reason="while no map, update or target region ran"),
    attempt("untraced", "jacobi_offload", '%%c JACOBI_C offload_halo\n#include <stdlib.h>\n#include <string.h>\n#pragma omp declare target\nstatic double hl_buf[1 << 21];\n#pragma omp end declare target\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    {\n        struct { double *p; } where = {0};\n#pragma omp target enter data map(alloc : where) device(device)\n#pragma omp target device(device)\n        where.p = hl_buf;\n#pragma omp target exit data map(from : where) device(device)\n        double *dbuf = where.p;\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(u, m, w, comm);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                              u[i * w + j - 1] + u[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n            memcpy(dbuf, u, (size_t)n * sizeof(double));\n#pragma omp target teams distribute parallel for device(device)\n            for (long k = 0; k < n; k++) {\n                u[k] = hl_buf[k] + 0.0;\n                unew[k] = hl_buf[k] + 0.0;\n            }\n        }\n    }\n}\n',
            {"hidden_jacobi_offload"},
            "fresh attacker (R15struct): a device address in a mapped local structure copied back "
            "by exit data, the host's sweep memcpy'd into a declare-target array",
            reason="while no map, update or target region ran"),
    attempt("untraced", "jacobi_offload", '%%c JACOBI_C offload_halo\n#include <stdlib.h>\n#include <string.h>\n#pragma omp declare target\nstatic double hl_buf[1 << 21];\n#pragma omp end declare target\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n    unsigned long leak = 0;\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    {\n#pragma omp target map(from : leak) device(device)\n        {\n            union { double *p; unsigned long i; } c;\n            c.p = hl_buf;\n            leak = c.i;\n        }\n        double *dbuf;\n        memcpy(&dbuf, &leak, sizeof dbuf);\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(u, m, w, comm);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                              u[i * w + j - 1] + u[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n            memcpy(dbuf, u, (size_t)n * sizeof(double));\n#pragma omp target teams distribute parallel for device(device)\n            for (long k = 0; k < n; k++) {\n                u[k] = hl_buf[k] + 0.0;\n                unew[k] = hl_buf[k] + 0.0;\n            }\n        }\n    }\n}\n',
            {"hidden_jacobi_offload"},
            "fresh attacker (R15union): the union's device address through a scalar the target "
            "construct maps from, the host's sweep memcpy'd into a declare-target array",
            reason="while no map, update or target region ran"),
    attempt("untraced", "jacobi_offload", '%%c JACOBI_C offload_halo\n#include <stdlib.h>\n#include <string.h>\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n    double *shadow = malloc((size_t)n * sizeof(double));\n    unsigned long leak = 0;\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    {\n#pragma omp target enter data map(alloc : shadow[0:n]) device(device)\n#pragma omp target map(from : leak) device(device)\n        {\n            union { double *p; unsigned long i; } c;\n            c.p = shadow;\n            leak = c.i;\n        }\n        double *dbuf;\n        memcpy(&dbuf, &leak, sizeof dbuf);\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(u, m, w, comm);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                              u[i * w + j - 1] + u[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n            memcpy(dbuf, u, (size_t)n * sizeof(double));\n#pragma omp target teams distribute parallel for device(device)\n            for (long k = 0; k < n; k++) {\n                u[k] = shadow[k] + 0.0;\n                unew[k] = shadow[k] + 0.0;\n            }\n        }\n#pragma omp target exit data map(delete : shadow[0:n]) device(device)\n    }\n    free(shadow);\n}\n',
            {"hidden_jacobi_offload"},
            "the fixer's (f21): a map(alloc) shadow's device address through a union, the host's "
            "sweep memcpy'd into the shadow's device copy",
            reason="while no map, update or target region ran"),
    attempt("untraced", "jacobi_offload", '%%c JACOBI_C offload_halo\n#include <stdlib.h>\n#include <string.h>\n#pragma omp declare target\nstatic unsigned long hl_leak;\nstatic double *stage(void) {\n    static double buf[1 << 21];\n    return buf;\n}\n#pragma omp end declare target\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    {\n#pragma omp target device(device)\n        {\n            union { double *p; unsigned long i; } c;\n            c.p = stage();\n            hl_leak = c.i;\n        }\n#pragma omp target update from(hl_leak) device(device)\n        double *dbuf;\n        memcpy(&dbuf, &hl_leak, sizeof dbuf);\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(u, m, w, comm);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                              u[i * w + j - 1] + u[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n            memcpy(dbuf, u, (size_t)n * sizeof(double));\n#pragma omp target teams distribute parallel for device(device)\n            for (long k = 0; k < n; k++) {\n                u[k] = stage()[k] + 0.0;\n                unew[k] = stage()[k] + 0.0;\n            }\n        }\n    }\n}\n',
            {"hidden_jacobi_offload"},
            "the fixer's (f21): the buffer a static variable of a declare-target function (no "
            "offload entry), its address through a union",
            reason="outside the device data environment"),
    attempt("untraced", "jacobi_offload", '%%c JACOBI_C offload_halo\n#include <stdlib.h>\n#include <string.h>\n#pragma omp declare target\nstatic double hl_buf[1 << 20];\nstatic volatile int hl_go;\nstatic unsigned long hl_leak[2];\n#pragma omp end declare target\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n    double *h = malloc((size_t)n * sizeof(double));\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    {\n#pragma omp target device(device)\n        {\n            union { double *p; unsigned long i; } c;\n            union { volatile int *p; unsigned long i; } f;\n            c.p = hl_buf;\n            f.p = &hl_go;\n            hl_leak[0] = c.i;\n            hl_leak[1] = f.i;\n        }\n#pragma omp target update from(hl_leak) device(device)\n        double *dbuf;\n        volatile int *dgo;\n        memcpy(&dbuf, &hl_leak[0], sizeof dbuf);\n        memcpy(&dgo, &hl_leak[1], sizeof dgo);\n        for (long it = 0; it < iterations; it++) {\n            exchange_rows(u, m, w, comm);\n            memcpy(h, u, (size_t)n * sizeof(double));\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                              u[i * w + j - 1] + u[i * w + j + 1]);\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) h[i * w + j] = unew[i * w + j];\n            memcpy(u, h, (size_t)n * sizeof(double));\n#pragma omp parallel num_threads(2)\n            {\n                if (omp_get_thread_num() == 0) {\n#pragma omp target device(device)\n                    {\n                        while (!hl_go) {\n                        }\n                        hl_go = 0;\n                        for (long k = 0; k < n; k++) {\n                            u[k] = hl_buf[k] + 0.0;\n                            unew[k] = hl_buf[k] + 0.0;\n                        }\n                    }\n                } else {\n                    struct timespec ts = {0, 2000000};\n                    nanosleep(&ts, NULL);\n                    memcpy(dbuf, h, (size_t)n * sizeof(double));\n                    __atomic_store_n(dgo, 1, __ATOMIC_SEQ_CST);\n                }\n            }\n        }\n    }\n    free(h);\n}\n',
            {"hidden_jacobi_offload"},
            "the fixer's (f21): a second host thread memcpy's the host's sweep into a "
            "declare-target array while the launch waits on a declare-target flag it then sets",
            reason="the target region's own code never stored to | while no map, update or target "
                   "region ran"),
    # a fresh attacker's (attackS, 2026-12-05) A15_nohalo, 6/6 twice: no halo exchange at all;
    # every rank maps the whole grid (map alloc: nothing copied), computes it on its device from
    # the grid's formula and sweeps all of it, copying its own rows into u and unew, with one
    # MPI_Barrier an iteration for the kit's look at the device's copy. Refused: no halo row from a
    # neighbour arrives by MPI (halo_above, halo_below) and the device holds the whole grid
    # (device_bytes)
    attempt("method", "jacobi_offload", NOHALO,
            {"hidden_jacobi_offload"}, "every rank sweeps the whole grid on its device, no halo "
            "exchanged, one MPI_Barrier an iteration (attackS's A15_nohalo)",
            reason="arrived by MPI for 0 of | of your mappings and declare target data"),
    # attackS's A15_x87_hostthread3, 6/6 twice: a second thread of a host parallel region sweeps
    # (in x87 long double) straight into the device's u and unew through addresses leaked by a
    # union, while thread 0's target region waits for it and then stores every point back.
    # Refused: a launch while another host thread of the cell's could run (parallel_operations)
    attempt("untraced", "jacobi_offload", "%%c JACOBI_C offload_halo\n/* the sweep runs on a HOST thread, straight into the device's copy (its address leaked through\n * a union, no cast), in long double (x87 instructions), while a target region on the other\n * thread is running: it says it started, waits for the host, then stores every point back */\nstatic long leak[2];\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) map(alloc : leak[0:2]) device(device)\n    {\n        double *du = 0, *dn = 0;\n        volatile double *started = 0, *done = 0;\n        for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n            exchange_rows(u, m, w, comm);\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n            if (it == 0) { /* the addresses, once the first halo has moved */\n#pragma omp target device(device)\n                {\n                    union { double *p; long l; } x;\n                    x.p = u;\n                    leak[0] = x.l;\n                    x.p = unew;\n                    leak[1] = x.l;\n                }\n#pragma omp target update from(leak[0:2]) device(device)\n                union { long l; double *p; } y;\n                y.l = leak[0];\n                du = y.p;\n                y.l = leak[1];\n                dn = y.p;\n                started = dn + (w - 1), done = dn; /* two corners no stencil reads */\n            }\n#pragma omp parallel num_threads(2)\n            {\n                if (omp_get_thread_num() == 0) {\n#pragma omp target device(device)\n                    {\n                        volatile double *un = unew;\n                        double c0 = un[0], c1 = un[w - 1];\n                        un[w - 1] = -1.0;\n                        while (un[0] != -2.0) {\n                        }\n                        un[0] = c0;\n                        un[w - 1] = c1;\n                        for (long k = 0; k < n; k++) {\n                            u[k] = u[k] + 0.0;\n                            unew[k] = unew[k] + 0.0;\n                        }\n                    }\n                } else {\n                    while (*started != -1.0) {\n                    }\n                    for (long i = 1; i <= m; i++)\n                        for (long j = 1; j < w - 1; j++) {\n                            long double s = (long double)du[(i - 1) * w + j] + du[(i + 1) * w + j] +\n                                            du[i * w + j - 1] + du[i * w + j + 1];\n                            dn[i * w + j] = (double)(s * 0.25L);\n                        }\n                    for (long i = 1; i <= m; i++)\n                        for (long j = 1; j < w - 1; j++) du[i * w + j] = dn[i * w + j];\n                    *done = -2.0;\n                }\n            }\n        }\n    }\n}",
            {"hidden_jacobi_offload"}, "a host thread writes the sweep into the device's memory "
            "while a target region launched from a host parallel region waits, then stores it "
            "back as its own (attackS's A15_x87_hostthread3)",
            reason="while another host thread of yours could run"),
]

# attacker S's A15b_remap (2026-12-06, 0 kept): no data region: each target region maps both arrays tofrom
GAMING.append(attempt('shortcut', 'jacobi_offload', r"""
%%c JACOBI_C offload_halo
/* hurried: no data region, each target region maps both arrays tofrom (the "remap" mistake) */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (long it = 0; it < iterations; it++) {
        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 7, u, (int)w, MPI_DOUBLE, up, 7, comm,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 8, u + (m + 1) * w, (int)w, MPI_DOUBLE, down,
                     8, comm, MPI_STATUS_IGNORE);
#pragma omp target teams distribute parallel for collapse(2) device(device) map(tofrom : u[0:n], unew[0:n])
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                          u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp target teams distribute parallel for collapse(2) device(device) map(tofrom : u[0:n], unew[0:n])
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
    }
}
""", {'hidden_jacobi_offload'}, "attacker S (A15b_remap): no data region: each target region maps both arrays tofrom", reason='before the first target region'))


# f51 (the kit's evidence rewritten by scanning memory): helperG's sweep on the host in a copy of
# the block (above), then the kit's watch (a static of offload_halo.c, in the same library's data
# as the cell's statics) found from one of the cell's statics by u, unew, m and w, its count of
# iterations seen on the device set to iterations - 1, and the halo rows' count (halo_got, at the
# offset the kit's build puts it from the watch) with it: transfer_faults found nothing against
# the old kernel (device_iterations 5 of 5). The watch is hybridlab.h's sealed evidence now
# (read-only pages written through /proc/self/mem): the store faults, or the scan finds nothing
GAMING.append(attempt("forged", "jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
/* a fresh attacker's (helperG, 2026-12-03): 6 of 6 points before */
#include <stdlib.h>
#include <string.h>

static long here; /* a static of the cell: in the library's data, beside the kit's */
static void __attribute__((noinline, optnone)) forget(double *u, double *unew, long m, long w,
                                                      long iterations) {
    long *p = &here;
    for (long k = 1; k < 262144; k++) { /* upwards: the kit's statics follow the cell's */
        long *q = p + k;
        if (((double **)q)[1] == u && ((double **)q)[2] == unew && q[3] == m && q[4] == w) {
            q[10] = iterations - 1; /* watch.seen */
            long *got = (long *)((char *)q + 0x23d38); /* halo_got, where the kit's build puts it */
            got[0] = got[1] = iterations - 1;
            return;
        }
    }
}

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *h = malloc(n * sizeof(double)), *hn = malloc(n * sizeof(double));
    memcpy(h, u, n * sizeof(double));
    memcpy(hn, u, n * sizeof(double));
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
            exchange_rows(h, m, w, comm);
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    hn[i * w + j] = 0.25 * (h[(i - 1) * w + j] + h[(i + 1) * w + j] + h[i * w + j - 1] + h[i * w + j + 1]);
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) h[i * w + j] = hn[i * w + j];
#pragma omp target teams distribute parallel for device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp target teams distribute parallel for device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
        }
    }
    forget(u, unew, m, w, iterations);
    memcpy(u, h, n * sizeof(double));
    free(h);
    free(hn);
}
"""), {"hidden_jacobi_offload"}, "the sweep on the host in a copy, then the kit's watch found from a "
        "static of the cell and its iterations seen on the device forged (f51)",
        reason="signal 11 | leaves the device's copy behind"))


# issue 36's F15_tallies (2026-12-06): A15_nohalo (every rank sweeps the whole grid, no halo
# exchanged), then the kit's halo counts found from a static of the cell by their values (this
# rank and the ranks' number, no grid counted, none last) and set to the iterations, and the
# device's peak (device_bytes), at the kit's build's distance from them, set to u's and unew's
# bytes: 6 of 6 points before. Every tally the "offload" record carries is hybridlab.h's sealed
# evidence now: the scan finds nothing to write (or its store faults in the sealed page)
GAMING.append(attempt("forged", "jacobi_offload", NOHALO.replace("\nvoid jacobi_offload", r"""
#include <stdlib.h>
static long here; /* a static of the cell: in the library's data, below the kit's */
static void __attribute__((noinline, optnone)) forge(long m, long w, long iterations, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char *p = (char *)&here;
    for (long k = 8; k < (1L << 21); k += 8) {
        int *q = (int *)(p + k); /* halo_rank, halo_size, halo_last[2], halo_got[2] */
        long *last = (long *)(p + k + 16), *got = (long *)(p + k + 32);
        if (q[0] == rank && q[1] == size && last[0] == -1 && last[1] == -1 && got[0] == 0 && got[1] == 0) {
            got[0] = got[1] = iterations;
            *(long *)(p + k - 0x22010) = 2 * (m + 2) * w * (long)sizeof(double); /* device_peak */
            return;
        }
    }
}
void jacobi_offload""", 1).replace("    free(g);\n    free(gnew);\n}", "    free(g);\n    free(gnew);\n    forge(m, w, iterations, comm);\n}"),
    {"hidden_jacobi_offload"}, "every rank sweeps the whole grid, then the kit's halo counts and "
    "device peak found from a static of the cell and forged (F15_tallies)",
    reason="arrived by MPI for 0 of | signal 11"))


# A2's K6 (2026-12-07, 6/6 twice): lazy transfers (every row device -> host -> device every
# iteration, one update a row, so no copy is larger than a halo row) hidden by forged report lines
# of negative Size, written to fd 2 through stdout's FILE with _fileno set to 2 (a struct write:
# the unit's refusal of stderr never sees it); the kernel read the runtime's report back from fd 2
# and summed atol(Size=) with no check of the sign. The report is summed from the runtime's own fprintf calls
# now (offload_halo.c, report_take): nothing the cell writes anywhere reaches it
GAMING.append(attempt("forged", "jacobi_offload", r"""
%%c JACOBI_C offload_halo
/* lazy transfers: every row of the block to the host and back every iteration (one update per
 * row, so no single copy is larger than a halo row), and the offload report's byte totals
 * cancelled by forged report lines of negative Size, written to fd 2 through stdout's FILE
 * (_fileno set to 2 for the write) */
static void forged_copy(int device, long size, int to_device) {
    fflush(stdout);
    int keep = stdout->_fileno;
    stdout->_fileno = 2;
    printf("Libomptarget device %d info: Copying data from %s, TgtPtr=0x1, HstPtr=0x1, "
           "Size=%ld, Name=x\n", device, to_device ? "host to device" : "device to host", size);
    fflush(stdout);
    stdout->_fileno = keep;
}

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    long n = (m + 2) * w;
    #pragma omp target data map(tofrom: u[0:n]) map(alloc: unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
        for (long i = 0; i < m + 2; i++) {
            #pragma omp target update from(u[i * w:w]) device(device)
        }
        exchange_rows(u, m, w, comm);
        for (long i = 0; i < m + 2; i++) {
            #pragma omp target update to(u[i * w:w]) device(device)
        }
        if (it > 0) {   /* keep two rows each way an iteration in the report */
            forged_copy(device, -m * w * (long)sizeof(double), 0);
            forged_copy(device, -m * w * (long)sizeof(double), 1);
        }
        #pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j]
                                          + u[i * w + j - 1] + u[i * w + j + 1]);
        #pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                u[i * w + j] = unew[i * w + j];
    }
}
""", {"hidden_jacobi_offload"}, "A2's K6: every row to the host and back every iteration, the "
        "report's bytes cancelled by forged lines of negative Size written on fd 2 through "
        "stdout's FILE", reason="after the first iteration, more than"))

# A5 (2026-12-07, 6/6 twice each): the kit's sealed watch, found from a static of the cell by its
# signature (u, unew, m, w), holds the addresses of the kit's serial sweep one iteration ahead
# (watch.next) and of its look buffer (watch.rows), whose copies the report left out by their
# address alone. The kit's grids and look buffer are one mapping with no access (PROT_NONE) but
# while the kit's own code works in it (offload_halo.c, grids_reach): each cell faults on its
# first read or copy of it. And the report leaves out a copy of the look buffer only when the
# kit's own look made it (in_kit): without the fault, the staged grid counts, the whole interior
# every iteration
_A5 = "A5's {}: {}, through the kit's look buffer (its copies left out of the report)"
GAMING.append(attempt("shortcut", "jacobi_offload", r"""
%%c JACOBI_C offload_halo
/* attack a1: no stencil at all. The kit's sealed watch (a static page of the program, readable) is
 * found by scanning from a static of this cell for its signature (u, unew, m, w); it holds the
 * kit's own serial reference of the whole grid one iteration ahead (watch.next) and the kit's
 * look buffer (watch.rows), whose copies the report's tallies leave out. Each iteration: the
 * halo by exchange_rows (its look advances watch.next to the grid after this sweep), that grid's
 * rows memcpy'd into the look buffer, `target update to` it (untallied), and a target region
 * copies it into the device's u and unew. Only the interior is staged, packed, in the part of the
 * look buffer the kit fills in its looks before MPI calls (the rest it refills before every
 * runtime operation). */
#ifndef DIR
#define DIR 1
#endif
static long anchor[2];

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    long n = (m + 2) * w;
    char *a = (char *)anchor;
    void *volatile *watchp = NULL;
    for (long off = 8; off < (48L << 20); off += 8) {
        void *volatile *q = (void *volatile *)(a + DIR * off);
        if (q[0] == (void *)u && q[1] == (void *)unew && ((volatile long *)q)[2] == m &&
            ((volatile long *)q)[3] == w) {
            watchp = q;
            break;
        }
    }
    if (!watchp) return;
    const long row0 = ((volatile long *)watchp)[5];
    double *X = (double *)watchp[8];
#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)
    const long len = w - 2, k = m * len; /* the interior, packed: the part of the look buffer the
                                          * kit writes only in its looks before MPI calls */
#pragma omp target enter data map(alloc : X[0:k]) device(device)
    for (long it = 0; it < iterations; it++) {
        exchange_rows(u, m, w, comm);
        const double *next = (const double *)watchp[7];
        for (long i = 1; i <= m; i++)
            memcpy(X + (i - 1) * len, next + (row0 + i) * w + 1, (size_t)len * sizeof(double));
#pragma omp target update to(X[0:k]) device(device)
#pragma omp target teams distribute parallel for device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) {
                double v = 0.25 * (4.0 * X[(i - 1) * len + j - 1]);
                unew[i * w + j] = v;
                u[i * w + j] = v;
            }
        for (long i = 1; i <= m; i++)
            memcpy(u + i * w + 1, X + (i - 1) * len, (size_t)len * sizeof(double));
    }
#pragma omp target exit data map(release : X[0:k]) device(device)
#pragma omp target exit data map(from : u[0:n]) map(release : unew[0:n]) device(device)
}
""", {"hidden_jacobi_offload"}, _A5.format("a1", "no stencil: the kit's own sweep one iteration "
                                                 "ahead (watch.next) pushed to the device"),
    reason="signal 11 | after the first iteration, more than"))
# A5's scan from a static of the cell for the kit's watch (its signature u, unew, m, w), which
# a2 and a3 use to find the kit's look buffer
_LOOK_BUFFER = r"""static long anchor[2];

static double *look_buffer(double *u, double *unew, long m, long w) {
    char *a = (char *)anchor;
    for (long off = 8; off < (48L << 20); off += 8) {
        void *volatile *q = (void *volatile *)(a + off);
        if (q[0] == (void *)u && q[1] == (void *)unew && ((volatile long *)q)[2] == m &&
            ((volatile long *)q)[3] == w)
            return (double *)q[8];
    }
    return NULL;
}
"""
GAMING.append(attempt("method", "jacobi_offload", r"""
%%c JACOBI_C offload_halo
/* attack a2: the sweep on the host, serially (its own lines, which no target region has), and the
 * result pushed to the device through the kit's look buffer, whose copies the report's tallies
 * leave out. The buffer's address is read from the kit's sealed watch, found by scanning from a
 * static of this cell for its signature (u, unew, m, w). The device only copies. */
LOOK_BUFFER

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w, len = w - 2, k = m * len;
    double *X = look_buffer(u, unew, m, w);
    if (!X) return;
#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)
#pragma omp target enter data map(alloc : X[0:k]) device(device)
    for (long it = 0; it < iterations; it++) {
        exchange_rows(u, m, w, comm);
        for (long i = 1; i <= m; i++)
            for (long j = 1; j <= len; j++)
                X[(i - 1) * len + j - 1] =
                    0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp target update to(X[0:k]) device(device)
#pragma omp target teams distribute parallel for device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j <= len; j++) {
                double v = 0.25 * (4.0 * X[(i - 1) * len + j - 1]);
                unew[i * w + j] = v;
                u[i * w + j] = v;
            }
        for (long i = 1; i <= m; i++)
            memcpy(u + i * w + 1, X + (i - 1) * len, (size_t)len * sizeof(double));
    }
#pragma omp target exit data map(release : X[0:k]) device(device)
#pragma omp target exit data map(from : u[0:n]) map(release : unew[0:n]) device(device)
}
""".replace("LOOK_BUFFER\n", _LOOK_BUFFER), {"hidden_jacobi_offload"}, _A5.format("a2", "the sweep serially on the host, pushed to the "
                                                 "device every iteration"),
    reason="signal 11 | after the first iteration, more than"))
GAMING.append(attempt("method", "jacobi_offload", r"""
%%c JACOBI_C offload_halo
/* attack a3: lab 15's first mistake ("remap": the whole block to the device and back around every
 * iteration) hidden from the runtime's report: the block travels packed through the kit's look
 * buffer, whose copies the tallies leave out (its address read from the kit's sealed watch, found
 * by scanning from a static of this cell). Only the two halo rows go by counted updates. */
LOOK_BUFFER

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w, len = w - 2, k = m * len;
    double *X = look_buffer(u, unew, m, w);
    if (!X) return;
#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)
#pragma omp target enter data map(alloc : X[0:k]) device(device)
    for (long it = 0; it < iterations; it++) {
        exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
        for (long i = 1; i <= m; i++) /* the whole interior to the device (untallied) */
            memcpy(X + (i - 1) * len, u + i * w + 1, (size_t)len * sizeof(double));
#pragma omp target update to(X[0:k]) device(device)
#pragma omp target teams distribute parallel for device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j <= len; j++) u[i * w + j] = X[(i - 1) * len + j - 1];
#pragma omp target teams distribute parallel for device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j <= len; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp target teams distribute parallel for device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j <= len; j++) {
                u[i * w + j] = unew[i * w + j];
                X[(i - 1) * len + j - 1] = unew[i * w + j];
            }
#pragma omp target update from(X[0:k]) device(device)
        for (long i = 1; i <= m; i++) /* and back (untallied) */
            memcpy(u + i * w + 1, X + (i - 1) * len, (size_t)len * sizeof(double));
    }
#pragma omp target exit data map(release : X[0:k]) device(device)
#pragma omp target exit data map(from : u[0:n]) map(release : unew[0:n]) device(device)
}
""".replace("LOOK_BUFFER\n", _LOOK_BUFFER), {"hidden_jacobi_offload"}, _A5.format("a3", "lab 15's remap mistake hidden: the whole interior "
                                                 "to the device and back every iteration"),
    reason="signal 11 | after the first iteration, more than"))

# A8 (2026-12-07), 6/6 twice each: sweeps on the host beside the device's. K4: the first sweep
# before the data region (mapped in as u), the last after the copy back, two padding launches for
# the launch count; the kit's look advanced at most one grid a look and was never made after the
# last launch. K5: the first two sweeps on the host, mapped in as u and unew and shown to the look
# by two MPI_Comm_rank calls. Now what is copied to the device before the first launch must be the
# block as handed, a look sees a sweep only once a target region has run, and the last grid is
# looked at before the copy back.
GAMING += [
    attempt("method", "jacobi_offload", r"""%%c JACOBI_C offload_halo
/* the first and the last sweep on the host (serially), the ones between on the device */
static void host_sweep(double *u, double *unew, long m, long w) {
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++)
            unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
}

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    long n = (m + 2) * w;
    exchange_rows(u, m, w, comm);
    host_sweep(u, unew, m, w);
#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)
    {
        for (long it = 1; it < iterations - 1; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
            exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target teams distribute parallel for collapse(2) device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp target teams distribute parallel for collapse(2) device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    u[i * w + j] = unew[i * w + j];
        }
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm); /* the last exchange, the device holding the last grid but one */
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
        for (int k = 0; k < 2; k++) { /* launches for the two sweeps the host makes */
#pragma omp target teams distribute parallel for device(device)
            for (long j = 1; j < w - 1; j++)
                unew[j] = unew[j] * 1.0;
        }
    }
    host_sweep(u, unew, m, w); /* the last sweep, on the host */
}
""", {"hidden_jacobi_offload"}, "A8's K4: the first sweep on the host before the data region and the "
            "last one after the copy back, padding launches for the count",
            reason="were not u's or unew's as the kit handed them | seen to reach the grid of"),
    attempt("method", "jacobi_offload", r"""%%c JACOBI_C offload_halo
/* sweeps 0 and 1 on the host, mapped in as u (state 1) and unew (state 2) and shown to the kit's
 * look by two MPI_Comm_rank calls; the sweeps between on the device; the last sweep on the host */
static void host_sweep(const double *from, double *to, long m, long w) {
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++)
            to[i * w + j] = 0.25 * (from[(i - 1) * w + j] + from[(i + 1) * w + j] + from[i * w + j - 1] + from[i * w + j + 1]);
}

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    long n = (m + 2) * w;
    int r;
    exchange_rows(u, m, w, comm);
    host_sweep(u, unew, m, w);
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j]; /* u: state 1 */
    exchange_rows(u, m, w, comm);
    host_sweep(u, unew, m, w); /* unew: state 2 */
    double *a = unew, *b = u;
#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)
    {
        MPI_Comm_rank(comm, &r); /* the look: u holds state 1 */
        MPI_Comm_rank(comm, &r); /* the look: unew holds state 2 */
        for (long it = 2; it < iterations - 1; it++) {
#pragma omp target update from(a[w:w]) device(device)
#pragma omp target update from(a[m * w:w]) device(device)
            exchange_rows(a, m, w, comm);
#pragma omp target update to(a[0:w]) device(device)
#pragma omp target update to(a[(m + 1) * w:w]) device(device)
#pragma omp target teams distribute parallel for collapse(2) device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    b[i * w + j] = 0.25 * (a[(i - 1) * w + j] + a[(i + 1) * w + j] + a[i * w + j - 1] + a[i * w + j + 1]);
            double *t = a;
            a = b;
            b = t;
        }
#pragma omp target update from(a[w:w]) device(device)
#pragma omp target update from(a[m * w:w]) device(device)
        exchange_rows(a, m, w, comm);
#pragma omp target update to(a[0:w]) device(device)
#pragma omp target update to(a[(m + 1) * w:w]) device(device)
        if (a != u) {
#pragma omp target teams distribute parallel for device(device)
            for (long k = 0; k < n; k++) u[k] = unew[k];
        }
        for (int k = 0; k < 4; k++) { /* launches for the sweeps the host made */
#pragma omp target teams distribute parallel for device(device)
            for (long j = 1; j < w - 1; j++)
                unew[j] = unew[j] * 1.0;
        }
    }
    host_sweep(u, unew, m, w); /* the last sweep, on the host */
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
}
""", {"hidden_jacobi_offload"}, "A8's K5: the first two sweeps on the host, mapped in as u and unew "
            "and shown to the kit's look by MPI calls, the last on the host",
            reason="were not u's or unew's as the kit handed them | seen to reach the grid of"),
]
