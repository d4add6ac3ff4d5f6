"""Right answers to lab 12 written another way: the slice exchange on one shared communicator
with a tag pair per thread and MPI_Sendrecv, or on communicators made by MPI_Comm_split with
ceil-sized slices and single waits; the task iteration with its sends posted first, or one task
per side of the exchange; the halo ratio from a pivot table or a loop; the partitioned exchange with MPI_Start per request
and MPI_Parrived, or an omp for over the partitions with MPI_Pready_range; the interior as a
taskloop with nogroup, or the exchange completed by a MPI_Testall loop; a posting task and a
waiting task with a taskloop nogroup and the trailing taskwait (attackJ's r12b, r12c: the kit
holds interior rows computed before any MPI call of the iteration, thread_halo.c's
hold_for_exchange, so the runtime's order of ready tasks no longer decides). (A taskloop without
nogroup created before the exchange's task is not among them: its implicit taskgroup keeps the
creating thread on the interior before it creates the exchange's task, so nothing overlaps, which
the part refuses, naming the taskloop.)"""

import importlib.util
from pathlib import Path

from honest import right

_spec = importlib.util.spec_from_file_location(
    "wrong_answers_12", Path(__file__).resolve().parents[1] / "wrong_answers" / "12_threads_communicate.py")
_wrong = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_wrong)

HONEST = [
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) comms[t] = comm;  /* one communicator: tags per thread */
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = t * nx / T, hi = (t + 1) * nx / T;
    int n = (int)(hi - lo);
    MPI_Sendrecv(&a[m * w + 1 + lo], n, MPI_DOUBLE, down, 2 * t, &a[1 + lo], n, MPI_DOUBLE, up,
                 2 * t, mine, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[w + 1 + lo], n, MPI_DOUBLE, up, 2 * t + 1, &a[(m + 1) * w + 1 + lo], n,
                 MPI_DOUBLE, down, 2 * t + 1, mine, MPI_STATUS_IGNORE);
}
""", why="one communicator for all, two tags per thread, MPI_Sendrecv"),
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_split(comm, 0, 0, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    const long w = nx + 2;
    const int T = omp_get_num_threads(), t = omp_get_thread_num();
    const long b = (nx + T - 1) / T;  /* ceil-sized slices, the last one shorter */
    long lo = t * b < nx ? t * b : nx, hi = lo + b < nx ? lo + b : nx;
    int n = (int)(hi - lo);
    double *top = a + 1 + lo, *first = a + w + 1 + lo;
    double *last = a + m * w + 1 + lo, *bottom = a + (m + 1) * w + 1 + lo;
    MPI_Request r[4];
    MPI_Isend(first, n, MPI_DOUBLE, up, 7, mine, &r[0]);
    MPI_Isend(last, n, MPI_DOUBLE, down, 8, mine, &r[1]);
    MPI_Irecv(bottom, n, MPI_DOUBLE, down, 7, mine, &r[2]);
    MPI_Irecv(top, n, MPI_DOUBLE, up, 8, mine, &r[3]);
    for (int k = 3; k >= 0; k--) MPI_Wait(&r[k], MPI_STATUS_IGNORE);
}
""", why="MPI_Comm_split communicators, ceil-sized slices, sends first, one MPI_Wait each"),
]

HONEST += [
    # (c) halo_ratio
    right("halo_ratio", """
def halo_ratio(multiple, funneled):
    def slowest_mean(records):
        table = records.query("phase == 'halo'").pivot_table(index="rank", values="seconds", aggfunc="max")
        return float(table["seconds"].mean())
    return slowest_mean(multiple) / slowest_mean(funneled)
""", why="a pivot table of each rank's slowest halo"),
    right("halo_ratio", """
def halo_ratio(multiple, funneled):
    def per_rank(records):
        worst = {}
        for rank, phase, secs in zip(records["rank"], records["phase"], records["seconds"]):
            if phase == "halo" and secs > worst.get(rank, float("-inf")):
                worst[rank] = float(secs)
        return sum(worst.values()) / len(worst)
    return per_rank(multiple) / per_rank(funneled)
""", why="a loop keeping each rank's largest halo time"),
    # (b) task_iteration
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    const long w = nx + 2;
    double *halo_up = a, *halo_down = a + (m + 1) * w;
#pragma omp task depend(out: halo_up[0]) depend(out: halo_down[0])
    {
        MPI_Request r[4];
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 2, comm, &r[0]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 2, comm, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
    for (long first = 2; first <= m - 1; first += 4) {  /* interior tasks of 4 rows */
        long last = first + 3 <= m - 1 ? first + 3 : m - 1;
#pragma omp task firstprivate(first, last)
        stencil_rows(first, last);
    }
#pragma omp task depend(in: halo_up[0])
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: halo_down[0])
        stencil_rows(m, m);
    }
}
""", why="sends posted first, both halos as two depend clauses, interior tasks of 4 rows"),
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    double *north = &a[0], *south = &a[(m + 1) * w];
#pragma omp task depend(out: north[0])
    {   /* the upper side: row 1 up, row 0 from up */
        MPI_Request q[2];
        MPI_Irecv(north + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &q[0]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    }
#pragma omp task depend(out: south[0])
    {   /* the lower side: row m down, row m + 1 from down */
        MPI_Request q[2];
        MPI_Irecv(south + 1, (int)nx, MPI_DOUBLE, down, 2, comm, &q[0]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    }
    for (long hi = m - 1; hi >= 2; hi -= 6) {  /* the interior from the bottom, 6 rows a task */
        long lo = hi - 5 > 2 ? hi - 5 : 2;
#pragma omp task firstprivate(lo, hi)
        stencil_rows(lo, hi);
    }
    if (m == 1) {
#pragma omp task depend(in: north[0], south[0])
        stencil_rows(1, 1);
    } else {
#pragma omp task depend(in: north[0])
        stencil_rows(1, 1);
#pragma omp task depend(in: south[0])
        stencil_rows(m, m);
    }
}
""", why="one task per side of the exchange, interior tasks from the bottom up"),
]

