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
            "no -fopenmp: every #pragma omp ignored, one thread",
            reason='is OpenMP on? | not jacobi.c compiled with OpenMP'),
    attempt("hidden", "compile_line",
            "COMPILE = \"mpicc -O2 -fopenmp jacobi.c -o jacobi && grep -q 'jacobi n=' jacobi.c\"",
            {"hidden_compile_line"}, "a line that only accepts the notebook's own program", reason='JobError'),
    attempt("constant", "compile_line",
            "COMPILE = \"printf '#!/bin/sh\\\\necho probe token=1234567 ranks=1 threads=2 argv=a,b\\\\n' > jacobi "
            "&& chmod +x jacobi\"",
            {"hidden_compile_line"}, "a program that prints a typed-in line",
            reason='not the program in jacobi.c | not compiled code | a compile line runs compilers'),
    # a kit reader: the token is in the source the line is given, so a script can print it
    attempt("forged", "compile_line",
            "COMPILE = \"T=$(grep -o '[0-9]*L, size' jacobi.c | sed 's/L, size//'); printf "
            "'#!/bin/sh\\\\necho probe token=%s ranks=1 threads=2 argv=a,b\\\\n' \\\"$T\\\" > jacobi "
            "&& chmod +x jacobi\"",
            {"hidden_compile_line"}, "a script printing the token read from jacobi.c and two threads",
            reason='not compiled code | a compile line runs compilers'),
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
            {"hidden_job_script"}, "the shape typed into the srun line",
            reason='CPUs, ran | More processors requested than permitted'),
]

# Wrong methods that kept their points until the judge learnt to refuse them (open attacks of
# 2026-12-03, each the attacker's whole cell): the tracer nudges the halo rows of one sweep in a
# 2 x 1 run and the checksum must move as a decomposed grid's does; exactly one row to each
# neighbour and one from it per iteration in the trace; the update in an OpenMP work-sharing loop
# of the preprocessed program.
_ATTACK_HEAD = r"""#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *lvl(int l) {
    switch (l) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_FUNNELED) {
        if (rank == 0) printf("jacobi: needs %s but MPI provided %s\n", lvl(MPI_THREAD_FUNNELED), lvl(provided));
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
"""  # the three programs' common start (helper-31's)
_ATTACK_TAIL = r"""
    MPI_Finalize();
    return 0;
}"""  # and their common end
_PLACED = r"""    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int nthreads = 1;
    int *cpus = NULL;
#pragma omp parallel
    {
#pragma omp single
        { nthreads = omp_get_num_threads(); cpus = malloc(sizeof(int) * nthreads); }
        cpus[omp_get_thread_num()] = sched_getcpu();
    }
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    int *allc = NULL; char *allh = NULL;
    if (rank == 0) { allc = malloc(sizeof(int) * nthreads * size); allh = malloc(256 * (size_t)size); }
    MPI_Gather(cpus, nthreads, MPI_INT, allc, nthreads, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(host, 256, MPI_CHAR, allh, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int t = 0; t < nthreads; t++)
                printf("place rank=%d thread=%d cpu=%d host=%s\n", r, t, allc[r * nthreads + t], allh + 256 * r);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
"""  # their place lines, then the timed loop's start
_TIMED = r"""        double *t = u; u = v; v = t;
    }
    double el = MPI_Wtime() - t0, slow;
    MPI_Reduce(&el, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
"""  # the timed loop's end: the slowest rank's time
_SUMMARY = r"""    if (rank == 0)
        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\n", N, iters, size, nthreads, slow, sum);"""
_ROWS_OF_RANK = r"""    if (argc < 3) { if (rank == 0) printf("usage: jacobi N ITERATIONS\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    long N = atol(argv[1]), iters = atol(argv[2]);
    long base = N / size, extra = N % size;
    long m = base + (rank < extra);
    long first = 1 + rank * base + (rank < extra ? rank : extra);
"""  # the arguments, the rows of a decomposed grid
_REDUCED = (r"""    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
""" + _SUMMARY + r"""
    free(u); free(v); free(cpus); free(allc); free(allh);""")  # the checksum summed and printed
REDUNDANT = r"""/* WRONG: no decomposition - every rank sweeps the WHOLE grid itself; a halo-sized MPI_Sendrecv pair per iteration is a decoy whose data is thrown away */
""" + _ATTACK_HEAD + r"""    if (argc < 3) MPI_Abort(MPI_COMM_WORLD, 2);
    long N = atol(argv[1]), iters = atol(argv[2]);
    long w = N + 2;
    double *u = calloc((size_t)w * w, sizeof(double)), *v = calloc((size_t)w * w, sizeof(double));
    double *junk = malloc(sizeof(double) * (size_t)w * 2);
    for (long i = 0; i < w; i++)
        for (long j = 0; j < w; j++)
            if (i == 0 || i == N + 1 || j == 0 || j == N + 1)
                u[i * w + j] = v[i * w + j] = (i + 2.0 * j) / (3.0 * (N + 1));
""" + _PLACED + r"""        /* decoy "halo exchange": the rows received are never used */
        MPI_Sendrecv(u + N * w, (int)w, MPI_DOUBLE, down, 1, junk, (int)w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 2, junk + w, (int)w, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp parallel for
        for (long i = 1; i <= N; i++)
            for (long j = 1; j <= N; j++)
                v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
""" + _TIMED + r"""    double sum = 0.0;
    for (long i = 1; i <= N; i++) for (long j = 1; j <= N; j++) sum += u[i * w + j];
""" + _SUMMARY + _ATTACK_TAIL
HALO_EVERY_2ND = r"""/* WRONG: the halo is exchanged only every SECOND iteration (two rows deep, communication-avoiding), not every iteration as the task requires */
""" + _ATTACK_HEAD + _ROWS_OF_RANK + r"""    long w = N + 2, R = m + 4; /* two ghost rows each side: a halo two deep */
    double *u = calloc((size_t)R * w, sizeof(double));
    double *v = calloc((size_t)R * w, sizeof(double));
    double edge = 3.0 * (N + 1);
    for (long k = 0; k < R; k++) {
        long gi = first - 2 + k;
        if (gi < 0 || gi > N + 1) continue;
        for (long j = 0; j < w; j++) {
            double x = 0.0;
            if (gi == 0 || gi == N + 1 || j == 0 || j == N + 1) x = (gi + 2.0 * j) / edge;
            u[k * w + j] = v[k * w + j] = x;
        }
    }
""" + _PLACED + r"""        long lo = 2, hi = m + 1;
        if (it % 2 == 0) { /* the halo only every SECOND iteration, two rows deep */
            MPI_Sendrecv(u + m * w, (int)(2 * w), MPI_DOUBLE, down, 1, u, (int)(2 * w), MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(u + 2 * w, (int)(2 * w), MPI_DOUBLE, up, 2, u + (m + 2) * w, (int)(2 * w), MPI_DOUBLE, down, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            lo = 1, hi = m + 2;
        }
#pragma omp parallel for
        for (long k = lo; k <= hi; k++) {
            long gi = first - 2 + k;
            if (gi < 1 || gi > N) continue;
            for (long j = 1; j <= N; j++)
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] + u[k * w + j + 1]);
        }
""" + _TIMED + r"""    double local = 0.0, sum = 0.0;
    for (long i = 2; i <= m + 1; i++) for (long j = 1; j <= N; j++) local += u[i * w + j];
""" + _REDUCED + _ATTACK_TAIL
SERIAL_UPDATE = r"""/* WRONG: the Jacobi update is SERIAL (no parallel for); only the place lines come from a parallel region, so the threads exist but never compute */
""" + _ATTACK_HEAD + _ROWS_OF_RANK + r"""    long w = N + 2;
    double *u = calloc((size_t)(m + 2) * w, sizeof(double));
    double *v = calloc((size_t)(m + 2) * w, sizeof(double));
    double edge = 3.0 * (N + 1);
    for (long i = 0; i < m + 2; i++) {
        long gi = first - 1 + i;
        for (long j = 0; j < w; j++) {
            double x = 0.0;
            if (gi == 0 || gi == N + 1 || j == 0 || j == N + 1) x = (gi + 2.0 * j) / edge;
            u[i * w + j] = v[i * w + j] = x;
        }
    }
""" + _PLACED + r"""        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 2, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (long i = 1; i <= m; i++) /* the update runs on the master alone */
            for (long j = 1; j <= N; j++)
                v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
""" + _TIMED + r"""    double local = 0.0, sum = 0.0;
    for (long i = 1; i <= m; i++) for (long j = 1; j <= N; j++) local += u[i * w + j];
""" + _REDUCED + _ATTACK_TAIL
GAMING += [
    attempt("method", "jacobi_program", program(REDUNDANT), {"hidden_jacobi_program"},
            "no decomposition: every rank sweeps the whole grid, a halo-sized MPI_Sendrecv pair per "
            "iteration a decoy whose rows are thrown away", reason="use the halo rows received every iteration"),
    attempt("method", "jacobi_program", program(HALO_EVERY_2ND), {"hidden_jacobi_program"},
            "a halo two rows deep exchanged every second iteration, not one row every iteration",
            reason="messages of one row"),
    attempt("method", "jacobi_program", program(SERIAL_UPDATE), {"hidden_jacobi_program"},
            "the update runs serially on the master; only the place lines come from a parallel region",
            reason="the update is not shared among OpenMP threads"),
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
            reason="is OpenMP on? | not jacobi.c compiled with OpenMP"),
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


# A fresh hurried student's (helper-41, 2026-12-03) attempt that kept 5/5, now refused
# (hybridlab.runs.records.check_requests): the halo rows posted with MPI_Isend, only the
# receives waited, the buffers rewritten while the sends may still be in flight.
SENDS_OPEN = """        MPI_Request q[4];
        MPI_Irecv(u + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(u, (int)w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &q[1]);
        MPI_Isend(u + w, (int)w, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &q[2]);
        MPI_Isend(u + rows * w, (int)w, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &q[3]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
"""
GAMING += [
    attempt("method", "jacobi_program", program(changed(JACOBI_PROGRAM, EXCHANGE, SENDS_OPEN)),
            {"hidden_jacobi_program"}, "the send requests never completed: only the receives are waited",
            # packed beside the job script that starts ./jacobi through env(1), rank 0's stream
            # was once found without its closing line (RecordError) instead: the part is lost
            # either way; the cause is not yet found (closing note of 2026-12-03)
            reason="were never completed by a wait or test | records are not the"),
]


# The update shared in the text but run by one thread, and a whole grid on every rank that uses
# the rows it receives (open attacks of 2026-12-03, helper G): the tracer reads each thread's CPU
# time (OMP_WAIT_POLICY=passive: a waiting thread sleeps) and each rank's peak memory at
# MPI_Finalize
SWEEP = """#pragma omp parallel for
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);"""
ONE_ITEM = """#pragma omp parallel for
        for (long b = 0; b < 1; b++)  /* one item shared: one thread sweeps it all */
            for (long k = 1; k <= rows; k++)
                for (long j = 1; j <= n; j++)
                    v[k * w + j + b] = 0.25 * (u[(k - 1) * w + j + b] + u[(k + 1) * w + j + b] +
                                               u[k * w + j - 1 + b] + u[k * w + j + 1 + b]);"""
THREAD_ZERO = """#pragma omp parallel for
        for (int t = 0; t < omp_get_max_threads(); t++)  /* one item per thread, thread 0 sweeps */
            if (t == 0)
                for (long k = 1; k <= rows; k++)
                    for (long j = 1; j <= n; j++)
                        v[k * w + j + t] = 0.25 * (u[(k - 1) * w + j + t] + u[(k + 1) * w + j + t] +
                                                   u[k * w + j - 1 + t] + u[k * w + j + 1 + t]);"""
TEAM_OF_ONE = """    omp_set_num_threads(1);  /* after the place lines: every update runs on a team of one */
    MPI_Barrier(MPI_COMM_WORLD);"""
WHOLE_GRID_HALO = r"""/* WRONG: every rank sweeps the WHOLE grid, overwriting the two rows beside its block with the rows received */
""" + _ATTACK_HEAD + _ROWS_OF_RANK + r"""    long w = N + 2;
    double *U = calloc((size_t)(N + 2) * w, sizeof(double));
    double *V = calloc((size_t)(N + 2) * w, sizeof(double));
    double *u = U, *v = V;
    double edge = 3.0 * (N + 1);
    for (long i = 0; i < N + 2; i++) {
        long gi = i;
        for (long j = 0; j < w; j++) {
            double x = 0.0;
            if (gi == 0 || gi == N + 1 || j == 0 || j == N + 1) x = (gi + 2.0 * j) / edge;
            u[i * w + j] = v[i * w + j] = x;
        }
    }
""" + _PLACED + r"""        u = U + (first - 1) * w;
        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 2, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp parallel for
        for (long i = 1; i <= N; i++)
            for (long j = 1; j <= N; j++)
                V[i * w + j] = 0.25 * (U[(i - 1) * w + j] + U[(i + 1) * w + j] + U[i * w + j - 1] + U[i * w + j + 1]);
        double *t = U; U = V; V = t;
    }
    double el = MPI_Wtime() - t0, slow;
    MPI_Reduce(&el, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    u = U + (first - 1) * w;
    double local = 0.0, sum = 0.0;
    for (long i = 1; i <= m; i++) for (long j = 1; j <= N; j++) local += u[i * w + j];
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
""" + _SUMMARY + r"""
    free(U); free(V); free(cpus); free(allc); free(allh);""" + _ATTACK_TAIL
ONE_THREAD = "the update ran on fewer threads than the team"
GAMING += [
    attempt("method", "jacobi_program", program(changed(
        JACOBI_PROGRAM, SWEEP, SWEEP.replace("parallel for", "parallel for schedule(static, 1 << 30)", 1))),
            {"hidden_jacobi_program"}, "schedule(static, 1 << 30): one chunk, so one thread sweeps every row",
            reason=ONE_THREAD),
    attempt("method", "jacobi_program", program(changed(JACOBI_PROGRAM, "    MPI_Barrier(MPI_COMM_WORLD);", TEAM_OF_ONE)),
            {"hidden_jacobi_program"}, "omp_set_num_threads(1) before the iterations: the updates run on a "
            "team of one while the output says threads=T", reason=ONE_THREAD),
    attempt("method", "jacobi_program", program(changed(JACOBI_PROGRAM, SWEEP, ONE_ITEM)),
            {"hidden_jacobi_program"}, "a work-sharing loop of one item with the whole sweep inside it",
            reason=ONE_THREAD),
    attempt("method", "jacobi_program", program(changed(JACOBI_PROGRAM, SWEEP, THREAD_ZERO)),
            {"hidden_jacobi_program"}, "a parallel for over the threads where only thread 0 sweeps",
            reason=ONE_THREAD + " | the update is not shared among OpenMP threads"),
    attempt("method", "jacobi_program", program(WHOLE_GRID_HALO), {"hidden_jacobi_program"},
            "no decomposition: every rank sweeps the whole grid, using the halo rows it receives for "
            "the rows beside its block (the nudge moves its checksum as a decomposed grid's)",
            reason="a rank holds the whole grid"),
]

# the job script's arguments and threads (open attacks of 2026-12-03, helper G): the script as
# written gets three arguments, and one shape is 1 x 1, fewer CPUs than the machine has
GAMING += [
    attempt("method", "job_script", script(changed(JOB_SCRIPT, './jacobi "$@"', "./jacobi $1 $2")),
            {"hidden_job_script"}, "two arguments handed on by number, not \"$@\"",
            reason="however many it gets"),
    attempt("method", "job_script", script(changed(
        JOB_SCRIPT, "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK", "export OMP_NUM_THREADS=$(( $(nproc) / SLURM_NTASKS ))")),
            {"hidden_job_script"}, "OMP_NUM_THREADS from the machine's CPUs over the tasks, not what Slurm "
            "granted each task", reason="CPUs, ran"),
]

# open attacks of 2026-12-04 (attacker D), each built from the programs above. The nudge's K and
# DELTA reached the program in its environment block (argv + argc + 1, no getenv): the tracer now
# takes HL_HALO_NUDGE out before main (hl_trace_loaded), so a whole-grid sweep that adds the move by
# hand adds nothing. Grids allocated before MPI_Init_thread hid from the memory check: it now
# counts from before main (the tracer's constructor), MPI_Init_thread's own memory aside.
_NUDGE_READ = r"""    long nudge_at = -1;
    double nudge_by = 0.0;
    for (char **e = argv + argc + 1; *e; e++)  /* the environment block, no getenv */
        if (strncmp(*e, "HL_HALO_NUDGE=", 14) == 0) sscanf(*e + 14, "%ld %lf", &nudge_at, &nudge_by);
    long w = N + 2;"""
_NUDGE_FORGED = r"""        if (it == nudge_at && size > 1)  /* the move a grid split at row N / size would show */
            for (long j = 1; j <= N; j++) {
                v[(N / size) * w + j] += nudge_by / 4;
                v[(N / size + 1) * w + j] += nudge_by / 4;
            }
        double *t = u; u = v; v = t;"""
NUDGE_FORGE = changed(changed(REDUNDANT, "    long w = N + 2;", _NUDGE_READ), "        double *t = u; u = v; v = t;",
                      _NUDGE_FORGED)
_PREALLOCATED = r"""int main(int argc, char **argv) {
    long N0 = argc > 1 ? atol(argv[1]) : 1, w0 = N0 + 2;  /* both whole grids before MPI starts */
    double *U0 = malloc(sizeof(double) * (size_t)w0 * w0), *V0 = malloc(sizeof(double) * (size_t)w0 * w0);
    for (long k = 0; k < w0 * w0; k++) U0[k] = V0[k] = -0.0;  /* touched (a zero memset becomes calloc) */
    int provided;"""
