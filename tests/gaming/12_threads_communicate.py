"""Lab 12_threads_communicate: gaming attempts (tests/gaming/__init__.py), at least three per automatic part."""

import importlib.util
import textwrap
from pathlib import Path

from gaming import SEALED_DESCRIPTOR_WRITE, attempt, c_evidence, solution_cell
from wrong_answers import c_cell, changed

_spec = importlib.util.spec_from_file_location(
    "wrong_answers_12", Path(__file__).resolve().parents[1] / "wrong_answers" / "12_threads_communicate.py")
_wrong = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_wrong)

A, B, C = {"hidden_exchange_slice"}, {"hidden_task_iteration"}, {"hidden_halo_ratio"}
D = {"hidden_pready_iteration"}
NOTHING = "exchanged nothing with a neighbour"  # judge_multiple: no bytes to a real peer
EXCHANGE = _wrong.EXCHANGE  # (b)'s exchange: its requests posted and completed


def _at(spaces: int, code: str) -> str:
    """`code` indented by `spaces`."""
    return textwrap.indent(code, " " * spaces)


DUPS = _wrong.COMMS  # a communicator of its own for each thread

GAMING = [
    attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", DUPS + """
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    /* the FUNNELED pattern: the master moves every slice, the other threads do nothing */
    long w = nx + 2;
    int T = omp_get_num_threads();
#pragma omp masked
    for (int t = 0; t < T; t++) {
        long first = 1 + t * nx / T, count = (t + 1) * nx / T - t * nx / T;
        MPI_Sendrecv(&a[m * w + first], (int)count, MPI_DOUBLE, down, 2 * t, &a[first], (int)count,
                     MPI_DOUBLE, up, 2 * t, mine, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&a[w + first], (int)count, MPI_DOUBLE, up, 2 * t + 1, &a[(m + 1) * w + first],
                     (int)count, MPI_DOUBLE, down, 2 * t + 1, mine, MPI_STATUS_IGNORE);
    }
}
"""), A, "thread 0 exchanges every slice (funnelled): right numbers, the other threads silent",
        reason=NOTHING),
    attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", DUPS + """
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    /* thread 0 moves the whole rows; the others send one value to themselves to look busy */
    long w = nx + 2;
    int t = omp_get_thread_num(), rank;
    MPI_Comm_rank(mine, &rank);
    if (t == 0) {
        MPI_Sendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, &a[1], (int)nx, MPI_DOUBLE, up, 1,
                     mine, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, &a[(m + 1) * w + 1], (int)nx,
                     MPI_DOUBLE, down, 2, mine, MPI_STATUS_IGNORE);
    } else {
        double x = 0, y;
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, rank, 3, &y, 1, MPI_DOUBLE, rank, 3, mine, MPI_STATUS_IGNORE);
    }
}
"""), A, "whole rows from thread 0, a dummy message from the others", reason=NOTHING),
    attempt("hidden", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", DUPS + """
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    /* two threads, as in the visible test: halves of the row */
    long w = nx + 2;
    int t = omp_get_thread_num();
    long first = 1 + t * nx / 2, count = (t + 1) * nx / 2 - t * nx / 2;
    MPI_Request req[4];
    MPI_Irecv(&a[first], (int)count, MPI_DOUBLE, up, 1, mine, &req[0]);
    MPI_Irecv(&a[(m + 1) * w + first], (int)count, MPI_DOUBLE, down, 2, mine, &req[1]);
    MPI_Isend(&a[m * w + first], (int)count, MPI_DOUBLE, down, 1, mine, &req[2]);
    MPI_Isend(&a[w + first], (int)count, MPI_DOUBLE, up, 2, mine, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}
"""), A, "slices for two threads only: the visible test's thread count",
        reason="KernelCrash | Segmentation fault"),  # MPICH's message may name no rank: KernelError
    attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", """
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* no tasks: exchange first, then every row (the blocking order of lab 04 (a)) */
    long w = nx + 2;
""" + _at(4, EXCHANGE) + """    stencil_rows(1, m);
}
"""), B, "no tasks at all: the exchange, then the rows",
        reason="must create OpenMP tasks with depend clauses"),
    attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", """
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* tasks with depend, but the exchange is waited for before any task exists */
    long w = nx + 2;
    double *top = &a[0];
""" + _at(4, EXCHANGE) + """    for (long i = 1; i <= m; i++) {
#pragma omp task depend(in: top[0]) firstprivate(i)
        stencil_rows(i, i);
    }
}
"""), B, "tasks created only after MPI_Waitall: nothing computes while messages travel",
        reason="no row was computed between the posting of the requests and their completion"),
    attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", """
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* one thread does it all: post, compute the interior, wait; the task does nothing */
    long w = nx + 2;
    double *top = &a[0];
    MPI_Request req[4];
    MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[0]);
    MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &req[1]);
    MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[2]);
    MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &req[3]);
    if (m > 2) stencil_rows(2, m - 1);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
#pragma omp task depend(in: top[0])
    {
    }
    stencil_rows(1, 1);
    if (m > 1) stencil_rows(m, m);
}
"""), B, "one thread posts, computes and waits: overlap without tasks, a task pragma for show",
        reason="only the threads that posted and waited for the requests"),
    attempt("shortcut", "task_iteration", c_cell("TASKS_C", "thread_halo", """
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* the kit's own funnelled exchange and grid, reached from the cell */
    double *top = &a[0];
#pragma omp task depend(out: top[0])
    exchange_funneled(overlap_grid, 1);
#pragma omp task depend(in: top[0])
    stencil_rows(1, m);
}
"""), B, "the kernel's static exchange called from the cell", reason="did not compile"),
    attempt("constant", "halo_ratio", """
def halo_ratio(multiple, funneled):
    return 1.0  # "about the same on two cores"
""", C, "a ratio typed in", reason="slowest thread per rank, mean over ranks"),
    attempt("shortcut", "halo_ratio", """
def halo_ratio(multiple, funneled):
    # the kit's breakdown table (slowest rank AND thread), not the mean over ranks asked
    from hybridlab.halo.tables import breakdown_table
    def halo(records):
        return float(breakdown_table(records.assign(record="timer", variant="x", ranks=1, threads=1),
                                     how="max")["halo"].iloc[0])
    return halo(multiple) / halo(funneled)
""", C, "the kit's breakdown_table(how='max'): the slowest rank, not the mean over ranks",
        reason="slowest thread per rank, mean over ranks"),
    attempt("hidden", "halo_ratio", """
def halo_ratio(multiple, funneled):
    # the notebook's own runs, whatever is passed
    runs_by = {run["variant"].iloc[0]: run for run in runs}
    def halo(records):
        return float(records[records["phase"] == "halo"].groupby("rank")["seconds"].max().mean())
    return halo(timer_records(runs_by["multiple@MULTIPLE"])) / halo(timer_records(runs_by["funneled@FUNNELED"]))
""", C, "the notebook's runs instead of the arguments", reason="slowest thread per rank, mean over ranks"),
]

# issue 36's hurried hole: the FUNNELED pattern dressed up, the master moving every slice and
# the other threads making calls to MPI_PROC_NULL so that each thread shows calls of its slice
GAMING.append(attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", DUPS + """
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long first = 1 + t * nx / T, count = (t + 1) * nx / T - t * nx / T;
    MPI_Request req[4];
    if (t == 0) {  /* the master moves every thread's slice */
        for (int s = 0; s < T; s++) {
            long f = 1 + s * nx / T, c = (s + 1) * nx / T - s * nx / T;
            MPI_Irecv(&a[f], (int)c, MPI_DOUBLE, up, 10 + s, mine, &req[0]);
            MPI_Irecv(&a[(m + 1) * w + f], (int)c, MPI_DOUBLE, down, 50 + s, mine, &req[1]);
            MPI_Isend(&a[m * w + f], (int)c, MPI_DOUBLE, down, 10 + s, mine, &req[2]);
            MPI_Isend(&a[w + f], (int)c, MPI_DOUBLE, up, 50 + s, mine, &req[3]);
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        }
    } else {  /* the others only look busy: their slices go nowhere */
        MPI_Irecv(&a[first], (int)count, MPI_DOUBLE, MPI_PROC_NULL, 1, mine, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + first], (int)count, MPI_DOUBLE, MPI_PROC_NULL, 2, mine, &req[1]);
        MPI_Isend(&a[m * w + first], (int)count, MPI_DOUBLE, MPI_PROC_NULL, 1, mine, &req[2]);
        MPI_Isend(&a[w + first], (int)count, MPI_DOUBLE, MPI_PROC_NULL, 2, mine, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
}
"""), A, "the master moves every slice, the other threads post theirs to MPI_PROC_NULL",
    reason=NOTHING))
# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
GAMING += c_evidence("12_threads_communicate", "exchange_slice", A, 'MPI_Isend', reasons=True)


def _interior_first(exchange_task: str, edge: str, wait: str = "", note: str = "") -> str:
    """(b) with the interior's tasks made first (`note` on their loop), then the exchange's task
    (`exchange_task`: its pragma and opening line), then `wait` and the edge rows' tasks (`edge`:
    the pragma of each)."""
    return c_cell("TASKS_C", "thread_halo", """
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    double *top = &a[0];
    for (long first = 2; first < m; first += 8) {""" + note + """
        long last = first + 7 < m - 1 ? first + 7 : m - 1;
#pragma omp task firstprivate(first, last)
        stencil_rows(first, last);
    }
""" + exchange_task + "\n" + _at(8, EXCHANGE) + "    }\n" + wait + edge + """
    stencil_rows(1, 1);
    if (m > 1) {
""" + edge + """
        stencil_rows(m, m);
    }
}
""")


# (b): the edge tasks made to wait by something other than depend (issue 36: "a taskwait or
# if(0) still passes"); the depend clause is there for show
GAMING += [
    attempt("method", "task_iteration", _interior_first(
        "#pragma omp task depend(out: top[0])\n    {", "#pragma omp task", wait="#pragma omp taskwait\n",
        note="  /* the interior first, for the free threads */"),
        B, "the edge tasks wait behind a taskwait, not by depend: the clause only for show",
        reason="no taskwait between the tasks"),
    attempt("method", "task_iteration", _interior_first(
        "#pragma omp task if(0) depend(out: top[0])\n"
        "    {   /* undeferred: the creating thread posts and waits right here */", "#pragma omp task if(0)"),
        B, "undeferred tasks (if(0)): the creating thread exchanges and computes the edges inline",
        reason="no if() or final() clause on a task"),
]
GAMING += c_evidence("12_threads_communicate", "task_iteration", B, 'MPI_Isend', reasons=True)
GAMING.append(attempt("text", "task_iteration", "%%c TASKS_C thread_halo\n// #pragma omp task depend(in: a[0])\n"
                     + solution_cell("12_threads_communicate", "task_iteration").split("\n", 1)[1]
                     .replace(" depend(out: top[0], bottom[0])", "")
                     .replace(" depend(in: top[0])", "").replace(" depend(in: bottom[0])", ""),
                     B, "the depend clauses only in a comment",
                     reason="must create OpenMP tasks with depend clauses"))


# padding (issue 36's hurried hole, closed by the peer and bytes the tracer records): the master
# moves every slice in T rounds, the other threads make as many calls, to nobody, of nothing, to
# themselves, or of one token value
_PADDED = DUPS + """
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads(), me;
    long first = 1 + t * nx / T, count = (t + 1) * nx / T - t * nx / T;
    MPI_Request req[4];
    MPI_Comm_rank(mine, &me);
    (void)first; (void)count; (void)me;
    if (t == 0) {  /* the master moves every slice: T rounds */
        for (int s = 0; s < T; s++) {
            long f = 1 + s * nx / T, c = (s + 1) * nx / T - s * nx / T;
            MPI_Irecv(&a[f], (int)c, MPI_DOUBLE, up, 10 + s, mine, &req[0]);
            MPI_Irecv(&a[(m + 1) * w + f], (int)c, MPI_DOUBLE, down, 50 + s, mine, &req[1]);
            MPI_Isend(&a[m * w + f], (int)c, MPI_DOUBLE, down, 10 + s, mine, &req[2]);
            MPI_Isend(&a[w + f], (int)c, MPI_DOUBLE, up, 50 + s, mine, &req[3]);
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        }
    } else {
        for (int s = 0; s < T; s++) {
PAD
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        }
    }
}
"""
_PADS = {
    "MPI_PROC_NULL as the peer, as many calls as the master's": """\
            MPI_Irecv(&a[first], (int)count, MPI_DOUBLE, MPI_PROC_NULL, 100 + t, mine, &req[0]);
            MPI_Irecv(&a[(m + 1) * w + first], (int)count, MPI_DOUBLE, MPI_PROC_NULL, 200 + t, mine, &req[1]);
            MPI_Isend(&a[m * w + first], (int)count, MPI_DOUBLE, MPI_PROC_NULL, 100 + t, mine, &req[2]);
            MPI_Isend(&a[w + first], (int)count, MPI_DOUBLE, MPI_PROC_NULL, 200 + t, mine, &req[3]);""",
    "messages of zero values to the real neighbours": """\
            MPI_Irecv(&a[first], 0, MPI_DOUBLE, up, 100 + t, mine, &req[0]);
            MPI_Irecv(&a[(m + 1) * w + first], 0, MPI_DOUBLE, down, 200 + t, mine, &req[1]);
            MPI_Isend(&a[m * w + first], 0, MPI_DOUBLE, down, 100 + t, mine, &req[2]);
            MPI_Isend(&a[w + first], 0, MPI_DOUBLE, up, 200 + t, mine, &req[3]);""",
    "slices sent by each thread to its own rank": """\
            double x[4], y[4] = {0, 0, 0, 0};
            MPI_Irecv(x, 2, MPI_DOUBLE, me, 100 + t, mine, &req[0]);
            MPI_Irecv(x + 2, 2, MPI_DOUBLE, me, 200 + t, mine, &req[1]);
            MPI_Isend(y, 2, MPI_DOUBLE, me, 100 + t, mine, &req[2]);
            MPI_Isend(y + 2, 2, MPI_DOUBLE, me, 200 + t, mine, &req[3]);""",
}
GAMING += [attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", _PADDED.replace("PAD", pad)),
                   A, f"the master moves every slice; the others pad: {why}", reason=NOTHING)
           for why, pad in _PADS.items()]
GAMING.append(attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", _PADDED.replace("PAD", """\
            double x[2], y[2] = {0, 0};
            MPI_Irecv(x, 1, MPI_DOUBLE, up, 100 + t, mine, &req[0]);
            MPI_Irecv(x + 1, 1, MPI_DOUBLE, down, 200 + t, mine, &req[1]);
            MPI_Isend(y, 1, MPI_DOUBLE, down, 100 + t, mine, &req[2]);
            MPI_Isend(y + 1, 1, MPI_DOUBLE, up, 200 + t, mine, &req[3]);""")), A,
    "the master moves every slice; the others send one token value to the real neighbours",
    reason="every value once"))

# (d) partitioned sends (issue 38.3): one thread marking every partition, MPI_Pready after the
# parallel region, plain MPI_Sendrecv instead of partitioned messages
_PINIT = r"""int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    MPI_Count per = nx / parts;
    int n = 0;
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}


