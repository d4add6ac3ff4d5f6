/* WRONG: no thread receives its own block: thread t receives the block meant for thread t+1 (tag t+1) into that thread's buffer, found through a shared pointer table and barriers */
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "every thread exchanges a block");
}

static int *table[256];

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    int other = (t + 1) % T;
    table[t] = recv;
#pragma omp barrier
    MPI_Request req[2];
#pragma omp critical(hl_mpi)
    {
        MPI_Irecv(table[other], n, MPI_INT, left, other, comm, &req[0]);
        MPI_Issend(send, n, MPI_INT, right, t, comm, &req[1]);
    }
    int done = 0;
    while (!done) {
#pragma omp critical(hl_mpi)
        MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        if (!done) hl_sleep_us(20);
    }
#pragma omp barrier
}
