"""Lab 02's runs (the only module of the topic that launches kernels): EPCC's syncbench at a
shape, OpenMP wait policies in the imbalance kernel, construct_bench (the worked example or the
student's build); and the construct exercise: the student's EPCC test loop and hl_measure call
built into construct_bench.c, and the checks that they time the construct they name.

    records = syncbench(2, 1, ["reference", "mpi_barrier"], samples=20, target_ms=1.0)
    policies = wait_policy_runs(2, work_ms=20, comm_ms=20, iterations=8)
    from hybridlab.sync.exercise import build_student_construct, check_construct
    kernel = build_student_construct(code)
    samples = check_construct(code, run_program(kernel, ranks=1, threads=2))

The checks: the source of construct_test uses the construct it names (comments and string
literals do not count), and measure_construct times it against the kit's reference_loop with
hl_measure; the compiled cell calls the OpenMP runtime the way that construct does and takes no
lock (so the update is not protected by a critical section or a lock beside a token pragma);
the run holds test and reference samples; and in the contention run (no delay) the construct let
no update of the shared counter get lost.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..kernels import counter_ir, llvm_ir, split_rmw
from ..kernels.build import Kernel
from ..kernels.c_text import (
    closing,
    code_only,
    function_body,
    functions,
    inside_loop,
    loops,
    statement_at,
)
from ..runs.launch import run_program
from ..runs.records import Results
from ..runs.student_c import (
    build_student,
    preprocessed,
    preprocessed_lines,
    student_unit,
    unit_flags,
)

EXAMPLE = "critical"  # construct_bench.c's worked example: the student measures another one

# construct -> (what its pragma looks like in construct_test, updates per repetition: "team"
# when every thread updates once, 1 when one thread does)
CONSTRUCTS = {
    "atomic": (r"#\s*pragma\s+omp\s+atomic\b", "team"),
    "reduction": (r"#\s*pragma\s+omp\s+parallel\b[^\n]*\breduction\s*\(\s*\+", "team"),
    "single": (r"#\s*pragma\s+omp\s+single\b", 1),
    "master": (r"#\s*pragma\s+omp\s+(master|masked)\b", 1),
    "critical": (r"#\s*pragma\s+omp\s+critical\b", "team"),
}
# What GCC's compiled code of each construct calls (libgomp) or does: "lock" is an atomic
# read-modify-write instruction (x86 lock prefix, or an __atomic / __aarch64 helper).
NEEDS = {
    "atomic": ("lock",),
    "reduction": ("GOMP_parallel",),
    "single": ("GOMP_single_start|GOMP_single_copy_start",),
    "master": ("omp_get_thread_num",),
}
# The table's rows that end each repetition at a barrier: masked, then `#pragma omp barrier`;
# single, whose own barrier ends it (no nowait). GCC calls GOMP_barrier for both.
BARRIER = "GOMP_barrier"
BARRIERED = ("single", "master")
SPIN = "an exchange in memory (a spin lock of the cell's own)"  # x86 xchg, __atomic_exchange
LOCKS = ("GOMP_critical_start", "GOMP_critical_name_start", "omp_set_lock", "omp_set_nest_lock",
         "omp_test_lock", "omp_test_nest_lock", "pthread_mutex_lock", "pthread_spin_lock",
         SPIN)  # fmt: skip
# what the cell's own synchronisation would be made of, beside the construct it measures: the
# compiler's atomic builtins and types (a ticket lock of fetch-and-add and loads), and a goto
# (round a barrier the table's row ends at)
HAND_MADE = r"\b(__atomic_\w+|__sync_\w+|_Atomic|goto)\b"
# what a repetition's region may call (the table's row: fork, delay, add, join)
REGION_CALLS = {"hl_delay", "construct_delay", "sizeof"}
# in the cell, hl_delay and hl_measure are the kit's counted ones (construct_bench_student.h):
# the preprocessed unit names these
DELAY_CALL = r"\b(?:hl|construct)_delay\s*\("
SKIPS = r"\b(continue|break|return|longjmp)\b"  # what leaves a repetition before its construct
_KEYWORDS = {"if", "switch", "return", "while", "for"}
_ONCE = re.compile(r"\bdo\b|\bwhile\s*\(\s*0\s*\)")  # a statement macro's do ... while (0)
_ONCE_LOOP = re.compile(r"do\b.*\bwhile\s*\(\s*0\s*\)\s*;\s*$", re.S)  # ... as a whole loop
# the constructs that protect the update of the team's shared counter themselves (the table's rows;
# reduction adds its sum after the region), and how the cell reaches that counter: through a
# construct_state pointer set from the test's argument (or a static helper's parameter)
UPDATES_SHARED = ("atomic", "single", "master")
_STATE_POINTER = r"\bconstruct_state\s*\*\s*(?:(?:const|restrict|volatile)\s+)*(\w+)"
_HELPER_DEPTH = 4  # the cell's static helpers followed this deep from construct_test
# measure_construct's call of hl_measure (which functions it times, the kernel checks as it runs:
# construct_measure in construct_bench.c)
MEASURED_AGAINST_REFERENCE = r"\b(?:hl|construct)_measure\s*\("


def syncbench(
    ranks: int,
    threads: int,
    constructs: Sequence[str],
    *,
    samples: int,
    target_ms: float,
    bind: str = "cores",
    env: dict[str, str] | None = None,
) -> pd.DataFrame:
    """kernels_c/syncbench.c under mpiexec: its records (one per rank, construct and sample),
    each tagged with the machine's probe state after the run; a warning of the run is printed."""
    res = run_program("syncbench", ranks=ranks, threads=threads, bind=bind, env=env,
                      construct=",".join(constructs), samples=samples, target_ms=target_ms)  # fmt: skip
    for warning in res.warnings:
        print(f"warning ({ranks} ranks x {threads} threads): {warning}")
    return res.records.assign(probe=res.meta["probe"]["after"]["state"])


