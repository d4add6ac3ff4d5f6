"""Right answers to lab 10 written another way: the program with a non-blocking halo exchange,
MPI_Allreduce for the sums and the left-over rows on the last ranks, or asking SERIALIZED (more
than it needs, checked the same way) with its rows from r n / size and a collapsed update; one
parallel region around the iterations (the exchange in `omp masked` between barriers, the update
an `omp for`); the update of a row in a helper called from a `parallel for` with a dynamic
schedule, a 2-D view of the block, and MPI_Send/MPI_Recv ordered by the rank's parity;
other compile lines (other optimisation and warning flags, -o before the source, -lm); job
scripts that hand srun the CPUs per task through SRUN_CPUS_PER_TASK, or by short options, or
name the program by its full path, or start it through `env OMP_NUM_THREADS=... ./jacobi`; the
update with a guided, dynamic (one region, or collapsed) or runtime schedule."""

from honest import right
from whole_program_c import JACOBI_PROGRAM, JOB_SCRIPT
from wrong_answers import changed

EXCHANGE = """        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 0, u + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + rows * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
"""
NONBLOCKING = """        MPI_Request halo[4];  /* both neighbours at once: receive into the halo rows, send mine */
        MPI_Irecv(u, (int)w, MPI_DOUBLE, up, 7, MPI_COMM_WORLD, &halo[0]);
        MPI_Irecv(u + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 8, MPI_COMM_WORLD, &halo[1]);
        MPI_Isend(u + w, (int)w, MPI_DOUBLE, up, 8, MPI_COMM_WORLD, &halo[2]);
        MPI_Isend(u + rows * w, (int)w, MPI_DOUBLE, down, 7, MPI_COMM_WORLD, &halo[3]);
        MPI_Waitall(4, halo, MPI_STATUSES_IGNORE);
"""
DECOMPOSED = """    long rows = n / size + (rank < n % size), w = n + 2;
    long first = 1 + rank * (n / size) + (rank < n % size ? rank : n % size);"""
LAST_RANKS = """    long base = n / size, extra = n % size, w = n + 2;  /* the last `extra` ranks get a row more */
    long rows = base + (rank >= size - extra);
    long first = 1 + rank * base + (rank > size - extra ? rank - (size - extra) : 0);"""
SPREAD = """    long w = n + 2, first = 1 + rank * n / size;  /* rank r: rows r n / size .. (r + 1) n / size */
    long rows = (rank + 1) * n / size - rank * n / size;"""
REDUCED = """    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);"""
ALLREDUCED = """    MPI_Allreduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);"""
UPDATE = """#pragma omp parallel for
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)"""
COLLAPSED = """#pragma omp parallel for collapse(2) schedule(static)
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)"""

ITERATIONS = """    for (long it = 0; it < iterations; it++) {
        /* halo exchange (main thread, outside parallel regions): my first row up, last row down */
""" + EXCHANGE + UPDATE + """
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);
        double *t = u;
        u = v;
        v = t;
    }
"""
ONE_REGION = """#pragma omp parallel
    for (long it = 0; it < iterations; it++) {
#pragma omp masked
        {
""" + NONBLOCKING.replace("        ", "            ", 1).replace("\n        M", "\n            M") + """        }
#pragma omp barrier
#pragma omp for schedule(static)
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);
#pragma omp single
        {
            double *t = u;
            u = v;
            v = t;
        }
    }
"""
ROW_HELPER = """/* one row of the update, through a 2-D view of the rank's block */
static void update_row(long w, const double (*a)[w], double (*b)[w], long k, long n) {
    for (long j = 1; j <= n; j++)
        b[k][j] = (a[k - 1][j] + a[k + 1][j] + a[k][j - 1] + a[k][j + 1]) / 4.0;
}

int main(int argc, char **argv) {"""
BY_PARITY = """        if (rank % 2 == 0) {
            MPI_Send(u + rows * w, (int)w, MPI_DOUBLE, down, 1, MPI_COMM_WORLD);
            MPI_Recv(u + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(u + w, (int)w, MPI_DOUBLE, up, 0, MPI_COMM_WORLD);
            MPI_Recv(u, (int)w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(u, (int)w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(u + w, (int)w, MPI_DOUBLE, up, 0, MPI_COMM_WORLD);
            MPI_Recv(u + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(u + rows * w, (int)w, MPI_DOUBLE, down, 1, MPI_COMM_WORLD);
        }
#pragma omp parallel for schedule(dynamic, 2)
        for (long k = 1; k <= rows; k++)
            update_row(w, (const double (*)[w])u, (double (*)[w])v, k, n);
"""
ROW_UPDATE = EXCHANGE + UPDATE + """
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);
"""


def program(code: str) -> str:
    return "%%c JACOBI_C\n" + code.strip("\n")


def script(text: str) -> str:
    return "JOB_SCRIPT = " + repr(text)


SRUN = 'srun --ntasks=$SLURM_NTASKS --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind=cores ./jacobi "$@"'

