/* thread_levels: which MPI thread level did we ask for, which did we get, and which thread is main.
 *
 * MPI is initialised once per process, so this kernel is meant to run as a program
 * (`mpiexec -n 2 ./thread_levels --thread-level=serialized requested=serialized`): the header's
 * main() calls MPI_Init_thread with the level of --thread-level, and the `requested` parameter
 * tells the kernel which level that was (the library does not remember what was asked).
 *
 * The master thread reads the provided level with MPI_Query_thread before the parallel region
 * (the standard defines it as the value MPI_Init_thread returned in `provided`). Then every
 * OpenMP thread calls MPI_Query_thread and MPI_Is_thread_main itself and emits one record:
 *     requested, provided, query, is_thread_main, and the integer values of the constants.
 * The calls from the other threads are made one at a time (omp critical). Strictly, at the
 * levels single and funneled only the main thread may call MPI at all; these two routines only
 * read state the library set at initialisation, and MPICH and Open MPI document them as safe
 * from any thread. Self-checks: every thread's query equals the master's provided level, and
 * all ranks were given the same level.
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "every thread reports the requested and provided MPI thread level and MPI_Is_thread_main";

const hl_param hl_kernel_params[] = {
    {"requested", "funneled",
     "the level this program asked MPI_Init_thread for (pass the same as --thread-level)"},
    HL_END_PARAMS,
};

static int level_from_name(const char *name) {
    static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, hl_level_name(levels[i])) == 0) return levels[i];
    return -1;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    const char *requested_name = hl_param_str(ctx, "requested");
    int requested = level_from_name(requested_name);
    if (requested < 0)
        return hl_fail(ctx, "requested=%s is not one of single, funneled, serialized, multiple",
                       requested_name);

    int provided = 0;
    MPI_Query_thread(&provided); /* on the thread that called MPI_Init_thread (in a program) */

    int mismatches = 0;
#pragma omp parallel reduction(+ : mismatches)
    {
        int query = 0, is_main = 0;
#pragma omp critical(hl_thread_levels_mpi)
        {
            MPI_Query_thread(&query);
            MPI_Is_thread_main(&is_main);
        }
        mismatches += query != provided;
        hl_emit(ctx,
                "\"requested\":\"%s\",\"provided\":\"%s\",\"query\":\"%s\",\"is_thread_main\":%s,"
                "\"requested_value\":%d,\"provided_value\":%d,\"query_value\":%d,"
                "\"threads\":%d,\"level_ok\":%s",
                hl_level_name(requested), hl_level_name(provided), hl_level_name(query),
                is_main ? "true" : "false", requested, provided, query, omp_get_num_threads(),
                provided >= requested ? "true" : "false");
    }
    if (mismatches)
        return hl_fail(ctx, "rank %d: %d thread(s) saw a level other than %s from MPI_Query_thread",
                       ctx->rank, mismatches, hl_level_name(provided));

    int lowest = 0, highest = 0;
    MPI_Allreduce(&provided, &lowest, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&provided, &highest, 1, MPI_INT, MPI_MAX, comm);
    if (lowest != highest)
        return hl_fail(ctx, "the ranks were given different thread levels (%s to %s)",
                       hl_level_name(lowest), hl_level_name(highest));
    return 0;
}