def wait_policy_runs(
    threads: int,
    *,
    work_ms: float,
    comm_ms: float,
    iterations: int,
    policies: Sequence[str] = ("active", "passive"),
) -> dict[str, Results]:
    """The imbalance kernel's sleeping mode (the master communicates, the others wait) with
    1 rank x `threads` under each OMP_WAIT_POLICY: policy -> its run."""
    return {
        policy: run_program("imbalance", ranks=1, threads=threads, bind="cores",
                            env={"OMP_WAIT_POLICY": policy}, mode="sleeping", work_ms=work_ms,
                            comm_ms=comm_ms, iterations=iterations)  # fmt: skip
        for policy in policies
    }


def run_construct(
    kernel: str | Kernel = "construct_bench", *, threads: int, samples: int, target_ms: float
) -> Results:
    """construct_bench (the worked example) or the student's build of it, 1 rank x `threads`
    bound one per core (lab 02 (e) is graded on a run of its own, made apart: overhead_apart)."""
    return run_program(kernel, ranks=1, threads=threads, bind="cores", samples=samples,
                       target_ms=target_ms)  # fmt: skip


def construct_name(code: str) -> str:
    """The construct the compiled cell says it measures: the string of its file-scope definition
    of construct_name, read from the preprocessed cell (macros expanded, #if'd-out lines gone; a
    longer name such as shown_construct_name is another variable). The kernel's records name
    the construct it compiled: check_construct compares them (a fresh attacker's x4 and x5 showed
    "atomic" in a longer name or an #if 0 block and compiled "reduction", 3/3 and 2/2 kept,
    2026-12-07)."""
    text = preprocessed("construct_bench", "HL_STUDENT_CONSTRUCT", code)
    literals = re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                      lambda m: " " * len(m.group()), text)  # (a brace in a literal is none)
    for match in re.finditer(r'\bconstruct_name\s*=\s*"([^"]*)"', text):
        before = literals[: match.start()]
        if before.count("{") == before.count("}"):  # at file scope
            return match.group(1)
    raise ValueError('the code must define const char *const construct_name = "...";')


def recorded_construct(results: Results) -> set[str]:
    """The constructs the kernel's records name (construct_bench emits its compiled
    construct_name in every sample and count)."""
    rec = results.records
    return set(rec.loc[rec["record"].isin(["sample", "updates"]), "construct"])


def build_student_construct(code: str, name: str = "student_construct") -> Kernel:
    """Compile the student's construct_test / measure_construct into construct_bench."""
    return build_student(name, "construct_bench", "HL_STUDENT_CONSTRUCT", code,
                         ("construct_test", "measure_construct"))