HONEST = [
    # (a) the program
    right("jacobi_program", program(changed(changed(changed(
        JACOBI_PROGRAM, EXCHANGE, NONBLOCKING), DECOMPOSED, LAST_RANKS), REDUCED, ALLREDUCED)),
          why="MPI_Irecv, MPI_Isend and MPI_Waitall for the halo, MPI_Allreduce for the sums, the "
              "left-over rows on the last ranks"),
    right("jacobi_program", program(changed(changed(changed(
        JACOBI_PROGRAM, "#define NEEDED MPI_THREAD_FUNNELED", "#define NEEDED MPI_THREAD_SERIALIZED"),
        DECOMPOSED, SPREAD), UPDATE, COLLAPSED)),
          why="asks SERIALIZED (and checks it), rows from r n / size, the update collapsed"),
    right("jacobi_program", program(changed(JACOBI_PROGRAM, ITERATIONS, ONE_REGION)),
          why="one parallel region around the iterations: the exchange (MPI_Isend, MPI_Irecv, "
              "MPI_Waitall) in omp masked between barriers, the update an omp for"),
    right("jacobi_program", program(changed(changed(
        JACOBI_PROGRAM, "int main(int argc, char **argv) {", ROW_HELPER), ROW_UPDATE, BY_PARITY)),
          why="a row's update in a helper called from a parallel for (dynamic schedule), a 2-D view "
              "of the block, MPI_Send and MPI_Recv ordered by the rank's parity"),
    # loops of a runtime schedule: the kit counts each thread's iterations (every thread a share)
    right("jacobi_program", program(changed(JACOBI_PROGRAM, UPDATE, UPDATE.replace("parallel for", "parallel for schedule(guided)"))),
          why="the update a parallel for with a guided schedule"),
    right("jacobi_program", program(changed(JACOBI_PROGRAM, ITERATIONS, changed(
        ONE_REGION, "#pragma omp for schedule(static)", "#pragma omp for schedule(dynamic, 4)"))),
          why="one parallel region around the iterations, the update an omp for with a dynamic schedule"),
    right("jacobi_program", program(changed(JACOBI_PROGRAM, UPDATE, COLLAPSED.replace("schedule(static)", "schedule(dynamic, 64)"))),
          why="the update collapsed, chunks of 64 points handed out dynamically"),
    right("jacobi_program", program(changed(JACOBI_PROGRAM, UPDATE, UPDATE.replace("parallel for", "parallel for schedule(runtime)"))),
          why="the update's schedule left to the runtime (OMP_SCHEDULE unset: libgomp's default)"),
    # (b) the compile line
    right("compile_line", 'COMPILE = "mpicc -fopenmp -O3 -o jacobi jacobi.c -lm"',
          why="-o before the source, -O3, the maths library linked"),
    right("compile_line", "COMPILE = 'mpicc -std=gnu11 -g -O1 -Wall -fopenmp -c jacobi.c "
          "&& mpicc -fopenmp jacobi.o -o jacobi'",
          why="compiled and linked in two steps, -fopenmp on both"),
    # (c) the job script
    right("job_script", script(changed(changed(
        JOB_SCRIPT, SRUN, 'srun --cpu-bind=cores ./jacobi "$@"'),
        "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK", "export SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK  "
        "# srun takes the CPUs per task from here\nexport OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK")),
          why="srun given the CPUs per task through SRUN_CPUS_PER_TASK, as Slurm documents"),
    right("job_script", script(changed(changed(changed(
        JOB_SCRIPT, SRUN, 'srun -n "$SLURM_NTASKS" -c "$SLURM_CPUS_PER_TASK" --cpu-bind=cores ./jacobi "$@"'),
        "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK", "export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}"),
        "export OMP_PROC_BIND=close", "export OMP_PROC_BIND=true")),
          why="srun's short options, a default for OMP_NUM_THREADS, OMP_PROC_BIND=true"),
    right("job_script", script(changed(
        JOB_SCRIPT, SRUN, 'cd "$SLURM_SUBMIT_DIR"\nexec srun --ntasks=$SLURM_NTASKS --cpus-per-task=$SLURM_CPUS_PER_TASK '
                          '--cpu-bind=cores "$SLURM_SUBMIT_DIR/jacobi" "$@"')),
          why="the program named by its full path from SLURM_SUBMIT_DIR, srun exec'd"),
    right("job_script", script(changed(
        JOB_SCRIPT, SRUN, 'srun --ntasks=$SLURM_NTASKS --cpus-per-task=$SLURM_CPUS_PER_TASK --cpu-bind=cores '
                          'env OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK ./jacobi "$@"')),
          why="srun starts env(1), which sets OMP_NUM_THREADS and starts ./jacobi"),
    # (c) the binding spelt as Slurm also accepts it (the kit's srun binds only when asked since
    # helper-f8, 2026-12-04: a script with no binding at all fails, gaming/10_whole_program.py)
    right("job_script", script(changed(JOB_SCRIPT, "--cpu-bind=cores", "--cpu-bind=core")),
          why="--cpu-bind=core, Slurm's singular"),
    right("job_script", script(changed(JOB_SCRIPT, "--cpu-bind=cores", "--cpu_bind=cores")),
          why="--cpu_bind=cores, the older spelling srun still takes"),
    right("job_script", script(changed(JOB_SCRIPT, "--cpu-bind=cores", "--cpu-bind=verbose,cores")),
          why="--cpu-bind=verbose,cores: the binding reported as well"),
    right("job_script", script(changed(changed(JOB_SCRIPT, " --cpu-bind=cores ./jacobi", " ./jacobi"),
        "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK", "export SLURM_CPU_BIND=cores  # srun's input "
        "variable for --cpu-bind\nexport OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK")),
          why="the binding given to srun through SLURM_CPU_BIND, as Slurm documents"),
    # (a) again: the counted build credits each thread the bytes it changed inside parallel regions
    # (helper-f1); a static schedule of small chunks, a taskloop the team runs, the update written
    # to a new array copied back (serially, or in the parallel loop by rows with memcpy)
    right("jacobi_program", program(changed(JACOBI_PROGRAM, UPDATE, UPDATE.replace("parallel for", "parallel for schedule(static, 8)"))),
          why="the update a parallel for with a static schedule of 8-row chunks"),
    right("jacobi_program", program(changed(JACOBI_PROGRAM, UPDATE, """#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(16)
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)""")),
          why="the update a taskloop one thread creates in a parallel region; the team runs its tasks"),
    right("jacobi_program", program(changed(JACOBI_PROGRAM, """        double *t = u;
        u = v;
        v = t;
    }""", """        memcpy(u + w, v + w, (size_t)(rows * w) * sizeof *u);  /* copied back, no swap */
    }""")),
          why="the new values copied back into the old array by the master, after the parallel update"),
    right("jacobi_program", program(changed(changed(JACOBI_PROGRAM, UPDATE, """#pragma omp parallel
        {
#pragma omp for
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)"""), """        double *t = u;
        u = v;
        v = t;
    }""", """#pragma omp for
        for (long k = 1; k <= rows; k++)  /* copied back by rows, shared like the update */
            memcpy(u + k * w + 1, v + k * w + 1, (size_t)n * sizeof *u);
        }
    }""")),
          why="the new values copied back by rows with memcpy in a second omp for of the same region"),
]

