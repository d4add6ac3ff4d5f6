"""Right answers to lab 13 written another way: the halo by MPI_Neighbor_alltoallv on packed
buffers (the receive buffer first filled with the halo it replaces, so a missing neighbour
changes nothing), by MPI_Neighbor_alltoallw with subarray types at displacement 0, or by a
nonblocking neighbourhood collective completed in the same call (MPI_Ineighbor_alltoallw and
MPI_Wait or MPI_Waitany; MPI_Ineighbor_alltoall of padded blocks and MPI_Test until done); the slowest rank's
seconds from a pivot table or row by row; the overlapped residual with two buffers indexed by
the iteration's parity, or with the pending request tested against MPI_REQUEST_NULL; the
prediction from the table itself or through (b)'s function, and with (c) left unanswered."""

from honest import released, right

LAB = "13_neighbourhood_collectives"

# reorder=1, and the nonblocking MPI_Ineighbor_alltoallw completed in the same call
INEIGHBOR_W = r"""
%%c NEIGHBOUR_C neighbour_halo
/* right, other way: reorder=1, and the nonblocking MPI_Ineighbor_alltoallw + MPI_Wait */
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 1, &grid);
    return grid;
}

void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    long w = n + 2;
    MPI_Datatype row, col;
    MPI_Type_contiguous(n, MPI_DOUBLE, &row);
    MPI_Type_vector(m, 1, w, MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    int counts[4] = {1, 1, 1, 1};
    MPI_Datatype types[4] = {row, row, col, col};
    MPI_Aint sd[4] = {(MPI_Aint)((1 * w + 1) * sizeof(double)), (MPI_Aint)((m * w + 1) * sizeof(double)),
                      (MPI_Aint)((w + 1) * sizeof(double)), (MPI_Aint)((w + n) * sizeof(double))};
    MPI_Aint rd[4] = {(MPI_Aint)(1 * sizeof(double)), (MPI_Aint)(((m + 1) * w + 1) * sizeof(double)),
                      (MPI_Aint)(w * sizeof(double)), (MPI_Aint)((w + n + 1) * sizeof(double))};
    MPI_Request req;
    MPI_Ineighbor_alltoallw(a, counts, sd, types, a, counts, rd, types, grid, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Type_free(&row);
    MPI_Type_free(&col);
}
"""


