"""The ipyparallel controller that clusters' engines register with, kept warm between clusters.

A lab starts and restarts clusters several times; the controller (a Python process importing
ipyparallel, about a second of CPU) does not depend on the placement, so one notebook process
keeps one warm controller, with a connected client, and lends it to one running Cluster at a
time. When the cluster stops, its engines are killed and unregistered from the controller (what
ipyparallel's nanny would report), and the controller waits for the next cluster. A second
cluster running at the same time gets a controller of its own, stopped with it.

A notebook kernel starts the warm controller when it imports hybridlab (see `prestart`), so
that the controller is ready by the time the lab's first cluster starts.

Inside a Slurm allocation the engines may run on other nodes than the notebook: the controller
then listens on every interface and tells the engines to reach it at this node's address
(ipyparallel's `--ip=*` and `location`), and keeps its connection files in a folder every node
sees (launcher.shared_folder). Elsewhere it listens on the loopback only.

The warm controller carries the notebook's owner stamp (so the reaper kills it when the notebook
dies) but no cluster tag, is stopped when the Python process exits, and `shutdown_warm()` stops
it at once.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tokenize
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import psutil

from ..machine import launcher, reaper

if TYPE_CHECKING:
    import ipyparallel as ipp

# The hub accepts an engine at the beat after the one its heart first answered, so one to two
# periods are part of every start: ipyparallel's default (3000 ms) makes it seconds longer, 50 ms
# 50-100 ms (benchmarks/bench_engine_start.py). The hub still gives an engine 5 s of missed beats.
HEARTBEAT_MS = 50
HEARTBEAT_MISSES = 5000 // HEARTBEAT_MS
# An engine looks for the hub's pings every period + 500 ms (ipyparallel's engine) and stops
# after this many looks without one: about 90 s.
ENGINE_HEARTBEAT_MISSES = 90_000 // (HEARTBEAT_MS + 500)
POLL_SECONDS = 0.01
MIN_HUB_WAIT = 30.0  # seconds the client waits for the hub at least, whatever the start took
COMMAND = [sys.executable, "-m", "ipyparallel.controller"]


# Set by the grader when it replays the reference run's kernel runs: a cluster's engines start at
# their first use, so a graded notebook whose cluster runs are all replayed starts no engine and no
# controller (about 3 CPU-seconds of each submission).
ENGINES_ENV = "HYBRIDLAB_ENGINES"
ON_FIRST_USE = "on-first-use"
# ipyparallel's magics (%px, %%px, %autopx, %pxresult, ...) need engines the moment the cell runs
PX_MAGIC = re.compile(r"%%?(auto)?px|_magic\(\s*['\"](auto)?px")


def engines_on_first_use() -> bool:
    """Whether Cluster.start() leaves the engines to their first use (ENGINES_ENV)."""
    return os.environ.get(ENGINES_ENV) == ON_FIRST_USE


def may_defer_engines(notebook_source: str) -> bool:
    """Whether a notebook's engines can start at their first use: it uses no ipyparallel magic
    (the magics talk to the engines that start() activated). `notebook_source`: the notebook's
    JSON, or a cell's code. Only code counts: a markdown cell or a comment naming a magic runs
    none (lab 01's "# %%px talks to the lab's cluster again"); a string naming one does count
    (it may be a cell given to run_cell)."""
    return PX_MAGIC.search(_code_of(notebook_source)) is None


def _code_of(notebook_source: str) -> str:
    """The code cells of a notebook's JSON (or the text, when it is not a notebook's JSON), each
    without its comments."""
    try:
        nb = json.loads(notebook_source)
    except ValueError:
        nb = None
    if not (isinstance(nb, dict) and isinstance(nb.get("cells"), list)):
        return _without_comments(notebook_source)
    cells = [c.get("source", "") for c in nb["cells"]
             if isinstance(c, dict) and c.get("cell_type") == "code"]  # fmt: skip
    texts = ["".join(s) if isinstance(s, list) else str(s) for s in cells]
    return "\n".join(_without_comments(text) for text in texts)


def _without_comments(cell: str) -> str:
    """A cell's code as IPython runs it (its magics and !commands as the calls they become) with
    its comments left out; the cell as it is when that cannot be read (nothing left out)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        code = TransformerManager().transform_cell(cell)
        lines = code.splitlines(keepends=True)
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:  # a comment runs to the end of its line
                row, col = token.start
                end = "\n" if lines[row - 1].endswith("\n") else ""
                lines[row - 1] = lines[row - 1][:col] + end
        return "".join(lines)
    except Exception:  # noqa: BLE001 - unreadable code: the whole cell counts
        return cell


def listening_args() -> list[str]:
    """Where the controller listens: every interface, engines told this node's address, inside an
    allocation (engines on other nodes); the loopback only (ipyparallel's default) elsewhere."""
    if not launcher.in_allocation():
        return []
    return ["--ip=*", f"--location={launcher.node_address()}"]


class ControllerError(RuntimeError):
    """The controller did not start."""


