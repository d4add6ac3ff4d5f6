"""hybridlab.slurm.jobs: batch scripts run by the local runner (real runs with the venv's mpiexec): a good
script, overrides, the srun stand-in's placement, a traced whole program read back, and bad
scripts refused with a clear message, never a hang."""

from __future__ import annotations

import psutil
import pytest

from hybridlab.machine.topology import read_topology
from hybridlab.runs import compliance
from hybridlab.slurm import jobs, steps
from hybridlab.whole_program.exercise import places_unseen, updates_unshared
from whole_program_c import JACOBI_PROGRAM, JOB_SCRIPT, PROBE_PROGRAM

pytestmark = pytest.mark.timeout(300)
CPUS = len(read_topology().usable)
needs_two = pytest.mark.skipif(CPUS < 2, reason="needs 2 CPUs")


@pytest.fixture(scope="module")
def probe():
    return jobs.build_program("lab10_probe", PROBE_PROGRAM.replace("TOKEN", "4242L"), trace_mpi=False)


def _placed(result: jobs.JobResult) -> dict[tuple[int, int], dict[str, str]]:
    return {(int(p["rank"]), int(p["thread"])): p for p in result.lines("place")}


def _job(tmp_path, probe, script=JOB_SCRIPT, **kwargs) -> jobs.JobResult:
    folder = tmp_path / "job"
    folder.mkdir(exist_ok=True)
    (folder / "jacobi").write_bytes(probe.program.read_bytes())
    (folder / "jacobi").chmod(0o755)
    return jobs.submit(script, folder=folder, runner="local", timeout=120, **kwargs)


def test_a_script_is_read_with_sbatch_options_over_its_lines():
    request = jobs.read_script(JOB_SCRIPT, ["--ntasks=1", "-c", "2"])
    assert (request.ntasks, request.cpus_per_task, request.cpus) == (1, 2, 2)
    assert jobs.read_script(JOB_SCRIPT).ntasks == 2


@needs_two
@pytest.mark.parametrize("ranks,threads", [(2, 1), (1, 2)])
def test_the_local_runner_places_tasks_and_threads_as_asked(tmp_path, probe, ranks, threads):
    result = _job(tmp_path, probe, args=["30", "7"],
                  sbatch_args=[f"--ntasks={ranks}", f"--cpus-per-task={threads}"]).check()
    assert result.runner == "local" and "local runner" in result.describe()
    assert result.granted["ntasks"] == ranks and result.granted["cpus_per_task"] == threads
    (summary,) = result.lines("probe")
    assert summary == {"token": "4242", "ranks": str(ranks), "threads": str(threads),
                       "argv": "30,7"}  # fmt: skip
    placed = _placed(result)
    assert sorted(placed) == [(r, t) for r in range(ranks) for t in range(threads)]
    allowed = [p["allowed"] for p in placed.values()]
    assert all("," not in a for a in allowed), f"each thread bound to one CPU: {allowed}"
    assert len(set(allowed)) == ranks * threads, f"each on its own CPU: {allowed}"
    assert all(p["cpu"] == p["allowed"] for p in placed.values())


@needs_two
def test_srun_without_cpus_per_task_gives_each_task_one_cpu_and_says_so(tmp_path, probe):
    script = JOB_SCRIPT.replace(" --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind", " --cpu-bind")
    result = _job(tmp_path, probe, sbatch_args=["--ntasks=1", "--cpus-per-task=2"]).check()
    shared = _job(tmp_path, probe, script=script, sbatch_args=["--ntasks=1", "--cpus-per-task=2"])
    assert "--cpus-per-task=$SLURM_CPUS_PER_TASK" in shared.check().output
    assert {p["allowed"] for p in _placed(shared).values()} != {
        p["allowed"] for p in _placed(result).values()}  # fmt: skip
    assert len({p["allowed"] for p in _placed(shared).values()}) == 1, "one CPU for both threads"


def test_a_request_larger_than_the_machine_is_refused_naming_the_numbers(tmp_path, probe):
    with pytest.raises(jobs.JobRequestError, match=rf"= {CPUS + 1} CPUs.*has {CPUS}"):
        _job(tmp_path, probe, sbatch_args=[f"--ntasks={CPUS + 1}", "--cpus-per-task=1"])


def test_a_step_larger_than_the_allocation_is_refused(tmp_path, probe):
    script = JOB_SCRIPT.replace("srun --ntasks=$SLURM_NTASKS", "srun --ntasks=3")
    result = _job(tmp_path, probe, script=script, sbatch_args=["--ntasks=1"])
    assert result.exit_code != 0
    assert "More processors requested than permitted (3 tasks x 1" in result.output
    with pytest.raises(jobs.JobFailed, match="More processors"):
        result.check()


@pytest.mark.parametrize("change,message", [
    (("export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK\n", ""), "never sets OMP_NUM_THREADS"),
    (("srun --ntasks", "mpiexec -n 2 --ntasks"), "never runs srun"),
    (("#SBATCH --ntasks=2\n", ""), "asks for no tasks"),
    (("#!/bin/bash\n", ""), "#!/bin/bash"),
])  # fmt: skip
def test_bad_scripts_are_refused_before_they_run(tmp_path, probe, change, message):
    with pytest.raises(jobs.JobScriptError, match=message):
        _job(tmp_path, probe, script=JOB_SCRIPT.replace(*change))


