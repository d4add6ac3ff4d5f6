"""Lab 15: wrong answers (tests/wrong_answers/__init__.py), at least two per hidden part: the
runtime's windows divided by the wrong count or the halo taken as one row; a loop missing the
update after the exchange, one updating before the device's edge rows came back, one mapping
the block in every target region. RESIDENT and PER_ITERATION are the right answers the gaming
attempts start from."""

from solutions_c import OFFLOAD_RESIDENT
from wrong_answers import c_cell, changed, wrong

PER_ITERATION = r"""
def per_iteration(offload, iterations):
    rows = offload.set_index("rank")
    later = iterations - 1
    return pd.DataFrame({
        "h2d": rows["h2d_between"].astype(float) / later,
        "d2h": rows["d2h_between"].astype(float) / later,
        "halo": 2.0 * rows["row_bytes"].astype(float),
    })
"""

RESIDENT = c_cell("JACOBI_C", "offload_halo", OFFLOAD_RESIDENT)

WRONG = [
    wrong("per_iteration", changed(PER_ITERATION, "later = iterations - 1", "later = iterations"),
          {"hidden_per_iteration"}, "divides by every iteration, the first one included",
          reason="AssertionError: rank"),
    wrong("per_iteration", changed(PER_ITERATION, '"halo": 2.0 * rows', '"halo": 1.0 * rows'),
          {"hidden_per_iteration"}, "the halo as one row, not the two each way",
          reason="AssertionError: rank"),
    wrong("jacobi_offload", changed(
        RESIDENT, "#pragma omp target update to(u[0:w]) device(device)\n"
                  "#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n", ""),
          {"hidden_jacobi_offload"}, "no update after the exchange: the device keeps old halos",
          reason="AssertionError: wrong values"),
    wrong("jacobi_offload", changed(
        RESIDENT, "        exchange_rows(u, m, w, comm);\n", "").replace(
        "    for (long it = 0; it < iterations; it++) {\n",
        "    for (long it = 0; it < iterations; it++) {\n        exchange_rows(u, m, w, comm);\n"),
          {"hidden_jacobi_offload"},
          "the exchange before the edge rows came back: it sends the last iteration's edges",
          reason="AssertionError: wrong values"),
    wrong("jacobi_offload", c_cell("JACOBI_C", "offload_halo", r"""
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    for (long it = 0; it < iterations; it++) {  /* no data region: each region maps the block */
        exchange_rows(u, m, w, comm);
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
"""), {"hidden_jacobi_offload"}, "the block mapped in every target region: right values, the "
          "whole block moved each iteration", reason="the grid must stay on the device"),
]
