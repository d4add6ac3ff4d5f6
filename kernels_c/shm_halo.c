/* shm_halo: lab 04's 2-D Jacobi (hl_grid2d.h: the same grid, split in blocks of rows) with the
 * halo inside a node read from a neighbour's memory: MPI+MPI, an MPI-3 shared-memory window
 * (MPI Forum, MPI 3.0, section 11.2.3; Hoefler et al. 2013).
 *
 * The ranks of a node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED) allocate their blocks in one
 * window (MPI_Win_allocate_shared); a rank finds its neighbours' blocks with
 * MPI_Win_shared_query and reads their edge rows with loads, no message and no halo copy. A
 * neighbour on another node still sends its edge row (MPI_Sendrecv into a halo row).
 *
 * A block is a header and two copies of the rank's m rows of nx + 2 values (boundary columns
 * included): sweep `it` reads copy it % 2 (its own and its neighbours') and writes copy
 * (it + 1) % 2. So one synchronisation per iteration is enough: after it, every block's copy
 * (it + 1) % 2 is complete and nobody reads copy it % 2 any more.
 *     variant=shared   the kit's loop; sync=fence (MPI_Win_fence every iteration), lock_all
 *                      (MPI_Win_lock_all once, then MPI_Win_sync, MPI_Barrier on the node,
 *                      MPI_Win_sync every iteration) or none (no synchronisation: a race)
 *     variant=student  (built with HL_STUDENT_SHM_HALO) the student's shm_jacobi
 * Both call the kit's helpers of shm_halo_student.h (shm_init_block, shm_sweep, shm_finish, ...).
 *
 * Stale reads: the header of a block holds, for each copy, the iteration its rows hold (-1
 * while a sweep writes them). sweep reads it before and after using a neighbour's row: a
 * neighbour's copy that is not yet written, or is overwritten meanwhile, counts as a stale
 * read. stagger_us makes odd ranks start every sweep that late, so a missing synchronisation
 * shows for certain rather than by luck.
 *
 * Reads through the window: shm_sweep finds where the neighbours' blocks it is given lie, by the
 * kernel's table of this process's mappings (/proc/self/maps): the shared file and the offset in
 * it. After the run the ranks exchange where their own blocks lie (shm_init_block found it), and a
 * sweep that read anything but the neighbour's block itself (a private copy of it, a copy
 * elsewhere in the window), or read it at another address than the first sweep did, counts as a
 * read not of the window. That address is in the "laid_out" record (above_at, below_at): the
 * judge finds it in the segment an MPI_Win_shared_query naming that neighbour returned (the
 * tracer's record of the query), not reached by address arithmetic from another block (A8's
 * K3 found the block above from its own, MPICH laying a node's segments out back to back). The places and the counts are the
 * kit's sealed evidence (hybridlab.h): no header in the window, which the cell can write, holds
 * them.
 *
 * Rows across nodes: the grid's start is known to all, so a halo row could be computed instead of
 * received (A5's a4 swapped dummy row-sized messages and stepped a strip of the grid itself).
 * What a block held facing a neighbour on another node is sealed evidence: after shm_init_block
 * (state 0) and after each sweep (state it + 1) the hashes (row_hash) of its rows within
 * HASHED_ROWS of that edge. And in the student's run the tracer reads each of the student's
 * receives as it completes (hl_trace_on_student_receive, shm_held: the hashes of the first whole
 * rows it got, "held" in the completing call's record), so the judge (hybridlab.shm.exercise)
 * sees which rows of the neighbour arrived, and when, against when the neighbour held them.
 *
 * Records: the halo timers (hl_halo.h; jacobi = the sweeps, reduction = MPI_Allreduce of delta,
 * halo = the rest of the loop: synchronisation and messages, total = first sweep to last);
 * "sweep" per rank and iteration (start, end: the trace's clock in a traced build), "laid_out"
 * (when shm_init_block returned, the same clock, and the clock's origin: times of several ranks
 * compared; the addresses of the neighbours' blocks shm_sweep was given, 0 for none), "edge" per state and side facing another node (first: the rank above, last: below;
 * hashes of the rows from that edge inwards, "/"-joined); "node" per
 * rank (the members of its node); "memory" per rank (hl_memory.h, read in shm_finish while the
 * window is alive: grid_bytes, halo_bytes = copies of a neighbour's rows); rank 0's "checksum"
 * and, with check=1, "check" (ok when no read was stale and the checksum equals the serial
 * sweep's, halo2d's stencil on one grid, to 12 digits).
 */
#include "hybridlab.h"
#include "hl_grid2d.h"
#include "hl_memory.h"
#include "hl_node_split.h" /* hl_node_split: the nodes, real or made up (made_up_nodes) */
#include <stdatomic.h>

#ifdef HL_STUDENT_SHM_HALO
#include "shm_halo_student.h"
#else
MPI_Aint shm_block_bytes(void);
void shm_init_block(double *mine);
long shm_row_length(void);
const double *shm_first_row(const double *mine, long it);
const double *shm_last_row(const double *mine, long it);
void shm_sweep(double *mine, const double *above, const double *below, long it);
void shm_finish(const double *mine);
#endif

