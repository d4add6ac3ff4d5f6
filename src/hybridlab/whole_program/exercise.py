"""Lab 10's method check: whether a whole program's Jacobi update is shared among OpenMP
threads, judged from its preprocessed text (what the traced build compiles: macros expanded,
#if'd-out lines gone), never its text as typed.

    from hybridlab.whole_program.exercise import updates_unshared
    updates_unshared(code)     # [] when every statement of the update is in a shared loop
    loop_shared(loop_shares(records, rank), threads)   # each thread took a share of the
                               # iterations of the loops of a runtime schedule
    script_unwritten(script)   # [] when its #SBATCH lines ask for tasks and CPUs per task, 2 CPUs
    threads_unbound(step.openmp)   # None when OMP_PROC_BIND binds the tasks' threads
"""

from __future__ import annotations

import re

from ..kernels import build, unit_checks
from ..kernels.c_text import functions, pragma_spans
from ..slurm.jobs import WHOLE_PROGRAM, JobError, read_script, sbatch_lines
from ..slurm.steps import read_options

# a construct that shares a loop's iterations among a team; one that makes a team; one whose
# block a single thread runs; a clause that may leave the team one thread (the words of the
# pragma's own line: `parallel for` followed by a `for (...) {` line is not `parallel for for`,
# whose span would end at the loop body's first statement: u10_j_rowptr, 0/5, 2026-12-05)
SHARING = r"(?:\w+[ \t]+)*(?:for|loop|taskloop)\b"
TEAM = r"(?:\w+[ \t]+)*parallel\b"
ALONE = r"(?:critical|ordered|single|masked|master)\b"
_NARROWED = re.compile(r"\b(?:if|num_threads)\s*\(")
_HELPER_DEPTH = 3  # helpers calling helpers followed this deep


def program_text(code: str) -> str:
    """A whole program's own C as the traced build compiles it: preprocessed, comments gone,
    string literals emptied."""
    flags = [build.mpicc(), *build.DEFAULT_FLAGS, *WHOLE_PROGRAM, *build.TRACE_FLAGS,
             *build.include_flags()]  # fmt: skip
    lines, _ = unit_checks.preprocessed_cell(f'#line 1 "{unit_checks.CELL}"\n{code}', flags)
    return re.sub(r'"(?:\\.|[^"\\\n])*"' + r"|'(?:\\.|[^'\\\n])*'", '""',
                  "\n".join(text for _, text in lines))  # fmt: skip


def _loop_variables(text: str, start: int, pragma: str) -> set[str]:
    """The variables of the loop a work-sharing pragma at `start` governs, and of the loops
    nested in it that its collapse(c) clause joins."""
    depth = re.search(r"\bcollapse\s*\(\s*(\d+)\s*\)", pragma)
    names, at = set(), start
    for _ in range(int(depth.group(1)) if depth else 1):
        head = re.compile(r"\bfor\s*\(\s*(?:[\w\s\*]*?[\s\*])?(\w+)\s*=").search(text, at)
        if head is None:
            break
        names.add(head.group(1))
        at = head.end()
    return names


def _simple_statement(text: str, pos: int) -> str:
    """The simple statement around `pos`."""
    start = max(text.rfind(c, 0, pos) for c in ";{}") + 1
    end = text.find(";", pos)
    return text[start : end if end >= 0 else len(text)]


# an assignment, plain or compound (`=`, `+=`, `<<=`, ...), not a comparison (`==`, `<=`, `!=`)
_ASSIGNMENT = re.compile(r"(?<![=!<>+\-*/%&|^])(?:<<|>>|[+\-*/%&|^])?=(?!=)")


