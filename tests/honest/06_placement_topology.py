"""Right answers to lab 06 written another way: the cut links by numpy slices of the rank map or
by looking left and up from each rank; the bandwidth summed in a dict or from two groupbys; the
node sum with the node's total allreduced before the leaders' step, or reduced into `sum` and
the threads' shares added atomically, the communicators split with other keys and colours."""

from honest import right

HONEST = [
    # (a) cut_edges
    right("cut_edges", """
def cut_edges(rows: int, cols: int, node_of_rank) -> int:
    grid = np.asarray(list(node_of_rank)).reshape(rows, cols)
    across = grid[:, 1:] != grid[:, :-1]  # each rank and its right-hand neighbour
    down = grid[1:, :] != grid[:-1, :]  # each rank and the one below it
    return int(across.sum() + down.sum())
""", why="the map as a rows x cols array, neighbours compared by slices"),
    right("cut_edges", """
def cut_edges(rows, cols, node_of_rank):
    nodes = list(node_of_rank)
    cut = 0
    for rank in range(rows * cols - 1, -1, -1):  # from the last rank back, left and up
        r, c = divmod(rank, cols)
        if c > 0 and nodes[rank - 1] != nodes[rank]:
            cut += 1
        if r > 0 and nodes[rank - cols] != nodes[rank]:
            cut += 1
    return cut
""", why="each rank's links to the left and above, ranks in reverse order"),
    # (d) memory_bandwidth
    right("memory_bandwidth", """
def memory_bandwidth(records):
    mem = records.loc[records["work"] == "memory"]
    total = {}
    for (bind, ranks, rank), samples in mem.groupby(["bind", "ranks", "rank"]):
        gbps = samples["bytes"].iloc[0] / samples["seconds"].median() / 1e9
        total[(bind, ranks)] = total.get((bind, ranks), 0.0) + gbps
    index = pd.MultiIndex.from_tuples(sorted(total), names=["bind", "ranks"])
    return pd.DataFrame({"GBps": [total[k] for k in index]}, index=index)
""", why="each rank's bytes over its median time, added up in a dict"),
    right("memory_bandwidth", """
def memory_bandwidth(records: pd.DataFrame) -> pd.DataFrame:
    mem = records.query("work == 'memory'")
    keys = ["bind", "ranks", "rank"]
    median_s = mem.groupby(keys)["seconds"].median()
    moved = mem.groupby(keys)["bytes"].max()  # the same bytes in every sample of a rank
    per_rank = moved / median_s / 1e9
    return per_rank.groupby(level=["bind", "ranks"]).sum().to_frame(name="GBps")
""", why="two groupbys (median seconds, bytes), divided as Series, summed per run"),
    # (e) node_sum
    right("node_sum", r"""
%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int me;
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node);  /* ties: world order */
    MPI_Comm_rank(*node, &me);
    MPI_Comm_split(world, me == 0 ? 1 : MPI_UNDEFINED, 0, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
#pragma omp atomic
        rank_sum[i] += mine[i];
    }
#pragma omp barrier
#pragma omp master
    {
        /* every rank of the node gets the node's total, the leaders add the nodes' totals,
           then each leader hands the whole sum to its node */
        MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
""", why="atomic adds; an allreduce on the node, one in place among the leaders, a broadcast"),
    right("node_sum", r"""
%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int world_rank, node_rank, colour;
    MPI_Comm_rank(world, &world_rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &node_rank);
    colour = node_rank > 0 ? MPI_UNDEFINED : 7;
    MPI_Comm_split(world, colour, world_rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int team = omp_get_num_threads(), me = omp_get_thread_num();
    for (int t = 0; t < team; t++) {  /* the threads add their values in turn, by number */
        if (t == me)
            for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
#pragma omp barrier
    }
    if (me == 0) {
        int node_rank;
        MPI_Comm_rank(node, &node_rank);
        if (node_rank == 0)
            MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        else
            MPI_Reduce(rank_sum, NULL, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
""", why="threads add in turn between barriers; reduce into sum, leaders in place, thread 0 by number"),
    right("node_sum", r"""
%%c NODES_C node_sum
/* the three steps with the non-blocking collectives, each waited; adds in a critical section */
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nrank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nrank);
    MPI_Comm_split(world, nrank == 0 ? 7 : MPI_UNDEFINED, rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
#pragma omp critical(node_sum_add)
    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
#pragma omp barrier
#pragma omp masked
    {
        MPI_Request r;
        MPI_Ireduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (leaders != MPI_COMM_NULL) {
            MPI_Iallreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        MPI_Ibcast(sum, n, MPI_DOUBLE, 0, node, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
#pragma omp barrier
}
""", why="fresh attacker (h06d): critical adds; Ireduce, Iallreduce, Ibcast, each waited"),
    # the kit scales the values given to the node's and the leaders' reductions (node_sum.c's
    # nudge, helper-f3): right answers that reduce in blocks through buffers of their own, skip a
    # level of one rank, or hand the sum to the node by an allreduce to which only the leader
    # brings it keep their points (one that reduced each thread's values apart, nothing added
    # into rank_sum, is a gaming attempt since F06e: tests/gaming/06_placement_topology.py)
    right("node_sum", r"""
%%c NODES_C node_sum
/* the sums in blocks of 64 values, each block copied into a buffer of the master's own, reduced on
 * the node into another, the node's blocks allreduced among the leaders, broadcast on the node;
 * a single-rank node skips its node step, one leader skips the leaders' step */
#include <stdlib.h>
#include <string.h>

void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nrank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nrank);
    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
#pragma omp critical
    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
#pragma omp barrier
#pragma omp masked
    {
        enum { B = 64 };
        double part[B], total[B];
        int nsize, lsize = 1;
        MPI_Comm_size(node, &nsize);
        if (leaders != MPI_COMM_NULL) MPI_Comm_size(leaders, &lsize);
        for (int at = 0; at < n; at += B) {
            int k = n - at < B ? n - at : B;
            memcpy(part, rank_sum + at, (size_t)k * sizeof *part);
            if (nsize > 1)
                MPI_Reduce(part, total, k, MPI_DOUBLE, MPI_SUM, 0, node);
            else
                memcpy(total, part, (size_t)k * sizeof *part);
            if (leaders != MPI_COMM_NULL && lsize > 1)
                MPI_Allreduce(total, sum + at, k, MPI_DOUBLE, MPI_SUM, leaders);
            else if (leaders != MPI_COMM_NULL)
                memcpy(sum + at, total, (size_t)k * sizeof *total);
        }
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
""", why="blocks of 64 copied into the master's buffers and reduced; one-rank levels skipped"),
    # a fresh attacker's right answer (L06r6, 2026-12-05): the leaders' communicator made from a
    # group (an MPI_Allgather of who leads on world, MPI_Group_incl, MPI_Comm_create); 0/4 while
    # the tracer had no entry for the group calls and every collective had to run on a node or
    # the leaders
    right("node_sum", '%%c NODES_C node_sum\n#include <stdlib.h>\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int rank, size, nrank;\n    MPI_Comm_rank(world, &rank);\n    MPI_Comm_size(world, &size);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);\n    MPI_Comm_rank(*node, &nrank);\n    /* the leaders as a group of world: who is node rank 0 */\n    int lead = nrank == 0, *all = malloc(size * sizeof(int)), *who = malloc(size * sizeof(int)), k = 0;\n    MPI_Allgather(&lead, 1, MPI_INT, all, 1, MPI_INT, world);\n    for (int r = 0; r < size; r++) if (all[r]) who[k++] = r;\n    MPI_Group wg, lg;\n    MPI_Comm_group(world, &wg);\n    MPI_Group_incl(wg, k, who, &lg);\n    MPI_Comm_create(world, lg, leaders);     /* MPI_COMM_NULL outside the group */\n    MPI_Group_free(&lg);\n    MPI_Group_free(&wg);\n    free(all);\n    free(who);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    for (int i = 0; i < n; i++) {\n#pragma omp atomic update\n        rank_sum[i] += mine[i];\n    }\n#pragma omp barrier\n#pragma omp master\n    {\n        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n    }\n#pragma omp barrier\n}\n',
          why="leaders from MPI_Group_incl + MPI_Comm_create after a flag allgather on world"),
    # a fresh attacker's R06crit2 and R06copyback (2026-12-05), refused at build by the text rule
    # on `rank_sum[i] = value` before split_rmw read the adds from the IR: the read and the write
    # in ONE critical section, and a master copying the node's total into rank_sum after a barrier
    right("node_sum", '%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int me, nr;\n    MPI_Comm_rank(world, &me);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, node);\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, me, leaders);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    for (int i = 0; i < n; i++) {\n#pragma omp critical(hl_add)\n        {\n            double v = rank_sum[i] + mine[i]; /* read and write in one critical section */\n            rank_sum[i] = v;\n        }\n    }\n#pragma omp barrier\n#pragma omp masked\n    {\n        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL)\n            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n    }\n#pragma omp barrier\n}\n',
          why="fresh attacker (R06crit2): each add read and written inside one critical section"),
    right("node_sum", "%%c NODES_C node_sum\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int me, nr;\n    MPI_Comm_rank(world, &me);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, node);\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, me, leaders);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    for (int i = 0; i < n; i++) {\n#pragma omp atomic update\n        rank_sum[i] += mine[i];\n    }\n#pragma omp barrier\n#pragma omp masked\n    {\n        int nr;\n        MPI_Comm_rank(node, &nr);\n        /* the node's total into sum on the leader, kept in rank_sum there for the leaders' step */\n        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) {\n            for (int i = 0; i < n; i++) rank_sum[i] = sum[i];\n            MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        }\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n    }\n#pragma omp barrier\n}\n",
          why="fresh attacker (R06copyback): atomic adds; the master copies the node total into "
              "rank_sum for the leaders' allreduce"),
]

