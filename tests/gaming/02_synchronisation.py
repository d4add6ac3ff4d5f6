"""Lab 02: gaming attempts at every automatic part, and the graded functions' hidden inputs for
the scan of kit functions (see tests/gaming/__init__.py)."""

import numpy as np
import pandas as pd

from gaming import FRAME_TOOLS, SEALED_DESCRIPTOR_WRITE, Oracle, attempt, c_evidence, solution_cell
from solutions_c import CONSTRUCT_ATOMIC as ATOMIC
from wrong_answers import Wrong, c_cell, together


def construct(code: str) -> str:
    return c_cell("CONSTRUCT_C", "construct_bench", code)


EPCC = "hidden_epcc_interval"
REPORT = "hidden_imbalance_report"
SAVINGS = "hidden_h2mol_savings"
CONSTRUCT = "hidden_construct"
NUMBERS = "hidden_construct_overhead"

# the update done under critical (the worked example) while an atomic on a dummy satisfies a
# reading of the source
DUMMY_ATOMIC = ATOMIC.replace(
    "#pragma omp atomic\n        s->updates += 1;",
    "#pragma omp atomic\n        dummy += 1;\n#pragma omp critical\n        s->updates += 1;",
).replace("construct_state *s = arg;", "construct_state *s = arg;\n    long dummy = 0;", 1)
# "single" named, the pragma only in a string; the master updates, then a barrier
STRING_SINGLE = ATOMIC.replace('"atomic"', '"single"').replace(
    "#pragma omp atomic\n        s->updates += 1;",
    'const char *says = "#pragma omp single";\n        (void)says;\n'
    "        if (omp_get_thread_num() == 0) s->updates += 1;\n#pragma omp barrier",
)
# "atomic" named, the pragma only in a string; a compiler builtin does the update
STRING_ATOMIC = ATOMIC.replace(
    "#pragma omp atomic\n        s->updates += 1;",
    'const char *says = "#pragma omp atomic";\n        (void)says;\n'
    "        __sync_fetch_and_add(&s->updates, 1);",
)

GAMING = [
    # (a) epcc_interval
    attempt("shortcut", "epcc_interval", """
from hybridlab.runs.stats import overhead as _kit


def epcc_interval(test, reference, _o=_kit) -> tuple[float, float]:
    o = _o(list(test), list(reference))
    return o.value - 1.96 * o.spread, o.value + 1.96 * o.spread
""", loses={EPCC}, why="the kit's median overhead and spread, captured in a default argument", reason="is not EPCC's interval"),
    attempt("shortcut", "epcc_interval", """
from hybridlab.sync.tables import overhead_table as _table


def epcc_interval(test, reference) -> tuple[float, float]:
    frame = pd.DataFrame({"construct": ["test"] * len(test) + ["reference"] * len(reference),
                          "sample": list(range(len(test))) + list(range(len(reference))),
                          "seconds": list(test) + list(reference), "threads": 1})
    row = _table(frame).iloc[0]
    middle, half = row["overhead_us"] / 1e6, 1.96 * row["spread_us"] / 1e6
    return middle - half, middle + half
""", loses={EPCC}, why="the lab's overhead_table on a frame made of the samples", reason="is not EPCC's interval"),
    attempt("hidden", "epcc_interval", """
def epcc_interval(test, reference) -> tuple[float, float]:
    t, r = np.asarray(test, dtype=float), np.asarray(reference, dtype=float)
    if len(t) == 3 and len(r) == 3:  # the visible example
        return 3.0 - 1.96 * 1.2, 3.0 + 1.96 * 1.2
    middle = np.median(t) - np.median(r)
    return middle - 1.96 * t.std(), middle + 1.96 * t.std()
""", loses={EPCC}, why="the visible case typed in, a guess elsewhere", reason="is not EPCC's interval"),
    attempt("constant", "epcc_interval", """
def epcc_interval(test, reference) -> tuple[float, float]:
    return 0.648, 5.352
""", loses={EPCC}, why="the visible example's answer returned for every input", reason="is not EPCC's interval"),
    # (b) imbalance_report
    attempt("method", "imbalance_report", """
def imbalance_report(timeline: pd.DataFrame) -> dict[str, float]:
    master = timeline[timeline["thread"] == 0]
    spent = (master["end"] - master["start"]).groupby([master["phase"], master["rank"]]).sum()
    compute, wait = spent["compute"], spent["barrier"]
    return {"efficiency": float(compute.mean() / compute.max()),
            "lost_rank_seconds": float((wait - wait.min()).sum()),
            "predicted_seconds": float(reb.records["end"].max() - reb.records["start"].min())}
""", loses={REPORT}, why="the rebalanced run's measured time returned as the prediction", reason="predicted_seconds"),
    attempt("hidden", "imbalance_report", """
def imbalance_report(timeline: pd.DataFrame) -> dict[str, float]:
    master = timeline[timeline["thread"] == 0]
    spent = (master["end"] - master["start"]).groupby([master["phase"], master["rank"]]).sum()
    compute, wait = spent["compute"], spent["barrier"]
    imbalance_wait = wait - wait.min()
    return {"efficiency": float(compute.mean() / compute.max()),
            "lost_rank_seconds": float(imbalance_wait.sum()),
            "predicted_seconds": float(timeline["end"].max() - imbalance_wait.mean())}
""", loses={REPORT}, why="run time as the latest end: right only for timelines starting at 0", reason="predicted_seconds"),
    attempt("constant", "imbalance_report", """
def imbalance_report(timeline: pd.DataFrame) -> dict[str, float]:
    if len(timeline) == 4:  # the visible example
        return {"efficiency": 20 / 30, "lost_rank_seconds": 0.020, "predicted_seconds": 0.021}
    return {"efficiency": 0.75, "lost_rank_seconds": 0.3, "predicted_seconds": 0.5}
""", loses={REPORT}, why="numbers typed in", reason="efficiency"),
    # (c) h2mol_savings
    attempt("shortcut", "h2mol_savings", """
from hybridlab.reference import REFERENCE as _R


def h2mol_savings(rows: pd.DataFrame) -> pd.DataFrame:
    table = _R["001-table-3"].frame
    bar = table[table["routine"] == "MPI_Barrier"]
    excess = bar["avg_s"] - bar["min_s"]
    return pd.DataFrame({"lost_processor_seconds": (bar["processors"] * excess).to_numpy(),
                         "saving_s": excess.to_numpy()},
                        index=pd.Index(bar["processors"].to_numpy(), name="processors"))
""", loses={SAVINGS}, why="the package's published table read, whatever rows are given", reason="one row per processor count"),
    attempt("hidden", "h2mol_savings", """
def h2mol_savings(rows: pd.DataFrame) -> pd.DataFrame:
    excess = (rows["avg_s"] - rows["min_s"]).to_numpy()
    counts = np.resize([6, 15, 28, 45, 120, 210], len(excess))  # as many as there are rows
    return pd.DataFrame({"lost_processor_seconds": counts * excess, "saving_s": excess},
                        index=pd.Index(counts, name="processors"))
""", loses={SAVINGS}, why="the published processor counts typed in as the index", reason="one row per processor count"),
    attempt("constant", "h2mol_savings", """
def h2mol_savings(rows: pd.DataFrame) -> pd.DataFrame:
    saving = {6: 2.89, 15: 5.35, 28: 16.33, 45: 12.62, 120: 17.30, 210: 15.72}
    return pd.DataFrame({"lost_processor_seconds": [p * s for p, s in saving.items()],
                         "saving_s": list(saving.values())},
                        index=pd.Index(list(saving), name="processors"))
""", loses={SAVINGS}, why="Table 3's savings worked out by hand and typed in", reason="one row per processor count"),
    # (d) the construct in C
    attempt("method", "construct_code", construct(DUMMY_ATOMIC), loses={CONSTRUCT},
            why="an atomic on a dummy variable; the counter still under the example's critical", reason="takes no lock, but the code uses GOMP_critical_start"),
    attempt("method", "construct_code", construct(STRING_SINGLE), loses={CONSTRUCT},
            why="'single' only in a string; the master updates and a barrier follows", reason="does not use the single construct"),
    attempt("method", "construct_code", construct(STRING_ATOMIC), loses={CONSTRUCT},
            why="'atomic' only in a string; a compiler builtin does the update", reason="does not use the atomic construct"),
    # (d) the numbers
    attempt("shortcut", "construct_overhead", """
_mine = overhead_table(my_samples.assign(construct=my_samples["kind"]), by=[]).iloc[0]
my_interval_us = (_mine["overhead_us"] - 1.96 * _mine["spread_us"], _mine["overhead_us"] + 1.96 * _mine["spread_us"])
compare_with = "critical"
_lab = omp_table[(omp_table["threads"] == CPUS) & (omp_table["construct"] == compare_with)].iloc[0]
lab_interval_us = (_lab["overhead_us"] - 1.96 * _lab["spread_us"], _lab["overhead_us"] + 1.96 * _lab["spread_us"])
""", loses={NUMBERS}, why="the kit's median table turned into intervals", reason="your construct's interval"),
    attempt("method", "construct_overhead", """
_t = example_samples.loc[example_samples["kind"] == "test", "seconds"]
_r = example_samples.loc[example_samples["kind"] == "reference", "seconds"]
_h = 1.96 * (_t.std() + _r.std())
my_interval_us = ((_t.mean() - _r.mean() - _h) * 1e6, (_t.mean() - _r.mean() + _h) * 1e6)
compare_with = "critical"
lab_interval_us = my_interval_us
""", loses={NUMBERS}, why="the worked example's samples, not the student's own run",
            reason="name 'example_samples' is not defined"),
    attempt("constant", "construct_overhead", """
my_interval_us = (0.01, 0.05)
compare_with = "critical"
lab_interval_us = (0.2, 0.6)
""", loses={NUMBERS}, why="intervals typed in", reason="your construct's interval"),
]


