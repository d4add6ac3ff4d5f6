/* first_touch: where the pages of an array land after serial or parallel initialisation, read
 * back page by page with move_pages(2), and how fast each thread then sweeps its own block
 * (lab 05; Luecke et al., section 1 on first touch, Stathopoulos 2010, section 4.6.2 on threads far from their data).
 *
 * The array is a fresh anonymous mapping of `pages` pages (never touched before, transparent
 * huge pages switched off for it with madvise, so one page is one base page). Then:
 *   init=none      nothing touches it: move_pages reports every page as not present (-ENOENT)
 *   init=serial    the master thread writes every page
 *   init=parallel  thread t of T writes pages [t*P/T, (t+1)*P/T) (integer division): the block
 *                  partition the sweep uses, written out so a prediction can be exact
 * under a memory policy set for every thread with set_mempolicy(2), the call numactl makes:
 *   policy=default     first touch: a page lands on the node of the CPU that first writes it
 *   policy=interleave  pages go round-robin over all nodes (numactl --interleave=all)
 *   policy=bind        every page on node `node` (numactl --membind=<node>)
 * After placement each thread sweeps its block `sweeps` times (a read + write, like a Jacobi
 * update) and times it; the sum of the array is checked against the formula.
 *
 * Records (rank 0 of each rank's own array; every rank does the same):
 *   "pages"    runs of consecutive pages on one node: first, count, node (-2: not present),
 *              toucher (the thread that wrote the run's pages, -1 for none)
 *   "sweep"    per thread: seconds of its best sweep, bytes, its block's pages, how many of them
 *              are on the thread's own NUMA node (local_pages)
 *   "summary"  pages, page_bytes, init, policy, threads, nodes (online NUMA nodes), present,
 *              checksum_ok
 */
#include "hybridlab.h"

#include <sys/mman.h>

#ifndef MPOL_DEFAULT
#define MPOL_DEFAULT 0
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#endif

const char *const hl_kernel_description =
    "first touch: pages of a fresh array placed by serial/parallel initialisation (or an "
    "interleave/bind policy), read back with move_pages(2); per-thread sweep times";

const hl_param hl_kernel_params[] = {
    {"pages", "4096", "pages in the array"},
    {"init", "parallel", "none | serial (master) | parallel (thread t: pages t*P/T..)"},
    {"policy", "default", "default (first touch) | interleave (all nodes) | bind (one node)"},
    {"node", "0", "the node for policy=bind"},
    {"sweeps", "5", "timed sweeps of each thread over its block (best is kept)"},
    HL_END_PARAMS,
};

/* Online NUMA nodes as a bit mask (from sysfs); node count in *count. */
static unsigned long online_nodes(int *count) {
    unsigned long mask = 0;
    *count = 0;
    FILE *f = fopen("/sys/devices/system/node/online", "r");
    if (!f) {
        *count = 1;
        return 1UL;
    }
    int lo, hi;
    char sep;
    while (fscanf(f, "%d", &lo) == 1) {
        hi = lo;
        if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
            if (fscanf(f, "%d", &hi) != 1) hi = lo;
            if (fscanf(f, "%c", &sep) != 1) sep = '\n';
        }
        for (int n = lo; n <= hi && n < 64; n++) mask |= 1UL << n;
        if (sep != ',') break;
    }
    fclose(f);
    for (int n = 0; n < 64; n++) *count += (int)((mask >> n) & 1UL);
    if (!mask) {
        *count = 1;
        mask = 1UL;
    }
    return mask;
}

static long set_policy(int mode, unsigned long mask) {
    return syscall(SYS_set_mempolicy, mode, mode == MPOL_DEFAULT ? NULL : &mask,
                   mode == MPOL_DEFAULT ? 0UL : 64UL);
}

static inline long block_first(long pages, int t, int nthreads) {
    return (long)t * pages / nthreads;
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    (void)comm;
    int ok = 1;
    long pages = hl_param_long(ctx, "pages", 1, &ok);
    if (!ok) return -1;
    long node = hl_param_long(ctx, "node", 0, &ok);
    if (!ok) return -1;
    long sweeps = hl_param_long(ctx, "sweeps", 1, &ok);
    if (!ok) return -1;
    if (pages > (1L << 22)) return hl_fail(ctx, "parameter pages=%ld is too large (at most 2^22)", pages);
    if (sweeps > 10000) return hl_fail(ctx, "parameter sweeps=%ld is too large", sweeps);
    static const char *const inits[] = {"none", "serial", "parallel"};
    static const char *const policies[] = {"default", "interleave", "bind"};
    static const int modes[] = {MPOL_DEFAULT, MPOL_INTERLEAVE, MPOL_BIND};
    int mode_init = hl_param_choice(ctx, "init", inits, 3);
    if (mode_init < 0) return -1;
    int which = hl_param_choice(ctx, "policy", policies, 3);
    if (which < 0) return -1;
    const char *init = inits[mode_init], *pname = policies[which];
    int policy = modes[which];
    int nnodes = 0;
    unsigned long nodes = online_nodes(&nnodes);
    if (policy == MPOL_BIND && (node > 63 || !((nodes >> node) & 1UL)))
        return hl_fail(ctx, "parameter node=%ld is not an online NUMA node of this machine", node);

    long page = sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)pages * (size_t)page;
    long per_page = page / (long)sizeof(double);
    double *x = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (x == MAP_FAILED) return hl_fail(ctx, "no memory for %ld pages", pages);
#ifdef MADV_NOHUGEPAGE
    madvise(x, bytes, MADV_NOHUGEPAGE); /* one page = one base page, so each is placed alone */
