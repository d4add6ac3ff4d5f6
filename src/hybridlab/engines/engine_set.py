"""One start of a cluster's engines: a controller, the launcher process (mpiexec or srun) with
one ipyparallel engine per MPI rank, who each engine is, and a stop that leaves nothing behind.

Cluster (cluster.py) owns the placement and what runs on the engines; an EngineSet is what one
Cluster.start() brought up, until Cluster.stop().
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import psutil

from ..errors import ClusterNotRunning
from ..machine import launcher, reaper
from ..machine.placement import Placement
from ..machine.topology import Topology
from ..paths import numba_cache_dir, venv_bin
from . import controller, engine
from .supervisor import Supervisor

if TYPE_CHECKING:  # imported when engines start (about 0.3 s)
    import ipyparallel as ipp

POLL_SECONDS = 0.01
ASK_HUB_S = 0.25  # while engines are missing, ask the hub which are registered this often
IDENTITY_WAIT_S = 1.0  # for the engines' identity files, once all have registered
ENGINE = [sys.executable, "-m", "hybridlab.engines.engine"]  # an ipyparallel engine without the nanny
NANNY_ENGINE = [sys.executable, "-m", "ipyparallel.engine"]  # ipyparallel's own, with its nanny


@dataclass(frozen=True)
class StartChoices:
    """How engines start; benchmarks/run_benchmarks.py measures each choice, and Cluster's
    defaults are the fastest. warm_controller: borrow the notebook's warm controller
    (controller.py) instead of starting one; overlap_start: launch the engines while a new
    controller starts, not after it is ready; nanny: ipyparallel's nanny process beside each
    engine (without it, the supervisor watches the engines and they answer signals themselves);
    identity_files: each engine writes who it is (rank, pid, CPUs) once registered, instead of
    being asked afterwards."""

    warm_controller: bool = True
    overlap_start: bool = True
    nanny: bool = False
    identity_files: bool = True


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


class EngineSet:
    """The engines of one start of a cluster tagged `tag`, watched by `supervisor`."""

    def __init__(
        self,
        placement: Placement,
        topology: Topology,
        chosen: launcher.Launcher,
        supervisor: Supervisor,
        tag: str,
        crash_file: Path,
        start_timeout: float,
        choices: StartChoices,
    ):
        self.placement, self.topology, self.launcher = placement, topology, chosen
        self.supervisor, self.tag, self.crash_file = supervisor, tag, crash_file
        self.start_timeout, self.choices = start_timeout, choices
        self.folder: Path | None = None  # the engines' log and identity files
        self.controller: controller.Controller | None = None
        self.launched: psutil.Popen | None = None  # the launcher process
        self.client: ipp.Client | None = None
        self.view: ipp.DirectView | None = None
        self.engines: list[dict] = []  # identity of each engine, in rank order

    def environment(self) -> dict[str, str]:
        """What the launcher puts in every engine's environment (placement, thread level, tag)."""
        env = self.placement.engine_environment(
            self.launcher.mpi.implementation, len(self.topology.usable)
        )
        env[reaper.TAG] = self.tag
        env[reaper.OWNER] = reaper.owner_stamp()
        env["HL_CRASH_FILE"] = str(self.crash_file)
        env["NUMBA_CACHE_DIR"] = str(numba_cache_dir())  # numba kernels' cache=True (lab 09)
        env["PATH"] = f"{venv_bin()}{os.pathsep}{os.environ.get('PATH', '')}"
        return env

    def command(self, controller_args: list[str]) -> list[str]:
        """The launcher (mpiexec or srun) with the placement's flags, one engine per rank."""
        return self.launcher.command(
            self.placement,
            [
                *(NANNY_ENGINE if self.choices.nanny else ENGINE),
                "--mpi",
                *controller_args,
                # the engines may start before the controller has written its connection file,
                # and on a loaded or remote node wait long for its reply (ipyparallel #301, #700)
                f"--IPEngine.wait_for_url_file={self.start_timeout:g}",
                f"--IPEngine.timeout={self.start_timeout:g}",
                f"--IPEngine.max_heartbeat_misses={controller.ENGINE_HEARTBEAT_MISSES}",
            ],
        )

    def start(self, kill: Callable[[str], None]) -> list[tuple[str, float]]:
        """Launch the engines and wait until every rank registered and said who it is; `kill`
        (the cluster's) on any failure. Returns (step, seconds) of each step."""
        steps = _Steps()
        # engines of notebooks that died without stopping them: killed while ours start; their
        # MPI files are removed once ours are up (not while our MPI_Init creates its own)
        killed: list[int] = []
        orphans = threading.Thread(
            target=lambda: killed.append(reaper.kill_orphans()), name="hybridlab-orphans"
        )
        orphans.start()
        try:
            self._launch(steps)
            self._wait_for_engines()
            steps("engines registered")
            assert self.client is not None
            ids = list(self.client.ids)
            found = self._identities(ids)  # in the order of ids
            order = sorted(zip(found, ids, strict=True), key=lambda pair: pair[0]["rank"])
            self.engines = [identity for identity, _ in order]
            self._check_one_world()
            self.supervisor.note_segments()  # every rank has initialised MPI
            self.view = self.client[[eid for _, eid in order]]
            self.view.block = True
            if _in_ipython():
                self.view.activate()  # %px / %%px in the notebook now talk to these engines
            steps("engines identified")
            orphans.join()
            if any(killed):
                reaper.clean_files()
            steps("orphans reaped")
        except BaseException:
            orphans.join()
            kill("start-up failed")
            raise
        return steps.done

    def _launch(self, steps: _Steps) -> None:
        running = self.controller = controller.acquire(
            self.tag, warm=self.choices.warm_controller
        )
        fresh = running.client is None
        if running.client is not None and running.client.ids:
            running.forget_engines(list(running.client.ids))  # strays of a crash
        if fresh and not self.choices.overlap_start:
            running.connect(self.start_timeout)
            steps("controller ready")
        self.folder = Path(
            tempfile.mkdtemp(prefix=f"hybridlab-{self.tag}-", dir=launcher.shared_folder())
        )
        log = self.folder / "engines.log"
        with open(log, "wb") as out:
            self.launched = psutil.Popen(
                self.command(running.args()),
                env=self.launcher.environment(
                    {**self.environment(), engine.IDENTITY_DIR: str(self.folder)}
                ),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a ^C in the notebook does not reach the engines
            )
        self.supervisor.watch([self.launched], log.read_text)
        launched = f"{self.launcher.kind} launched"
        steps(launched if fresh else f"{launched} (warm controller)")
        if fresh and self.choices.overlap_start:
            running.connect(self.start_timeout)
            steps("controller ready")
        self.client = running.client

    def _identities(self, ids: list[int]) -> list[dict]:
        """Who each engine is: the files our engines wrote once registered (else asked of the
        engines, one round trip)."""
        assert self.client is not None and self.folder is not None
        if self.choices.nanny or not self.choices.identity_files:  # ipyparallel's write none
            return self.client[ids].apply_sync(engine.identity)
        files = [self.folder / f"engine-{eid}.json" for eid in ids]
        deadline = time.monotonic() + IDENTITY_WAIT_S
        while not all(f.exists() for f in files) and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
        try:
            return [json.loads(f.read_text()) for f in files]
        except (OSError, ValueError):
            return self.client[ids].apply_sync(engine.identity)

    def _wait_for_engines(self) -> None:
        """Until every rank registered (as the hub notifies the client, or answers when asked);
        fails at once when the launcher dies meanwhile."""
        assert self.client is not None and self.controller is not None
        deadline = time.monotonic() + self.start_timeout
        asked = time.monotonic()
        while len(self.client.ids) < self.placement.ranks:
            if time.monotonic() - asked > ASK_HUB_S:
                self.controller.ask_hub_for_engines()
                asked = time.monotonic()
            if not self.supervisor.launcher_alive():
                raise ClusterNotRunning(
                    f"the engines exited at start-up:\n{self.supervisor.output()[-2000:]}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{len(self.client.ids)} of {self.placement.ranks} engines registered "
                    f"within {self.start_timeout:g} s"
                )
            time.sleep(POLL_SECONDS)

    def _check_one_world(self) -> None:
        """The engines must be the ranks of one MPI_COMM_WORLD: an MPI that misses the launcher's
        PMI starts each as a singleton (rank 0 of 1)."""
        sizes = {e["size"] for e in self.engines}
        if sizes != {self.placement.ranks}:
            hint = (
                f" (srun offered --mpi={launcher.srun_mpi() or '<the site default>'}: set "
                f"{launcher.SRUN_MPI} to the plugin your MPI uses, e.g. pmix; `srun --mpi=list`)"
                if self.launcher.kind == "srun"
                else ""
            )
            raise ClusterNotRunning(
                f"the {self.placement.ranks} engines are not one MPI world (sizes {sorted(sizes)}):"
                f" the MPI did not find the launcher's process manager{hint}"
            )

    def stop(self) -> list[tuple[str, float]]:
        """Kill the engines, release the controller, remove what they left (here and on the
        other nodes). Returns (step, seconds) of each step."""
        steps = _Steps()
        elsewhere = self._other_nodes()
        clean = self.supervisor.stop([])
        steps("engines killed, segments removed")
        if elsewhere:
            launcher.clean_nodes(elsewhere)
            steps("segments removed on the other nodes")
        if self.controller is not None:
            client = self.controller.client
            controller.release(self.controller, list(client.ids) if client is not None else [])
            steps("controller released" if self.controller.warm else "controller stopped")
        self.client = self.view = self.controller = self.launched = None
        self.engines = []
        self.supervisor.forget()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
        left = reaper.tagged(self.tag)
        steps("looked for leftovers")
        if left or not clean:
            # a rank had died or something is left: kill the rest, and remove the MPI files
            # nothing uses any more (the costly scan of every process)
            reaper.kill(left)
            reaper.clean_files()
            steps("killed leftovers, cleaned MPI files")
        return steps.done

    def _other_nodes(self) -> list[str]:
        """The Slurm nodes of the engines other than this process's node (where the supervisor
        cannot remove what killed ranks leave)."""
        here = socket.gethostname()
        return sorted(
            {e["slurm_node"] for e in self.engines if e.get("slurm_node") and e["host"] != here}
        )


class _Steps:
    """(step, seconds since the step before) of a start or a stop, as they happen."""

    def __init__(self):
        self.t0 = time.perf_counter()
        self.done: list[tuple[str, float]] = []

    def __call__(self, name: str) -> None:
        self.done.append((name, time.perf_counter() - self.t0 - sum(s for _, s in self.done)))
