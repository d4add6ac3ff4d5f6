"""Run inside a Slurm allocation by test_slurm.py (`salloc -n 2 python slurm_job.py OUT`).

Starts a Cluster and standalone programs the way a notebook does, through whatever launcher the
kit chooses there, and writes what it saw as JSON to OUT for the test to check.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import hybridlab as hl  # noqa: E402
from faulty_kernels import CRASH  # noqa: E402
from hybridlab.course import doctor
from hybridlab.engines.engine import getenv  # noqa: E402
from hybridlab.machine import (
    launcher,  # noqa: E402
    reaper,  # noqa: E402
)
from hybridlab.plots import placement_map  # noqa: E402
from hybridlab.runs import replay  # noqa: E402


def placement(result: hl.Results) -> list[dict]:
    """rank, thread, the CPU it ran on and the CPUs it was allowed, per record."""
    frame = result.records[["rank", "thread", "cpu", "allowed_cpus"]]
    return [
        {"rank": int(r), "thread": int(t), "cpu": int(c), "allowed": sorted(int(x) for x in a)}
        for r, t, c, a in frame.itertuples(index=False)
    ]


def main(out: Path) -> None:
    seen: dict[str, object] = {"job": os.environ.get("SLURM_JOB_ID")}
    seen["launcher"] = launcher.choose().kind
    seen["doctor"] = doctor.examine()[0]["launcher"]
    topo = hl.read_topology()
    with hl.Cluster(ranks=2, threads=1, timeout=120) as cluster:
        seen["repr"] = repr(cluster)
        seen["step"] = cluster.apply(getenv, "SLURM_STEP_ID")  # set by slurmstepd, not by mpiexec
        hello = cluster.run("hello_hybrid", spin_ms=20)
        seen["engines"] = {"meta_launcher": hello.meta["launcher"], "records": placement(hello)}
        placement_map(hello, topo, title="engines through srun").savefig(out.with_suffix(".png"))
        try:
            cluster.run(hl.build_source("crash", CRASH), timeout=60)
            seen["crash"] = "no error"
        except hl.KernelCrash as err:
            seen["crash"] = {"rank": err.rank, "message": str(err)}
        cluster.restart()
        seen["after_restart"] = len(cluster.apply(getenv, "SLURM_STEP_ID"))
        tag = cluster.tag
    seen["engines_left"] = [p.pid for p in reaper.tagged(tag)]
    programs = {}
    for ranks, threads, bind in ((2, 1, "cores"), (1, 2, "one-core"), (1, 2, "none")):
        res = hl.run_program("hello_hybrid", ranks=ranks, threads=threads, bind=bind, spin_ms=20)
        programs[bind] = {
            "run_by": res.meta["run_by"],
            "command": res.meta["command"],
            "records": placement(res),
        }
    seen["programs"] = programs
    kept = out.with_name("kept_runs")  # a run kept under srun, as a hub's notebook keeps it
    os.environ[replay.ENV] = f"record:{kept}"
    recorded = hl.run_program("hello_hybrid", ranks=2, spin_ms=20)
    os.environ[launcher.CHOICE] = "mpiexec"  # the venv's hydra inside the allocation
    try:
        res = hl.run_program("hello_hybrid", ranks=2, spin_ms=20)
        ranks = sorted({int(r) for r in res.records["rank"]})
        seen["mpiexec_inside"] = {"run_by": res.meta["run_by"], "ranks": ranks}
        # ... given back to the same run under mpiexec (as the grading sandbox launches it)
        os.environ[replay.ENV] = f"replay:{kept}"
        replay._seen.clear()
        again = hl.run_program("hello_hybrid", ranks=2, spin_ms=20)
        seen["srun_run_replayed"] = {
            "recorded_by": recorded.meta["run_by"], "replayed": again.meta.get("replayed"),
            "same": again.meta["seconds"] == recorded.meta["seconds"],
        }  # fmt: skip
    finally:
        del os.environ[launcher.CHOICE], os.environ[replay.ENV]
    seen["usable"] = list(topo.usable)
    os.environ[launcher.SRUN_MPI] = "none"  # no PMI: each engine is an MPI world of its own
    try:
        hl.Cluster(ranks=2, start_timeout=60).start()
        seen["without_pmi"] = "started"
    except hl.ClusterNotRunning as err:
        seen["without_pmi"] = str(err)
    finally:
        del os.environ[launcher.SRUN_MPI]
    out.write_text(json.dumps(seen, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
