"""Functions that run inside the MPI engines: who am I, and call a kernel in-process."""

from __future__ import annotations

import ctypes
import importlib
import importlib.machinery
import importlib.util
import os
import socket
import sys
import threading

_LIBRARIES: dict[str, ctypes.CDLL] = {}
_ERROR_CAP = 512


def _load(path: str) -> ctypes.CDLL:
    lib = _LIBRARIES.get(path)
    if lib is None:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        lib.hl_entry.restype = ctypes.c_int
        lib.hl_entry.argtypes = [
            ctypes.c_int,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.POINTER(ctypes.POINTER(ctypes.c_char)),
            ctypes.POINTER(ctypes.c_size_t),
            ctypes.c_char_p,
            ctypes.c_size_t,
        ]
        lib.hl_free.argtypes = [ctypes.POINTER(ctypes.c_char)]
        _LIBRARIES[path] = lib
    return lib


def call_kernel(library: str, argv: list[str]) -> tuple[int, str, str]:
    """Run the kernel on COMM_WORLD; returns (status, JSON-lines records, error message)."""
    from mpi4py import MPI

    lib = _load(library)
    args = (ctypes.c_char_p * max(len(argv), 1))(*[a.encode() for a in argv])
    out = ctypes.POINTER(ctypes.c_char)()
    length = ctypes.c_size_t(0)
    error = ctypes.create_string_buffer(_ERROR_CAP)
    status = lib.hl_entry(
        MPI.COMM_WORLD.py2f(),
        len(argv),
        args,
        ctypes.byref(out),
        ctypes.byref(length),
        error,
        _ERROR_CAP,
    )
    text = ctypes.string_at(out, length.value).decode(errors="replace") if out else ""
    if out:
        lib.hl_free(out)
    return status, text, error.value.decode(errors="replace")


def identity() -> dict[str, object]:
    """This engine's rank, process and placement."""
    from mpi4py import MPI

    return {
        "rank": MPI.COMM_WORLD.Get_rank(),
        "size": MPI.COMM_WORLD.Get_size(),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "thread_level": {
            MPI.THREAD_SINGLE: "single",
            MPI.THREAD_FUNNELED: "funneled",
            MPI.THREAD_SERIALIZED: "serialized",
            MPI.THREAD_MULTIPLE: "multiple",
        }[MPI.Query_thread()],
        "allowed_cpus": sorted(os.sched_getaffinity(0)),
        "omp": {k: v for k, v in os.environ.items() if k.startswith("OMP_")},
        "slurm_node": os.environ.get("SLURMD_NODENAME"),  # Slurm's name of the node, under srun
    }


IDENTITY_DIR = "HL_IDENTITY_DIR"  # where a registered engine writes engine-<id>.json


def write_identity(engine_id: int | None) -> None:
    """Once registered, tell the cluster who this engine is in a file (quicker than the
    cluster asking every engine once they are all up)."""
    folder = os.environ.get(IDENTITY_DIR)
    if not folder or engine_id is None:
        return
    import json

    path = os.path.join(folder, f"engine-{engine_id}.json")
    try:
        with open(f"{path}.part", "w") as out:
            json.dump(identity(), out)
        os.replace(f"{path}.part", path)
    except OSError:
        pass  # the folder cannot be written here: the cluster asks instead


def getenv(name: str) -> str | None:
    """An environment variable as the engine sees it (to check what the launcher set)."""
    return os.environ.get(name)


# ----------------------------------------------------------------------- the engine process


# Packages whose __init__ gathers names from submodules an engine never uses (ipyparallel's: its
# client and cluster launchers; jupyter_client's: its kernel managers and provisioners), with
# the names of theirs an engine's start does use, each from the submodule that defines it
# (ipykernel imports `from jupyter_client import write_connection_file`, and its kernel
# application names "jupyter_client.BlockingKernelClient" as a default class).
DEFERRED_INITS = {
    "ipyparallel": {},
    "jupyter_client": {
        "write_connection_file": "connect",
        "find_connection_file": "connect",
        "BlockingKernelClient": "blocking",
    },
}


