"""Lab 11's runs and exercise: the race without synchronisation, memory per node and time per
iteration of pure MPI, MPI+OpenMP (lab 04's halo2d) and MPI+MPI (shm_halo), and the student's
shm_jacobi, its own unit linked with shm_halo.c (hybridlab.runs.student_c), judged by what it did.

    race = race_runs(("fence", "lock_all", "none"), stagger_us=(0, 3000), repeats=3)
    mem = memory_runs(nx=2**15, ny=32, ranks=2)          # [pure, MPI+OpenMP, shared window]
    check_student_shm(build_student_shm(code))           # AssertionError naming what is wrong

Several nodes on one machine: MPICH's MPIR_CVAR_NUM_CLIQUES makes MPI_COMM_TYPE_SHARED split
the ranks into that many blocks of consecutive ranks, as nodes would; Open MPI ignores it, and
there the kernel makes the same blocks itself (HL_MADE_UP_NODES: the kit's and the student's
MPI_COMM_TYPE_SHARED splits through hl_node_split.h, an MPI_Comm_split). The checks read which
ranks shared a node from the kernel's own "node" records.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..kernels.build import Kernel
from ..runs.launch import run_program
from ..runs.records import COMM_MAKERS, SENDRECVS, RecordError, Results
from ..runs.student_c import BLOCKING, COMPLETES, POSTS, build_student, run_student

LEVEL = "funneled"  # the main thread calls MPI, outside any parallel region
STAGGER_US = 3000  # odd ranks start every sweep 3 ms late: a missing synchronisation shows
# What the student's code may call: the node's communicator, the window, its synchronisation,
# and point-to-point calls for a neighbour on another node. Anything else that moves data (a
# collective, a one-sided put) would carry the halo some other way.
WINDOW_CALLS = {*COMM_MAKERS, "MPI_Comm_rank", "MPI_Comm_size", "MPI_Win_allocate_shared", "MPI_Win_shared_query", "MPI_Win_fence",
                "MPI_Win_lock_all", "MPI_Win_unlock_all", "MPI_Win_sync", "MPI_Win_free",
                "MPI_Barrier"}  # fmt: skip
# the tracer's bits of a window synchronisation's assert (kernels_c/hl_trace.c, window_mode):
# what a fence may not claim here, since a fence so told may skip its synchronisation: no store
# since the last one (shm_init_block and every sweep store into the window); no epoch before it
# (true of a rank's first fence only), none after it (true after the last sweep only)
NOSTORE, NOPRECEDE, NOSUCCEED, UNDEFINED = 2, 8, 16, 32
MODE_NAMES = {NOSTORE: "MPI_MODE_NOSTORE", NOPRECEDE: "MPI_MODE_NOPRECEDE",
              NOSUCCEED: "MPI_MODE_NOSUCCEED", UNDEFINED: "an assert MPI does not define"}  # fmt: skip
POINT_TO_POINT = {*BLOCKING, *POSTS, *COMPLETES} - {"MPI_Ibarrier", "MPI_Ibcast",
                                                   "MPI_Iallreduce", "MPI_Ireduce",
                                                   "MPI_Ialltoall"}  # fmt: skip
# a row across nodes may travel as a derived datatype the cell builds, commits and frees (one row
# of shm_row_length() doubles, count 1): these move nothing themselves
TYPE_CALLS = {"MPI_Type_contiguous", "MPI_Type_vector", "MPI_Type_create_hvector",
              "MPI_Type_indexed", "MPI_Type_create_subarray", "MPI_Type_create_resized",
              "MPI_Type_commit", "MPI_Type_free"}  # fmt: skip
# the peer of a send to MPI_PROC_NULL (hl_trace.c, HL_PEER_NONE): no message
PEER_NONE = -1
# the calls that send a message: their record's peer and bytes are the send's
SENDS = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Isend", "MPI_Issend",
         "MPI_Ibsend", "MPI_Irsend", *SENDRECVS}  # fmt: skip
# the calls that make a communicator: collective, so each one tells every member something of
# the others (a colour, a key), a channel for data; they set the run up, before the first sweep
COMM_MAKING = {"MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type",
               "MPI_Comm_create", "MPI_Comm_create_group"}  # fmt: skip


def nodes_env(nodes: int) -> dict[str, str]:
    """The environment that splits the ranks into `nodes` blocks of consecutive ranks for
    MPI_COMM_TYPE_SHARED ({} for one node): MPICH's cliques, and for an MPI that ignores them
    (Open MPI) the kernel's own made-up nodes of the same blocks (shm_halo.c, HL_MADE_UP_NODES)."""
    if nodes <= 1:
        return {}
    return {"MPIR_CVAR_NUM_CLIQUES": str(nodes), "MPIR_CVAR_CLIQUES_BY_BLOCK": "1",
            "HL_MADE_UP_NODES": str(nodes)}