HONEST = [
    # (a) make_grid and neighbour_exchange
    right("neighbour_exchange", r"""
%%c NEIGHBOUR_C neighbour_halo
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int ranks;
    const int periodic[2] = {0, 0};
    MPI_Comm cart;
    MPI_Comm_size(comm, &ranks);
    MPI_Dims_create(ranks, 2, dims);  /* keeps what was asked, fills the zeros */
    MPI_Cart_create(comm, 2, dims, periodic, 0, &cart);
    return cart;
}

void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    const long w = n + 2;
    /* neighbours in the Cartesian order: up, down, left, right; rows of n, columns of m */
    int counts[4] = {(int)n, (int)n, (int)m, (int)m};
    int at[4] = {0, (int)n, (int)(2 * n), (int)(2 * n + m)};
    double *out = malloc((size_t)(2 * n + 2 * m) * sizeof *out);
    double *in = malloc((size_t)(2 * n + 2 * m) * sizeof *in);
    for (long j = 0; j < n; j++) {
        out[j] = a[1 * w + 1 + j];              /* my first row, to the rank above */
        out[n + j] = a[m * w + 1 + j];          /* my last row, to the rank below */
        in[j] = a[0 * w + 1 + j];               /* the halo as it is: kept where no */
        in[n + j] = a[(m + 1) * w + 1 + j];     /* neighbour sends */
    }
    for (long i = 0; i < m; i++) {
        out[2 * n + i] = a[(i + 1) * w + 1];    /* my first column, to the left */
        out[2 * n + m + i] = a[(i + 1) * w + n];
        in[2 * n + i] = a[(i + 1) * w + 0];
        in[2 * n + m + i] = a[(i + 1) * w + n + 1];
    }
    MPI_Neighbor_alltoallv(out, counts, at, MPI_DOUBLE, in, counts, at, MPI_DOUBLE, grid);
    for (long j = 0; j < n; j++) {
        a[0 * w + 1 + j] = in[j];
        a[(m + 1) * w + 1 + j] = in[n + j];
    }
    for (long i = 0; i < m; i++) {
        a[(i + 1) * w + 0] = in[2 * n + i];
        a[(i + 1) * w + n + 1] = in[2 * n + m + i];
    }
    free(out);
    free(in);
}
""", why="packed rows and columns, MPI_Neighbor_alltoallv, no reordering of the ranks"),
    right("neighbour_exchange", r"""
%%c NEIGHBOUR_C neighbour_halo
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int p;
    int wrap[2] = {0, 0};
    MPI_Comm out;
    MPI_Comm_size(comm, &p);
    MPI_Dims_create(p, 2, dims);
    MPI_Cart_create(comm, 2, dims, wrap, 1, &out);
    return out;
}

static MPI_Datatype piece(long m, long n, int row0, int col0, int rows, int cols) {
    int whole[2] = {(int)m + 2, (int)n + 2}, part[2] = {rows, cols}, from[2] = {row0, col0};
    MPI_Datatype t;
    MPI_Type_create_subarray(2, whole, part, from, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    const int N = (int)n, M = (int)m;
    MPI_Datatype send[4] = {piece(m, n, 1, 1, 1, N), piece(m, n, M, 1, 1, N),
                            piece(m, n, 1, 1, M, 1), piece(m, n, 1, N, M, 1)};
    MPI_Datatype recv[4] = {piece(m, n, 0, 1, 1, N), piece(m, n, M + 1, 1, 1, N),
                            piece(m, n, 1, 0, M, 1), piece(m, n, 1, N + 1, M, 1)};
    int one[4] = {1, 1, 1, 1};
    MPI_Aint zero[4] = {0, 0, 0, 0};  /* each subarray type carries its own offset */
    MPI_Neighbor_alltoallw(a, one, zero, send, a, one, zero, recv, grid);
    for (int k = 0; k < 4; k++) {
        MPI_Type_free(&send[k]);
        MPI_Type_free(&recv[k]);
    }
}
""", why="MPI_Type_create_subarray for each edge and halo, every displacement 0"),
    right("neighbour_exchange", INEIGHBOR_W,
          why="reorder=1, the nonblocking MPI_Ineighbor_alltoallw completed by MPI_Wait in the same call"),
    right("neighbour_exchange", INEIGHBOR_W.replace(
        "MPI_Wait(&req, MPI_STATUS_IGNORE);",
        "int which;\n    MPI_Waitany(1, &req, &which, MPI_STATUS_IGNORE);"),
          why="the nonblocking MPI_Ineighbor_alltoallw completed by MPI_Waitany (one request)"),
    right("neighbour_exchange", r"""
%%c NEIGHBOUR_C neighbour_halo
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int nprocs, open_ends[2] = {0, 0};
    MPI_Comm cart;
    MPI_Comm_size(comm, &nprocs);
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(comm, 2, dims, open_ends, 0, &cart);
    return cart;
}

/* one block of `len` doubles per neighbour (up, down, left, right): every rank's longest edge,
 * since MPI_Neighbor_alltoall's count must be the same on the sending and receiving side */
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    long w = n + 2, mine = m > n ? m : n, len;
    MPI_Allreduce(&mine, &len, 1, MPI_LONG, MPI_MAX, grid);
    double *edges = calloc((size_t)(4 * len), sizeof(double));
    double *halos = calloc((size_t)(4 * len), sizeof(double));
    for (long j = 0; j < n; j++) {
        edges[0 * len + j] = a[w + 1 + j];
        edges[1 * len + j] = a[m * w + 1 + j];
        halos[0 * len + j] = a[1 + j];
        halos[1 * len + j] = a[(m + 1) * w + 1 + j];
    }
    for (long i = 0; i < m; i++) {
        edges[2 * len + i] = a[(i + 1) * w + 1];
        edges[3 * len + i] = a[(i + 1) * w + n];
        halos[2 * len + i] = a[(i + 1) * w];
        halos[3 * len + i] = a[(i + 1) * w + n + 1];
    }
    MPI_Request pending;
    int arrived = 0;
    MPI_Ineighbor_alltoall(edges, (int)len, MPI_DOUBLE, halos, (int)len, MPI_DOUBLE, grid, &pending);
    while (!arrived) MPI_Test(&pending, &arrived, MPI_STATUS_IGNORE);
    for (long j = 0; j < n; j++) {
        a[1 + j] = halos[0 * len + j];
        a[(m + 1) * w + 1 + j] = halos[1 * len + j];
    }
    for (long i = 0; i < m; i++) {
        a[(i + 1) * w] = halos[2 * len + i];
        a[(i + 1) * w + n + 1] = halos[3 * len + i];
    }
    free(edges);
    free(halos);
}
""", why="MPI_Ineighbor_alltoall of blocks padded to the longest edge, MPI_Test until it is done"),
    # (b) per_iteration
    right("per_iteration", """
PHASES = ["jacobi", "halo", "reduction", "other", "total"]


def per_iteration(timers: pd.DataFrame) -> dict:
    wide = timers.pivot_table(index="rank", columns="phase", values="seconds", aggfunc="first")
    slowest = wide["total"].astype(float).idxmax()
    runs = timers.loc[timers["rank"] == slowest, "iterations"]
    return {p: float(wide.loc[slowest, p]) / float(runs.iloc[0]) for p in PHASES}
""", why="a pivot table of seconds per rank and phase, the slowest by its total"),
    right("per_iteration", """
PHASES = ["jacobi", "halo", "reduction", "other", "total"]


def per_iteration(timers):
    rows = list(timers.itertuples(index=False))
    slowest = max((r for r in rows if r.phase == "total"), key=lambda r: float(r.seconds)).rank
    out = {}
    for r in rows:  # the first row of each phase of the slowest rank
        if r.rank == slowest and r.phase in PHASES and r.phase not in out:
            out[r.phase] = float(r.seconds) / float(r.iterations)
    return out
""", why="rows as tuples: the slowest rank's total found by max, then its phases"),
    # (c) solve_overlapped
    right("solve_overlapped", r"""
%%c RESIDUAL_C neighbour_halo
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double part[2], whole[2];  /* iteration k's values in slot (k - 1) % 2 */
    MPI_Request pending;
    long done = 1;
    part[0] = jacobi_iteration();
    MPI_Iallreduce(&part[0], &whole[0], 1, MPI_DOUBLE, MPI_SUM, comm, &pending);
    while (done < max_iterations) {
        int now = (int)(done % 2), before = 1 - now;
        part[now] = jacobi_iteration();  /* while iteration done's sum travels */
        done++;
        MPI_Wait(&pending, MPI_STATUS_IGNORE);
        if (whole[before] < tolerance) return whole[before];
        MPI_Iallreduce(&part[now], &whole[now], 1, MPI_DOUBLE, MPI_SUM, comm, &pending);
    }
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
    return whole[(done - 1) % 2];
}
""", why="a while loop, two buffers indexed by the iteration's parity"),
    right("solve_overlapped", r"""
%%c RESIDUAL_C neighbour_halo
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double send = 0.0, recv = 0.0;
    MPI_Request r = MPI_REQUEST_NULL;
    for (long k = 0; k < max_iterations; k++) {
        double next = jacobi_iteration();
        if (r != MPI_REQUEST_NULL) {  /* the previous iteration's sum, known one late */
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (recv < tolerance) return recv;
        }
        send = next;
        MPI_Iallreduce(&send, &recv, 1, MPI_DOUBLE, MPI_SUM, comm, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    return recv;
}
""", why="one loop from 0, the pending request told apart by MPI_REQUEST_NULL"),
    # double buffering by two pointers swapped: the next value is written during the flight into
    # the other variable, the send buffer's neighbour in memory (the debug registers watch the
    # send buffer's own bytes only: hl_trace.c, HL_POSTED)
    right("solve_overlapped", r"""
%%c RESIDUAL_C neighbour_halo
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    struct { double a, b; } both = {0.0, 0.0};
    double *out = &both.a, *in = &both.b, total = 0.0;
    MPI_Request req;
    *out = jacobi_iteration();
    MPI_Iallreduce(out, &total, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
    for (long k = 1; k < max_iterations; k++) {
        *in = jacobi_iteration();  /* the other buffer, written while *out is in flight */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (total < tolerance) return total;
        double *t = out;
        out = in;
        in = t;
        MPI_Iallreduce(out, &total, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return total;
}
""", why="double buffering by swapped pointers: the in-flight buffer's neighbour written, not it"),
    # (d) own_prediction
    right("own_prediction", """
def _slowest_per_iteration(table):
    totals = table[table["phase"] == "total"].set_index("rank")["seconds"].astype(float)
    mine = table[table["rank"] == totals.idxmax()].drop_duplicates("phase").set_index("phase")
    return mine["seconds"].astype(float) / float(mine["iterations"].iloc[0])


def predicted_overlapped(blocking: pd.DataFrame) -> float:
    b = _slowest_per_iteration(blocking)
    return float(b["total"] - b["reduction"])


def hidden_share(blocking: pd.DataFrame, overlapped: pd.DataFrame) -> float:
    b, o = _slowest_per_iteration(blocking), _slowest_per_iteration(overlapped)
    return float((b["total"] - o["total"]) / b["reduction"])
""", why="the slowest rank's phases per iteration from the table itself, not (b)'s function"),
    right("own_prediction", """
def predicted_overlapped(blocking):
    before = per_iteration(blocking)
    hidden = before["reduction"]  # at best the whole reduction is hidden
    return before["total"] - hidden


def hidden_share(blocking, overlapped):
    before, after = per_iteration(blocking), per_iteration(overlapped)
    saved = before["total"] - after["total"]
    return saved / before["reduction"]
""", why="(b)'s function, the saving named before the division"),
    right("own_prediction", """
def predicted_overlapped(blocking):
    slowest = per_iteration(blocking)
    return slowest["jacobi"] + slowest["halo"] + slowest["other"] + (
        slowest["total"] - slowest["jacobi"] - slowest["halo"] - slowest["reduction"]
        - slowest["other"])


def hidden_share(blocking, overlapped):
    per_reduced = 1.0 / per_iteration(blocking)["reduction"]
    return (per_iteration(blocking)["total"] - per_iteration(overlapped)["total"]) * per_reduced
""", why="the total without its reduction summed from the other phases; (c) left unanswered",
          blank=(released(LAB, "solve_overlapped"),)),
    # a fresh attacker's (helper-52): MPI_BOTTOM with absolute addresses, the portable way; it
    # lost 0/4 at build while MPI_Get_address was not among the calls the tracer passes through
    right("neighbour_exchange", """%%c NEIGHBOUR_C neighbour_halo
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 1, &grid);
    return grid;
}

/* alltoallw from MPI_BOTTOM with absolute addresses (MPI_Get_address), hvector columns,
   nonblocking, completed with MPI_Waitall */
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    long w = n + 2;
    MPI_Datatype row, col;
    MPI_Type_contiguous((int)n, MPI_DOUBLE, &row);
    MPI_Type_create_hvector((int)m, 1, (MPI_Aint)(w * sizeof(double)), MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    double *sp[4] = {a + w + 1, a + m * w + 1, a + w + 1, a + w + n};
    double *rp[4] = {a + 1, a + (m + 1) * w + 1, a + w, a + w + n + 1};
    MPI_Aint sd[4], rd[4];
    for (int k = 0; k < 4; k++) {
        MPI_Get_address(sp[k], &sd[k]);
        MPI_Get_address(rp[k], &rd[k]);
    }
    int c[4] = {1, 1, 1, 1};
    MPI_Datatype t[4] = {row, row, col, col};
    MPI_Request rq[1];
    MPI_Ineighbor_alltoallw(MPI_BOTTOM, c, sd, t, MPI_BOTTOM, c, rd, t, grid, &rq[0]);
    MPI_Waitall(1, rq, MPI_STATUSES_IGNORE);
    MPI_Type_free(&row);
    MPI_Type_free(&col);
}
""", why="MPI_Ineighbor_alltoallw from MPI_BOTTOM, addresses from MPI_Get_address"),
    # a fresh attacker's right answer (L13r5, 2026-12-05): alltoallw's byte displacements from
    # MPI_Type_get_extent, 0/4 while the build refused MPI's untraced queries
    right("neighbour_exchange", '%%c NEIGHBOUR_C neighbour_halo\nMPI_Comm make_grid(MPI_Comm comm, int dims[2]) {\n    int size, periods[2] = {0, 0};\n    MPI_Comm grid;\n    MPI_Comm_size(comm, &size);\n    MPI_Dims_create(size, 2, dims);\n    MPI_Cart_create(comm, 2, dims, periods, 0, &grid);\n    return grid;\n}\n\nvoid neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {\n    long w = n + 2;\n    MPI_Datatype row, col;\n    MPI_Type_contiguous((int)n, MPI_DOUBLE, &row);\n    MPI_Type_vector((int)m, 1, (int)w, MPI_DOUBLE, &col);\n    MPI_Type_commit(&row);\n    MPI_Type_commit(&col);\n    MPI_Aint lb, ext;\n    MPI_Type_get_extent(MPI_DOUBLE, &lb, &ext);      /* the size of a double, as MPI sees it */\n    int counts[4] = {1, 1, 1, 1};\n    MPI_Datatype types[4] = {row, row, col, col};\n    MPI_Aint sd[4] = {(MPI_Aint)((1 * w + 1) * ext), (MPI_Aint)((m * w + 1) * ext),\n                      (MPI_Aint)((1 * w + 1) * ext), (MPI_Aint)((1 * w + n) * ext)};\n    MPI_Aint rd[4] = {(MPI_Aint)((0 * w + 1) * ext), (MPI_Aint)(((m + 1) * w + 1) * ext),\n                      (MPI_Aint)((1 * w + 0) * ext), (MPI_Aint)((1 * w + n + 1) * ext)};\n    MPI_Neighbor_alltoallw(a, counts, sd, types, a, counts, rd, types, grid);\n    MPI_Type_free(&row);\n    MPI_Type_free(&col);\n}\n',
          why="alltoallw's byte displacements from MPI_Type_get_extent"),
]

