"""A student's C is judged from its object and its preprocessed unit (hybridlab.kernels.unit_checks), and
its records reach the grader framed with a key it cannot read (kernels_c/hl_trace.c,
hybridlab.runs.records.parse_framed): each attack a determined student who reads the installed kit
tried (issue 36, kinds 1, 2, 3 and 5) is built here as real C and refused with a message naming
the cell's line, and a right answer written another way still builds."""

from __future__ import annotations

import importlib
import os
import subprocess
from pathlib import Path

import pytest

import hybridlab as hl
from hybridlab.kernels.c_cells import CCellError, cell_text, compile_check
from hybridlab.runs.records import RecordError, parse_framed
from hybridlab.runs.student_c import build_student, preprocessed
from hybridlab.slurm.jobs import build_program
from solutions_c import NODE_SUM
from whole_program_c import JACOBI_PROGRAM

# node_sum's masked block, where the attacks put their MPI call
MASKED_ALLREDUCE = "            MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);"
assert MASKED_ALLREDUCE in NODE_SUM


def _with_allreduce(call: str, before: str = "") -> str:
    """NODE_SUM with its leaders' MPI_Allreduce made as `call`, `before` at the top."""
    return before + NODE_SUM.replace(MASKED_ALLREDUCE, f"            {call}")


def _refused(code: str, name: str) -> str:
    with pytest.raises(hl.BuildError) as refused:
        build_student(name, "node_sum", "HL_STUDENT_NODES", code, ("split_nodes", "node_sum"))
    return str(refused.value)


def _line_of(code: str, text: str) -> int:
    """The cell line (1-based, as the cell magic numbers them) holding `text`."""
    return next(i for i, line in enumerate(code.split("\n"), 1) if text in line)


UNTRACED = {  # kind 1: calls the tracer never sees, each spelt so that a text filter misses it
    "line splice before def": (
        "#un\\\ndef MPI_Allreduce\n", "MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);"),
    "push_macro": (
        '#pragma push_macro("MPI_Allreduce")\n#undef MPI_Allreduce\n',
        "MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);"),
    "self-redefinition": (
        "#define MPI_Allreduce MPI_Allreduce\n",
        "MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);"),
    "undef between strings holding comment markers": (
        'static const char *open_ = "/*";\n#undef MPI_Allreduce\nstatic const char *close_ = "*/";\n',
        "(void)open_; (void)close_; MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);"),
    "pasted profiling name": (
        "#define JOIN(a, b) a##b\n",
        "JOIN(PMPI_, Allreduce)(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);"),
    "asm label": (
        'int real_allreduce(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm) '
        '__asm__("MPI_Allreduce");\n',
        "real_allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);"),
    "dlsym": (
        "#include <dlfcn.h>\n",
        "((int (*)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm))dlsym(RTLD_DEFAULT, "
        '"PMPI_Allreduce"))(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);'),
}


@pytest.mark.parametrize("attack", sorted(UNTRACED))
def test_a_call_round_the_tracer_is_refused_at_its_line(attack):
    before, call = UNTRACED[attack]
    code = _with_allreduce(call, before)
    message = _refused(code, "t_untraced")
    assert f"cell:{_line_of(code, call)}" in message, message
    assert "tracer" in message or "dynamic linker" in message or "asm" in message, message
    assert "not traced by the kit" not in message, message  # an evasion, said so


def test_an_mpi_function_the_kit_does_not_trace_is_named_as_such_at_its_line():
    """Called by its mpi.h name, a function the tracer has no entry for is no evasion: the
    refusal says it is not traced and names what the part allows, at build and in the cell's
    own compile check."""
    call = ("{ MPI_Request r; MPI_Iscan(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders, &r); "
            "MPI_Wait(&r, MPI_STATUS_IGNORE); }")
    code = _with_allreduce(call)
    line = _line_of(code, call)
    with pytest.raises(CCellError) as checked:  # the cell magic's check, as the cell is run
        compile_check(code, "node_sum")
    for message, where in ((_refused(code, "t_not_traced"), f"cell:{line}"),
                           (str(checked.value), f"line {line}")):  # fmt: skip
        assert f"{where}: error: MPI_Iscan is not traced by the kit; this part allows: " \
               in message, message
        allowed = message.split("this part allows: ", 1)[1].split("\n", 1)[0].split(", ")
        assert {"MPI_Allreduce", "MPI_Ineighbor_alltoallw", "MPI_Wait"} <= set(allowed), allowed
        assert "MPI_Iscan" not in allowed and "tracer's sight" not in message, message


