/* grid_exchange: nearest-neighbour messages on a rows x cols grid of ranks, one record per
 * message, so that the messages that cross nodes can be counted (lab 06, Rabenseifner, slide 13).
 *
 * Which rank sits where is the program's choice, not the launcher's: `order` lists the world
 * rank at each grid position (row by row; empty: rank p at position p). The kernel splits the
 * communicator with the position as key, so that grid rank = position, and each position
 * exchanges `bytes` with each of its up to four neighbours (MPI_Sendrecv: right, left, down, up,
 * MPI_PROC_NULL at the edges of the grid), `reps` times per direction after one untimed exchange.
 *
 * Records: "message" for every message a rank sent: position, peer (world rank of the
 * receiver), peer_position, direction, bytes and seconds (per exchange, mean over reps); host
 * comes with every record, so a message crosses nodes when its rank's host differs from its
 * peer's (hybridlab.mapping.tables.grid_links_table). Check: every value received holds the
 * sender's position; a wrong value fails the kernel.
 */
#include "hybridlab.h"

#define MAX_RANKS 4096

const char *const hl_kernel_description =
    "nearest-neighbour messages on a rows x cols grid of ranks in a chosen order (rank map), "
    "one record per message with its peer, checked";

const hl_param hl_kernel_params[] = {
    {"rows", "1", "grid rows (rows x cols = ranks)"},
    {"cols", "0", "grid columns; 0: all ranks in one row"},
    {"order", "", "world rank at each grid position, row by row (empty: rank p at position p)"},
    {"bytes", "65536", "bytes of each message"},
    {"reps", "20", "timed exchanges per direction"},
    HL_END_PARAMS,
};

int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    int ok = 1, rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long rows = hl_param_long(ctx, "rows", 1, &ok);
    long cols = ok ? hl_param_long(ctx, "cols", 0, &ok) : 0;
    long bytes = ok ? hl_param_long(ctx, "bytes", 1, &ok) : 0;
    long reps = ok ? hl_param_long(ctx, "reps", 1, &ok) : 0;
    if (!ok) return -1;
    if (cols == 0) cols = size / rows;
    if (rows * cols != size)
        return hl_fail(ctx, "a %ld x %ld grid needs %ld ranks, the run has %d", rows, cols,
                       rows * cols, size);
    if (size > MAX_RANKS) return hl_fail(ctx, "at most %d ranks", MAX_RANKS);
    if (bytes > (1L << 28)) return hl_fail(ctx, "parameter bytes=%ld is too large (2^28)", bytes);

    static double given[MAX_RANKS];
    static int at[MAX_RANKS], seen[MAX_RANKS];
    int listed = hl_param_numbers(ctx, "order", given, MAX_RANKS);
    if (listed < 0) return -1;
    if (listed != 0 && listed != size)
        return hl_fail(ctx, "order lists %d ranks, the run has %d", listed, size);
    for (int p = 0; p < size; p++) seen[p] = 0;
    for (int p = 0; p < size; p++) {
        at[p] = listed ? (int)given[p] : p;
        if ((listed && at[p] != given[p]) || at[p] < 0 || at[p] >= size || seen[at[p]]++)
            return hl_fail(ctx, "order must list each rank 0..%d once", size - 1);
    }
    int position = 0;
    for (int p = 0; p < size; p++)
        if (at[p] == rank) position = p;
    MPI_Comm grid;
    MPI_Comm_split(comm, 0, position, &grid); /* grid rank = position */

    int row = position / (int)cols, col = position % (int)cols;
    int peers[4] = {col + 1 < cols ? position + 1 : MPI_PROC_NULL,
                    col > 0 ? position - 1 : MPI_PROC_NULL,
                    row + 1 < rows ? position + (int)cols : MPI_PROC_NULL,
                    row > 0 ? position - (int)cols : MPI_PROC_NULL};
    static const char *const names[4] = {"right", "left", "down", "up"};
    static const int opposite[4] = {1, 0, 3, 2};

    long count = (bytes + (long)sizeof(int) - 1) / (long)sizeof(int);
    int *out = malloc((size_t)count * sizeof *out), *in = malloc((size_t)count * sizeof *in);
    if (!out || !in) return hl_fail(ctx, "no memory for %ld bytes", bytes);
    for (long i = 0; i < count; i++) out[i] = position;

    long wrong = 0;
    double seconds[4] = {0, 0, 0, 0};
    for (int d = 0; d < 4; d++) {
        int from = peers[opposite[d]];
        for (long rep = -1; rep < reps; rep++) { /* rep -1: untimed warm-up */
            if (rep == 0) {
                MPI_Barrier(grid);
                seconds[d] = hl_now();
            }
            for (long i = 0; i < count; i++) in[i] = -1;
            MPI_Sendrecv(out, (int)count, MPI_INT, peers[d], d, in, (int)count, MPI_INT, from, d,
                         grid, MPI_STATUS_IGNORE);
            if (from != MPI_PROC_NULL)
                for (long i = 0; i < count; i++) wrong += in[i] != from;
        }
        seconds[d] = (hl_now() - seconds[d]) / (double)(reps > 0 ? reps : 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    free(out);
    free(in);
    MPI_Comm_free(&grid);
    if (wrong) return hl_fail(ctx, "%ld values arrived from the wrong neighbour", wrong);
    for (int d = 0; d < 4; d++)
        if (peers[d] != MPI_PROC_NULL)
            hl_emit(ctx,
                    "\"record\":\"message\",\"position\":%d,\"peer\":%d,\"peer_position\":%d,"
                    "\"direction\":\"%s\",\"rows\":%ld,\"cols\":%ld,\"bytes\":%ld,"
                    "\"seconds\":%.9g",
                    position, at[peers[d]], peers[d], names[d], rows, cols, bytes, seconds[d]);
    return 0;
}
