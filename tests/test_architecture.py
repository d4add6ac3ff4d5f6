"""The layer rules of hybridlab's package docstring, checked by reading every module's imports.

  - a harness module never imports a topic;
  - records, stats, compliance, reference, plots, traces and every topic module except `exercise`
    never import cluster, engine_set, launch, build, runs or _engine (they launch nothing).

Imports are read with ast (inside functions too, since lazy imports are imports), resolved to
modules of the package, including names the package exports lazily (`from hybridlab import
Cluster` and `hl.Cluster` both reach hybridlab.engines.cluster).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "hybridlab"
SRC = Path(__file__).resolve().parents[1] / "src"
TOPICS = (
    "hybrid_models",
    "sync",
    "p2p",
    "halo",
    "memory",
    "mapping",
    "collectives",
    "modelling",
    "pykernels",
    "shm",
    "thread_comm",
    "neighbour",
)
# they run kernels (simulate: under SimGrid SMPI, its own run path beside runs)
LAUNCHING = ("cluster", "engine_set", "launch", "build", "runs", "simulate", "_engine")
# harness parts that launch nothing
LAUNCH_FREE = ("records", "stats", "reference", "plots", "traces", "compliance")


def _modules(src: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the package."""
    found = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _exports(modules: dict[str, Path], package: str) -> dict[str, str]:
    """Names the package's __init__ hands out -> the module they come from (lazy ones too)."""
    init = modules.get(package)
    if init is None:
        return {}
    exports: dict[str, str] = {}
    for node in ast.walk(ast.parse(init.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                exports[alias.asname or alias.name] = f"{package}.{node.module}"
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            try:
                table = ast.literal_eval(node.value)
            except ValueError:
                continue
            if all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
                exports.update({k: f"{package}.{v}" for k, v in table.items()})
    return exports


def _resolve(name: str, modules: dict[str, Path], exports: dict[str, str], package: str) -> str:
    """The module `name` denotes: itself, the module a package attribute comes from, or its
    closest existing parent (an attribute of a module is an import of that module)."""
    if name in modules:
        return name
    parent, _, attr = name.rpartition(".")
    if parent == package and attr in exports:
        return exports[attr]
    while parent and parent not in modules:
        parent = parent.rpartition(".")[0]
    return parent or name


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(src: Path, package: str = PACKAGE) -> dict[str, set[str]]:
    """Every module of the package -> the package's modules it imports (anywhere in the file)."""
    modules = _modules(src, package)
    exports = _exports(modules, package)
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), str(path))
        names: set[str] = set()
        package_aliases: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    names.add(alias.name)
                    if alias.name == package:
                        package_aliases.add(alias.asname or alias.name)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(module, node, is_package)
                children = {f"{base}.{alias.name}" for alias in node.names}
                names.update(children)
                if not children & modules.keys():  # `from .sync import tables`: report tables
                    names.add(base)
        for node in ast.walk(tree):  # hl.Cluster(...) after `import hybridlab as hl`
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in package_aliases
            ):
                names.add(f"{package}.{node.attr}")
        resolved = {
            _resolve(n, modules, exports, package)
            for n in names
            if n == package or n.startswith(package + ".")
        }
        graph[module] = resolved - {module, package}
    return graph


def _topic(module: str, package: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in TOPICS else None


def _launch_free(module: str, package: str) -> bool:
    parts = module.split(".")
    if len(parts) < 2:
        return False
    if parts[1] in TOPICS:
        return parts[-1] != "exercise"
    return parts[1] in LAUNCH_FREE


def violations(graph: dict[str, set[str]], package: str = PACKAGE) -> list[str]:
    """Each broken rule, as 'importer -> imported: rule'."""
    found = []
    launching = {f"{package}.{m}" for m in LAUNCHING}
    for module, imported in sorted(graph.items()):
        for target in sorted(imported):
            if _topic(module, package) is None and _topic(target, package) is not None:
                found.append(f"{module} -> {target}: the harness never imports a topic")
            if _launch_free(module, package) and target in launching:
                found.append(f"{module} -> {target}: this module launches nothing")
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that import each other, directly or round a longer loop (the strongly
    connected components of more than one module), each sorted."""
    order, low, stack, found = {}, {}, [], []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in graph.get(module, ()):
            if target not in graph:
                continue
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return sorted(found)


# ------------------------------------------------------------------------------------- tests


def test_no_two_modules_import_each_other():
    """What both sides of a circle need lives below them (run_format under own_runs and replay,
    launcher.node_address under _controller, traces reading records and not the reverse)."""
    assert circles(imports_of(SRC)) == []


def test_the_circle_check_finds_a_lazy_loop(tmp_path):
    root = _write(tmp_path, {
        "__init__.py": "", "a.py": "from . import b\n", "c.py": "",
        "b.py": "def f():\n    from .c import x\n", "d.py": "from . import a\n",
    })
    assert circles(imports_of(root, "fakepkg")) == []
    (root / "fakepkg" / "c.py").write_text("def g():\n    from . import a\n")
    assert circles(imports_of(root, "fakepkg")) == [["fakepkg.a", "fakepkg.b", "fakepkg.c"]]


def test_the_package_keeps_its_layer_rules():
    graph = imports_of(SRC)
    assert f"{PACKAGE}.cluster" in graph and f"{PACKAGE}.records" in graph
    assert violations(graph) == []


def test_the_rules_are_written_in_the_package_docstring():
    import hybridlab

    doc = hybridlab.__doc__ or ""
    assert "never imports a topic" in doc
    assert all(name in doc for name in (*LAUNCHING, *TOPICS))


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "fakepkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (  # a harness module importing a topic, relative and lazy
            {"records.py": "def f():\n    from .sync import tables\n"},
            ["fakepkg.records -> fakepkg.sync.tables: the harness never imports a topic"],
        ),
        (  # a topic's table module launching kernels through the package's lazy name
            {"halo/tables.py": "import fakepkg as hl\n\nhl.run_program('x')\n"},
            ["fakepkg.halo.tables -> fakepkg.launch: this module launches nothing"],
        ),
        (  # plots building a kernel, absolute import
            {"plots/curves.py": "from fakepkg.build import build\n"},
            ["fakepkg.plots.curves -> fakepkg.build: this module launches nothing"],
        ),
        (  # stats reaching the engines' internals
            {"stats.py": "from . import _engine\n"},
            ["fakepkg.stats -> fakepkg._engine: this module launches nothing"],
        ),
        (  # allowed: a topic's exercise runs kernels; a topic uses another topic and the harness
            {
                "halo/exercise.py": "from ..launch import run_program\n",
                "modelling/amdahl.py": "from ..p2p import hockney\nfrom .. import placement\n",
                "cluster.py": "from . import runs\n",
            },
            [],
        ),
    ],
)
def test_the_check_detects_a_violating_import(tmp_path, files, expected):
    base = {
        "__init__.py": "from .build import build\n_WHERE = {'Cluster': 'cluster', "
        "'run_program': 'launch'}\n",
        "build.py": "",
        "launch.py": "",
        "cluster.py": "",
        "runs.py": "",
        "_engine.py": "",
        "placement.py": "",
        "records.py": "",
        "stats.py": "",
        "plots/__init__.py": "",
        "sync/__init__.py": "",
        "sync/tables.py": "",
        "halo/__init__.py": "",
        "p2p/__init__.py": "",
        "p2p/hockney.py": "",
        "modelling/__init__.py": "",
    }
    root = _write(tmp_path, {**base, **files})
    assert violations(imports_of(root, "fakepkg"), "fakepkg") == expected