class Controller:
    """One ipcontroller process, the folder of its connection files, and a client once ready."""

    def __init__(self, env: dict[str, str], *, warm: bool):
        self.warm = warm
        self.cluster_id = f"controller-{uuid.uuid4().hex[:12]}"
        self.folder = Path(
            tempfile.mkdtemp(prefix=f"hybridlab-{self.cluster_id}-", dir=launcher.shared_folder())
        )
        self.client_file = self.folder / "security" / f"ipcontroller-{self.cluster_id}-client.json"
        self.log = self.folder / "controller.log"
        self.client: ipp.Client | None = None
        self.in_use = False
        with open(self.log, "wb") as out:
            self.process = psutil.Popen(
                [
                    *COMMAND,
                    *self.args(),
                    *listening_args(),
                    f"--HeartMonitor.period={HEARTBEAT_MS}",
                    f"--HeartMonitor.max_heartmonitor_misses={HEARTBEAT_MISSES}",
                ],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a ^C in the notebook does not reach it
            )

    def args(self) -> list[str]:
        """What an engine (or the controller) needs to find this controller."""
        return [
            f"--profile-dir={self.folder}",
            f"--cluster-id={self.cluster_id}",
            "--log-level=ERROR",
        ]

    def alive(self) -> bool:
        return self.process.poll() is None

    def connect(self, timeout: float) -> ipp.Client:
        """The client, once the controller has written its connection file."""
        if self.client is None:
            deadline = time.monotonic() + timeout
            while not _complete_json(self.client_file):
                if not self.alive():
                    tail = self.log.read_text(errors="replace")[-2000:]
                    raise ControllerError(f"the controller exited at start-up:\n{tail}")
                if time.monotonic() > deadline:
                    raise ControllerError(f"the controller did not start within {timeout:g} s")
                time.sleep(POLL_SECONDS)
            import ipyparallel as ipp  # here: starting a controller needs none of it

            # ipyparallel waits 10 s for the hub's answer by default; a loaded machine (a class
            # starting clusters together, CI's two cores) can take longer: the start's budget.
            waited = max(deadline - time.monotonic(), MIN_HUB_WAIT)
            self.client = ipp.Client(str(self.client_file), timeout=waited)
        return self.client

    def ask_hub_for_engines(self) -> None:
        """Ask the hub which engines it has registered; the client takes them in when the hub
        answers (in the client's own thread, where it takes the hub's notifications in too).
        An engine that registers while a new controller's client connects can miss the
        client's subscription to those notifications, and would otherwise never be listed."""
        client = self.client
        if client is None:
            return
        asked = client._send(client._query_stream, "connection_request")  # noqa: SLF001 - what the client asks when it connects

        def take(answer) -> None:
            if answer.exception() is None:
                client._update_engines(answer.result()["content"]["engines"])  # noqa: SLF001 - as the client takes the first answer

        asked.add_done_callback(take)

    def forget_engines(self, ids: list[int], timeout: float = 2.0) -> bool:
        """Unregister engines that were killed (what the nanny would have reported), and wait
        until the client no longer lists them; True when it does not."""
        client = self.client
        if client is None:
            return False
        for eid in ids:
            client.session.send(client._query_socket, "unregistration_request", content={"id": eid})  # noqa: SLF001 - the hub's own request, as the nanny sends it
        deadline = time.monotonic() + timeout
        while set(client.ids) & set(ids):
            if time.monotonic() > deadline or not self.alive():
                return False
            time.sleep(POLL_SECONDS)
        return True

    def stop(self) -> None:
        """Close the client, kill the controller and its schedulers, remove the folder."""
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close()
            self.client = None
        reaper.kill([self.process])
        shutil.rmtree(self.folder, ignore_errors=True)


_lock = threading.Lock()
_warm: Controller | None = None


def _environment(tag: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env[reaper.OWNER] = reaper.owner_stamp()
    if tag is None:
        env.pop(reaper.TAG, None)
    else:
        env[reaper.TAG] = tag
    return env


def acquire(tag: str, *, warm: bool = True) -> Controller:
    """The warm controller when it is free (started when there is none), else a private one
    tagged `tag`, which release() stops."""
    global _warm
    with _lock:
        if warm and _warm is not None and not _warm.alive():
            _warm.stop()
            _warm = None
        if warm and _warm is None:
            _warm = Controller(_environment(None), warm=True)
        if warm and not _warm.in_use:
            _warm.in_use = True
            return _warm
    return Controller(_environment(tag), warm=False)


def prestart() -> None:
    """Start the warm controller now, if there is none, without waiting for it: a notebook
    calls this when it imports hybridlab, so that its first cluster finds the controller up.
    Not when engines start at their first use (grading): most graded notebooks need none."""
    global _warm
    if engines_on_first_use():
        return
    with _lock:
        if _warm is None:
            _warm = Controller(_environment(None), warm=True)


def release(controller: Controller, engine_ids: list[int]) -> None:
    """A cluster is done with the controller: keep the warm one for the next cluster."""
    global _warm
    if controller.warm and controller.alive() and controller.forget_engines(engine_ids):
        controller.in_use = False
        return
    controller.stop()
    with _lock:
        if controller is _warm:
            _warm = None


def shutdown_warm() -> None:
    """Stop the warm controller now (it is started again by the next cluster)."""
    global _warm
    with _lock:
        warm, _warm = _warm, None
    if warm is not None:
        warm.stop()


atexit.register(shutdown_warm)


def _complete_json(path: Path) -> bool:
    try:
        json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return True