def build_student_shm(code: str, name: str = "student_shm") -> Kernel:
    """Compile the student's shm_jacobi (a C cell's code) with shm_halo (variant=student),
    every MPI call traced; BuildError names the cell's lines."""
    return build_student(name, "shm_halo", "HL_STUDENT_SHM_HALO", code, ("shm_jacobi",))


def node_members(res: Results) -> dict[int, frozenset[int]]:
    """Per rank: the ranks of its node, as the kernel's own MPI_Comm_split_type found them (one
    "node" record a rank: a second is refused, as records.parse_framed refuses it, never read
    over the first)."""
    nodes = res.records[res.records["record"] == "node"]
    twice = nodes["rank"][nodes["rank"].duplicated()]
    if len(twice):
        raise RecordError(f"rank {int(twice.iloc[0])} has more than one 'node' record, of which "
                          "the kernel writes one: records forged")  # fmt: skip
    return {int(r.rank): frozenset(int(x) for x in str(r.members).split(","))
            for r in nodes.itertuples()}  # fmt: skip


def _members(comm: object) -> frozenset[int]:
    return frozenset(int(x) for x in str(comm).split(",") if x.strip().isdigit())


def sync_table(res: Results) -> pd.DataFrame:
    """Per rank and sweep: the synchronisation the student's code made since the rank's block
    was laid out (sweep 0) or since its previous sweep ended, and whether it orders the sweep
    after its neighbours' writes: an MPI_Win_fence, or inside an MPI_Win_lock_all epoch an
    MPI_Win_sync, an MPI_Barrier over (at least) the node's ranks, then an MPI_Win_sync."""
    calls = res.mpi_calls
    calls = calls[calls["student"] == 1].sort_values("start")
    sweeps = res.records[res.records["record"] == "sweep"]
    calls = calls.drop(false_fences(calls, sweeps).index)
    laid = res.records[res.records["record"] == "laid_out"].set_index("rank")["time"]
    node = node_members(res)
    rows = []
    for rank, mine in sweeps.sort_values("iteration").groupby("rank"):
        own = calls[calls["rank"] == rank]
        lock = own.loc[own["call"] == "MPI_Win_lock_all", "start"]
        locked_at = float(lock.min()) if len(lock) else float("inf")
        after = float(laid.get(rank, 0.0))
        for sweep in mine.itertuples():
            between = own[(own["start"] >= after) & (own["end"] <= sweep.start)]
            fence = int((between["call"] == "MPI_Win_fence").sum())
            syncs = between[(between["call"] == "MPI_Win_sync") & (between["start"] >= locked_at)]
            spans = [node[int(rank)] <= _members(c) for c in between["comm"]]
            barriers = between[(between["call"] == "MPI_Barrier").to_numpy() & spans]
            sandwiched = any((syncs["end"] <= b.start).any() and (syncs["start"] >= b.end).any()
                             for b in barriers.itertuples())  # fmt: skip
            rows.append({"rank": int(rank), "iteration": int(sweep.iteration), "fences": fence,
                         "win_syncs": len(syncs), "node_barriers": len(barriers),
                         "ordered": bool(fence or sandwiched)})  # fmt: skip
            after = float(sweep.end)
    return pd.DataFrame(rows)


def false_fences(calls: pd.DataFrame, sweeps: pd.DataFrame) -> pd.Series:
    """The student's MPI_Win_fence calls whose assert claims what is false at that fence (see
    MODE_NAMES), indexed as in `calls`: the names of the false claims, ", "-joined."""
    out = {}
    for rank, own in calls[calls["call"] == "MPI_Win_fence"].sort_values("start").groupby("rank"):
        last_sweep = sweeps.loc[sweeps["rank"] == rank, "end"].max()
        for k, fence in enumerate(own.itertuples()):
            allowed = (NOPRECEDE if k == 0 else 0) | (NOSUCCEED if fence.start >= last_sweep else 0)
            false = int(fence.mode) & ~allowed & (NOSTORE | NOPRECEDE | NOSUCCEED | UNDEFINED)
            if false:
                out[fence.Index] = ", ".join(n for b, n in MODE_NAMES.items() if false & b)
    return pd.Series(out, dtype=object)


