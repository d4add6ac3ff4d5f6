"""Right answers to lab 04 written another way: the halo exchange with MPI_Irecv, MPI_Isend and
MPI_Waitall, or with MPI_Send and MPI_Recv ordered by the parity of the rank (safe under
synchronous sends); the shares with numpy or row by row; the faces from the local sizes per axis
or with math.prod; the overlap with the master found by omp_get_thread_num, a guided schedule
and the edge rows in sections, with the master polling MPI_Testall while it takes rows, with the
interior as tasks the master creates before it waits, or split by hand among the threads other
than the master."""

from honest import right

HONEST = [
    # (a) exchange_halos
    right("exchange_halos", r"""
%%c EXCHANGE_C halo2d
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    const long w = nx + 2;
    double *first = a + w + 1, *last = a + m * w + 1;      /* edge rows 1 and m */
    double *above = a + 1, *below = a + (m + 1) * w + 1;   /* halo rows 0 and m + 1 */
    MPI_Request r[4];
    MPI_Irecv(above, (int)nx, MPI_DOUBLE, up, 10, comm, &r[0]);
    MPI_Irecv(below, (int)nx, MPI_DOUBLE, down, 20, comm, &r[1]);
    MPI_Isend(first, (int)nx, MPI_DOUBLE, up, 20, comm, &r[2]);
    MPI_Isend(last, (int)nx, MPI_DOUBLE, down, 10, comm, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
}
""", why="receives posted first, then the sends, one MPI_Waitall; pointers named per row"),
    right("exchange_halos", r"""
%%c EXCHANGE_C halo2d
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    int rank;
    MPI_Comm_rank(comm, &rank);
    /* even ranks send first, odd ranks receive first: safe even when a send waits for its
       receive (neighbours along the chain alternate in parity) */
    if (rank % 2 == 0) {
        MPI_Send(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 3, comm);
        MPI_Recv(&a[1], (int)nx, MPI_DOUBLE, up, 3, comm, MPI_STATUS_IGNORE);
        MPI_Send(&a[w + 1], (int)nx, MPI_DOUBLE, up, 4, comm);
        MPI_Recv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 4, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&a[1], (int)nx, MPI_DOUBLE, up, 3, comm, MPI_STATUS_IGNORE);
        MPI_Send(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 3, comm);
        MPI_Recv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 4, comm, MPI_STATUS_IGNORE);
        MPI_Send(&a[w + 1], (int)nx, MPI_DOUBLE, up, 4, comm);
    }
}
""", why="blocking MPI_Send and MPI_Recv, ordered by the rank's parity"),
    # (b) phase_shares
    right("phase_shares", """
def phase_shares(table: pd.DataFrame) -> pd.DataFrame:
    phases = ["jacobi", "halo", "reduction", "other"]
    values = table[phases].to_numpy(dtype=float)
    shares = values / values.sum(axis=1, keepdims=True)
    out = pd.DataFrame(shares, columns=phases, index=pd.Index(table["label"], name="label"))
    out["dominant"] = [phases[k] for k in values.argmax(axis=1)]
    return out
""", why="a numpy array divided by its row sums, argmax for the dominant phase"),
    right("phase_shares", """
def phase_shares(table):
    phases = ("jacobi", "halo", "reduction", "other")
    rows = {}
    for _, run in table.iterrows():
        times = {p: float(run[p]) for p in phases}
        whole = sum(times.values())
        rows[run["label"]] = {**{p: t / whole for p, t in times.items()},
                              "dominant": max(times, key=times.get)}
    return pd.DataFrame.from_dict(rows, orient="index")
""", why="row by row: a dict per run, the dominant phase by max over its times"),
    right("phase_shares", """
def phase_shares(table: pd.DataFrame) -> pd.DataFrame:
    # fraction of each phase in every row, and the dominant phase (apply row by row)
    phases = ["jacobi", "halo", "reduction", "other"]
    def one(row):
        s = row[phases].astype(float)
        out = s / s.sum()
        out["dominant"] = s.idxmax()
        return out
    return table.set_index("label").apply(one, axis=1)[phases + ["dominant"]]
""", why="apply row by row, the dominant phase set into the float Series: pandas warns on stderr "
         "(a fresh attacker's, 0/3 with no reason while a test cell's stderr scored it 0)"),
    # (c) halo_faces and predict_halo
    right("halo_faces", """
def halo_faces(threads: int, local: int = 144, grid=(24, 4, 2)) -> dict[str, int]:
    sizes = {"x": local * threads, "y": local, "z": local}  # the local array per axis
    procs = {"x": grid[0] // threads, "y": grid[1], "z": grid[2]}
    out = {}
    for axis in "xyz":
        face = 1
        for other in "xyz":
            if other != axis:
                face *= sizes[other]
        out[axis] = face
    out["total"] = sum(2 * out[a] for a in "xyz" if procs[a] > 1)
    return out


def predict_halo(threads_list, pure_halo_s: float, local: int = 144,
                 grid=(24, 4, 2)) -> pd.DataFrame:
    pure = halo_faces(1, local=local, grid=grid)["total"]
    rows = {t: halo_faces(t, local=local, grid=grid)["total"] / pure for t in threads_list}
    out = pd.Series(rows, name="face_ratio").rename_axis("threads").to_frame()
    out["predicted_s"] = pure_halo_s * out["face_ratio"]
    return out
""", why="a face is the product of the other two local sizes; a Series of ratios"),
    right("halo_faces", """
import math


def halo_faces(threads, local=144, grid=(24, 4, 2)):
    shape = (local * threads, local, local)
    split = (grid[0] // threads, grid[1], grid[2])
    faces = [math.prod(shape) // shape[k] for k in range(3)]
    total = 0
    for k in range(3):
        if split[k] > 1:  # a neighbour on both sides somewhere along this axis
            total += 2 * faces[k]
    return {"x": faces[0], "y": faces[1], "z": faces[2], "total": total}


def predict_halo(threads_list, pure_halo_s, local=144, grid=(24, 4, 2)):
    one = halo_faces(1, local, grid)["total"]
    ratios = [halo_faces(t, local, grid)["total"] / one for t in threads_list]
    return pd.DataFrame({"face_ratio": ratios,
                         "predicted_s": [r * pure_halo_s for r in ratios]},
                        index=pd.Index(list(threads_list), name="threads"))
""", why="math.prod of the local shape over each axis; the frame built from two lists"),
    # (d) overlap_iteration
    right("overlap_iteration", r"""
%%c OVERLAP_C halo2d
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    const long w = nx + 2;
    const int master = omp_get_thread_num() == 0;
    MPI_Request r[4];
    if (master) {
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[0]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[2]);
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[3]);
    }
#pragma omp for schedule(guided) nowait
    for (long i = m - 1; i >= 2; i--) stencil_rows(i, i);  /* the interior, bottom up */
    if (master) MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
#pragma omp barrier
#pragma omp sections
    {
#pragma omp section
        stencil_rows(1, 1);
#pragma omp section
        if (m > 1) stencil_rows(m, m);
    }
}
""", why="thread 0 posts, takes rows too, then waits; guided interior bottom up; edges in sections"),
    right("overlap_iteration", r"""
%%c OVERLAP_C halo2d
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    MPI_Request req[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int arrived = 0;
#pragma omp master
    {
        MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 5, comm, &req[0]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 5, comm, &req[1]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 6, comm, &req[2]);
        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 6, comm, &req[3]);
    }
#pragma omp for schedule(dynamic, 1) nowait
    for (long i = 2; i < m; i++) {
        stencil_rows(i, i);
        if (omp_get_thread_num() == 0 && !arrived)  /* the master, between its rows */
            MPI_Testall(4, req, &arrived, MPI_STATUSES_IGNORE);
    }
#pragma omp master
    if (!arrived) MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
#pragma omp barrier
#pragma omp for schedule(static, 1)
    for (long k = 0; k < 2; k++)
        if (k == 0 || m > 1) stencil_rows(k ? m : 1, k ? m : 1);
}
""", why="omp master, the master polling MPI_Testall between its rows, the edges by omp for"),
    right("overlap_iteration", r"""
%%c OVERLAP_C halo2d
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
#pragma omp masked
    {
        MPI_Request req[4];
        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 7, comm, &req[0]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 8, comm, &req[1]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 7, comm, &req[2]);
        MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 8, comm, &req[3]);
        for (long first = 2; first <= m - 1; first += 8) {  /* tasks of 8 rows for the team */
            long last = first + 7 < m - 1 ? first + 7 : m - 1;
#pragma omp task firstprivate(first, last)
            stencil_rows(first, last);
        }
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
#pragma omp barrier
#pragma omp masked
    stencil_rows(1, 1);
#pragma omp single
    if (m > 1) stencil_rows(m, m);
}
""", why="the master posts, hands the interior out as tasks of 8 rows, then waits: the team runs "
         "them at the barrier while it communicates; the edge rows by masked and single"),
    right("overlap_iteration", r"""
%%c OVERLAP_C halo2d
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    int me = omp_get_thread_num(), team = omp_get_num_threads();
    if (me == 0) {  /* the master only communicates (it computes alone in a team of one) */
        MPI_Request req[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 3, comm, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 4, comm, &req[1]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 3, comm, &req[2]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 4, comm, &req[3]);
        if (team == 1 && m > 2) stencil_rows(2, m - 1);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    } else {  /* the others split the interior into contiguous blocks, one each */
        long rows = m - 2, workers = team - 1;
        long first = 2 + rows * (me - 1) / workers, last = 1 + rows * me / workers;
        if (first <= last) stencil_rows(first, last);
    }
#pragma omp barrier
    if (me == team - 1) {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
""", why="the master only communicates; the other threads split the interior into one "
         "contiguous block each by their thread number (no worksharing construct)"),
    right("overlap_iteration", "%%c OVERLAP_C halo2d\n" + r"""/* right answer, written another way: rows handed out by an atomic counter (self-scheduling);
 * the master posts, takes rows while the messages travel, then waits; edge rows split between
 * two threads after a barrier */
static long next_row;

void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    static MPI_Request req[4];
    #pragma omp masked
    next_row = 2;
    #pragma omp barrier
    #pragma omp masked
    {
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 21, comm, &req[0]);
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 22, comm, &req[1]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 21, comm, &req[2]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 22, comm, &req[3]);
    }
    int master = omp_get_thread_num() == 0, done = 0;
    for (;;) {
        long i;
        #pragma omp atomic capture
        i = next_row++;
        if (i > m - 1) break;
        stencil_rows(i, i);
        if (master && !done) MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);
    }
    #pragma omp masked
    if (!done) MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    #pragma omp barrier
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    if (t == nt - 1) stencil_rows(m, m);
    if (t == 0 && m > 1) stencil_rows(1, 1);
}
""", why="a fresh attacker's right answer: rows handed out by an atomic counter, the master "
         "polling MPI_Testall between its rows, the edges split after a barrier"),
]