def test_a_program_that_does_not_exist_is_named(tmp_path):
    (tmp_path / "job").mkdir()
    result = jobs.submit(JOB_SCRIPT, folder=tmp_path / "job", runner="local", timeout=60,
                         sbatch_args=["--ntasks=1"])  # fmt: skip
    assert result.exit_code != 0 and "./jacobi: No such file or directory" in result.output


def test_a_job_that_runs_too_long_is_killed(tmp_path, probe):
    script = JOB_SCRIPT.replace('./jacobi "$@"', "sleep 600")
    with pytest.raises(jobs.JobTimeout, match="within 3 s"):
        jobs.submit(script, folder=tmp_path, runner="local", timeout=3, sbatch_args=["--ntasks=1"])


@needs_two
def test_a_traced_whole_program_is_read_back_and_judged(tmp_path):
    program = jobs.build_program("lab10_jacobi_test", JACOBI_PROGRAM)
    result, traced = jobs.run_traced(JOB_SCRIPT, program, tmp_path, args=["31", "9"],
                                     sbatch_args=["--ntasks=2", "--cpus-per-task=1"])  # fmt: skip
    (line,) = result.check().lines("jacobi")
    assert (line["n"], line["iterations"], line["ranks"], line["threads"]) == ("31", "9", "2", "1")
    init = traced.records[traced.records["record"] == "mpi_init"]
    assert set(init["required"]) == {"funneled"} and len(init) == 2
    compliance.check(traced, "funneled")
    calls = compliance.calls_table(traced)
    assert calls.loc[calls["call"] == "MPI_Sendrecv", "calls"].tolist() == [18, 18]
    # the tracer's account of what ran: each rank's threads' CPU time and its memory
    use = traced.records
    assert (use.loc[use["record"] == "thread_cpu", "cpu_ns"].astype(int) >= 0).all()
    assert ((use["record"] == "thread_cpu") & (use["main"] == 1)).sum() == 2
    memory = use[use["record"] == "memory"]
    assert len(memory) == 2 and (memory["peak_kb"] >= memory["init_kb"]).all()
    # ... counted from before main (the tracer's constructor), MPI_Init_thread's own memory apart
    assert (memory["init_kb"] >= memory["start_kb"]).all() and (memory["mpi_kb"] >= 0).all()
    # a library that gives less than the program asks for: the program must stop, naming both.
    # One rank, as the lab's hidden test runs it: with two, rank 1's MPI_Abort may end rank 0
    # before its message is out (Open MPI's mpiexec often does)
    refused, _ = jobs.run_traced(JOB_SCRIPT, program, tmp_path, args=["31", "9"],
                                 sbatch_args=["--ntasks=1"], env={jobs.PROVIDE_AT_MOST: "single"})
    assert refused.exit_code != 0
    assert "MPI_THREAD_FUNNELED" in refused.output and "MPI_THREAD_SINGLE" in refused.output


# a judged run (jobs.judged_run): the script asks for a step, the kit starts it once the script
# has ended; what the script prints, writes or runs in the program's place is not read
_UNBOUND = JOB_SCRIPT.replace("--cpu-bind=cores", "--cpu-bind=none").replace(
    "export OMP_PLACES=cores\nexport OMP_PROC_BIND=close\n", "")


@needs_two
def test_a_judged_run_starts_the_step_the_script_asked_for(tmp_path, probe):
    result, trace = jobs.judged_run(JOB_SCRIPT, probe, tmp_path, args=["30", "7"], timeout=120,
                                    sbatch_args=["--ntasks=1", "--cpus-per-task=2"])  # fmt: skip
    assert trace is None and "recorded" in result.script_output
    (summary,) = result.check().lines("probe")
    assert summary == {"token": "4242", "ranks": "1", "threads": "2", "argv": "30,7"}
    allowed = [p["allowed"] for p in _placed(result).values()]
    assert len(allowed) == 2 and all("," not in a for a in allowed) and len(set(allowed)) == 2
    # the same step unbound, its lines rewritten by the script after the program: the kit's run
    # of the step is unbound, whatever the script printed
    rewritten = _UNBOUND.replace('./jacobi "$@"', './jacobi "$@" | sed -E "s/allowed=[0-9,-]+/allowed=0/"')
    result, _ = jobs.judged_run(rewritten, probe, tmp_path, args=["30", "7"], timeout=120,
                                sbatch_args=["--ntasks=1", "--cpus-per-task=2"])  # fmt: skip
    allowed = [p["allowed"] for p in _placed(result.check()).values()]
    assert len(allowed) == 2 and all("," in a for a in allowed), allowed


