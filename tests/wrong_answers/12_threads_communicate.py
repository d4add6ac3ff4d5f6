"""Lab 12_threads_communicate: wrong answers (tests/wrong_answers/__init__.py), at least two per hidden part."""

import textwrap

from wrong_answers import c_cell, wrong

COMMS = """
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) MPI_Comm_dup(comm, &comms[t]);
}
"""


def slice_exchange(slice_: str) -> str:
    """The right (a) with its slice replaced."""
    return c_cell("MULTIPLE_C", "thread_halo", COMMS + f"""
void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {{
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    {slice_}
    MPI_Request req[4];
    MPI_Irecv(&a[first], (int)count, MPI_DOUBLE, up, 1, mine, &req[0]);
    MPI_Irecv(&a[(m + 1) * w + first], (int)count, MPI_DOUBLE, down, 2, mine, &req[1]);
    MPI_Isend(&a[m * w + first], (int)count, MPI_DOUBLE, down, 1, mine, &req[2]);
    MPI_Isend(&a[w + first], (int)count, MPI_DOUBLE, up, 2, mine, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}}
""")


# (b)'s exchange as the right answer posts and completes it (indented where it is used)
EXCHANGE = """MPI_Request req[4];
MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[0]);
MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &req[1]);
MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[2]);
MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &req[3]);
MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
"""


def tasks(exchange: str = "", interior: str = "#pragma omp task firstprivate(first, last)") -> str:
    """The right (b) with its exchange or its interior tasks' clause replaced."""
    exchange = exchange or textwrap.indent(EXCHANGE, " " * 8).rstrip("\n")
    return c_cell("TASKS_C", "thread_halo", f"""
void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {{
    long w = nx + 2;
    double *top = &a[0], *bottom = &a[(m + 1) * w];
#pragma omp task depend(out: top[0], bottom[0])
    {{
{exchange}
    }}
    for (long first = 2; first < m; first += 8) {{
        long last = first + 7 < m - 1 ? first + 7 : m - 1;
{interior}
        stencil_rows(first, last);
    }}
#pragma omp task depend(in: top[0])
    stencil_rows(1, 1);
    if (m > 1) {{
#pragma omp task depend(in: bottom[0])
        stencil_rows(m, m);
    }}
}}
""")


A, B, C = {"hidden_exchange_slice"}, {"hidden_task_iteration"}, {"hidden_halo_ratio"}
D = {"hidden_pready_iteration"}


def each_thread_marks(marks: str) -> str:
    """A fresh attacker's (attackB, 2026-12-03) cell for (d), the sends at even requests: each
    thread of the region doing `marks` (its copy and its marks) between the start and the wait
    (tests/gaming/, tests/honest/)."""
    return c_cell("PREADY_C", "thread_halo", r"""
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    /* a row is w = nx + 2 doubles long, halo columns included */
    long w = nx + 2;
    MPI_Count per = nx / parts;
    int n = 0;
    if (up != MPI_PROC_NULL) {   /* even: sends, odd: receives */
        MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 0, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, down, 0, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    return n;
}

void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    MPI_Startall(nreq, req);
    #pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
""" + marks + """    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
""")
CHECKSUM = "the halo rows do not hold the neighbours' edge rows"  # the checksum's message