HONEST += [
    # (d) pready_iteration
    right("pready_iteration", r"""
%%c PREADY_C thread_halo
/* each neighbour its own pair, sends in s[], receives in r[] */
static MPI_Request *sends, *recvs;
static int nsend;
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int peers[2] = {up, down}, n = 0;
    long out[2] = {w + 1, m * w + 1}, in[2] = {1, (m + 1) * w + 1};
    int outtag[2] = {7, 8}, intag[2] = {8, 7};
    nsend = 0;
    for (int k = 0; k < 2; k++) {
        if (peers[k] == MPI_PROC_NULL) continue;
        MPI_Psend_init(a + out[k], parts, nx / parts, MPI_DOUBLE, peers[k], outtag[k], comm,
                       MPI_INFO_NULL, &req[nsend]);
        nsend++;
    }
    n = nsend;
    for (int k = 0; k < 2; k++) {
        if (peers[k] == MPI_PROC_NULL) continue;
        MPI_Precv_init(a + in[k], parts, nx / parts, MPI_DOUBLE, peers[k], intag[k], comm,
                       MPI_INFO_NULL, &req[n++]);
    }
    sends = req;
    recvs = req + nsend;
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a; (void)fresh; (void)m; (void)nx;  /* copy_partition knows the rows */
    for (int i = 0; i < nreq; i++) MPI_Start(&req[i]);
#pragma omp parallel num_threads(parts)
    {
        int me = omp_get_thread_num();
        copy_partition(me);
        for (int s = 0; s < nsend; s++) MPI_Pready(me, req[s]);
    }
    for (int r = nsend; r < nreq; r++) {
        for (int p = 0; p < parts; p++) {
            int flag = 0;
            MPI_Parrived(req[r], p, &flag);
        }
    }
    for (int i = 0; i < nreq; i++) MPI_Wait(&req[i], MPI_STATUS_IGNORE);
}
""", why="sends and receives in separate halves of req, MPI_Start per request, "
         "MPI_Parrived asked, one MPI_Wait each"),
    right("pready_iteration", r"""
%%c PREADY_C thread_halo
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    /* the lower neighbour first; tags 11 (travelling down) and 12 (travelling up) */
    const long w = nx + 2;
    const MPI_Count each = nx / parts;
    int k = 0;
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(a + m * w + 1, parts, each, MPI_DOUBLE, down, 11, comm, MPI_INFO_NULL, req + k);
        MPI_Precv_init(a + (m + 1) * w + 1, parts, each, MPI_DOUBLE, down, 12, comm, MPI_INFO_NULL,
                       req + k + 1);
        k += 2;
    }
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(a + w + 1, parts, each, MPI_DOUBLE, up, 12, comm, MPI_INFO_NULL, req + k);
        MPI_Precv_init(a + 1, parts, each, MPI_DOUBLE, up, 11, comm, MPI_INFO_NULL, req + k + 1);
        k += 2;
    }
    return k;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a; (void)fresh; (void)m; (void)nx;
    MPI_Startall(nreq, req);
#pragma omp parallel for schedule(static, 1) num_threads(parts)
    for (int p = 0; p < parts; p++) {  /* one partition per thread: thread p gets p */
        copy_partition(p);
        for (int i = nreq - 2; i >= 0; i -= 2) MPI_Pready_range(p, p, req[i]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", why="the lower neighbour set up first, an omp for over the partitions (static, 1), "
         "MPI_Pready_range of one partition"),
    right("pready_iteration", r"""
%%c PREADY_C thread_halo
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    /* receives in even slots, sends in odd ones; tags 7 (travelling up) and 8 (down) */
    long w = nx + 2;
    int n = 0;
    if (down != MPI_PROC_NULL) {
        MPI_Precv_init(a + (m + 1) * w + 1, parts, nx / parts, MPI_DOUBLE, down, 7, comm,
                       MPI_INFO_NULL, &req[n++]);
        MPI_Psend_init(a + m * w + 1, parts, nx / parts, MPI_DOUBLE, down, 8, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    if (up != MPI_PROC_NULL) {
        MPI_Precv_init(a + 1, parts, nx / parts, MPI_DOUBLE, up, 8, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Psend_init(a + w + 1, parts, nx / parts, MPI_DOUBLE, up, 7, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a; (void)fresh; (void)m; (void)nx;
    for (int r = 0; r < nreq; r++) MPI_Start(&req[r]);
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        for (int r = 1; r < nreq; r += 2) MPI_Pready_range(t, t, req[r]);
    }
    for (int r = nreq - 1; r >= 0; r--) MPI_Wait(&req[r], MPI_STATUS_IGNORE);
}
""", why="a fresh attacker's right answer (issue 36): receives first, MPI_Start per request, "
         "MPI_Pready_range of one partition, one MPI_Wait each in reverse"),
]

# helperE (2026-12-03): a fresh attacker's right answers to (b)
HONEST += [
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    double *h0 = a, *h1 = a + (m + 1) * w;
#pragma omp task depend(out: h0[0]) depend(out: h1[0]) shared(a)
    {
        MPI_Request r[4];
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 31, comm, &r[0]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 32, comm, &r[1]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 31, comm, &r[2]);
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 32, comm, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
    if (m > 1) {
#pragma omp task depend(in: h1[0])
        stencil_rows(m, m);
    }
#pragma omp task depend(in: h0[0])
    stencil_rows(1, 1);
#pragma omp taskloop grainsize(4) nogroup
    for (long i = 2; i < m; i++) stencil_rows(i, i);
}
""", why="the interior as a taskloop grainsize(4) nogroup after the edge tasks"),
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* the four requests in flight together, completed by an MPI_Testall loop */
    long w = nx + 2;
    double *top = &a[0], *bottom = &a[(m + 1) * w];
#pragma omp task depend(out: top[0], bottom[0])
    {
        MPI_Request r[4];
        int f;
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[0]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[2]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[3]);
        do MPI_Testall(4, r, &f, MPI_STATUSES_IGNORE); while (!f);
    }
    for (long i = 2; i < m; i++) {
#pragma omp task firstprivate(i)
        stencil_rows(i, i);
    }
#pragma omp task depend(in: top[0])
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: bottom[0])
        stencil_rows(m, m);
    }
}
""", why="the exchange's task completes its requests with an MPI_Testall loop"),
]

# a fresh attacker's right answer (attackB, 2026-12-03): lost 0/4 while MPI_Pready_list was not
# traced (refused at build); the tracer records its list now
HONEST += [
    right("pready_iteration", _wrong.each_thread_marks("""        copy_partition(t);
        int mine[1] = {t};
        for (int r = 0; r < nreq; r += 2)
            MPI_Pready_list(1, mine, req[r]);    /* a list of one partition */