def _origin(res: Results, rank: int) -> float:
    """`rank`'s clock origin (its "laid_out" record): its times plus it are the machine's clock,
    comparable across ranks."""
    laid = res.records[(res.records["record"] == "laid_out") & (res.records["rank"] == rank)]
    return float(laid["origin"].iloc[0])


def held_rows(res: Results, rank: int, side: str) -> dict[str, tuple[int, int, float]]:
    """The rows `rank` held within depth of its edge `side` ("first": facing the rank above,
    "last": the rank below), from the kit's sealed hashes ("edge" records, shm_halo.c): each
    row's hash -> (state: the sweeps made, depth: rows from the edge, when the rank first held it
    on the machine's clock: shm_init_block's end for state 0, sweep state - 1's end after)."""
    mine = res.records[res.records["rank"] == rank]
    ends = {int(s.iteration) + 1: float(s.end) for s in mine[mine["record"] == "sweep"].itertuples()}
    ends[0] = float(mine.loc[mine["record"] == "laid_out", "time"].iloc[0])
    edges = mine[(mine["record"] == "edge") & (mine["side"] == side)]
    origin = _origin(res, rank)
    return {h: (int(e.state), depth, origin + ends[int(e.state)])
            for e in edges.itertuples() for depth, h in enumerate(str(e.hashes).split("/"))}  # fmt: skip


def received_rows(res: Results, rank: int) -> list[tuple[float, str]]:
    """The rows `rank`'s receives got, as the tracer read them when each completed ("held" of the
    completing call, "THREAD/BYTES/HASH:HASH...": shm_halo.c's shm_held): (when, on the
    machine's clock; the row's hash)."""
    calls = res.mpi_calls
    if "held" not in calls:
        return []
    calls = calls[(calls["student"] == 1) & (calls["rank"] == rank)]
    origin = _origin(res, rank)
    return [(origin + float(end), h) for end, held in zip(calls["end"], calls["held"], strict=True)
            for reading in str(held or "").split(",") if reading and not reading.endswith("+")
            for h in reading.rpartition("/")[2].split(":")]  # fmt: skip


def unreceived_sweeps(res: Results, rank: int, neighbour: int) -> list[int]:
    """The iterations of `rank`'s sweeps before whose start it had not received, by messages
    that arrived once `neighbour` (on another node) held them, that neighbour's rows of some
    state s <= it at every depth 0 .. it - s from the edge facing it: the edge row of state it
    itself, or a halo deep enough to step it locally from an earlier state (ghost-zone
    expansion). A message carrying no row the neighbour held counts for nothing."""
    held = held_rows(res, neighbour, "last" if neighbour < rank else "first")
    arrived: dict[tuple[int, int], float] = {}
    for when, h in received_rows(res, rank):
        state, depth, since = held.get(h, (-1, -1, float("inf")))
        if when > since:
            arrived[state, depth] = min(when, arrived.get((state, depth), float("inf")))
    origin = _origin(res, rank)
    sweeps = res.records[(res.records["record"] == "sweep") & (res.records["rank"] == rank)]
    missed = []
    for sweep in sweeps.sort_values("iteration").itertuples():
        it, start = int(sweep.iteration), origin + float(sweep.start)
        if not any(all(arrived.get((s, d), float("inf")) <= start for d in range(it - s + 1))
                   for s in range(it + 1)):  # fmt: skip
            missed.append(it)
    return missed


def unqueried_neighbours(res: Results, rank: int, node: frozenset[int],
                         own: pd.DataFrame) -> list[int]:
    """`rank`'s neighbours on its node whose block it read (at the address shm_sweep was given,
    the kernel's "laid_out" record: above_at, below_at) outside every segment an
    MPI_Win_shared_query of `rank`'s naming that neighbour returned (the tracer's record: peer,
    buffer, bytes). A block found by address arithmetic from another one is such a read."""
    laid = res.records[(res.records["record"] == "laid_out") & (res.records["rank"] == rank)]
    queries = own[own["call"] == "MPI_Win_shared_query"]
    missing = []
    for neighbour, field in ((rank - 1, "above_at"), (rank + 1, "below_at")):
        if neighbour not in node:
            continue
        at = int(laid[field].iloc[0]) if len(laid) and field in laid else 0
        named = queries[queries["peer"] == neighbour]
        if not (at and any(q.buffer <= at < q.buffer + q.bytes for q in named.itertuples())):
            missing.append(neighbour)
    return missing


