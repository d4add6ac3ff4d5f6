"""An add split across regions (lab 06 (e): into rank_sum), read from the cell's LLVM IR.

Each thread of a rank adds its values into the shared `rank_sum`. A safe add is one
read-modify-write: an atomic update, or the read and the write inside ONE critical section or
lock hold. A split add reads `rank_sum[i]` in one region and writes the value made from it in
another (two named critical sections, a lock released and taken again, an atomic read and an
atomic write): two threads that interleave lose an add, and threads held apart hide it.

The rule, on clang's IR of the cell's unit at -O2 (no sanitizer): memory is `rank_sum`'s when its
pointer derives from node_sum's second argument (through any arithmetic, cast, phi or select,
into helper functions; an address loaded from memory counts as one, so a pointer found by
scanning the stack or the heap is rank_sum's too; once such a pointer is stored to memory or
handed to an unknown routine, every value loaded from memory counts as one). A value read from that memory (a load, or a
call reading through such a pointer: memcpy, MPI) is followed through SSA and through memory (a
spill into a local, a buffer, a global); each hop, from where the value was made to where it is
used, is checked for a path through a region boundary: a critical section's entry or exit, a
lock's set, unset or test, an ordered region, a reduction's lock, any atomic instruction or
fence (a hand-made lock), an indirect call or inline asm, an unknown external routine, or a
cell function that reaches one of them. A store into rank_sum's memory (or a call writing
through such a pointer) whose value depends on a read that crossed a boundary on its way, or a
value read atomically, is a split add. Barriers, masked, master and single are not boundaries:
a master copying a reduction's total into rank_sum after a barrier writes no thread's add.

Control dependence is followed too (a fresh attacker rebuilt the value, or the address written,
bit by bit by branches between the two regions): a phi takes the taint of the branches that
choose its value, and a store, call or return the taint of the branches it runs under (from
post-dominators). An address made from an integer (inttoptr, an offset from null, a constant
address) or chosen by branches on rank_sum's address may be rank_sum's; where it is made from
another object, that object's memory is followed as well. Two refinements keep whole adds
whole: a write of the same address and size as a later read (neither made anew between)
overwrites what an earlier spill left there (a block copied out, added to and copied back in one
critical section), and `buf[k] += x` within one block keeps what the element held in place (its
own writers are followed to each later read). A relaxed atomic (monotonic or unordered) on other
memory is no boundary: it orders nothing, so a lock made of it leaves what it guards racing
under Archer (an `omp atomic` count inside a critical section). Lock routines (omp and POSIX
locks) read nothing from the address they are given, nor keep it: a lock reached through a static
pointer is no unknown routine handed rank_sum. Whether the regions are the SAME for every thread
(one critical name, one lock, all atomic) is lock_identity's rule, on the same IR.
"""

from __future__ import annotations

import re
import shutil
from collections import deque
from dataclasses import dataclass, field

from . import archer, llvm_ir
from .toolchain import toolchain_env

NAME = r'(?:[-\w.$]+|"[^"]*")'
_VALUE = re.compile(rf"[%@]{NAME}")
_RESULT = re.compile(rf"^\s*(%{NAME})\s*=\s*(.*)$")
_LABEL = re.compile(rf"^({NAME}):")
_DEFINE = re.compile(rf"^define\b.*?@({NAME})\((.*)\)[^()]*\{{\s*$")
_TYPE = re.compile(rf"^(%{NAME})\s*=\s*type\b")
_CALLEE = re.compile(rf"\bcall\b.*?([@%]{NAME})\(")
_TERMINATORS = ("br ", "switch ", "ret ", "ret\n", "unreachable", "indirectbr ", "resume ",
                "callbr ", "invoke ")  # fmt: skip
# routines that start or end a region of mutual exclusion (OpenMP's, POSIX's, GOMP's)
_BOUNDARY_CALLS = re.compile(
    r"@(?:__kmpc_(?:critical\w*|end_critical|\w*_lock|reduce\w*|end_reduce\w*|ordered|"
    r"end_ordered|flush|omp_task\w*|omp_taskwait|taskgroup|end_taskgroup)|omp_\w*lock\w*|"
    r"pthread_\w+|sem_\w+|GOMP_\w+|syscall|sched_yield|futex\w*)$")
# routines that neither synchronise threads nor keep a pointer
_PLAIN_CALLS = re.compile(
    r"@(?:llvm\.[\w.]+|hl_traced_P?MPI_\w+|P?MPI_\w+|omp_get_\w+|omp_in_parallel|"
    r"omp_is_initial_device|__kmpc_(?:global_thread_num|barrier|master|end_master|masked|"
    r"end_masked|single|end_single|for_static_init_\w+|for_static_fini|dispatch_\w+|"
    r"push_num_threads|serialized_parallel|end_serialized_parallel)|"
    r"memcpy|memmove|memset|memcmp|malloc|calloc|realloc|free|aligned_alloc|posix_memalign|"
    r"printf|fprintf|snprintf|sprintf|puts|putchar|fputs|fflush|abort|exit|__assert_fail|"
    r"(?:sqrt|fabs|exp|exp2|log|log2|log10|pow|sin|cos|tan|floor|ceil|round|trunc|fma|fmin|"
    r"fmax|fmod|hypot)[fl]?)$")