def _top_level(piece: str, sep: str = ",") -> list[str]:
    """`piece` split at each `sep` outside brackets (the declarators of one declaration)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(piece):
        depth += (c in "([{") - (c in ")]}")
        if c == sep and depth == 0:
            parts.append(piece[start:i])
            start = i + 1
    return parts + [piece[start:]]


def _flows_from(text: str, start: int, end: int, words: set[str]) -> set[str]:
    """`words` and every name they are computed from in text[start:end] (a loop's body before a
    statement): a variable declared or assigned there (`double *row = u + i * w;`, `row += w;`)
    brings the names of its value, and theirs in turn (data flow, not the statement's text alone:
    a row pointer set from the loop's variable makes the statement through it one of that loop)."""
    sources: dict[str, set[str]] = {}
    for statement in re.findall(r"[^;{}]+", text[start:end]):
        for piece in _top_level(statement):
            assigned = _ASSIGNMENT.search(piece)
            target = assigned and re.search(r"(\w+)\s*$", piece[: assigned.start()])
            if target:
                sources.setdefault(target.group(1), set()).update(re.findall(r"\w+", piece[assigned.end():]))
    found, todo = set(words), list(words)
    while todo:
        for name in sources.get(todo.pop(), ()):
            if name not in found:
                found.add(name)
                todo.append(name)
    return found


def _update_statements(text: str) -> list[tuple[int, str]]:
    """(end, statement) of each statement that reads four or more subscripted elements on the
    right of an assignment, plain or compound (the 5-point update, from one array or through row
    pointers, `v[k] = 0; v[k] += ...` as much as `v[k] = ...`, or a helper's return of it)."""
    found = []
    for match in re.finditer(r"[^;{}]*;", text):
        statement = "\n".join(line for line in match.group(0).split("\n")
                              if not line.lstrip().startswith("#"))  # fmt: skip
        right = _ASSIGNMENT.split(statement, maxsplit=1)
        reads = right[1] if len(right) == 2 else (
            statement if re.search(r"\breturn\b", statement) else "")  # fmt: skip
        if len(re.findall(r"\w+\s*\[", reads)) >= 4:
            found.append((match.end() - 1, statement))
    return found


def updates_unshared(code: str) -> list[str]:
    """Where a whole program's Jacobi update is not shared among OpenMP threads. Each statement
    of the update (_update_statements) must lie in a loop an OpenMP work-sharing construct shares
    (`parallel for`, `for` inside a `parallel` region, `loop`, `taskloop`) and use that loop's
    variable (or a collapsed one's), itself or through names computed from it in the loop's body
    (row pointers: _flows_from), with no `if` or `num_threads` clause on it or its region,
    not in a parallel region nested in another (its team is one thread unless nesting is on),
    and not in a `critical`, `ordered`, `single`, `masked` or `master` block (but in a `taskloop`
    inside one: its tasks go to the team); in a helper
    function, every call of the helper must be. [] when every one is; ["no ..."] when the
    program has no such statement."""
    text = program_text(code)
    teams, alone = pragma_spans(text, TEAM), pragma_spans(text, ALONE)
    sharing = [(a, b, p, _loop_variables(text, a, p)) for a, b, p in pragma_spans(text, SHARING)]
    defined = functions(text)

    def inside(pos: int, spans: list) -> list[str]:
        return [span[2] for span in spans if span[0] < pos < span[1]]

    def shared(pos: int, depth: int = 0) -> bool:
        # a taskloop inside a one-thread block (`single`, `masked`, ...) still shares its iterations:
        # its tasks go to the team (that the team runs them is judged from each thread's writes)
        tasked = [(a, b) for a, b, p, _ in sharing if a < pos < b and re.search(r"\btaskloop\b", p)]
        if [span for span in alone if span[0] < pos < span[1]
                and not any(span[0] <= a and b <= span[1] for a, b in tasked)]:
            return False
        words = set(re.findall(r"\w+", _simple_statement(text, pos)))
        loops = [p for a, b, p, names in sharing if a < pos < b and names & _flows_from(text, a, pos, words)]
        regions = inside(pos, teams)
        if len(regions) > 1:  # a parallel region nested in another: a team of one thread
            return False
        if loops:
            if any(_NARROWED.search(p) for p in loops + regions):
                return False
            if regions or any(re.search(r"\bparallel\b|\btaskloop\b", p) for p in loops):
                return True
        home = next((f for f in defined if f[1] <= pos < f[2]), None)
        if home is None or home[0] == "main" or depth > _HELPER_DEPTH:
            return False
        calls = [m.start() for m in re.finditer(rf"\b{home[0]}\s*\(", text)
                 if not (home[1] <= m.start() < home[2])
                 and any(f[1] <= m.start() < f[2] for f in defined)]  # not a declaration
        return bool(calls) and all(shared(c, depth + 1) or (loops and inside(c, teams))
                                   for c in calls)  # fmt: skip

    updates = _update_statements(text)
    if not updates:
        return ["no statement of the update (an element set from four array elements) found"]
    return [re.sub(r"^[^=]*?\)\s*(?=\w+\s*\[)", "", " ".join(statement.split()))[:120]
            for end, statement in updates if not shared(end)]


def loop_shares(records, rank: int) -> list[int]:
    """The iterations each OS thread of `rank` took of the program's loops of a runtime schedule
    (dynamic, guided, runtime: the tracer's "loop_share" records), summed over every loop and
    call site, largest first. Summed, not per call site: GCC may give one loop two sites (the
    code after an `omp masked` block copied into the master's path and the others', each with
    its own call of GOMP_loop_*_start), so that the master's chunks and another thread's are
    counted apart and each site looks like a loop of one thread (u10_f_persistent and
    u10_g_persistent_i, a persistent region with `omp for schedule(guided)`, 0/5, 2026-12-05). A
    thread that reaches no such loop, or takes none of its iterations, still shows nothing."""
    shares = records[(records["record"] == "loop_share") & (records["rank"].astype(int) == rank)]
    if shares.empty:
        return []
    took: dict[int, int] = {}
    for tid, units in zip(shares["tid"].astype(int), shares["units"].astype(int), strict=True):
        took[tid] = took.get(tid, 0) + units
    return sorted(took.values(), reverse=True)


def loop_shared(units: list[int], threads: int) -> bool:
    """Whether the iterations `units` (loop_shares) went to the whole team of `threads`: every
    thread took at least a quarter of an equal share (1/(4T)), or the loops were too short to
    tell (fewer than 64 iterations per thread)."""
    total = sum(units)
    return total < 64 * threads or sum(v >= total / (4 * threads) for v in units) >= threads


# OMP_PROC_BIND's values that bind threads (a policy, or a list of them per nesting level)
_BINDING = {"true", "close", "spread", "master", "primary"}


def script_unwritten(text: str) -> list[str]:
    """What a lab 10 job script's #SBATCH lines leave out of what the part asks, as written (no
    option on sbatch's command line): a task count (`--ntasks`, `-n`, or `--ntasks-per-node`), the
    CPUs per task (`--cpus-per-task`, `-c`), and 2 CPUs in all. [] when nothing is missing. (A
    script without `--cpus-per-task` is given no SLURM_CPUS_PER_TASK by Slurm, so its thread
    count falls back on whatever it typed: u10_f_persistent, 3/3 twice, 2026-12-05.)"""
    options = read_options(sbatch_lines(text))
    missing = []
    if not any(k in options for k in ("--ntasks", "--ntasks-per-node")):
        missing.append("no `#SBATCH --ntasks=...` line (the ranks)")
    if "--cpus-per-task" not in options:
        missing.append("no `#SBATCH --cpus-per-task=...` line (the threads per rank: without it Slurm "
                       "sets no SLURM_CPUS_PER_TASK)")
    if not missing:
        try:
            cpus = read_script(text).cpus
        except JobError as err:
            return [str(err)]
        if cpus != 2:
            missing.append(f"its #SBATCH lines ask for {cpus} CPUs in all, not 2 (2 tasks x 1, or 1 x 2)")
    return missing


def threads_unbound(openmp: dict[str, str]) -> str | None:
    """Why the OpenMP variables of a step's tasks (Step.openmp) leave the threads unbound, or
    None: OMP_PROC_BIND must be set to a binding policy (true, close, spread, primary or master,
    or a list of them), not left to the runtime's default, and not false."""
    value = openmp.get("OMP_PROC_BIND", "").strip().lower()
    if not value:
        return "OMP_PROC_BIND is not set in the tasks' environment"
    if not set(v.strip() for v in value.split(",")) <= _BINDING:
        return f"OMP_PROC_BIND={value} binds no thread"
    return None