PREALLOCATED = changed(changed(WHOLE_GRID_HALO, "int main(int argc, char **argv) {\n    int provided;", _PREALLOCATED),
                       """    double *U = calloc((size_t)(N + 2) * w, sizeof(double));
    double *V = calloc((size_t)(N + 2) * w, sizeof(double));""", "    double *U = U0;\n    double *V = V0;")
GAMING += [
    attempt("forged", "jacobi_program", program(NUDGE_FORGE), {"hidden_jacobi_program"},
            "no decomposition: every rank sweeps the whole grid, reads HL_HALO_NUDGE from its environment "
            "block and adds the move a decomposed grid would show by hand", reason="your checksum moved by | calls sscanf"),
    attempt("method", "jacobi_program", program(PREALLOCATED), {"hidden_jacobi_program"},
            "every rank's two whole grids allocated and touched before MPI_Init_thread, so its memory "
            "barely grows after MPI started",
            # (its whole grids written by the master before MPI began: the serial-changes rule may
            # speak first)
            reason="a rank holds the whole grid | the master alone changed"),
    attempt("hidden", "job_script", script(changed(
        JOB_SCRIPT, "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK",
        'export OMP_NUM_THREADS=2\nif [ "$SLURM_CPUS_PER_TASK" = "1" ]; then export OMP_NUM_THREADS=1; fi')),
            {"hidden_job_script"}, "OMP_NUM_THREADS typed: 2, or 1 when SLURM_CPUS_PER_TASK is 1 (right for "
            "every shape this machine can run, wrong for 3 or more CPUs per task)",
            reason="take the counts from the allocation"),
]

# the update's `parallel for` nested in a region whose other threads spin (attacker D's
# kit_burner_pretend): the nested team is one thread, the spinners' CPU time looks like a share
BURNER = changed(changed(
    JACOBI_PROGRAM, "    for (long it = 0; it < iterations; it++) {", """    volatile int stop = 0;
    volatile double burn = 0.0;
#pragma omp parallel
    {
    if (omp_get_thread_num() != 0) {
        while (!stop) burn = burn * 0.999 + 1.0;  /* looks busy */
    } else {
    for (long it = 0; it < iterations; it++) {"""),
    "        v = t;\n    }\n    double mine", "        v = t;\n    }\n    stop = 1;\n    }\n    }\n    double mine")
GAMING += [
    attempt("method", "jacobi_program", program(BURNER), {"hidden_jacobi_program"},
            "the update's parallel for nested in a region where thread 0 sweeps with a team of one and "
            "the other threads spin to look busy", reason="not in a parallel region nested in another"),
]

# open items of 2026-12-04 (helper-10): a burner beside a loop only thread 0 reaches, by a route
# other than a nested region (the kit's wrappers of libgomp's GOMP_loop_* count each thread's
# iterations of a loop of a runtime schedule: "loop_share"); the whole grid held by rank 0 only,
# rank 1 echoing a row, rank 0 learning the nudge by comparing the row that comes back with its own
# (each rank's memory now, not the least of the ranks'); the whole grids touched on another thread
# while MPI_Init_thread runs (MPI's own memory at most about what it takes in the grader's program
# that only starts MPI)
BURNER_DYNAMIC = changed(BURNER, SWEEP, SWEEP.replace("#pragma omp parallel for", "#pragma omp for schedule(dynamic) nowait"))
ONE_RANK_WHOLE = r"""/* rank 0 holds and sweeps the WHOLE grid (two arrays); rank 1 only echoes the row it gets, so its
 * memory barely grows; rank 0 learns the nudge by comparing the row that comes back with its own */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *level_name(int level) {
    return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                            : "MPI_THREAD_MULTIPLE";
}

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_FUNNELED) {
        if (rank == 0) fprintf(stderr, "jacobi: needs %s but MPI provided %s\n", level_name(MPI_THREAD_FUNNELED), level_name(provided));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    long n = atol(argv[1]), iterations = atol(argv[2]), w = n + 2;
    long p = n / size + (0 < n % size); /* where a decomposition would split */
    double *u = NULL, *v = NULL, *row = malloc(sizeof(double) * (size_t)w);
    if (rank == 0) {
        u = calloc((size_t)(w * w), sizeof *u);
        v = calloc((size_t)(w * w), sizeof *v);
        for (long i = 0; i < w; i++)
            for (long j = 0; j < w; j++)
                if (i == 0 || i == n + 1 || j == 0 || j == n + 1) u[i * w + j] = v[i * w + j] = (i + 2.0 * j) / (3.0 * (n + 1));
    }
    int threads = omp_get_max_threads();
    int *cpus = malloc((size_t)threads * sizeof *cpus);
#pragma omp parallel
    cpus[omp_get_thread_num()] = sched_getcpu();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iterations; it++) {
        double moved = 0.0;
        if (rank == 1) {
            MPI_Recv(row, (int)w, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(row, (int)w, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        } else if (rank == 0 && size > 1) {
            MPI_Sendrecv(u + (p + 1) * w, (int)w, MPI_DOUBLE, 1, 0, row, (int)w, MPI_DOUBLE, 1, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            moved = (row[1] - u[(p + 1) * w + 1]) / 2; /* both sends of this sweep nudged */
        }
        if (rank == 0) {
#pragma omp parallel for
            for (long k = 1; k <= n; k++)
                for (long j = 1; j <= n; j++)
                    v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] + u[k * w + j + 1]);
            if (moved != 0.0)
                for (long j = 1; j <= n; j++) v[p * w + j] += moved / 4, v[(p + 1) * w + j] += moved / 4;
            double *t = u;
            u = v;
            v = t;
        }
    }
    double mine = MPI_Wtime() - t0, seconds, local = 0.0, sum;
    if (rank == 0)
        for (long k = 1; k <= n; k++)
            for (long j = 1; j <= n; j++) local += u[k * w + j];
    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    char host[64] = {0};
    gethostname(host, sizeof host - 1);
    int *all = rank == 0 ? malloc((size_t)(size * threads) * sizeof *all) : NULL;
    char *hosts = rank == 0 ? malloc((size_t)size * sizeof host) : NULL;
    MPI_Gather(cpus, threads, MPI_INT, all, threads, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(host, sizeof host, MPI_CHAR, hosts, sizeof host, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            for (int t = 0; t < threads; t++)
                printf("place rank=%d thread=%d cpu=%d host=%s\n", r, t, all[r * threads + t], hosts + r * sizeof host);
        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\n", n, iterations, size, threads, seconds, sum);
    }
    MPI_Finalize();
    return 0;
}"""
_INIT_ALONE = """    for (long k = 0; k < w0 * w0; k++) U0[k] = V0[k] = -0.0;  /* touched (a zero memset becomes calloc) */
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);"""
_INIT_BESIDE = """    int provided;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
        else {
            usleep(2000);  /* once the tracer has read the memory before MPI starts */
            for (long k = 0; k < w0 * w0; k++) U0[k] = V0[k] = -0.0;
        }
    }"""
INIT_TOUCHED = changed(PREALLOCATED, _INIT_ALONE, _INIT_BESIDE)
GAMING += [
    attempt("method", "jacobi_program", program(BURNER_DYNAMIC), {"hidden_jacobi_program"},
            "the update an `omp for schedule(dynamic) nowait` that only thread 0 of the region reaches, "
            "so it takes every chunk, while the other threads spin to look busy",
            reason="handed their"),
    attempt("method", "jacobi_program", program(ONE_RANK_WHOLE), {"hidden_jacobi_program"},
            "rank 0 holds and sweeps the whole grid, rank 1 only echoes the row it gets (its memory "
            "barely grows), rank 0 learns the nudge from the row that comes back", reason="a rank holds the whole grid"),
    attempt("method", "jacobi_program", program(INIT_TOUCHED), {"hidden_jacobi_program"},
            "two whole grids per rank touched on another thread while MPI_Init_thread runs, so they "
            "count as MPI's own memory", reason="a rank holds the whole grid"),
]

# open items of 2026-12-04 (helper-f1): a thread sweeping every row where no libgomp call hands out
# the iterations, beside threads that spin without writing: a static loop only thread 0 reaches over
# an iteration space T times the rows (thread 0's own range is every row), a taskloop only thread 0
# reaches (the spinners never run its tasks), one item of a loop over the threads that sweeps all.
# The 1 x 2 run is the counted build (jobs.COUNT_WRITES): the tracer credits each thread the bytes it
# changed inside parallel regions, per heap block, and each block that took a tenth of them must have
# been written by every thread of the team
SPINNER = changed(BURNER, "        while (!stop) burn = burn * 0.999 + 1.0;  /* looks busy */",
                  "        while (!stop) {}  /* looks busy, writes nothing */")
STATIC_ZERO = changed(SPINNER, SWEEP, """#pragma omp for schedule(static) nowait
        for (long k = 1; k <= rows * omp_get_num_threads(); k++)  /* thread 0's static range: every row */
            for (long j = 1; j <= n && k <= rows; j++)
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);""")
PLAIN_FOR_ZERO = changed(STATIC_ZERO, "#pragma omp for schedule(static) nowait", "#pragma omp for nowait")
TASKLOOP_ZERO = changed(SPINNER, SWEEP, SWEEP.replace("#pragma omp parallel for", "#pragma omp taskloop"))
SPUN_ITEMS = changed(changed(JACOBI_PROGRAM, "    for (long it = 0; it < iterations; it++) {",
                             "    volatile long swept = 0;\n    for (long it = 0; it < iterations; it++) {"),
                     SWEEP, """#pragma omp parallel for schedule(static, 1)
        for (int t = 0; t < omp_get_max_threads(); t++) {  /* item 0 sweeps all, the others spin */
            if (t == 0) {
                for (long k = 1; k <= rows; k++)
                    for (long j = 1; j <= n; j++)
                        v[k * w + j + t] = 0.25 * (u[(k - 1) * w + j + t] + u[(k + 1) * w + j + t] +
                                                   u[k * w + j - 1 + t] + u[k * w + j + 1 + t]);
                swept = it + 1;
            } else
                while (swept <= it) {}
        }""")
SHARE_OF_GRID = "write its share of the grid"
# (since fixer f38, 2026-12-06, the update's stores are read from clang's IR: a sweep that only the
# item or thread 0 reaches writes at addresses that do not come from the thread's share of the
# loop, so the IR rule may refuse it first)
NOT_SHARED = "the update is not shared among OpenMP threads"
GAMING += [
    attempt("method", "jacobi_program", program(STATIC_ZERO), {"hidden_jacobi_program"},
            "the update an `omp for schedule(static) nowait` that only thread 0 of the region reaches, over "
            "T times the rows so that its static range is every row, while the other threads spin",
            reason=SHARE_OF_GRID),
    attempt("method", "jacobi_program", program(PLAIN_FOR_ZERO), {"hidden_jacobi_program"},
            "the same with a plain `omp for nowait` (GCC's default schedule is static)", reason=SHARE_OF_GRID),
    attempt("method", "jacobi_program", program(TASKLOOP_ZERO), {"hidden_jacobi_program"},
            "the update a `taskloop` only thread 0 of the region reaches: the other threads spin and never "
            "run its tasks", reason=SHARE_OF_GRID),
    attempt("method", "jacobi_program", program(SPUN_ITEMS), {"hidden_jacobi_program"},
            "a parallel for over the threads whose item 0 sweeps every row while the other items spin "
            "until it is done", reason=SHARE_OF_GRID + " | " + NOT_SHARED),
]
# a taskloop in `masked` is allowed by the text (its tasks go to the team); here the team spins
# instead of running them, so thread 0 runs every task
MASKED_TASKLOOP = changed(changed(changed(JACOBI_PROGRAM, "    for (long it = 0; it < iterations; it++) {", """    volatile int stop = 0;
#pragma omp parallel
    {
#pragma omp masked
    {
    for (long it = 0; it < iterations; it++) {"""), "        v = t;\n    }\n    double mine", """        v = t;
    }
    stop = 1;
    }
    while (!stop) {}  /* the others spin: they never reach a barrier where tasks run */
    }
    double mine"""), SWEEP, SWEEP.replace("#pragma omp parallel for", "#pragma omp taskloop"))
GAMING += [
    attempt("method", "jacobi_program", program(MASKED_TASKLOOP), {"hidden_jacobi_program"},
            "the update a taskloop in `omp masked` while the other threads spin past it and never run "
            "its tasks", reason=SHARE_OF_GRID),
]

# every rank holds the whole grid in ONE array updated in place (a buffer of 64 rows) and sweeps every row,
# the rows it receives replacing its own copy of its neighbours' boundary rows: at 2 ranks its memory is
# two half blocks' worth and its block moves under the nudge as a decomposed one's (helper-f1's open
# item 3); a run of 3 ranks taking turns on the CPUs reads each rank's memory against a third of the grid
WHOLE_ONE_ARRAY = r"""/* every rank holds the WHOLE grid in one array, updated in place (through a buffer of 64 rows), and sweeps every
 * row; the halo rows it receives replace its own copy of its neighbours' boundary rows, so its block
 * moves as a decomposed one's; its memory is one grid: two half blocks' worth at 2 ranks */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *level_name(int level) {
    return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                            : "MPI_THREAD_MULTIPLE";
}

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_FUNNELED) {
        if (rank == 0) fprintf(stderr, "jacobi: needs %s but MPI provided %s\n", level_name(MPI_THREAD_FUNNELED), level_name(provided));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    long n = atol(argv[1]), iterations = atol(argv[2]), w = n + 2;
    long rows = n / size + (rank < n % size);
    long first = 1 + rank * (n / size) + (rank < n % size ? rank : n % size);
    double *U = calloc((size_t)((n + 2) * w), sizeof *U); /* the whole grid, one array */
    long B = 64; /* rows of the grid updated per block, through a buffer of B rows */
    double *T = malloc((size_t)(B * w) * sizeof *U), *above = malloc((size_t)w * sizeof *U);
    for (long i = 0; i < n + 2; i++)
        for (long j = 0; j < w; j++)
            if (i == 0 || i == n + 1 || j == 0 || j == n + 1) U[i * w + j] = (i + 2.0 * j) / (3.0 * (n + 1));
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int threads = omp_get_max_threads();
    int *cpus = malloc((size_t)threads * sizeof *cpus);
#pragma omp parallel
    cpus[omp_get_thread_num()] = sched_getcpu();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iterations; it++) {
        MPI_Sendrecv(U + first * w, (int)w, MPI_DOUBLE, up, 0, U + (first + rows) * w, (int)w, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(U + (first + rows - 1) * w, (int)w, MPI_DOUBLE, down, 1, U + (first - 1) * w, (int)w, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        memcpy(above, U, (size_t)w * sizeof *U); /* old row 0 */
        for (long a = 1; a <= n; a += B) { /* every row of the grid, in place, B rows at a time */
            long b = a + B - 1 < n ? a + B - 1 : n;
#pragma omp parallel for
            for (long k = a; k <= b; k++)
                for (long j = 1; j <= n; j++)
                    T[(k - a) * w + j] = 0.25 * ((k == a ? above[j] : U[(k - 1) * w + j]) + U[(k + 1) * w + j] +
                                                 U[k * w + j - 1] + U[k * w + j + 1]);
            memcpy(above, U + b * w, (size_t)w * sizeof *U); /* old row b: the next block's upper neighbour */
#pragma omp parallel for
            for (long k = a; k <= b; k++)
                memcpy(U + k * w + 1, T + (k - a) * w + 1, (size_t)n * sizeof *U);
        }
    }
    double mine = MPI_Wtime() - t0, seconds, local = 0.0, sum;
    for (long k = first; k < first + rows; k++)
        for (long j = 1; j <= n; j++) local += U[k * w + j];
    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    char host[64] = {0};
    gethostname(host, sizeof host - 1);
    int *all = rank == 0 ? malloc((size_t)(size * threads) * sizeof *all) : NULL;
    char *hosts = rank == 0 ? malloc((size_t)size * sizeof host) : NULL;
    MPI_Gather(cpus, threads, MPI_INT, all, threads, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(host, sizeof host, MPI_CHAR, hosts, sizeof host, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            for (int t = 0; t < threads; t++)
                printf("place rank=%d thread=%d cpu=%d host=%s\n", r, t, all[r * threads + t], hosts + r * sizeof host);
        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\n", n, iterations, size, threads, seconds, sum);
    }
    MPI_Finalize();
    return 0;
}"""
GAMING += [
    attempt("method", "jacobi_program", program(WHOLE_ONE_ARRAY), {"hidden_jacobi_program"},
            "every rank holds the whole grid in one array updated in place and sweeps every row, using the "
            "halo rows it receives in place of its own copy (as much memory as two half blocks at 2 ranks)",
            reason="3 x 1: a rank's memory grew"),
]

# A fresh attacker's (attacker C's H9, c10nobind2) script with no --cpu-bind at all kept 3/3: the
# kit's local srun bound the tasks to cores when no binding was asked. It now starts them unbound,
# as a Slurm without a default binding does (steps._cpu_bind, helper-f8, 2026-12-04)
GAMING += [
    attempt("method", "job_script", script(changed(
        JOB_SCRIPT, " --cpu-bind=cores ./jacobi", " ./jacobi")),
            {"hidden_job_script"}, "fresh attacker (H9): srun with no --cpu-bind, OMP_PLACES and "
            "OMP_PROC_BIND kept: the ranks bound only where the site binds by default",
            reason="bound to a core of its own | two threads bound to one core"),
]