# attacker V's right answers (kept 4/4 before the secret start and the in-place watch): they
# must keep it
HONEST += [
    right("neighbour_exchange", r'''
%%c NEIGHBOUR_C neighbour_halo
/* Right answer: MPI_Dims_create + MPI_Cart_create; the halo as one MPI_Neighbor_alltoallw,
 * rows as contiguous types and columns as strided vectors, byte displacements into a itself. */
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 0, &grid);
    return grid;
}

void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    long w = n + 2;
    MPI_Datatype row, col;
    MPI_Type_contiguous((int)n, MPI_DOUBLE, &row);
    MPI_Type_vector((int)m, 1, (int)w, MPI_DOUBLE, &col);
    MPI_Type_commit(&row);
    MPI_Type_commit(&col);
    int counts[4] = {1, 1, 1, 1};
    MPI_Datatype types[4] = {row, row, col, col};
    const MPI_Aint d = (MPI_Aint)sizeof(double);
    /* up, down, left, right */
    MPI_Aint sd[4] = {(1 * w + 1) * d, (m * w + 1) * d, (1 * w + 1) * d, (1 * w + n) * d};
    MPI_Aint rd[4] = {(0 * w + 1) * d, ((m + 1) * w + 1) * d, (1 * w + 0) * d, (1 * w + n + 1) * d};
    MPI_Neighbor_alltoallw(a, counts, sd, types, a, counts, rd, types, grid);
    MPI_Type_free(&row);
    MPI_Type_free(&col);
}
''',
          why="attackV R13a_w: MPI_Neighbor_alltoallw, row types and column vectors, byte "
              "displacements into a"),
    right("neighbour_exchange", r'''
%%c NEIGHBOUR_C neighbour_halo
/* Right answer, another way: the caller's dims honoured, a 0 filled by MPI_Dims_create; the four
 * edges packed by hand into one buffer, MPI_Ineighbor_alltoallv of plain doubles (element
 * displacements), completed with MPI_Wait, unpacked only from neighbours that exist
 * (MPI_Cart_shift). */
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0}, d[2] = {dims[0], dims[1]};
    MPI_Comm grid = MPI_COMM_NULL;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, d);
    MPI_Cart_create(comm, 2, d, periods, 1, &grid);
    dims[0] = d[0];
    dims[1] = d[1];
    return grid;
}

void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    long w = n + 2;
    int nb[4];
    MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]);
    double *s = malloc(sizeof(double) * (size_t)(2 * n + 2 * m));
    double *r = malloc(sizeof(double) * (size_t)(2 * n + 2 * m));
    int counts[4] = {(int)n, (int)n, (int)m, (int)m};
    int displs[4] = {0, (int)n, (int)(2 * n), (int)(2 * n + m)};
    for (long j = 0; j < n; j++) {
        s[j] = a[1 * w + 1 + j];
        s[n + j] = a[m * w + 1 + j];
    }
    for (long i = 0; i < m; i++) {
        s[2 * n + i] = a[(i + 1) * w + 1];
        s[2 * n + m + i] = a[(i + 1) * w + n];
    }
    MPI_Request req;
    MPI_Ineighbor_alltoallv(s, counts, displs, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, grid, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (nb[0] != MPI_PROC_NULL) for (long j = 0; j < n; j++) a[0 * w + 1 + j] = r[j];
    if (nb[1] != MPI_PROC_NULL) for (long j = 0; j < n; j++) a[(m + 1) * w + 1 + j] = r[n + j];
    if (nb[2] != MPI_PROC_NULL) for (long i = 0; i < m; i++) a[(i + 1) * w] = r[2 * n + i];
    if (nb[3] != MPI_PROC_NULL) for (long i = 0; i < m; i++) a[(i + 1) * w + n + 1] = r[2 * n + m + i];
    free(s);
    free(r);
}
''',
          why="attackV R13a_iv: reorder=1, packed edges, MPI_Ineighbor_alltoallv and MPI_Wait, "
              "unpacked only from neighbours that exist"),
    right("solve_overlapped", r'''
%%c RESIDUAL_C neighbour_halo
/* Right answer: two send buffers used in turn; the reduction of iteration k in flight while
 * iteration k + 1 computes. */
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double send[2], sum = 0.0;
    MPI_Request req;
    int cur = 0;
    long it = 1;
    if (max_iterations <= 0) return 0.0;
    send[cur] = jacobi_iteration();
    MPI_Iallreduce(&send[cur], &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
    while (it < max_iterations) {
        send[1 - cur] = jacobi_iteration();
        it++;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (sum < tolerance) return sum;
        cur = 1 - cur;
        MPI_Iallreduce(&send[cur], &sum, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return sum;
}
''',
          why="attackV R13c_pingpong: two send slots used in turn"),
    right("solve_overlapped", r'''
%%c RESIDUAL_C neighbour_halo
/* Right answer, another way: MPI_IN_PLACE (the value reduced where it lies), the next
 * iteration's value kept apart, completion by MPI_Test polling after the next iteration. */
double solve_overlapped(long max_iterations, double tolerance, MPI_Comm comm) {
    double slot[2];
    MPI_Request req;
    long it = 0;
    int k = 0, done;
    if (max_iterations <= 0) return 0.0;
    slot[k] = jacobi_iteration();
    it = 1;
    for (;;) {
        MPI_Iallreduce(MPI_IN_PLACE, &slot[k], 1, MPI_DOUBLE, MPI_SUM, comm, &req);
        int more = it < max_iterations;
        if (more) {
            slot[1 - k] = jacobi_iteration();
            it++;
        }
        done = 0;
        while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!more || slot[k] < tolerance) return slot[k];
        k = 1 - k;
    }
}
''',
          why="attackV R13c_inplace: MPI_IN_PLACE on one of two slots side by side, completed "
              "by an MPI_Test loop after the next iteration"),
]

