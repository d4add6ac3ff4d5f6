"""Right answers to lab 15 written another way: the loop with `target enter data` / `exit data`,
its own MPI_Sendrecv, one region per iteration and the arrays' roles swapped; the loop with the
sweep first and the exchange after it; `target parallel for`; maps named again on each target
region, a stencil helper of the cell's own and a timing the host computes (not the sweep);
per_iteration from a loop over the rows or numpy arrays."""

from honest import right

HONEST = [
    right("jacobi_offload", r"""
%%c JACOBI_C offload_halo
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    /* unew gets the fixed boundary too: both arrays swap roles every iteration */
#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)
    double *a = u, *b = unew;
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(a[w:w]) device(device)
#pragma omp target update from(a[m * w:w]) device(device)
        MPI_Sendrecv(a + m * w, (int)w, MPI_DOUBLE, down, 7, a, (int)w, MPI_DOUBLE, up, 7, comm,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(a + w, (int)w, MPI_DOUBLE, up, 8, a + (m + 1) * w, (int)w, MPI_DOUBLE, down, 8,
                     comm, MPI_STATUS_IGNORE);
#pragma omp target update to(a[0:w]) device(device)
#pragma omp target update to(a[(m + 1) * w:w]) device(device)
#pragma omp target teams distribute parallel for device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                b[i * w + j] = 0.25 * (a[(i - 1) * w + j] + a[(i + 1) * w + j] + a[i * w + j - 1] +
                                       a[i * w + j + 1]);
        double *t = a;
        a = b, b = t;
    }
    if (a != u) { /* the result is in unew's device copy: bring it home into u */
#pragma omp target update from(unew[0:n]) device(device)
        for (long k = 0; k < n; k++) u[k] = unew[k];
    } else {
#pragma omp target update from(u[0:n]) device(device)
    }
#pragma omp target exit data map(delete : u[0:n], unew[0:n]) device(device)
}
""", why="enter/exit data, its own MPI_Sendrecv, one region per iteration and swapped arrays"),
    right("jacobi_offload", r"""
%%c JACOBI_C offload_halo
static void halo(double *u, long m, long w, int device, MPI_Comm comm) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
    exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
}

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
            /* the start's halos are the neighbours' start values: sweep first, exchange after */
#pragma omp target teams distribute parallel for device(device)
            for (long i = 1; i <= m; i++) {
                for (long j = 1; j < w - 1; j++)
                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                              u[i * w + j - 1] + u[i * w + j + 1]);
            }
#pragma omp target teams distribute parallel for device(device)
            for (long i = 1; i <= m; i++) {
                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
            }
            if (it + 1 < iterations) halo(u, m, w, device, comm);
        }
    }
}
""", why="the sweep first and the exchange after it, a helper of its own, no collapse"),
    right("jacobi_offload", r"""
%%c JACOBI_C offload_halo
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
            exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target parallel for device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    unew[i * w + j] = (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                       u[i * w + j - 1] + u[i * w + j + 1]) / 4.0;
#pragma omp target parallel for device(device)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
        }
    }
}
""", why="`target parallel for` (no teams), a braced data region, the stencil divided by 4.0"),
    right("jacobi_offload", r"""
%%c JACOBI_C offload_halo
static inline double stencil(const double *u, long i, long j, long w) {
    return 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
}

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double t0 = hl_now();
#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target map(tofrom : u[0:n], unew[0:n]) device(device)
#pragma omp teams distribute parallel for
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) unew[i * w + j] = stencil(u, i, j, w);
#pragma omp target teams distribute parallel for simd collapse(2) map(tofrom : u[0:n], unew[0:n]) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
    }
    printf("jacobi_offload: %.3f ms per iteration\n", (hl_now() - t0) * 1e3 / (double)iterations);
}
""", why="maps named again on each target region inside the data region (present: nothing "
         "copied), `target` then `teams distribute parallel for` on two lines, a stencil helper "
         "of its own called on the device, a timing computed and printed by the host"),
    right("per_iteration", r"""
def per_iteration(offload, iterations):
    out = {}
    for _, row in offload.iterrows():
        out[int(row["rank"])] = {"h2d": float(row["h2d_between"]) / (iterations - 1),
                                 "d2h": float(row["d2h_between"]) / (iterations - 1),
                                 "halo": float(row["row_bytes"]) * 2}
    return pd.DataFrame.from_dict(out, orient="index")
""", why="a loop over the rows, a dict of dicts"),
    right("per_iteration", r"""
def per_iteration(offload, iterations):
    ranks = offload["rank"].to_numpy()
    per = 1.0 / (iterations - 1)
    return pd.DataFrame({"h2d": offload["h2d_between"].to_numpy() * per,
                         "d2h": offload["d2h_between"].to_numpy() * per,
                         "halo": offload["row_bytes"].to_numpy() * 2.0}, index=ranks)
""", why="numpy arrays, multiplied by the reciprocal"),
    # a declare-target helper kept out of line, called from target regions only, and the host's own
    # arithmetic for a timing line: not the device's code run by the host (attackD's fix, 2026-12-04)
    right("jacobi_offload", r"""
%%c JACOBI_C offload_halo
#include <stdio.h>
#pragma omp declare target
__attribute__((noinline)) static void sweep_rows(const double *a, double *b, long m, long w) {
#pragma omp parallel for
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++)
            b[i * w + j] = 0.25 * (a[(i - 1) * w + j] + a[(i + 1) * w + j] + a[i * w + j - 1] + a[i * w + j + 1]);
}
#pragma omp end declare target

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double t0 = hl_now();
#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target device(device)
        sweep_rows(u, unew, m, w);
#pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
    }
    printf("%.3f ms per iteration\n", (hl_now() - t0) * 1e3 / (double)iterations);
}
""", why="an out-of-line declare-target helper called from a target region, a host timing line"),
    # kept when the device's code is checked against the device data environment (2026-12-04,
    # fixer helper-f2): a scratch array of its own mapped `alloc` and reached through its pointer
    right("jacobi_offload", r"""
%%c JACOBI_C offload_halo
#include <stdlib.h>
/* a device-only scratch array of its own (map alloc), reached through its pointer in the regions */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *tmp = malloc(sizeof(double) * n);
#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n], tmp[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                tmp[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) unew[i * w + j] = tmp[i * w + j];
#pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
    }
    free(tmp);
}
""", why="a device-only scratch array (map alloc) between the stencil and unew, three regions"),
    # scalars passed by value (the kit counts the launches' literal arguments as bytes carried to
    # the device): a region per row with the row, the sizes, the iteration and the weight
    # firstprivate, num_teams and thread_limit given; one region an iteration with a relaxation
    # factor, a tolerance and a time computed on the host every iteration
    right("jacobi_offload", r"""
%%c JACOBI_C offload_halo
/* a target region per row, for the sweep and for the copy: the row, the sizes, the iteration and
   the stencil's weight passed by value (firstprivate), num_teams and thread_limit given */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    const double quarter = 0.25;
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
        for (long i = 1; i <= m; i++) {
#pragma omp target teams distribute parallel for num_teams(2) thread_limit(4) device(device) \
    firstprivate(i, w, m, it, quarter)
            for (long j = 1; j < w - 1; j++)
                unew[i * w + j] = it >= 0 && i <= m
                                      ? quarter * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                                   u[i * w + j - 1] + u[i * w + j + 1])
                                      : 0.0;
        }
        for (long i = 1; i <= m; i++) {
#pragma omp target teams distribute parallel for device(device) firstprivate(i, w)
            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
        }
    }
}
""", why="a region per row, its row, sizes, iteration and weight by firstprivate, num_teams"),
    right("jacobi_offload", r"""
%%c JACOBI_C offload_halo
/* one region per iteration; sizes, an iteration number, a relaxation factor of 1 and a time
   computed on the host each iteration passed by firstprivate */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double omega = 1.0, tol = 1e-12;
#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
        double t = 0.125 * (double)it + 1.0 / 3.0;
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target teams device(device) firstprivate(m, w, it, omega, tol, t) thread_limit(8)
        {
#pragma omp distribute parallel for collapse(2)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) {
                    double s = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] +
                                       u[i * w + j + 1]);
                    unew[i * w + j] = t > tol ? omega * s + (1.0 - omega) * u[i * w + j] : s;
                }
#pragma omp distribute parallel for collapse(2)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
        }
    }
#pragma omp target exit data map(from : u[0:n]) map(delete : unew[0:n]) device(device)
}
""", why="scalars by firstprivate: sizes, iteration, a factor, a tolerance, a time per iteration"),
    right("jacobi_offload", r"""
%%c JACOBI_C offload_halo
/* halo rows carried to the device by `map(always, to:)` on the sweep's own region; the edge rows
   brought back with `target update from`; simd loops; unew only allocated on the device */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    const long last = (m + 1) * w;
#pragma omp target data map(tofrom: u[0:n]) map(alloc: unew[0:n]) device(device)
    {
        for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
            exchange_rows(u, m, w, comm);
#pragma omp target teams distribute parallel for simd device(device) map(always, to: u[0:w]) map(always, to: u[last:w])
            for (long k = w; k < (m + 1) * w; k++) {
                long j = k % w;
                if (j == 0 || j == w - 1) continue;
                unew[k] = 0.25 * (u[k - w] + u[k + w] + u[k - 1] + u[k + 1]);
            }
#pragma omp target teams distribute parallel for simd device(device)
            for (long k = w; k < (m + 1) * w; k++) {
                long j = k % w;
                if (j != 0 && j != w - 1) u[k] = unew[k];
            }
        }
    }
}
""", why="a fresh attacker's r15d: the halo rows carried by map(always, to:) on the sweep's own "
         "region, the edge rows back by target update from (lost 6/6: the launch's own copy was "
         "taken for a host write, and counted one iteration early)"),
    # a fresh attacker's right answer (p15pdiff, 2026-12-05): the edge rows' offsets by pointer
    # difference; 0/6 while a pointer difference counted as an address cast
    right("jacobi_offload", "%%c JACOBI_C offload_halo\n/* right answer: the edge rows' offsets found from row pointers (a pointer difference) */\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    long n = (m + 2) * w;\n    double *top = &u[w], *bottom = &u[m * w], *below = &u[(m + 1) * w];\n    long first = top - u, last = bottom - u, halo = below - u;   /* w, m * w, (m + 1) * w */\n    #pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)\n    {\n        for (long it = 0; it < iterations; it++) {\n            #pragma omp target update from(u[first:w]) device(device)\n            #pragma omp target update from(u[last:w]) device(device)\n            exchange_rows(u, m, w, comm);\n            #pragma omp target update to(u[0:w]) device(device)\n            #pragma omp target update to(u[halo:w]) device(device)\n            #pragma omp target teams distribute parallel for device(device)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j]\n                                              + u[i * w + j - 1] + u[i * w + j + 1]);\n            #pragma omp target teams distribute parallel for device(device)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    u[i * w + j] = unew[i * w + j];\n        }\n    }\n}\n",
          why="edge row offsets found by pointer difference"),
]