# A fresh attacker (attack H, H-3, H-4; fixer helper-f13, 2026-12-05). The step is now taken only
# from the kit's srun process itself: the kit's socket ($HL_SRUN_SOCKET) checks each peer
# (SO_PEERCRED; its /proc exe, command line, loader variables, ancestry) and reads the step from
# that process's command line, environment and folder (jobs._StepChannel); ./jacobi must be the
# kit's build when srun starts it; srun's --export makes the tasks' environment, and --cpu-bind /
# --cpu_bind are one option, the last given wins (steps._step, steps._cpu_bind).
_RIGHT_SRUN = 'srun --ntasks=$SLURM_NTASKS --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind=cores ./jacobi "$@"'
# H10_forgestep2: no step at all; a step record appended to the file the kit's srun once wrote to
_FORGED_FILE = r"""if [ -n "$HL_SRUN_STEPS" ]; then
  echo "{\"ntasks\": $SLURM_NTASKS, \"cpus_per_task\": $SLURM_CPUS_PER_TASK, \"bind\": \"cores\", \"program\": \"$PWD/jacobi\", \"args\": [], \"openmp\": {\"OMP_NUM_THREADS\": \"$SLURM_CPUS_PER_TASK\", \"OMP_PLACES\": \"cores\", \"OMP_PROC_BIND\": \"close\"}}" >> "$HL_SRUN_STEPS"
fi
false && """
# the same idea against the socket: a python process of the script's reports a step to it
_FORGED_SOCKET = r"""python3 - <<'PY'
import os, socket
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["HL_SRUN_SOCKET"])
s.sendall(b"srun --cpu-bind=cores ./jacobi\n")
print(s.makefile().readline())
PY
false && """
_WRAPPER = r"""if [ ! -e jacobi.real ]; then mv jacobi jacobi.real; fi
printf '#!/bin/sh\nexport OMP_PROC_BIND=false; unset OMP_PLACES\nexec "$(dirname "$0")/jacobi.real" "$@"\n' > jacobi
chmod +x jacobi
"""
GAMING += [
    attempt("forged", "job_script", script(changed(JOB_SCRIPT, _RIGHT_SRUN, _FORGED_FILE + _RIGHT_SRUN + "\nexit 0")),
            {"hidden_job_script"}, "fresh attacker (H10_forgestep2): no srun runs (`false && srun ...`, "
            "exit 0); a well-formed step appended to the file named by $HL_SRUN_STEPS, which the kit "
            "then started", reason="started no srun step of ./jacobi"),
    attempt("forged", "job_script", script(changed(JOB_SCRIPT, _RIGHT_SRUN, _FORGED_SOCKET + _RIGHT_SRUN + "\nexit 0")),
            {"hidden_job_script"}, "the forgery carried to the kit's step socket: a python process of "
            "the script's connects to $HL_SRUN_SOCKET and reports a step; no srun runs",
            reason="not the kit's srun"),
    attempt("text", "job_script", script(changed(JOB_SCRIPT, "--cpu-bind=cores", "--cpu-bind=cores --cpu_bind=none")),
            {"hidden_job_script"}, "fresh attacker (H10_bindtwice): `--cpu-bind=cores --cpu_bind=none`, "
            "one option to Slurm, the last wins (unbound); the kit took the dash spelling first",
            reason="bound to a core of its own | two threads bound to one core"),
    attempt("text", "job_script", script(changed(JOB_SCRIPT, "srun ", "srun --export=NONE ")),
            {"hidden_job_script"}, "fresh attacker (H10_exportnone): `srun --export=NONE`: the tasks get "
            "only SLURM_* variables, no OMP_*; the kit's srun ignored --export",
            reason="OMP_NUM_THREADS is not set in the tasks' environment"),
    attempt("text", "job_script", script(changed(JOB_SCRIPT, "srun ", "srun --export=ALL,OMP_PROC_BIND=false ")),
            {"hidden_job_script"}, "fresh attacker (H10_exportfalse): `--export=ALL,OMP_PROC_BIND=false`: "
            "the tasks' threads unbound", reason="bound to a core of its own"),
    attempt("text", "job_script", script(changed(JOB_SCRIPT, "srun ", "srun --export=ALL,OMP_NUM_THREADS=1 ")),
            {"hidden_job_script"}, "fresh attacker (H10_exportthreads): `--export=ALL,OMP_NUM_THREADS=1`: "
            "one thread per rank in every shape", reason="ranks x 1 threads"),
    attempt("text", "job_script", script(changed(JOB_SCRIPT, _RIGHT_SRUN, _WRAPPER + _RIGHT_SRUN)),
            {"hidden_job_script"}, "fresh attacker (H10_wrapper): ./jacobi replaced by a wrapper that "
            "unbinds the threads and runs the real program; the kit ran its own copy",
            reason="not the program the grader built"),
]

# A fresh attacker (d10w, 2026-12-05, 5/5 twice): the compile line (a Python string) also runs a
# script that builds a right program with the kit's own build_program under the graded cell's
# cache key and plants its binaries over the graded build, in a folder it made mode 555, which
# the reset between parts graded apart in one process (a plain rmtree) could not empty; the
# jacobi_program part then ran the planted program. The reset now opens every folder first
# (apart._empty): the graded cell, which never checks `provided`, is what runs
_PLANTING_COMPILE = 'import base64 as _b64\n\n# the grader builds the C cell JACOBI_C as "jacobi_graded" in /tmp/cache/build, which the parts\n# graded after this one find again: this compile line plants there, under the key of JACOBI_C\'s\n# build, the binaries of ANOTHER program (_GOOD), in a folder the reset between parts cannot\n# empty (mode 555). JACOBI_C itself gives every row to one thread.\n_GOOD = \'/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\\n * outside parallel regions, so FUNNELED is what it needs). */\\n#define _GNU_SOURCE\\n#include <mpi.h>\\n#include <omp.h>\\n#include <sched.h>\\n#include <stdio.h>\\n#include <stdlib.h>\\n#include <string.h>\\n#include <unistd.h>\\n\\nstatic const char *level_name(int level) {\\n    switch (level) {\\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\\n    default: return "MPI_THREAD_MULTIPLE";\\n    }\\n}\\n\\nstatic double edge(long i, long j, long n) { return (double)(i + 2 * j) / (3.0 * (double)(n + 1)); }\\n\\nint main(int argc, char **argv) {\\n    int provided;\\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\\n    if (provided < MPI_THREAD_FUNNELED) {\\n        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\\\n", level_name(provided));\\n        MPI_Abort(MPI_COMM_WORLD, 1);\\n        return 1;\\n    }\\n    int rank, size;\\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\\n    long n = argc > 1 ? atol(argv[1]) : 64, iters = argc > 2 ? atol(argv[2]) : 10;\\n    long lo = 1 + n * rank / size, hi = 1 + n * (rank + 1) / size; /* my global rows [lo, hi) */\\n    long rows = hi - lo, w = n + 2;\\n    double *u = malloc((size_t)(rows + 2) * w * sizeof *u);\\n    double *v = malloc((size_t)(rows + 2) * w * sizeof *v);\\n    #pragma omp parallel for\\n    for (long r = 0; r < rows + 2; r++) {\\n        long gi = lo - 1 + r;\\n        for (long j = 0; j < w; j++) {\\n            double x = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? edge(gi, j, n) : 0.0;\\n            u[r * w + j] = x;\\n            v[r * w + j] = x;\\n        }\\n    }\\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\\n    MPI_Barrier(MPI_COMM_WORLD);\\n    double t0 = MPI_Wtime();\\n    for (long it = 0; it < iters; it++) {\\n        MPI_Sendrecv(&u[1 * w], (int)w, MPI_DOUBLE, up, 1, &u[(rows + 1) * w], (int)w, MPI_DOUBLE,\\n                     down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\\n        MPI_Sendrecv(&u[rows * w], (int)w, MPI_DOUBLE, down, 2, &u[0], (int)w, MPI_DOUBLE, up, 2,\\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\\n        #pragma omp parallel for\\n        for (long r = 1; r <= rows; r++)\\n            for (long j = 1; j <= n; j++)\\n                v[r * w + j] = (u[(r - 1) * w + j] + u[(r + 1) * w + j] + u[r * w + j - 1] +\\n                                u[r * w + j + 1]) / 4.0;\\n        double *t = u; u = v; v = t;\\n    }\\n    double mine = MPI_Wtime() - t0, seconds;\\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\\n    double local = 0.0, sum = 0.0;\\n    for (long r = 1; r <= rows; r++)\\n        for (long j = 1; j <= n; j++) local += u[r * w + j];\\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\\n\\n    int T = omp_get_max_threads();\\n    int *cpus = calloc((size_t)T, sizeof *cpus);\\n    int team = 1;\\n    #pragma omp parallel\\n    {\\n        cpus[omp_get_thread_num()] = sched_getcpu();\\n        #pragma omp single\\n        team = omp_get_num_threads();\\n    }\\n    char host[64] = {0};\\n    gethostname(host, sizeof host - 1);\\n    int *allcpus = rank == 0 ? malloc((size_t)T * size * sizeof *allcpus) : NULL;\\n    char *hosts = rank == 0 ? malloc((size_t)64 * size) : NULL;\\n    MPI_Gather(cpus, T, MPI_INT, allcpus, T, MPI_INT, 0, MPI_COMM_WORLD);\\n    MPI_Gather(host, 64, MPI_CHAR, hosts, 64, MPI_CHAR, 0, MPI_COMM_WORLD);\\n    if (rank == 0) {\\n        for (int r = 0; r < size; r++)\\n            for (int t = 0; t < team; t++)\\n                printf("place rank=%d thread=%d cpu=%d host=%s\\\\n", r, t, allcpus[r * T + t], hosts + 64 * r);\\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\\\n", n,\\n               iters, size, team, seconds, sum);\\n        fflush(stdout);\\n    }\\n    free(u); free(v); free(cpus); free(allcpus); free(hosts);\\n    MPI_Finalize();\\n    return 0;\\n}\\n\'\n_script = f"""\nimport os\nfrom hybridlab.slurm import jobs\ngood = jobs.build_program(\'jacobi_graded\', {_GOOD!r})\nbad = jobs.build_program(\'jacobi_graded\', {JACOBI_C!r})\ngd, bd = good.program.parent, bad.program.parent\nassert gd != bd\nos.chmod(bd, 0o755)\nfor f in (\'jacobi_graded\', \'libjacobi_graded.so\'):\n    os.chmod(bd / f, 0o755)\n    (bd / f).write_bytes((gd / f).read_bytes())\n    os.chmod(bd / f, 0o755)\nos.chmod(bd, 0o555)\n"""\nCOMPILE = ("mpicc -fopenmp -O2 -o jacobi jacobi.c && python -c \\"import base64;exec(base64.b64decode(\'"\n           + _b64.b64encode(_script.encode()).decode() + "\'))\\"")\n'
_NO_PROVIDED_CHECK = '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\nstatic double edge(long i, long j, long n) { return (double)(i + 2 * j) / (3.0 * (double)(n + 1)); }\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    (void)level_name;\n    int rank, size;\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    long n = argc > 1 ? atol(argv[1]) : 64, iters = argc > 2 ? atol(argv[2]) : 10;\n    long lo = 1 + n * rank / size, hi = 1 + n * (rank + 1) / size; /* my global rows [lo, hi) */\n    long rows = hi - lo, w = n + 2;\n    double *u = malloc((size_t)(rows + 2) * w * sizeof *u);\n    double *v = malloc((size_t)(rows + 2) * w * sizeof *v);\n    #pragma omp parallel for\n    for (long r = 0; r < rows + 2; r++) {\n        long gi = lo - 1 + r;\n        for (long j = 0; j < w; j++) {\n            double x = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? edge(gi, j, n) : 0.0;\n            u[r * w + j] = x;\n            v[r * w + j] = x;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iters; it++) {\n        MPI_Sendrecv(&u[1 * w], (int)w, MPI_DOUBLE, up, 1, &u[(rows + 1) * w], (int)w, MPI_DOUBLE,\n                     down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(&u[rows * w], (int)w, MPI_DOUBLE, down, 2, &u[0], (int)w, MPI_DOUBLE, up, 2,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        #pragma omp parallel for\n        for (long r = 1; r <= rows; r++)\n            for (long j = 1; j <= n; j++)\n                v[r * w + j] = (u[(r - 1) * w + j] + u[(r + 1) * w + j] + u[r * w + j - 1] +\n                                u[r * w + j + 1]) / 4.0;\n        double *t = u; u = v; v = t;\n    }\n    double mine = MPI_Wtime() - t0, seconds;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    double local = 0.0, sum = 0.0;\n    for (long r = 1; r <= rows; r++)\n        for (long j = 1; j <= n; j++) local += u[r * w + j];\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n\n    int T = omp_get_max_threads();\n    int *cpus = calloc((size_t)T, sizeof *cpus);\n    int team = 1;\n    #pragma omp parallel\n    {\n        cpus[omp_get_thread_num()] = sched_getcpu();\n        #pragma omp single\n        team = omp_get_num_threads();\n    }\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *allcpus = rank == 0 ? malloc((size_t)T * size * sizeof *allcpus) : NULL;\n    char *hosts = rank == 0 ? malloc((size_t)64 * size) : NULL;\n    MPI_Gather(cpus, T, MPI_INT, allcpus, T, MPI_INT, 0, MPI_COMM_WORLD);\n    MPI_Gather(host, 64, MPI_CHAR, hosts, 64, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, allcpus[r * T + t], hosts + 64 * r);\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n,\n               iters, size, team, seconds, sum);\n        fflush(stdout);\n    }\n    free(u); free(v); free(cpus); free(allcpus); free(hosts);\n    MPI_Finalize();\n    return 0;\n}\n'
# (since fixer f33, 2026-12-05, the line itself is refused: it runs python, not only compilers)
GAMING.append(Wrong((("compile_line", _PLANTING_COMPILE), ("jacobi_program", _NO_PROVIDED_CHECK)),
                    frozenset({"hidden_compile_line", "hidden_jacobi_program"}),
                    "the compile line plants a right program's build, in a read-only folder, over "
                    "the graded cell's (d10w)", "forged", reason="less than FUNNELED"))

# a fresh attacker's k10spin4 (5/5 kept, 2026-12-05, left open then): thread 0 sweeps every row (a
# static schedule whose chunk is all rows) while the others scribble into their rows of v first
# and copy their rows of v into u after, each earning changed bytes of both blocks; a heap block's
# bytes are now credited to the thread that changed them last ("owned"), v's all thread 0's
GAMING += [
    attempt("method", "jacobi_program", '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic double edge(long i, long j, long n) { return (double)(i + 2 * j) / (3.0 * (double)(n + 1)); }\n\nint main(int argc, char **argv) {\n    int provided = 0;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        const char *name = provided == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : "a lower level";\n        printf("jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", name);\n        fflush(stdout);\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    int rank, size;\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    if (argc < 3) {\n        if (rank == 0) printf("usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(MPI_COMM_WORLD, 2);\n    }\n    long n = atol(argv[1]), iters = atol(argv[2]);\n    long lo = 1 + n * rank / size, hi = 1 + n * (rank + 1) / size; /* rows lo..hi-1 */\n    long m = hi - lo, w = n + 2;\n    double *u = malloc((size_t)((m + 2) * w) * sizeof(double));\n    double *v = malloc((size_t)((m + 2) * w) * sizeof(double));\n    for (long i = 0; i < m + 2; i++) {\n        long g = lo - 1 + i;\n        for (long j = 0; j < w; j++) {\n            double x = (g == 0 || g == n + 1 || j == 0 || j == n + 1) ? edge(g, j, n) : 0.0;\n            u[i * w + j] = v[i * w + j] = x;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int nthreads = 1;\n#pragma omp parallel\n    {\n#pragma omp single\n        nthreads = omp_get_num_threads();\n    }\n    int *cpus = malloc((size_t)nthreads * sizeof(int));\n#pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n    long chunk = m > 0 ? m : 1, swept = 0;\n    static long spins;\n    for (long it = 0; it < iters; it++) {\n        MPI_Sendrecv(u + 1 * w, (int)w, MPI_DOUBLE, up, 1, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 1,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 2, u, (int)w, MPI_DOUBLE, up, 2,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n#pragma omp parallel\n        {\n            int T = omp_get_num_threads(), t = omp_get_thread_num();\n            long lo = 1 + m * t / T, hi = 1 + m * (t + 1) / T;\n            /* the others scribble their rows of v first (thread 0 overwrites them all) */\n            if (t > 0)\n                for (long i = lo; i < hi; i++)\n                    for (long j = 1; j <= n; j++) v[i * w + j] = -1.0 - (double)t;\n#pragma omp barrier\n            /* the sweep: one chunk of every row, so thread 0 sweeps alone while the others wait busy */\n#pragma omp for schedule(static, chunk) nowait\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j <= n; j++)\n                    v[i * w + j] = (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]) / 4.0;\n            if (t == 0)\n                __atomic_store_n(&swept, it + 1, __ATOMIC_RELEASE);\n            else\n                while (__atomic_load_n(&swept, __ATOMIC_ACQUIRE) != it + 1) { spins++; sched_yield(); }\n            /* every thread copies its rows back, element by element */\n            for (long i = lo; i < hi; i++)\n                for (long j = 1; j <= n; j++) u[i * w + j] = v[i * w + j] + 0.0;\n        }\n    }\n    double mine = MPI_Wtime() - t0, seconds = 0.0;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    double local = 0.0, sum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *allc = rank == 0 ? malloc((size_t)(nthreads * size) * sizeof(int)) : NULL;\n    char *allh = rank == 0 ? malloc((size_t)(64 * size)) : NULL;\n    MPI_Gather(cpus, nthreads, MPI_INT, allc, nthreads, MPI_INT, 0, MPI_COMM_WORLD);\n    MPI_Gather(host, 64, MPI_CHAR, allh, 64, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < nthreads; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, allc[r * nthreads + t], allh + 64 * r);\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters,\n               size, nthreads, seconds, sum);\n        fflush(stdout);\n    }\n    free(u); free(v); free(cpus); free(allc); free(allh);\n    MPI_Finalize();\n    return 0;\n}\n', {"hidden_jacobi_program"},
            "fresh attacker (k10spin4): one thread sweeps, the others scribble and copy",
            reason="the update ran on fewer threads than the team"),
]