# (c) srun options read as Slurm reads them (fixer helper-f13, 2026-12-05, after attack H): the
# step now comes from the kit's srun process, --export makes the tasks' environment, --cpu-bind
# and --cpu_bind are one option (the last wins), --hint=nomultithread is taken beside a binding
HONEST += [
    right("job_script", script(changed(JOB_SCRIPT, "--cpu-bind=cores", "--hint=nomultithread --cpu-bind=cores")),
          why="--hint=nomultithread beside --cpu-bind=cores (attack H's H10_hint: refused before; one "
              "hardware thread per core changes nothing on a machine without SMT)"),
    right("job_script", script(changed(JOB_SCRIPT, "--cpu-bind=cores", "--cpu_bind=none --cpu-bind=cores")),
          why="a binding given twice in both spellings, the last (cores) wins as in Slurm"),
    right("job_script", script(changed(JOB_SCRIPT, "srun ", "srun --export=ALL ")),
          why="--export=ALL, srun's default, spelt out"),
    right("job_script", script(changed(changed(JOB_SCRIPT, "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK\n", ""),
                                       "srun ", "srun --export=ALL,OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK ")),
          why="OMP_NUM_THREADS handed to the tasks by srun's --export=ALL,NAME=value, not exported"),
    # a fresh attacker's right answer (R10single, 0/5 before, 2026-12-05): the update shared by
    # `omp for`, the copy back one memcpy in `single`; the copied block was owned by the copying
    # thread alone (a copy between blocks keeps each word's author now)
    right("jacobi_program", '%%c JACOBI_C\n/* lab 10: a whole hybrid program. */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int l) {\n    return l == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : l == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"\n         : l == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED" : "MPI_THREAD_MULTIPLE";\n}\n\nint main(int argc, char **argv) {\n    int provided, rank, size;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 1);\n    }\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    if (argc < 3) MPI_Abort(MPI_COMM_WORLD, 2);\n    long n = atol(argv[1]), iterations = atol(argv[2]);\n    long m = n / size + (rank < n % size), row0 = rank * (n / size) + (rank < n % size ? rank : n % size);\n    long w = n + 2;\n    double *u = malloc((size_t)((m + 2) * w) * sizeof(double));\n    double *v = malloc((size_t)((m + 2) * w) * sizeof(double));\n    for (long i = 0; i < m + 2; i++) {\n        long gi = row0 + i;\n        for (long j = 0; j < w; j++) {\n            double edge = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? (gi + 2.0 * j) / (3.0 * (n + 1)) : 0.0;\n            u[i * w + j] = v[i * w + j] = edge;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n    int nplace = 0;\n    char host[256];\n    gethostname(host, sizeof host);\n    int *cpus = NULL;\n#pragma omp parallel\n    {\n#pragma omp single\n        {\n            threads = omp_get_num_threads();\n            cpus = malloc(sizeof(int) * threads);\n        }\n        cpus[omp_get_thread_num()] = sched_getcpu();\n    }\n    nplace = threads;\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iterations; it++) {\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 2, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n#pragma omp parallel\n        {\n#pragma omp for schedule(static)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j <= n; j++)\n                    v[i * w + j] = (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]) / 4;\n            /* the copy back is memory-bound: one thread copies the block\'s interior rows */\n#pragma omp single\n            memcpy(u + w, v + w, (size_t)(m * w) * sizeof(double));\n        }\n    }\n    double dt = MPI_Wtime() - t0, slowest;\n    MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    double local = 0, sum = 0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    int *all = rank == 0 ? malloc(sizeof(int) * nplace * size) : NULL;\n    MPI_Gather(cpus, nplace, MPI_INT, all, nplace, MPI_INT, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < nplace; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all[r * nplace + t], host);\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%g checksum=%.15e\\n", n, iterations,\n               size, threads, slowest, sum);\n    }\n    free(u), free(v), free(cpus), free(all);\n    MPI_Finalize();\n    return 0;\n}\n',
          why="the copy back of the shared update one memcpy in `omp single`"),
]