const char *const hl_kernel_description =
    "2-D Jacobi (lab 04's grid, rows in blocks) with the halo inside a node read from the "
    "neighbours' blocks in an MPI-3 shared window; stale reads counted, PSS per rank";

const hl_param hl_kernel_params[] = {
    {"variant", "shared", "shared: the kit's loop; student: the student's shm_jacobi"},
    {"sync", "fence", "variant=shared: fence | lock_all (sync-barrier-sync) | none (a race)"},
    {"nx", "256", "interior columns"},
    {"ny", "256", "interior rows, split over the ranks in blocks"},
    {"iterations", "100", "Jacobi iterations"},
    {"stagger_us", "0", "odd ranks start every sweep this late (a race shows for certain)"},
    {"allreduce", "1", "1: delta summed over the ranks every iteration (as halo2d); 0: at the end"},
    {"check", "1", "1: compare with a serial sweep on rank 0 (a check record)"},
    HL_END_PARAMS,
};

enum { V_SHARED, V_STUDENT, V_ALL };
#ifdef HL_STUDENT_SHM_HALO
#define V_COUNT V_ALL
#else
#define V_COUNT V_STUDENT
#endif
static const char *const variant_names[V_ALL] = {"shared", "student"};
enum { S_FENCE, S_LOCK_ALL, S_NONE, S_ALL };
static const char *const sync_names[S_ALL] = {"fence", "lock_all", "none"};

#define KEPT_SWEEPS 1000 /* "sweep" records per rank */

#define LAID_OUT 0x6c61696420L /* in a header once shm_init_block has laid the block out */

typedef struct { /* the start of a block: 64 bytes, a whole number of doubles */
    atomic_long laid_out; /* LAID_OUT, stored last by shm_init_block */
    long owner;           /* the rank (of comm) whose block it is */
    atomic_long stamp[2]; /* iteration held by each copy; -1 while a sweep writes it */
    long unused[4];
} block_header;

/* Where memory lies: in a shared mapping (shared = 1), the mapped file (dev, ino) and the offset
 * in it. Two processes' pointers to the same shared memory have the same place; a copy in
 * private memory has none (shared = 0). */
typedef struct {
    long shared, dev, ino, offset;
} shm_place;
typedef struct { /* a shared mapping found in /proc/self/maps: [lo, hi) and where lo lies */
    unsigned long lo, hi;
    shm_place at_lo;
} shm_mapping;
#define KEPT_MAPPINGS 4 /* the window's (one in MPICH), a neighbour's elsewhere, ... */
#define HASHED_STATES 64 /* edge rows hashed for states 0 .. 63 (a judged run has fewer sweeps) */
#define HASHED_ROWS 8    /* rows hashed from an edge inwards: a halo up to this deep is seen */
#define HELD_ROWS 4      /* rows of a receive the tracer reads (its "held" field is short) */

/* One run (one at a time per process): what the helpers need and what they found. Sealed
 * evidence (hybridlab.h): read-only pages the kit writes through /proc/self/mem (RUN_SET), so a
 * cell that scans the library's data from one of its own statics (f46's L11 gaming attempt set
 * `unread` back to 0) cannot rewrite it. */
typedef struct { /* what every sweep changes: sealed in one write (shm_sweep) */
    long sweeps, stale;
    long through[2]; /* sweeps that read read_at[0] (the block above) / read_at[1] (below) */
    double jacobi, reduction, first_start, last_end, delta_local, delta;
} shm_tally;
typedef struct {
    hl_ctx *ctx;
    MPI_Comm comm;
    long nx, ny, w, m, first, iterations, stagger_us;
    int allreduce, up, down, up_on_node, down_on_node;
    double *mine;             /* the block shm_init_block laid out */
    double *halo_above, *halo_below;
    shm_tally tally;
    shm_place own;        /* this rank's block (shm_init_block) */
    shm_place read_at[2]; /* the neighbour's block above / below a sweep first read in shared memory */
    unsigned long given_at[2]; /* the address of that block as shm_sweep was given it */
    shm_mapping mappings[KEPT_MAPPINGS]; /* shared mappings found (/proc/self/maps read once) */
    int finished, student; /* student: the student's shm_jacobi runs (variant=student) */
    double checksum_local;
    double laid_out; /* when shm_init_block finished (the trace's clock) */
    double sweep_times[KEPT_SWEEPS][2];
    /* per state: hashes of the rows from the first ([0]) and last ([1]) row inwards, on a side
     * whose neighbour is on another node (0: not hashed) */
    uint32_t edge_hash[HASHED_STATES][2][HASHED_ROWS];
    char error[400];
} shm_run;
_Static_assert(sizeof(shm_run) <= HL_SEALED_DATA, "shm_run: too large for the sealed page");
#define run (*HL_SEALED(shm_run))
#define RUN_SET(field, value) HL_SEALED_SET(run, field, value)