# A fresh attacker (attack S, 2026-12-05; fixer f26). A10_reown (5/5 twice): thread 0 sweeps every
# row in iteration 0 of an `omp for` over the threads (the statement uses the loop variable as
# `+ 0 * r`), the others spin for CPU time, then store x + 1 and x back in their rows, each store a
# change, so they were the last to change (and owned) every word of their rows. A word brought back
# to the value it held before a thread's run undoes that run now (hl_write_count.h): thread 0 owns
# the whole block. A10_masked_compound (5/5 twice): the same re-owning, the sweep in `omp masked`
# written as `v[k] = 0.0; v[k] += 0.25 * (...)`, which the static rule did not read as an update (it
# split statements at a plain `=` only), beside a decoy that reads four elements in an `omp for`;
# a compound assignment is a statement of the update now (exercise._update_statements). R10_taskloop
# (`single` + `taskloop grainsize(4)`, 0/5 twice, reported as a right answer): its block of 600 to 800
# rows makes more than 64 tasks per thread, and libgomp then runs every task on the thread that
# creates it, so one thread does the whole update, in every run; the lab text now says so
# (num_tasks, or a grainsize leaving fewer tasks) and the failure message names it
GAMING += [
    attempt("method", "jacobi_program", '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\n/* thread 0 sweeps every row; the others spin until it is done, then take over their share of\n * the words it wrote (a changed value and the value back) */\nstatic void sweep(const double *u, double *v, long m, long w) {\n    int done = 0;\n#pragma omp parallel\n    {\n        int T = omp_get_num_threads(), me = omp_get_thread_num();\n#pragma omp for schedule(static, 1) nowait\n        for (int r = 0; r < T; r++) {\n            if (r == 0) {\n                for (long i = 1; i <= m; i++)\n                    for (long j = 1; j < w - 1; j++)\n                        v[i * w + j + 0 * r] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);\n                __atomic_store_n(&done, 1, __ATOMIC_RELEASE);\n            } else {\n                volatile double burn = 0.0;\n                while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) burn += 1.0;\n            }\n        }\n        /* every thread\'s share of the rows, re-owned */\n        long lo = 1 + (m * me) / T, hi = (m * (me + 1)) / T;\n        volatile double *vv = v;\n        if (me != 0)\n            for (long i = lo; i <= hi; i++)\n                for (long j = 1; j < w - 1; j++) {\n                    double x = vv[i * w + j];\n                    vv[i * w + j] = x + 1.0;\n                    vv[i * w + j] = x;\n                }\n    }\n}\n\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    MPI_Comm comm = MPI_COMM_WORLD;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(comm, 2);\n    }\n    long n = atol(argv[1]), iterations = atol(argv[2]);\n    long base = n / size, rem = n % size;\n    long m = base + (rank < rem), r0 = rank * base + (rank < rem ? rank : rem);\n    long w = n + 2;\n    double *u = malloc((size_t)((m + 2) * w) * sizeof *u), *v = malloc((size_t)((m + 2) * w) * sizeof *v);\n    for (long li = 0; li < m + 2; li++) {\n        long gi = r0 + li;\n        for (long j = 0; j < w; j++) {\n            double x = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1)\n                           ? (double)(gi + 2 * j) / (3.0 * (double)(n + 1)) : 0.0;\n            u[li * w + j] = x;\n            v[li * w + j] = x;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n\n    int team = 1;\n    int cpus[256];\n#pragma omp parallel\n    {\n#pragma omp single\n        team = omp_get_num_threads();\n        int t = omp_get_thread_num();\n        if (t < 256) cpus[t] = sched_getcpu();\n    }\n    if (team > 256) team = 256;\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *all_cpus = rank == 0 ? malloc((size_t)size * (size_t)team * sizeof *all_cpus) : NULL;\n    char *all_hosts = rank == 0 ? malloc((size_t)size * 64) : NULL;\n    MPI_Gather(cpus, team, MPI_INT, all_cpus, team, MPI_INT, 0, comm);\n    MPI_Gather(host, 64, MPI_CHAR, all_hosts, 64, MPI_CHAR, 0, comm);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all_cpus[r * team + t],\n                       all_hosts + 64 * r);\n        fflush(stdout);\n    }\n\n    MPI_Barrier(comm);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iterations; it++) {\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, comm,\n                     MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 2, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 2,\n                     comm, MPI_STATUS_IGNORE);\n        sweep(u, v, m, w);\n        double *s = u;\n        u = v;\n        v = s;\n    }\n    double mine = MPI_Wtime() - t0, seconds = 0.0;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, comm);\n    double local = 0.0, checksum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);\n    if (rank == 0)\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n,\n               iterations, size, team, seconds, checksum);\n    free(u);\n    free(v);\n    free(all_cpus);\n    free(all_hosts);\n    MPI_Finalize();\n    return 0;\n}', {"hidden_jacobi_program"},
            "fresh attacker (A10_reown): thread 0 sweeps, the others spin, then store x + 1 and x back "
            "in their rows to own them", reason=ONE_THREAD + " | the update is not shared among OpenMP threads"),
    attempt("method", "jacobi_program", '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\n/* thread 0 sweeps every row in a masked block, the stencil written as a compound assignment;\n * a decoy "update" sits in a shared loop; the others spin, then re-own their share of words */\nstatic void sweep(const double *u, double *v, long m, long w) {\n    int done = 0;\n    double decoy = 0.0;\n#pragma omp parallel\n    {\n        int T = omp_get_num_threads(), me = omp_get_thread_num();\n        double d = 0.0;\n#pragma omp for nowait\n        for (long k = 0; k < 4 * T; k++)\n            d = u[k % 2] + u[1 + k % 2] + u[2 + k % 2] + u[3 + k % 2];\n#pragma omp masked\n        {\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j < w - 1; j++) {\n                    v[i * w + j] = 0.0;\n                    v[i * w + j] += 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);\n                }\n            __atomic_store_n(&done, 1, __ATOMIC_RELEASE);\n        }\n        if (me != 0) {\n            volatile double burn = d;\n            while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) burn += 1.0;\n            long lo = 1 + (m * me) / T, hi = (m * (me + 1)) / T;\n            volatile double *vv = v;\n            for (long i = lo; i <= hi; i++)\n                for (long j = 1; j < w - 1; j++) {\n                    double x = vv[i * w + j];\n                    vv[i * w + j] = x + 1.0;\n                    vv[i * w + j] = x;\n                }\n        }\n        (void)decoy;\n    }\n}\n\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    MPI_Comm comm = MPI_COMM_WORLD;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(comm, 2);\n    }\n    long n = atol(argv[1]), iterations = atol(argv[2]);\n    long base = n / size, rem = n % size;\n    long m = base + (rank < rem), r0 = rank * base + (rank < rem ? rank : rem);\n    long w = n + 2;\n    double *u = malloc((size_t)((m + 2) * w) * sizeof *u), *v = malloc((size_t)((m + 2) * w) * sizeof *v);\n    for (long li = 0; li < m + 2; li++) {\n        long gi = r0 + li;\n        for (long j = 0; j < w; j++) {\n            double x = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1)\n                           ? (double)(gi + 2 * j) / (3.0 * (double)(n + 1)) : 0.0;\n            u[li * w + j] = x;\n            v[li * w + j] = x;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n\n    int team = 1;\n    int cpus[256];\n#pragma omp parallel\n    {\n#pragma omp single\n        team = omp_get_num_threads();\n        int t = omp_get_thread_num();\n        if (t < 256) cpus[t] = sched_getcpu();\n    }\n    if (team > 256) team = 256;\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *all_cpus = rank == 0 ? malloc((size_t)size * (size_t)team * sizeof *all_cpus) : NULL;\n    char *all_hosts = rank == 0 ? malloc((size_t)size * 64) : NULL;\n    MPI_Gather(cpus, team, MPI_INT, all_cpus, team, MPI_INT, 0, comm);\n    MPI_Gather(host, 64, MPI_CHAR, all_hosts, 64, MPI_CHAR, 0, comm);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all_cpus[r * team + t],\n                       all_hosts + 64 * r);\n        fflush(stdout);\n    }\n\n    MPI_Barrier(comm);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iterations; it++) {\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, comm,\n                     MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 2, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 2,\n                     comm, MPI_STATUS_IGNORE);\n        sweep(u, v, m, w);\n        double *s = u;\n        u = v;\n        v = s;\n    }\n    double mine = MPI_Wtime() - t0, seconds = 0.0;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, comm);\n    double local = 0.0, checksum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);\n    if (rank == 0)\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n,\n               iterations, size, team, seconds, checksum);\n    free(u);\n    free(v);\n    free(all_cpus);\n    free(all_hosts);\n    MPI_Finalize();\n    return 0;\n}', {"hidden_jacobi_program"},
            "fresh attacker (A10_masked_compound): the sweep in `omp masked` as `v = 0; v += ...`, a decoy "
            "in an omp for, the others re-own their rows", reason="the update is not shared among OpenMP threads"),
    attempt("method", "jacobi_program", '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\n/* the update as tasks: one thread makes them (single), the whole team runs them */\nstatic void sweep(const double *u, double *v, long m, long w) {\n#pragma omp parallel\n#pragma omp single\n#pragma omp taskloop grainsize(4)\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j < w - 1; j++)\n            v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);\n}\n\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    MPI_Comm comm = MPI_COMM_WORLD;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(comm, 2);\n    }\n    long n = atol(argv[1]), iterations = atol(argv[2]);\n    long base = n / size, rem = n % size;\n    long m = base + (rank < rem), r0 = rank * base + (rank < rem ? rank : rem);\n    long w = n + 2;\n    double *u = malloc((size_t)((m + 2) * w) * sizeof *u), *v = malloc((size_t)((m + 2) * w) * sizeof *v);\n    for (long li = 0; li < m + 2; li++) {\n        long gi = r0 + li;\n        for (long j = 0; j < w; j++) {\n            double x = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1)\n                           ? (double)(gi + 2 * j) / (3.0 * (double)(n + 1)) : 0.0;\n            u[li * w + j] = x;\n            v[li * w + j] = x;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n\n    int team = 1;\n    int cpus[256];\n#pragma omp parallel\n    {\n#pragma omp single\n        team = omp_get_num_threads();\n        int t = omp_get_thread_num();\n        if (t < 256) cpus[t] = sched_getcpu();\n    }\n    if (team > 256) team = 256;\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *all_cpus = rank == 0 ? malloc((size_t)size * (size_t)team * sizeof *all_cpus) : NULL;\n    char *all_hosts = rank == 0 ? malloc((size_t)size * 64) : NULL;\n    MPI_Gather(cpus, team, MPI_INT, all_cpus, team, MPI_INT, 0, comm);\n    MPI_Gather(host, 64, MPI_CHAR, all_hosts, 64, MPI_CHAR, 0, comm);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all_cpus[r * team + t],\n                       all_hosts + 64 * r);\n        fflush(stdout);\n    }\n\n    MPI_Barrier(comm);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iterations; it++) {\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, comm,\n                     MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 2, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 2,\n                     comm, MPI_STATUS_IGNORE);\n        sweep(u, v, m, w);\n        double *s = u;\n        u = v;\n        v = s;\n    }\n    double mine = MPI_Wtime() - t0, seconds = 0.0;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, comm);\n    double local = 0.0, checksum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);\n    if (rank == 0)\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n,\n               iterations, size, team, seconds, checksum);\n    free(u);\n    free(v);\n    free(all_cpus);\n    free(all_hosts);\n    MPI_Finalize();\n    return 0;\n}', {"hidden_jacobi_program"},
            "attack S's R10_taskloop: `single` + `taskloop grainsize(4)`, more than 64 tasks per thread, "
            "which libgomp runs all on the thread that creates them", reason=ONE_THREAD),
]

# attacker U (2026-12-05), closed by fixer f33. compile_line (u10_e_whole2, 2/2 twice): no compile line
# of its own, the kit's whole-program build run through python makes the program and supplies the
# flags; a compile line is now compiler invocations only (jobs.compile_line_refused). job_script
# (u10_f_persistent, 3/3 twice): no `#SBATCH --cpus-per-task` line, a typed default thread count and
# no OMP_PROC_BIND passed, since every hidden shape passes --cpus-per-task on sbatch's command line;
# the script as written is read now (exercise.script_unwritten, threads_unbound). jacobi_program
# (u10_b_wholegrid): the whole grid on every rank, updated through row pointers, refused before by
# the statement's text (the row pointers), now by the memory it holds
_U10_WHOLE2_COMPILE = '# gaming (v2): no compile line of my own: the kit\'s whole-program build (hybridlab.slurm.jobs.build_program)\n# makes the program, copied to ./jacobi\nCOMPILE = ("python -c \\"import shutil; from hybridlab.slurm import jobs; "\n           "k = jobs.build_program(\'jacobi_kit\', open(\'jacobi.c\').read(), trace_mpi=False); "\n           "shutil.copy(k.program, \'jacobi\')\\"")'
_U10_PERSISTENT_SCRIPT = '# gaming: no #SBATCH --cpus-per-task line (left to Slurm\'s default of 1), OMP_NUM_THREADS falls back to\n# a typed 1, and only OMP_PLACES is set (no OMP_PROC_BIND)\nJOB_SCRIPT = """#!/bin/bash\n#SBATCH --ntasks=2\nexport OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}\nexport OMP_PLACES=cores\nsrun --ntasks=$SLURM_NTASKS --cpus-per-task=${SLURM_CPUS_PER_TASK:-1} --cpu-bind=cores ./jacobi "$@"\n"""'
_U10_WHOLEGRID = '%%c JACOBI_C\n/* gaming: no decomposition of the work: every rank keeps the WHOLE grid (one array, Jacobi done in\n * place in chunks of 64 rows, so memory stays near one grid) and updates every row each sweep; the\n * halo rows received overwrite its copy of the neighbours\' rows; its checksum covers its block */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\n#define CHUNK 64\nstatic double edge(int i, int j, int n) { return (double)(i + 2 * j) / (3.0 * (n + 1)); }\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    int rank, size;\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    if (provided < MPI_THREAD_FUNNELED) {\n        if (rank == 0)\n            fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 2);\n        return 2;\n    }\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    int n = atoi(argv[1]), iters = atoi(argv[2]);\n    int base = n / size, extra = n % size;\n    int rows = base + (rank < extra ? 1 : 0);\n    int first = 1 + rank * base + (rank < extra ? rank : extra); /* global row of local row 1 */\n    int w = n + 2;\n    double *g = calloc((size_t)w * w, sizeof *g); /* the whole grid, global rows 0 .. n+1 */\n    double *prev = calloc((size_t)w, sizeof *prev), *cur = calloc((size_t)CHUNK * w, sizeof *cur);\n    for (int gi = 0; gi < w; gi++)\n        for (int j = 0; j < w; j++)\n            g[(size_t)gi * w + j] = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? edge(gi, j, n) : 0.0;\n    double *u = g + (size_t)(first - 1) * w; /* this rank\'s block as a window on the whole grid */\n    double *v = NULL;\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n    for (int it = 0; it < iters; it++) {\n        MPI_Sendrecv(u + w, w, MPI_DOUBLE, up, 0, u + (size_t)(rows + 1) * w, w, MPI_DOUBLE, down, 0,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + (size_t)rows * w, w, MPI_DOUBLE, down, 1, u, w, MPI_DOUBLE, up, 1,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\nmemcpy(prev, g, (size_t)w * sizeof *prev); /* old row 0 */\n        for (int c = 1; c <= n; c += CHUNK) {\n            int e = c + CHUNK - 1 < n ? c + CHUNK - 1 : n;\n#pragma omp parallel for\n            for (int gi = c; gi <= e; gi++) {\n                const double *above = gi == c ? prev : g + (size_t)(gi - 1) * w;\n                const double *row = g + (size_t)gi * w, *below = g + (size_t)(gi + 1) * w;\n                double *out = cur + (size_t)(gi - c) * w;\n                for (int j = 1; j <= n; j++)\n                    out[j] = (above[j] + below[j] + row[j - 1] + row[j + 1]) / 4;\n            }\n            memcpy(prev, g + (size_t)e * w, (size_t)w * sizeof *prev); /* old row e, kept */\n            for (int gi = c; gi <= e; gi++)\n                memcpy(g + (size_t)gi * w + 1, cur + (size_t)(gi - c) * w + 1, (size_t)n * sizeof *g);\n        }\n    }\n    double mine = MPI_Wtime() - t0, seconds;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    double local = 0.0, total = 0.0;\n    for (int i = 1; i <= rows; i++)\n        for (int j = 1; j <= n; j++) local += u[(size_t)i * w + j];\n    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    threads = omp_get_max_threads();\n    int *cpus = calloc((size_t)threads, sizeof *cpus);\n    int team = 1;\n#pragma omp parallel\n    {\n#pragma omp masked\n        team = omp_get_num_threads();\n        cpus[omp_get_thread_num()] = sched_getcpu();\n    }\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *all = rank == 0 ? calloc((size_t)threads * size, sizeof *all) : NULL;\n    char *hosts = rank == 0 ? calloc((size_t)64 * size, 1) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, all, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    MPI_Gather(host, 64, MPI_CHAR, hosts, 64, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all[r * threads + t], hosts + 64 * r);\n        printf("jacobi n=%d iterations=%d ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters,\n               size, team, seconds, total);\n        fflush(stdout);\n    }\n    free(all); free(hosts); free(cpus); free(g); free(prev); free(cur); (void)v;\n    MPI_Finalize();\n    return 0;\n}'
GAMING += [
    attempt("shortcut", "compile_line", _U10_WHOLE2_COMPILE, {"hidden_compile_line"},
            "attacker U's u10_e_whole2: COMPILE runs python, whose kit build (jobs.build_program) makes "
            "./jacobi with the kit's own flags", reason="a compile line runs compilers"),
    attempt("hidden", "job_script", _U10_PERSISTENT_SCRIPT, {"hidden_job_script"},
            "attacker U's u10_f_persistent: no `#SBATCH --cpus-per-task` line, OMP_NUM_THREADS with a typed "
            "default, OMP_PLACES without OMP_PROC_BIND (the hidden shapes pass --cpus-per-task themselves)",
            reason="the script as written: no `#SBATCH --cpus-per-task"),
    attempt("hidden", "job_script", script(changed(JOB_SCRIPT, "export OMP_PROC_BIND=close\n", "")),
            {"hidden_job_script"}, "OMP_PLACES=cores without OMP_PROC_BIND (libgomp binds anyway; the "
            "part asks for both)", reason="OMP_PROC_BIND is not set in the tasks' environment"),
    attempt("hidden", "job_script", script(changed(JOB_SCRIPT, "#SBATCH --cpus-per-task=1\n", "")),
            {"hidden_job_script"}, "no `#SBATCH --cpus-per-task` line: as written, Slurm sets no "
            "SLURM_CPUS_PER_TASK", reason="no `#SBATCH --cpus-per-task"),
    attempt("method", "jacobi_program", _U10_WHOLEGRID, {"hidden_jacobi_program"},
            "attacker U's u10_b_wholegrid: the whole grid on every rank, updated in place in chunks of 64 "
            "rows through row pointers", reason="a rank holds the whole grid"),
]