# attack S's R10_taskloop written as the lab now asks (fixer f26, 2026-12-05): `single` + `taskloop`
# with num_tasks(4 * omp_get_num_threads()), fewer than 64 tasks per thread, so the team runs them; the
# update as `v[k] = 0.0; v[k] += ...` in a parallel for (a compound assignment is a statement of
# the update; each sweep brings the word back to 0 before the new value, which is its own thread's)
HONEST += [
    right("jacobi_program", '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\n/* the update as tasks: one thread makes them (single), the whole team runs them */\nstatic void sweep(const double *u, double *v, long m, long w) {\n#pragma omp parallel\n#pragma omp single\n#pragma omp taskloop num_tasks(4 * omp_get_num_threads())\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j < w - 1; j++)\n            v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);\n}\n\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    MPI_Comm comm = MPI_COMM_WORLD;\n    int rank, size;\n    MPI_Comm_rank(comm, &rank);\n    MPI_Comm_size(comm, &size);\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(comm, 2);\n    }\n    long n = atol(argv[1]), iterations = atol(argv[2]);\n    long base = n / size, rem = n % size;\n    long m = base + (rank < rem), r0 = rank * base + (rank < rem ? rank : rem);\n    long w = n + 2;\n    double *u = malloc((size_t)((m + 2) * w) * sizeof *u), *v = malloc((size_t)((m + 2) * w) * sizeof *v);\n    for (long li = 0; li < m + 2; li++) {\n        long gi = r0 + li;\n        for (long j = 0; j < w; j++) {\n            double x = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1)\n                           ? (double)(gi + 2 * j) / (3.0 * (double)(n + 1)) : 0.0;\n            u[li * w + j] = x;\n            v[li * w + j] = x;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n\n    int team = 1;\n    int cpus[256];\n#pragma omp parallel\n    {\n#pragma omp single\n        team = omp_get_num_threads();\n        int t = omp_get_thread_num();\n        if (t < 256) cpus[t] = sched_getcpu();\n    }\n    if (team > 256) team = 256;\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *all_cpus = rank == 0 ? malloc((size_t)size * (size_t)team * sizeof *all_cpus) : NULL;\n    char *all_hosts = rank == 0 ? malloc((size_t)size * 64) : NULL;\n    MPI_Gather(cpus, team, MPI_INT, all_cpus, team, MPI_INT, 0, comm);\n    MPI_Gather(host, 64, MPI_CHAR, all_hosts, 64, MPI_CHAR, 0, comm);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all_cpus[r * team + t],\n                       all_hosts + 64 * r);\n        fflush(stdout);\n    }\n\n    MPI_Barrier(comm);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iterations; it++) {\n        MPI_Sendrecv(u + m * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1, comm,\n                     MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 2, u + (m + 1) * w, (int)w, MPI_DOUBLE, down, 2,\n                     comm, MPI_STATUS_IGNORE);\n        sweep(u, v, m, w);\n        double *s = u;\n        u = v;\n        v = s;\n    }\n    double mine = MPI_Wtime() - t0, seconds = 0.0;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, comm);\n    double local = 0.0, checksum = 0.0;\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++) local += u[i * w + j];\n    MPI_Reduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);\n    if (rank == 0)\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n,\n               iterations, size, team, seconds, checksum);\n    free(u);\n    free(v);\n    free(all_cpus);\n    free(all_hosts);\n    MPI_Finalize();\n    return 0;\n}',
          why="the update a taskloop of num_tasks(4 * omp_get_num_threads()) one thread creates in `single`"),
    right("jacobi_program", program(changed(JACOBI_PROGRAM, """                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);""", """            {
                v[k * w + j] = 0.0;
                v[k * w + j] += 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                        u[k * w + j + 1]);
            }""")),
          why="the update written as `v = 0; v += ...` in a parallel for"),
]

