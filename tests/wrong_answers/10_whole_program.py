"""Lab 10: wrong answers to every graded part (see __init__.py)."""

from whole_program_c import JACOBI_PROGRAM, JOB_SCRIPT
from wrong_answers import changed, wrong

EXCHANGE = """        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 0, u + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + rows * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp parallel for
        for (long k = 1; k <= rows; k++)"""

# the halo exchange moved into the parallel region, made by the team's last thread: MPI from a
# thread that is not the main one, while the program still asks for FUNNELED
LAST_THREAD_EXCHANGE = """#pragma omp parallel
        {
            if (omp_get_thread_num() == omp_get_num_threads() - 1) {
                MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 0, u + (rows + 1) * w, (int)w, MPI_DOUBLE,
                             down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Sendrecv(u + rows * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
#pragma omp barrier
#pragma omp for
        for (long k = 1; k <= rows; k++)"""


def program(code: str) -> str:
    return "%%c JACOBI_C\n" + code.strip("\n")


def last_loop_closed(code: str) -> str:
    """Close the parallel region LAST_THREAD_EXCHANGE opened, after the update loop."""
    return code.replace("""                                       u[k * w + j + 1]);
        double *t = u;""", """                                       u[k * w + j + 1]);
        }
        double *t = u;""")


WRONG = [
    # (a) the program
    wrong("jacobi_program", program(last_loop_closed(changed(JACOBI_PROGRAM, EXCHANGE, LAST_THREAD_EXCHANGE))),
          loses={"hidden_jacobi_program"},
          why="halo exchange by the last thread of the team at FUNNELED: the level asked for is too low", reason='ThreadComplianceError'),
    wrong("jacobi_program", program(changed(
        JACOBI_PROGRAM, "long rows = n / size + (rank < n % size), w = n + 2;", "long rows = n / size, w = n + 2;")),
          loses={"hidden_jacobi_program"},
          why="the rows left over when N does not divide by the ranks are never updated", reason=': checksum'),
    wrong("jacobi_program", program(changed(
        JACOBI_PROGRAM, "v[k * w + j] = 0.25 * (u[(k - 1) * w + j]", "v[k * w + j] = 0.25 * (u[k * w + j]")),
          loses={"hidden_jacobi_program"},
          why="the stencil reads the point itself instead of its upper neighbour", reason=': checksum'),
    # (b) the compile line
    wrong("compile_line", 'COMPILE = "gcc -O2 -fopenmp jacobi.c -o jacobi"', loses={"hidden_compile_line"},
          why="the plain C compiler: no MPI header or library", reason='JobError'),
    wrong("compile_line", 'COMPILE = "mpicc -O2 -fopenmp jacobi.c"', loses={"hidden_compile_line"},
          why="no -o jacobi: the program is a.out", reason='made no program'),
    # (c) the job script
    wrong("job_script", "JOB_SCRIPT = " + repr(changed(JOB_SCRIPT, "#SBATCH --ntasks=2\n#SBATCH --cpus-per-task=1",
                                                        "#SBATCH --ntasks=64\n#SBATCH --cpus-per-task=8")),
          loses={"hidden_job_script"},
          why="asks for 64 tasks x 8 CPUs: more than the machine has, refused", reason='JobRequestError'),
    wrong("job_script", "JOB_SCRIPT = " + repr(changed(JOB_SCRIPT, './jacobi "$@"', "./jacobi")),
          loses={"hidden_job_script"},
          why="the script's arguments are not handed on to the program", reason='the script must hand all its arguments'),
]
