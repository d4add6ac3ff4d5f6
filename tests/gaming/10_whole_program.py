"""Lab 10: gaming attempts (see __init__.py)."""

from gaming import attempt, c_evidence
from whole_program_c import JACOBI_PROGRAM, JOB_SCRIPT
from wrong_answers import changed

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
            "the checksum computed without MPI: every rank does the whole grid, no halo exchange"),
    attempt("method", "jacobi_program", program(changed(changed(
        JACOBI_PROGRAM, "#define NEEDED MPI_THREAD_FUNNELED", "#define NEEDED MPI_THREAD_MULTIPLE"), CHECKED, "")),
            {"hidden_jacobi_program"}, "asks for MULTIPLE and never checks what MPI provided"),
    attempt("hidden", "jacobi_program", program(changed(
        JACOBI_PROGRAM, "long n = argc == 3 ? atol(argv[1]) : 0, iterations = argc == 3 ? atol(argv[2]) : -1;",
        "long n = 64, iterations = 50;")),
            {"hidden_jacobi_program"}, "the grid and iterations of the notebook typed in, argv ignored"),
    attempt("constant", "jacobi_program", program(changed(
        JACOBI_PROGRAM, "iterations, size, threads, seconds, sum);", "iterations, size, threads, seconds, 198.5955166356179);")),
            {"hidden_jacobi_program"}, "a checksum typed in"),
    # (b) the compile line
    attempt("method", "compile_line", 'COMPILE = "mpicc -O2 jacobi.c -o jacobi"', {"hidden_compile_line"},
            "no -fopenmp: every #pragma omp ignored, one thread"),
    attempt("hidden", "compile_line",
            "COMPILE = \"mpicc -O2 -fopenmp jacobi.c -o jacobi && grep -q 'jacobi n=' jacobi.c\"",
            {"hidden_compile_line"}, "a line that only accepts the notebook's own program"),
    attempt("constant", "compile_line",
            "COMPILE = \"printf '#!/bin/sh\\\\necho probe token=1234567 ranks=1 threads=2 argv=a,b\\\\n' > jacobi "
            "&& chmod +x jacobi\"",
            {"hidden_compile_line"}, "a program that prints a typed-in line"),
    attempt("shortcut", "compile_line",
            'COMPILE = "cp \\"$(hybridlab build hello_hybrid)/hello_hybrid\\" jacobi"',
            {"hidden_compile_line"}, "the kit's own hello_hybrid program copied in"),
    # (c) the job script
    attempt("hidden", "job_script", script(changed(
        JOB_SCRIPT, "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK", "export OMP_NUM_THREADS=2")),
            {"hidden_job_script"}, "OMP_NUM_THREADS=2 typed in: right for one shape only"),
    attempt("method", "job_script", script(changed(changed(changed(
        JOB_SCRIPT, "export OMP_PLACES=cores\n", ""), "export OMP_PROC_BIND=close\n", ""),
        "--cpu-bind=cores", "--cpu-bind=none")),
            {"hidden_job_script"}, "no binding at all: threads wander over the CPUs"),
    attempt("method", "job_script", script(changed(
        JOB_SCRIPT, " --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind", " --cpu-bind")),
            {"hidden_job_script"}, "srun without --cpus-per-task: a rank's threads share one core"),
    attempt("constant", "job_script", script(changed(
        JOB_SCRIPT, "srun --ntasks=$SLURM_NTASKS --cpus-per-task=$SLURM_CPUS_PER_TASK",
        "srun --ntasks=2 --cpus-per-task=1")),
            {"hidden_job_script"}, "the shape typed into the srun line"),
]

# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
# (the student's own compile line builds each of them: only the traced build refuses them)
GAMING += c_evidence("10_whole_program", "jacobi_program", {"hidden_jacobi_program"}, "MPI_Sendrecv",
                     replaced=("MPI_Is_thread_main",), recorder=False)