def defer_init(name: str, sources: dict[str, str]) -> None:
    """Make package `name` importable without running its __init__ until a name it defines is
    used: its submodules import as usual (`import ipyparallel.util`), a name in `sources` is
    taken from the submodule named there, and any other name the package lacks runs its
    __init__ first (a module __getattr__, PEP 562), so code that uses it sees all of it."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        return  # not installed, or not a package: nothing to defer
    package = importlib.util.module_from_spec(spec)
    running = threading.Lock()

    def deferred(attr: str) -> object:
        if attr in sources:
            return getattr(importlib.import_module(f"{name}.{sources[attr]}"), attr)
        if importlib.machinery.PathFinder.find_spec(f"{name}.{attr}", package.__path__):
            raise AttributeError(attr)  # a submodule: the import system imports it
        with running:
            if package.__dict__.get("__getattr__") is deferred:
                del package.__getattr__
                spec.loader.exec_module(package)
        try:
            return package.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    package.__getattr__ = deferred
    sys.modules[name] = package


def import_engine_app() -> type:
    """ipyparallel's IPEngine, imported without what an engine never uses.

    The __init__ of ipyparallel and jupyter_client (DEFERRED_INITS) import clients, cluster
    launchers and kernel managers, a sixth of an engine's imports: they run only when code on
    the engine uses a name of theirs (`ipyparallel.Client`, `jupyter_client.KernelManager`), so
    nothing changes for code run on the engines.

    ipykernel's kernel imports its debugger (debugpy and pydevd) when it is created, the
    largest part of an engine's registration; an ipyparallel engine is never attached to a
    debugger (neither %%px nor JupyterLab's debugger reaches it), so the engine's kernel is
    created as where debugpy is not installed: it answers that it has no debugger.
    """
    import types

    if "ipykernel.debugger" not in sys.modules:
        debugger = types.ModuleType("ipykernel.debugger", "ipykernel's debugger: not in an engine")
        debugger._is_debugpy_available = False
        debugger.Debugger = type("Debugger", (), {})  # the class a kernel's trait names
        sys.modules["ipykernel.debugger"] = debugger
    for name, sources in DEFERRED_INITS.items():
        defer_init(name, sources)
    from ipyparallel.engine.app import IPEngine

    return IPEngine


def main(argv: list[str] | None = None) -> None:
    """Start one ipyparallel engine without ipyparallel's nanny process.

    The nanny is a second Python per engine (it doubles the imports at start-up) that relays
    signal requests and reports the engine's death. The harness does both itself: its supervisor
    watches the launcher for deaths, and this engine answers `signal_request` (what %%px sends on
    a KeyboardInterrupt) on its control thread, which runs while the main thread is busy.
    """
    import builtins
    import signal
    import time

    IPEngine = import_engine_app()
    from traitlets import Bool

    class Engine(IPEngine):
        enable_nanny = Bool(False, config=True)

        def load_connection_file(self):
            # launched while the controller starts, the engine may find its connection file
            # written only in part: read it again until it is whole
            deadline = time.monotonic() + max(self.wait_for_url_file, 1.0)
            while True:
                try:
                    return super().load_connection_file()
                except ValueError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.02)

        async def complete_registration(self, msg, connect, maybe_tunnel):
            await super().complete_registration(msg, connect, maybe_tunnel)
            kernel = self.kernel

            def signal_request(stream, idents, request):
                sig = request["content"]["sig"]
                try:
                    os.kill(os.getpid(), getattr(signal, sig) if isinstance(sig, str) else sig)
                    content = {"status": "ok"}
                except (OSError, AttributeError, TypeError) as err:
                    content = {"status": "error", "ename": type(err).__name__, "evalue": str(err)}
                kernel.session.send(stream, "signal_reply", content, parent=request, ident=idents)

            if kernel is not None:
                kernel.control_handlers["signal_request"] = signal_request
                # a grader's hidden test reads builtins through this name (grading/hidden_names),
                # its functions too when they are sent here to run
                kernel.shell.user_ns.setdefault("__hl_builtins__", builtins)
            write_identity(self.id)

    Engine.launch_instance(argv)


if __name__ == "__main__":
    main()
