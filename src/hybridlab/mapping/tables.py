"""Placement arithmetic for lab 06: rank maps on a grid, PEs on NUMA regions, processes on
modules, nodes and cost of a placement, and the launcher flags that ask for one; and, from the
records of runs on several nodes (labs 00 and 06), which ranks shared a node and a socket and
which messages crossed nodes. The links a rank map cuts are lab 06's exercise (a): the
student's `cut_edges` counts them, nothing here does.

Pure functions of their arguments and records: nothing here is measured or launched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from ..machine.placement import BIND_MODES, Placement
from ..machine.topology import Cpu, Topology
from ..runs.records import Results, as_frame, require_columns

# ----------------------------------------------------------------- rank maps on a 2-D grid


def round_robin(ranks: int, nodes: int) -> list[int]:
    """Rank r on node r mod nodes ('rank 0 on node 0, rank 1 on node 1, ...')."""
    return [r % nodes for r in range(ranks)]


def sequential(ranks: int, nodes: int) -> list[int]:
    """Ranks filled node by node ('ranks 0-7 on 1st node, ranks 8-15 on 2nd')."""
    per = math.ceil(ranks / nodes)
    return [r // per for r in range(ranks)]


def blocks(rows: int, cols: int, block_rows: int, block_cols: int) -> list[int]:
    """Rectangular blocks of block_rows x block_cols ranks per node, numbered row by row."""
    across = math.ceil(cols / block_cols)
    return [(r // block_rows) * across + c // block_cols for r in range(rows) for c in range(cols)]


def slide13_maps() -> dict[str, list[int]]:
    """The three maps of Rabenseifner, slide 13 on a 2 x 8 grid over 2 nodes of 8 CPUs."""
    return {
        "round-robin": round_robin(16, 2),
        "sequential": sequential(16, 2),
        "optimal": blocks(2, 8, 2, 4),
    }


# ------------------------------------------------------------ processing elements on a node


def xt6_node() -> dict[int, list[int]]:
    """A Cray XT6 node as Stathopoulos 2010, section 3.1.2 describes it: 24 cores, 4 NUMA regions of 6."""
    return {region: list(range(6 * region, 6 * region + 6)) for region in range(4)}


def packed_cores(node: Mapping[int, Sequence[int]], threads: int) -> list[list[int]]:
    """PE k on the node's cores k*threads .. k*threads+threads-1 (cores in NUMA order), for as
    many PEs as fit: ALPS's default packed placement [a reading of Stathopoulos 2010, section 4.1]."""
    cores = [c for region in sorted(node) for c in sorted(node[region])]
    per_node = len(cores) // threads
    return [cores[k * threads : (k + 1) * threads] for k in range(per_node)]


def per_numa_cores(
    node: Mapping[int, Sequence[int]], threads: int, per_numa: int
) -> list[list[int]]:
    """aprun -S per_numa: per_numa PEs on each NUMA region, each on `threads` of its cores."""
    out = []
    for region in sorted(node):
        cores = sorted(node[region])
        if per_numa * threads > len(cores):
            raise ValueError(
                f"-S {per_numa} -d {threads} needs {per_numa * threads} cores per NUMA region, "
                f"region {region} has {len(cores)}"
            )
        out += [cores[k * threads : (k + 1) * threads] for k in range(per_numa)]
    return out


def regions_of(node: Mapping[int, Sequence[int]], cores: Sequence[int]) -> list[int]:
    """The NUMA regions that hold these cores."""
    where = {c: region for region, members in node.items() for c in members}
    return sorted({where[c] for c in cores})


def straddling(node: Mapping[int, Sequence[int]], threads: int) -> list[int]:
    """PEs (ranks on the node) whose threads span more than one NUMA region, packed placement."""
    return [
        k for k, cores in enumerate(packed_cores(node, threads)) if len(regions_of(node, cores)) > 1
    ]


