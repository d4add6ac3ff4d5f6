"""Right answers to lab 07 written another way: the message size from divmod and (n / P)^2 n,
or from a rank's slab over P; the two-level alltoall packed element by element into a
contiguous buffer, or with the leaders exchanging their blocks by MPI_Isend and MPI_Irecv
instead of MPI_Alltoall."""

import importlib.util
from pathlib import Path

from honest import right
from wrong_answers import changed

_spec = importlib.util.spec_from_file_location(
    "wrong_answers_07", Path(__file__).resolve().parents[1] / "wrong_answers" / "07_collectives.py")
_wrong = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_wrong)

HEAD = _wrong.SIGNATURE + r"""    int N = P / L;
    size_t block = (size_t)P * count;
    double *gathered = NULL, *out = NULL, *in = NULL;
    if (me == 0) {
        gathered = malloc(L * block * sizeof *gathered);
        out = malloc(L * block * sizeof *out);
        in = malloc(L * block * sizeof *in);
    }
    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);
"""
TAIL = r"""
    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);
    free(gathered);
    free(out);
    free(in);
}
"""
ELEMENTS = HEAD + r"""    if (me == 0) {
        size_t per_node = (size_t)L * L * count;  /* one block per pair of nodes */
#pragma omp parallel for
        for (int n = 0; n < N; n++) {            /* destination node */
            size_t at = n * per_node;
            for (int s = 0; s < L; s++)          /* my node's sender */
                for (int t = 0; t < L; t++)      /* its receiver on node n */
                    for (int k = 0; k < count; k++)
                        out[at++] = gathered[((size_t)s * P + (size_t)n * L + t) * count + k];
        }
        MPI_Alltoall(out, (int)per_node, MPI_DOUBLE, in, (int)per_node, MPI_DOUBLE, leaders);
#pragma omp parallel for
        for (int n = 0; n < N; n++) {            /* source node */
            size_t at = n * per_node;
            for (int s = 0; s < L; s++)          /* its sender */
                for (int t = 0; t < L; t++)      /* my node's receiver */
                    for (int k = 0; k < count; k++)
                        gathered[((size_t)t * P + (size_t)n * L + s) * count + k] = in[at++];
        }
    }""" + TAIL
POINT_TO_POINT = HEAD + r"""    if (me == 0) {
        int chunk = L * L * count;
#pragma omp parallel for collapse(3) schedule(static)
        for (int t = 0; t < L; t++)
            for (int n = 0; n < N; n++)
                for (int s = 0; s < L; s++)
                    memcpy(out + (size_t)n * chunk + ((size_t)s * L + t) * count,
                           gathered + ((size_t)s * P + (size_t)n * L + t) * count,
                           (size_t)count * sizeof(double));
        MPI_Request *reqs = malloc(2 * (size_t)N * sizeof *reqs);
        for (int n = 0; n < N; n++)  /* one block to and from every leader, this one too */
            MPI_Irecv(in + (size_t)n * chunk, chunk, MPI_DOUBLE, n, 5, leaders, &reqs[n]);
        for (int n = 0; n < N; n++)
            MPI_Isend(out + (size_t)n * chunk, chunk, MPI_DOUBLE, n, 5, leaders, &reqs[N + n]);
        MPI_Waitall(2 * N, reqs, MPI_STATUSES_IGNORE);
        free(reqs);
#pragma omp parallel for collapse(3) schedule(static)
        for (int t = 0; t < L; t++)
            for (int n = 0; n < N; n++)
                for (int s = 0; s < L; s++)
                    memcpy(gathered + ((size_t)t * P + (size_t)n * L + s) * count,
                           in + (size_t)n * chunk + ((size_t)s * L + t) * count,
                           (size_t)count * sizeof(double));
    }""" + TAIL

HONEST = [
    # (a) alltoall_messages
    right("alltoall_messages", """
def alltoall_messages(n, cores, threads):
    ranks, spare = divmod(cores, threads)
    if spare:
        raise ValueError(f"{threads} threads do not divide {cores} cores")
    planes, left = divmod(n, ranks)
    if left:
        raise ValueError(f"{ranks} ranks do not divide the grid's {n} planes")
    # each other rank gets (n / P) x (n / P) x n complex doubles (16 bytes each)
    return ranks - 1, planes * planes * n * 16
""", why="divmod for both checks, the block as (n / P)^2 n points of 16 bytes"),
    right("alltoall_messages", """
def alltoall_messages(n, cores, threads):
    if cores % threads != 0 or n % (cores // threads) != 0:
        raise ValueError("the split must divide the cores and the grid")
    p = cores // threads
    slab = 16 * n * n * (n // p)  # bytes one rank holds
    return p - 1, slab // p
""", why="one combined check, the rank's slab shared out in P blocks"),
    # (d) alltoall_nodes
    right("alltoall_nodes", ELEMENTS,
          why="packed element by element, one thread per destination node"),
    right("alltoall_nodes", POINT_TO_POINT,
          why="the leaders exchange their blocks with MPI_Irecv and MPI_Isend, a collapse(3) pack"),
]

