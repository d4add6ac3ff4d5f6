"""Lab 16's tools, for real: Archer (clang's ThreadSanitizer with libarcher) on lab 01's race and
on the histogram's count, with the ways a count could hide its race from it; the reports read
from the kit's folder; the MPI mistakes' traces and their diagnosis; the counter probe. The Archer
tests skip with the sentence that says what to install where clang, libomp or the sanitizer's
runtime is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaming import solution_cell, source_of
from hybridlab.kernels import archer
from hybridlab.kernels.build import BuildError
from hybridlab.tools import exercise

ROOT = Path(__file__).resolve().parents[1]
needs_archer = pytest.mark.skipif(archer.missing() is not None, reason=str(archer.missing()))

RACY = """
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for
    for (long i = 0; i < n; i++) bins[bin_of(i)]++;
}
"""
FIXED = """
void count_bins(long n, int nbins, long *bins) {
#pragma omp parallel for reduction(+ : bins[:nbins])
    for (long i = 0; i < n; i++) bins[bin_of(i)]++;
}
"""
REPORT = """==================
WARNING: ThreadSanitizer: data race (pid=422)
  Write of size 8 at 0x7ffcdf71f448 by thread T1:
    #0 hl_mpi_wrote /k/hl_archer.h:23:50 (race+0xd02fc)
    #1 .omp_outlined._debug__ /k/master_race.c:105:17 (race+0xd02fc)
    #2 __kmpc_invoke_microtask <null> (libomp.so.5+0xd55a2)

  Previous read of size 4 at 0x7ffcdf71f448 by main thread:
    #0 .omp_outlined._debug__ /k/master_race.c:112:23 (race+0xd02fc)

SUMMARY: ThreadSanitizer: data race /k/hl_archer.h:23:50 in hl_mpi_wrote
==================
WARNING: ThreadSanitizer: lock-order-inversion (potential deadlock) (pid=422)
SUMMARY: ThreadSanitizer: lock-order-inversion
==================
"""


def test_a_report_names_the_kernels_lines_past_the_kits_annotation():
    races = archer.parse(REPORT)
    assert len(races) == 1  # the lock-order report is not a data race
    assert races[0].lines() == ("master_race.c:105", "master_race.c:112")
    assert races[0].access == "Write of size 8" and races[0].previous.startswith("Previous read")
    assert races[0].pid == 422


TASK_REDUCTION_REPORT = """==================
WARNING: ThreadSanitizer: data race (pid=20446)
  Read of size 8 at 0x7b0c00000000 by main thread:
    #0 .red_comb. /tmp/t.c:7:36 (t+0xd035d)
    #1 <null> <null> (libomp.so.5+0x6a013)

  Previous write of size 8 at 0x7b0c00000000 by thread T1:
    #0 .omp_outlined. /tmp/t.c:8:49 (t+0xd068e)
    #1 .omp_task_entry. /tmp/t.c:7:1 (t+0xd068e)

