"""Lab 07: wrong answers a hurried student could hand in (see tests/wrong_answers/__init__.py)."""

from wrong_answers import wrong

# (d): the solution's C, each wrong answer with one mistake
ALLTOALL_SOLUTION = r'''%%c ALLTOALL_C alltoall_nodes
void alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,
                    MPI_Comm leaders) {
    int P, L, me;
    MPI_Comm_size(world, &P);
    MPI_Comm_size(node, &L);
    MPI_Comm_rank(node, &me);
    int N = P / L;                           /* nodes */
    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */
    size_t bytes = (size_t)count * sizeof(double);
    double *gathered = NULL, *out = NULL, *in = NULL;
    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */
        gathered = malloc(L * block * sizeof *gathered);
        out = malloc(L * block * sizeof *out);
        in = malloc(L * block * sizeof *in);
    }
    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */
    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);
    if (me == 0) {
        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */
        /* pack by destination node: out[((n * L + s) * L + t) * count]: s of mine to t of n */
#pragma omp parallel for collapse(2)
        for (int n = 0; n < N; n++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    memcpy(&out[(((size_t)n * L + s) * L + t) * count],
                           &gathered[((size_t)s * P + (size_t)n * L + t) * count], bytes);
        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);
        /* in[((n * L + s) * L + t) * count]: from rank s of node n to my rank t; unpack by t */
#pragma omp parallel for collapse(2)
        for (int n = 0; n < N; n++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    memcpy(&gathered[((size_t)t * P + (size_t)n * L + s) * count],
                           &in[(((size_t)n * L + s) * L + t) * count], bytes);
    }
    /* 3. scatter to the node's ranks */
    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);
    free(gathered);
    free(out);
    free(in);
}
'''
# its magic line, signature and first calls, where many other answers to (d) start
SIGNATURE = ALLTOALL_SOLUTION[:ALLTOALL_SOLUTION.index("    int N = P / L;")]


def alltoall_with(old: str, new: str) -> str:
    assert old in ALLTOALL_SOLUTION, old
    return ALLTOALL_SOLUTION.replace(old, new)


LEADERS_ALLTOALL = (
    "        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);\n"
)
# the leader's packing, the leaders' exchange and the unpacking, between the gather and the
# scatter: what most other answers to (d) write another way (alltoall_copies)
ALLTOALL_COPIES = ALLTOALL_SOLUTION[ALLTOALL_SOLUTION.index("        /* pack by destination node:"):
                                    ALLTOALL_SOLUTION.index("    }\n    /* 3. scatter")]


def alltoall_copies(copies: str) -> str:
    """The solution with its copies and exchange (ALLTOALL_COPIES) replaced by `copies`."""
    return alltoall_with(ALLTOALL_COPIES, copies)


MESSAGES = {"hidden_alltoall_messages"}
NODES = {"hidden_alltoall_nodes"}

WRONG = [
    # (a) alltoall_messages
    wrong("alltoall_messages", """
def alltoall_messages(n, cores, threads):
    if cores % threads:
        raise ValueError("threads must divide cores")
    ranks = cores // threads
    return ranks - 1, 16 * n**3 // ranks**2
""", MESSAGES, why="no ValueError when the ranks do not divide n", reason='should raise ValueError'),
    wrong("alltoall_messages", """
def alltoall_messages(n, cores, threads):
    if cores % threads:
        raise ValueError("threads must divide cores")
    ranks = cores // threads
    if n % ranks:
        raise ValueError("ranks must divide n")
    return ranks - 1, n**3 // ranks**2
""", MESSAGES, why="points, not bytes: the 16 bytes of a double complex left out", reason='alltoall_messages('),
    wrong("alltoall_messages", """
def alltoall_messages(n, cores, threads):
    if cores % threads:
        raise ValueError("threads must divide cores")
    ranks = cores // threads
    if n % ranks:
        raise ValueError("ranks must divide n")
    return ranks, 16 * n**3 // ranks**2
""", MESSAGES, why="the rank's message to itself counted", reason='alltoall_messages('),
    # (d) two-level alltoall in C
    wrong("alltoall_nodes", alltoall_with(
        "    MPI_Scatter(gathered, (int)block,", "    MPI_Scatter(in, (int)block,"),
        NODES, why="the leaders' result scattered without unpacking it by destination rank", reason='wrong result'),
    wrong("alltoall_nodes", alltoall_with(LEADERS_ALLTOALL, """        int lr, nl;
        MPI_Comm_rank(leaders, &lr);
        MPI_Comm_size(leaders, &nl);
        size_t part = (size_t)L * L * count;
        for (int q = 0; q < nl; q++) /* send to every leader, then receive from every leader */
            if (q != lr) MPI_Send(&out[q * part], (int)part, MPI_DOUBLE, q, 0, leaders);
        memcpy(&in[lr * part], &out[lr * part], part * sizeof(double));
        for (int q = 0; q < nl; q++)
            if (q != lr) MPI_Recv(&in[q * part], (int)part, MPI_DOUBLE, q, 0, leaders,
                                  MPI_STATUS_IGNORE);
"""), NODES, why="leaders all send before they receive: a deadlock once sends are synchronous", reason='deadlock'),
    wrong("alltoall_nodes", alltoall_with(LEADERS_ALLTOALL, """#pragma omp parallel
        if (omp_get_thread_num() == omp_get_num_threads() - 1) /* a worker talks to the network */
            MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);
"""), {"hidden_alltoall_nodes"}, why="MPI called by a thread other than the master under FUNNELED", reason='ThreadComplianceError'),
]