"""
GAMING += [
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", _PINIT + r"""
void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    /* the master copies the rows and marks every partition; the others only watch */
    long w = nx + 2;
    MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
#pragma omp masked
        {
            memcpy(&a[w + 1], &fresh[w + 1], (size_t)nx * sizeof(double));
            memcpy(&a[m * w + 1], &fresh[m * w + 1], (size_t)nx * sizeof(double));
            for (int i = 0; i < nreq; i += 2)
                for (int t = 0; t < parts; t++) MPI_Pready(t, req[i]);
        }
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "thread 0 marks every partition inside the region", reason="marked ready by thread 0 | as soon as it has copied it"),
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", _PINIT + r"""
void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    /* the threads copy their partitions; one MPI_Pready_range after the region */
    long w = nx + 2, per = nx / parts;
    MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
        long first = 1 + omp_get_thread_num() * per;
        memcpy(&a[w + first], &fresh[w + first], (size_t)per * sizeof(double));
        memcpy(&a[m * w + first], &fresh[m * w + first], (size_t)per * sizeof(double));
    }
    for (int i = 0; i < nreq; i += 2) MPI_Pready_range(0, parts - 1, req[i]);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "every partition marked ready after the parallel region", reason="outside a parallel region"),
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", r"""
static MPI_Comm saved;
static int above, below;

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    (void)a; (void)m; (void)nx; (void)parts; (void)req;
    saved = comm;  /* no partitioned requests: the neighbours kept for later */
    above = up;
    below = down;
    return 0;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    /* plain MPI_Sendrecv of the whole rows from the main thread */
    long w = nx + 2;
    (void)parts; (void)nreq; (void)req;
    memcpy(&a[w + 1], &fresh[w + 1], (size_t)nx * sizeof(double));
    memcpy(&a[m * w + 1], &fresh[m * w + 1], (size_t)nx * sizeof(double));
    MPI_Sendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, below, 1, &a[1], (int)nx, MPI_DOUBLE, above, 1,
                 saved, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[w + 1], (int)nx, MPI_DOUBLE, above, 2, &a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE,
                 below, 2, saved, MPI_STATUS_IGNORE);
}
"""), D, "plain MPI_Sendrecv of whole rows instead of partitioned messages",
        reason="travel as partitioned messages only"),
]
GAMING += c_evidence("12_threads_communicate", "pready_iteration", D, "MPI_Psend_init", reasons=True)

# issue 36, a fresh attacker (12/d1, 12/h2) and its variants: the tasks' behaviour, not the text
# of a `depend`. (b) is judged by the kit's task stamps (thread_comm.exercise.task_stamps), (d)
# by the kit's copy_partition log (thread_comm.exercise.partition_copies).
_INLINE = """
    MPI_Request r[4];
    MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &r[0]);
    MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 0, comm, &r[1]);
    MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 0, comm, &r[2]);
    MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &r[3]);
    for (long i = 2; i <= m - 1; i += 4) {
        long last = i + 3 < m - 1 ? i + 3 : m - 1;
#pragma omp task firstprivate(i, last)
        stencil_rows(i, last);
    }
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    stencil_rows(1, 1);
    if (m > 1) stencil_rows(m, m);
"""
_DUMMY = """
#pragma omp task depend(out: dummy)
    { dummy = 1; }
"""
GAMING += [
    attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", """
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* 12/d1: interior tasks without depend; the exchange and the edges inline by the single
       thread; a dummy task with depend for the build's check */
    long w = nx + 2;
    int dummy = 0;""" + _INLINE + _DUMMY + "}\n"), B,
        "the exchange posted and waited and the edge rows computed by the single thread itself, "
        "a dummy depend task for show", reason="task_iteration itself, outside any task"),
    attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", """
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* the same in one big task: the exchange, the interior's child tasks and the edges after
       the task's own MPI_Waitall, no dependence between tasks */
    long w = nx + 2;
    int dummy = 0;
#pragma omp task
    {""" + _INLINE + "    }\n" + _DUMMY + "}\n"), B,
        "everything inside one task: the edge rows after that task's own MPI_Waitall",
        reason="in a task after MPI calls of that same task"),
    attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", """
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* interior tasks first; then the exchange and the edges inline, inside a parallel region
       of one thread, whose own data environment dies with it */
    long w = nx + 2;
    int dummy = 0;
    for (long i = 2; i <= m - 1; i += 4) {
        long last = i + 3 < m - 1 ? i + 3 : m - 1;
#pragma omp task firstprivate(i, last)
        stencil_rows(i, last);
    }
#pragma omp parallel num_threads(1)
    {""" + _INLINE.split("    for (long i")[0] + """
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }""" + _DUMMY + "}\n"), B,
        "the inline exchange hidden in a nested parallel region of one thread",
        reason="inside a parallel region opened in task_iteration"),
    attempt("forged", "task_iteration", c_cell("TASKS_C", "thread_halo", """
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* the inline exchange, then the schedule the kit marked put back as it was */
    long w = nx + 2;
    int dummy = 0, chunk;
    omp_sched_t kind;
    omp_get_schedule(&kind, &chunk);""" + _INLINE + _DUMMY + """
    omp_set_schedule(kind, chunk);
}
"""), B, "the kit's mark on the schedule ICV restored after an inline exchange",
        reason="uses omp_set_schedule"),
]

_PSTART = r"""
void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    long w = nx + 2;
    (void)w; (void)a; (void)fresh; (void)m; (void)nx;
    MPI_Startall(nreq, req);
"""
GAMING += [
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", _PINIT + _PSTART + r"""
    /* 12/h2: the master copies both rows before the region; the threads only mark */
    memcpy(a + w + 1, fresh + w + 1, nx * sizeof(double));
    memcpy(a + m * w + 1, fresh + m * w + 1, nx * sizeof(double));
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        for (int r = 0; r < nreq; r += 2) MPI_Pready(t, req[r]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "the master memcpy's rows 1 and m before the region, the threads only call MPI_Pready",
        reason="no thread copied partition 0"),
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", _PINIT + _PSTART + r"""
    /* the master copies every partition with the kit's helper before the region */
    for (int t = 0; t < parts; t++) copy_partition(t);
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        for (int r = 0; r < nreq; r += 2) MPI_Pready(t, req[r]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "the master calls copy_partition for every partition before the region, the threads "
        "only mark", reason="partition 0 copied outside a parallel region"),
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", _PINIT + _PSTART + r"""
    /* inside the region: the master copies every partition, then each thread marks its own */
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
#pragma omp masked
        for (int p = 0; p < parts; p++) copy_partition(p);
#pragma omp barrier
        for (int r = 0; r < nreq; r += 2) MPI_Pready(t, req[r]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "in the region the master copies every partition, then each thread marks its own",
        reason="copied by thread 0 (copy_partition), marked ready by thread 1 | as soon as it has copied it"),
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", _PINIT + _PSTART + r"""
    /* each thread marks its partition ready first and copies it after */
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        for (int r = 0; r < nreq; r += 2) MPI_Pready(t, req[r]);
        copy_partition(t);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "each thread marks its partition ready before it copies it (the kit's meeting at the "
             "copies then waits its 3 s out: at load 9 the part's time limit came first)",
        reason="marked ready before thread | ran past its time limit"),
]

# (d): issue 36's "the partitioned sends use a's rows" left unchecked: the sends set up on a
# private copy the master fills up front, copy_partition called for the log only
GAMING.append(attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", r"""
#include <string.h>
static double *copy_up, *copy_down; /* the rows the master copies: the sends carry these */
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    MPI_Count per = nx / parts;
    int n = 0;
    copy_up = calloc((size_t)nx, sizeof(double));
    copy_down = calloc((size_t)nx, sizeof(double));
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(copy_up, parts, per, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(copy_down, parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a;
    long w = nx + 2;
    memcpy(copy_up, &fresh[w + 1], (size_t)nx * sizeof(double));      /* the master, up front */
    memcpy(copy_down, &fresh[m * w + 1], (size_t)nx * sizeof(double));
    MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t); /* for the log */
        for (int i = 0; i < nreq; i += 2) MPI_Pready(t, req[i]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D,
                      "the sends from a private copy of rows 1 and m the master memcpy's before "
                      "the region; copy_partition and MPI_Pready per thread for the log",
                      reason="names a buffer that is not the grid's"))

# (b): a fresh attacker (xena): the stamps wiped through libgomp's Fortran binding of
# omp_set_schedule, no task doing the work, one token task with depend
GAMING.append(attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", r"""
/* libgomp's Fortran entry points (not declared by omp.h) */
void omp_get_schedule_(int *kind, int *chunk);
void omp_set_schedule_(const int *kind, const int *chunk);

/* no tasks for the work: the single thread posts, computes the interior and the edges itself;
 * one token task computes row 2 again; the stamps of the body are wiped at the end */
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    int kind, chunk, mark = 1 << 30;
    omp_get_schedule_(&kind, &chunk);
    MPI_Request r[4];
    MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[0]);
    MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[1]);
    MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[2]);
    MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[3]);
    if (m > 2) {
        #pragma omp task depend(in: a[0])
        stencil_rows(2, 2);
        stencil_rows(2, m - 1);
    }
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    omp_set_schedule_(&kind, &mark);
    stencil_rows(1, 1);
    if (m > 1) stencil_rows(m, m);
    omp_set_schedule_(&kind, &mark);
}
"""), B, "fresh attacker: the single thread does everything, the task stamps reset with "
           "omp_set_schedule_ (libgomp's Fortran binding), one token task",
                      reason="OpenMP's Fortran binding"))

# (a): a fresh attacker (xena): the threads take turns (SERIALIZED dressed as MULTIPLE), an
# MPI_Comm_rank of each made while thread 0 waits, so some call of theirs overlapped one of its
GAMING.append(attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", r"""
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

