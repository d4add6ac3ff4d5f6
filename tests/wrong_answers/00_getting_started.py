"""Lab 00: wrong answers to every graded part (see __init__.py)."""

from wrong_answers import wrong

WRONG = [
    # (a) CPUs per rank, the warm-up
    wrong("cores_per_rank", """
def cores_per_rank(records: pd.DataFrame) -> dict[int, list[int]]:
    return {int(rank): sorted(int(c) for c in group["cpu"]) for rank, group in records.groupby("rank")}
""", loses={"hidden_cores_per_rank"}, why="CPUs not made distinct", reason="not the CPUs each rank ran on"),
    wrong("cores_per_rank", """
def cores_per_rank(records: pd.DataFrame) -> dict[int, list[int]]:
    return records.groupby("rank")["cpu"].unique().to_dict()
""", loses={"hidden_cores_per_rank"}, why="arrays in order of appearance, not sorted lists", reason="the values must be lists"),
    # (b) what kind of run
    wrong("classify_run", """
def classify_run(records: pd.DataFrame, usable: list[int]) -> str:
    if len(records) > len(set(usable)):
        return "oversubscribed"
    for _, rank_rows in records.groupby("rank"):
        allowed = set().union(*(set(cpus) for cpus in rank_rows["allowed_cpus"]))
        if len(allowed) < len(rank_rows):
            return "piled"
    if all(len(set(cpus)) < len(set(usable)) for cpus in records["allowed_cpus"]):
        return "bound"
    return "unbound"


my_labels = {name: classify_run(run.records, list(topo.usable))
             for name, run in {"hello": hello, "unbound": unbound, "piled": piled, "spread": spread}.items()}
""", loses={"hidden_classify_run"}, why="counts rows, not distinct (rank, thread) pairs", reason="the rules say"),
    wrong("classify_run", """
def classify_run(records: pd.DataFrame, usable: list[int]) -> str:
    pairs = records.drop_duplicates(["rank", "thread"])
    if len(pairs) > len(set(usable)):
        return "oversubscribed"
    for _, rank_rows in pairs.groupby("rank"):
        if any(len(set(cpus)) < len(rank_rows) for cpus in rank_rows["allowed_cpus"]):
            return "piled"
    if all(len(set(cpus)) < len(set(usable)) for cpus in pairs["allowed_cpus"]):
        return "bound"
    return "unbound"


my_labels = {name: classify_run(run.records, list(topo.usable))
             for name, run in {"hello": hello, "unbound": unbound, "piled": piled, "spread": spread}.items()}
""", loses={"hidden_classify_run"}, why="each thread's own CPUs against the team size: one thread per core reads as piled", reason="the rules say"),
    # (c) prediction from the placement records, measurement from the timed records
    wrong("piling_slowdown", """
def predicted_slowdown(piled: pd.DataFrame, bound: pd.DataFrame) -> float:
    return float(len(piled.drop_duplicates(["rank", "thread"])))


slowdown = float(timed["one-core"].records["seconds"].median() / timed["cores"].records["seconds"].median())
predicted = predicted_slowdown(piled.records, spread.records)
""", loses={"hidden_piling_slowdown"}, why="the number of threads, whatever CPUs they were allowed (wrong with SMT)", reason="the masks give"),
    wrong("piling_slowdown", """
def predicted_slowdown(piled: pd.DataFrame, bound: pd.DataFrame) -> float:
    def crowding(records):
        cpus = set().union(*(set(c) for c in records["allowed_cpus"]))
        return max(1.0, len(records) / len(cpus))

    return float(crowding(piled) / crowding(bound))


slowdown = float(timed["one-core"].records["seconds"].mean() / timed["cores"].records["seconds"].mean())
predicted = predicted_slowdown(piled.records, spread.records)
""", loses={"hidden_piling_slowdown"}, why="rows counted as threads, and means instead of medians", reason="the masks give"),
    # (d) ring exchange
    wrong("ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    return comm.sendrecv(os.getpid(), dest=(rank - 1) % size, source=(rank + 1) % size)
""", loses={"hidden_ring_exchange"}, why="the ring turned the wrong way (right for 2 ranks only)", reason="every rank must send to its right neighbour"),
    wrong("ring_exchange", """
def ring_exchange():
    import os

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    return comm.sendrecv(os.getpid(), dest=1 - rank, source=1 - rank)
""", loses={"hidden_ring_exchange"}, why="partner 1 - rank: a pair, not a ring",
          # rank 2 of 3 sends to -1, MPICH's MPI_PROC_NULL (nothing sent); rank 3 of 4 to -2
          reason="nvalid rank | every rank must send to its right neighbour"),
]