# A fresh attacker's right answers sending whole rows (nx + 2 values, the halo columns included),
# which (a) accepts too: each message may be a row's nx interior values or the whole row.
HONEST += [
    right("overlap_iteration", r"""
%%c OVERLAP_C halo2d
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* a row is w = nx + 2 doubles long, halo columns included: long w = nx + 2; */
    const long w = nx + 2;
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    if (t == 0) {
        MPI_Request rq[4];
        MPI_Isend(&a[w], (int)w, MPI_DOUBLE, up, 7, comm, &rq[0]);
        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 8, comm, &rq[1]);
        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 7, comm, &rq[2]);
        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 8, comm, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        if (nt == 1 && m > 2) stencil_rows(2, m - 1);   /* alone: nobody else to compute */
    } else {
        /* the free threads split the interior rows 2..m-1 among themselves */
        long rows = m - 2 > 0 ? m - 2 : 0, workers = nt - 1;
        long lo = 2 + rows * (t - 1) / workers, hi = 2 + rows * t / workers - 1;
        if (lo <= hi) stencil_rows(lo, hi);
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (long k = 0; k < (m > 1 ? 2 : 1); k++) {
        long r = k == 0 ? 1 : m;
        stencil_rows(r, r);
    }
}
""", why="a fresh attacker's right answer: the master alone communicates whole rows (nx + 2 "
         "values), the free threads split the interior by hand"),
    right("overlap_iteration", r"""
%%c OVERLAP_C halo2d
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* a row is w = nx + 2 doubles long, halo columns included: long w = nx + 2; */
    long w = nx + 2;
    static MPI_Request req[4];
#pragma omp masked
    {
        MPI_Irecv(a, (int)w, MPI_DOUBLE, up, 0, comm, &req[0]);
        MPI_Irecv(a + (m + 1) * w, (int)w, MPI_DOUBLE, down, 1, comm, &req[1]);
        MPI_Isend(a + w, (int)w, MPI_DOUBLE, up, 1, comm, &req[2]);
        MPI_Isend(a + m * w, (int)w, MPI_DOUBLE, down, 0, comm, &req[3]);
    }
#pragma omp for schedule(dynamic, 1) nowait
    for (long r = 2; r <= m - 1; r++) stencil_rows(r, r);
#pragma omp masked
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
#pragma omp barrier
#pragma omp single
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
""", why="a fresh attacker's right answer: whole rows (nx + 2 values) posted by the master, a "
         "dynamic,1 interior, the masked Waitall, a barrier, single edges"),
]

