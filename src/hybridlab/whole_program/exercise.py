"""Lab 10's method check: whether a whole program's Jacobi update is shared among OpenMP
threads, judged from clang's LLVM IR of the program as the traced build's preprocessor leaves it
(macros expanded, #if'd-out lines gone): the update found by what the code does, never by its
text as typed (the preprocessed text's rule, text_unshared, only where clang is not installed).

    from hybridlab.whole_program.exercise import updates_unshared
    updates_unshared(code)     # [] when every write of the update is in a shared loop
    loop_shared(loop_shares(records, rank), threads)   # each thread took a share of the
                               # iterations of the loops of a runtime schedule
    places_unseen(place_lines, records)   # [] when each place line's CPU is one its thread ran on
    written_twice(records, rank)   # [] when no heap block was written twice per update
    written_serially(records, rank, threads)   # [] when no heap block's last changes are the serial part's
    changed_serially(records, rank, threads, update_changes(n, iterations))   # None when the master
                               # alone changed little of what the update changes
    jacobi_sweeps(n, iterations)   # (checksum, bytes changed) of the grader's reference sweeps
    update_sites_env(program, code)   # the counted run's HL_UPDATE_SITES: the update's stores, reads
    computed_unshared(records, rank, threads)   # [] when every thread computed its share
    script_unwritten(script)   # [] when its #SBATCH lines ask for tasks and CPUs per task, 2 CPUs
    threads_unbound(step.openmp)   # None when OMP_PROC_BIND binds the tasks' threads
"""

from __future__ import annotations

import dataclasses
import functools
import re
import subprocess
from pathlib import Path

import numpy as np

from ..kernels import archer, build, llvm_ir, split_rmw, unit_checks
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


