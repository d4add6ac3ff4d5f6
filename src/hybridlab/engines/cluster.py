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

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import progress
from ..errors import ClusterNotRunning, KernelError
from ..kernels.build import Kernel
from ..machine import launcher
from ..machine.placement import Placement
from ..machine.topology import Topology, read_topology
from ..runs import replay, run_path
from ..runs.records import Results
from . import engine
from .controller import engines_on_first_use
from .engine_set import EngineSet, StartChoices
from .supervisor import Supervisor

if TYPE_CHECKING:  # imported when engines start (about 0.3 s): a deferred cluster needs none
    import ipyparallel as ipp


class Cluster:
    """`ranks` MPI engines with `threads` OpenMP threads each, placed by `bind`, on `nodes`
    nodes of a Slurm allocation (ranks/nodes on each; 1 node outside an allocation)."""

    # How start() starts (engine_set.StartChoices says what each means); benchmarks and tests
    # change them on an instance before it starts.
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
        self._engines: EngineSet | None = None  # what the last start() brought up
        self._deferred = False  # started, engines not yet launched (controller.ENGINES_ENV)
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
    def _view(self) -> ipp.DirectView | None:
        return self._engines.view if self._engines is not None else None

    @property
    def client(self) -> ipp.Client | None:
        self._launch_deferred()
        return self._engines.client if self._engines is not None else None

    @property
    def view(self) -> ipp.DirectView | None:
        """The engines' DirectView (None when stopped); while the engines wait for their first
        use (grading), a view that starts them when it is used (activating it needs no engines:
        their start activates it)."""
        if self._deferred:
            return _DeferredView(self)  # type: ignore[return-value]
        return self._view

    @property
    def engines(self) -> list[dict]:
        """Who each engine is (rank, host, pid, CPUs, thread level), in rank order. When grading
        replays the reference run and the engines have not started, the reference run's answer
        to this read (replay.kept_engines): what the engines would say, without starting them."""
        return replay.kept_engines(self.placement, {}, self._engine_list,
                                   started=not self._deferred)  # fmt: skip

    def _engine_list(self) -> list[dict]:
        """The engines' own identities (started now if they were deferred)."""
        self._launch_deferred()
        return self._engines.engines if self._engines is not None else []

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
        choices = StartChoices(self.warm_controller, self.overlap_start, self.nanny,
                               self.identity_files)  # fmt: skip
        self._engines = EngineSet(self.placement, self.topology, self.launcher, self._supervisor,
                                  self.tag, self._crash_file, self.start_timeout, choices)  # fmt: skip
        with progress.running(f"start {n} engine{'s' if n > 1 else ''} ({self.placement.label})"):
            self.start_steps = self._engines.start(self._kill)
        self.stopped_because = None
        return self

    def _launch_deferred(self) -> None:
        """Start the engines now if start() deferred them."""
        if self._deferred:
            self._deferred = False
            self._launch()

    def stop(self) -> None:
        """Stop the engines (and a controller of its own); leaves no process of this cluster
        or shared-memory segment behind. A warm controller waits for the next cluster."""
        self._deferred = False
        started, self._engines = self._engines, None
        if started is None or (started.controller is None and started.launched is None):
            self._crash_file.unlink(missing_ok=True)
            self.stop_steps = []
            return  # nothing running (stopped already, or never started)
        with progress.running(f"stop the engines ({self.placement.label})"):
            self.stop_steps = started.stop()
        self._crash_file.unlink(missing_ok=True)

    def restart(self) -> Cluster:
        """Stop whatever is left and start fresh engines with the same placement."""
        self.stop()
        return self.start()

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
        ranks_by_pid = {e["pid"]: e["rank"] for e in self._engine_list()}
        nodes = self.nodes_of_ranks()
        limit = self.timeout if timeout is None else timeout
        self._supervisor.wait(result, name, limit, self._kill, ranks_by_pid, nodes)
        try:
            return result.get()
        except CompositeError as err:
            if any(kind == "EngineError" for kind, *_ in err.elist):
                self._supervisor.crashed(name, self._kill, ranks_by_pid, nodes)
            raise

    def kept_apply(self, func: Callable, *args) -> list:
        """apply() of one of the kit's functions whose arguments and results are JSON values,
        kept and given back the way kernel runs are (replay.kept_call): when grading replays the
        reference run and the engines wait for their first use, the reference run's results of
        the same call (function, arguments, placement, OpenMP/MPI/numba settings), without starting
        them."""
        name = f"{func.__module__}.{func.__qualname__}"
        return replay.kept_call(name, list(args), self.placement, lambda: self.apply(func, *args),
                                started=not self._deferred)  # fmt: skip

    def nodes_of_ranks(self) -> dict[int, str]:
        """The host (node) name of each running rank."""
        return {e["rank"]: e["host"] for e in self._engine_list()}

    def run(self, kernel: str | Kernel, *, timeout: float | None = None, **params) -> Results:
        """Run a kernel in every engine in-process and gather the records of all ranks."""

        def invoke(kernel: Kernel, argv: list[str]) -> run_path.Output:
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
            return run_path.Output(
                [
                    (f"kernel '{kernel.name}' rank {rank}", text)
                    for rank, (_, text, _) in enumerate(outputs)
                ],
                {"launcher": self.launcher.kind},
            )

        kernel = run_path.as_kernel(kernel)
        kernel.arguments(params)  # unknown parameters are refused before anything else
        self._require_running()
        return run_path.run(
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


class _DeferredView:
    """Cluster.view while the engines wait for their first use (grading). activate() with no
    arguments points ipyparallel's %px magics at the view: the engines' start does that when it
    happens, and a notebook whose engines are deferred uses no such magic
    (controller.may_defer_engines), so it waits for them. Anything else starts the engines and
    is the DirectView's."""

    def __init__(self, cluster: Cluster):
        self._cluster = cluster

    def activate(self, *args: object, **kwargs: object) -> None:
        if self._cluster._deferred and not args and not kwargs:
            return None
        return self._started().activate(*args, **kwargs)

    def _started(self) -> ipp.DirectView:
        self._cluster._launch_deferred()
        view = self._cluster._view
        if view is None:
            raise ClusterNotRunning("the cluster is not running: call cluster.restart()")
        return view

    def __getattr__(self, name: str) -> object:
        return getattr(self._started(), name)

    # what a DirectView does by its operators: view["x"] pulls, view["x"] = v pushes, len(view)
    def __getitem__(self, key: object) -> object:
        return self._started()[key]

    def __setitem__(self, key: object, value: object) -> None:
        self._started()[key] = value

    def __len__(self) -> int:
        return len(self._started())

    def __iter__(self):  # noqa: ANN204 - the DirectView's own iterator
        return iter(self._started())

    def __bool__(self) -> bool:
        return True  # a running cluster's view has its engines

    def __repr__(self) -> str:
        return f"<DirectView of {self._cluster!r}>"