# A fresh attacker's (attackH, 2026-12-04) right answers that lost (a)'s points to its allow-list.
HONEST += [
    right("exchange_halos", "%%c EXCHANGE_C halo2d\n" + r"""
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    MPI_Datatype row;
    MPI_Type_contiguous((int)nx, MPI_DOUBLE, &row);
    MPI_Type_commit(&row);
    MPI_Sendrecv(&a[w + 1], 1, row, up, 0, &a[(m + 1) * w + 1], 1, row, down, 0, comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[m * w + 1], 1, row, down, 1, &a[1], 1, row, up, 1, comm, MPI_STATUS_IGNORE);
    MPI_Type_free(&row);
}
""", why="the row as a committed MPI_Type_contiguous of nx doubles, two MPI_Sendrecv of count 1, "
         "MPI_Type_free"),
    right("exchange_halos", "%%c EXCHANGE_C halo2d\n" + r"""
void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    MPI_Request r[4];
    MPI_Recv_init(&a[1], (int)nx, MPI_DOUBLE, up, 3, comm, &r[0]);
    MPI_Recv_init(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 4, comm, &r[1]);
    MPI_Send_init(&a[w + 1], (int)nx, MPI_DOUBLE, up, 4, comm, &r[2]);
    MPI_Send_init(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 3, comm, &r[3]);
    MPI_Startall(4, r);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 4; k++) MPI_Request_free(&r[k]);
}
""", why="persistent requests: MPI_Recv_init/MPI_Send_init, MPI_Startall, MPI_Waitall, then "
         "MPI_Request_free of each"),
    right("overlap_iteration", "%%c OVERLAP_C halo2d\n" + r"""
/* dynamic interior after a barrier; the halo rows travel as one committed row type */
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    static MPI_Request req[4];
    static MPI_Datatype row;
#pragma omp masked
    {
        MPI_Type_contiguous((int)nx, MPI_DOUBLE, &row);
        MPI_Type_commit(&row);
        MPI_Irecv(&a[1], 1, row, up, 61, comm, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], 1, row, down, 62, comm, &req[1]);
        MPI_Isend(&a[w + 1], 1, row, up, 62, comm, &req[2]);
        MPI_Isend(&a[m * w + 1], 1, row, down, 61, comm, &req[3]);
    }
#pragma omp barrier
#pragma omp for schedule(guided) nowait
    for (long i = 2; i < m; i++) stencil_rows(i, i);
#pragma omp masked
    {
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        MPI_Type_free(&row);
    }
#pragma omp barrier
#pragma omp single
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
""", why="guided schedule; the halo rows as one committed MPI_Type_contiguous each"),
]