# What a fresh attacker used (issue 36, 2026-12-02): the real MPI_Allreduce read from a slot of
# the object's own GOT (found by walking back from a function's address to the ELF header, its
# dynamic section and relocations: plain memory reads, no name the symbol check sees), then
# called through the pointer. Any pointer the cell computes is refused the same way, at its line.
GOT_CALL = ("typedef int (*allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);\n"
            "static allreduce_fn found_in_memory(void) {\n"
            "    volatile unsigned long slot = (unsigned long)&found_in_memory;  /* a walk stands here */\n"
            "    return (allreduce_fn)(slot ^ 0x40);\n}\n")  # fmt: skip


def test_a_function_reached_through_a_pointer_found_in_memory_is_refused_at_its_line():
    call = "found_in_memory()(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);"
    code = _with_allreduce(call, GOT_CALL)
    message = _refused(code, "t_got")
    assert f"cell:{_line_of(code, call)}" in message and "function pointer" in message, message


def test_a_switch_still_builds():
    """-fno-jump-tables: a switch is compare-and-branch, never an indirect jump. (An inlined kit
    helper's indirect call, hl_measure calling the test it is given, is the kit's, not the cell's:
    lab 02's solution below builds.)"""
    switch = NODE_SUM.replace(
        MASKED_ALLREDUCE,
        "            switch (n % 7) { case 0: case 1: break; case 2: case 3: n += 0; break;\n"
        "            case 4: n -= 0; break; case 5: case 6: break; default: break; }\n"
        + MASKED_ALLREDUCE)
    build_student("t_switch", "node_sum", "HL_STUDENT_NODES", switch, ("split_nodes", "node_sum"))


INTERPOSED = {  # kind 3: a global that would replace the library's for the kit's timers too
    "clock_gettime": "int clock_gettime(clockid_t c, struct timespec *t) { (void)c; t->tv_sec = 0; "
                     "t->tv_nsec = 0; return 0; }\n",
    "omp_get_thread_num": "int omp_get_thread_num(void) { return 0; }\n",
    "MPI_Is_thread_main": "#undef MPI_Is_thread_main\nint MPI_Is_thread_main(int *flag) { *flag = 1; "
                          "return 0; }\n",
}


@pytest.mark.parametrize("name", sorted(INTERPOSED))
def test_a_cell_that_would_interpose_a_library_function_is_refused(name):
    code = NODE_SUM + INTERPOSED[name]
    message = _refused(code, "t_interpose")
    assert f"defines the global {name}" in message and "replace the library" in message, message


def test_a_global_helper_is_refused_and_a_static_one_builds():
    helper = "double add_up(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }\n"
    message = _refused(NODE_SUM + helper, "t_helper")
    assert f"cell:{_line_of(NODE_SUM + helper, 'add_up')}" in message and "make it static" in message
    build_student("t_helper_static", "node_sum", "HL_STUDENT_NODES", NODE_SUM + "static " + helper,
                  ("split_nodes", "node_sum"))


@pytest.mark.parametrize("reach", [
    "extern void hl_trace_compute(double, double);\n",  # the interval recorder, named
    "#define HL(x) hl_##x\nextern void HL(trace_compute)(double, double);\n",  # ... pasted
])
def test_the_kits_recorder_cannot_be_reached_from_a_cell(reach):
    code = NODE_SUM.replace("#pragma omp masked", "    hl_trace_compute(0.0, 1.0);\n#pragma omp masked", 1)
    code = reach + code.replace("hl_trace_compute(0.0", "HL(trace_compute)(0.0") if "HL(" in reach \
        else reach + code  # fmt: skip
    message = _refused(code, "t_recorder")
    assert "hl_trace_compute" in message and "kit's own" in message, message