def text_unshared(code: str) -> list[str]:
    """Where a whole program's Jacobi update is not shared among OpenMP threads, read from its
    preprocessed text (the rule where clang is not installed: updates_unshared). Each statement
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


# ---- the update found by what the program does: clang's IR of it (updates_unshared) ----

_FUNC_REF = re.compile(r"@(?:[-\w.$]+|\"[^\"]*\")")
_POINTER_TYPE = re.compile(r"^\s*(?:[^,]*\*|ptr)\s*$")
_LOADED_TYPE = re.compile(r"=\s*load\s+(?:atomic\s+)?(?:volatile\s+)?([^,]+),")
_ADDRESS_OPS = re.compile(r"=\s*(?:getelementptr|bitcast|addrspacecast)\b")
_CASTS = re.compile(r"=\s*(?:bitcast|addrspacecast)\b")
_ALLOCA = re.compile(r"=\s*alloca\b")
_VALUE_STOPS = re.compile(r"=\s*(?:getelementptr|alloca)\b")  # addresses, not values
_IDENT = re.compile(r"^(@[-\w.$]+)\s*=.*%struct\.ident_t\s*\{\s*i32\s+\d+,\s*i32\s+(\d+)")
_COPY = re.compile(r"@(?:llvm\.memcpy[\w.]*|llvm\.memmove[\w.]*|memcpy|memmove)$")
# calls an address may be handed to without leaving the function's own use: llvm's copies, fills
# and markers (not the runtime's fork, a library's function, inline asm)
_KEPT_BY = re.compile(r"@llvm\.(?:memcpy|memmove|memset|lifetime|dbg|stacksave|stackrestore|assume|"
                      r"prefetch|invariant|experimental\.noalias|var\.annotation|ptr\.annotation)\b")
_UNREACHABLE = re.compile(r"^\s*unreachable\b")
_COMPARE = re.compile(r"=\s*(?:icmp|fcmp)\b")
_TO_INTEGER = re.compile(r"=\s*ptrtoint\b")
_WORK_LOOP = 0x200  # ident_t flags: a loop's work-sharing (KMP_IDENT_WORK_LOOP), not sections
_ALONE = {"@__kmpc_masked": "@__kmpc_end_masked", "@__kmpc_master": "@__kmpc_end_master",
          "@__kmpc_single": "@__kmpc_end_single", "@__kmpc_critical": "@__kmpc_end_critical",
          "@__kmpc_critical_with_hint": "@__kmpc_end_critical",
          "@__kmpc_ordered": "@__kmpc_end_ordered"}
_DEPTH = 4
_READS = 4


def program_ir(code: str) -> str:
    """clang's -O2 LLVM IR (with debug lines) of a whole program as the graded build's
    preprocessor leaves it (split_rmw.gcc_view: macros expanded and `#if`s settled as GCC settles
    them), `loop` constructs as GCC builds them (_as_gcc_reads)."""
    flags = [build.mpicc(), *build.DEFAULT_FLAGS, *WHOLE_PROGRAM, *build.TRACE_FLAGS,
             *build.include_flags()]
    lines, _ = unit_checks.preprocessed_cell(f'#line 1 "{unit_checks.CELL}"\n{code}', flags)
    view = _as_gcc_reads(split_rmw.gcc_view(lines, code))
    cmd = [build.mpicc(), *build.DEFAULT_FLAGS, build.WHOLE_PROGRAM_FLAG, *build.TRACE_FLAGS, "-g",
           *build.include_flags(), "-S", "-emit-llvm", "-o", "-", "-x", "c", "-"]
    done = subprocess.run(cmd, input=view, capture_output=True, text=True, check=False,
                          timeout=300, env=build.compiler_env(archer.FLAGS))
    if done.returncode != 0:
        errors = [ln for ln in done.stderr.splitlines() if "error:" in ln] or [done.stderr[-300:]]
        raise ValueError(f"clang cannot read the program ({errors[0].strip()[:200]})")
    return done.stdout


_LOOP_PRAGMA = re.compile(r"^(\s*#\s*pragma\s+omp\s+(?:parallel\s+)?)loop\b(.*)$")


def _as_gcc_reads(view: str) -> str:
    """`loop` as GCC builds it: in a parallel region (bind(parallel), the default there) a
    work-sharing loop like `for` (clang 14 makes every thread run all of it, as for `simd`)."""
    out = []
    for ln in view.split("\n"):
        m = _LOOP_PRAGMA.match(ln)
        if m and not re.search(r"\bbind\s*\(\s*(?:thread|teams)", m.group(2)):
            ln = m.group(1) + "for" + re.sub(r"\bbind\s*\([^)]*\)", "", m.group(2))
        out.append(ln)
    return "\n".join(out)


class _Flow:
    """One function's blocks: dominators and post-dominators, positions (block, index). A block
    that is only `unreachable` (a `switch`'s default that cannot happen) is no way out: the end of
    a work-sharing loop still post-dominates the cases of a switch in its body."""

    def __init__(self, f):
        self.f = f
        dead = {b for b in f.blocks if f.code[b] and _UNREACHABLE.match(f.code[b][-1].text)}
        succ = {b: [s for s in (f.code[b][-1].successors if f.code[b] else []) if s in f.code and s not in dead]
                for b in f.blocks}
        pred = {b: [] for b in f.blocks}
        for b in f.blocks:
            for s in succ[b]:
                pred[s].append(b)
        every = set(f.blocks)
        self.dom = self._solve(f.blocks, pred, {f.blocks[0]}, every)
        exits = {b for b in f.blocks if not succ[b]}
        self.pdom = self._solve(list(reversed(f.blocks)), succ, exits, every)

    @staticmethod
    def _solve(order, inputs, roots, every):
        sets = {b: ({b} if b in roots else set(every)) for b in order}
        changed = True
        while changed:
            changed = False
            for b in order:
                if b in roots:
                    continue
                ins = [sets[p] for p in inputs[b]]
                new = {b} | (set.intersection(*ins) if ins else set())
                if new != sets[b]:
                    sets[b], changed = new, True
        return sets

    def before(self, a, b):  # a dominates b
        return a[1] < b[1] if a[0] == b[0] else a[0] in self.dom[b[0]]

    def after(self, a, b):  # a post-dominates b
        return a[1] > b[1] if a[0] == b[0] else a[0] in self.pdom[b[0]]

    def spans(self, starts, ends):
        """Per start position, the end positions it pairs with: dominated by it, not by a later
        start it dominates."""
        out = []
        for s in starts:
            inner = [t for t in starts if t != s and self.before(s, t)]
            mine = [e for e in ends if self.before(s, e) and not any(self.before(t, e) for t in inner)]
            if mine:
                out.append((s, mine))
        return out

    def inside(self, pos, spans):
        return any(self.before(s, pos) and any(self.after(e, pos) for e in ends) for s, ends in spans)

    def around(self, pos, spans):
        """The spans (start, ends) around `pos`."""
        return [(s, ends) for s, ends in spans if self.before(s, pos) and any(self.after(e, pos) for e in ends)]



def _definitions(f, todo: list[str]):
    """The instruction defining each value of `todo` in `f`, once each, while the caller may
    append to `todo` (a walk back along the values an instruction is computed from)."""
    seen = set()
    while todo:
        v = todo.pop()
        if v in seen or v not in f.where:
            continue
        seen.add(v)
        yield f.code[f.where[v][0]][f.where[v][1]]

def _one_line_switches(ir: str) -> str:
    """The IR with each `switch` on one line (clang writes its cases one a line, which
    split_rmw.parse reads as instructions of their own: the switch would have no successors, its
    cases no predecessors, and a value chosen by it no branch deciding it)."""
    out, open_switch = [], False
    for ln in ir.splitlines():
        if open_switch:
            out[-1] += " " + ln.strip()
            open_switch = "]" not in ln
        else:
            out.append(ln)
            open_switch = bool(re.match(r"^\s*switch\b[^\]]*\[\s*$", ln))
    return "\n".join(out)


class _Program:
    def __init__(self, ir: str):
        self.ir = ir
        self.funcs = split_rmw.parse(_one_line_switches(ir))
        self.flags = {m.group(1): int(m.group(2)) for ln in ir.splitlines() if (m := _IDENT.match(ln))}
        self.lines = llvm_ir.cell_lines(ir)
        self.flow = {n: _Flow(f) for n, f in self.funcs.items() if f.blocks and f.code[f.blocks[0]]}
        # who refers to each defined function: direct calls, fork calls, task allocations, other
        self.calls, self.forks, self.tasks, self.other = ({n: [] for n in self.funcs} for _ in range(4))
        for n, f in self.funcs.items():
            allocs = {}
            for b in f.blocks:
                for i, ins in enumerate(f.code[b]):
                    refs = [r for r in _FUNC_REF.findall(split_rmw._strip_meta(ins.text)) if r in self.funcs]
                    if ins.op == "call" and ins.callee in self.funcs:
                        self.calls[ins.callee].append((n, (b, i)))
                        refs = [r for r in refs if r != ins.callee]
                    for r in refs:
                        if ins.callee == "@__kmpc_fork_call":
                            self.forks[r].append((n, (b, i)))
                        elif ins.callee == "@__kmpc_omp_task_alloc":
                            allocs[ins.result] = r
                        else:
                            self.other[r].append((n, (b, i)))
                    if ins.op == "call" and ins.callee and re.match(r"@__kmpc_taskloop\w*$", ins.callee):
                        for a in ins.args:
                            src = self._strip(f, a)
                            if src in allocs:
                                self.tasks[allocs[src]].append((n, (b, i)))
            for r in set(allocs.values()) - {e for e, s in self.tasks.items() if s}:
                self.other[r].append((n, None))  # a plain task: no work-sharing
        self.spans = {n: self._spans(n) for n in self.flow}
        self._summaries = {}

    # -- where -------------------------------------------------------------------------------
    def _calls_of(self, f, names):
        return [(b, i) for b in f.blocks for i, ins in enumerate(f.code[b])
                if ins.op == "call" and ins.callee in names]

    def _spans(self, n):
        f, fl = self.funcs[n], self.flow[n]
        loops = [p for p in self._calls_of(f, {c for c in self._callees(f) if re.match(r"@__kmpc_for_static_init_\w+$", c)})
                 if self.flags.get(self._ident(f, p), _WORK_LOOP) & _WORK_LOOP]
        fini = self._calls_of(f, {"@__kmpc_for_static_fini"})
        inits = self._calls_of(f, {c for c in self._callees(f) if re.match(r"@__kmpc_dispatch_init_\w+$", c)})
        nexts = self._calls_of(f, {c for c in self._callees(f) if re.match(r"@__kmpc_dispatch_next_\w+$", c)})
        sharing = fl.spans(loops, fini) + fl.spans(inits, nexts)
        alone = []
        for start, end in _ALONE.items():
            alone += fl.spans(self._calls_of(f, {start}), self._calls_of(f, {end}))
        return sharing, alone

    def _callees(self, f):
        return {ins.callee for b in f.blocks for ins in f.code[b] if ins.op == "call" and ins.callee}

    def _ident(self, f, pos):
        ins = f.code[pos[0]][pos[1]]
        return ins.args[0] if ins.args else ""

    def _team_ok(self, n, depth):
        """An outlined parallel region whose every start is a fork with the whole team, from code
        no parallel region runs."""
        sites = self.forks[n]
        if not sites or self.calls[n] or self.other[n] or self.tasks[n]:
            return False
        for g, (b, i) in sites:
            before = self.funcs[g].code[b][:i]
            if any(x.op == "call" and x.callee == "@__kmpc_push_num_threads" for x in before):
                return False
            if not self._serial(g, depth + 1):
                return False
        return True

    def _serial(self, n, depth):
        """Code of `n` runs outside every parallel region (main, or helpers only it calls)."""
        if n == "@main":
            return True
        if depth > _DEPTH or self.forks[n] or self.tasks[n] or self.other[n] or not self.calls[n]:
            return False
        return all(self._serial(g, depth + 1) for g, _ in self.calls[n])

    def _team(self, n, depth):
        """Code of `n` runs on every thread of one (not nested) team."""
        if depth > _DEPTH or n == "@main":
            return False
        if self.forks[n]:
            return self._team_ok(n, depth)
        if self.tasks[n]:
            return all(self._team(g, depth + 1) for g, _ in self.tasks[n])
        if self.other[n] or not self.calls[n]:
            return False
        return all(self._team(g, depth + 1) and not self.flow[g].inside(p, self.spans[g][1])
                   for g, p in self.calls[n])

    def shared(self, n, pos, depth=0):
        if depth > _DEPTH or n not in self.flow:
            return False
        fl, (sharing, alone) = self.flow[n], self.spans[n]
        if fl.inside(pos, alone):
            return False
        loops = fl.around(pos, sharing)
        if loops:
            f, ins = self.funcs[n], self.funcs[n].code[pos[0]][pos[1]]
            used = [ins.pointer] if ins.op == "store" else [a for a in ins.args if a]
            bounds = {self._bare(f, a) for s, ends in loops for c in (s, *ends)
                      for a in f.code[c[0]][c[1]].ptr_args}
            return self._team(n, depth) and self._from(f, used, bounds)
        if self.tasks[n]:  # a taskloop's task: its iterations go to the team
            return all(self._team(g, depth + 1) for g, _ in self.tasks[n])
        if n == "@main" or self.forks[n] or self.other[n] or not self.calls[n]:
            return False
        return all(self.shared(g, p, depth + 1) for g, p in self.calls[n])

    # -- what ---------------------------------------------------------------------------------
    def _control(self, f):
        """split_rmw's control dependence of `f`, its edges into `unreachable` blocks left out (a
        `switch` whose default cannot happen does not decide whether the code after it runs)."""
        key = ("ctl", f.name)
        if key not in self._summaries:
            dead = {b for b in f.blocks if f.code[b] and _UNREACHABLE.match(f.code[b][-1].text)}
            code = {b: [*f.code[b][:-1], dataclasses.replace(f.code[b][-1], successors=[
                        x for x in f.code[b][-1].successors if x not in dead])] if f.code[b] else []
                    for b in f.blocks}  # fmt: skip
            self._summaries[key] = split_rmw._control(dataclasses.replace(f, code=code))
        return self._summaries[key]

    def _idom(self, f, b):
        """The immediate dominator of block `b` (None for the entry)."""
        fl = self.flow.get(f.name)
        if fl is None:
            return None
        others = [d for d in fl.dom.get(b, ()) if d != b]
        return max(others, key=lambda d: len(fl.dom[d]), default=None)

    def _decided(self, f, blocks, but):
        """The conditions of the branches that decide whether `blocks` run (each block's own
        branch too), less those that decide whether block `but` runs: a value chosen by branches
        (a phi of constants in a `switch` on the update's bits, a volatile temporary set in an
        `if`) is made from what the branches test (control dependence, as split_rmw's)."""
        ctl = self._control(f)
        keep = set()
        for b in blocks:
            keep |= ctl.over.get(b, set()) | ({b} & set(ctl.condition))
        keep -= ctl.over.get(but, set()) if but else set()
        return [ctl.condition[x] for x in keep if ctl.condition.get(x)]

    def _phi_conditions(self, f, ins):
        b = f.where[ins.result][0] if ins.result in f.where else None
        return self._decided(f, [blk for _, blk in ins.incoming], self._idom(f, b) if b else None)

    def _strip(self, f, v, through=_ADDRESS_OPS):
        """The value `v` is a cast or address offset of (the base of an address); `through`:
        the instructions peeled (_CASTS: casts only, the exact address)."""
        seen = set()
        while v in f.where and v not in seen:
            seen.add(v)
            b, i = f.where[v]
            ins = f.code[b][i]
            if not through.search(ins.text) or not ins.operands:
                break
            v = ins.operands[0]
        return v

    def _memory(self, f):
        """Per function: the allocas, the stores into each base and each exact address."""
        key = ("mem", f.name)
        if key not in self._summaries:
            allocas, by_base, by_ptr, at = set(), {}, {}, {}
            for b in f.blocks:
                for ins in f.code[b]:
                    if ins.result and _ALLOCA.search(ins.text):
                        allocas.add(ins.result)
                    elif ins.op == "store" and ins.value:
                        by_base.setdefault(self._strip(f, ins.pointer), []).append(ins.value)
                        at.setdefault(self._strip(f, ins.pointer), set()).add(b)
                        by_ptr.setdefault(self._bare(f, ins.pointer), []).append(ins.value)
                    elif ins.op == "call" and ins.callee and _COPY.match(ins.callee) and len(ins.args) > 1:
                        by_base.setdefault(self._strip(f, ins.args[0]), []).append(("copy", ins.args[1]))
                        by_ptr.setdefault(self._bare(f, ins.args[0]), []).append(("copy", ins.args[1]))
            self._summaries[key] = (allocas, by_base, by_ptr)
            self._summaries[("stored", f.name)] = at  # the blocks that store into each base
        return self._summaries[key]

    def _bare(self, f, v):
        """The exact address `v` is a cast of."""
        return self._strip(f, v, _CASTS)

    def reads(self, f, values, depth=0, bits=False):
        """The loads (memory reads of values, not addresses) the values in `values` are computed
        from: through arithmetic, casts, phis, selects, calls of the program's functions, and
        memory the function itself wrote (its locals; an address it stored to). A load of a
        pointer is a read of a value where its bits are the data (`bits`: the values' own, a
        pointer stored into the grid; made a number by ptrtoint): a double's bits kept in `void*`
        cells are the update (a fresh attacker's l10_a1_serial_hidden, 5/5 twice, 2026-12-07)."""
        allocas, by_base, by_ptr = self._memory(f)
        found, seen, todo = set(), set(), list(values)
        data = {v for v in values if isinstance(v, str)} if bits else set()  # values whose bits are data

        def follow(froms, of=None):  # walk on to `froms`, data where `of` is
            todo.extend(froms)
            if of is None or of in data:
                data.update(x for x in froms if isinstance(x, str))
        while todo and len(found) < 64:
            v = todo.pop()
            if isinstance(v, tuple):  # a copy: what its source holds
                src = v[1]
                base = self._strip(f, src)
                if base in allocas:
                    todo += by_base.get(base, [])
                else:
                    todo += by_ptr.get(self._bare(f, src), [])
                continue
            if v in seen or v not in f.where:
                continue
            seen.add(v)
            b, i = f.where[v]
            ins = f.code[b][i]
            if ins.op == "load":
                m = _LOADED_TYPE.search(split_rmw._strip_meta(ins.text))
                if m and _POINTER_TYPE.match(m.group(1)) and v not in data:
                    continue  # an address (a row's pointer), not a value
                base = self._strip(f, ins.pointer)
                if base in allocas:  # what was stored there, and the branches deciding which store ran
                    follow(by_base.get(base, []), v)
                    todo += self._decided(f, self._summaries[("stored", f.name)].get(base, ()), b)
                elif self._bare(f, ins.pointer) in by_ptr:
                    follow(by_ptr[self._bare(f, ins.pointer)], v)
                    found.add((f.name, v))
                else:
                    found.add((f.name, v))
            elif ins.op == "phi":  # the values it may take, and the branches choosing among them
                follow([x for x, _ in ins.incoming if x], v)
                todo += self._phi_conditions(f, ins)
            elif ins.op == "call":
                if ins.callee in self.funcs and depth < _DEPTH:
                    got, params = self._returns(ins.callee, depth + 1)
                    found |= got
                    todo += [ins.args[k] for k in params if k < len(ins.args) and ins.args[k]]
                elif ins.callee and ins.callee not in self.funcs:
                    todo += [a for a in ins.args if a]
                    if ins.callee.startswith("%"):  # called through a pointer: what picked it
                        todo += self._picked_by(f, ins.callee)
            elif ins.op == "other" and not _VALUE_STOPS.search(ins.text):
                # arithmetic, casts (a double's bits as an integer, a pointer's: ptrtoint), selects
                follow(ins.operands, None if _TO_INTEGER.search(ins.text) else v)
        return found

    def _picked_by(self, f, v):
        """The indices an address `v` (a function's pointer called) was read at or computed with:
        a function picked from a table by the update's bits returns a value chosen by them."""
        out, todo = [], [v]
        for ins in _definitions(f, todo):
            if ins.op == "load":
                todo.append(ins.pointer)
            elif ins.op in ("other", "phi"):
                if _ADDRESS_OPS.search(ins.text) and ins.operands:
                    out += ins.operands[1:]
                    todo.append(ins.operands[0])
                else:
                    todo += ins.operands
        return out

    def _returns(self, n, depth):
        key = ("ret", n)
        if key not in self._summaries:
            self._summaries[key] = (set(), set())  # recursion: nothing yet
            f = self.funcs[n]
            rets = [v for b in f.blocks for ins in f.code[b] if ins.op == "terminator"
                    and ins.text.strip().startswith("ret ") for v in ins.operands]
            got = self.reads(f, rets, depth, bits=True)  # reached as a value: its bits are data
            params = set()  # the parameters the returned value is computed from (by value)
            seen, todo = set(), list(rets)
            while todo:
                v = todo.pop()
                if v in seen:
                    continue
                seen.add(v)
                if v in f.params:
                    params.add(f.params.index(v))
                elif v in f.where:
                    ins = f.code[f.where[v][0]][f.where[v][1]]
                    if ins.op in ("other", "phi") and not _VALUE_STOPS.search(ins.text):
                        todo += ins.operands + (self._phi_conditions(f, ins) if ins.op == "phi" else [])
            self._summaries[key] = (got, params)
        return self._summaries[key]

    def _from(self, f, values, bounds):
        """Whether `values` are computed from a value read from `bounds` (the addresses a
        work-sharing loop's runtime call sets: the thread's share of the iterations), through
        arithmetic, not through a comparison: an address that depends on the iteration only by
        whether it is one value or another (`lo = k == 0 ? 1 : m + 1`) is one thread's pick of
        rows, not its share (attackU's u10_decode, 5/5 twice, 2026-12-06: iteration 0 swept every
        row, storing the others' rows negated, which the threads of the other iterations turned
        back after spinning on a flag)."""
        allocas, by_base, _ = self._memory(f)
        todo = list(values)
        for ins in _definitions(f, todo):
            if ins.op == "load":
                if self._bare(f, ins.pointer) in bounds:
                    return True
                base = self._strip(f, ins.pointer)
                if base in allocas:
                    todo += [x for x in by_base.get(base, []) if isinstance(x, str)]
                else:
                    m = _LOADED_TYPE.search(split_rmw._strip_meta(ins.text))
                    if m and _POINTER_TYPE.match(m.group(1)):  # a row's pointer, V[i]: from where it is
                        todo.append(ins.pointer)  # read (an index of the thread's share picks the row)
            elif ins.op == "phi" or (ins.op == "other" and not _COMPARE.search(ins.text)):
                todo += ins.operands
        return False

    def _uses(self, f):
        """Per value of `f`: the instructions that use it."""
        key = ("uses", f.name)
        if key not in self._summaries:
            uses: dict[str, list] = {}
            for b in f.blocks:
                for ins in f.code[b]:
                    for v in dict.fromkeys(ins.operands):
                        uses.setdefault(v, []).append(ins)
            self._summaries[key] = uses
        return self._summaries[key]

    def _leaks(self, f, roots, depth=0):
        """Whether an address computed from `roots` (through getelementptr, casts, phis, selects)
        leaves `f`'s own use: stored to memory as a value, made an integer, returned, handed to
        code outside the program (the runtime's fork, which gives it to the team; a library; inline
        asm; not llvm's copies and fills) or to a function of the program in which it leaks."""
        uses, seen, todo = self._uses(f), set(), list(roots)
        while todo:
            v = todo.pop()
            if v in seen:
                continue
            seen.add(v)
            for ins in uses.get(v, []):
                if ins.op == "store":
                    if ins.value == v:
                        return True
                elif ins.op == "call":
                    if ins.callee and _KEPT_BY.match(ins.callee):
                        continue
                    params = self.funcs[ins.callee].params if ins.callee in self.funcs else []
                    at = [k for k, a in enumerate(ins.args) if a == v]
                    if not params or depth >= _DEPTH or not at or any(k >= len(params) for k in at):
                        return True
                    if self._leaks(self.funcs[ins.callee], [params[k] for k in at], depth + 1):
                        return True
                elif ins.op == "rmw":
                    if ins.operands.count(v) > (ins.pointer == v):  # the value a cmpxchg or xchg stores
                        return True
                elif ins.op == "terminator":
                    if ins.text.lstrip().startswith("ret"):
                        return True
                elif ins.op == "phi" or (ins.op == "other" and not _COMPARE.search(ins.text)):
                    if _TO_INTEGER.search(ins.text):
                        return True
                    if ins.result:
                        todo.append(ins.result)
        return False

    def _own_stack(self, f):
        """The allocas of `f` that are its own stack: whose address never leaves its use
        (_leaks). A buffer whose address is published (stored to a global, handed to the team) is
        memory other threads read: a write into it is a write of the program's data (a fresh
        attacker's L10_G7, 5/5 twice, 2026-12-06: thread 0 computed the others' rows into a
        `__builtin_alloca` buffer whose address it published, and they only copied them)."""
        key = ("own", f.name)
        if key not in self._summaries:
            self._summaries[key] = {a for a in self._memory(f)[0] if not self._leaks(f, [a])}
        return self._summaries[key]

    def _varies(self, f, ptr):
        """An address computed from a phi (a loop's variable, a swapped pointer...)."""
        todo = [ptr]
        for ins in _definitions(f, todo):
            if ins.op == "phi":
                return True
            if ins.op == "other":
                todo += ins.operands
        return False

    def update_writes(self):
        """(function, position, reads, line) of each write of a value computed from four or more
        reads into memory that is not the function's own stack (_own_stack: an alloca whose
        address leaves the function is not), at an address that varies."""
        out = []
        for n, f in self.funcs.items():
            allocas = self._own_stack(f)
            for b in f.blocks:
                for i, ins in enumerate(f.code[b]):
                    if ins.op == "store" and ins.value:  # of any type: a pointer's bits may be a double's
                        target, values = ins.pointer, [ins.value]
                    elif ins.op == "call" and ins.callee and _COPY.match(ins.callee) and len(ins.args) > 1:
                        target, values = ins.args[0], [("copy", ins.args[1])]
                    else:
                        continue
                    if self._strip(f, target) in allocas or not self._varies(f, target):
                        continue
                    got = self.reads(f, values, bits=True)
                    if len(got) >= _READS:
                        out.append((n, (b, i), len(got), llvm_ir.where(ins.text, self.lines)))
        return out


@functools.lru_cache(maxsize=2)
def _judged(code: str) -> _Program:
    """The program's IR read once for both rules that judge it (updates_unshared, update_lines)."""
    return _Program(program_ir(code))


def update_lines(code: str) -> tuple[list[int], list[int]]:
    """The cell lines of the update's writes (updates_unshared's: a value made from four or more
    values read, written into memory that is not the function's own stack) and of the reads
    their values are made from, from clang's IR."""
    try:
        prog = _judged(code)
        writes = prog.update_writes()
    except ValueError:
        return [], []
    stores, reads = set(), set()
    for n, (b, i), _, at in writes:
        stores.add(at)
        f, ins = prog.funcs[n], prog.funcs[n].code[b][i]
        for name, v in prog.reads(f, [ins.value] if ins.op == "store" else [("copy", ins.args[1])], bits=True):
            g = prog.funcs[name]
            reads.add(llvm_ir.where(g.code[g.where[v][0]][g.where[v][1]].text, prog.lines))
    line = re.compile(r"cell line (\d+)")
    return (sorted({int(m.group(1)) for at in stores if (m := line.fullmatch(at))}),
            sorted({int(m.group(1)) for at in reads if (m := line.fullmatch(at))}))


UPDATE_SITES = "HL_UPDATE_SITES"  # the counted run's variable: the update's store and read sites
_SANITIZER_CALLS = re.compile(r"@(__tsan_\w+)")
# the C library's scanning, which stores through the pointers its format names: the counted build
# cannot see those stores (formatted output and string copies it counts: hl_write_count.h)
_SCAN_CALLS = re.compile(r"@(?:__isoc\d+_)?(v?sscanf)\(")
# the tracer's wrappers a store (or a read) of the cell's calls in the counted build (jobs.COUNTED_WRITES)
_STORE_CALL = re.compile(r"\bcall\s+[0-9a-f]+\s+<__wrap_(?:__tsan_(?:unaligned_)?write(?:\d+|_range)"
                         r"|memcpy|memmove|memset)>")
_READ_CALL = re.compile(r"\bcall\s+[0-9a-f]+\s+<__wrap___tsan_(?:unaligned_)?read(?:\d+|_range)>")
_SOURCE_LINE = re.compile(r"^(\S+):(\d+)(?: \(discriminator \d+\))?$")
_INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\s")


def update_sites(program: Path, source: str, stores: list[int], reads: list[int]) -> list[list[int]]:
    """The sites of the update's stores and of its reads in a counted build (the program, built
    from `source`): the return addresses of the calls that instrument a store, copy or fill at one
    of the cell lines `stores` (their DWARF lines), and of those that instrument a read at one of
    `reads`, as offsets in the cell's code section (unit_checks.CELL_CODE); one disassembly."""
    sections = subprocess.run(["readelf", "-S", "-W", str(program)], capture_output=True, text=True,
                              check=True, timeout=60).stdout  # fmt: skip
    start = re.search(rf"\]\s+{unit_checks.CELL_CODE}\s+\S+\s+([0-9a-f]+)\s", sections)
    kinds = [(set(stores), _STORE_CALL, []), (set(reads), _READ_CALL, [])]
    if start is None or not (stores or reads):
        return [sites for _, _, sites in kinds]
    code = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", f"--section={unit_checks.CELL_CODE}",
                           str(program)], capture_output=True, text=True, check=True, timeout=120).stdout
    line, called = None, None  # called: the sites list of the call just seen
    for text in code.splitlines():
        if m := _SOURCE_LINE.match(text):
            line = int(m.group(2)) if Path(m.group(1)).name == source else None
        elif m := _INSTRUCTION.match(text):
            if called is not None:  # the instruction after an instrumenting call: its return address
                called.append(int(m.group(1), 16) - int(start.group(1), 16))
            called = next((sites for wanted, calls, sites in kinds if line in wanted and calls.search(text)), None)
    return [sites for _, _, sites in kinds]


