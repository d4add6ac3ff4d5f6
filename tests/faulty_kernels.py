"""C code that fails on purpose: a rank that segfaults, a ring of receives that deadlocks, and a
student halo exchange that deadlocks (every rank sends before it receives)."""

CRASH = r"""
#include "hybridlab.h"
const char *const hl_kernel_description = "one rank dereferences NULL";
const hl_param hl_kernel_params[] = {{"victim", "1", "the rank that crashes"}, HL_END_PARAMS};
int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long victim = hl_param_long(ctx, "victim", 0, &ok);
    if (!ok) return -1;
    if (ctx->rank == victim) { volatile int *p = NULL; *p = 1; }
    MPI_Barrier(comm);
    return 0;
}
"""

HANG = r"""
#include "hybridlab.h"
const char *const hl_kernel_description = "every rank receives first: a deadlock";
const hl_param hl_kernel_params[] = {HL_END_PARAMS};
int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int x = 0;
    MPI_Recv(&x, 1, MPI_INT, (ctx->rank + 1) % ctx->size, 0, comm, MPI_STATUS_IGNORE);
    return 0;
}
"""

# lab 04's exchange_halos written unsafely: MPI_Send is made synchronous, so this deadlocks
UNSAFE_EXCHANGE = r"""
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    MPI_Send(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm);
    MPI_Send(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm);
    MPI_Recv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    MPI_Recv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, MPI_STATUS_IGNORE);
}
"""
