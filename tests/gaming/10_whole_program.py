"""Lab 10: gaming attempts (see __init__.py)."""

import importlib.util
from pathlib import Path

from gaming import attempt, c_evidence
from whole_program_c import JACOBI_PROGRAM, JOB_SCRIPT
from wrong_answers import Wrong, changed

_spec = importlib.util.spec_from_file_location(
    "wrong_answers_10", Path(__file__).resolve().parents[1] / "wrong_answers" / "10_whole_program.py")
_wrong = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_wrong)
# the halo exchanged by the team's last thread inside the parallel region (at FUNNELED)
LAST_THREAD = _wrong.last_loop_closed(changed(JACOBI_PROGRAM, _wrong.EXCHANGE, _wrong.LAST_THREAD_EXCHANGE))

CHECKED = """    if (provided < NEEDED) {
        if (rank == 0)
            fprintf(stderr, "jacobi: needs %s but MPI provided %s\\n", level_name(NEEDED),
                    level_name(provided));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
"""
EXCHANGE = """        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 0, u + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + rows * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
"""
DECOMPOSED = """    long rows = n / size + (rank < n % size), w = n + 2;
    long first = 1 + rank * (n / size) + (rank < n % size ? rank : n % size);"""


def program(code: str) -> str:
    return "%%c JACOBI_C\n" + code.strip("\n")


def script(text: str) -> str:
    return "JOB_SCRIPT = " + repr(text)


# every rank computes the whole grid on its own, no message: rank 0's sum is printed
SERIAL = changed(changed(changed(JACOBI_PROGRAM, DECOMPOSED, "    long rows = n, w = n + 2;\n    long first = 1;"),
                         EXCHANGE, ""),
                 "MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);", "sum = local;")

GAMING = [
    # (a) the program
    attempt("method", "jacobi_program", program(SERIAL), {"hidden_jacobi_program"},
            "the checksum computed without MPI: every rank does the whole grid, no halo exchange", reason='a halo exchange every iteration'),
    attempt("method", "jacobi_program", program(changed(changed(
        JACOBI_PROGRAM, "#define NEEDED MPI_THREAD_FUNNELED", "#define NEEDED MPI_THREAD_MULTIPLE"), CHECKED, "")),
            {"hidden_jacobi_program"}, "asks for MULTIPLE and never checks what MPI provided", reason='and the program ran on'),
    attempt("hidden", "jacobi_program", program(changed(
        JACOBI_PROGRAM, "long n = argc == 3 ? atol(argv[1]) : 0, iterations = argc == 3 ? atol(argv[2]) : -1;",
        "long n = 64, iterations = 50;")),
            {"hidden_jacobi_program"}, "the grid and iterations of the notebook typed in, argv ignored", reason='the result line does not describe the run'),
    attempt("constant", "jacobi_program", program(changed(
        JACOBI_PROGRAM, "iterations, size, threads, seconds, sum);", "iterations, size, threads, seconds, 198.5955166356179);")),
            {"hidden_jacobi_program"}, "a checksum typed in", reason=': checksum'),
    # (b) the compile line
    attempt("method", "compile_line", 'COMPILE = "mpicc -O2 jacobi.c -o jacobi"', {"hidden_compile_line"},
            "no -fopenmp: every #pragma omp ignored, one thread", reason='is OpenMP on?'),
    attempt("hidden", "compile_line",
            "COMPILE = \"mpicc -O2 -fopenmp jacobi.c -o jacobi && grep -q 'jacobi n=' jacobi.c\"",
            {"hidden_compile_line"}, "a line that only accepts the notebook's own program", reason='JobError'),
    attempt("constant", "compile_line",
            "COMPILE = \"printf '#!/bin/sh\\\\necho probe token=1234567 ranks=1 threads=2 argv=a,b\\\\n' > jacobi "
            "&& chmod +x jacobi\"",
            {"hidden_compile_line"}, "a program that prints a typed-in line", reason='not the program in jacobi.c'),
    attempt("shortcut", "compile_line",
            'COMPILE = "cp \\"$(hybridlab build hello_hybrid)/hello_hybrid\\" jacobi"',
            {"hidden_compile_line"}, "the kit's own hello_hybrid program copied in", reason='JobError'),
    # (c) the job script
    attempt("hidden", "job_script", script(changed(
        JOB_SCRIPT, "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK", "export OMP_NUM_THREADS=2")),
            {"hidden_job_script"}, "OMP_NUM_THREADS=2 typed in: right for one shape only", reason='CPUs, ran'),
    attempt("method", "job_script", script(changed(changed(changed(
        JOB_SCRIPT, "export OMP_PLACES=cores\n", ""), "export OMP_PROC_BIND=close\n", ""),
        "--cpu-bind=cores", "--cpu-bind=none")),
            {"hidden_job_script"}, "no binding at all: threads wander over the CPUs", reason='bound to a core of its own'),
    attempt("method", "job_script", script(changed(
        JOB_SCRIPT, " --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind", " --cpu-bind")),
            {"hidden_job_script"}, "srun without --cpus-per-task: a rank's threads share one core", reason='bound to'),
    attempt("constant", "job_script", script(changed(
        JOB_SCRIPT, "srun --ntasks=$SLURM_NTASKS --cpus-per-task=$SLURM_CPUS_PER_TASK",
        "srun --ntasks=2 --cpus-per-task=1")),
            {"hidden_job_script"}, "the shape typed into the srun line", reason='CPUs, ran'),
]

# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
# (the student's own compile line builds each of them: only the traced build refuses them)
GAMING += c_evidence("10_whole_program", "jacobi_program", {"hidden_jacobi_program"}, "MPI_Sendrecv",
                     replaced=("MPI_Is_thread_main",), recorder=False, reasons=True)

# The test's own interpreter reached (issue 36): the kit's job module (guarded with the judging
# modules) replaced from an answer cell, so that the grader would build or run something else.
_OPENMP_ADDED = '''

import hybridlab.slurm.jobs as _jobs

_real_compile_line = _jobs.compile_line
_jobs.compile_line = lambda line, *args, **kwargs: _real_compile_line(line.replace("mpicc", "mpicc -fopenmp"), *args, **kwargs)
'''
_BOUND = '''

import hybridlab.slurm.jobs as _jobs

_real_submit = _jobs.submit
_jobs.submit = lambda script, *args, **kwargs: _real_submit(str(script).replace("--cpu-bind=none", "--cpu-bind=cores"), *args, **kwargs)
'''
GAMING += [
    attempt("interpreter", "compile_line", 'COMPILE = "mpicc -O2 jacobi.c -o jacobi"' + _OPENMP_ADDED,
            {"hidden_compile_line"}, "no -fopenmp, the kit's compile_line replaced to add it",
            reason="is OpenMP on?"),
    attempt("interpreter", "job_script", script(changed(changed(changed(
        JOB_SCRIPT, "export OMP_PLACES=cores\n", ""), "export OMP_PROC_BIND=close\n", ""),
        "--cpu-bind=cores", "--cpu-bind=none")) + _BOUND,
            {"hidden_job_script"}, "no binding, the kit's submit replaced to bind what it runs",
            reason="bound to a core of its own"),
    Wrong((("compile_line", ('COMPILE = "mpicc -std=c11 -O2 -Wall -fopenmp jacobi.c -o jacobi"\n\n'
                             "import hybridlab.runs.compliance as _c\n\n"
                             "_c.check = lambda results, level: None  # nothing the level refuses\n")),
           ("jacobi_program", program(LAST_THREAD))),
          frozenset({"hidden_jacobi_program"}),
          "the halo exchanged by the team's last thread at FUNNELED, the kit's compliance check "
          "replaced from the compile line's cell", "interpreter", "ThreadComplianceError"),
]