def update_sites_env(program: Path, code: str) -> dict[str, str]:
    """What the counted run of `program` (built from `code` by jobs.build_program) is handed
    beside jobs.COUNT_ENV: its update's store sites and read sites (update_sites of
    update_lines), "stores;reads", from which the tracer tells which thread computed each element
    (the "computed" bytes of its "writes" records: computed_unshared); none where clang is not
    installed."""
    if not split_rmw.clang_present():
        return {}
    sites = update_sites(program, f"{program.name}.c", *update_lines(code))
    return {UPDATE_SITES: ";".join(",".join(f"{s:x}" for s in kind) for kind in sites)}


def computed_unshared(records, rank: int, threads: int) -> list[tuple[int, list[int]]]:
    """(bucket, computed bytes by thread, largest first) of each heap block of `rank` (bucket 0:
    its other memory, each word's author kept in a lossy table by its address) whose
    elements, each credited to the thread whose store of the update's value (update_sites: made
    after three or more of the update's reads by that thread, hl_write_count.h) changed it last,
    were not computed by the whole team of `threads`: in a block that holds a
    tenth or more of the bytes computed, fewer than `threads` threads computed at least a quarter
    of an equal share; (-1, []) when the update's stores changed no element at all. A thread that
    only changes elements another thread's update wrote (puts back a value stored negated,
    copies) computes none of them. [] when every block's are shared, or the run was handed no
    sites (no "computed" counts: -1)."""
    writes = records[(records["record"] == "writes") & (records["rank"].astype(int) == rank)]
    if writes.empty or "computed" not in writes:
        return []
    computed = writes["computed"].fillna(-1).astype(int)
    if (computed < 0).any():
        return []
    by_block = {int(b): sorted(group.tolist(), reverse=True)
                for b, group in computed.groupby(writes["bucket"].astype(int))}
    total = sum(sum(v) for v in by_block.values())
    if total == 0:
        return [(-1, [])]
    return [(b, v) for b, v in by_block.items()
            if sum(v) >= total / 10 and sum(x >= sum(v) / (4 * threads) for x in v) < threads]


