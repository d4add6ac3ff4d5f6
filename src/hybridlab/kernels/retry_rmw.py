"""An add that can fail and is then dropped (lab 06 (e): into rank_sum), read from the cell's LLVM IR.

split_rmw checks that each add's read and write sit in ONE region, lock_identity that the regions
are the same for every thread. Neither sees an add that is one whole read-modify-write but may
FAIL, and whose failure moves on instead of trying again: every access is atomic or under a lock,
so Archer reports no race, and an add is lost only when two threads meet on the same element
(a fresh attacker's z06_cas1 and z06_synccas kept 4/4 twice, z06_trylock once in two, 2026-12-06).

The rule, on clang's IR of the cell at -O2 (as split_rmw reads it; rank_sum's memory as
split_rmw derives it):

- A compare-and-swap on rank_sum's memory that writes another value than the one it compares (a
  write attempt; `cmpxchg p, v, v` is an atomic read) must, when it fails, come back to itself
  before the address it writes is made anew (the next element) or node_sum returns: its success
  bit, the old value compared with the expected one, `!`, `&&`, `||`, casts and selects of them
  decide which way a branch goes on failure; other branches may go either way. A helper that
  returns on failure hands its result to its callers, whose call must then be made again (a CAS
  loop around `try_add()`). A CAS loop is one read-modify-write; a CAS tried once, its result
  ignored or only stored, is a split add.
- A write into rank_sum (a store, an atomic, a copy, a helper writing it) made or skipped by the
  outcome of an attempt that may fail (`omp_test_lock`, `pthread_*_trylock`, `sem_trywait`, a
  compare-and-swap or any atomic read-modify-write, `__atomic_test_and_set`; followed through
  SSA, locals and globals, helpers' parameters and results), control dependence from
  post-dominators as split_rmw computes it, is refused, unless that branch is a retry: one of
  its ways always comes back to the same attempt on the same address (`while
  (!omp_test_lock(&l));`, a spin on a CAS). A write whose stored VALUE is made from a lock
  test's result (`rank_sum[i] = ok ? rank_sum[i] + x : rank_sum[i]`) is refused as well. So a
  thread chosen by a compare-and-swap or a ticket (an election by hand) may not write rank_sum
  alone: `single` or `masked` choose a thread (the part's text says so).

- A retried compare-and-swap on rank_sum (one that passes the first rule) must write, on every
  try, the value it compares plus the same addend (fixer f44, after attackR's L06_G5 kept 4/4
  twice: the addend in a volatile local set to 0.0 after each try, so a retry added nothing): its
  new value is `old + a`, `a + old`, `old - a` or `fma(b, c, old)` with `old` the compared value
  (through casts, and phis of one block that agree edge by edge), and `a` the same on each try:
  not made in the retry loop (the instructions on a path from the CAS back to itself that makes
  no address anew) by a phi of different values, a read of memory the loop writes (or an atomic
  or volatile read of shared memory), an atomic or a call; a helper's parameter is judged at each
  call as the caller's retry loop hands it.

Not detected: a retry whose addend is changed by ANOTHER thread between tries (a shared addend
written outside the loop); an add made or skipped by a plain (non-atomic) flag, or by an atomic
read of one (a race Archer sees when the threads overlap); a failed try whose add is redone by
another thread.
"""

from __future__ import annotations

import re
from collections import deque

from . import llvm_ir
from .split_rmw import _RESULT, Function, Instr, _Analysis, _split_top, _strip_meta, call_sites

# library routines that try to take a lock and may fail (the result says whether they did)
_TRY_CALLS = re.compile(r"@(?:omp_test_(?:nest_)?lock|pthread_mutex_(?:trylock|timedlock)|"
                        r"pthread_spin_trylock|pthread_rwlock_(?:try|timed)(?:wr|rd)lock|"
                        r"sem_(?:trywait|timedwait))$")  # fmt: skip
_CASTS = ("bitcast", "zext", "sext", "trunc", "ptrtoint", "inttoptr", "addrspacecast", "freeze")
_DEPTH = 3  # how many callers up a helper's failed try is followed