def test_asm_a_line_directive_a_foreign_include_and_a_kit_header_are_refused(tmp_path):
    asm = NODE_SUM.replace("#pragma omp barrier\n}", '#pragma omp barrier\n    __asm__ volatile("nop");\n}', 1)
    assert "uses asm" in _refused(asm, "t_asm")
    moved = '#line 1 "/usr/include/stdio.h"\n' + NODE_SUM
    assert "no #line in a cell" in _refused(moved, "t_line")
    header = tmp_path / "mine.h"
    header.write_text("static int mine(void) { return 1; }\n")
    assert "a cell includes system and MPI headers" in _refused(f'#include "{header}"\n' + NODE_SUM, "t_include")
    # a kit header the part does not give: its static functions would do the part's work (a fresh
    # attacker's n04hurry called hl_grid2d.h's halo exchange in lab 04 (a), 2026-12-05)
    kit = _refused('#include "hl_grid2d.h"\n' + NODE_SUM, "t_kit_include")
    assert "includes hl_grid2d.h, a header of the kit's kernels" in kit, kit
    # ... whatever path leads to it (a fresh attacker's p04inc went through MPI's include folder)
    from hybridlab.kernels.unit_checks import _wrapper_includes
    from hybridlab.paths import kernel_dirs
    from hybridlab.runs.student_c import unit_flags
    mpi = _wrapper_includes(unit_flags()[0])[0]
    round_about = f'#include "{mpi}/{os.path.relpath(kernel_dirs()[0], mpi)}/hl_grid2d.h"\n'
    assert "includes hl_grid2d.h" in _refused(round_about + NODE_SUM, "t_kit_round_about")
    # one the unit includes already is no refusal
    build_student("t_kit_again", "node_sum", "HL_STUDENT_NODES", '#include "hybridlab.h"\n' + NODE_SUM,
                  ("split_nodes", "node_sum"))


@pytest.mark.parametrize("spelling, refused", [
    ("void *volatile *fp = __builtin_frame_address(0); (void)fp;", "__builtin_frame_address"),
    ("void *volatile back = __builtin_return_address(0); (void)back;", "__builtin_return_address"),
    ("volatile char *room = __builtin_alloca(64); room[0] = 0;", "__builtin_alloca"),
    ("volatile char *room = alloca(64); room[0] = 0;", "__builtin_alloca"),  # alloca.h's macro
])
def test_a_cell_that_reaches_the_stack_it_returns_through_is_refused(spelling, refused):
    """A fresh attacker's K1 and K2 (labs 02 (d) and 16 (a), full points twice, 2026-12-06): a cell
    found its return slot with __builtin_frame_address, reserved room above it with
    __builtin_alloca and rewrote its return address, so that its `ret` went into the C library's
    pwrite64 (a call the symbols never showed) and wrote the kit's sealed page through the kit's
    own descriptor. Every builtin that reaches or reshapes that stack is refused at its line; a
    variable-length array (an array's room from its declaration) still builds."""
    code = "#include <alloca.h>\n" + NODE_SUM.replace(
        "#pragma omp barrier\n}", f"#pragma omp barrier\n    {{ {spelling} }}\n}}", 1)
    message = _refused(code, "t_stack")
    line = _line_of(code, spelling.split(" = ")[0])
    assert f"cell:{line}: error: uses {refused}, which reaches or reshapes the stack" in message, message
    vla = NODE_SUM.replace("#pragma omp barrier\n}",
                           "#pragma omp barrier\n    { volatile double row[n]; row[0] = 0; }\n}", 1)
    build_student("t_stack_vla", "node_sum", "HL_STUDENT_NODES", vla, ("split_nodes", "node_sum"))