def updates_unshared(code: str) -> list[str]:
    """Where a whole program's Jacobi update is not shared among OpenMP threads, read from clang's
    -O2 LLVM IR of the program as the graded build's preprocessor leaves it (program_ir). The
    update is found by what the code does, not by how its statements are written: a write (a
    store, or a copy out of the function's own stack) into memory that is not the function's
    own stack (a buffer on it whose address is published or handed to other threads is not),
    at an address that varies, of a value computed from four or more values read from
    memory, followed through arithmetic, casts, phis, selects, calls of the program's functions
    and the function's own stack (one-element statements, `s += c`, a volatile temporary are
    all one value), and through the branches that choose a value (control dependence: a value
    rebuilt through a `switch` or `if`s on the update's bits, or a function picked from a table
    by them, is the update: a fresh attacker's A10_wash8_twoarrays, 5/5 twice, 2026-12-06).
    Each such write must run in a loop an OpenMP work-sharing construct shares among one whole
    team (`for`, `parallel for`, `loop` as GCC builds it, its schedule static
    or dynamic; a `taskloop`'s tasks), at an address computed from the thread's share of the
    loop's iterations by arithmetic, not by a comparison (u10_decode's `k == 0 ? 1 : m + 1`, 5/5
    before; through a row's pointer read from a table at such an index, `V[i][j]`: R10_rowptr,
    0/5 before); not in `masked`, `master`, `single`, `critical` or `ordered`; its
    region started by a fork with no `num_threads` clause, never run serialized (an `if` clause), from
    code no parallel region runs (not nested); in a helper, every call of it must be so.
    A serial sweep on the master beside a decoy `parallel for` is refused however its statements
    are split (a fresh attacker's L10_split2, 5/5 twice, 2026-12-06). [] when every one is;
    ["no ..."] when the program writes no such value. Where clang is not installed, the text
    rule (text_unshared). A program that refers to ThreadSanitizer's entry points itself is refused:
    the counted build's read and store sites (update_sites) are the instrumentation's calls; so is
    one that calls sscanf, whose stores through its pointers the counted build cannot see."""
    if not split_rmw.clang_present():
        return text_unshared(code)
    try:
        prog = _judged(code)
    except ValueError as err:  # not OpenMP clang reads: the update cannot be judged
        return [str(err)]
    called = sorted(set(_SANITIZER_CALLS.findall(prog.ir)))
    if called:  # clang instruments nothing here: the program's own (update_sites counts them)
        return [f"the program refers to ThreadSanitizer's entry point {called[0]} itself (the kit's counted "
                "build instruments the program's reads and stores; a program makes no such call)"]
    scans = sorted(set(_SCAN_CALLS.findall(prog.ir)))
    if scans:
        return [f"the program calls {scans[0]}, which stores through the pointers its format names where the "
                "kit's count of each thread's writes cannot see them: parse numbers with strtol or strtod"]
    writes = prog.update_writes()
    if not writes:
        return ["no write of the update (an element set from four values read from memory) found"]
    lines = code.splitlines()

    def said(at: str, k: int) -> str:
        m = re.fullmatch(r"cell line (\d+)", at)
        text = " ".join(lines[int(m.group(1)) - 1].split())[:100] if m and int(m.group(1)) <= len(lines) else ""
        return f"{at}{f': `{text}`' if text else ''}, a value made from {k} values read from memory, " \
               "written outside a work-sharing loop of the whole team"
    return list(dict.fromkeys(said(at, k) for n, pos, k, at in writes if not prog.shared(n, pos)))


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