static void run_error(const char *fmt, ...) {
    if (run.error[0]) return; /* the first one */
    char error[sizeof run.error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, sizeof error, fmt, ap);
    va_end(ap);
    hl_sealed_put(run.error, error, sizeof error);
}

static block_header *header(const double *block) { return (block_header *)block; }

/* Times in records are seconds since this: the trace's start in a traced build. */
static double trace_origin(void) {
#ifdef HL_TRACE_MPI
    return hl_trace_origin_time();
#else
    return 0.0;
#endif
}

/* The rows of `rank` (of comm): blocks of ny / P, the first ny mod P ranks one more (halo2d). */
static long rows_of(int rank) {
    long base = run.ny / run.ctx->size, extra = run.ny % run.ctx->size;
    return base + (rank < extra ? 1 : 0);
}

/* Copy `copy` of the rows of the block of `rank`. */
static double *rows(const double *block, int rank, long copy) {
    return (double *)block + sizeof(block_header) / sizeof(double) + copy * rows_of(rank) * run.w;
}

/* The bytes of the block of `rank`. */
static size_t block_bytes(int rank) {
    return sizeof(block_header) + 2 * (size_t)rows_of(rank) * (size_t)run.w * sizeof(double);
}

MPI_Aint shm_block_bytes(void) { return (MPI_Aint)block_bytes(run.ctx->rank); }

/* The shared mapping of /proc/self/maps holding all of [p, p + n): 1 and *out, else 0 (not
 * mapped, private, or across mappings). */
static int find_mapping(const void *p, size_t n, shm_mapping *out) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return 0;
    unsigned long a = (unsigned long)(uintptr_t)p;
    char line[4608], perms[8];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi, offset, ino;
        unsigned major, minor;
        if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &lo, &hi, perms, &offset, &major, &minor,
                   &ino) == 7 && lo <= a && a + n <= hi && perms[3] == 's') {
            *out = (shm_mapping){lo, hi, {1, (long)major << 32 | minor, (long)ino, (long)offset}};
            found = 1;
        }
    }
    fclose(maps);
    return found;
}

/* Where a lies, in mapping m. */
static shm_place place_in(const shm_mapping *m, unsigned long a) {
    shm_place at = m->at_lo;
    at.offset += (long)(a - m->lo);
    return at;
}

static int same_place(shm_place a, shm_place b) {
    return a.shared && b.shared && a.dev == b.dev && a.ino == b.ino && a.offset == b.offset;
}

/* Where [p, p + n) lies (shared = 0: not all in one shared mapping). The mappings found are kept
 * in the sealed run, so a sweep reads /proc/self/maps only for memory outside them. */
static shm_place place_of(const void *p, size_t n) {
    unsigned long a = (unsigned long)(uintptr_t)p;
    for (int k = 0; k < KEPT_MAPPINGS && run.mappings[k].hi; k++)
        if (run.mappings[k].lo <= a && a + n <= run.mappings[k].hi)
            return place_in(&run.mappings[k], a);
    shm_mapping found;
    if (!find_mapping(p, n, &found)) return (shm_place){0, 0, 0, 0};
    for (int k = 0; k < KEPT_MAPPINGS; k++)
        if (!run.mappings[k].hi) {
            hl_sealed_put(&run.mappings[k], &found, sizeof found);
            break;
        }
    return place_in(&found, a);
}

/* Whether the kept mappings still map what they did when found (a private mapping put over the
 * window in the middle of the run would pass for it). */
static int mappings_kept(void) {
    for (int k = 0; k < KEPT_MAPPINGS && run.mappings[k].hi; k++) {
        const shm_mapping *kept = &run.mappings[k];
        shm_mapping now;
        if (!find_mapping((const void *)(uintptr_t)kept->lo, kept->hi - kept->lo, &now) ||
            !same_place(place_in(&now, kept->lo), kept->at_lo))
            return 0;
    }
    return 1;
}

long shm_row_length(void) { return run.w; }

/* Whether the neighbour on `side` (0: above, 1: below) is on another node. */
static int far_side(int side) {
    return side ? run.down != MPI_PROC_NULL && !run.down_on_node
                : run.up != MPI_PROC_NULL && !run.up_on_node;
}

/* FNV-1a (32 bits) of a row's bytes: what the block held and what a receive held, compared. */
static uint32_t row_hash(const double *row) {
    const unsigned char *byte = (const unsigned char *)row;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < (size_t)run.w * sizeof(double); i++) h = (h ^ byte[i]) * 16777619u;
    return h;
}

/* The hashes of the rows of state `state` (copy state % 2) within HASHED_ROWS of each edge whose
 * neighbour is on another node, sealed. */
static void hash_edges(const double *mine, long state) {
    if (state >= HASHED_STATES || !(far_side(0) || far_side(1))) return;
    uint32_t hashes[2][HASHED_ROWS] = {{0}};
    const double *copy = rows(mine, run.ctx->rank, state % 2);
    for (long d = 0; d < run.m && d < HASHED_ROWS; d++) {
        if (far_side(0)) hashes[0][d] = row_hash(copy + d * run.w);
        if (far_side(1)) hashes[1][d] = row_hash(copy + (run.m - 1 - d) * run.w);
    }
    hl_sealed_put(run.edge_hash[state], hashes, sizeof hashes);
}