# a fresh attacker's right answers that lost 4/4 by name (2026-12-05): MPI-4's MPI_Isendrecv one
# per direction (MPI_Sendrecv_replace was accepted), and receives from MPI_ANY_SOURCE told apart
# by a tag only one neighbour sends (halo.exercise.any_source_faults judges the senders per tag)
HONEST += [
    right("exchange_halos", "%%c EXCHANGE_C halo2d\n/* Right, unusual: MPI-4's non-blocking send-receive, one per direction, completed together. */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request r[2];\n    /* row 1 up, row m + 1 from below */\n    MPI_Isendrecv(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 7, &a[(m + 1) * w + 1], (int)nx,\n                  MPI_DOUBLE, down, 7, comm, &r[0]);\n    /* row m down, row 0 from above */\n    MPI_Isendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 8, &a[0 * w + 1], (int)nx,\n                  MPI_DOUBLE, up, 8, comm, &r[1]);\n    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n}",
          why="T04ar_isendrecv: one MPI_Isendrecv per direction, then MPI_Waitall"),
    right("exchange_halos", '%%c EXCHANGE_C halo2d\n/* Right, unusual: the receives take MPI_ANY_SOURCE and tell the two directions apart by tag\n * alone (only the neighbour below sends "upwards", only the one above "downwards"); a side\n * without a neighbour posts no receive. */\nenum { UPWARDS = 21, DOWNWARDS = 22 };\n\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request r[4];\n    int n = 0;\n    if (down != MPI_PROC_NULL)\n        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, UPWARDS, comm, &r[n++]);\n    if (up != MPI_PROC_NULL)\n        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, DOWNWARDS, comm, &r[n++]);\n    MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, UPWARDS, comm, &r[n++]);\n    MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, DOWNWARDS, comm, &r[n++]);\n    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);\n}',
          why="T04ar_anysource: MPI_Irecv from MPI_ANY_SOURCE, the direction in the tag"),
]