def judge_trace(res: Results, ranks: int, row_bytes: int) -> None:
    """AssertionError naming the first thing the trace shows wrong: a call that moves data
    another way, a communicator made once the sweeps have begun, the window not allocated once
    on the node's ranks, a neighbour's block not asked for, a message between ranks of a node, a
    message to a rank that is not a neighbour on another node, one shorter than a row, a
    neighbour's row on another node not received before every sweep (unreceived_sweeps), a
    sweep not ordered after its neighbours'."""
    calls = res.mpi_calls
    calls = calls[calls["student"] == 1]
    sweeps = res.records[res.records["record"] == "sweep"]
    node = node_members(res)
    other = sorted(set(calls["call"]) - WINDOW_CALLS - POINT_TO_POINT - TYPE_CALLS)
    assert not other, (f"your code called {', '.join(other)}: inside a node the halo is read from "
                       "the neighbours' blocks, across nodes it is a message (MPI_Sendrecv; a "
                       "row may be a datatype of your own, committed and freed)")
    first = sweeps.groupby("rank")["start"].min()
    made = calls[calls["call"].isin(COMM_MAKING).to_numpy()
                 & (calls["end"] > calls["rank"].map(first).fillna(float("inf"))).to_numpy()]
    assert made.empty, (
        f"rank {int(made['rank'].iloc[0])} called {made['call'].iloc[0]} after its first sweep "
        f"had begun ({len(made)} such call(s)): communicators are made to set the run up, before "
        "the sweeps; a collective that makes one carries no halo")
    for rank in range(ranks):
        own = calls[calls["rank"] == rank]
        where = f"rank {rank} (node of ranks {sorted(node[rank])})"
        alloc = own[own["call"] == "MPI_Win_allocate_shared"]
        assert len(alloc) == 1, (f"{where}: {len(alloc)} calls of MPI_Win_allocate_shared; "
                                 "allocate the block once, in one window")
        got = _members(alloc["comm"].iloc[0])
        assert got == node[rank], (
            f"{where}: the window was allocated on a communicator of ranks {sorted(got)}, not "
            "on the ranks of the node (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED)")
        far_ones = {n for n in (rank - 1, rank + 1) if 0 <= n < ranks and n not in node[rank]}
        unasked = unqueried_neighbours(res, rank, node[rank], own)
        assert not unasked, (
            f"{where}: read the block of its neighbour rank {unasked[0]} on the node, but no "
            "MPI_Win_shared_query naming that rank returned the block it read: ask the window "
            "for each neighbour's block (MPI_Win_shared_query with the neighbour's rank in the "
            "node's communicator) and pass shm_sweep the pointer it gives")
        # a call that moves a message: a wait or test alone moves none (MPI_Waitall of the
        # requests posted, none on a rank whose neighbours share its node, is a right answer)
        p2p = sorted(set(own["call"]) & (POINT_TO_POINT - set(COMPLETES)))
        assert far_ones or not p2p, (
            f"{where}: called {', '.join(p2p)} although its neighbours share its node (or are "
            "the grid's edge): inside a node nothing travels as a message")
        sends = own[own["call"].isin(SENDS).to_numpy() & (own["peer"] != PEER_NONE).to_numpy()]
        strangers = sorted(set(sends["peer"].astype(int)) - far_ones)
        assert not strangers, (
            f"{where}: sent a message to rank {strangers[0]}, not a neighbour on another node: "
            "a row across nodes goes to the neighbour that needs it, and nothing else travels")
        for side, neighbour in (("above", rank - 1), ("below", rank + 1)):
            if neighbour not in far_ones:
                continue
            sent = sends[sends["peer"] == neighbour]
            short = sorted(set(sent.loc[sent["bytes"] < row_bytes, "bytes"].astype(int)))
            assert not short, (
                f"{where}: sent {short[0]} bytes in a message to rank {neighbour}, less than a "
                f"row ({row_bytes} bytes): across nodes each message carries the whole row")
            missed = unreceived_sweeps(res, rank, neighbour)
            assert not missed, (
                f"{where}: its neighbour {side}, rank {neighbour}, is on another node, but before "
                f"its sweep(s) {missed[:6]} it had not received that rank's row by a message: "
                f"the row rank {neighbour} held after as many sweeps (or, for a deeper halo, its "
                "rows that deep of an earlier sweep), received once that rank held it, as a "
                "contiguous row of doubles; each iteration the row travels as a message into "
                f"halo_{side}")
    false = false_fences(calls, res.records[res.records["record"] == "sweep"])
    assert false.empty, (
        f"an MPI_Win_fence asserts {false.iloc[0]}, which is false there, so MPI may skip the "
        "synchronisation: every sweep stores into the window (no MPI_MODE_NOSTORE), and only a "
        "rank's first fence may say MPI_MODE_NOPRECEDE, only a fence after its last sweep "
        "MPI_MODE_NOSUCCEED (0 is always right; MPI_MODE_NOPUT too, since nothing is put)")
    table = sync_table(res)
    loose = table[~table["ordered"]]
    assert len(table) and loose.empty, (
        "no synchronisation orders these sweeps after the neighbours' writes (rank, iteration): "
        f"{list(zip(loose['rank'], loose['iteration'], strict=True))[:6]}: before every sweep an "
        "MPI_Win_fence, or MPI_Win_sync, MPI_Barrier on the node, MPI_Win_sync inside "
        "MPI_Win_lock_all (a barrier alone orders the processes, not their memory)")