def _epcc(t, r):
    t, r = np.asarray(t, dtype=float), np.asarray(r, dtype=float)
    middle, half = t.mean() - r.mean(), 1.96 * (t.std(ddof=1) + r.std(ddof=1))
    return middle - half, middle + half


def _pair(got, want) -> bool:
    try:
        got = [float(x) for x in got]
    except (TypeError, ValueError):
        return False
    return len(got) == len(want) and all(abs(g - w) <= 1e-9 * max(abs(w), 1e-12) for g, w in zip(got, want, strict=True))


_gen = np.random.default_rng(7)
_T, _R = list(_gen.normal(3e-6, 5e-7, 8)), list(_gen.normal(1e-6, 1e-7, 11))

_TIMELINE = pd.DataFrame(
    [(r, 0, 0, "compute", 1.0, 1.0 + w) for r, w in ((3, 0.01), (5, 0.03), (8, 0.02))]
    + [(r, 0, 0, "barrier", 1.0 + w, 1.031) for r, w in ((3, 0.01), (5, 0.03), (8, 0.02))],
    columns=["rank", "thread", "iteration", "phase", "start", "end"],
)


def _report_is(got) -> bool:
    try:
        return (abs(float(got["efficiency"]) - 0.02 / 0.03) < 1e-9
                and abs(float(got["lost_rank_seconds"]) - 0.03) < 1e-9
                and abs(float(got["predicted_seconds"]) - (0.031 - 0.01)) < 1e-9)
    except Exception:  # noqa: BLE001 - anything else is not the answer
        return False


_ROWS = pd.DataFrame({"processors": [7, 3, 64], "routine": "MPI_Barrier", "avg_s": [4.0, 2.5, 9.0],
                      "max_s": [6.0, 3.0, 20.0], "min_s": [1.0, 2.0, 3.5]})


def _savings_is(got) -> bool:
    try:
        return [round(float(v), 9) for v in got["saving_s"]] == [3.0, 0.5, 5.5]
    except Exception:  # noqa: BLE001 - anything else is not the answer
        return False


ORACLES = [
    Oracle("epcc_interval", (_T, _R), lambda got: _pair(got, _epcc(_T, _R))),
    Oracle("imbalance_report", (_TIMELINE,), _report_is),
    Oracle("h2mol_savings", (_ROWS,), _savings_is),
]

# Fresh attackers' attempts that scored before the fixes of this wave (a helper that had
# seen neither the solutions nor the tests, grading through the real sandbox).
GAMING += [
    attempt('method', 'construct_code', '%%c CONSTRUCT_C construct_bench\nconst char *const construct_name = "atomic";\n\nvoid construct_test(void *arg, long inner) {\n    construct_state *s = arg;\n#pragma omp parallel\n    for (long j = 0; j < inner; j++) {\n        hl_delay(s->delay);\n#pragma omp atomic\n        s->updates += 1;\n    }\n}\n\nint measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {\n    return hl_measure(ctx, construct_name, (construct_test, reference_loop), reference_loop, s, method, out);\n}\n',
            loses={'hidden_construct', 'hidden_construct_overhead'}, why='fresh attacker (the kernel now refuses the run, so no overhead either): regex-satisfying hl_measure that times reference_loop as the test (comma operator)', reason="hl_measure's test must be construct_test"),
]

# issue 36's hurried hole: the barrier the table's row requires left out (every update still
# arrives, so only the compiled code shows it)
_CONSTRUCT = r'''%%c CONSTRUCT_C construct_bench
const char *const construct_name = "NAME";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
UPDATE
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}'''
GAMING += [
    attempt("method", "construct_code", _CONSTRUCT.replace("NAME", "master").replace(
        "UPDATE", "#pragma omp masked\n        s->updates += 1;"), {"hidden_construct"},
        why="master without the barrier its row ends with", reason="compiled master test has no barrier"),
    attempt("method", "construct_code", _CONSTRUCT.replace("NAME", "single").replace(
        "UPDATE", "#pragma omp single nowait\n        s->updates += 1;"), {"hidden_construct"},
        why="single nowait: its barrier taken away", reason="compiled single test has no barrier"),
    # a fresh attacker (2026-12-04): the atomic row timed with no delay against a reference with
    # the delay, 3/3 + 2/2 before the kit's delay checked its length
    attempt("method", "construct_code", _CONSTRUCT.replace("hl_delay(s->delay)", "hl_delay(0)").replace(
        "NAME", "atomic").replace("UPDATE", "#pragma omp atomic\n        s->updates += 1;"),
        {"hidden_construct", "hidden_construct_overhead"},
        why="the construct's loop delays 0, the reference s->delay (its run apart refused too)",
        reason="not hl_delay(s->delay)"),
    # a fresh attacker's: two samples of a microsecond in place of the method handed in, 3/3 + 2/2
    attempt("method", "construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp atomic
        s->updates += 1;
    }
}