# attacker V's right answers (2026-12-05), 4/4 kept, kept beside (a)'s drawn start and request
# ties: whole rows (halo columns included) by MPI_Isendrecv, and rows as subarray types of the
# whole block sent from its start
HONEST += [
    right("exchange_halos", '%%c EXCHANGE_C halo2d\n/* Right answer (MPI-4): one MPI_Isendrecv per direction, whole rows (halo columns included),\n * completed together with MPI_Waitall. */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request r[2];\n    MPI_Isendrecv(&a[1 * w], (int)w, MPI_DOUBLE, up, 70, &a[(m + 1) * w], (int)w, MPI_DOUBLE,\n                  down, 70, comm, &r[0]);\n    MPI_Isendrecv(&a[m * w], (int)w, MPI_DOUBLE, down, 71, &a[0], (int)w, MPI_DOUBLE, up, 71,\n                  comm, &r[1]);\n    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n}\n',
          why="R04a_isendrecv: MPI-4 MPI_Isendrecv of whole rows (nx + 2 values), one per "
              "direction, MPI_Waitall"),
    right("exchange_halos", "%%c EXCHANGE_C halo2d\n/* Right answer, another way: a row as an MPI_Type_create_subarray of the (m + 2) x (nx + 2)\n * block (one type per row position, offsets in the type), two MPI_Sendrecv from the block's\n * start; the types freed each call. */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    int sizes[2] = {(int)(m + 2), (int)(nx + 2)}, sub[2] = {1, (int)nx};\n    int at[4][2] = {{1, 1}, {(int)(m + 1), 1}, {(int)m, 1}, {0, 1}};\n    MPI_Datatype t[4];\n    for (int k = 0; k < 4; k++) {\n        MPI_Type_create_subarray(2, sizes, sub, at[k], MPI_ORDER_C, MPI_DOUBLE, &t[k]);\n        MPI_Type_commit(&t[k]);\n    }\n    MPI_Sendrecv(a, 1, t[0], up, 1, a, 1, t[1], down, 1, comm, MPI_STATUS_IGNORE);\n    MPI_Sendrecv(a, 1, t[2], down, 2, a, 1, t[3], up, 2, comm, MPI_STATUS_IGNORE);\n    for (int k = 0; k < 4; k++) MPI_Type_free(&t[k]);\n}\n",
          why="R04a_subarray: each row an MPI_Type_create_subarray of the (m + 2) x (nx + 2) block, "
              "two MPI_Sendrecv from the block's start, the types freed each call"),
]