"""), why="MPI_Pready_list of a list of one partition"),
    # a fresh attacker's (helper-51): a helper named `_r`, as hidden tests name their own; it lost
    # every point while a hidden cell's names replaced the student's (grading/hidden_names.py)
    right("halo_ratio", """def _r(run):
    # the halo time of a run: slowest thread per rank, mean over ranks
    halo = run[run["phase"] == "halo"]
    return halo.groupby("rank")["seconds"].max().mean()


def halo_ratio(multiple: pd.DataFrame, funneled: pd.DataFrame) -> float:
    return float(_r(multiple) / _r(funneled))
""", why="a private helper named _r, like the hidden test's own names"),
]

# right answers of a fresh attacker (attacker B, 2026-12-04) that lost 4/4 before (helper-f4)
HONEST += [
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    MPI_Datatype slice;  /* one slice as one element */
    MPI_Type_contiguous((int)(hi - lo + 1), MPI_DOUBLE, &slice);
    MPI_Type_commit(&slice);
    MPI_Request r[4];
    MPI_Irecv(&a[lo], 1, slice, up, 0, mine, &r[0]);
    MPI_Irecv(&a[(m + 1) * w + lo], 1, slice, down, 1, mine, &r[1]);
    MPI_Isend(&a[w + lo], 1, slice, up, 1, mine, &r[2]);
    MPI_Isend(&a[m * w + lo], 1, slice, down, 0, mine, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    MPI_Type_free(&slice);
}
""", why="attacker B's B12r3: each slice one element of a committed MPI_Type_contiguous"),
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (int t = 0; t < nthreads; t++) MPI_Comm_split(comm, 0, rank, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    int n = (int)(hi - lo + 1);
    MPI_Request r[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Issend(&a[m * w + lo], n, MPI_DOUBLE, down, 5, mine, &r[0]);
    MPI_Issend(&a[w + lo], n, MPI_DOUBLE, up, 6, mine, &r[1]);
    MPI_Irecv(&a[(m + 1) * w + lo], n, MPI_DOUBLE, down, 6, mine, &r[2]);
    MPI_Irecv(&a[lo], n, MPI_DOUBLE, up, 5, mine, &r[3]);
    for (int k = 0; k < 4; k++) {
        int idx;
        MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE);
    }
}
""", why="attacker B's B12r4: MPI_Comm_split, MPI_Issend first, completed by 4 x MPI_Waitany "
         "(an edge rank's MPI_PROC_NULL requests complete first)"),
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    int n = (int)(hi - lo + 1);
    MPI_Request r[4];
    MPI_Irecv(&a[lo], n, MPI_DOUBLE, up, 0, mine, &r[0]);
    MPI_Irecv(&a[(m + 1) * w + lo], n, MPI_DOUBLE, down, 1, mine, &r[1]);
    MPI_Isend(&a[w + lo], n, MPI_DOUBLE, up, 1, mine, &r[2]);
    MPI_Isend(&a[m * w + lo], n, MPI_DOUBLE, down, 0, mine, &r[3]);
    for (int k = 0; k < 4; k++) {
        int idx;
        MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE);
    }
}
""", why="attacker B's B12r5: MPI_Comm_dup, completed by 4 x MPI_Waitany"),
    right("pready_iteration", r"""
%%c PREADY_C thread_halo
static MPI_Datatype part_type = MPI_DATATYPE_NULL;

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int n = 0;
    /* one partition = one element of a contiguous type of nx/parts doubles */
    MPI_Type_contiguous((int)(nx / parts), MPI_DOUBLE, &part_type);
    MPI_Type_commit(&part_type);
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], parts, 1, part_type, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, 1, part_type, up, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, 1, part_type, down, 0, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, 1, part_type, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        for (int k = 0; k < nreq; k += 2) MPI_Pready(t, req[k]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", why="attacker B's B12r3: each partition one element of a contiguous type of nx/T doubles"),
    right("task_iteration", r"""
%%c TASKS_C thread_halo
static MPI_Request reqs[4];

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    char halo, posted;
#pragma omp task depend(out: posted)
    {
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 0, comm, &reqs[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &reqs[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &reqs[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &reqs[3]);
    }
#pragma omp task depend(in: posted) depend(out: halo)
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
#pragma omp taskloop nogroup num_tasks(4)
    for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);
#pragma omp task depend(in: halo)
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: halo)
        stencil_rows(m, m);
    }
}
""", why="attacker B's B12r9: a posting task and a waiting task (depend(in: posted)); the poster's "
         "thread computes the interior while another thread holds the wait"),
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

/* each thread sends its slice in two halves (two messages per row and direction) */
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    long n = hi - lo + 1, h = n / 2;
    long from[2] = {lo, lo + h}, len[2] = {h, n - h};
    MPI_Request r[8];
    int k = 0;
    for (int p = 0; p < 2; p++) {
        MPI_Irecv(&a[from[p]], (int)len[p], MPI_DOUBLE, up, 10 + p, mine, &r[k++]);
        MPI_Irecv(&a[(m + 1) * w + from[p]], (int)len[p], MPI_DOUBLE, down, 20 + p, mine, &r[k++]);
        MPI_Isend(&a[w + from[p]], (int)len[p], MPI_DOUBLE, up, 20 + p, mine, &r[k++]);
        MPI_Isend(&a[m * w + from[p]], (int)len[p], MPI_DOUBLE, down, 10 + p, mine, &r[k++]);
    }
    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
}
""", why="each thread's slice sent in two halves (attacker B's B12r16: MPICH's one request for every "
        "MPI_PROC_NULL posting crashed the judge, KeyError, 0/4)"),
]