/* quicker: two samples of a microsecond instead of the method the kit hands in */
int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    hl_method quick = *method;
    quick.outer = 2;
    quick.target = 1e-6;
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, &quick, out);
}
""", {"hidden_construct", "hidden_construct_overhead"},
        why="measure_construct times with a method of its own (2 samples of 1 us)",
        reason="with the method it is given"),
]
# C evidence (issue 36): the solution with its MPI hidden from the tracer, records written by
# the student, library functions replaced (gaming.c_evidence)
GAMING += c_evidence("02_synchronisation", "construct_code",
                     {CONSTRUCT, "hidden_construct_overhead"}, None, reasons=True)  # no kernel, no run
GAMING.append(attempt("text", "construct_code", construct(ATOMIC.replace(
    "#pragma omp atomic\n        s->updates += 1;",
    "{ static omp_lock_t lk; void (*take)(omp_lock_t *) = omp_set_lock;\n"
    "          void (*give)(omp_lock_t *) = omp_unset_lock; take(&lk);\n"
    "#pragma omp atomic\n          s->updates += 1;\n          give(&lk); }")), loses={CONSTRUCT},
    why="a lock taken through a function pointer beside a token atomic (no `call omp_set_lock`)", reason="takes no lock, but the code uses omp_set_lock"))

# the barrier once per test, after the loop (GOMP_barrier is among the symbols, but no
# repetition ends at it: the preprocessed unit shows where it stands)
GAMING.append(attempt("text", "construct_code", _CONSTRUCT.replace("NAME", "master").replace(
    "UPDATE", "#pragma omp masked\n        s->updates += 1;").replace(
    "#pragma omp parallel\n    for", "#pragma omp parallel\n    {\n    for").replace(
    "        s->updates += 1;\n    }\n}", "        s->updates += 1;\n    }\n#pragma omp barrier\n    }\n}"),
    {CONSTRUCT}, why="master with one barrier after the loop, not one per repetition",
    reason="compiled master test has no barrier"))
# a spin lock of the cell's own, taken through a function pointer, beside a token atomic
GAMING.append(attempt("text", "construct_code", construct(ATOMIC.replace(
    "#pragma omp atomic\n        s->updates += 1;",
    "{ static volatile int lk; void (*take)(volatile int *) = spin_take; take(&lk);\n"
    "#pragma omp atomic\n          s->updates += 1;\n          __sync_lock_release(&lk); }").replace(
    "void construct_test", "static void spin_take(volatile int *l) {\n"
    "    while (__sync_lock_test_and_set(l, 1)) { }\n}\n\nvoid construct_test")),
    {CONSTRUCT}, why="a spin lock of its own through a function pointer, beside a token atomic",
    reason="a spin lock of the cell's own | atomic builtin or type"))

# The test's own interpreter reached (issue 36): its reference called or its expected value
# read from its frames, a judging module replaced, a global named like the reference.
GAMING += [
    attempt("interpreter", "epcc_interval", FRAME_TOOLS + """

def epcc_interval(test, reference):
    reference_of_the_test = _from_the_test(("_want", "_interval_us", "_reference"), True)
    if reference_of_the_test:
        return reference_of_the_test(test, reference)
    return 0.0, 0.0
""", {EPCC}, why="the hidden test's reference found in its frames and called",
        reason="is not EPCC's interval"),
    attempt("interpreter", "epcc_interval", FRAME_TOOLS + """

def epcc_interval(test, reference):
    return _from_the_test(("_want", "want", "_expected"), False) or (0.0, 0.0)
""", {EPCC}, why="the hidden test's expected value read from its frames",
        reason="is not EPCC's interval"),
    attempt("interpreter", "imbalance_report", """
import inspect


def imbalance_report(timeline):
    for frame in inspect.stack():  # the caller's reference, by any name it holds
        for name in ("_report", "_reference"):
            found = frame.frame.f_globals.get(name) or frame.frame.f_locals.get(name)
            if callable(found):
                return found(timeline)
    return {"efficiency": 1.0, "lost_rank_seconds": 0.0, "predicted_seconds": 0.0}
""", {REPORT}, why="inspect.stack() searched for the test's _report", reason="the timeline gives"),
    attempt("interpreter", "h2mol_savings", """
def h2mol_savings(rows):
    excess = rows["max_s"] - rows["min_s"]
    return pd.DataFrame({"lost_processor_seconds": (rows["processors"] * excess).to_numpy(),
                         "saving_s": excess.to_numpy()},
                        index=pd.Index(rows["processors"].to_numpy(), name="processors"))


def _close(got, want):  # a global named like the test's comparison: always equal
    return True
""", {SAVINGS}, why="max - min, and a global _close that accepts anything", reason="saving_s at"),
    attempt("interpreter", "construct_overhead", """
my_interval_us, compare_with, lab_interval_us = (0.0, 1.0), "critical", (0.0, 1.0)


def _same(got, want):  # globals named like the test's own comparison and reference
    return True


def _interval_us(test, reference):
    return 0.0, 1.0
""", {NUMBERS}, why="intervals typed in, with globals named like the test's _same and _interval_us",
        reason="your construct's interval"),
    together(
        attempt("interpreter", "epcc_interval", """
import statistics

import hybridlab.sync.exercise as _exercise


def epcc_interval(test, reference):
    t, r = [float(x) for x in test], [float(x) for x in reference]
    middle = statistics.mean(t) - statistics.mean(r)
    half = 1.96 * (statistics.stdev(t) + statistics.stdev(r))
    return middle - half, middle + half


_exercise.check_method = lambda code: "atomic"  # the judging module's check replaced
_exercise.CONSTRUCTS["atomic"] = (_exercise.CONSTRUCTS["atomic"][0], 1)  # one update per repetition
""", set(), why="a right epcc_interval"),
        # the kit replaced before the runs: (d) loses; (e) runs its answer cells apart on a run
        # of this cell (the critical example's, under its token atomic), and they are right
        attempt("interpreter", "construct_code", construct(DUMMY_ATOMIC), {CONSTRUCT},
                why="the critical example under a token atomic, hybridlab.sync.exercise's check "
                "replaced from an earlier cell", reason="takes no lock"),
    ),
]

# A fresh attacker's (helper-31, 2026-12-03) wrong methods that kept full points, now refused.
GAMING += [
    attempt("method", "construct_code", c_cell("CONSTRUCT_C", "construct_bench", r"""
const char *const construct_name = "atomic";

static long next_ticket, now_serving, dummy;

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
        long me = __atomic_fetch_add(&next_ticket, 1, __ATOMIC_ACQUIRE);
        while (__atomic_load_n(&now_serving, __ATOMIC_ACQUIRE) != me) { }
        s->updates += 1;
        __atomic_store_n(&now_serving, me + 1, __ATOMIC_RELEASE);
        if (s->delay < 0) {
#pragma omp atomic
            dummy += 1;
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""), {"hidden_construct"}, "named atomic: the update under a ticket lock of fetch-and-add and loads", reason="atomic builtin or type"),
    attempt("method", "construct_code", c_cell("CONSTRUCT_C", "construct_bench", r"""
const char *const construct_name = "atomic";

static omp_lock_t guard;
static int guard_ready;
static long dummy;

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    if (!guard_ready) { omp_init_lock(&guard); guard_ready = 1; }
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
        while (!omp_test_lock(&guard)) { }
        s->updates += 1;
        omp_unset_lock(&guard);
        if (s->delay < 0) {
#pragma omp atomic
            dummy += 1;
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""), {"hidden_construct"}, "named atomic: a spin on omp_test_lock", reason="takes no lock | may be skipped by some repetitions"),
    attempt("method", "construct_code", _CONSTRUCT.replace("NAME", "master").replace("UPDATE", """\
#pragma omp masked
        s->updates += 1;
        if (s->delay < 0) goto skip;  /* never taken: a barrier really skipped races the kernel's
                                         check that s->updates grows, so (e) would lose or not */
#pragma omp barrier
    skip:;"""), {"hidden_construct"}, "the barrier after masked skipped by a goto", reason="no goto round the construct"),
    attempt("method", "construct_code", c_cell("CONSTRUCT_C", "construct_bench", r"""
const char *const construct_name = "reduction";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long x = 0;
#pragma omp parallel reduction(+ : x)
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
        x += 1;
    }
    s->updates += x;
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""), {"hidden_construct"}, "named reduction: one parallel region for every repetition (the overhead timed is nearly nothing)", reason="outside the loop over the repetitions"),
]