# Right answers beside a fresh attacker's (helperE) that must keep their points under the rules
# the attacks brought (every loop that copies data run on threads; one block between two nodes;
# (a)'s counts as integers): pairwise MPI_Sendrecv between the leaders, a taskloop in a single
# region, `omp for` in a parallel region with an MPI_Alltoallv whose counts a serial loop sets.
SENDRECV_PAIRS = (
    HEAD
    + r"""    if (me == 0) {
#pragma omp parallel for collapse(2)
        for (int n = 0; n < N; n++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    memcpy(&out[(((size_t)n * L + s) * L + t) * count],
                           &gathered[((size_t)s * P + (size_t)n * L + t) * count],
                           (size_t)count * sizeof(double));
        int me_l, ln; MPI_Comm_rank(leaders, &me_l); MPI_Comm_size(leaders, &ln);
        size_t nb = (size_t)L * L * count;
        memcpy(&in[(size_t)me_l * nb], &out[(size_t)me_l * nb], nb * sizeof(double));
        for (int k = 1; k < ln; k++) {
            int to = (me_l + k) % ln, from = (me_l - k + ln) % ln;
            MPI_Sendrecv(&out[(size_t)to * nb], (int)nb, MPI_DOUBLE, to, 5,
                         &in[(size_t)from * nb], (int)nb, MPI_DOUBLE, from, 5, leaders, MPI_STATUS_IGNORE);
        }
#pragma omp parallel for collapse(2)
        for (int n = 0; n < N; n++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    memcpy(&gathered[((size_t)t * P + (size_t)n * L + s) * count],
                           &in[(((size_t)n * L + s) * L + t) * count], (size_t)count * sizeof(double));
    }"""
    + TAIL
)
TASKLOOP = (
    HEAD
    + r"""    if (me == 0) {
        size_t nb = (size_t)L * L * count;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop
        for (int n = 0; n < N; n++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    for (int k = 0; k < count; k++)
                        out[(((size_t)n * L + s) * L + t) * count + k] =
                            gathered[((size_t)s * P + (size_t)n * L + t) * count + k];
        MPI_Request *rq = malloc(2 * (size_t)N * sizeof *rq);
        for (int n = 0; n < N; n++)
            MPI_Irecv(&in[(size_t)n * nb], (int)nb, MPI_DOUBLE, n, 9, leaders, &rq[n]);
        for (int n = 0; n < N; n++)
            MPI_Isend(&out[(size_t)n * nb], (int)nb, MPI_DOUBLE, n, 9, leaders, &rq[N + n]);
        MPI_Waitall(2 * N, rq, MPI_STATUSES_IGNORE);
        free(rq);
#pragma omp parallel for collapse(2)
        for (int t = 0; t < L; t++)
            for (int n = 0; n < N; n++)
                for (int s = 0; s < L; s++)
                    memcpy(&gathered[((size_t)t * P + (size_t)n * L + s) * count],
                           &in[(((size_t)n * L + s) * L + t) * count], (size_t)count * sizeof(double));
    }"""
    + TAIL
)
OMP_FOR_ALLTOALLV = (
    HEAD
    + r"""    if (me == 0) {
        int chunk = L * L * count;
        int *counts = malloc(N * sizeof *counts), *displs = malloc(N * sizeof *displs);
        for (int i = 0; i < N; i++) {  /* one block per pair of nodes */
            counts[i] = chunk;
            displs[i] = i * chunk;
        }
#pragma omp parallel
        {
#pragma omp for collapse(3) schedule(static)
            for (int n = 0; n < N; n++)
                for (int s = 0; s < L; s++)
                    for (int t = 0; t < L; t++)
                        memcpy(out + displs[n] + ((size_t)s * L + t) * count,
                               gathered + ((size_t)s * P + (size_t)n * L + t) * count,
                               (size_t)count * sizeof(double));
        }
        MPI_Alltoallv(out, counts, displs, MPI_DOUBLE, in, counts, displs, MPI_DOUBLE, leaders);
#pragma omp parallel for collapse(2)
        for (int t = 0; t < L; t++)
            for (int n = 0; n < N; n++)
                for (int s = 0; s < L; s++)
                    for (int k = 0; k < count; k++)
                        gathered[((size_t)t * P + (size_t)n * L + s) * count + k] =
                            in[displs[n] + ((size_t)s * L + t) * count + k];
        free(counts);
        free(displs);
    }"""
    + TAIL
)
NUMPY_INTS = """
import numpy as np


def alltoall_messages(n, cores, threads):
    ranks, spare = np.divmod(np.int64(cores), np.int64(threads))
    if spare or n % ranks:
        raise ValueError("the split must divide the cores and the grid")
    return ranks - 1, np.int64(16) * n**3 // ranks**2  # NumPy integers: counts all the same
"""
HONEST += [
    right(
        "alltoall_nodes",
        SENDRECV_PAIRS,
        why="the leaders exchange one block per pair with MPI_Sendrecv, their own block copied",
    ),
    right(
        "alltoall_nodes",
        TASKLOOP,
        why="packed by a taskloop in a single region, element by element",
    ),
    right(
        "alltoall_nodes",
        OMP_FOR_ALLTOALLV,
        why="`omp for` in a parallel region, MPI_Alltoallv with counts a serial loop sets",
    ),
    right("alltoall_messages", NUMPY_INTS, why="the pair as NumPy integers"),
]

