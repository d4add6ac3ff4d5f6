"""Lab 10's method check: whether a whole program's Jacobi update is shared among OpenMP
threads, judged from its preprocessed text (what the traced build compiles: macros expanded,
#if'd-out lines gone), never its text as typed.

    from hybridlab.whole_program.exercise import updates_unshared
    updates_unshared(code)     # [] when every statement of the update is in a shared loop
"""

from __future__ import annotations

import re

from ..kernels import build, unit_checks
from ..kernels.c_text import functions, pragma_spans
from ..slurm.jobs import WHOLE_PROGRAM

# a construct that shares a loop's iterations among a team; one that makes a team; one whose
# block a single thread runs; a clause that may leave the team one thread
SHARING = r"(?:\w+\s+)*(?:for|loop|taskloop)\b"
TEAM = r"(?:\w+\s+)*parallel\b"
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
    variable (or a collapsed one's), with no `if` or `num_threads` clause on it or its region,
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
        loops = [p for a, b, p, names in sharing if a < pos < b and names & words]
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