def runtime_calls(code: str) -> set[str]:
    """The functions the compiled cell refers to (called, or taken as a pointer: its object's
    undefined symbols), "lock" when it has an atomic read-modify-write instruction, and SPIN
    when it exchanges or compares-and-swaps a value in memory (what a spin lock is made of; an
    atomic add of the counter needs neither): the cell alone, compiled as
    build_student_construct compiles it."""
    with tempfile.TemporaryDirectory() as tmp:
        obj = Path(tmp) / "cell.o"
        done = subprocess.run([*unit_flags(), "-c", "-x", "c", "-", "-o", str(obj)],
                              input=student_unit("construct_bench", "HL_STUDENT_CONSTRUCT", code),
                              capture_output=True, text=True, check=False)  # fmt: skip
        if done.returncode != 0:
            raise AssertionError(f"the code does not compile:\n{done.stderr[-2000:]}")
        names = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True,
                               check=True).stdout.split()[1::2]  # fmt: skip
        code_ = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(obj)],
                               capture_output=True, text=True, check=True).stdout  # fmt: skip
    found = set(names)
    if re.search(r"\tlock\b|\t(?:ldadd|stadd|ldaxr|ldxr|cas)\w*\s", code_) or any(
        f.startswith(("__atomic_", "__aarch64_", "__sync_")) for f in found
    ):
        found.add("lock")
    if re.search(r"\t(?:lock\s+)?(?:cmp)?xchg\w*\s+\S*\(|\t(?:swp|cas)\w*\s", code_) or any(
        f.startswith(("__atomic_exchange", "__atomic_test_and_set", "__atomic_compare_exchange",
                      "__sync_lock_test_and_set", "__sync_bool_compare", "__sync_val_compare"))
        for f in found
    ):
        found.add(SPIN)
    return found


def inlined(code: str, name: str) -> tuple[str, list[int]]:
    """Function `name` of `code` (preprocessed, code only) with each call of another function
    the cell defines replaced by that function's body (its own calls too, _HELPER_DEPTH deep; a
    last `return;` dropped), as the compiler inlines a static helper; and where each character
    of the text came from in `code`."""
    defined = {n: (start, end) for n, start, end in functions(code)}

    def expand(start: int, end: int, depth: int, stack: tuple[str, ...]) -> tuple[str, list[int]]:
        text, origin, i = [], [], start
        body = code.find("{", start, end) + 1 if depth else start
        for call in re.finditer(r"\b(\w+)\s*\(", code[body:end]):
            callee, at = call.group(1), body + call.start()
            if callee not in defined or callee in stack or depth >= _HELPER_DEPTH or at < i:
                continue
            text.append(code[i:at])
            origin.extend(range(i, at))
            h_start, h_end = defined[callee]
            inner, where = expand(h_start, h_end, depth + 1, (*stack, callee))
            text.append(inner)
            origin.extend(where)
            i = closing(code, at + call.end() - call.start() - 1)
        text.append(code[i:end])
        origin.extend(range(i, end))
        out = "".join(text)
        if depth:  # the helper's body only, from its opening brace; a last `return;` dropped
            first = code.find("{", start, end) - start
            last = re.search(r"\breturn\s*;\s*\}$", out)
            if last:
                out, origin = out[: last.start()] + " " * (len(out) - 1 - last.start()) + "}", origin
            return out[first:], origin[first:]
        return out, origin

    if name not in defined:  # read as function_body reads it (its ValueError when missing)
        body = function_body(code, name)
        start = code.find(body)
        return body, list(range(start, start + len(body)))
    return expand(*defined[name], 0, (name,))


def state_names(code: str, test: str) -> set[str]:
    """The names through which the cell (preprocessed, code only) reaches the team's state: a
    construct_state pointer set from construct_test's argument (or from another such name), or
    a parameter of that type of a helper function."""
    head = re.match(r"construct_test\s*\(([^)]*)\)", test)
    arg = re.findall(r"(\w+)\s*$", head.group(1).split(",")[0]) if head else []
    names: set[str] = set(arg)
    found = list(re.finditer(_STATE_POINTER + r"\s*(=\s*([^;,]+))?", code))
    for _ in range(3):  # pointers set from pointers
        for decl in found:
            source = decl.group(3)
            if source is None:
                before = code[: decl.start()].rstrip()
                if before.endswith(("(", ",")):  # a parameter
                    names.add(decl.group(1))
                continue
            value = re.sub(r"\(\s*construct_state\s*\*\s*\)|[()\s]", "", source)
            if value in names:
                names.add(decl.group(1))
    return names


def counter_names(code: str, names: set[str]) -> set[str]:
    """The pointers the cell (preprocessed, code only) sets to the team's counter:
    `volatile long *count = &s->updates;` with s one of `names`."""
    base = "|".join(map(re.escape, sorted(names))) or r"(?!)"
    return set(re.findall(rf"\*\s*(?:(?:const|volatile|restrict)\s+)*(\w+)\s*=\s*&\s*\(?\s*"
                          rf"(?:\(\s*construct_state\s*\*\s*\)\s*)?\b(?:{base})\b\s*\)?\s*->\s*updates\b",
                          code))