# attacker X's right answers (2026-12-06), 4/4 each, kept beside (a)'s check of the peers and
# (d)'s stagger in turn and count of the team held through the master's wait (f36)
HONEST += [
    right('exchange_halos', '%%c EXCHANGE_C halo2d\n/* right answer: persistent requests on a contiguous row type, started together, completed, freed */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Datatype row;\n    MPI_Type_contiguous((int)nx, MPI_DOUBLE, &row);\n    MPI_Type_commit(&row);\n    MPI_Request r[4];\n    MPI_Recv_init(&a[(m + 1) * w + 1], 1, row, down, 1, comm, &r[0]);\n    MPI_Recv_init(&a[0 * w + 1], 1, row, up, 2, comm, &r[1]);\n    MPI_Send_init(&a[1 * w + 1], 1, row, up, 1, comm, &r[2]);\n    MPI_Send_init(&a[m * w + 1], 1, row, down, 2, comm, &r[3]);\n    MPI_Startall(4, r);\n    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    for (int k = 0; k < 4; k++) MPI_Request_free(&r[k]);\n    MPI_Type_free(&row);\n}\n',
          why='X04_rpers: persistent MPI_Recv_init/MPI_Send_init on an MPI_Type_contiguous row, MPI_Startall, MPI_Waitall, MPI_Request_free, MPI_Type_free'),
    right('exchange_halos', '%%c EXCHANGE_C halo2d\n/* right answer: blocking MPI_Ssend/MPI_Recv ordered by rank parity (no buffering needed),\n * whole rows (nx + 2) sent */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    int rank;\n    MPI_Comm_rank(comm, &rank);\n    if (rank % 2 == 0) {\n        MPI_Ssend(&a[1 * w], (int)w, MPI_DOUBLE, up, 7, comm);\n        MPI_Recv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 7, comm, MPI_STATUS_IGNORE);\n        MPI_Ssend(&a[m * w], (int)w, MPI_DOUBLE, down, 8, comm);\n        MPI_Recv(&a[0], (int)w, MPI_DOUBLE, up, 8, comm, MPI_STATUS_IGNORE);\n    } else {\n        MPI_Recv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 7, comm, MPI_STATUS_IGNORE);\n        MPI_Ssend(&a[1 * w], (int)w, MPI_DOUBLE, up, 7, comm);\n        MPI_Recv(&a[0], (int)w, MPI_DOUBLE, up, 8, comm, MPI_STATUS_IGNORE);\n        MPI_Ssend(&a[m * w], (int)w, MPI_DOUBLE, down, 8, comm);\n    }\n}\n',
          why="X04_rparity: blocking MPI_Ssend/MPI_Recv ordered by the rank's parity, whole rows of nx + 2"),
    right('exchange_halos', '%%c EXCHANGE_C halo2d\n/* right answer, unusual: MPI_Sendrecv_replace through a scratch row (the interior columns) */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    double *t = malloc(sizeof(double) * (size_t)nx);\n    memcpy(t, &a[1 * w + 1], sizeof(double) * (size_t)nx); /* my row 1 goes up */\n    MPI_Sendrecv_replace(t, (int)nx, MPI_DOUBLE, up, 31, down, 31, comm, MPI_STATUS_IGNORE);\n    if (down != MPI_PROC_NULL) memcpy(&a[(m + 1) * w + 1], t, sizeof(double) * (size_t)nx);\n    memcpy(t, &a[m * w + 1], sizeof(double) * (size_t)nx); /* my row m goes down */\n    MPI_Sendrecv_replace(t, (int)nx, MPI_DOUBLE, down, 32, up, 32, comm, MPI_STATUS_IGNORE);\n    if (up != MPI_PROC_NULL) memcpy(&a[1], t, sizeof(double) * (size_t)nx);\n    free(t);\n}\n',
          why='X04_rrep: MPI_Sendrecv_replace through a scratch row of the interior columns'),
    right('overlap_iteration', '%%c OVERLAP_C halo2d\n/* right answer: the master posts, then makes one task per chunk of interior rows, then waits;\n * the free threads run the tasks meanwhile (they wait at the barrier, a task scheduling point) */\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    static MPI_Request r[4];\n#pragma omp masked\n    {\n        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 3, comm, &r[0]);\n        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 4, comm, &r[1]);\n        MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, up, 3, comm, &r[2]);\n        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 4, comm, &r[3]);\n        long chunk = (m - 2) / (4 * omp_get_num_threads()) + 1;\n        for (long f = m - 1; f >= 2; f -= chunk) { /* from the bottom up */\n            long first = f - chunk + 1 < 2 ? 2 : f - chunk + 1, last = f;\n#pragma omp task firstprivate(first, last)\n            stencil_rows(first, last);\n        }\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n#pragma omp barrier\n#pragma omp single\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n}\n',
          why='X04d_tasks: the master posts, makes one task per chunk of interior rows (bottom-up), then MPI_Waitall; the free threads run the tasks at the barrier; single for the edges'),
    right('overlap_iteration', '%%c OVERLAP_C halo2d\n/* right answer: interior rows as a dynamic loop; the master joins it after MPI_Waitall;\n * row type of nx doubles (interior columns only) */\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    static MPI_Request r[4];\n    static MPI_Datatype row;\n#pragma omp masked\n    {\n        MPI_Type_contiguous((int)nx, MPI_DOUBLE, &row);\n        MPI_Type_commit(&row);\n        MPI_Isend(&a[m * w + 1], 1, row, down, 9, comm, &r[0]);\n        MPI_Isend(&a[1 * w + 1], 1, row, up, 8, comm, &r[1]);\n        MPI_Irecv(&a[0 * w + 1], 1, row, up, 9, comm, &r[2]);\n        MPI_Irecv(&a[(m + 1) * w + 1], 1, row, down, 8, comm, &r[3]);\n    }\n#pragma omp barrier\n#pragma omp masked\n    {\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n        MPI_Type_free(&row);\n    }\n#pragma omp for schedule(dynamic, 2) nowait\n    for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);\n#pragma omp barrier\n#pragma omp single\n    {\n        if (m > 1) stencil_rows(m, m);\n        stencil_rows(1, 1);\n    }\n}\n',
          why='X04d_dyn: the interior columns as a contiguous type; a barrier after the posting; the master waits, then joins a schedule(dynamic,2) loop'),
    right('overlap_iteration', '%%c OVERLAP_C halo2d\n/* right answer, unusual: the master takes a static share of the interior too, polling with\n * MPI_Testall between its rows, and waits only once its share is done (interior order reversed) */\nvoid overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    static MPI_Request r[4];\n    static int done;\n#pragma omp masked\n    {\n        done = 0;\n        MPI_Irecv(&a[(m + 1) * w], (int)w, MPI_DOUBLE, down, 3, comm, &r[0]);\n        MPI_Irecv(&a[0], (int)w, MPI_DOUBLE, up, 4, comm, &r[1]);\n        MPI_Isend(&a[1 * w], (int)w, MPI_DOUBLE, up, 3, comm, &r[2]);\n        MPI_Isend(&a[m * w], (int)w, MPI_DOUBLE, down, 4, comm, &r[3]);\n    }\n#pragma omp barrier\n    int master = omp_get_thread_num() == 0;\n#pragma omp for schedule(static) nowait\n    for (long i = m - 1; i >= 2; i--) {\n        stencil_rows(i, i);\n        if (master && !done) MPI_Testall(4, r, &done, MPI_STATUSES_IGNORE);\n    }\n    if (master && !done) MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n#pragma omp barrier\n#pragma omp single\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n}\n',
          why='X04d_poll: a static share for everyone, the master polling MPI_Testall between its rows and waiting only after its share (rows reversed)'),
]


