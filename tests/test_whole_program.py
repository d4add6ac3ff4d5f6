"""hybridlab.whole_program.exercise and the compile line's rule (hybridlab.slurm.jobs): lab 10's
checks that need no run. Attacker U's right answers that lost points and holes that kept them
(fixer f33, 2026-12-05)."""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

from hybridlab.kernels import split_rmw
from hybridlab.slurm import jobs
from hybridlab.whole_program.exercise import (
    changed_serially,
    computed_unshared,
    jacobi_sweeps,
    loop_shared,
    loop_shares,
    places_unseen,
    script_unwritten,
    threads_unbound,
    update_changes,
    update_sites_env,
    updates_unshared,
    written_serially,
    written_twice,
)
from whole_program_c import JACOBI_PROGRAM, JOB_SCRIPT

try:
    from hybridlab.machine.topology import read_topology

    CPUS = len(read_topology().usable)
except Exception:  # noqa: BLE001 - no topology: the runs below are skipped
    CPUS = 1
needs_two = pytest.mark.skipif(CPUS < 2, reason="needs 2 CPUs")
needs_clang = pytest.mark.skipif(not split_rmw.clang_present(), reason="the IR rule reads clang's LLVM IR, and clang "
                                 "is not installed: apt-get install clang libomp-14-dev (Debian 12)")

SWEEP = """#pragma omp parallel for
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);"""
# u10_j_rowptr's update: the loop's body a block, the rows' pointers set from k in it
ROW_POINTERS = """#pragma omp parallel for
        for (long k = 1; k <= rows; k++) {
            const double *up_row = u + (size_t)(k - 1) * w, *down_row = u + (size_t)(k + 1) * w;
            const double *row = u + (size_t)k * w;
            double *out = v + (size_t)k * w;
            for (long j = 1; j <= n; j++)
                out[j] = (up_row[j] + down_row[j] + row[j - 1] + row[j + 1]) / 4;
        }"""


def test_an_update_through_row_pointers_set_in_the_shared_loop_is_shared():
    """u10_j_rowptr and u10_h_persistent_static (0/5 before): a `parallel for` whose loop body is
    a block (the pragma's span ended at the block's first statement: the words of the next line
    were read as the pragma's), and a statement that names the loop's variable only through the
    row pointers set from it in the loop's body (data flow, not the statement's text)."""
    pointers = JACOBI_PROGRAM.replace(SWEEP, ROW_POINTERS)
    assert pointers != JACOBI_PROGRAM and updates_unshared(pointers) == []
    persistent = pointers.replace("#pragma omp parallel for\n        for (long k", "#pragma omp parallel\n"
                                  "#pragma omp for schedule(guided)\n        for (long k")  # fmt: skip
    assert persistent != pointers and updates_unshared(persistent) == []
    # pointers set once before the loop, from nothing the loop varies: each thread sweeps the same row
    fixed = pointers.replace("        for (long k = 1; k <= rows; k++) {\n            const double *up_row = u + (size_t)(k - 1) * w, "
                             "*down_row = u + (size_t)(k + 1) * w;\n            const double *row = u + (size_t)k * w;\n"
                             "            double *out = v + (size_t)k * w;",
                             "        for (long k = 1; k <= rows; k++) {\n            const double *up_row = u, *down_row = u + 2 * w;\n"
                             "            const double *row = u + w;\n            double *out = v + w;")  # fmt: skip
    assert fixed != pointers and "out[j]" in updates_unshared(fixed)[0]
    # a `parallel for` over a block that only the master runs is still no share
    masked = pointers.replace("            double *out = v + (size_t)k * w;\n            for (long j",
                              "            double *out = v + (size_t)k * w;\n#pragma omp masked\n            for (long j")
    assert masked != pointers and updates_unshared(masked)


def _shares(rows: list[tuple[int, int, int]]) -> pd.DataFrame:
    return pd.DataFrame([{"record": "loop_share", "rank": 0, "site": site, "tid": float(tid), "units": float(units)}
                         for site, tid, units in rows])  # fmt: skip


def test_loop_shares_are_summed_over_the_call_sites_of_one_loop():
    """u10_f_persistent and u10_g_persistent_i (0/5 three times): GCC gave the guided loop after
    `omp masked` two call sites of GOMP_loop_*_start, the master's and the other thread's, so each
    site looked like a loop of one thread (36700, 0) and (0, 33400). Summed per thread, it is shared;
    a loop only one thread reaches (a burner beside it) is still refused."""
    records = _shares([(0, 11, 36700), (0, 12, 0), (1, 11, 0), (1, 12, 33400)])
    assert loop_shares(records, 0) == [36700, 33400] and loop_shared(loop_shares(records, 0), 2)
    per_site = [sorted((u for s, _, u in [(0, 11, 36700), (0, 12, 0)] if s == 0), reverse=True)]
    assert not loop_shared(per_site[0], 2)  # what the per-site rule saw
    burner = _shares([(0, 11, 70100)])
    assert not loop_shared(loop_shares(burner, 0), 2)
    assert not loop_shared(loop_shares(_shares([(0, 11, 70000), (0, 12, 100)]), 0), 2)
    assert loop_shares(_shares([]).reindex(columns=["record", "rank"]), 0) == []