# The job script's own reach (shell the student writes, run with a program as ./jacobi): what
# it prints, writes or runs instead is never read as the program's behaviour. The grader's srun
# notes the step the script asks for and starts it itself once the script has ended
# (jobs.judged_run): the program's output comes on the grader's pipe, its trace with a key and
# into a folder made after the script is gone.
_HEAD = """#!/bin/bash
#SBATCH --job-name=jacobi
#SBATCH --ntasks=2
#SBATCH --cpus-per-task=1
#SBATCH --time=00:05:00

export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
"""
_UNBOUND = 'srun --ntasks=$SLURM_NTASKS --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind=none ./jacobi "$@"'
# no binding; the program's place lines rewritten after it ran, each thread given a core of its own
REWRITTEN = _HEAD + _UNBOUND + r""" \
    | awk '/^place /{sub(/allowed=[^ ]*/, "allowed=" n++)} {print}'
"""
# no binding; the program's summary printed, then place lines made up, each beside a record
# framed with the key read from $HL_RECORD_KEY_FILE; the same records written as every rank's
# trace into $HL_TRACE_DIR once the program has ended
FRAMED = _HEAD + _UNBOUND + r""" > ran.txt
grep -v '^place ' ran.txt
key=$(cat "${HL_RECORD_KEY_FILE:-/dev/null}" 2>/dev/null)
key=${key:--}
for ((r = 0; r < SLURM_NTASKS; r++)); do
    for ((t = 0; t < SLURM_CPUS_PER_TASK; t++)); do
        c=$((r * SLURM_CPUS_PER_TASK + t))
        echo "place rank=$r thread=$t cpu=$c allowed=$c host=$(hostname)"
    done
    record="@hl $key $r 0 {\"record\": \"mpi_init\", \"rank\": $r, \"required\": \"funneled\", \"provided\": \"funneled\"}"
    echo "$record"
    if [ -n "$HL_TRACE_DIR" ]; then
        printf '%s\n@hl %s %s end 1 OK\n' "$record" "$key" "$r" > "$HL_TRACE_DIR/trace-$r.jsonl"
    fi
done
"""
# the grader's program (./jacobi) run once by the script itself, outside srun, for its token; srun
# then starts a program of the script's own that prints the lines the grader's would print bound
OWN_PROGRAM = _HEAD + r"""token=$(OMP_NUM_THREADS=1 ./jacobi | sed -n 's/^probe token=\([0-9]*\).*/\1/p')
cat > placed <<END_OF_SH
#!/bin/bash
[ "\${PMI_RANK:-\${OMPI_COMM_WORLD_RANK:-0}}" = 0 ] || exit 0
for ((r = 0; r < $SLURM_NTASKS; r++)); do
    for ((t = 0; t < $SLURM_CPUS_PER_TASK; t++)); do
        echo "place rank=\$r thread=\$t cpu=\$((r * $SLURM_CPUS_PER_TASK + t)) allowed=\$((r * $SLURM_CPUS_PER_TASK + t))"
    done
done
IFS=,
echo "probe token=$token ranks=$SLURM_NTASKS threads=$SLURM_CPUS_PER_TASK argv=\$*"
END_OF_SH
chmod +x placed
srun --ntasks=$SLURM_NTASKS --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind=cores ./placed "$@"
"""
GAMING += [
    attempt("forged", "job_script", script(REWRITTEN), {"hidden_job_script"},
            "no binding; the program's place lines rewritten after it ran (a core of its own each)",
            reason="bound to a core of its own"),
    Wrong((("jacobi_program", program(SERIAL)), ("job_script", script(FRAMED))),
          frozenset({"hidden_jacobi_program", "hidden_job_script"}),
          "no halo exchange, and a script that reads the run's key, prints framed records and "
          "made-up place lines, and writes a forged trace for every rank after the program",
          "forged", "a halo exchange every iteration"),
    attempt("forged", "job_script", script(OWN_PROGRAM), {"hidden_job_script"},
            "the grader's program run outside srun for its token, a printer of the script's own "
            "run by srun in its place",
            reason="no srun step of ./jacobi"),
]
