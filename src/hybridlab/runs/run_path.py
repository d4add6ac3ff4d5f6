"""The one run path: build -> probe -> time -> parse -> Results.

Cluster.run (kernels called in the engines) and run_program (a program under mpiexec) differ only
in how the ranks are invoked; each passes that as `invoke`, and everything around it (argument
checking, the core-to-core probe before and after, timing, parsing the JSON lines, the run's
description and warnings) happens here, once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import progress, settings
from ..kernels.build import TRACE_FLAGS, Kernel, build
from ..machine.placement import Placement
from ..machine.probe import not_probed, probe
from ..machine.topology import MpiInfo, Topology
from . import replay
from .metadata import make_results
from .records import FRAME, NO_KEY, Results, parse_framed, parse_lines


@dataclass
class Output:
    """What invoking the ranks produced: (label, JSON-lines text) pairs and what to record."""

    texts: list[tuple[str, str]]
    meta: dict[str, object] = field(default_factory=dict)


RECORD_KEY = "record_key"  # Output.meta: the key a traced run's records are framed with
# how to invoke the ranks: (built kernel, name=value arguments) -> their output
Invoke = Callable[[Kernel, list[str]], Output]


def as_kernel(kernel: str | Kernel) -> Kernel:
    """A kernel name is built (cached); a built Kernel is used as it is."""
    return build(kernel) if isinstance(kernel, str) else kernel


def run(
    kernel: str | Kernel,
    params: dict[str, object],
    placement: Placement,
    topology: Topology,
    mpi: MpiInfo,
    invoke: Invoke,
    *,
    run_by: str,
    env: dict[str, str] | None = None,
) -> Results:
    """Build the kernel, check its parameters, invoke the ranks between two probes, parse.

    `env`: the extra environment the ranks get (part of a run's identity: replay.py keeps the
    run's output, or gives back a kept one when grading)."""
    kernel = as_kernel(kernel)
    argv = kernel.arguments(params)
    identity = replay.kernel_identity(kernel, argv, placement, run_by, env or {})
    recorded, record_to = replay.take(identity)
    if recorded is not None:
        output = Output([tuple(t) for t in recorded["texts"]], recorded["meta"])
        seconds, (before, after) = recorded["seconds"], recorded["probes"]
    else:
        probe_now = not_probed if settings.grading() else probe
        before = probe_now(topology.usable)
        where = "in the engines" if run_by == "engines" else "under mpiexec"
        start = time.monotonic()
        with progress.running(f"run {kernel.name} {where} ({placement.label})"):
            output = invoke(kernel, argv)
        seconds = time.monotonic() - start
        after = probe_now(topology.usable)
        if record_to is not None:
            replay.record(
                record_to, identity, output.texts, output.meta, seconds, (before, after)
            )
    rows: list[dict] = []
    ranks: list[dict] = []
    said: list[str] = []
    given = {k: v for k, v in output.meta.items() if k != RECORD_KEY}
    for label, text in output.texts:
        framed = TRACE_FLAGS[0] in kernel.flags  # the tracer frames its records with the key
        if framed and recorded is not None and f"{FRAME} " not in text:
            framed = False  # a run recorded before records were framed (its kept file is no
            # more to be trusted than a framed one: the key is kept beside it)
        if framed:
            key = str(output.meta.get(RECORD_KEY, NO_KEY))
            r, m, printed = parse_framed(text, key, label, placement.ranks)  # ranks 0..P-1
            said += printed
        else:
            r, m = parse_lines(text, label)
        rows += r
        ranks += m
    meta: dict[str, object] = {"run_by": run_by, **given, "seconds": round(seconds, 4)}
    if said:
        meta["printed"] = said[-200:]  # what the program printed beside its records
    if recorded is not None:
        meta["replayed"] = recorded["from"]  # "own" (the submission's runs) or "reference"
    results = make_results(
        kernel, params, placement, topology, mpi, rows, ranks, (before, after), **meta
    )
    if recorded is not None:
        own = recorded["from"] == "own"
        results.warnings.append(replay.OWN_WARNING if own else replay.WARNING)
    return results


def kept_output(
    program: str, argv: list[str], placement: Placement, env: dict, measure: Callable[[], str]
) -> str:
    """The output of a run that is not a kernel (a Python program such as lab 09's threading
    layer probe), kept and given back the way kernel runs are (replay.py): the recorded text
    when grading replays it, else measure(), kept in the notebook's runs folder."""
    identity = replay.program_identity(program, argv, placement, env)
    recorded, record_to = replay.take(identity)
    if recorded is not None:
        return recorded["texts"][0][1]
    text = measure()
    if record_to is not None:
        replay.record(record_to, identity, [(argv[0] if argv else program, text)], {}, 0.0, [])
    return text