def test_a_judged_run_reads_neither_the_scripts_lines_nor_its_program(tmp_path, probe):
    # lines printed by the script are not the program's
    printed = JOB_SCRIPT.replace("srun ", 'echo "probe token=1 ranks=9 threads=9 argv=x"\nsrun ')
    result, _ = jobs.judged_run(printed, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)
    assert "token=1 " in result.script_output
    assert [p["token"] for p in result.check().lines("probe")] == ["4242"]
    # ./jacobi replaced by the script before srun: srun refuses the step (not the kit's build; a
    # wrapper would run in its place on a cluster: attack H's H10_wrapper), and the kit's own copy
    # of the program is what a step would start
    replaced = JOB_SCRIPT.replace("srun ", "printf '#!/bin/sh\\necho probe token=1\\n' > jacobi\nsrun ")
    result, _ = jobs.judged_run(replaced, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)
    assert not result.ok and "not the program the grader built" in result.output
    assert "token=1" not in result.output
    # another program started by srun, or ./jacobi twice, or never: refused, saying so
    other = JOB_SCRIPT.replace('./jacobi "$@"', "/bin/true")
    with pytest.raises(jobs.JobScriptError, match=r"no srun step of \./jacobi \(its srun steps ran /bin/true\)"):
        jobs.judged_run(other, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)
    twice = JOB_SCRIPT.replace('./jacobi "$@"', './jacobi "$@"\nsrun ./jacobi')
    with pytest.raises(jobs.JobScriptError, match=r"started \./jacobi 2 times"):
        jobs.judged_run(twice, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)
    # a step srun refuses (more than the allocation) ends the script as srun would: a failed job
    greedy = JOB_SCRIPT.replace("--ntasks=$SLURM_NTASKS", f"--ntasks={CPUS + 1}")
    result, _ = jobs.judged_run(greedy, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)
    assert result.exit_code != 0 and "More processors requested" in result.output