# routines that act on a lock object only: they read no value from what they are given, nor
# keep its address (a lock reached through a pointer loaded from memory, which counts as
# rank_sum's, is still only a lock)
_LOCK_CALLS = re.compile(
    r"@(?:omp_(?:init|destroy|set|unset|test)_(?:nest_)?lock|pthread_(?:mutex|spin|rwlock)_"
    r"(?:init|destroy|lock|unlock|trylock|timedlock|rdlock|wrlock|tryrdlock|trywrlock|"
    r"timedrdlock|timedwrlock))$")
# intrinsics that touch no memory the rule follows
_NO_OP = re.compile(r"@llvm\.(?:dbg|lifetime|assume|experimental\.noalias|invariant|"
                    r"var\.annotation|stacksave|stackrestore)[\w.]*$")  # fmt: skip
# routines that copy memory: a write into rank_sum from what the source holds
_COPIES = re.compile(r"@(?:llvm\.memcpy[\w.]*|llvm\.memmove[\w.]*|memcpy|memmove)$")
_LOADS_ADDRESS = re.compile(r"\s*%\S+\s*=\s*load\s+(?:atomic\s+)?(?:volatile\s+)?(?:[^,]*\*|ptr|i64)\s*,")
_ATOMIC = re.compile(r"^\s*(?:%\S+\s*=\s*)?(?:load atomic|store atomic|atomicrmw|cmpxchg|fence)\b")
# an atomic's memory orderings: monotonic (relaxed) and unordered make no happens-before edge
_ORDERING = re.compile(r"(?<![%@\w.$-])(unordered|monotonic|acquire|release|acq_rel|seq_cst)\b")
# an address made from an integer: inttoptr (an instruction or a constant), an offset from null
_FROM_INTEGER = re.compile(r"\binttoptr\b|\bgetelementptr\b[^,]*,\s*(?:[^,]*\*|ptr)\s+null\b")
# operations lane by lane: an in-place update of a buffer's element keeps what it held in place
_LANEWISE = re.compile(r"^\s*%\S+\s*=\s*(?:fadd|fsub|fmul|fdiv|frem|fneg|add|sub|mul|and|or|xor)\b"
                       r"|\bcall\b[^@]*@llvm\.(?:fmuladd|fma)\.")

NONE, CLEAN, CROSSED = 0, 1, 2  # a value's taint: not from rank_sum, read in its region, not


@dataclass
class Instr:
    text: str
    result: str | None
    op: str  # load, store, call, phi, atomic-rmw, other, terminator
    operands: list[str]  # SSA values and globals used (types and labels left out)
    pointer: str | None = None  # load/store: the address; call: None
    value: str | None = None  # store: the value stored
    callee: str | None = None
    args: list[str] = field(default_factory=list)  # call: each argument's value ('' constant)
    ptr_args: list[str] = field(default_factory=list)  # call: the arguments that are addresses
    arg_texts: list[str] = field(default_factory=list)  # call: each argument as written
    incoming: list[tuple[str, str]] = field(default_factory=list)  # phi: (value, block)
    successors: list[str] = field(default_factory=list)
    atomic: bool = False
    relaxed: bool = False  # an atomic whose orderings are all monotonic or unordered


@dataclass
class Function:
    name: str
    params: list[str]
    blocks: list[str]
    code: dict[str, list[Instr]]
    where: dict[str, tuple[str, int]] = field(default_factory=dict)  # value -> (block, index)


