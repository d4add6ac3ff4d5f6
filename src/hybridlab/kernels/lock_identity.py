"""Which lock guards an add (lab 06 (e): into rank_sum), read from the cell's LLVM IR.

split_rmw checks that each add's read and write sit in ONE region; this module checks that the
regions exclude the threads from each other. A critical section, a lock hold or an atomic keeps
two adds apart only when both use the same one: thread 0's adds in `critical(even)` and the
others' in `critical(odd)`, or each thread holding its own `omp_lock_t`, exclude nothing, and
Archer (which sees each lock as a happens-before edge) reports no race between them.

The rule, on clang's IR of the cell at -O2 (as split_rmw reads it): for each write into
rank_sum's memory (split_rmw's derivation: a store, an atomic, a memcpy/memset, in node_sum or
a cell helper), the regions that hold there, per path (held on every path: `must`; on some:
`may`), a helper's holds taken from its callers and a call's from what the helper takes and
lets go: a critical section by its name, a lock by its address (`omp_set_lock`,
`omp_set_nest_lock`, `omp_test_lock`, `pthread_mutex_lock`, `pthread_spin_lock`, a POSIX write
lock; a read lock excludes nothing), an atomic write by itself. Writes held by nothing are left
to Archer (a master's copy after a barrier). The writes held by something must all share one
region held on every path: one critical name, one lock, or all atomic; else refused. A lock
counts only when its address is the same for every thread: not made from the thread's identity
(omp_get_thread_num, __kmpc_global_thread_num or any routine's result but a pure one: a thread
id, a cpu, a clock, a random draw, a ticket from an atomic), nor from the thread's own storage
(a stack variable, a _Thread_local or threadprivate global), nor from per-thread data (node_sum's
`mine`), nor from memory written with such a value (followed through globals, helpers'
parameters, copies), nor chosen by a branch on one (phis take their branches' taint), nor a
helper's parameter bound to different locks at different calls. Striped locks (`lk[i % 8]`,
each element always the same lock) and one global lock, or one reached through a static
pointer set once, are the same for every thread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import llvm_ir
from .split_rmw import _COPIES, _PLAIN_CALLS, Function, Instr, _Analysis, _strip_meta, call_sites

_CRITICAL_ENTER = re.compile(r"@__kmpc_critical(?:_with_hint)?$")
_CRITICAL_EXIT = re.compile(r"@__kmpc_end_critical$")
_LOCK = re.compile(r"@(?:omp_(?:set|test)_(?:nest_)?lock|pthread_mutex_(?:lock|trylock|timedlock)|"
                   r"pthread_spin_(?:lock|trylock)|pthread_rwlock_(?:wr|trywr|timedwr)lock|"
                   r"sem_(?:wait|trywait|timedwait))$")  # fmt: skip
_READ_LOCK = re.compile(r"@pthread_rwlock_(?:rd|tryrd|timedrd)lock$")
_UNLOCK = re.compile(r"@(?:omp_unset_(?:nest_)?lock|pthread_mutex_unlock|pthread_spin_unlock|"
                     r"pthread_rwlock_unlock|sem_post)$")  # fmt: skip
# routines whose result is the same on every thread for the same arguments
_PURE = re.compile(r"@(?:llvm\.(?:s|u)?(?:max|min|abs|fshl|fshr|ctpop|ctlz|cttz|bswap|bitreverse|"
                   r"fabs|sqrt|floor|ceil|trunc|round|rint|nearbyint|fma|fmuladd|copysign|minnum|"
                   r"maxnum|[su](?:add|sub|mul)\.with\.overflow|[su](?:add|sub)\.sat)[\w.]*|"
                   r"(?:sqrt|fabs|floor|ceil|round|trunc|fmod|fmin|fmax|abs|labs|llabs)[fl]?)$")
# routines that write no value a lock could be chosen by (locks themselves, MPI, output)
_NO_SPILL = re.compile(r"@(?:omp_\w*lock\w*|pthread_(?:mutex|spin|rwlock)_\w+|sem_\w+|"
                       r"hl_traced_P?MPI_\w+|P?MPI_\w+|printf|fprintf|puts|fputs|fflush|"
                       r"llvm\.(?:dbg|lifetime|assume)[\w.]*)$")  # fmt: skip
_TLS = re.compile(r"^(@[-\w.$]+|@\"[^\"]*\")\s*=.*\bthread_local\b")
_CRITICAL_NAME = re.compile(r"@\.gomp_critical_user_(.*)\.var$")

ATOMIC = ("atomic", "")


@dataclass
class _Guarded:
    where: str
    may: frozenset
    must: frozenset
    function: str
    element: frozenset  # the write's element index (and its casts): the same element, the same lock


class _Locks:
    def __init__(self, ir: str, function: str, param: int, data: int):
        self.a = _Analysis(ir, function, param)
        self.funcs = self.a.funcs
        self.root = "@" + function
        # functions whose address is taken: called from anywhere, with rank_sum at any argument
        # an indirect call hands rank_sum's address to
        self.named = {v for f in self.funcs.values() for b in f.blocks for ins in f.code[b]
                      for v in ins.operands if v in self.funcs and v != ins.callee}
        handed = {k for f in self.funcs.values() for b in f.blocks for ins in f.code[b]
                  if ins.op == "call" and (ins.callee or "%").startswith(("%", "asm"))
                  for k, v in enumerate(ins.args) if v in self.a.derived[f.name]}
        for name in self.named:
            g = self.funcs[name]
            self.a.derived[name] |= {g.params[k] for k in handed if k < len(g.params) and g.params[k]}
        if handed and self.named:
            self.a._derive()
        self.tls = {m.group(1) for ln in ir.splitlines() if (m := _TLS.match(ln))}
        self.callers = call_sites(self.funcs)
        root = self.funcs.get(self.root)
        self.data = root.params[data] if root is not None and len(root.params) > data else ""
        self.lock_sites: dict[tuple, list[tuple[Function, Instr, str]]] = {}
        self._taint()

    # -- which values differ between the threads
    def _bases(self, f: Function, v: str, depth: int = 0) -> set[str]:
        """The objects an address may point into; a helper's parameter: its callers' objects."""
        base = self.a._base(f, v)
        name, _, param = base.partition(":")
        if name == f.name and param in f.params and f.name != self.root:
            if depth > 6 or not self.callers.get(f.name):
                return {"*"}
            k = f.params.index(param)
            out: set[str] = set()
            for g, _, call in self.callers[f.name]:
                arg = call.args[k] if k < len(call.args) else ""
                out |= self._bases(g, arg, depth + 1) if arg else {"*"}
            return out
        return {base}

    def _is_alloca(self, f: Function, base: str) -> bool:
        """Whether object `base` is a local of its function's (`f`: unused, any function's)."""
        name, _, v = base.partition(":")
        g = self.funcs.get(name)
        if g is None or v not in g.where:
            return False
        b, i = g.where[v]
        return bool(re.search(r"=\s*alloca\b", g.code[b][i].text))

    def _taint(self) -> None:
        """T: values that may differ between the threads of a rank; S: addresses of a thread's
        own storage (its stack); memory: the objects written with such a value ('*': any)."""
        self.T: set[tuple[str, str]] = set()
        self.S: set[tuple[str, str]] = set()
        self.memory: set[str] = set()
        self.returns: dict[str, set[str]] = {}  # function -> {"T", "S"}
        if self.data:
            self.T.add((self.root, self.data))
        changed = True
        while changed:
            changed = False
            for f in self.funcs.values():
                for b in f.blocks:
                    for i, ins in enumerate(f.code[b]):
                        changed |= self._taint_step(f, ins, (b, i))

    def _t(self, f: Function, v: str) -> bool:
        return bool(v) and ((f.name, v) in self.T or v in self.tls)

    def _s(self, f: Function, v: str) -> bool:
        return bool(v) and (f.name, v) in self.S

    def _taint_params(self, f, callee, args) -> bool:
        """The callee's parameters take the thread (T) and own-storage (S) taints of the
        arguments `f` hands them; whether any changed."""
        changed = False
        for k, a in enumerate(args):
            if a and k < len(callee.params) and callee.params[k]:
                if self._t(f, a):
                    changed |= self._add(self.T, callee, callee.params[k])
                if self._s(f, a):
                    changed |= self._add(self.S, callee, callee.params[k])
        return changed

    def _add(self, which: set, f: Function, v: str | None) -> bool:
        if v and (f.name, v) not in which:
            which.add((f.name, v))
            return True
        return False

    def _spill(self, f: Function, ptr: str) -> bool:
        new = self._bases(f, ptr) - self.memory
        self.memory |= new
        return bool(new)

    def _held_memory(self, f: Function, ptr: str) -> bool:
        if "*" in self.memory:
            return True
        bases = self._bases(f, ptr)
        return bool(bases & self.memory) or ("*" in bases and bool(self.memory))

    def _constant(self, f: Function, v: str, depth: int = 0) -> bool:
        """Whether `v` is made of constants and globals' addresses only."""
        if not v or v.startswith("@"):
            return v not in self.tls
        if v not in f.where or depth > 12:
            return False
        ins = f.code[f.where[v][0]][f.where[v][1]]
        return ins.op == "other" and not re.search(r"=\s*alloca\b", ins.text) and \
            all(self._constant(f, o, depth + 1) for o in ins.operands)

    def _one_thread(self, f: Function, pos: tuple[str, int]) -> bool:
        """Whether the instruction runs on one thread only: under a branch on a single's, a
        masked's or a master's entry call."""
        ctl = self.a.control[f.name]
        for x in ctl.over.get(pos[0], ()):
            v, seen = ctl.condition.get(x, ""), 0
            while v in f.where and seen < 8:
                ins = f.code[f.where[v][0]][f.where[v][1]]
                if ins.op == "call":
                    if re.search(r"@__kmpc_(?:single|masked|master)$", ins.callee or ""):
                        return True
                    break
                if ins.op != "other" or not ins.operands:
                    break
                v, seen = ins.operands[0], seen + 1
        return False

    def _taint_step(self, f: Function, ins: Instr, pos: tuple[str, int]) -> bool:
        changed = False
        vals = [v for v in ins.operands if v]
        if ins.op == "load":
            p = ins.pointer or ""
            bases = self._bases(f, p)
            own = all(self._is_alloca(f, x) for x in bases)  # a local's value: what was stored
            if (self._t(f, p) and not own) or self._held_memory(f, p) or \
                    any(x in self.tls for x in bases):
                changed |= self._add(self.T, f, ins.result)
        elif ins.op == "store" and ins.pointer:
            v = ins.value or ""
            bases = self._bases(f, ins.pointer)
            shared = not any(self._is_alloca(f, x) or x in self.tls for x in bases)
            one = shared and self._one_thread(f, pos)  # the value every thread then reads
            # a floating value stored through an address loaded from memory (an add through a
            # published pointer) is no lock's address: only named objects keep it for a lock
            number = re.match(r"\s*store\s+(?:atomic\s+)?(?:volatile\s+)?<?(?:\d+\s*x\s*)?"
                              r"(?:half|bfloat|float|double|x86_fp80|fp128)\b", ins.text)
            if (self._t(f, v) or self._s(f, v)) and not one and not (number and "*" in bases):
                changed |= self._spill(f, ins.pointer)
            elif shared and not one and "*" not in bases and not self._constant(f, v):
                changed |= self._spill(f, ins.pointer)  # a shared counter: a ticket per thread
        elif ins.op == "rmw":  # an atomic's old value: a ticket, different on every thread
            changed |= self._add(self.T, f, ins.result)
            if any(self._t(f, v) or self._s(f, v) for v in vals if v != ins.pointer) and ins.pointer:
                changed |= self._spill(f, ins.pointer)
        elif ins.op == "phi":
            if any(self._t(f, v) for v, _ in ins.incoming if v) or \
                    any(self._t(f, c) for c in self.a._phi_conditions(f, ins)):
                changed |= self._add(self.T, f, ins.result)
            if any(self._s(f, v) for v, _ in ins.incoming if v):
                changed |= self._add(self.S, f, ins.result)
        elif ins.op == "other":
            if re.search(r"=\s*alloca\b", ins.text):
                changed |= self._add(self.S, f, ins.result)
            if any(self._t(f, v) for v in vals):
                changed |= self._add(self.T, f, ins.result)
            if any(self._s(f, v) for v in vals):
                changed |= self._add(self.S, f, ins.result)
        elif ins.op == "terminator":
            if ins.text.lstrip().startswith("ret ") and vals:
                kinds = self.returns.setdefault(f.name, set())
                new = ({"T"} if self._t(f, vals[0]) else set()) | \
                    ({"S"} if self._s(f, vals[0]) else set())
                if new - kinds:
                    kinds |= new
                    changed = True
        elif ins.op == "call":
            c = ins.callee or ""
            if c.startswith(("%", "asm")):  # an indirect call: any function whose address is taken
                for name in self.named:
                    changed |= self._taint_params(f, self.funcs[name], ins.args)
            if c in self.funcs:
                changed |= self._taint_params(f, self.funcs[c], ins.args)
                kinds = self.returns.get(c, set())
                if "T" in kinds:
                    changed |= self._add(self.T, f, ins.result)
                if "S" in kinds:
                    changed |= self._add(self.S, f, ins.result)
            elif _COPIES.search(c) and len(ins.args) >= 2:
                src, dst = ins.args[1], ins.args[0]
                if dst and src and ((self._t(f, src) and not all(
                        self._is_alloca(f, x) for x in self._bases(f, src)))
                        or self._held_memory(f, src)):
                    changed |= self._spill(f, dst)
            elif not _PURE.search(c):  # a thread id, a cpu, a clock, a draw, or unknown
                if not re.match(r"@llvm\.(?:dbg|lifetime|assume|memset)", c):
                    changed |= self._add(self.T, f, ins.result)
                if not _NO_SPILL.search(c) and not _PLAIN_CALLS.search(c):
                    for a in ins.ptr_args:
                        changed |= self._spill(f, a)
            elif any(self._t(f, a) for a in ins.args if a):
                changed |= self._add(self.T, f, ins.result)
        return changed

    # -- a lock's identity
    def _key(self, f: Function, v: str, depth: int = 0) -> str:
        """The address `v` as an expression: the same text for the same lock on every path."""
        if not v or v.startswith("@") or depth > 12:
            return v or "?"
        if v in f.params:
            if f.name in self.named:  # called through a pointer: from anywhere, with anything
                return f"varying {f.name}:{v}"
            if f.name == self.root or not self.callers.get(f.name):
                return f"{f.name}:{v}"
            k = f.params.index(v)
            keys = {self._key(g, call.args[k] if k < len(call.args) else "", depth + 1)
                    for g, _, call in self.callers[f.name]}  # fmt: skip
            return keys.pop() if len(keys) == 1 else f"varying {f.name}:{v}"
        if v not in f.where:
            return v
        b, i = f.where[v]
        ins = f.code[b][i]
        if ins.op == "load":
            return f"load({self._key(f, ins.pointer or '', depth + 1)})"
        if ins.op == "call" and ins.callee in self.funcs:
            return f"{ins.callee}({', '.join(self._key(f, a, depth + 1) for a in ins.args)})"
        if ins.op == "other" and not re.search(r"=\s*alloca\b", ins.text):
            body = _strip_meta(ins.text.split("=", 1)[1]).strip()
            return re.sub(r"%[-\w.$]+|%\"[^\"]*\"",
                          lambda m: self._key(f, m.group(0), depth + 1)
                          if m.group(0) in f.where or m.group(0) in f.params else m.group(0), body)
        return f"{f.name}:{v}"

    def _varies(self, f: Function, v: str, element: frozenset, memo: dict) -> bool:
        """Whether `v` may differ between the threads once the write's element index
        (`element`) is taken as the same: striped locks `lk[i % 8]` with i the element written,
        however the thread came to that element."""
        if not v or v in element:
            return False
        if self._s(f, v):
            return True
        if not self._t(f, v):
            return False
        if v not in f.where:
            return True
        if v in memo:
            return memo[v]
        memo[v] = False  # a cycle through phis adds nothing
        b, i = f.where[v]
        ins = f.code[b][i]
        if ins.op == "other":
            out = any(self._varies(f, o, element, memo) for o in ins.operands)
        elif ins.op == "phi":
            out = any(self._varies(f, o, element, memo) for o, _ in ins.incoming if o) or \
                any(self._varies(f, c, element, memo) for c in self.a._phi_conditions(f, ins))
        elif ins.op == "load":
            p = ins.pointer or ""
            bases = self._bases(f, p)
            out = self._held_memory(f, p) or any(x in self.tls for x in bases) or (
                not all(self._is_alloca(f, x) for x in bases) and self._varies(f, p, element, memo))
        else:
            out = True
        memo[v] = out
        return out

    def _element(self, f: Function, ptr: str) -> frozenset:
        """The indices a write's address is made with from rank_sum's (a base the same for every
        thread), and the values they are cast from."""
        out: set[str] = set()
        for _ in range(20):
            if ptr not in f.where:
                break
            b, i = f.where[ptr]
            ins = f.code[b][i]
            if ins.op != "other" or not ins.operands:
                break
            if re.search(r"=\s*getelementptr\b", ins.text):
                base = ins.operands[0]
                if self._varies(f, base, frozenset(), {}):
                    break
                for x in ins.operands[1:]:
                    for _ in range(8):
                        out.add(x)
                        if x not in f.where:
                            break
                        d = f.code[f.where[x][0]][f.where[x][1]]
                        if not re.search(r"=\s*(?:sext|zext|trunc)\b", d.text) or not d.operands:
                            break
                        x = d.operands[0]
                ptr = base
            elif re.search(r"=\s*(?:bitcast|addrspacecast)\b", ins.text):
                ptr = ins.operands[0]
            else:
                break
        return frozenset(out)

    # -- what is held where
    def _token(self, f: Function, ins: Instr) -> tuple[str, tuple | None] | None:
        """('enter'|'exit', token) for a call that starts or ends a region, else None."""
        c = ins.callee or ""
        if _CRITICAL_ENTER.search(c) or _CRITICAL_EXIT.search(c):
            name = ins.args[2] if len(ins.args) > 2 else "?"
            return ("enter" if _CRITICAL_ENTER.search(c) else "exit"), ("critical", name)
        if _LOCK.search(c) or _READ_LOCK.search(c) or _UNLOCK.search(c):
            addr = ins.args[0] if ins.args else ""
            key = self._key(f, addr)
            kind = "read lock" if _READ_LOCK.search(c) else "lock"
            token = (kind, key)
            sites = self.lock_sites.setdefault(token, [])
            if not _UNLOCK.search(c) and not any(seen is ins for _, seen, _ in sites):
                sites.append((f, ins, addr))
            return ("exit" if _UNLOCK.search(c) else "enter"), token
        return None

    @staticmethod
    def _release(held: frozenset, token: tuple) -> frozenset:
        """What is held once `token` is let go: an unlock of an address the rule cannot match
        to a lock held lets go of every lock (what it then guards is judged by what is taken
        after it, or left to Archer)."""
        if token[0] == "critical" or token in held:
            return held - {token}
        return frozenset(t for t in held if t[0] in ("critical", "atomic"))

    def _flow(self, f: Function, entry: tuple[frozenset, frozenset],
              summaries: dict) -> tuple[dict, tuple[frozenset, frozenset] | None, list]:
        """(state before each instruction, the state at the returns, the releases made)."""
        succ = {b: [s for s in (f.code[b][-1].successors if f.code[b] else []) if s in f.code]
                for b in f.blocks}  # fmt: skip
        at_block: dict[str, tuple[frozenset, frozenset]] = {f.blocks[0]: entry}
        before: dict[tuple[str, int], tuple[frozenset, frozenset]] = {}
        releases: list = []
        exit_state = None
        todo = [f.blocks[0]]
        while todo:
            b = todo.pop()
            may, must = at_block[b]
            for i, ins in enumerate(f.code[b]):
                before[(b, i)] = (may, must)
                if ins.op != "call":
                    continue
                t = self._token(f, ins)
                if t and t[0] == "enter":
                    may, must = may | {t[1]}, must | {t[1]}
                elif t:
                    may, must = self._release(may, t[1]), self._release(must, t[1])
                    if t[1] not in releases:
                        releases.append(t[1])
                elif ins.callee in summaries:
                    (gmay, gmust), rel = summaries[ins.callee]
                    for r in rel:
                        may, must = self._release(may, r), self._release(must, r)
                    may, must = may | gmay, must | gmust
                    releases += [r for r in rel if r not in releases]
            if f.code[b] and f.code[b][-1].text.lstrip().startswith("ret"):
                exit_state = (may, must) if exit_state is None else \
                    (exit_state[0] | may, exit_state[1] & must)
            for s in succ[b]:
                old = at_block.get(s)
                new = (may, must) if old is None else (old[0] | may, old[1] & must)
                if new != old:
                    at_block[s] = new
                    todo.append(s)
        return before, exit_state, releases

    def run(self) -> list[str]:
        empty = (frozenset(), frozenset())
        summaries: dict = {}
        for _ in range(6):  # what each cell function leaves held when it returns
            new = {}
            for f in self.funcs.values():
                _, out, rel = self._flow(f, empty, summaries)
                new[f.name] = (out or empty, rel)
            if new == summaries:
                break
            summaries = new
        # a function whose address is taken may be called from anywhere: with nothing held
        start = {name: empty for name in self.named | {self.root}}
        context: dict[str, tuple[frozenset, frozenset]] = dict(start)
        local = {name: self._flow(f, empty, summaries)[0] for name, f in self.funcs.items()}
        for _ in range(6):  # what a helper's callers hold when they call it
            new = dict(start)
            for name in self.funcs:
                for g, pos, _ in self.callers.get(name, []):
                    if g.name not in context or pos not in local[g.name]:
                        continue
                    cmay, cmust = context[g.name]
                    may, must = local[g.name][pos]
                    state = (may | cmay, must | cmust)
                    old = new.get(name)
                    new[name] = state if old is None else (old[0] | state[0], old[1] & state[1])
            if new == context:
                break
            context = new
        guarded: list[_Guarded] = []
        for name, f in self.funcs.items():
            if name not in context:
                continue
            cmay, cmust = context[name]
            for (b, i), (may, must) in local[name].items():
                ins = f.code[b][i]
                if not self._writes(f, ins):
                    continue
                may, must = may | cmay, must | cmust
                if ins.atomic:
                    may, must = may | {ATOMIC}, must | {ATOMIC}
                if may:
                    ptr = ins.pointer if ins.op != "call" else (ins.args[0] if ins.args else "")
                    guarded.append(_Guarded(llvm_ir.where(ins.text, self.a.lines), may, must,
                                            name, self._element(f, ptr or "")))
        taken = sorted({llvm_ir.where(ins.text, self.a.lines) for f in self.funcs.values()
                        for b in f.blocks for ins in f.code[b]
                        if any(_LOCK.search(v) or _UNLOCK.search(v) or _READ_LOCK.search(v)
                               or _CRITICAL_ENTER.search(v) or _CRITICAL_EXIT.search(v)
                               for v in ins.operands if v != ins.callee)})  # fmt: skip
        if taken:  # a lock routine called through a pointer: which lock, the rule cannot tell
            return [f"{taken[0]}: a lock routine's address taken (called through a pointer, the "
                    "kit cannot tell which lock it takes); the adds must be excluded by one lock "
                    "or one critical name shared by every thread (or an atomic update)"]
        if not guarded:
            return []
        common = frozenset.intersection(*(g.must for g in guarded))
        if any(t[0] in ("critical", "atomic") or (t[0] == "lock" and self._lock_ok(t, guarded))
               for t in common):
            return []
        every = sorted(frozenset.union(*(g.may for g in guarded)), key=str)
        said = ", ".join(self._describe(t) for t in every)
        if any(t[0] == "lock" for t in common):
            why = ("a lock whose address differs between the threads (made from the thread's "
                   "number, its own storage or data, or memory written with them)")
        elif any(t[0] == "read lock" for t in common):
            why = "a read lock, which every thread may hold at once"
        else:
            why = "regions no one of which every add holds, so they exclude nothing between them"
        lines = list(dict.fromkeys(g.where for g in guarded))
        also = f" (and {', '.join(lines[1:])})" if len(lines) > 1 else ""
        return [f"{lines[0]}{also}: rank_sum's adds are held by {said}: {why}; the adds must be "
                "excluded by one lock or one critical name shared by every thread (or an atomic "
                "update)"]

    def _lock_ok(self, token: tuple, guarded: list[_Guarded]) -> bool:
        """Whether the lock is the same for every thread taking it for the same element: its
        address made from nothing that differs between the threads but the element's index."""
        sites = self.lock_sites.get(token, [])
        if not sites or "varying " in token[1]:
            return False
        for f, _, addr in sites:
            if self._s(f, addr):
                return False
            if not self._t(f, addr):
                continue
            here = [g for g in guarded if token in g.may and g.function == f.name]
            if not here or any(self._varies(f, addr, g.element, {}) for g in here):
                return False
        return True

    def _describe(self, token: tuple) -> str:
        if token[0] == "critical":
            m = _CRITICAL_NAME.match(token[1])
            return f"critical({m.group(1)})" if m and m.group(1) else \
                ("an unnamed critical" if m else f"a critical section ({token[1]})")
        if token[0] == "atomic":
            return "an atomic"
        sites = sorted({llvm_ir.where(ins.text, self.a.lines)
                        for _, ins, _ in self.lock_sites.get(token, [])})  # fmt: skip
        kind = "a read lock" if token[0] == "read lock" else "a lock"
        return f"{kind} taken at {' and '.join(sites) or 'the cell'}"

    def _writes(self, f: Function, ins: Instr) -> bool:
        """A write into rank_sum's memory: a store, an atomic, a copy or fill into it."""
        d = self.a.derived[f.name]
        if ins.op in ("store", "rmw"):
            return bool(ins.pointer) and ins.pointer in d and ins.pointer != "@?"
        if ins.op == "call" and re.search(r"@(?:llvm\.mem(?:cpy|move|set)[\w.]*|memcpy|memmove|"
                                          r"memset)$", ins.callee or ""):
            return bool(ins.args) and ins.args[0] in d and ins.args[0] != "@?"
        return False


def unshared_locks(ir: str, function: str = "node_sum", param: int = 1, data: int = 0) -> list[str]:
    """Where the writes into the memory of `function`'s argument `param` are held by regions that
    do not exclude the threads from each other (two critical names, a critical and a lock, a lock
    and an atomic, a lock whose address differs between the threads; `data`: the argument holding
    each thread's own data): "cell line N: what" each; [] when one region every write holds on
    every path is shared by all threads, or no write is held by any."""
    return _Locks(ir, function, param, data).run()