void shm_init_block(double *mine) {
    if (!mine) {
        run_error("shm_init_block(NULL): pass the base of this rank's block");
        return;
    }
    if (run.mine) {
        run_error("shm_init_block called twice");
        return;
    }
    RUN_SET(mine, mine);
    RUN_SET(own, place_of(mine, block_bytes(run.ctx->rank)));
    block_header *h = header(mine);
    h->owner = run.ctx->rank;
    atomic_store(&h->stamp[0], 0);
    atomic_store(&h->stamp[1], -2);
    for (long copy = 0; copy < 2; copy++)
        for (long i = 0; i < run.m; i++)
            for (long j = 0; j < run.w; j++)
                rows(mine, run.ctx->rank, copy)[i * run.w + j] = initial(run.first + i, j);
    hash_edges(mine, 0);
    atomic_store(&h->laid_out, LAID_OUT);
    RUN_SET(laid_out, hl_now() - trace_origin());
}

static int own_block(const double *mine, const char *who) {
    if (!run.mine) run_error("%s before shm_init_block: lay out the block first", who);
    else if (mine != run.mine)
        run_error("%s: pass this rank's own block (the base shm_init_block was given)", who);
    return !run.error[0];
}

const double *shm_first_row(const double *mine, long it) {
    return own_block(mine, "shm_first_row") ? rows(mine, run.ctx->rank, it % 2) : run.halo_above;
}

const double *shm_last_row(const double *mine, long it) {
    if (!own_block(mine, "shm_last_row")) return run.halo_above;
    return rows(mine, run.ctx->rank, it % 2) + (run.m - 1) * run.w;
}

/* The neighbour's row a sweep reads (its last row for the rank above, its first for the one
 * below), or NULL after an error: the block passed must be the neighbour's when it shares the
 * node, NULL otherwise (then the halo row: a message's, or the grid's boundary). A block not
 * yet laid out is read all the same (a stale read, counted by sweep). */
static const double *neighbour_row(const double *block, int neighbour, int on_node,
                                   const double *halo, long it, int last, const char *side) {
    if (on_node && !block)
        run_error("rank %d: its neighbour %s (rank %d) is on its node: pass that rank's block "
                  "(MPI_Win_shared_query), not NULL", run.ctx->rank, side, neighbour);
    else if (!on_node && block)
        run_error("rank %d: %s is %s: pass NULL for `%s` (the row is in halo_%s)", run.ctx->rank,
                  side, neighbour == MPI_PROC_NULL ? "the grid's edge" : "on another node",
                  side, side);
    else if (block && atomic_load(&header(block)->laid_out) == LAID_OUT &&
             header(block)->owner != neighbour)
        run_error("rank %d: the block passed as `%s` is rank %ld's, not rank %d's (the rank %s)",
                  run.ctx->rank, side, header(block)->owner, neighbour, side);
    if (run.error[0]) return NULL;
    if (!block) return halo;
    return rows(block, neighbour, it % 2) + (last ? rows_of(neighbour) - 1 : 0) * run.w;
}

/* The iteration a copy of a block holds (-3 for a block not laid out). */
static long stamp(const double *block, long copy) {
    if (atomic_load(&header(block)->laid_out) != LAID_OUT) return -3;
    return atomic_load(&header(block)->stamp[copy]);
}

/* new = 0.25 (above + below + left + right) on one row (halo2d's stencil, added in its order);
 * the row's sum of squared changes. */
static double update_row(const double *above, const double *row, const double *below,
                         double *out, long nx) {
    double d2 = 0.0;
#pragma omp simd reduction(+ : d2)
    for (long j = 1; j <= nx; j++) {
        double v = 0.25 * (above[j] + below[j] + row[j - 1] + row[j + 1]);
        double d = v - row[j];
        d2 += d * d;
        out[j] = v;
    }
    return d2;
}

