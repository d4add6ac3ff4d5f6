"""MPI engines with a placement: start, run kernels in-process, survive crashes and hangs, stop.

    with Cluster(ranks=2, threads=2, bind="cores") as cluster:
        results = cluster.run("hello_hybrid")

The engines are ipyparallel engines started by the MPI launcher, so each engine is one MPI rank
whose OpenMP threads are placed by the environment and flags from placement.py. A kernel that
crashes or hangs kills the engines (never the notebook) and raises an error naming the rank;
`cluster.restart()` brings them back.
"""

from __future__ import annotations

import logging
import os
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

import ipyparallel as ipp
from traitlets.config import Config

from . import _engine as engine
from . import _reaper as reaper
from . import runs
from ._supervisor import Supervisor
from .build import Kernel
from .errors import ClusterNotRunning, KernelError
from .placement import Placement
from .records import Results
from .topology import NO_MPIEXEC, Topology, find_mpiexec, read_topology, venv_bin

CLEAN_EXIT_SECONDS = 3.0  # how long engines get to shut down cleanly before being terminated
HEARTBEAT_MS = 500  # ipyparallel's default 3000 ms makes start-up take seconds longer


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


class Cluster:
    """`ranks` MPI engines with `threads` OpenMP threads each, placed by `bind`."""

    def __init__(
        self,
        ranks: int = 2,
        threads: int = 1,
        bind: str = "none",
        *,
        thread_level: str = "funneled",
        timeout: float = 120.0,
        start_timeout: float = 60.0,
    ):
        self.placement = Placement(ranks, threads, bind, thread_level)
        if timeout <= 0 or start_timeout <= 0:
            raise ValueError("timeouts must be positive numbers of seconds")
        self.topology: Topology = read_topology()
        self.placement.check_fits(len(self.topology.usable))
        self.mpi = find_mpiexec()
        if self.mpi.mpiexec is None:
            raise ClusterNotRunning(NO_MPIEXEC)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.tag = f"cluster-{uuid.uuid4().hex[:12]}"
        self._crash_file = Path(tempfile.gettempdir()) / f"hybridlab-{self.tag}.crash"
        self._supervisor = Supervisor(self.tag, self._crash_file)
        self._ipp: ipp.Cluster | None = None
        self.client: ipp.Client | None = None
        self.view: ipp.DirectView | None = None
        self.engines: list[dict] = []  # identity of each engine, in rank order
        self.stopped_because: str | None = None

    # ------------------------------------------------------------------ life cycle

    @property
    def thread_level(self) -> str:
        assert self.placement.thread_level is not None
        return self.placement.thread_level

    @property
    def running(self) -> bool:
        return self.client is not None

    def engine_environment(self) -> dict[str, str]:
        """What the launcher puts in every engine's environment (placement, thread level, tag)."""
        env = self.placement.engine_environment(self.mpi.implementation, len(self.topology.usable))
        env[reaper.TAG] = self.tag
        env[reaper.OWNER] = reaper.owner_stamp()
        env["HL_CRASH_FILE"] = str(self._crash_file)
        env["PATH"] = f"{venv_bin()}{os.pathsep}{os.environ.get('PATH', '')}"
        return env

    def start(self) -> Cluster:
        """Start the controller and the engines; waits until every rank has registered."""
        if self.running:
            return self
        os.environ.setdefault("IPP_NONINTERACTIVE", "1")
        reaper.reap_orphans()  # engines of notebooks that died without stopping them
        config = Config()
        launcher = config.MPIEngineSetLauncher
        launcher.mpi_cmd = [self.mpi.mpiexec]
        launcher.mpi_args = self.placement.launcher_args(self.mpi.implementation)
        launcher.environment = self.engine_environment()
        config.LocalControllerLauncher.environment = {
            reaper.TAG: self.tag,
            reaper.OWNER: reaper.owner_stamp(),
        }
        self._ipp = ipp.Cluster(
            engines="mpi",
            n=self.placement.ranks,
            controller_args=[f"--HeartMonitor.period={HEARTBEAT_MS}"],
            engine_timeout=int(self.start_timeout),
            delay=0,
            config=config,
            log_level=logging.ERROR,
        )
        try:
            self.client = self._ipp.start_and_connect_sync()
            engine_sets = list(self._ipp.engines.values())
            self._supervisor.watch(
                [es.process for es in engine_sets if getattr(es, "process", None) is not None],
                lambda: "".join(es.get_output() for es in engine_sets),
            )
            self.client.wait_for_engines(self.placement.ranks, timeout=self.start_timeout)
            ids = list(self.client.ids)
            found = self.client[ids].apply_sync(engine.identity)  # in the order of ids
            order = sorted(zip(found, ids, strict=True), key=lambda pair: pair[0]["rank"])
            self.engines = [identity for identity, _ in order]
            self.view = self.client[[eid for _, eid in order]]
            self.view.block = True
            if _in_ipython():
                self.view.activate()  # %px / %%px in the notebook now talk to these engines
        except BaseException:
            self._kill("start-up failed")
            raise
        self.stopped_because = None
        return self

    def stop(self) -> None:
        """Stop engines and controller; leaves no process or shared-memory segment behind."""
        if self._ipp is not None:
            try:
                if self.client is not None and self.stopped_because is None:
                    # ask the engines to finish cleanly, so MPI_Finalize removes its segments;
                    # engines that do not answer in time are terminated below
                    self.client.shutdown(targets="all", hub=False, block=False)
                    self._supervisor.wait_for_launcher(CLEAN_EXIT_SECONDS)
                if self.client is not None:
                    self.client.close()
                # engines first: stopping both at once takes seconds longer
                self._ipp.stop_engines_sync()
                self._ipp.stop_controller_sync()
            except Exception:  # noqa: BLE001 - whatever failed, the reaper below finishes it
                pass
        self._forget()
        reaper.reap(self.tag)
        self._crash_file.unlink(missing_ok=True)

    def restart(self) -> Cluster:
        """Stop whatever is left and start fresh engines with the same placement."""
        self.stop()
        return self.start()

    def _forget(self) -> None:
        self._ipp = self.client = self.view = None
        self.engines = []
        self._supervisor.forget()

    def _kill(self, reason: str) -> None:
        """Kill the engines at once (after a crash or hang) and the controller with them."""
        self.stopped_because = reason
        self._supervisor.kill()
        self.stop()
        self.stopped_because = reason

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
        self._require_running()
        assert self.view is not None
        result = self.view.apply_async(func, *args, **kwargs)
        ranks_by_pid = {e["pid"]: e["rank"] for e in self.engines}
        limit = self.timeout if timeout is None else timeout
        self._supervisor.wait(result, name, limit, self._kill, ranks_by_pid)
        try:
            return result.get()
        except ipp.error.CompositeError as err:
            if any(kind == "EngineError" for kind, *_ in err.elist):
                self._supervisor.crashed(name, self._kill, ranks_by_pid)
            raise

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
                ]
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
            if self.running
            else f"stopped{f' ({self.stopped_because})' if self.stopped_because else ''}"
        )
        p = self.placement
        return f"Cluster(ranks={p.ranks}, threads={p.threads}, bind='{p.bind}', {self.mpi.implementation}, {state})"