# helper-f6 (2026-12-04): attacker B's right answers that still lost points after helper-f4's round
HONEST += [
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    int n = (int)(hi - lo + 1);
    MPI_Request r[4];
    MPI_Irecv(&a[lo], n, MPI_DOUBLE, up, 0, mine, &r[0]);
    MPI_Irecv(&a[(m + 1) * w + lo], n, MPI_DOUBLE, down, 1, mine, &r[1]);
    MPI_Isend(&a[w + lo], n, MPI_DOUBLE, up, 1, mine, &r[2]);
    MPI_Isend(&a[m * w + lo], n, MPI_DOUBLE, down, 0, mine, &r[3]);
    int left = 4;
    while (left > 0) {
        int idx, flag = 0;
        MPI_Testany(4, r, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag && idx == MPI_UNDEFINED) break;
        if (flag) left--;
    }
}
""", why="attacker B's B12r10: each thread polls its four requests with MPI_Testany (only the polls "
        "that completed a request were counted: together in 3 of 6 iterations, 0/4)"),
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

/* persistent requests: set up, started together, completed, freed */
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    int n = (int)(hi - lo + 1);
    MPI_Request r[4];
    MPI_Recv_init(&a[lo], n, MPI_DOUBLE, up, 0, mine, &r[0]);
    MPI_Recv_init(&a[(m + 1) * w + lo], n, MPI_DOUBLE, down, 1, mine, &r[1]);
    MPI_Send_init(&a[w + lo], n, MPI_DOUBLE, up, 1, mine, &r[2]);
    MPI_Send_init(&a[m * w + lo], n, MPI_DOUBLE, down, 0, mine, &r[3]);
    MPI_Startall(4, r);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 4; k++) MPI_Request_free(&r[k]);
}
""", why="attacker B's B12r13: persistent requests per call, MPI_Startall, MPI_Waitall, then "
        "MPI_Request_free of each (refused as another method, 0/4)"),
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    double *top = &a[0], *bot = &a[(m + 1) * w];
#pragma omp task depend(out: top[0], bot[0])
    {
        MPI_Request r[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 0, comm, &r[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &r[3]);
        for (int k = 0; k < 4; k++) {
            int idx;
            MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE);
        }
    }
    if (m > 2) {
#pragma omp taskloop nogroup grainsize(4)
        for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);
    }
    if (m == 1) {
#pragma omp task depend(in: top[0], bot[0])
        stencil_rows(1, 1);
    } else {
#pragma omp task depend(in: top[0])
        stencil_rows(1, 1);
#pragma omp task depend(in: bot[0])
        stencil_rows(m, m);
    }
}
""", why="attacker B's B12r10: the exchange's task completes with four MPI_Waitany (the window "
        "closed at the first, an MPI_PROC_NULL request: no overlap, 0/4)"),
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    double *top = &a[0], *bot = &a[(m + 1) * w];
#pragma omp task depend(out: top[0], bot[0])
    {
        MPI_Request r[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 0, comm, &r[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &r[3]);
        int left = 4, got, idx[4];
        while (left > 0) {
            MPI_Waitsome(4, r, &got, idx, MPI_STATUSES_IGNORE);
            if (got == MPI_UNDEFINED) break;
            left -= got;
        }
    }
    if (m > 2) {
#pragma omp taskloop nogroup grainsize(4)
        for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);
    }
    if (m == 1) {
#pragma omp task depend(in: top[0], bot[0])
        stencil_rows(1, 1);
    } else {
#pragma omp task depend(in: top[0])
        stencil_rows(1, 1);
#pragma omp task depend(in: bot[0])
        stencil_rows(m, m);
    }
}
""", why="attacker B's B12r11: the exchange's task completes with an MPI_Waitsome loop (0/4 as "
        "B12r10)"),
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* the exchange's task posts, creates the interior tasks, then waits */
    long w = nx + 2;
    double *top = &a[0], *bottom = &a[(m + 1) * w];
