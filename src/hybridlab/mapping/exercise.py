"""The runs of labs 00 and 06 (the only module of the topic that launches kernels): an unbound
run repeated to see its threads move, the triad bound against piled onto one core (lab 00); the
student's own placement under every binding the machine allows, and weak scaling of a memory-bound and a
compute-bound kernel (kernels_c/placement.c) with ranks packed and spread; the student's
node-aware sum (kernels_c/node_sum.c) built, run on real and made-up nodes, and checked; rank
maps on a grid of ranks spread over the nodes of an allocation (kernels_c/grid_exchange.c)."""

from __future__ import annotations

import os
import re
import struct

import pandas as pd

import hybridlab as hl

from ..kernels import archer, llvm_ir, lock_identity, retry_rmw, same_c, split_rmw
from ..machine.placement import BIND_MODES, Placement, PlacementError
from ..runs.student_c import build_student, preprocessed_lines, run_student, student_unit
from ..tools.exercise import SPLIT_UPDATE, archer_run
from . import tables


def binding_runs(
    ranks: int, threads: int, spin_ms: int = 20, quick: bool = False
) -> tuple[dict[str, hl.Results], dict[str, str]]:
    """hello_hybrid under each binding that fits this machine; the others with the reason why not.
    `quick` skips 'spread' where it cannot differ from 'cores' (one socket, one NUMA node)."""
    topo = hl.read_topology()
    usable = len(topo.usable)
    runs, skipped = {}, {}
    for bind in BIND_MODES:
        if quick and bind == "spread" and len(topo.sockets) == 1 and len(topo.numa_nodes) == 1:
            skipped[bind] = "one socket and one NUMA node: the same CPUs as 'cores' (quick mode)"
            continue
        try:
            Placement(ranks, threads, bind).check_fits(usable)
        except PlacementError as err:
            skipped[bind] = str(err)
            continue
        runs[bind] = hl.run_program(
            "hello_hybrid", ranks=ranks, threads=threads, bind=bind, spin_ms=spin_ms
        )
    return runs, skipped


def unbound_history(threads: int, repeats: int, spin_ms: int = 20) -> pd.DataFrame:
    """hello_hybrid with 1 rank x `threads`, nothing bound, `repeats` times: the records of
    every run, numbered in the column `run`."""
    return pd.concat(
        [hl.run_program("hello_hybrid", ranks=1, threads=threads, bind="none", spin_ms=spin_ms)
         .records.assign(run=i) for i in range(repeats)],
        ignore_index=True,
    )  # fmt: skip


def piling_runs(
    threads: int, n: int = 200_000, samples: int = 20, binds: tuple[str, ...] = ("cores", "one-core")
) -> dict[str, hl.Results]:
    """bench_compute (a triad over three arrays of n doubles) with 1 rank x `threads`, bound one
    thread per core and piled onto one core: bind -> its run (seconds per repetition)."""
    return {bind: hl.run_program("bench_compute", ranks=1, threads=threads, bind=bind, n=n,
                                 samples=samples)
            for bind in binds}  # fmt: skip


# ---------------------------------------------------------------- lab 00 (c), graded apart
# the answer cells (c) runs again, (a) and (b) first (their failures are left to their own
# tests), found by these marks where no grader hands them (the notebook run whole)
PILING_ANSWERS = {"cores_per_rank": r"\bdef\s+cores_per_rank\b",
                  "classify_run": r"\bdef\s+classify_run\b",
                  "piling_slowdown": r"\bdef\s+predicted_slowdown\b"}  # fmt: skip
# what the lab's first cell gives the answer cells (the runs' names are given beside it)
_PILING_PRELUDE = """
import tempfile
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Image, display

import hybridlab as hl
from hybridlab.mapping.exercise import piling_runs, unbound_history
from hybridlab.mapping.plots import cpu_history_plot, piling_plot
from hybridlab.plots import machine_picture, placement_map
from hybridlab.machine.topology import lstopo_picture
"""


