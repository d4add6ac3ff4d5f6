/* mpi_mistakes: a ring exchange of a hybrid program, right or with one MPI usage error (lab 16).
 *
 * Every rank computes with its OpenMP threads, then passes a value to its right neighbour and
 * receives one from its left, `rounds` times; the kit's tracer records every MPI call with its
 * thread (build with trace_mpi=True). The student reads the trace and names the error:
 *     mistake=none      the master thread posts MPI_Irecv and MPI_Isend and completes both with
 *                       MPI_Waitall, outside the parallel region (FUNNELED is enough);
 *     mistake=level     on rank `culprit`, thread 1 makes the exchange's calls inside the parallel
 *                       region: a call MPI_THREAD_FUNNELED does not allow;
 *     mistake=request   rank `culprit` sends one more message with MPI_Isend and never completes
 *                       its request (no Wait or Test ever finishes it; its neighbour receives it);
 *     mistake=deadlock  every rank waits to receive before it sends: nobody sends. Each rank polls
 *                       its receive (MPI_Test) instead of blocking in MPI_Recv, so that after
 *                       `patience_ms` it gives up, sends, and the run ends with its trace written
 *                       (a real MPI_Recv would wait until the run is killed, and a trace written at
 *                       the end would never be).
 * Records: "check" on rank 0 (ok: every round received what the left neighbour sent).
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "a ring exchange after OpenMP compute, right or with one MPI usage error, for the tracer";

const hl_param hl_kernel_params[] = {
    {"mistake", "none", "none | level | request | deadlock"},
    {"culprit", "0", "the rank that makes the mistake (level, request)"},
    {"rounds", "3", "exchanges"},
    {"patience_ms", "300", "deadlock: how long each rank polls its receive before it gives up"},
    HL_END_PARAMS,
};

static double compute(long round, int rank) {
    double s = 0.0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < 20000; i++) s += (double)((i + round + rank) % 7);
    return s;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    static const char *const mistakes[] = {"none", "level", "request", "deadlock"};
    int ok = 1;
    int mistake = hl_param_choice(ctx, "mistake", mistakes, 4);
    long culprit = hl_param_long(ctx, "culprit", 0, &ok);
    long rounds = hl_param_long(ctx, "rounds", 1, &ok);
    long patience = hl_param_long(ctx, "patience_ms", 1, &ok);
    if (!ok || mistake < 0) return -1;
    if (culprit >= ctx->size) return hl_fail(ctx, "culprit=%ld: there are %d ranks", culprit, ctx->size);
    if (mistake == 1 && omp_get_max_threads() < 2)
        return hl_fail(ctx, "mistake=level needs 2 or more threads (thread 1 makes the calls)");
    int right = (ctx->rank + 1) % ctx->size, left = (ctx->rank + ctx->size - 1) % ctx->size;
    long wrong = 0;
    MPI_Request extra = MPI_REQUEST_NULL;
    for (long k = 0; k < rounds; k++) {
        double mine = compute(k, ctx->rank) + ctx->rank, got = -1.0;
        int tag = (int)k;
        if (mistake == 1 && ctx->rank == culprit) {
#pragma omp parallel
            if (omp_get_thread_num() == 1) { /* not the master: FUNNELED forbids this */
                MPI_Request r[2];
                MPI_Irecv(&got, 1, MPI_DOUBLE, left, tag, comm, &r[0]);
                MPI_Isend(&mine, 1, MPI_DOUBLE, right, tag, comm, &r[1]);
                MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            }
        } else if (mistake == 3) {
            MPI_Request r;
            int done = 0;
            MPI_Irecv(&got, 1, MPI_DOUBLE, left, tag, comm, &r);
            double until = hl_now() + (double)patience / 1e3;
            while (!done && hl_now() < until) { /* a receive before the send: nobody sends */
                MPI_Test(&r, &done, MPI_STATUS_IGNORE);
                if (!done) hl_sleep_us(2000);
            }
            MPI_Send(&mine, 1, MPI_DOUBLE, right, tag, comm); /* given up: send after all */
            if (!done) MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Request r[2];
            MPI_Irecv(&got, 1, MPI_DOUBLE, left, tag, comm, &r[0]);
            MPI_Isend(&mine, 1, MPI_DOUBLE, right, tag, comm, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
        wrong += got != compute(k, left) + left;
    }
    if (mistake == 2) { /* one message more, whose send request is never completed */
        static double late = 1.0;
        double into = 0.0;
        if (ctx->rank == culprit) MPI_Isend(&late, 1, MPI_DOUBLE, right, 99, comm, &extra);
        if (left == culprit) MPI_Recv(&into, 1, MPI_DOUBLE, left, 99, comm, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    if (ctx->rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"wrong\":%ld", wrong == 0, wrong);
    return 0;
}