# A fresh attacker's right answers (2026-12-03) that lost every point: derived datatypes describe
# the blocks (MPI_Type_vector, MPI_Type_create_resized), which the judge refused as "another
# method" until the type calls were allowed beside the three steps.
DATATYPES = changed(changed(_wrong.alltoall_copies("""        MPI_Datatype rows, bynode;
        MPI_Type_vector(L, L * count, P * count, MPI_DOUBLE, &rows);
        MPI_Type_create_resized(rows, 0, (MPI_Aint)L * count * sizeof(double), &bynode);
        MPI_Type_commit(&bynode);
        MPI_Alltoall(gathered, 1, bynode, in, L * L * count, MPI_DOUBLE, leaders);
        MPI_Type_free(&bynode);
        MPI_Type_free(&rows);
"""), "        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n",
    """        /* 2. derived datatypes do the packing: for destination node j, the L rows s of L*count
           values at gathered + (s*P + j*L)*count; the leaders' alltoall moves one L*L*count block
           per pair of nodes */
"""), """    /* 3. scatter to the node's ranks */
    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);
""", """    /* 3. scatter: node rank t takes every L-th block of count values of `in`, from t on */
    MPI_Datatype pick = MPI_DATATYPE_NULL, pickr = MPI_DATATYPE_NULL;
    if (me == 0) {
        MPI_Type_vector(P, count, L * count, MPI_DOUBLE, &pick);
        MPI_Type_create_resized(pick, 0, (MPI_Aint)count * sizeof(double), &pickr);
        MPI_Type_commit(&pickr);
    }
    MPI_Scatter(in, 1, pickr, recv, (int)block, MPI_DOUBLE, 0, node);
    if (me == 0) { MPI_Type_free(&pickr); MPI_Type_free(&pick); }
    (void)N; (void)bytes; (void)out;
""")
DATATYPE_UNPACK = _wrong.alltoall_copies("""        /* pack and exchange in one call: a derived type picks each destination node's rows */
        MPI_Datatype rows, bynode;
        MPI_Type_vector(L, L * count, P * count, MPI_DOUBLE, &rows);
        MPI_Type_create_resized(rows, 0, (MPI_Aint)L * count * sizeof(double), &bynode);
        MPI_Type_commit(&bynode);
        size_t nb = (size_t)L * L * count;
        MPI_Alltoall(gathered, 1, bynode, in, (int)nb, MPI_DOUBLE, leaders);
        MPI_Type_free(&bynode);
        MPI_Type_free(&rows);
        /* unpack into gathered: for node rank t, values from world rank i*L+s */
        #pragma omp parallel for collapse(3)
        for (int i = 0; i < N; i++)
            for (int s = 0; s < L; s++)
                for (int t = 0; t < L; t++)
                    memcpy(gathered + ((size_t)t * P + (size_t)i * L + s) * count,
                           in + i * nb + ((size_t)s * L + t) * count, bytes);
""")
HONEST += [
    right("alltoall_nodes", DATATYPES,
          why="derived datatypes (a resized vector) describe the blocks the three steps move"),
    right("alltoall_nodes", DATATYPE_UNPACK,
          why="packed by the leader's threads, unpacked by a derived datatype on receipt"),
]