def piling_apart(answers: dict[str, str] | None, names: dict,
                 cases: list[tuple[pd.DataFrame, pd.DataFrame]], timeout: float = 60.0) -> dict:  # fmt: skip
    """Lab 00 (c), run apart from the student's kernel (grading/apart.py): the answer cells (a)
    to (c) (`answers`: grade id -> source, as the submitted notebook holds them) run again in a
    child process with `names` bound (the runs `timed`, `piled`, `spread` and `T` the hidden test
    drew, of a machine the student does not have), then predicted_slowdown is called on each
    (piled, bound) pair of `cases`. Returns what the cells gave ("slowdown", "predicted",
    "cases": one prediction per pair) or their "error". The child gets the runs and gives back
    numbers only."""
    from ..grading.answer_child import Answers, answer_child, answers_in_history

    answers = answers or answers_in_history(PILING_ANSWERS)
    with answer_child(_PILING_PRELUDE, "hl-piling-") as hand:
        got = hand(Answers(names, answers, list(PILING_ANSWERS),
                           {"slowdown": "float", "predicted": "float"},
                           [("predicted_slowdown", pair, "float") for pair in cases]),
                   timeout)  # fmt: skip
    if "error" in got:
        return got
    return {**got["read"], "cases": got["calls"]}


def weak_scaling(
    binds: tuple[str, ...] = ("cores", "spread"),
    ranks_list: tuple[int, ...] | None = None,
    n: int = 2_000_000,
    compute_n: int = 20_000,
    depth: int = 256,
    samples: int = 5,
    target_ms: float = 20.0,
    timeout: float = 300.0,
) -> pd.DataFrame:
    """The same work on every rank (memory-bound triad, then compute-bound chain, in one launch),
    for 1..usable CPUs ranks of 1 thread under each binding: one row per rank, work and sample,
    with the probe state and the load average of the run."""
    usable = len(hl.read_topology().usable)
    ranks_list = ranks_list or tuple(range(1, usable + 1))
    frames = []
    for bind in binds:
        for ranks in ranks_list:
            res = hl.run_program(
                "placement",
                ranks=ranks,
                threads=1,
                bind=bind,
                work="both",
                n=n,
                compute_n=compute_n,
                depth=depth,
                samples=samples,
                target_ms=target_ms,
                timeout=timeout,
            )
            rows = res.records[["work", "rank", "cpu", "sample", "seconds", "bytes", "ops"]].copy()
            rows.insert(1, "ranks", ranks)
            rows.insert(1, "bind", bind)
            rows["probe_state"] = res.meta["probe"]["before"]["state"]
            rows["probe_after"] = res.meta["probe"]["after"]["state"]
            rows["load"] = round(os.getloadavg()[0], 2)
            frames.append(rows)
    return pd.concat(frames, ignore_index=True)