/* SERIALIZED dressed as MULTIPLE: every thread's exchange one after the other (a barrier between
 * turns), and threads other than 0 make one harmless MPI_Comm_rank call 1 ms in,
 * while thread 0 sits in its MPI_Waitall in its turn */
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), nt = omp_get_num_threads(), me;
    long lo = 1 + t * nx / nt, hi = (t + 1) * nx / nt, len = hi - lo + 1;
    if (t > 0) {
        usleep(1000);
        MPI_Comm_rank(mine, &me);
    }
    for (int turn = 0; turn < nt; turn++) {   /* the threads take turns, in thread order */
        if (turn == t) {
            MPI_Request r[4];
            MPI_Irecv(&a[lo], (int)len, MPI_DOUBLE, up, 1, mine, &r[0]);
            MPI_Irecv(&a[(m + 1) * w + lo], (int)len, MPI_DOUBLE, down, 2, mine, &r[1]);
            MPI_Isend(&a[m * w + lo], (int)len, MPI_DOUBLE, down, 1, mine, &r[2]);
            MPI_Isend(&a[w + lo], (int)len, MPI_DOUBLE, up, 2, mine, &r[3]);
            MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        }
        #pragma omp barrier
    }
}
"""), A, "fresh attacker: slices exchanged in turns, one MPI_Comm_rank per thread made while "
           "thread 0 sits in its MPI_Waitall", reason="the threads took turns"))
# every interior row but row 2 waits for the exchange (the two attempts below)
_TOKEN_ROW = r"""void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    #pragma omp task depend(out: a[0]) firstprivate(a, m, nx, up, down, comm, w)
    {
        MPI_Request r[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[1]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[2]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
    if (m > 2) {
        #pragma omp task
        stencil_rows(2, 2);
    }
    for (long i = 3; i < m; i++) {
        #pragma omp task depend(in: a[0]) firstprivate(i)
        stencil_rows(i, i);
    }
    #pragma omp task depend(in: a[0])
    stencil_rows(1, 1);
    if (m > 1) {
        #pragma omp task depend(in: a[0])
        stencil_rows(m, m);
    }
}
"""
GAMING.append(attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", """
/* no overlap: every interior row but one waits for the exchange (depend(in) on it, like the
 * edge rows); one token task without depend computes row 2 while the messages travel */
""" + _TOKEN_ROW),
    B, "fresh attacker: every interior row but one waits for the exchange (depend(in) like "
           "the edges), one token task computes row 2",
    # the window rule forgives a minority of windows; where it passed (2 iterations, few long
    # windows), the rule for interior tasks held by depend on the exchange (held_interior) refuses
    reason="fell inside it | the interior rows (2..m-1) go in tasks without depend"))
GAMING.append(attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", """
/* no overlap: the interior waits for the exchange (depend(in), like the edges); while the
 * messages travel, one task without depend recomputes row 2 again and again until the exchange
 * task says it is done, so that the window looks busy */
static int exchanged;

""" + changed(changed(changed(
    _TOKEN_ROW, "    long w = nx + 2;\n", "    long w = nx + 2;\n    __atomic_store_n(&exchanged, 0, __ATOMIC_SEQ_CST);\n"),
    "        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n",
    "        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n        __atomic_store_n(&exchanged, 1, __ATOMIC_SEQ_CST);\n"),
    "        stencil_rows(2, 2);\n",
    "        do stencil_rows(2, 2); while (!__atomic_load_n(&exchanged, __ATOMIC_SEQ_CST));\n")),
    B, "fresh attacker: the interior waits for the exchange; one task recomputes row 2 until the "
           "exchange is done, so that the window looks busy",
    reason="computed more than once | fell inside it | not by watching a flag | the interior rows "
           "(2..m-1) go in tasks without depend"))

# helper-30's (2026-12-03) cells for (d): partitioned_init notes which of its requests send
_NOTED_STATICS = """
static int hl_nsend;
static int send_idx[2];
"""
_NOTED_INIT = r"""int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int n = 0;
    hl_nsend = 0;
    MPI_Count c = nx / parts;
    if (up != MPI_PROC_NULL) {
        send_idx[hl_nsend++] = n;
        MPI_Psend_init(&a[w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, c, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        send_idx[hl_nsend++] = n;
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}
"""
_NOTED_START = """void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a; (void)fresh; (void)m; (void)nx;
    if (nreq) MPI_Startall(nreq, req);
"""
_NOTED_WAIT = """    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""


def _noted(body: str, between: str = "\n", statics: str = "") -> str:
    """helper-30's cell for (d): its partitioned_init (`statics`: more of the unit's own), then
    `between`, then pready_iteration doing `body` between the requests' start and their wait."""
    return c_cell("PREADY_C", "thread_halo", _NOTED_STATICS + statics + _NOTED_INIT + between
                  + _NOTED_START + body + _NOTED_WAIT)


# A fresh attacker's (helper-30, 2026-12-03): the master copies every partition outside the region
# and the kit's copy log, found by a differential scan of memory, is patched to say each thread
# copied its own inside it. Each copy is now on the trace's stream as it is made.
GAMING.append(attempt("forged", "pready_iteration", _noted(
    statics="static long scan_anchor; /* a .bss variable of this unit: the kit's .bss follows it */\n",
    between=r"""
typedef struct { double start, end; long iteration; int thread, partition, level, team; } copy_rec;
#define SCAN (1L << 19) /* longs: 4 MiB after the anchor */
static volatile long *count_at;

static void copy_all(int parts) {
    if (!count_at) { /* find the kit's copy counter: the long that grows by one per copy */
        volatile long *base = &scan_anchor;
        long *before = malloc(SCAN * sizeof(long));
        for (long i = 0; i < SCAN; i++) before[i] = base[i];
        copy_partition(0);
        for (long i = 1; i < SCAN - 2 && !count_at; i++)
            if (base[i] == before[i] + 1 && base[i + 1] != 0 && base[i - 1] >= base[i])
                count_at = &base[i];
        free(before);
        for (int t = 1; t < parts; t++) copy_partition(t);
    } else {
        for (int t = 0; t < parts; t++) copy_partition(t);
    }
    long n = *count_at, size = count_at[-1];
    copy_rec *log = *(copy_rec *volatile *)(count_at + 1);
    for (long k = n - parts; k < n; k++) {
        if (k < 0 || k >= size) continue;
        log[k].thread = log[k].partition;
        log[k].level = 1;
        log[k].team = parts;
    }
}

""",
    body="""    copy_all(parts); /* the master copies rows 1 and m for everybody */
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        for (int s = 0; s < hl_nsend; s++) MPI_Pready(t, req[send_idx[s]]);
    }
"""), D, "the master copies all; the kit's copy log patched in memory to name each thread",
    reason="copied outside a parallel region | no volatile (line"))

# A fresh attacker's (helper-30, 2026-12-03) wrong methods for (a) that kept full points, now refused.
GAMING += [
    attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", r"""
static MPI_Comm bulk = MPI_COMM_NULL;
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
    MPI_Comm_dup(comm, &bulk);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T;
    /* token: one value of my slice (the one the bulk exchange also delivers) */
    MPI_Request r[4];
    double tok_up = a[w + lo], tok_down = a[m * w + lo], got_down, got_up;
    MPI_Irecv(&got_down, 1, MPI_DOUBLE, down, 1, mine, &r[0]);
    MPI_Irecv(&got_up, 1, MPI_DOUBLE, up, 2, mine, &r[1]);
    MPI_Isend(&tok_up, 1, MPI_DOUBLE, up, 1, mine, &r[2]);
    MPI_Isend(&tok_down, 1, MPI_DOUBLE, down, 2, mine, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    if (t == 0) { /* the whole halo, funneled */
        int P, me;
        MPI_Comm_size(bulk, &P);
        MPI_Comm_rank(bulk, &me);
        int *sc = calloc(P, sizeof(int)), *sd = calloc(P, sizeof(int));
        int *rc = calloc(P, sizeof(int)), *rd = calloc(P, sizeof(int));
        double *sb = malloc(2 * nx * sizeof(double)), *rb = malloc(2 * nx * sizeof(double));
        memcpy(sb, &a[w + 1], nx * sizeof(double));
        memcpy(sb + nx, &a[m * w + 1], nx * sizeof(double));
        if (up != MPI_PROC_NULL) { sc[up] = (int)nx; sd[up] = 0; rc[up] = (int)nx; rd[up] = 0; }
        if (down != MPI_PROC_NULL) { sc[down] = (int)nx; sd[down] = (int)nx; rc[down] = (int)nx; rd[down] = (int)nx; }
        MPI_Alltoallv(sb, sc, sd, MPI_DOUBLE, rb, rc, rd, MPI_DOUBLE, bulk);
        if (up != MPI_PROC_NULL) memcpy(&a[1], rb, nx * sizeof(double));
        if (down != MPI_PROC_NULL) memcpy(&a[(m + 1) * w + 1], rb + nx, nx * sizeof(double));
        free(sc); free(sd); free(rc); free(rd); free(sb); free(rb);
    }
}
"""), A, "thread 0 moves the halo with one MPI_Alltoallv, the others swap one token value each", reason="nothing else moves the rows"),
    attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", r"""
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

static volatile int turn;
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    int n = (int)(hi - lo + 1);
    MPI_Request r[4];
    int f;
    while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != t) { MPI_Testall(0, r, &f, MPI_STATUSES_IGNORE); usleep(300); }
    MPI_Irecv(&a[(m + 1) * w + lo], n, MPI_DOUBLE, down, 1, mine, &r[0]);
    MPI_Irecv(&a[lo], n, MPI_DOUBLE, up, 2, mine, &r[1]);
    MPI_Isend(&a[w + lo], n, MPI_DOUBLE, up, 1, mine, &r[2]);
    MPI_Isend(&a[m * w + lo], n, MPI_DOUBLE, down, 2, mine, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    __atomic_store_n(&turn, (t + 1) % T, __ATOMIC_RELEASE);
}
"""), A, "threads take turns; those waiting spin on MPI_Testall(0) to look concurrent", reason="the threads took turns"),
]

# helper-30 (2026-12-03): the edge tasks spin on a flag the exchange task sets (taskyield), depend
# only on the exchange task for show.
GAMING.append(attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", r"""
static volatile int arrived;
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    arrived = 0;
    #pragma omp task depend(out: a[0]) firstprivate(a, m, nx, up, down, comm, w)
    {
        MPI_Request r[4];
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[0]);
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        __atomic_store_n(&arrived, 1, __ATOMIC_RELEASE);
    }
    for (long i = 2; i <= m - 1; i += 4) {
        long last = i + 3 < m - 1 ? i + 3 : m - 1;
        #pragma omp task firstprivate(i, last)
        stencil_rows(i, last);
    }
    #pragma omp task firstprivate(m)
    {
        while (!__atomic_load_n(&arrived, __ATOMIC_ACQUIRE)) {
            #pragma omp taskyield
        }
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
"""), B, "edge tasks wait on a flag with taskyield, depend only decorating the exchange task",
    reason="not by watching a flag"))

# helper-30 (2026-12-03): marks not made as soon as each copy is made.
GAMING += [
    attempt("method", "pready_iteration", _noted("""    #pragma omp parallel num_threads(parts)
    copy_partition(omp_get_thread_num());
    /* second fork/join: the marks only after every partition was copied */
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        for (int s = 0; s < hl_nsend; s++) MPI_Pready(t, req[send_idx[s]]);
    }
"""), D, "copies in one parallel region, marks in a second", reason="parallel regions: one region"),
    attempt("method", "pready_iteration", _noted("""    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        #pragma omp barrier
        #pragma omp critical(hl_marks)
        for (int s = 0; s < hl_nsend; s++) MPI_Pready(t, req[send_idx[s]]);
    }
"""), D, "a barrier between copy and mark, the marks inside a critical section", reason="as soon as it has copied it"),
]

# helperE (2026-12-03): a fresh attacker's answers that kept their points
GAMING += [
    attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", r"""
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    /* SERIALIZED: every MPI call of the exchange inside one critical section (one thread in
       MPI at a time), completion by polling MPI_Testall in the critical section */
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long first = 1 + t * nx / T, count = (t + 1) * nx / T - t * nx / T;
    MPI_Request req[4];
    int done = 0;
#pragma omp critical(hl_one_at_a_time)
    {
        MPI_Irecv(&a[first], (int)count, MPI_DOUBLE, up, 1, mine, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + first], (int)count, MPI_DOUBLE, down, 2, mine, &req[1]);
        MPI_Isend(&a[m * w + first], (int)count, MPI_DOUBLE, down, 1, mine, &req[2]);
        MPI_Isend(&a[w + first], (int)count, MPI_DOUBLE, up, 2, mine, &req[3]);
    }
    while (!done) {
#pragma omp critical(hl_one_at_a_time)
        MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);
    }
    /* ...then every thread at once a zero-value Sendrecv with both neighbours: calls "inside MPI
       together" that move nothing */
    double dummy = 0.0;
    MPI_Sendrecv(&dummy, 0, MPI_DOUBLE, down, 500, &dummy, 0, MPI_DOUBLE, up, 500, mine, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&dummy, 0, MPI_DOUBLE, up, 501, &dummy, 0, MPI_DOUBLE, down, 501, mine, MPI_STATUS_IGNORE);
}
"""), A, "fresh attacker: every data-moving call in one critical section (SERIALIZED), "
           "then every thread at once two MPI_Sendrecv of no values to look concurrent (its "
           "unpaused MPI_Testall loop can also fill the trace's stream, or outlast the part's "
           "time limit, on a loaded machine)",
        reason="the threads took turns | more MPI calls than its trace keeps | ran past its time limit"),
    attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", r"""
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* NO overlap: the interior tasks run only after the real exchange completed (their depend
       chain goes through it); a decoy pair of one-value messages is posted after the real
       exchange and completed by a task that depends on every interior task, so a
       posting..completion window covers the interior */
    long w = nx + 2;
    double *top = &a[0], *bottom = &a[(m + 1) * w];
    static double dout[2], din[2];
    static MPI_Request d[4];
    static char dec, marks[4096];
    static int poster;
#pragma omp task depend(out: top[0], bottom[0])
    {
""" + _at(8, EXCHANGE) + """    }
#pragma omp task depend(in: top[0], bottom[0]) depend(out: dec)
    {
        poster = omp_get_thread_num();
        MPI_Irecv(&din[0], 1, MPI_DOUBLE, up, 77, comm, &d[0]);
        MPI_Irecv(&din[1], 1, MPI_DOUBLE, down, 78, comm, &d[1]);
        MPI_Isend(&dout[0], 1, MPI_DOUBLE, down, 77, comm, &d[2]);
        MPI_Isend(&dout[1], 1, MPI_DOUBLE, up, 78, comm, &d[3]);
    }
    int K = 0;
    for (long first = 2; first < m && K < 4096; first += 1, K++) {
        long last = first;
#pragma omp task firstprivate(first, last) depend(in: dec) depend(out: marks[K])
        {
            if (omp_get_thread_num() == poster) usleep(300); /* let the other threads take rows */
            stencil_rows(first, last);
        }
    }
#pragma omp task depend(in: dec) depend(iterator(k = 0:K), in: marks[k])
    MPI_Waitall(4, d, MPI_STATUSES_IGNORE);
#pragma omp task depend(in: top[0])
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: bottom[0])
        stencil_rows(m, m);
    }
}
"""), B, "fresh attacker: the interior depends on the exchange (no overlap); two one-value "
           "decoy messages posted after it, completed once the interior is done, open a window "
           "round it", reason="every message of the exchange is one halo row | no usleep"),
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", r"""
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    MPI_Count per = nx / parts;
    int n = 0;
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL,
                       &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    /* every thread's partitions copied and marked ready in one ordered chain: thread t waits
       for thread t-1 (ordered loop) - the threads never hand MPI their partition at once */
    (void)a; (void)fresh; (void)m; (void)nx;
    MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
#pragma omp for ordered schedule(static, 1)
        for (int t = 0; t < parts; t++) {
#pragma omp ordered
            {
                copy_partition(t);
                for (int i = 0; i < nreq; i += 2) MPI_Pready(t, req[i]);
            }
        }
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "fresh attacker: copy_partition(t) and MPI_Pready(t) in an omp for ordered's ordered "
           "block: each thread its own partition, one thread after another",
        reason="not in turns"),
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", r"""
static int hl_is_send[4];

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    /* a row is w = nx + 2 doubles long, halo columns included */
    long w = nx + 2;
    MPI_Count per = nx / parts;
    int n = 0;
    if (down != MPI_PROC_NULL) {   /* receives first this time, down before up */
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 31, comm, MPI_INFO_NULL, &req[n]);
        hl_is_send[n++] = 0;
        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 32, comm, MPI_INFO_NULL, &req[n]);
        hl_is_send[n++] = 1;
    }
    if (up != MPI_PROC_NULL) {
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 32, comm, MPI_INFO_NULL, &req[n]);
        hl_is_send[n++] = 0;
        MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, up, 31, comm, MPI_INFO_NULL, &req[n]);
        hl_is_send[n++] = 1;
    }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    for (int i = 0; i < nreq; i++) MPI_Start(&req[i]);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        /* gaming: the threads in turns, one after the other, with barriers (no lock, no flag) */
        for (int turn = 0; turn < parts; turn++) {
            if (turn == t) {
                copy_partition(t);
                for (int i = nreq - 1; i >= 0; i--)
                    if (hl_is_send[i]) MPI_Pready(t, req[i]);
            }
            #pragma omp barrier
        }
    }
    for (int i = 0; i < nreq; i++) MPI_Wait(&req[i], MPI_STATUS_IGNORE);
    (void)a; (void)fresh; (void)m; (void)nx;
}
"""), D, "fresh attacker (2026-12-03): each thread copies and marks its partition in its own turn "
           "of a loop with a barrier after every turn (no lock, no flag, no ordered): 4/4 kept",
        reason="no barrier in a loop around the copies and marks"),
]

# a fresh attacker (attackB, 2026-12-03): 4/4 each before the fix
GAMING += [
    attempt("method", "exchange_slice", c_cell("MULTIPLE_C", "thread_halo", r"""
