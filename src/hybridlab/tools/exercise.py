"""Lab 16's runs, each judged by what happened, read from the kit's own channels:

* Archer (hybridlab.kernels.archer): a kernel built for it runs with ThreadSanitizer's reports
  written into a folder the kit made; `archer_run` returns the run and the races read from
  there, never from the program's output. `master_race_races(before, after)` runs lab 01's kernel
  so; `count_evidence(kernel, ...)` runs the student's count_bins (race_bins.c) and returns what
  a grade needs: the bins (summed over ranks), the races, and how many threads of a team of how
  many asked the kit for elements (bin_of notes them, out of the student's reach), and the
  most writes one thread made into the bins (the kit's watch on ThreadSanitizer's entry points).
* The tracer: `mistake_trace(mistake, ranks, culprit)` runs mpi_mistakes.c traced and returns
  only its MPI calls (one row per call: rank, thread, main, in_parallel, call, start, end, done,
  tag, count), nothing that names the mistake.
* The timeline: `variant_timelines(...)` runs lab 04's halo2d variants with timeline=1.
* Counters: `counter_probe()` asks perf for cycles and instructions of a short run and says
  plainly what the machine gave.

    kernel = build_count(code)
    count_evidence(kernel, ranks=2, threads=2, n=20000, nbins=8, salt=5)
"""

from __future__ import annotations

import ast
import builtins
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pandas as pd

from ..kernels import archer, llvm_ir
from ..kernels.build import (
    Kernel,
    build,
)
from ..runs.launch import run_program
from ..runs.records import Results
from ..runs.student_c import build_student, preprocessed, student_unit

LEVEL = "funneled"  # the kernels call MPI from their main thread, outside parallel regions
TRACE_COLUMNS = ["rank", "thread", "main", "in_parallel", "call", "start", "end", "done", "tag",
                 "count"]  # fmt: skip
MISTAKES = ("none", "level", "request", "deadlock")
VARIANTS = ("pure", "hybrid1", "hybrid2", "hybrid3")  # lab 04's halo2d (Luecke et al.)
COUNTER_EVENTS = ("cycles", "instructions", "task-clock")


def archer_note() -> str | None:
    """Why Archer's cells skip on this machine (what to install), or None when it runs."""
    return archer.missing()