# attacker U's right answers (2026-12-05), fixer f33: the update through row pointers set from the
# loop's variable in the loop's body (u10_j_rowptr, 0/5 before: the pragma's span ended at the first
# statement of a `for (...) {` body, and the statement's text alone was read); one persistent region,
# the exchange in `omp masked` between barriers, `omp for schedule(guided)` (u10_f_persistent with row
# pointers, u10_g_persistent_i without, 0/5 before: GCC copies the loop's start into the master's path
# and the others', two call sites, each counted as a loop of one thread); the compile in two steps and
# a script of short options whose srun exports the OpenMP variables (u10_d_single, 2/2 and 3/3)
HONEST += [
    right("jacobi_program", '%%c JACOBI_C\n/* right answer, another way: the plain program, its update written with row pointers set per row\n * (the usual C idiom) inside the parallel for over the rows */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\nstatic double edge(int i, int j, int n) { return (double)(i + 2 * j) / (3.0 * (n + 1)); }\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    int rank, size;\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    if (provided < MPI_THREAD_FUNNELED) {\n        if (rank == 0)\n            fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 2);\n        return 2;\n    }\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    int n = atoi(argv[1]), iters = atoi(argv[2]);\n    int base = n / size, extra = n % size;\n    int rows = base + (rank < extra ? 1 : 0);\n    int first = 1 + rank * base + (rank < extra ? rank : extra); /* global row of local row 1 */\n    int w = n + 2;\n    double *u = calloc((size_t)(rows + 2) * w, sizeof *u);\n    double *v = calloc((size_t)(rows + 2) * w, sizeof *v);\n    for (int li = 0; li < rows + 2; li++) {\n        int gi = first - 1 + li;\n        for (int j = 0; j < w; j++) {\n            double e = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? edge(gi, j, n) : 0.0;\n            u[(size_t)li * w + j] = e;\n            v[(size_t)li * w + j] = e;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n    for (int it = 0; it < iters; it++) {\n        MPI_Sendrecv(u + w, w, MPI_DOUBLE, up, 0, u + (size_t)(rows + 1) * w, w, MPI_DOUBLE, down, 0,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(u + (size_t)rows * w, w, MPI_DOUBLE, down, 1, u, w, MPI_DOUBLE, up, 1,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n#pragma omp parallel for\n        for (int i = 1; i <= rows; i++) {\n            const double *up_row = u + (size_t)(i - 1) * w, *down_row = u + (size_t)(i + 1) * w;\n            const double *row = u + (size_t)i * w;\n            double *out = v + (size_t)i * w;\n            for (int j = 1; j <= n; j++)\n                out[j] = (up_row[j] + down_row[j] + row[j - 1] + row[j + 1]) / 4;\n        }\n        double *t = u; u = v; v = t;\n    }\n    double mine = MPI_Wtime() - t0, seconds;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    double local = 0.0, total = 0.0;\n    for (int i = 1; i <= rows; i++)\n        for (int j = 1; j <= n; j++) local += u[(size_t)i * w + j];\n    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    threads = omp_get_max_threads();\n    int *cpus = calloc((size_t)threads, sizeof *cpus);\n    int team = 1;\n#pragma omp parallel\n    {\n#pragma omp masked\n        team = omp_get_num_threads();\n        cpus[omp_get_thread_num()] = sched_getcpu();\n    }\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *all = rank == 0 ? calloc((size_t)threads * size, sizeof *all) : NULL;\n    char *hosts = rank == 0 ? calloc((size_t)64 * size, 1) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, all, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    MPI_Gather(host, 64, MPI_CHAR, hosts, 64, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all[r * threads + t], hosts + 64 * r);\n        printf("jacobi n=%d iterations=%d ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters,\n               size, team, seconds, total);\n        fflush(stdout);\n    }\n    free(all); free(hosts); free(cpus); free(u); free(v);\n    MPI_Finalize();\n    return 0;\n}',
          why="the update through row pointers set from the row's index in the parallel for's body"),
    right("jacobi_program", '%%c JACOBI_C\n/* right answer, another way: ONE parallel region for all sweeps; the master alone exchanges the\n * halo with Irecv/Isend/Waitall inside omp masked between barriers (FUNNELED), the team shares\n * the rows with omp for (schedule(guided)) */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\nstatic double edge(int i, int j, int n) { return (double)(i + 2 * j) / (3.0 * (n + 1)); }\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    int rank, size;\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    if (provided < MPI_THREAD_FUNNELED) {\n        if (rank == 0)\n            fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 2);\n        return 2;\n    }\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    int n = atoi(argv[1]), iters = atoi(argv[2]);\n    int base = n / size, extra = n % size;\n    int rows = base + (rank < extra ? 1 : 0);\n    int first = 1 + rank * base + (rank < extra ? rank : extra); /* global row of local row 1 */\n    int w = n + 2;\n    double *u = calloc((size_t)(rows + 2) * w, sizeof *u);\n    double *v = calloc((size_t)(rows + 2) * w, sizeof *v);\n    for (int li = 0; li < rows + 2; li++) {\n        int gi = first - 1 + li;\n        for (int j = 0; j < w; j++) {\n            double e = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? edge(gi, j, n) : 0.0;\n            u[(size_t)li * w + j] = e;\n            v[(size_t)li * w + j] = e;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n#pragma omp parallel\n    {\n        for (int it = 0; it < iters; it++) {\n#pragma omp masked\n            {\n                MPI_Request req[4];\n                MPI_Irecv(u, w, MPI_DOUBLE, up, 7, MPI_COMM_WORLD, &req[0]);\n                MPI_Irecv(u + (size_t)(rows + 1) * w, w, MPI_DOUBLE, down, 7, MPI_COMM_WORLD, &req[1]);\n                MPI_Isend(u + w, w, MPI_DOUBLE, up, 7, MPI_COMM_WORLD, &req[2]);\n                MPI_Isend(u + (size_t)rows * w, w, MPI_DOUBLE, down, 7, MPI_COMM_WORLD, &req[3]);\n                MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n            }\n#pragma omp barrier\n#pragma omp for schedule(guided)\n            for (int i = 1; i <= rows; i++) {\n                const double *a = u + (size_t)(i - 1) * w, *b = u + (size_t)(i + 1) * w, *c = u + (size_t)i * w;\n                double *o = v + (size_t)i * w;\n                for (int j = 1; j <= n; j++) o[j] = (a[j] + b[j] + c[j - 1] + c[j + 1]) / 4;\n            }\n#pragma omp masked\n            {\n                double *t = u; u = v; v = t;\n            }\n#pragma omp barrier\n        }\n    }\n    double mine = MPI_Wtime() - t0, seconds;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    double local = 0.0, total = 0.0;\n    for (int i = 1; i <= rows; i++)\n        for (int j = 1; j <= n; j++) local += u[(size_t)i * w + j];\n    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    threads = omp_get_max_threads();\n    int *cpus = calloc((size_t)threads, sizeof *cpus);\n    int team = 1;\n#pragma omp parallel\n    {\n#pragma omp masked\n        team = omp_get_num_threads();\n        cpus[omp_get_thread_num()] = sched_getcpu();\n    }\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *all = rank == 0 ? calloc((size_t)threads * size, sizeof *all) : NULL;\n    char *hosts = rank == 0 ? calloc((size_t)64 * size, 1) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, all, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    MPI_Gather(host, 64, MPI_CHAR, hosts, 64, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all[r * threads + t], hosts + 64 * r);\n        printf("jacobi n=%d iterations=%d ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters,\n               size, team, seconds, total);\n        fflush(stdout);\n    }\n    free(all); free(hosts); free(cpus); free(u); free(v);\n    MPI_Finalize();\n    return 0;\n}',
          why="one persistent region, the exchange in omp masked between barriers, the update an "
              "omp for schedule(guided) through row pointers"),
    right("jacobi_program", '%%c JACOBI_C\n/* right answer, another way (the same as u10_f, the update written with the row index in it): ONE parallel region for all sweeps; the master alone exchanges the\n * halo with Irecv/Isend/Waitall inside omp masked between barriers (FUNNELED), the team shares\n * the rows with omp for (schedule(guided)) */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int level) {\n    switch (level) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\nstatic double edge(int i, int j, int n) { return (double)(i + 2 * j) / (3.0 * (n + 1)); }\n\nint main(int argc, char **argv) {\n    int provided;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    int rank, size;\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    if (provided < MPI_THREAD_FUNNELED) {\n        if (rank == 0)\n            fprintf(stderr, "jacobi: needs MPI_THREAD_FUNNELED but MPI provided %s\\n", level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 2);\n        return 2;\n    }\n    if (argc < 3) {\n        if (rank == 0) fprintf(stderr, "usage: jacobi N ITERATIONS\\n");\n        MPI_Abort(MPI_COMM_WORLD, 1);\n        return 1;\n    }\n    int n = atoi(argv[1]), iters = atoi(argv[2]);\n    int base = n / size, extra = n % size;\n    int rows = base + (rank < extra ? 1 : 0);\n    int first = 1 + rank * base + (rank < extra ? rank : extra); /* global row of local row 1 */\n    int w = n + 2;\n    double *u = calloc((size_t)(rows + 2) * w, sizeof *u);\n    double *v = calloc((size_t)(rows + 2) * w, sizeof *v);\n    for (int li = 0; li < rows + 2; li++) {\n        int gi = first - 1 + li;\n        for (int j = 0; j < w; j++) {\n            double e = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? edge(gi, j, n) : 0.0;\n            u[(size_t)li * w + j] = e;\n            v[(size_t)li * w + j] = e;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n#pragma omp parallel\n    {\n        for (int it = 0; it < iters; it++) {\n#pragma omp masked\n            {\n                MPI_Request req[4];\n                MPI_Irecv(u, w, MPI_DOUBLE, up, 7, MPI_COMM_WORLD, &req[0]);\n                MPI_Irecv(u + (size_t)(rows + 1) * w, w, MPI_DOUBLE, down, 7, MPI_COMM_WORLD, &req[1]);\n                MPI_Isend(u + w, w, MPI_DOUBLE, up, 7, MPI_COMM_WORLD, &req[2]);\n                MPI_Isend(u + (size_t)rows * w, w, MPI_DOUBLE, down, 7, MPI_COMM_WORLD, &req[3]);\n                MPI_Waitall(4, req, MPI_STATUSES_IGNORE);\n            }\n#pragma omp barrier\n#pragma omp for schedule(guided)\n            for (int i = 1; i <= rows; i++)\n                for (int j = 1; j <= n; j++)\n                    v[(size_t)i * w + j] = (u[(size_t)(i - 1) * w + j] + u[(size_t)(i + 1) * w + j] +\n                                            u[(size_t)i * w + j - 1] + u[(size_t)i * w + j + 1]) / 4;\n#pragma omp masked\n            {\n                double *t = u; u = v; v = t;\n            }\n#pragma omp barrier\n        }\n    }\n    double mine = MPI_Wtime() - t0, seconds;\n    MPI_Reduce(&mine, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    double local = 0.0, total = 0.0;\n    for (int i = 1; i <= rows; i++)\n        for (int j = 1; j <= n; j++) local += u[(size_t)i * w + j];\n    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    threads = omp_get_max_threads();\n    int *cpus = calloc((size_t)threads, sizeof *cpus);\n    int team = 1;\n#pragma omp parallel\n    {\n#pragma omp masked\n        team = omp_get_num_threads();\n        cpus[omp_get_thread_num()] = sched_getcpu();\n    }\n    char host[64] = {0};\n    gethostname(host, sizeof host - 1);\n    int *all = rank == 0 ? calloc((size_t)threads * size, sizeof *all) : NULL;\n    char *hosts = rank == 0 ? calloc((size_t)64 * size, 1) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, all, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    MPI_Gather(host, 64, MPI_CHAR, hosts, 64, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < team; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, all[r * threads + t], hosts + 64 * r);\n        printf("jacobi n=%d iterations=%d ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iters,\n               size, team, seconds, total);\n        fflush(stdout);\n    }\n    free(all); free(hosts); free(cpus); free(u); free(v);\n    MPI_Finalize();\n    return 0;\n}',
          why="one persistent region, the exchange in omp masked between barriers, the update an "
              "omp for schedule(guided)"),
    right("compile_line", '# right answer, another way: compile and link as two steps, OpenMP on in both, through the\n# wrapper\'s environment-independent flags\nCOMPILE = "mpicc -c -O3 -fopenmp -std=gnu11 jacobi.c -o jacobi.o && mpicc -fopenmp jacobi.o -o jacobi -lm && rm -f jacobi.o"',
          why="compiled with -c and linked in a second step, -fopenmp in both, the object removed"),
    right("job_script", '# right answer, another way: short options, the thread count taken from Slurm once into a\n# variable, the OpenMP variables given to srun\'s tasks on its own command line\nJOB_SCRIPT = r"""#!/bin/bash -l\n#SBATCH -n 1\n#SBATCH -c 2\nthreads="${SLURM_CPUS_PER_TASK}"\nexec srun -n "${SLURM_NTASKS}" -c "${threads}" --cpu-bind=cores \\\n     --export=ALL,OMP_NUM_THREADS="${threads}",OMP_PLACES=cores,OMP_PROC_BIND=spread \\\n     ./jacobi "$@"\n"""',
          why="#SBATCH -n and -c, exec srun with -n and -c, the OpenMP variables given by "
              "--export=ALL,OMP_NUM_THREADS=...,OMP_PLACES=cores,OMP_PROC_BIND=spread"),
]