def test_a_line_directive_in_a_cell_is_refused():
    """A fresh attacker's line markers (labs 03, 04, 12, 4/4 kept, 2026-12-05): `# 1 "cell" 3`
    made the cell a system header's (a kit header then passed) or raised the include depth (a
    taskwait hidden from the text checks); one naming a kit file made its code pass for the kit's.
    Read as the preprocessor reads them: after a backslash, after a comment, as a digraph; not in
    a string, a comment or a // comment's continued line."""
    from hybridlab.kernels.unit_checks import line_directives

    head = '#include "x.h"\n#line 1 "cell"\n'
    found = {code: line_directives(head + code) for code in (
        'int a;\n# 1 "cell" 3\nint b;\n', 'int a;\n  #line 40\n', '%: 7 "x"\n',
        'int a;\n#\\\n 1 "cell" 3\n', 'int a;\n/* c */ # 5 "cell"\n',
        '/*\n # 9 "no" \n*/\nint a;\n', 'const char *s = "# 1 \\"cell\\"";\n',
        '#pragma omp parallel\n#include <stdio.h>\n#define X 1\n#if 1\n#endif\n',
        '// note \\\n# 1 "cell" 3\nint a;\n')}
    assert list(found.values()) == [[2], [2], [1], [2], [2], [], [], [], []], found
    marked = _refused('# 1 "cell" 3\n#include "hl_grid2d.h"\n' + NODE_SUM, "t_line_marker")
    assert "cell:1: error: holds a line directive" in marked, marked


def test_a_constructor_is_refused():
    code = NODE_SUM + ("static volatile int early_ran;\n"
                       "__attribute__((constructor)) static void early(void) { early_ran = 1; }\n")
    assert "constructor" in _refused(code, "t_ctor")


def test_an_indirect_function_is_refused_and_no_library_is_loaded_to_read_parameters():
    """An ifunc's resolver runs as its library loads: a cell whose part's function is one would
    run code before the kit's, in whatever process loaded it (the kit once loaded the student's
    library in the grader's own process to read the parameter table)."""
    code = NODE_SUM.replace("void node_sum(", "static void node_sum_body(", 1) + (
        "static void *pick(void) { return (void *)node_sum_body; }\n"
        "void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,\n"
        '              MPI_Comm leaders) __attribute__((ifunc("pick")));\n')
    assert "indirect function (ifunc)" in _refused(code, "t_ifunc")
    kernel = build_student("t_params", "node_sum", "HL_STUDENT_NODES", NODE_SUM, ("split_nodes", "node_sum"))
    assert kernel.params and str(kernel.library) not in Path("/proc/self/maps").read_text()


def test_the_preprocessed_cell_has_no_comments_or_disabled_pragmas():
    code = ("void task_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {\n"
            "    // #pragma omp task depend(out: a)\n#if 0\n#pragma omp task depend(in: a)\n#endif\n"
            "    (void)a; (void)m; (void)nx; (void)up; (void)down; (void)comm;\n}\n")
    text = preprocessed("thread_halo", "HL_STUDENT_TASKS", code)
    assert "depend" not in text and "task_iteration" in text
    from hybridlab.thread_comm.exercise import build_student_tasks
    with pytest.raises(ValueError, match="depend"):
        build_student_tasks(code, "t_tasks_comment")


def test_a_lock_taken_through_a_function_pointer_is_seen():
    from hybridlab.sync.exercise import check_method
    from solutions_c import CONSTRUCT_ATOMIC
    pointer = CONSTRUCT_ATOMIC.replace(
        "#pragma omp atomic\n        s->updates += 1;",
        "{ static omp_lock_t lk; void (*take)(omp_lock_t *) = omp_set_lock;\n"
        "          void (*give)(omp_lock_t *) = omp_unset_lock; take(&lk);\n"
        "#pragma omp atomic\n          s->updates += 1;\n          give(&lk); }")
    with pytest.raises(AssertionError, match="omp_set_lock"):
        check_method(pointer)


def test_a_spin_lock_of_the_cells_own_through_a_pointer_is_seen():
    from hybridlab.sync.exercise import check_method
    from solutions_c import CONSTRUCT_ATOMIC
    spin = CONSTRUCT_ATOMIC.replace(
        "#pragma omp atomic\n        s->updates += 1;",
        "{ static volatile int lk; void (*take)(volatile int *) = spin_take; take(&lk);\n"
        "#pragma omp atomic\n          s->updates += 1;\n          __sync_lock_release(&lk); }",
    ).replace("void construct_test", "static void spin_take(volatile int *l) {\n"
              "    while (TAKE) { }\n}\n\nvoid construct_test")
    for take in ("__sync_lock_test_and_set(l, 1)", "!__sync_bool_compare_and_swap(l, 0, 1)"):
        with pytest.raises(AssertionError, match="spin lock|atomic builtin"):
            check_method(spin.replace("TAKE", take))
    check_method(CONSTRUCT_ATOMIC)  # the atomic add itself is no spin lock