static volatile int turn_of = 0;
static int first_done[256];
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_dup(comm, &comms[t]);
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    /* turns in every iteration but the first: one overlap in the run is all the judge asks */
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
    int len = (int)(hi - lo + 1);
    int turns = first_done[t]++ > 0;   /* the first iteration together, then in turns */
    if (turns)
        while (__atomic_load_n(&turn_of, __ATOMIC_ACQUIRE) % T != t) { }
    MPI_Request rq[4];
    MPI_Irecv(&a[0 * w + lo], len, MPI_DOUBLE, up, 0, mine, &rq[0]);
    MPI_Irecv(&a[(m + 1) * w + lo], len, MPI_DOUBLE, down, 1, mine, &rq[1]);
    MPI_Isend(&a[1 * w + lo], len, MPI_DOUBLE, up, 1, mine, &rq[2]);
    MPI_Isend(&a[m * w + lo], len, MPI_DOUBLE, down, 0, mine, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    if (turns)
        __atomic_add_fetch(&turn_of, 1, __ATOMIC_RELEASE);
}
"""), A,
            "fresh attacker (2026-12-03): the threads exchange together in the first iteration and take turns on an atomic counter in every one after it; one overlap in the run was enough: 4/4 kept",
            reason="in most iterations (more than half)"),
    attempt("text", "task_iteration", c_cell("TASKS_C", "thread_halo", r"""
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* edges wait by a taskwait, not by depend: the regex for "a task after the wait" misses taskloop */
    long w = nx + 2;
    double *top = &a[0];
    for (long lo = 2; lo <= m - 1; lo += 16) {
        long hi = lo + 15 < m - 1 ? lo + 15 : m - 1;
        #pragma omp task firstprivate(lo, hi)
        stencil_rows(lo, hi);
    }
    #pragma omp task depend(out: top[0])
    {
        MPI_Request rq[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 0, comm, &rq[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &rq[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &rq[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    }
    #pragma omp taskwait
    long step = m > 1 ? m - 1 : 1;
    #pragma omp taskloop grainsize(1)
    for (long r = 1; r <= m; r += step)
        stencil_rows(r, r);
}
"""), B,
            "fresh attacker (2026-12-03): a taskwait, then rows 1 and m from a taskloop (the 'task after a wait' pattern matched task only): 4/4 kept",
            reason="no taskwait between the tasks"),
    attempt("text", "task_iteration", c_cell("TASKS_C", "thread_halo", r"""
static omp_lock_t gate;
static int gate_ready = 0;

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* the edges wait on a lock the exchange's task opens, not on depend */
    long w = nx + 2;
    double *top = &a[0];
    if (!gate_ready) {
        omp_init_lock(&gate);
        gate_ready = 1;
    }
    omp_set_lock(&gate);
    #pragma omp task depend(out: top[0])
    {
        MPI_Request rq[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 0, comm, &rq[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &rq[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &rq[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        omp_unset_lock(&gate);
    }
    for (long lo = 2; lo <= m - 1; lo += 16) {
        long hi = lo + 15 < m - 1 ? lo + 15 : m - 1;
        #pragma omp task firstprivate(lo, hi)
        stencil_rows(lo, hi);
    }
    #pragma omp task
    {
        omp_set_lock(&gate);
        omp_unset_lock(&gate);
        stencil_rows(1, 1);
        if (m > 1)
            stencil_rows(m, m);
    }
}
"""), B,
            "fresh attacker (2026-12-03): rows 1 and m wait on an omp_lock_t the exchange's task unsets, a depend clause for show: 4/4 kept",
            reason="no omp_set_lock"),
    attempt("method", "pready_iteration", _wrong.each_thread_marks("""        double t0 = omp_get_wtime();    /* in turns, by the clock: no lock, no flag, no barrier */
        while (omp_get_wtime() - t0 < 0.02 * t) { }
        copy_partition(t);
        for (int r = 0; r < nreq; r += 2)
            MPI_Pready(t, req[r]);
"""), D,
            "fresh attacker (2026-12-03): thread t spins 20 ms x t on omp_get_wtime before it copies and marks, so the threads take turns by the clock: 4/4 kept",
            reason="no omp_get_wtime"),
]


# A fresh attacker (attackG, 2026-12-04): a refused function reached by its address (a neighbour of
# one the cell may name) and called by the header's inline hl_sample or libc's bsearch; hl_sample
# now calls only the cell's own code (the section hl_cell_text) and bsearch/qsort are refused
_KIT_LOCKADDR = r'''
%%c TASKS_C thread_halo
/* kit-reader: the edge tasks wait on an omp_lock_t the exchange's task unsets (the lock gate the
 * kit refuses by name), beside decoy depend clauses; the lock is taken through omp_set_lock
 * reached by address (omp_unset_lock's less 0x20 in this libgomp) and called by the
 * header-inlined hl_sample, so the cell's text never names it. */
static omp_lock_t gate;
static int gate_ready = 0;
static double pad[2];

static void take(void) {
    unsigned long at = (unsigned long)&omp_unset_lock;
    at -= 0x20;
    hl_sample((hl_work_fn)at, (void *)&gate, 0, 1, pad);
}

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    if (!gate_ready) { omp_init_lock(&gate); gate_ready = 1; }
    take();                                     /* held until the exchange is done */
    #pragma omp task depend(out: pad[0]) firstprivate(a, m, nx, up, down, comm, w)
    {
        MPI_Request r[4];
        int k = 0;
        if (up != MPI_PROC_NULL) {
            MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &r[k++]);
            MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 0, comm, &r[k++]);
        }
        if (down != MPI_PROC_NULL) {
            MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 0, comm, &r[k++]);
            MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &r[k++]);
        }
        MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
        omp_unset_lock(&gate);
    }
    for (long i = 2; i <= m - 1; i++) {
        #pragma omp task firstprivate(i)
        stencil_rows(i, i);
    }
    #pragma omp task depend(in: pad[1]) firstprivate(m)
    {
        take();
        omp_unset_lock(&gate);
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
'''
GAMING += [
    attempt("forged", "task_iteration", _KIT_LOCKADDR, B,
            "attackG: the edge tasks wait on a lock taken through omp_set_lock reached by address (omp_unset_lock's less 0x20) and called by the header's inline hl_sample: 4/4 kept",
            reason="not the cell's own"),
    attempt("forged", "task_iteration", changed(_KIT_LOCKADDR, '    hl_sample((hl_work_fn)at, (void *)&gate, 0, 1, pad);', '    bsearch(&gate, pad, 1, sizeof pad[0], (int (*)(const void *, const void *))at);'), B,
            "attackG: the same lock gate, omp_set_lock called as bsearch's comparator: 4/4 kept",
            reason='calls through a function pointer | bsearch'),
    attempt("forged", "task_iteration", r'''
%%c TASKS_C thread_halo
/* kit-reader: the single thread posts, waits and computes the edge rows itself (12/d1), and the
 * run-sched ICV the kit stamps is put back to the kit's mark through omp_set_schedule, reached
 * by address (omp_get_schedule's, less 0x90 in this libgomp) and called by the header-inlined
 * hl_sample (its indirect call carries hybridlab.h's line, which the object check exempts). */
static omp_sched_t g_kind0;
static int g_chunk0;
static double padbuf[1];

static void restore_icv(void) {
    unsigned long at = (unsigned long)&omp_get_schedule;
    at -= 0x90;
    hl_work_fn setter = (hl_work_fn)at;
    hl_sample(setter, (void *)(long)g_kind0, (long)g_chunk0, 1, padbuf);
}

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    omp_get_schedule(&g_kind0, &g_chunk0);
    MPI_Request r[4];
    int k = 0;
    if (up != MPI_PROC_NULL) {
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &r[k++]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 0, comm, &r[k++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 0, comm, &r[k++]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &r[k++]);
    }
    for (long i = 2; i <= m - 1; i++) {
        #pragma omp task firstprivate(i)
        stencil_rows(i, i);
    }
    #pragma omp task depend(out: padbuf[0])
    { padbuf[0] += 0.0; }
    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
    restore_icv();
    stencil_rows(1, 1);
    if (m > 1) stencil_rows(m, m);
    restore_icv();
}
''', B,
            "attackG: the body posts, waits and computes the edge rows itself, then puts the task stamp back with omp_set_schedule reached by address through hl_sample: 4/4 kept",
            reason="not the cell's own"),
    attempt("forged", "pready_iteration", r'''
%%c PREADY_C thread_halo
/* kit-reader: each thread copies its partition and marks it ready, but the threads take turns on
 * an omp_lock_t taken through omp_set_lock reached by address (omp_unset_lock's less 0x20) and
 * called by the header-inlined hl_sample: no lock is named in the cell's text */
static int nsend = 0;
static omp_lock_t turn;
static int turn_ready = 0;
static double pad[1];

static void take(void) {
    unsigned long at = (unsigned long)&omp_unset_lock;
    at -= 0x20;
    hl_sample((hl_work_fn)at, (void *)&turn, 0, 1, pad);
}

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    MPI_Count per = (MPI_Count)(nx / parts);
    int n = 0;
    nsend = 0;
    if (up != MPI_PROC_NULL) { MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]); nsend++; }
    if (down != MPI_PROC_NULL) { MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]); nsend++; }
    if (up != MPI_PROC_NULL) MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    if (down != MPI_PROC_NULL) MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
    if (!turn_ready) { omp_init_lock(&turn); turn_ready = 1; }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        take();
        copy_partition(t);
        for (int r = 0; r < nsend; r++) MPI_Pready(t, req[r]);
        omp_unset_lock(&turn);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
''', D,
            "attackG: the threads take turns on a lock taken through omp_set_lock reached by address, called by hl_sample: 4/4 kept",
            reason="not the cell's own | no hl_sample (line"),
]

# a fresh attacker (attacker B, 2026-12-04): 4/4 each before the fix (helper-f4)
GAMING += [
    attempt("method", "exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) comms[t] = comm;
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    /* slice s goes with tag 2s (upward) / 2s+1 (downward); message (s, d) handled by thread (2s+d) % T */
    MPI_Request r[512];
    int k = 0;
    for (int s = 0; s < T; s++) {
        long lo = 1 + s * nx / T, hi = (s + 1) * nx / T;
        int n = (int)(hi - lo + 1);
        if ((2 * s) % T == t) { /* upward: row 1 to up, row m+1 from down */
            MPI_Isend(&a[w + lo], n, MPI_DOUBLE, up, 2 * s, mine, &r[k++]);
            MPI_Irecv(&a[(m + 1) * w + lo], n, MPI_DOUBLE, down, 2 * s, mine, &r[k++]);
        }
        if ((2 * s + 1) % T == t) { /* downward: row m to down, row 0 from up */
            MPI_Isend(&a[m * w + lo], n, MPI_DOUBLE, down, 2 * s + 1, mine, &r[k++]);
            MPI_Irecv(&a[lo], n, MPI_DOUBLE, up, 2 * s + 1, mine, &r[k++]);
        }
    }
    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
}
""", A, "attacker B's B12c3: message (slice s, direction d) handled by thread (2s + d) % T, so "
        "with T = 2 thread 0 moves every slice up and thread 1 every slice down: no thread its own "
        "slice, 4/4 kept", reason="moved different columns in different rows"),
    attempt("text", "pready_iteration", r"""
%%c PREADY_C thread_halo
static int turn;

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    char where[32];
    snprintf(where, sizeof where, "%p", (void *)&turn); /* the counter's address escapes */
    int n = 0, c = (int)(nx / parts);
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, c, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

static int whose(void) {
    int v;
#pragma omp atomic seq_cst read
    v = turn;
    return v;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    MPI_Startall(nreq, req);
    turn = 0;
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        while (whose() != t) {} /* wait for my turn */
        copy_partition(t);
        for (int k = 0; k < nreq; k += 2) MPI_Pready(t, req[k]);
#pragma omp atomic seq_cst write
        turn = t + 1;
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "attacker B's B12c4: threads in turns on a counter read with `omp atomic seq_cst read` "
        "(the memory-order clause before `read` slipped past the pattern): 4/4 kept",
        reason="no omp atomic seq_cst read"),
    attempt("method", "exchange_slice", r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) comms[t] = comm;
}

/* thread 0 moves almost every column; each other thread one column (and empty messages to
 * match thread 0's number of calls) */
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long most = (nx + T - 1) / T;        /* the judge's limit per call */
    long bulk = nx - (T - 1);            /* columns 1..bulk: thread 0 */
    int calls = (int)((bulk + most - 1) / most);
    MPI_Request r[4 * 64];
    int k = 0;
    for (int c = 0; c < calls; c++) {
        long lo, n;
        if (t == 0) {
            lo = 1 + c * most;
            n = (lo + most - 1 <= bulk) ? most : bulk - lo + 1;
        } else {
            lo = bulk + t;
            n = c == 0 ? 1 : 0;
        }
        int tag = t * 1000 + 2 * c;
        MPI_Irecv(&a[(m + 1) * w + lo], (int)n, MPI_DOUBLE, down, tag, mine, &r[k++]);
        MPI_Irecv(&a[lo], (int)n, MPI_DOUBLE, up, tag + 1, mine, &r[k++]);
        MPI_Isend(&a[w + lo], (int)n, MPI_DOUBLE, up, tag, mine, &r[k++]);
        MPI_Isend(&a[m * w + lo], (int)n, MPI_DOUBLE, down, tag + 1, mine, &r[k++]);
    }
    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
}
""", A, "attacker B's B12c6: thread 0 moves all but one column per other thread, in calls no longer "
        "than a slice, the others one column and empty messages to match the call counts",
        reason="columns: each of the"),
]


# helper-f6 (2026-12-04): the holes attacker B left open after helper-f4's round
GAMING += [
    attempt("method", "task_iteration", r"""
%%c TASKS_C thread_halo
static MPI_Request reqs[4];

/* the exchange split in a posting task and a waiting task; the posting task goes on to compute
 * the whole interior itself (no interior tasks), while the waiting task, released when it ends,
 * holds whichever thread takes it */
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    char halo, posted;
#pragma omp task depend(out: posted)
    {
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 0, comm, &reqs[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &reqs[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &reqs[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &reqs[3]);
        if (m > 2) stencil_rows(2, m - 1);
    }
#pragma omp task depend(in: posted) depend(out: halo)
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
#pragma omp task depend(in: halo)
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: halo)
        stencil_rows(m, m);
    }
}
""", B, "the exchange split in a posting task and a waiting task, the posting task computing the "
        "whole interior itself after posting (lab 04's overlap by hand in a task): kept 4/4 "
        "whenever the waiting task ran on another thread", reason="only the threads that posted "
        "and waited for the requests"),
    attempt("text", "pready_iteration", r"""
%%c PREADY_C thread_halo
static int turn;

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    char where[32];
    snprintf(where, sizeof where, "%p", (void *)&turn); /* the counter's address escapes */
    int n = 0, c = (int)(nx / parts);
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, c, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

static int whose(void) { return turn; }

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    MPI_Startall(nreq, req);
    turn = 0;
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        while (whose() != t) fflush(stdout); /* wait for my turn */
        copy_partition(t);
        for (int k = 0; k < nreq; k += 2) MPI_Pready(t, req[k]);
        fflush(stdout);
        turn = t + 1;
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "attacker B's B12c2: threads in turns on a plain static int, `while (whose() != t) "
        "fflush(stdout);` (no volatile, atomic, lock or clock for the text checks): 4/4 kept "
        "(in turns the kit's meeting waits its 3 s out: at load 9 the time limit came first)",
        reason="a data race in the cell | ran past its time limit"),
    attempt("text", "pready_iteration", r"""
%%c PREADY_C thread_halo
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int n = 0, c = (int)(nx / parts);
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, c, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

static int peek(const int *p) { return *p; }

/* turns on a local the region shares, reached through a pointer, spun on with a goto loop */
void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    int turn = 0;
    int *where = &turn;
    char out[8];
    snprintf(out, sizeof out, "%p", (void *)where);
    MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
    again:
        if (peek(where) != t) {
            fflush(stdout);
            goto again;
        }
        copy_partition(t);
        for (int k = 0; k < nreq; k += 2) MPI_Pready(t, req[k]);
        fflush(stdout);
        *where = t + 1;
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "turns on a local the region shares, through a pointer and a helper, in a goto loop",
        reason="a data race in the cell"),
    attempt("hidden", "pready_iteration", r"""
%%c PREADY_C thread_halo
static int turn;
#if defined(__clang__)
#define WAIT_TURN(t) (void)0
#else
#define WAIT_TURN(t) while (whose() != t) fflush(stdout)
#endif

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    char where[32];
    snprintf(where, sizeof where, "%p", (void *)&turn); /* the counter's address escapes */
    int n = 0, c = (int)(nx / parts);
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, c, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

static int whose(void) { return turn; }

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    MPI_Startall(nreq, req);
    turn = 0;
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        WAIT_TURN(t);
        copy_partition(t);
        for (int k = 0; k < nreq; k += 2) MPI_Pready(t, req[k]);
        fflush(stdout);
        turn = t + 1;
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "B12c2's turns for gcc only (#if defined(__clang__)), so that the race check's clang "
        "build takes no turns", reason="no __clang__"),
]


# a fresh attacker (attacker G, 2026-12-04; helper f16 closed them): (d) turns made with team
# barriers the text check did not see, (b) lab 04's overlap by hand in the exchange's task
# beside a token task on another thread
GAMING += [
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", r"""
/* turns: thread t waits t team barriers (in a helper), copies and marks, then waits the rest */
static int is_send[4];

static void hand_over(void) {
    #pragma omp barrier
}

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int per = (int)(nx / parts), n = 0;
    if (up != MPI_PROC_NULL) {
        is_send[n] = 1;
        MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
        is_send[n] = 0;
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        is_send[n] = 1;
        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        is_send[n] = 0;
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    if (nreq > 0) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        for (int k = 0; k < t; k++) hand_over();
        copy_partition(t);
        for (int k = 0; k < nreq; k++)
            if (is_send[k]) MPI_Pready(t, req[k]);
        for (int k = t + 1; k < parts; k++) hand_over();
    }
    if (nreq > 0) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "G12a1: turns with team barriers in a helper defined above the first copy (thread t "
        "passes t of them before its copy and marks, the rest after)",
        reason="no barrier in a loop"),
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", r"""
/* turns without a loop or helper: a goto round a barrier written before the copies */
static int is_send[4];

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int per = (int)(nx / parts), n = 0;
    if (up != MPI_PROC_NULL) {
        is_send[n] = 1;
        MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
        is_send[n] = 0;
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        is_send[n] = 1;
        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        is_send[n] = 0;
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    if (nreq > 0) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num(), k = 0;
    turn:;
        #pragma omp barrier
        if (k == t) {
            copy_partition(t);
            for (int q = 0; q < nreq; q++)
                if (is_send[q]) MPI_Pready(t, req[q]);
        }
        if (++k < parts) goto turn;
    }
    if (nreq > 0) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "G12a2: turns with an inline barrier in a goto loop (no loop statement)",
        reason="no barrier in a loop"),
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", r"""
/* turns without a loop statement: a helper holding the barrier that calls itself */
static int is_send[4];

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int per = (int)(nx / parts), n = 0;
    if (up != MPI_PROC_NULL) {
        is_send[n] = 1;
        MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
        is_send[n] = 0;
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        is_send[n] = 1;
        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        is_send[n] = 0;
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

static void turn(int k, int t, int parts, int nreq, MPI_Request req[]) {
    #pragma omp barrier
    if (k == t) {
        copy_partition(t);
        for (int q = 0; q < nreq; q++)
            if (is_send[q]) MPI_Pready(t, req[q]);
    }
    if (k + 1 < parts) turn(k + 1, t, parts, nreq, req);
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    if (nreq > 0) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    turn(0, omp_get_thread_num(), parts, nreq, req);
    if (nreq > 0) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "G12a2's turns as a helper that calls itself round the barrier (recursion, no loop)",
        reason="no barrier in a function that calls itself"),
    attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", r"""
/* lab 04's overlap by hand inside the exchange's task (post, compute the interior, wait),
   plus a token task of three interior rows that another thread runs meanwhile */
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    double *top = a, *bot = a + (m + 1) * w;
    long split = m - 1 > 4 ? 4 : m - 1;
    #pragma omp task depend(out: top[0], bot[0]) firstprivate(a, m, nx, up, down, comm, w, split)
    {
        MPI_Request r[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 0, comm, &r[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &r[3]);
        if (m - 1 > split) stencil_rows(split + 1, m - 1);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
    if (split >= 2) {
        #pragma omp task firstprivate(split)
        stencil_rows(2, split);
    }
    if (m == 1) {
        #pragma omp task depend(in: top[0], bot[0])
        stencil_rows(1, 1);
    } else {
        #pragma omp task depend(in: top[0])
        stencil_rows(1, 1);
        #pragma omp task depend(in: bot[0]) firstprivate(m)
        stencil_rows(m, m);
    }
}
"""), B, "G12a3: the exchange's task posts, computes the interior, waits (overlap by hand); a "
        "token task of three rows on another thread meanwhile",
        reason="the thread that posted and completed the exchange computed"),
    attempt("method", "task_iteration", c_cell("TASKS_C", "thread_halo", r"""
/* lab 04's overlap by hand inside the exchange's task (post, compute the interior, wait),
   plus a token task of ONE interior row (row 2) that another thread runs meanwhile */
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    double *top = a, *bot = a + (m + 1) * w;
    long split = m - 1 > 2 ? 2 : m - 1;
    #pragma omp task depend(out: top[0], bot[0]) firstprivate(a, m, nx, up, down, comm, w, split)
    {
        MPI_Request r[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 0, comm, &r[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &r[3]);
        if (m - 1 > split) stencil_rows(split + 1, m - 1);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
    if (split >= 2) {
        #pragma omp task firstprivate(split)
        stencil_rows(2, split);
    }
    if (m == 1) {
        #pragma omp task depend(in: top[0], bot[0])
        stencil_rows(1, 1);
    } else {
        #pragma omp task depend(in: top[0])
        stencil_rows(1, 1);
        #pragma omp task depend(in: bot[0]) firstprivate(m)
        stencil_rows(m, m);
    }
}
"""), B, "G12a4: G12a3 with a token task of ONE row",
        reason="the thread that posted and completed the exchange computed"),
]

# a fresh attacker's G12a5 (4/4 twice after the loop rule, 2026-12-05): turns with no loop at all,
# `if (t > k) hand_over();` lines before and after the copy and mark (hand_over: a helper holding
# a team barrier), so thread t copies after t barriers; the kit now counts each thread's team
# barriers (thread_halo.c wraps GOMP_barrier) and refuses copies made after different counts
GAMING.append(attempt("method", "pready_iteration", """%%c PREADY_C thread_halo
/* turns, unrolled without loops: thread t passes t team barriers (a helper) before its copy
   and marks and 7 - t after (up to 8 threads) */
static int is_send[4];

static void hand_over(void) {
    #pragma omp barrier
}

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int per = (int)(nx / parts), n = 0;
    if (up != MPI_PROC_NULL) {
        is_send[n] = 1;
        MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
        is_send[n] = 0;
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        is_send[n] = 1;
        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        is_send[n] = 0;
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    if (nreq > 0) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        if (t > 0) hand_over();
        if (t > 1) hand_over();
        if (t > 2) hand_over();
        if (t > 3) hand_over();
        if (t > 4) hand_over();
        if (t > 5) hand_over();
        if (t > 6) hand_over();
        copy_partition(t);
        if (nreq > 0 && is_send[0]) MPI_Pready(t, req[0]);
        if (nreq > 1 && is_send[1]) MPI_Pready(t, req[1]);
        if (nreq > 2 && is_send[2]) MPI_Pready(t, req[2]);
        if (nreq > 3 && is_send[3]) MPI_Pready(t, req[3]);
        if (t < 7) hand_over();
        if (t < 6) hand_over();
        if (t < 5) hand_over();
        if (t < 4) hand_over();
        if (t < 3) hand_over();
        if (t < 2) hand_over();
        if (t < 1) hand_over();
    }
    if (nreq > 0) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "G12a5: turns by conditional calls of a barrier helper, no loop",
    reason="after different numbers of team barriers"))

# a fresh attacker (attackJ, 2026-12-05): a target region, a nested team, worksharing barriers
GAMING += [
    attempt('untraced', 'task_iteration', r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    int token = 0;
    #pragma omp task depend(out: token) shared(token)
    token = 1;
    #pragma omp target
    {
        MPI_Request r[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[1]);
        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[3]);
        if (m > 2) stencil_rows(2, m - 1);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
    #pragma omp taskwait
}
""", B, "J12tgt: lab 04's overlap by hand inside `omp target` (host fallback: fresh ICVs, the task stamps read -1), a token depend task for the text",
            reason='no omp target'),
    attempt('text', 'task_iteration', r"""
%%c TASKS_C thread_halo
#define HIDE _Pragma("omp target")
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    int token = 0;
    #pragma omp task depend(out: token) shared(token)
    token = 1;
    HIDE
    {
        MPI_Request r[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[1]);
        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[2]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[3]);
        if (m > 2) stencil_rows(2, m - 1);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
    #pragma omp taskwait
}
""", B, "J12tgt's target region named by a macro expanding to _Pragma (the preprocessed unit shows it)",
            reason='no omp target'),
    attempt('forged', 'exchange_slice', r"""
%%c MULTIPLE_C thread_halo
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) comms[t] = comm;
    omp_set_max_active_levels(4);
}

/* only the outer master works: it opens a nested team, whose thread numbers 0..T-1 the tracer
   takes for the outer threads; outer threads 1..T-1 do nothing */
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    int T = omp_get_num_threads();
    if (omp_get_thread_num() != 0) return;
    long w = nx + 2;
    #pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        long lo = 1 + t * nx / T, hi = (t + 1) * nx / T;
        int n = (int)(hi - lo + 1);
        MPI_Request r[4];
        MPI_Irecv(&a[0 * w + lo], n, MPI_DOUBLE, up, 10 + 2 * t, mine, &r[0]);
        MPI_Irecv(&a[(m + 1) * w + lo], n, MPI_DOUBLE, down, 11 + 2 * t, mine, &r[1]);
        MPI_Isend(&a[1 * w + lo], n, MPI_DOUBLE, up, 11 + 2 * t, mine, &r[2]);
        MPI_Isend(&a[m * w + lo], n, MPI_DOUBLE, down, 10 + 2 * t, mine, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
}
""", A, "J12tgt: outer thread 0 alone opens a nested team whose thread k sends slice k (the tracer's thread number is the nested team's)",
            reason='made inside a parallel region opened in exchange_slice'),
    attempt('method', 'pready_iteration', r"""
%%c PREADY_C thread_halo
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int n = 0;
    MPI_Count c = nx / parts;
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[1 * w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[0 * w + 1], parts, c, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

/* threads take turns: one copies and marks per turn, the team waits at a worksharing loop's
   implicit barrier (GOMP_loop_end, not GOMP_barrier) between turns */
void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    if (nreq) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        for (int k = 0; k < parts; k++) {
            if (k == t) {
                copy_partition(t);
                for (int q = 0; q < nreq; q += 2) MPI_Pready(t, req[q]);
            }
            #pragma omp for schedule(dynamic)
            for (int j = 0; j < parts; j++) { }
        }
    }
    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, 'J12tgt: turns, one thread a turn, separated by an empty dynamic omp for (GOMP_loop_end, not GOMP_barrier)',
            reason='no barrier in a loop around the copies and marks'),
    attempt('method', 'pready_iteration', r"""
%%c PREADY_C thread_halo
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int n = 0;
    MPI_Count c = nx / parts;
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[1 * w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[0 * w + 1], parts, c, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

/* every thread copies, the team waits for all the copies at a dynamic worksharing loop's
   barrier (GOMP_loop_end, not counted), then every thread marks: no thread marks as soon as it
   has copied */
void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    if (nreq) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        #pragma omp for schedule(dynamic)
        for (int j = 0; j < parts; j++) { }
        for (int q = 0; q < nreq; q += 2) MPI_Pready(t, req[q]);
    }
    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, 'J12b: held marks: every thread copies, an empty dynamic omp for holds the team, then every thread marks',
            reason='as soon as it has copied it, waiting for no other thread'),
    attempt('method', 'pready_iteration', r"""
%%c PREADY_C thread_halo
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int n = 0;
    MPI_Count c = nx / parts;
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[1 * w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[0 * w + 1], parts, c, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

/* turns without a loop statement: conditional calls of a helper whose empty dynamic omp for
   holds the team at GOMP_loop_end's implicit barrier */
static void hand_over(void) {
    #pragma omp for schedule(dynamic)
    for (int j = 0; j < 64; j++) { }
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    if (nreq) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        if (t > 0) hand_over();
        if (t > 1) hand_over();
        if (t > 2) hand_over();
        if (t > 3) hand_over();
        copy_partition(t);
        for (int q = 0; q < nreq; q += 2) MPI_Pready(t, req[q]);
        if (t < 3) hand_over();
        if (t < 2) hand_over();
        if (t < 1) hand_over();
    }
    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, 'turns by conditional calls of a helper holding an empty dynamic omp for (its implicit barrier, GOMP_loop_end), no loop statement',
            reason='after different numbers of team barriers'),
    attempt('method', 'pready_iteration', r"""
%%c PREADY_C thread_halo
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int n = 0;
    MPI_Count c = nx / parts;
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[1 * w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[0 * w + 1], parts, c, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

/* turns without a loop statement: conditional calls of a helper whose empty omp sections
   holds the team at GOMP_sections_end's implicit barrier */
static void hand_over(void) {
    #pragma omp sections
    {
        #pragma omp section
        { }
        #pragma omp section
        { }
    }
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    if (nreq) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        if (t > 0) hand_over();
        if (t > 1) hand_over();
        if (t > 2) hand_over();
        if (t > 3) hand_over();
        copy_partition(t);
        for (int q = 0; q < nreq; q += 2) MPI_Pready(t, req[q]);
        if (t < 3) hand_over();
        if (t < 2) hand_over();
        if (t < 1) hand_over();
    }
    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, 'turns by conditional calls of a helper holding an empty omp sections (its implicit barrier, GOMP_sections_end), no loop statement',
            reason='after different numbers of team barriers'),
    attempt("method", "task_iteration", r"""
%%c TASKS_C thread_halo
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* the interior first: the exchange's task depends on the interior's (a[0]) */
    long w = nx + 2;
    double *top = &a[0], *bottom = &a[(m + 1) * w];
    for (long first = 2; first < m; first += 8) {
        long last = first + 7 < m - 1 ? first + 7 : m - 1;
#pragma omp task firstprivate(first, last) depend(inout: a[0])
        stencil_rows(first, last);
    }
#pragma omp task depend(out: top[0], bottom[0]) depend(in: a[0])
    {
        MPI_Request req[4];
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &req[1]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[2]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
#pragma omp task depend(in: top[0])
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: bottom[0])
        stencil_rows(m, m);
    }
}
""", B, "the exchange's task depends on the interior's (depend on a[0]): the kit's hold of the interior rows cannot let it start first",
            reason="were computed before the requests were posted"),
    attempt("method", "pready_iteration", r"""
%%c PREADY_C thread_halo
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    int n = 0;
    MPI_Count c = nx / parts;
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[1 * w + 1], parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[0 * w + 1], parts, c, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, c, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

/* held marks through a helper: every thread copies, waits for the team at the end of an empty
   dynamic omp for in a function defined above, then marks */
static void hold(int parts) {
    #pragma omp for schedule(dynamic)
    for (int j = 0; j < parts; j++) { }
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    if (nreq) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        hold(parts);
        for (int q = 0; q < nreq; q += 2) MPI_Pready(t, req[q]);
    }
    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "J12b's held marks through a helper defined above: an empty dynamic omp for between each thread's copy and its mark",
            reason="no barrier between the copies and the marks"),
]