def updated_target(statement: str, names: set[str], counters: set[str] = frozenset()) -> bool:
    """Whether `statement` (what a construct governs) updates the team's counter, s->updates,
    through one of `names` (or construct_test's argument cast to construct_state *), or through
    one of `counters` (pointers set to &s->updates)."""
    base = "|".join(map(re.escape, sorted(names))) or r"(?!)"
    # s[0].updates and (*s).updates are s->updates
    statement = re.sub(rf"(?:\b({base})\s*\[\s*0\s*\]|\(\s*\*\s*({base})\s*\))\s*\.",
                       lambda m: (m.group(1) or m.group(2)) + "->", statement)
    ref = (rf"(?:(?:\b(?:{base})\s*->|"
           rf"\(\s*\(\s*construct_state\s*\*\s*\)\s*(?:{base})\s*\)\s*->)\s*updates\b")
    if counters:
        mine = "|".join(map(re.escape, sorted(counters)))
        ref += rf"|(?<![\w)\]])\*\s*(?:{mine})\b|\(\s*\*\s*(?:{mine})\s*\)|\b(?:{mine})\s*\[\s*0\s*\])"
    else:
        ref += ")"
    for _ in range(3):  # (s->updates), ((*count)): the parentheses change nothing
        statement = re.sub(rf"\(\s*((?:{ref}))\s*\)", r"\1", statement)
    return bool(re.search(rf"(?:\+\+|--)\s*(?:{ref})|(?:{ref})\s*(?:\+\+|--|(?:[-+*/%&|^]|<<|>>)?=(?!=))",
                          statement))


def unshared_update(code: str, name: str) -> str:
    """Where construct_test's `name` construct (atomic, single or master; the cell's helpers
    inlined) updates something else than the team's counter s->updates: the refusal naming the
    cell's line, "" when each of its pragmas governs an update of s->updates."""
    if name not in UPDATES_SHARED:
        return ""
    lines = preprocessed_lines("construct_bench", "HL_STUDENT_CONSTRUCT", code)
    text = code_only("\n".join(t for _, t in lines))
    test, origin = inlined(text, "construct_test")
    names = state_names(text, test)
    counters = counter_names(text, names)
    for pragma in re.finditer(CONSTRUCTS[name][0] + r"[^\n]*", test):
        governed = statement_at(test, pragma.end())
        if not updated_target(governed, names, counters):
            line = lines[text[: origin[pragma.start()]].count("\n")][0]
            return (f"cell:{line}: the {name} construct updates `{' '.join(governed.split())[:60]}`, "
                    "not the team's counter: it must protect the update of s->updates itself (the "
                    "construct_state construct_test is given, `construct_state *s = arg;`, or a "
                    "pointer set to &s->updates), in every repetition; a counter of the thread's "
                    "own added to s->updates afterwards is never contended")
    return ""


def check_source(code: str) -> str:
    """AssertionError unless construct_test uses the construct named (not the worked example)
    and measure_construct times it against reference_loop; returns the construct's name. Read
    from the preprocessed cell (student_c.preprocessed): a pragma in a comment, a string or an
    #if 0 block is not there. construct_test is read with the cell's own helper functions
    inlined (inlined): the construct may stand in a static helper it calls."""
    name = construct_name(code)
    lines = preprocessed_lines("construct_bench", "HL_STUDENT_CONSTRUCT", code)
    code = code_only("\n".join(text for _, text in lines))
    assert name in CONSTRUCTS and name != EXAMPLE, (
        f"construct_name {name!r}: choose one of {sorted(set(CONSTRUCTS) - {EXAMPLE})} "
        f"({EXAMPLE!r} is the worked example)"
    )
    (test, origin), measure = inlined(code, "construct_test"), function_body(code, "measure_construct")
    assert re.search(CONSTRUCTS[name][0], test), f"construct_test does not use the {name} construct"
    hand = re.search(HAND_MADE, code)
    assert not hand, (
        f"the cell uses {hand.group(1)}: the test measures the {name} construct and nothing of "
        "the cell's own (no atomic builtin or type of the compiler, no goto round the construct)")
    if name == "reduction":
        fault = region_fault(test)
        assert not fault, (
            f"{fault}: the reduction row opens one parallel region per repetition (the pragma "
            "inside construct_test's loop over `inner`), in which each thread delays once and adds 1")
    def line(pos: int) -> int:  # the cell's line of a place in construct_test (helpers inlined)
        return lines[code[: origin[min(pos, len(origin) - 1)]].count("\n")][0]

    stray = stray_construct(test, name)
    where = ("the loop that calls hl_delay" if re.search(DELAY_CALL, test)
             else "any loop with a delay (construct_test never calls hl_delay)")
    assert stray < 0, (
        f"cell:{line(stray)}: the {name} construct stands outside {where}: each repetition of "
        "the table's row is the delay, then the construct, in the same loop over `inner` (no "
        "construct once per call)")
    lonely = lonely_delay(test, name)
    assert lonely < 0, (
        f"cell:{line(lonely)}: hl_delay is called in a loop with no {name} construct in it: every "
        "repetition of the table's row is the delay, then the construct, in every call (no loop "
        "of delays alone, for the timed runs or any other)")
    many = repeated_delays(test, name)
    assert many[0] < 0, (
        f"cell:{line(many[0])}: the loop that holds the {name} construct calls hl_delay "
        f"{many[1]} times per pass (macros expanded): each repetition is one delay, then the "
        "construct, so that loop's body holds exactly one hl_delay call (no loop unrolled round "
        "the construct)")
    skipped = skipped_construct(test, name)
    assert skipped < 0, (
        f"cell:{line(skipped)}: the {name} construct may be skipped by some repetitions (an if, else or "
        "switch round it in the loop, a ?:, && or || before it, or a continue, break or return in "
        "the loop): every "
        "repetition runs the delay and then the construct")
    assert re.search(MEASURED_AGAINST_REFERENCE, measure), (
        "measure_construct must time construct_test against reference_loop with one hl_measure call"
    )
    return name