# A fresh attacker's right answer (attackB, 2026-12-03) that lost 4/4 when the bounds had to take
# omp_get_thread_num() straight: lo and hi computed from the thread number and the team size
THREAD_SPLIT = HEAD + r"""    if (me == 0) {
        long total = (long)L * P * count;       /* element-wise, split by thread number */
        #pragma omp parallel
        {
            int nt = omp_get_num_threads(), id = omp_get_thread_num();
            long lo = total * id / nt, hi = total * (id + 1) / nt;
            for (long x = lo; x < hi; x++) {
                /* x indexes out: block j (dest node), source node rank s, dest node rank t, k */
                long k = x % count, r = x / count;
                long t = r % L; r /= L;
                long s = r % L; long j = r / L;
                out[x] = gathered[(s * P + j * L + t) * count + k];
            }
        }
        int lr, ln;
        MPI_Comm_rank(leaders, &lr);
        MPI_Comm_size(leaders, &ln);
        size_t nb = (size_t)L * L * count;
        MPI_Request *rq = malloc(2 * (size_t)ln * sizeof *rq);
        for (int i = 0; i < ln; i++) {
            MPI_Irecv(in + i * nb, (int)nb, MPI_DOUBLE, i, 7, leaders, &rq[i]);
            MPI_Isend(out + i * nb, (int)nb, MPI_DOUBLE, i, 7, leaders, &rq[ln + i]);
        }
        MPI_Waitall(2 * ln, rq, MPI_STATUSES_IGNORE);
        free(rq);
        #pragma omp parallel
        {
            int nt = omp_get_num_threads(), id = omp_get_thread_num();
            for (long t = id; t < L; t += nt)          /* cyclic by thread number */
                for (long src = 0; src < P; src++)
                    for (long k = 0; k < count; k++)
                        gathered[(t * P + src) * count + k] = in[(src * L + t) * count + k];
        }
    }""" + TAIL
HONEST += [
    right("alltoall_nodes", THREAD_SPLIT,
          why="the leader's pack split by lo = total * id / nt, hi = total * (id + 1) / nt"),
    # a fresh attacker's (helper-51): a helper named `_r`, as hidden tests name their own; it lost
    # every point while a hidden cell's names replaced the student's (grading/hidden_names.py)
    right("alltoall_messages", """def _r(cores, threads):
    # ranks of a split, or ValueError
    if threads <= 0 or cores % threads:
        raise ValueError("threads do not divide cores")
    return cores // threads


def alltoall_messages(n, cores, threads):
    P = _r(cores, threads)
    if n % P:
        raise ValueError("ranks do not divide n")
    return P - 1, 16 * n * (n // P) ** 2
""", why="a private helper named _r, like the hidden test's own names"),
]

