"""C kernels that fail on purpose: a rank that segfaults and a ring of receives that deadlocks."""

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