# a fresh attacker's right answers (attackR's R15scalar and R15mapto, 2026-12-05): a variable the
# `target` construct itself maps (map(from: flag) on a one-off region, map(to: m, w) on the sweep's)
# is on the device only once the runtime has mapped it, after the kit's launch wrapper had looked
# its arguments up: its loads and stores counted as device strays, 0/6 (offload_halo.c now looks
# the running launches' arguments up again at the first access that misses)
HONEST += [
    right("jacobi_offload", '%%c JACOBI_C offload_halo\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)\n    for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n        exchange_rows(u, m, w, comm);\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n#pragma omp target device(device)\n        {\n#pragma omp parallel for\n            for (long i = 1; i <= m; i++)\n                for (long j = w - 2; j >= 1; j--)\n                    unew[i * w + j] = 0.25 * ((u[i * w + j - 1] + u[i * w + j + 1]) +\n                                              (u[(i - 1) * w + j] + u[(i + 1) * w + j]));\n#pragma omp parallel for\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n        }\n    }\n    long on_device = 0;\n#pragma omp target map(from : on_device) device(device)\n    on_device = !omp_is_initial_device();\n#pragma omp target exit data map(from : u[0:n]) map(release : unew[0:n]) device(device)\n}\n',
          why="a one-off target region after the loop writes a scalar it maps from (R15scalar)"),
    right("jacobi_offload", '%%c JACOBI_C offload_halo\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)\n    for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n        exchange_rows(u, m, w, comm);\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n#pragma omp target map(to : m, w) device(device)\n        {\n#pragma omp parallel for\n            for (long i = 1; i <= m; i++)\n                for (long j = w - 2; j >= 1; j--)\n                    unew[i * w + j] = 0.25 * ((u[i * w + j - 1] + u[i * w + j + 1]) +\n                                              (u[(i - 1) * w + j] + u[(i + 1) * w + j]));\n#pragma omp parallel for\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n        }\n    }\n#pragma omp target exit data map(from : u[0:n]) map(release : unew[0:n]) device(device)\n}\n',
          why="the sweep's target region maps its scalars to the device itself (R15mapto)"),
    # the watch of the device's other memory (declare target data, other mappings, the construct's
    # own fresh mappings) must not take a right answer's own use of them for the host's writes
    right("jacobi_offload", '%%c JACOBI_C offload_halo\n#pragma omp declare target\nstatic long sweeps_done;\nstatic double quarter = 0.25;\n#pragma omp end declare target\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n        exchange_rows(u, m, w, comm);\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n#pragma omp target device(device)\n        {\n#pragma omp parallel for\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = quarter * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                                 u[i * w + j - 1] + u[i * w + j + 1]);\n#pragma omp parallel for\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n            sweeps_done++;\n        }\n    }\n#pragma omp target update from(sweeps_done) device(device)\n    if (sweeps_done != iterations) u[w + 1] = -1.0;\n}\n',
          why="a declare-target counter the sweep's region increments and a declare-target "
              "coefficient, the counter read back by target update"),
    right("jacobi_offload", '%%c JACOBI_C offload_halo\n#include <stdlib.h>\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n    double *tmp = malloc((size_t)n * sizeof(double));\n    long steps = 0;\n#pragma omp target enter data map(to : u[0:n]) map(alloc : tmp[0:n]) map(alloc : steps) device(device)\n    for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n        exchange_rows(u, m, w, comm);\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n#pragma omp target teams distribute parallel for device(device) map(to : m, w)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++)\n                tmp[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                         u[i * w + j - 1] + u[i * w + j + 1]);\n#pragma omp target teams distribute parallel for device(device)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++) u[i * w + j] = tmp[i * w + j];\n#pragma omp target device(device)\n        steps = it + 1;\n    }\n#pragma omp target exit data map(from : u[0:n], steps) map(delete : tmp[0:n]) device(device)\n    (void)unew;\n    free(tmp);\n}\n',
          why="a scratch array of its own mapped alloc by enter data, map(to: m, w) on the sweep's "
              "region, a mapped step counter the device sets"),
    # fixer f21's right answer (2026-12-05): a residual summed by reduction(+: change) on the
    # copy's region, 8 bytes each way an iteration beside the halo (lost 6/6 to the transfer
    # budget of the halo's rows alone; 16 bytes of scalars an iteration are allowed now)
    right("jacobi_offload", '%%c JACOBI_C offload_halo\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n    double change = 0.0;\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n        exchange_rows(u, m, w, comm);\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++)\n                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                          u[i * w + j - 1] + u[i * w + j + 1]);\n#pragma omp target teams distribute parallel for collapse(2) device(device) reduction(+ : change)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++) {\n                change += (unew[i * w + j] - u[i * w + j]) * (unew[i * w + j] - u[i * w + j]);\n                u[i * w + j] = unew[i * w + j];\n            }\n    }\n}\n',
          why="a residual by reduction on the copy's target region"),
    # a fresh attacker's right answers (attackS, 2026-12-05), kept 6/6 when the halo's rows must
    # arrive by MPI and the device hold only the block: its own two MPI_Sendrecv with the rows
    # updated only toward neighbours that exist, unew map(alloc:); enter/exit data with one
    # `target parallel` region an iteration holding the stencil and the copy as two `omp for`
    right("jacobi_offload", '%%c JACOBI_C offload_halo\n/* my own two MPI_Sendrecv, and the rows written back with a pointer swap avoided: the stencil\n * alternates u -> unew and a device-side copy of the interior (target teams loop) */\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;\n    const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n]) device(device)\n    for (long it = 0; it < iterations; it++) {\n        if (down != MPI_PROC_NULL) {\n#pragma omp target update from(u[m * w:w]) device(device)\n        }\n        if (up != MPI_PROC_NULL) {\n#pragma omp target update from(u[w:w]) device(device)\n        }\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 7, u, (int)w, MPI_DOUBLE, up, 7, comm,\n                     MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 8, u + (m + 1) * w, (int)w, MPI_DOUBLE, down,\n                     8, comm, MPI_STATUS_IGNORE);\n        if (up != MPI_PROC_NULL) {\n#pragma omp target update to(u[0:w]) device(device)\n        }\n        if (down != MPI_PROC_NULL) {\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n        }\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++)\n                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                          u[i * w + j - 1] + u[i * w + j + 1]);\n#pragma omp target teams distribute parallel for collapse(2) device(device)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n    }\n}',
          why="its own MPI_Sendrecv, updates only toward existing neighbours (R15_sendrecv_dpf)"),
    right("jacobi_offload", "%%c JACOBI_C offload_halo\n/* enter/exit data instead of a data region; one target region per iteration: a single team\n * whose threads share the stencil loop, wait at the loop's barrier, then share the copy loop */\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)\n    for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n        exchange_rows(u, m, w, comm);\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n#pragma omp target parallel device(device)\n        {\n#pragma omp for collapse(2)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++)\n                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n                                              u[i * w + j - 1] + u[i * w + j + 1]);\n#pragma omp for collapse(2)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n        }\n    }\n#pragma omp target exit data map(from : u[0:n]) map(delete : unew[0:n]) device(device)\n}",
          why="enter/exit data, one target parallel region with two omp for (R15_enterexit_onereg)"),
]