# A fresh attacker's right answers (attackF, 2026-12-04) beside the rules their attacks brought
# (bounds counted by arithmetic alone; at most one message a rank sends itself per call): a split
# by lo and hi with the leaders' pairwise MPI_Sendrecv (step 0 sends a leader its own block), and
# `omp for schedule(dynamic) collapse(2)` in a parallel region
PAIRWISE_SPLIT = '%%c ALLTOALL_C alltoall_nodes\n#include <omp.h>\n/* pairwise Sendrecv between the leaders, threads splitting the copies by hand */\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;\n    long per_rank = (long)P * count;\n    long nb = (long)L * L * count;\n    double *g = NULL, *o = NULL, *x = NULL;\n    if (me == 0) {\n        g = malloc(sizeof(double) * L * per_rank);\n        o = malloc(sizeof(double) * L * per_rank);\n        x = malloc(sizeof(double) * L * per_rank);\n    }\n    MPI_Gather(send, (int)per_rank, MPI_DOUBLE, g, (int)per_rank, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        int mynode;\n        MPI_Comm_rank(leaders, &mynode);\n        long total = (long)N * L * L * count;    /* every element of o, one by one */\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long lo = total * id / nt, hi = total * (id + 1) / nt;\n            for (long e = lo; e < hi; e++) {\n                long k = e % count, r = e / count;\n                long t = r % L, s = (r / L) % L, m = r / ((long)L * L);\n                o[e] = g[(s * P + m * L + t) * count + k];\n            }\n        }\n        for (int step = 0; step < N; step++) {   /* node mynode + step sends to, - step from */\n            int to = (mynode + step) % N, from = (mynode - step + N) % N;\n            MPI_Sendrecv(o + (long)to * nb, (int)nb, MPI_DOUBLE, to, 7, x + (long)from * nb, (int)nb,\n                         MPI_DOUBLE, from, 7, leaders, MPI_STATUS_IGNORE);\n        }\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long lo = total * id / nt, hi = total * (id + 1) / nt;\n            for (long e = lo; e < hi; e++) {       /* e indexes the output [t][m L + s][k] */\n                long k = e % count, r = e / count;\n                long src = r % P, t = r / P;\n                long m = src / L, s = src % L;\n                o[e] = x[m * nb + (s * L + t) * count + k];\n            }\n        }\n    }\n    MPI_Scatter(o, (int)per_rank, MPI_DOUBLE, recv, (int)per_rank, MPI_DOUBLE, 0, node);\n    free(g); free(o); free(x);\n}\n'
DYNAMIC_COLLAPSE = "%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;                           /* nodes */\n    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */\n    size_t bytes = (size_t)count * sizeof(double);\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n        size_t nb = (size_t)L * L * count;   /* one block per pair of nodes */\n#pragma omp parallel for collapse(3)\n        for (int m = 0; m < N; m++)\n            for (int s = 0; s < L; s++)\n                for (int t = 0; t < L; t++)\n                    memcpy(out + m * nb + ((size_t)s * L + t) * count,\n                           gathered + ((size_t)s * P + (size_t)m * L + t) * count, bytes);\n        MPI_Alltoall(out, (int)nb, MPI_DOUBLE, in, (int)nb, MPI_DOUBLE, leaders);\n        /* in[m][s][t]: from node m's rank s to my rank t; out becomes [t][m L + s] */\n#pragma omp parallel\n#pragma omp for schedule(dynamic) collapse(2)\n        for (int t = 0; t < L; t++)\n            for (int m = 0; m < N; m++)\n                for (int s = 0; s < L; s++)\n                    memcpy(out + ((size_t)t * P + (size_t)m * L + s) * count,\n                           in + m * nb + ((size_t)s * L + t) * count, bytes);\n    }\n    /* 3. scatter to the node's ranks */\n    MPI_Scatter(out, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}\n"
HONEST += [
    right("alltoall_nodes", PAIRWISE_SPLIT,
          why="lo/hi split by id and nt, the leaders' pairwise MPI_Sendrecv, its own block to itself"),
    right("alltoall_nodes", DYNAMIC_COLLAPSE,
          why="collapse(3) pack, `omp for schedule(dynamic) collapse(2)` unpack"),
]