SUMMARY: ThreadSanitizer: data race /tmp/t.c:7:36 in .red_comb.
==================
"""


def test_a_task_reductions_own_combine_step_is_no_race():
    """LLVM 14's Archer reports a correct taskloop reduction's combiner against the tasks' adds
    (seen in a plain program: clang -fopenmp -fsanitize=thread, libarcher)."""
    assert archer.parse(TASK_REDUCTION_REPORT) == []
    assert len(archer.parse(REPORT + TASK_REDUCTION_REPORT)) == 1


@needs_archer
def test_a_task_reduction_builds_and_is_refused_by_its_rule_not_its_symbols():
    """clang's task reduction over an array section reaches a global of its own
    (`reduction_size.bins_N.artificial.`, no C name) through __tls_get_addr: neither is the
    cell's doing, so the build passes the unit checks (a fresh attacker's right answers lost
    there, 2026-12-05); lab 16 (a) then refuses the task reduction by its stated rule."""
    code = ("void count_bins(long n, int nbins, long *bins) {\n#pragma omp parallel\n"
            "#pragma omp single\n#pragma omp taskloop reduction(+ : bins[:nbins]) grainsize(256)\n"
            "    for (long i = 0; i < n; i++) bins[bin_of(i)]++;\n}\n")
    with pytest.raises(AssertionError, match="uses a task reduction"):
        exercise.build_count(code, name="t_task_reduction")


def test_the_runs_options_are_the_kits_whatever_the_student_set(tmp_path, monkeypatch):
    if archer.library() is None:
        pytest.skip(archer.missing())
    monkeypatch.setenv("TSAN_OPTIONS", "report_bugs=0 suppressions=/tmp/quiet.supp")
    monkeypatch.setenv("ARCHER_OPTIONS", "enable=0")
    env = archer.run_env(tmp_path)
    assert "report_bugs=1" in env["TSAN_OPTIONS"] and "suppressions= " in env["TSAN_OPTIONS"]
    assert f"log_path={tmp_path}/tsan" in env["TSAN_OPTIONS"]
    assert env["ARCHER_OPTIONS"] == "verbose=0" and env["OMP_TOOL_LIBRARIES"].endswith("libarcher.so")


@needs_archer
def test_archer_reports_lab_01s_missing_barriers_at_their_lines_and_is_silent_with_both():
    assert exercise.master_race_races(1, 1).empty
    after = exercise.master_race_races(1, 0)
    before = exercise.master_race_races(0, 1)
    source = (ROOT / "kernels_c" / "master_race.c").read_text().splitlines()
    line = {text: f"master_race.c:{i}" for i, text in enumerate(source, 1)}
    wrote = next(v for k, v in line.items() if "hl_mpi_wrote(buf" in k)
    first, second = line["                a[i] = buf[i];"], line["                c[i] = buf[i];"]

    def pairs(races):  # which access ThreadSanitizer calls the previous one depends on timing
        return {frozenset(p) for p in zip(races["at"].str.split().str[-1],
                                          races["previous at"].str.split().str[-1], strict=True)}

    # a missing barrier leaves the master's write racing the reads on both sides of it (the
    # loops are nowait, so iteration k's second loop and k+1's first meet it too):
    # ThreadSanitizer reports whichever pair it meets first (seen both ways on a loaded 2-core
    # machine), always the write against one of the loops' reads
    either = {frozenset((first, wrote)), frozenset((wrote, second))}
    assert pairs(after) and pairs(after) <= either
    assert pairs(before) and pairs(before) <= either


@pytest.fixture(scope="module")
def racy_and_fixed():
    if archer.missing():
        pytest.skip(archer.missing())
    return exercise.build_count(RACY, "test_racy_bins"), exercise.build_count(FIXED, "test_fixed_bins")


def test_the_kits_count_of_the_bins_is_the_kernels(racy_and_fixed):
    _, fixed = racy_and_fixed
    got = exercise.count_evidence(fixed, 2, 2, 3001, 7, salt=12345)
    assert got["bins"] == exercise.bins_expected(2, 3001, 7, salt=12345)
    assert got["races"] == [] and got["threads"] == 2 and got["team"] == 2
    assert got["calls"] == 3001 and got["largest"] < 3001 and 0 <= got["writes"] <= 7


@needs_archer
def test_the_kit_counts_each_threads_writes_into_the_bins():
    """A team that only looks the bins up while one thread counts every element through an
    alias: that thread's writes into bins are n (the kit's watch), though bin_of was shared."""
    serial = exercise.build_count("""#include <stdlib.h>
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
    int *idx = malloc(sizeof(int) * (n > 0 ? n : 1));
    long *b = bins;