def _split_top(text: str) -> list[str]:
    """`text` split at its commas outside (), [], {} and <>."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _strip_meta(text: str) -> str:
    """The instruction without its trailing `, !dbg !N` style attachments and alignment."""
    return re.split(r",\s*!(?:dbg|tbaa|llvm\.|range|nonnull|noalias|alias\.scope|prof)", text)[0]


def _last_value(part: str, types: set[str]) -> str:
    found = [v for v in _VALUE.findall(part) if v not in types]
    return found[-1] if found else ""


def _parse_instr(line: str, types: set[str]) -> Instr:
    m = _RESULT.match(line)
    result, body = (m.group(1), m.group(2)) if m else (None, line.strip())
    body = _strip_meta(body)
    values = [v for v in _VALUE.findall(body) if v not in types]
    atomic = bool(_ATOMIC.match(line))
    if body.startswith(_TERMINATORS) or body in ("ret void", "unreachable"):
        succ = [v for v in re.findall(rf"label\s+(%{NAME})", body)]
        return Instr(line, result, "terminator", values, successors=succ)
    if body.startswith("load"):
        parts = _split_top(body)
        ptr = _last_value(parts[1], types) if len(parts) > 1 else ""
        return Instr(line, result, "load", [ptr] if ptr else [], pointer=ptr or "@?", atomic=atomic)
    if body.startswith("store"):
        parts = _split_top(body)
        val = _last_value(parts[0], types)
        ptr = _last_value(parts[1], types) if len(parts) > 1 else ""
        return Instr(line, result, "store", [v for v in (val, ptr) if v], pointer=ptr or "@?",
                     value=val or None, atomic=atomic)  # fmt: skip
    if body.startswith("phi"):
        inc = re.findall(rf"\[\s*([^,\]]+?)\s*,\s*(%{NAME})\s*\]", body)
        pairs = [(v if _VALUE.fullmatch(v) and v not in types else "", b) for v, b in inc]
        return Instr(line, result, "phi", [v for v, _ in pairs if v], incoming=pairs)
    if re.search(r"\bcall\b", body) and (c := _CALLEE.search(body)):
        callee = c.group(1) if " asm " not in body[: c.start(1)] else "asm"
        if re.search(r"\bcall\b[^(]*\basm\b", body):
            callee = "asm"
        inner = body[c.end():]
        depth, end = 1, len(inner)
        for k, ch in enumerate(inner):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                end = k
                break
        parts = _split_top(inner[:end]) if inner[:end].strip() else []
        args = [_last_value(a, types) or ("@?" if _FROM_INTEGER.search(a) else "") for a in parts]
        ptr_args = [a for a, p in zip(args, parts, strict=True)
                    if a and re.match(r"\s*(?:\S+\*|ptr)\s", p)]  # fmt: skip
        return Instr(line, result, "call", [a for a in args if a], callee=callee, args=args,
                     ptr_args=ptr_args, arg_texts=[a.strip() for a in parts])
    if body.startswith(("atomicrmw", "cmpxchg")):
        parts = _split_top(body)
        ptr = _last_value(parts[0], types)
        return Instr(line, result, "rmw", values, pointer=ptr, atomic=True)
    return Instr(line, result, "other", values, atomic=atomic)


def parse(ir: str) -> dict[str, Function]:
    """The IR's defined functions, by name (with its @)."""
    types = {m.group(1) for ln in ir.splitlines() if (m := _TYPE.match(ln))}
    funcs: dict[str, Function] = {}
    cur: Function | None = None
    block = ""
    for ln in ir.splitlines():
        if cur is None:
            if m := _DEFINE.match(ln):
                params = [_last_value(p, types) for p in _split_top(m.group(2))]
                cur = Function("@" + m.group(1), params, ["<entry>"], {"<entry>": []})
                block = "<entry>"
            continue
        if ln.startswith("}"):
            funcs[cur.name] = cur
            cur = None
            continue
        if (m := _LABEL.match(ln)) and not ln.startswith(" "):
            block = "%" + m.group(1)
            cur.blocks.append(block)
            cur.code[block] = []
            continue
        if not ln.strip() or ln.lstrip().startswith(";"):
            continue
        ins = _parse_instr(ln, types)
        orders = _ORDERING.findall(_strip_meta(ln)) if ins.atomic else []
        ins.relaxed = bool(orders) and set(orders) <= {"monotonic", "unordered"} \
            and not ln.lstrip().startswith("fence")
        if ins.result:
            cur.where[ins.result] = (block, len(cur.code[block]))
        cur.code[block].append(ins)
    return funcs



def call_sites(funcs: dict[str, Function]) -> dict[str, list[tuple[Function, tuple[str, int], Instr]]]:
    """Per defined function: every call of it (the calling function, (block, index), the call)."""
    callers: dict[str, list[tuple[Function, tuple[str, int], Instr]]] = {name: [] for name in funcs}
    for f in funcs.values():
        for b in f.blocks:
            for i, ins in enumerate(f.code[b]):
                if ins.op == "call" and ins.callee in funcs:
                    callers[ins.callee].append((f, (b, i), ins))
    return callers

@dataclass
class Control:
    """A function's control dependence: per block, the conditions of the branches that decide
    whether it runs (transitively); per branching block, its condition."""
    condition: dict[str, str]  # block -> the value its conditional branch or switch tests
    over: dict[str, set[str]]  # block -> the branching blocks it depends on (transitively)