# Right answers the arithmetic-alone rule refused or did not read (fixer h07, 2026-12-04), now
# judged from the run by the kit's count of each thread's writes (copy_shares): a split clamped by
# MIN or by an `if`, a `while` loop over a thread's range, element copies through struct members
HONEST_MIN = '%%c ALLTOALL_C alltoall_nodes\n#include <omp.h>\n#define MIN(a, b) ((a) < (b) ? (a) : (b))\n/* pairwise Sendrecv between the leaders, threads splitting the copies by hand */\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;\n    long per_rank = (long)P * count;\n    long nb = (long)L * L * count;\n    double *g = NULL, *o = NULL, *x = NULL;\n    if (me == 0) {\n        g = malloc(sizeof(double) * L * per_rank);\n        o = malloc(sizeof(double) * L * per_rank);\n        x = malloc(sizeof(double) * L * per_rank);\n    }\n    MPI_Gather(send, (int)per_rank, MPI_DOUBLE, g, (int)per_rank, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        int mynode;\n        MPI_Comm_rank(leaders, &mynode);\n        long total = (long)N * L * L * count;    /* every element of o, one by one */\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long chunk = (total + nt - 1) / nt, lo = MIN(id * chunk, total), hi = MIN(lo + chunk, total);\n            for (long e = lo; e < hi; e++) {\n                long k = e % count, r = e / count;\n                long t = r % L, s = (r / L) % L, m = r / ((long)L * L);\n                o[e] = g[(s * P + m * L + t) * count + k];\n            }\n        }\n        for (int step = 0; step < N; step++) {   /* node mynode + step sends to, - step from */\n            int to = (mynode + step) % N, from = (mynode - step + N) % N;\n            MPI_Sendrecv(o + (long)to * nb, (int)nb, MPI_DOUBLE, to, 7, x + (long)from * nb, (int)nb,\n                         MPI_DOUBLE, from, 7, leaders, MPI_STATUS_IGNORE);\n        }\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long chunk = (total + nt - 1) / nt, lo = MIN(id * chunk, total), hi = MIN(lo + chunk, total);\n            for (long e = lo; e < hi; e++) {       /* e indexes the output [t][m L + s][k] */\n                long k = e % count, r = e / count;\n                long src = r % P, t = r / P;\n                long m = src / L, s = src % L;\n                o[e] = x[m * nb + (s * L + t) * count + k];\n            }\n        }\n    }\n    MPI_Scatter(o, (int)per_rank, MPI_DOUBLE, recv, (int)per_rank, MPI_DOUBLE, 0, node);\n    free(g); free(o); free(x);\n}\n'
HONEST_CLAMP = '%%c ALLTOALL_C alltoall_nodes\n#include <omp.h>\n/* pairwise Sendrecv between the leaders, threads splitting the copies by hand */\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;\n    long per_rank = (long)P * count;\n    long nb = (long)L * L * count;\n    double *g = NULL, *o = NULL, *x = NULL;\n    if (me == 0) {\n        g = malloc(sizeof(double) * L * per_rank);\n        o = malloc(sizeof(double) * L * per_rank);\n        x = malloc(sizeof(double) * L * per_rank);\n    }\n    MPI_Gather(send, (int)per_rank, MPI_DOUBLE, g, (int)per_rank, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        int mynode;\n        MPI_Comm_rank(leaders, &mynode);\n        long total = (long)N * L * L * count;    /* every element of o, one by one */\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long chunk = (total + nt - 1) / nt, lo = id * chunk, hi = lo + chunk;\n            if (hi > total) hi = total;\n            if (lo > total) lo = total;\n            for (long e = lo; e < hi; e++) {\n                long k = e % count, r = e / count;\n                long t = r % L, s = (r / L) % L, m = r / ((long)L * L);\n                o[e] = g[(s * P + m * L + t) * count + k];\n            }\n        }\n        for (int step = 0; step < N; step++) {   /* node mynode + step sends to, - step from */\n            int to = (mynode + step) % N, from = (mynode - step + N) % N;\n            MPI_Sendrecv(o + (long)to * nb, (int)nb, MPI_DOUBLE, to, 7, x + (long)from * nb, (int)nb,\n                         MPI_DOUBLE, from, 7, leaders, MPI_STATUS_IGNORE);\n        }\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long chunk = (total + nt - 1) / nt, lo = id * chunk, hi = lo + chunk;\n            if (hi > total) hi = total;\n            if (lo > total) lo = total;\n            for (long e = lo; e < hi; e++) {       /* e indexes the output [t][m L + s][k] */\n                long k = e % count, r = e / count;\n                long src = r % P, t = r / P;\n                long m = src / L, s = src % L;\n                o[e] = x[m * nb + (s * L + t) * count + k];\n            }\n        }\n    }\n    MPI_Scatter(o, (int)per_rank, MPI_DOUBLE, recv, (int)per_rank, MPI_DOUBLE, 0, node);\n    free(g); free(o); free(x);\n}\n'
HONEST_WHILE = '%%c ALLTOALL_C alltoall_nodes\n#include <omp.h>\n/* pairwise Sendrecv between the leaders, threads splitting the copies by hand */\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;\n    long per_rank = (long)P * count;\n    long nb = (long)L * L * count;\n    double *g = NULL, *o = NULL, *x = NULL;\n    if (me == 0) {\n        g = malloc(sizeof(double) * L * per_rank);\n        o = malloc(sizeof(double) * L * per_rank);\n        x = malloc(sizeof(double) * L * per_rank);\n    }\n    MPI_Gather(send, (int)per_rank, MPI_DOUBLE, g, (int)per_rank, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        int mynode;\n        MPI_Comm_rank(leaders, &mynode);\n        long total = (long)N * L * L * count;    /* every element of o, one by one */\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long e = total * id / nt, hi = total * (id + 1) / nt;\n            while (e < hi) {\n                long k = e % count, r = e / count;\n                long t = r % L, s = (r / L) % L, m = r / ((long)L * L);\n                o[e] = g[(s * P + m * L + t) * count + k];\n                e++;\n            }\n        }\n        for (int step = 0; step < N; step++) {   /* node mynode + step sends to, - step from */\n            int to = (mynode + step) % N, from = (mynode - step + N) % N;\n            MPI_Sendrecv(o + (long)to * nb, (int)nb, MPI_DOUBLE, to, 7, x + (long)from * nb, (int)nb,\n                         MPI_DOUBLE, from, 7, leaders, MPI_STATUS_IGNORE);\n        }\n#pragma omp parallel\n        {\n            long id = omp_get_thread_num(), nt = omp_get_num_threads();\n            long e = total * id / nt, hi = total * (id + 1) / nt;\n            while (e < hi) {       /* e indexes the output [t][m L + s][k] */\n                long k = e % count, r = e / count;\n                long src = r % P, t = r / P;\n                long m = src / L, s = src % L;\n                o[e] = x[m * nb + (s * L + t) * count + k];\n                e++;\n            }\n        }\n    }\n    MPI_Scatter(o, (int)per_rank, MPI_DOUBLE, recv, (int)per_rank, MPI_DOUBLE, 0, node);\n    free(g); free(o); free(x);\n}\n'
HONEST_STRUCT = "%%c ALLTOALL_C alltoall_nodes\nvoid alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,\n                    MPI_Comm leaders) {\n    int P, L, me;\n    MPI_Comm_size(world, &P);\n    MPI_Comm_size(node, &L);\n    MPI_Comm_rank(node, &me);\n    int N = P / L;                           /* nodes */\n    size_t block = (size_t)P * count;        /* the doubles one rank sends in all */\n    size_t bytes = (size_t)count * sizeof(double);\n    double *gathered = NULL, *out = NULL, *in = NULL;\n    if (me == 0) { /* the leader's buffers: the whole node's data, L * P * count doubles each */\n        gathered = malloc(L * block * sizeof *gathered);\n        out = malloc(L * block * sizeof *out);\n        in = malloc(L * block * sizeof *in);\n    }\n    /* 1. gather: gathered[(s * P + d) * count + k] is value k that node rank s sends to rank d */\n    MPI_Gather(send, (int)block, MPI_DOUBLE, gathered, (int)block, MPI_DOUBLE, 0, node);\n    if (me == 0) {\n        /* 2. pack by destination node, exchange between the leaders, unpack by destination rank */\n        struct cell { double v; } *po = (struct cell *)out, *pg = (struct cell *)gathered,\n                                  *pi = (struct cell *)in;\n#pragma omp parallel for collapse(2)\n        for (int n = 0; n < N; n++)\n            for (int s = 0; s < L; s++)\n                for (int t = 0; t < L; t++)\n                    for (int k = 0; k < count; k++)\n                        po[(((size_t)n * L + s) * L + t) * count + k].v =\n                            pg[((size_t)s * P + (size_t)n * L + t) * count + k].v;\n        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);\n#pragma omp parallel for collapse(2)\n        for (int n = 0; n < N; n++)\n            for (int s = 0; s < L; s++)\n                for (int t = 0; t < L; t++)\n                    for (int k = 0; k < count; k++)\n                        pg[((size_t)t * P + (size_t)n * L + s) * count + k].v =\n                            pi[(((size_t)n * L + s) * L + t) * count + k].v;\n    }\n    /* 3. scatter to the node's ranks */\n    MPI_Scatter(gathered, (int)block, MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);\n    free(gathered);\n    free(out);\n    free(in);\n}"
HONEST += [
    right("alltoall_nodes", HONEST_MIN, why="chunk = ceil(total / nt), lo and hi clamped by MIN"),
    right("alltoall_nodes", HONEST_CLAMP, why="chunk = ceil(total / nt), `if (hi > total) hi = total`"),
    right("alltoall_nodes", HONEST_WHILE, why="each thread's range copied by a while loop"),
    right("alltoall_nodes", HONEST_STRUCT,
          why="parallel for collapse(2), element copies through struct members (`po[i].v = pg[j].v`)"),
]

