"""Run inside a 2-node Slurm allocation by test_multinode.py (`salloc -N 2 ... python
multinode_job.py OUT`), from the login side, as a trainer's JupyterLab started in `salloc`.

A cluster of one rank with two threads on each node, and standalone programs inside one node and
across both, the way a notebook starts them; writes what it saw as JSON to OUT for the test.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import hybridlab as hl  # noqa: E402
from faulty_kernels import CRASH  # noqa: E402
from hybridlab.course import doctor
from hybridlab.halo.serial import jacobi2d  # noqa: E402
from hybridlab.machine import (
    launcher,  # noqa: E402
    reaper,  # noqa: E402
)
from hybridlab.plots import placement_map  # noqa: E402

HALO = {"variant": "hybrid1", "nx": 13, "ny": 11, "iterations": 5}
PINGPONG = {"min_bytes": 8, "max_bytes": 65536, "iterations": 20, "skip": 5, "samples": 1}
PINGPONG |= {"iterations_large": 10, "skip_large": 2}
LONG_SPIN_MS = 60000  # a kernel still running when its rank is killed
KILL_AFTER_S = 3.0


def hosts_of_ranks(res: hl.Results) -> dict[int, str]:
    """Each rank's host, as the records say (every record carries its rank's)."""
    return {int(r): h for r, h in res.records[["rank", "host"]].drop_duplicates().values}


def pingpong_seen(res: hl.Results) -> dict[str, object]:
    rows = res.records[res.records["mode"] == "sweep"]  # rank 0's: it times the round trips
    return {
        "hosts": {r["rank"]: r["host"] for r in res.meta["ranks"]},
        "sizes": sorted(int(b) for b in rows["bytes"].unique()),
        "positive": bool((rows["seconds"] > 0).all()),
    }


def main(out: Path) -> None:
    seen: dict[str, object] = {"allocation_nodes": launcher.allocation_nodes()}
    facts, findings = doctor.examine()
    seen["doctor"] = {
        k: str(facts.get(k))
        for k in ("Slurm nodes", "nodes reached by srun", "launcher", "launcher on 2 nodes")
    }
    seen["doctor_problems"] = [f.text for f in findings if f.level == "problem"]
    topo = hl.read_topology()
    with hl.Cluster(ranks=2, threads=2, bind="cores", nodes=2, timeout=120) as cluster:
        seen["repr"] = repr(cluster)
        seen["engine_hosts"] = cluster.nodes_of_ranks()
        hello = cluster.run("hello_hybrid", spin_ms=20)
        seen["hello"] = {
            "hosts": hosts_of_ranks(hello),
            "threads": sorted(
                {(int(r), int(t)) for r, t in hello.records[["rank", "thread"]].values}
            ),
            "meta_hosts": hello.meta["hosts"],
            "placement": hello.meta["placement"],
        }
        fig = placement_map(hello, topo, title="2 nodes")
        seen["map_titles"] = [ax.get_title() for ax in fig.axes]
        fig.savefig(out.with_suffix(".png"))
        seen["pingpong_across"] = pingpong_seen(cluster.run("pingpong", **PINGPONG))
        halo = cluster.run("halo2d", **HALO)
        rows = halo.records[halo.records["record"] == "checksum"]
        seen["halo"] = {
            "hosts": hosts_of_ranks(halo),
            "checksum": [float(rows["checksum"].iloc[0]), float(rows["delta"].iloc[0])],
            "serial": list(jacobi2d(HALO["nx"], HALO["ny"], HALO["iterations"])),
        }
        try:
            cluster.run(hl.build_source("crash", CRASH), victim=1, timeout=60)
            seen["crash"] = "no error"
        except hl.KernelCrash as err:
            seen["crash"] = {"rank": err.rank, "node": err.node, "message": str(err)}
        seen["left_after_crash"] = [p.pid for p in reaper.tagged(cluster.tag)]
        cluster.restart()
        seen["after_restart"] = cluster.nodes_of_ranks()
        # the second node lost mid-run: its rank's process killed while it computes (the test
        # reaches it because the "nodes" share this machine's process table)
        victim = next(e["pid"] for e in cluster.engines if e["rank"] == 1)
        threading.Timer(KILL_AFTER_S, os.kill, (victim, signal.SIGKILL)).start()
        try:
            cluster.run("hello_hybrid", spin_ms=LONG_SPIN_MS, timeout=120)
            seen["lost"] = "no error"
        except hl.KernelCrash as err:
            seen["lost"] = {"rank": err.rank, "node": err.node, "message": str(err)}
        seen["left_after_loss"] = [p.pid for p in reaper.tagged(cluster.tag)]
        cluster.restart()
        tag = cluster.tag
    seen["engines_left"] = [p.pid for p in reaper.tagged(tag)]

    inside = hl.run_program("pingpong", ranks=2, threads=1, bind="cores", **PINGPONG)
    across = hl.run_program("pingpong", ranks=2, threads=1, bind="cores", nodes=2, **PINGPONG)
    seen["pingpong_programs"] = {
        "inside": {**pingpong_seen(inside), "command": inside.meta["command"]},
        "across": {**pingpong_seen(across), "command": across.meta["command"]},
    }
    try:
        hl.run_program(hl.build_source("crash", CRASH), ranks=2, nodes=2, victim=1, timeout=60)
        seen["program_crash"] = "no error"
    except hl.KernelCrash as err:
        seen["program_crash"] = {"rank": err.rank, "node": err.node, "message": str(err)}
    try:
        hl.Cluster(ranks=3, nodes=3)
        seen["too_many_nodes"] = "accepted"
    except hl.LauncherError as err:
        seen["too_many_nodes"] = str(err)
    out.write_text(json.dumps(seen, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