_MASTER = """const char *const construct_name = "master";
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
UPDATE
        }
AFTER
    }
}
int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}"""


@pytest.mark.parametrize("update, after, ends", [
    ("#pragma omp masked\n            s->updates += 1;\n#pragma omp barrier", "", True),
    ("#pragma omp master\n            { s->updates += 1; }\n            /* */\n#pragma omp barrier", "", True),
    ("#pragma omp masked\n            s->updates += 1;", "#pragma omp barrier", False),  # once, not per repetition
    ("#pragma omp masked\n            s->updates += 1;\n            if (inner < 0) {\n#pragma omp barrier\n            }",
     "", False),  # in a branch never taken
    ('#pragma omp masked\n            s->updates += 1;\n            (void)"#pragma omp barrier";', "", False),
])  # fmt: skip
def test_the_barrier_the_table_asks_for_is_read_from_the_preprocessed_unit(update, after, ends):
    """master: `#pragma omp barrier` after masked in the loop's body (the symbol GOMP_barrier is
    there in every case above but the last); single: no nowait."""
    from hybridlab.sync.exercise import ends_at_barrier
    assert ends_at_barrier(_MASTER.replace("UPDATE", update).replace("AFTER", after), "master") is ends
    single = _MASTER.replace('"master"', '"single"').replace("AFTER", "")
    assert ends_at_barrier(single.replace("UPDATE", "#pragma omp single\n            s->updates += 1;"), "single")
    assert not ends_at_barrier(single.replace("UPDATE", "#pragma omp single nowait\n            s->updates += 1;"),
                               "single")


# ------------------------------------------------------------------ the records' channel


def test_lines_the_program_prints_are_never_records():
    key = "k3y"
    framed = (f"@hl {key} 0 0 {{\"meta\":true,\"rank\":0,\"size\":1}}\n"
              f"@hl {key} 0 1 {{\"rank\":0,\"thread\":0,\"cpu\":0,\"numa\":0,\"record\":\"check\",\"ok\":1}}\n"
              f"@hl {key} 0 end 2 1\n")  # fmt: skip
    printed = '{"rank":0,"thread":0,"cpu":0,"numa":0,"record":"computed","start":0,"end":1}\n'
    records, ranks, output = parse_framed(printed + framed, key)
    assert [r["record"] for r in records] == ["check"] and len(ranks) == 1
    assert output == [printed.strip()]
    for forged in (f"@hl - 0 2 {printed}",  # a frame without the run's key
                   framed.replace(f"@hl {key} 0 end 2 1", f"@hl {key} 0 end 3 1"),  # a line lost
                   framed.replace(" end 2 1", " end 2 0"),  # the buffer written by other code
                   framed + framed):  # twice
        with pytest.raises(RecordError, match="forged|lost|twice"):
            parse_framed(forged if forged.startswith("@hl") else framed + forged, key)


def test_a_printed_computed_interval_does_not_count_and_a_written_buffer_is_refused():
    from hybridlab.hybrid_models.exercise import build_student_ring
    from solutions_c import RING_EXCHANGE
    printing = RING_EXCHANGE.replace(
        "int check_thread_level(hl_ctx *ctx) {\n",
        "int check_thread_level(hl_ctx *ctx) {\n    printf(\"{\\\"rank\\\":0,\\\"thread\\\":0,"
        "\\\"cpu\\\":0,\\\"numa\\\":0,\\\"record\\\":\\\"computed\\\",\\\"start\\\":0,\\\"end\\\":9}\\n\");\n")
    kernel = build_student_ring(printing, "t_ring_print")
    res = hl.run_program(kernel, ranks=2, threads=2, thread_level="serialized", iterations=1,
                         delay_us=0)
    assert res.compute.empty and any("computed" in line for line in res.meta["printed"])
    writing = RING_EXCHANGE.replace(
        "int check_thread_level(hl_ctx *ctx) {\n",
        "int check_thread_level(hl_ctx *ctx) {\n    if (ctx->len > 2) ctx->out[ctx->len - 2] = ' ';\n")
    kernel = build_student_ring(writing, "t_ring_write")
    with pytest.raises(RecordError, match="written by code other than the kit"):
        hl.run_program(kernel, ranks=2, threads=2, thread_level="serialized", iterations=1,
                       delay_us=0)