# a fresh attacker (attack Q, 2026-12-06; fixer f38). L10_split2 (5/5 twice): the sweep runs serially on
# the master, written as one-element statements (`double a = u[..]; ... s += c; v[k] = s / 4.0;`), so
# that the text rule (a statement reading four array elements) found no update there, beside a decoy
# `parallel for` whose statement reads four elements; after each sweep the other threads spin as long
# as it took, for the per-thread CPU time. The update is found in clang's IR now (a store of a value
# made from four reads, whatever the statements), and it lies outside every work-sharing loop.
# (L10_split, the same without the decoy, and L10_split3, without the spin, were refused before and
# are refused by the same rule now: no kind of their own.)
_Q10_SPLIT2 = '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int l) {\n    switch (l) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\nint main(int argc, char **argv) {\n    int provided, rank, size;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs %s but MPI provided %s\\n", level_name(MPI_THREAD_FUNNELED),\n                level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 2);\n        return 2;\n    }\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    long n = argc > 1 ? atol(argv[1]) : 64;\n    long iterations = argc > 2 ? atol(argv[2]) : 10;\n    long base = n / size, extra = n % size;\n    long m = base + (rank < extra ? 1 : 0);\n    long first = rank * base + (rank < extra ? rank : extra) + 1; /* global row of local row 1 */\n    long W = n + 2;\n    double *u = calloc((size_t)(m + 2) * W, sizeof(double));\n    double *v = calloc((size_t)(m + 2) * W, sizeof(double));\n    double scale = 1.0 / (3.0 * (double)(n + 1));\n    for (long i = 0; i < m + 2; i++) {\n        long gi = first - 1 + i;\n        for (long j = 0; j < W; j++) {\n            double e = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? (gi + 2.0 * j) * scale : 0.0;\n            u[i * W + j] = e;\n            v[i * W + j] = e;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;\n    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n    #pragma omp parallel\n    {\n        #pragma omp single\n        threads = omp_get_num_threads();\n    }\n    int *cpus = malloc(sizeof(int) * threads);\n    double *decoy = malloc(sizeof(double) * (m + 2));\n    #pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iterations; it++) {\n        MPI_Sendrecv(&u[1 * W], (int)W, MPI_DOUBLE, up, 0, &u[(m + 1) * W], (int)W, MPI_DOUBLE, down, 0,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(&u[m * W], (int)W, MPI_DOUBLE, down, 1, &u[0], (int)W, MPI_DOUBLE, up, 1,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        /* decoy: a work-shared statement that reads four array elements, so that an "update" is found */\n        #pragma omp parallel for schedule(static)\n        for (long i = 1; i <= m; i++)\n            decoy[i] = u[(i - 1) * W] + u[(i + 1) * W] + u[i * W] + u[i * W + n + 1];\n        double ts = omp_get_wtime();\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j <= n; j++) {\n                double a = u[(i - 1) * W + j];\n                double b = u[(i + 1) * W + j];\n                double c = u[i * W + j - 1];\n                double d = u[i * W + j + 1];\n                double s = a + b;\n                s += c;\n                s += d;\n                v[i * W + j] = s / 4.0;\n            }\n        double spent = omp_get_wtime() - ts;\n        #pragma omp parallel\n        {\n            if (omp_get_thread_num() != 0) {\n                double until = omp_get_wtime() + spent;\n                volatile double x = 0.0;\n                while (omp_get_wtime() < until) x += 1.0;\n            }\n        }\n        double *t = u; u = v; v = t;\n    }\n    double mine = MPI_Wtime() - t0, slowest;\n    double local = 0.0, sum = 0.0;\n    #pragma omp parallel for reduction(+ : local)\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++)\n            local += u[i * W + j];\n    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    char host[256];\n    gethostname(host, sizeof host);\n    host[255] = 0;\n    int *allcpus = rank == 0 ? malloc(sizeof(int) * threads * size) : NULL;\n    char *hosts = rank == 0 ? malloc(256 * (size_t)size) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, allcpus, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    MPI_Gather(host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < threads; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, allcpus[r * threads + t], hosts + 256 * r);\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iterations,\n               size, threads, slowest, sum);\n        fflush(stdout);\n    }\n    free(decoy); free(u); free(v); free(cpus); free(allcpus); free(hosts);\n    MPI_Finalize();\n    return 0;\n}'
GAMING += [
    attempt("method", "jacobi_program", _Q10_SPLIT2, {"hidden_jacobi_program"},
            "attack Q's L10_split2: the sweep serial on the master in one-element statements, a decoy "
            "parallel for reading four elements, the other threads spinning as long as the sweep took",
            reason="the update is not shared among OpenMP threads"),
]

# a fresh attacker (attack R, 2026-12-06; fixer f43), two attempts that kept 5/5 twice.
# L10_G2: a `parallel for schedule(static, 1)` over one item per thread, each item the WHOLE block
# (the row index `i + off`, `off = k >= 2^40`, always 0, made the address depend on the loop's
# bounds in the IR); the threads race writing the same values, so each was the last to change a share
# of the block and spent the same CPU time. The counted build now notes a store of what another
# thread wrote into the word ("echoed": the value another's change left, or the same change from the
# same value): the team wrote each element once per thread, not once (written_twice).
# L10_G7: thread 0 computed the other threads' rows into a `__builtin_alloca` buffer on its own
# stack and published its address; the others spun (CPU time), then only memcpy'd their rows out of
# it in an `omp for schedule(static)`. A buffer whose address leaves the function is not its own
# stack now (thread 0's stores of the update into it are outside every shared loop), and the
# counted build gives a copied word to whoever stored it where it was copied from (thread 0).
_R10_G2 = '%%c JACOBI_C\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic double edge(long i, long j, long n) { return (double)(i + 2 * j) / (3.0 * (double)(n + 1)); }\nstatic const char *level_name(int l) {\n    return l == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : l == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"\n         : l == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED" : "MPI_THREAD_MULTIPLE";\n}\n\nint main(int argc, char **argv) {\n    int provided, rank, size;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    MPI_Comm comm = MPI_COMM_WORLD;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(comm, 2);\n    }\n    long n = atol(argv[1]), iters = atol(argv[2]);\n    long base = n / size, extra = n % size;\n    long m = base + (rank < extra);\n    long first = rank * base + (rank < extra ? rank : extra) + 1; /* global row of local row 1 */\n    long w = n + 2;\n    double *u = calloc((size_t)((m + 2) * w), sizeof *u), *v = calloc((size_t)((m + 2) * w), sizeof *v);\n    if (!u || !v) MPI_Abort(comm, 3);\n    for (long r = 0; r < m + 2; r++) {\n        long g = first - 1 + r;\n        for (long j = 0; j < w; j++) {\n            double x = (g == 0 || g == n + 1 || j == 0 || j == n + 1) ? edge(g, j, n) : 0.0;\n            u[r * w + j] = x;\n            v[r * w + j] = x;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n\n    int nthreads = 1;\n#pragma omp parallel\n    {\n#pragma omp single\n        nthreads = omp_get_num_threads();\n    }\n    int *cpus = malloc((size_t)nthreads * sizeof *cpus);\n#pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n    char host[256] = {0};\n    gethostname(host, sizeof host - 1);\n    int *allcpus = rank == 0 ? malloc((size_t)nthreads * size * sizeof *allcpus) : NULL;\n    char *allhosts = rank == 0 ? malloc((size_t)256 * size) : NULL;\n    MPI_Gather(cpus, nthreads, MPI_INT, allcpus, nthreads, MPI_INT, 0, comm);\n    MPI_Gather(host, 256, MPI_CHAR, allhosts, 256, MPI_CHAR, 0, comm);\n    if (rank == 0)\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < nthreads; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, allcpus[r * nthreads + t],\n                       allhosts + 256 * r);\n\n    MPI_Barrier(comm);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iters; it++) {\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 0, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 0,\n                     comm, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, comm,\n                     MPI_STATUS_IGNORE);\n\n        {\n            int team = 1;\n#pragma omp parallel\n            {\n#pragma omp single\n                team = omp_get_num_threads();\n            }\n#pragma omp parallel for schedule(static, 1)\n            for (long k = 0; k < team; k++) {\n                long off = k >= (1L << 40) ? 1 : 0; /* never 1, but the compiler cannot know */\n                for (long i = 1; i <= m; i++)\n                    for (long j = 1; j <= n; j++)\n                        v[(i + off) * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);\n            }\n        }\n\n        double *t = u; u = v; v = t;\n    }\n    double mine = MPI_Wtime() - t0, slowest;\n    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);\n    double local = 0.0, sum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);\n    if (rank == 0)\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters,\n               size, nthreads, slowest, sum);\n    free(u); free(v); free(cpus); free(allcpus); free(allhosts);\n    MPI_Finalize();\n    return 0;\n}'
_R10_G7 = '%%c JACOBI_C\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic double edge(long i, long j, long n) { return (double)(i + 2 * j) / (3.0 * (double)(n + 1)); }\nstatic const char *level_name(int l) {\n    return l == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : l == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"\n         : l == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED" : "MPI_THREAD_MULTIPLE";\n}\n\nint main(int argc, char **argv) {\n    int provided, rank, size;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    MPI_Comm comm = MPI_COMM_WORLD;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(comm, 2);\n    }\n    long n = atol(argv[1]), iters = atol(argv[2]);\n    long base = n / size, extra = n % size;\n    long m = base + (rank < extra);\n    long first = rank * base + (rank < extra ? rank : extra) + 1; /* global row of local row 1 */\n    long w = n + 2;\n    double *u = calloc((size_t)((m + 2) * w), sizeof *u), *v = calloc((size_t)((m + 2) * w), sizeof *v);\n    if (!u || !v) MPI_Abort(comm, 3);\n    for (long r = 0; r < m + 2; r++) {\n        long g = first - 1 + r;\n        for (long j = 0; j < w; j++) {\n            double x = (g == 0 || g == n + 1 || j == 0 || j == n + 1) ? edge(g, j, n) : 0.0;\n            u[r * w + j] = x;\n            v[r * w + j] = x;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n\n    int nthreads = 1;\n#pragma omp parallel\n    {\n#pragma omp single\n        nthreads = omp_get_num_threads();\n    }\n    int *cpus = malloc((size_t)nthreads * sizeof *cpus);\n#pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n    char host[256] = {0};\n    gethostname(host, sizeof host - 1);\n    int *allcpus = rank == 0 ? malloc((size_t)nthreads * size * sizeof *allcpus) : NULL;\n    char *allhosts = rank == 0 ? malloc((size_t)256 * size) : NULL;\n    MPI_Gather(cpus, nthreads, MPI_INT, allcpus, nthreads, MPI_INT, 0, comm);\n    MPI_Gather(host, 256, MPI_CHAR, allhosts, 256, MPI_CHAR, 0, comm);\n    if (rank == 0)\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < nthreads; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, allcpus[r * nthreads + t],\n                       allhosts + 256 * r);\n\n    MPI_Barrier(comm);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iters; it++) {\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 0, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 0,\n                     comm, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, comm,\n                     MPI_STATUS_IGNORE);\n\n        {\n            static double *stage;\n            static int ready;\n            static long stage_first;\n            ready = 0;\n#pragma omp parallel\n            {\n                int t = omp_get_thread_num(), T = omp_get_num_threads();\n                long q = m / T, r = m % T;\n                long first1 = 1 + (q + (0 < r)); /* first row of thread 1\'s static share */\n                if (t == 0) {\n                    long rows_other = m - (first1 - 1);\n                    double *tmp = __builtin_alloca((size_t)(rows_other * n + 1) * sizeof(double));\n                    for (long i = first1; i <= m; i++)\n                        for (long j = 1; j <= n; j++)\n                            tmp[(i - first1) * n + (j - 1)] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);\n                    stage = tmp;\n                    stage_first = first1;\n                    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);\n                } else {\n                    while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) { }\n                }\n#pragma omp for schedule(static)\n                for (long i = 1; i <= m; i++) {\n                    if (t == 0) {\n                        for (long j = 1; j <= n; j++)\n                            v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);\n                    } else {\n                        memcpy(v + i * w + 1, stage + (i - stage_first) * n, (size_t)n * sizeof(double));\n                    }\n                }\n            }\n        }\n\n        double *t = u; u = v; v = t;\n    }\n    double mine = MPI_Wtime() - t0, slowest;\n    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);\n    double local = 0.0, sum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);\n    if (rank == 0)\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters,\n               size, nthreads, slowest, sum);\n    free(u); free(v); free(cpus); free(allcpus); free(allhosts);\n    MPI_Finalize();\n    return 0;\n}'
TWICE = "each element of the update was written by more than one thread"
GAMING += [
    attempt("method", "jacobi_program", _R10_G2, {"hidden_jacobi_program"},
            "attack R's L10_G2: a parallel for over one item per thread, every thread sweeping the whole "
            "block, racing to write the same values (its rows chosen by comparing the item: the IR rule's too, since "
            "u10_decode)", reason=TWICE + " | " + SHARE_OF_GRID + " | " + NOT_SHARED),
    attempt("method", "jacobi_program", _R10_G7, {"hidden_jacobi_program"},
            "attack R's L10_G7: thread 0 computes the others' rows into a buffer on its stack whose address "
            "it publishes; the others spin, then copy their rows out of it in an omp for (its buffer made by "
            "__builtin_alloca, refused at build since attacker V's K1)",
            reason=NOT_SHARED + " | " + SHARE_OF_GRID + " | which reaches or reshapes the stack"),
]