# A fresh attacker's (helperF, 2026-12-03) constructs not timed once per repetition, that kept
# full points: now refused by the construct's place in the preprocessed unit (its pragma in the
# innermost loop of an hl_delay call) or by what ran (the kit's construct_delay counts each
# thread's delays per call of the test, with its team; construct_measure checks what is timed).
_MEASURE = r'''
int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}'''
GAMING += [
    attempt("method", "construct_code", construct(r'''
const char *const construct_name = "atomic";
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        long mine = 0;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
            mine += 1;
        }
#pragma omp atomic
        s->updates += mine;
    }
}''' + _MEASURE), {CONSTRUCT}, why="atomic once per thread after the loop, adding a private count",
        reason="stands outside the loop that calls hl_delay"),
    attempt("method", "construct_code", construct(r'''
const char *const construct_name = "master";
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        for (long j = 0; j < inner; j++) hl_delay(s->delay);
#pragma omp masked
        s->updates += inner;
#pragma omp barrier
    }
}''' + _MEASURE), {CONSTRUCT}, why="one masked update and one barrier per call, after all the delays",
        reason="stands outside the loop that calls hl_delay"),
    attempt("method", "construct_code", construct(r'''
const char *const construct_name = "reduction";
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    int T = omp_get_max_threads();
    for (long j = 0; j < inner; j++) {
        long x = 0;
#pragma omp parallel reduction(+:x) num_threads(1)
        {
            hl_delay(s->delay);
            x += T;
        }
        s->updates += x;
    }
}''' + _MEASURE), {CONSTRUCT, NUMBERS},
        why="a reduction region per repetition of one thread (no team forks), the count made up",
        reason="in a team of 1 thread"),
    attempt("method", "construct_code", construct(r'''
const char *const construct_name = "reduction";
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long x = 0;
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
        x += omp_get_max_threads();
    }
    for (long j = 0; j < 1; j++) {
        long y = 0;
#pragma omp parallel reduction(+:y)
        y += 1;
        s->updates += x + 0 * y;
    }
}''' + _MEASURE), {CONSTRUCT, NUMBERS},
        why="the delays run serially; one token reduction region in a loop of one pass",
        reason="outside the loop that calls hl_delay"),
    attempt("method", "construct_code", construct(r'''
const char *const construct_name = "atomic";
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp atomic
        s->updates += 1;
    }
}
static void quick(void *arg, long inner) {
    construct_state *s = arg;
    for (long j = 0; j < inner; j++) hl_delay(s->delay);
    s->updates += inner * omp_get_max_threads();
}
int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, quick, (construct_test, reference_loop), s, method, out);
}'''), {CONSTRUCT, NUMBERS}, why="a serial loop timed as the test; a comma operator names construct_test",
        reason="hl_measure's test must be construct_test"),
    attempt("method", "construct_code", construct(r'''
const char *const construct_name = "atomic";
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
#pragma omp atomic
        s->updates += 1;
    }
}''' + _MEASURE), {CONSTRUCT, NUMBERS}, why="no delay in the test loop (test and reference not comparable)",
        reason="construct_test never calls hl_delay"),
    attempt("method", "construct_code", construct(r'''
const char *const construct_name = "atomic";
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel num_threads(1)
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp atomic
        s->updates += 1;
    }
    s->updates += (omp_get_max_threads() - 1) * inner;
}''' + _MEASURE), {CONSTRUCT, NUMBERS}, why="the atomic loop in a team of one, the other threads' updates added by hand",
        reason="in a team of 1 thread"),
]
# the construct kept in the loop but run by one repetition only (found while closing helperF's)
GAMING += [
    attempt("method", "construct_code", _CONSTRUCT.replace("NAME", "atomic").replace(
        "UPDATE", "        if (j == inner - 1) {\n#pragma omp atomic\n            s->updates += inner;\n"
        "        }"), {CONSTRUCT}, why="atomic under an if: once per call, adding inner",
        reason="may be skipped by some repetitions"),
    attempt("method", "construct_code", _CONSTRUCT.replace("NAME", "single").replace(
        "UPDATE", "        if (j < inner - 1) continue;\n#pragma omp single\n        s->updates += inner;"),
        {CONSTRUCT}, why="single reached by the last repetition only (a continue before it)",
        reason="may be skipped by some repetitions"),
]


def _unrolled(note: str, more: str, k: int, delays: str) -> str:
    """attackC's atomic construct (`note` before its function): the loop over the repetitions
    unrolled by `k` while `more` holds, `delays` then one atomic adding k per pass, the tail in a
    second loop."""
    return construct("""const char *const construct_name = "atomic";
""" + note + """void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        long j;
        for (j = 0; """ + more + f"; j += {k}) {{\n" + delays + f"""#pragma omp atomic
            s->updates += {k};
        }}
        for (; j < inner; j++) {{
            hl_delay(s->delay);
#pragma omp atomic
            s->updates += 1;
        }}
    }}
}}
""" + _MEASURE.lstrip("\n") + "\n")


# a fresh attacker (attackC): the loop unrolled round the construct, k hl_delay calls and one
# atomic adding k per pass, the leftovers in a second loop (every thread still delays once per
# repetition, every update arrives); the pragma's loop body (macros expanded) must hold one delay
GAMING += [
    attempt("method", "construct_code", _unrolled("""/* gaming: the loop unrolled by two, one atomic adding 2 per two repetitions (half the atomics
   the part times), the odd tail in a second loop; no if/else/switch/continue/break/goto */
""", "j + 1 < inner", 2, """            hl_delay(s->delay);
            hl_delay(s->delay);
"""), {CONSTRUCT},
            why="loop unrolled by two: two delays, one atomic += 2 per pass, the odd tail apart",
            reason="calls hl_delay 2 times per pass"),
    attempt("method", "construct_code", _unrolled("""/* gaming: 16 delays per pass through the loop (a macro), one atomic adding 16: the construct runs
   once per 16 repetitions; the tail of inner % 16 repetitions in a second loop */
#define D4 hl_delay(s->delay); hl_delay(s->delay); hl_delay(s->delay); hl_delay(s->delay);
#define D16 D4 D4 D4 D4
""", "j + 16 <= inner", 16, "            D16\n"), {CONSTRUCT},
            why="16 delays per pass through a macro, one atomic += 16, the tail apart",
            reason="calls hl_delay 16 times per pass"),
]

# a fresh attacker (attackC): the samples the test read (construct_run.records, sweep) rewritten
# in the answer cell, made-up intervals reported; the judge now reads the samples the kit kept
# as the lab's cells made the runs (grading.handout.keep)
GAMING.append(attempt("forged", "construct_overhead", r"""# forge the evidence: overwrite the samples the judge recomputes from, then report made-up numbers
_rec = construct_run.records
_m = _rec["record"] == "sample"
_rec.loc[_m & (_rec["kind"] == "test"), "seconds"] = 3e-6
_rec.loc[_m & (_rec["kind"] == "reference"), "seconds"] = 1e-6
my_samples = _rec[_m]
_sw = (sweep["threads"] == CPUS)
sweep.loc[_sw & (sweep["construct"] == "critical"), "seconds"] = 5e-6
sweep.loc[_sw & (sweep["construct"] == "reference"), "seconds"] = 1e-6
my_interval_us = (2.0, 2.0)
compare_with = "critical"
lab_interval_us = (4.0, 4.0)
print(f"yours: {my_interval_us} µs; the lab's {compare_with}: {lab_interval_us} µs")
""", {NUMBERS},
                      why="construct_run's and sweep's samples overwritten, intervals made up",
                      reason="your construct's interval is not EPCC's"))

# the kit's run replaced from an earlier answer cell (run_construct keeping made-up samples in
# the kit's name, attackC) and the like change only the kernel's notebook now: (e) builds and runs
# the cell apart and runs its answer cells (a) and (e) again there, on that run's samples
# (sync.exercise.overhead_apart), so those attempts, whose (e) cell is the solution's, keep (e)
_H2MOL = "\n".join(line for line in solution_cell("02_synchronisation", "h2mol_savings").splitlines()
                   if "SOLUTION" not in line)  # fmt: skip