#pragma omp parallel
    {
#pragma omp for
        for (long i = 0; i < n; i++) idx[i] = bin_of(i);
#pragma omp single
        for (long k = 0; k < n; k++) b[idx[k]]++;
    }
    free(idx);
}
""", "test_serial_bins")
    got = exercise.count_evidence(serial, 1, 2, 5000, 4)
    assert got["threads"] == 2 and got["largest"] < 5000 and got["writes"] == 5000, got


def test_archer_reports_the_counts_race_on_its_line_whatever_the_bins(racy_and_fixed):
    racy, _ = racy_and_fixed
    got = exercise.count_evidence(racy, 1, 2, 20000, 8)
    line = RACY.splitlines().index("    for (long i = 0; i < n; i++) bins[bin_of(i)]++;") + 1
    assert got["races"] == [f"cell:{line} / cell:{line}"], got
    assert got["threads"] == 2


def test_the_students_environment_neither_silences_archer_nor_hides_the_threads(racy_and_fixed,
                                                                                monkeypatch):
    racy, _ = racy_and_fixed
    monkeypatch.setenv("TSAN_OPTIONS", "report_bugs=0")
    monkeypatch.setenv("ARCHER_OPTIONS", "enable=0")
    assert exercise.count_evidence(racy, 1, 2, 20000, 8)["races"]
    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")  # a team of one: the evidence says so
    assert exercise.count_evidence(racy, 1, 2, 20000, 8)["team"] == 1


@needs_archer
def test_a_team_of_one_is_seen_by_the_kit():
    one = exercise.build_count(RACY.replace("parallel for", "parallel for num_threads(1)"),
                               "test_one_thread_bins")
    got = exercise.count_evidence(one, 1, 2, 5000, 4)
    assert got["races"] == [] and got["threads"] == 1 and got["team"] == 1


@needs_archer
@pytest.mark.parametrize(("prefix", "refusal"), [
    ('__attribute__((no_sanitize("thread")))\n', "turns a sanitizer off"),
    ('const char *__tsan_default_options(void) { return "report_bugs=0"; }\n',
     "is not one the part declares"),
    ("void __tsan_ignore_thread_begin(void);\n"
     "__attribute__((constructor)) static void quiet(void) { __tsan_ignore_thread_begin(); }\n",
     # refused for the call it makes (named at its line since units carry DWARF 4 lines) or
     # for its constructor table: either names a thing the cell may not do
     "constructor or destructor|not among what the part allows"),
])
def test_a_cell_that_would_silence_the_sanitizer_is_refused(prefix, refusal):
    with pytest.raises(BuildError, match=refusal):
        exercise.build_count(prefix + RACY, "test_silenced_bins")


SPLIT = """
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        long b = bin_of(i), v;
#pragma omp atomic read
        v = bins[b];