void shm_sweep(double *mine, const double *above, const double *below, long it) {
    if (!own_block(mine, "shm_sweep")) return;
    if (it != run.tally.sweeps)
        {
        run_error("shm_sweep(it=%ld) on rank %d: sweeps go in order, this one is it=%ld", it,
                         run.ctx->rank, run.tally.sweeps);
        return;
    }
    if (it >= run.iterations)
        {
        run_error("shm_sweep(it=%ld): only %ld iterations", it, run.iterations);
        return;
    }
    shm_tally tally = run.tally;
    const int on_node[2] = {run.up_on_node, run.down_on_node}, neighbour[2] = {run.up, run.down};
    const double *given[2] = {above, below};
    for (int k = 0; k < 2; k++) { /* where the neighbours' blocks given lie: the sealed evidence */
        if (!on_node[k] || !given[k]) continue;
        shm_place at = place_of(given[k], block_bytes(neighbour[k]));
        if (!at.shared) continue;
        unsigned long address = (unsigned long)(uintptr_t)given[k];
        if (!run.read_at[k].shared) {
            RUN_SET(read_at[k], at);
            RUN_SET(given_at[k], address);
        }
        if (same_place(at, run.read_at[k]) && address == run.given_at[k]) tally.through[k]++;
    }
    double t0 = hl_now();
    if (run.ctx->rank % 2 == 1) hl_sleep_us(run.stagger_us);
    const double *up = neighbour_row(above, run.up, run.up_on_node, run.halo_above, it, 1, "above");
    const double *down = neighbour_row(below, run.down, run.down_on_node, run.halo_below, it, 0,
                                       "below");
    if (!up || !down) return;
    long cur = it % 2, next = 1 - cur, m = run.m, w = run.w;
    long seen_up = above ? stamp(above, cur) : it, seen_down = below ? stamp(below, cur) : it;
    atomic_store(&header(mine)->stamp[next], -1);
    double *from = rows(mine, run.ctx->rank, cur), *to = rows(mine, run.ctx->rank, next), d2 = 0.0;
    for (long i = 0; i < m; i++)
        d2 += update_row(i == 0 ? up : from + (i - 1) * w, from + i * w,
                         i == m - 1 ? down : from + (i + 1) * w, to + i * w, run.nx);
    atomic_store(&header(mine)->stamp[next], it + 1);
    hash_edges(mine, it + 1);
    if ((above && (seen_up != it || stamp(above, cur) != it)) ||
        (below && (seen_down != it || stamp(below, cur) != it)))
        tally.stale++;
    double t1 = hl_now();
    tally.jacobi += t1 - t0;
    if (it == 0) tally.first_start = t0;
    tally.delta_local = d2;
    if (run.allreduce) {
        MPI_Allreduce(&d2, &tally.delta, 1, MPI_DOUBLE, MPI_SUM, run.comm);
        tally.reduction += hl_now() - t1;
    }
    tally.last_end = hl_now();
    double origin = trace_origin();
    if (it < KEPT_SWEEPS) {
        double times[2] = {t0 - origin, t1 - origin};
        hl_sealed_put(run.sweep_times[it], times, sizeof times);
    }
    tally.sweeps++;
    hl_sealed_put(&run.tally, &tally, sizeof tally); /* (a local of the kit's frame until here) */
}

void shm_finish(const double *mine) {
    if (!own_block(mine, "shm_finish")) return;
    if (run.tally.sweeps != run.iterations)
        {
        run_error("shm_finish after %ld sweeps on rank %d: the run has %ld iterations",
                         run.tally.sweeps, run.ctx->rank, run.iterations);
        return;
    }
    const double *last = rows(mine, run.ctx->rank, run.iterations % 2);
    double local = 0.0;
    for (long i = 0; i < run.m; i++)
        for (long j = 1; j <= run.nx; j++) local += last[i * run.w + j];
    RUN_SET(checksum_local, local);
    if (!mappings_kept()) {
        run_error("rank %d: the memory the neighbours' blocks were read from was mapped anew "
                  "during the run: read them where MPI_Win_shared_query put them",
                  run.ctx->rank);
        return;
    }
    RUN_SET(finished, 1);
    char tail[256]; /* halo copies: a row per neighbour on another node */
    long copies = far_side(0) + far_side(1);
    snprintf(tail, sizeof tail,
             "\"ranks\":%d,\"threads\":1,\"nx\":%ld,\"rows\":%ld,\"grid_bytes\":%ld,"
             "\"halo_bytes\":%ld",
             run.ctx->size, run.nx, run.m, (long)shm_block_bytes(),
             (long)(copies * run.w * (long)sizeof(double)));
    hl_emit_memory(run.ctx, tail);
}

#ifdef HL_STUDENT_SHM_HALO
/* The tracer's reading of a student's receive as it completes (hl_trace_on_student_receive):
 * the hashes (row_hash) of the first whole rows it got, at most HELD_ROWS, ":"-joined; nothing
 * for a buffer that is not contiguous or got less than a row. */
static int shm_held(const void *buffer, long count, MPI_Datatype type, char *out, size_t cap) {
    int size = 0;
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    MPI_Type_size(type, &size);
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    long whole = count * size / (run.w * (long)sizeof(double));
    if (lb || true_lb || extent != size || true_extent != size || whole <= 0) return 0;
    size_t used = 0;
    for (long k = 0; k < whole && k < HELD_ROWS && used < cap; k++)
        used += (size_t)snprintf(out + used, cap - used, "%s%08x", k ? ":" : "",
                                 row_hash((const double *)buffer + k * run.w));
    return used < cap ? (int)used : 0;
}
#endif