# a fresh attacker (attackF): the atomic of every repetition on the thread's own counter, never
# contended, the counts merged into s->updates by the region's reduction clause; refused at the
# atomic's line (its target is not s->updates; the lab's run fails too, so (e) has no samples). The same through a helper handed a construct_state
# of the thread's own: the text reads a state pointer, the kernel sees s->updates not growing
GAMING += [
    attempt("method", "construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

/* the atomic of every repetition is on the thread's own counter (never contended); the counts
 * reach s->updates through the region's reduction clause, added once by the master */
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        long mine = 0;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp atomic
            mine += 1;
        }
        total += mine;
    }
    s->updates += total;
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", {CONSTRUCT}, why="atomic on a private counter, merged by a reduction clause (attackF)",
            reason="not the team's counter"),
    attempt("method", "construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

static void bump(construct_state *c) {
#pragma omp atomic
    c->updates += 1;
}

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        construct_state mine = {0};
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
            bump(&mine);
        }
        total += mine.updates;
    }
    s->updates += total;
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", {CONSTRUCT}, why="atomic in a helper handed the thread's own construct_state, merged by a reduction",
            reason="s->updates had grown by 0 | writes an address other than s->updates"),
]

# a fresh attacker (attackF): an IPython post_run_cell callback, its code compiled under numpy's
# file name, registered by the (c) answer cell, rewrites the kit's kept construct_run line after
# every cell (test = reference + 5 us); the intervals are computed from the same forgery. The
# guard now removes, after each answer cell, every event callback IPython did not have at capture
# unless it is a library's function as its file defines it
_POSTHOOK = 'def h2mol_savings(rows: pd.DataFrame) -> pd.DataFrame:\n    """Per processor count: processor-seconds lost to imbalance, run time a rebalancing saves."""\n    wait = rows["avg_s"].to_numpy(dtype=float) - rows["min_s"].to_numpy(dtype=float)\n    return pd.DataFrame({"lost_processor_seconds": rows["processors"].to_numpy() * wait, "saving_s": wait},\n                        index=pd.Index(rows["processors"].to_numpy(), name="processors"))\n\n# an IPython post_run_cell callback whose code carries a library\'s file name: after every cell it\n# rewrites the kit\'s kept record of my construct\'s run in the hand-out file (test = reference + 5 us)\nimport os as _os\n_SRC = r\'\'\'\ndef _rewrite(*args, **kw):\n    import json, os\n    from hybridlab.grading import handout\n    path = os.environ.get("HYBRIDLAB_HANDOUT")\n    if not path or not os.path.exists(path):\n        return\n    with open(path) as f:\n        lines = f.readlines()\n    changed = False\n    for i, line in enumerate(lines):\n        d = json.loads(line) if line.startswith(\'{"hl_kept"\') else None\n        if not d or d.get(\'hl_kept\') != "construct_run":\n            continue\n        v = handout.decode(d["value"])\n        if v.get("kernel") == "construct_bench" or v.get("x_done"):\n            continue\n        ref = iter([s for k, s in zip(v["kind"], v["seconds"]) if k == "reference"])\n        new = [(next(ref) + 5e-6) if k == "test" else s for k, s in zip(v["kind"], v["seconds"])]\n        if new != v["seconds"]:\n            v["seconds"] = new\n            lines[i] = json.dumps({\'hl_kept\': "construct_run", "value": handout.encode(v)}) + "\\n"\n            changed = True\n    if changed:\n        with open(path, "r+") as f:\n            f.seek(0); f.writelines(lines); f.truncate()\n\'\'\'\n_ns = {}\nexec(compile(_SRC, _os.path.join(_os.path.dirname(np.__file__), "_core", "_hl_hook.py"), "exec"), _ns)\nget_ipython().events.register("post_run_cell", _ns["_rewrite"])'
_FORGED_OVERHEAD = '# my construct\'s overhead "as measured": the test samples as the kit kept them (reference + 5 us)\nref = my_samples.loc[my_samples["kind"] == "reference", "seconds"].to_numpy()\nn_test = int((my_samples["kind"] == "test").sum())\nforged = ref[:n_test] + 5e-6\nmy_interval_us = tuple(1e6 * v for v in epcc_interval(forged, ref))\ncompare_with = "critical"\nat = sweep[sweep["threads"] == CPUS]\nlab_interval_us = tuple(1e6 * v for v in epcc_interval(at.loc[at["construct"] == compare_with, "seconds"],\n                                                        at.loc[at["construct"] == "reference", "seconds"]))\nprint(f"yours: {my_interval_us} µs; the lab\'s {compare_with}: {lab_interval_us} µs")'
GAMING.append(Wrong((("h2mol_savings", _POSTHOOK), ("construct_overhead", _FORGED_OVERHEAD)),
                    frozenset({NUMBERS}), "post_run_cell callback under a library's file name rewrites the kept run",
                    "forged", reason="your construct's interval is not EPCC's"))

# a fresh attacker (attackF): a thread started by the (c) answer cell, its code compiled under
# numpy's file name, rewrites the kit's kept construct_run line in the hand-out while the lab's
# cell runs (test = reference + 5 us), and (e) reports intervals of that forgery: 2/2 while (e)
# read the kept runs. (e) now runs the construct and its answer cells again apart
# (sync.exercise.overhead_apart): the forgery's cell, run on that run's samples, is not EPCC's
_FORGE_THREAD = 'def h2mol_savings(rows: pd.DataFrame) -> pd.DataFrame:\n    """Per processor count: processor-seconds lost to imbalance, run time a rebalancing saves."""\n    wait = rows["avg_s"].to_numpy(dtype=float) - rows["min_s"].to_numpy(dtype=float)\n    return pd.DataFrame({"lost_processor_seconds": rows["processors"].to_numpy() * wait, "saving_s": wait},\n                        index=pd.Index(rows["processors"].to_numpy(), name="processors"))\n\n# a helper thread, its code compiled under a library\'s file name: it waits for the kit\'s kept\n# record of my construct\'s run and rewrites the test samples as reference + 5 us\nimport os as _os, threading as _th\n_SRC = r\'\'\'\ndef _forge(path, seconds):\n    import json, time\n    from hybridlab.grading import handout\n    end = time.time() + seconds\n    while time.time() < end:\n        try:\n            with open(path) as f:\n                lines = f.readlines()\n        except OSError:\n            time.sleep(0.02)\n            continue\n        for i, line in enumerate(lines):\n            d = json.loads(line) if line.startswith(\'{"hl_kept"\') else None  # the kept lines (gone since 2026-12-05)\n            if not d or d.get(\'hl_kept\') != "construct_run":\n                continue\n            v = handout.decode(d["value"])\n            if v.get("kernel") == "construct_bench" or v.get("forged_done"):\n                continue\n            ref = [s for k, s in zip(v["kind"], v["seconds"]) if k == "reference"]\n            it = iter(ref)\n            v["seconds"] = [(next(it) + 5e-6) if k == "test" else s for k, s in zip(v["kind"], v["seconds"])]\n            lines[i] = json.dumps({\'hl_kept\': "construct_run", "value": handout.encode(v)}) + "\\n"\n            with open(path, "r+") as f:\n                f.seek(0)\n                f.writelines(lines)\n                f.truncate()\n            return\n        time.sleep(0.01)\n\'\'\'\n_ns = {}\nexec(compile(_SRC, _os.path.join(_os.path.dirname(np.__file__), "_core", "_hl_watch.py"), "exec"), _ns)\n_p = _os.environ.get("HYBRIDLAB_HANDOUT")\nif _p:\n    _th.Thread(target=_ns["_forge"], args=(_p, 900), daemon=True).start()'
GAMING.append(Wrong((("h2mol_savings", _FORGE_THREAD), ("construct_overhead", _FORGED_OVERHEAD)),
                    frozenset({SAVINGS, NUMBERS}),
                    "a thread under a library's file name rewrites the kept run (attackF); since "
                    "2026-12-05 the guard sees the thread (its code is no file's): every later test "
                    "judged in the kernel ((d), graded apart, keeps its points)",
                    "forged", reason="your construct's interval is not EPCC's | a thread running the student's code"))

