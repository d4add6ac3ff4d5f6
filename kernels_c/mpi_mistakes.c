/* mpi_mistakes: a ring exchange of a hybrid program, right or with one MPI usage error (lab 16).
 *
 * Every rank computes with its OpenMP threads, then passes a value to its right neighbour and
 * receives one from its left, `rounds` times; the kit's tracer records every MPI call with its
 * thread (build with trace_mpi=True). The student reads the trace and names the error:
 *     mistake=none      the master thread posts MPI_Irecv and MPI_Isend and completes both with
 *                       MPI_Waitall, outside the parallel region (FUNNELED is enough), or inside
 *                       it (inside=1: thread 0, the main thread, alone; FUNNELED allows that too);
 *     mistake=level     on rank `culprit`, thread 1 makes the exchange's calls inside the parallel
 *                       region: a call MPI_THREAD_FUNNELED does not allow (nested=1: from a nested
 *                       region of one thread, where its OpenMP number is 0: still not the main one);
 *     mistake=request   rank `culprit` starts one request more and never completes it (no Wait or
 *                       Test ever finishes it): leak=send an MPI_Isend its neighbour receives with
 *                       MPI_Recv, leak=recv an MPI_Irecv its neighbour's MPI_Send fills; tag
 *                       `extra_tag`;
 *     mistake=deadlock  every rank waits to receive before it sends: nobody sends. Each rank polls
 *                       its receive (MPI_Test) instead of blocking in MPI_Recv, so that after
 *                       `patience_ms` it gives up; once every rank has (MPI_Barrier: every rank's
 *                       trace shows its polls that found nothing, however late it started) it
 *                       sends, and the run ends with its trace written (a real MPI_Recv would wait
 *                       until the run is killed, and a trace written at the end would never be).
 * check=1: after completing its requests, each rank tests them once more with MPI_Test (a check
 * that finds them done: done 1). Round k's messages have tag `tag` + k.
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
    {"tag", "0", "round k's messages have tag + k"},
    {"extra_tag", "99", "request: the tag of the request never completed"},
    {"leak", "send", "request: send (one MPI_Isend more) | recv (one MPI_Irecv more)"},
    {"inside", "0", "1: the master thread makes the exchange inside the parallel region"},
    {"nested", "0", "level: 1: thread 1 calls from a nested region of one thread (number 0)"},
    {"check", "0", "1: each rank tests its completed requests once more (MPI_Test, done 1)"},
    HL_END_PARAMS,
};

static double compute(long round, int rank) {
    double s = 0.0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < 20000; i++) s += (double)((i + round + rank) % 7);
    return s;
}

/* The ring's exchange of one round: Irecv from the left, Isend to the right, Waitall; with
 * `check`, each (now completed) request tested once more. */
static void exchange(double *got, double *mine, int left, int right, int tag, int check,
                     MPI_Comm comm) {
    MPI_Request r[2];
    MPI_Irecv(got, 1, MPI_DOUBLE, left, tag, comm, &r[0]);
    MPI_Isend(mine, 1, MPI_DOUBLE, right, tag, comm, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    for (int i = 0; check && i < 2; i++) {
        int done = 0;
        MPI_Test(&r[i], &done, MPI_STATUS_IGNORE); /* MPI_REQUEST_NULL now: done */
    }
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    static const char *const mistakes[] = {"none", "level", "request", "deadlock"};
    static const char *const leaks[] = {"send", "recv"};
    int ok = 1;
    int mistake = hl_param_choice(ctx, "mistake", mistakes, 4);
    int leak = hl_param_choice(ctx, "leak", leaks, 2);
    long culprit = hl_param_long(ctx, "culprit", 0, &ok);
    long rounds = hl_param_long(ctx, "rounds", 1, &ok);
    long patience = hl_param_long(ctx, "patience_ms", 1, &ok);
    long tag0 = hl_param_long(ctx, "tag", 0, &ok);
    long extra_tag = hl_param_long(ctx, "extra_tag", 0, &ok);
    long inside = hl_param_long(ctx, "inside", 0, &ok);
    long nested = hl_param_long(ctx, "nested", 0, &ok);
    long check = hl_param_long(ctx, "check", 0, &ok);
    if (!ok || mistake < 0 || leak < 0) return -1;
    if (tag0 + rounds > 32767 || extra_tag > 32767)
        return hl_fail(ctx, "tags up to 32767 (tag + rounds, extra_tag)");
    if (culprit >= ctx->size) return hl_fail(ctx, "culprit=%ld: there are %d ranks", culprit, ctx->size);
    if (mistake == 1 && omp_get_max_threads() < 2)
        return hl_fail(ctx, "mistake=level needs 2 or more threads (thread 1 makes the calls)");
    int right = (ctx->rank + 1) % ctx->size, left = (ctx->rank + ctx->size - 1) % ctx->size;
    long wrong = 0;
    MPI_Request extra = MPI_REQUEST_NULL;
    for (long k = 0; k < rounds; k++) {
        double mine = compute(k, ctx->rank) + ctx->rank, got = -1.0;
        int tag = (int)(tag0 + k);
        if (mistake == 1 && ctx->rank == culprit) {
#pragma omp parallel
            if (omp_get_thread_num() == 1) { /* not the master: FUNNELED forbids this */
                if (nested) {
#pragma omp parallel num_threads(1)
                    exchange(&got, &mine, left, right, tag, (int)check, comm); /* its number: 0 */
                } else {
                    exchange(&got, &mine, left, right, tag, (int)check, comm);
                }
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
            MPI_Barrier(comm); /* every rank has polled in vain: nobody had sent */
            MPI_Send(&mine, 1, MPI_DOUBLE, right, tag, comm); /* given up: send after all */
            if (!done) MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (inside) { /* the main thread alone, inside the region: FUNNELED allows it */
#pragma omp parallel
            if (omp_get_thread_num() == 0) exchange(&got, &mine, left, right, tag, (int)check, comm);
        } else {
            exchange(&got, &mine, left, right, tag, (int)check, comm);
        }
        wrong += got != compute(k, left) + left;
    }
    if (mistake == 2 && leak == 0) { /* one message more, whose send request is never completed */
        static double late = 1.0;
        double into = 0.0;
        if (ctx->rank == culprit) MPI_Isend(&late, 1, MPI_DOUBLE, right, (int)extra_tag, comm, &extra);
        if (left == culprit)
            MPI_Recv(&into, 1, MPI_DOUBLE, left, (int)extra_tag, comm, MPI_STATUS_IGNORE);
    } else if (mistake == 2) { /* one receive more, its request never completed */
        static double into = 0.0;
        double sent = 1.0;
        if (ctx->rank == culprit) MPI_Irecv(&into, 1, MPI_DOUBLE, left, (int)extra_tag, comm, &extra);
        if (right == culprit) MPI_Send(&sent, 1, MPI_DOUBLE, right, (int)extra_tag, comm);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    if (ctx->rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"wrong\":%ld", wrong == 0, wrong);
    return 0;
}