def written_twice(records, rank: int) -> list[tuple[int, int, int]]:
    """(bucket, echoed, changed) of each heap block of `rank` (a "writes" record's bucket > 0, the
    counted build: hl_write_count.h) that its threads wrote more than once per update inside
    parallel regions: the bytes a thread wrote that another thread had already written there
    ("echoed": the value another thread's change left, stored again unchanged, or changed from the
    same value as another thread's last change: both wrote one update) are an eighth or more of
    the bytes changed there, in a block that took a tenth or more of the bytes written. A team
    that shares the update writes each element once per sweep, whatever the schedule; a team
    whose every thread sweeps the whole block writes it once per thread (a fresh attacker's
    L10_G2, 5/5 twice, 2026-12-06: a `parallel for` over one item per thread, each item the
    whole block, the threads racing to write the same values, each the last to change a share).
    [] when none (or the records have no "echoed" counts)."""
    writes = records[(records["record"] == "writes") & (records["rank"].astype(int) == rank)]
    if writes.empty or "echoed" not in writes:
        return []
    writes = writes[writes["bucket"].astype(int) > 0]
    echoed = writes["echoed"].fillna(0).astype(int).groupby(writes["bucket"].astype(int)).sum()
    changed = writes["changed"].fillna(0).astype(int).groupby(writes["bucket"].astype(int)).sum()
    total = int(echoed.sum() + changed.sum())
    return [(int(b), int(echoed[b]), int(changed[b])) for b in changed.index
            if echoed[b] + changed[b] >= total / 10 and echoed[b] > 0 and 8 * echoed[b] >= changed[b]]


