/* hello_hybrid: every rank and OpenMP thread reports where it runs.
 *
 * Each thread first keeps its core busy for spin_ms milliseconds, so that threads which are
 * free to move settle where the operating system puts busy threads, then records its rank,
 * thread, CPU, NUMA node, allowed CPUs and the MPI thread level. The kernel checks itself:
 * the ranks agree on the total number of threads (an allreduce against the per-rank counts).
 */
#include "hybridlab.h"

const char *const hl_kernel_description =
    "every rank and thread reports rank, thread, host, CPU, NUMA node and thread level";

const hl_param hl_kernel_params[] = {
    {"spin_ms", "50", "milliseconds each thread stays busy before it reports its CPU"},
    HL_END_PARAMS,
};

static double spin(double seconds) {
    double t0 = hl_now(), x = 1.0;
    while (hl_now() - t0 < seconds) x = x * 1.0000001 + 1e-9;
    return x;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1, provided = 0, threads = 0;
    long spin_ms = hl_param_long(ctx, "spin_ms", 0, &ok);
    if (!ok) return -1;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    MPI_Query_thread(&provided);

#pragma omp parallel reduction(+ : threads)
    {
        char allowed[1024];
        volatile double sink = spin((double)spin_ms * 1e-3);
        (void)sink;
        hl_allowed_cpus(allowed, sizeof allowed);
        hl_emit(ctx, "\"host\":\"%s\",\"thread_level\":\"%s\",\"threads\":%d,\"allowed_cpus\":%s",
                host, hl_level_name(provided), omp_get_num_threads(), allowed);
        threads += 1;
    }

    int total = 0, expected = 0, max_threads = omp_get_max_threads();
    MPI_Allreduce(&threads, &total, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(&max_threads, &expected, 1, MPI_INT, MPI_SUM, comm);
    if (total != expected)
        return hl_fail(ctx, "rank %d: %d threads reported in all, %d expected", ctx->rank, total,
                       expected);
    return 0;
}
