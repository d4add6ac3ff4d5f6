"""Runs INSIDE the student's kernel during grading: keep the tests' tools as they were.

The grader inserts (and afterwards removes) three kinds of cells:
  capture()            first, before any student cell: remember the functions and classes of
                       builtins, math, numpy, pandas, sys's hooks and IPython's error display;
  remember(ns, names)  after each instructor cell (tests, locked cells): the helpers it defined;
  restore(ns, part)    before each test cell: put back whatever the student's code replaced,
                       and print one TAMPER line per replaced name for the grader's report.

Limits (documented in the instructor guide): this runs in the student's interpreter, so code
written to find and disable this module itself can still do so; what it stops is patching what
tests call (numpy.allclose = ..., redefining a helper, silencing tracebacks). Only the standard
library is imported here (numpy and pandas only if installed), so it needs no grader files.
"""

from __future__ import annotations

import importlib
import sys

MODULES = (
    "builtins",
    "math",
    "operator",
    "functools",
    "itertools",
    "numpy",
    "numpy.testing",
    "numpy.linalg",
    "pandas",
    "pandas.testing",
)
SHELL_METHODS = (
    "showtraceback",
    "_showtraceback",
    "showsyntaxerror",
    "get_exception_only",
    "run_cell",
    "run_cell_async",
    "run_ast_nodes",
    "run_code",
    "ex",
    "ev",
)
# (not sys.excepthook: IPython does not use it for cell errors, and libraries set their own)
SYS_HOOKS = ("displayhook", "stdout", "stderr")
TAMPER = "HYBRIDLAB-TAMPER"
# names the kernel itself rebinds (ipykernel sets builtins.input on every execution)
VOLATILE = {"input", "raw_input", "display", "get_ipython", "exit", "quit", "help"}
_MISSING = object()
_state: dict = {}


def _callables(namespace: dict) -> dict:
    return {
        k: v
        for k, v in namespace.items()
        if not k.startswith("_") and k not in VOLATILE and callable(v)
    }


def _shell():
    try:
        return get_ipython()  # noqa: F821 - defined in an IPython kernel
    except NameError:
        return None


def capture() -> None:
    """Remember the pristine tools; call once, before any student cell."""
    modules = {}
    for name in MODULES:
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        modules[name] = (mod, _callables(vars(mod)))
    shell = _shell()
    shell_dicts = []
    if shell is not None:  # the shell's class and its bases, and the instance itself
        owners = [c for c in type(shell).__mro__ if c is not object] + [shell]
        shell_dicts = [(o, {k: vars(o).get(k, _MISSING) for k in SHELL_METHODS}) for o in owners]
    _state.update(
        modules=modules,
        shell=shell_dicts,
        hooks={k: getattr(sys, k) for k in SYS_HOOKS},
        helpers={},
    )


def remember(namespace: dict, names: list[str]) -> None:
    """Remember the helpers an instructor cell defined (functions, classes, modules)."""
    for name in names:
        if name in namespace:
            _state.setdefault("helpers", {})[name] = namespace[name]


def restore(namespace: dict, part: str = "") -> list[str]:
    """Put every replaced tool back; print and return what had been replaced."""
    changed = []
    for name, (mod, pristine) in _state.get("modules", {}).items():
        if sys.modules.get(name) is not mod:
            sys.modules[name] = mod
            changed.append(f"sys.modules[{name!r}]")
        current = vars(mod)
        for key, value in pristine.items():
            if current.get(key, _MISSING) is not value:
                setattr(mod, key, value)
                changed.append(f"{name}.{key}")
    for owner, methods in _state.get("shell", []):
        for key, value in methods.items():
            if vars(owner).get(key, _MISSING) is not value:
                if value is _MISSING:
                    delattr(owner, key)
                else:
                    setattr(owner, key, value)
                name = "get_ipython()" if not isinstance(owner, type) else owner.__name__
                changed.append(f"{name}.{key}")
    for key, value in _state.get("hooks", {}).items():
        if getattr(sys, key) is not value:
            setattr(sys, key, value)
            changed.append(f"sys.{key}")
    for key, value in _state.get("helpers", {}).items():
        if namespace.get(key, _MISSING) is not value:
            namespace[key] = value
            changed.append(key)
    if sys.gettrace() is not None:
        sys.settrace(None)
        changed.append("sys.settrace")
    for what in changed:
        print(f"{TAMPER} {part}: {what}")
    return changed