def written_serially(records, rank: int, threads: int) -> list[tuple[int, int, list[int]]]:
    """(bucket, serial bytes, bytes by thread, largest first) of each heap block of `rank` (the
    counted build: hl_write_count.h) whose last changes the team did not share with the serial
    part: of the bytes whose last change was a thread's inside a parallel region ("writes" records'
    "owned") or the serial part's (the master outside every parallel region: "serial_writes"
    records), in a block that holds a tenth or more of them, fewer than `threads` threads own at
    least a quarter of an equal share. The grid a program updates on the master alone, its
    statements split so that clang's IR finds no update there, beside a decoy loop the team
    shares (a fresh attacker's W4c, 5/5 twice, 2026-12-07), is the serial part's; a team's
    update leaves it only the boundary it set. Judged from what was written, whatever the IR
    found. [] when none (a block without an owner map, "owned" -1, is not judged)."""
    mine = records[(records["rank"].astype(int) == rank) & records["record"].isin(["writes", "serial_writes"])]
    if mine.empty or "owned" not in mine:
        return []
    mine = mine[mine["bucket"].astype(int) > 0]
    blocks = {}
    for b, group in mine.groupby(mine["bucket"].astype(int)):
        owned, serial = group["owned"].fillna(-1).astype(int), group["record"] == "serial_writes"
        if (owned >= 0).all():
            blocks[int(b)] = (int(owned[serial].sum()), sorted(owned[~serial].tolist(), reverse=True))
    total = sum(alone + sum(by) for alone, by in blocks.values())
    return [(b, alone, by) for b, (alone, by) in blocks.items()
            if alone + sum(by) >= total / 10 and sum(v >= (alone + sum(by)) / (4 * threads) for v in by) < threads]


