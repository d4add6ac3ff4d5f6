/* WRONG: the window's neighbour blocks are copied whole into private buffers (a halo copy of the entire block, exactly what the window should avoid) right after each fence */
void shm_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below) {
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *mine = NULL, *qa = NULL, *qb = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    MPI_Aint sza = 0, szb = 0; int du;
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &sza, &du, &qa);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &szb, &du, &qb);
    double *ca = qa ? malloc((size_t)sza) : NULL, *cb = qb ? malloc((size_t)szb) : NULL;
    int up = (rank > 0 && nrank == 0) ? rank - 1 : MPI_PROC_NULL;
    int down = (rank < size - 1 && nrank == nsize - 1) ? rank + 1 : MPI_PROC_NULL;
    int n = (int)shm_row_length();
    shm_init_block(mine);
    for (long it = 0; it < iterations; it++) {
        MPI_Win_fence(0, win);
        if (qa) memcpy(ca, qa, (size_t)sza);
        if (qb) memcpy(cb, qb, (size_t)szb);
        if (up != MPI_PROC_NULL)
            MPI_Sendrecv(shm_first_row(mine, it), n, MPI_DOUBLE, up, 11, halo_above, n, MPI_DOUBLE, up, 12, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), n, MPI_DOUBLE, down, 12, halo_below, n, MPI_DOUBLE, down, 11, comm, MPI_STATUS_IGNORE);
        shm_sweep(mine, ca, cb, it);
    }
    MPI_Win_fence(0, win);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    free(ca); free(cb);
}
