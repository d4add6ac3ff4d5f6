/* node_sum: a sum over every thread of every rank, made node-aware (lab 06 exercise).
 *
 * Each OpenMP thread t of rank r holds n values, value(r, t, i) (whole numbers, so every order
 * of summing gives the same doubles). Every thread must end with their sum over all threads of
 * all ranks. variant=flat (the kit's): the threads' values are added up per rank, then one
 * MPI_Allreduce over all ranks. variant=student (built by hybridlab.mapping.exercise with the
 * student's code): split_nodes() makes a communicator per node (MPI_Comm_split_type,
 * MPI_COMM_TYPE_SHARED) and one of the node leaders (rank 0 of each node), then node_sum(),
 * called by every thread of a parallel region, adds the threads' values, reduces them onto the
 * node's leader, allreduces between leaders and broadcasts on each node; only the master thread
 * calls MPI (MPI_THREAD_FUNNELED).
 *
 * ranks_per_node > 0 makes up nodes of that many consecutive ranks (hl_nodes.h), so the node
 * levels are exercised on one machine; 0 uses the real nodes (one node on one machine).
 *
 * Checks, on every rank: the student's communicators hold the same ranks as the kit's
 * (hl_node_split, hl_node_leaders) and every thread's sum equals MPI_Allreduce of the ranks'
 * sums over comm, element by element, in each of `ref.reps` repetitions.
 * Records: "node" per rank (node = world rank of its leader, node_rank, node_size, leader,
 * nodes); "time" per repetition on rank 0 (seconds of the sum, slowest rank); "check" on rank 0
 * (ok, same_node, same_leaders, wrong = values wrong summed over threads and repetitions).
 */
#include "hybridlab.h"
#include "hl_nodes.h"

#ifdef HL_STUDENT_NODES
#include "node_sum_student.h"
#endif

const char *const hl_kernel_description =
    "a sum over all threads of all ranks: flat (one MPI_Allreduce) or node-aware (reduce on a "
    "node leader, allreduce between leaders, broadcast on the node), checked element by element";

const hl_param hl_kernel_params[] = {
    HL_NODES_PARAMS,
    {"n", "1000", "values per thread"},
    HL_END_PARAMS,
};

/* Drawn by each rank for each run and told to no other (a student's unit cannot reach it): the sum
 * of every rank's values cannot be written down without the messages that carry them. */
static long salt;

static double value(int rank, int thread, long i) {
    return (double)((long)(rank * 64 + thread + 1) * 1000 + (i + salt) % 991);
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    long n = hl_param_long(ctx, "n", 1, &ok);
    if (!ok) return -1;
    if (n > (1L << 24)) return hl_fail(ctx, "parameter n=%ld is too large (at most 2^24)", n);
    int rank = ctx->rank, size = ctx->size, threads = omp_get_max_threads();
    salt = (long)(fmod(hl_now() * 1e9, 99991.0)) + 17L * rank;
    hl_nodes ref;
    if (hl_nodes_make(ctx, comm, &ref) != 0) return -1;
    MPI_Comm node = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
#ifdef HL_STUDENT_NODES
    if (ref.variant == HL_STUDENT) split_nodes(comm, &node, &leaders);
#endif
    if (ref.variant == HL_FLAT) {
        node = ref.node;
        leaders = ref.leaders;
    }
    int same[2] = {hl_same_group(node, ref.node), hl_same_group(leaders, ref.leaders)};
    MPI_Allreduce(MPI_IN_PLACE, same, 2, MPI_INT, MPI_MIN, comm);
    hl_emit(ctx, "\"record\":\"node\",\"node\":%d,\"node_rank\":%d,\"node_size\":%d,\"leader\":%d,"
                 "\"nodes\":%d,\"ranks_per_node\":%ld",
            ref.leader, ref.node_rank, ref.node_size, ref.node_rank == 0, ref.nodes,
            ref.ranks_per_node);

    double *want = malloc((size_t)n * sizeof *want), *rank_sum = malloc((size_t)n * sizeof *want);
    double *sum = malloc((size_t)n * sizeof *want);
    if (!want || !rank_sum || !sum) {
        free(want), free(rank_sum), free(sum), hl_nodes_free(&ref);
        return hl_fail(ctx, "no memory for %ld values", n);
    }
    for (long i = 0; i < n; i++) {
        rank_sum[i] = 0.0;
        for (int t = 0; t < threads; t++) rank_sum[i] += value(rank, t, i);
    }
    MPI_Allreduce(rank_sum, want, (int)n, MPI_DOUBLE, MPI_SUM, comm); /* the reference */

    long wrong = 0;
    for (long rep = 0; rep < ref.reps && same[0] && same[1]; rep++) {
        for (long i = 0; i < n; i++) rank_sum[i] = 0.0, sum[i] = NAN;
        double t0 = hl_start_together(comm);
        if (ref.variant == HL_FLAT) {
            for (long i = 0; i < n; i++)
                for (int t = 0; t < threads; t++) rank_sum[i] += value(rank, t, i);
            MPI_Allreduce(rank_sum, sum, (int)n, MPI_DOUBLE, MPI_SUM, comm);
        }
#pragma omp parallel num_threads(threads) reduction(+ : wrong)
        {
            int t = omp_get_thread_num();
            double *mine = malloc((size_t)n * sizeof *mine);
            for (long i = 0; i < n && mine; i++) mine[i] = value(rank, t, i);
#ifdef HL_STUDENT_NODES
            if (ref.variant == HL_STUDENT) node_sum(mine, rank_sum, sum, (int)n, node, leaders);
#endif
            for (long i = 0; i < n; i++) wrong += sum[i] != want[i]; /* each thread's own view */
            free(mine);
        }
        double seconds = hl_slowest_since(comm, t0);
        if (rank == 0) hl_emit(ctx, "\"record\":\"time\",\"repetition\":%ld,\"seconds\":%.9g", rep, seconds);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    if (rank == 0)
        hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"same_node\":%d,\"same_leaders\":%d,"
                     "\"wrong\":%ld,\"values\":%ld,\"variant\":\"%s\"",
                same[0] && same[1] && wrong == 0, same[0], same[1], wrong,
                n * threads * size * ref.reps, hl_node_variant_names[ref.variant]);
    if (ref.variant == HL_STUDENT) {
        if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
        if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
    }
    hl_nodes_free(&ref);
    free(want);
    free(rank_sum);
    free(sum);
    return 0;
}