# a fresh attacker's (attackS) right answers that lost 0/4 to split_rmw or the unit checks
# (2026-12-05): a block copied out of rank_sum, added to and copied back in ONE critical section
# (the next block's memcpy overwrites all the copy back reads); an `omp atomic` count of another
# variable inside the critical section (a relaxed atomic orders nothing: no region boundary); a C11
# atomic compound assignment (GCC calls libatomic's __atomic_feraiseexcept, now allowed and linked)
HONEST += [
    right("node_sum", '%%c NODES_C node_sum\n#include <unistd.h>\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int r;\n    MPI_Comm_rank(world, &r);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);\n    int nr;\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);\n}\n\n/* each thread adds a private copy of all its values in one critical section, block by block */\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    double block[64];\n    for (int i0 = 0; i0 < n; i0 += 64) {\n        int len = n - i0 < 64 ? n - i0 : 64;\n#pragma omp critical(add)\n        {\n            memcpy(block, rank_sum + i0, (size_t)len * sizeof *block);\n            for (int k = 0; k < len; k++) block[k] += mine[i0 + k];\n            memcpy(rank_sum + i0, block, (size_t)len * sizeof *block);\n        }\n    }\n#pragma omp barrier\n#pragma omp master\n    {\n        int nr;\n        MPI_Comm_rank(node, &nr);\n        double *tmp = malloc((size_t)n * sizeof *tmp);\n        MPI_Reduce(rank_sum, tmp, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) MPI_Allreduce(tmp, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n        free(tmp);\n    }\n#pragma omp barrier\n}\n',
          why="fresh attacker (R06_blockcrit): blocks of 64 memcpy'd out, added, memcpy'd back in one critical"),
    right("node_sum", '%%c NODES_C node_sum\n#include <unistd.h>\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int r;\n    MPI_Comm_rank(world, &r);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);\n    int nr;\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);\n}\n\nstatic long adds_made; /* how many adds this rank made (a statistic) */\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    for (int i = 0; i < n; i++) {\n#pragma omp critical(add)\n        {\n            double x = rank_sum[i];\n#pragma omp atomic\n            adds_made++;\n            rank_sum[i] = x + mine[i];\n        }\n    }\n#pragma omp barrier\n#pragma omp master\n    {\n        int nr;\n        MPI_Comm_rank(node, &nr);\n        double *tmp = malloc((size_t)n * sizeof *tmp);\n        MPI_Reduce(rank_sum, tmp, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) MPI_Allreduce(tmp, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n        free(tmp);\n    }\n#pragma omp barrier\n}\n',
          why="fresh attacker (R06_counted): one critical section with an omp atomic count of another variable"),
    right("node_sum", '%%c NODES_C node_sum\n#include <unistd.h>\nvoid split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {\n    int r;\n    MPI_Comm_rank(world, &r);\n    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);\n    int nr;\n    MPI_Comm_rank(*node, &nr);\n    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);\n}\n\nvoid node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n              MPI_Comm leaders) {\n    for (int i = 0; i < n; i++) *(_Atomic double *)&rank_sum[i] += mine[i];\n#pragma omp barrier\n#pragma omp master\n    {\n        int nr;\n        MPI_Comm_rank(node, &nr);\n        double *tmp = malloc((size_t)n * sizeof *tmp);\n        MPI_Reduce(rank_sum, tmp, n, MPI_DOUBLE, MPI_SUM, 0, node);\n        if (leaders != MPI_COMM_NULL) MPI_Allreduce(tmp, sum, n, MPI_DOUBLE, MPI_SUM, leaders);\n        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);\n        free(tmp);\n    }\n#pragma omp barrier\n}\n',
          why="fresh attacker (R06_c11): a C11 atomic compound assignment on each value"),
]