def check_student_shm(
    kernel: Kernel,
    runs: Sequence[tuple[int, int]] = ((2, 1), (3, 1)),
    nx: int = 24,
    ny: int = 11,
    iterations: int = 4,
    stagger_us: int = STAGGER_US,
    timeout: float = 60.0,
) -> pd.DataFrame:
    """Run the student's shm_jacobi for each (ranks, nodes) and judge it: the kernel's check
    (no stale read, the serial sweep's checksum: AssertionError), then the trace (judge_trace).
    Odd ranks start every sweep `stagger_us` late, so a missing synchronisation reads stale
    rows for certain. One row per run."""
    rows = []
    for ranks, nodes in runs:
        try:
            res = run_student(kernel, ranks, 1, LEVEL, timeout, variant="student", nx=nx, ny=ny,
                              iterations=iterations, stagger_us=stagger_us, allreduce=0,
                              env=nodes_env(nodes))  # fmt: skip
        except AssertionError as err:
            raise AssertionError(f"{ranks} ranks on {nodes} node(s): {err} (stale reads: "
                                 "a neighbour's rows read before they were written or while "
                                 "they were overwritten)") from None  # fmt: skip
        judge_trace(res, ranks, row_bytes=(nx + 2) * 8)
        check = res.records[res.records["record"] == "check"].iloc[0]
        rows.append({"ranks": ranks, "nodes": len(set(node_members(res).values())),
                     "nx": nx, "ny": ny, "iterations": iterations,
                     "checksum": float(check["checksum"]), "expected": float(check["expected"]),
                     "stale_reads": int(check["stale_reads"])})  # fmt: skip
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------ the lab's own runs


def race_runs(syncs: Sequence[str], stagger_us: Sequence[int], repeats: int, ranks: int = 2,
              nx: int = 64, ny: int = 32, iterations: int = 20) -> list[Results]:  # fmt: skip
    """The kit's shared-window loop once per synchronisation, stagger and repeat (allreduce=0:
    no collective per iteration that would order the ranks by chance)."""
    return [
        run_program("shm_halo", ranks=ranks, variant="shared", sync=sync, stagger_us=stagger,
                    nx=nx, ny=ny, iterations=iterations, allreduce=0)  # fmt: skip
        for sync in syncs
        for stagger in stagger_us
        for _ in range(repeats)
    ]


def memory_runs(nx: int, ny: int, ranks: int, iterations: int = 5) -> list[Results]:
    """One node, one grid: pure MPI (halo2d, `ranks` ranks), MPI+OpenMP (halo2d hybrid 1,
    master only: 1 rank of `ranks` threads) and MPI+MPI (shm_halo, `ranks` ranks), each rank's
    PSS read before the grid is freed."""
    common = dict(nx=nx, ny=ny, iterations=iterations)
    return [
        run_program("halo2d", ranks=ranks, variant="pure", memory=1, **common),
        run_program("halo2d", ranks=1, threads=ranks, thread_level="funneled",
                    variant="hybrid1", memory=1, **common),  # fmt: skip
        run_program("shm_halo", ranks=ranks, variant="shared", check=0, **common),
    ]


def time_runs(n: int, ranks: int, iterations: int, bind: str,
              student: Kernel | None = None) -> list[Results]:  # fmt: skip
    """Time per iteration on an n x n grid: pure MPI and master only (halo2d, lab 04), the kit's
    shared window and, given, the student's (both with delta summed every iteration, as
    halo2d does)."""
    common = dict(nx=n, ny=n, iterations=iterations, bind=bind)
    out = [
        run_program("halo2d", ranks=ranks, variant="pure", **common),
        run_program("halo2d", ranks=1, threads=ranks, thread_level="funneled", variant="hybrid1",
                    **common),  # fmt: skip
        run_program("shm_halo", ranks=ranks, variant="shared", check=0, **common),
    ]
    if student is not None:
        out.append(run_student(student, ranks, 1, LEVEL, 120.0, variant="student", **common))
    return out
