from pathlib import Path

import pytest

from hybridlab.kernels.build import BuildError, available_kernels, build, build_source
from hybridlab.paths import kernels_dir

GOOD = r"""
#include "hybridlab.h"
const char *const hl_kernel_description = "answer";
const hl_param hl_kernel_params[] = {{"value", "42", "what each rank reports"}, HL_END_PARAMS};
int hl_kernel(MPI_Comm comm, hl_ctx *ctx) {
    (void)comm;
    int ok = 1;
    long v = hl_param_long(ctx, "value", 0, &ok);
    if (!ok) return -1;
    hl_emit(ctx, "\"value\":%ld", v);
    return 0;
}
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path / "cache"))


def test_a_kernel_builds_into_a_library_and_a_program_with_its_parameters():
    kernel = build("hello_hybrid")
    assert kernel.library.exists() and kernel.program.exists()
    assert kernel.warnings == ()
    assert "spin_ms" in kernel.params and kernel.params["spin_ms"]["default"] == "50"


def test_builds_are_cached_by_content_and_flags():
    first = build_source("answer", GOOD)
    stamp = first.library.stat().st_mtime_ns
    again = build_source("answer", GOOD)
    assert again.library == first.library and again.library.stat().st_mtime_ns == stamp
    changed = build_source("answer", GOOD.replace("42", "43"))
    assert changed.library != first.library
    flagged = build_source("answer", GOOD, flags=("-DEXTRA=1",))
    assert flagged.library not in (first.library, changed.library)


def test_a_change_to_any_header_rebuilds(tmp_path, monkeypatch):
    """hybridlab.h includes hl_runtime.h, and kernels include hl_halo.h, hl_nodes.h, ...: the
    cache key covers every header of kernels_c/, so editing any one of them rebuilds."""
    kernels = tmp_path / "kernels_c"
    kernels.mkdir()
    for header in kernels_dir().glob("*.h"):
        (kernels / header.name).write_text(header.read_text())
    monkeypatch.setenv("HYBRIDLAB_KERNELS", str(kernels))
    headers = sorted(kernels.glob("*.h"))
    assert {"hybridlab.h", "hl_runtime.h", "hl_halo.h", "hl_nodes.h"} <= {h.name for h in headers}
    seen = {build_source("answer", GOOD).library}
    for header in headers:
        header.write_text(header.read_text() + "\n/* edited */\n")
        rebuilt = build_source("answer", GOOD)
        assert rebuilt.library not in seen, f"editing {header.name} did not rebuild"
        seen.add(rebuilt.library)


def test_a_kit_object_is_compiled_once_for_every_student_build_that_links_it():
    """A student's unit is linked with the part's kernel and the tracer, compiled from the kit's
    sources: the first build compiles them into the cache's objects folder, a later build of
    another answer to the same part links them as they are, another part's define gets its own
    kernel object and shares the tracer's."""
    from hybridlab.halo.exercise import build_student_halo
    from hybridlab.kernels.build import objects_dir
    from hybridlab.sync.exercise import build_student_construct
    from solutions_c import CONSTRUCT_ATOMIC

    def kept() -> dict[str, int]:
        return {p.name: p.stat().st_mtime_ns for p in objects_dir().iterdir()}

    first = build_student_construct(CONSTRUCT_ATOMIC)
    made = kept()
    assert sorted(n.rsplit("-", 1)[0] for n in made) == ["construct_bench", "hl_trace"]
    again = build_student_construct(CONSTRUCT_ATOMIC + "\n/* another answer */\n")
    assert again.library != first.library and kept() == made
    assert "delay_ns" in again.params  # linked and loadable
    build_student_halo(
        "void exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n"
        "    (void)a; (void)m; (void)nx; (void)up; (void)down; (void)comm;\n}\n"
    )
    halo = {n: t for n, t in kept().items() if n not in made}
    assert [n.rsplit("-", 1)[0] for n in halo] == ["halo2d"]


def test_a_syntax_error_is_reported_with_file_and_line():
    broken = GOOD.replace("hl_emit(ctx", "hl_emit(ctx,,")
    with pytest.raises(BuildError) as caught:
        build_source("broken", broken)
    line = broken.splitlines().index(next(x for x in broken.splitlines() if ",," in x)) + 1
    errors = [d for d in caught.value.diagnostics if d.kind == "error"]
    assert errors and errors[0].file == "broken.c" and errors[0].line == line
    assert f"broken.c:{line}: error" in str(caught.value)


def test_compiler_warnings_are_kept_with_the_kernel():
    kernel = build_source("warned", GOOD.replace("int ok = 1;", "int ok = 1, unused;"))
    assert any("unused" in w.message for w in kernel.warnings)


