"""Lab 01: wrong answers to every graded part (see __init__.py)."""

from solutions_c import RING_EXCHANGE
from wrong_answers import c_cell, wrong


def exchange(code: str) -> str:
    return c_cell("EXCHANGE_C", "thread_ring", code)


def cost(over: str, under: str, statistic: str) -> str:
    """Part (f)'s answer with the levels over/under each other and the statistic given."""
    return f"""
def level_cost(runs):
    def barrier(run):
        samples = slowest_rank_samples(run)
        return samples.loc[samples["construct"] == "mpi_barrier", "seconds"]

    return {{
        "barrier": float(barrier(runs["{over}"]["sync"]).{statistic}()
                         / barrier(runs["{under}"]["sync"]).{statistic}()),
        "latency": float(runs["{over}"]["ping"].records["seconds"].{statistic}()
                         / runs["{under}"]["ping"].records["seconds"].{statistic}()),
    }}
"""


WRONG = [
    # (a) the master race
    wrong("fixed_source", """
fixed_source = racy_source.replace('{"count", "4096"', '{"count", "1"')
""", loses={"hidden_fixed_source"},
        why="race 'removed' by a one-element buffer: the count parameter's default changed", reason="only barriers may be added"),
    wrong("fixed_source", """
fixed_source = racy_source.replace("\\n#pragma omp masked\\n", "\\n#pragma omp barrier\\n#pragma omp masked\\n")
""", loses={"hidden_fixed_source"},
        why="only barrier (1): the second loop still reads stale data", reason="values read wrong"),
    # (b) every thread exchanges its own block
    wrong("exchange_block", exchange(RING_EXCHANGE.replace("int tag = omp_get_thread_num();", "int tag = 0;")),
          loses={"hidden_exchange_block"},
          why="one tag for every thread: blocks meet the wrong thread's receive", reason="did not arrive from the same thread"),
    wrong("exchange_block", exchange(RING_EXCHANGE.replace("#pragma omp critical(mpi)\n", "")),
          loses={"hidden_exchange_block"},
          why="no critical section: threads call MPI at once, which needs MULTIPLE", reason="ThreadComplianceError"),
    wrong("exchange_block", exchange(RING_EXCHANGE.replace(
        "return hl_require_level(ctx, MPI_THREAD_SERIALIZED, \"exchange_block calls MPI from every thread\");",
        "(void)ctx;\n    return 0;")),
          loses={"hidden_exchange_block"},
          why="the level provided is never checked: runs at FUNNELED too", reason="check_thread_level must make the kernel fail"),
    wrong("exchange_block", exchange(RING_EXCHANGE.replace("MPI_Issend(", "MPI_Isend(")),
          loses={"hidden_exchange_block"},
          why="standard sends: works only while MPI buffers the message", reason="use synchronous sends"),
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
'''), loses={"hidden_exchange_block"},
          why="blocking Ssend then Recv inside the critical section: every rank sends first, deadlock", reason="deadlock"),
    # (c) require_level, the warm-up
    wrong("require_level", """
from hybridlab.machine.thread_levels import require_level as _kit_require_level


def require_level(required: str, provided: str) -> str:
    return _kit_require_level(required, provided)
""", loses={"hidden_require_level"}, why="a one-line call of the kit's function", reason="name 'require_level' is not defined"),
    wrong("require_level", """
def require_level(required: str, provided: str) -> str:
    order = {level: i for i, level in enumerate(THREAD_LEVELS)}
    need, got = required.lower(), provided.lower()
    if order.get(got, 0) < order.get(need, 0):
        raise RuntimeError(f"MPI provided {got!r} but this program needs {need!r}")
    return got
""", loses={"hidden_require_level"}, why="unknown level names (and the MPI_THREAD_ prefix) pass silently", reason="AssertionError: require_level("),
    wrong("require_level", """
def require_level(required: str, provided: str) -> str:
    need = str(required).lower().removeprefix("mpi_thread_")
    got = str(provided).lower().removeprefix("mpi_thread_")
    for level in (need, got):
        if level not in THREAD_LEVELS:
            raise ValueError(f"{level!r}: valid levels are {', '.join(THREAD_LEVELS)}")
    if THREAD_LEVELS.index(got) < THREAD_LEVELS.index(need):
        raise RuntimeError(f"MPI provided {got!r} but this program needs {need!r}")
""", loses={"hidden_require_level"}, why="checks, but returns nothing: the level to log is lost", reason="'value': 'None'"),
    # (d) questions about a thread-level table
    wrong("answers", """
def level_answers(table):
    return {
        "provided": {lv: table.loc[table["requested"] == lv, "provided"].iloc[0] for lv in THREAD_LEVELS},
        "always_at_least_requested": True,
        "main_threads": sorted(int(t) for t in set(table["thread"])),
    }
""", loses={"hidden_answers"}, why="every thread counted as a main thread, the levels never compared", reason="the table says"),
    wrong("answers", """
def level_answers(table):
    return {
        "provided": {lv: cluster.thread_level for lv in THREAD_LEVELS},
        "always_at_least_requested": True,
        "main_threads": [0],
    }
""", loses={"hidden_answers"}, why="the engines' level for every request, not the table's", reason="the table says"),
    # (f) the price of MULTIPLE, from the student's own runs
    wrong("multiple_cost", cost(over="funneled", under="multiple", statistic="median"),
          loses={"hidden_multiple_cost"}, why="ratios upside down (FUNNELED over MULTIPLE)", reason="the ratio of the medians"),
    wrong("multiple_cost", cost(over="multiple", under="funneled", statistic="mean"),
          loses={"hidden_multiple_cost"}, why="means instead of medians", reason="the ratio of the medians"),
]