def construct_ir(code: str) -> str:
    """The cell's unit compiled by clang at -O2 as LLVM IR with debug lines (no sanitizer), as
    kernels.counter_ir reads it."""
    return llvm_ir.cell_ir(student_unit("construct_bench", "HL_STUDENT_CONSTRUCT", code),
                           ("-DHL_STUDENT_CONSTRUCT",), sanitized=False)  # fmt: skip


def check_method(code: str) -> str:
    """check_source, then the compiled cell: it calls the runtime as its construct does, takes no
    lock (no critical section or lock doing the construct's work) and, for single and master,
    has the barrier that ends each repetition (GOMP_barrier); then the construct's target, read
    from the preprocessed cell: atomic, single and master update s->updates (unshared_update),
    and the address their update writes in clang's IR of the cell is s->updates (counter_ir)."""
    name = check_source(code)
    calls = runtime_calls(code)
    taken = sorted(calls & set(LOCKS))
    assert not taken, f"the {name} construct takes no lock, but the code uses {', '.join(taken)}"
    for need in NEEDS[name]:
        assert any(n in calls for n in need.split("|")), (
            f"the compiled {name} construct should show {need.replace('|', ' or ')}: is the "
            f"update really done by `{name}`?"
        )
    assert name not in BARRIERED or (BARRIER in calls and ends_at_barrier(code, name)), (
        f"the compiled {name} test has no barrier: each repetition of the table's {name} row ends "
        "at one (`#pragma omp barrier` after masked; single's own, or `#pragma omp barrier` "
        "after a `single nowait`)")
    fault = unshared_update(code, name)
    assert not fault, fault
    moved = counter_ir.moved_updates(construct_ir(code), name) if (
        name in UPDATES_SHARED and split_rmw.clang_present()) else []
    assert not moved, (
        f"{', '.join(moved)}: the {name} construct writes an address other than s->updates in the "
        "compiled code (clang's IR): it updates the team's counter itself, in every repetition of "
        "every call, through the state construct_test is given (`construct_state *s = arg;`) or a "
        "pointer set to &s->updates and never changed; no offset, no choice of another address")
    return name


def _innermost_loop(text: str, pos: int) -> tuple[int, int] | None:
    """(body start, end) of the innermost loop of `text` around `pos`, None outside every loop;
    a statement macro's `do { ... } while (0)` runs once and is no loop (a fresh attacker's right
    answer n02macro, its delay as `#define DELAY(s) do { hl_delay(...); } while (0)`, lost 3/3 as
    "the construct stands outside the loop that calls hl_delay", 2026-12-05)."""
    return max(((body, end) for start, body, end in loops(text) if body <= pos < end
                and not _ONCE_LOOP.match(text, start, end)), default=None)  # fmt: skip



def stray_construct(test: str, name: str) -> int:
    """Where in construct_test (preprocessed, code only) a `name` construct's pragma stands
    outside the innermost loop of every hl_delay call (each repetition: the delay, then the
    construct); -1 when none does."""
    delays = {_innermost_loop(test, m.start()) for m in re.finditer(DELAY_CALL, test)} - {None}
    for pragma in re.finditer(CONSTRUCTS[name][0], test):
        if _innermost_loop(test, pragma.start()) not in delays:
            return pragma.start()
    return -1