#pragma omp atomic write
        bins[b] = v + 1;
    }
}
"""


@needs_archer
def test_an_update_split_into_an_atomic_read_and_write_is_refused():
    """Two accesses each made atomic race as a read-modify-write, yet Archer sees no race (a
    fresh attacker's, 2026-12-03): refused from the preprocessed cell."""
    with pytest.raises(AssertionError, match="made safe each on its own"):
        exercise.build_count(SPLIT, "test_split_bins")
    exercise.build_count(FIXED, "test_fixed_bins")


BUILTIN_SPLIT = """
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
        long v = __atomic_load_n(p, __ATOMIC_RELAXED);
        __atomic_store_n(p, v + 1, __ATOMIC_RELAXED);
    }
}
"""
ATOMIC_ASSIGN_SPLIT = """
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        _Atomic long *p = (_Atomic long *)&bins[bin_of(i)];
        long seen = *p;
        *p = seen + 1;
    }
}
"""
WIDE_STORE = """
typedef long wide __attribute__((vector_size(32), aligned(8)));
void count_bins(long n, int nbins, long *bins) {
    long seen = 0;
#pragma omp parallel for reduction(+ : seen)
    for (long i = 0; i < n; i++) seen += bin_of(i) >= 0;
    for (long i = 0; i < n && nbins >= 4; i++) {
        int b = bin_of(i), at = b + 4 <= nbins ? b : nbins - 4;
        wide one = {0, 0, 0, 0};
        one[b - at] = 1;
        *(wide *)(bins + at) += one;
    }
}
"""
FETCH_ADD = """
#include <stdatomic.h>
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        __atomic_fetch_add(&bins[bin_of(i)], 1, __ATOMIC_RELAXED);
        _Atomic long *p = (_Atomic long *)&bins[0];
        long seen = atomic_load(p);  /* a CAS loop: a load, then one read-modify-write */
        while (!atomic_compare_exchange_weak(p, &seen, seen)) {}
    }
}
"""


def test_the_ir_check_reads_store_sizes_and_atomic_writes():
    """ir_refusals on IR text: a 32-byte store and an atomic store are refused at their lines,
    a 16-byte vector store, an atomicrmw's call and a plain 8-byte store are not."""
    ir = "\n".join([
        "  store <4 x i64> %1, <4 x i64>* %2, align 8, !dbg !7",
        "  store <2 x i64> %1, <2 x i64>* %2, align 8, !dbg !7",
        "  store x86_fp80 %1, x86_fp80* %2, align 16, !dbg !8",
        "  store i64 %1, i64* %2, align 8, !dbg !8",
        "  %3 = call i64 @__tsan_atomic64_fetch_add(i64* %2, i64 1, i32 0), !dbg !8",
        "  call void @__tsan_atomic64_store(i64* %2, i64 %4, i32 0), !dbg !9",
        "  call void @llvm.x86.sse2.maskmov.dqu(<16 x i8> %a, <16 x i8> %b, i8* %c), !dbg !9",
        "!7 = !DILocation(line: 12, column: 3, scope: !5)",
        "!8 = !DILocation(line: 13, column: 3, scope: !5)",
        "!9 = !DILocation(line: 14, column: 3, scope: !5)",
    ])
    found = exercise.ir_refusals(ir)
    assert len(found) == 4, found
    assert found[0].startswith("cell line 12: a 32-byte store")
    assert found[1].startswith("cell line 13: a 10-byte store")
    assert found[2].startswith("cell line 14: an atomic store")
    assert "llvm.x86.sse2.maskmov.dqu" in found[3]


def test_the_ir_check_names_c_library_routines_the_sanitizer_does_not_see():
    """call_refusals on IR text: sscanf (as glibc names it) and dlsym refused at their lines;
    bin_of, OpenMP's, ThreadSanitizer's, allocation, memcpy and puts are not (printf is: %n)."""
    ir = "\n".join([
        "  %1 = call i32 @bin_of(i64 %0), !dbg !7",
        "  %2 = call i32 (i8*, i8*, ...) @__isoc99_sscanf(i8* %t, i8* %f, i64* %p), !dbg !8",
        "  store i8* bitcast (i8* (i8*, i8*)* @dlsym to i8*), i8** %q, align 8, !dbg !9",
        "declare i32 @bin_of(i64)",
        "declare i32 @__isoc99_sscanf(i8*, i8*, ...)",
        "declare i8* @dlsym(i8*, i8*)",
        "declare noalias i8* @calloc(i64, i64)",
        "declare void @__kmpc_critical(%struct.ident_t*, i32, [8 x i32]*)",
        "declare void @__tsan_write8(i8*)",
        "declare i32 @puts(i8*)",
        "declare void @llvm.memcpy.p0i8.p0i8.i64(i8*, i8*, i64, i1 immarg)",
        "declare i32 @omp_get_thread_num()",
        "!7 = !DILocation(line: 5, column: 3, scope: !5)",
        "!8 = !DILocation(line: 6, column: 3, scope: !5)",
        "!9 = !DILocation(line: 7, column: 3, scope: !5)",
    ])
    found = exercise.call_refusals(ir)
    assert len(found) == 2, found
    assert found[0].startswith("cell line 6: calls sscanf")
    assert found[1].startswith("cell line 7: calls dlsym")


CAS_ONCE = """
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
        long old = __atomic_load_n(p, __ATOMIC_RELAXED);
        __atomic_compare_exchange_n(p, &old, old + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
}
"""
CAS_LOOP = CAS_ONCE.replace("        __atomic_compare_exchange_n(p, &old, old + 1, 0,",
                            "        while (!__atomic_compare_exchange_n(p, &old, old + 1, 1,").replace(
    "__ATOMIC_RELAXED);\n    }", "__ATOMIC_RELAXED)) {}\n    }")
SPLIT_RMW = """
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
    volatile long zero = 0;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        long *p = &bins[bin_of(i)];
        long v = __atomic_fetch_and(p, zero, __ATOMIC_RELAXED);
        __atomic_fetch_or(p, v + 1, __ATOMIC_RELAXED);
    }
}
"""
ONE_COUNTS = source_of("16_tools", "the team looks the bins up, one thread counts every element")


@needs_archer
def test_the_watch_on_the_bins_sees_split_rmws_unretried_swaps_and_a_count_for_others():
    """Each thread's first compare-and-swap on a bin made to fail (a loop retries it, a single
    one loses a count); atomic and/or on the bins counted; a thread that asked bin_of for elements
    yet wrote nothing into the bins counted (one thread counting for the others)."""
    n, nbins = 4000, 8
    want = exercise.bins_expected(1, n, nbins)
    loop = exercise.count_evidence(exercise.build_count(CAS_LOOP, "t_bins_cas_loop"), 1, 2, n, nbins)
    assert loop["bins"] == want and loop["silent"] == 0 and loop["odd_atomics"] == 0, loop
    once = exercise.count_evidence(exercise.build_count(CAS_ONCE, "t_bins_cas_once"), 1, 2, n, nbins)
    assert once["bins"] != want and sum(once["bins"]) < n, once
    split = exercise.count_evidence(exercise.build_count(SPLIT_RMW, "t_bins_split_rmw"), 1, 2, n, nbins)
    assert split["odd_atomics"] >= 2 * n, split
    alone = exercise.count_evidence(exercise.build_count(ONE_COUNTS, "t_bins_one_counts"), 1, 2, n, nbins)
    assert alone["bins"] == want and alone["silent"] == 1, alone


TOKEN_ADDS = source_of("16_tools", "the team looks the bins up making atomic adds of 0")
TOKEN_TAKEN = source_of("16_tools", "a helper adds a token 1000 and counts one element")


@needs_archer
def test_the_watch_credits_each_thread_with_what_its_writes_add():
    """What each thread added to the bins, not how often it wrote (fixer helper-f2, 2026-12-04):
    a team's atomic adds of 0 beside one thread counting alone leave the team silent and that
    thread with every count; a token taken off again is counted; a reduction of 5 threads (libomp's
    tree unforced: its master alone writes) has every thread add its own copy."""
    n, nbins = 4000, 8
    want = exercise.bins_expected(1, n, nbins)
    token = exercise.count_evidence(exercise.build_count(TOKEN_ADDS, "t_bins_token"), 1, 2, n, nbins)
    assert token["bins"] == want and token["silent"] == 1 and token["added"] == n, token
    assert token["writes"] >= n // 4 and token["taken"] == 0 and token["unseen"] == 0, token
    taken = exercise.count_evidence(exercise.build_count(TOKEN_TAKEN, "t_bins_taken"), 1, 2, n, nbins)
    assert taken["bins"] == want and taken["taken"] == 1000 and taken["added"] == n - 1, taken
    reduced = exercise.count_evidence(exercise.build_count(solution_cell("16_tools", "count_bins")
                                                           .split("\n", 1)[1], "t_bins_reduced"),
                                      1, 5, n, nbins)
    assert reduced["bins"] == want and reduced["silent"] == 0 and reduced["added"] < n, reduced


@needs_archer
@pytest.mark.parametrize(("code", "refusal"), [
    (BUILTIN_SPLIT, "__atomic_store_n"),
    (ATOMIC_ASSIGN_SPLIT, "cell line 8: an atomic store or exchange"),
    (WIDE_STORE, "cell line 11: a 32-byte store"),
])
def test_split_atomics_and_wide_stores_are_refused_at_their_line(code, refusal):
    """A fresh attacker's (attackD, 2026-12-04): an update split into two atomics (builtins, C11,
    _Atomic assignment), and 32-byte vector stores ThreadSanitizer does not instrument."""
    with pytest.raises(AssertionError, match=refusal):
        exercise.build_count(code, "test_refused_bins")


@needs_archer
def test_atomic_read_modify_writes_are_not_refused():
    assert exercise.ir_refusals(exercise.cell_ir(FETCH_ADD)) == []
    assert exercise.ir_refusals(exercise.cell_ir(FIXED)) == []


def _solution_diagnose():
    """The instructor's diagnose (the judge reads traces by the same rules)."""
    nb = json.loads((ROOT / "grading" / "source" / "16_tools" / "16_tools.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "diagnose")
    scope: dict = {}
    exec("import pandas as pd\n" + "".join(cell["source"]), scope)
    return scope["diagnose"]


@pytest.mark.parametrize(("mistake", "ranks", "culprit", "options"), [
    ("none", 2, 0, {}), ("level", 2, 0, {}), ("level", 3, 2, {}), ("request", 2, 0, {}),
    ("request", 3, 1, {}), ("deadlock", 3, 0, {}),
    # the hidden test's other shapes: Tests that find requests done and the main thread's calls
    # in the region (no mistake), a nested region's thread 0, a leaked receive of a ring tag
    ("none", 3, 0, {"inside": 1, "check": 1}), ("level", 2, 1, {"nested": 1, "check": 1}),
    ("request", 2, 1, {"leak": "recv", "tag": 40, "extra_tag": 41, "inside": 1}),
])
def test_each_mistake_shows_in_its_trace(mistake, ranks, culprit, options):
    calls = exercise.mistake_trace(mistake, ranks=ranks, culprit=culprit, **options)
    assert list(calls.columns) == exercise.TRACE_COLUMNS  # nothing names the mistake
    want = [] if mistake == "none" else list(range(ranks)) if mistake == "deadlock" else [culprit]
    assert _solution_diagnose()(calls) == (mistake, want)


STUB = "def diagnose(calls: pd.DataFrame) -> tuple:\n    # YOUR CODE HERE\n    raise NotImplementedError()"


def test_the_released_diagnose_stub_fails_apart_without_traces():
    """Part (b)'s hidden test makes no trace for the released stub: diagnose_unwritten gives what
    the answer child gives for it, and gives nothing (the cell runs) for any other cell."""
    trace = exercise.mistake_trace("none", ranks=2)
    names = {"QUICK": True, "N_ELEMENTS": 20000, "GRID": 96, "ITERATIONS": 20}
    for stub in (STUB, 'def diagnose(calls):\n    """later"""\n    raise NotImplementedError'):
        known = exercise.diagnose_unwritten({"diagnose": stub})
        assert known == exercise.diagnose_apart({"diagnose": stub}, [trace], names=names)
        assert known["error"].startswith("NotImplementedError")
    solution = solution_cell("16_tools", "diagnose")
    assert exercise.diagnose_apart({"diagnose": solution}, [trace], names=names) == {
        "said": [["none", []]]}
    for runs in (
        solution, None, "",
        STUB.replace("def diagnose", "@staticmethod\ndef diagnose"),  # the decorator may not raise
        STUB.replace("calls:", "calls=0, _x:"),  # a default, evaluated by the def
        STUB.replace("pd.DataFrame", "pd.NoSuchFrame"),  # an annotation that fails
        STUB.replace("NotImplementedError()", "NotImplementedError('soon')"),  # its own message
        STUB.replace("NotImplementedError()", "NotImplementedError from None"),
        STUB + "\n\ndiagnose = len",  # another diagnose after it
        STUB.replace("    # YOUR CODE HERE", "    print(calls)"),
    ):
        assert exercise.diagnose_unwritten({"diagnose": runs} if runs is not None else None) is None


def test_an_unknown_mistake_is_refused():
    with pytest.raises(ValueError, match="one of none, level, request, deadlock"):
        exercise.mistake_trace("race")


def test_the_counter_probe_says_what_perf_gave():
    probe = exercise.counter_probe(0.05)
    assert list(probe["event"]) == list(exercise.COUNTER_EVENTS)
    counted = probe["perf said"] == "counted"
    assert (counted == probe["value"].notna()).all(), probe  # a value only where perf counted
    assert all(s == "counted" or s.startswith("<") or "perf" in s for s in probe["perf said"]), probe


LOOKUP_FOR_MASTER = source_of("16_tools", "the team looks every bin up, each helper counts one element")
SOLO_MASTER = source_of("16_tools", "each helper asks for and counts one element")
DYNAMIC_ONE = """
void count_bins(long n, int nbins, long *bins) {
    (void)nbins;
#pragma omp parallel for schedule(dynamic, 1)
    for (long i = 0; i < n; i++) {
#pragma omp atomic
        bins[bin_of(i)]++;
    }
}
"""


@needs_archer
def test_the_kit_reads_each_threads_share_of_the_elements():
    """attackD's token shares (2026-12-04, fixer helper-f7): helpers that look every bin up but
    count one element (undercount), or ask for one element while the master asks for the rest
    (fewest, after the master's vain waits for them); a dynamic schedule of one element per chunk,
    paced by bin_of, shares the elements out at 2 and 8 threads."""
    n, nbins = 8000, 8
    want = exercise.bins_expected(1, n, nbins)
    lookup = exercise.count_evidence(exercise.build_count(LOOKUP_FOR_MASTER, "t_bins_lookup"),
                                     1, 2, n, nbins)  # fmt: skip
    assert lookup["bins"] == want and lookup["undercount"] == 1 and lookup["silent"] == 0, lookup
    solo = exercise.count_evidence(exercise.build_count(SOLO_MASTER, "t_bins_solo"), 1, 2, n, nbins)
    assert solo["bins"] == want and solo["fewest"] == 1 and solo["pace_waits"] > 0, solo
    kernel = exercise.build_count(DYNAMIC_ONE, "t_bins_dynamic_one")
    for threads in (2, 8):
        shared = exercise.count_evidence(kernel, 1, threads, n, nbins)
        assert shared["bins"] == want and shared["undercount"] == 0, shared
        assert shared["fewest"] * 4 * shared["team"] >= n, shared


FORGED_SHARES = source_of("16_tools", "a serial count on the master, the kit's per-thread tallies")
FORGED_BY_RUNTIME = source_of("16_tools", "a serial count on the master, the kit's tallies rewritten")


@needs_archer
def test_a_cell_that_rewrites_the_kits_tallies_stops_the_run():
    """Issue 36 (fixer F): the master counts every element, then the kit's per-thread tallies
    (the elements each thread asked for, its writes, the counts it added), found by scanning the
    library's data from the cell's statics, are split between the threads: against the old
    kernel every judge check passed. They are race_bins.c's own section now, which every write of
    the cell passes the watch to reach (a store, or a lock routine's write): the first such write
    stops the run. The same rewrite made by the OpenMP runtime (omp_get_schedule, which writes
    through the pointer it is handed) passed the judge against that watch: refused at the build."""
    from hybridlab.errors import KernelError

    kernel = exercise.build_count(FORGED_SHARES, "t_bins_forged_shares")
    with pytest.raises(KernelError, match="race_bins.c's own tallies"):
        exercise.count_evidence(kernel, 1, 2, 20000, 8)
    locked = FORGED_SHARES.replace("        q[0] = n / 2 + 1;\n        q[1] = n / 2 + 1;\n",
                                   "        omp_init_lock((omp_lock_t *)(long *)&q[1]);\n")
    assert locked != FORGED_SHARES  # a lock routine writing there: watched as a store is
    kernel = exercise.build_count(locked, "t_bins_forged_lock")
    with pytest.raises(KernelError, match="race_bins.c's own tallies"):
        exercise.count_evidence(kernel, 1, 2, 20000, 8)
    with pytest.raises(AssertionError, match="calls omp_get_schedule"):
        exercise.build_count(FORGED_BY_RUNTIME, "t_bins_forged_schedule")