#pragma omp task depend(out: top[0], bottom[0])
    {
        MPI_Request req[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &req[1]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[2]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &req[3]);
        for (long first = 2; first < m; first += 8) {
            long last = first + 7 < m - 1 ? first + 7 : m - 1;
#pragma omp task firstprivate(first, last)
            stencil_rows(first, last);
        }
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
#pragma omp task depend(in: top[0])
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: bottom[0])
        stencil_rows(m, m);
    }
}
""", why="the exchange's task posts, creates the interior tasks, then waits (the interior in tasks "
        "created after the exchange's calls: kept beside the narrowed rule on who computed)"),
]


# a fresh attacker's right answers (attacker G, 2026-12-04) that lost 4/4 while a persistent
# set-up or MPI_Request_free made every poll that completed nothing unsure (exchange_calls)
HONEST += [
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
/* a communicator per thread by MPI_Comm_split; persistent requests set up each iteration,
   MPI_Startall, then polled with MPI_Testany until all are done, then freed */
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (int t = 0; t < nthreads; t++) MPI_Comm_split(comm, 0, rank, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    int n = (int)(hi - lo + 1);
    MPI_Request r[4];
    MPI_Recv_init(&a[lo], n, MPI_DOUBLE, up, 0, mine, &r[0]);
    MPI_Recv_init(&a[(m + 1) * w + lo], n, MPI_DOUBLE, down, 1, mine, &r[1]);
    MPI_Send_init(&a[w + lo], n, MPI_DOUBLE, up, 1, mine, &r[2]);
    MPI_Send_init(&a[m * w + lo], n, MPI_DOUBLE, down, 0, mine, &r[3]);
    MPI_Startall(4, r);
    int done = 0, live[4] = {1, 1, 1, 1};
    while (done < 4) {
        int idx, flag;
        MPI_Request q[4];
        for (int k = 0; k < 4; k++) q[k] = live[k] ? r[k] : MPI_REQUEST_NULL;
        MPI_Testany(4, q, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag && idx != MPI_UNDEFINED) { live[idx] = 0; done++; }
        else if (flag) break;
    }
    for (int k = 0; k < 4; k++) MPI_Request_free(&r[k]);
}
""", why="G12r3: a communicator per thread (MPI_Comm_split), persistent MPI_Recv_init/Send_init "
        "each iteration, MPI_Startall, polled with MPI_Testany, MPI_Request_free"),
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
/* persistent requests set up once per thread (threadprivate), MPI_Startall, polled with
   MPI_Testsome until all four are done; freed on the last call is not possible to know, so
   they are set up and freed each iteration */
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    int n = (int)(hi - lo + 1);
    MPI_Request r[4];
    MPI_Send_init(&a[w + lo], n, MPI_DOUBLE, up, 1, mine, &r[0]);
    MPI_Send_init(&a[m * w + lo], n, MPI_DOUBLE, down, 0, mine, &r[1]);
    MPI_Recv_init(&a[lo], n, MPI_DOUBLE, up, 0, mine, &r[2]);
    MPI_Recv_init(&a[(m + 1) * w + lo], n, MPI_DOUBLE, down, 1, mine, &r[3]);
    MPI_Startall(4, r);
    int left = 4, live[4] = {1, 1, 1, 1};
    while (left > 0) {
        MPI_Request q[4];
        int idx[4], got = 0;
        for (int k = 0; k < 4; k++) q[k] = live[k] ? r[k] : MPI_REQUEST_NULL;
        MPI_Testsome(4, q, &got, idx, MPI_STATUSES_IGNORE);
        if (got == MPI_UNDEFINED) break;
        for (int k = 0; k < got; k++) { live[idx[k]] = 0; left--; }
    }
    for (int k = 0; k < 4; k++) MPI_Request_free(&r[k]);
}
""", why="G12r4: persistent requests per thread (MPI_Comm_dup), MPI_Startall, polled with "
        "MPI_Testsome, MPI_Request_free"),
]

# a fresh attacker (attackJ, 2026-12-05): right answers that lost 4/4 before the kit held the
# interior rows computed before any MPI call of the iteration (thread_halo.c, hold_for_exchange)
HONEST += [
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    const long w = nx + 2;
    double *top = a, *bottom = a + (m + 1) * w;
    MPI_Request r[4];
    /* posting task, then a waiting task that depends on it */
    #pragma omp task depend(out: r[0:4]) shared(r) firstprivate(a, top, bottom)
    {
        MPI_Irecv(top + 1, (int)nx, MPI_DOUBLE, up, 7, comm, &r[0]);
        MPI_Irecv(bottom + 1, (int)nx, MPI_DOUBLE, down, 8, comm, &r[1]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 8, comm, &r[2]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 7, comm, &r[3]);
    }
    #pragma omp task depend(in: r[0:4]) depend(out: top[0], bottom[0]) shared(r)
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    if (m > 2) {
        #pragma omp taskloop nogroup grainsize(4)
        for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);
    }
    #pragma omp task depend(in: bottom[0])
    stencil_rows(m, m);
    if (m > 1) {
        #pragma omp task depend(in: top[0])
        stencil_rows(1, 1);
    }
    #pragma omp taskwait
}
""", why='r12b: a posting task and a waiting task (depend in on the requests), the interior in a taskloop nogroup grainsize(4), the edges depend(in:) on the halo rows, the allowed trailing taskwait'),
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    const long w = nx + 2;
    double *top = a, *bottom = a + (m + 1) * w;
    MPI_Request r[4];
    /* posting task, then a waiting task that depends on it */
    #pragma omp task depend(out: r[0:4]) shared(r) firstprivate(a, top, bottom)
    {
        MPI_Irecv(top + 1, (int)nx, MPI_DOUBLE, up, 7, comm, &r[0]);
        MPI_Irecv(bottom + 1, (int)nx, MPI_DOUBLE, down, 8, comm, &r[1]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 8, comm, &r[2]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 7, comm, &r[3]);
    }
    #pragma omp task depend(in: r[0:4]) depend(out: top[0], bottom[0]) shared(r)
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    if (m > 2) {
        #pragma omp taskloop nogroup num_tasks(8)
        for (long i = 2; i <= m - 1; i++) stencil_rows(i, i);
    }
    #pragma omp task depend(in: bottom[0])
    stencil_rows(m, m);
    if (m > 1) {
        #pragma omp task depend(in: top[0])
        stencil_rows(1, 1);
    }
    #pragma omp taskwait
}
""", why='r12c: as r12b with taskloop nogroup num_tasks(8)'),
    # a fresh attacker's right answer (L12r14, 2026-12-05): thread_comms checks the level with
    # MPI_Query_thread first; 0/4 as "another method" while (a) allowed no query
    right("exchange_slice", '%%c MULTIPLE_C thread_halo\nvoid thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {\n    int provided;\n    MPI_Query_thread(&provided);                 /* every thread in MPI at once needs MULTIPLE */\n    if (provided < MPI_THREAD_MULTIPLE) MPI_Abort(comm, 1);\n    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);\n}\n\nvoid exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {\n    long w = nx + 2;\n    int t = omp_get_thread_num(), T = omp_get_num_threads();\n    long c0 = 1 + t * nx / T, c1 = (t + 1) * nx / T;\n    int cnt = (int)(c1 - c0 + 1);\n    MPI_Request r[4];\n    MPI_Irecv(&a[0 * w + c0], cnt, MPI_DOUBLE, up, 0, mine, &r[0]);\n    MPI_Irecv(&a[(m + 1) * w + c0], cnt, MPI_DOUBLE, down, 1, mine, &r[1]);\n    MPI_Isend(&a[1 * w + c0], cnt, MPI_DOUBLE, up, 1, mine, &r[2]);\n    MPI_Isend(&a[m * w + c0], cnt, MPI_DOUBLE, down, 0, mine, &r[3]);\n    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n}\n',
          why="MPI_Query_thread checked in thread_comms"),
    # fresh attackers' right answers (L12r8, L12r13, 2026-12-05): MPI-4's MPI_Isendrecv, and each
    # thread's communicator from MPI_Comm_dup_with_info; 0/4 while the tracer had no entry for them
    right("exchange_slice", '%%c MULTIPLE_C thread_halo\nvoid thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {\n    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);\n}\n\nvoid exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {\n    long w = nx + 2;\n    int t = omp_get_thread_num(), T = omp_get_num_threads();\n    long c0 = 1 + t * nx / T, c1 = (t + 1) * nx / T;\n    int cnt = (int)(c1 - c0 + 1);\n    MPI_Request r[2];\n    MPI_Isendrecv(&a[w + c0], cnt, MPI_DOUBLE, up, 0, &a[(m + 1) * w + c0], cnt, MPI_DOUBLE, down, 0, mine, &r[0]);\n    MPI_Isendrecv(&a[m * w + c0], cnt, MPI_DOUBLE, down, 1, &a[c0], cnt, MPI_DOUBLE, up, 1, mine, &r[1]);\n    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n}\n',
          why="two MPI_Isendrecv per thread and an MPI_Waitall"),
    right("exchange_slice", '%%c MULTIPLE_C thread_halo\nvoid thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {\n    for (int t = 0; t < nthreads; t++) MPI_Comm_dup_with_info(comm, MPI_INFO_NULL, &comms[t]);\n}\n\nvoid exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {\n    long w = nx + 2;\n    int t = omp_get_thread_num(), T = omp_get_num_threads();\n    long c0 = 1 + t * nx / T, c1 = (t + 1) * nx / T;\n    int cnt = (int)(c1 - c0 + 1);\n    MPI_Request r[4];\n    MPI_Irecv(&a[0 * w + c0], cnt, MPI_DOUBLE, up, 0, mine, &r[0]);\n    MPI_Irecv(&a[(m + 1) * w + c0], cnt, MPI_DOUBLE, down, 1, mine, &r[1]);\n    MPI_Isend(&a[1 * w + c0], cnt, MPI_DOUBLE, up, 1, mine, &r[2]);\n    MPI_Isend(&a[m * w + c0], cnt, MPI_DOUBLE, down, 0, mine, &r[3]);\n    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n}\n',
          why="each thread's communicator from MPI_Comm_dup_with_info"),
    # a fresh attacker's Q12d_rhelper (0/4 before, 2026-12-05): the marks in a static helper
    # defined after pready_iteration, a barrier and a masked MPI_Waitall after the marks in the
    # region; the copy-to-mark window is read in the order of execution (helpers inlined)
    right("pready_iteration", '%%c PREADY_C thread_halo\nstatic int send_slot[4];\nstatic void mark_mine(int t, int nreq, MPI_Request req[]);\n\nint partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,\n                     MPI_Request req[4]) {\n    long w = nx + 2;\n    int n = 0;\n    int each = (int)(nx / parts);\n    if (up != MPI_PROC_NULL) {\n        send_slot[n] = 1;\n        MPI_Psend_init(&a[w + 1], parts, each, MPI_DOUBLE, up, 6, comm, MPI_INFO_NULL, &req[n++]);\n        send_slot[n] = 0;\n        MPI_Precv_init(&a[1], parts, each, MPI_DOUBLE, up, 5, comm, MPI_INFO_NULL, &req[n++]);\n    }\n    if (down != MPI_PROC_NULL) {\n        send_slot[n] = 1;\n        MPI_Psend_init(&a[m * w + 1], parts, each, MPI_DOUBLE, down, 5, comm, MPI_INFO_NULL, &req[n++]);\n        send_slot[n] = 0;\n        MPI_Precv_init(&a[(m + 1) * w + 1], parts, each, MPI_DOUBLE, down, 6, comm, MPI_INFO_NULL, &req[n++]);\n    }\n    return n;\n}\n\nvoid pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,\n                      MPI_Request req[]) {\n    (void)a; (void)fresh; (void)m; (void)nx;\n    MPI_Startall(nreq, req);\n    #pragma omp parallel num_threads(parts)\n    {\n        int t = omp_get_thread_num();\n        copy_partition(t);\n        mark_mine(t, nreq, req);\n        /* every mark made: the master completes the exchange inside the region */\n        #pragma omp barrier\n        #pragma omp masked\n        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);\n    }\n}\n\n/* thread t marks its own partition of every send */\nstatic void mark_mine(int t, int nreq, MPI_Request req[]) {\n    for (int k = 0; k < nreq; k++)\n        if (send_slot[k]) MPI_Pready(t, req[k]);\n}\n',
          why="marks in a static helper defined after pready_iteration, barrier and masked "
              "MPI_Waitall after them"),
]

# helperE's taskloop answer above gives the exchange's task `a` by reference (shared(a)), a local
# of task_iteration read after it returned: the kit keeps task_iteration's frame as it left it
# until its tasks are done (kernels_c/thread_halo.c's tasks_call), so that answer no longer dies
# on SIGSEGV (1 graded run in 5 once the task wrapper's frames grew, 0/4, 2026-12-05), and this
# one, whose edge task takes m by reference and runs late (after its halo arrived), no longer
# computes another row (a wrong checksum in every run then)
HONEST += [
    right("task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    double *h0 = a, *h1 = a + (m + 1) * w;
#pragma omp task depend(out: h0[0]) depend(out: h1[0]) shared(a)
    {
        MPI_Request r[4];
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 31, comm, &r[0]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 32, comm, &r[1]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 31, comm, &r[2]);
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 32, comm, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
    if (m > 1) {
#pragma omp task depend(in: h1[0]) shared(m)
        stencil_rows(m, m);
    }
#pragma omp task depend(in: h0[0])
    stencil_rows(1, 1);
#pragma omp taskloop grainsize(4) nogroup
    for (long i = 2; i < m; i++) stencil_rows(i, i);
}
""", why="task_iteration's locals taken by reference (shared(a), shared(m)) by tasks that run "
         "after it returned"),
]

