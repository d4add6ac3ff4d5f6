"""A Python function called once on every rank of a fresh MPI job, without engines.

What Cluster.apply does for a caller that needs one call and no state kept between calls (a
graded test of a student's function): the launcher starts one plain Python per rank, which
initialises MPI, calls the function and writes what it returned, so no controller or
ipyparallel engine has to start (a few CPU seconds a cluster). The function travels as
ipyparallel's engines receive it (its code, defaults and closure; the globals of a function
defined in the notebook are a fresh namespace, like an engine's before anything ran on it).

    python -m hybridlab.engines.once FOLDER   (one rank: FOLDER/function.pkl in, rank-N.pkl out)
"""

from __future__ import annotations

import io
import marshal
import os
import pickle
import sys
import tempfile
import traceback
import types
from collections.abc import Callable
from pathlib import Path

FUNCTION_FILE = "function.pkl"
_TRACEBACK_TAIL = 3000  # characters of a rank's traceback quoted in the error


class FunctionFailed(RuntimeError):
    """The function raised on a rank; .rank says which, the message carries its traceback."""

    def __init__(self, message: str, rank: int):
        super().__init__(message)
        self.rank = rank


class _Empty:
    """Stands for an empty closure cell (a name the function's maker had not yet bound)."""


_namespace: dict = {}  # the globals of the functions rebuilt in this rank (main)


def _rebuild(code: bytes, name: str, defaults, kwdefaults, cells: tuple) -> types.FunctionType:
    closure = tuple(types.CellType() if isinstance(v, _Empty) else types.CellType(v) for v in cells)
    func = types.FunctionType(marshal.loads(code), _namespace, name, defaults, closure or None)
    func.__kwdefaults__ = kwdefaults
    return func


# where the modules lie that a rank imports as the caller does (installed, or the kit's own)
_IMPORTABLE = tuple({sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parents[1])})


def _by_value(func: types.FunctionType) -> bool:
    """Whether a function travels by value: the notebook's (module __main__), one defined inside
    another, or one of a module a rank may not import (neither installed nor the kit's)."""
    if func.__module__ == "__main__" or "<locals>" in func.__qualname__:
        return True
    path = getattr(sys.modules.get(func.__module__), "__file__", None)
    return path is None or not str(Path(path).resolve()).startswith(_IMPORTABLE)


class _ByValue(pickle.Pickler):
    """Pickles the functions _by_value says travel by value so; everything else as pickle does."""

    def reducer_override(self, obj):
        if not isinstance(obj, types.FunctionType) or not _by_value(obj):
            return NotImplemented
        cells = []
        for cell in obj.__closure__ or ():
            try:
                cells.append(cell.cell_contents)
            except ValueError:
                cells.append(_Empty())
        return _rebuild, (marshal.dumps(obj.__code__), obj.__name__, obj.__defaults__,
                          obj.__kwdefaults__, tuple(cells))  # fmt: skip


def _dumps(func: Callable) -> bytes:
    out = io.BytesIO()
    _ByValue(out).dump(func)
    return out.getvalue()


def _result_file(folder: Path, rank: int) -> Path:
    return folder / f"rank-{rank}.pkl"


def call_once(
    func: Callable, ranks: int = 2, threads: int = 1, bind: str = "none", *,
    timeout: float = 60.0, thread_level: str = "funneled",
) -> list:  # fmt: skip
    """func() on every rank of a fresh `mpiexec -n ranks` job (srun in an allocation); what
    each rank returned, in rank order. A rank that raises fails the call (FunctionFailed, with
    its traceback); a job still running after `timeout` seconds is killed (KernelTimeout). The
    placement and thread level are those of hl.Cluster, which this stands in for."""
    from ..machine import launcher
    from ..machine.placement import Placement
    from ..machine.topology import read_topology
    from ..paths import cache_root
    from ..runs.launch import launch

    placement = Placement(ranks, threads, bind, thread_level)
    usable = len(read_topology().usable)
    placement.check_fits(usable)
    chosen = launcher.choose(1)
    calls = cache_root() / "calls"
    calls.mkdir(parents=True, exist_ok=True, mode=0o700)
    with tempfile.TemporaryDirectory(dir=calls) as made:
        folder = Path(made)
        (folder / FUNCTION_FILE).write_bytes(_dumps(func))
        cmd = chosen.command(placement, [sys.executable, "-m", __name__, str(folder)])
        env = chosen.environment(placement.engine_environment(chosen.mpi.implementation, usable))
        name = f"{getattr(func, '__name__', 'function')} on {ranks} rank{'s' * (ranks > 1)}"
        launch(cmd, env, name, timeout, False, chosen.kind)
        outcomes = []
        for rank in range(ranks):
            path = _result_file(folder, rank)
            if not path.exists():
                raise FunctionFailed(f"{name}: rank {rank} returned nothing (exited early)", rank)
            outcomes.append(pickle.loads(path.read_bytes()))
    for rank, (ok, value) in enumerate(outcomes):
        if not ok:
            raise FunctionFailed(f"{name}: rank {rank} raised\n{value}", rank)
    return [value for _, value in outcomes]


def main(folder: str) -> None:
    """One rank: initialise MPI, call the function, write (True, result) or (False, traceback)."""
    import builtins

    from mpi4py import MPI

    rank = MPI.COMM_WORLD.Get_rank()
    where = Path(folder)
    # the namespace an engine gives a function defined in the notebook (engine.main): builtins,
    # also under the name a grader's hidden test reads them by (grading/hidden_names)
    _namespace.update(__name__="__main__", __builtins__=builtins, __hl_builtins__=builtins)
    try:
        func = pickle.loads((where / FUNCTION_FILE).read_bytes())
        outcome = (True, func())
        data = pickle.dumps(outcome)
    except BaseException:  # noqa: BLE001 - everything the function raised goes to the caller
        data = pickle.dumps((False, traceback.format_exc()[-_TRACEBACK_TAIL:]))
    part = _result_file(where, rank).with_suffix(".part")
    part.write_bytes(data)
    os.replace(part, _result_file(where, rank))


if __name__ == "__main__":  # the module's own names (its _namespace), not a __main__ copy's
    from hybridlab.engines import once

    once.main(sys.argv[1])
