"""MPI engines with a placement: start, run kernels in-process, survive crashes and hangs, stop.

    with Cluster(ranks=2, threads=2, bind="cores") as cluster:
        results = cluster.run("hello_hybrid")

The engines are ipyparallel engines started by the MPI launcher (mpiexec, or srun inside a Slurm
allocation: launcher.py decides), so each engine is one MPI rank whose OpenMP threads are placed
by the environment and flags from placement.py. Inside a Slurm allocation of several nodes,
`nodes=N` spreads the ranks (the total) evenly over N of them. A kernel that crashes or hangs
kills the engines (never the notebook) and raises an error naming the rank and its node;
`cluster.restart()` brings them back.
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
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import psutil

from . import _controller, launcher, progress, runs
from . import _engine as engine
from . import _reaper as reaper
from ._controller import engines_on_first_use
from ._supervisor import Supervisor
from .build import Kernel
from .errors import ClusterNotRunning, KernelError
from .paths import numba_cache_dir
from .placement import Placement
from .records import Results
from .topology import Topology, read_topology, venv_bin

if TYPE_CHECKING:  # imported when engines start (about 0.3 s): a deferred cluster needs none
    import ipyparallel as ipp

POLL_SECONDS = 0.01
IDENTITY_WAIT_S = 1.0  # for the engines' identity files, once all have registered
ENGINE = [sys.executable, "-m", "hybridlab._engine"]  # an ipyparallel engine without the nanny
NANNY_ENGINE = [sys.executable, "-m", "ipyparallel.engine"]  # ipyparallel's own, with its nanny


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


class Cluster:
    """`ranks` MPI engines with `threads` OpenMP threads each, placed by `bind`, on `nodes`
    nodes of a Slurm allocation (ranks/nodes on each; 1 node outside an allocation)."""

    # How start() starts; benchmarks/run_benchmarks.py measures each choice, and these
    # defaults are the fastest. warm_controller: borrow the notebook's warm controller (see
    # _controller.py) instead of starting one; overlap_start: launch mpiexec while a new
    # controller starts, not after it is ready; nanny: ipyparallel's nanny process beside each
    # engine (without it, the harness watches the engines and they answer signals themselves).
    # identity_files: each engine writes who it is (rank, pid, CPUs) once registered, instead of
    # start() asking every engine afterwards.
    warm_controller = True
    overlap_start = True
    nanny = False
    identity_files = True

    def __init__(
        self,
        ranks: int = 2,
        threads: int = 1,
        bind: str = "none",
        *,
        thread_level: str = "funneled",
        timeout: float = 120.0,
        start_timeout: float = 60.0,
        nodes: int = 1,
    ):
        self.placement = Placement(ranks, threads, bind, thread_level, nodes)
        if timeout <= 0 or start_timeout <= 0:
            raise ValueError("timeouts must be positive numbers of seconds")
        self.topology: Topology = read_topology()
        self.placement.check_fits(len(self.topology.usable))
        self.launcher = launcher.choose(nodes)
        self.mpi = self.launcher.mpi
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.tag = f"cluster-{uuid.uuid4().hex[:12]}"
        self._crash_file = launcher.shared_folder() / f"hybridlab-{self.tag}.crash"
        self._supervisor = Supervisor(self.tag, self._crash_file)
        self._folder: Path | None = None  # the engines' log of one start
        self._controller: _controller.Controller | None = None
        self._launched: psutil.Popen | None = None  # the launcher process of this start
        self._client: ipp.Client | None = None
        self._view: ipp.DirectView | None = None
        self._engines: list[dict] = []  # identity of each engine, in rank order
        self._deferred = False  # started, engines not yet launched (_controller.ENGINES_ENV)
        self.stopped_because: str | None = None
        self.start_steps: list[tuple[str, float]] = []  # (step, seconds) of the last start()
        self.stop_steps: list[tuple[str, float]] = []  # and of the last stop()

    # ------------------------------------------------------------------ life cycle

    @property
    def thread_level(self) -> str:
        assert self.placement.thread_level is not None
        return self.placement.thread_level

    @property
    def running(self) -> bool:
        return self._view is not None or self._deferred

    @property
    def client(self) -> ipp.Client | None:
        self._launch_deferred()
        return self._client

    @property
    def view(self) -> ipp.DirectView | None:
        """The engines' DirectView (None when stopped)."""
        self._launch_deferred()
        return self._view

    @property
    def engines(self) -> list[dict]:
        """Who each engine is (rank, host, pid, CPUs), in rank order."""
        self._launch_deferred()
        return self._engines

    def engine_environment(self) -> dict[str, str]:
        """What the launcher puts in every engine's environment (placement, thread level, tag)."""
        env = self.placement.engine_environment(self.mpi.implementation, len(self.topology.usable))
        env[reaper.TAG] = self.tag
        env[reaper.OWNER] = reaper.owner_stamp()
        env["HL_CRASH_FILE"] = str(self._crash_file)
        env["NUMBA_CACHE_DIR"] = str(numba_cache_dir())  # numba kernels' cache=True (lab 09)
        env["PATH"] = f"{venv_bin()}{os.pathsep}{os.environ.get('PATH', '')}"
        return env

    def engine_command(self, controller_args: list[str]) -> list[str]:
        """The launcher (mpiexec or srun) with the placement's flags, one engine per rank."""
        return self.launcher.command(
            self.placement,
            [
                *(NANNY_ENGINE if self.nanny else ENGINE),
                "--mpi",
                *controller_args,
                # the engines may start before the controller has written its connection file,
                # and on a loaded or remote node wait long for its reply (ipyparallel #301, #700)
                f"--IPEngine.wait_for_url_file={self.start_timeout:g}",
                f"--IPEngine.timeout={self.start_timeout:g}",
                f"--IPEngine.max_heartbeat_misses={_controller.ENGINE_HEARTBEAT_MISSES}",
            ],
        )

    def start(self) -> Cluster:
        """Start the engines (and a controller when no warm one is free); waits until every
        rank has registered. With HYBRIDLAB_ENGINES=on-first-use (set by the grader), the
        engines start only when something needs them: a run that is not replayed, apply(),
        `view`, `engines` or `client`."""
        if self.running:
            return self
        if engines_on_first_use():
            self._deferred = True
            return self
        return self._launch()

    def _launch(self) -> Cluster:
        n = self.placement.ranks
        with progress.running(f"start {n} engine{'s' if n > 1 else ''} ({self.placement.label})"):
            return self._start()

    def _start(self) -> Cluster:
        t0 = time.perf_counter()
        steps: list[tuple[str, float]] = []

        def step(name: str) -> None:
            steps.append((name, time.perf_counter() - t0 - sum(s for _, s in steps)))

        # engines of notebooks that died without stopping them: killed while ours start; their
        # MPI files are removed once ours are up (not while our MPI_Init creates its own)
        killed: list[int] = []
        orphans = threading.Thread(
            target=lambda: killed.append(reaper.kill_orphans()), name="hybridlab-orphans"
        )
        orphans.start()
        try:
            controller = self._controller = _controller.acquire(self.tag, warm=self.warm_controller)
            fresh = controller.client is None
            if controller.client is not None and controller.client.ids:
                controller.forget_engines(list(controller.client.ids))  # strays of a crash
            if fresh and not self.overlap_start:
                controller.connect(self.start_timeout)
                step("controller ready")
            self._folder = Path(
                tempfile.mkdtemp(prefix=f"hybridlab-{self.tag}-", dir=launcher.shared_folder())
            )
            log = self._folder / "engines.log"
            with open(log, "wb") as out:
                self._launched = psutil.Popen(
                    self.engine_command(controller.args()),
                    env=self.launcher.environment(
                        {**self.engine_environment(), engine.IDENTITY_DIR: str(self._folder)}
                    ),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # a ^C in the notebook does not reach the engines
                )
            self._supervisor.watch([self._launched], log.read_text)
            launched = f"{self.launcher.kind} launched"
            step(launched if fresh else f"{launched} (warm controller)")
            if fresh and self.overlap_start:
                controller.connect(self.start_timeout)
                step("controller ready")
            self._client = controller.client
            self._wait_for_engines()
            step("engines registered")
            ids = list(self._client.ids)
            found = self._identities(ids)  # in the order of ids
            order = sorted(zip(found, ids, strict=True), key=lambda pair: pair[0]["rank"])
            self._engines = [identity for identity, _ in order]
            self._check_one_world()
            self._supervisor.note_segments()  # every rank has initialised MPI
            self._view = self._client[[eid for _, eid in order]]
            self._view.block = True
            if _in_ipython():
                self._view.activate()  # %px / %%px in the notebook now talk to these engines
            step("engines identified")
            orphans.join()
            if any(killed):
                reaper.clean_files()
            step("orphans reaped")
        except BaseException:
            orphans.join()
            self._kill("start-up failed")
            raise
        self.stopped_because = None
        self.start_steps = steps
        return self

    def _identities(self, ids: list[int]) -> list[dict]:
        """Who each engine is: the files our engines wrote once registered (else asked of the
        engines, one round trip)."""
        assert self._client is not None and self._folder is not None
        if self.nanny or not self.identity_files:  # ipyparallel's own engines write none
            return self._client[ids].apply_sync(engine.identity)
        files = [self._folder / f"engine-{eid}.json" for eid in ids]
        deadline = time.monotonic() + IDENTITY_WAIT_S
        while not all(f.exists() for f in files) and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
        try:
            return [json.loads(f.read_text()) for f in files]
        except (OSError, ValueError):
            return self._client[ids].apply_sync(engine.identity)

    def _wait_for_engines(self) -> None:
        """Until every rank registered; fails at once when the launcher dies meanwhile."""
        assert self._client is not None
        deadline = time.monotonic() + self.start_timeout
        while len(self._client.ids) < self.placement.ranks:
            if not self._supervisor.launcher_alive():
                raise ClusterNotRunning(
                    f"the engines exited at start-up:\n{self._supervisor.output()[-2000:]}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{len(self._client.ids)} of {self.placement.ranks} engines registered "
                    f"within {self.start_timeout:g} s"
                )
            time.sleep(POLL_SECONDS)

    def _check_one_world(self) -> None:
        """The engines must be the ranks of one MPI_COMM_WORLD: an MPI that misses the launcher's
        PMI starts each as a singleton (rank 0 of 1)."""
        sizes = {e["size"] for e in self._engines}
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

    def _launch_deferred(self) -> None:
        """Start the engines now if start() deferred them."""
        if self._deferred:
            self._deferred = False
            self._launch()

    def stop(self) -> None:
        """Stop the engines (and a controller of its own); leaves no process of this cluster
        or shared-memory segment behind. A warm controller waits for the next cluster."""
        self._deferred = False
        if self._controller is None and self._launched is None:
            self._crash_file.unlink(missing_ok=True)
            self.stop_steps = []
            return  # nothing running (stopped already, or never started)
        with progress.running(f"stop the engines ({self.placement.label})"):
            self._stop()

    def _stop(self) -> None:
        t0 = time.perf_counter()
        steps: list[tuple[str, float]] = []

        def step(name: str) -> None:
            steps.append((name, time.perf_counter() - t0 - sum(s for _, s in steps)))

        controller = self._controller
        elsewhere = self._other_nodes()
        clean = self._supervisor.stop([])
        step("engines killed, segments removed")
        if elsewhere:
            launcher.clean_nodes(elsewhere)
            step("segments removed on the other nodes")
        if controller is not None:
            ids = list(controller.client.ids) if controller.client is not None else []
            _controller.release(controller, ids)
            step("controller released" if controller.warm else "controller stopped")
        self._forget()
        left = reaper.tagged(self.tag)
        step("looked for leftovers")
        if left or not clean:
            # a rank had died or something is left: kill the rest, and remove the MPI files
            # nothing uses any more (the costly scan of every process)
            reaper.kill(left)
            reaper.clean_files()
            step("killed leftovers, cleaned MPI files")
        self._crash_file.unlink(missing_ok=True)
        self.stop_steps = steps

    def _other_nodes(self) -> list[str]:
        """The Slurm nodes of the engines other than this process's node (where the supervisor
        cannot remove what killed ranks leave)."""
        here = socket.gethostname()
        return sorted(
            {e["slurm_node"] for e in self._engines if e.get("slurm_node") and e["host"] != here}
        )

    def restart(self) -> Cluster:
        """Stop whatever is left and start fresh engines with the same placement."""
        self.stop()
        return self.start()

    def _forget(self) -> None:
        self._client = self._view = None
        self._controller = self._launched = None
        self._engines = []
        self._supervisor.forget()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def _kill(self, reason: str) -> None:
        """Kill the engines at once (after a crash or hang) and the controller with them."""
        self.stopped_because = reason
        self.stop()

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -------------------------------------------------------------------- running

    def _require_running(self) -> None:
        if not self.running:
            why = f" ({self.stopped_because})" if self.stopped_because else ""
            raise ClusterNotRunning(f"the cluster is not running{why}: call cluster.restart()")

    def apply(self, func: Callable, *args, timeout: float | None = None, **kwargs) -> list:
        """Call func(*args, **kwargs) on every rank; returns the results in rank order."""
        return self._apply(
            getattr(func, "__name__", "function"), func, *args, timeout=timeout, **kwargs
        )

    def _apply(self, name: str, func: Callable, *args, timeout: float | None, **kwargs) -> list:
        from ipyparallel.error import CompositeError  # loaded by the engines' start

        self._launch_deferred()
        self._require_running()
        assert self._view is not None
        result = self._view.apply_async(func, *args, **kwargs)
        ranks_by_pid = {e["pid"]: e["rank"] for e in self._engines}
        nodes = self.nodes_of_ranks()
        limit = self.timeout if timeout is None else timeout
        self._supervisor.wait(result, name, limit, self._kill, ranks_by_pid, nodes)
        try:
            return result.get()
        except CompositeError as err:
            if any(kind == "EngineError" for kind, *_ in err.elist):
                self._supervisor.crashed(name, self._kill, ranks_by_pid, nodes)
            raise

    def nodes_of_ranks(self) -> dict[int, str]:
        """The host (node) name of each running rank."""
        return {e["rank"]: e["host"] for e in self._engines}

    def run(self, kernel: str | Kernel, *, timeout: float | None = None, **params) -> Results:
        """Run a kernel in every engine in-process and gather the records of all ranks."""

        def invoke(kernel: Kernel, argv: list[str]) -> runs.Output:
            outputs = self._apply(
                f"kernel '{kernel.name}'",
                engine.call_kernel,
                str(kernel.library),
                argv,
                timeout=timeout,
            )
            for rank, (status, _, err) in enumerate(outputs):
                if status != 0:
                    raise KernelError(f"kernel '{kernel.name}' failed on rank {rank}: {err}")
            return runs.Output(
                [
                    (f"kernel '{kernel.name}' rank {rank}", text)
                    for rank, (_, text, _) in enumerate(outputs)
                ],
                {"launcher": self.launcher.kind},
            )

        kernel = runs.as_kernel(kernel)
        kernel.arguments(params)  # unknown parameters are refused before anything else
        self._require_running()
        return runs.run(
            kernel, params, self.placement, self.topology, self.mpi, invoke, run_by="engines"
        )

    def __repr__(self) -> str:
        state = (
            "running"
            if self._view is not None
            else "started, engines launched at their first use (grading)"
            if self._deferred
            else f"stopped{f' ({self.stopped_because})' if self.stopped_because else ''}"
        )
        p = self.placement
        nodes = f", nodes={p.nodes}" if p.nodes > 1 else ""
        return f"Cluster(ranks={p.ranks}, threads={p.threads}, bind='{p.bind}'{nodes}, {self.mpi.implementation}, {self.launcher.kind}, {state})"