def straddle_table(node: Mapping[int, Sequence[int]], thread_counts: Sequence[int]) -> pd.DataFrame:
    """For each thread count: PEs per node, which straddle, and whether aprun -S can spread them."""
    regions = len(node)
    rows = []
    for t in thread_counts:
        pes = packed_cores(node, t)
        bad = straddling(node, t)
        rows.append(
            {
                "threads": t,
                "pes_per_node": len(pes),
                "straddling_pes": bad,
                "straddles": bool(bad),
                "aprun_S_possible": len(pes) % regions == 0,
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------- processes on multi-chip modules


def processes_per_module(
    processes: int, policy: str, modules: int = 4, cpus_per_module: int = 8
) -> list[int]:
    """How many processes each module of one frame holds: 'fill' module after module (HPCx
    Phase 1) or 'round-robin' over the modules (Phase 2), Smith et al. 2004, section 7."""
    if processes > modules * cpus_per_module:
        raise ValueError(f"{processes} processes do not fit {modules} x {cpus_per_module} CPUs")
    if policy == "fill":
        return [
            min(cpus_per_module, max(0, processes - m * cpus_per_module)) for m in range(modules)
        ]
    if policy == "round-robin":
        return [
            processes // modules + (1 if m < processes % modules else 0) for m in range(modules)
        ]
    raise ValueError(f"policy must be 'fill' or 'round-robin', not {policy!r}")


def module_of_process(
    processes: int, policy: str, modules: int = 4, cpus_per_module: int = 8
) -> list[int]:
    """The module of each process 0..processes-1 under the policy."""
    if policy == "round-robin":
        return [p % modules for p in range(processes)]
    if policy == "fill":
        return [p // cpus_per_module for p in range(processes)]
    raise ValueError(f"policy must be 'fill' or 'round-robin', not {policy!r}")


def h2mol_table(table: pd.DataFrame) -> pd.DataFrame:
    """001 Table 1 with the busiest module's processes under fill and round-robin."""
    out = table.copy()
    out["fill_max_per_mcm"] = [max(processes_per_module(p, "fill")) for p in out["per_frame"]]
    out["round_robin_max_per_mcm"] = [
        max(processes_per_module(p, "round-robin")) for p in out["per_frame"]
    ]
    out["round_robin_per_mcm"] = [processes_per_module(p, "round-robin") for p in out["per_frame"]]
    return out


# ------------------------------------------------------------------ nodes and their cost

XT6_CORES = 24
XT6_AU_PER_CORE_HOUR = 3.77  # Armstrong et al., CASTEP talk
XT4_AU_PER_CORE_HOUR = 7.5


def nodes_needed(processes: int, per_node: int) -> int:
    """Nodes a job of `processes` takes at `per_node` processes per node (the last may be part-full)."""
    return math.ceil(processes / per_node)


def cost_au(
    nodes: int,
    seconds: float,
    cores_per_node: int = XT6_CORES,
    au_per_core_hour: float = XT6_AU_PER_CORE_HOUR,
) -> float:
    """Charge for whole nodes: nodes x cores per node x hours x rate (Armstrong et al.: users 'are charged for
    whole compute nodes, even if not all cores are actually used')."""
    return nodes * cores_per_node * seconds / 3600.0 * au_per_core_hour


# ---------------------------------------------------------------- launcher flags side by side


def aprun_flags(
    ranks: int, threads: int, bind: str, per_node: int | None = None, per_numa: int | None = None
) -> str:
    """The ALPS line for a binding; -n -N -S -d as used in Armstrong et al., -cc from Cray's documentation."""
    head = f"aprun -n {ranks}" + (f" -N {per_node}" if per_node else "")
    return {
        "none": f"{head} -d {threads} -cc none",
        "cores": f"{head} -d {threads}",
        "spread": f"{head} -S {per_numa or 1} -d {threads}",
        "one-core": f"{head} -d 1",
    }[bind]


def launcher_table(ranks: int, threads: int, usable_cpus: int) -> pd.DataFrame:
    """Every binding the harness offers, and how MPICH, Open MPI, Slurm and ALPS spell it (the
    MPICH, Open MPI and Slurm lines are the ones the harness itself runs)."""
    rows = []
    for bind, meaning in BIND_MODES.items():
        p = Placement(ranks, threads, bind)
        env = p.environment("mpich", usable_cpus)
        rows.append(
            {
                "bind": bind,
                "meaning": meaning,
                "MPICH hydra": " ".join(["mpiexec", "-n", str(ranks), *p.launcher_args("mpich")]),
                "Open MPI": " ".join(["mpirun", "-n", str(ranks), *p.launcher_args("openmpi")]),
                "Slurm srun": " ".join(["srun", "-n", str(ranks), *p.srun_args()]),
                "Cray aprun": aprun_flags(ranks, threads, bind),
                "OpenMP": " ".join(f"{k}={v}" for k, v in env.items() if k.startswith("OMP_")),
            }
        )
    return pd.DataFrame(rows).set_index("bind")


# ------------------------------------------------------------- ranks on the nodes of a run


def rank_hosts(records: Results | pd.DataFrame) -> dict[int, str]:
    """The node (host) of each rank of a run: from the ranks' descriptions in the run's metadata
    (a Results: every rank, even those that wrote no record), else from the records' `host`."""
    described = records.meta.get("ranks", []) if isinstance(records, Results) else []
    hosts = {int(r["rank"]): str(r["host"]) for r in described if "host" in r}
    frame = as_frame(records)
    if not hosts and "host" in frame and len(frame) and frame["host"].notna().all():
        pairs = frame[["rank", "host"]].drop_duplicates("rank")
        hosts = {int(r): str(h) for r, h in zip(pairs["rank"], pairs["host"], strict=True)}
    if not hosts:
        raise ValueError(
            "the records name no host: pass the Results of a run (its metadata names each "
            "rank's node) or records with a `host` column"
        )
    return hosts


def node_of_ranks(hosts: Mapping[int, str]) -> list[int]:
    """Each rank's node as a number 0, 1, ... (nodes numbered by their lowest rank)."""
    order: dict[str, int] = {}
    for rank in sorted(hosts):
        order.setdefault(hosts[rank], len(order))
    return [order[hosts[rank]] for rank in sorted(hosts)]


def node_table(records: Results | pd.DataFrame, topology: Topology) -> pd.DataFrame:
    """Who shares what, one row per node and socket: the ranks there, their threads
    ('r0t1': rank 0, thread 1), the CPUs they ran on. Sockets come from `topology` (the nodes of an
    allocation are alike), a record's CPU from the record itself."""
    frame = as_frame(records).drop_duplicates(["rank", "thread"])
    require_columns(frame, ["rank", "thread", "cpu"], "node tables")
    hosts = rank_hosts(records)
    socket = {c.cpu: c.socket for c in topology.cpus}
    frame = frame.assign(host=[hosts[int(r)] for r in frame["rank"]],
                         socket=[socket.get(int(c), -1) for c in frame["cpu"]])  # fmt: skip
    rows = []
    for (host, sock), g in frame.sort_values(["rank", "thread"]).groupby(["host", "socket"]):
        rows.append({
            "node": host,
            "socket": int(sock),
            "ranks": sorted({int(r) for r in g["rank"]}),
            "threads": [f"r{int(r)}t{int(t)}" for r, t in zip(g["rank"], g["thread"], strict=True)],
            "cpus": sorted({int(c) for c in g["cpu"]}),
        })  # fmt: skip
    return pd.DataFrame(rows)


def xt6_topology() -> Topology:
    """One Cray XT6 node as Stathopoulos 2010, sections 3.1.2 and 4.1 describe it: two 12-core
    processor sockets, four NUMA regions of six cores (one CPU per core)."""
    return Topology(cpus=[Cpu(cpu=c, core=c, socket=c // 12, numa=c // 6) for c in range(24)],
                    usable=tuple(range(24)))  # fmt: skip


def xt6_placement(nodes: int = 2, per_node: int = 4, threads: int = 6) -> pd.DataFrame:
    """Where the ranks and threads of an XT6 run sit with `aprun -N per_node -S 1 -d threads`
    (one process per NUMA region, its threads on that region's cores), ranks filling the nodes
    in order: our reading of Stathopoulos 2010, section 4.1 (the -S option) and Table 4.1's
    4 processes x 6 threads. Records as a run's: host, rank, thread, cpu, numa."""
    node = xt6_node()
    if per_node > len(node) or threads > len(node[0]):
        raise ValueError(f"-S 1 places at most {len(node)} processes of at most "
                         f"{len(node[0])} threads on an XT6 node")  # fmt: skip
    rows = []
    for n in range(nodes):
        for k, cores in enumerate(per_numa_cores(node, threads, 1)[:per_node]):
            for t, core in enumerate(cores):
                rows.append({"host": f"XT6 node {n}", "rank": n * per_node + k, "thread": t,
                             "cpu": core, "numa": core // 6})  # fmt: skip
    return pd.DataFrame(rows)


# ------------------------------------------------- rank maps measured: messages across nodes


def grid_order(node_of_rank: Sequence[int], node_of_position: Sequence[int]) -> list[int]:
    """The world rank to put at each grid position so that position p lands on node
    node_of_position[p], given where the launcher put each rank (node_of_rank): each node's
    ranks are used in increasing order. The map is the program's choice (as MPI_Cart_create's
    `reorder` is), whatever order the launcher used."""
    free: dict[int, list[int]] = {}
    for rank, node in enumerate(node_of_rank):
        free.setdefault(node, []).append(rank)
    wanted = pd.Series(list(node_of_position)).value_counts().to_dict()
    have = {node: len(ranks) for node, ranks in free.items()}
    if len(node_of_position) != len(node_of_rank) or wanted != have:
        raise ValueError(f"the map wants {dict(sorted(wanted.items()))} ranks per node, the run "
                         f"has {dict(sorted(have.items()))}")  # fmt: skip
    return [free[node].pop(0) for node in node_of_position]


def crossing_messages(records: Results | pd.DataFrame) -> pd.DataFrame:
    """The message records of a grid_exchange run, each with its rank's and its peer's node
    and whether it crossed nodes (`across`)."""
    frame = as_frame(records)
    require_columns(frame, ["rank", "peer", "position", "peer_position", "seconds"], "messages")
    hosts = rank_hosts(records)
    messages = frame[frame["record"] == "message"] if "record" in frame else frame
    out = messages.assign(node=[hosts[int(r)] for r in messages["rank"]],
                          peer_node=[hosts[int(p)] for p in messages["peer"]])  # fmt: skip
    return out.assign(across=out["node"] != out["peer_node"])


def cut_links_table(
    runs: Mapping[str, Results | pd.DataFrame], model: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """For each rank map: the links a model cuts (`model`, map -> count: the student's own
    cut_edges; NaN without it), the messages counted in the run's records that crossed nodes
    and the links they make (two messages, one each way, per link), and the median time of a
    message inside a node and across nodes (us)."""
    out = []
    for name, run in runs.items():
        messages = crossing_messages(run)
        inside, across = messages[~messages["across"]], messages[messages["across"]]
        out.append({
            "map": name,
            "model_cut_links": float(model[name]) if model else float("nan"),
            "messages": len(messages),
            "messages_across": len(across),
            "measured_cut_links": len(across) // 2,
            "inside_us": 1e6 * float(inside["seconds"].median()) if len(inside) else float("nan"),
            "across_us": 1e6 * float(across["seconds"].median()) if len(across) else float("nan"),
        })  # fmt: skip
    return pd.DataFrame(out)


def measured_node_of_position(records: Results | pd.DataFrame) -> list[int]:
    """The node (numbered as node_of_ranks does) of the rank at each grid position of a run."""
    messages = crossing_messages(records)
    node = node_of_ranks(rank_hosts(records))
    at = dict(zip(messages["position"].astype(int), messages["rank"].astype(int), strict=True))
    return [node[at[p]] for p in sorted(at)]