def weak_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per work, placement and rank count: the slowest rank's median seconds per repetition, and
    that time relative to the 1-rank run of the same work and placement (1 = perfect weak
    scaling)."""
    per_rank = frame.groupby(["work", "bind", "ranks", "rank"])["seconds"].median()
    slowest = per_rank.groupby(["work", "bind", "ranks"]).max().rename("seconds").reset_index()
    base = slowest[slowest["ranks"] == 1].set_index(["work", "bind"])["seconds"]
    slowest["slowdown"] = [
        s / base.get((w, b), float("nan"))
        for w, b, s in zip(slowest["work"], slowest["bind"], slowest["seconds"], strict=True)
    ]
    return slowest


# Lab 06's C exercise: node-aware ranks (kernels_c/node_sum.c, variant=student).
NODE_FUNCTIONS = ("split_nodes", "node_sum")


def build_student_nodes(code: str, name: str = "student_nodes") -> hl.Kernel:
    """The student's split_nodes() and node_sum() built into node_sum.c, MPI calls traced;
    AssertionError for an add split in two (split_adds); ValueError for a cell that is not the
    same C for gcc and clang (same_c.preprocessed_apart: the adds are judged from clang's IR of
    the cell and raced under Archer's clang build, and run from gcc's build; attackS's
    A06_nested_gcconly showed clang one program and ran another behind `#ifndef __clang__`,
    4/4, 2026-12-06), or that holds a builtin each compiler's optimiser decides
    (same_c.compiler_decided: attackU's u06_bcp, 4/4 twice, 2026-12-06) or an OpenMP choice by
    context (attackV's K3, a `declare variant` for gcc only), or that clang cannot read
    as gcc builds it (split_adds)."""
    kernel = build_student(name, "node_sum", "HL_STUDENT_NODES", code, NODE_FUNCTIONS)
    apart = same_c.preprocessed_apart(code)
    if apart:
        raise ValueError(
            f"node_sum: the cell reads differently for gcc and for clang ({apart[0]}): it must be "
            "the same C for every compiler (gcc builds what runs; clang's build is what the "
            "adds into rank_sum are judged and raced from), so nothing in it may tell the "
            "compilers apart (`__clang__`, `__GNUC__`, `__has_feature`, `_OPENMP`'s value, a "
            "macro only one compiler predefines)")
    decided = same_c.compiler_decided(preprocessed_lines("node_sum", "HL_STUDENT_NODES", code))
    if decided:
        raise ValueError(
            f"node_sum: {decided[0]} is decided by each compiler (its optimiser, or OpenMP's "
            "choice by context), so gcc's build (what runs) and clang's (what the adds into "
            "rank_sum are judged from) may take different paths: no builtin whose value the "
            "optimiser chooses (`__builtin_constant_p`, `__builtin_object_size`, "
            "`__builtin_unreachable`, ...) and no `declare variant` or metadirective in the cell")
    split = split_adds(code)
    assert not split, (
        f"node_sum: {'; '.join(split)}: each thread's add into rank_sum is one read-modify-write "
        "made safe as a whole (#pragma omp atomic update, a critical section, a lock), not an "
        "atomic read and an atomic write, nor a read in one critical section or lock hold and "
        "the write in another, nor held by locks or critical names the threads do not share, "
        "nor a compare-and-swap or lock test whose failure drops the add instead of trying "
        "again, which can lose an add without a race Archer reports")
    return kernel


def split_adds(code: str) -> list[str]:
    """Where the cell splits an update into an atomic read and an atomic write, or writes into
    rank_sum a value read from it in another region (split_rmw.split_writes on clang's IR of the
    cell as the graded build's preprocessor leaves it: per write into memory derived from
    rank_sum, through any alias, helper, copy or spill, the read its value depends on must sit in
    the same critical section, lock hold or atomic; a read in one named critical section and the
    write in another, a fresh attacker's L06h2 and, with an alias, a dummy read or a line break,
    R06alias, R06dummy, R06multiline, which a text rule let through, 2026-12-05; control
    dependence followed and addresses made from integers taken as rank_sum's since attackS's
    A06_split_launder and A06_ptr_launder2, 2026-12-05; and, on the same IR,
    lock_identity.unshared_locks: the regions holding the writes into rank_sum must share one
    critical name, one lock the same for every thread, or be all atomic, since attackU's
    u06_ownlocks and u06_namedcrit, 2026-12-06; retry_rmw.dropped_adds: a compare-and-swap or a
    lock test whose failure drops the add, and a retried compare-and-swap that adds another
    value on a retry, since attackR's L06_G5, 2026-12-06): "cell line N: `what`" or "cell line
    N: what" each.

    OpenMP 5.1's `atomic compare`, which the graded GCC builds and clang 14 cannot parse, is
    read as the compare-and-swap it is (clang_view). An atomic store or exchange is judged by
    what it writes (into rank_sum, a value read before: split_rmw), not refused wherever it is:
    a lock made by hand, taken by a test-and-set until it is had and released by an atomic
    clear or store, is a lock (attackR's L06_R4 lost 4/4 to a rule against any atomic store or
    exchange, 2026-12-06). Where clang is not installed, the
    text rule (lab 16's tools.exercise.SPLIT_UPDATE on the preprocessed cell: `omp atomic
    read|write`, atomic stores and exchanges) stands in for the IR rules, and a note says so.
    Where clang is installed but cannot read the cell as gcc builds it (a GCC nested function, a
    builtin or extension only gcc knows), ValueError naming clang's first error line: the IR
    rules cannot judge what gcc runs, and the text rule alone let a split add keep 4/4
    (attackS's A06_nested_gcconly, 2026-12-06)."""
    lines = preprocessed_lines("node_sum", "HL_STUDENT_NODES", code)
    by_text = [f"cell line {line}: `{m.group(0).strip()}`"
               for line, text in lines if (m := re.search(SPLIT_UPDATE, text))]  # fmt: skip
    if not split_rmw.clang_present():
        return list(dict.fromkeys(by_text))
    view = clang_view(split_rmw.gcc_view(lines, code))
    try:
        ir = llvm_ir.cell_ir(student_unit("node_sum", "HL_STUDENT_NODES", view), (), sanitized=False)
    except RuntimeError as err:  # a construct the kit's clang cannot read: refused
        raise ValueError(
            f"node_sum: clang cannot read the cell as gcc builds it ({_first_error(str(err))}): "
            "the adds into rank_sum are judged from clang's IR of the cell, so the cell must be C "
            "that gcc and clang both read (no GCC nested function, no builtin or extension only "
            "gcc knows)") from None
    found = split_rmw.split_writes(ir) + lock_identity.unshared_locks(ir) + retry_rmw.dropped_adds(ir)
    return list(dict.fromkeys(found))


def _first_error(said: str) -> str:
    """A compiler's first error, "cell line N: what" where it is on a cell line."""
    for ln in said.splitlines():
        if (m := re.search(r"([^\s:]+):(\d+):\d+: (?:fatal )?error: (.*)", ln)):
            where = f"cell line {m.group(2)}" if m.group(1) == "cell" else f"{m.group(1)} line {m.group(2)}"
            return f"{where}: {m.group(3).strip()[:160]}"
    return said.strip().splitlines()[-1][:160] if said.strip() else "no message"


# OpenMP 5.1's atomic compare (clang 14 knows none of it): the pragma, and its statement's forms
_ATOMIC_COMPARE = re.compile(r"^([ \t]*)#[ \t]*pragma[ \t]+omp[ \t]+atomic\b([^\n]*\bcompare\b[^\n]*)$", re.M)
_SET = re.compile(r"^(.+?)\s*=(?!=)\s*(.+)$", re.S)


def _statement(text: str, at: int) -> int:
    """The end (exclusive) of the C statement starting at `at`: a block, an if (with its else) or
    an expression statement."""
    def balanced(k: int, open_: str, close: str) -> int:
        depth = 0
        while k < len(text):
            depth += text[k] == open_
            depth -= text[k] == close
            k += 1
            if depth == 0:
                return k
        return len(text)

    k = at
    while k < len(text) and text[k].isspace():
        k += 1
    if text.startswith("{", k):
        return balanced(k, "{", "}")
    if re.match(r"if\b", text[k:]):
        k = balanced(text.index("(", k), "(", ")")
        k = _statement(text, k)
        m = re.match(r"\s*else\b", text[k:])
        return _statement(text, k + m.end()) if m else k
    depth = 0
    while k < len(text):
        depth += text[k] in "([{"
        depth -= text[k] in ")]}"
        if text[k] == ";" and depth <= 0:
            return k + 1
        k += 1
    return len(text)


def _parts(block: str) -> list[str]:
    """The statements of a block (without its braces), each whitespace-normalised."""
    block = block.strip()
    if block.startswith("{") and block.endswith("}"):
        block = block[1:-1]
    out, k = [], 0
    while block[k:].strip():
        end = _statement(block, k)
        out.append(" ".join(block[k:end].split()))
        k = end
    return out


def _unbrace(stmt: str) -> str:
    stmt = stmt.strip()
    while stmt.startswith("{") and stmt.endswith("}"):
        stmt = stmt[1:-1].strip()
    return stmt.rstrip(";").strip()


def _compare_swap(stmts: list[str]) -> tuple[str, str, str, list[tuple[str, str]]] | None:
    """(x, e, d, captures) of an atomic compare's block in an `==` form (a compare-and-swap):
    captures (when, v): 'old' v = x before, 'new' v = x after, 'failed' v = x in the else,
    'ok' r = the comparison."""
    x = e = d = None
    caps: list[tuple[str, str]] = []
    names: dict[str, tuple[str, str]] = {}  # r -> the comparison it holds
    done = False
    for st in stmts:
        m = re.fullmatch(r"if\s*\((.*)\)\s*(\{.*?\}|[^{};]*;)\s*(?:else\s*(\{.*\}|[^{};]*;))?", st)
        if m:
            cond = " ".join(m.group(1).split())
            if cond in names:
                a, b = names[cond]
            elif (c := re.fullmatch(r"(.+?)\s*==\s*(.+)", cond)):
                a, b = c.group(1).strip(), c.group(2).strip()
            else:
                return None
            then = _SET.match(_unbrace(m.group(2)))
            if not then:
                return None
            x, d = then.group(1).strip(), then.group(2).strip()
            if a == x:
                e = b
            elif b == x:
                e = a
            else:
                return None
            if m.group(3):
                other = _SET.match(_unbrace(m.group(3)))
                if not other or other.group(2).strip() != x:
                    return None
                caps.append(("failed", other.group(1).strip()))
            done = True
            continue
        set_ = _SET.match(_unbrace(st))
        if not set_:
            return None
        left, right = set_.group(1).strip(), set_.group(2).strip()
        if (c := re.fullmatch(r"(.+?)\s*==\s*(.+?)\s*\?\s*(.+?)\s*:\s*(.+)", right)) and \
                c.group(4).strip() == left and left in (c.group(1).strip(), c.group(2).strip()):
            x, d = left, c.group(3).strip()
            e = c.group(2).strip() if c.group(1).strip() == left else c.group(1).strip()
            done = True
        elif (c := re.fullmatch(r"(.+?)\s*==\s*(.+)", right)) and not done:
            names[left] = (c.group(1).strip(), c.group(2).strip())
            caps.append(("ok", left))
        elif done and x is not None and right == x:
            caps.append(("new", left))
        elif not done:
            caps.append(("old?", left + "\0" + right))
        else:
            return None
    if not done or x is None or e == x:  # `x == x` compares nothing: not read as a CAS
        return None
    out = []
    for when, v in caps:
        if when == "old?":
            v, src = v.split("\0")
            if src != x:
                return None
            when = "old"
        out.append((when, v))
    return x, e, d, out


def _as_cas(x: str, e: str, d: str, caps: list[tuple[str, str]], k: int) -> str:
    """An `==` atomic compare as one compare-and-swap on x's bits (old value returned), on one
    line."""
    t = f"__typeof__({x})"
    u = (f"__typeof__(__builtin_choose_expr(sizeof({x}) == 8, 0ULL, __builtin_choose_expr("
         f"sizeof({x}) == 4, 0U, __builtin_choose_expr(sizeof({x}) == 2, (unsigned short)0, "
         "(unsigned char)0))))")
    n = f"hlac{k}_"
    out = (f"{{ {t} {n}e = ({e}), {n}d = ({d}), {n}o; {u} {n}eb, {n}db, {n}ob; "
           f"__builtin_memcpy(&{n}eb, &{n}e, sizeof {n}e); __builtin_memcpy(&{n}db, &{n}d, sizeof {n}d); "
           f"{n}ob = __sync_val_compare_and_swap(({u} *)&({x}), {n}eb, {n}db); "
           f"__builtin_memcpy(&{n}o, &{n}ob, sizeof {n}o); int {n}ok = {n}ob == {n}eb; (void){n}ok; ")
    for when, v in caps:
        out += {"old": f"{v} = {n}o; ", "new": f"{v} = {n}ok ? {n}d : {n}o; ",
                "failed": f"if (!{n}ok) {v} = {n}o; ", "ok": f"{v} = {n}ok; "}[when]
    return out + "}"


def clang_view(text: str) -> str:
    """The cell's C with each OpenMP 5.1 `#pragma omp atomic compare` (GCC builds it, the kit's
    clang 14 cannot parse it) rewritten as what it does, line for line: an `==` form (`if (x ==
    e) { x = d; }`, `x = x == e ? d : x;`, with their captures) as one compare-and-swap on x's
    bits, which gives the old value (the retry rules judge it as any other); any other form
    (a min or max by `<` or `>`) as the same statement in one critical section of its own."""
    out, k, at = [], 0, 0
    for m in _ATOMIC_COMPARE.finditer(text):
        if m.start() < at:
            continue
        end = _statement(text, m.end())
        body = text[m.end():end]
        form = _compare_swap(_parts(body)) if body.strip().startswith("{") else \
            _compare_swap([" ".join(body.split())])
        out.append(text[at:m.start()])
        if form:
            out.append(m.group(1) + "\n" + _as_cas(*form, k) + "\n" * (body.count("\n") - 1))
        else:
            out.append(m.group(1) + "#pragma omp critical(hl_atomic_compare)" + body)
        at, k = end, k + 1
    out.append(text[at:])
    return "".join(out)


def check_student_nodes(
    kernel: hl.Kernel,
    shapes: tuple[tuple[int, int, int], ...] = ((2, 1, 0), (4, 1, 2), (3, 2, 2)),
    n: int = 500,
    reps: int = 3,
    timeout: float = 60.0,
) -> pd.DataFrame:
    """Run the student's node-aware sum at each (ranks, threads, ranks_per_node); 0 ranks per node
    is the real nodes (MPI_COMM_TYPE_SHARED), k > 0 makes up nodes of k consecutive ranks.
    AssertionError when a communicator or a sum is wrong (node_sum_verdict: judged here, from
    the run's records, not in the student's process), KernelTimeout on a deadlock,
    ThreadComplianceError when a thread other than the master calls MPI (FUNNELED).
    AssertionError too when a sum is the right total but not the reductions' result: the kit
    (node_sum.c) scales what each rank gives its node's reduction, and each leader the leaders',
    by factors drawn per run; the sum must move with them."""
    rows = []
    for ranks, threads, per_node in shapes:
        res = run_student(kernel, ranks, threads, "funneled", timeout, variant="student",
                          ranks_per_node=per_node, n=n, reps=reps)
        nodes = res.records.query("record == 'node'")
        times = res.records.query("record == 'time'")["seconds"]
        problem = node_sum_verdict(node_sum_evidence(res), ranks, threads, per_node, n, reps)
        assert problem is None, problem
        rows.append({"ranks": ranks, "threads": threads, "ranks_per_node": per_node,
                     "nodes": int(nodes["nodes"].iloc[0]),
                     "leaders": sorted(int(r) for r in nodes.query("leader == 1")["rank"]),
                     "median_us": 1e6 * float(times.median())})
    return pd.DataFrame(rows)


def node_sum_evidence(res: hl.Results) -> dict:
    """What a run of the student's node_sum recorded (plain values, for the judge outside): each
    rank's salt (recorded before any student code ran), the factors' draws (recorded before
    node_sum first ran), each thread's view of `sum` per repetition (a digest, to the tracer's
    stream as node_sum returned) and, per rank and level, the values of its nudged reductions
    that were genuine (the tracer's stream, as each call began)."""
    r = res.records

    def rows(kind: str, columns: list[str]) -> list[list]:
        part = r[r["record"] == kind] if "record" in r.columns else r.iloc[0:0]
        return [[v.item() if hasattr(v, "item") else v for v in row]
                for row in part.reindex(columns=columns).itertuples(index=False)]  # fmt: skip

    nudge = rows("nudge", ["nudged", "a_node", "a_leaders"])
    calls = res.mpi_calls
    if len(calls) and "student" in calls.columns:
        calls = calls[(calls["student"] == 1) & calls["call"].isin(_REDUCING)]
    reductions = [[int(c.rank), float(c.start), float(c.end), int(c.count), str(c.comm)]
                  for c in calls.reindex(columns=["rank", "start", "end", "count", "comm"]).itertuples()
                  ] if len(calls) else []  # fmt: skip
    return {"salts": rows("salt", ["rank", "salt", "threads", "n"]),
            "nudge": nudge[0] if len(nudge) == 1 else None,
            "views": rows("view", ["rank", "repetition", "thread", "hash"]),
            "nudged": rows("nudged", ["rank", "level", "count", "scaled", "start"]),
            "reductions": reductions}  # fmt: skip


_REDUCING = ("MPI_Reduce", "MPI_Allreduce", "MPI_Ireduce", "MPI_Iallreduce")


def _fnv(values: list[float]) -> str:
    """node_sum.c's view_digest: FNV-1a (64 bits) of the doubles' bytes, as 16 hex digits."""
    h = 14695981039346656037
    for b in struct.pack(f"<{len(values)}d", *values):
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def node_sum_verdict(
    evidence: dict, ranks: int, threads: int, per_node: int, n: int, reps: int
) -> str | None:
    """The judge of lab 06 (e)'s sums, outside the student's process: None, or what is wrong.
    Every rank's values are regenerated from its salt (node_sum.c's value()), the nudged total
    computed here (the ranks of nodes of two or more scaled by the node's factor, everything by
    the leaders' when there are several nodes; exact: whole values, factors in 1024ths), and
    each thread's digest of `sum` in each repetition compared with it: the right total unscaled
    at a level is "did not come out of your reductions", anything else a wrong result. Before
    that, the data flow: every rank of a node of two or more gave its node's reductions n of
    its own values (rank_sum's or its threads') per call, every leader of several nodes the
    leaders' reductions n node sums per call (the kit's "nudged" records)."""
    shape = f"{ranks} ranks x {threads} threads, {per_node} per node, n = {n}"
    k = per_node or ranks
    salts = {int(rank): (int(salt), int(t), int(m)) for rank, salt, t, m in evidence["salts"]}
    if sorted(salts) != list(range(ranks)) or len(evidence["salts"]) != ranks or any(
            (t, m) != (threads, n) for _, t, m in salts.values()):  # fmt: skip
        return f"{shape}: wrong result (the kernel's salt records are missing or odd: {evidence['salts']})"
    if evidence["nudge"] is None:
        return f"{shape}: wrong result (no nudge record)"
    nudged, a_node, a_leaders = (int(v) for v in evidence["nudge"])
    if not nudged:  # a rank had no memory for the kit's check: nothing could be judged
        return (f"{shape}: wrong result (the kit could not set up its check of the sums: a rank "
                "had no memory left for it when node_sum was about to run)")
    node_size = {r: min(r - r % k + k, ranks) - (r - r % k) for r in range(ranks)}
    many = ranks > k
    if nudged:
        given, used = {}, set()
        leaders = ",".join(str(r) for r in range(0, ranks, k))
        for rank, level, count, scaled, at in evidence["nudged"]:
            rank, level = int(rank), str(level)
            node = ",".join(str(r) for r in range(rank - rank % k, min(rank - rank % k + k, ranks)))
            # each line the judge counts is one of the rank's own traced reductions, as it began
            match = next((j for j, (r, start, end, m, comm) in enumerate(evidence["reductions"])
                          if j not in used and r == rank and m == int(count)
                          and start - 1e-6 <= float(at) <= end + 1e-6
                          and comm == (node if level == "node" else leaders)), None)  # fmt: skip
            if match is None:
                return (f"{shape}: rank {rank}: a nudged reduction the kit recorded is none of its "
                        "traced reductions: the sum did not come out of your reductions")
            used.add(match)
            given[(rank, level)] = given.get((rank, level), 0) + int(scaled)
        for rank in range(ranks):
            mine = given.get((rank, "node"), 0)
            if node_size[rank] >= 2 and mine < n * reps:
                return (f"{shape}: rank {rank}'s reductions on its node were given {mine} of its "
                        f"own values in {reps} calls, not {n} per call: the sum did not come out "
                        "of your reductions (the node's step reduces the rank's values: rank_sum "
                        "with every thread's values added once, or the threads' own, not zeros or "
                        "values of your own making)")
            led = given.get((rank, "leaders"), 0)
            if many and rank % k == 0 and led < n * reps:
                return (f"{shape}: leader {rank}'s reductions with the other leaders were given "
                        f"{led} node sums in {reps} calls, not {n} per call: the sum did not come "
                        "out of your reductions (the leaders' step reduces the node's sum, the "
                        "result of the node's reduction of complete rank sums: not a sum missing a "
                        "thread's adds, zeros or values of your own making)")
    f_node = (1024.0 + a_node) / 1024.0 if nudged else 1.0
    f_leaders = (1024.0 + a_leaders) / 1024.0 if nudged else 1.0
    want, multi = [0.0] * n, [0.0] * n
    for rank, (salt, _, _) in salts.items():
        for i in range(n):
            own = 0.0
            for t in range(threads):
                own += float((rank * 64 + t + 1) * 1000 + (i + salt) % 991)
            want[i] += own
            if node_size[rank] >= 2:
                multi[i] += own
    node_part = [f_node * m + (w - m) for w, m in zip(want, multi, strict=True)]
    expect = _fnv([f_leaders * v for v in node_part] if many else node_part)
    unscaled = {_fnv(want), _fnv(node_part)} | ({_fnv([f_leaders * w for w in want])} if many else set())
    unscaled.discard(expect)
    seen = {(int(rank), int(rep), int(t)): str(h) for rank, rep, t, h in evidence["views"]}
    if len(seen) != len(evidence["views"]):
        return f"{shape}: wrong result (a thread's view recorded twice)"
    for rep in range(reps):
        for rank in range(ranks):
            for t in range(threads):
                h = seen.get((rank, rep, t))
                if h == expect:
                    continue
                if h in unscaled:
                    return (f"{shape}: rank {rank} thread {t}, repetition {rep}: the sum was the "
                            "right total but did not come out of your reductions (the kit scales "
                            "the values each rank gives its node's reduction and each leader the "
                            "leaders'; your sum did not move with them): the node's reduction, "
                            "then the leaders', give the result")
                return (f"{shape}: wrong result: rank {rank} thread {t}, repetition {rep}: the "
                        "sum this thread saw when node_sum returned is not the sum over all "
                        "threads of all ranks" + (" (no view recorded)" if h is None else ""))
    return None


# The kit's count of each thread's adds into rank_sum (node_sum.c, HL_COUNT_ADDS): the Archer
# build's ThreadSanitizer entry points for every store and the copies (archer.WRITE_ENTRIES),
# wrapped at link time by the kernel's own (uninstrumented) functions
ADD_COUNT_FLAGS = ("-DHL_COUNT_ADDS", "-Wno-unused-command-line-argument",
                   "-Wl,--wrap=" + ",--wrap=".join(archer.WRITE_ENTRIES))


def node_sum_under_archer(code: str, ranks: int = 2, threads: int = 2, n: int = 200,
                          reps: int = 2) -> dict | None:  # fmt: skip
    """One run of the cell's node_sum at `ranks` x `threads` on one node under Archer
    (ThreadSanitizer told OpenMP's synchronisation), None where Archer does not run here:
    "races", the data races it saw, one line each (the access and its line, the earlier access
    and its line), and "added", per rank, repetition and thread, the bytes of rank_sum the
    thread's own code wrote in that call ([rank, repetition, thread, bytes]: the kit's count,
    node_sum.c's HL_COUNT_ADDS, judged by node_sum_unadded). The threads of a rank all add into
    the shared rank_sum: unless those adds are made safe (an atomic update, a critical section, a
    lock), two of them race, whether or not an add is lost in that run. Built from
    clang_view(code): OpenMP 5.1's `atomic compare`, which Archer's clang 14 cannot parse, as the
    compare-and-swap it is."""
    if archer.missing():
        return None
    kernel = build_student("student_nodes_archer", "node_sum", "HL_STUDENT_NODES", clang_view(code),
                           NODE_FUNCTIONS, ADD_COUNT_FLAGS, archer=True)  # fmt: skip
    res, races, _ = archer_run(kernel, ranks, threads, variant="student", ranks_per_node=0, n=n,
                               reps=reps)  # fmt: skip
    views = res.records.query("record == 'view'").reindex(
        columns=["rank", "repetition", "thread", "added"])
    return {"races": [f"{r.access} at {r.where} against the {r.previous.lower()} at "
                      f"{r.previous_where}" for r in races],
            "added": [[int(v) for v in row] for row in views.fillna(-1).itertuples(index=False)]}


def node_sum_unadded(added: list[list[int]], ranks: int, threads: int, n: int, reps: int) -> str | None:
    """The judge of the threads' adds (lab 06 (e)), outside the student's process: None, or the
    first thread of the team that wrote less than a quarter of an equal share of rank_sum's n
    values (n / threads) in a call (`added`: node_sum_under_archer's count). Every thread adding
    its own n values (an atomic update each, a critical section or a lock round its adds, a
    private partial sum added once per element) writes n values per call, and a worksharing
    loop over the elements that adds every thread's values writes the thread's share of them
    (n / threads, the compiler keeping the sum of an element in a register); a master that adds
    every thread's values alone, or reductions of each thread's values with nothing added into
    rank_sum (attacker A9's K2 and K3, 4/4 twice, 2026-12-07), leave a thread with none. A
    quarter, as lab 10 (a)'s share: a dynamic schedule on a loaded machine shares unevenly."""
    least = 8 * n // (4 * threads)  # bytes
    seen = {(rank, rep, t): b for rank, rep, t, b in added}
    for rep in range(reps):
        for rank in range(ranks):
            for t in range(threads):
                wrote = seen.get((rank, rep, t))
                if wrote is None or wrote < 0:
                    return (f"{ranks} ranks x {threads} threads, n = {n}: the kit has no count of "
                            f"rank {rank} thread {t}'s adds in call {rep + 1}")
                if wrote < least:
                    return (f"{ranks} ranks x {threads} threads, n = {n}: in call {rep + 1}, "
                            f"rank {rank} thread {t} wrote {wrote // 8} values into rank_sum, "
                            f"less than a quarter of an equal share ({n // threads}): the threads "
                            "add the values into rank_sum themselves (each its own, one safe "
                            "read-modify-write each, or a worksharing loop over the elements), "
                            "not one thread for all, nor MPI in place of the threads' adds")
    return None


def grid_runs(
    rows: int,
    cols: int,
    maps: dict[str, list[int]],
    nodes: int,
    bytes: int = 65536,
    reps: int = 20,
    timeout: float = 120.0,
) -> tuple[dict[str, hl.Results], hl.Results]:
    """Nearest-neighbour messages on a rows x cols grid (kernels_c/grid_exchange.c) on `nodes`
    nodes, once per rank map (map name -> node of each grid position): a first run in the
    launcher's order says where each rank is, then each map puts its ranks in place
    (tables.grid_order). Unbound, so a grid larger than the CPUs still runs (its timings then
    mean little). Returns the runs per map and the first run."""
    common = {"ranks": rows * cols, "threads": 1, "bind": "none", "nodes": nodes,
              "timeout": timeout, "rows": rows, "cols": cols, "bytes": bytes, "reps": reps}  # fmt: skip
    launched = hl.run_program("grid_exchange", **common)
    where = tables.node_of_ranks(tables.rank_hosts(launched))
    runs = {}
    for name, node_of_position in maps.items():
        order = tables.grid_order(where, node_of_position)
        runs[name] = hl.run_program("grid_exchange", order=",".join(map(str, order)), **common)
    return runs, launched
