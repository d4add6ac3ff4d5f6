"""Hidden tests call a student's function with the kit functions that compute the same answer
made unavailable, so a one-line call of one of them scores nothing (issue 17).

    from hybridlab.modelling import overlap
    with unavailable(overlap, namespace=globals()):
        got = epsilon(0.4, 2)       # KitShortcut if epsilon calls overlap.epsilon

Inside the block every public function of each module given (or only the names listed after
it) raises KitShortcut, and so does any name of `namespace` (the notebook's globals) bound to one
of those functions (`from hybridlab.modelling.overlap import epsilon as e`). Everything is put
back on leaving the block.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType


class KitShortcut(AssertionError):
    """A graded function called the kit function that computes its answer."""


def _functions(module: ModuleType, names: tuple[str, ...]) -> dict[str, object]:
    if names:
        return {n: getattr(module, n) for n in names}
    return {
        n: f
        for n, f in vars(module).items()
        if not n.startswith("_")
        and (inspect.isfunction(f) or inspect.isclass(f))
        and f.__module__ == module.__name__
    }


def _blocked(module: ModuleType, name: str):
    def call(*args, **kwargs):
        raise KitShortcut(
            f"{module.__name__}.{name} computes this part's answer: write it yourself "
            "(the grader calls your function with it unavailable)"
        )

    return call


@contextmanager
def unavailable(*modules: ModuleType | tuple, namespace: dict | None = None) -> Iterator[None]:
    """Block the public functions (and classes) of each module, or of (module, name, ...)
    tuples only the names listed, and the names of `namespace` bound to them."""
    saved: list[tuple[object, str, object]] = []  # (owner, attribute or key, original)
    try:
        for entry in modules:
            module, *names = entry if isinstance(entry, tuple) else (entry,)
            found = _functions(module, tuple(names))
            originals = {id(f) for f in found.values()}
            for name, func in found.items():
                saved.append((module, name, func))
                setattr(module, name, _blocked(module, name))
            if namespace is not None:
                for key, value in list(namespace.items()):
                    if id(value) in originals:
                        saved.append((namespace, key, value))
                        namespace[key] = _blocked(module, getattr(value, "__name__", key))
        yield
    finally:
        for owner, name, original in reversed(saved):
            if isinstance(owner, dict):
                owner[name] = original
            else:
                setattr(owner, name, original)