# a fresh attacker's (M12b_nanspin, M12d_emptybar, M12d_emptyspin; 4/4 each, 2026-12-05): edge
# tasks on an unrelated depend item, waiting for the halo by a loop over the row itself; and an
# empty MPI_Pready_list first (it let the kit's meeting of the marks pass), then the real marks
# in turns (a barrier in a helper called through a pointer, or a busy delay)
GAMING += [
    attempt("method", "task_iteration", '%%c TASKS_C thread_halo\n#include <math.h>\n#include <stdio.h>\nstatic int unrelated;\nstatic void exchange(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    MPI_Request r[4];\n    int n = 0;\n    if (up != MPI_PROC_NULL) {\n        MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[n++]);\n        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[n++]);\n    }\n    if (down != MPI_PROC_NULL) {\n        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[n++]);\n        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[n++]);\n    }\n    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);\n}\nstatic void wait_row(const double *row, long nx) {\n    for (;;) {\n        int bad = 0;\n        for (long j = 1; j <= nx; j++) bad |= isnan(row[j]);\n        if (!bad) return;\n        fflush(stdout);\n    }\n}\nvoid task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n#pragma omp task firstprivate(a, m, nx, up, down, comm)\n    exchange(a, m, nx, up, down, comm);\n    for (long i = 2; i <= m - 1; i += 8) {\n        long last = i + 7 < m - 1 ? i + 7 : m - 1;\n#pragma omp task firstprivate(i, last)\n        stencil_rows(i, last);\n    }\n#pragma omp task depend(in: unrelated)\n    { wait_row(&a[0], nx); stencil_rows(1, 1); }\n    if (m > 1) {\n#pragma omp task depend(in: unrelated)\n        { wait_row(&a[(m + 1) * w], nx); stencil_rows(m, m); }\n    }\n}\n', B,
            "fresh attacker (M12b_nanspin): edge tasks depend on an unrelated variable and spin "
            "on the halo row", reason="before its halo row's message arrived | waits for the exchange's task by depend"),
    attempt("method", "pready_iteration", '%%c PREADY_C thread_halo\nstatic void team_wait(void) {\n#pragma omp barrier\n}\nstatic void (*volatile_free_ptr)(void) = team_wait;\nint partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,\n                     MPI_Request req[4]) {\n    long w = nx + 2, per = nx / parts;\n    int n = 0;\n    if (up != MPI_PROC_NULL) {\n        MPI_Psend_init(&a[1 * w + 1], parts, per, MPI_DOUBLE, up, 7, comm, MPI_INFO_NULL, &req[n++]);\n        MPI_Precv_init(&a[0 * w + 1], parts, per, MPI_DOUBLE, up, 8, comm, MPI_INFO_NULL, &req[n++]);\n    }\n    if (down != MPI_PROC_NULL) {\n        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 8, comm, MPI_INFO_NULL, &req[n++]);\n        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 7, comm, MPI_INFO_NULL, &req[n++]);\n    }\n    return n;\n}\nstatic void mark_all(int t, int nreq, MPI_Request req[]) {\n    for (int r = 0; r < nreq; r += 2) MPI_Pready(t, req[r]);\n}\nvoid pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,\n                      MPI_Request req[]) {\n    if (nreq) MPI_Startall(nreq, req);\n#pragma omp parallel num_threads(parts)\n    {\n        int t = omp_get_thread_num();\n        void (*w)(void) = volatile_free_ptr;\n        copy_partition(t);\n        if (nreq) MPI_Pready_list(0, &t, req[0]);\n        if (t == 0) mark_all(t, nreq, req);\n        if (parts > 1) w();\n        if (t == 1) mark_all(t, nreq, req);\n        if (parts > 2) w();\n        if (t == 2) mark_all(t, nreq, req);\n        if (parts > 3) w();\n        if (t == 3) mark_all(t, nreq, req);\n        if (parts > 4) w();\n        if (t == 4) mark_all(t, nreq, req);\n        if (parts > 5) w();\n        if (t == 5) mark_all(t, nreq, req);\n        if (parts > 6) w();\n        if (t == 6) mark_all(t, nreq, req);\n        if (parts > 7) w();\n        if (t == 7) mark_all(t, nreq, req);\n        if (t >= 8) mark_all(t, nreq, req);\n    }\n    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);\n}\n', D,
            "fresh attacker (M12d_emptybar): an empty mark first, then marks in turns by barriers",
            reason="a mark of no partition is no mark"),
    attempt("method", "pready_iteration", '%%c PREADY_C thread_halo\nint partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,\n                     MPI_Request req[4]) {\n    long w = nx + 2, per = nx / parts;\n    int n = 0;\n    if (up != MPI_PROC_NULL) {\n        MPI_Psend_init(&a[1 * w + 1], parts, per, MPI_DOUBLE, up, 7, comm, MPI_INFO_NULL, &req[n++]);\n        MPI_Precv_init(&a[0 * w + 1], parts, per, MPI_DOUBLE, up, 8, comm, MPI_INFO_NULL, &req[n++]);\n    }\n    if (down != MPI_PROC_NULL) {\n        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 8, comm, MPI_INFO_NULL, &req[n++]);\n        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 7, comm, MPI_INFO_NULL, &req[n++]);\n    }\n    return n;\n}\n\nstatic double sink;\nvoid pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,\n                      MPI_Request req[]) {\n    if (nreq) MPI_Startall(nreq, req);\n#pragma omp parallel num_threads(parts)\n    {\n        int t = omp_get_thread_num();\n        copy_partition(t);\n        if (nreq) MPI_Pready_list(0, &t, req[0]);\n        double s = 0.0;\n        for (long k = 0; k < 20000000L * t; k++) s += 1e-9 * (double)k;\n        if (s < 0) sink = s;\n        for (int r = 0; r < nreq; r += 2) MPI_Pready(t, req[r]);\n    }\n    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);\n}\n', D,
            "fresh attacker (M12d_emptyspin): an empty mark first, then marks after a busy delay",
            reason="a mark of no partition is no mark"),
]

