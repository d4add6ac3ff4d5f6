"""The MPI compiler wrapper's commands run as the command the wrapper itself would run
(toolchain.direct_command): its compiler, its flags around the arguments, read from `-show`."""

from __future__ import annotations

import subprocess

import pytest

from hybridlab.kernels import toolchain
from hybridlab.kernels.build import compiler_env, mpicc, offload_flags
from hybridlab.kernels.toolchain import direct_command, toolchain_env


@pytest.fixture()
def cc():
    try:
        return mpicc()
    except Exception:  # noqa: BLE001 - no MPI here
        pytest.skip("no mpicc")


def _shown(cc: str, args: list[str], env: dict[str, str]) -> list[str]:
    """What the wrapper says it runs for `args` (-show)."""
    return subprocess.run([cc, "-show", *args], capture_output=True, text=True, check=True,
                          env=env).stdout.split()  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        ["-std=gnu11", "-O2", "-fPIC", "-c", "unit.c", "-o", "unit.o"],
        ["-O2", "-E", "-x", "c", "-"],
        ["-O2", "-S", "-emit-llvm", "-o", "-", "-x", "c", "-"],
        ["-O2", "-shared", "a.o", "b.o", "-o", "liba.so", "-lm", "-latomic"],
        ["a.o", "-o", "prog"],
        ["--version"],
    ],
)
def test_a_command_is_what_the_wrapper_would_run(cc, args):
    env = toolchain_env()
    assert direct_command([cc, *args], env) == _shown(cc, args, env)


def test_the_compiler_the_environment_chooses(cc):
    env = compiler_env(offload_flags())  # clang behind the wrapper (MPICH_CC, OMPI_CC)
    args = ["-c", "unit.c", "-o", "unit.o"]
    assert direct_command([cc, *args], env) == _shown(cc, args, env)
    assert direct_command([cc, *args], env)[0] != direct_command([cc, *args], toolchain_env())[0]


def test_the_wrappers_own_options_run_the_wrapper(cc):
    for option in ("-show", "-cc=clang", "-profile=x", "-static-mpi", "-echo", "-v"):
        cmd = [cc, option, "-c", "unit.c"]
        assert direct_command(cmd, toolchain_env()) == cmd


def test_a_wrapper_that_cannot_say_runs_itself(tmp_path):
    fake = tmp_path / "mpicc"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    cmd = [str(fake), "-c", "unit.c"]
    assert direct_command(cmd, toolchain_env()) == cmd


def test_the_wrapper_is_asked_once_per_kind_of_command(cc, monkeypatch):
    monkeypatch.setattr(toolchain, "_SPLITS", {})
    calls = []
    real = subprocess.run

    def counted(cmd, *a, **k):
        calls.append(cmd)
        return real(cmd, *a, **k)

    monkeypatch.setattr(toolchain.subprocess, "run", counted)
    env = toolchain_env()
    for _ in range(3):
        direct_command([cc, "-O2", "-c", "a.c"], env)
        direct_command([cc, "a.o", "-o", "a"], env)
    assert len(calls) == 2, calls


def test_a_program_compiled_so_links_mpi_and_runs(cc, tmp_path):
    src = tmp_path / "p.c"
    src.write_text("#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); "
                   "MPI_Finalize(); return 0; }\n")  # fmt: skip
    env = toolchain_env()
    made = tmp_path / "p"
    done = subprocess.run(direct_command([cc, str(src), "-o", str(made)], env),
                          capture_output=True, text=True, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert subprocess.run([str(made)], capture_output=True, timeout=60).returncode == 0