# attacker T's R13_ineighbor (2026-12-06, full points twice)
HONEST.append(right('neighbour_exchange', r"""
%%c NEIGHBOUR_C neighbour_halo
MPI_Comm make_grid(MPI_Comm comm, int dims[2]) {
    int size, periods[2] = {0, 0};
    MPI_Comm grid;
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 1, &grid);   /* reorder allowed */
    return grid;
}

/* subarray types of the (m + 2) x (n + 2) block, one nonblocking neighbourhood alltoallw,
 * completed by polling MPI_Test */
void neighbour_exchange(double *a, long m, long n, MPI_Comm grid) {
    int full[2] = {(int)m + 2, (int)n + 2}, row[2] = {1, (int)n}, col[2] = {(int)m, 1};
    int at[4][2] = {{1, 1}, {(int)m, 1}, {1, 1}, {1, (int)n}};       /* what I send: up, down, left, right */
    int into[4][2] = {{0, 1}, {(int)m + 1, 1}, {1, 0}, {1, (int)n + 1}}; /* where it lands */
    MPI_Datatype st[4], rt[4];
    int counts[4] = {1, 1, 1, 1};
    MPI_Aint zero[4] = {0, 0, 0, 0};
    for (int q = 0; q < 4; q++) {
        int *sub = q < 2 ? row : col;
        MPI_Type_create_subarray(2, full, sub, at[q], MPI_ORDER_C, MPI_DOUBLE, &st[q]);
        MPI_Type_create_subarray(2, full, sub, into[q], MPI_ORDER_C, MPI_DOUBLE, &rt[q]);
        MPI_Type_commit(&st[q]);
        MPI_Type_commit(&rt[q]);
    }
    MPI_Request req;
    MPI_Ineighbor_alltoallw(a, counts, zero, st, a, counts, zero, rt, grid, &req);
    int done = 0;
    while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    for (int q = 0; q < 4; q++) {
        MPI_Type_free(&st[q]);
        MPI_Type_free(&rt[q]);
    }
}
""", why='MPI_Ineighbor_alltoallw with subarray types on a reordered Cartesian communicator, completed by an MPI_Test loop'))