# The leader's buffers cleared with memset before the copies (fixer helper-f12, 2026-12-05): since
# memset is wrapped in the counted build (a fresh attacker copied every byte alone with
# `memset(d + b, s[b], one)`), a memset to zero must stay no copy: serial on the master, over the
# whole node's buffers, beside a malloc check that reports with fprintf (a constant format)
MEMSET_ZERO = HEAD.replace(
    "    MPI_Gather(",
    """    if (me == 0 && (!gathered || !out || !in)) {
        fprintf(stderr, "alltoall_nodes: no memory for %zu doubles\\n", 3 * L * block);
        abort();
    }
    if (me == 0) {  /* cleared first: a value left out would show as 0, not as garbage */
        memset(out, 0, L * block * sizeof *out);
        memset(in, 0, L * block * sizeof *in);
    }
    MPI_Gather(""", 1) + ELEMENTS[len(HEAD):]
HONEST += [
    right("alltoall_nodes", MEMSET_ZERO,
          why="out and in cleared by a serial memset(.., 0, ..) on the leader, then packed and "
              "unpacked by parallel for; malloc checked with fprintf(stderr, ...)"),
]

# attacker T's R07_types (2026-12-06, full points twice)
HONEST.append(right('alltoall_nodes', r"""
%%c ALLTOALL_C alltoall_nodes
/* The two-level alltoall with derived datatypes only: MPI reads the leader's blocks in place,
 * so the cell copies nothing itself (and has no loop to share among threads). */
void alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,
                    MPI_Comm leaders) {
    int P, L, me;
    MPI_Comm_size(world, &P);
    MPI_Comm_size(node, &L);
    MPI_Comm_rank(node, &me);
    double *gathered = NULL, *in = NULL;
    MPI_Datatype to_node = MPI_DATATYPE_NULL, to_rank = MPI_DATATYPE_NULL, tmp;
    if (me == 0) {
        gathered = malloc((size_t)L * P * count * sizeof *gathered);
        in = malloc((size_t)L * P * count * sizeof *in);
        /* what goes to node n: for each node rank s, the L blocks for n's ranks, contiguous at
         * gathered[(s P + n L) count]; one element per node, n L count doubles apart */
        MPI_Type_vector(L, L * count, P * count, MPI_DOUBLE, &tmp);
        MPI_Type_create_resized(tmp, 0, (MPI_Aint)L * count * sizeof(double), &to_node);
        MPI_Type_free(&tmp);
        MPI_Type_commit(&to_node);
        /* what node rank t gets: from every world rank S = n L + s the block at in[(S L + t) count] */
        MPI_Type_vector(P, count, L * count, MPI_DOUBLE, &tmp);
        MPI_Type_create_resized(tmp, 0, (MPI_Aint)count * sizeof(double), &to_rank);
        MPI_Type_free(&tmp);
        MPI_Type_commit(&to_rank);
    }
    /* 1. gather: gathered[(s * P + d) * count + k] */
    MPI_Gather(send, P * count, MPI_DOUBLE, gathered, P * count, MPI_DOUBLE, 0, node);
    if (me == 0) {
        /* 2. one block per pair of nodes, packed by the datatype:
         * in[((n L + s) L + t) count + k] = value k from world rank n L + s to my node rank t */
        MPI_Alltoall(gathered, 1, to_node, in, L * L * count, MPI_DOUBLE, leaders);
    }
    /* 3. scatter, unpacked by the datatype */
    MPI_Scatter(in, 1, me == 0 ? to_rank : MPI_DOUBLE, recv, P * count, MPI_DOUBLE, 0, node);
    if (me == 0) {
        MPI_Type_free(&to_node);
        MPI_Type_free(&to_rank);
    }
    free(gathered);
    free(in);
}
""", why='the three steps with derived datatypes only (resized vectors), nothing copied by the cell'))