# a fresh attacker's counter bumped once early, then counted privately: the first repetition's
# atomic reaches s->updates through a pointer the loop then moves to a count of the thread's own,
# merged by a reduction (the text reads a pointer set to &s->updates; the counter grew, so the
# kernel's growth check at the last repetition passed). The kernel now checks every repetition
# of the contention run: s->updates grown by k when a thread begins repetition k + 1, and for
# atomic by one since the thread's previous repetition
GAMING.append(attempt("method", "construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        volatile long mine = 0;
        volatile long *count = &s->updates;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp atomic
            *count += 1;
            count = &mine;
        }
        total += mine;
    }
    s->updates += total;
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", {CONSTRUCT}, why="the team's counter bumped once early, then a private count merged by a reduction",
                      reason="s->updates had grown by | writes an address other than s->updates"))

# a fresh attacker's (n02det2, 3/3 and 2/2 kept, 2026-12-05): the timed calls (a delay given) run a
# loop of delays with no construct, the atomic only in the run without a delay
GAMING += [
    attempt("method", "construct_code", '%%c CONSTRUCT_C construct_bench\n/* determined: the atomic runs only in the contention run (no delay); the timed calls (with the\n * delay) run a loop with no construct at all, thread 0 counting the repetitions plainly */\nconst char *const construct_name = "atomic";\n\nvoid construct_test(void *arg, long inner) {\n    construct_state *s = arg;\n    if (s->delay > 0) {\n#pragma omp parallel\n        {\n            int me = omp_get_thread_num();\n            for (long j = 0; j < inner; j++) {\n                hl_delay(s->delay);\n                if (me == 0) s->updates = s->updates + 1;\n            }\n        }\n    } else {\n#pragma omp parallel\n        for (long j = 0; j < inner; j++) {\n            hl_delay(s->delay);\n#pragma omp atomic\n            s->updates += 1;\n        }\n    }\n}\n\nint measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {\n    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);\n}\n', {CONSTRUCT},
            "fresh attacker (n02det2): the delays' loop holds no construct when a delay is given",
            reason="hl_delay is called in a loop with no atomic construct"),
]

# a fresh attacker's (R02tern, R02or: 3/3 and 2/2 kept, 2026-12-05): the atomic in a statement
# expression on one side of ?: or ||, run only when no delay is given (the contention run); the
# timed calls count the repetitions plainly on thread 0
GAMING += [
    attempt("method", "construct_code", '%%c CONSTRUCT_C construct_bench\nconst char *const construct_name = "atomic";\n\nvoid construct_test(void *arg, long inner) {\n    construct_state *s = arg;\n#pragma omp parallel\n    for (long j = 0; j < inner; j++) {\n        hl_delay(s->delay);\n        (void)(s->delay ? (omp_get_thread_num() == 0 ? (s->updates += 1, 0) : 0) : ({\n#pragma omp atomic\n            s->updates += 1;\n            0;\n        }));\n    }\n}\n\nint measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {\n    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);\n}\n', {CONSTRUCT},
            "fresh attacker (R02tern): the atomic in a branch of ?: that the timed calls never take",
            reason="may be skipped by some repetitions"),
    attempt("method", "construct_code", '%%c CONSTRUCT_C construct_bench\nconst char *const construct_name = "atomic";\n\nvoid construct_test(void *arg, long inner) {\n    construct_state *s = arg;\n#pragma omp parallel\n    for (long j = 0; j < inner; j++) {\n        hl_delay(s->delay);\n        (void)((s->delay && (omp_get_thread_num() || (s->updates += 1, 1))) || ({\n#pragma omp atomic\n            s->updates += 1;\n            0;\n        }));\n    }\n}\n\nint measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {\n    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);\n}\n', {CONSTRUCT},
            "fresh attacker (R02or): the atomic after || , skipped whenever a delay is given",
            reason="may be skipped by some repetitions"),
]

# attacker T's G02_twoloops (2026-12-06, 0 kept): the contention run gets the atomic, the timed runs a loop of delays alone
GAMING.append(Wrong((('construct_code', r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

/* the timed calls: the delay alone, no construct */
static void quiet(construct_state *s, long inner) {
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
    }
}

/* the contention run (no delay): the real atomic */
static void contended(construct_state *s, long inner) {
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(s->delay);
#pragma omp atomic
        s->updates += 1;
    }
}

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    if (s->delay == 0)
        contended(s, inner);
    else
        quiet(s, inner);
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""".strip()), ('construct_overhead', r"""
my_interval_us = compare_with = lab_interval_us = None  # your intervals and your choice
by_kind = dict(tuple(my_samples.groupby("kind")["seconds"]))
my_interval_us = tuple(1e6 * v for v in epcc_interval(by_kind["test"], by_kind["reference"]))
compare_with = "critical"
same = sweep.query("threads == @CPUS")
lab_interval_us = tuple(1e6 * v for v in epcc_interval(
    same.query("construct == @compare_with")["seconds"], same.query("construct == 'reference'")["seconds"]))
print(f"yours: {my_interval_us} µs; the lab's {compare_with}: {lab_interval_us} µs")
""".strip()),), frozenset(['hidden_construct', 'hidden_construct_overhead']), "attacker T (G02_twoloops): the contention run gets the atomic, the timed runs a loop of delays alone", "method", 'no loop of delays alone'))

# f51 (the kit's evidence rewritten by scanning memory): the counter bumped once early, then a
# private count merged by a reduction (as above: the kit's contention run finds s->updates fallen
# behind and notes it in a static, short_found), and after the region the kit's statics found
# from one of the cell's own (the same library's data) by the state pointer it keeps twice and
# the finding cleared: check_construct passed it (checked against the old kernel). The kit's
# findings and configuration are hybridlab.h's sealed evidence now (read-only pages written
# through /proc/self/mem): the scan finds no such pair, or the store faults
GAMING.append(attempt("forged", "construct_code", r"""
%%c CONSTRUCT_C construct_bench
/* gaming (the kit's evidence rewritten by scanning the library's data): the team's counter bumped
   once early by each thread, then a private count merged by a reduction (the kit sees
   s->updates fall behind the repetitions: short_found), and after the region the kit's flag
   found from one of this cell's statics (beside the state pointer it keeps twice) and cleared */
const char *const construct_name = "atomic";
static long here; /* a static of the cell: in the library's data, beside the kit's */

static void __attribute__((noipa, optimize("O0"))) forget(const void *s) {
    long *p = &here;
    for (long k = 1; k < 65536; k++) { /* upwards: the kit's statics follow the cell's */
        long *q = p + k;
        if (q[0] == (long)s && q[5] == (long)s) {
            ((int *)q)[-12] = 0; /* short_found */
            return;
        }
    }
}

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        volatile long mine = 0;
        volatile long *count = &s->updates;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp atomic
            *count += 1;
            count = &mine;
        }
        total += mine;
    }
    s->updates += total;
    forget(s);
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", {CONSTRUCT}, why="the counter bumped once early, then a private count, and the kit's finding "
                      "(short_found, a static) found from a static of the cell and cleared (f51)",
                      reason="s->updates had grown by | signal 11 | writes an address other than s->updates"))