@functools.lru_cache(maxsize=4)
def jacobi_sweeps(n: int, iterations: int) -> tuple[float, int]:
    """The lab's n x n interior (doubles; the edge i + 2j over 3(n + 1), the interior 0 at first)
    after `iterations` Jacobi sweeps, as the grader computes it: (the interior's sum, the bytes the
    sweeps changed, each sweep's changed elements counted). Each sweep is 0.25 * (((up + down) +
    left) + right), the interior summed as numpy sums an (n + 2) x (n + 2) array's interior view:
    the very values of a fresh copy per sweep, computed in place in two arrays (lab 10's hidden
    test checks each run's checksum with it, update_changes its bytes: one pass for both)."""
    i, j = np.meshgrid(np.arange(n + 2), np.arange(n + 2), indexing="ij")
    edge = (i == 0) | (i == n + 1) | (j == 0) | (j == n + 1)
    u = np.where(edge, (i + 2 * j) / (3.0 * (n + 1)), 0.0)
    v = u.copy()  # the same edge: a sweep writes the interior alone
    same = np.empty((n, n), dtype=bool)
    changed = 0
    for _ in range(iterations):
        inner = v[1:-1, 1:-1]
        np.add(u[:-2, 1:-1], u[2:, 1:-1], out=inner)
        np.add(inner, u[1:-1, :-2], out=inner)
        np.add(inner, u[1:-1, 2:], out=inner)
        np.multiply(inner, 0.25, out=inner)
        changed += int(np.count_nonzero(np.not_equal(inner, u[1:-1, 1:-1], out=same)))
        u, v = v, u
    return float(u[1:-1, 1:-1].sum()), 8 * changed


