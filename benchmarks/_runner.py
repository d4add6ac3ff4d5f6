"""The one runner every benchmark script uses: its options and progress, the load beside each
figure, a reference program run beside the kit's (alternated pair by pair, launched the kit's
way) and the report with the machine at its head.

A benchmark is a short file of what it measures:

    bench = Bench("bench_x", __doc__, "x_results.md", argv)
    bench.checkpoint("before")
    ...measure, bench.say("progress")...
    bench.checkpoint("after")
    return bench.report("Title", lines)

`alternate()` runs the kit and its reference in pairs, the order swapped every pair, with the
load average (1, 5, 15 min) recorded after each pair, so drift of a shared machine hits both
sides of a ratio alike and every figure has its load beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from _common import (
    HERE,
    REPO,
    Progress,
    describe_machine,
    load_lines,
    machine_lines,
    other_load,
    scrub_paths,
    write_json,
    write_report,
)
from hybridlab.machine import launcher
from hybridlab.machine.placement import Placement
from hybridlab.machine.topology import read_topology
from hybridlab.runs import launch
from hybridlab.slurm import local_slurm

LSCPU_FIELDS = ("Model name", "CPU(s)", "Thread(s) per core", "Core(s) per socket", "Socket(s)",
                "NUMA node(s)", "L3 cache", "Hypervisor vendor")  # fmt: skip


class Bench:
    """A benchmark's options (--repeats, --quick, --out and its own; `quick` holds the values
    --quick sets), progress on stderr (the script's own `progress` when its functions report
    too), the load at its checkpoints and its report."""

    def __init__(
        self,
        name: str,
        doc: str,
        out: str,
        argv: list[str] | None = None,
        *,
        quick_help: str = "fewer samples: a smoke run",
        repeats: int | None = 3,
        options: Callable[[argparse.ArgumentParser], None] | None = None,
        progress: Progress | None = None,
        quick: dict[str, object] | None = None,
    ):
        parser = argparse.ArgumentParser(
            description=doc.splitlines()[0] if doc else name,
            epilog=doc,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if repeats is not None:  # None: a benchmark that repeats nothing
            parser.add_argument("--repeats", type=int, default=repeats)
        parser.add_argument("--quick", action="store_true", help=quick_help)
        parser.add_argument("--out", type=Path, default=HERE / out)
        if options:
            options(parser)
        self.name = name
        self.args = parser.parse_args(argv)
        if self.args.quick:
            vars(self.args).update(quick or {})
        self.say = progress or Progress(name)
        self.named: dict[str, str] = {}  # a folder of this machine given on the command line
        self.loads: list[dict] = []
        self.topology = read_topology()  # the machine the figures are of
        self.cpus = len(self.topology.usable)

    def checkpoint(self, label: str) -> None:
        """Record the load average and the other busy processes now."""
        self.loads.append(other_load(label))

    def command(self) -> str:
        """How this run was started, for the report (each folder of `named` under its name)."""
        line = " ".join(["python", f"benchmarks/{self.name}.py", *sys.argv[1:]])
        for folder, name in self.named.items():
            line = line.replace(folder, name)
        return scrub_paths(line)

    def report(
        self, title: str, lines: list[str], data: dict | None = None, *, what: str = "",
        measured: dict | None = None,
    ) -> int:  # fmt: skip
        """Write the report (title, `what` it measures, command, machine, `lines`, the load at
        every checkpoint) and, given `data`, its JSON beside it with the machine; 0, the
        script's exit status. `measured`: the "machine" and "command" of figures measured
        earlier (a report written again from its JSON); by default this machine and run."""
        machine = measured["machine"] if measured else describe_machine()
        command = measured["command"] if measured else self.command()
        header = [f"# {title}", "", *([what, ""] if what else []),
                  f"Measured by `{command}`:", "", *machine_lines(machine), ""]  # fmt: skip
        write_report(self.args.out, [*header, *lines, *load_lines(self.loads)])
        if data is not None:
            write_json(self.args.out.with_suffix(".json"), {"machine": machine, **data})
        return 0

    @contextlib.contextmanager
    def two_nodes(self, slurmd_debug: str = "info") -> Iterator[local_slurm.SlurmCluster]:
        """The kit's 2-node Slurm cluster (hybridlab.slurm.local_slurm) for the block; ends the
        script with the reason when this machine cannot start one (it needs root, slurm-wlm,
        munge and bubblewrap, as `make test-multinode`)."""
        why = local_slurm.why_slurm_cannot_run(nodes=2)
        if why:
            sys.exit(f"{self.name}: cannot start the 2-node cluster here: {why}")
        self.say("starting the 2-node Slurm cluster")
        with local_slurm.started(2, prefix=f"hybridlab-{self.name}-",
                                 slurmd_debug=slurmd_debug) as slurm:  # fmt: skip
            yield slurm

    def inside(
        self, slurm: local_slurm.SlurmCluster, allocation: list[str], argv: list[str], *,
        timeout: float, env: dict[str, str] | None = None,
    ) -> dict:  # fmt: skip
        """Run this script again in `allocation` (`salloc ...` on `slurm`) with `argv` and
        `--inside=FILE`, where that run writes its figures (JSON); what it wrote."""
        out = slurm.scratch / f"{self.name}-inside.json"
        self.say(f"measuring inside `{' '.join(allocation)}`")
        done = slurm.run([*allocation, sys.executable, str(HERE / f"{self.name}.py"), *argv,
                          f"--inside={out}"], timeout=timeout, check=False, cwd=REPO,
                         env={**slurm.env, **(env or {})})  # fmt: skip
        if done.returncode != 0:
            sys.exit(f"{self.name}: the run inside the allocation failed:\n{done.stderr[-3000:]}")
        return json.loads(out.read_text())


def uptime() -> str:
    """The load average (1, 5, 15 min) as `uptime` prints it."""
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


def lscpu_summary() -> str:
    """The lines of `lscpu` that say what machine this is, on one line."""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return "lscpu not available"
    found = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return "; ".join(f"{k}: {found[k].strip()}" for k in LSCPU_FIELDS if k in found)


@dataclass
class Alternation:
    """What alternate() measured: per program a list (one entry per pair) of its figures, and
    the load average after each pair."""

    runs: dict[str, list[dict[str, float]]]
    loads: list[str] = field(default_factory=list)

    def paired(self, kit: str, reference: str, figure: str) -> list[float]:
        """kit / reference of `figure` within each pair."""
        return [k[figure] / r[figure] for k, r in zip(self.runs[kit], self.runs[reference],
                                                        strict=True)]  # fmt: skip

    def median(self, program: str, figure: str) -> float:
        return statistics.median(run[figure] for run in self.runs[program])


def alternate(
    pairs: int, programs: dict[str, Callable[[], dict[str, float]]], say: Progress
) -> Alternation:
    """Run every program once per pair, in the given order in even pairs and reversed in odd
    ones; each returns its figures by name."""
    out = Alternation({name: [] for name in programs})
    for pair in range(pairs):
        names = list(programs) if pair % 2 == 0 else list(reversed(programs))
        for name in names:
            say(f"pair {pair + 1}/{pairs}: {name}")
            out.runs[name].append(programs[name]())
        out.loads.append(uptime())
    return out


def reference_command(
    binary: Path, argv: Iterable[str], ranks: int, threads: int, bind: str = "cores"
) -> list[str]:
    """The launcher's command line for a reference program, as launch_reference runs it."""
    return launcher.choose().command(Placement(ranks, threads, bind), [str(binary), *argv])


def launch_reference(
    binary: Path, argv: Iterable[str], ranks: int, threads: int, bind: str = "cores",
    timeout: float = 900,
) -> str:  # fmt: skip
    """A reference program's stdout, launched as the kit launches its own programs: the same
    launcher, placement flags and OpenMP environment (OMP_NUM_THREADS, OMP_PLACES,
    OMP_PROC_BIND) for `ranks` x `threads` bound by `bind`."""
    placement = Placement(ranks, threads, bind)
    chosen = launcher.choose()
    cmd = reference_command(binary, argv, ranks, threads, bind)
    env = chosen.environment(
        placement.environment(chosen.mpi.implementation, len(read_topology().usable))
    )
    return launch.launch(cmd, env, binary.name, timeout=timeout, spans_nodes=False,
                          chosen_kind=chosen.kind)  # fmt: skip
