"""Whether a C cell is the same C for the graded build's compiler and for clang.

A cell is built by the graded build's compiler (the MPI wrapper's, gcc here) and, for the checks
that read clang's IR or run Archer, by clang. A cell that tells the compilers apart (`#ifdef
__clang__`, `#ifndef __GNUC__`, `__has_feature`, `__SANITIZE_THREAD__`, but just as well a value
only one compiler predefines or sets differently: `_OPENMP`, `__SIZEOF_FLOAT80__`,
`__INT_FAST16_WIDTH__`, ...) can show the checks one program and run another (a fresh attacker's
A06_nested_gcconly, lab 06 (e), 4/4 twice, 2026-12-06). No list of names can be complete, so the
rule is judged by behaviour: the cell, its own `#include` lines blanked (so that no header's
macros enter, whose expansions may differ for reasons not the cell's own), is run through each
compiler's preprocessor with the flags of its build; where the two leave different tokens on a
cell line, the cell is not the same C for both.

The same tokens can still mean different programs where each compiler's optimiser decides a
value: `__builtin_constant_p(probe != 0)`, a malloc's result compared, is 1 in clang's -O2 IR and 0
in gcc's build, so clang's IR held only an atomic update while gcc's build ran an atomic read and
an atomic write (a fresh attacker's u06_bcp, lab 06 (e), 4/4 twice, 2026-12-06). Such builtins
(an object's size, whether a value is constant, a path declared unreachable or assumed) are
refused wherever they land on a cell line after the graded build's preprocessor (a header's
macro expanded there counts), and so are OpenMP's choices by context (`declare variant` with a
vendor selector ran gcc's variant while clang's IR held the base function; a metadirective):
compiler_decided(lines).

    differs = preprocessed_apart(code)  # [] or ["gcc reads `...` at cell line 23, clang `...` at cell line 12"]
"""

from __future__ import annotations

import re
import shutil
import subprocess

from . import archer
from .build import DEFAULT_FLAGS, STUDENT_UNIT_FLAGS, compiler_env, mpicc
from .toolchain import direct_command, toolchain_env

_INCLUDE = re.compile(r"^[ \t]*#[ \t]*(?:include|include_next|import)\b.*$", re.M)
_MARKER = re.compile(r'^#\s*(\d+)\s+"([^"]*)"')
# C's tokens (longest punctuator first), so that spacing alone (`critical (a)`) differs in nothing
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*'
                    r"|>>=|<<=|\.\.\.|->|\+\+|--|<<|>>|&&|\|\||##|[-+*/%&|^!=<>]=|\S")
# builtins whose value or effect each compiler's optimiser decides (compiler_decided)
_DECIDED = re.compile(r"\b__builtin_(?:constant_p|object_size|dynamic_object_size|unreachable|assume|"
                      r"is_constant_evaluated)\b")
# OpenMP's own choices between code by context (`declare variant ... match(implementation =
# {vendor(gnu)})`, a metadirective): the same tokens, yet gcc ran the variant and clang's IR held
# the base function (a fresh attacker's K3, lab 06 (e), 4/4 twice, 2026-12-06)
_VARIANT = re.compile(r"\bomp\s+(?:begin\s+)?declare\s+variant\b|\bmetadirective\b")
# the clock's macros, the same for both runs
_CLOCK = ("-Wno-builtin-macro-redefined", '-D__DATE__="date"', '-D__TIME__="time"',
          '-D__TIMESTAMP__="timestamp"')


def _cell_tokens(flags: tuple[str, ...], text: str) -> tuple[list[tuple[int, str]], str]:
    """The cell's tokens, each with its cell line, after one compiler's preprocessor, and the
    compiler's error ('' when none)."""
    cmd = [mpicc(), *DEFAULT_FLAGS, *STUDENT_UNIT_FLAGS, "-DHL_TRACE_MPI", *_CLOCK, *flags, "-E",
           "-x", "c", "-"]
    env = compiler_env(flags)
    done = subprocess.run(direct_command(cmd, env), input=text, capture_output=True, text=True,
                          check=False, timeout=120, env=env)  # fmt: skip
    if done.returncode != 0:
        said = next((ln.strip() for ln in done.stderr.splitlines() if "error" in ln), "")
        return [], said or done.stderr.strip()[-300:]
    tokens: list[tuple[int, str]] = []
    at, ours = 1, False
    for ln in done.stdout.splitlines():
        m = _MARKER.match(ln)
        if m:
            at, ours = int(m.group(1)), m.group(2) == "<stdin>"
            continue
        if ours:
            tokens += [(at, t) for t in _TOKEN.findall(ln)]
        at += 1
    return tokens, ""


def preprocessed_apart(code: str) -> list[str]:
    """Where the cell's own C reads differently for the graded build's compiler and for clang
    (Archer's flags), its #include lines blanked: ["gcc reads `...` at cell line N, clang `...`
    at cell line M"] at the first token the two differ in (a macro call over several lines may land on other lines, its tokens do not
    change), or ["only ... stops on it (...)"] where one compiler's preprocessor stops (an
    #error one compiler reaches); [] where they agree, or clang is not installed (nothing is
    built with it then)."""
    if shutil.which(archer.COMPILER, path=toolchain_env().get("PATH")) is None:
        return []
    text = _INCLUDE.sub("", code)
    graded, graded_err = _cell_tokens((), text)
    clang, clang_err = _cell_tokens(archer.FLAGS, text)
    if graded_err or clang_err:
        if graded_err and clang_err:
            return []  # neither reads it: the build says why
        which = "clang" if clang_err else "the graded build's compiler"
        return [f"only {which} stops on it ({(clang_err or graded_err)[:160]})"]
    for k, (g, c) in enumerate(zip([*graded, (0, "")], [*clang, (0, "")], strict=False)):
        if g[1] != c[1]:
            return [f"gcc reads {_shown(graded, k, g[0])}, clang {_shown(clang, k, c[0])}"]
    return []


def _shown(tokens: list[tuple[int, str]], k: int, line: int) -> str:
    """The tokens from the k-th on (a few), with their cell line."""
    text = " ".join(t for _, t in tokens[k:k + 8])
    return f"`{text}` at cell line {line}" if text else "nothing more"


def compiler_decided(lines: list[tuple[int, str]]) -> list[str]:
    """Each cell line (the graded build's preprocessed (cell line, text) pairs) holding a builtin
    whose value or effect each compiler's optimiser decides, or an OpenMP choice by context
    (declare variant, metadirective): ["cell line N: `__builtin_...`"]."""
    return [f"cell line {line}: `{m.group(0)}`" for line, text in lines
            if (m := _DECIDED.search(text) or _VARIANT.search(text))]
