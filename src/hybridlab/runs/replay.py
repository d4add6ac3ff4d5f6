"""Kernel runs kept and given back: the student's own runs first, then the solution's.

Every kernel run (and every other measurement made through `take`, such as lab 09's threading
layer probes) has an identity: what ran (a kit kernel's or the notebook's C source, with the
kit's header and the flags), its arguments, where its ranks ran (the placement) and whether in
the engines or as a program, and the environment variables that steer OpenMP and MPI. The
launcher is not part of it: a run made under srun on a Slurm hub is the run grading makes under
mpiexec in its sandbox. Its output is kept as one JSON file named by a hash of that
identity and its count (`<key>-<n>.json`: the n-th run of its kind in the process).

    (not set)                        a notebook keeps its runs beside itself, in <stem>_runs/
                                     (own_runs.py); HYBRIDLAB_RUNS=off keeps nothing
    HYBRIDLAB_RUNS=record:<folder>   the solution's reference run writes its runs there
    HYBRIDLAB_RUNS=replay:<folder>   a graded submission's n-th run of a kind gets back, in
                                     order: its own n-th run of that kind (the checked copy of
                                     its runs folder, HYBRIDLAB_OWN_RUNS), the reference run's,
                                     or, when neither has it, a new measurement

A graded notebook's hidden tests thus recompute from the student's own measurements where the
submission brought them, and every other submission is graded on the same reference
measurements (no noise between students; the machine's time goes to the students' code). Runs of
C code built in the notebook are never taken from the student's folder: the grader runs them
(that is what checks the student's code), unless the reference run made the very same run. Which data served each run goes, one JSON line per run, to
$HYBRIDLAB_RUNS_LOG, from which the grader tells the student per part (grading/execute.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from ..kernels.build import Kernel
from ..machine.placement import MPICH_THROTTLE, OPENMPI_THROTTLE, Placement
from ..paths import find_kernel_file, kernel_dirs
from . import own_runs
from .course_size import quick_mode
from .run_format import CHECKED, ENV, FORMAT, key_of, source_hash

OWN = "HYBRIDLAB_OWN_RUNS"  # the grader's checked copy of the submission's runs folder
LOG = "HYBRIDLAB_RUNS_LOG"  # where a graded notebook says which data served each run
MODES = ("record", "replay")
# what changes a run's behaviour
ENV_PREFIXES = ("OMP_", "GOMP_", "MPIR_", "MPICH_", "OMPI_MCA_", "KMP_")
WARNING = (
    "replayed: grading gave back the output of the same run in the instructor solution's "
    "reference run, not a new measurement"
)
OWN_WARNING = (
    "replayed: grading gave back your own recorded run of it (your runs folder), "
    "not a new measurement"
)

_seen: Counter = Counter()  # key -> runs of it so far in this process
_unkept: set[Path] = set()  # runs folders that could not be written (said once each)


def setting(environ: dict[str, str] | None = None) -> tuple[str, Path] | None:
    """(mode, folder) from HYBRIDLAB_RUNS, or None when runs are neither recorded nor replayed
    for grading (unset: the notebook keeps its own runs; "off": nothing at all)."""
    value = (os.environ if environ is None else environ).get(ENV, "")
    if not value or value == "off":
        return None
    mode, _, folder = value.partition(":")
    if mode not in MODES or not folder:
        raise ValueError(f"{ENV}={value!r}: expected record:<folder>, replay:<folder> or off")
    return mode, Path(folder)


def folder(mode: str) -> Path | None:
    """The folder runs are recorded to (mode "record") or replayed from ("replay"), when that
    is what HYBRIDLAB_RUNS says; otherwise None."""
    chosen = setting()
    return chosen[1] if chosen is not None and chosen[0] == mode else None


def read_only_folders() -> list[Path]:
    """What a graded submission's sandbox sees read-only: the reference runs and the checked
    copy of its own runs folder."""
    own = os.environ.get(OWN)
    return [f for f in (folder("replay"), Path(own) if own else None) if f is not None]


# --------------------------------------------------------------------------- identity


def steering(env: dict[str, str]) -> list[list[str]]:
    """The OpenMP and MPI variables a run gets (how the MPI waits does not change the run)."""
    merged = {**os.environ, **env}
    throttle = MPICH_THROTTLE.keys() | OPENMPI_THROTTLE.keys()
    return sorted(
        [k, v] for k, v in merged.items() if k.startswith(ENV_PREFIXES) and k not in throttle
    )


def placement_identity(placement: Placement) -> dict:
    """The placement's fields; `nodes` only when the ranks span several nodes (so that the runs
    recorded before nodes existed keep their identity)."""
    fields = asdict(placement)
    if fields["nodes"] == 1:
        del fields["nodes"]
    return fields


def how_it_ran(run_by: str) -> str:
    """"engines" (a kernel called in the lab's engines) or "program" (a program of its own MPI
    job). Which launcher started the ranks (mpiexec, srun) is left out: on a Slurm hub a student's
    runs go through srun and the grading sandbox's through mpiexec, with the same placement,
    arguments and OpenMP/MPI settings, and they are the same run."""
    return "engines" if run_by == "engines" else "program"


def kernel_identity(
    kernel: Kernel, argv: list[str], placement: Placement, run_by: str, env: dict[str, str]
) -> dict:
    """What makes two runs of a C kernel the same run (`run_by`: the engines or a launcher)."""
    kit = kernel.source.resolve().parent in {d.resolve() for d in kernel_dirs()}
    return {
        "kind": "kernel",
        "name": kernel.name,
        "kit": kit,  # False: C source written in the notebook (hl.build_source)
        "source": source_hash(kernel.source.read_text(), list(kernel.flags)),
        "flags": list(kernel.flags),
        "argv": list(argv),
        "placement": placement_identity(placement),
        "how": how_it_ran(run_by),
        "env": steering(env),
    }


def program_identity(program: str, argv: list[str], placement: Placement, env: dict) -> dict:
    """What makes two runs of one of the kit's Python probe programs the same run."""
    return {
        "kind": "program",
        "name": program,
        "argv": list(argv),
        "placement": placement_identity(placement),
        "run_by": "python",
        "env": steering(env),
    }


