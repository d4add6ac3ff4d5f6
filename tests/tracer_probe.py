"""A C probe linked against the kit's tracer object, for tests that aim at the tracer's sealed
page (test_trace_mpi3, test_records)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def build_probe(tmp_path: Path, source: str) -> tuple[Path, str]:
    """The probe `source` built with hl_trace.c as the kit builds it, and the offset of the
    tracer's sealed page from the probe's main (its first argument)."""
    from hybridlab.kernels.build import DEFAULT_FLAGS, TRACER_FLAGS, include_flags, mpicc
    from hybridlab.paths import find_kernel_file

    cc = mpicc()
    tracer, probe = tmp_path / "tracer.o", tmp_path / "probe"
    (tmp_path / "probe.c").write_text(source)
    subprocess.run([cc, *DEFAULT_FLAGS, *TRACER_FLAGS, *include_flags(), "-c",
                    str(find_kernel_file("hl_trace.c")), "-o", str(tracer)], check=True)  # fmt: skip
    subprocess.run([cc, "-std=gnu11", "-fopenmp", str(tmp_path / "probe.c"), str(tracer), "-o",
                    str(probe), "-lm"], check=True)  # fmt: skip
    symbols = {
        words[2]: int(words[0], 16)
        for words in (line.split() for line in subprocess.run(
            ["nm", str(probe)], capture_output=True, text=True, check=True).stdout.splitlines())
        if len(words) == 3
    }  # fmt: skip
    return probe, str(symbols["sealed"] - symbols["main"])