/* The kit's loop, with the synchronisation `sync` (the answer of lab 11 (a) in its own way). */
static void kit_jacobi(MPI_Comm comm, long iterations, double *halo_above, double *halo_below,
                       int sync) {
    int rank, size, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node;
    hl_node_split(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *mine, *above = NULL, *below = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(shm_block_bytes(), sizeof(double), MPI_INFO_NULL, node, &mine, &win);
    MPI_Aint bytes;
    int unit; /* the ranks of a node are consecutive in comm: its neighbours are nrank -+ 1 */
    if (nrank > 0) MPI_Win_shared_query(win, nrank - 1, &bytes, &unit, &above);
    if (nrank < nsize - 1) MPI_Win_shared_query(win, nrank + 1, &bytes, &unit, &below);
    int up = rank > 0 && !above ? rank - 1 : MPI_PROC_NULL; /* on another node */
    int down = rank < size - 1 && !below ? rank + 1 : MPI_PROC_NULL;
    int n = (int)shm_row_length();
    shm_init_block(mine);
    if (sync == S_LOCK_ALL) MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (long it = 0; it < iterations; it++) {
        if (sync == S_FENCE) MPI_Win_fence(0, win);
        if (sync == S_LOCK_ALL) {
            MPI_Win_sync(win); /* my stores visible ... */
            MPI_Barrier(node); /* ... once everyone has made them ... */
            MPI_Win_sync(win); /* ... and my loads see theirs */
        }
        if (up != MPI_PROC_NULL) /* rows of another node: a message */
            MPI_Sendrecv(shm_first_row(mine, it), n, MPI_DOUBLE, up, 1, halo_above, n,
                         MPI_DOUBLE, up, 2, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL)
            MPI_Sendrecv(shm_last_row(mine, it), n, MPI_DOUBLE, down, 2, halo_below, n,
                         MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
        shm_sweep(mine, above, below, it);
    }
    if (sync == S_LOCK_ALL) MPI_Win_unlock_all(win);
    if (sync == S_FENCE) MPI_Win_fence(0, win);
    shm_finish(mine);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* The members of this rank's node (ranks of comm, "0,1,2"), and whether its neighbours are. */
static int find_node(MPI_Comm comm, hl_ctx *ctx, char *members, size_t cap) {
    MPI_Comm node;
    hl_node_split(comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &node);
    int nsize;
    MPI_Comm_size(node, &nsize);
    int *ranks = malloc((size_t)nsize * sizeof *ranks);
    if (!ranks) return hl_fail(ctx, "no memory for %d ranks", nsize);
    MPI_Allgather(&ctx->rank, 1, MPI_INT, ranks, 1, MPI_INT, node);
    size_t used = 0;
    members[0] = '\0';
    for (int k = 0; k < nsize; k++) {
        if (ranks[k] == run.up) RUN_SET(up_on_node, 1);
        if (ranks[k] == run.down) RUN_SET(down_on_node, 1);
        used += (size_t)snprintf(members + used, used < cap ? cap - used : 0, "%s%d",
                                 k ? "," : "", ranks[k]);
    }
    free(ranks);
    MPI_Comm_free(&node);
    return used < cap ? 0 : hl_fail(ctx, "%d ranks on a node: too many to list", nsize);
}

/* A halo row: the grid's boundary row `row` at its edge, NaN for a neighbour on another node
 * (a message must fill it), none (NULL) for a neighbour on the node. */
static double *halo_row(int neighbour, int on_node, long row, int *ok) {
    if (neighbour != MPI_PROC_NULL && on_node) return NULL;
    double *h = malloc((size_t)run.w * sizeof *h);
    if (!h) {
        *ok = 0;
        return NULL;
    }
    for (long j = 0; j < run.w; j++) h[j] = neighbour == MPI_PROC_NULL ? initial(row, j) : NAN;
    return h;
}

/* The serial sweep (halo2d's stencil on one grid of ny rows): the checksum to compare with. */
static double serial_checksum(long nx, long ny, long iterations, int *ok) {
    grid2d g = {.nx = nx, .m = ny, .w = nx + 2};
    size_t points = (size_t)(ny + 2) * (size_t)g.w;
    g.a = malloc(points * sizeof(double));
    g.b = malloc(points * sizeof(double));
    double sum = 0.0;
    if (!g.a || !g.b) *ok = 0;
    else {
        for (long i = 0; i < ny + 2; i++)
            for (long j = 0; j < g.w; j++) A(&g, i, j) = B(&g, i, j) = initial(i, j);
        for (long it = 0; it < iterations; it++) {
            for (long i = 1; i <= ny; i++) stencil_row(&g, i);
            for (long i = 1; i <= ny; i++) copy_row(&g, i);
        }
        for (long i = 1; i <= ny; i++)
            for (long j = 1; j <= nx; j++) sum += A(&g, i, j);
    }
    free(g.a);
    free(g.b);
    return sum;
}

/* This rank's sweeps that read a neighbour's block on the node anywhere but in the block itself
 * (where the neighbour's shm_init_block found it): collective with the neighbours. */
static long unread_sweeps(void) {
    int above = run.up_on_node ? run.up : MPI_PROC_NULL;
    int below = run.down_on_node ? run.down : MPI_PROC_NULL;
    shm_place own[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}}; /* the blocks above and below */
    int n = (int)sizeof run.own;
    MPI_Sendrecv(&run.own, n, MPI_BYTE, below, 7, &own[0], n, MPI_BYTE, above, 7, run.comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&run.own, n, MPI_BYTE, above, 8, &own[1], n, MPI_BYTE, below, 8, run.comm,
                 MPI_STATUS_IGNORE);
    const int on_node[2] = {run.up_on_node, run.down_on_node};
    long unread = 0;
    for (int k = 0; k < 2; k++)
        if (on_node[k])
            unread += run.iterations -
                      (same_place(run.read_at[k], own[k]) ? run.tally.through[k] : 0);
    return unread;
}

/* The "edge" records: per state and side facing another node, the sealed hashes. */
static void emit_edges(hl_ctx *ctx) {
    static const char *const sides[2] = {"first", "last"};
    for (long state = 0; state <= run.iterations && state < HASHED_STATES; state++)
        for (int side = 0; side < 2; side++) {
            if (!far_side(side)) continue;
            char hashes[HASHED_ROWS * 9 + 1];
            size_t used = 0;
            for (long d = 0; d < run.m && d < HASHED_ROWS; d++)
                used += (size_t)snprintf(hashes + used, sizeof hashes - used, "%s%08x",
                                         d ? "/" : "", run.edge_hash[state][side][d]);
            hl_emit(ctx, "\"record\":\"edge\",\"state\":%ld,\"side\":\"%s\",\"hashes\":\"%s\"",
                    state, sides[side], hashes);
        }
}

static int emit_results(hl_ctx *ctx, int variant, int sync, long ny, long check) {
    double checksum = 0.0, delta = run.tally.delta;
    long stale = 0, reads[2] = {0, 0}; /* of the neighbours' blocks: not through the window, all */
    long mine[2] = {run.student ? unread_sweeps() : 0,
                    (run.up_on_node + run.down_on_node) * run.iterations};
    MPI_Reduce(&run.checksum_local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, run.comm);
    MPI_Reduce(&run.tally.stale, &stale, 1, MPI_LONG, MPI_SUM, 0, run.comm);
    MPI_Reduce(mine, reads, 2, MPI_LONG, MPI_SUM, 0, run.comm);
    if (!run.allreduce)
        MPI_Allreduce(&run.tally.delta_local, &delta, 1, MPI_DOUBLE, MPI_SUM, run.comm);
    char tail[400];
    snprintf(tail, sizeof tail,
             "\"variant\":\"%s\",\"sync\":\"%s\",\"ranks\":%d,\"threads\":1,\"nx\":%ld,"
             "\"ny\":%ld,\"rows\":%ld,\"iterations\":%ld,\"stagger_us\":%ld,\"allreduce\":%d",
             variant_names[variant], variant == V_SHARED ? sync_names[sync] : "student",
             ctx->size, run.nx, ny, run.m, run.iterations, run.stagger_us, run.allreduce);
    hl_timers *acc = hl_timers_new(1);
    if (!acc) return hl_fail(ctx, "no memory for the timers");
    double span = run.iterations > 0 ? run.tally.last_end - run.tally.first_start : 0.0;
    acc[0].t[HL_JACOBI] = run.tally.jacobi;
    acc[0].t[HL_REDUCTION] = run.tally.reduction;
    acc[0].t[HL_HALO] = span - run.tally.jacobi - run.tally.reduction;
    acc[0].t[HL_TOTAL] = span;
    int rc = hl_halo_emit(ctx, acc, 1, 0, 0.0, tail);
    hl_timers_free(acc, 1);
    if (rc) return rc;
    hl_emit(ctx, "\"record\":\"laid_out\",\"time\":%.9f,\"origin\":%.9f,\"above_at\":%lu,"
            "\"below_at\":%lu", run.laid_out, trace_origin(), run.given_at[0], run.given_at[1]);
    for (long it = 0; it < run.iterations && it < KEPT_SWEEPS; it++)
        hl_emit(ctx, "\"record\":\"sweep\",\"iteration\":%ld,\"start\":%.9f,\"end\":%.9f", it,
                run.sweep_times[it][0], run.sweep_times[it][1]);
    emit_edges(ctx);
    if (ctx->rank != 0) return 0;
    if (stale == 0 && reads[0] > 0)
        return hl_fail(ctx, "%ld of the %ld reads of a neighbour's block on the node were not "
                       "of the block in the window: pass shm_sweep the pointer "
                       "MPI_Win_shared_query gave, the neighbour's block itself, not a copy of it",
                       reads[0], reads[1]);
    hl_emit(ctx, "\"record\":\"checksum\",\"checksum\":%.17g,\"delta\":%.17g,\"stale_reads\":%ld,%s",
            checksum, delta, stale, tail);
    if (!check) return 0;
    int ok = 1;
    double want = serial_checksum(run.nx, ny, run.iterations, &ok);
    if (!ok) return hl_fail(ctx, "no memory for the serial check of %ld x %ld", run.nx, ny);
    int same = fabs(checksum - want) <= 1e-12 * fmax(1.0, fabs(want));
    hl_emit(ctx, "\"record\":\"check\",\"ok\":%d,\"stale_reads\":%ld,\"checksum\":%.17g,"
                 "\"expected\":%.17g,%s", same && stale == 0, stale, checksum, want, tail);
    return 0;
}

/* Several "nodes" on one machine (hybridlab.shm.exercise.nodes_env): HL_MADE_UP_NODES=n asks for
 * n blocks of consecutive ranks. MPICH makes them itself (MPIR_CVAR_NUM_CLIQUES, set beside it);
 * an MPI that ignores that keeps every rank on one node, and then MPI_COMM_TYPE_SHARED splits,
 * the kit's and the student's alike, go through hl_node_split's made-up nodes of
 * ceil(size / n) ranks, the blocks MPICH makes. Read before any student code runs. */
static void made_up_nodes(MPI_Comm comm) {
    const char *asked = getenv("HL_MADE_UP_NODES");
    long nodes = asked ? strtol(asked, NULL, 10) : 1;
    int size = 1, on_node = 1;
    MPI_Comm_size(comm, &size);
    if (nodes <= 1 || nodes > size) return;
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
    if (on_node == size) hl_fake_ranks_per_node = (int)((size + nodes - 1) / nodes);
}

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1;
    int variant = hl_param_choice(ctx, "variant", variant_names, V_COUNT);
    int sync = hl_param_choice(ctx, "sync", sync_names, S_ALL);
    if (variant < 0 || sync < 0) return -1;
    long nx = hl_param_long(ctx, "nx", 1, &ok), ny = hl_param_long(ctx, "ny", 1, &ok);
    long iterations = hl_param_long(ctx, "iterations", 0, &ok);
    long stagger_us = hl_param_long(ctx, "stagger_us", 0, &ok);
    long allreduce = hl_param_long(ctx, "allreduce", 0, &ok);
    long check = hl_param_long(ctx, "check", 0, &ok);
    if (!ok) return -1;
    if (stagger_us > 1000000L) return hl_fail(ctx, "stagger_us=%ld is above 1 s", stagger_us);
    if (nx > 100000000L || ny > 100000000L || nx * ny > HL_HALO_MAX_POINTS)
        return hl_fail(ctx, "grid nx=%ld x ny=%ld is too large", nx, ny);
    if (ny < ctx->size)
        return hl_fail(ctx, "grid too small: ny=%ld rows cannot be split over %d ranks (each "
                            "rank needs a row)", ny, ctx->size);
    made_up_nodes(comm);
    static shm_run start; /* the run's start, sealed at once (hl_run zeroed the rest) */
    memset(&start, 0, sizeof start);
    start.ctx = ctx;
    start.comm = comm;
    start.student = variant == V_STUDENT;
    start.nx = nx;
    start.ny = ny;
    start.w = nx + 2;
    start.iterations = iterations;
    start.stagger_us = stagger_us;
    start.allreduce = allreduce != 0;
    long base = ny / ctx->size, extra = ny % ctx->size; /* as halo2d */
    start.m = base + (ctx->rank < extra ? 1 : 0);
    start.first = 1 + ctx->rank * base + (ctx->rank < extra ? ctx->rank : extra);
    start.up = ctx->rank > 0 ? ctx->rank - 1 : MPI_PROC_NULL;
    start.down = ctx->rank < ctx->size - 1 ? ctx->rank + 1 : MPI_PROC_NULL;
    hl_sealed_put(&run, &start, sizeof start);
    char members[1024];
    if (find_node(comm, ctx, members, sizeof members)) return -1;
    hl_emit(ctx, "\"record\":\"node\",\"members\":\"%s\"", members);
    RUN_SET(halo_above, halo_row(run.up, run.up_on_node, run.first - 1, &ok));
    RUN_SET(halo_below, halo_row(run.down, run.down_on_node, run.first + run.m, &ok));
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int rc = 0;
    if (!all_ok) {
        rc = hl_fail(ctx, "no memory for the halo rows");
        goto done;
    }
    MPI_Barrier(comm);
    if (variant == V_SHARED) kit_jacobi(comm, iterations, run.halo_above, run.halo_below, sync);
#ifdef HL_STUDENT_SHM_HALO
    else {
        /* shm_jacobi runs on this stack: what the results are emitted by, kept (hybridlab.h) */
        HL_KEEP(ctx, variant, sync, ny, check, iterations);
        hl_trace_on_student_receive(shm_held);
        shm_jacobi(comm, iterations, run.halo_above, run.halo_below);
        hl_trace_on_student_receive(NULL);
        HL_KEPT_CHECK("shm_jacobi", variant, sync, ny, check, iterations);
    }
#endif
    if (!run.error[0] && !run.finished)
        run_error("rank %d: shm_shm_finish(mine) was not called (after the last sweep, before the "
                  "window is freed)", ctx->rank);
    int failed = run.error[0] ? ctx->rank + 1 : 0, first_failed = 0;
    MPI_Allreduce(&failed, &first_failed, 1, MPI_INT, MPI_MAX, comm);
    if (first_failed) {
        rc = failed ? hl_fail(ctx, "%s", run.error)
                    : hl_fail(ctx, "rank %d failed (its error says why)", first_failed - 1);
        goto done;
    }
    rc = emit_results(ctx, variant, sync, ny, check);
done:
    free(run.halo_above);
    free(run.halo_below);
    return rc;
}