def lonely_delay(test: str, name: str) -> int:
    """Where in construct_test (preprocessed, code only) an hl_delay call stands in a loop that
    holds no `name` construct, or in no loop; -1 when none does (a fresh attacker's n02det2 ran
    its timed calls, those with a delay, as a loop of delays alone and the atomic only in the
    run without one, 3/3 and 2/2 kept, 2026-12-05)."""
    for delay in re.finditer(DELAY_CALL, test):
        loop = _innermost_loop(test, delay.start())
        if loop is None or not re.search(CONSTRUCTS[name][0], test[loop[0] : loop[1]]):
            return delay.start()
    return -1


def repeated_delays(test: str, name: str) -> tuple[int, int]:
    """(where, how many): the first `name` construct's pragma in construct_test (preprocessed,
    code only) whose innermost loop's body calls hl_delay more than once (an unrolled loop: k
    delays, then one construct), with that count; (-1, 1) when each such body holds one call."""
    for pragma in re.finditer(CONSTRUCTS[name][0], test):
        loop = _innermost_loop(test, pragma.start())
        if loop is not None:
            count = len(re.findall(DELAY_CALL, test[loop[0] : loop[1]]))
            if count > 1:
                return pragma.start(), count
    return -1, 1


def _opening(text: str, close: int) -> int:
    """The index of the ( matching the ) at `close`."""
    depth = 0
    for i in range(close, -1, -1):
        depth += (text[i] == ")") - (text[i] == "(")
        if depth == 0:
            return i
    return 0


def _conditional(text: str, start: int, pos: int) -> bool:
    """Whether the statement at `pos` is governed by an if, else or switch that begins after
    `start` (the statement itself, or a brace block around it)."""
    opened: list[int] = []
    for i in range(start, pos):
        if text[i] == "{":
            opened.append(i)
        elif text[i] == "}" and opened:
            opened.pop()
    for head in [pos, *opened]:
        before = text[start:head].rstrip()
        if re.search(r"\belse$", before):
            return True
        if before.endswith(")"):
            paren = start + _opening(before, len(before) - 1)
            line = text[text.rfind("\n", 0, paren) + 1 : paren]  # (a pragma's clause is no if)
            if not line.lstrip().startswith("#") and re.search(r"\b(if|switch)\s*$", line):
                return True
    return False


def _operand(text: str, start: int, pos: int) -> bool:
    """Whether `pos` stands in a statement expression `({ ... })` that follows a ?:, && or || of
    its statement (after `start`): a branch some evaluations skip (a fresh attacker's R02tern
    and R02or ran the atomic only when there was no delay, 3/3 and 2/2 kept, 2026-12-05)."""
    opened: list[int] = []
    for i in range(start, pos):
        if text[i] == "(":
            opened.append(i)
        elif text[i] == ")" and opened:
            opened.pop()
    if not opened:
        return False
    head = max(start, *(text.rfind(c, start, opened[0]) + 1 for c in ";{}"))  # its statement
    return bool(re.search(r"\?|&&|\|\|", text[head:pos]))


def skipped_construct(test: str, name: str) -> int:
    """Where in construct_test (preprocessed, code only) a `name` construct's pragma may be
    skipped by some repetitions of its loop: governed by an if, else or switch inside the loop,
    an operand of ?:, && or || (in a statement expression), or in a loop whose body holds
    continue, break or return; -1 when none is."""
    for pragma in re.finditer(CONSTRUCTS[name][0], test):
        loop = _innermost_loop(test, pragma.start())
        if loop is not None and (_conditional(test, loop[0], pragma.start())
                                 or _operand(test, loop[0], pragma.start())
                                 or re.search(SKIPS, test[loop[0] : loop[1]])):
            return pragma.start()
    return -1


def region_fault(test: str) -> str:
    """What keeps construct_test (preprocessed, code only) from opening a parallel region per
    repetition: a region outside every loop, or one whose block loops, jumps or calls a
    function other than hl_delay; "" when none."""
    for pragma in re.finditer(r"#\s*pragma\s+omp\s+parallel\b[^\n]*", test):
        if not inside_loop(test, pragma.start()):
            return "a parallel region outside the loop over the repetitions"
        block = re.sub(_ONCE, " ", statement_at(test, pragma.end()))  # do { } while (0): once
        if re.search(r"\b(for|while|do|goto)\b", block):
            return "a loop or goto inside the parallel region (it repeats the work, not the region)"
        called = {f for f in re.findall(r"\b([A-Za-z_]\w*)\s*\(", block)
                  if f not in REGION_CALLS | _KEYWORDS and not f.startswith("omp_")}
        if called:
            return (f"the region calls {', '.join(sorted(called))} (inside it only hl_delay, "
                    "OpenMP's queries and the update)")
    return ""


