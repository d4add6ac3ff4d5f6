    "{{lab}}": Broken(
        "global_sum",
        c_cell("SUM_C", "{{kernel}}", (
            "void global_sum(const double *mine, double *sum, int n, MPI_Comm comm) {\n"
            "    int rank;\n    MPI_Comm_rank(comm, &rank);\n"
            "    if (rank == 1) { volatile int *p = 0; *p = 1; }\n"
            "    MPI_Allreduce(mine, sum, n, MPI_DOUBLE, MPI_SUM, comm);\n}")),
        frozenset({"hidden_global_sum"}),
        "KernelCrash",
    ),
