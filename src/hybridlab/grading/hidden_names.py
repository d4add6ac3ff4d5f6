"""A hidden test cell's private names kept apart from the student's.

A hidden test cell runs in the student's namespace, so the names it binds for itself (`_r`,
`_rng`, `_cases`, ...) would replace a student's helper of the same name, and the student's
function, called by the test, would then read the test's value (a right answer lost its points
that way). `separate(source)` renames every private name the cell binds at its top level to one
under the kit's reserved prefix, everywhere in the cell, and removes them from the namespace when
the cell ends (failed or not), so no drawn input is left behind for a later cell to read.

A private name: one underscore first, not `_` alone, not a dunder, not the kit's own `_hl`.

A builtin the cell calls by name (`sorted`, `open`, `int`, ...) would be found in the student's
namespace first, so an answer cell defining `sorted` would rewrite what the test counts: every
builtin name the cell reads and never binds is read from BUILTINS, a name the guard binds to the
interpreter's own builtins module and puts back after every answer cell (grading/_guard.py).
"""

from __future__ import annotations

import ast
import builtins

from nbgrader.preprocessors import ClearHiddenTests

from ._guard import BUILTINS

# nbgrader's own delimiter (grading/nbgrader_config.py names the same one)
BEGIN_HIDDEN = ClearHiddenTests.begin_test_delimeter.default_value
PREFIX = "_hl_hidden"
# builtins read by name, but for `super` (zero-argument super needs the bare name) and the
# names IPython itself rebinds in the builtins module
_BUILTIN_NAMES = {n for n in vars(builtins) if not n.startswith("_")} - {
    "super", "input", "display", "get_ipython", "exit", "quit", "help"}


def _private(name: str) -> bool:
    return (name.startswith("_") and name != "_" and not name.startswith("__")
            and not name.startswith("_hl"))  # fmt: skip


def _bound_at_top(tree: ast.Module) -> set[str]:
    """The private names the cell binds outside any function or class body."""
    bound: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            return  # its body is a scope of its own
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.alias):
            bound.add(node.asname or node.name.split(".")[0])
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in tree.body:
        visit(statement)
    return {name for name in bound if _private(name)}


def _bound_anywhere(tree: ast.Module) -> set[str]:
    """Every name the cell binds, in any scope (so a builtin it shadows itself is left alone)."""
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    bound |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    bound |= {a.asname or a.name.split(".")[0] for a in ast.walk(tree) if isinstance(a, ast.alias)}
    scoped = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return bound | {n.name for n in ast.walk(tree) if isinstance(n, scoped)}


class _Rename(ast.NodeTransformer):
    def __init__(self, names: set[str], builtin_names: set[str]):
        self.names, self.builtin_names = names, builtin_names

    def _new(self, name: str) -> str:
        return f"{PREFIX}{name}" if name in self.names else name

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.builtin_names:
            return ast.copy_location(
                ast.Attribute(ast.Name(BUILTINS, ast.Load()), node.id, ast.Load()), node)
        node.id = self._new(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self._new(node.arg)
        return node

    def visit_alias(self, node: ast.alias) -> ast.alias:
        bound = node.asname or node.name.split(".")[0]
        if bound in self.names:
            if node.asname is None and "." in node.name:  # `import _a.b` binds the package _a
                raise ValueError(f"a hidden test cell imports the private package {bound!r}")
            node.asname = self._new(bound)
        return node

    def _scoped(self, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            node.name = self._new(node.name)
        return self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Global(self, node: ast.Global) -> ast.Global:
        node.names = [self._new(n) for n in node.names]
        return node

    visit_Nonlocal = visit_Global


def separate(source: str, namespace: str = "get_ipython().user_ns") -> str:
    """The cell's source with its private names renamed (PREFIX + name) and removed from
    `namespace` when it ends, and the builtins it reads read from BUILTINS. A keyword argument
    named like a private name (`f(_r=1)`) is an authoring error: it names a parameter, not a
    variable, and would no longer match a renamed parameter."""
    tree = ast.parse(source)
    names = _bound_at_top(tree)
    keywords = {k.arg for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg in names}
    if keywords:
        raise ValueError(f"a hidden test cell passes {sorted(keywords)} by keyword and binds "
                         "the same private name: rename one of them")  # fmt: skip
    tree = _Rename(names, _BUILTIN_NAMES - _bound_anywhere(tree)).visit(tree)
    if not names:
        return ast.unparse(ast.fix_missing_locations(tree))
    renamed = sorted(f"{PREFIX}{n}" for n in names)
    forget = ast.parse(f"[{namespace}.pop(name, None) for name in {renamed!r}]").body
    body = [ast.Try(body=tree.body, handlers=[], orelse=[], finalbody=forget)]
    return ast.unparse(ast.fix_missing_locations(ast.Module(body=body, type_ignores=[])))