# a fresh attacker's L12h5 (4/4 kept, 2026-12-05, left open then): edge tasks on a variable the
# exchange never touches, waiting by a compute spin long enough for the halo; the task wrapper's
# times show them begin before the halo arrived
GAMING += [
    attempt("method", "task_iteration", '%%c TASKS_C thread_halo\nstatic char shown_dep, other_dep;\nstatic double spin(long k) {\n    double x = 1.0;\n    for (long i = 0; i < k; i++) x = x * 1.0000001 + 1e-9;\n    return x;\n}\nvoid task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n#pragma omp task depend(out: shown_dep) firstprivate(a, m, nx, w, up, down, comm)\n    {\n        MPI_Request r[4];\n        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 0, comm, &r[0]);\n        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);\n        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);\n        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 0, comm, &r[3]);\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n    for (long i = 2; i <= m - 1; i += 8) {\n        long last = i + 7 < m - 1 ? i + 7 : m - 1;\n#pragma omp task firstprivate(i, last)\n        stencil_rows(i, last);\n    }\n    /* the edges depend on nothing the exchange writes: they just wait long enough */\n#pragma omp task depend(in: other_dep)\n    { if (spin(60000000L) > 0) stencil_rows(1, 1); }\n    if (m > 1) {\n#pragma omp task depend(in: other_dep)\n        { if (spin(60000000L) > 0) stencil_rows(m, m); }\n    }\n}\n', B,
            "fresh attacker (L12h5): edge tasks on an unrelated depend item and a compute spin",
            reason="before its halo row's message arrived | waits for the exchange's task by depend"),
]

# a fresh attacker's (p12bspin, p12bshow; 4/4 kept twice, 2026-12-05): edge rows computed in
# taskloop tasks (no depend clause) spinning on the halo row, one linked depend pair for show
GAMING += [
    attempt("method", "task_iteration", "%%c TASKS_C thread_halo\n/* row 1 waits by depend (the linked pair the judge reads); row m is computed in a taskloop\n   task that waits for its halo by spinning on the row's NaN */\nstatic __attribute__((noipa)) int halo_here(const double *row) { return row[1] == row[1]; }\nvoid task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    double *top = &a[0];\n    #pragma omp task depend(out: top[0]) firstprivate(a, m, nx, up, down, comm, w)\n    {\n        MPI_Request r[4];\n        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[0]);\n        MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[1]);\n        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);\n        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[3]);\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n    for (long i = 2; i <= m - 1; i++) {\n        #pragma omp task firstprivate(i)\n        stencil_rows(i, i);\n    }\n    #pragma omp task depend(in: top[0])\n    stencil_rows(1, 1);\n    if (m > 1) {\n        #pragma omp taskloop grainsize(1)\n        for (long k = m; k <= m; k++) {\n            if (down != MPI_PROC_NULL)\n                while (!halo_here(&a[(m + 1) * w])) { }\n            stencil_rows(k, k);\n        }\n    }\n}\n", B,
            "fresh attacker (p12bspin): row m in a taskloop task spinning on its halo row",
            reason="computed in no task of its own"),
    attempt("method", "task_iteration", '%%c TASKS_C thread_halo\n/* the depend(in) task the judge links to the exchange computes interior row 2 (for show);\n   BOTH edge rows are computed in taskloop tasks that wait for their halos by spinning */\nstatic __attribute__((noipa)) int ready(const double *row) { return row[1] == row[1]; }\nvoid task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    double *top = &a[0];\n    #pragma omp task depend(out: top[0]) firstprivate(a, m, nx, up, down, comm, w)\n    {\n        MPI_Request r[4];\n        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[0]);\n        MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[1]);\n        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);\n        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[3]);\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n    if (m > 2) {\n        for (long i = 3; i <= m - 1; i++) {\n            #pragma omp task firstprivate(i)\n            stencil_rows(i, i);\n        }\n        #pragma omp task depend(in: top[0])\n        stencil_rows(2, 2);\n        #pragma omp taskloop grainsize(1)\n        for (long k = 0; k < 2; k++) {\n            long row = k == 0 ? 1 : m;\n            if (k == 0 && up != MPI_PROC_NULL)\n                while (!ready(&a[0])) { }\n            if (k == 1 && down != MPI_PROC_NULL)\n                while (!ready(&a[(m + 1) * w])) { }\n            stencil_rows(row, row);\n        }\n    } else {\n        #pragma omp task depend(in: top[0])\n        stencil_rows(1, m);\n    }\n}\n', B,
            "fresh attacker (p12bshow): both edges in spinning taskloop tasks, depend for show",
            reason="computed in no task of its own | waits by its depend clauses for the task that completed"),
]