# a fresh attacker's right answers that lost 4/4 (2026-12-06, f40): MPI_Mprobe from
# MPI_ANY_SOURCE + MPI_Mrecv with the halo chosen by the status's source (refused at build: the
# matched probe family was not traced), and MPI-4 partitioned requests (one partition a row)
# made only towards ranks (refused by name); f40's own: MPI_Improbe polled, MPI_Imrecv by source
HONEST += [
    right("exchange_halos", "%%c EXCHANGE_C halo2d\n/* both rows sent with one tag; each receive is matched from any source with MPI_Mprobe and\n   placed by the source the status names (so a row cannot land in the wrong halo) */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request s[2];\n    MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 7, comm, &s[0]);\n    MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 7, comm, &s[1]);\n    int expect = (up != MPI_PROC_NULL) + (down != MPI_PROC_NULL);\n    for (int k = 0; k < expect; k++) {\n        MPI_Message msg;\n        MPI_Status st;\n        MPI_Mprobe(MPI_ANY_SOURCE, 7, comm, &msg, &st);\n        double *into = (st.MPI_SOURCE == up && up != MPI_PROC_NULL) ? a + 1 : a + (m + 1) * w + 1;\n        MPI_Mrecv(into, (int)nx, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);\n    }\n    MPI_Waitall(2, s, MPI_STATUSES_IGNORE);\n}\n",
          why="z04ar_mprobe: MPI_Mprobe(MPI_ANY_SOURCE) + MPI_Mrecv, the halo chosen by "
              "status.MPI_SOURCE"),
    right("exchange_halos", "%%c EXCHANGE_C halo2d\n/* MPI-4 partitioned point-to-point: each row one partition-1 message, started and marked\n   ready; no partitioned request is made towards MPI_PROC_NULL at the grid's edges */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request r[4];\n    int k = 0, s0 = -1, s1 = -1;\n    if (up != MPI_PROC_NULL) {\n        MPI_Precv_init(a + 1, 1, (MPI_Count)nx, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &r[k++]);\n        s0 = k;\n        MPI_Psend_init(a + w + 1, 1, (MPI_Count)nx, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &r[k++]);\n    }\n    if (down != MPI_PROC_NULL) {\n        MPI_Precv_init(a + (m + 1) * w + 1, 1, (MPI_Count)nx, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &r[k++]);\n        s1 = k;\n        MPI_Psend_init(a + m * w + 1, 1, (MPI_Count)nx, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL, &r[k++]);\n    }\n    if (k == 0) return;\n    MPI_Startall(k, r);\n    if (s0 >= 0) MPI_Pready(0, r[s0]);\n    if (s1 >= 0) MPI_Pready(0, r[s1]);\n    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);\n    for (int q = 0; q < k; q++) MPI_Request_free(&r[q]);\n}\n",
          why="z04ar_partitioned2: MPI-4 partitioned MPI_Psend_init/MPI_Precv_init (one partition "
              "a row, none towards MPI_PROC_NULL), MPI_Startall, MPI_Pready, MPI_Waitall, "
              "MPI_Request_free"),
    right("exchange_halos", "%%c EXCHANGE_C halo2d\n/* Right, unusual: both edge rows sent with one tag; the halos received in whichever order the\n * neighbours' messages come, found by polling MPI_Improbe (any source), each taken with\n * MPI_Imrecv into the halo row of the source the status names; all completed together. */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request r[4];\n    int n = 0, left = (up != MPI_PROC_NULL) + (down != MPI_PROC_NULL);\n    MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 5, comm, &r[n++]);\n    MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 5, comm, &r[n++]);\n    while (left > 0) {\n        int found = 0;\n        MPI_Message msg;\n        MPI_Status st;\n        MPI_Improbe(MPI_ANY_SOURCE, 5, comm, &found, &msg, &st);\n        if (!found) continue;\n        double *halo = st.MPI_SOURCE == up ? &a[0 * w + 1] : &a[(m + 1) * w + 1];\n        MPI_Imrecv(halo, (int)nx, MPI_DOUBLE, &msg, &r[n++]);\n        left--;\n    }\n    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);\n}\n",
          why="f40 R04a_improbe: MPI_Improbe(MPI_ANY_SOURCE) polled, MPI_Imrecv into the halo of "
              "the status's source, one MPI_Waitall"),
]