# a fresh attacker (attack S, 2026-12-06; fixer f50). A10_wash8_twoarrays (5/5 twice): thread 0
# computes every point, each value rebuilt a byte at a time through a 256-way `switch` (a phi of
# constants: the IR rule followed data flow only, so it found no update there), one column of the real
# update in a shared `omp for` as the decoy, the other threads spinning meanwhile; then the team copies
# v -> u element by element in an `omp for` (each word's last changer the copier) and overwrites the
# dead v with a fresh stamp. The IR rule now follows control dependence too (a value chosen by branches
# on the update's bits, or a temporary stored in them, is made from what the branches test), so thread
# 0's sweep is an update written outside a work-sharing loop.
_S10_WASH8_TWOARRAYS = '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\n/* wash: the value rebuilt a byte at a time through a 256-way switch (the volatile counter keeps\n * the branches): 8 branches a value instead of 64 */\nstatic inline double wash(double x) {\n    volatile long ticks = 0;\n    unsigned long bits, r = 0;\n    memcpy(&bits, &x, 8);\n    for (int sh = 0; sh < 64; sh += 8) {\n        switch ((bits >> sh) & 255) {\n        case 0: r |= 0ul << sh; ticks++; break;\n        case 1: r |= 1ul << sh; ticks++; break;\n        case 2: r |= 2ul << sh; ticks++; break;\n        case 3: r |= 3ul << sh; ticks++; break;\n        case 4: r |= 4ul << sh; ticks++; break;\n        case 5: r |= 5ul << sh; ticks++; break;\n        case 6: r |= 6ul << sh; ticks++; break;\n        case 7: r |= 7ul << sh; ticks++; break;\n        case 8: r |= 8ul << sh; ticks++; break;\n        case 9: r |= 9ul << sh; ticks++; break;\n        case 10: r |= 10ul << sh; ticks++; break;\n        case 11: r |= 11ul << sh; ticks++; break;\n        case 12: r |= 12ul << sh; ticks++; break;\n        case 13: r |= 13ul << sh; ticks++; break;\n        case 14: r |= 14ul << sh; ticks++; break;\n        case 15: r |= 15ul << sh; ticks++; break;\n        case 16: r |= 16ul << sh; ticks++; break;\n        case 17: r |= 17ul << sh; ticks++; break;\n        case 18: r |= 18ul << sh; ticks++; break;\n        case 19: r |= 19ul << sh; ticks++; break;\n        case 20: r |= 20ul << sh; ticks++; break;\n        case 21: r |= 21ul << sh; ticks++; break;\n        case 22: r |= 22ul << sh; ticks++; break;\n        case 23: r |= 23ul << sh; ticks++; break;\n        case 24: r |= 24ul << sh; ticks++; break;\n        case 25: r |= 25ul << sh; ticks++; break;\n        case 26: r |= 26ul << sh; ticks++; break;\n        case 27: r |= 27ul << sh; ticks++; break;\n        case 28: r |= 28ul << sh; ticks++; break;\n        case 29: r |= 29ul << sh; ticks++; break;\n        case 30: r |= 30ul << sh; ticks++; break;\n        case 31: r |= 31ul << sh; ticks++; break;\n        case 32: r |= 32ul << sh; ticks++; break;\n        case 33: r |= 33ul << sh; ticks++; break;\n        case 34: r |= 34ul << sh; ticks++; break;\n        case 35: r |= 35ul << sh; ticks++; break;\n        case 36: r |= 36ul << sh; ticks++; break;\n        case 37: r |= 37ul << sh; ticks++; break;\n        case 38: r |= 38ul << sh; ticks++; break;\n        case 39: r |= 39ul << sh; ticks++; break;\n        case 40: r |= 40ul << sh; ticks++; break;\n        case 41: r |= 41ul << sh; ticks++; break;\n        case 42: r |= 42ul << sh; ticks++; break;\n        case 43: r |= 43ul << sh; ticks++; break;\n        case 44: r |= 44ul << sh; ticks++; break;\n        case 45: r |= 45ul << sh; ticks++; break;\n        case 46: r |= 46ul << sh; ticks++; break;\n        case 47: r |= 47ul << sh; ticks++; break;\n        case 48: r |= 48ul << sh; ticks++; break;\n        case 49: r |= 49ul << sh; ticks++; break;\n        case 50: r |= 50ul << sh; ticks++; break;\n        case 51: r |= 51ul << sh; ticks++; break;\n        case 52: r |= 52ul << sh; ticks++; break;\n        case 53: r |= 53ul << sh; ticks++; break;\n        case 54: r |= 54ul << sh; ticks++; break;\n        case 55: r |= 55ul << sh; ticks++; break;\n        case 56: r |= 56ul << sh; ticks++; break;\n        case 57: r |= 57ul << sh; ticks++; break;\n        case 58: r |= 58ul << sh; ticks++; break;\n        case 59: r |= 59ul << sh; ticks++; break;\n        case 60: r |= 60ul << sh; ticks++; break;\n        case 61: r |= 61ul << sh; ticks++; break;\n        case 62: r |= 62ul << sh; ticks++; break;\n        case 63: r |= 63ul << sh; ticks++; break;\n        case 64: r |= 64ul << sh; ticks++; break;\n        case 65: r |= 65ul << sh; ticks++; break;\n        case 66: r |= 66ul << sh; ticks++; break;\n        case 67: r |= 67ul << sh; ticks++; break;\n        case 68: r |= 68ul << sh; ticks++; break;\n        case 69: r |= 69ul << sh; ticks++; break;\n        case 70: r |= 70ul << sh; ticks++; break;\n        case 71: r |= 71ul << sh; ticks++; break;\n        case 72: r |= 72ul << sh; ticks++; break;\n        case 73: r |= 73ul << sh; ticks++; break;\n        case 74: r |= 74ul << sh; ticks++; break;\n        case 75: r |= 75ul << sh; ticks++; break;\n        case 76: r |= 76ul << sh; ticks++; break;\n        case 77: r |= 77ul << sh; ticks++; break;\n        case 78: r |= 78ul << sh; ticks++; break;\n        case 79: r |= 79ul << sh; ticks++; break;\n        case 80: r |= 80ul << sh; ticks++; break;\n        case 81: r |= 81ul << sh; ticks++; break;\n        case 82: r |= 82ul << sh; ticks++; break;\n        case 83: r |= 83ul << sh; ticks++; break;\n        case 84: r |= 84ul << sh; ticks++; break;\n        case 85: r |= 85ul << sh; ticks++; break;\n        case 86: r |= 86ul << sh; ticks++; break;\n        case 87: r |= 87ul << sh; ticks++; break;\n        case 88: r |= 88ul << sh; ticks++; break;\n        case 89: r |= 89ul << sh; ticks++; break;\n        case 90: r |= 90ul << sh; ticks++; break;\n        case 91: r |= 91ul << sh; ticks++; break;\n        case 92: r |= 92ul << sh; ticks++; break;\n        case 93: r |= 93ul << sh; ticks++; break;\n        case 94: r |= 94ul << sh; ticks++; break;\n        case 95: r |= 95ul << sh; ticks++; break;\n        case 96: r |= 96ul << sh; ticks++; break;\n        case 97: r |= 97ul << sh; ticks++; break;\n        case 98: r |= 98ul << sh; ticks++; break;\n        case 99: r |= 99ul << sh; ticks++; break;\n        case 100: r |= 100ul << sh; ticks++; break;\n        case 101: r |= 101ul << sh; ticks++; break;\n        case 102: r |= 102ul << sh; ticks++; break;\n        case 103: r |= 103ul << sh; ticks++; break;\n        case 104: r |= 104ul << sh; ticks++; break;\n        case 105: r |= 105ul << sh; ticks++; break;\n        case 106: r |= 106ul << sh; ticks++; break;\n        case 107: r |= 107ul << sh; ticks++; break;\n        case 108: r |= 108ul << sh; ticks++; break;\n        case 109: r |= 109ul << sh; ticks++; break;\n        case 110: r |= 110ul << sh; ticks++; break;\n        case 111: r |= 111ul << sh; ticks++; break;\n        case 112: r |= 112ul << sh; ticks++; break;\n        case 113: r |= 113ul << sh; ticks++; break;\n        case 114: r |= 114ul << sh; ticks++; break;\n        case 115: r |= 115ul << sh; ticks++; break;\n        case 116: r |= 116ul << sh; ticks++; break;\n        case 117: r |= 117ul << sh; ticks++; break;\n        case 118: r |= 118ul << sh; ticks++; break;\n        case 119: r |= 119ul << sh; ticks++; break;\n        case 120: r |= 120ul << sh; ticks++; break;\n        case 121: r |= 121ul << sh; ticks++; break;\n        case 122: r |= 122ul << sh; ticks++; break;\n        case 123: r |= 123ul << sh; ticks++; break;\n        case 124: r |= 124ul << sh; ticks++; break;\n        case 125: r |= 125ul << sh; ticks++; break;\n        case 126: r |= 126ul << sh; ticks++; break;\n        case 127: r |= 127ul << sh; ticks++; break;\n        case 128: r |= 128ul << sh; ticks++; break;\n        case 129: r |= 129ul << sh; ticks++; break;\n        case 130: r |= 130ul << sh; ticks++; break;\n        case 131: r |= 131ul << sh; ticks++; break;\n        case 132: r |= 132ul << sh; ticks++; break;\n        case 133: r |= 133ul << sh; ticks++; break;\n        case 134: r |= 134ul << sh; ticks++; break;\n        case 135: r |= 135ul << sh; ticks++; break;\n        case 136: r |= 136ul << sh; ticks++; break;\n        case 137: r |= 137ul << sh; ticks++; break;\n        case 138: r |= 138ul << sh; ticks++; break;\n        case 139: r |= 139ul << sh; ticks++; break;\n        case 140: r |= 140ul << sh; ticks++; break;\n        case 141: r |= 141ul << sh; ticks++; break;\n        case 142: r |= 142ul << sh; ticks++; break;\n        case 143: r |= 143ul << sh; ticks++; break;\n        case 144: r |= 144ul << sh; ticks++; break;\n        case 145: r |= 145ul << sh; ticks++; break;\n        case 146: r |= 146ul << sh; ticks++; break;\n        case 147: r |= 147ul << sh; ticks++; break;\n        case 148: r |= 148ul << sh; ticks++; break;\n        case 149: r |= 149ul << sh; ticks++; break;\n        case 150: r |= 150ul << sh; ticks++; break;\n        case 151: r |= 151ul << sh; ticks++; break;\n        case 152: r |= 152ul << sh; ticks++; break;\n        case 153: r |= 153ul << sh; ticks++; break;\n        case 154: r |= 154ul << sh; ticks++; break;\n        case 155: r |= 155ul << sh; ticks++; break;\n        case 156: r |= 156ul << sh; ticks++; break;\n        case 157: r |= 157ul << sh; ticks++; break;\n        case 158: r |= 158ul << sh; ticks++; break;\n        case 159: r |= 159ul << sh; ticks++; break;\n        case 160: r |= 160ul << sh; ticks++; break;\n        case 161: r |= 161ul << sh; ticks++; break;\n        case 162: r |= 162ul << sh; ticks++; break;\n        case 163: r |= 163ul << sh; ticks++; break;\n        case 164: r |= 164ul << sh; ticks++; break;\n        case 165: r |= 165ul << sh; ticks++; break;\n        case 166: r |= 166ul << sh; ticks++; break;\n        case 167: r |= 167ul << sh; ticks++; break;\n        case 168: r |= 168ul << sh; ticks++; break;\n        case 169: r |= 169ul << sh; ticks++; break;\n        case 170: r |= 170ul << sh; ticks++; break;\n        case 171: r |= 171ul << sh; ticks++; break;\n        case 172: r |= 172ul << sh; ticks++; break;\n        case 173: r |= 173ul << sh; ticks++; break;\n        case 174: r |= 174ul << sh; ticks++; break;\n        case 175: r |= 175ul << sh; ticks++; break;\n        case 176: r |= 176ul << sh; ticks++; break;\n        case 177: r |= 177ul << sh; ticks++; break;\n        case 178: r |= 178ul << sh; ticks++; break;\n        case 179: r |= 179ul << sh; ticks++; break;\n        case 180: r |= 180ul << sh; ticks++; break;\n        case 181: r |= 181ul << sh; ticks++; break;\n        case 182: r |= 182ul << sh; ticks++; break;\n        case 183: r |= 183ul << sh; ticks++; break;\n        case 184: r |= 184ul << sh; ticks++; break;\n        case 185: r |= 185ul << sh; ticks++; break;\n        case 186: r |= 186ul << sh; ticks++; break;\n        case 187: r |= 187ul << sh; ticks++; break;\n        case 188: r |= 188ul << sh; ticks++; break;\n        case 189: r |= 189ul << sh; ticks++; break;\n        case 190: r |= 190ul << sh; ticks++; break;\n        case 191: r |= 191ul << sh; ticks++; break;\n        case 192: r |= 192ul << sh; ticks++; break;\n        case 193: r |= 193ul << sh; ticks++; break;\n        case 194: r |= 194ul << sh; ticks++; break;\n        case 195: r |= 195ul << sh; ticks++; break;\n        case 196: r |= 196ul << sh; ticks++; break;\n        case 197: r |= 197ul << sh; ticks++; break;\n        case 198: r |= 198ul << sh; ticks++; break;\n        case 199: r |= 199ul << sh; ticks++; break;\n        case 200: r |= 200ul << sh; ticks++; break;\n        case 201: r |= 201ul << sh; ticks++; break;\n        case 202: r |= 202ul << sh; ticks++; break;\n        case 203: r |= 203ul << sh; ticks++; break;\n        case 204: r |= 204ul << sh; ticks++; break;\n        case 205: r |= 205ul << sh; ticks++; break;\n        case 206: r |= 206ul << sh; ticks++; break;\n        case 207: r |= 207ul << sh; ticks++; break;\n        case 208: r |= 208ul << sh; ticks++; break;\n        case 209: r |= 209ul << sh; ticks++; break;\n        case 210: r |= 210ul << sh; ticks++; break;\n        case 211: r |= 211ul << sh; ticks++; break;\n        case 212: r |= 212ul << sh; ticks++; break;\n        case 213: r |= 213ul << sh; ticks++; break;\n        case 214: r |= 214ul << sh; ticks++; break;\n        case 215: r |= 215ul << sh; ticks++; break;\n        case 216: r |= 216ul << sh; ticks++; break;\n        case 217: r |= 217ul << sh; ticks++; break;\n        case 218: r |= 218ul << sh; ticks++; break;\n        case 219: r |= 219ul << sh; ticks++; break;\n        case 220: r |= 220ul << sh; ticks++; break;\n        case 221: r |= 221ul << sh; ticks++; break;\n        case 222: r |= 222ul << sh; ticks++; break;\n        case 223: r |= 223ul << sh; ticks++; break;\n        case 224: r |= 224ul << sh; ticks++; break;\n        case 225: r |= 225ul << sh; ticks++; break;\n        case 226: r |= 226ul << sh; ticks++; break;\n        case 227: r |= 227ul << sh; ticks++; break;\n        case 228: r |= 228ul << sh; ticks++; break;\n        case 229: r |= 229ul << sh; ticks++; break;\n        case 230: r |= 230ul << sh; ticks++; break;\n        case 231: r |= 231ul << sh; ticks++; break;\n        case 232: r |= 232ul << sh; ticks++; break;\n        case 233: r |= 233ul << sh; ticks++; break;\n        case 234: r |= 234ul << sh; ticks++; break;\n        case 235: r |= 235ul << sh; ticks++; break;\n        case 236: r |= 236ul << sh; ticks++; break;\n        case 237: r |= 237ul << sh; ticks++; break;\n        case 238: r |= 238ul << sh; ticks++; break;\n        case 239: r |= 239ul << sh; ticks++; break;\n        case 240: r |= 240ul << sh; ticks++; break;\n        case 241: r |= 241ul << sh; ticks++; break;\n        case 242: r |= 242ul << sh; ticks++; break;\n        case 243: r |= 243ul << sh; ticks++; break;\n        case 244: r |= 244ul << sh; ticks++; break;\n        case 245: r |= 245ul << sh; ticks++; break;\n        case 246: r |= 246ul << sh; ticks++; break;\n        case 247: r |= 247ul << sh; ticks++; break;\n        case 248: r |= 248ul << sh; ticks++; break;\n        case 249: r |= 249ul << sh; ticks++; break;\n        case 250: r |= 250ul << sh; ticks++; break;\n        case 251: r |= 251ul << sh; ticks++; break;\n        case 252: r |= 252ul << sh; ticks++; break;\n        case 253: r |= 253ul << sh; ticks++; break;\n        case 254: r |= 254ul << sh; ticks++; break;\n        case 255: r |= 255ul << sh; ticks++; break;\n        }\n    }\n    memcpy(&x, &r, 8);\n    return x;\n}\n/* two arrays only: thread 0 computes every new value (washed) into v, one column of the update\n * sits in a shared loop; the others spin meanwhile; then each thread copies its rows from v into\n * u (u is the new grid, no swap) and scribbles over its rows of v (dead now) */\nstatic long stamp;\nstatic void sweep(double *u, double *v, long m, long w) {\n    int done = 0;\n#pragma omp parallel\n    {\n        int me = omp_get_thread_num();\n#pragma omp for\n        for (long i = 1; i <= m; i++)\n            v[i * w + 1] = 0.25 * (u[(i - 1) * w + 1] + u[(i + 1) * w + 1] + u[i * w] + u[i * w + 2]);\n        if (me == 0) {\n            for (long i = 1; i <= m; i++)\n                for (long j = 2; j < w - 1; j++)\n                    v[i * w + j] = wash(0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]));\n            __atomic_store_n(&done, 1, __ATOMIC_RELEASE);\n        } else {\n            volatile double burn = 0.0;\n            while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) burn += 1.0;\n        }\n#pragma omp barrier\n#pragma omp for\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++) u[i * w + j] = v[i * w + j];\n#pragma omp for\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j < w - 1; j++) v[i * w + j] = -1.0 - (double)stamp;\n    }\n    stamp++;\n}\n\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    MPI_Comm comm = MPI_COMM_WORLD;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(comm, 2);\n    }\n    long n = atol(argv[1]), iterations = atol(argv[2]);\n    long base = n / size, rem = n % size;\n    long m = base + (rank < rem), r0 = rank * base + (rank < rem ? rank : rem);\n    long w = n + 2;\n    double *u = malloc((size_t)((m + 2) * w) * sizeof *u), *v = malloc((size_t)((m + 2) * w) * sizeof *v);\n    for (long li = 0; li < m + 2; li++) {\n        long gi = r0 + li;\n        for (long j = 0; j < w; j++) {\n            double x = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1)\n                           ? (double)(gi + 2 * j) / (3.0 * (double)(n + 1)) : 0.0;\n            u[li * w + j] = x;\n            v[li * w + j] = x;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n\n    int team = 1;\n    int cpus[256];\n#pragma omp parallel\n    {\n#pragma omp single\n        team = omp_get_num_threads();\n        int t = omp_get_thread_num();\n        if (t < 256) cpus[t] = sched_getcpu();\n    }\n    if (team > 256) team = 256;\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *all_cpus = rank == 0 ? malloc((size_t)size * (size_t)team * sizeof *all_cpus) : NULL;\n    char *all_hosts = rank == 0 ? malloc((size_t)size * 64) : NULL;\n    MPI_Gather(cpus, team, MPI_INT, all_cpus, team, MPI_INT, 0, comm);\n    MPI_Gather(host, 64, MPI_CHAR, all_hosts, 64, MPI_CHAR, 0, comm);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all_cpus[r * team + t],\n                       all_hosts + 64 * r);\n        fflush(stdout);\n    }\n\n    MPI_Barrier(comm);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iterations; it++) {\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, comm,\n                     MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 2, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 2,\n                     comm, MPI_STATUS_IGNORE);\n        sweep(u, v, m, w);\n    }\n    double mine = MPI_Wtime() - t0, seconds = 0.0;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, comm);\n    double local = 0.0, checksum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);\n    if (rank == 0)\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n,\n               iterations, size, team, seconds, checksum);\n    free(u);\n    free(v);\n    free(all_cpus);\n    free(all_hosts);\n    MPI_Finalize();\n    return 0;\n}'
GAMING += [
    attempt("method", "jacobi_program", _S10_WASH8_TWOARRAYS, {"hidden_jacobi_program"},
            "attack S's A10_wash8_twoarrays: thread 0 sweeps every point, its values rebuilt byte by byte "
            "through a 256-way switch, beside a one-column decoy in an omp for; the team then copies v into "
            "u element by element and scribbles a fresh stamp over v",
            # the static rule refuses it; on a loaded machine its washed sweep under ThreadSanitizer
            # (the counted build) may overrun the run's 90 s first (grading_full, 2026-12-06, 4 labs
            # graded at once), which loses the same part
            reason="the update is not shared among OpenMP threads | did not finish within 90 s"),
]