def ends_at_barrier(code: str, name: str) -> bool:
    """Whether each repetition of construct_test's `name` construct ends at a barrier, read from
    the preprocessed cell (the cell's helpers inlined): single without nowait, or `single nowait`
    and masked (or master) followed by `#pragma omp barrier` in the same block (the loop's body),
    not merely somewhere in the function."""
    test = inlined(code_only(preprocessed("construct_bench", "HL_STUDENT_CONSTRUCT", code)),
                   "construct_test")[0]
    pragmas = list(re.finditer(CONSTRUCTS[name][0] + r"[^\n]*", test))
    if not pragmas:
        return False
    for pragma in pragmas:
        if name == "single" and not re.search(r"\bnowait\b", pragma.group(0)):
            continue  # single's own barrier
        depth, i = 0, pragma.end()
        while i < len(test) and depth >= 0:  # the rest of the block the pragma stands in
            depth += {"{": 1, "}": -1}.get(test[i], 0)
            i += 1
        after, inner = test[pragma.end() : i], None
        while inner != after:  # the blocks nested in it taken out, innermost first
            inner, after = after, re.sub(r"\{[^{}]*\}", "", after)
        if not re.search(r"#\s*pragma\s+omp\s+barrier\b", after):
            return False
    return True


def check_construct(code: str, results: Results) -> pd.DataFrame:
    """Check the source, the compiled code and the run (samples of both loops, no update lost
    under contention); returns the raw samples (kind, sample, inner, seconds)."""
    name = check_method(code)
    compiled = recorded_construct(results)
    assert compiled == {name}, (
        f"the kernel's records name the construct {', '.join(sorted(compiled)) or 'nothing'}, "
        f"not {name!r}: construct_name is the compiled one, the construct construct_test uses")
    rec = results.records
    samples = rec[rec["record"] == "sample"]
    for kind in ("test", "reference"):
        mine = samples[samples["kind"] == kind]
        assert len(mine) >= 2, f"no {kind} samples: the kernel must time both loops"
        assert (mine["seconds"] > 0).all() and (mine["inner"] >= 1).all()
    count = rec[rec["record"] == "updates"].iloc[0]
    per_rep = int(count["threads"]) if CONSTRUCTS[name][1] == "team" else 1
    want = per_rep * int(count["repetitions"])
    assert int(count["updates"]) == want, (
        f"{int(count['updates'])} updates arrived of {want} ({per_rep} per repetition): the "
        f"{name} construct must protect every update of s->updates"
    )
    return samples[["construct", "kind", "sample", "inner", "seconds"]].reset_index(drop=True)


# ---------------------------------------------------------------- lab 02 (e), graded apart
# Section 2's constructs, and the answer cells (grade ids) (e) runs again: (a)'s epcc_interval
# first (its failure is left to (a)'s test), then (e)'s own cell.
OMP_CONSTRUCTS = ("reference", "parallel", "for", "barrier", "single", "critical", "reduction")
OVERHEAD_ANSWERS = ("epcc_interval", "construct_overhead")
# what the lab's first cell gives the answer cells (its imports; the runs' names are given
# beside it)
_APART_PRELUDE = """
from functools import partial

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

import hybridlab as hl
from hybridlab.kernels.c_cells import unanswered
from hybridlab.plots import strip_plot
from hybridlab.reference import REFERENCE
from hybridlab.sync import exercise
from hybridlab.sync.exercise import build_student_construct, check_construct, run_construct, wait_policy_runs
from hybridlab.sync.plots import (barrier_range_plot, overhead_plot, run_time_plot, timeline_plot,
                                  wait_policy_plot)
from hybridlab.sync.tables import barrier_table, overhead_table, wait_policy_table
"""


# section 2's sweep as drawn for (e) apart: seconds per repetition of each construct at 1 and 2
# threads, grown with the team (the magnitudes of the course's 2-core machine)
_DRAWN_US = {"reference": (0.07, 0.07), "parallel": (0.5, 1.6), "for": (0.1, 0.55),
             "barrier": (0.08, 0.55), "single": (0.1, 0.6), "critical": (0.09, 0.14),
             "reduction": (0.5, 1.5)}  # fmt: skip