def simulation_identity(kernel: str, flags: tuple[str, ...], argv: list[str], platform: str) -> dict:
    """What makes two SimGrid simulations of a kit kernel the same run: the kernel's source and
    flags, smpirun's arguments (ranks, host file, options, the kernel's) and the platform's
    description. With only the network simulated the simulated times are the same on every
    machine; the wall time and memory are the recording machine's."""
    code = find_kernel_file(f"{kernel}.c")
    return {
        "kind": "simulation",
        "name": kernel,
        "source": source_hash(code.read_text() if code else "", list(flags)),
        "argv": list(argv),
        "platform": hashlib.sha256(platform.encode()).hexdigest()[:16],
    }


# --------------------------------------------------------------------------- take / record


def _load(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _why_not_own(name: str, own: Path | None) -> str:
    """Why the submission's runs did not serve run file `name`."""
    if own is None:
        return "no runs folder came with the submission"
    checked = _load(own / CHECKED) or {}
    if checked.get("problem"):
        return f"your runs folder was not used: {checked['problem']}"
    if name in checked.get("rejected", {}):
        return f"your run {name} was invalid: {checked['rejected'][name]}"
    return "your runs folder has no such run (same kernel, arguments, placement, OMP_/MPI settings)"


def _log(identity: dict, source: str, why: str = "") -> None:
    path = os.environ.get(LOG)
    if path:
        line = {"source": source, "name": identity["name"], "why": why}
        try:
            with open(path, "a") as f:
                f.write(json.dumps(line) + "\n")
        except OSError:
            pass  # the log only feeds the feedback's wording


def take(identity: dict) -> tuple[dict | None, Path | None]:
    """This run's kept output when replaying (None: run it), and where to keep it when recording
    (None: nowhere). HYBRIDLAB_RUNS unset: the notebook's own runs folder, if it has one."""
    chosen = setting()
    if chosen is None:
        kept = own_runs.folder_for_this_notebook()
        if kept is None:
            _log(identity, "measured")  # graded without replay (a log only when grading)
            return None, None
        chosen = ("keep", kept)
    mode, where = chosen
    key = key_of(identity)
    name = f"{key}-{_seen[key]}.json"  # the n-th run of its kind in this process
    _seen[key] += 1
    if mode in ("record", "keep"):
        return None, where / name
    own = Path(os.environ[OWN]) if os.environ.get(OWN) else None
    if identity.get("kit", True) is False:  # C from the notebook: what checks the code
        why = "C code built in the notebook is never taken from your runs folder"
    else:
        found = _load(own / name) if own is not None else None
        if found is not None:
            _log(identity, "own")
            return {**found, "from": "own"}, None
        why = _why_not_own(name, own)
    found = _load(where / name)
    if found is not None:
        _log(identity, "reference", why)
        return {**found, "from": "reference"}, None
    _log(identity, "measured", why + "; the reference run has none either")
    return None, None


def record(
    path: Path, identity: dict, texts: list[tuple[str, str]], meta: dict, seconds: float, probes
) -> None:
    """Keep one run's output (written whole, then renamed: a reader never sees half a file), and
    enter it in its folder's index (own_runs.INDEX: what was recorded, with digests)."""
    data = {
        "format": FORMAT,
        "identity": identity,
        "quick": quick_mode(),  # the sizes the lab ran at (HYBRIDLAB_QUICK, else the course's)
        "texts": [list(t) for t in texts],
        "meta": meta,
        "seconds": seconds,
        "probes": list(probes),
    }
    try:
        own_runs.write_run(path, data)
    except OSError as err:
        if setting() is not None:
            raise  # the reference run must be complete
        if path.parent not in _unkept:  # a student's lab goes on; grading uses the reference
            _unkept.add(path.parent)
            warnings.warn(
                f"hybridlab: your kernel runs cannot be kept in {path.parent} ({err}); "
                "grading will use the instructor's reference run for them",
                stacklevel=3,
            )


# --------------------------------------------------------------------------- engines


def call_identity(name: str, args: list, placement: Placement) -> dict:
    """What makes two calls of one of the kit's Python functions in a cluster's engines the same
    run: the function, its arguments, the placement and the OpenMP, MPI and numba settings."""
    numba = sorted([k, v] for k, v in os.environ.items() if k.startswith("NUMBA_"))
    return {"kind": "call", "name": name, "args": list(args),
            "placement": placement_identity(placement), "how": "engines",
            "env": steering({}) + numba}  # fmt: skip


def kept_call(name: str, args: list, placement: Placement, measure: Callable[[], list],
              started: bool) -> list:  # fmt: skip
    """The results of a kit function called in every engine (Cluster.kept_apply; arguments and
    results JSON values), kept and given back the way kernel runs are (take): the reference run
    records them, and a graded submission's call gets the reference run's back while its engines
    have not started (nothing of the notebook's has run in them). Once they run (`started`), or
    when the reference run has no such call, measure() makes it. A student's runs folder keeps
    none (own_runs takes kernel and program runs only)."""
    identity = call_identity(name, args, placement)
    chosen = setting()
    if chosen is not None and chosen[0] == "replay" and started:
        _log(identity, "measured", "the engines ran already (the notebook's code may have too)")
        return measure()
    recorded, record_to = take(identity)
    if recorded is not None:
        return json.loads(recorded["texts"][0][1])
    results = measure()
    if record_to is not None and chosen is not None:  # the reference run's, not a student's
        record(record_to, identity, [(name, json.dumps(results))], {}, 0.0, [])
    return results


def engines_identity(placement: Placement, env: dict[str, str]) -> dict:
    """What makes two clusters' engines the same (who they are: rank, host, pid, CPUs, the
    thread level MPI provided): the placement, with the level asked for, and the OpenMP and MPI
    settings."""
    return {"kind": "engines", "name": "engines", "placement": placement_identity(placement),
            "env": steering(env)}  # fmt: skip


def kept_engines(placement: Placement, env: dict[str, str], measure: Callable[[], list[dict]],
                 started: bool) -> list[dict]:  # fmt: skip
    """Who a cluster's engines are (Cluster.engines), kept and given back the way kernel runs
    are: the reference run records what its engines said at each read (the n-th of its kind in
    the process), and a graded submission's read gets that back while its engines have not
    started (grading starts them at their first use: a notebook whose runs are all replayed
    need not start them only to say who they would be). measure() asks the engines (starting
    them): when not grading, when they run already (`started`), or when the reference run has
    no such read. Never from the submission's own runs folder, and not logged: no kernel ran."""
    chosen = setting()
    if chosen is None:
        return measure()
    mode, where = chosen
    identity = engines_identity(placement, env)
    key = key_of(identity)
    name = f"{key}-{_seen[key]}.json"
    _seen[key] += 1
    if mode == "replay" and not started:
        found = _load(where / name)
        try:
            engines = json.loads(found["texts"][0][1]) if found else None
        except (KeyError, IndexError, TypeError, ValueError):
            engines = None
        if isinstance(engines, list) and all(isinstance(e, dict) for e in engines):
            return engines
    engines = measure()
    if mode == "record":
        record(where / name, identity, [("engines", json.dumps(engines))], {}, 0.0, [])
    return engines