def archer_run(kernel: Kernel, ranks: int, threads: int, timeout: float = 120.0,
               env: dict[str, str] | None = None,
               **params) -> tuple[Results, list[archer.Race], str]:  # fmt: skip
    """Run a kernel built with archer=True under Archer: the run, the races ThreadSanitizer
    reported into the kit's own folder, and the reports' text. `env`: the kit's own additions."""
    folder = Path(tempfile.mkdtemp(prefix="hl-archer-"))
    try:
        res = run_program(kernel, ranks=ranks, threads=threads, thread_level=LEVEL, timeout=timeout,
                          env={**(env or {}), **archer.run_env(folder)}, **params)  # fmt: skip
        return res, archer.reports(folder), archer.report_text(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def master_race_races(before: int, after: int, threads: int = 2) -> pd.DataFrame:
    """Lab 01's master_race on one rank under Archer, the barriers as given: one row per race
    (the access, its line, the previous access, its line) and the values read wrong."""
    kernel = build("master_race", archer=True)
    res, races, _ = archer_run(kernel, 1, threads, barrier_before=before, barrier_after=after,
                               iterations=5, count=256, delay_us=500)  # fmt: skip
    wrong = int(res.records["wrong"].sum())
    return pd.DataFrame([{"access": r.access, "at": r.where, "previous": r.previous,
                          "previous at": r.previous_where, "values read wrong": wrong}
                         for r in races])  # fmt: skip


# what makes an update of a bin two accesses Archer sees as safe, yet races: an atomic read and
# an atomic write in place of one atomic update, or a C library call doing the read-modify-write
# out of the sanitizer's sight (rand_r on a bin's state)
# an atomic write that is no read-modify-write (a store, an exchange), as the builtins, C11's
# <stdatomic.h> (macros expanded: clang's __c11_atomic_*, GCC's __atomic_*) and __sync spell it
SPLIT_UPDATE = (r"#\s*pragma\s+omp\s+atomic\s+(?:read|write)\b|\brand_r\b"
                r"|\b(?:__atomic_(?:store|exchange)(?:_n)?|__c11_atomic_(?:store|exchange)"
                r"|atomic_(?:store|exchange)(?:_explicit)?|__sync_lock_test_and_set)\s*\(")

# The same, and writes the kit's watch cannot see, read from the cell's own LLVM IR after
# ThreadSanitizer's pass (cell_ir): ThreadSanitizer instruments plain stores of 1, 2, 4, 8 or 16
# bytes only (a wider or odd-sized store, a vector_size(32) one, calls no __tsan_write), and writes
# made by target intrinsics (llvm.x86.*, masked stores) or libatomic's calls not at all; an atomic
# store or exchange (_Atomic assignment included) is half of a split update.
_IR_CALLS = rf"__tsan_atomic\d+_(?:store|exchange)|{llvm_ir.UNSEEN_CALLS}"


# a task reduction: its runtime combines every thread's copy on one thread (a fresh attacker's
# right answers, 2026-12-05, lost for that reason with a message that did not say it)
TASK_REDUCTION = (r"#\s*pragma\s+omp\b[^\n]*\b(?:task_reduction|in_reduction)\s*\("
                  r"|#\s*pragma\s+omp\b[^\n]*\btaskloop\b[^\n]*\breduction\s*\(")


def ir_refusals(ir: str) -> list[str]:
    """What the cell's LLVM IR (after ThreadSanitizer's pass) does that the part refuses, one
    sentence per kind and line ("cell line N: ..."): a store ThreadSanitizer does not instrument
    (not 1/2/4/8/16 bytes), a write by a target intrinsic or a libatomic call, an atomic store or
    exchange (half of a split update)."""
    found = []
    for at, what, size in llvm_ir.odd_writes(ir, _IR_CALLS):
        if size != -1:
            found.append(llvm_ir.store_sentence(at, what, size, "which ThreadSanitizer does not "
                         "instrument: store scalars of at most 16 bytes (no vector types wider "
                         "than 16 bytes)"))  # fmt: skip
        elif what.startswith("__tsan_atomic"):
            found.append(f"{at}: an atomic store or exchange ({what}): a bin's update is one "
                         "atomic read-modify-write (omp atomic, atomic_fetch_add), not an "
                         "atomic read and an atomic write")
        else:
            found.append(f"{at}: a write by {what}, which ThreadSanitizer does not see: "
                         "write bins with plain C stores and atomics only")
    return list(dict.fromkeys(found))


# The routines a cell may call or name (the IR's declared functions): the kit's bin_of, OpenMP's
# and ThreadSanitizer's entry points, LLVM's intrinsics (the refused ones above aside), memory
# allocation, the watched memcpy/memmove/memset and locks, unformatted printing and stopping. Any
# other routine of the C library (sscanf, strtol into a bin, read, fread, snprintf into the bins'
# bytes, printf's %n), of OpenMP that writes through a pointer (omp_get_schedule's chunk, a place's
# numbers) or reached by name (dlsym) writes memory ThreadSanitizer and the kit's watch never see
# (the bins, or the kit's own tallies: race_bins.c, HL_KIT_STATE).
_OMP_ALLOWED = (r"omp_(?:(?:init|set|unset|test|destroy)_(?:nest_)?lock|get_thread_num"
                r"|get_num_threads|get_max_threads|get_num_procs|in_parallel|set_num_threads"
                r"|get_level|get_active_level|get_ancestor_thread_num|get_team_size"
                r"|get_thread_limit|[sg]et_dynamic|[sg]et_nested|[sg]et_max_active_levels"
                r"|set_schedule|get_wtime|get_wtick|in_final|get_proc_bind|get_num_places"
                r"|get_place_num|get_place_num_procs|get_partition_num_places|get_cancellation"
                r"|get_max_task_priority|get_supported_active_levels)")
CALLS_ALLOWED = re.compile(
    r"bin_of|" + _OMP_ALLOWED + r"|__kmpc_\w+|__tsan_\w+|llvm\.[\w.]+|malloc|calloc|realloc|free"
    r"|aligned_alloc|posix_memalign|memcpy|memmove|memset|pthread_(?:mutex|spin)_(?:init|destroy|lock|unlock"
    r"|trylock)|sched_yield|puts|fputs|putchar|fflush|abort|exit|__assert_fail")
_IR_DECLARE = re.compile(r"^declare\b[^@]*@\"?([\w.$]+)\"?\(", re.M)


def call_refusals(ir: str) -> list[str]:
    """The routines the cell's IR names that CALLS_ALLOWED does not hold, each with the first cell
    line naming it ("cell line N: ...")."""
    lines, located = ir.splitlines(), llvm_ir.cell_lines(ir)
    found = []
    for name in dict.fromkeys(_IR_DECLARE.findall(ir)):
        if CALLS_ALLOWED.fullmatch(name):
            continue
        use = next((ln for ln in lines if ln.startswith(" ") and f"@{name}" in ln
                    and re.search(rf"@{re.escape(name)}\b", ln)), "")  # fmt: skip
        at = llvm_ir.where(use, located)
        shown = name.removeprefix("__isoc99_")
        found.append(f"{at}: calls {shown}, a C library routine whose writes ThreadSanitizer and "
                     "the kit's watch on the bins do not see: count with plain C, atomics, locks "
                     "and OpenMP only (memcpy, memset, malloc, puts are allowed; printf's %n writes memory)")
    return found


def cell_ir(code: str) -> str:
    """The cell's unit (race_bins' headers, the cell) compiled as build_count compiles it for
    Archer, emitted as LLVM IR after ThreadSanitizer's pass: what the kit reads its stores from."""
    return llvm_ir.cell_ir(student_unit("race_bins", "HL_STUDENT_RACE_BINS", code), WATCH_FLAGS)


# The kit's watch on the bins (race_bins.c, HL_WATCH_BINS): ThreadSanitizer's entry points for
# every store and atomic write, and memcpy/memmove/memset, wrapped at link time so that the kit
# counts each thread's writes into the bins while count_bins runs.
_WRAPPED = ([f"__tsan_write{s}" for s in (1, 2, 4, 8, 16)]
            + [f"__tsan_unaligned_write{s}" for s in (2, 4, 8, 16)]
            + [f"__tsan_atomic{b}_{op}" for b in (8, 16, 32, 64)
               for op in ("store", "exchange", "fetch_add", "fetch_sub", "fetch_and", "fetch_or",
                          "fetch_xor", "fetch_nand", "compare_exchange_strong",
                          "compare_exchange_weak", "compare_exchange_val")]
            + ["memcpy", "memmove", "memset"]
            + [f"omp_{op}_{kind}lock" for op in ("init", "set", "unset", "test", "destroy")
               for kind in ("", "nest_")]
            + [f"pthread_{kind}_{op}" for kind in ("mutex", "spin")
               for op in ("init", "lock", "unlock", "trylock", "destroy")])  # fmt: skip
WATCH_FLAGS = ("-DHL_WATCH_BINS", "-Wno-unused-command-line-argument",
               "-Wl,--wrap=" + ",--wrap=".join(_WRAPPED))  # fmt: skip


def build_count(code: str, name: str = "student_bins") -> Kernel:
    """The cell's count_bins with race_bins.c (variant=student), built for Archer with the kit's
    watch on the bins (WATCH_FLAGS); AssertionError for an update split so that Archer cannot see
    its race (SPLIT_UPDATE)."""
    kernel = build_student(name, "race_bins", "HL_STUDENT_RACE_BINS", code, ("count_bins",),
                           WATCH_FLAGS, archer=True)  # fmt: skip
    text = preprocessed("race_bins", "HL_STUDENT_RACE_BINS", code)
    split = re.search(SPLIT_UPDATE, text)
    assert not split, (
        f"count_bins uses `{split.group(0).strip()}`: a bin's update is one read-modify-write "
        "made safe as a whole (an atomic update, a reduction, a lock or critical section), not "
        "a read and a write made safe each on its own")
    tasked = re.search(TASK_REDUCTION, text)
    assert not tasked, (
        f"count_bins uses a task reduction (`{tasked.group(0).strip()[:80]}`): the OpenMP runtime "
        "adds every thread's private copy into bins on one thread when the taskgroup ends, which "
        "the kit cannot tell from one thread counting for the others; give the worksharing loop "
        "the reduction clause (`#pragma omp for reduction(+: bins[:nbins])`), or use atomics, a "
        "lock or critical")
    ir = cell_ir(code)
    refused = ir_refusals(ir) + call_refusals(ir)
    assert not refused, "count_bins: " + "; ".join(refused)
    return kernel


# libomp reduces a team of more than 4 threads by a tree whose master alone writes the shared
# copy; forced to its atomic method, every thread adds its own private copy into `bins` at any team
# size (as it does at 2 to 4 threads unforced), which the kit's watch credits to that thread.
REDUCTION_ENV = {"KMP_FORCE_REDUCTION": "atomic"}


def count_evidence(kernel: Kernel, ranks: int, threads: int, n: int, nbins: int,
                   salt: int = 0) -> dict:  # fmt: skip
    """The student's count run under Archer: {"bins": the count of each bin summed over ranks,
    "races": ["line / previous line", ...], "threads": the fewest threads that asked for elements
    on a rank, "team": the smallest team they were in, "calls": the fewest elements a rank asked
    for, "largest": the most elements one thread of a rank asked for (n: one thread did all),
    "writes": the most writes one thread of a rank made into the bins (the kit's watch; -1 for a
    kernel built without it), "silent": the most threads of a rank that asked for elements yet
    added nothing to the bins (a count made by one thread for the others; a write of 0, or of the
    value already there, adds nothing), "odd_atomics": the atomic writes into the bins that are no
    add (and, or, xor, nand, exchange, store: an update split in two), "added": the most counts
    one thread of a rank added to the bins (its atomic adds and compare-and-swaps that took, and
    its plain writes' changes), "taken": the counts taken off the bins (a decrease), "unseen":
    the bins' changes no watched write made, "fewest": the fewest elements a thread that asked
    for any asked for on a rank (bin_of keeps the team asking in step, so any schedule shares them
    out), "undercount": the most threads of a rank that added less than half the counts of the
    elements they asked for (a look-up for another thread), "pace_waits": bin_of's waits for a
    teammate that asked for nothing meanwhile}. Reductions run with REDUCTION_ENV. A thread's first compare-and-swap on a bin is made to fail by the kit (as a
    contending increment would), so one not retried leaves the bins wrong. The bins' right values are the grader's to compute (bins_expected)."""
    res, races, _ = archer_run(kernel, ranks, threads, env=REDUCTION_ENV, variant="student", n=n,
                               nbins=nbins, salt=salt)  # fmt: skip
    bins = res.records.query("record == 'bin'").sort_values("bin")
    seen = res.records.query("record == 'threads'")
    return {
        "bins": [int(c) for c in bins["count"]],
        "races": sorted({" / ".join(r.lines()) for r in races}),
        "threads": int(seen["threads"].min()),
        "team": int(seen["team"].min()),
        "calls": int(seen["calls"].min()),
        "largest": int(seen["largest"].max()),
        "writes": int(seen["writes"].max()),
        "silent": int(seen["silent"].max()) if "silent" in seen else -1,
        "odd_atomics": int(seen["odd_atomics"].max()) if "odd_atomics" in seen else -1,
        "added": int(seen["added"].max()) if "added" in seen else -1,
        "taken": int(seen["taken"].max()) if "taken" in seen else -1,
        "unseen": int(seen["unseen"].max()) if "unseen" in seen else -1,
        "fewest": int(seen["fewest"].min()) if "fewest" in seen else -1,
        "undercount": int(seen["undercount"].max()) if "undercount" in seen else -1,
        "pace_waits": int(seen["pace_waits"].max()) if "pace_waits" in seen else -1,
    }


def bins_expected(ranks: int, n: int, nbins: int, salt: int = 0) -> list[int]:
    """What race_bins.c's bin_of gives, counted in Python: the right bins, summed over ranks."""
    import numpy as np

    mask = (1 << 64) - 1
    counts = np.zeros(nbins, dtype=np.int64)
    i = np.arange(1, n + 1, dtype=np.uint64)
    for rank in range(ranks):
        h = i * np.uint64(2654435761) + np.uint64((rank * 40503 + salt) & mask)
        h ^= h >> np.uint64(13)
        counts += np.bincount((h % np.uint64(nbins)).astype(np.int64), minlength=nbins)
    return [int(c) for c in counts]


def mistake_trace(mistake: str, ranks: int = 2, culprit: int = 0, threads: int = 2,
                  rounds: int = 2, **options) -> pd.DataFrame:  # fmt: skip
    """mpi_mistakes.c run traced with one mistake (or none): its MPI calls only, in time order.
    `options`: the kernel's other parameters (tag, extra_tag, leak, inside, nested, check)."""
    if mistake not in MISTAKES:
        raise ValueError(f"mistake {mistake!r}: one of {', '.join(MISTAKES)}")
    kernel = build("mpi_mistakes", trace_mpi=True)
    res = run_program(kernel, ranks=ranks, threads=threads, thread_level=LEVEL, timeout=180,
                      mistake=mistake, culprit=culprit, rounds=rounds, **options)  # fmt: skip
    calls = res.mpi_calls[TRACE_COLUMNS].sort_values(["start", "rank"])
    return calls.reset_index(drop=True)


# ---------------------------------------------------------------- lab 16 (b), graded apart
DIAGNOSE_ANSWER = "diagnose"
# what the lab's first cell gives the answer cell (its imports; its constants beside them)
_DIAGNOSE_PRELUDE = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import hybridlab as hl
from hybridlab.runs.traces import chrome_trace
from hybridlab.sync.plots import timeline_plot
from hybridlab.tools.exercise import (archer_note, bins_expected, build_count, count_evidence,
                                      counter_probe, master_race_races, mistake_trace,
                                      variant_timelines)
"""


def diagnose_unwritten(answers: dict[str, str] | None) -> dict | None:
    """diagnose_apart's result, known without a trace or a child, for an answer cell that is one
    `def diagnose` (no decorator, no default; annotations builtins or pandas' names, as the
    released stub's) whose body, a docstring aside, is `raise NotImplementedError` or `raise
    NotImplementedError()` (the released stub): every call raises it, so the part fails whatever
    the traces. None for any other cell (or none handed: it is run)."""
    try:
        (func,) = ast.parse((answers or {}).get(DIAGNOSE_ANSWER) or "").body
    except (SyntaxError, ValueError):
        return None
    if not isinstance(func, ast.FunctionDef) or func.name != "diagnose" or func.decorator_list:
        return None
    args = func.args
    if args.defaults or any(args.kw_defaults) or not all(
        _known_annotation(a.annotation)
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a
    ) or not _known_annotation(func.returns):  # fmt: skip
        return None
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    raised = body[0].exc if len(body) == 1 and isinstance(body[0], ast.Raise) else None
    if raised is not None and body[0].cause is not None:
        return None
    if isinstance(raised, ast.Call) and not raised.args and not raised.keywords:
        raised = raised.func
    if isinstance(raised, ast.Name) and raised.id == "NotImplementedError":
        return {"error": "NotImplementedError: "}
    return None


def _known_annotation(node) -> bool:
    """An annotation the def evaluates without fail: none, a builtin's name, or pd.<a pandas name>
    (the answer cell runs after the first cell's `import pandas as pd`)."""
    if node is None:
        return True
    if isinstance(node, ast.Name):
        return hasattr(builtins, node.id)
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "pd" and hasattr(pd, node.attr))  # fmt: skip


def diagnose_apart(answers: dict[str, str] | None, traces: list[pd.DataFrame], *,
                   names: dict, timeout: float = 60.0) -> dict:  # fmt: skip
    """Lab 16 (b), run apart from the student's kernel (grading/apart.py): the answer cell
    `diagnose` (`answers`: grade id -> source, as the submitted notebook holds it) runs again in a
    child process with `names` (the first cell's constants) bound, and its `diagnose` is called on
    a copy of each of `traces` (made in the grader's process: the kernel never holds a frame
    whose arguments name the mistake). Returns {"said": [what it returned for each, as plain
    data]} or {"error"}."""
    from ..grading.answer_child import Answers, answer_child, answers_in_history

    answers = answers or answers_in_history({DIAGNOSE_ANSWER: r"\bdef\s+diagnose\b"})
    with answer_child(_DIAGNOSE_PRELUDE, "hl-diagnose-") as hand:
        got = hand(Answers(names, answers, [DIAGNOSE_ANSWER], {},
                           [("diagnose", (t.copy(),), "data") for t in traces]), timeout)  # fmt: skip
    return got if "error" in got else {"said": got["calls"]}


def variant_timelines(cluster, nx: int, ny: int, iterations: int) -> dict[str, Results]:
    """Lab 04's halo2d variants on the cluster with their timeline (timeline=1): {variant: run}."""
    return {v: cluster.run("halo2d", variant=v, nx=nx, ny=ny, iterations=iterations, timeline=1,
                           timeline_iterations=iterations)  # fmt: skip
            for v in VARIANTS}


def counter_probe(seconds: float = 0.2) -> pd.DataFrame:
    """perf stat's cycles, instructions and task-clock of a short busy loop: one row per event
    with its value, or the word perf gave instead ("<not supported>", "<not counted>"), or why
    perf could not run."""
    perf = shutil.which("perf")
    if perf is None:
        return pd.DataFrame([{"event": e, "value": None, "perf said": "perf is not installed"}
                             for e in COUNTER_EVENTS])  # fmt: skip
    loop = ["python3", "-c", f"import time\nt=time.time()\nwhile time.time()-t<{seconds}: pass"]
    done = subprocess.run([perf, "stat", "-x", ",", "-e", ",".join(COUNTER_EVENTS), *loop],
                          capture_output=True, text=True, check=False, timeout=60)  # fmt: skip
    rows = []
    for event in COUNTER_EVENTS:
        line = next((ln for ln in done.stderr.splitlines() if f",{event}" in ln), "")
        value = line.split(",")[0] if line else ""
        try:
            rows.append({"event": event, "value": float(value), "perf said": "counted"})
        except ValueError:
            said = value or (done.stderr.strip().splitlines() or ["no answer"])[-1][:120]
            rows.append({"event": event, "value": None, "perf said": said})
    return pd.DataFrame(rows)