def test_a_place_line_must_name_a_cpu_its_thread_ran_on():
    """The tracer's "thread_place" records (each thread number's CPUs in the parallel regions) are
    the truth the place lines are judged by: W2b's "master's first CPU + thread number" under the
    grader's reversed places, a thread never seen, and a cpu that is not a number are refused."""
    records = pd.DataFrame([{"record": "thread_place", "rank": 0, "thread": 0.0, "cpus": "1"},
                            {"record": "thread_place", "rank": 0, "thread": 1.0, "cpus": "0"},
                            {"record": "mpi_init", "rank": 0, "thread": 0.0, "cpus": None}])  # fmt: skip
    truth = [{"rank": "0", "thread": "0", "cpu": "1"}, {"rank": "0", "thread": "1", "cpu": "0"}]
    assert places_unseen(truth, records) == []
    made_up = [{"rank": "0", "thread": "0", "cpu": "1"}, {"rank": "0", "thread": "1", "cpu": "2"}]
    assert places_unseen(made_up, records) == ["rank 0 thread 1 printed cpu=2, ran on 0"]
    assert places_unseen([{"rank": "1", "thread": "0", "cpu": "0"}, {"rank": "0", "thread": "0", "cpu": "x"}],
                         records) == ["rank 1 thread 0 printed cpu=0, ran on none seen",
                                      "rank 0 thread 0 printed cpu=x, ran on 1"]  # fmt: skip
    moved = pd.DataFrame([{"record": "thread_place", "rank": 0, "thread": 0, "cpus": "2,3"}])
    assert places_unseen([{"rank": "0", "thread": "0", "cpu": "3"}], moved) == []
    assert places_unseen(truth[:1], records[records["record"] == "mpi_init"]) != []


@pytest.mark.parametrize("line", [
    "mpicc -std=c11 -O2 -Wall -Wextra -fopenmp jacobi.c -o jacobi",
    "mpicc -c -O3 -fopenmp -std=gnu11 jacobi.c -o jacobi.o && mpicc -fopenmp jacobi.o -o jacobi -lm && rm -f jacobi.o",
    "mpicc -fopenmp -O3 -o jacobi jacobi.c -lm  # the maths library too",
    "mpicc -fopenmp \\\n    jacobi.c -o jacobi",
    "gcc -fopenmp jacobi.c -o jacobi",  # no MPI: refused by what it builds, not by the rule
])
def test_a_compile_line_of_compiler_invocations_is_run(line):
    assert jobs.compile_line_refused(line) is None


@pytest.mark.parametrize("line, why", [
    # attacker U's u10_e_whole2 (2/2 twice): the kit's own build through python
    ("python -c \"import shutil; from hybridlab.slurm import jobs; k = jobs.build_program('jacobi_kit', "
     "open('jacobi.c').read(), trace_mpi=False); shutil.copy(k.program, 'jacobi')\"", "runs 'python'"),
    ("mpicc -fopenmp jacobi.c -o jacobi\npython -c pass", "runs 'python'"),
    ("mpicc jacobi.c -o jacobi#;python -c pass", "runs 'python'"),
    ("cp \"$(hybridlab build hello_hybrid)/hello_hybrid\" jacobi", "substitutes a command"),
    ("mpicc `echo -fopenmp` jacobi.c -o jacobi", "substitutes a command"),
    ("MPICH_CC=python3 mpicc -c pass", "runs 'MPICH_CC=python3'"),
    ("mpicc -cc=python3 -c pass", "-cc=python3"),
    ("mpicc -wrapper python3,-c,pass jacobi.c -o jacobi", "-wrapper"),
    ("./mpicc jacobi.c -o jacobi", "runs './mpicc'"),
    ("make jacobi CC=mpicc CFLAGS=-fopenmp", "runs 'make'"),
    ("mpicc -fopenmp jacobi.c -o jacobi | cat", "has '|'"),
    ("printf 'x' > jacobi && chmod +x jacobi", "has '>'"),
])
def test_a_compile_line_that_runs_another_program_is_refused(line, why, tmp_path):
    refused = jobs.compile_line_refused(line)
    assert refused and refused.startswith("a compile line runs compilers") and why in refused
    with pytest.raises(jobs.JobError, match="a compile line runs compilers"):
        jobs.compile_line(line, "int main(void) { return 0; }", tmp_path)
    assert not (tmp_path / "jacobi").exists()


def test_the_script_as_written_asks_for_tasks_and_cpus_per_task():
    """u10_f_persistent (3/3 twice): no `#SBATCH --cpus-per-task` line and no OMP_PROC_BIND; the
    hidden shapes passed --cpus-per-task on sbatch's command line, so only the script as written
    shows it."""
    assert script_unwritten(JOB_SCRIPT) == []
    assert script_unwritten("#!/bin/bash -l\n#SBATCH -n 1\n#SBATCH -c 2\nthreads=$SLURM_CPUS_PER_TASK\n"
                            "exec srun -n 1 -c $threads --export=ALL,OMP_NUM_THREADS=$threads ./jacobi \"$@\"\n") == []
    no_cpus = JOB_SCRIPT.replace("#SBATCH --cpus-per-task=1\n", "")
    assert "no `#SBATCH --cpus-per-task" in script_unwritten(no_cpus)[0]
    assert "no `#SBATCH --ntasks" in script_unwritten(JOB_SCRIPT.replace("#SBATCH --ntasks=2\n", ""))[0]
    assert "4 CPUs in all" in script_unwritten(JOB_SCRIPT.replace("--cpus-per-task=1\n", "--cpus-per-task=2\n"))[0]
    # the options after the first command are no #SBATCH lines
    late = JOB_SCRIPT.replace("#SBATCH --cpus-per-task=1\n", "").replace("export OMP_PLACES", "#SBATCH -c 1\nexport OMP_PLACES")
    assert script_unwritten(late)