def drawn_sweep(cpus: int, samples: int, target_ms: float) -> pd.DataFrame:
    """Section 2's sweep as lab 02 (e) apart gives it to the answer cell: syncbench's columns, 1
    rank at each of the lab's thread counts (1, CPUS and the powers of two between), `samples`
    samples of each construct, their seconds drawn for the submission (course.hidden_inputs)."""
    from ..course.hidden_inputs import rng

    draw = rng("construct_overhead")
    threads = sorted({1, cpus} | {t for t in (2, 4, 8, 16, 32, 64) if t < cpus})
    rows = []
    for t in threads:
        for c in OMP_CONSTRUCTS:
            one, two = _DRAWN_US[c]
            base = (one if t == 1 else two * (1 + 0.25 * (t - 2))) * 1e-6 * draw.uniform(0.7, 1.4)
            seconds = base * draw.lognormal(0.0, 0.15, samples)
            seconds[draw.random(samples) < 0.1] *= draw.uniform(2, 20)  # a preempted sample
            inner = int(max(1, 2 ** round(np.log2(target_ms * 1e-3 / base))))
            rows += [{"rank": 0, "thread": 0, "cpu": 0, "numa": 0, "construct": c, "sample": i,
                      "inner": inner, "seconds": float(v), "threads": t, "ranks": 1,
                      "delay_ns": 100, "delay_length": 146, "target_ms": target_ms,
                      "host": "grader", "probe": "drawn"} for i, v in enumerate(seconds)]  # fmt: skip
    return pd.DataFrame(rows)


def overhead_apart(answers: dict[str, str] | None, code: str, *, threads: int, samples: int,
                   target_ms: float, timeout: float = 120.0) -> dict:
    """Lab 02 (e), run apart from the student's kernel (grading/apart.py): the student's
    CONSTRUCT_C built and run here like the lab's cell runs it (run_construct), and section 2's
    sweep drawn for the submission (drawn_sweep: a formula's inputs, not a measurement; the
    instructor's reference run gives every submission's notebook the same sweep anyway); then
    the answer cells (a) and (e) (`answers`: grade id -> source, as the submitted notebook holds
    them) run again in a child process, with my_samples, construct_run, sweep, omp_table and the
    first cell's names bound to those samples. Returns what the judge compares: the samples and
    the answers the cells gave (or their error). The child gets the samples and gives back three
    values only: the student's code never touches the run, nor this process (made undumpable by
    apart.py), nor its result."""
    from ..grading.answer_child import Answers, answer_child, answers_in_history
    from ..runs.course_size import quick_mode
    from .tables import overhead_table

    answers = dict(answers) if answers else answers_in_history(dict(zip(
        OVERHEAD_ANSWERS, (r"\bdef\s+epcc_interval\b", r"\blab_interval_us\s*="), strict=True)))
    with answer_child(_APART_PRELUDE, "hl-overhead-") as hand:
        # as the lab's cell runs it (run_construct), but for the contention run: its count
        # and its checks are (d)'s to judge, so a construct (d) refuses is still timed here
        run = run_program(build_student_construct(code, name="student_construct_apart"), ranks=1,
                          threads=threads, bind="cores", samples=samples, target_ms=target_ms,
                          check_reps=0)  # fmt: skip
        mine = run.records[run.records["record"] == "sample"]
        sweep = drawn_sweep(threads, samples, target_ms)
        at = sweep[sweep["threads"] == threads]
        names = {"CPUS": threads, "QUICK": quick_mode(), "SAMPLES": samples,
                 "TARGET_MS": target_ms, "CONSTRUCT_C": code, "construct_run": run,
                 "my_samples": mine, "sweep": sweep, "OMP_CONSTRUCTS": list(OMP_CONSTRUCTS),
                 "omp_table": overhead_table(sweep, by=["threads"])}  # fmt: skip
        got = hand(Answers(names, answers, list(OVERHEAD_ANSWERS), {
            "my_interval_us": "floats", "lab_interval_us": "floats", "compare_with": "str"}),
            timeout)  # fmt: skip
    if "error" not in got:
        read = got["read"]
        got = {"mine": read["my_interval_us"], "lab": read["lab_interval_us"],
               "compare_with": read["compare_with"]}
    return {
        "named": construct_name(code),
        "threads": threads,
        "test": [float(v) for v in mine.loc[mine["kind"] == "test", "seconds"]],
        "reference": [float(v) for v in mine.loc[mine["kind"] == "reference", "seconds"]],
        "sweep": {str(c): [float(v) for v in at.loc[at["construct"] == c, "seconds"]]
                  for c in OMP_CONSTRUCTS},
        "answers": got,
    }