def test_a_whole_program_is_judged_by_its_symbols_too():
    build_program("t_whole_ok", JACOBI_PROGRAM)  # the solution builds
    fopen = JACOBI_PROGRAM.replace("int main(int argc, char **argv) {",
                                   "int main(int argc, char **argv) {\n    FILE *t = fopen(\"trace/trace-0.jsonl\", \"a\"); (void)t;")
    with pytest.raises(hl.BuildError, match=r"t_whole_fopen\.c:\d+: error: uses fopen"):
        build_program("t_whole_fopen", fopen)
    clock = JACOBI_PROGRAM + "int clock_gettime(clockid_t c, struct timespec *t) { (void)c; (void)t; return 0; }\n"
    with pytest.raises(hl.BuildError, match="defines the global clock_gettime"):
        build_program("t_whole_clock", clock)


def test_the_tracer_lives_in_its_own_object_with_nothing_exported(tmp_path):
    kernel = build_student("t_nodes_symbols", "node_sum", "HL_STUDENT_NODES", NODE_SUM,
                           ("split_nodes", "node_sum"))
    exported = subprocess.run(["nm", "-D", "--defined-only", str(kernel.library)],
                              capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "hl_traced_MPI_Allreduce" not in exported and "hl_trace_" not in exported
    assert "hl_entry" in exported


# --------------------------------------------------- the corpus: solutions and C-evidence attempts

# (lab, answer cell) -> the kit kernel's part define, the functions the cell defines and one MPI
# function it calls (None: none)
C_PARTS = {
    ("01_programming_models", "exchange_block"): ("HL_STUDENT_EXCHANGE", ("exchange_block",), 'MPI_Irecv'),
    ("02_synchronisation", "construct_code"): ("HL_STUDENT_CONSTRUCT", ("construct_test",), None),
    ("03_point_to_point", "overlap_exchange"): ("HL_STUDENT_P2P_OVERLAP", ("overlap_exchange",), 'MPI_Isend'),
    ("04_halo_exchange", "exchange_halos"): ("HL_STUDENT_EXCHANGE", ("exchange_halos",), 'MPI_Sendrecv'),
    ("04_halo_exchange", "overlap_iteration"): ("HL_STUDENT_OVERLAP", ("overlap_iteration",), 'MPI_Isend'),
    ("05_memory_numa", "init_arrays"): ("HL_STUDENT_TOUCH", ("init_arrays",), None),
    ("06_placement_topology", "node_sum"): ("HL_STUDENT_NODES", ("node_sum",), 'MPI_Allreduce'),
    ("07_collectives", "alltoall_nodes"): ("HL_STUDENT_ALLTOALL", ("alltoall_nodes",), 'MPI_Gather'),
    ("10_whole_program", "jacobi_program"): (None, ("main",), 'MPI_Sendrecv'),
    ("11_shared_memory", "shm_jacobi"): ("HL_STUDENT_SHM_HALO", ("shm_jacobi",), 'MPI_Win_allocate_shared'),
    ("12_threads_communicate", "exchange_slice"): ("HL_STUDENT_MULTIPLE", ("exchange_slice",), 'MPI_Isend'),
    ("12_threads_communicate", "task_iteration"): ("HL_STUDENT_TASKS", ("task_iteration",), 'MPI_Isend'),
    ("12_threads_communicate", "pready_iteration"): ("HL_STUDENT_PREADY", ("pready_iteration",), 'MPI_Psend_init'),
    ("13_neighbourhood_collectives", "neighbour_exchange"): ("HL_STUDENT_NEIGHBOUR", ("make_grid",), 'MPI_Cart_create'),
    ("13_neighbourhood_collectives", "solve_overlapped"): ("HL_STUDENT_RESIDUAL", ("solve_overlapped",), 'MPI_Iallreduce'),
}


def _build_cell(source: str, define: str | None, functions: tuple[str, ...], name: str):
    """Build a C answer cell (its magic line first) as its part does."""
    magic, body = source.split("\n", 1)
    code = "\n" + body  # the cell magic keeps its own line as an empty first line
    if define is None:
        return build_program(name, code)
    return build_student(name, magic.split()[2], define, code, functions)


@pytest.mark.parametrize("lab,answer", sorted(C_PARTS))
def test_the_solution_builds_and_every_c_evidence_attempt_is_refused(lab, answer):
    from gaming import c_evidence, solution_cell

    define, functions, call = C_PARTS[(lab, answer)]
    _build_cell(solution_cell(lab, answer), define, functions, f"t_sol_{answer}")
    for i, attempt in enumerate(c_evidence(lab, answer, {"x"}, call)):
        with pytest.raises(hl.BuildError):
            _build_cell(attempt.answers[0][1], define, functions, f"t_ev_{answer}_{i}")


ATTACKS = Path(__file__).parent / "data" / "attacks"
GOT_CELLS = {  # a fresh attacker's cells (2026-12-02) that kept full points before indirect calls
    # were refused: each reads the real MPI function from its object's GOT (got_walk.c, the
    # helper all four began with) and calls it unseen
    "04_overlap_got.c": "hybridlab.halo.exercise:build_student_overlap",
    "06_nodes_got.c": "hybridlab.mapping.exercise:build_student_nodes",
    "13_neighbour_got.c": "hybridlab.neighbour.exercise:build_student_neighbour",
    "13_residual_got.c": "hybridlab.neighbour.exercise:build_student_residual",
}


@pytest.mark.parametrize("cell", sorted(GOT_CELLS))
def test_an_attackers_got_walk_is_refused_at_build(cell):
    module, function = GOT_CELLS[cell].split(":")
    build = getattr(importlib.import_module(module), function)
    body = (ATTACKS / cell).read_text().split("\n", 1)[1]  # its %%c line left out
    code = cell_text((ATTACKS / "got_walk.c").read_text() + body)  # the walk each cell began with
    with pytest.raises(hl.BuildError, match="function pointer"):
        build(code, name=f"t_attack_{cell[:-2]}")


@pytest.mark.parametrize("use, refusal", [
    ("void omp_set_schedule_(const int *kind, const int *chunk);\n"
     "__attribute__((used)) static void reset(void) { int kind = 1, chunk = 1; omp_set_schedule_(&kind, &chunk); }\n",
     "uses omp_set_schedule_, OpenMP's Fortran binding"),
    ("void GOMP_barrier(void);\n__attribute__((used)) static void wait_all(void) { GOMP_barrier(); }\n",
     "calls GOMP_barrier, an entry point of the OpenMP runtime"),
])
def test_openmps_fortran_bindings_and_runtime_entry_points_are_refused(use, refusal):
    # the Fortran binding set the ICV lab 12 (b) reads behind omp_set_schedule's refusal (a fresh
    # attacker); a runtime entry point is a pragma the preprocessed unit would not show
    message = _refused(use + NODE_SUM, "t_omp_entry")
    assert refusal in message and "cell:2:" in message, message


SECTIONED = {  # a fresh attacker's copies moved out of hl_cell_text (attacker C's H3), spelt four ways
    "attribute": '__attribute__((section("hl_fast"), noinline)) static void fast(double *a) { a[0] = 1; }\n',
    "split attribute": 'static void __attribute__((noinline,\n    __section__("hl_fast"))) fast(double *a) { a[0] = 1; }\n',
    "pragma": '#pragma clang section text="hl_fast"\nstatic void fast(double *a) { a[0] = 1; }\n#pragma clang section text=""\n',
    "_Pragma in a macro": '#define FAST _Pragma("clang section text=\\"hl_fast\\"")\nFAST\n'
                          "static void fast(double *a) { a[0] = 1; }\n",
}


@pytest.mark.parametrize("spelling", sorted(SECTIONED))
def test_code_placed_in_a_section_of_its_own_is_refused_at_its_line(spelling):
    code = "\n" + SECTIONED[spelling] + "__attribute__((used)) static void use(double *a) { fast(a); }\n" + NODE_SUM
    message = _refused(code, "t_section")
    line = 3 if spelling.startswith("_Pragma") else 2  # the macro's use, not its definition
    assert f"cell:{line}: error: places code or data in a section of its own" in message, message


def test_the_objects_own_code_sections_are_judged_whatever_put_code_there(tmp_path):
    """The object check stands without the text's: code in any section but .text/.text.* is
    refused (the kit counts and calls only what move_cell_code renames); .text.* is not."""
    from hybridlab.kernels import unit_checks

    source = tmp_path / "u.c"
    source.write_text('#line 1 "cell"\n__attribute__((section("hl_fast"))) int fast(int x) { return x + 1; }\n'
                      "__attribute__((cold)) int slow(int x) { return x - 1; }\n"
                      "int plain(int x) { return fast(x) + slow(x); }\n")
    obj = tmp_path / "u.o"
    subprocess.run(["gcc", "-O2", "-g", *unit_checks.DEBUG_FLAGS, "-c", str(source), "-o", str(obj)], check=True)
    found = [str(r) for r in unit_checks.check_code(obj)]
    assert found == ["cell:1: error: puts code in the section hl_fast: a cell's code stays in .text, "
                     "the only code the kit counts and calls (no section attribute or pragma)"], found


def test_the_word_section_elsewhere_is_no_refusal():
    # an omp section, a string, a function named section: none places code anywhere
    code = ('\nstatic int section(int x) { return x; }\n'
            '__attribute__((used)) static const char *said = "__attribute__((section(\\"x\\")))";\n'
            '__attribute__((used)) static int two(void) {\n    int a = 0, b = 0;\n'
            '#pragma omp parallel sections\n    {\n#pragma omp section\n        a = section(1);\n'
            '#pragma omp section\n        b = 2;\n    }\n    return a + b + (said != 0);\n}\n' + NODE_SUM)
    build_student("t_section_word", "node_sum", "HL_STUDENT_NODES", code, ("split_nodes", "node_sum"))


def test_the_kits_nm_reads_the_same_symbols_without_loading_every_plugin(tmp_path):
    """Unnamed, nm loads every plugin of its folder at each start (LLVM's LLVMgold.so: 17 of its
    19 CPU ms a call, 29-42 calls a graded solution of lab 04 or 12); the kit's nm names GCC's,
    only, and lists the same symbols of a real object."""
    from hybridlab.kernels.toolchain import nm, toolchain_env

    plugins = Path(subprocess.run(["sh", "-c", "command -v nm"], capture_output=True, text=True,
                                  env=toolchain_env()).stdout.strip()).parent.parent / "lib/bfd-plugins"  # fmt: skip
    others = [p.name for p in plugins.glob("*.so") if p.name != "liblto_plugin.so"]
    if not (plugins / "liblto_plugin.so").is_file() or not others:
        pytest.skip(f"no other plugin than GCC's in {plugins} to load")
    obj = tmp_path / "unit.o"
    (tmp_path / "unit.c").write_text("int kept = 1;\nstatic int hidden(void) { return kept; }\n"
                                     "int shown(void) { return hidden() + 1; }\n")  # fmt: skip
    subprocess.run(["cc", "-g", "-c", str(tmp_path / "unit.c"), "-o", str(obj)], check=True)

    def listed(command: list[str]) -> tuple[str, str]:
        done = subprocess.run([*command, "-l", "--defined-only", str(obj)], capture_output=True,
                              text=True, check=True, env={**toolchain_env(), "LD_DEBUG": "files"})  # fmt: skip
        return done.stdout, done.stderr

    plain, plain_loaded = listed(["nm"])
    kits, kits_loaded = listed(list(nm()))
    assert any(name in plain_loaded for name in others)  # what the kit's nm avoids
    assert not any(name in kits_loaded for name in others), kits_loaded[-2000:]
    assert kits == plain and {"kept", "shown", "hidden"} <= {line.split()[2] for line in kits.splitlines()}