# the split and the node-aware reduction the lock-identity entries (f34, 2026-12-06) share
_SPLIT_NODES = r"""%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, node_rank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &node_rank);
    MPI_Comm_split(world, node_rank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

"""
_REDUCE_AND_SHARE = r"""#pragma omp barrier
#pragma omp masked
    {
        int node_rank;
        MPI_Comm_rank(node, &node_rank);
        MPI_Reduce(node_rank == 0 ? MPI_IN_PLACE : rank_sum, rank_sum, n, MPI_DOUBLE, MPI_SUM, 0,
                   node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
"""


# fixer f34 (2026-12-06): kernels.lock_identity refuses adds held by regions the threads do not share
# (each thread its own lock, two critical names); locks the same for every thread keep their points:
# striped locks chosen by the element (also when each thread starts at its own element), one global
# lock, a lock reached through a static pointer set once (which split_rmw refused before: a pointer
# loaded from memory counted as rank_sum's, handed to omp_set_lock as to an unknown routine)
HONEST += [
    right("node_sum", _SPLIT_NODES + r'''static omp_lock_t lk[8];
static int ready;
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
#pragma omp single
    if (!ready) { for (int k = 0; k < 8; k++) omp_init_lock(&lk[k]); ready = 1; }
    for (int i = 0; i < n; i++) {
        omp_set_lock(&lk[i % 8]);
        rank_sum[i] += mine[i];
        omp_unset_lock(&lk[i % 8]);
    }
''' + _REDUCE_AND_SHARE,
          why="f34: striped locks lk[i % 8], initialised once in a single: each element always the same lock"),
    right("node_sum", _SPLIT_NODES + r'''static omp_lock_t la;
static int ready;
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
#pragma omp single
    if (!ready) { omp_init_lock(&la); ready = 1; }
    omp_set_lock(&la);
    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
    omp_unset_lock(&la);
''' + _REDUCE_AND_SHARE,
          why="f34: one global omp_lock_t initialised in a single, held over the adds"),
    right("node_sum", _SPLIT_NODES + r'''static omp_lock_t the_lock;
static omp_lock_t *lp;
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
#pragma omp single
    if (!lp) { omp_init_lock(&the_lock); lp = &the_lock; }
    for (int i = 0; i < n; i++) {
        omp_set_lock(lp);
        rank_sum[i] += mine[i];
        omp_unset_lock(lp);
    }
''' + _REDUCE_AND_SHARE,
          why="f34: the lock reached through a static pointer set once in a single"),
    right("node_sum", _SPLIT_NODES + r'''static omp_lock_t lk[8];
static int ready;
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
#pragma omp single
    if (!ready) { for (int k = 0; k < 8; k++) omp_init_lock(&lk[k]); ready = 1; }
    int me = omp_get_thread_num();
    for (int k = 0; k < n; k++) {
        int i = (k + me * 64) % n;
        omp_set_lock(&lk[i % 8]);
        rank_sum[i] += mine[i];
        omp_unset_lock(&lk[i % 8]);
    }
''' + _REDUCE_AND_SHARE,
          why="f34: striped locks lk[i % 8], each thread starting at its own offset (i from the thread number)"),
]