@pytest.mark.parametrize("argv, bind", [
    (["--cpu-bind=cores"], "cores"), (["--cpu-bind=core"], "cores"), (["--cpu_bind=cores"], "cores"),
    (["--cpu-bind=verbose,cores"], "cores"), (["--cpu-bind", "Threads"], "cores"),
    (["--cpu_bind", "q,core"], "cores"), (["--cpu-bind=none"], "none"), ([], "none"),
    (["--cpu-bind=verbose"], "none"), (["--cpu-bind=sockets"], 1), (["--cpu-bind=map_cpu:0,1"], 1),
    (["--cpu-bind=bogus"], 1),
])
def test_the_local_srun_binds_only_when_asked(monkeypatch, capsys, argv, bind):
    """No --cpu-bind: unbound, as a Slurm without a default binding (a fresh attacker's script
    without it kept lab 10 (c)'s points when the stand-in bound by default); a binding it cannot
    start, or a word srun does not know, refused."""
    for name, value in {"SLURM_CPUS_ON_NODE": "2", "SLURM_NTASKS": "2", "OMP_NUM_THREADS": "1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("SLURM_CPU_BIND", raising=False)
    step = steps._step([*argv, "/bin/true"])
    assert (step if isinstance(step, int) else step.bind) == bind
    said = capsys.readouterr().err
    assert (steps.CPU_BIND_NOTE in said) == (bind == "none" and "--cpu-bind=none" not in argv), said
    monkeypatch.setenv("SLURM_CPU_BIND", "cores")  # srun's input variable, when no option is given
    assert steps._step(["/bin/true"]).bind == "cores"


def test_a_step_through_env_is_the_program_env_starts():
    assert steps._env_prefix(["env", "OMP_NUM_THREADS=2", "./jacobi", "8"]) == (
        {"OMP_NUM_THREADS": "2"}, ["./jacobi", "8"])
    for program in (["env", "-i", "./jacobi"], ["env", "A=1"], ["./jacobi", "A=1"]):
        assert steps._env_prefix(program) == ({}, program)


# A fresh attacker (attack H, H-3): `false && srun ...` and a step record appended to the file
# named by $HL_SRUN_STEPS kept 3/3. The step now comes only from the kit's srun process, read
# from /proc by the kit's socket (jobs._StepChannel); a report from any other process is refused.
FORGER = r"""python3 - <<'PY'
import os, socket
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["HL_SRUN_SOCKET"])
s.sendall(b"step --ntasks=1 --cpu-bind=cores ./jacobi\n")
print(s.makefile().readline())
PY
false && """


def test_a_step_reported_by_another_process_is_refused(tmp_path, probe):
    forged = JOB_SCRIPT.replace("srun ", FORGER + "srun ") + "exit 0\n"
    with pytest.raises(jobs.JobScriptError, match="not the kit's srun"):
        jobs.judged_run(forged, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)
    nothing = JOB_SCRIPT.replace("srun ", "false && srun ") + "exit 0\n"
    with pytest.raises(jobs.JobScriptError, match="started no srun step"):
        jobs.judged_run(nothing, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)


def test_a_program_replaced_before_srun_is_refused(tmp_path, probe):
    # attack H, H10_wrapper: ./jacobi made a wrapper around the real program before srun
    wrapped = JOB_SCRIPT.replace("srun ", "mv jacobi jacobi.real\nprintf '#!/bin/sh\\nexec ./jacobi.real \"$@\"\\n'"
                                 " > jacobi\nchmod +x jacobi\nsrun ")
    job, _ = jobs.judged_run(wrapped, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)
    assert not job.ok and "not the program the grader built" in job.output, job.output
    tolerant = wrapped.replace('./jacobi "$@"', './jacobi "$@" || true')
    with pytest.raises(jobs.JobScriptError, match="not the program the grader built"):
        jobs.judged_run(tolerant, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)


@pytest.mark.parametrize("export, threads", [
    (None, "2"), ("ALL", "2"), ("NONE", None), ("ALL,OMP_NUM_THREADS=1", "1"),
    ("OMP_NUM_THREADS", "2"), ("OMP_PLACES", None), ("SLURM_NTASKS,OMP_NUM_THREADS=3", "3"),
])
def test_srun_export_makes_the_tasks_environment(monkeypatch, export, threads):
    # attack H, H10_exportnone/exportthreads: --export was ignored by the kit's srun
    for name, value in {"SLURM_CPUS_ON_NODE": "4", "SLURM_NTASKS": "2", "OMP_NUM_THREADS": "2",
                        "OMP_PLACES": "cores"}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("SLURM_EXPORT_ENV", raising=False)
    step = steps._step([*([f"--export={export}"] if export else []), "--cpu-bind=cores", "/bin/true"])
    if threads is None:
        assert step == 1
    else:
        assert step.openmp["OMP_NUM_THREADS"] == threads
        assert ("OMP_PLACES" in step.openmp) == (export is None or export.startswith("ALL"))
    monkeypatch.setenv("SLURM_EXPORT_ENV", "NONE")  # srun's input variable for --export
    assert steps._step(["--cpu-bind=cores", "/bin/true"]) == 1
    assert steps._step(["--export=NONE", "--cpu-bind=cores", "env", "OMP_NUM_THREADS=2", "/bin/true"]).openmp \
        == {"OMP_NUM_THREADS": "2"}


@pytest.mark.parametrize("argv, bind", [
    (["--cpu-bind=cores", "--cpu_bind=none"], "none"), (["--cpu_bind=none", "--cpu-bind=cores"], "cores"),
    (["--hint=nomultithread", "--cpu-bind=cores"], "cores"), (["--cpu-bind=none", "--hint", "nomultithread"], "none"),
    (["--hint=nomultithread"], 1), (["--hint=compute_bound", "--cpu-bind=cores"], 1),
    (["--cpu-bind=cores", "--export=ALL,LD_PRELOAD=/x.so"], 1),
])
def test_srun_options_as_slurm_reads_them(monkeypatch, argv, bind):
    # attack H, H10_bindtwice: both spellings are one option, the last wins; H10_hint: accepted
    # beside an explicit binding (no SMT here: it changes nothing)
    for name, value in {"SLURM_CPUS_ON_NODE": "2", "SLURM_NTASKS": "2", "OMP_NUM_THREADS": "1"}.items():
        monkeypatch.setenv(name, value)
    for name in ("SLURM_CPU_BIND", "SLURM_HINT", "SLURM_EXPORT_ENV", "LD_PRELOAD"):
        monkeypatch.delenv(name, raising=False)
    step = steps._step([*argv, "/bin/true"])
    assert (step if isinstance(step, int) else step.bind) == bind


def test_nothing_a_script_leaves_running_outlives_it(tmp_path, probe):
    # a process of the script's in a session of its own, without the kit's tag: still ended
    # with the script (the kit's contain is its subreaper), before a judged run starts the step
    left = JOB_SCRIPT.replace(
        "srun ", "setsid env -u HYBRIDLAB_TAG sh -c 'echo $$ > daemon.pid; sleep 300' > /dev/null 2>&1 &\n"
                 "sleep 1\nsrun ")
    jobs.judged_run(left, probe, tmp_path, sbatch_args=["--ntasks=1"], timeout=120)[0].check()
    pid = int((tmp_path / "daemon.pid").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


# lab 10 (a): what the judge reads beside the trace. The tracer's nudge: the K-th message of
# doubles each rank sends each peer leaves DELTA higher (the program's buffers untouched), and a
# decomposed Jacobi's checksum moves by what rows p and p + 1 raised by DELTA / 4 after sweep K give
_SERIAL_UPDATE = JACOBI_PROGRAM.replace(
    "#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)", "        for (long k = 1; k <= rows; k++)")


@needs_two
def test_a_nudged_halo_moves_a_decomposed_checksum_as_predicted(tmp_path):
    import numpy as np

    program = jobs.build_program("lab10_jacobi_test", JACOBI_PROGRAM)
    checksums = []
    for nudge in ({}, {jobs.HALO_NUDGE: "3 0.75"}):
        result, _ = jobs.judged_run(JOB_SCRIPT, program, tmp_path, args=["31", "9"], env=nudge,
                                    sbatch_args=["--ntasks=2", "--cpus-per-task=1"], timeout=120)  # fmt: skip
        (line,) = result.check().lines("jacobi")
        checksums.append(float(line["checksum"]))
    w = np.ones((31, 31))
    for _ in range(9 - 3 - 1):  # the sweeps after the nudged one carry it to the sum
        q = np.pad(w, 1)
        w = 0.25 * (q[:-2, 1:-1] + q[2:, 1:-1] + q[1:-1, :-2] + q[1:-1, 2:])
    rows = w.sum(axis=1)  # rank 0 has rows 1..16: rows 16 and 17 moved
    assert checksums[1] - checksums[0] == pytest.approx(0.75 / 4 * (rows[15] + rows[16]), rel=1e-12)


# the program cannot learn the nudge: the tracer takes HL_HALO_NUDGE out of its environment
# (environ, the same array as argv + argc + 1, and the bytes of the entry) before main runs
_SEES_NUDGE = r"""#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    int seen = 0, provided;
    for (char **e = argv + argc + 1; *e; e++) seen += strstr(*e, "HALO_NUDGE") != NULL;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    printf("nudge seen=%d\n", seen);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}"""


def test_a_nudged_program_cannot_read_the_nudge(tmp_path):
    program = jobs.build_program("lab10_sees_nudge", _SEES_NUDGE)
    result, _ = jobs.judged_run(JOB_SCRIPT, program, tmp_path, env={jobs.HALO_NUDGE: "3 0.75"},
                                sbatch_args=["--ntasks=1"], timeout=120)  # fmt: skip
    assert [line["seen"] for line in result.check().lines("nudge")] == ["0"]


def test_the_step_asked_for_in_an_allocation_larger_than_the_machine(tmp_path):
    # only the script runs (the kit's srun notes the step): what it makes of SLURM_CPUS_PER_TASK
    big = ["--ntasks=2", f"--cpus-per-task={CPUS + 3}"]
    job, step = jobs.asked_step(JOB_SCRIPT, tmp_path, args=["31", "9"], sbatch_args=big, timeout=120)
    assert job.ok and (step.ntasks, step.cpus_per_task, step.args) == (2, CPUS + 3, ("31", "9"))
    assert step.openmp["OMP_NUM_THREADS"] == str(CPUS + 3)
    typed = JOB_SCRIPT.replace("export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK", "export OMP_NUM_THREADS=2")
    assert jobs.asked_step(typed, tmp_path, sbatch_args=big, timeout=120)[1].openmp["OMP_NUM_THREADS"] == "2"
    with pytest.raises(jobs.JobRequestError):  # a job that would run is still refused
        jobs.submit(JOB_SCRIPT, folder=tmp_path, runner="local", sbatch_args=big, timeout=120)


def test_the_update_must_be_shared_among_threads():
    assert updates_unshared(JACOBI_PROGRAM) == []
    assert "0.25" in updates_unshared(_SERIAL_UPDATE)[0]
    # a parallel loop elsewhere does not share the update; neither does one that may run alone
    decoy = _SERIAL_UPDATE.replace("    double mine = MPI_Wtime() - t0",
                                   "#pragma omp parallel for\n    for (long k = 0; k < 4; k++) cpus[0] += 0;\n"
                                   "    double mine = MPI_Wtime() - t0")  # fmt: skip
    assert updates_unshared(decoy)
    for clause in (" if(size > 64)", " num_threads(1)"):
        assert updates_unshared(JACOBI_PROGRAM.replace(
            "#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)",
            f"#pragma omp parallel for{clause}\n        for (long k = 1; k <= rows; k++)"))
    # a parallel for nested in another region (a team of one) while the other threads spin
    nested = JACOBI_PROGRAM.replace("    for (long it = 0; it < iterations; it++) {",
                                    "#pragma omp parallel\n    if (omp_get_thread_num() == 0)\n"
                                    "    for (long it = 0; it < iterations; it++) {")  # fmt: skip
    assert "0.25" in updates_unshared(nested)[0]
    # a shared loop of one iteration around the serial update, or the update in a critical section
    assert updates_unshared(JACOBI_PROGRAM.replace(
        "#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)",
        "#pragma omp parallel for\n        for (int once = 0; once < 1; once++)\n        for (long k = 1; k <= rows; k++)"))
    assert updates_unshared(JACOBI_PROGRAM.replace(
        "            for (long j = 1; j <= n; j++)\n                v[",
        "            for (long j = 1; j <= n; j++)\n#pragma omp critical\n                v[", 1))
    # written another way: collapse, and a macro for the update (the preprocessed text is read)
    assert updates_unshared(JACOBI_PROGRAM.replace(
        "#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)",
        "#pragma omp parallel for collapse(2) schedule(static)\n        for (long k = 1; k <= rows; k++)")) == []
    hidden = _SERIAL_UPDATE.replace("#define NEEDED MPI_THREAD_FUNNELED",
                                    "#define NEEDED MPI_THREAD_FUNNELED\n#define SHARED _Pragma(\"omp parallel for\")")
    assert updates_unshared(hidden.replace("        for (long k = 1; k <= rows; k++)\n            for (long j",
                                                "        SHARED\n        for (long k = 1; k <= rows; k++)\n            for (long j", 1)) == []
    # the update through row pointers; a helper declared by a prototype before main
    pointers = JACOBI_PROGRAM.replace(
        "            for (long j = 1; j <= n; j++)\n                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + "
        "u[(k + 1) * w + j] + u[k * w + j - 1] +\n                                       u[k * w + j + 1]);",
        "            for (long j = 1; j <= n; j++) {\n                const double *up = u + (k - 1) * w, "
        "*row = u + k * w, *down = u + (k + 1) * w;\n"
        "                v[k * w + j] = (up[j] + down[j] + row[j - 1] + row[j + 1]) / 4;\n            }")
    assert pointers != JACOBI_PROGRAM and updates_unshared(pointers) == []
    helper = JACOBI_PROGRAM.replace(
        "            for (long j = 1; j <= n; j++)\n                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + "
        "u[(k + 1) * w + j] + u[k * w + j - 1] +\n                                       u[k * w + j + 1]);",
        "            update_row(u, v, k, w, n);")
    helper = helper.replace("int main(", "static void update_row(const double *u, double *v, long k, long w, "
                            "long n);\n\nint main(", 1) + (
        "\nstatic void update_row(const double *u, double *v, long k, long w, long n) {\n"
        "    for (long j = 1; j <= n; j++)\n        v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + "
        "u[(k + 1) * w + j] + u[k * w + j - 1] + u[k * w + j + 1]);\n}\n")
    assert "update_row(u, v, k, w, n);" in helper and updates_unshared(helper) == []
    # a taskloop one thread creates in `single` shares the update (its tasks go to the team: each
    # thread's writes are judged in the run); the update in `single` without one does not
    looped = JACOBI_PROGRAM.replace(
        "#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)",
        "#pragma omp parallel\n#pragma omp single\n#pragma omp taskloop\n        for (long k = 1; k <= rows; k++)")
    assert looped != JACOBI_PROGRAM and updates_unshared(looped) == []
    assert updates_unshared(looped.replace("#pragma omp taskloop\n", ""))


def test_a_compound_assignment_is_a_statement_of_the_update():
    """`v[k] = 0.0; v[k] += 0.25 * (...)` is the update as much as `v[k] = 0.25 * (...)`: in
    `masked`, beside a decoy that reads four elements in an `omp for`, it is not shared (a fresh
    attacker's A10_masked_compound, 5/5 kept, 2026-12-05); in a `parallel for` it is."""
    plain = ("                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +\n"
             "                                       u[k * w + j + 1]);")
    compound = ("            {\n                v[k * w + j] = 0.0;\n"
                "                v[k * w + j] += 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +\n"
                "                                        u[k * w + j + 1]);\n            }")
    shared = JACOBI_PROGRAM.replace(plain, compound)
    assert shared != JACOBI_PROGRAM and updates_unshared(shared) == []
    masked = shared.replace("#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)", """#pragma omp parallel
        {
            double d = 0.0;
#pragma omp for nowait
            for (long q = 0; q < 8; q++)
                d = u[q % 2] + u[1 + q % 2] + u[2 + q % 2] + u[3 + q % 2];
            (void)d;
#pragma omp masked
        for (long k = 1; k <= rows; k++)""").replace("u[k * w + j + 1]);\n            }", "u[k * w + j + 1]);\n            }\n        }", 1)
    assert masked.count("omp masked") == 1 and masked.count("omp for nowait") == 1
    assert "0.25" in updates_unshared(masked)[0]
    # a reduction into a scalar (one element) and comparisons are no update
    assert updates_unshared(JACOBI_PROGRAM.replace("local += u[k * w + j];", "local += u[k * w + j] <= 1.0;")) == []


# the nudge's K and DELTA are never where the program can read them: the page that holds them is
# never made readable (the tracer reads it through /proc/self/mem), and the stack below the
# program's frame is scrubbed after each send (a program reading below its frame found DELTA there
# after a send, before: 4 times in 6 sends, helper-10's own try on the earlier tracer)
_STACK_RESIDUE = r"""#include <mpi.h>
#include <stdio.h>
#include <string.h>
static int __attribute__((noinline)) residue(double mark) {
    volatile unsigned long below[8192]; /* what deeper calls left on the stack (never set here) */
    unsigned long bits;
    memcpy(&bits, &mark, sizeof bits);
    int found = 0;
    for (int i = 0; i < 8192; i++) found += below[i] == bits;
    return found;
}
static void __attribute__((noinline)) leave(double mark) {
    volatile double kept[4] = {mark, mark, mark, mark};
    (void)kept;
}
int main(int argc, char **argv) {
    int provided, rank, size, found = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double row[8] = {1, 1, 1, 1, 1, 1, 1, 1}, got[8];
    int peer = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL;
    for (int k = 0; k < 6; k++) {
        MPI_Sendrecv(row, 8, MPI_DOUBLE, peer, 0, got, 8, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        found += residue(0.83984375);
    }
    leave(0.83984375);
    printf("residue rank=%d found=%d control=%d\n", rank, found, residue(0.83984375));
    fflush(stdout);
    MPI_Finalize();
    return 0;
}"""


@needs_two
def test_the_nudge_leaves_nothing_on_the_programs_stack(tmp_path):
    program = jobs.build_program("lab10_stack_residue", _STACK_RESIDUE)
    result, _ = jobs.judged_run(JOB_SCRIPT, program, tmp_path, env={jobs.HALO_NUDGE: "2 0.83984375"},
                                sbatch_args=["--ntasks=2", "--cpus-per-task=1"], timeout=120)  # fmt: skip
    lines = result.check().lines("residue")
    assert len(lines) == 2 and all(line["found"] == "0" for line in lines), lines
    assert all(int(line["control"]) > 0 for line in lines)  # the scan sees what a deeper call left


# each thread's share of a loop of a runtime schedule: the tracer's wrappers of libgomp's
# GOMP_loop_* (a whole program is linked with --wrap) count the iterations each OS thread took
_SHARES = r"""#include <mpi.h>
#include <omp.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int provided;
    static double v[1000];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#pragma omp parallel num_threads(2)
    {
#pragma omp for schedule(dynamic, 10)
        for (long k = 0; k < 1000; k++) { /* long enough that both threads are up before it ends */
            for (int r = 0; r < 20000; r++) v[k] = v[k] * 0.5 + k;
        }
        if (omp_get_thread_num() == 0) {
#pragma omp for schedule(guided) nowait
            for (long k = 0; k < 1000; k++) v[k] = v[k] / 2 + 1.0;
        }
    }
    printf("shares v=%g\n", v[999]);  /* 2 x 999 halved, plus 1 */
    MPI_Finalize();
    return 0;
}"""


@needs_two
def test_each_threads_iterations_of_a_runtime_scheduled_loop_are_counted(tmp_path):
    program = jobs.build_program("lab10_loop_shares", _SHARES)
    result, trace = jobs.judged_run(JOB_SCRIPT, program, tmp_path, sbatch_args=["--ntasks=1", "--cpus-per-task=2"],
                                    timeout=120, traced=True)  # fmt: skip
    assert result.check().lines("shares") == [{"v": "1000"}]
    shares = trace.records[trace.records["record"] == "loop_share"]
    sites = {int(site): sorted(int(u) for u in group["units"])
             for site, group in shares.groupby(shares["site"].astype(int))}
    assert len(sites) == 2 and sum(sites[0]) == sum(sites[1]) == 1000
    assert len(sites[0]) == 2 and min(sites[0]) > 0  # the shared loop: both threads took chunks
    assert max(sites[1]) == 1000  # the loop only thread 0 reached: every iteration its own


# who changed a whole program's memory in parallel regions: the counted build (GCC's ThreadSanitizer
# instrumentation, its store entry points, copies and allocations wrapped by the tracer) credits each
# OS thread the bytes it changed, per heap block; values written back unchanged, the serial part and
# a thread's own stack are not counted
_WRITES = r"""#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    long n = 1L << 16;
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    for (long i = 0; i < n; i++) a[i] = b[i] = 1.0; /* the serial part */
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        volatile double mine[512]; /* the thread's own stack */
        if (t == 0)
            for (long i = 0; i < n; i++) a[i] = 2.0;
#pragma omp barrier
        if (t == 1) {
            volatile double *same = a;
            for (long i = 0; i < n; i++) same[i] = same[i]; /* written back unchanged */
            memcpy(b, a, (size_t)(n / 2) * sizeof *a);
        }
        for (int i = 0; i < 512; i++) mine[i] = i + t;
    }
    printf("writes a=%g b=%g\n", a[n - 1], b[0]);
    MPI_Finalize();
    return 0;
}"""


@needs_two
def test_each_threads_changed_bytes_are_counted_per_heap_block(tmp_path):
    program = jobs.build_program("lab10_writes", _WRITES, count_writes=True)
    result, trace = jobs.judged_run(JOB_SCRIPT, program, tmp_path, sbatch_args=["--ntasks=1", "--cpus-per-task=2"],
                                    timeout=120, traced=True, env=jobs.COUNT_ENV)  # fmt: skip
    assert result.check().lines("writes") == [{"a": "2", "b": "2"}]
    writes = trace.records[trace.records["record"] == "writes"]
    by_block = sorted(sorted(int(v) for v in group["changed"] if int(v) > 0)
                      for _, group in writes.groupby(writes["bucket"].astype(int)))  # fmt: skip
    assert by_block == [[8 << 15], [8 << 16]], by_block  # b: half by thread 1's memcpy; a: thread 0
    assert writes["tid"].nunique() == 2
    # each byte of a block owned by the thread that changed it last: the same here (nothing of
    # one thread's was changed again by the other)
    owned = sorted(sorted(int(v) for v in group["owned"] if int(v) > 0)
                   for _, group in writes.groupby(writes["bucket"].astype(int)) if int(_) > 0)  # fmt: skip
    assert owned == [[8 << 15], [8 << 16]], owned
    # a copy from one block into another keeps each word's author (a fresh attacker's right answer
    # R10single copied the shared update back in `single`, 2026-12-05): b's copied half is owned by
    # thread 0, who wrote a, not by thread 1, who copied it
    owners = {int(k): set(g.loc[g["owned"].astype(int) > 0, "tid"])
              for k, g in writes.groupby(writes["bucket"].astype(int)) if int(k) > 0}
    assert len(owners) == 2 and len(set.union(*owners.values())) == 1, owners


@needs_two
def test_bytes_a_thread_changed_that_another_changed_again_are_owned_by_the_last(tmp_path):
    """A thread that scribbles into the rows another thread then sweeps (a fresh attacker's
    k10spin4, 5/5 kept, 2026-12-05) changed bytes of the block but owns none of them."""
    program = jobs.build_program("lab10_owned", _WRITES.replace(
        "        if (t == 0)\n            for (long i = 0; i < n; i++) a[i] = 2.0;\n#pragma omp barrier\n",
        "        if (t == 1)\n            for (long i = 0; i < n; i++) a[i] = -1.0;\n#pragma omp barrier\n"
        "        if (t == 0)\n            for (long i = 0; i < n; i++) a[i] = 2.0;\n#pragma omp barrier\n", 1),
        count_writes=True)  # fmt: skip
    _, trace = jobs.judged_run(JOB_SCRIPT, program, tmp_path, timeout=120,
                               sbatch_args=["--ntasks=1", "--cpus-per-task=2"], traced=True,
                               env=jobs.COUNT_ENV)  # fmt: skip
    writes = trace.records[trace.records["record"] == "writes"]
    a = writes[writes["bucket"].astype(int) == 1].sort_values("changed")
    assert [int(v) for v in a["changed"]] == [8 << 16, 8 << 16], a  # both changed all of a
    # thread 0 owns it (a thread's last store is settled at its next one: its word may be
    # credited a moment late, after another's)
    few, most = sorted(int(v) for v in a["owned"])
    assert few <= 64 and few + most == 8 << 16, a


@needs_two
def test_a_word_changed_and_put_back_stays_owned_by_the_thread_before(tmp_path):
    """A thread that stores x + 1 and then x back into rows another thread swept (a fresh
    attacker's A10_reown and A10_masked_compound, 5/5 kept, 2026-12-05), alone, or after the
    serial part changed them and kept the values (put back in a parallel region), owns none of
    them: a word brought back to the value it held before a run undoes that run."""
    flip = _WRITES.replace(
        "        if (t == 1) {\n            volatile double *same = a;\n"
        "            for (long i = 0; i < n; i++) same[i] = same[i]; /* written back unchanged */\n",
        "        if (t == 1) {\n            volatile double *same = a;\n"
        "            for (long i = 0; i < n; i++) { double x = same[i]; same[i] = x + 1.0; same[i] = x; }\n", 1)
    assert flip != _WRITES
    # the serial part keeps a's values aside and scribbles over them; thread 1 puts them back
    serial = _WRITES.replace("#pragma omp parallel num_threads(2)\n", """#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            for (long i = 0; i < n; i++) a[i] = 2.0;
    }
    double *kept = malloc((size_t)n * sizeof *kept);
    for (long i = 0; i < n; i++) { kept[i] = a[i]; a[i] = -5.0; }
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            for (long i = 0; i < n; i++) a[i] = kept[i];
    }
#pragma omp parallel num_threads(2)
""", 1).replace("        if (t == 0)\n            for (long i = 0; i < n; i++) a[i] = 2.0;\n", "", 1)
    assert serial.count("kept[i]") == 2
    for name, code in (("lab10_flip", flip), ("lab10_putback", serial)):
        program = jobs.build_program(name, code, count_writes=True)
        result, trace = jobs.judged_run(JOB_SCRIPT, program, tmp_path, timeout=120,
                                        sbatch_args=["--ntasks=1", "--cpus-per-task=2"], traced=True,
                                        env=jobs.COUNT_ENV)  # fmt: skip
        assert result.check().lines("writes") == [{"a": "2", "b": "2"}], name
        writes = trace.records[trace.records["record"] == "writes"]
        a = writes[writes["bucket"].astype(int) == 1]
        cpu = trace.records[trace.records["record"] == "thread_cpu"]
        main = {int(v) for v in cpu.loc[cpu["main"].astype(int) == 1, "tid"]}
        owned = {int(tid) in main: int(v) for tid, v in zip(a["tid"], a["owned"], strict=True)}
        # all of a thread 0's (a thread's last store is settled at its next one: a word may be late)
        assert owned[True] >= (8 << 16) - 64 and owned.get(False, 0) <= 64, (name, a, main)


# lab 10's run of more ranks than CPUs (each rank's memory read at 3 ranks): the local runner grants
# it only when the kit asks (oversubscribe), the tasks unbound, taking turns on the CPUs
def test_a_judged_run_may_take_more_tasks_than_cpus_in_turns(tmp_path):
    program = jobs.build_program("jacobi_graded", JACOBI_PROGRAM)
    unbound = JOB_SCRIPT.replace("--cpu-bind=cores", "--cpu-bind=none")
    assert unbound != JOB_SCRIPT
    shape = [f"--ntasks={CPUS + 1}", "--cpus-per-task=1"]
    with pytest.raises(jobs.JobRequestError):
        jobs.judged_run(unbound, program, tmp_path, args=["31", "3"], sbatch_args=shape, timeout=120)
    result, trace = jobs.judged_run(unbound, program, tmp_path, args=["31", "3"], sbatch_args=shape,
                                    timeout=120, traced=True, oversubscribe=True)  # fmt: skip
    (line,) = result.check().lines("jacobi")
    assert int(line["ranks"]) == CPUS + 1
    assert len(trace.records[trace.records["record"] == "memory"]) == CPUS + 1


# where each thread of a team ran: the tracer notes each thread number's CPU in every parallel region
# (the wrapped GOMP_parallel*), the truth lab 10's place lines are judged by. In the grader's own place
# order (the last usable CPU first) a place made up as "the master's first CPU + the thread number" (a
# fresh attacker's W2b, 5/5 kept under OMP_PLACES=cores, 2026-12-07) is wrong for thread 1
_PLACES = r"""#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int provided, cpus[64] = {0}, team = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#pragma omp parallel
    {
        cpus[omp_get_thread_num()] = sched_getcpu();
#pragma omp single
        team = omp_get_num_threads();
    }
    cpu_set_t mask;
    sched_getaffinity(0, sizeof mask, &mask);
    int lowest = 0;
    while (lowest < CPU_SETSIZE - 1 && !CPU_ISSET(lowest, &mask)) lowest++;
    for (int t = 0; t < team; t++)
        printf("place rank=0 thread=%d cpu=%d\nmadeup rank=0 thread=%d cpu=%d\n", t, cpus[t], t, lowest + t);
    MPI_Finalize();
    return 0;
}"""


@needs_two
def test_the_tracer_notes_the_cpu_each_thread_of_a_team_ran_on(tmp_path):
    usable = read_topology().usable
    script = JOB_SCRIPT.replace("export OMP_PLACES=cores", f'export OMP_PLACES="{{{usable[-1]}}},{{{usable[0]}}}"')
    script = script.replace("--cpu-bind=cores", "--cpu-bind=none")
    program = jobs.build_program("lab10_places", _PLACES)
    result, trace = jobs.judged_run(script, program, tmp_path, sbatch_args=["--ntasks=1", "--cpus-per-task=2"],
                                    timeout=120, traced=True)  # fmt: skip
    seen = trace.records[trace.records["record"] == "thread_place"]
    assert sorted(zip(seen["thread"].astype(int), seen["cpus"], strict=True)) == [(0, str(usable[-1])), (1, str(usable[0]))]
    assert places_unseen(result.check().lines("place"), trace.records) == []
    assert places_unseen(result.lines("madeup"), trace.records) == [
        f"rank 0 thread 1 printed cpu={usable[-1] + 1}, ran on {usable[0]}"]