# fresh attacker Q (2026-12-05), 4/4 kept twice each before: GNU line markers (`# N "file" flags`)
# in the cell; a cell may hold no line directive now (unit_checks.line_directives)
GAMING += [
    attempt('text', 'task_iteration', '%%c TASKS_C thread_halo\nvoid task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    int link = 0;\n    if (m < 0) { /* never runs: only shows a depend link in the text */\n        #pragma omp task depend(out: link)\n        MPI_Comm_size(comm, &link);\n        #pragma omp task depend(in: link)\n        stencil_rows(1, 1);\n    }\n    #pragma omp task\n    {\n        MPI_Request r[4];\n        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &r[0]);\n        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &r[1]);\n        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[2]);\n        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[3]);\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n    for (long i = 2; i <= m - 1; i++) {\n        #pragma omp task firstprivate(i)\n        stencil_rows(i, i);\n    }\n# 24 "cell" 1 3\n    #pragma omp taskwait\n# 26 "cell" 2\n    #pragma omp task\n    stencil_rows(1, 1);\n    if (m > 1) {\n        #pragma omp task\n        stencil_rows(m, m);\n    }\n}\n', B,
            "fresh attacker (Q12b_hidewait): a taskwait between line markers of include depth 1, out of every text check's sight",
            reason="holds a line directive"),
    attempt('text', 'pready_iteration', '%%c PREADY_C thread_halo\nstatic int send_slot[4];\n\nint partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,\n                     MPI_Request req[4]) {\n    long w = nx + 2;\n    int n = 0;\n    int each = (int)(nx / parts);\n    if (up != MPI_PROC_NULL) {\n        send_slot[n] = 1;\n        MPI_Psend_init(&a[w + 1], parts, each, MPI_DOUBLE, up, 6, comm, MPI_INFO_NULL, &req[n++]);\n        send_slot[n] = 0;\n        MPI_Precv_init(&a[1], parts, each, MPI_DOUBLE, up, 5, comm, MPI_INFO_NULL, &req[n++]);\n    }\n    if (down != MPI_PROC_NULL) {\n        send_slot[n] = 1;\n        MPI_Psend_init(&a[m * w + 1], parts, each, MPI_DOUBLE, down, 5, comm, MPI_INFO_NULL, &req[n++]);\n        send_slot[n] = 0;\n        MPI_Precv_init(&a[(m + 1) * w + 1], parts, each, MPI_DOUBLE, down, 6, comm, MPI_INFO_NULL, &req[n++]);\n    }\n    return n;\n}\n\nvoid pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,\n                      MPI_Request req[]) {\n    (void)a; (void)fresh; (void)m; (void)nx;\n    MPI_Startall(nreq, req);\n    #pragma omp parallel num_threads(parts)\n    {\n        int t = omp_get_thread_num();\n        copy_partition(t);\n# 31 "cell" 1 3\n        #pragma omp parallel num_threads(1)\n        { int me; MPI_Comm_rank(MPI_COMM_WORLD, &me); }\n        for (int turn = 0; turn < parts; turn++) {\n            if (turn == t)\n                for (int k = 0; k < nreq; k++)\n                    if (send_slot[k]) MPI_Pready(t, req[k]);\n            #pragma omp barrier\n        }\n# 40 "cell" 2\n    }\n    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);\n}\n', D,
            'fresh attacker (Q12d_turns): a nested region and barriers hidden between line markers, threads marking in turns',
            reason="holds a line directive"),
]

# a fresh attacker's Q12b_anysrc (4/4 kept twice, 2026-12-05): the exchange's receives posted with
# MPI_ANY_SOURCE (tags 1 and 2 tell the sides apart) gave early_edges no halo arrival, and the
# edge tasks, without depend, spun on the NaN halo row; an any-source receive now feeds the row
# of the neighbour that sent this rank its tag (thread_comm.exercise._any_source_sides)
GAMING += [
    attempt("method", "task_iteration", '%%c TASKS_C thread_halo\n/* wait for a halo row by looking at it: NaN until its message has landed */\nstatic void until_arrived(const double *row, long nx) {\n    for (long j = 0; j < nx; j++)\n        while (row[j] != row[j]) (void)rand(); /* an opaque call: row[j] is read again */\n}\n\nvoid task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    int link = 0;\n    if (m < 0) { /* never runs: only shows a depend link in the text */\n        #pragma omp task depend(out: link)\n        MPI_Comm_size(comm, &link);\n        #pragma omp task depend(in: link)\n        stencil_rows(1, 1);\n    }\n    #pragma omp task\n    {\n        MPI_Request r[4];\n        int n = 0;\n        /* from any source: the tag says which side the row comes from */\n        if (up != MPI_PROC_NULL)\n            MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, 1, comm, &r[n++]);\n        if (down != MPI_PROC_NULL)\n            MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, MPI_ANY_SOURCE, 2, comm, &r[n++]);\n        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &r[n++]);\n        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &r[n++]);\n        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);\n    }\n    for (long i = 2; i <= m - 1; i++) {\n        #pragma omp task firstprivate(i)\n        stencil_rows(i, i);\n    }\n    #pragma omp task\n    {\n        if (up != MPI_PROC_NULL) until_arrived(&a[1], nx);\n        if (m == 1 && down != MPI_PROC_NULL) until_arrived(&a[2 * w + 1], nx);\n        stencil_rows(1, 1);\n    }\n    if (m > 1) {\n        #pragma omp task\n        {\n            if (down != MPI_PROC_NULL) until_arrived(&a[(m + 1) * w + 1], nx);\n            stencil_rows(m, m);\n        }\n    }\n}\n', B,
            "fresh attacker (Q12b_anysrc): receives from MPI_ANY_SOURCE, edge tasks without "
            "depend spinning on the NaN halo row", reason="before its halo row's message arrived"),
]

# a fresh attacker's T12b_flagspin2 (4/4 twice, 2026-12-05): task_iteration's own body spins on a
# plain counter the waiting task bumps after its MPI_Waitall, then creates the edge task, whose
# depend(in: halos) names a block-local `halos` shadowing the exchange's: the text was linked,
# the runtime linked nothing. The kit now records each task's depend addresses and the body's
# own time between its task creations (kernels_c/thread_halo.c; early_edges). And T12b_half
# (4/4 twice): the interior tasks depend on the exchange in every other iteration; an interior
# task held for the exchange by its depend addresses is refused in any iteration now
# (held_interior)
GAMING += [
    attempt("method", "task_iteration", "%%c TASKS_C thread_halo\n/* Gaming: the edge task's depend(in: halos) names a local `halos` that shadows the file-scope\n * one the exchange produces, so the text links them but the runtime does not; what really holds\n * the edge rows is task_iteration's own body spinning on a plain counter the waiting task bumps\n * after its MPI_Waitall (omp_in_parallel() as the loop's opaque, non-leaf call: no volatile,\n * no atomics, no clock), then\n * creating the edge task. One thread: the honest dependence. */\nstatic MPI_Request reqs[4];\nstatic char posted, halos;\nstatic long waited_iterations, made_iterations;\n\nvoid task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    int team = omp_get_num_threads();\n    long target = ++made_iterations;\n#pragma omp task depend(out: posted) firstprivate(a, m, w, nx, up, down, comm)\n    {\n        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 71, comm, &reqs[0]);\n        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 72, comm, &reqs[1]);\n        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 72, comm, &reqs[2]);\n        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 71, comm, &reqs[3]);\n    }\n    for (long lo = 2; lo <= m - 1; lo += 8) {\n        long hi = lo + 7 < m - 1 ? lo + 7 : m - 1;\n#pragma omp task firstprivate(lo, hi)\n        stencil_rows(lo, hi);\n    }\n#pragma omp task depend(inout: posted) depend(out: halos)\n    {\n        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);\n        waited_iterations++;\n    }\n    if (team > 1) {\n        while (waited_iterations < target) omp_in_parallel(); /* the body waits, not depend */\n        char halos = 0; /* not the exchange's: the depend below holds nothing */\n#pragma omp task depend(in: halos) firstprivate(m)\n        {\n            stencil_rows(1, 1);\n            if (m > 1) stencil_rows(m, m);\n        }\n    } else {\n#pragma omp task depend(in: halos) firstprivate(m)\n        {\n            stencil_rows(1, 1);\n            if (m > 1) stencil_rows(m, m);\n        }\n    }\n}", B,
            "fresh attacker (T12b_flagspin2): the body spins on a plain counter until the exchange "
            "is done, the edge task's depend names a shadowing local",
            reason="task_iteration's own body once it had spent | does not wait by its depend clauses"),
    attempt("method", "task_iteration", '%%c TASKS_C thread_halo\n/* Gaming (threshold probe): overlap in every other iteration; in the others the interior tasks\n * depend on the exchange too (held until the halos arrived), so nothing overlaps. */\nstatic char halos;\nstatic long iterations_made = 0;\n\nvoid task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n    long w = nx + 2;\n    int first = ++iterations_made % 2 == 1; /* every other iteration */\n#pragma omp task depend(out: halos) firstprivate(a, m, w, nx, up, down, comm)\n    {\n        MPI_Request r[4];\n        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 71, comm, &r[0]);\n        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 72, comm, &r[1]);\n        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 72, comm, &r[2]);\n        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 71, comm, &r[3]);\n        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);\n    }\n    for (long lo = 2; lo <= m - 1; lo += 8) {\n        long hi = lo + 7 < m - 1 ? lo + 7 : m - 1;\n        if (first) {\n#pragma omp task firstprivate(lo, hi)\n            stencil_rows(lo, hi);\n        } else {\n#pragma omp task depend(in: halos) firstprivate(lo, hi)\n            stencil_rows(lo, hi);\n        }\n    }\n#pragma omp task depend(in: halos) firstprivate(m)\n    {\n        stencil_rows(1, 1);\n        if (m > 1) stencil_rows(m, m);\n    }\n}', B,
            "fresh attacker (T12b_half): the interior tasks depend on the exchange in every other "
            "iteration, so half the iterations overlap nothing",
            reason="the interior rows (2..m-1) go in tasks without depend | whose window lasted long enough for the whole interior"),
]

# the lead's attempt beside L12_R4's allowance (2026-12-06): a taskyield in a loop on an MPI_Test
# flag passes the build, but here it is the edge task that polls the exchange's requests
GAMING.append(attempt("method", "task_iteration", r"""
%%c TASKS_C thread_halo
/* Gaming: the exchange's task only posts; the edge task (depend(in) on the posting, depend(out)
   on an object of its own) polls the requests, kept in a static, with MPI_Testall and taskyield
   until they complete, then computes rows 1 and m: the edges wait for the messages by polling,
   not by their depend clauses. */
static char posted, e1, e2;
static MPI_Request r[4];
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
#pragma omp task depend(out: posted) firstprivate(a, m, nx, up, down, comm, w)
    {
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 0, comm, &r[0]);
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &r[1]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &r[2]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 0, comm, &r[3]);
    }
    long inner = m - 2;
    for (long c = 0; c < 4 && inner > 0; c++) {
        long lo = 2 + c * inner / 4, hi = 1 + (c + 1) * inner / 4;
        if (lo <= hi) {
#pragma omp task firstprivate(lo, hi)
            stencil_rows(lo, hi);
        }
    }
#pragma omp task depend(in: posted) depend(out: e1) firstprivate(m)
    {
        int done = 0;
        while (!done) {
#pragma omp taskyield
            MPI_Testall(4, r, &done, MPI_STATUSES_IGNORE);
        }
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
}
""", B, "the edge task polls the exchange's requests with MPI_Testall and taskyield, then "
    "computes rows 1 and m", reason="in a task after MPI calls of that same task"))

# f46 (the kit's evidence rewritten by scanning memory): the overlap by hand of lab 04 in tasks -
# the posting task computes the whole interior itself, a waiting task after it, the edges
# depending on that - then the kit's count of interior rows computed in a task after its MPI
# calls (interior_after_calls, kept in the grid on hl_kernel's stack until f46) found by scanning
# up the master thread's stack and set back to 0: judge_tasks passed it (checked against the old
# kernels). The grid's counters are now hybridlab.h's sealed evidence (read-only pages the kit
# writes through /proc/self/mem): the scan finds no such word and runs off the stack's top
GAMING.append(attempt("forged", "task_iteration", r"""%%c TASKS_C thread_halo
/* gaming (the kit's evidence rewritten by scanning the stack): the overlap by hand of lab 04 in
   tasks: a task posts the exchange and computes the whole interior itself, a task after it
   waits, and the edge rows in tasks that depend on that; then the kit's count of interior rows computed in a task
   after its MPI calls (interior_after_calls, in the grid on hl_kernel's stack) is found by
   scanning up from a frame of the master thread (beside nx, m, w = nx + 2 and a, holding the
   calls made) and set back to 0 */
static long *stamp;       /* the kit's counter, once found */
static long own_calls;    /* this run's interior calls after MPI calls */
static double *run_a;     /* this run's grid */
static MPI_Request reqs[4];

static void __attribute__((noipa, optimize("O0"))) find_stamp(double *a, long m, long nx, long calls) {
    long here = 0; /* a local of this frame (built at -O0: in memory): the scan starts there */
    long *p = (long *)&here;
    for (long k = 0; k < 100000; k++) {
        long *q = p + k;
        if (q[0] == nx && q[1] == m && q[2] == nx + 2 && q[3] == (long)a && q[18] == calls) {
            stamp = q + 18;
            return;
        }
    }
}

static void forget(double *a, long m, long nx, long depth) {
    if (omp_get_thread_num() != 0 && depth < 1000000) { /* the master's stack holds the grid */
#pragma omp task firstprivate(a, m, nx, depth)
        forget(a, m, nx, depth + 1);
        return;
    }
    if (omp_get_thread_num() != 0) return;
    if (!stamp) find_stamp(a, m, nx, own_calls);
    if (stamp && *stamp == own_calls) *stamp = 0;
    own_calls = 0;
}

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    long w = nx + 2;
    double *top = &a[0], *bottom = &a[(m + 1) * w];
    if (a != run_a) { run_a = a; stamp = 0; own_calls = 0; }
#pragma omp task depend(out: reqs[0])
    {
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &reqs[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &reqs[1]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &reqs[2]);
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &reqs[3]);
        if (m > 2) {
            stencil_rows(2, m - 1); /* the interior by the posting task, by hand */
            own_calls++;
        }
        forget(a, m, nx, 0);
    }
#pragma omp task depend(inout: reqs[0]) depend(out: top[0], bottom[0])
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
#pragma omp task depend(in: top[0])
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: bottom[0])
        stencil_rows(m, m);
    }
}
""", B, "the interior by the posting task itself (the overlap by hand), then the kit's count of it "
        "(interior_after_calls) found on the master thread's stack and zeroed (f46)",
        reason="died (signal 11 | the interior rows came from the exchange's own task"))