def test_unknown_kernels_names_and_parameters_are_refused_clearly():
    with pytest.raises(FileNotFoundError, match="no kernel 'nope'.*hello_hybrid"):
        build("nope")
    with pytest.raises(ValueError, match="must be a C identifier"):
        build_source("two words", GOOD)
    kernel = build_source("answer", GOOD)
    with pytest.raises(ValueError, match=r"has no parameter valu \(known: value\)"):
        kernel.arguments({"valu": 1})
    assert kernel.arguments({"value": 7}) == ["value=7"]
    assert "hello_hybrid" in available_kernels()


def test_the_cache_key_does_not_depend_on_path(monkeypatch):
    """A grading sandbox runs with the venv on PATH, the grader perhaps without: both must find
    the same builds (else every submission compiles every kernel again)."""
    import importlib

    from hybridlab.machine.topology import compiler_info

    build_module = importlib.import_module("hybridlab.kernels.build")
    code = (kernels_dir() / "hello_hybrid.c").read_text()
    cc = build_module.mpicc()
    monkeypatch.setenv("PATH", f"{Path(cc).parent}:/usr/bin:/bin")
    build_module._wrapper_identity.cache_clear()
    compiler_info.cache_clear()  # (cached per process: the first caller's PATH decided)
    with_venv = build_module.cache_key(code, (), cc)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    build_module._wrapper_identity.cache_clear()
    compiler_info.cache_clear()
    assert build_module.cache_key(code, (), cc) == with_venv


def test_a_build_never_runs_a_compiler_or_tool_a_cell_pointed_the_environment_at(
    tmp_path, monkeypatch
):
    """Issue 36: MPICH_CC, CC or PATH set by a notebook cell after the kit was imported choose
    nothing a build runs (a fresh attacker's MPICH_CC script compiled lab 01 (a)'s racy kernel
    with a header of theirs and kept 4/4; a `nm` first on PATH would read objects for the
    checks)."""
    import importlib
    import os

    build_module = importlib.import_module("hybridlab.kernels.build")
    called, fake = tmp_path / "called", tmp_path / "bin"
    fake.mkdir()
    for tool in ("cc", "gcc", "clang", "nm", "objdump", "ld", "mine-cc"):
        (fake / tool).write_text(f"#!/bin/sh\necho {tool} >> {called}\nexit 1\n")
        (fake / tool).chmod(0o755)
    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MPICH_CC", str(fake / "mine-cc"))
    monkeypatch.setenv("CC", str(fake / "mine-cc"))
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    build_module._wrapper_identity.cache_clear()
    made = build_source("given", (kernels_dir() / "hello_hybrid.c").read_text(), trace_mpi=True)
    assert made.library.exists() and made.program.exists()
    assert not called.exists(), called.read_text()
    build_module._wrapper_identity.cache_clear()


def test_a_process_grading_apart_uses_only_builds_it_made(tmp_path, monkeypatch):
    """APART_ENV (grading/apart.py): a build this process did not make, or one changed since it
    made it, is made again, in a folder closed by modes too (a fresh attacker planted a right
    program's build in a mode-555 folder over the graded cell's: d10w); elsewhere the cache is
    trusted as it is."""
    from hybridlab.kernels import build as build_module

    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path / "cache"))
    planted = build_source("answer", GOOD)  # made by "another process": not in this one's record
    monkeypatch.setattr(build_module, "_made", {})
    planted.program.write_bytes(b"#!/bin/sh\necho planted\n")
    planted.program.parent.chmod(0o555)
    assert build_source("answer", GOOD).program.read_bytes().startswith(b"#!")  # trusted
    monkeypatch.setenv(build_module.APART_ENV, "1")
    made = build_source("answer", GOOD)
    assert made.program == planted.program and not made.program.read_bytes().startswith(b"#!")
    stamp = made.library.stat().st_mtime_ns
    assert build_source("answer", GOOD).library.stat().st_mtime_ns == stamp  # its own: kept
    made.program.write_bytes(b"#!/bin/sh\necho changed\n")  # changed after it was made
    assert not build_source("answer", GOOD).program.read_bytes().startswith(b"#!")


def test_every_build_binds_its_symbols_at_load_and_seals_its_got():
    """Full RELRO: the GOT of a kernel's library and program is read-only once loaded, so a cell
    cannot point a slot of a function the kit calls at its own code."""
    import subprocess

    k = build("hello_hybrid")
    for binary in (k.library, k.program):
        dynamic = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True,
                                 check=True).stdout  # fmt: skip
        flags = [line for line in dynamic.splitlines() if "(FLAGS" in line]
        assert any("BIND_NOW" in line or " NOW" in line for line in flags), (binary, flags)
        headers = subprocess.run(["readelf", "-lW", str(binary)], capture_output=True, text=True,
                                 check=True).stdout  # fmt: skip
        assert "GNU_RELRO" in headers, binary