# a fresh attacker's (attackZ, 2026-12-06) unusual right answers, kept 4/4, and fixer f39's: a
# compare-and-swap LOOP until it succeeds (in a helper, or on the bits by __sync_val_compare_and_swap),
# OpenMP's array-section reduction, the adds in an ordered region, and omp_test_lock retried until
# it takes the lock (or falling back to omp_set_lock): kernels.retry_rmw refuses a CAS or a lock
# test whose failure moves on, never one tried again
HONEST += [
    right("node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r, nr;
    MPI_Comm_rank(world, &r);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}

/* a lock-free add: compare-and-swap until no other thread came in between */
static void cas_add(double *where, double x) {
    double old = 0.0, next;
    __atomic_compare_exchange(where, &old, &old, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    do {
        next = old + x;
    } while (!__atomic_compare_exchange(where, &old, &next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) cas_add(&rank_sum[i], mine[i]);
#pragma omp barrier
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', why="fresh attacker (z06r_cas): a CAS loop until it succeeds, in a helper"),
    right("node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r, nr;
    MPI_Comm_rank(world, &r);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int T = omp_get_num_threads();
    /* OpenMP's own array reduction: one iteration per thread, each its own values; the
       runtime combines the private copies into rank_sum safely */
#pragma omp for schedule(static, 1) reduction(+ : rank_sum[:n])
    for (int k = 0; k < T; k++)
        for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', why="fresh attacker (z06r_arrayred): omp for reduction(+: rank_sum[:n]), one iteration per thread"),
    right("node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r, nr;
    MPI_Comm_rank(world, &r);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    int T = omp_get_num_threads();
    /* one iteration per thread, its adds in an ordered region: the threads add one after the
       other, in thread order */
#pragma omp for ordered schedule(static, 1)
    for (int k = 0; k < T; k++) {
#pragma omp ordered
        for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
    }
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', why="fresh attacker (z06r_ordered): omp for ordered, the adds in an ordered region"),
    right("node_sum", _SPLIT_NODES + r'''static omp_lock_t lk[64];
static int ready;
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
#pragma omp single
    if (!ready) { for (int k = 0; k < 64; k++) omp_init_lock(&lk[k]); ready = 1; }
    for (int i = 0; i < n; i++) {
        if (!omp_test_lock(&lk[i % 64]))  /* busy: wait for it */
            omp_set_lock(&lk[i % 64]);
        rank_sum[i] += mine[i];
        omp_unset_lock(&lk[i % 64]);
    }
''' + _REDUCE_AND_SHARE,
          why="f39: striped locks tried with omp_test_lock, omp_set_lock when busy"),
    right("node_sum", _SPLIT_NODES + r'''#include <string.h>
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {  /* the add on the double's bits, swapped until no one got in */
        unsigned long *bits = (unsigned long *)&rank_sum[i];
        unsigned long old = __atomic_load_n(bits, __ATOMIC_RELAXED), got;
        for (;;) {
            double v;
            memcpy(&v, &old, sizeof v);
            v += mine[i];
            unsigned long next;
            memcpy(&next, &v, sizeof next);
            got = __sync_val_compare_and_swap(bits, old, next);
            if (got == old)
                break;
            old = got;
        }
    }
''' + _REDUCE_AND_SHARE,
          why="f39: a __sync_val_compare_and_swap loop on the bits until the old value is the one read"),
]


# a fresh attacker's (attackR, 2026-12-06) right answers that lost 4/4, kept by fixer f44: a spin
# lock made by hand (__atomic_test_and_set until it is had, __atomic_clear to release), refused by a
# rule against any atomic store or exchange; OpenMP 5.1's `atomic compare capture` in a CAS loop,
# which the kit's clang 14 could not parse (RuntimeError): now read as the CAS it is
HONEST += [
    right("node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nr;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}


static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}

/* Right, unusual: one spin lock made by hand (test-and-set until it is taken, acquire/release),
   the same for every thread, held round each thread's whole block of adds. */
static char spin;
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    while (__atomic_test_and_set(&spin, __ATOMIC_ACQUIRE)) { }
    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
    __atomic_clear(&spin, __ATOMIC_RELEASE);
#pragma omp barrier
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', why="fresh attacker (L06_R4): a test-and-set spin lock released by __atomic_clear"),
    right("node_sum", r'''%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nr;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

static void reduce_steps(double *rank_sum, double *sum, int n, MPI_Comm node, MPI_Comm leaders) {
    MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
    if (leaders != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
}
/* Right, unusual: OpenMP 5.1's atomic compare capture as a compare-and-swap loop, tried again
   with the value it saw until it succeeds (one read-modify-write per add) */
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
        double expected = 0.0, seen;
        for (;;) {
            double want = expected + mine[i];
#pragma omp atomic compare capture
            {
                seen = rank_sum[i];
                if (rank_sum[i] == expected) { rank_sum[i] = want; }
            }
            if (seen == expected) break;
            expected = seen;
        }
    }
#pragma omp barrier
#pragma omp masked
    reduce_steps(rank_sum, sum, n, node, leaders);
#pragma omp barrier
}
''', why="fresh attacker (L06_R6): OpenMP 5.1 atomic compare capture in a CAS loop until it succeeds"),
    right("node_sum", r"""
%%c NODES_C node_sum
#include <stdint.h>
#include <string.h>
#include <stdatomic.h>
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r;
    MPI_Comm_rank(world, &r);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    int nr;
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

/* a CAS loop on the double's bits; each try reads the addend mine[i] again (it is const) */
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
        uint64_t *cell = (uint64_t *)&rank_sum[i];
        uint64_t seen = __atomic_load_n(cell, __ATOMIC_RELAXED), next;
        do {
            double now;
            memcpy(&now, &seen, 8);
            now += mine[i];
            memcpy(&next, &now, 8);
        } while (!__atomic_compare_exchange_n(cell, &seen, next, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    }
#pragma omp barrier
#pragma omp master
    {
        double *tmp = malloc((size_t)n * sizeof *tmp);
        MPI_Reduce(rank_sum, tmp, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL) MPI_Allreduce(tmp, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
        free(tmp);
    }
#pragma omp barrier
}
""", why="fresh attacker (attackS's R06_cas_reread): a weak CAS loop on the double's bits, each try reading the addend mine[i] again"),
    right("node_sum", r"""
%%c NODES_C node_sum
#include <stdint.h>
#include <string.h>
#include <stdatomic.h>
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int r;
    MPI_Comm_rank(world, &r);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, node);
    int nr;
    MPI_Comm_rank(*node, &nr);
    MPI_Comm_split(world, nr == 0 ? 0 : MPI_UNDEFINED, r, leaders);
}

/* a C11 atomic_flag spin lock, one for every thread of the rank, around each block of adds */
static atomic_flag guard = ATOMIC_FLAG_INIT;
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i0 = 0; i0 < n; i0 += 32) {
        int i1 = i0 + 32 < n ? i0 + 32 : n;
        while (atomic_flag_test_and_set_explicit(&guard, memory_order_acquire))
            ;
        for (int i = i0; i < i1; i++) rank_sum[i] = rank_sum[i] + mine[i];
        atomic_flag_clear_explicit(&guard, memory_order_release);
    }
#pragma omp barrier
#pragma omp master
    {
        double *tmp = malloc((size_t)n * sizeof *tmp);
        MPI_Reduce(rank_sum, tmp, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL) MPI_Allreduce(tmp, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
        free(tmp);
    }
#pragma omp barrier
}
""", why="fresh attacker (attackS's R06_flaglock): a C11 atomic_flag spin lock around blocks of 32 plain adds"),
]

# attacker V's right answers (2026-12-06, full points graded)
HONEST += [
    right("node_sum", r"""
%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nrank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nrank);
    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    for (int i = 0; i < n; i++) {
#pragma omp atomic
        rank_sum[i] += mine[i];
    }
#pragma omp barrier
#pragma omp masked
    {
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
""", why="attacker V: atomic adds + masked Reduce/Allreduce/Bcast"),
    right("node_sum", r"""
%%c NODES_C node_sum
void split_nodes(MPI_Comm world, MPI_Comm *node, MPI_Comm *leaders) {
    int rank, nrank;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    MPI_Comm_rank(*node, &nrank);
    MPI_Comm_split(world, nrank == 0 ? 0 : MPI_UNDEFINED, rank, leaders);
}

void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    /* one critical section per thread: its whole array added at once */
#pragma omp critical(rank_sum_add)
    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];
#pragma omp barrier
#pragma omp master
    {
        int nrank;
        MPI_Comm_rank(node, &nrank);
        if (nrank == 0)
            MPI_Reduce(MPI_IN_PLACE, rank_sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        else
            MPI_Reduce(rank_sum, NULL, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
""", why="attacker V: one named critical per thread's add, an MPI_IN_PLACE reduce at the node root"),
]


# right answers at the edge of the count of each thread's adds (fixer F06e, 2026-12-07: the Archer
# run counts the bytes of rank_sum each thread's own code writes per call, and a thread with less
# than a quarter of an equal share loses): a worksharing loop over the elements that adds every
# thread's values, each element's sum kept in a register (one store per element: each thread
# writes its n / threads of them), and the same with a dynamic schedule
_SHARED_LOOP = _SPLIT_NODES + r'''static const double *published[256];
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    published[omp_get_thread_num()] = mine;
    int nt = omp_get_num_threads();
#pragma omp barrier
#pragma omp for
    for (int i = 0; i < n; i++) {
        double s = rank_sum[i];
        for (int t = 0; t < nt; t++) s += published[t][i];
        rank_sum[i] = s;
    }
''' + _REDUCE_AND_SHARE
HONEST += [
    right("node_sum", _SHARED_LOOP,
          why="a worksharing loop over the elements adds every thread's values, one store each"),
    right("node_sum", _SHARED_LOOP.replace("#pragma omp for\n", "#pragma omp for schedule(dynamic, 8)\n"),
          why="the same worksharing loop, a dynamic schedule of chunks of 8"),
]