# f40's left item (2026-12-06): halo rows received by a matched probe's MPI_Mrecv / MPI_Imrecv or by
# MPI-4 partitioned requests were not read by offload_halo's receive watch (0/6: "the halo row ...
# arrived by MPI for 0 of the first 9 iterations"); the offload build now wraps those receives too
HONEST += [
    right("jacobi_offload", '%%c JACOBI_C offload_halo\n/* the halo rows received by matched probes: blocking from above, polled from below */\nstatic void halo(double *u, long m, long w, int up, int down, MPI_Comm comm) {\n    MPI_Request sends[2], got;\n    MPI_Message from_up, from_down;\n    int found = 0;\n    MPI_Isend(u + w, (int)w, MPI_DOUBLE, up, 5, comm, &sends[0]);\n    MPI_Isend(u + m * w, (int)w, MPI_DOUBLE, down, 5, comm, &sends[1]);\n    MPI_Mprobe(up, 5, comm, &from_up, MPI_STATUS_IGNORE);\n    MPI_Mrecv(u, (int)w, MPI_DOUBLE, &from_up, MPI_STATUS_IGNORE);\n    while (!found) MPI_Improbe(down, 5, comm, &found, &from_down, MPI_STATUS_IGNORE);\n    MPI_Imrecv(u + (m + 1) * w, (int)w, MPI_DOUBLE, &from_down, &got);\n    MPI_Wait(&got, MPI_STATUS_IGNORE);\n    MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);\n}\n\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n        halo(u, m, w, up, down, comm);\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n#pragma omp target teams distribute parallel for device(device)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++)\n                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] +\n                                          u[i * w + j + 1]);\n#pragma omp target teams distribute parallel for device(device)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n    }\n}\n',
          why="halo rows by MPI_Mprobe + MPI_Mrecv from above, MPI_Improbe + MPI_Imrecv from below"),
    right("jacobi_offload", '%%c JACOBI_C offload_halo\n/* the halo rows by MPI-4 partitioned requests (one partition), made once, started each iteration */\nvoid jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,\n                    MPI_Comm comm) {\n    const long n = (m + 2) * w;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;\n    MPI_Request req[4];\n    int k = 0;\n    if (up != MPI_PROC_NULL) {\n        MPI_Precv_init(u, 1, w, MPI_DOUBLE, up, 7, comm, MPI_INFO_NULL, &req[k++]);\n        MPI_Psend_init(u + w, 1, w, MPI_DOUBLE, up, 8, comm, MPI_INFO_NULL, &req[k++]);\n    }\n    if (down != MPI_PROC_NULL) {\n        MPI_Precv_init(u + (m + 1) * w, 1, w, MPI_DOUBLE, down, 8, comm, MPI_INFO_NULL, &req[k++]);\n        MPI_Psend_init(u + m * w, 1, w, MPI_DOUBLE, down, 7, comm, MPI_INFO_NULL, &req[k++]);\n    }\n#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)\n    for (long it = 0; it < iterations; it++) {\n#pragma omp target update from(u[w:w]) device(device)\n#pragma omp target update from(u[m * w:w]) device(device)\n        MPI_Startall(k, req);\n        for (int p = 1; p < k; p += 2) MPI_Pready(0, req[p]);\n        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);\n#pragma omp target update to(u[0:w]) device(device)\n#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n#pragma omp target teams distribute parallel for device(device)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++)\n                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] +\n                                          u[i * w + j + 1]);\n#pragma omp target teams distribute parallel for device(device)\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];\n    }\n    for (int p = 0; p < k; p++) MPI_Request_free(&req[p]);\n}\n',
          why="halo rows by MPI-4 partitioned requests (one partition), none toward MPI_PROC_NULL"),
]