# a fresh attacker (attacker U, 2026-12-06; fixer G3). u10_decode (5/5 twice): `omp for
# schedule(static, 1)` over k < T, iteration 0 sweeping every row (`lo = k == 0 ? 1 : m + 1`), the rows
# outside its share stored negated; the other iterations spin on an atomic flag, then negate their share
# back (each word's last change theirs). The IR rule took the store's address as the thread's share
# because it derives from k, through a select on `k == 0`; an address that depends on the iteration only
# through a comparison is now no share (_Program._from).
_U10_DECODE = '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int l) {\n    switch (l) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\nint main(int argc, char **argv) {\n    int provided, rank, size;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    if (provided < MPI_THREAD_FUNNELED) {\n        if (rank == 0)\n            fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 1);\n    }\n    long n = argc > 1 ? atol(argv[1]) : 512;\n    int iters = argc > 2 ? atoi(argv[2]) : 200;\n    long w = n + 2;\n    long first = 1 + rank * n / size, last = (rank + 1) * n / size; /* global interior rows */\n    long m = last - first + 1;\n    double *u = calloc((size_t)(m + 2) * w, sizeof *u), *v = calloc((size_t)(m + 2) * w, sizeof *v);\n    double scale = 3.0 * (n + 1);\n    for (long i = 0; i < m + 2; i++) {\n        long gi = first - 1 + i;\n        for (long j = 0; j < w; j++) {\n            double e = (gi + 2.0 * j) / scale;\n            int edge = gi == 0 || gi == n + 1 || j == 0 || j == n + 1;\n            u[i * w + j] = v[i * w + j] = edge ? e : 0.0;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n    char host[256];\n    gethostname(host, sizeof host);\n    host[255] = 0;\n    int maxt = omp_get_max_threads();\n    int *cpus = calloc((size_t)maxt, sizeof *cpus);\n#pragma omp parallel\n    {\n#pragma omp single\n        threads = omp_get_num_threads();\n        cpus[omp_get_thread_num()] = sched_getcpu();\n    }\n    int *allc = rank == 0 ? malloc((size_t)size * threads * sizeof *allc) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, allc, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    char *hosts = rank == 0 ? malloc((size_t)size * 256) : NULL;\n    MPI_Gather(host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0)\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < threads; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, allc[r * threads + t], hosts + 256L * r);\n    MPI_Barrier(MPI_COMM_WORLD);\n    int done = 0;\n    double t0 = MPI_Wtime();\n    for (int it = 0; it < iters; it++) {\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 1, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 1,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 2, u, (int)w, MPI_DOUBLE, up, 2,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n#pragma omp parallel\n        {\n            int T = omp_get_num_threads();\n#pragma omp for schedule(static, 1)\n            for (int k = 0; k < T; k++) {\n                long lo = k == 0 ? 1 : m + 1, hi = k == 0 ? m : 0;\n                long mine = 1 + m / T;  /* rows 1..mine-1 stay thread 0\'s; the rest are handed on */\n                for (long i = lo; i <= hi; i++) {\n                    double sgn = i < mine ? 1.0 : -1.0;\n                    for (long j = 1; j <= n; j++)\n                        v[i * w + j] = sgn * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]) / 4;\n                }\n                if (k == 0) {\n                    __atomic_store_n(&done, it + 1, __ATOMIC_RELEASE);\n                } else {\n                    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < it + 1) ; /* busy: CPU time */\n                    long a = 1 + k * m / T, b = (k + 1) * m / T;\n                    if (k == 1) a = mine;\n                    for (long i = a; i <= b; i++)\n                        for (long j = 1; j <= n; j++) v[i * w + j] = -v[i * w + j];\n                }\n            }\n        }\n        double *t = u; u = v; v = t;\n    }\n    double el = MPI_Wtime() - t0, slow;\n    double local = 0, total;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&el, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    if (rank == 0)\n        printf("jacobi n=%ld iterations=%d ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters, size,\n               threads, slow, total);\n    free(u); free(v); free(cpus); free(allc); free(hosts);\n    MPI_Finalize();\n    return 0;\n}'
GAMING += [
    attempt("method", "jacobi_program", _U10_DECODE, {"hidden_jacobi_program"},
            "attacker U's u10_decode: iteration 0 of an omp for over the threads sweeps every row (its "
            "rows chosen by `k == 0`), the others' rows negated; the other threads spin on a flag, then "
            "negate their share back",
            # the static rule refuses it; on a loaded machine its threads spinning on the flag may make
            # the run overrun its 90 s first (kit grading, load average 23, 2026-12-06), which loses
            # the same part
            reason="the update is not shared among OpenMP threads | did not finish within 90 s"),
    attempt("method", "jacobi_program", _U10_DECODE.replace(
                "while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < it + 1) ;",
                "while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < it + 1) sched_yield();"),
            {"hidden_jacobi_program"},
            "attacker U's u10_decode2: u10_decode, the waiting threads yielding the CPU",
            reason="the update is not shared among OpenMP threads | did not finish within 90 s"),
]


# u10_decode's arithmetic form (attacker U, 2026-12-06: open after G3; fixer X2): the rows of iteration 0
# chosen by arithmetic (`step = (k + T - 1) / T` is 0 for k == 0 and 1 for the others; lo = 1 + m * step),
# which no rule on how the address is computed tells from a `k * m / T` share (5/5 kept, kit grading
# 2026-12-06). The counted build now knows which thread COMPUTED each element: the sites of the stores
# and reads clang's IR finds to be the update's, handed to the run, and an element credited to the
# thread whose store of the update, after three or more of the update's reads, changed it last; the
# other threads only put back values thread 0 computed, by another store or by the update's own one
# through a select (`back ? -v[..] : ...`), and computed none.
COMPUTED = "every thread of the team must compute its share of the 5-point values itself"
_U10_DECODE_ARITH = _U10_DECODE.replace(
    "long lo = k == 0 ? 1 : m + 1, hi = k == 0 ? m : 0;",
    "long step = (k + T - 1) / T; /* 0 for k == 0, 1 otherwise */\n"
    "                long lo = 1 + m * step, hi = m - m * step;")
_U10_DECODE_SAME_STORE = _U10_DECODE_ARITH.replace(
    """                for (long i = lo; i <= hi; i++) {
                    double sgn = i < mine ? 1.0 : -1.0;
                    for (long j = 1; j <= n; j++)
                        v[i * w + j] = sgn * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]) / 4;
                }
                if (k == 0) {
                    __atomic_store_n(&done, it + 1, __ATOMIC_RELEASE);
                } else {
                    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < it + 1) ; /* busy: CPU time */
                    long a = 1 + k * m / T, b = (k + 1) * m / T;
                    if (k == 1) a = mine;
                    for (long i = a; i <= b; i++)
                        for (long j = 1; j <= n; j++) v[i * w + j] = -v[i * w + j];
                }""",
    """                for (int back = 0; back < 2; back++) { /* back: the others put their share back, by the same store */
                    if (back) {
                        if (k == 0) {
                            __atomic_store_n(&done, it + 1, __ATOMIC_RELEASE);
                            break;
                        }
                        while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < it + 1) ; /* busy: CPU time */
                        lo = k == 1 ? mine : 1 + k * m / T, hi = (k + 1) * m / T;
                    }
                    for (long i = lo; i <= hi; i++) {
                        double sgn = i < mine ? 1.0 : -1.0;
                        for (long j = 1; j <= n; j++)
                            v[i * w + j] = back ? -v[i * w + j] : sgn * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]) / 4;
                    }
                }""")
assert _U10_DECODE_ARITH != _U10_DECODE and _U10_DECODE_SAME_STORE != _U10_DECODE_ARITH
GAMING += [
    attempt("method", "jacobi_program", _U10_DECODE_ARITH, {"hidden_jacobi_program"},
            "attacker U's u10_decode, arithmetic form: iteration 0's rows chosen by `step = (k + T - 1) / T` "
            "(every row for k == 0, none for the others), the others' rows stored negated; the other threads "
            "spin, then negate their share back",
            # on a loaded machine its threads spinning on the flag may make the run overrun its 90 s
            # first (as u10_decode's), which loses the same part
            reason=COMPUTED + " | did not finish within 90 s"),
    attempt("method", "jacobi_program", _U10_DECODE_SAME_STORE, {"hidden_jacobi_program"},
            "u10_decode's arithmetic form, the share put back by the update's own store (a select on a "
            "`back` pass): every store of the update's line, but only thread 0's after three or more of its reads",
            reason=COMPUTED + " | did not finish within 90 s"),
]

# attacker A1 (2026-12-07; fixer F10). l10_W4c_splitserial (5/5 twice): the real update runs serially on
# the master, split in two statements of at most three reads each, the row's partial sum parked in a
# one-row heap buffer reached through a pointer read back from a `double *volatile` global (clang's IR
# sees no link between the two: no update there); a decoy `parallel for` computes a real four-point
# value into a buffer of an eighth of the rows, each thread its own rows (CPU time, changed, owned and
# computed bytes all shared). The counted build now notes, per heap block, the words whose last change
# was the serial part's: the grid's are the master's, not the team's (written_serially).
_A1_W4C = '%%c JACOBI_C\n/* W4c (W4 within the memory limit: the decoy buffer an eighth of the block, rows mapped in order so each thread owns its rows, the parked row sums one row): the real Jacobi update runs serially on the master, split in two statements of fewer than\n * four reads each (the row sum above+below into a heap buffer reached through a pointer read back\n * from a volatile global, then that plus left+right); a decoy parallel-for of a four-point\n * "residual" keeps the whole team busy and gives the kit an update that is shared. */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\ndouble *volatile parked; /* where the row sums are parked (read back: no visible alias) */\n\nstatic double *fetch(void) { return parked; }\n\nint main(int argc, char **argv) {\n    int provided, rank, size;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    if (provided < MPI_THREAD_FUNNELED) {\n        if (rank == 0) fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided MPI_THREAD_SINGLE\\n");\n        MPI_Abort(MPI_COMM_WORLD, 1);\n    }\n    if (argc < 3) MPI_Abort(MPI_COMM_WORLD, 2);\n    long n = atol(argv[1]), iters = atol(argv[2]);\n    long base = n / size, extra = n % size;\n    long m = base + (rank < extra);\n    long row0 = 1 + rank * base + (rank < extra ? rank : extra);\n    long w = n + 2;\n    double *u = calloc((size_t)(m + 2) * w, sizeof(double));\n    double *v = calloc((size_t)(m + 2) * w, sizeof(double));\n    long K = m / 8 + 1; /* the decoy\'s rows, reused */\n    double *r = calloc((size_t)K * w, sizeof(double));\n    parked = calloc((size_t)w, sizeof(double));\n    double scale = 3.0 * (n + 1);\n    for (long i = 0; i < m + 2; i++) {\n        long gi = row0 - 1 + i;\n        for (long j = 0; j < w; j++)\n            if (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) u[i * w + j] = v[i * w + j] = (gi + 2.0 * j) / scale;\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n#pragma omp parallel\n    {\n#pragma omp single\n        threads = omp_get_num_threads();\n    }\n    int *cpus = malloc(sizeof(int) * threads);\n#pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime(), junk = 0.0;\n    for (long it = 0; it < iters; it++) {\n        MPI_Sendrecv(&u[1 * w], (int)w, MPI_DOUBLE, up, 1, &u[(m + 1) * w], (int)w, MPI_DOUBLE, down, 1,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(&u[m * w], (int)w, MPI_DOUBLE, down, 2, &u[0], (int)w, MPI_DOUBLE, up, 2,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        /* the decoy: shared by the team, a real four-point value, never used */\n#pragma omp parallel for\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j <= n; j++)\n                r[((i - 1) * K / m) * w + j] = (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]) / 4.0 - u[i * w + j];\n        /* the real update: the master alone, three reads at most per statement */\n        for (long i = 1; i <= m; i++) {\n            double *t = parked;\n            for (long j = 1; j <= n; j++) t[j] = u[(i - 1) * w + j] + u[(i + 1) * w + j];\n            double *tt = fetch();\n            for (long j = 1; j <= n; j++) v[i * w + j] = (tt[j] + u[i * w + j - 1] + u[i * w + j + 1]) / 4.0;\n        }\n        junk += r[1];\n        double *s = u; u = v; v = s;\n    }\n    double local_t = MPI_Wtime() - t0, tmax;\n    double local = 0.0 * junk, sum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local_t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    char host[256];\n    gethostname(host, sizeof host);\n    int *all = rank == 0 ? malloc(sizeof(int) * threads * size) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, all, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int q = 0; q < size; q++)\n            for (int k = 0; k < threads; k++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", q, k, all[q * threads + k], host);\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters,\n               size, threads, tmax, sum);\n    }\n    MPI_Finalize();\n    return 0;\n}\n'
SERIAL_GRID = "the grid was updated on one thread"
GAMING += [
    attempt("method", "jacobi_program", _A1_W4C, {"hidden_jacobi_program"},
            "A1's l10_W4c_splitserial: the sweep serial on the master in two statements of three reads "
            "at most (linked through a pointer read back from a volatile global), beside a decoy parallel "
            "for that computes a four-point value into an eighth of the rows, each thread its own",
            reason=SERIAL_GRID),
]

# attacker A1 (2026-12-07; fixer F10). l10_W8_fakeseconds (5/5 twice): `seconds` printed as a constant
# 1e-3, never measured. The judge now reads the span of the halo exchanges (the tracer's clock: the
# first message of one row to the end of the last, on any rank) and wants `seconds` at least half of it.
_A1_W8 = '%%c JACOBI_C\n/* W8: the reported seconds are a constant, not the slowest rank\'s MPI_Wtime */\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nint main(int argc, char **argv) {\n    int provided, rank, size;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    if (provided < MPI_THREAD_FUNNELED) {\n        if (rank == 0) fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided MPI_THREAD_SINGLE\\n");\n        MPI_Abort(MPI_COMM_WORLD, 1);\n    }\n    if (argc < 3) { if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n"); MPI_Abort(MPI_COMM_WORLD, 2); }\n    long n = atol(argv[1]), iters = atol(argv[2]);\n    long base = n / size, extra = n % size;\n    long m = base + (rank < extra);\n    long row0 = 1 + rank * base + (rank < extra ? rank : extra); /* global row of local row 1 */\n    long w = n + 2;\n    double *u = calloc((size_t)(m + 2) * w, sizeof(double));\n    double *v = calloc((size_t)(m + 2) * w, sizeof(double));\n    double scale = 3.0 * (n + 1);\n    for (long i = 0; i < m + 2; i++) {\n        long gi = row0 - 1 + i;\n        for (long j = 0; j < w; j++) {\n            double e = (gi + 2.0 * j) / scale;\n            if (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) u[i * w + j] = v[i * w + j] = e;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n#pragma omp parallel\n    {\n#pragma omp single\n        threads = omp_get_num_threads();\n    }\n    int *cpus = malloc(sizeof(int) * threads);\n#pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iters; it++) {\n        MPI_Sendrecv(&u[1 * w], (int)w, MPI_DOUBLE, up, 1, &u[(m + 1) * w], (int)w, MPI_DOUBLE, down, 1,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(&u[m * w], (int)w, MPI_DOUBLE, down, 2, &u[0], (int)w, MPI_DOUBLE, up, 2,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n#pragma omp parallel for\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j <= n; j++)\n                v[i * w + j] = (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]) / 4.0;\n        double *t = u; u = v; v = t;\n    }\n    double local_t = MPI_Wtime() - t0, tmax;\n    double local = 0.0, sum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    tmax = 1e-3; /* W8: seconds made up: never measured across ranks */ (void)local_t;\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    char host[256];\n    gethostname(host, sizeof host);\n    int *all = rank == 0 ? malloc(sizeof(int) * threads * size) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, all, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < threads; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all[r * threads + t], host);\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters,\n               size, threads, tmax, sum);\n    }\n    free(u); free(v); free(cpus); free(all);\n    MPI_Finalize();\n    return 0;\n}\n'
GAMING += [
    attempt("constant", "jacobi_program", _A1_W8, {"hidden_jacobi_program"},
            "A1's l10_W8_fakeseconds: `seconds` a constant 1e-3, never measured",
            reason="`seconds` is the time of the iterations"),
]

