/* WRONG: every fence asserts MPI_MODE_NOSTORE|NOPUT|NOPRECEDE, which is false (each sweep stored into the window): the fence is allowed to skip the synchronisation the lab requires */
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *mine = NULL, *above = NULL, *below = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    MPI_Aint sz; int du;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &sz, &du, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &sz, &du, &below);
    int up = (rank > 0 && nrank == 0) ? rank - 1 : MPI_PROC_NULL;
    int down = (rank < size - 1 && nrank == nsize - 1) ? rank + 1 : MPI_PROC_NULL;
    int n = (int)shm_row_length();
    shm_init_block(mine);
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE, win);
        if (up != MPI_PROC_NULL)
            MPI_Sendrecv(shm_first_row(mine, it), n, MPI_DOUBLE, up, 11, halo_above, n, MPI_DOUBLE, up, 12, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), n, MPI_DOUBLE, down, 12, halo_below, n, MPI_DOUBLE, down, 11, comm, MPI_STATUS_IGNORE);
        shm_sweep(mine, above, below, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