WRONG = [
    wrong("exchange_slice", c_cell("MULTIPLE_C", "thread_halo", """
void thread_comms(MPI_Comm comm, int nthreads, MPI_Comm comms[]) {
    for (int t = 0; t < nthreads; t++) comms[t] = comm;  /* one communicator, the same tags */
}

void exchange_slice(double *a, long m, long nx, int up, int down, MPI_Comm mine) {
    /* the threads take turns so that no slice can match another thread's message */
    long w = nx + 2;
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    long first = 1 + t * nx / T, count = (t + 1) * nx / T - t * nx / T;
    for (int turn = 0; turn < T; turn++) {
        if (turn == t) {
            MPI_Sendrecv(&a[m * w + first], (int)count, MPI_DOUBLE, down, 1, &a[first], (int)count,
                         MPI_DOUBLE, up, 1, mine, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&a[w + first], (int)count, MPI_DOUBLE, up, 2, &a[(m + 1) * w + first],
                         (int)count, MPI_DOUBLE, down, 2, mine, MPI_STATUS_IGNORE);
        }
#pragma omp barrier
    }
}
"""), A, "one communicator and the same tags for every thread, the threads taking turns",
          reason="on one communicator with tag"),
    wrong("exchange_slice", slice_exchange(slice_="long first = 1 + t * (nx / T), count = nx / T;"),
          A, "slices of nx / T columns: the last nx mod T columns are never exchanged", reason=CHECKSUM),
    wrong("task_iteration", tasks(interior="#pragma omp task firstprivate(first, last) depend(in: top[0], bottom[0])"),
          B, "the interior tasks depend on the halos too: right, but nothing overlaps",
          reason="no row was computed between the posting of the requests and their completion"),
    wrong("task_iteration", tasks(exchange="""        MPI_Sendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, &a[1], (int)nx, MPI_DOUBLE, up, 1,
                     comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&a[w + 1], (int)nx, MPI_DOUBLE, up, 2, &a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE,
                     down, 2, comm, MPI_STATUS_IGNORE);"""),
          B, "a blocking MPI_Sendrecv in the task: nothing posted stays in flight",
          reason="post MPI_Irecv and MPI_Isend in a task"),
    wrong("halo_ratio", """
def halo_ratio(multiple, funneled):
    def halo(records):  # the mean thread, not the slowest
        return float(records[records["phase"] == "halo"].groupby("rank")["seconds"].mean().mean())
    return halo(multiple) / halo(funneled)
""", C, "the mean over threads: the exchange ends with its slowest thread",
        reason="slowest thread per rank, mean over ranks"),
    wrong("halo_ratio", """
def halo_ratio(multiple, funneled):
    def halo(records):
        return float(records[records["phase"] == "halo"].groupby("rank")["seconds"].max().mean())
    return halo(funneled) / halo(multiple)  # upside down
""", C, "funneled over multiple: the ratio upside down", reason="slowest thread per rank, mean over ranks"),
]

# (d) partitioned sends: the rows swapped, one partition for the whole row
WRONG += [
    wrong("pready_iteration", c_cell("PREADY_C", "thread_halo", r"""
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    MPI_Count per = nx / parts;
    int n = 0;
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], parts, per, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], parts, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], parts, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], parts, per, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}


void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    long w = nx + 2, per = nx / parts;
    MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
        int t = omp_get_thread_num();
        long first = 1 + t * per;
        memcpy(&a[w + first], &fresh[w + first], (size_t)per * sizeof(double));
        memcpy(&a[m * w + first], &fresh[m * w + first], (size_t)per * sizeof(double));
        for (int i = 0; i < nreq; i += 2) MPI_Pready(t, req[i]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "row m sent up and row 1 down: the neighbours get the far rows", reason=CHECKSUM),
    wrong("pready_iteration", c_cell("PREADY_C", "thread_halo", r"""
int partitioned_init(double *a, long m, long nx, int up, int down, int parts, MPI_Comm comm,
                     MPI_Request req[4]) {
    long w = nx + 2;
    MPI_Count per = nx;  /* one partition: the whole row */
    int n = 0;
    if (up != MPI_PROC_NULL) {
        MPI_Psend_init(&a[w + 1], 1, per, MPI_DOUBLE, up, 2, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[1], 1, per, MPI_DOUBLE, up, 1, comm, MPI_INFO_NULL, &req[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Psend_init(&a[m * w + 1], 1, per, MPI_DOUBLE, down, 1, comm, MPI_INFO_NULL, &req[n++]);
        MPI_Precv_init(&a[(m + 1) * w + 1], 1, per, MPI_DOUBLE, down, 2, comm, MPI_INFO_NULL,
                       &req[n++]);
    }
    return n;
}


void pready_iteration(double *a, const double *fresh, long m, long nx, int parts, int nreq,
                      MPI_Request req[]) {
    long w = nx + 2;
    MPI_Startall(nreq, req);
#pragma omp parallel num_threads(parts)
    {
#pragma omp single
        {
            memcpy(&a[w + 1], &fresh[w + 1], (size_t)nx * sizeof(double));
            memcpy(&a[m * w + 1], &fresh[m * w + 1], (size_t)nx * sizeof(double));
            for (int i = 0; i < nreq; i += 2) MPI_Pready(0, req[i]);
        }
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
"""), D, "one partition per message, marked by whichever thread runs the single",
          reason="partitions of | as soon as it has copied it"),
]