# fixer F (issue 36, 2026-12-06): f51's count (the team's counter bumped once early, then a
# private count merged by a reduction), the check that catches it dodged through the kit's
# per-thread delay tallies (construct_bench.c's writable `counted`, bumped by hl_delay inside the
# timed loop): found by scanning the library's data after a first call, each set to 0 before
# every delay of the contention run (the check never sees a repetition begin) and to `inner`
# after it: every check passed against the old kernel. The kit seals each thread's tally with
# the time every 256 delays now (cb_mark) and checks the tally against its marks
GAMING.append(attempt("forged", "construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";
static long here;            /* a static of the cell: in the library's data, before the kit's */
static volatile long *tally; /* the kit's delay tally of thread 0, once found (rows of 8 longs) */

/* the kit's delay tallies: 1024 rows of 8 longs, a thread's delays first (then a counter it saw,
   then padding); after a first call every thread of the team delayed `inner` times, so rows
   0 .. team-1 start with inner, and the rest but the second words is 0 */
static void __attribute__((noinline)) find_tally(long inner, int team) {
    volatile long *p = &here;
    for (long k = 1; k < (1L << 16); k++) { /* upwards: the kit's statics follow */
        volatile long *q = p + k;
        int match = 1;
        for (long w = 0; w < 8L * 1024 && match; w++)
            match = w % 8 == 1 || q[w] == ((w % 8 == 0 && w / 8 < team) ? inner : 0);
        if (match) {
            tally = q;
            return;
        }
    }
}

/* the team's counter bumped once early, then a private count merged by a reduction; in the
   contention run (no delay) each thread's delay tally is set to 0 before each delay, so the kit
   never sees a thread begin a repetition after the first (its check that s->updates has grown
   by then never runs), and to `inner` when the region ends */
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    int team = 1;
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
#pragma omp single
        team = omp_get_num_threads();
        int t = omp_get_thread_num();
        volatile long mine = 0;
        volatile long *count = &s->updates;
        for (long j = 0; j < inner; j++) {
            if (tally && s->delay == 0) tally[8 * t] = 0;
            hl_delay(s->delay);
#pragma omp atomic
            *count += 1;
            count = &mine;
        }
        total += mine;
    }
    s->updates += total;
    if (!tally)
        find_tally(inner, team);
    else if (s->delay == 0)
        for (int t = 0; t < team; t++) tally[8 * t] = inner;
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", {CONSTRUCT}, why="a private count, the kit's delay tallies found by scanning the library's "
                      "data and rewritten in the contention run (fixer F, issue 36)",
                      reason="by the kit's sealed marks | writes an address other than s->updates"))

# attacker U (u02_forge, 2026-12-06; 3/3 twice): only the master thread delays (the kit notes a
# delay of the wrong length, wrong_length, in its sealed evidence), then the finding cleared
# THROUGH THE KIT'S OWN /proc/self/mem descriptor, whose number the sealed page holds: stdout's
# FILE pointed at it, its read end set so that fflush seeks the descriptor (lseek) to the
# finding before it writes (the page found as the first 64 KiB boundary above the cell's statics
# with the kit's head; U took it from nm). The kit's seccomp filter leaves that descriptor to its
# own pwrite64 now: the seek and the write fail with EPERM and the finding stands, and the
# overhead part, which runs the same code, gets no run either (fixer G2)
GAMING.append(attempt("forged", "construct_code", r"""
%%c CONSTRUCT_C construct_bench
/* gaming (the kit's sealed evidence written through the kit's own /proc/self/mem descriptor):
   only the master thread delays (the kit notes a delay of the wrong length: wrong_length), then
   the finding cleared through the descriptor the kit keeps in the sealed page, by stdout's FILE
   pointed at it (fflush: lseek, then write; attacker U's u02_forge) */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *const construct_name = "atomic";

/* the kit's sealed evidence, as construct_bench.c lays it out */
typedef struct {
    int team_wanted, measures;
    int updates_shared, own_update;
    long start_updates;
    const construct_state *state_wanted;
    hl_method method_wanted;
    int stray_found, stray_level, stray_team;
    int wrong_length;
    long length_seen;
} kit_evidence;
""" + SEALED_DESCRIPTOR_WRITE + r"""
void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(omp_get_thread_num() == 0 ? s->delay : 0); /* only the master really delays */
#pragma omp atomic
        s->updates += 1;
    }
    static const int zero[1];
    unseal(24 + offsetof(kit_evidence, wrong_length), zero, sizeof zero); /* (data[] at 24) */
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", {CONSTRUCT, NUMBERS}, why="the kit's own /proc/self/mem descriptor written by stdout's FILE: only the "
                      "master delays, then the kit's finding (wrong_length) cleared (attacker U)",
                      reason="not hl_delay(s->delay)"))

# attacker V's K1 (2026-12-06, 3/3 twice): half the reference's delay, the kit's finding
# (wrong_length) cleared in the sealed page by libc's pwrite64 on the kit's own descriptor,
# reached with no call: the cell rewrote its own return address (__builtin_frame_address, room
# reserved by __builtin_alloca), so its `ret` went into pwrite64, found by name in libc's dynamic
# symbols read from memory. unit_checks refuses the builtins that reach or reshape the stack
GAMING.append(attempt("forged", "construct_code", r"""
%%c CONSTRUCT_C construct_bench
const char *const construct_name = "atomic";

#include <string.h>
#include <elf.h>
#include <stdint.h>

/* Calling a C library function the checks do not allow (pwrite64), without an indirect call:
 * rv_jump rewrites its own return address so that its `ret` goes through a `ret` (rv_nothing)
 * into the function, whose own `ret` comes back into rv_call (frame pointer: rsp is restored by
 * `leave`). The function is found by its name in the C library's dynamic symbols, read from
 * memory (stdout's FILE lies in the C library). */
static void *rv_fn, *rv_gadget;
static void rv_nothing(void) {}

static const unsigned char *rv_header(const void *p) {
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;
    for (;;) {
        const unsigned char *h = (const unsigned char *)a;
        if (h[0] == 0x7f && h[1] == 'E' && h[2] == 'L' && h[3] == 'F') return h;
        a -= 4096;
    }
}

static uintptr_t rv_bias(const unsigned char *h) {
    return ((const Elf64_Ehdr *)h)->e_type == ET_DYN ? (uintptr_t)h : 0;
}

static void *rv_lookup(const void *inside, const char *want) {
    const unsigned char *h = rv_header(inside);
    const Elf64_Ehdr *e = (const Elf64_Ehdr *)h;
    uintptr_t bias = rv_bias(h);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(h + e->e_phoff);
    const Elf64_Dyn *dyn = 0;
    for (int i = 0; i < e->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC) dyn = (const Elf64_Dyn *)(bias + ph[i].p_vaddr);
    if (!dyn) return 0;
    uintptr_t symtab = 0, strtab = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_SYMTAB) symtab = dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_STRTAB) strtab = dyn->d_un.d_ptr;
    }
    if (symtab < bias) symtab += bias;
    if (strtab < bias) strtab += bias;
    for (const Elf64_Sym *s = (const Elf64_Sym *)symtab; (uintptr_t)s < strtab; s++)
        if (s->st_value && s->st_name && strcmp((const char *)strtab + s->st_name, want) == 0)
            return (void *)(bias + s->st_value);
    return 0;
}

/* the kit's sealed page in this module: 64 KiB aligned, {ready 1, mem = its descriptor} */
typedef struct { int ready, mem; void *ctx; long nonce; long data[1]; } rv_sealed;
static rv_sealed *rv_find_sealed(const void *inside) {
    const unsigned char *h = rv_header(inside);
    const Elf64_Ehdr *e = (const Elf64_Ehdr *)h;
    uintptr_t bias = rv_bias(h);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(h + e->e_phoff);
    for (int i = 0; i < e->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_W)) continue;
        uintptr_t lo = bias + ph[i].p_vaddr, hi = lo + ph[i].p_memsz;
        for (uintptr_t a = (lo + 65535) & ~(uintptr_t)65535; a + 64 <= hi; a += 65536) {
            rv_sealed *s = (rv_sealed *)a;
            if (s->ready == 1 && s->mem > 2 && s->ctx) return s;
        }
    }
    return 0;
}

__attribute__((noipa)) static void rv_jump(long a, long b, long c, long d) {
    (void)a; (void)b; (void)c; (void)d;
    void *volatile *fp = __builtin_frame_address(0);
    void *back = fp[1];
    fp[3] = back;
    fp[2] = rv_fn;
    fp[1] = rv_gadget;
}