def _body(ins: Instr) -> str:
    m = _RESULT.match(ins.text)
    return _strip_meta(m.group(2) if m else ins.text.strip()).strip()


def _token(part: str) -> str:
    """An operand as written, without its type: `%x`, `@g`, `0`, `true`."""
    words = part.strip().split()
    return words[-1] if words else ""


class _Tries:
    def __init__(self, ir: str, function: str, param: int):
        self.a = _Analysis(ir, function, param)
        self.funcs = self.a.funcs
        self.root = "@" + function
        self.callers = call_sites(self.funcs)
        self.writers = self._writer_functions()
        self.found: dict[str, str] = {}

    # -- what an instruction is
    def _def(self, f: Function, v: str) -> Instr | None:
        if v not in f.where:
            return None
        b, i = f.where[v]
        return f.code[b][i]

    def _cas(self, ins: Instr) -> tuple[str, str, str] | None:
        """(address, compared, new) for a cmpxchg, as written."""
        body = _body(ins)
        if not body.startswith("cmpxchg"):
            return None
        parts = _split_top(re.sub(r"^cmpxchg\s+(?:weak\s+)?(?:volatile\s+)?", "", body))
        if len(parts) < 3:
            return None
        new = parts[2].strip().split()
        return _token(parts[0]), _token(parts[1]), (new[1] if len(new) > 1 else "")

    def _strip(self, f: Function, v: str) -> str:
        for _ in range(20):
            ins = self._def(f, v)
            if ins is None or ins.op != "other":
                return v
            body = _body(ins)
            if not body.startswith(_CASTS):
                return v
            v = _token(body.split(None, 1)[1].rsplit(" to ", 1)[0])
        return v

    def _writes(self, f: Function, ins: Instr) -> bool:
        """A write into rank_sum's memory: a store, an atomic (a CAS that writes another value
        than it compares), a copy or fill, a call of a cell function that makes one."""
        d = self.a.derived[f.name]
        if ins.op in ("store", "rmw"):
            if not ins.pointer or ins.pointer not in d or ins.pointer == "@?":
                return False
            cas = self._cas(ins)
            return cas is None or cas[1] != cas[2]
        if ins.op == "call":
            c = ins.callee or ""
            if c in self.writers:
                return True
            if re.search(r"@(?:llvm\.mem(?:cpy|move|set)[\w.]*|memcpy|memmove|memset)$", c):
                return bool(ins.args) and ins.args[0] in d and ins.args[0] != "@?"
        return False

    def _writer_functions(self) -> set[str]:
        out: set[str] = set()
        changed = True
        while changed:
            changed = False
            for f in self.funcs.values():
                if f.name in out:
                    continue
                self.writers = out
                if any(self._writes(f, ins) for b in f.blocks for ins in f.code[b]):
                    out.add(f.name)
                    changed = True
        return out

    # -- the value of a condition when a try failed
    def _value(self, f: Function, v: str, known: dict[str, int], cas: dict[str, str],
               depth: int = 0) -> int | None:
        """The integer `v` holds when the tries in `known` (SSA result -> 0 for a failed CAS's
        success bit or a value known so) went as said; None when it may be either."""
        if v in known:
            return known[v]
        if v == "true":
            return 1
        if v == "false":
            return 0
        if re.fullmatch(r"-?\d+", v):
            return int(v)
        ins = self._def(f, v)
        if ins is None or ins.op != "other" or depth > 16:
            return None
        body = _body(ins)
        op = body.split(None, 1)[0] if body else ""
        rest = body[len(op):].strip()
        if op == "extractvalue":
            parts = _split_top(rest)
            agg, idx = _token(parts[0]), parts[-1].strip()
            if agg in cas and idx == "1":
                return known.get(agg + "#ok")
            return None
        if op in _CASTS:
            x = self._value(f, _token(rest.rsplit(" to ", 1)[0]), known, cas, depth + 1)
            return None if x is None else int(x != 0) if op == "trunc" else x
        if op in ("icmp", "fcmp"):
            pred, rest = rest.split(None, 1)
            parts = _split_top(rest)
            if len(parts) != 2:
                return None
            x, y = _token(parts[0]), _token(parts[1])
            same = self._old_vs_expected(f, x, y, cas)
            if same is not None:
                ok = known.get(same + "#ok")
                if ok is None:
                    return None
                if pred in ("eq", "oeq", "ueq"):
                    return ok
                if pred in ("ne", "one", "une"):
                    return 1 - ok
                return None
            a = self._value(f, x, known, cas, depth + 1)
            b = self._value(f, y, known, cas, depth + 1)
            if a is None or b is None:
                return None
            table = {"eq": a == b, "ne": a != b, "ugt": a > b, "uge": a >= b, "ult": a < b,
                     "ule": a <= b, "sgt": a > b, "sge": a >= b, "slt": a < b, "sle": a <= b}
            return int(table[pred]) if pred in table else None
        if op in ("xor", "and", "or"):
            parts = _split_top(rest)
            if len(parts) != 2:
                return None
            a = self._value(f, _token(parts[0]), known, cas, depth + 1)
            b = self._value(f, _token(parts[1]), known, cas, depth + 1)
            if op == "and" and 0 in (a, b):
                return 0
            if op == "or" and a is not None and b is not None:
                return a | b
            if a is None or b is None:
                return 1 if op == "or" and 1 in (a, b) and "i1" in parts[0] else None
            return a ^ b if op == "xor" else a & b
        if op == "select":
            parts = _split_top(rest)
            if len(parts) != 3:
                return None
            c = self._value(f, _token(parts[0]), known, cas, depth + 1)
            if c is None:
                x = self._value(f, _token(parts[1]), known, cas, depth + 1)
                y = self._value(f, _token(parts[2]), known, cas, depth + 1)
                return x if x is not None and x == y else None
            return self._value(f, _token(parts[1 if c else 2]), known, cas, depth + 1)
        return None

    def _old_vs_expected(self, f: Function, x: str, y: str, cas: dict[str, str]) -> str | None:
        """The CAS whose old value one side is and whose compared value the other is."""
        x, y = self._strip(f, x), self._strip(f, y)
        for old, other in ((x, y), (y, x)):
            ins = self._def(f, old)
            if ins is None or ins.op != "other":
                continue
            body = _body(ins)
            m = re.match(r"extractvalue\s+(.*),\s*0$", body)
            if not m:
                continue
            agg = _token(m.group(1))
            if agg in cas and self._strip(f, cas[agg]) == other:
                return agg
        return None

    # -- paths
    @staticmethod
    def _nexts(f: Function, pos: tuple[str, int]) -> list[tuple[str, int]]:
        b, i = pos
        if i + 1 < len(f.code[b]):
            return [(b, i + 1)]
        return [(s, 0) for s in f.code[b][-1].successors if s in f.code] if f.code[b] else []

    def _made(self, f: Function, v: str) -> set[str]:
        """What may make an address another one, in `f`: the phis (a loop's next element), loads
        and calls it is computed from (through casts, offsets, arithmetic, selects)."""
        out, seen, todo = set(), set(), [v]
        while todo and len(seen) < 256:
            x = todo.pop()
            if x in seen or x not in f.where:
                continue
            seen.add(x)
            ins = self._def(f, x)
            if ins is None:
                continue
            if ins.op == "other":
                todo += ins.operands
            else:  # phi, load, call, an atomic's result
                out.add(x)
        return out

    def _drops(self, f: Function, starts: list[tuple[str, int]], targets: set[tuple[str, int]],
               anew: set[str], known: dict[str, int], cas: dict[str, str], depth: int) -> bool:
        """Whether a path from `starts` reaches a return of node_sum (or of a helper whose callers
        then drop it), or remakes an address in `anew`, before a try in `targets`; the branches
        whose condition `known` decides go that way only."""
        seen: set[tuple[str, int]] = set()
        queue = deque(starts)
        while queue:
            pos = queue.popleft()
            if pos in seen:
                continue
            seen.add(pos)
            if pos in targets:
                continue  # tried again
            ins = f.code[pos[0]][pos[1]]
            if ins.result and ins.result in anew:
                return True  # another element
            if ins.op != "terminator":
                queue += self._nexts(f, pos)
                continue
            text = _body(ins)
            if text.startswith("ret"):
                if f.name == self.root or depth >= _DEPTH or not self.callers.get(f.name):
                    return True
                got = self._value(f, _token(text), known, cas) if len(text.split()) > 1 else None
                for g, cpos, call in self.callers[f.name]:
                    k = {call.result: got} if call.result and got is not None else {}
                    again = set()
                    for v in anew:  # the caller's arguments for the address's parameters
                        if v in f.params:
                            at = f.params.index(v)
                            if at < len(call.args) and call.args[at]:
                                again |= self._made(g, call.args[at])
                    if self._drops(g, self._nexts(g, cpos), {cpos}, again, k, {}, depth + 1):
                        return True
                continue
            if text.startswith("unreachable"):
                continue
            succ = list(ins.successors)
            if text.startswith("br i1") and len(succ) == 2:
                c = self._value(f, _token(_split_top(text[len("br"):])[0]), known, cas)
                if c is not None:
                    succ = [succ[0] if c else succ[1]]
            queue += [(s, 0) for s in succ if s in f.code]
        return False

    def _rank_sum_swaps(self):
        """Each compare-and-swap on rank_sum (an address derived from it) that writes another
        value than it compared: (function, block, index, instruction, (address, compared, new))."""
        for f in self.funcs.values():
            d = self.a.derived[f.name]
            for b in f.blocks:
                for i, ins in enumerate(f.code[b]):
                    cas = self._cas(ins) if ins.op == "rmw" else None
                    if cas is not None and cas[0] in d and cas[0] != "@?" and cas[1] != cas[2]:
                        yield f, b, i, ins, cas

    # -- (a) a compare-and-swap on rank_sum tried once
    def cas_once(self) -> None:
        for f, b, i, ins, cas in self._rank_sum_swaps():
            if not ins.result:  # its result unused: nothing can try it again
                failed = True
            else:
                anew = self._made(f, cas[0])
                failed = self._drops(f, self._nexts(f, (b, i)), {(b, i)}, anew,
                                     {ins.result + "#ok": 0}, {ins.result: cas[1]}, 0)
            if failed:
                at = llvm_ir.where(ins.text, self.a.lines)
                self.found.setdefault(
                    at, f"{at}: a compare-and-swap on rank_sum whose failure is not tried "
                    "again (it moves on, or returns): when another thread's add got in "
                    "first, this add is lost")

    # -- (a') a retried compare-and-swap on rank_sum must add the same value on every try
    def _cycle(self, f: Function, pos: tuple[str, int], anew: set[str]) -> set[tuple[str, int]]:
        """The instructions on a path from `pos` back to itself that makes no address in `anew`
        anew (a try made again on the same element; the next element's loop is not in it)."""
        fwd: set[tuple[str, int]] = set()
        queue = deque(self._nexts(f, pos))
        while queue:
            p = queue.popleft()
            if p in fwd or p == pos:
                continue
            ins = f.code[p[0]][p[1]]
            if ins.result and ins.result in anew:
                continue
            fwd.add(p)
            queue += self._nexts(f, p)
        back: set[tuple[str, int]] = set()
        todo = [p for p in fwd if pos in self._nexts(f, p)]
        preds: dict[tuple[str, int], list[tuple[str, int]]] = {}
        for p in fwd:
            for q in self._nexts(f, p):
                preds.setdefault(q, []).append(p)
        while todo:
            p = todo.pop()
            if p in back:
                continue
            back.add(p)
            todo += [q for q in preds.get(p, []) if q in fwd]
        return back

    def _written(self, f: Function, region: set[tuple[str, int]]) -> set[str]:
        """The objects written in `region` ('*': any: a call of a cell function or of a routine
        the kit does not know)."""
        out: set[str] = set()
        for b, i in region:
            ins = f.code[b][i]
            if ins.op in ("store", "rmw"):
                out.add(self.a._base(f, ins.pointer or ""))
            elif ins.op == "call":
                c = ins.callee or ""
                if re.search(r"@(?:llvm\.mem(?:cpy|move|set)[\w.]*|memcpy|memmove|memset)$", c):
                    out.add(self.a._base(f, ins.args[0] if ins.args else ""))
                elif c.startswith("@llvm.") or not ins.ptr_args and c not in self.funcs:
                    continue  # an intrinsic, or a routine handed no address
                else:
                    out.add("*")
        return out

    def _varies(self, f: Function, v: str, region: set, written: set[str], depth: int,
                seen: set[str] | None = None) -> bool:
        """Whether SSA value `v` may differ from one try to the next: made in `region` by a phi
        of different values, a read of memory written in the region (or shared: atomic,
        volatile), a call, an atomic; a helper's parameter as each caller's retry loop hands it."""
        seen = set() if seen is None else seen
        if not v or not v.startswith("%") or v in seen:
            return False
        seen.add(v)
        if v in f.params:
            return f.name != self.root and depth < _DEPTH and any(
                self._arg_varies(g, cpos, call, f.params.index(v), depth + 1)
                for g, cpos, call in self.callers.get(f.name, []))  # fmt: skip
        if v not in f.where or f.where[v] not in region:
            return False
        ins = self._def(f, v)
        if ins is None:
            return False
        if ins.op == "phi":
            texts = re.findall(r"\[\s*([^,\]]+?)\s*,\s*%[-\w.$]+\s*\]", _body(ins))
            values = {t for t in texts if t != v}
            return len(values) > 1 or any(self._varies(f, x, region, written, depth, seen)
                                          for x in values if x.startswith("%"))
        if ins.op == "load":
            base = self.a._base(f, ins.pointer or "")
            shared = ins.atomic or (" volatile " in f" {_body(ins)} " and not base.startswith(f.name + ":"))
            return shared or bool(written & {base, "*"}) or (base == "*" and bool(written))
        if ins.op in ("rmw", "call"):
            if ins.op == "call" and (ins.callee or "").startswith("@llvm.") and not ins.ptr_args:
                return any(self._varies(f, x, region, written, depth, seen) for x in ins.args if x)
            return True
        return any(self._varies(f, x, region, written, depth, seen) for x in ins.operands)

    def _arg_varies(self, g: Function, cpos: tuple[str, int], call: Instr, k: int, depth: int) -> bool:
        if k >= len(call.args) or not call.args[k]:
            return False
        anew = set().union(*[self._made(g, a) for a in call.args if a in self.a.derived[g.name]])
        region = self._cycle(g, cpos, anew)
        return self._varies(g, call.args[k], region, self._written(g, region), depth)

    def _same(self, f: Function, x: str, y: str, seen: set | None = None) -> bool:
        """Whether x and y are the same value (but casts; phis of one block whose incoming
        values are the same on each edge)."""
        x, y = self._strip(f, x), self._strip(f, y)
        if x == y:
            return True
        seen = set() if seen is None else seen
        if (x, y) in seen:
            return True
        seen.add((x, y))
        a, b = self._def(f, x), self._def(f, y)
        if a is None or b is None or a.op != "phi" or b.op != "phi" or f.where[x][0] != f.where[y][0]:
            return False
        ina, inb = dict((blk, v) for v, blk in a.incoming), dict((blk, v) for v, blk in b.incoming)
        texts_a = dict((blk, t) for t, blk in re.findall(r"\[\s*([^,\]]+?)\s*,\s*(%[-\w.$]+)\s*\]", _body(a)))
        texts_b = dict((blk, t) for t, blk in re.findall(r"\[\s*([^,\]]+?)\s*,\s*(%[-\w.$]+)\s*\]", _body(b)))
        if set(ina) != set(inb):
            return False
        for blk in ina:
            va, vb = ina[blk], inb[blk]
            if va and vb:
                if not self._same(f, va, vb, seen):
                    return False
            elif texts_a.get(blk) != texts_b.get(blk) and not self._same_constant(
                    texts_a.get(blk, ""), texts_b.get(blk, "")):
                return False
        return True

    @staticmethod
    def _same_constant(a: str, b: str) -> bool:
        """Two constants as written, one maybe as a cast of the other (0 and 0.0, bitcasts)."""
        def num(t: str) -> float | None:
            t = re.sub(r"^.*\(\s*\S+\s+", "", t).split(" to ")[0].strip()
            try:
                return float(int(t, 0)) if re.fullmatch(r"-?(?:0x)?[0-9a-fA-F]+", t) and "." not in t \
                    and not t.lower().startswith("0x") else float(t)
            except ValueError:
                return None
        x, y = num(a), num(b)
        return x is not None and x == 0.0 and y is not None and y == 0.0

    def _addend(self, f: Function, new: str, compared: str) -> list[str] | None:
        """What the CAS's new value adds to the value it compares: the addend's parts, or None
        when it is no such sum (old + x, x + old, old - x, fma(a, b, old))."""
        v = self._strip(f, new)
        ins = self._def(f, v)
        if ins is None:
            return None
        body = _body(ins)
        op = body.split(None, 1)[0] if body else ""
        if op in ("fadd", "add", "fsub", "sub"):
            rest = re.sub(r"^(?:\w+\s+)*?(?:double|float|half|x86_fp80|fp128|i\d+)\s+", "",
                          body[len(op):].strip())
            parts = _split_top(rest)
            if len(parts) != 2:
                return None
            a, b = _token(parts[0]), _token(parts[1])
            if self._same(f, a, compared):
                return [b]
            if op in ("fadd", "add") and self._same(f, b, compared):
                return [a]
            return None
        if ins.op == "call" and re.search(r"@llvm\.(?:fmuladd|fma)\.", ins.callee or "") and \
                len(ins.arg_texts) == 3 and self._same(f, _token(ins.arg_texts[2]), compared):
            return [_token(t) for t in ins.arg_texts[:2]]
        return None

    def same_addend(self) -> None:
        for f, b, i, ins, cas in self._rank_sum_swaps():
            at = llvm_ir.where(ins.text, self.a.lines)
            if at in self.found:
                continue
            parts = self._addend(f, cas[2], cas[1])
            why = "" if parts is not None else "writes another value than the one it compared plus an addend"
            if parts is not None:
                region = self._cycle(f, (b, i), self._made(f, cas[0]))
                written = self._written(f, region)
                if any(self._varies(f, p, region, written, 0) for p in parts if p.startswith("%")):
                    why = "adds another value when it is tried again (what it adds is made anew in its retry loop)"
            if why:
                self.found.setdefault(
                    at, f"{at}: a compare-and-swap on rank_sum that {why}: every try must "
                    "write the value it compared plus the same addend (the thread's value, "
                    "read or computed before the loop), or a retry loses the add")

    # -- (b) a write made or skipped by a try's outcome
    def _outcomes(self) -> dict[tuple[str, str], set[tuple[str, tuple[str, int], str]]]:
        """Per (function, SSA value): the tries its value comes from (function, position, kind:
        'lock' for a lock test, 'atomic'), through SSA, memory, helpers' parameters and results."""
        taint: dict[tuple[str, str], set] = {}
        mem: dict[str, set] = {}
        rets: dict[str, set] = {}

        def add(key, srcs) -> bool:
            if not srcs:
                return False
            old = taint.setdefault(key, set())
            if srcs <= old:
                return False
            old |= srcs
            return True

        changed = True
        rounds = 0
        while changed and rounds < 40:
            changed, rounds = False, rounds + 1
            for f in self.funcs.values():
                for b in f.blocks:
                    for i, ins in enumerate(f.code[b]):
                        srcs = set().union(*(taint.get((f.name, v), set()) for v in ins.operands))
                        if ins.op == "call":
                            c = ins.callee or ""
                            if _TRY_CALLS.search(c) and ins.result:
                                changed |= add((f.name, ins.result), {(f.name, (b, i), "lock")})
                            if c in self.funcs:
                                g = self.funcs[c]
                                for k, a in enumerate(ins.args):
                                    if a and k < len(g.params) and g.params[k]:
                                        changed |= add((c, g.params[k]), taint.get((f.name, a), set()))
                                if ins.result:
                                    changed |= add((f.name, ins.result), rets.get(c, set()))
                            elif ins.result:
                                changed |= add((f.name, ins.result), srcs)
                        elif ins.op == "rmw":
                            if ins.result:
                                changed |= add((f.name, ins.result), {(f.name, (b, i), "atomic")})
                        elif ins.op == "store":
                            s = taint.get((f.name, ins.value or ""), set())
                            if s:
                                base = self.a._base(f, ins.pointer or "")
                                old = mem.setdefault(base, set())
                                if not s <= old:
                                    old |= s
                                    changed = True
                        elif ins.op == "load":
                            base = self.a._base(f, ins.pointer or "")
                            s = set(mem.get(base, set()))
                            if base == "*":
                                s = s.union(*mem.values()) if mem else s
                            s |= mem.get("*", set())
                            if ins.result:
                                changed |= add((f.name, ins.result), s)
                        elif ins.op == "terminator":
                            if _body(ins).startswith("ret") and srcs:
                                old = rets.setdefault(f.name, set())
                                if not srcs <= old:
                                    old |= srcs
                                    changed = True
                        elif ins.result:
                            changed |= add((f.name, ins.result), srcs)
        return taint

    def _address_of(self, f: Function, pos: tuple[str, int]) -> str:
        ins = f.code[pos[0]][pos[1]]
        if ins.op == "call":
            return ins.args[0] if ins.args else ""
        return ins.pointer or ""

    def skipped(self) -> None:
        taint = self._outcomes()
        for f in self.funcs.values():
            ctl = self.a.control[f.name]
            retry: dict[str, bool] = {}
            for b in f.blocks:
                for ins in f.code[b]:
                    if not self._writes(f, ins):
                        continue
                    at = llvm_ir.where(ins.text, self.a.lines)
                    if ins.op == "store":  # a value made from a lock test's result
                        s = [x for x in taint.get((f.name, ins.value or ""), set()) if x[2] == "lock"]
                        if s:
                            self._skip(at, s[0])
                            continue
                    for x in ctl.over.get(b, ()):
                        cond = ctl.condition.get(x, "")
                        srcs = taint.get((f.name, cond), set()) if cond else set()
                        if not srcs:
                            continue
                        if x not in retry:
                            retry[x] = self._retry(f, x, srcs)
                        if not retry[x]:
                            self._skip(at, sorted(srcs)[0])
                            break

    def _retry(self, f: Function, x: str, srcs: set) -> bool:
        """Whether one way of block x's branch always comes back to one of the tries `srcs` (in
        f, or the call in f that made them), on the same address."""
        targets, anew = set(), set()
        for fn, pos, _ in srcs:
            if fn == f.name:
                targets.add(pos)
                anew |= self._made(f, self._address_of(f, pos))
        if not targets:  # made in a helper: the calls in f whose results carry them
            for b in f.blocks:
                for i, ins in enumerate(f.code[b]):
                    if ins.op == "call" and ins.callee in self.funcs and ins.result:
                        targets.add((b, i))
        if not targets:
            return False
        last = f.code[x][-1]
        return any(not self._drops(f, [(s, 0)], targets, anew, {}, {}, _DEPTH)
                   for s in dict.fromkeys(last.successors) if s in f.code)

    def _skip(self, at: str, src: tuple) -> None:
        fn, pos, kind = src
        g = self.funcs[fn]
        ins = g.code[pos[0]][pos[1]]
        where = llvm_ir.where(ins.text, self.a.lines)
        what = (f"a lock test ({(ins.callee or '').lstrip('@')}, {where})" if kind == "lock"
                else f"an atomic ({where})")
        self.found.setdefault(
            at, f"{at}: rank_sum written or not by the outcome of {what}, which moves on when "
            "it fails instead of trying again: a busy lock, or another thread first, loses the "
            "add (to choose one thread, use single or masked)")

    def run(self) -> list[str]:
        self.cas_once()
        self.same_addend()
        self.skipped()
        return list(self.found.values())


def dropped_adds(ir: str, function: str = "node_sum", param: int = 1) -> list[str]:
    """Each add into the memory of `function`'s argument `param` that may fail and is then
    dropped: a compare-and-swap whose failure does not come back to it, or a write made or
    skipped by a lock test's or an atomic's outcome without a retry. "cell line N: what" each."""
    return _Tries(ir, function, param).run()