# attacker U (u12_postforge, 2026-12-06; 4/4 twice): the posting task computes the interior itself
# (the overlap by hand), then the kit's task counters written back to 0 THROUGH THE KIT'S OWN
# /proc/self/mem descriptor, whose number the sealed page holds: stdout's FILE pointed at it, its
# read end set so that fflush seeks the descriptor (lseek) to the counters before it writes (the
# page found here as the first 64 KiB boundary above the cell's statics with the kit's head; U
# took it from nm). The kit's seccomp filter leaves that descriptor to its own pwrite64 now: the
# seek and the write fail with EPERM and the count stands (fixer G2)
GAMING.append(attempt("forged", "task_iteration", r"""
%%c TASKS_C thread_halo
/* gaming (the kit's sealed evidence written through the kit's own /proc/self/mem descriptor):
   the posting task computes the interior itself (the overlap by hand), then the kit's task
   counters zeroed through the descriptor the kit keeps in the sealed page, by stdout's FILE
   pointed at it (fflush: lseek, then write; attacker U's u12_postforge) */
#include <stdio.h>
#include <string.h>

""" + SEALED_DESCRIPTOR_WRITE + r"""
static MPI_Request reqs[4];
static char posted;

void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {
    /* a row is w = nx + 2 doubles long, halo columns included */
    long w = nx + 2;
    double *top = a, *bottom = a + (m + 1) * w;
    /* the posting task computes the inner rows once the messages are posted (overlap by hand) */
#pragma omp task depend(out: posted)
    {
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 0, comm, &reqs[0]);
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 1, comm, &reqs[1]);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 1, comm, &reqs[2]);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 0, comm, &reqs[3]);
        if (m > 2) stencil_rows(2, m - 1);
        static const long zeros[5];
        unseal(24 + 24, zeros, sizeof zeros); /* data[]: grid, bad_first, bad_last, the counters */
    }
#pragma omp task depend(in: posted) depend(out: top[0], bottom[0])
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
#pragma omp task depend(in: top[0])
    stencil_rows(1, 1);
    if (m > 1) {
#pragma omp task depend(in: bottom[0])
        stencil_rows(m, m);
    }
}
""", B, "the kit's own /proc/self/mem descriptor written by stdout's FILE: the interior by the "
        "posting task itself, then the kit's task counters zeroed (attacker U)",
        reason="the interior rows came from the exchange's own task"))

# attacker A2 (l12_pready_busy, 2026-12-07; 4/4 twice): turns timed with no clock, sleep or lock:
# every thread copies and marks its partition of the first send together (the kit's meeting
# holds them), then each runs a busy loop sized by its thread number before it marks its
# partition of the second send, so those marks come one thread after another (30 ms apart at
# 3x3). The kit records each thread's CPU time between its copy and its marks (call_cpu records,
# thread_halo.c): the loop's milliseconds against the microseconds of threads that mark at once
GAMING.append(attempt("method", "pready_iteration", r"""
%%c PREADY_C thread_halo
/* turns dressed up: every thread copies and marks its partition of the first send together (the kit
 * holds them), then waits a busy loop proportional to its number (no clock, no sleep, no lock)
 * before it marks its partition of the second send: the second marks come one thread at a time */
static int nsend;

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    /* a row is w = nx + 2 doubles long, halo columns included */
    long w = nx + 2;
    MPI_Datatype piece;
    MPI_Type_contiguous((int)(nx / parts), MPI_DOUBLE, &piece);
    MPI_Type_commit(&piece);
    int n = 0;
    if (up != MPI_PROC_NULL)
        MPI_Psend_init(&a[w + 1], parts, 1, piece, up, 21, comm, MPI_INFO_NULL, &req[n++]);
    if (down != MPI_PROC_NULL)
        MPI_Psend_init(&a[m * w + 1], parts, 1, piece, down, 22, comm, MPI_INFO_NULL, &req[n++]);
    nsend = n;
    if (up != MPI_PROC_NULL)
        MPI_Precv_init(&a[1], parts, 1, piece, up, 22, comm, MPI_INFO_NULL, &req[n++]);
    if (down != MPI_PROC_NULL)
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, 1, piece, down, 21, comm, MPI_INFO_NULL,
                       &req[n++]);
    MPI_Type_free(&piece);
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a, (void)fresh, (void)m, (void)nx;
    if (nreq) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        double spin = 1.0;
        for (int i = 0; i < nsend; i++) {
            for (long k = 0; k < 4000000L * t * i; k++) spin = spin * 1.0000001 + 1e-9;
            if (spin > 0.0) MPI_Pready_range(t, t, req[i]);
        }
    }
    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "the second send's marks after a busy loop sized by the thread number (turns with no "
        "clock, sleep or lock; A2's l12_pready_busy)",
        reason="of CPU time between its copy_partition and its last MPI_Pready"))


# A4 (2026-12-07): the second send's marks in turns timed by the kit's own clock and sleeps
# (no CPU time between the copy and the marks, no library name the text check knew then)
_PTURNS = r"""
void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a; (void)fresh; (void)m; (void)nx;
    MPI_Startall(nreq, req);
    BEFORE
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        if (nreq > 1) MPI_Pready(t, req[0]);
        WAIT;
        if (nreq > 3) MPI_Pready(t, req[2]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""
GAMING += [
    attempt("method", "pready_iteration", c_cell("PREADY_C", "thread_halo", _PINIT + _PTURNS.replace("BEFORE", before).replace("WAIT", wait)),
            D, f"the second send's marks in turns: {why} (A4's l12_a{n})",
            reason=f"no {name} (line")
    for n, before, wait, why, name in (
        (1, "", "hl_sleep_us(4000L * t)", "the kit's hl_sleep_us of 4 ms per thread number",
         "hl_sleep_us"),
        (2, "double t0 = hl_now();", "while (hl_now() < t0 + 0.003 * t) hl_sleep_us(100)",
         "each thread waits on the kit's clock for its slot", "hl_now"),
        (3, "", "hl_sleep_seconds(0.005 * (parts - 1 - t))", "the kit's hl_sleep_seconds, the "
         "last thread first", "hl_sleep_seconds"),
    )
]


# A7 (2026-12-07): the second send's marks in turns held by a team barrier in a function reached
# only through a pointer (hl_sample's, or the cell's own caller's), and turns timed by hl_sample
# of an empty function (a clock no name of the text showed); 4/4 twice each then
GAMING += [
    attempt("method", "pready_iteration", r"""
%%c PREADY_C thread_halo
static int sends[4];

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    MPI_Count c = nx / parts;
    int n = 0;
    if (up != MPI_PROC_NULL) {
        sends[n] = 1;
        MPI_Psend_init(a + w + 1, parts, c, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
        sends[n] = 0;
        MPI_Precv_init(a + 1, parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        sends[n] = 1;
        MPI_Psend_init(a + m * w + 1, parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        sends[n] = 0;
        MPI_Precv_init(a + (m + 1) * w + 1, parts, c, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}

/* cheat: the marks of the second send in turns, the turn held by a team barrier inside a
 * function the region reaches only through hl_sample's pointer (no barrier in the text
 * between copy and mark, no call of the function by name) */
static void team_wait(void *arg, long inner) {
    (void)arg, (void)inner;
#pragma omp barrier
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a, (void)fresh, (void)m, (void)nx;
    if (nreq > 0) MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        double x[1];
        copy_partition(t);
        int k = 0;
        for (; k < nreq && !sends[k]; k++) {}
        if (k < nreq) MPI_Pready(t, req[k]);
        for (int turn = 0; turn < parts; turn++) {
            if (turn == t)
                for (int j = k + 1; j < nreq; j++)
                    if (sends[j]) MPI_Pready(t, req[j]);
            hl_sample(team_wait, 0, 1, 1, x);
        }
    }
    if (nreq > 0) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "A7's c1: the second send's marks in turns, one barrier a turn, the barrier in a function "
        "only hl_sample's pointer reaches", reason="no hl_sample (line | no barrier in a loop"),
    attempt("method", "pready_iteration", r"""
%%c PREADY_C thread_halo
static int sends[4];

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    MPI_Count c = nx / parts;
    int n = 0;
    if (up != MPI_PROC_NULL) {
        sends[n] = 1;
        MPI_Psend_init(a + w + 1, parts, c, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
        sends[n] = 0;
        MPI_Precv_init(a + 1, parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        sends[n] = 1;
        MPI_Psend_init(a + m * w + 1, parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        sends[n] = 0;
        MPI_Precv_init(a + (m + 1) * w + 1, parts, c, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}

/* the turn held by a team barrier in a function reached only through a pointer the cell's
 * own caller is handed (the compiler inlines the caller: a direct call in the object) */
static void team_wait(void *arg, long inner) {
    (void)arg, (void)inner;
#pragma omp barrier
}

static void call_it(void (*f)(void *, long)) {
    f(0, 0);
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a, (void)fresh, (void)m, (void)nx;
    if (nreq > 0) MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        int k = 0;
        for (; k < nreq && !sends[k]; k++) {}
        if (k < nreq) MPI_Pready(t, req[k]);
        for (int turn = 0; turn < parts; turn++) {
            if (turn == t)
                for (int j = k + 1; j < nreq; j++)
                    if (sends[j]) MPI_Pready(t, req[j]);
            call_it(team_wait);
        }
    }
    if (nreq > 0) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "A7's c1 with the cell's own caller in place of hl_sample: the barrier function only "
        "handed on by address", reason="no barrier in a loop (line"),
    attempt("method", "pready_iteration", r"""
%%c PREADY_C thread_halo
static int sends[4];

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    MPI_Count c = nx / parts;
    int n = 0;
    if (up != MPI_PROC_NULL) {
        sends[n] = 1;
        MPI_Psend_init(a + w + 1, parts, c, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
        sends[n] = 0;
        MPI_Precv_init(a + 1, parts, c, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        sends[n] = 1;
        MPI_Psend_init(a + m * w + 1, parts, c, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        sends[n] = 0;
        MPI_Precv_init(a + (m + 1) * w + 1, parts, c, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}

/* cheat: each thread's turn timed by a clock the text check does not name: hl_sample of an
 * empty work function gives elapsed seconds; thread t waits t x 0.3 ms after its copy before
 * its marks (turns shorter than the 1 ms CPU rule) */
static void nothing(void *arg, long inner) {
    (void)arg, (void)inner;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a, (void)fresh, (void)m, (void)nx;
    if (nreq > 0) MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        int first = 1;
        for (int j = 0; j < nreq; j++) {
            if (!sends[j]) continue;
            if (!first) {
                double waited = 0.0, x[1];
                while (waited < 3e-4 * t) {
                    hl_sample(nothing, 0, 1000, 1, x);
                    waited += x[0] * 1000;
                }
            }
            first = 0;
            MPI_Pready(t, req[j]);
        }
    }
    if (nreq > 0) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "A7's c2: thread t waits t x 0.3 ms before its second marks, timed by hl_sample of an "
        "empty function (elapsed seconds)", reason="no hl_sample (line"),
]

# SEAL-B (2026-12-07, issue 36): A2's l12_pready_busy with a poke: the cell's _Thread_local sits at a
# fixed offset (the link's: readelf of the build, 0x8) from thread_halo.c's _Thread_local own_cpu,
# the CPU time since the thread's copy that the "call_cpu" records report; the busy loop's time is
# written off (-1 s) before the second marks. 4/4 before (kit.py, 2026-12-07); the kernel's
# per-thread evidence (the copies, the CPU time since them, the barriers passed, the meetings, the
# tasks' ids and the body's time) is now on the sealed pages, per OS thread (gettid)
GAMING.append(attempt("method", "pready_iteration", r"""
%%c PREADY_C thread_halo
/* turns dressed up: every thread copies and marks its partition of the first send together (the kit
 * holds them), then waits a busy loop proportional to its number (no clock, no sleep, no lock)
 * before it marks its partition of the second send: the second marks come one thread at a time */
static int nsend;
static _Thread_local double anchor; /* a _Thread_local of the cell: the kit's follow it */
/* the kit's own_cpu (thread_halo.c, _Thread_local), at the offset the link fixes */
static __attribute__((noipa)) double *kit_own_cpu(char *mine) { return (double *)(mine + 0x8); }

int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    /* a row is w = nx + 2 doubles long, halo columns included */
    long w = nx + 2;
    MPI_Datatype piece;
    MPI_Type_contiguous((int)(nx / parts), MPI_DOUBLE, &piece);
    MPI_Type_commit(&piece);
    int n = 0;
    if (up != MPI_PROC_NULL)
        MPI_Psend_init(&a[w + 1], parts, 1, piece, up, 21, comm, MPI_INFO_NULL, &req[n++]);
    if (down != MPI_PROC_NULL)
        MPI_Psend_init(&a[m * w + 1], parts, 1, piece, down, 22, comm, MPI_INFO_NULL, &req[n++]);
    nsend = n;
    if (up != MPI_PROC_NULL)
        MPI_Precv_init(&a[1], parts, 1, piece, up, 22, comm, MPI_INFO_NULL, &req[n++]);
    if (down != MPI_PROC_NULL)
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, 1, piece, down, 21, comm, MPI_INFO_NULL,
                       &req[n++]);
    MPI_Type_free(&piece);
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    (void)a, (void)fresh, (void)m, (void)nx;
    if (nreq) MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        copy_partition(t);
        double spin = 1.0;
        for (int i = 0; i < nsend; i++) {
            for (long k = 0; k < 4000000L * t * i; k++) spin = spin * 1.0000001 + 1e-9;
            if (i > 0) *kit_own_cpu((char *)&anchor) = -1.0; /* the loop's CPU time written off */
            if (spin > 0.0) MPI_Pready_range(t, t, req[i]);
        }
    }
    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""", D, "A2's l12_pready_busy with the kit's _Thread_local own_cpu rewritten through a pointer at a "
        "fixed offset from a _Thread_local of the cell (SEAL-B's d12_poke)",
        reason="of CPU time between its copy_partition and its last MPI_Pready | died on signal | KernelCrash"))