# attack Q's right answers (2026-12-06; fixer f38), kept 5/5 on the text rule and on the IR rule that
# replaced it: the update as `parallel` + `omp loop` (clang 14 builds `loop` as simd; the IR is read with
# `loop` as GCC builds it), and one parallel region with the exchange in `masked`, the update an
# `omp for collapse(2)` with its terms in another order, the swap in `single`
HONEST += [
    right("jacobi_program", '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int l) {\n    switch (l) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\nint main(int argc, char **argv) {\n    int provided, rank, size;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs %s but MPI provided %s\\n", level_name(MPI_THREAD_FUNNELED),\n                level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 2);\n        return 2;\n    }\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    long n = argc > 1 ? atol(argv[1]) : 64;\n    long iterations = argc > 2 ? atol(argv[2]) : 10;\n    long base = n / size, extra = n % size;\n    long m = base + (rank < extra ? 1 : 0);\n    long first = rank * base + (rank < extra ? rank : extra) + 1; /* global row of local row 1 */\n    long W = n + 2;\n    double *u = calloc((size_t)(m + 2) * W, sizeof(double));\n    double *v = calloc((size_t)(m + 2) * W, sizeof(double));\n    double scale = 1.0 / (3.0 * (double)(n + 1));\n    for (long i = 0; i < m + 2; i++) {\n        long gi = first - 1 + i;\n        for (long j = 0; j < W; j++) {\n            double e = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? (gi + 2.0 * j) * scale : 0.0;\n            u[i * W + j] = e;\n            v[i * W + j] = e;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;\n    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n    #pragma omp parallel\n    {\n        #pragma omp single\n        threads = omp_get_num_threads();\n    }\n    int *cpus = malloc(sizeof(int) * threads);\n    #pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n    for (long it = 0; it < iterations; it++) {\n        MPI_Sendrecv(&u[1 * W], (int)W, MPI_DOUBLE, up, 0, &u[(m + 1) * W], (int)W, MPI_DOUBLE, down, 0,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        MPI_Sendrecv(&u[m * W], (int)W, MPI_DOUBLE, down, 1, &u[0], (int)W, MPI_DOUBLE, up, 1,\n                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n        #pragma omp parallel\n        #pragma omp loop\n        for (long i = 1; i <= m; i++)\n            for (long j = 1; j <= n; j++)\n                v[i * W + j] = (u[(i - 1) * W + j] + u[(i + 1) * W + j] + u[i * W + j - 1] + u[i * W + j + 1]) / 4.0;\n        double *t = u; u = v; v = t;\n    }\n    double mine = MPI_Wtime() - t0, slowest;\n    double local = 0.0, sum = 0.0;\n    #pragma omp parallel for reduction(+ : local)\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++)\n            local += u[i * W + j];\n    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    char host[256];\n    gethostname(host, sizeof host);\n    host[255] = 0;\n    int *allcpus = rank == 0 ? malloc(sizeof(int) * threads * size) : NULL;\n    char *hosts = rank == 0 ? malloc(256 * (size_t)size) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, allcpus, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    MPI_Gather(host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < threads; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, allcpus[r * threads + t], hosts + 256 * r);\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iterations,\n               size, threads, slowest, sum);\n        fflush(stdout);\n    }\n    free(u); free(v); free(cpus); free(allcpus); free(hosts);\n    MPI_Finalize();\n    return 0;\n}',
          why="the update a `parallel` region with an `omp loop` (OpenMP 5.0) inside"),
    right("jacobi_program", '%%c JACOBI_C\n/* lab 10: a whole hybrid program. 2-D Jacobi (5-point) on an n x n interior, rows split over the\n * ranks, a halo exchange every iteration, OpenMP loops for the update (masteronly: MPI only\n * outside parallel regions, so FUNNELED is what it needs). */\n#define _GNU_SOURCE\n#include <mpi.h>\n#include <omp.h>\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\nstatic const char *level_name(int l) {\n    switch (l) {\n    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";\n    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";\n    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";\n    default: return "MPI_THREAD_MULTIPLE";\n    }\n}\n\nint main(int argc, char **argv) {\n    int provided, rank, size;\n    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);\n    if (provided < MPI_THREAD_FUNNELED) {\n        fprintf(stderr, "jacobi: needs %s but MPI provided %s\\n", level_name(MPI_THREAD_FUNNELED),\n                level_name(provided));\n        MPI_Abort(MPI_COMM_WORLD, 2);\n        return 2;\n    }\n    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_size(MPI_COMM_WORLD, &size);\n    long n = argc > 1 ? atol(argv[1]) : 64;\n    long iterations = argc > 2 ? atol(argv[2]) : 10;\n    long base = n / size, extra = n % size;\n    long m = base + (rank < extra ? 1 : 0);\n    long first = rank * base + (rank < extra ? rank : extra) + 1; /* global row of local row 1 */\n    long W = n + 2;\n    double *u = calloc((size_t)(m + 2) * W, sizeof(double));\n    double *v = calloc((size_t)(m + 2) * W, sizeof(double));\n    double scale = 1.0 / (3.0 * (double)(n + 1));\n    for (long i = 0; i < m + 2; i++) {\n        long gi = first - 1 + i;\n        for (long j = 0; j < W; j++) {\n            double e = (gi == 0 || gi == n + 1 || j == 0 || j == n + 1) ? (gi + 2.0 * j) * scale : 0.0;\n            u[i * W + j] = e;\n            v[i * W + j] = e;\n        }\n    }\n    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;\n    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;\n    int threads = 1;\n    #pragma omp parallel\n    {\n        #pragma omp single\n        threads = omp_get_num_threads();\n    }\n    int *cpus = malloc(sizeof(int) * threads);\n    #pragma omp parallel\n    cpus[omp_get_thread_num()] = sched_getcpu();\n    MPI_Barrier(MPI_COMM_WORLD);\n    double t0 = MPI_Wtime();\n    /* one parallel region for the whole loop; MPI from the master only, in masked between barriers */\n    #pragma omp parallel\n    {\n        for (long it = 0; it < iterations; it++) {\n            #pragma omp masked\n            {\n                MPI_Request rq[4];\n                MPI_Irecv(&u[0], (int)W, MPI_DOUBLE, up, 5, MPI_COMM_WORLD, &rq[0]);\n                MPI_Irecv(&u[(m + 1) * W], (int)W, MPI_DOUBLE, down, 6, MPI_COMM_WORLD, &rq[1]);\n                MPI_Isend(&u[1 * W], (int)W, MPI_DOUBLE, up, 6, MPI_COMM_WORLD, &rq[2]);\n                MPI_Isend(&u[m * W], (int)W, MPI_DOUBLE, down, 5, MPI_COMM_WORLD, &rq[3]);\n                MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);\n            }\n            #pragma omp barrier\n            #pragma omp for collapse(2) schedule(static)\n            for (long i = 1; i <= m; i++)\n                for (long j = 1; j <= n; j++)\n                    v[i * W + j] = 0.25 * (u[i * W + j + 1] + u[i * W + j - 1] + u[(i + 1) * W + j] + u[(i - 1) * W + j]);\n            #pragma omp single\n            {\n                double *t = u; u = v; v = t;\n            }\n        }\n    }\n    double mine = MPI_Wtime() - t0, slowest;\n    double local = 0.0, sum = 0.0;\n    #pragma omp parallel for reduction(+ : local)\n    for (long i = 1; i <= m; i++)\n        for (long j = 1; j <= n; j++)\n            local += u[i * W + j];\n    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);\n    char host[256];\n    gethostname(host, sizeof host);\n    host[255] = 0;\n    int *allcpus = rank == 0 ? malloc(sizeof(int) * threads * size) : NULL;\n    char *hosts = rank == 0 ? malloc(256 * (size_t)size) : NULL;\n    MPI_Gather(cpus, threads, MPI_INT, allcpus, threads, MPI_INT, 0, MPI_COMM_WORLD);\n    MPI_Gather(host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, MPI_COMM_WORLD);\n    if (rank == 0) {\n        for (int r = 0; r < size; r++)\n            for (int t = 0; t < threads; t++)\n                printf("place rank=%d thread=%d cpu=%d host=%s\\n", r, t, allcpus[r * threads + t], hosts + 256 * r);\n        printf("jacobi n=%ld iterations=%ld ranks=%d threads=%d seconds=%.6f checksum=%.15e\\n", n, iterations,\n               size, threads, slowest, sum);\n        fflush(stdout);\n    }\n    free(u); free(v); free(cpus); free(allcpus); free(hosts);\n    MPI_Finalize();\n    return 0;\n}',
          why="one parallel region: the exchange in `masked` between barriers, the update an omp for "
              "collapse(2), the swap in `single`"),
]