# fresh attacker A9's alt2 (2026-12-07): derived datatypes inside the one gather (its receive type)
# and the one scatter, kept when more gathers or scatters than one per call were refused
HONEST.append(right('alltoall_nodes', r"""
%%c ALLTOALL_C alltoall_nodes
/* right answer another way: derived datatypes describe the packing and the unpacking */
void alltoall_nodes(const double *send, double *recv, int count, MPI_Comm world, MPI_Comm node,
                    MPI_Comm leaders) {
    int P, L, me;
    MPI_Comm_size(world, &P);
    MPI_Comm_size(node, &L);
    MPI_Comm_rank(node, &me);
    int N = P / L;
    size_t block = (size_t)P * count;
    double *out = NULL, *in = NULL;
    MPI_Datatype runs = MPI_DATATYPE_NULL, picks = MPI_DATATYPE_NULL, vec;
    if (me == 0) {
        out = malloc(L * block * sizeof *out);
        in = malloc(L * block * sizeof *in);
        /* gather: node rank s's run for node m goes to out[(m L + s) L count] */
        MPI_Type_vector(N, L * count, L * L * count, MPI_DOUBLE, &vec);
        MPI_Type_create_resized(vec, 0, (MPI_Aint)L * count * sizeof(double), &runs);
        MPI_Type_commit(&runs);
        MPI_Type_free(&vec);
        /* scatter: node rank t takes in[((m L + s) L + t) count] for every source m L + s */
        MPI_Type_vector(P, count, L * count, MPI_DOUBLE, &vec);
        MPI_Type_create_resized(vec, 0, (MPI_Aint)count * sizeof(double), &picks);
        MPI_Type_commit(&picks);
        MPI_Type_free(&vec);
    }
    MPI_Gather(send, (int)block, MPI_DOUBLE, out, 1, me == 0 ? runs : MPI_DOUBLE, 0, node);
    if (me == 0)
        MPI_Alltoall(out, L * L * count, MPI_DOUBLE, in, L * L * count, MPI_DOUBLE, leaders);
    MPI_Scatter(in, 1, me == 0 ? picks : MPI_DOUBLE, recv, (int)block, MPI_DOUBLE, 0, node);
    if (me == 0) {
        MPI_Type_free(&runs);
        MPI_Type_free(&picks);
    }
    free(out);
    free(in);
}
""", why="fresh attacker A9 (alt2): a resized vector as the gather's receive type packs by destination "
         "node, another as the scatter's send type unpacks: one gather and one scatter per call"))