def _control(f: Function) -> Control:
    """Control dependence from post-dominators: block B depends on branching block X when B
    post-dominates a successor of X but not X itself. A block that reaches no return counts as
    one that may leave (so a loop without exit keeps its dependences)."""
    succ = {b: [s for s in (f.code[b][-1].successors if f.code[b] else []) if s in f.code]
            for b in f.blocks}  # fmt: skip
    condition = {}
    for b in f.blocks:
        if len(set(succ[b])) > 1:
            last = f.code[b][-1]
            vals = [v for v in last.operands if v in f.where]
            condition[b] = vals[0] if vals else ""
    leaves = {b for b in f.blocks if not succ[b]}
    reach, todo = set(leaves), list(leaves)  # blocks that reach a leaving block
    preds: dict[str, list[str]] = {b: [] for b in f.blocks}
    for b in f.blocks:
        for s in succ[b]:
            preds[s].append(b)
    while todo:
        for q in preds[todo.pop()]:
            if q not in reach:
                reach.add(q)
                todo.append(q)
    exits = leaves | {b for b in f.blocks if b not in reach}
    every = set(f.blocks)
    pdom = {b: ({b} if b in exits else set(every)) for b in f.blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(f.blocks):
            if b in exits:
                continue
            new = {b} | set.intersection(*(pdom[s] for s in succ[b]))
            if new != pdom[b]:
                pdom[b] = new
                changed = True
    direct: dict[str, set[str]] = {b: set() for b in f.blocks}
    for x in condition:
        for s in set(succ[x]):
            for b in pdom[s]:
                if b == x or b not in pdom[x]:
                    direct[b].add(x)
    over = {}
    for b in f.blocks:
        seen, todo = set(), list(direct[b])
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo += direct[x]
        over[b] = seen
    return Control(condition, over)


@dataclass
class Split:
    where: str  # "cell line N"
    what: str


class _Analysis:
    def __init__(self, ir: str, function: str, param: int):
        self.ir = ir
        every = parse(ir)
        # the functions node_sum reaches: called, or named (a routine handed on, an outlined region)
        keep, todo = set(), ["@" + function]
        while todo:
            name = todo.pop()
            if name in keep or name not in every:
                continue
            keep.add(name)
            todo += [v for b in every[name].blocks for ins in every[name].code[b]
                     for v in (*ins.operands, ins.callee or "") if v in every]  # fmt: skip
        self.funcs = {k: v for k, v in every.items() if k in keep}
        self.lines = llvm_ir.cell_lines(ir)
        self.derived: dict[str, set[str]] = {f: {"@?"} for f in self.funcs}  # '@?': a constant
        self.escaped = False  # address (an integer's), which may be rank_sum's
        self.ret_derived: set[str] = set()  # cell functions that may return rank_sum's address
        self.control = {name: _control(fn) for name, fn in self.funcs.items()}
        root = self.funcs.get("@" + function)
        if root is not None and len(root.params) > param and root.params[param]:
            self.derived[root.name].add(root.params[param])
        self.boundary_funcs: set[str] = set()
        self._paths: dict[tuple, bool] = {}
        self._derive()
        self._boundaries()

    # -- which pointers are rank_sum's
    def _is_derived(self, f: Function, v: str) -> bool:
        return bool(v) and v in self.derived[f.name]

    def _other_object(self, f: Function, v: str) -> str:
        """For an address that may be rank_sum's only by what it was made with (an index chosen
        by branches on rank_sum's address, as a vectorised loop's overlap test makes), the other
        object it points into, whose memory is followed too; '' for rank_sum's own."""
        base = self._base(f, v)
        if base == "*" or base.startswith("@?"):
            return ""
        name, _, param = base.partition(":")
        return "" if name == f.name and param in f.params and param in self.derived[f.name] \
            else base

    def _phi_conditions(self, f: Function, ins: Instr) -> list[str]:
        """The conditions deciding which value a phi takes: the branches each incoming edge
        depends on, and the incoming block's own branch."""
        ctl = self.control[f.name]
        blocks = set()
        for _, blk in ins.incoming:
            if blk in ctl.over:
                blocks |= ctl.over[blk] | ({blk} & set(ctl.condition))
        return [ctl.condition[b] for b in blocks if ctl.condition.get(b)]

    def _pc(self, f: Function, pos: tuple[str, int]) -> int:
        """The taint of the decision to run the instruction at `pos`: the conditions of the
        branches its block depends on, each as used there (a value built by branches on a value
        read from rank_sum carries that read)."""
        ctl = self.control[f.name]
        return max([self._hop(f, ctl.condition[b], pos) for b in ctl.over.get(pos[0], ())
                    if ctl.condition.get(b)] + [NONE])  # fmt: skip

    def _derive(self) -> None:
        changed = True
        while changed:
            changed = False
            for f in self.funcs.values():
                d = self.derived[f.name]
                for b in f.blocks:
                    for ins in f.code[b]:
                        new = False
                        if ins.op == "load":  # an address loaded from memory may be one (found
                            # on the stack or the heap); once rank_sum's escaped, anything loaded
                            new = self.escaped or bool(_LOADS_ADDRESS.match(ins.text))
                        elif ins.op == "store":
                            if ins.value in d and not self.escaped:
                                self.escaped = changed = True
                        elif ins.op == "terminator":
                            if ins.text.lstrip().startswith("ret ") and f.name not in \
                                    self.ret_derived and any(v in d for v in ins.operands):
                                self.ret_derived.add(f.name)
                                changed = True
                        elif ins.op == "call":
                            hit = [k for k, a in enumerate(ins.args) if a in d]
                            if hit and ins.callee in self.funcs:
                                callee = self.funcs[ins.callee]
                                for k in hit:
                                    if k < len(callee.params) and callee.params[k] and \
                                            callee.params[k] not in self.derived[callee.name]:
                                        self.derived[callee.name].add(callee.params[k])
                                        changed = True
                            elif hit and not _PLAIN_CALLS.search(ins.callee or "") and \
                                    not _LOCK_CALLS.search(ins.callee or "") and not self.escaped:
                                self.escaped = changed = True  # kept where the kit cannot see
                            new = bool(hit) or ins.callee in self.ret_derived
                        elif ins.op in ("phi", "other"):
                            # an address from an integer may be any object; a value chosen by
                            # branches on rank_sum's address (rebuilt bit by bit) is one too
                            new = any(v in d for v in ins.operands) or \
                                bool(_FROM_INTEGER.search(_strip_meta(ins.text))) or \
                                (ins.op == "phi" and any(
                                    c in d for c in self._phi_conditions(f, ins)))
                        if new and ins.result and ins.result not in d:
                            d.add(ins.result)
                            changed = True

    # -- where regions start and end
    def _boundaries(self) -> None:
        changed = True
        while changed:
            changed = False
            for f in self.funcs.values():
                if f.name in self.boundary_funcs:
                    continue
                if any(self._is_boundary(f, ins) for b in f.blocks for ins in f.code[b]):
                    self.boundary_funcs.add(f.name)
                    changed = True

    def _is_boundary(self, f: Function, ins: Instr) -> bool:
        if ins.atomic or ins.text.lstrip().startswith("fence"):
            # a relaxed atomic on other memory (a counter: `omp atomic` is relaxed) orders
            # nothing, so no lock is made of it: what it would guard Archer sees race
            return not (ins.relaxed and ins.pointer and ins.pointer not in self.derived[f.name])
        if ins.op != "call":
            return False
        c = ins.callee or ""
        if c == "asm" or c.startswith("%"):
            return True  # inline asm, a routine through a pointer
        if c in self.funcs:
            return c in self.boundary_funcs
        if _NO_OP.search(c) or _PLAIN_CALLS.search(c):
            return False
        return True  # a synchronising routine (_BOUNDARY_CALLS) or one the kit does not know

    # -- paths
    def _crosses(self, f: Function, start: tuple[str, int], target: tuple[str, int],
                 revisit: bool = False, cover: bool = False) -> bool:
        """A path from the instruction at `start` to the one at `target` (exclusive both) passing
        a boundary; unless `revisit`, paths through `start` again do not count (the value or
        the memory is made anew there). With `cover`, a path on which a write overwrites all
        that `target` reads (the same address and size, neither made anew before `target`)
        does not count: what `start` wrote is gone."""
        key = (f.name, start, target, revisit, cover)
        if key not in self._paths:
            covers, anew = self._covers(f, target) if cover else (set(), set())
            self._paths[key] = self._search(f, start, target, revisit, covers, anew)
        return self._paths[key]

    def _search(self, f: Function, start: tuple[str, int], target: tuple[str, int],
                revisit: bool, covers: set = frozenset(), anew: set = frozenset()) -> bool:
        seen = set()
        queue = deque()

        def nexts(pos):
            b, i = pos
            if i + 1 < len(f.code[b]):
                return [(b, i + 1)]
            return [(s, 0) for s in f.code[b][-1].successors if s in f.code] if f.code[b] else []

        for n in nexts(start):
            queue.append((n, False, False))
        while queue:
            pos, crossed, covered = queue.popleft()
            if (pos, crossed, covered) in seen:
                continue
            seen.add((pos, crossed, covered))
            if pos == target:
                if crossed and not covered:
                    return True
                continue
            if pos == start and not revisit:
                continue
            ins = f.code[pos[0]][pos[1]]
            now = crossed or self._is_boundary(f, ins)
            held = (covered and pos not in anew) or pos in covers
            for n in nexts(pos):
                queue.append((n, now, held))
        return False

    def _root(self, f: Function, v: str) -> str:
        """An address without its casts (the same memory under another type)."""
        for _ in range(20):
            if v not in f.where:
                break
            b, i = f.where[v]
            ins = f.code[b][i]
            if not re.search(r"=\s*(?:bitcast|addrspacecast)\b", ins.text) or not ins.operands:
                break
            v = ins.operands[0]
        return v

    def _access(self, f: Function, ins: Instr, reads: bool) -> tuple[str, str, str] | None:
        """What an instruction reads (or writes): (its address's root, the size, the size's
        value when it is one), for a plain load or store, or a copy (or memset) call."""
        if ins.op in ("load", "store") and not ins.atomic and ins.pointer in f.where:
            if ins.op != ("load" if reads else "store"):
                return None
            first = _split_top(_strip_meta(_RESULT.sub(r"\2", ins.text)).strip())[0].split(None, 1)
            size = first[1] if ins.op == "load" else first[1].rsplit(" ", 1)[0]
            return self._root(f, ins.pointer), size.strip(), ""
        if ins.op == "call" and (_COPIES.search(ins.callee or "") or (
                not reads and re.search(r"@(?:llvm\.memset[\w.]*|memset)$", ins.callee or ""))):
            if len(ins.args) < 3 or not ins.args[0 if not reads else 1]:
                return None
            size = ins.arg_texts[2] if len(ins.arg_texts) > 2 else "?"
            size_value = ins.args[2] if ins.args[2] in f.where else ""
            return self._root(f, ins.args[0 if not reads else 1]), size.strip(), size_value
        return None

    def _covers(self, f: Function, at: tuple[str, int]) -> tuple[set, set]:
        """The writes that overwrite all the instruction at `at` reads (the same address root and
        size), and where those values are made anew (after which a write made before no longer
        covers)."""
        read = self._access(f, f.code[at[0]][at[1]], True)
        if read is None or read[0] == "@?" or not (read[0] in f.where or read[0] in f.params
                                                    or read[0].startswith("@")):
            return set(), set()
        root, size, size_value = read
        covers = {(b, i) for b in f.blocks for i, ins in enumerate(f.code[b])
                  if (w := self._access(f, ins, False)) and w[0] == root and w[1] == size}
        anew = {f.where[v] for v in (root, size_value) if v in f.where}
        return covers, anew

    def _base(self, f: Function, v: str, depth: int = 0) -> str:
        """The object an address points into: a global, an alloca, a parameter, a routine's
        result; '*' for a pointer loaded from memory (any object). A helper's parameter is its
        own object: what a call hands a helper is followed at the call (the call keeps a value
        read from rank_sum anywhere, '*')."""
        if not v or v.startswith("@"):
            return v or "*"
        if v not in f.where:
            return f"{f.name}:{v}" if v in f.params else "*"
        b, i = f.where[v]
        ins = f.code[b][i]
        if depth > 20 or ins.op in ("load", "phi"):
            return "*" if ins.op == "load" or depth > 20 else self._phi_base(f, ins, depth)
        if ins.op == "call" or re.search(r"=\s*alloca\b", ins.text):
            return f"{f.name}:{v}"
        if re.search(r"=\s*select\b", ins.text):
            bases = {self._base(f, o, depth + 1) for o in ins.operands[1:]}
            return bases.pop() if len(bases) == 1 else "*"
        return self._base(f, ins.operands[0], depth + 1) if ins.operands else "*"

    def _phi_base(self, f: Function, ins: Instr, depth: int) -> str:
        bases = {self._base(f, v, depth + 1) for v, _ in ins.incoming if v}
        return bases.pop() if len(bases) == 1 else "*"

    def run(self) -> list[Split]:
        """The split writes: a fixpoint of every value's taint and every spill, then one pass
        that names each write into rank_sum from a value that crossed a boundary."""
        self.taint: dict[tuple[str, str], int] = {}
        self.spills: dict[str, dict[tuple[str, str, int], int]] = {}  # base -> {(f, b, i): s}
        self.returns: dict[str, int] = {}  # a cell function's returned value's taint
        self.found: dict[tuple[str, str, int], Split] = {}
        for final in (False, True):
            changed = True
            while changed:
                changed = False
                for f in self.funcs.values():
                    for b in f.blocks:
                        for i, ins in enumerate(f.code[b]):
                            changed |= self._step(f, ins, (b, i), final)
                if final:
                    break
        return list(self.found.values())

    def _hop(self, f: Function, v: str, at: tuple[str, int]) -> int:
        """The taint of SSA value `v` as it is used at `at`."""
        s = self.taint.get((f.name, v), NONE)
        if s != CLEAN:
            return s
        return CROSSED if self._crosses(f, f.where[v], at) else CLEAN

    def _mem(self, f: Function, base: str, at: tuple[str, int]) -> int:
        """The taint of what is read from object `base` at `at`: every spill into it (any spill
        for '*'), crossed when a path from the spill to here passes a boundary (or the spill was
        made in another function)."""
        state = NONE
        read = self._access(f, f.code[at[0]][at[1]], True)
        cover = read is not None and self._base(f, read[0]) == base
        for key, recs in self.spills.items():
            if key != base and "*" not in (key, base):
                continue
            for (fn, b, i), s in recs.items():
                if fn != f.name or s == CROSSED or \
                        self._crosses(f, (b, i), at, revisit=True, cover=cover):
                    return CROSSED
                state = max(state, s)
        return state

    def _spill(self, f: Function, base: str, pos: tuple[str, int], s: int) -> bool:
        recs = self.spills.setdefault(base, {})
        key = (f.name, *pos)
        if s > recs.get(key, NONE):
            recs[key] = s
            return True
        return False

    def _set(self, f: Function, v: str | None, s: int) -> bool:
        if v and s > self.taint.get((f.name, v), NONE):
            self.taint[(f.name, v)] = s
            return True
        return False

    def _refuse(self, f: Function, ins: Instr, pos: tuple[str, int], through: str = "") -> None:
        what = ("rank_sum written from a value read before, in another critical section, lock "
                "hold or atomic" + (f" (through {through.lstrip('@')})" if through else ""))
        self.found.setdefault((f.name, *pos), Split(llvm_ir.where(ins.text, self.lines), what))

    def _inputs(self, f: Function, ins: Instr, pos: tuple[str, int], skip: str = "") -> int:
        """The taint a call takes in: its arguments' values and what its addresses hold (but
        rank_sum's own memory and the address `skip`)."""
        d = self.derived[f.name]
        s = max([self._hop(f, a, pos) for a in ins.args if a in f.where] + [NONE])
        return max([s] + [self._mem(f, self._base(f, a), pos) for a in ins.ptr_args
                          if a not in d and a != skip])  # fmt: skip

    def _in_place(self, f: Function, ins: Instr, pos: tuple[str, int]) -> int | None:
        """A store of a value made lane by lane (adds, products) in its block from a load of the
        same address and size, with no boundary between them (`buf[k] += x`): the taint of what
        it adds (the rest of the value, the branches), what the element held staying where it
        was (its writers, followed to each later read). None when the store is no such update."""
        b = pos[0]
        if ins.atomic or not ins.value or f.where.get(ins.value, ("",))[0] != b:
            return None
        me = self._access(f, ins, False)
        if me is None:
            return None
        leaves, found, todo, seen = [], False, [ins.value], set()
        while todo:
            v = todo.pop()
            if v in seen:
                continue
            seen.add(v)
            if v not in f.where or f.where[v][0] != b or f.where[v][1] >= pos[1]:
                leaves.append(v)
                continue
            k = f.where[v][1]
            src = f.code[b][k]
            if src.op == "load" and self._access(f, src, True) == me and not any(
                    self._is_boundary(f, x) for x in f.code[b][k + 1:pos[1]]):
                found = True  # what the element held: its own writers are followed
            elif src.op in ("other", "call") and _LANEWISE.search(_strip_meta(src.text)):
                todo += [a for a in (src.args if src.op == "call" else src.operands) if a]
            else:
                leaves.append(v)
        if not found:
            return None
        return max([self._hop(f, v, pos) for v in leaves if v in f.where] + [self._pc(f, pos)])

    def _step(self, f: Function, ins: Instr, pos: tuple[str, int], final: bool) -> bool:
        d = self.derived[f.name]
        changed = False
        if ins.op == "load":
            if ins.pointer in d:  # a read of rank_sum (an atomic one is a region of its own)
                other = self._other_object(f, ins.pointer)  # or of the object it is made from
                s = self._mem(f, other, pos) if other else NONE
                changed |= self._set(f, ins.result, max(s, CROSSED if ins.atomic else CLEAN))
            else:
                changed |= self._set(f, ins.result, self._mem(f, self._base(f, ins.pointer), pos))
        elif ins.op == "rmw":
            s = max([self._hop(f, v, pos) for v in ins.operands
                     if v in f.where and v != ins.pointer] + [self._pc(f, pos)])  # fmt: skip
            if ins.pointer in d:
                changed |= self._set(f, ins.result, CROSSED)
                if final and s and re.search(r"\batomicrmw\s+(?:volatile\s+)?xchg\b", ins.text):
                    self._refuse(f, ins, pos)  # an exchange writing a value read before
            elif s:  # an exchange or an update keeps the value in that memory
                changed |= self._spill(f, self._base(f, ins.pointer), pos, s)
        elif ins.op == "store":
            s = self._hop(f, ins.value, pos) if ins.value and ins.value in f.where else NONE
            s = max(s, self._pc(f, pos))  # a store made or not by a branch on a value read
            kept = self._in_place(f, ins, pos)
            s = s if kept is None else kept
            if ins.pointer in d:
                if final and (s == CROSSED or (s and ins.atomic)):
                    self._refuse(f, ins, pos)
                other = self._other_object(f, ins.pointer)  # it may be that object's still
                if other and s:
                    changed |= self._spill(f, other, pos, s)
            elif s:
                changed |= self._spill(f, self._base(f, ins.pointer), pos, s)
        elif ins.op == "phi":
            s = NONE
            for v, blk in ins.incoming:
                if v and v in f.where and blk in f.code and f.code[blk]:
                    s = max(s, self._hop(f, v, (blk, len(f.code[blk]) - 1)))
            for c in self._phi_conditions(f, ins):  # which value: decided by those branches
                s = max(s, self._hop(f, c, pos))
            changed |= self._set(f, ins.result, s)
        elif ins.op == "terminator":
            vals = [v for v in ins.operands if v in f.where]
            if ins.text.lstrip().startswith("ret ") and vals:
                s = max(self._hop(f, vals[0], pos), self._pc(f, pos))
                if s > self.returns.get(f.name, NONE):
                    self.returns[f.name] = s
                    changed = True
        elif ins.op == "call":
            changed |= self._call(f, ins, pos, final)
        elif ins.op == "other":
            s = max([self._hop(f, v, pos) for v in ins.operands if v in f.where] + [NONE])
            changed |= self._set(f, ins.result, s)
        return changed

    def _call(self, f: Function, ins: Instr, pos: tuple[str, int], final: bool) -> bool:
        d = self.derived[f.name]
        c = ins.callee or ""
        if _NO_OP.search(c):
            return False
        changed = False
        boundary = self._is_boundary(f, ins)
        reads = any(a in d for a in ins.args) and not _LOCK_CALLS.search(c)  # rank_sum handed on
        pc = self._pc(f, pos)  # called or not by a branch on a value read
        if c in self.funcs:  # a function of the cell's: its own reads and writes are followed in it
            s_in = max(self._inputs(f, ins, pos), pc)
            if final and reads and (s_in == CROSSED or (boundary and s_in)):
                self._refuse(f, ins, pos, c)
            res = max(self.returns.get(c, NONE), s_in)
            changed |= self._set(f, ins.result, CROSSED if boundary and res else res)
            if s_in:  # the value may be kept anywhere
                changed |= self._spill(f, "*", pos, CROSSED if boundary else s_in)
            inner = max([s for recs in self.spills.values() for (fn, _, _), s in recs.items()
                         if fn == c] + [NONE])  # fmt: skip
            if inner:
                for a in ins.ptr_args:
                    if a not in d:
                        changed |= self._spill(f, self._base(f, a), pos,
                                               CROSSED if boundary else inner)  # fmt: skip
        elif not _PLAIN_CALLS.search(c):  # unknown, indirect, asm: a boundary that may keep all
            s_in = max(self._inputs(f, ins, pos), pc)
            if final and reads and s_in:
                self._refuse(f, ins, pos, c)
            if s_in or reads:
                changed |= self._set(f, ins.result, CROSSED)
                changed |= self._spill(f, "*", pos, CROSSED)
        else:  # MPI, libc, libm, an intrinsic: reads what it is given, writes where it points
            s_args = max([self._hop(f, a, pos) for a in ins.args if a in f.where] + [pc])
            whole = max(s_args, self._inputs(f, ins, pos), CLEAN if reads else NONE)
            changed |= self._set(f, ins.result, whole)
            for a in ins.ptr_args:
                if a in d:
                    continue
                others = max(s_args, self._inputs(f, ins, pos, skip=a), CLEAN if reads else NONE)
                if others:
                    changed |= self._spill(f, self._base(f, a), pos, others)
            if final and reads and c.startswith("@llvm.") and s_args == CROSSED:
                self._refuse(f, ins, pos, c)  # a vector or masked store of the value
            elif final and _COPIES.search(c) and len(ins.ptr_args) >= 2 and ins.args[0] in d:
                src = ins.args[1]
                s = max(self._hop(f, src, pos) if src in f.where else NONE, pc,
                        self._mem(f, self._base(f, src), pos) if src not in d else NONE)
                if s == CROSSED:
                    self._refuse(f, ins, pos, c)
        return changed


def clang_present() -> bool:
    """Whether clang, which the rule reads the IR from, is installed."""
    return shutil.which(archer.COMPILER, path=toolchain_env().get("PATH")) is not None


def gcc_view(lines: list[tuple[int, str]], code: str) -> str:
    """The cell as the graded build's compiler sees it, for clang to compile: its lines after
    the wrapper's preprocessing (`lines`: runs.student_c.preprocessed_lines, macros expanded,
    so `#ifdef __clang__` or a `__GNUC__` test is settled as in the graded build, not as clang
    would settle it), each at its own cell line, after the cell's own #include lines (system
    and MPI headers only, the kit checks)."""
    includes = [(k, ln) for k, ln in enumerate(code.splitlines(), 1)
                if re.match(r"\s*#\s*include\b", ln)]  # fmt: skip
    out, at = [], 1
    for number, text in sorted([*includes, *lines], key=lambda x: x[0]):
        if number != at:
            out.append(f'#line {number} "cell"')
        out.append(text)
        at = number + 1
    return "\n".join(out) + "\n"


def split_writes(ir: str, function: str = "node_sum", param: int = 1) -> list[str]:
    """Each store (or call) writing into the memory of `function`'s argument `param` a value
    read from that memory in another region (or read or written atomically apart): "cell line
    N: what" each, in the IR's order."""
    return list(dict.fromkeys(f"{s.where}: {s.what}" for s in _Analysis(ir, function, param).run()))