#endif
    int nthreads = omp_get_max_threads();
    unsigned long mask = policy == MPOL_BIND ? 1UL << node : nodes;
    int policy_failed = 0;
    if (policy != MPOL_DEFAULT) {
#pragma omp parallel reduction(| : policy_failed)
        policy_failed |= set_policy(policy, mask) != 0;
        if (!policy_failed) policy_failed = set_policy(policy, mask) != 0;
    }
    if (policy_failed) {
#pragma omp parallel
        set_policy(MPOL_DEFAULT, 0);
        set_policy(MPOL_DEFAULT, 0);
        munmap(x, bytes);
        return hl_fail(ctx, "set_mempolicy(%s) failed: %s", pname, strerror(errno));
    }

    /* The first touch. */
    if (mode_init == 1) {
        for (long i = 0; i < pages * per_page; i++) x[i] = (double)(i % 1000);
    } else if (mode_init == 2) {
#pragma omp parallel num_threads(nthreads)
        {
            int t = omp_get_thread_num();
            long p0 = block_first(pages, t, nthreads), p1 = block_first(pages, t + 1, nthreads);
            for (long i = p0 * per_page; i < p1 * per_page; i++) x[i] = (double)(i % 1000);
        }
    }
    if (policy != MPOL_DEFAULT) {
#pragma omp parallel
        set_policy(MPOL_DEFAULT, 0);
        set_policy(MPOL_DEFAULT, 0);
    }

    /* Where each page is: move_pages with nodes=NULL only reports. */
    void **addr = malloc((size_t)pages * sizeof *addr);
    int *status = malloc((size_t)pages * sizeof *status);
    if (!addr || !status) {
        free(addr);
        free(status);
        munmap(x, bytes);
        return hl_fail(ctx, "no memory for the page table of %ld pages", pages);
    }
    for (long p = 0; p < pages; p++) {
        addr[p] = (char *)x + p * page;
        status[p] = -ENOENT;
    }
    if (syscall(SYS_move_pages, 0, (unsigned long)pages, addr, NULL, status, 0) != 0) {
        int e = errno;
        free(addr);
        free(status);
        munmap(x, bytes);
        return hl_fail(ctx, "move_pages failed: %s", strerror(e));
    }
    long present = 0;
    for (long p = 0; p < pages; p++) present += status[p] >= 0;

    /* Each thread sweeps its own block (x = 0.5 * x + 1 twice would change the checksum: use a
     * read and a write of the same value scaled there and back). */
    double best[1024];
    long local[1024];
    int nt = nthreads < 1024 ? nthreads : 1024;
    if (mode_init != 0) {
#pragma omp parallel num_threads(nt)
        {
            int t = omp_get_thread_num(), cpu, numa;
            long p0 = block_first(pages, t, nt), p1 = block_first(pages, t + 1, nt);
            hl_where(&cpu, &numa);
            long mine = 0;
            for (long p = p0; p < p1; p++) mine += status[p] == numa;
            local[t] = mine;
            double b = 1e300;
            for (long s = 0; s < sweeps; s++) {
                double t0 = hl_now();
                double f = (s % 2 == 0) ? 2.0 : 0.5;
                for (long i = p0 * per_page; i < p1 * per_page; i++) x[i] *= f;
                b = fmin(b, hl_now() - t0);
            }
            best[t] = b;
        }
        if (sweeps % 2 == 1) /* an odd number of sweeps leaves x doubled: undo it */
#pragma omp parallel for schedule(static)
            for (long i = 0; i < pages * per_page; i++) x[i] *= 0.5;
    }
    int checksum_ok = 1;
    if (mode_init != 0) {
        double sum = 0.0, want = 0.0;
        long total = pages * per_page;
        for (long i = 0; i < total; i++) sum += x[i];
        for (long i = 0; i < total; i++) want += (double)(i % 1000);
        checksum_ok = fabs(sum - want) <= 1e-9 * fabs(want);
    }

    if (mode_init != 0) {
#pragma omp parallel num_threads(nt)
        {
            int t = omp_get_thread_num();
            long p0 = block_first(pages, t, nt), p1 = block_first(pages, t + 1, nt);
            hl_emit(ctx, "\"record\":\"sweep\",\"seconds\":%.9g,\"bytes\":%ld,\"pages\":%ld,"
                    "\"local_pages\":%ld,\"init\":\"%s\",\"policy\":\"%s\",\"threads\":%d",
                    best[t], 2 * (p1 - p0) * page, p1 - p0, local[t], init, pname, nt);
        }
    }
    if (ctx->rank == 0) {
        for (long p = 0; p < pages;) {
            long q = p;
            int toucher = mode_init == 0 ? -1 : 0;
            if (mode_init == 2)
                while (toucher + 1 < nthreads && block_first(pages, toucher + 1, nthreads) <= p)
                    toucher++;
            long end = mode_init == 2 ? block_first(pages, toucher + 1, nthreads) : pages;
            while (q < end && status[q] == status[p]) q++;
            hl_emit(ctx, "\"record\":\"pages\",\"first\":%ld,\"count\":%ld,\"node\":%d,"
                    "\"toucher\":%d,\"init\":\"%s\",\"policy\":\"%s\",\"threads\":%d",
                    p, q - p, status[p], toucher, init, pname, nthreads);
            p = q;
        }
        hl_emit(ctx, "\"record\":\"summary\",\"pages\":%ld,\"page_bytes\":%ld,\"init\":\"%s\","
                "\"policy\":\"%s\",\"node\":%ld,\"threads\":%d,\"nodes\":%d,\"present\":%ld,"
                "\"checksum_ok\":%d",
                pages, page, init, pname, node, nthreads, nnodes, present, checksum_ok);
    }
    free(addr);
    free(status);
    munmap(x, bytes);
    return 0;
}