static volatile long rv_pad = 64;
__attribute__((noipa)) static void rv_call(void *fn, long a, long b, long c, long d) {
    volatile char *room = __builtin_alloca(rv_pad);
    room[0] = 0;
    rv_fn = fn;
    rv_gadget = (void *)rv_nothing;
    rv_jump(a, b, c, d);
    room[1] = 0;
}

/* pwrite64(fd, src, n, at): the one call the seccomp filter leaves the kit's descriptor */
static void rv_sealed_write(const void *inside, void *at, const void *src, long n) {
    static rv_sealed *page;
    static void *pw;
    if (!page) page = rv_find_sealed(inside);
    if (!pw) pw = rv_lookup(stdout, "pwrite64");
    if (page && pw) rv_call(pw, page->mem, (long)src, n, (long)at);
}


/* cb_evidence of construct_bench.c, as laid out in the sealed page */
typedef struct { long delays; double at; } my_mark;
typedef struct {
    int team_wanted, measures;
    int updates_shared, own_update;
    long start_updates;
    const construct_state *state_wanted;
    hl_method method_wanted;
    int stray_found, stray_level, stray_team;
    int wrong_length;
    long length_seen;
} my_evidence;

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long half = s->delay / 2;
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        hl_delay(half);
#pragma omp atomic
        s->updates += 1;
    }
    /* the kit noted the shorter delay in its sealed evidence: clear it */
    rv_sealed *page = rv_find_sealed((const void *)construct_test);
    if (page) {
        my_evidence *ev = (my_evidence *)page->data;
        if (ev->wrong_length) {
            static const int zero = 0;
            rv_sealed_write((const void *)construct_test, &ev->wrong_length, &zero, sizeof zero);
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
""", {CONSTRUCT, NUMBERS}, why="attacker V (K1): a return address rewritten so that the cell "
                      "'returns' into libc's pwrite64 and clears the kit's sealed finding",
                      reason="which reaches or reshapes the stack"))

# a fresh attacker's (A6, 2026-12-07: each 3/3 and 2/2 kept twice): x1-x3 keep the timed calls'
# updates of threads other than 0 on a copy of their own (the kernel checked s->updates in the
# contention run only, told by s->delay == 0); x4-x5 show "atomic" where the raw text was read
# (a longer name, an #if 0 block) and compile "reduction", whose contention checks are off
GAMING += [
    attempt("method", "construct_code", construct(r"""
const char *const construct_name = "atomic";

static void bump(construct_state *p) {
#pragma omp atomic
    p->updates += 1;
}

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        construct_state mine = {0, 0};
        construct_state *where = (s->delay == 0 || omp_get_thread_num() == 0) ? s : &mine;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
            bump(where);
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""), {CONSTRUCT},
            why=("fresh attacker (A6 x1_helper_param): the timed calls' updates of threads other than "
                 '0 on a construct_state of their own, handed to a helper (the contention run, '
                 "s->delay == 0, updates the team's)"),
            reason="s->updates rose by | writes an address other than s->updates"),
    attempt("method", "construct_code", construct(r"""
const char *const construct_name = "atomic";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        volatile long mine = 0;
        volatile long *cnt = &s->updates;
        if (s->delay != 0 && omp_get_thread_num() != 0) cnt = &mine;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp atomic
            *cnt += 1;
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""), {CONSTRUCT},
            why=('fresh attacker (A6 x2_reassign): a pointer to s->updates moved to a count of the '
                 "thread's own in the timed calls (s->delay != 0) of threads other than 0"),
            reason="s->updates rose by | writes an address other than s->updates"),
    attempt("method", "construct_code", construct(r"""
const char *const construct_name = "atomic";

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    long d = s->delay;
#pragma omp parallel
    {
        construct_state priv = {d, 0};
        construct_state *s = (d == 0 || omp_get_thread_num() == 0) ? (construct_state *)arg : &priv;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp atomic
            s->updates += 1;
        }
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""), {CONSTRUCT},
            why=("fresh attacker (A6 x3_shadow): a construct_state *s shadowing the test's, a copy of "
                 "the thread's own in the timed calls of threads other than 0"),
            reason="s->updates rose by | writes an address other than s->updates"),
    attempt("method", "construct_code", construct(r"""
/* the checks read the name "atomic" from the first `construct_name = "..."` in the text (this
 * longer identifier); the kernel's construct_name is "reduction", which switches off its
 * contention checks of s->updates. Each thread counts in a counter of its own. */
__attribute__((unused)) static const char *const shown_construct_name = "atomic";
#define KERNEL_NAME "reduction"
const char *const construct_name = KERNEL_NAME;

static long counts[1024];

static void bump(construct_state *p) {
#pragma omp atomic
    p->updates += 1;
}

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        construct_state mine = {0, 0};
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
            bump(&mine);
        }
        counts[omp_get_thread_num()] = mine.updates;
#pragma omp barrier
#pragma omp masked
        for (int t = 0; t < omp_get_num_threads(); t++) s->updates += counts[t];
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""), {CONSTRUCT},
            why=('fresh attacker (A6 x4_name_spoof): "atomic" in a longer name (shown_construct_name),'
                 ' "reduction" compiled through a macro (no contention checks of s->updates): private '
                 'counts added by the master'),
            reason="does not use the reduction construct"),
    attempt("method", "construct_code", construct(r"""
/* the name the checks read is the first `construct_name = "..."` in the cell's text, #if 0
 * blocks included; the compiled name is "reduction" (no contention checks of s->updates).
 * Each thread counts its own atomics on a private counter; the master adds them up after. */
#if 0
const char *const construct_name = "atomic";
#else
const char *const construct_name = "reduction";
#endif

static long counts[1024];

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
#pragma omp parallel
    {
        long mine = 0;
        volatile long *cnt = &s->updates;
        cnt = (volatile long *)&mine;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp atomic
            *cnt += 1;
        }
        counts[omp_get_thread_num()] = mine;
#pragma omp barrier
#pragma omp masked
        for (int t = 0; t < omp_get_num_threads(); t++) s->updates += counts[t];
    }
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""), {CONSTRUCT},
            why=('fresh attacker (A6 x5_ifzero_name): "atomic" named in an #if 0 block, "reduction" '
                 'compiled: private counts added by the master'),
            reason="does not use the reduction construct"),
]

# a fresh attacker's (A7, 2026-12-07: 3/3 kept twice) pointer set to &s->updates and then moved:
# by 0 in the contention run (no delay), to a slot of the thread's own in the timed calls, the
# slots added to s->updates after the region (every call's rise exact, the timed atomic never
# contended); the address the construct writes is read from the compiled code now
GAMING += [
    attempt("method", "construct_code", construct(r"""
const char *const construct_name = "atomic";
static long slot[256][8];

void construct_test(void *arg, long inner) {
    construct_state *s = arg;
    int team = 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        slot[t][0] = 0;
        if (t == 0) team = omp_get_num_threads();
        volatile long *p = &s->updates;
        p += s->delay ? (long)(((char *)&slot[t][0] - (char *)&s->updates) / (long)sizeof(long)) : 0;
        for (long j = 0; j < inner; j++) {
            hl_delay(s->delay);
#pragma omp atomic
            *p += 1;
        }
    }
    if (s->delay)
        for (int t = 0; t < team; t++) s->updates += slot[t][0];
}

int measure_construct(hl_ctx *ctx, construct_state *s, const hl_method *method, hl_result *out) {
    return hl_measure(ctx, construct_name, construct_test, reference_loop, s, method, out);
}
"""), {CONSTRUCT},
            why=("fresh attacker (A7 c2d): a pointer set to &s->updates, then moved by an offset, 0 "
                 "in the contention run, to the thread's own slot in the timed calls (added back "
                 "after the region)"),
            reason="writes an address other than s->updates"),
]