def update_changes(n: int, iterations: int) -> int:
    """The bytes of the lab's n x n interior (doubles; the edge i + 2j over 3(n + 1), the interior
    0 at first) that `iterations` Jacobi sweeps change, each sweep's changed elements counted:
    what an update that computes every element writes as changes, whoever runs it (jacobi_sweeps)."""
    return jacobi_sweeps(n, iterations)[1]


def changed_serially(records, rank: int, threads: int, update_bytes: float) -> int | None:
    """The bytes the serial part of `rank` changed (the master outside every parallel region, in any
    memory, every change counted: the counted build's "serial_changed" record, hl_write_count.h),
    when they are a quarter of an equal share of a team of `threads` (1/(4T)) or more of
    `update_bytes`, the bytes the update of the rank's rows changes over the run (the grader's
    reference); None when fewer. A grid the master sweeps alone changes as many bytes as the update
    however it is laid out, in one small heap block per row too (a fresh attacker's
    l10_a1_serial_hidden, 5/5 twice, 2026-12-07); a team's update leaves the serial part the
    boundary it set and the halo rows it copies."""
    alone = records[(records["record"] == "serial_changed") & (records["rank"].astype(int) == rank)]
    changed = int(alone["bytes"].astype(int).sum()) if not alone.empty else 0
    return changed if changed >= update_bytes / (4 * threads) else None


def places_unseen(places: list[dict[str, str]], records) -> list[str]:
    """Each place line (a dict of its rank, thread and cpu) whose CPU is not one the kit's tracer
    saw that thread number of that rank run on in the program's parallel regions (its
    "thread_place" records, hl_trace.c), said as "rank R thread T printed cpu=C, ran on 1,0" (or
    "ran on none seen"). A place made up from the rank's CPUs ("the first CPU of the master's
    mask + thread number", a fresh attacker's W2b, 5/5 kept on 2026-12-07) is wrong where the
    grader orders the places otherwise."""
    seen = records[records["record"] == "thread_place"]
    ran = {} if seen.empty else {(int(r), int(t)): [int(c) for c in str(cpus).split(",")]
                                 for r, t, cpus in zip(seen["rank"], seen["thread"], seen["cpus"], strict=True)}
    unseen = []
    for p in places:
        on, cpu = ran.get((int(p["rank"]), int(p["thread"])), []), str(p.get("cpu"))
        if not re.fullmatch(r"\d+", cpu) or int(cpu) not in on:
            unseen.append(f"rank {p['rank']} thread {p['thread']} printed cpu={cpu}, ran on "
                          + (",".join(str(c) for c in on) or "none seen"))
    return unseen


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
