"""Answers of the instructor solutions (C of labs 01, 02, 06 and 11; lab 11 (b) in Python) that the kit's tests and the wrong
answers share: one copy of each, so the code a test checks is the code a wrong answer breaks."""

# lab 01 (b): every thread exchanges its own block at SERIALIZED (kernels_c/thread_ring.c)
RING_EXCHANGE = r"""
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int tag = omp_get_thread_num();
    MPI_Request requests[2];
#pragma omp critical(mpi)
    {
        MPI_Irecv(recv, n, MPI_INT, left, tag, comm, &requests[0]);
        MPI_Issend(send, n, MPI_INT, right, tag, comm, &requests[1]);
    }
    int done = 0;
    while (!done) {
#pragma omp critical(mpi)
        MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
}
"""

# lab 02 (d): the atomic construct measured the EPCC way (kernels_c/construct_bench.c)
CONSTRUCT_ATOMIC = r"""
const char *const construct_name = "atomic";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp atomic
        s->updates += 1;
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""

# lab 06 (e): node-aware ranks, one leader per node (kernels_c/node_sum.c)
NODE_SUM = r"""
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, node_rank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &node_rank);
    MPI_Comm_split(world, node_rank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
#pragma omp critical
    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
#pragma omp barrier
#pragma omp masked
    {
        int node_rank;
        MPI_Comm_rank(node, &node_rank);
        MPI_Reduce(node_rank == 0 ? MPI_IN_PLACE : rank_sum, rank_sum, n, MPI_DOUBLE, MPI_SUM, 0,
                   node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
"""

# lab 11 (a): the shared-window halo step with a fence per iteration (kernels_c/shm_halo.c)
SHM_JACOBI = r"""
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *mine, *above = NULL, *below = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    MPI_Aint bytes;
    int unit;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes, &unit, &below);
    int up = rank > 0 && !above ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 && !below ? rank + 1 : MPI_PROC_NULL;
    int n = (int)shm_row_length();
    shm_init_block(mine);
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        if (up != MPI_PROC_NULL)
            MPI_Sendrecv(shm_first_row(mine, it), n, MPI_DOUBLE, up, 1, halo_above, n,
                         MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), n, MPI_DOUBLE, down, 2, halo_below, n,
                         MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
        shm_sweep(mine, above, below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
"""

# lab 11 (b), Python: the prediction, the measurement and a grid of the student's own
SHM_SAVING = '''
def predict_saving(nx, ny, ranks):
    pure = 2 * (ny + 2 * ranks) * (nx + 2) * 8
    shared = 2 * ny * (nx + 2) * 8 + 2 * (nx + 2) * 8
    return pure - shared


def measured_saving(table):
    pss = table.groupby("model")["pss_mb"].mean()
    return float(pss["pure MPI"] - pss["MPI+MPI (shared window)"]) * 1e6


MY_NX, MY_NY = 3 * 2**15, 40
'''

# lab 15 (b): the grid resident on the device, only the halo rows updated around the exchange
OFFLOAD_RESIDENT = r"""
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
#pragma omp target data map(tofrom : u[0:n]) map(alloc : unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                          u[i * w + j - 1] + u[i * w + j + 1]);
#pragma omp target teams distribute parallel for collapse(2) device(device)
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
    }
}
"""