def test_the_tasks_threads_must_be_bound_by_omp_proc_bind():
    assert threads_unbound({"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}) is None
    assert threads_unbound({"OMP_PROC_BIND": "Spread,close"}) is None
    assert threads_unbound({"OMP_PROC_BIND": "true"}) is None
    assert "not set" in threads_unbound({"OMP_PLACES": "cores"})
    assert "binds no thread" in threads_unbound({"OMP_PROC_BIND": "false"})


# a fresh attacker's L10_split2 (5/5 twice, 2026-12-06, fixer f38): the sweep serial on the master,
# written as one-element statements so that no statement reads four elements, beside a decoy
# `parallel for` whose statement does (the other threads spun to look busy)
SPLIT_SWEEP = """#pragma omp parallel for
        for (long k = 1; k <= rows; k++)
            decoy[k & 4095] = u[(k - 1) * w] + u[(k + 1) * w] + u[k * w] + u[k * w + n + 1];
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++) {
                double a = u[(k - 1) * w + j];
                double b = u[(k + 1) * w + j];
                double c = u[k * w + j - 1];
                double d = u[k * w + j + 1];
                double s = a + b;
                s += c;
                s += d;
                v[k * w + j] = s / 4.0;
            }"""


def _split(sweep: str) -> str:
    program = JACOBI_PROGRAM.replace(SWEEP, sweep).replace("int main(", "static double decoy[4096];\n\nint main(", 1)
    assert program.count("decoy") >= 2
    return program


@needs_clang
def test_the_update_is_found_by_what_the_program_does_not_how_it_is_written():
    """L10_split2: the serial update in one-element statements is the update (clang's IR: a store
    of a value made from four reads), outside every work-sharing loop; the decoy shares nothing of
    it. The text rule found no statement of the update there but the decoy's, which was shared."""
    found = updates_unshared(_split(SPLIT_SWEEP))
    assert found and "v[k * w + j] = s / 4.0;" in found[0] and "work-sharing" in found[0]
    # the same through a volatile temporary (memory of the function's own)
    spilled = SPLIT_SWEEP.replace("double s = a + b;\n                s += c;", "volatile double s = a;\n"
                                  "                s += b;\n                s += c;")  # fmt: skip
    assert spilled != SPLIT_SWEEP and updates_unshared(_split(spilled))
    # ... or its bits written as an integer
    pun = SPLIT_SWEEP.replace("v[k * w + j] = s / 4.0;", "union { double d; unsigned long long i; } x;\n"
                              "                x.d = s / 4.0;\n                ((unsigned long long *)v)[k * w + j] = x.i;")
    assert pun != SPLIT_SWEEP and "x.i;" in updates_unshared(_split(pun))[0]
    # written as the lab asks, in the shared loop, the one-element statements are shared
    shared = SPLIT_SWEEP.replace("        for (long k = 1; k <= rows; k++)\n            for (long j",
                                 "#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)\n            for (long j")
    assert shared != SPLIT_SWEEP and updates_unshared(_split(shared)) == []


@needs_clang
def test_an_omp_loop_is_read_as_gcc_builds_it():
    """L10_loop (right, 5/5 on the text rule): `parallel` + `loop`. Clang 14 makes every thread run
    all of a `loop` (as `simd`); GCC, which builds the graded program, shares it like `for`: the
    IR is read with `loop` as GCC builds it."""
    looped = JACOBI_PROGRAM.replace(SWEEP, SWEEP.replace("#pragma omp parallel for", "#pragma omp parallel\n#pragma omp loop"))
    assert looped != JACOBI_PROGRAM and updates_unshared(looped) == []
    # bound to one thread, each thread sweeps every row: not shared
    assert updates_unshared(looped.replace("#pragma omp loop", "#pragma omp loop bind(thread)"))


# attack R (2026-12-06), fixer f43: L10_G7 (5/5 twice): thread 0 computed the rows of the other
# threads' static shares into a `__builtin_alloca` buffer on its own stack and published its
# address; the others spun, then only copied their rows out of it in an `omp for`
STAGED = """        {
            static double *stage;
            static int ready;
            ready = 0;
#pragma omp parallel
            {
                int t = omp_get_thread_num(), T = omp_get_num_threads();
                long first1 = 1 + (rows / T + (0 < rows % T));
                if (t == 0) {
                    double *tmp = __builtin_alloca((size_t)((rows - first1 + 1) * n + 1) * sizeof(double));
                    for (long k = first1; k <= rows; k++)
                        for (long j = 1; j <= n; j++)
                            tmp[(k - first1) * n + (j - 1)] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] +
                                                                      u[k * w + j - 1] + u[k * w + j + 1]);
                    stage = tmp;
                    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
                } else {
                    while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) { }
                }
#pragma omp for schedule(static)
                for (long k = 1; k <= rows; k++) {
                    if (t == 0) {
                        for (long j = 1; j <= n; j++)
                            v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                                   u[k * w + j + 1]);
                    } else {
                        memcpy(v + k * w + 1, stage + (k - first1) * n, (size_t)n * sizeof(double));
                    }
                }
            }
        }"""
# a right answer: each thread's own row buffer on its own stack, copied into its own rows
ROW_BUFFER = """#pragma omp parallel for schedule(dynamic, 4)
        for (long k = 1; k <= rows; k++) {
            double row[n];
            for (long j = 1; j <= n; j++)
                row[j - 1] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                     u[k * w + j + 1]);
            memcpy(v + k * w + 1, row, (size_t)n * sizeof *row);
        }"""


@needs_clang
def test_a_stack_buffer_whose_address_is_published_is_not_the_functions_own():
    """L10_G7 (5/5 twice before): stores into an alloca were the function's own stack, never an
    update write, even when the buffer's address went to a global the other threads read. An
    alloca whose address leaves the function (stored, handed to the runtime or a library, made an
    integer) is memory others read: thread 0's stores of the update into it are outside every
    shared loop. A thread's private row buffer copied into its own rows stays its own."""
    staged = JACOBI_PROGRAM.replace(SWEEP, STAGED)
    assert staged != JACOBI_PROGRAM
    found = updates_unshared(staged)
    assert found and "tmp[" in found[0], found
    # the same buffer kept to itself (never published): the function's own stack, as before
    kept = staged.replace("                    stage = tmp;\n", "")
    assert kept != staged and not any("tmp[" in f for f in updates_unshared(kept))
    assert updates_unshared(JACOBI_PROGRAM.replace(SWEEP, ROW_BUFFER)) == []


def _writes(rows: list[tuple[int, int, int, int]]) -> pd.DataFrame:
    return pd.DataFrame([{"record": "writes", "rank": 0, "bucket": bucket, "tid": float(tid), "changed": float(changed),
                          "owned": float(changed), "echoed": float(echoed)} for bucket, tid, changed, echoed in rows])


def test_a_block_the_team_writes_twice_per_update_is_found():
    """L10_G2 (5/5 twice before): every thread swept the whole block, racing to write the same
    values, so each was the last changer of a share of it. The bytes a thread wrote that another
    had already written ("echoed") are an eighth or more of those changed: the block was written
    once per thread, not shared. A team that shares the update echoes (almost) nothing."""
    assert written_twice(_writes([(1, 11, 500, 0), (1, 12, 500, 0), (2, 11, 400, 3), (2, 12, 600, 0)]), 0) == []
    raced = _writes([(1, 11, 600, 400), (1, 12, 400, 600), (2, 11, 500, 0), (2, 12, 500, 0)])
    assert written_twice(raced, 0) == [(1, 1000, 1000)]
    # a small block (under a tenth of the bytes written) is not judged; records without echoes pass
    assert written_twice(_writes([(1, 11, 5000, 0), (1, 12, 5000, 0), (3, 11, 10, 90)]), 0) == []
    assert written_twice(_writes([(1, 11, 5, 5)]).drop(columns="echoed"), 0) == []


# both threads sweep a whole block of the same values (a race, as in L10_G2); then thread 1 computes
# into a buffer on its own stack that thread 0 copies into the second block (as in L10_G7)
_TWICE = r"""#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    long n = 1L << 15;
    double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    static double *volatile stage;
    static volatile int ready;
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        for (int sweep = 1; sweep <= 4; sweep++) {
            for (long i = 0; i < n; i++) a[i] = sweep + i;  /* every thread the whole block */
#pragma omp barrier
        }
        double mine[4096];
        if (t == 1) {
            for (long i = 0; i < 4096; i++) mine[i] = 3.0 * i + 1.0;
            stage = mine;
            ready = 1;
            while (ready != 2) { }
        } else {
            while (ready != 1) { }
            memcpy(b, stage, sizeof mine);  /* out of thread 1's stack */
            ready = 2;
        }
#pragma omp barrier
        for (long i = 4096; i < n; i++) if (t == 0) b[i] = 2.0;
    }
    printf("twice a=%g b=%g\n", a[n - 1], b[1]);
    MPI_Finalize();
    return 0;
}"""


@needs_two
def test_the_counted_build_finds_words_written_twice_and_copies_out_of_another_threads_stack(tmp_path):
    """The counted build (hl_write_count.h): a thread's store of what another thread wrote into a
    block is "echoed" (both threads sweeping one block: written_twice finds it), and a block's
    words copied out of another thread's stack are that thread's, not the copier's (L10_G7)."""
    program = jobs.build_program("lab10_twice", _TWICE, count_writes=True)
    result, trace = jobs.judged_run(JOB_SCRIPT, program, tmp_path, sbatch_args=["--ntasks=1", "--cpus-per-task=2"],
                                    timeout=120, traced=True, env=jobs.COUNT_ENV)  # fmt: skip
    assert result.check().lines("twice") == [{"a": str(4 + (1 << 15) - 1), "b": "4"}]
    writes = trace.records[trace.records["record"] == "writes"]
    a = writes[writes["bucket"].astype(int) == 1]
    assert a["echoed"].astype(int).sum() >= 2 * (8 << 15), a  # 3 of 4 sweeps: each word written twice
    assert [b for b, _, _ in written_twice(trace.records, 0)] == [1]
    b = writes[writes["bucket"].astype(int) == 2]
    cpu = trace.records[trace.records["record"] == "thread_cpu"]
    main = {int(v) for v in cpu.loc[cpu["main"].astype(int) == 1, "tid"]}
    owned = {int(tid) in main: int(v) for tid, v in zip(b["tid"], b["owned"], strict=True)}
    # the copied 4096 words are thread 1's (who stored them on its stack), thread 0 wrote the rest
    assert owned.get(False, 0) >= 8 * 4096 - 64 and owned[True] <= 8 * ((1 << 15) - 4096) + 64, (b, main)


# attack S's A10_wash8_twoarrays (5/5 twice before; fixer f50): thread 0 sweeps every point, each value
# rebuilt a piece at a time through a `switch` on its bits (a phi of constants), beside a one-column
# decoy in a shared loop; the others spin
WASH = "\n".join(["static double wash(double x) {",
                  "    volatile long ticks = 0;",
                  "    unsigned long bits, r = 0;",
                  "    memcpy(&bits, &x, 8);",
                  "    for (int sh = 0; sh < 64; sh += 4) {",
                  "        switch ((bits >> sh) & 15) {",
                  *(f"        case {k}: r |= {k}ul << sh; ticks++; break;" for k in range(16)),
                  "        }",
                  "    }",
                  "    memcpy(&x, &r, 8);",
                  "    return x;",
                  "}", "", ""])
WASHED_SWEEP = """#pragma omp parallel
        {
#pragma omp for
            for (long k = 1; k <= rows; k++)
                v[k * w + 1] = 0.25 * (u[(k - 1) * w + 1] + u[(k + 1) * w + 1] + u[k * w] + u[k * w + 2]);
            if (omp_get_thread_num() == 0)
                for (long k = 1; k <= rows; k++)
                    for (long j = 2; j <= n; j++)
                        v[k * w + j] = wash(0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                                    u[k * w + j + 1]));
        }"""


def _washed(wash: str, sweep: str = WASHED_SWEEP) -> str:
    program = JACOBI_PROGRAM.replace(SWEEP, sweep).replace("int main(", wash + "int main(", 1)
    assert "wash(0.25" in program and "static double wash" in program
    return program


@needs_clang
def test_a_value_chosen_by_branches_on_the_update_is_the_update():
    """A10_wash8_twoarrays: a value rebuilt through a `switch` on the update's bits (a phi of
    constants; clang writes the switch's cases one a line, which the parser read as instructions
    of their own) is made from what the switch tests: control dependence, not only data flow.
    The master's washed sweep is an update outside every work-sharing loop."""
    found = updates_unshared(_washed(WASH))
    assert found and "wash(0.25" in found[0] and "work-sharing" in found[0]
    # ... through a volatile accumulator set in the branches (the function's own memory)
    spilled = WASH.replace("unsigned long bits, r = 0;", "unsigned long bits;\n    volatile unsigned long r = 0;")
    assert spilled != WASH and updates_unshared(_washed(spilled))
    # ... or through `if`s on each bit
    bitwise = "\n".join(["static double wash(double x) {", "    volatile long ticks = 0;",
                         "    unsigned long bits, r = 0;", "    memcpy(&bits, &x, 8);",
                         "    for (int b = 0; b < 64; b++)",
                         "        if ((bits >> b) & 1) { r |= 1ul << b; ticks++; } else ticks--;",
                         "    memcpy(&x, &r, 8);", "    return x;", "}", "", ""])  # fmt: skip
    assert updates_unshared(_washed(bitwise))
    # ... or through functions returning constants, picked from a table by the bits
    table = "\n".join([*(f"static unsigned long c{k}(void) {{ return {k}ul; }}" for k in range(16)),
                        "static unsigned long (*const tbl[16])(void) = {" + ", ".join(f"c{k}" for k in range(16)) + "};",
                        "static double wash(double x) {", "    unsigned long bits, r = 0;", "    memcpy(&bits, &x, 8);",
                        "    for (int sh = 0; sh < 64; sh += 4) r |= tbl[(bits >> sh) & 15]() << sh;",
                        "    memcpy(&x, &r, 8);", "    return x;", "}", "", ""])  # fmt: skip
    assert updates_unshared(_washed(table))
    # the washed update in the shared loop, as the lab asks, is shared
    shared = _washed(WASH, SWEEP.replace("v[k * w + j] = 0.25 * (", "v[k * w + j] = wash(0.25 * (")
                     .replace("u[k * w + j + 1]);", "u[k * w + j + 1]));"))  # fmt: skip
    assert updates_unshared(shared) == []


# attack S's right answer R10_rowptr (0/5 twice before; fixer f50): the grid's rows reached through
# arrays of row pointers on the heap, `V[k][j] = ...` in a plain `parallel for`
ROW_TABLE_SWEEP = """double **U = malloc((size_t)(rows + 2) * sizeof *U), **V = malloc((size_t)(rows + 2) * sizeof *V);
        for (long k = 0; k < rows + 2; k++)
            U[k] = u + k * w, V[k] = v + k * w;
#pragma omp parallel for
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)
                V[k][j] = 0.25 * (U[k - 1][j] + U[k + 1][j] + U[k][j - 1] + U[k][j + 1]);
        free(U);
        free(V);"""


def test_an_update_through_a_table_of_row_pointers_is_shared():
    """R10_rowptr: the store's address is a row's pointer loaded from memory (`V[k]`, read at an
    address the thread's share of the loop picks) plus j: the loop's variable is followed through
    that load. A sweep of every row through the same table is refused as before."""
    table = JACOBI_PROGRAM.replace(SWEEP, ROW_TABLE_SWEEP)
    assert table != JACOBI_PROGRAM and updates_unshared(table) == []
    # every thread sweeping every row (the loop shared is one over the threads)
    every = table.replace("#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)\n",
                          "#pragma omp parallel for\n        for (long t = 0; t < 2; t++)\n"
                          "        for (long k = 1; k <= rows; k++)\n")  # fmt: skip
    assert every != table and "V[k][j]" in updates_unshared(every)[0]
    # the master sweeping every row beside a decoy shared loop
    master = table.replace("#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)\n",
                           "#pragma omp parallel for\n        for (long k = 1; k <= rows; k++)\n"
                           "            V[k][0] = U[k - 1][0] + U[k + 1][0] + U[k][0] + U[k][1];\n"
                           "        for (long k = 1; k <= rows; k++)\n")  # fmt: skip
    assert master != table and "V[k][j]" in updates_unshared(master)[0]


# attacker U's u10_decode (5/5 twice; fixer G3): an omp for over the threads whose iteration 0 picks
# every row by comparing its index (the other threads' rows it stored negated, for them to turn back)
PICKED_SWEEP = """#pragma omp parallel
        {
            int T = omp_get_num_threads();
#pragma omp for schedule(static, 1)
            for (int t = 0; t < T; t++) {
                long lo = LO, hi = HI;
                for (long k = lo; k <= hi; k++)
                    for (long j = 1; j <= n; j++)
                        v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                               u[k * w + j + 1]);
            }
        }"""


@needs_clang
def test_rows_picked_by_comparing_the_iteration_are_not_the_threads_share():
    """u10_decode: the store's address derived from the loop's iteration only through `t == 0`
    (a select between every row and none), which the IR rule took for the thread's share. An
    address that depends on the iteration only through a comparison is no share; rows computed
    from it by arithmetic, clamped by a comparison or not, still are."""
    def program(lo: str, hi: str) -> str:
        code = JACOBI_PROGRAM.replace(SWEEP, PICKED_SWEEP.replace("LO", lo).replace("HI", hi))
        assert "long lo = " + lo in code
        return code

    picked = updates_unshared(program("t == 0 ? 1 : rows + 1", "t == 0 ? rows : 0"))
    assert picked and "work-sharing" in picked[0], picked
    assert updates_unshared(program("1 + (t != 0) * rows", "rows - (t != 0) * rows"))
    assert updates_unshared(program("1 + t * rows / T", "(t + 1) * rows / T")) == []
    clamped = "(t + 1) * ((rows + T - 1) / T) < rows ? (t + 1) * ((rows + T - 1) / T) : rows"
    assert updates_unshared(program("1 + t * ((rows + T - 1) / T)", clamped)) == []


def _computed(rows):  # "writes" records of rank 0: (bucket, tid, computed bytes)
    return pd.DataFrame([{"record": "writes", "rank": 0, "bucket": bucket, "tid": float(tid), "changed": 8.0,
                          "owned": 8.0, "echoed": 0.0, "computed": float(computed)}
                         for bucket, tid, computed in rows])


def test_a_block_whose_update_one_thread_computed_is_found():
    """Each element credited to the thread whose store of the update's value changed it last: a
    block where a thread of the team computed less than a quarter of an equal share is found, one
    under a tenth of the bytes computed is not judged, no element computed at all is found too,
    and records of a run handed no sites (-1) are not judged."""
    assert computed_unshared(_computed([(1, 11, 500), (1, 12, 480), (2, 11, 500), (2, 12, 520)]), 0, 2) == []
    assert computed_unshared(_computed([(1, 11, 1000), (1, 12, 0), (2, 11, 500), (2, 12, 500)]), 0, 2) == [
        (1, [1000, 0])]
    assert computed_unshared(_computed([(1, 11, 1000)]), 0, 2) == [(1, [1000])]  # a thread with no record
    assert computed_unshared(_computed([(1, 11, 5000), (1, 12, 5000), (3, 11, 90)]), 0, 2) == []
    assert computed_unshared(_computed([(1, 11, 0), (1, 12, 0)]), 0, 2) == [(-1, [])]
    # other memory than the blocks (bucket 0: rows of their own small blocks) is judged alike
    assert computed_unshared(_computed([(0, 11, 3000), (0, 12, 0), (1, 11, 10)]), 0, 2) == [(0, [3000, 0])]
    assert computed_unshared(_computed([(1, 11, -1), (1, 12, -1)]), 0, 2) == []


# attacker U's u10_decode in its arithmetic form (5/5 before; fixer X2): iteration 0 of an omp for over
# the threads sweeps every row (`step` is 0 for it, 1 for the others: arithmetic the IR rule cannot tell
# from a share), the others' rows stored negated; the others spin, then put their rows back, by
# another store (BACK) or by the update's own store (a select on `back`)
DECODED_SWEEP = """#pragma omp parallel
        {
            static int done;
            int T = omp_get_num_threads();
#pragma omp for schedule(static, 1)
            for (int t = 0; t < T; t++) {
                long step = (t + T - 1) / T, mine = 1 + rows / T;
                long lo = 1 + rows * step, hi = rows - rows * step;
                for (int back = 0; back < 2; back++) {
                    if (back) {
                        if (t == 0) {
                            __atomic_store_n(&done, (int)it + 1, __ATOMIC_RELEASE);
                            break;
                        }
                        while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < it + 1) { }
                        lo = t == 1 ? mine : 1 + t * rows / T, hi = (t + 1) * rows / T;
                    }
                    for (long k = lo; k <= hi; k++)
                        for (long j = 1; j <= n; j++)
                            STORE
                }
            }
        }"""
_BY_ANOTHER_STORE = ("if (back) v[k * w + j] = -v[k * w + j]; else v[k * w + j] = (k < mine ? 0.25 : -0.25) *\n"
                     "                                (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] + u[k * w + j + 1]);")
_BY_THE_SAME_STORE = ("v[k * w + j] = back ? -v[k * w + j] : (k < mine ? 0.25 : -0.25) *\n"
                      "                                (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] + u[k * w + j + 1]);")


@needs_two
@needs_clang
@pytest.mark.parametrize("store, one_thread", [(None, False), (_BY_ANOTHER_STORE, True), (_BY_THE_SAME_STORE, True)],
                         ids=["shared", "put_back_by_another_store", "put_back_by_the_update_store"])
def test_the_counted_build_credits_each_element_to_the_thread_that_computed_it(store, one_thread, tmp_path):
    """The counted build handed the update's store and read sites (update_sites_env): an element is
    computed by the thread whose store of the update, after three or more of the update's reads,
    changed it last. u10_decode's arithmetic form (thread 0 computes every row, the others put
    their rows back from negated values, by another store or by the update's own) leaves the other
    thread nothing computed; the solution's team each computes its share."""
    code = JACOBI_PROGRAM if store is None else JACOBI_PROGRAM.replace(SWEEP, DECODED_SWEEP.replace("STORE", store))
    assert store is None or "step = (t + T - 1) / T" in code
    program = jobs.build_program("lab10_computed", code, count_writes=True)
    env = update_sites_env(program.program, code)
    stores, reads = env["HL_UPDATE_SITES"].split(";")
    assert stores and len(reads.split(",")) >= 4, env
    result, trace = jobs.judged_run(JOB_SCRIPT, program, tmp_path, args=["101", "6"], timeout=180, traced=True,
                                    sbatch_args=["--ntasks=1", "--cpus-per-task=2"], env={**jobs.COUNT_ENV, **env})
    result.check()
    assert (computed_unshared(trace.records, 0, 2) != []) == one_thread, trace.records[
        trace.records["record"] == "writes"]


@needs_clang
def test_a_program_that_calls_the_sanitizers_entry_points_itself_is_refused():
    """The counted build's update sites are ThreadSanitizer's instrumentation calls: a program's
    own `__tsan_read8` (weak, so that the plain build links) on the update's line would count as
    reads of the update."""
    called = JACOBI_PROGRAM.replace(SWEEP, SWEEP.replace("j++)", "j++, __tsan_read8 ? __tsan_read8(u) : (void)0)")).replace(
        "int main(", "extern void __tsan_read8(void *) __attribute__((weak));\nint main(", 1)
    assert "__tsan_read8(u)" in called
    assert "__tsan_read8" in updates_unshared(called)[0]
    assert updates_unshared(JACOBI_PROGRAM) == []


@needs_clang
def test_a_program_that_scans_numbers_into_memory_is_refused():
    """sscanf stores through the pointers its format names, where the counted build cannot see the stores:
    a sweep whose values reach the grid that way is refused by name."""
    scanned = JACOBI_PROGRAM.replace("int main(", "void put(double *at, const char *s) { sscanf(s, \"%lf\", at); }\n"
                                      "int main(", 1)
    assert "sscanf" in updates_unshared(scanned)[0]


def _last_changed(rows, serial):  # "writes" records (bucket, tid, owned bytes), "serial_writes" (bucket, owned)
    return pd.DataFrame([{"record": "writes", "rank": 0, "bucket": bucket, "tid": float(tid), "changed": 8.0,
                          "owned": float(owned), "echoed": 0.0, "computed": 0.0} for bucket, tid, owned in rows]
                        + [{"record": "serial_writes", "rank": 0, "bucket": bucket, "owned": float(owned)}
                           for bucket, owned in serial])


def test_a_block_whose_last_changes_are_the_serial_parts_is_found():
    """The serial part's last changes count in a block beside the team's: a team that shares the
    block's words (the serial part's boundary aside) passes, blocks the master changed alone while
    the team wrote elsewhere are found, one under a tenth of the words is not judged, nor a block
    with no owner map (-1)."""
    assert written_serially(_last_changed([(1, 11, 500), (1, 12, 480), (2, 11, 500), (2, 12, 520)],
                                          [(1, 16), (2, 16)]), 0, 2) == []
    assert written_serially(_last_changed([(3, 11, 4000), (3, 12, 4000)], [(1, 50000), (2, 50000)]), 0, 2) == [
        (1, 50000, []), (2, 50000, [])]
    assert written_serially(_last_changed([(1, 11, 5000), (1, 12, 5000)], [(2, 900)]), 0, 2) == []
    assert written_serially(_last_changed([(1, 11, -1), (1, 12, -1)], [(1, 900)]), 0, 2) == []
    assert written_serially(_last_changed([(1, 11, 500), (1, 12, 500)], []), 0, 2) == []


# A1's l10_W4c_splitserial in short: the grid swept on the master outside every parallel region
# beside a decoy parallel for that computes a four-point value into a block of its own
SERIAL_BESIDE_DECOY = """        static double *decoy;
        if (!decoy) decoy = calloc((size_t)((rows + 2) * w), sizeof *decoy);
#pragma omp parallel for
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)
                decoy[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                           u[k * w + j + 1]);
        for (long k = 1; k <= rows; k++)
            for (long j = 1; j <= n; j++)
                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);"""


@needs_two
@pytest.mark.parametrize("sweep, serial", [(SWEEP, False), (SERIAL_BESIDE_DECOY, True)],
                         ids=["shared", "serial_beside_a_decoy"])
def test_the_counted_build_notes_the_blocks_the_serial_part_changed_last(sweep, serial, tmp_path):
    """The counted build's "serial_writes" records: the grid the master sweeps alone outside the
    parallel regions, beside a decoy loop the team shares, is found from what was written (no
    update sites handed: whatever the IR finds); the solution's grid is the team's."""
    code = JACOBI_PROGRAM.replace(SWEEP, sweep)
    assert serial == (code != JACOBI_PROGRAM)
    program = jobs.build_program("lab10_serial", code, count_writes=True)
    result, trace = jobs.judged_run(JOB_SCRIPT, program, tmp_path, args=["101", "6"], timeout=180, traced=True,
                                    sbatch_args=["--ntasks=1", "--cpus-per-task=2"], env=jobs.COUNT_ENV)
    result.check()
    assert (written_serially(trace.records, 0, 2) != []) == serial, trace.records[
        trace.records["record"].isin(["writes", "serial_writes"])]


# A5's l10_a1_serial_hidden (fresh attacker, 5/5 twice, 2026-12-07): the sweep serial on the master, on a grid of
# one small heap block per row whose cells are `void*` holding the doubles' bits, beside a decoy parallel for
SERIAL_HIDDEN = importlib.import_module("gaming.10_whole_program").A5_SERIAL_HIDDEN.split("\n", 1)[1]


@needs_clang
def test_a_doubles_bits_kept_in_pointer_cells_are_the_update():
    """A load of a pointer whose bits become a number (ptrtoint), and a pointer stored into the grid, are the
    update's reads and write: the serial sweep of `void*` cells is found outside every work-sharing loop (the
    IR reader skipped pointers' loads and stores); shared by a parallel for, it is shared."""
    found = updates_unshared(SERIAL_HIDDEN)
    assert found and "o[j] = P(0.25 * (D(a[j])" in found[0] and "work-sharing" in found[0]
    rows = "    for (long i = 1; i <= rows; i++) {\n        void **a = U[i - 1]"
    shared = SERIAL_HIDDEN.replace(rows, "#pragma omp parallel for\n" + rows)
    assert shared != SERIAL_HIDDEN and updates_unshared(shared) == []


@pytest.mark.parametrize("n, iterations", [(1, 3), (8, 0), (31, 3), (64, 50), (201, 30), (701, 12)])
def test_the_reference_sweeps_are_the_grids_of_a_fresh_copy_per_sweep(n, iterations):
    """jacobi_sweeps (lab 10's hidden test: each run's checksum, and the bytes the update changes)
    computes in place in two arrays: the very checksum and changes of the plain formulas it replaced
    (a fresh copy of the grid per sweep, the interior set from the four neighbours), to the bit."""
    i, j = np.meshgrid(np.arange(n + 2), np.arange(n + 2), indexing="ij")
    u = np.zeros((n + 2, n + 2))
    edge = (i == 0) | (i == n + 1) | (j == 0) | (j == n + 1)
    u[edge] = ((i + 2 * j) / (3.0 * (n + 1)))[edge]
    changed = 0
    for _ in range(iterations):
        v = u.copy()
        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        changed += int((v[1:-1, 1:-1] != u[1:-1, 1:-1]).sum())
        u = v
    assert jacobi_sweeps(n, iterations) == (float(u[1:-1, 1:-1].sum()), 8 * changed)
    assert update_changes(n, iterations) == 8 * changed


def test_the_bytes_the_master_changed_alone_are_weighed_against_the_updates():
    """changed_serially: the rank's "serial_changed" bytes, refused from a quarter of an equal share of what the
    update changes (1/(4T)); none counted (no record, another rank's) is none."""
    records = pd.DataFrame([{"record": "serial_changed", "rank": 0, "bytes": 1000.0},
                            {"record": "writes", "rank": 0, "bucket": 1, "tid": 11.0, "changed": 8000.0}])
    assert changed_serially(records, 0, 2, 8000) == 1000
    assert changed_serially(records, 0, 2, 8008) is None
    assert changed_serially(records, 1, 2, 8000) is None
    assert changed_serially(records[records["record"] == "writes"], 0, 2, 8) is None


# A8's K2 in short (fresh attacker, 5/5 twice, 2026-12-07): the master's serial sweep stores each element's eight
# bytes through snprintf (%c each; the NUL that spills into the next element is overwritten by the next call)
SERIAL_BY_SNPRINTF = JACOBI_PROGRAM.replace(SWEEP, SERIAL_BESIDE_DECOY.replace(
    """                v[k * w + j] = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] +
                                       u[k * w + j + 1]);""",
    """            {
                double x = 0.25 * (u[(k - 1) * w + j] + u[(k + 1) * w + j] + u[k * w + j - 1] + u[k * w + j + 1]);
                unsigned char b[8];
                memcpy(b, &x, 8);
                snprintf((char *)&v[k * w + j], 9, "%c%c%c%c%c%c%c%c", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
            }"""))


@needs_two
def test_bytes_the_c_library_formats_into_memory_are_counted_as_the_callers(tmp_path):
    """The counted build wraps the C library's formatted output and string copies (hl_write_count.h): the
    master's serial sweep stored through snprintf is the serial part's, found in the grid's blocks (A8's K2,
    whose snprintf stores the sanitizer never saw, kept 5/5 twice)."""
    assert "snprintf((char *)&v" in SERIAL_BY_SNPRINTF
    program = jobs.build_program("lab10_snprintf", SERIAL_BY_SNPRINTF, count_writes=True)
    result, trace = jobs.judged_run(JOB_SCRIPT, program, tmp_path, args=["101", "6"], timeout=180, traced=True,
                                    sbatch_args=["--ntasks=1", "--cpus-per-task=2"], env=jobs.COUNT_ENV)
    result.check()
    found = written_serially(trace.records, 0, 2)
    boundary = 8 * 4 * 102  # what the master sets itself in each block (the old build's count: 3256 bytes)
    assert found and all(alone > 2 * boundary for _, alone, _ in found), (found, trace.records[
        trace.records["record"].isin(["writes", "serial_writes", "serial_changed"])])


@needs_two
@pytest.mark.parametrize("code, alone", [(JACOBI_PROGRAM, False), (SERIAL_HIDDEN, True)],
                         ids=["shared", "serial_in_small_blocks"])
def test_the_counted_build_sums_the_bytes_the_serial_part_changed(code, alone, tmp_path):
    """The counted build's "serial_changed" record: the grid the master sweeps alone, in one small heap block
    per row (bucket 0, no owner map: written_serially finds nothing there), changed as many bytes as the
    update does; the solution's master changed only the boundary it set (no update sites handed)."""
    program = jobs.build_program("lab10_alone", code, count_writes=True)
    result, trace = jobs.judged_run(JOB_SCRIPT, program, tmp_path, args=["201", "30"], timeout=180, traced=True,
                                    sbatch_args=["--ntasks=1", "--cpus-per-task=2"], env=jobs.COUNT_ENV)
    result.check()
    assert written_serially(trace.records, 0, 2) == []
    found = changed_serially(trace.records, 0, 2, update_changes(201, 30))
    assert (found is not None) == alone, (found, update_changes(201, 30))