# attacker S's R15a_eval (2026-12-06, full points)
HONEST.append(right('per_iteration', r"""
def per_iteration(offload, iterations):
    # the window holds iterations 2..iterations: iterations - 1 of them
    per = float(iterations - 1)
    out = offload.eval(f"h2d = h2d_between / {per!r}\nd2h = d2h_between / {per!r}\nhalo = row_bytes * 2.0")
    return out.set_index("rank")[["h2d", "d2h", "halo"]].astype(float)
""", why='DataFrame.eval with the three columns'))

# attacker S's R15_enterexit_onereg (2026-12-06, full points)
HONEST.append(right('jacobi_offload', r"""
%%c JACOBI_C offload_halo
/* enter/exit data instead of a data region; one target region per iteration: a single team
 * whose threads share the stencil loop, wait at the loop's barrier, then share the copy loop */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target parallel device(device)
        {
#pragma omp for collapse(2)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                              u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp for collapse(2)
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
        }
    }
#pragma omp target exit data map(from : u[0:n]) map(delete : unew[0:n]) device(device)
}
""", why='target enter/exit data, one target parallel region per iteration with two omp for loops'))

# A5's right answer (2026-12-07, full points): the first iteration's edge rows not copied back
# (the host's u still holds them), its own two MPI_Sendrecv, one update a row
HONEST.append(right('jacobi_offload', r"""
%%c JACOBI_C offload_halo
/* right answer written differently: unstructured enter/exit data, my own two MPI_Sendrecv, one
 * update directive per row, collapse(2) regions. */
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    long n = (m + 2) * w;
#pragma omp target enter data map(to : u[0:n], unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
        if (it > 0) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        }
        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 3, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 3, comm,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 4, u, (int)w, MPI_DOUBLE, up, 4, comm,
                     MPI_STATUS_IGNORE);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
    }
#pragma omp target exit data map(from : u[0:n]) map(release : unew[0:n]) device(device)
}
""", why="enter/exit data, no update from in the first iteration, its own two MPI_Sendrecv"))
