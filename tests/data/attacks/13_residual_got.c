%%c RESIDUAL_C neighbour_halo
typedef int (*allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);

/* The residual is reduced by a BLOCKING MPI_Allreduce (MPI's own, from the GOT: not traced); a
 * zero-effect MPI_Iallreduce is posted before the next iteration and waited for after it, so the
 * trace shows one non-blocking reduction per iteration with the computing inside its window. */
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    allreduce_fn ar = (allreduce_fn)imported("MPI_Allreduce");
    double local = jacobi_iteration(), g = 0.0;
    ar(&local, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
    for (long k = 1;; k++) {
        MPI_Request q;
        double d = 0.0, e = 0.0, next = 0.0;
        int more = k < max_iterations;
        MPI_Iallreduce(&d, &e, 1, MPI_DOUBLE, MPI_SUM, comm, &q);
        if (more) next = jacobi_iteration();
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (g < tolerance || !more) return g;
        ar(&next, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
    }
}
