"""Submit a Slurm batch script and give back its output and what the allocation granted.

    from hybridlab.slurm import jobs
    result = jobs.submit("jacobi.sbatch", args=["512", "100"])   # sbatch jacobi.sbatch 512 100
    result.runner, result.output, result.granted

Where a Slurm cluster answers (sbatch and sinfo on PATH, sinfo reaches a controller) the script
goes to it with `sbatch --wait` (a time limit, a status line while it waits) and the output file
comes back. Elsewhere (a laptop, CI, the grading sandbox) the same script runs through the local
runner: it reads the #SBATCH lines, refuses what one node of this machine cannot give, and runs the
script with bash as a one-node allocation would (SLURM_* variables set, a job id of its own), with
the kit's `srun` first on PATH: a small stand-in (`python -m hybridlab.slurm.steps srun ...`, steps.py)
that starts the tasks with the venv's mpiexec, as many as asked, each bound to its
--cpus-per-task cores (placement.py's flags) when --cpu-bind=cores (or threads) asks, unbound
when --cpu-bind=none or no binding is asked (a Slurm without a default binding). `result.runner`
says which of the two ran the job. Options on the command line (`sbatch_args`, e.g.
["--ntasks=1"]) override the script's #SBATCH lines, as sbatch's own do.

A script that cannot work gets a clear JobScriptError before it runs (no #SBATCH task count, no
srun line, OMP_NUM_THREADS never set); a request the machine or allocation cannot meet a
JobRequestError naming the numbers (on Slurm also a job that would stay pending for good, with a
reason such as PartitionConfig, which a site without EnforcePartLimits gives an over-request:
seen with squeue, the job cancelled); a job that runs too long a JobTimeout (its processes
killed). A job that fails is returned (exit_code, output): `result.check()` raises JobFailed.
`build_program(name, code)` builds a whole program (its own main) with its MPI calls traced, and
`traced_results(folder)` reads the trace its ranks wrote back as Results (compliance.check).

A judged run (`judged_run`, lab 10's hidden tests; `run_traced` with the local runner) takes its
evidence from where the script cannot write. The script is the student's shell: it can read its
environment and any file of the user, print any line, rewrite any file after the program, run
another program. So the kit's srun only reports the step the script asks for to the kit's
socket, which reads it from that srun process itself (tasks, CPUs per task, binding, the tasks'
OMP_* variables, the arguments; _StepChannel: no record the script writes, and no report of
another process, is taken), the script runs as a child of `contain` (a subreaper: whatever it
leaves running, in any session, is killed when it ends), and then the kit starts that step
itself with its own copy of the program, reading the output on its own pipe and, for a traced
program, the trace with a key and into a folder made after the script is gone.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from .. import progress
from ..kernels.build import Kernel, build_source
from ..machine import reaper
from ..machine.topology import read_topology
from ..paths import cache_root, venv_bin
from ..runs.launch import record_key, trace_stream
from ..runs.records import NO_KEY, Results, parse_framed
from . import steps as _steps
from .steps import SRUN_COMMAND, STEPS, Step, mpi_environment, read_options

TIMEOUT = 300.0  # seconds a job may run by default
TRACE_DIR = "HL_TRACE_DIR"  # where a traced whole program's ranks write their trace (hl_mpi_trace.h)
PROVIDE_AT_MOST = "HL_PROVIDE_AT_MOST"  # a traced whole program sees at most this thread level
HALO_NUDGE = "HL_HALO_NUDGE"  # "K DELTA": a traced program's K-th message of doubles to each peer nudged (hl_trace.c)
# libgomp's entry points that hand out a runtime-scheduled loop's chunks (dynamic, guided, runtime),
# wrapped in a whole program (the tracer's __wrap_ functions count each thread's share: hl_trace.c)
LOOP_WRAPPED = tuple(f"GOMP_loop_{kind}{end}" for kind in (
    "dynamic", "guided", "runtime", "nonmonotonic_dynamic", "nonmonotonic_guided", "nonmonotonic_runtime",
    "maybe_nonmonotonic_runtime", "ull_dynamic", "ull_guided", "ull_runtime", "ull_nonmonotonic_dynamic",
    "ull_nonmonotonic_guided", "ull_nonmonotonic_runtime", "ull_maybe_nonmonotonic_runtime")
    for end in ("_start", "_next")) + ("GOMP_loop_start", "GOMP_loop_ull_start", "GOMP_loop_end",
                                       "GOMP_loop_end_nowait", "GOMP_loop_end_cancel")  # fmt: skip
WHOLE_PROGRAM = ("-DHL_WHOLE_PROGRAM", "-Wl," + ",".join(f"--wrap={name}" for name in LOOP_WRAPPED))
# libgomp's entry points that start a parallel region, wrapped in a traced whole program (the tracer
# notes the CPUs each thread number of a team runs on: the truth its place lines are judged by, hl_trace.c)
PARALLEL_WRAPPED = ("GOMP_parallel", "GOMP_parallel_sections") + tuple(
    f"GOMP_parallel_loop_{kind}" for kind in ("static", "dynamic", "guided", "nonmonotonic_dynamic",
                                              "nonmonotonic_guided", "runtime", "nonmonotonic_runtime",
                                              "maybe_nonmonotonic_runtime"))  # fmt: skip
PLACES_NOTED = ("-Wl," + ",".join(f"--wrap={name}" for name in PARALLEL_WRAPPED),)
# the counted build of a whole program (lab 10 (a)): GCC's ThreadSanitizer instrumentation (spelt
# --sanitize=thread: GCC and libgomp, not Archer's clang) with its store and read entry points, the
# copies and fills and the heap's allocation calls wrapped, so that the tracer credits each thread the
# bytes it changed (and computed: the update's reads before its store) in parallel regions, per heap
# block ("writes" records: hl_write_count.h)
COUNTED_WRITES = tuple(f"__tsan_{rw}{s}" for rw in ("write", "read") for s in (1, 2, 4, 8, 16)) + tuple(
    f"__tsan_unaligned_{rw}{s}" for rw in ("write", "read") for s in (2, 4, 8, 16)) + (
    "__tsan_write_range", "__tsan_read_range", "__tsan_func_exit", "memcpy", "memmove", "memset", "malloc", "calloc", "realloc", "aligned_alloc",
    "posix_memalign", "free",
    # the C library's writes of bytes the program chooses (formatted output, string copies, the
    # fortified copies), which the sanitizer does not see: counted as the caller's (A8's K2)
    "snprintf", "sprintf", "vsnprintf", "vsprintf", "__snprintf_chk", "__sprintf_chk",
    "__vsnprintf_chk", "__vsprintf_chk", "strcpy", "strncpy", "strcat", "strncat", "__strcpy_chk",
    "__strncpy_chk", "__strcat_chk", "__memcpy_chk", "__memmove_chk", "__memset_chk")  # fmt: skip
COUNT_WRITES = ("--sanitize=thread", "-Wl," + ",".join(f"--wrap={name}" for name in COUNTED_WRITES))
# a run of the counted build: ThreadSanitizer's reports off (libgomp is not instrumented: its
# barriers look like races), its background thread quiet
COUNT_ENV = {"TSAN_OPTIONS": "report_bugs=0 exitcode=0 ignore_noninstrumented_modules=1 "
                             "flush_memory_ms=0 history_size=0",
             "UCX_MEM_EVENTS": "no"}  # fmt: skip (UCX's memory hooks crash a thread's exit under it)
_LIVE: dict[str, str] = {}  # jobs of this process not known to have ended: id -> runner



class JobError(RuntimeError):
    """A job that could not be run, or that failed."""


class JobScriptError(JobError, ValueError):
    """The script cannot work as written (says what is missing), found before it runs."""


class JobRequestError(JobError):
    """The script asks for more than the machine or the allocation has (names the numbers)."""


class JobTimeout(JobError):
    """The job ran longer than its time limit; its processes were killed."""


class JobFailed(JobError):
    """The job ended with a non-zero exit status (its output's tail in the message)."""


@dataclass(frozen=True)
class JobRequest:
    """What a script's #SBATCH lines (and sbatch's own options) ask for."""

    ntasks: int = 1
    cpus_per_task: int = 1
    nodes: int = 1
    ntasks_per_node: int | None = None
    job_name: str = "job"

    @property
    def cpus(self) -> int:
        """CPUs asked for on one node."""
        per_node = self.ntasks_per_node or -(-self.ntasks // self.nodes)
        return per_node * self.cpus_per_task

    @property
    def label(self) -> str:
        return (f"{self.ntasks} task{'s' if self.ntasks > 1 else ''} x {self.cpus_per_task} "
                f"CPU{'s' if self.cpus_per_task > 1 else ''} per task"
                + (f" on {self.nodes} nodes" if self.nodes > 1 else ""))  # fmt: skip


@dataclass
class JobResult:
    """A finished job: who ran it, its exit status, its output file and what was granted."""

    runner: str  # "slurm" (sbatch --wait) or "local" (the kit's one-node stand-in)
    job_id: str
    request: JobRequest
    exit_code: int
    output: str  # stdout and stderr of the job, as Slurm's slurm-<id>.out holds them
    output_file: Path
    folder: Path
    seconds: float
    granted: dict[str, object] = field(default_factory=dict)
    script_output: str = ""  # a judged run's (judged_run): the script's own output; `output` is its program's

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def describe(self) -> str:
        """One line: who ran the job, its request and grant, its exit status."""
        who = ("Slurm (sbatch --wait)" if self.runner == "slurm"
               else "the kit's local runner (no Slurm cluster answers here)")  # fmt: skip
        granted = ", ".join(f"{k}={v}" for k, v in self.granted.items())
        return (f"job {self.job_id} ran by {who}: asked {self.request.label}; granted {granted}; "
                f"exit {self.exit_code} after {self.seconds:.1f} s; output {self.output_file.name}")

    def check(self) -> JobResult:
        """Raise JobFailed when the job failed; the result otherwise."""
        if self.exit_code != 0:
            raise JobFailed(f"job {self.job_id} ({self.runner}) exited with status "
                            f"{self.exit_code}:\n{self.output[-3000:].strip()}")  # fmt: skip
        return self

    def lines(self, prefix: str) -> list[dict[str, str]]:
        """The output's lines that start with `prefix` and a space, read as key=value fields."""
        return [dict(re.findall(r"(\w+)=(\S+)", line)) for line in self.output.splitlines()
                if line.startswith(prefix + " ")]  # fmt: skip


# ------------------------------------------------------------------ reading a script

def _whole(value: str, what: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise JobScriptError(f"{what} must be a whole number of at least 1, not {value!r}")
    return int(value)


def sbatch_lines(text: str) -> list[str]:
    """The #SBATCH directives, as sbatch reads them: from the top of the script, up to its first
    command (comments and blank lines may come between)."""
    found = []
    for line in text.splitlines()[1:] if text.startswith("#!") else text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#SBATCH"):
            found += shlex.split(stripped[len("#SBATCH"):], comments=True)
        elif stripped and not stripped.startswith("#"):
            break
    return found


def _commands(text: str) -> list[str]:
    """The script's command lines, comments taken out."""
    lines = []
    for line in text.splitlines():
        code = line.split("#", 1)[0].strip() if not line.strip().startswith("#") else ""
        if code:
            lines.append(code)
    return lines


def read_script(text: str, sbatch_args: list[str] | tuple[str, ...] = ()) -> JobRequest:
    """The request of a batch script (its #SBATCH lines, then `sbatch_args` over them), after
    checking that it can work: JobScriptError saying what is missing otherwise."""
    if "NotImplementedError" in text and not sbatch_lines(text):
        raise NotImplementedError("the job script is not written yet")
    if not text.lstrip().startswith("#!"):
        raise JobScriptError("a batch script starts with its interpreter: #!/bin/bash")
    options = {**read_options(sbatch_lines(text)), **read_options(list(sbatch_args))}
    if not any(k in options for k in ("--ntasks", "--ntasks-per-node")):
        raise JobScriptError("the script asks for no tasks: add `#SBATCH --ntasks=<ranks>` "
                             "(or --ntasks-per-node with --nodes)")  # fmt: skip
    commands = _commands(text)
    if not any(re.search(r"(^|[;&|]\s*|\bexec\s+|\btime\s+)srun\b", c) for c in commands):
        raise JobScriptError("the script never runs srun: the program's ranks are started with "
                             "`srun ... ./program` (a line of its own)")  # fmt: skip
    if not any(re.search(r"\bOMP_NUM_THREADS=", c) for c in commands):
        raise JobScriptError("the script never sets OMP_NUM_THREADS: OpenMP would start a thread "
                             "per CPU it sees; add `export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK`")
    nodes = _whole(options.get("--nodes", "1").split("-")[0], "--nodes")
    per_node = options.get("--ntasks-per-node")
    ntasks = (_whole(options["--ntasks"], "--ntasks") if "--ntasks" in options
              else nodes * _whole(per_node or "1", "--ntasks-per-node"))  # fmt: skip
    return JobRequest(
        ntasks=ntasks,
        cpus_per_task=_whole(options.get("--cpus-per-task", "1"), "--cpus-per-task"),
        nodes=nodes,
        ntasks_per_node=_whole(per_node, "--ntasks-per-node") if per_node else None,
        job_name=options.get("--job-name", "job"),
    )


# ------------------------------------------------------------------ submitting

def slurm_answers() -> bool:
    """Whether a Slurm cluster takes jobs here: sbatch and sinfo on PATH, and sinfo reaches a
    controller that has a node (within 15 s)."""
    if os.environ.get("HYBRIDLAB_JOBS", "auto") == "local":
        return False
    if not (shutil.which("sbatch") and shutil.which("sinfo")):
        return False
    try:
        done = subprocess.run(["sinfo", "-h", "-o", "%D"], capture_output=True, text=True,
                              timeout=15, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and any(w.isdigit() and int(w) > 0 for w in done.stdout.split())


def submit(
    script: str | Path,
    *,
    args: list[str] | tuple[str, ...] = (),
    sbatch_args: list[str] | tuple[str, ...] = (),
    folder: str | Path | None = None,
    timeout: float = TIMEOUT,
    runner: str = "auto",
    env: dict[str, str] | None = None,
) -> JobResult:
    """Run a batch script (a path, or the script's text) as `sbatch [sbatch_args] script [args]`
    in `folder` (default: the script's folder, or the current one): on Slurm when a cluster
    answers (runner="auto"; "slurm" or "local" forces one), else with the local runner."""
    path = Path(script) if isinstance(script, Path) or "\n" not in str(script) else None
    if path is not None and not path.is_file():
        raise JobScriptError(f"no batch script {str(script)!r}")
    text = path.read_text() if path is not None else str(script)
    where = Path(folder) if folder is not None else (path.parent if path else Path.cwd())
    where = where.resolve()
    request = read_script(text, sbatch_args)
    use = runner if runner != "auto" else ("slurm" if slurm_answers() else "local")
    if use not in ("slurm", "local"):
        raise ValueError(f"runner must be auto, slurm or local, not {runner!r}")
    run = _submit_slurm if use == "slurm" else _submit_local
    return run(text, request, list(args), list(sbatch_args), where, timeout, env or {})


def _job_script(text: str, folder: Path, job_id: str) -> Path:
    script = folder / f".{job_id}.sbatch"
    script.write_text(text)
    return script


def _submit_local(text: str, request: JobRequest, args: list[str], sbatch_args: list[str],
                  folder: Path, timeout: float, extra: dict[str, str],
                  usable: int | None = None) -> JobResult:  # fmt: skip
    usable = len(read_topology().usable) if usable is None else usable
    if request.nodes > 1:
        raise JobRequestError(f"the script asks for {request.nodes} nodes; the local runner is "
                              "one node (this machine): ask for --nodes=1")  # fmt: skip
    if request.cpus > usable:
        raise JobRequestError(
            f"the script asks for {request.ntasks} tasks x {request.cpus_per_task} CPUs per "
            f"task = {request.cpus} CPUs on one node, but this machine has {usable}: no "
            "allocation can give that here (Slurm refuses it too: 'Requested node configuration "
            "is not available', or keeps it pending for good: reason PartitionConfig); ask for "
            "fewer tasks or CPUs per task"
        )
    job_id = f"local-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True, exist_ok=True)
    script = _job_script(text, folder, job_id)
    output_file = folder / f"slurm-{job_id}.out"
    shim = Path(tempfile.mkdtemp(prefix="hybridlab-srun-"))
    (shim / "srun").write_text(f'#!/bin/sh\nexec "{sys.executable}" {" ".join(SRUN_COMMAND)} "$@"\n')
    (shim / "srun").chmod(0o755)
    host = socket.gethostname().split(".")[0]
    tag = f"job-{job_id}"
    env = {  # not the submitter's own srun binding, export or hint (a grader under srun): the script's
        **{k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_CPU_BIND", "SLURM_EXPORT_ENV", "SLURM_HINT"))}, **extra,
        "PATH": f"{shim}{os.pathsep}{venv_bin()}{os.pathsep}{os.environ.get('PATH', '')}",
        "SLURM_JOB_ID": job_id, "SLURM_JOBID": job_id, "SLURM_JOB_NAME": request.job_name,
        "SLURM_NTASKS": str(request.ntasks), "SLURM_NPROCS": str(request.ntasks),
        "SLURM_CPUS_PER_TASK": str(request.cpus_per_task),
        "SLURM_NTASKS_PER_NODE": str(request.ntasks_per_node or request.ntasks),
        "SLURM_JOB_NUM_NODES": "1", "SLURM_NNODES": "1", "SLURM_JOB_NODELIST": host,
        "SLURM_NODELIST": host, "SLURM_CPUS_ON_NODE": str(request.cpus),
        "SLURM_JOB_CPUS_PER_NODE": str(request.cpus), "SLURM_SUBMIT_DIR": str(folder),
        "HYBRIDLAB_LOCAL_JOB": "1", reaper.TAG: tag, reaper.OWNER: reaper.owner_stamp(),
    }  # fmt: skip
    start = time.monotonic()
    try:
        with progress.running(f"job {job_id}: {request.label}, local runner (no Slurm cluster "
                              "answers here)"):  # fmt: skip
            code = _run_tagged([sys.executable, "-I", "-m", "hybridlab.slurm.steps", "contain", "bash",
                                str(script), *args], folder, env, output_file, tag,
                               timeout, f"job {job_id}")  # fmt: skip
    finally:
        shutil.rmtree(shim, ignore_errors=True)
        script.unlink(missing_ok=True)
    granted = {"nodes": 1, "ntasks": request.ntasks, "cpus_per_task": request.cpus_per_task,
               "cpus": request.cpus, "node": host}  # fmt: skip
    return JobResult("local", job_id, request, code, output_file.read_text(), output_file, folder,
                     time.monotonic() - start, granted)  # fmt: skip


def _run_tagged(cmd: list[str], folder: Path, env: dict[str, str], output_file: Path, tag: str,
                timeout: float, what: str) -> int:  # fmt: skip
    """Run `cmd` in a session of its own, its output (stdout and stderr) into `output_file`;
    its exit status. At the end every process tagged `tag` is killed (what it left running);
    past `timeout` the whole group too, and JobTimeout says so."""
    _LIVE[tag] = "local"
    try:
        with output_file.open("w") as out:
            proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
            try:
                return proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired as expired:
                _kill_group(proc, tag)
                raise JobTimeout(
                    f"{what} did not finish within {timeout:g} s (a deadlock or an endless "
                    f"loop?); its processes were killed. Output so far:\n"
                    f"{output_file.read_text()[-2000:].strip()}"
                ) from expired
    finally:
        reaper.reap(tag)
        reaper.clean_files()
        _LIVE.pop(tag, None)


def _kill_group(proc: subprocess.Popen, tag: str) -> None:
    """End a timed-out job: its leader asked first (contain ends what the script left), then
    its whole group and everything tagged killed."""
    proc.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    reaper.kill(reaper.tagged(tag))
    proc.wait()


def _submit_slurm(text: str, request: JobRequest, args: list[str], sbatch_args: list[str],
                  folder: Path, timeout: float, extra: dict[str, str]) -> JobResult:  # fmt: skip
    job_name = f"hl-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True, exist_ok=True)
    script = _job_script(text, folder, job_name)
    minutes = max(1, int(-(-timeout // 60)))
    _LIVE[job_name] = "slurm"
    cmd = ["sbatch", "--wait", "--parsable", f"--job-name={job_name}", f"--chdir={folder}", f"--output={folder}/slurm-%j.out",
           f"--time={minutes}", *sbatch_args, str(script), *args]  # fmt: skip
    env = {**os.environ, **extra}
    env["PATH"] = f"{venv_bin()}{os.pathsep}{env.get('PATH', '')}"
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    job_id = ""
    deadline = start + timeout + 30
    try:
        with progress.running(f"job: {request.label}, sbatch --wait on Slurm"):
            while True:
                try:
                    out, err = proc.communicate(timeout=min(POLL, max(0.1, deadline - time.monotonic())))
                    break
                except subprocess.TimeoutExpired as expired:
                    stuck = _pending_forever(job_name)
                    if stuck is None and time.monotonic() < deadline:
                        continue
                    subprocess.run(["scancel", "--name", job_name], capture_output=True,
                                   check=False)  # fmt: skip
                    try:
                        out, err = proc.communicate(timeout=30)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        out, err = proc.communicate()
                    job_id = out.strip().split(";")[0]
                    if stuck is not None:
                        raise JobRequestError(
                            f"Slurm cannot run {request.label} ({request.cpus} CPUs on a node): "
                            f"job {stuck[0]} stayed pending with reason {stuck[1]} ({_partition()}"
                            "), which waiting does not change; it was cancelled. Ask for fewer "
                            "tasks or CPUs per task"
                        ) from expired
                    raise JobTimeout(f"Slurm job {job_id or '?'} did not finish within "
                                     f"{timeout:g} s; it was cancelled") from expired  # fmt: skip
    finally:
        script.unlink(missing_ok=True)
        _LIVE.pop(job_name, None)
    job_id = out.strip().splitlines()[0].split(";")[0] if out.strip() else ""
    _LIVE.pop(job_name, None)
    if not job_id:
        message = err.strip()
        if "node configuration" in message or "More processors" in message:
            raise JobRequestError(f"Slurm refused {request.label} ({request.cpus} CPUs on a "
                                  f"node): {message}")  # fmt: skip
        raise JobError(f"sbatch did not take the job: {message}")
    output_file = folder / f"slurm-{job_id}.out"
    granted = _granted(job_id) or {"ntasks": request.ntasks, "cpus_per_task": request.cpus_per_task}
    output = output_file.read_text() if output_file.exists() else ""
    return JobResult("slurm", job_id, request, proc.returncode, output, output_file, folder,
                     time.monotonic() - start, granted)  # fmt: skip


# A pending job's reasons that waiting never clears: the request exceeds what the partition's
# nodes, its limits or the account's can give. Slurm refuses such a job at submission only when
# the site sets EnforcePartLimits (Debian's default, NO, queues it for good).
NEVER_RUNS = {"PartitionConfig", "PartitionNodeLimit", "PartitionTimeLimit", "BadConstraints",
              "InvalidAccount", "InvalidQOS", "AccountNotAllowed", "QOSMaxCpuPerJobLimit",
              "QOSMaxNodePerJobLimit", "QOSMaxWallDurationPerJobLimit", "AssocMaxCpuPerJobLimit",
              "AssocMaxNodePerJobLimit", "AssocMaxWallDurationPerJobLimit"}  # fmt: skip
POLL = 2.0  # seconds between looks at a waiting Slurm job


def _pending_forever(job_name: str) -> tuple[str, str] | None:
    """(job id, reason) when the job named `job_name` is pending for a reason in NEVER_RUNS."""
    try:
        done = subprocess.run(["squeue", "--noheader", f"--name={job_name}", "--format=%i|%T|%r"],
                              capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in done.stdout.splitlines():
        job_id, _, rest = line.strip().partition("|")
        state, _, reason = rest.partition("|")
        if state == "PENDING" and reason in NEVER_RUNS:
            return job_id, reason
    return None


def _partition() -> str:
    """The default partition's nodes as sinfo shows them: 'N nodes of C CPUs' (or less)."""
    try:
        done = subprocess.run(["sinfo", "--noheader", "--format=%D|%c|%P"], capture_output=True,
                              text=True, timeout=30, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return "sinfo did not answer"
    lines = [ln.split("|") for ln in done.stdout.split() if ln.count("|") == 2]
    chosen = [ln for ln in lines if ln[2].endswith("*")] or lines
    if not chosen:
        return "sinfo shows no node"
    nodes, cpus, name = chosen[0]
    return f"partition {name.rstrip('*')}: {nodes} node{'s' if nodes != '1' else ''} of {cpus} CPUs"


def stop() -> int:
    """End every job this process started that may still run (a cell interrupted while it
    waited): local jobs' processes killed, Slurm jobs cancelled. How many there were."""
    count = 0
    for key, runner in list(_LIVE.items()):
        if runner == "local":
            reaper.kill(reaper.tagged(key))
            reaper.reap(key)
        elif shutil.which("scancel"):
            subprocess.run(["scancel", "--name", key], capture_output=True, check=False)
        _LIVE.pop(key, None)
        count += 1
    reaper.clean_files()
    return count


def _granted(job_id: str) -> dict[str, object]:
    """What Slurm gave the job (scontrol show job, while the controller still knows it)."""
    done = subprocess.run(["scontrol", "-o", "show", "job", job_id], capture_output=True,
                          text=True, timeout=30, check=False)  # fmt: skip
    fields = dict(re.findall(r"(\w+(?:/\w+)?)=(\S+)", done.stdout))
    names = {"NumNodes": "nodes", "NumTasks": "ntasks", "CPUs/Task": "cpus_per_task",
             "NumCPUs": "cpus", "NodeList": "node"}  # fmt: skip
    return {ours: fields[theirs] for theirs, ours in names.items() if theirs in fields}


# ------------------------------------------------------------------ whole programs

def build_program(name: str, code: str, *, trace_mpi: bool = True,
                  count_writes: bool = False) -> Kernel:
    """Build a whole program (its own main) from C source; trace_mpi records its MPI calls and
    the thread level it asked for, written at MPI_Finalize to $HL_TRACE_DIR (traced_results).
    count_writes: the counted build (COUNT_WRITES; run it with COUNT_ENV): each thread's changed
    bytes in parallel regions, per heap block, in the trace's "writes" records. Traced, the CPUs each
    thread number of a team ran on are in its "thread_place" records (PLACES_NOTED)."""
    return build_source(name, code, WHOLE_PROGRAM + (PLACES_NOTED if trace_mpi else ())
                        + (COUNT_WRITES if count_writes else ()), trace_mpi=trace_mpi)


# a compile line (lab 10 (b)) is compiler invocations: a C compiler or MPI's wrapper of one, and
# a few file commands, joined by `&&`, `||` or `;` (a fresh attacker's u10_e_whole2, 2/2 twice,
# 2026-12-05: `python -c "...jobs.build_program(...)"`, the kit's own build supplying the flags)
COMPILERS = re.compile(r"(?:mpi(?:cc|cxx|c\+\+|CC|gcc|g\+\+|icc|icpc|icx|icpx|clang|clang\+\+)|cc|c\+\+|c99|c11|c17"
                       r"|gcc|g\+\+|clang|clang\+\+|icc|icpc|icx|icpx)(?:-\d+(?:\.\d+)*)?")  # fmt: skip
FILE_COMMANDS = ("cd", "cp", "mv", "ln", "rm", "mkdir", "ls", "echo", "strip", "true")
# a compiler's options that run or load another program (its driver's helpers, a linker, a plugin,
# MPICH's choice of the compiler it wraps) or read options from a file
_RUNS_ANOTHER = re.compile(r"^(?:-wrapper|-B|-specs|--specs|--ld-path|-fuse-ld|-fplugin|-iplugindir|@"
                           r"|-cc=|-CC=|-cxx=|-fc=|-f77=|-f90=|-load$)|plugin")  # fmt: skip
COMPILE_ALLOWED = (
    "a compile line runs compilers: mpicc (or another MPI wrapper: mpicxx, mpic++), cc, gcc, clang "
    "or icx with their options, and may move or remove files (" + ", ".join(FILE_COMMANDS) + "), "
    "the commands joined by &&, || or ;; no other program (no python, make or shell), no variable "
    "assigned before a command, no $(...) or `...`, no pipe, redirection or background job, and no "
    "compiler option that runs or loads another program (-wrapper, -B, -specs, -fplugin, "
    "--ld-path, -fuse-ld, @file, mpicc -cc=)")


def compile_line_refused(line: str) -> str | None:
    """Why `line` is not a compile line (COMPILE_ALLOWED), or None: each command, read as bash
    reads it, is a compiler (COMPILERS, found on PATH by its name) with options that run no other
    program, or one of FILE_COMMANDS."""
    text = line.replace("\\\n", " ").strip().replace("\n", " ; ")
    if "`" in text or "$(" in text or "<(" in text or ">(" in text:
        return f"{COMPILE_ALLOWED} (`{line.strip()}` substitutes a command)"
    lex = shlex.shlex(text, posix=True, punctuation_chars=";&|<>()")
    lex.whitespace_split, lex.commenters = True, ""
    try:
        tokens = list(lex)
    except ValueError as err:
        return f"{COMPILE_ALLOWED} (`{line.strip()}`: {err})"
    commands, current = [], []
    for token in tokens + [";"]:
        if token in ("&&", "||", ";"):
            if current:
                commands.append(current)
            current = []
        elif token and set(token) <= set(";&|<>()"):
            return f"{COMPILE_ALLOWED} (`{line.strip()}` has {token!r})"
        else:
            current.append(token)
    if not commands:
        return f"{COMPILE_ALLOWED} (the line runs nothing)"
    for argv in commands:
        name = argv[0]
        if COMPILERS.fullmatch(name):
            bad = [a for a in argv[1:] if _RUNS_ANOTHER.search(a)]
            if bad:
                return f"{COMPILE_ALLOWED} (`{' '.join(argv)}`: {bad[0]})"
        elif name not in FILE_COMMANDS:
            return f"{COMPILE_ALLOWED} (`{' '.join(argv)}` runs {name!r})"
    return None


def compile_line(line: str, code: str, folder: str | Path, program: str = "jacobi",
                 source: str = "jacobi.c", timeout: float = 120.0) -> Path:
    """Write `code` to folder/source and run the compile `line` there with bash (the venv's
    mpicc first on PATH); the program it made, or JobError with the compiler's output. A line that is not compiler invocations (compile_line_refused:
    COMPILE_ALLOWED) is a JobError before it runs."""
    refused = compile_line_refused(line)
    if refused:
        raise JobError(refused)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / source).write_text(code)
    (folder / program).unlink(missing_ok=True)
    env = {**{k: v for k, v in os.environ.items()  # no start-up file or function bash would run first
              if k not in ("BASH_ENV", "ENV") and not k.startswith("BASH_FUNC_")},
           "PATH": f"{venv_bin()}{os.pathsep}{os.environ.get('PATH', '')}"}
    with progress.running(f"compile: {line}"):
        done = subprocess.run(["bash", "-c", line], cwd=folder, env=env, capture_output=True,
                              text=True, timeout=timeout, check=False)  # fmt: skip
    built = folder / program
    if done.returncode != 0:
        raise JobError(f"`{line}` failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    if not (built.is_file() and os.access(built, os.X_OK)):
        raise JobError(f"`{line}` ran but made no program {program!r} in {folder}")
    return built


def run_traced(
    script: str | Path,
    program: Kernel,
    folder: str | Path,
    *,
    name: str = "jacobi",
    args: list[str] | tuple[str, ...] = (),
    sbatch_args: list[str] | tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    timeout: float = TIMEOUT,
) -> tuple[JobResult, Results | None]:
    """Submit `script` in `folder` with a traced whole program (build_program) in place of
    ./`name`: the job's result and the trace its ranks wrote (None when no rank finalised).

    With the local runner this is a judged run (judged_run): the script's srun step is started
    by the kit itself. Under Slurm the script's own srun starts it. Either way the ranks write
    their trace at MPI_Finalize, framed with a key made for the run (launch.record_key), into a
    folder of the kit's cache (every node sees it), not the job's folder; it is read and removed
    when the run ends. The program cannot open files (hybridlab.kernels.unit_checks), so it can
    neither read the key nor rewrite the trace."""
    if not slurm_answers():
        return judged_run(script, program, folder, name=name, args=args, sbatch_args=sbatch_args,
                          env=env, timeout=timeout, traced=True)  # fmt: skip
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.unlink(missing_ok=True)
    shutil.copy2(program.program, target)
    text = script.read_text() if isinstance(script, Path) else str(script)
    with _trace_channel() as (trace_env, read):
        result = submit(text, args=args, sbatch_args=sbatch_args, folder=folder, timeout=timeout,
                        runner="slurm", env={**(env or {}), **trace_env})  # fmt: skip
        return result, read()


def judged_run(
    script: str | Path,
    program: Kernel,
    folder: str | Path,
    *,
    name: str = "jacobi",
    args: list[str] | tuple[str, ...] = (),
    sbatch_args: list[str] | tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    timeout: float = TIMEOUT,
    traced: bool = False,
    oversubscribe: bool = False,
) -> tuple[JobResult, Results | None]:
    """A job script judged by what it asks for, its program's run out of its reach: the script
    runs (local runner) with `program` as ./`name`, but the kit's srun only records the step it
    is asked for (tasks, CPUs per task, binding, arguments, the OpenMP variables); once the
    script and everything it started have ended, the kit starts that step itself with its own
    copy of `program` (read before the script ran), `env` added, and reads the program's output
    on its own pipe. With `traced`, the trace comes on the kit's channel (a key and a folder
    made after the script ended). The result's `output` is the program's; `script_output` the
    script's own. A script that fails is returned as it ended (its output); one that started no
    step of ./`name` (or several) is a JobScriptError. So nothing the script prints, writes or
    leaves running, and no program it runs instead, is read as the program's behaviour.
    `oversubscribe`: the local runner grants the allocation the script asks for even beyond this
    machine's CPUs, and the step runs on them in turns (lab 10's run of more ranks than CPUs, whose
    memory is read; a script binding its tasks to cores would fail there: bind none)."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    body = Path(program.program).read_bytes()
    target = folder / name
    target.unlink(missing_ok=True)
    target.write_bytes(body)
    target.chmod(0o755)
    text = script.read_text() if isinstance(script, Path) else str(script)
    private = Path(tempfile.mkdtemp(prefix="hybridlab-step-"))
    try:
        with _StepChannel(target, body) as channel:
            if oversubscribe:
                request = read_script(text, list(sbatch_args))
                job = _submit_local(text, request, list(args), list(sbatch_args), folder, timeout,
                                    channel.env, usable=max(request.cpus, 1))  # fmt: skip
            else:
                job = submit(text, args=args, sbatch_args=sbatch_args, folder=folder,
                             timeout=timeout, runner="local", env=channel.env)  # fmt: skip
        if not job.ok:
            return job, None
        step = _judged_step(channel, target, job.request)
        own = private / "program" / name
        own.parent.mkdir()
        own.write_bytes(body)
        own.chmod(0o500)
        with _trace_channel(traced) as (trace_env, read):
            cmd, step_env = step.command(own, {**mpi_environment(), **(env or {}), **trace_env})
            tag = f"{job.job_id}-step"
            step_env.update({reaper.TAG: tag, reaper.OWNER: reaper.owner_stamp()})
            output = private / "output"
            start = time.monotonic()
            with progress.running(f"job {job.job_id}: its srun step ({step.ntasks} x "
                                  f"{step.cpus_per_task}), started by the grader"):  # fmt: skip
                code = _run_tagged(cmd, folder, step_env, output, tag, timeout,
                                   f"the srun step of job {job.job_id}")  # fmt: skip
            result = JobResult("local", job.job_id, job.request, code, output.read_text(),
                               job.output_file, folder, job.seconds + time.monotonic() - start,
                               job.granted, script_output=job.output)  # fmt: skip
            return result, read()
    finally:
        shutil.rmtree(private, ignore_errors=True)


def asked_step(
    script: str | Path,
    folder: str | Path,
    *,
    name: str = "jacobi",
    args: list[str] | tuple[str, ...] = (),
    sbatch_args: list[str] | tuple[str, ...] = (),
    timeout: float = TIMEOUT,
) -> tuple[JobResult, Step | None]:
    """The srun step of ./`name` a judged script asks for (tasks, CPUs per task, binding, the
    OpenMP variables, the arguments) in an allocation as `sbatch_args` ask, even one larger than
    this machine: the script runs with the local runner as in judged_run, but no step is started
    (./`name` is a placeholder), so a made-up allocation harms nothing. The job's result and the
    step, checked as judged_run checks it (None when the script failed). What a script makes of
    SLURM_CPUS_PER_TASK is judged on shapes the machine cannot run (lab 10's hidden tests)."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.unlink(missing_ok=True)
    placeholder = b"#!/bin/sh\nexit 0\n"
    target.write_bytes(placeholder)
    target.chmod(0o755)
    text = script.read_text() if isinstance(script, Path) else str(script)
    request = read_script(text, list(sbatch_args))
    if request.nodes > 1:
        raise JobRequestError(f"the script asks for {request.nodes} nodes; the local runner is "
                              "one node (this machine): ask for --nodes=1")  # fmt: skip
    with _StepChannel(target, placeholder) as channel:
        job = _submit_local(text, request, list(args), list(sbatch_args), folder, timeout,
                            channel.env, usable=request.cpus)  # fmt: skip
    return job, (_judged_step(channel, target, job.request) if job.ok else None)


class _StepChannel:
    """The kit's end of its srun's reports in a judged run: a unix socket in a folder of its own
    (its path in the job's $HL_SRUN_SOCKET). The script can name and reach it, so nothing a peer
    sends is read: for each connection the kit takes the peer's pid from the kernel
    (SO_PEERCRED) and takes the step only from a peer that is the kit's srun as the job's PATH
    starts it (this venv's python running `-I -m hybridlab.slurm.steps srun`, a descendant of
    this process, no loader variable slipped in), reading the step from that process itself:
    its command line, environment and folder (/proc), checked as srun checks it (steps._step),
    while it waits for the answer. `target` (./jacobi) must then hold `body`, the program the
    kit built: a script that replaced it has its step refused. Any other peer, and any refused
    step, is kept as a refusal (_judged_step names it)."""

    def __init__(self, target: Path, body: bytes):
        self.target = target.resolve()
        self.digest = hashlib.sha256(body).hexdigest()
        self.folder = Path(tempfile.mkdtemp(prefix="hybridlab-srun-"))
        self.path = self.folder / "srun.sock"
        self.steps: list[Step] = []
        self.refused: list[str] = []
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(self.path))
        self._sock.listen(16)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def env(self) -> dict[str, str]:
        return {STEPS: str(self.path)}

    def __enter__(self) -> _StepChannel:
        return self

    def __exit__(self, *_exc: object) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(timeout=15)
        shutil.rmtree(self.folder, ignore_errors=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(30)
                try:
                    answer = self._take(conn)
                except (OSError, ValueError, psutil.Error) as err:
                    answer = f"the grader could not read the srun that reported a step: {err}"
                if answer != "ok":
                    with self._lock:
                        self.refused.append(answer)
                with contextlib.suppress(OSError):
                    conn.sendall((answer.replace("\n", " ") + "\n").encode())

    def _take(self, conn: socket.socket) -> str:
        """"ok" when the peer is the kit's srun and its step is taken, else why not."""
        size = struct.calcsize("3i")
        pid, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, size))
        conn.recv(64)  # its hello: the peer now waits for the answer, as it is
        proc = Path(f"/proc/{pid}")
        argv = [a.decode(errors="replace") for a in (proc / "cmdline").read_bytes().split(b"\0")[:-1]]
        environ = dict(e.decode(errors="replace").partition("=")[::2]
                       for e in (proc / "environ").read_bytes().split(b"\0") if b"=" in e)  # fmt: skip
        cwd = os.readlink(proc / "cwd")
        exe = os.readlink(proc / "exe")
        ancestors = {p.pid for p in psutil.Process(pid).parents()}
        srun = [sys.executable, *SRUN_COMMAND]
        loader = [k for k in ("LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH")
                  if environ.get(k) != os.environ.get(k)]  # fmt: skip
        if (uid != os.getuid() or os.getpid() not in ancestors or exe != os.path.realpath(sys.executable)
                or argv[: len(srun)] != srun or loader):
            shown = " ".join(argv)[:200]
            return (f"a process that is not the kit's srun reported a step (pid {pid}: {shown}"
                    + (f"; {', '.join(loader)} changed" if loader else "")
                    + "): the grader takes a step only from srun itself, as `srun ... ./program` starts it")
        said: list[str] = []
        step = _steps._step(argv[len(srun):], environ, cwd, said.append)
        if isinstance(step, int):
            return next((m.removeprefix("srun: error: ") for m in reversed(said)
                         if m.startswith("srun: error: ")), "srun refused the step")  # fmt: skip
        if Path(step.program).resolve() == self.target:
            try:
                held = hashlib.sha256(Path(step.program).read_bytes()).hexdigest()
            except OSError:
                held = ""
            if held != self.digest:
                return (f"./{self.target.name} is not the program the grader built when srun starts "
                        "it (the script replaced or changed it): the grader judges the step of "
                        "the program as built")  # fmt: skip
        with self._lock:
            self.steps.append(step)
        return "ok"


def _judged_step(channel: _StepChannel, target: Path, request: JobRequest) -> Step:
    """The one srun step of `target` a judged script asked for, as the kit's srun asked for it
    (_StepChannel): JobScriptError when any report was refused, or there is no step of it, or
    more than one."""
    if channel.refused:
        raise JobScriptError(f"srun: {channel.refused[0]}")
    found = list(channel.steps)
    mine = [s for s in found if Path(s.program).resolve() == target.resolve()]
    if not mine:
        ran = ", ".join(sorted({s.program for s in found}))
        raise JobScriptError(f"the script started no srun step of ./{target.name}"
                             + (f" (its srun steps ran {ran})" if ran else "")
                             + f": the grader judges the program that `srun ... ./{target.name}` starts")
    if len(mine) > 1:
        raise JobScriptError(f"the script started ./{target.name} {len(mine)} times with srun: "
                             "the grader judges one srun step of the program")  # fmt: skip
    step = mine[0]
    if step.ntasks * step.cpus_per_task > request.cpus:
        raise JobScriptError(f"the srun step {step} is not one the allocation ({request.label}) gives")
    return step


@contextlib.contextmanager
def _trace_channel(traced: bool = True) -> Iterator[tuple[dict[str, str], Callable[[], Results | None]]]:
    """What a traced program's ranks need to hand over their trace (a fresh folder of the kit's
    cache and a key made for the run) and a reader of it (None when no rank finalised); the
    folder removed at the end. Untraced: nothing, and a reader of nothing."""
    if not traced:
        yield {}, lambda: None
        return
    traces = cache_root() / "traces"
    traces.mkdir(parents=True, exist_ok=True, mode=0o700)
    trace = Path(tempfile.mkdtemp(dir=traces))
    try:
        with record_key() as (key, key_env), trace_stream(trace) as (stream_env, _):

            def read() -> Results | None:
                try:
                    return traced_results(trace, key)
                except JobError:
                    return None

            yield {TRACE_DIR: str(trace), **key_env, **stream_env}, read
    finally:
        shutil.rmtree(trace, ignore_errors=True)


def traced_results(folder: str | Path, key: str = NO_KEY) -> Results:
    """The trace a traced whole program's ranks wrote to `folder` (HL_TRACE_DIR) as Results:
    records (one "mpi_init" per rank: the level required and provided), mpi_calls, meta. Each
    file's lines must be framed with `key` (the run's; NO_KEY when none was given), numbered and
    counted (records.parse_framed): RecordError otherwise. Each rank's calls are in its stream
    file beside it (launch.trace_stream), written as they ended."""
    rows: list[dict] = []
    ranks: list[dict] = []
    files = sorted(Path(folder).glob("trace-*.jsonl"))
    if not files:
        raise JobError(f"no rank wrote a trace to {folder}: did the program reach MPI_Finalize?")
    for path in files + sorted(Path(folder).glob("stream-*.jsonl")):
        r, m, _ = parse_framed(path.read_text(), key, path.name)
        rows += r
        ranks += m
    return Results.from_rows(rows, ranks, {"run_by": "job"}, [])


