"""Lab 01: wrong answers to every graded part (see __init__.py)."""

from solutions_c import RING_EXCHANGE
from wrong_answers import wrong


def exchange(code: str) -> str:
    return f'EXCHANGE_C = r"""{code}"""'


def cost(over: str, under: str, statistic: str) -> str:
    """Part (f)'s answer with the levels over/under each other and the statistic given."""
    return f"""
def barrier(run):
    samples = slowest_rank_samples(run)
    return samples.loc[samples["construct"] == "mpi_barrier", "seconds"]


multiple_cost = {{
    "barrier": float(barrier(cost_runs["{over}"]["sync"]).{statistic}()
                     / barrier(cost_runs["{under}"]["sync"]).{statistic}()),
    "latency": float(cost_runs["{over}"]["ping"].records["seconds"].{statistic}()
                     / cost_runs["{under}"]["ping"].records["seconds"].{statistic}()),
}}
request_multiple_for_hybrid3 = True
because = "The ratio shows how much slower every call is when MULTIPLE is asked for."
"""


WRONG = [
    # (a) the master race
    wrong("fixed_source", """
fixed_source = racy_source.replace('{"count", "4096"', '{"count", "1"')
""", loses={"hidden_fixed_source"},
        why="race 'removed' by a one-element buffer: the count parameter's default changed"),
    wrong("fixed_source", """
fixed_source = racy_source.replace("\\n#pragma omp master\\n", "\\n#pragma omp barrier\\n#pragma omp master\\n")
""", loses={"test_fixed_source", "hidden_fixed_source"},
        why="only barrier (1): the second loop still reads stale data"),
    # (b) every thread exchanges its own block
    wrong("exchange_block", exchange(RING_EXCHANGE.replace("int tag = omp_get_thread_num();", "int tag = 0;")),
          loses={"test_exchange_block", "hidden_exchange_block"},
          why="one tag for every thread: blocks meet the wrong thread's receive"),
    wrong("exchange_block", exchange(RING_EXCHANGE.replace("#pragma omp critical(mpi)\n", "")),
          loses={"test_exchange_block", "hidden_exchange_block"},
          why="no critical section: threads call MPI at once, which needs MULTIPLE"),
    wrong("exchange_block", exchange(RING_EXCHANGE.replace(
        "return hl_require_level(ctx, MPI_THREAD_SERIALIZED, \"exchange_block calls MPI from every thread\");",
        "(void)ctx;\n    return 0;")),
          loses={"hidden_exchange_block"},
          why="the level provided is never checked: runs at FUNNELED too"),
    wrong("exchange_block", exchange(RING_EXCHANGE.replace("MPI_Issend(", "MPI_Isend(")),
          loses={"hidden_exchange_block"},
          why="standard sends: works only while MPI buffers the message"),
    wrong("exchange_block", exchange(r'''
int check_thread_level(hl_ctx *ctx) {
    return hl_require_level(ctx, MPI_THREAD_SERIALIZED, "exchange_block calls MPI from every thread");
}

void exchange_block(const int *send, int *recv, int n, int left, int right, MPI_Comm comm) {
    int tag = omp_get_thread_num();
#pragma omp critical(mpi)
    {
        MPI_Ssend(send, n, MPI_INT, right, tag, comm);
        MPI_Recv(recv, n, MPI_INT, left, tag, comm, MPI_STATUS_IGNORE);
    }
}
'''), loses={"test_exchange_block", "hidden_exchange_block"},
          why="blocking Ssend then Recv inside the critical section: every rank sends first, deadlock"),
    # (c) require_level, the warm-up
    wrong("require_level", """
from hybridlab.thread_levels import require_level as _kit_require_level


def require_level(required: str, provided: str) -> None:
    return _kit_require_level(required, provided)
""", loses={"hidden_require_level"}, why="a one-line call of the kit's function"),
    wrong("require_level", """
def require_level(required: str, provided: str) -> None:
    order = {level: i for i, level in enumerate(THREAD_LEVELS)}
    if order.get(provided, 0) < order.get(required, 0):
        raise RuntimeError(f"MPI provided {provided!r} but this program needs {required!r}")
""", loses={"test_require_level", "hidden_require_level"}, why="unknown level names pass silently"),
    # (d) questions about the student's own table
    wrong("answers", """
answers = {
    "provided": {level: levels.loc[levels["requested"] == level, "provided"].iloc[0] for level in THREAD_LEVELS},
    "always_at_least_requested": True,
    "main_threads": sorted(int(t) for t in set(levels["thread"])),
}
""", loses={"hidden_answers"}, why="every thread counted as a main thread"),
    wrong("answers", """
answers = {
    "provided": {level: cluster.thread_level for level in THREAD_LEVELS},
    "always_at_least_requested": True,
    "main_threads": [0],
}
""", loses={"hidden_answers"}, why="the engines' level for every request, not the table's"),
    # (e) which level a fragment needs
    wrong("needed_levels", """
needed = {"A": "funneled", "B": "funneled", "C": "multiple", "D": "serialized", "E": "single", "F": "multiple"}
""", loses={"hidden_needed_levels"}, why="omp single taken for the master thread"),
    wrong("needed_levels", """
needed = {"A": "serialized", "B": "funneled", "C": "serialized", "D": "serialized", "E": "single", "F": "serialized"}
""", loses={"hidden_needed_levels"}, why="concurrent sections and tasks taken as one at a time"),
    # (f) the price of MULTIPLE, from the student's own runs
    wrong("multiple_cost", cost(over="funneled", under="multiple", statistic="median"),
          loses={"hidden_multiple_cost"}, why="ratios upside down (FUNNELED over MULTIPLE)"),
    wrong("multiple_cost", cost(over="multiple", under="funneled", statistic="mean"),
          loses={"hidden_multiple_cost"}, why="means instead of medians"),
]