# attacker R's L12_R4 (lost 4/4 until 2026-12-06): the exchange's task completes its requests by
# polling MPI_Testall with a taskyield between the tests (the text allows it since then)
HONEST += [
    right("task_iteration", r"""
%%c TASKS_C thread_halo
/* Right, unusual: the exchange's task completes its requests by polling MPI_Testall and yielding
   (taskyield) between the tests, so the thread that runs it can take interior tasks meanwhile. */
static char halos;
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
#pragma omp task depend(out: halos) firstprivate(a, m, nx, up, down, comm, w)
    {
        MPI_Request r[4];
        int done = 0;
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 0, comm, &r[0]);
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 0, comm, &r[3]);
        MPI_Testall(4, r, &done, MPI_STATUSES_IGNORE);
        while (!done) {
#pragma omp taskyield
            MPI_Testall(4, r, &done, MPI_STATUSES_IGNORE);
        }
    }
    long inner = m - 2;
    for (long c = 0; c < 4 && inner > 0; c++) {
        long lo = 2 + c * inner / 4, hi = 1 + (c + 1) * inner / 4;
        if (lo <= hi) {
#pragma omp task firstprivate(lo, hi)
            stencil_rows(lo, hi);
        }
    }
#pragma omp task depend(in: halos)
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: halos) firstprivate(m)
        stencil_rows(m, m);
    }
}
""", why="the exchange's task polls MPI_Testall with taskyield between the tests"),
]