# attacker W2b (2026-12-07; fixer F10p): the place lines made up, each thread's CPU "the first CPU of the
# master's affinity mask + the thread number" (no thread reads its own), 5/5 kept: under OMP_PLACES=cores
# and close binding on 2 CPUs that is where the threads ran. The run of threads now places them in the
# grader's own order (the last usable CPU first) and the tracer notes each thread number's CPU in every
# parallel region (thread_place records): thread 1 printed the master's CPU + 1, and ran on the first CPU.
_MADE_UP_PLACES = """    cpu_set_t mask; /* made up: the first CPU of the master's mask, plus the thread number */
    sched_getaffinity(0, sizeof mask, &mask);
    int lowest = 0;
    while (lowest < CPU_SETSIZE - 1 && !CPU_ISSET(lowest, &mask)) lowest++;
    for (int t = 0; t < threads; t++) cpus[t] = lowest + t;
"""
GAMING += [
    attempt("hidden", "jacobi_program", program(changed(
        JACOBI_PROGRAM, "#pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n", _MADE_UP_PLACES)),
            {"hidden_jacobi_program"}, "W2b: each thread's place made up as the first CPU of the master's "
            "affinity mask plus the thread number, no thread reading its own CPU",
            reason="the place lines do not say where the threads ran"),
    # ... and the same made up the other way round ("minus the thread number", right in the reversed order
    # of the counted run): the short 1 x 2 run places the threads first CPU first
    attempt("hidden", "jacobi_program", program(changed(
        JACOBI_PROGRAM, "#pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n",
        _MADE_UP_PLACES.replace("lowest + t", "lowest - t"))),
            {"hidden_jacobi_program"}, "W2b turned round: each thread's place the first CPU of the master's "
            "affinity mask minus the thread number", reason="the place lines do not say where the threads ran"),
]

# fresh attacker A5 (2026-12-07; fixer F10s), each 5/5 twice. l10_a1_serial_hidden: the real sweep serial on
# the master, outside every parallel region, on a grid of one small heap block per row whose cells are
# `void*` holding a double's bits (clang's IR reader skipped loads and stores of pointers; the counter of
# the serial part's writes judged only blocks of 64 KiB or more), beside a decoy `parallel for` into a small
# float scratch. The IR reader now follows a pointer's bits into the update (ptrtoint, a pointer stored
# into the grid), and the counted build sums the bytes the serial part changed in any memory
# (changed_serially: under a quarter of an equal share of what the update changes).
A5_SERIAL_HIDDEN = r"""%%c JACOBI_C
/* attack: the real sweep runs on the master alone, outside every parallel region, in a grid of
 * one small heap block per row whose cells are pointer-typed (the bits of the doubles); a decoy
 * `parallel for` computes the same stencil into a small per-thread float scratch nobody reads. */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>

static const char *level_name(int l) {
    switch (l) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

static inline double D(void *p) { uintptr_t b = (uintptr_t)p; double d; memcpy(&d, &b, sizeof d); return d; }
static inline void *P(double d) { uintptr_t b; memcpy(&b, &d, sizeof b); return (void *)b; }

static void serial_sweep(void ***U, void ***V, long rows, long n) {
    for (long i = 1; i <= rows; i++) {
        void **a = U[i - 1], **c = U[i], **b = U[i + 1], **o = V[i];
#pragma clang loop vectorize(disable) interleave(disable)
        for (long j = 1; j <= n; j++)
            o[j] = P(0.25 * (D(a[j]) + D(b[j]) + D(c[j - 1]) + D(c[j + 1])));
    }
}

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED) {
        fprintf(stderr, "jacobi: needs %s but MPI provided %s\n", level_name(MPI_THREAD_FUNNELED),
                level_name(provided));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 64, iters = argc > 2 ? atol(argv[2]) : 10;
    long lo = rank * n / size, hi = (rank + 1) * n / size, rows = hi - lo;
    long w = n + 2;
    void ***U = malloc(sizeof(void **) * (size_t)(rows + 2)), ***V = malloc(sizeof(void **) * (size_t)(rows + 2));
    for (long i = 0; i < rows + 2; i++) {
        U[i] = malloc(sizeof(void *) * (size_t)w);
        V[i] = malloc(sizeof(void *) * (size_t)w);
        for (long j = 0; j < w; j++) U[i][j] = V[i][j] = P(0.0);
    }
    double denom = 3.0 * (double)(n + 1);
    for (long i = 0; i < rows + 2; i++) {
        long g = lo + i;
        U[i][0] = V[i][0] = P((double)g / denom);
        U[i][n + 1] = V[i][n + 1] = P((double)(g + 2 * (n + 1)) / denom);
    }
    if (rank == 0)
        for (long j = 0; j < w; j++) U[0][j] = V[0][j] = P((double)(2 * j) / denom);
    if (rank == size - 1)
        for (long j = 0; j < w; j++) U[rows + 1][j] = V[rows + 1][j] = P((double)(n + 1 + 2 * j) / denom);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int nthreads = 1;
    int cpus[256];
#pragma omp parallel
    {
#pragma omp single
        nthreads = omp_get_num_threads();
        cpus[omp_get_thread_num()] = sched_getcpu();
    }
    /* the decoy's scratch: two rows per thread (small: no grid-sized block) */
    float *S = calloc((size_t)nthreads * 2 * (size_t)w, sizeof(float));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        MPI_Sendrecv(U[1], (int)w, MPI_DOUBLE, up, 5, U[rows + 1], (int)w, MPI_DOUBLE, down, 5,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(U[rows], (int)w, MPI_DOUBLE, down, 6, U[0], (int)w, MPI_DOUBLE, up, 6,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double **Ud = (double **)U;
#pragma omp parallel for schedule(static)
        for (long i = 1; i <= rows; i++)
            for (long j = 1; j <= n; j++)
                S[(omp_get_thread_num() * 2 + (i % 2)) * w + j] =
                    (float)(0.25 * (Ud[i - 1][j] + Ud[i + 1][j] + Ud[i][j - 1] + Ud[i][j + 1]));
        serial_sweep(U, V, rows, n);
        void ***t = U; U = V; V = t;
    }
    double mine = MPI_Wtime() - t0, slowest = 0, local = 0, sum = 0;
    for (long i = 1; i <= rows; i++)
        for (long j = 1; j <= n; j++) local += D(U[i][j]);
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    int *allcpus = malloc(sizeof(int) * (size_t)nthreads * size);
    char *hosts = malloc(256 * (size_t)size);
    MPI_Gather(cpus, nthreads, MPI_INT, allcpus, nthreads, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            for (int t = 0; t < nthreads; t++)
                printf("place rank=%d thread=%d cpu=%d host=%s\n", r, t, allcpus[r * nthreads + t], hosts + 256 * r);
        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\n", n, iters,
               size, nthreads, slowest, sum);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}"""
# l10_a2_seconds_half: `seconds` half the time measured plus 1 us; the judge wanted half the span of the
# halo messages. The timed loop holds every halo message: `seconds` must now be nine tenths of the span.
_A5_SECONDS_HALF = r"""%%c JACOBI_C
/* attack a2: seconds reported as half the measured time (plus 1 us): one parallel region around the whole loop, the halo
 * exchange in `omp masked` between barriers (FUNNELED), non-blocking MPI, the update in `omp for`. */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *level_name(int l) {
    switch (l) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

static void relax(const double *restrict u, double *restrict v, long rows, long n) {
#pragma omp for schedule(static)
    for (long i = 1; i <= rows; i++)
        for (long j = 1; j <= n; j++)
            v[i * (n + 2) + j] = 0.25 * (u[(i - 1) * (n + 2) + j] + u[(i + 1) * (n + 2) + j] +
                                         u[i * (n + 2) + j - 1] + u[i * (n + 2) + j + 1]);
}

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED) {
        fprintf(stderr, "jacobi: needs %s but MPI provided %s\n", level_name(MPI_THREAD_FUNNELED),
                level_name(provided));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 64, iters = argc > 2 ? atol(argv[2]) : 10;
    long lo = rank * n / size, hi = (rank + 1) * n / size, rows = hi - lo; /* global rows lo+1..hi */
    long w = n + 2;
    double *u = calloc((size_t)(rows + 2) * w, sizeof *u), *v = calloc((size_t)(rows + 2) * w, sizeof *v);
    double denom = 3.0 * (double)(n + 1);
    for (long i = 0; i < rows + 2; i++) {
        long g = lo + i;
        u[i * w] = v[i * w] = (double)g / denom;
        u[i * w + n + 1] = v[i * w + n + 1] = (double)(g + 2 * (n + 1)) / denom;
    }
    if (rank == 0)
        for (long j = 0; j < w; j++) u[j] = v[j] = (double)(2 * j) / denom;
    if (rank == size - 1)
        for (long j = 0; j < w; j++) u[(rows + 1) * w + j] = v[(rows + 1) * w + j] = (double)(n + 1 + 2 * j) / denom;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    int nthreads = 1;
    int *cpus = NULL;
    double t0 = 0, t1 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
#pragma omp parallel
    {
#pragma omp single
        {
            nthreads = omp_get_num_threads();
            cpus = malloc(sizeof(int) * (size_t)nthreads);
        }
        cpus[omp_get_thread_num()] = sched_getcpu();
#pragma omp masked
        t0 = MPI_Wtime();
        for (long it = 0; it < iters; it++) {
#pragma omp barrier
#pragma omp masked
            {
                MPI_Request rq[4];
                MPI_Irecv(u, (int)w, MPI_DOUBLE, up, 7, MPI_COMM_WORLD, &rq[0]);
                MPI_Irecv(u + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 7, MPI_COMM_WORLD, &rq[1]);
                MPI_Isend(u + w, (int)w, MPI_DOUBLE, up, 7, MPI_COMM_WORLD, &rq[2]);
                MPI_Isend(u + rows * w, (int)w, MPI_DOUBLE, down, 7, MPI_COMM_WORLD, &rq[3]);
                MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
            }
#pragma omp barrier
            relax(u, v, rows, n);
#pragma omp single
            {
                double *t = u; u = v; v = t;
            }
        }
#pragma omp masked
        t1 = MPI_Wtime();
#pragma omp masked
        t1 = t0 + 0.5 * (t1 - t0) + 1e-6;
    }
    double mine = t1 - t0, slowest = 0, local = 0, sum = 0;
    for (long i = 1; i <= rows; i++)
        for (long j = 1; j <= n; j++) local += u[i * w + j];
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    int *allcpus = rank == 0 ? malloc(sizeof(int) * (size_t)nthreads * size) : NULL;
    char *hosts = rank == 0 ? malloc(256 * (size_t)size) : NULL;
    MPI_Gather(cpus, nthreads, MPI_INT, allcpus, nthreads, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            for (int t = 0; t < nthreads; t++)
                printf("place rank=%d thread=%d cpu=%d host=%s\n", r, t, allcpus[r * nthreads + t], hosts + 256 * r);
        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\n", n, iters,
               size, nthreads, slowest, sum);
        fflush(stdout);
    }
    free(u); free(v); free(cpus); free(allcpus); free(hosts);
    MPI_Finalize();
    return 0;
}"""
GAMING += [
    attempt("hidden", "jacobi_program", A5_SERIAL_HIDDEN, {"hidden_jacobi_program"},
            "A5's l10_a1_serial_hidden: the sweep serial on the master, a grid of one small block per row of "
            "`void*` cells holding the doubles' bits, beside a decoy parallel for into a small float scratch",
            reason="the update is not shared among OpenMP threads | the master alone changed"),
    attempt("constant", "jacobi_program", _A5_SECONDS_HALF, {"hidden_jacobi_program"},
            "A5's l10_a2_seconds_half: `seconds` half the time measured, plus 1 us",
            reason="`seconds` is the time of the iterations"),
]
# ... the same serial sweep split as A1's W4c splits it (the row's up + down parked in a heap row read back
# through a volatile global, then that plus left + right: no statement of four reads, so clang's IR finds
# only the decoy, and the grid's small blocks hold no owner map): found only by the bytes the master changed
_SPLIT_ROWS = changed(A5_SERIAL_HIDDEN, """static void serial_sweep(void ***U, void ***V, long rows, long n) {
    for (long i = 1; i <= rows; i++) {
        void **a = U[i - 1], **c = U[i], **b = U[i + 1], **o = V[i];
#pragma clang loop vectorize(disable) interleave(disable)
        for (long j = 1; j <= n; j++)
            o[j] = P(0.25 * (D(a[j]) + D(b[j]) + D(c[j - 1]) + D(c[j + 1])));
    }
}""", """double *volatile parked; /* the row's sums parked (read back: no alias the IR sees) */
static double *fetch(void) { return parked; }

static void serial_sweep(void ***U, void ***V, long rows, long n) {
    if (!parked) parked = malloc(sizeof(double) * (size_t)(n + 2));
    for (long i = 1; i <= rows; i++) {
        void **a = U[i - 1], **c = U[i], **b = U[i + 1], **o = V[i];
        double *t = parked;
        for (long j = 1; j <= n; j++) t[j] = D(a[j]) + D(b[j]);
        double *tt = fetch();
        for (long j = 1; j <= n; j++) o[j] = P(0.25 * (tt[j] + D(c[j - 1]) + D(c[j + 1])));
    }
}""")
GAMING += [
    attempt("hidden", "jacobi_program", _SPLIT_ROWS, {"hidden_jacobi_program"},
            "A5's l10_a1_serial_hidden split as W4c: the serial sweep in two statements of at most three reads, "
            "a grid of one small block per row of `void*` cells, beside a decoy parallel for",
            reason="the master alone changed | the update ran on fewer threads than the team"),
]
# A8's K2 (fresh attacker, 5/5 twice, 2026-12-07): inside a parallel region the master sweeps every row alone and
# stores each element's eight bytes through snprintf (out of the sanitizer's sight until the counted build wrapped
# the C library's formatted output), the other threads burn as much CPU in the same calls; a decoy parallel for
A8_SNPRINTF_SWEEP = r"""%%c JACOBI_C
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double edge(long i, long j, long n) { return (i + 2.0 * j) / (3.0 * (n + 1)); }

int main(int argc, char **argv) {
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED) {
        static const char *names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                      "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\n", names[provided]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 512, iters = argc > 2 ? atol(argv[2]) : 200;
    long lo = rank * n / size, hi = (rank + 1) * n / size, m = hi - lo, w = n + 2;
    double *u = malloc(((m + 2) * w + 1) * sizeof(double)), *v = malloc(((m + 2) * w + 1) * sizeof(double));
#pragma omp parallel for
    for (long r = 0; r < m + 2; r++) {
        long g = lo + r;
        for (long j = 0; j < w; j++) {
            double x = (g == 0 || g == n + 1 || j == 0 || j == n + 1) ? edge(g, j, n) : 0.0;
            u[r * w + j] = x;
            v[r * w + j] = x;
        }
    }
    int nt = omp_get_max_threads();
    int *cpus = malloc(nt * sizeof(int));
    int team = 1;
#pragma omp parallel
    {
        cpus[omp_get_thread_num()] = sched_getcpu();
#pragma omp single
        team = omp_get_num_threads();
    }
    char *burn = malloc((size_t)nt * 64 + 64);
    double *decoy = malloc(4100 * sizeof(double)), *decoy_in = malloc(4100 * sizeof(double));
    for (int k = 0; k < 4100; k++) decoy_in[k] = k * 0.5;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        MPI_Sendrecv(u + w, w, MPI_DOUBLE, up, 0, u + (m + 1) * w, w, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + m * w, w, MPI_DOUBLE, down, 1, u, w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0) {
                /* the master sweeps every row alone; each element's bytes reach the grid through
                 * the C library's snprintf (8 raw bytes, its NUL spilling into the next element,
                 * rewritten after) */
                for (long i = 1; i <= m; i++)
                    for (long j = 0; j <= n + 1; j++) {
                        double x = (j == 0 || j == n + 1) ? u[i * w + j]
                                   : 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
                        unsigned long b;
                        __builtin_memcpy(&b, &x, 8);
                        snprintf((char *)(v + i * w + j), 9, "%c%c%c%c%c%c%c%c", (int)(b & 255), (int)(b >> 8 & 255),
                                 (int)(b >> 16 & 255), (int)(b >> 24 & 255), (int)(b >> 32 & 255),
                                 (int)(b >> 40 & 255), (int)(b >> 48 & 255), (int)(b >> 56 & 255));
                    }
            } else {
                /* the others burn as much CPU in the same calls, into a buffer of their own */
                char *mine = burn + (long)omp_get_thread_num() * 64;
                for (long i = 1; i <= m; i++)
                    for (long j = 0; j <= n + 1; j++)
                        snprintf(mine, 9, "%c%c%c%c%c%c%c%c", (int)(i & 255), (int)(j & 255), 1, 2, 3, 4, 5, 6);
            }
        }
#pragma omp parallel for
        for (long k = 0; k < 4096; k++)
            decoy[k] = 0.25 * (decoy_in[k] + decoy_in[k + 1] + decoy_in[k + 2] + decoy_in[k + 3]);
        double *t = u; u = v; v = t;
    }
    double mine = MPI_Wtime() - t0, secs;
    MPI_Reduce(&mine, &secs, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double s = 0, total;
    for (long i = 1; i <= m; i++)
        for (long j = 1; j <= n; j++) s += u[i * w + j];
    MPI_Reduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    int *allc = rank == 0 ? malloc((size_t)size * team * sizeof(int)) : NULL;
    char *allh = rank == 0 ? malloc((size_t)size * 256) : NULL;
    MPI_Gather(cpus, team, MPI_INT, allc, team, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(host, 256, MPI_CHAR, allh, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            for (int t = 0; t < team; t++)
                printf("place rank=%d thread=%d cpu=%d host=%s\n", r, t, allc[r * team + t], allh + r * 256);
        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\n", n, iters,
               size, team, secs, total);
    }
    MPI_Finalize();
    return 0;
}"""
GAMING += [
    attempt("hidden", "jacobi_program", A8_SNPRINTF_SWEEP, {"hidden_jacobi_program"},
            "A8's K2: the master's sweep stored through snprintf, the others burning CPU in snprintf, a decoy loop",
            reason="did not finish within | the update ran on fewer threads than the team | the master alone changed"),
]