# attacker R's right answer L04_R3 (2026-12-06), 0/4 by any_source_faults: both rows received
# from MPI_ANY_SOURCE on one tag into one row of its own, each copied into the halo its status's
# MPI_SOURCE names (the checksum judges the placing; the ranks are late in turn)
HONEST += [
    right("exchange_halos", "%%c EXCHANGE_C halo2d\n/* Right, unusual: both halos received from MPI_ANY_SOURCE on one tag, each into a buffer of its\n   own, then copied into row 0 or row m + 1 by the source its status names (whichever neighbour's\n   row comes first). Sends are non-blocking, completed at the end. */\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request sends[2];\n    int expected = (up != MPI_PROC_NULL) + (down != MPI_PROC_NULL);\n    double *row = malloc((size_t)nx * sizeof *row);\n    if (!row) abort();\n    MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 5, comm, &sends[0]);\n    MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 5, comm, &sends[1]);\n    for (int got = 0; got < expected; got++) {\n        MPI_Status st;\n        MPI_Recv(row, (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, 5, comm, &st);\n        double *halo = st.MPI_SOURCE == up ? a + 1 : a + (m + 1) * w + 1;\n        memcpy(halo, row, (size_t)nx * sizeof *row);\n    }\n    MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);\n    free(row);\n}\n",
          why="L04_R3: MPI_Recv from MPI_ANY_SOURCE into one row of its own, placed by the status"),
]
