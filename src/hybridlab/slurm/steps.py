"""Inside a job run by the local runner (jobs.py): the two processes the job's script meets.

  - `contain command ...`: runs the script as a child subreaper, so whatever it leaves running
    is killed when it ends;
  - `srun [options] program ...` (the `srun` first on the job's PATH): checks the step against
    the allocation as srun does, then starts it with the venv's mpiexec, or, in a judged run
    ($HL_SRUN_SOCKET set), reports to the kit's socket, which reads the step from this process
    itself and starts it after the script (jobs.judged_run).

Both start once or more per job (a judged run of lab 10 starts both, and a submission's grading
some twenty judged runs), so this module imports little (no pandas, no C build), and what only one
of them needs when it needs it: psutil and ctypes in `contain`, the step's placement flags and the
venv's mpiexec where srun starts the step itself (not in a judged run, which only reports it).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import sys
from collections.abc import Callable
from typing import NamedTuple

STEPS = "HL_SRUN_SOCKET"  # in a judged run, the kit's unix socket its srun reports each step to
SRUN_COMMAND = ("-I", "-m", "hybridlab.slurm.steps", "srun")  # the kit's srun: sys.executable + these
SRUN_NOTE = (
    "srun (local): --cpus-per-task not given, so each task gets 1 CPU (srun of Slurm 22.05 and "
    "23.02 does not take sbatch's --cpus-per-task; 23.11 does again): pass "
    "--cpus-per-task=$SLURM_CPUS_PER_TASK, right on every version"
)

LONG = {"-n": "--ntasks", "-c": "--cpus-per-task", "-N": "--nodes", "-J": "--job-name",
         "-t": "--time", "-o": "--output", "-e": "--error", "-p": "--partition",
         "-A": "--account", "-D": "--chdir",
         "--cpu_bind": "--cpu-bind"}  # fmt: skip (Slurm: both spellings one option, the last wins)


def read_options(tokens: list[str]) -> dict[str, str]:
    """sbatch/srun options as {--long-name: value} (flags: "")."""
    out: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        name, _, value = token.partition("=")
        if not name.startswith("-"):
            break
        if not value and not name.startswith("--") and len(name) > 2:  # -n2
            name, value = name[:2], name[2:]
        name = LONG.get(name, name)
        if not value and "=" not in token and i + 1 < len(tokens) and not tokens[i + 1].startswith("-") \
                and name in ("--ntasks", "--cpus-per-task", "--nodes", "--job-name", "--time",
                             "--output", "--error", "--partition", "--account", "--chdir",
                             "--ntasks-per-node", "--cpu-bind", "--mpi",
                             "--distribution", "--export", "--hint"):
            value = tokens[i + 1]
            i += 1
        out[name] = value
        i += 1
    return out


_SRUN_IGNORED = ("--mpi", "--overlap", "--exact", "--kill-on-bad-exit",
                 "--distribution", "--label", "-l", "--unbuffered", "-u", "--job-name")  # fmt: skip


class Step(NamedTuple):
    """One srun step as a job script asked for it: what the kit's local srun was given (a named
    tuple, not a dataclass: the srun of every judged run imports this module, and dataclasses'
    import, inspect's, would be most of its start)."""

    ntasks: int
    cpus_per_task: int
    bind: str  # "cores" (--cpu-bind=cores), or "none" (--cpu-bind=none, or no binding asked)
    program: str  # the program's path as srun found it
    args: tuple[str, ...]
    openmp: dict[str, str]  # the OpenMP variables (OMP_*, GOMP_*) the step's environment had

    def command(self, program: str | os.PathLike, environ: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """The mpiexec command line that starts `program` (the step's own or the kit's copy of
        it) as this step, and its environment: `environ` without any OpenMP variable but the
        step's, what the venv's MPI needs, and nothing of Slurm's launcher."""
        from ..machine.placement import Placement
        from ..machine.topology import find_mpiexec

        placement = Placement(self.ntasks, self.cpus_per_task, self.bind, None)
        mpi = find_mpiexec()
        flags = placement.launcher_args(mpi.implementation)
        if mpi.implementation == "mpich":
            flags = ["-launcher", "fork", "-rmk", "user", *flags]  # not Slurm's: this is its stand-in
        env = {k: v for k, v in environ.items()
               if not k.startswith(("PMI_", "PMIX_", *OPENMP))}  # fmt: skip
        env.update(self.openmp)
        if mpi.implementation == "openmpi":
            # Open MPI's mpiexec (PRRTE) sees the job's SLURM_* variables and would take Slurm as
            # its allocator and launcher (asking this stand-in `srun --version`): not here
            env["PRTE_MCA_ras"] = "^slurm"
            env["PRTE_MCA_plm"] = "^slurm"
        env["SLURM_STEP_NUM_TASKS"] = str(self.ntasks)
        return [str(mpi.mpiexec), "-n", str(self.ntasks), *flags, str(program), *self.args], env


OPENMP = ("OMP_", "GOMP_")  # the variables a step hands its program (KMP_ is clang's libomp)


def srun_main(argv: list[str]) -> int:
    """The local runner's `srun`: start the program's tasks with the venv's mpiexec; in a judged
    run ($HL_SRUN_SOCKET set, judged_run) report to the kit's socket instead, which reads the step
    from this very process (its command line, environment and folder, jobs._StepChannel) and
    starts it once the script has ended."""
    step = _step(argv)
    if isinstance(step, int):
        return step
    channel = os.environ.get(STEPS)
    if channel:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as kit:
            try:
                kit.connect(channel)
                kit.sendall(b"step\n")
                answer = kit.makefile("r").readline().strip()
            except OSError as err:
                return _srun_error(f"the grader's step channel does not answer ({err.strerror})")
        if answer != "ok":
            return _srun_error(answer or "the grader did not take the step")
        print(f"srun (grader): step of {step.ntasks} x {step.cpus_per_task} recorded: the grader "
              "starts it once the script has ended", file=sys.stderr, flush=True)  # fmt: skip
        return 0
    import subprocess

    from ..machine.topology import find_mpiexec

    if find_mpiexec().mpiexec is None:
        return _srun_error("no mpiexec: run `make setup`")
    cmd, env = step.command(step.program, mpi_environment())
    return subprocess.call(cmd, env=env)


def _step(argv: list[str], environ: dict[str, str] | None = None, cwd: str | None = None,
          say: Callable[[str], None] | None = None) -> Step | int:
    """The step `srun argv` asks for, checked as srun checks it against the allocation; an
    exit status when srun would refuse it (the reason said, as srun prints it). `environ` and
    `cwd`: srun's own (default this process's); `say`: where notes and errors go (stderr)."""
    environ = dict(os.environ) if environ is None else environ
    cwd = os.getcwd() if cwd is None else cwd
    say = say or _stderr

    def error(message: str) -> int:
        say(f"srun: error: {message}")
        return 1

    split = next((i for i, a in enumerate(argv) if not a.startswith("-")
                  and (i == 0 or not _takes_value(argv[i - 1]))), len(argv))  # fmt: skip
    options, program = read_options(argv[:split]), argv[split:]
    known = {"--ntasks", "--cpus-per-task", "--nodes", "--ntasks-per-node", "--cpu-bind",
             "--export", "--hint", *_SRUN_IGNORED}  # fmt: skip
    unknown = sorted(set(options) - known)
    if unknown:
        return error(f"the kit's local srun does not know {', '.join(unknown)}")
    if not program:
        return error("no program to run: srun [options] ./program [arguments]")
    tasks_env = _exported(options.get("--export", environ.get("SLURM_EXPORT_ENV")), environ)
    if isinstance(tasks_env, str):
        return error(tasks_env)
    given, program = _env_prefix(program)  # `srun ... env OMP_NUM_THREADS=2 ./jacobi`: ./jacobi
    allocated = int(environ.get("SLURM_CPUS_ON_NODE", "1"))
    ntasks = int(options.get("--ntasks") or environ.get("SLURM_NTASKS", "1"))
    cpus = options.get("--cpus-per-task") or environ.get("SRUN_CPUS_PER_TASK")
    if cpus is None:
        cpus = "1"
        if int(environ.get("SLURM_CPUS_PER_TASK", "1")) > 1:
            say(SRUN_NOTE)
    cpus_per_task = int(cpus)
    job = environ.get("SLURM_JOB_ID", "?")
    if ntasks * cpus_per_task > allocated:
        return error(
            f"Unable to create step for job {job}: More processors requested than permitted "
            f"({ntasks} tasks x {cpus_per_task} CPUs per task = {ntasks * cpus_per_task}; the "
            f"allocation has {allocated} CPUs)"
        )
    if "OMP_NUM_THREADS" not in tasks_env and "OMP_NUM_THREADS" not in given:
        return error("OMP_NUM_THREADS is not set in the tasks' environment: export OMP_NUM_THREADS="
                     "$SLURM_CPUS_PER_TASK before srun" + (
                         f" (--export={options.get('--export', environ.get('SLURM_EXPORT_ENV'))} "
                         "hands the tasks only SLURM_* variables and those it names)"
                         if "OMP_NUM_THREADS" in environ else ""))  # fmt: skip
    exe = program[0]
    found = (os.path.join(cwd, exe) if "/" in exe
             else shutil.which(exe, path=environ.get("PATH", os.defpath)))  # fmt: skip
    if found and not os.path.isabs(found):
        found = os.path.join(cwd, found)
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        return error(f"{exe}: No such file or directory (is the program built? "
                     f"the job runs in {cwd})")  # fmt: skip
    loader = sorted(k for k in ("LD_PRELOAD", "LD_AUDIT") if {**tasks_env, **given}.get(k))
    if loader:
        return error(f"{', '.join(loader)} set for the tasks: the grader runs the program as "
                     "compiled, with no library slipped in")  # fmt: skip
    bind = _cpu_bind(options, environ, say)
    if bind not in ("cores", "none"):
        return error(bind)
    openmp = {k: v for k, v in {**tasks_env, **given}.items() if k.startswith(OPENMP)}
    return Step(ntasks, cpus_per_task, bind, os.path.normpath(found), tuple(program[1:]), openmp)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _exported(value: str | None, environ: dict[str, str]) -> dict[str, str] | str:
    """The tasks' environment as srun's --export (or its input variable SLURM_EXPORT_ENV) makes
    it from srun's `environ`: ALL (or none given) the whole of it; NONE only the SLURM_*
    variables; [ALL,]NAME[=value],... those names (their values here, or the one given) over
    the whole (ALL) or over the SLURM_* variables alone. A reason it is refused otherwise."""
    if value is None or value.upper() == "ALL":
        return dict(environ)
    slurm = {k: v for k, v in environ.items() if k.startswith("SLURM_")}
    if value.upper() == "NONE":
        return slurm
    words = value.split(",")
    out = dict(environ) if words[0].upper() == "ALL" else slurm
    for word in words[1:] if words[0].upper() == "ALL" else words:
        name, eq, given = word.partition("=")
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or name.upper() in ("ALL", "NONE"):
            return f"--export={value}: cannot read {word!r} (ALL, NONE, or [ALL,]NAME[=value],...)"
        if eq:
            out[name] = given
        elif name in environ:
            out[name] = environ[name]
    return out


# srun's --cpu-bind (Slurm's slurm_verify_cpu_bind: a comma list, case-insensitive; the last unit
# given wins). The stand-in starts each task bound to its --cpus-per-task cores, or unbound.
_BIND_WORDS = {"q": "", "quiet": "", "v": "", "verbose": "", "none": "none", "no": "none",
               "core": "cores", "cores": "cores", "thread": "cores", "threads": "cores"}  # fmt: skip
_BIND_OTHER = re.compile(r"(socket|ldom|board)s?|rank|rank_ldom|(map|mask)_(cpu|ldom):\S+", re.I)
CPU_BIND_NOTE = (
    "srun (local): no --cpu-bind given, so the tasks are not bound to cores (as on a Slurm whose "
    "TaskPluginParam sets no default binding; some sites bind by default, others do not): pass "
    "--cpu-bind=cores to give each task cores of its own, right on every site"
)


def _cpu_bind(options: dict[str, str], environ: dict[str, str] | None = None,
              say: Callable[[str], None] | None = None) -> str:
    """The binding a step asks for: "cores" (--cpu-bind=cores or threads, also after quiet or
    verbose; --cpu_bind is the same option, the last given wins), "none" (--cpu-bind=none, or no
    binding asked at all: --cpu-bind and srun's input variable SLURM_CPU_BIND both missing, said
    so); otherwise the reason srun (Slurm's own, or this stand-in) refuses the value.
    --hint=nomultithread (one hardware thread per core) is taken beside an explicit binding,
    which wins as Slurm has it; this machine's cores run one thread each, so it changes nothing
    there. Any other hint, or a hint alone (whose binding Slurm versions differ on), is refused."""
    environ = dict(os.environ) if environ is None else environ
    say = say or _stderr
    value = options.get("--cpu-bind")
    if value is None:
        value = environ.get("SLURM_CPU_BIND")
    hint = options.get("--hint", environ.get("SLURM_HINT"))
    if hint is not None and hint.lower() != "nomultithread":
        return (f"the kit's local srun takes --hint=nomultithread only (with --cpu-bind), "
                f"not --hint={hint}")  # fmt: skip
    unit = ""
    for word in [] if value is None else value.split(","):
        if word.lower() in _BIND_WORDS:
            unit = _BIND_WORDS[word.lower()] or unit
        elif _BIND_OTHER.fullmatch(word):
            return ("the kit's local srun starts each task bound to cores of its own "
                    f"(--cpu-bind=cores) or unbound (--cpu-bind=none), not --cpu-bind={value}")
        else:
            return f'unrecognized --cpu-bind argument "{word}"'
    if hint is not None and not unit:
        return ("--hint=nomultithread without --cpu-bind: the binding it implies differs between "
                "Slurm versions; pass --cpu-bind=cores as well")  # fmt: skip
    if not unit:
        say(CPU_BIND_NOTE)
    return unit or "none"


def _env_prefix(program: list[str]) -> tuple[dict[str, str], list[str]]:
    """A step's program when it is env(1) given only assignments before the real one (`srun ...
    env OMP_NUM_THREADS=2 ./jacobi "$@"`): the variables env sets and the real program with its
    arguments; ({}, program) otherwise."""
    if not program or os.path.basename(program[0]) != "env":
        return {}, program
    given, rest = {}, program[1:]
    while rest and re.fullmatch(r"[A-Za-z_]\w*=.*", rest[0], re.S):
        name, _, value = rest.pop(0).partition("=")
        given[name] = value
    return (given, rest) if given and rest else ({}, program)


def mpi_environment(implementation: str | None = None) -> dict[str, str]:
    """This process's environment plus what the venv's MPI needs to start ranks as this user:
    Open MPI's mpiexec refuses to run as root (a container, CI) unless told it may."""
    from ..machine.topology import find_mpiexec

    env = dict(os.environ)
    if os.geteuid() == 0 and (implementation or find_mpiexec().implementation) == "openmpi":
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def _takes_value(option: str) -> bool:
    name = LONG.get(option, option)
    return "=" not in option and name in ("--ntasks", "--cpus-per-task", "--nodes",
                                          "--ntasks-per-node", "--cpu-bind", "--export",
                                          "--hint", "--mpi", "--distribution",
                                          "--job-name")  # fmt: skip


def _srun_error(message: str) -> int:
    print(f"srun: error: {message}", file=sys.stderr, flush=True)
    return 1


PR_SET_CHILD_SUBREAPER = 36  # prctl(2): orphaned descendants are re-parented to this process


def contain_main(argv: list[str]) -> int:
    """Run `argv` (a job's script) as a child subreaper: whatever it starts and leaves running,
    even in a session of its own or without the kit's tag, is re-parented here and killed when
    the script ends or this process is terminated. So a judged script leaves nothing running
    beside the step the kit starts after it (judged_run)."""
    import contextlib
    import ctypes
    import subprocess

    import psutil

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    code = 1
    try:
        code = subprocess.call(argv)
    finally:
        left = psutil.Process().children(recursive=True)
        for proc in left:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        psutil.wait_procs(left, timeout=5)
    return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["srun"]:
        return srun_main(argv[1:])
    if argv[:1] == ["contain"] and argv[1:]:
        return contain_main(argv[1:])
    print("usage: python -m hybridlab.slurm.steps srun [options] program [arguments]\n"
          "       python -m hybridlab.slurm.steps contain command [arguments]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
