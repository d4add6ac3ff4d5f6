"""Lab 06: wrong answers a hurried student could hand in (see tests/wrong_answers/__init__.py)."""

from functools import partial

from solutions_c import NODE_SUM
from wrong_answers import c_cell, changed, wrong

# (e): the solution's C, each with one mistake
NODES_SOLUTION = c_cell("NODES_C", "node_sum", NODE_SUM)


nodes_with = partial(changed, NODES_SOLUTION)


CUT = {"hidden_cut_edges"}
BANDWIDTH = {"hidden_memory_bandwidth"}
NODES = {"hidden_node_sum"}

WRONG = [
    # (a) cut_edges
    wrong("cut_edges", """
def cut_edges(rows, cols, node_of_rank):
    return sum(node_of_rank[r] != node_of_rank[r + 1] for r in range(rows * cols - 1))
""", CUT, why="neighbours in rank order: row ends joined, the links between rows left out", reason="the links between nodes are"),
    wrong("cut_edges", """
def cut_edges(rows, cols, node_of_rank):
    count = 0
    for r in range(rows):
        for c in range(cols):
            rank = r * cols + c
            for other in (r * cols + (c + 1) % cols, ((r + 1) % rows) * cols + c):
                count += node_of_rank[rank] != node_of_rank[other]
    return count
""", CUT, why="links wrap around (a torus), the grid has none", reason="the links between nodes are"),
    wrong("cut_edges", """
def cut_edges(rows, cols, node_of_rank):
    count = 0
    for a in range(rows * cols):
        for b in (a - 1, a + 1, a - cols, a + cols):
            if 0 <= b < rows * cols and node_of_rank[a] != node_of_rank[b]:
                count += 1
    return count
""", CUT, why="every link counted from both ends, and row ends joined to the next row", reason="the links between nodes are"),
    # (d) memory_bandwidth
    wrong("memory_bandwidth", """
def memory_bandwidth(records):
    mem = records[records["work"] == "memory"]
    per_rank = mem.groupby(["bind", "ranks", "rank"]).agg(seconds=("seconds", "mean"),
                                                          bytes=("bytes", "first"))
    per_rank["GBps"] = per_rank["bytes"] / per_rank["seconds"] / 1e9
    return per_rank.groupby(["bind", "ranks"])[["GBps"]].sum()
""", {"hidden_memory_bandwidth"}, why="the mean of the samples instead of their median", reason="summed, give"),
    wrong("memory_bandwidth", """
def memory_bandwidth(records):
    mem = records[records["work"] == "memory"]
    per_rank = mem.groupby(["bind", "ranks", "rank"]).agg(seconds=("seconds", "median"),
                                                          bytes=("bytes", "first"))
    per_rank["GBps"] = per_rank["bytes"] / per_rank["seconds"] / 1e9
    return per_rank.groupby(["bind", "ranks"])[["GBps"]].mean()
""", BANDWIDTH, why="the mean over ranks (one rank's bandwidth), not what all ranks draw together", reason="summed, give"),
    wrong("memory_bandwidth", """
def memory_bandwidth(records):
    mem = records[records["work"] == "memory"]
    out = mem.groupby(["bind", "ranks"]).agg(seconds=("seconds", "median"), bytes=("bytes", "sum"))
    return (out["bytes"] / out["seconds"] / 1e9).to_frame("GBps")
""", BANDWIDTH, why="the bytes of every sample summed and divided by one median time", reason="summed, give"),
    # (e) node-aware ranks in C
    wrong("node_sum", nodes_with(
        "MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);",
        "MPI_Comm_split(world, 0, rank, node); /* one machine: one node */"),
        NODES, why="one node for everything: wrong as soon as there are nodes (made-up here)", reason="wrong result"),
    wrong("node_sum", nodes_with("MPI_SUM, leaders);", "MPI_SUM, MPI_COMM_WORLD);"),
        NODES, why="the leaders' allreduce on MPI_COMM_WORLD: the other ranks never join (deadlock)", reason="deadlock"),
    wrong("node_sum", nodes_with(
        "#pragma omp masked\n",
        "if (omp_get_thread_num() == omp_get_num_threads() - 1) /* the last thread talks */\n"),
        {"hidden_node_sum"}, why="MPI called by a thread other than the master under FUNNELED", reason="ThreadComplianceError"),
    wrong("node_sum", nodes_with("#pragma omp barrier\n#pragma omp masked", "#pragma omp masked"),
        {"hidden_node_sum"}, why="no barrier before the master's MPI: threads not yet added (a race)",
        reason="wrong result | did not come out of your reductions"),
]