# attacker V's right answers (2026-12-06, full points graded)
HONEST += [
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    /* a row is w = nx + 2 doubles long, halo columns included */
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long w = nx + 2;
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    int cnt = (int)(hi - lo + 1);
    MPI_Request r[4];
    MPI_Irecv(&a[lo], cnt, MPI_DOUBLE, up, 0, mine, &r[0]);
    MPI_Irecv(&a[(m + 1) * w + lo], cnt, MPI_DOUBLE, down, 1, mine, &r[1]);
    MPI_Isend(&a[w + lo], cnt, MPI_DOUBLE, up, 1, mine, &r[2]);
    MPI_Isend(&a[m * w + lo], cnt, MPI_DOUBLE, down, 0, mine, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
}
""", why="attacker V: a duplicated communicator per thread, Isend/Irecv, Waitall"),
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
/* one communicator for all: the tags carry the thread; persistent requests of a contiguous
 * type of the slice, started together and polled with MPI_Testall, then freed */
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    int t = 0;
    while (t < nthreads) comms[t++] = comm;
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    const int me = omp_get_thread_num(), team = omp_get_num_threads();
    const long row = nx + 2;
    const long first = 1 + (long)me * nx / team, last = (long)(me + 1) * nx / team;
    MPI_Datatype slice;
    MPI_Type_contiguous((int)(last - first + 1), MPI_DOUBLE, &slice);
    MPI_Type_commit(&slice);
    const int to_up = 2 * me, to_down = 2 * me + 1; /* the direction the message travels */
    MPI_Request req[4];
    MPI_Send_init(a + row + first, 1, slice, up, to_up, mine, &req[0]);
    MPI_Send_init(a + m * row + first, 1, slice, down, to_down, mine, &req[1]);
    MPI_Recv_init(a + first, 1, slice, up, to_down, mine, &req[2]);
    MPI_Recv_init(a + (m + 1) * row + first, 1, slice, down, to_up, mine, &req[3]);
    MPI_Startall(4, req);
    int done = 0;
    while (!done) MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 4; k++) MPI_Request_free(&req[k]);
    MPI_Type_free(&slice);
}
""", why="attacker V: one communicator with thread tags, a contiguous slice type, Send_init/Recv_init + Startall polled with Testall, Request_free"),
    right("exchange_slice", r"""
%%c MULTIPLE_C thread_halo
/* a duplicate per thread; two MPI_Sendrecv: upwards, then downwards */
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = nthreads - 1; t >= 0; t--) MPI_Comm_dup(comm, comms + t);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long w = nx + 2, lo = 1 + t * nx / T, n = (t + 1) * nx / T - t * nx / T;
    double *r0 = a, *r1 = a + w, *rm = a + m * w, *rm1 = a + (m + 1) * w;
    MPI_Sendrecv(r1 + lo, (int)n, MPI_DOUBLE, up, 11, rm1 + lo, (int)n, MPI_DOUBLE, down, 11,
                 mine, MPI_STATUS_IGNORE);
    MPI_Sendrecv(rm + lo, (int)n, MPI_DOUBLE, down, 12, r0 + lo, (int)n, MPI_DOUBLE, up, 12,
                 mine, MPI_STATUS_IGNORE);
}
""", why="attacker V: two MPI_Sendrecv per thread"),
]
# the right answer test_thread_comm runs directly too
DETACHED = r"""
static MPI_Request rq[4];

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    omp_event_handle_t ev;
    #pragma omp task depend(out: a[0], a[(m + 1) * w]) detach(ev) firstprivate(a, m, nx, up, down, comm, w)
    {
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 7, comm, &rq[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 8, comm, &rq[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 8, comm, &rq[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 7, comm, &rq[3]);
        #pragma omp task firstprivate(ev)
        {
            MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
            omp_fulfill_event(ev);
        }
    }
    for (long r = 2; r <= m - 1; r++) {
        #pragma omp task firstprivate(r)
        stencil_rows(r, r);
    }
    if (m == 1) {
        #pragma omp task depend(in: a[0], a[(m + 1) * w])
        stencil_rows(1, 1);
    } else {
        #pragma omp task depend(in: a[0])
        stencil_rows(1, 1);
        #pragma omp task depend(in: a[(m + 1) * w])
        stencil_rows(m, m);
    }
}
"""
HONEST.append(right("task_iteration", "\n" + r"""%%c TASKS_C thread_halo
/* the exchange's task posts and hands the completion to a child task; the exchange task is
 * detached and counts as done (its depend(out) released) only when the child has completed the
 * requests and fulfilled its event: rows 1 and m wait by depend alone */
""" + DETACHED, why="A2's l12_task_detach (2026-12-07): the exchange's task detached (OpenMP 5.0 detach(ev)), "
         "a child task completing the requests and fulfilling its event, rows 1 and m held by "
         "depend on the detached task alone (it crashed in the kit's task wrapper, 0/4)"))
