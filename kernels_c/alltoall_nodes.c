/* alltoall_nodes: MPI_Alltoall in two levels through node leaders (lab 07 exercise).
 *
 * P ranks, L consecutive ranks per node (ranks_per_node; 0: the real nodes, which on one machine
 * is one node of all P ranks), so world rank = node * L + node rank. variant=flat times
 * MPI_Alltoall itself; variant=student (built by hybridlab.collectives.exercise with the
 * student's code) calls alltoall_nodes(), which must do the same exchange in two levels: gather
 * the node's send buffers on its leader, exchange between the leaders (one message per pair of
 * nodes, L*L times larger than one rank's), and scatter on the node. The kit makes the node and
 * leader communicators (hl_nodes.h); the student's code runs on the master thread outside any
 * parallel region and may use OpenMP threads for its copies, MPI only where FUNNELED allows.
 *
 * Check: every value each rank receives equals what MPI_Alltoall delivers, element by element
 * (value (r, d, k) = (r * P + d) * count + k plus a salt rank r draws per run and keeps to itself,
 * so a value out of place is seen and none can be known without its message), in every one of
 * `nodes.reps` repetitions. Records: "time" per variant and repetition on rank 0 (slowest rank);
 * "check" on rank 0 (ok, wrong = values wrong over all ranks and repetitions, values, nodes).
 */
#include "hybridlab.h"
#include "hl_nodes.h"

#ifdef HL_STUDENT_ALLTOALL
#include "alltoall_nodes_student.h"
#endif

const char *const hl_kernel_description =
    "MPI_Alltoall flat, or in two levels through node leaders (gather, leaders' exchange, "
    "scatter), every received value checked against MPI_Alltoall";

const hl_param hl_kernel_params[] = {
    HL_NODES_PARAMS,
    {"count", "4", "doubles each rank sends to each rank"},
    HL_END_PARAMS,
};

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long count = hl_param_long(ctx, "count", 1, &ok);
    if (!ok) return -1;
    int rank = ctx->rank, size = ctx->size;
    if (count * size > (1L << 22)) return hl_fail(ctx, "count=%ld is too large", count);
    hl_nodes nodes;
    if (hl_nodes_make(ctx, comm, &nodes) != 0) return -1;
    int per_node = nodes.node_size, consecutive = rank == nodes.leader + nodes.node_rank;
    int mine[3] = {per_node, -per_node, !consecutive};
    MPI_Allreduce(MPI_IN_PLACE, mine, 3, MPI_INT, MPI_MAX, comm);
    if (mine[0] != -mine[1] || mine[2] || size % per_node != 0) {
        hl_nodes_free(&nodes);
        return hl_fail(ctx, "nodes must hold the same number of consecutive ranks (%d ranks, "
                            "ranks_per_node=%ld)", size, nodes.ranks_per_node);
    }

    size_t n = (size_t)count * (size_t)size;
    double *send = malloc(n * sizeof *send), *recv = malloc(n * sizeof *recv);
    double *want = malloc(n * sizeof *want);
    if (!send || !recv || !want) {
        free(send), free(recv), free(want), hl_nodes_free(&nodes);
        return hl_fail(ctx, "no memory for %zu values", n);
    }
    /* a salt each rank draws for this run and tells no other: what a rank receives cannot be
     * written down without the messages (the reference below is the kit's own MPI_Alltoall) */
    double salt = floor(fmod(hl_now() * 1e9, 99991.0)) + 17.0 * rank;
    for (size_t i = 0; i < n; i++) send[i] = (double)((size_t)rank * n + i) + salt;
    MPI_Alltoall(send, (int)count, MPI_DOUBLE, want, (int)count, MPI_DOUBLE, comm);

    long wrong = 0;
    for (long rep = 0; rep < nodes.reps; rep++) {
        for (size_t i = 0; i < n; i++) recv[i] = NAN;
        double t0 = hl_start_together(comm);
        if (nodes.variant == HL_FLAT)
            MPI_Alltoall(send, (int)count, MPI_DOUBLE, recv, (int)count, MPI_DOUBLE, comm);
#ifdef HL_STUDENT_ALLTOALL
        if (nodes.variant == HL_STUDENT)
            alltoall_nodes(send, recv, (int)count, comm, nodes.node, nodes.leaders);
#endif
        double seconds = hl_slowest_since(comm, t0);
        for (size_t i = 0; i < n; i++) wrong += memcmp(&recv[i], &want[i], sizeof *recv) != 0;
        if (rank == 0)
            hl_emit(ctx, "\"record\":\"time\",\"variant\":\"%s\",\"repetition\":%ld,\"seconds\":%.9g",
                    hl_node_variant_names[nodes.variant], rep, seconds);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    if (rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"wrong\":%ld,\"values\":%ld,\"nodes\":%d,"
                     "\"ranks_per_node\":%d,\"variant\":\"%s\"",
                wrong == 0, wrong, (long)n * size * nodes.reps, nodes.nodes, per_node,
                hl_node_variant_names[nodes.variant]);
    hl_nodes_free(&nodes);
    free(send);
    free(recv);
    free(want);
    return 0;
}
