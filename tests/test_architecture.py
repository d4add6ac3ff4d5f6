"""The wings of hybridlab and their order, as the package docstring states them, checked by
reading every module's imports.

  - a wing imports only its own modules and the wings below it (LAYERS, bottom first; wings on
    one floor do not import each other): nothing imports a wing above it;
  - so the harness never imports a topic, and only the door (__init__, cli) sits above them;
  - runs.records, runs.stats, runs.compliance, runs.traces, reference, plots and every topic
    module except `exercise` never import what launches or builds (LAUNCHING).

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
    "whole_program",
    "shm",
    "thread_comm",
    "neighbour",
    "offload",
    "tools",
)
# Floors, bottom first. A wing is a subpackage (all topics count as one wing, `topics`) or a
# module of the package root.
LAYERS = (
    ("errors", "settings", "progress", "paths", "reference"),  # shared by all, import nothing
    ("kernels",),  # the C build, C cells
    ("machine",),  # topology, placement, launcher, probe, reaper
    ("runs",),  # the run path and what is kept of a run
    ("engines", "slurm", "simulate", "course", "plots"),
    ("grading",),
    ("topics",),
    ("cli", "__init__"),  # the door
)
# they build or run kernels (simulate: under SimGrid SMPI, its own run path beside runs)
LAUNCHING = ("engines", "kernels", "slurm", "simulate", "runs.launch", "runs.run_path")
# parts that launch nothing
LAUNCH_FREE = ("runs.records", "runs.stats", "runs.traces", "runs.compliance", "reference", "plots")


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


def wing(module: str, package: str = PACKAGE) -> str:
    """The wing a module belongs to: its subpackage, `topics`, or the root module itself."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return "topics" if parts[1] in TOPICS else parts[1]


def _floor(wing_name: str) -> int | None:
    return next((i for i, floor in enumerate(LAYERS) if wing_name in floor), None)


def _within(module: str, names: tuple[str, ...], package: str) -> bool:
    return any(module == f"{package}.{n}" or module.startswith(f"{package}.{n}.") for n in names)


def _launch_free(module: str, package: str) -> bool:
    if wing(module, package) == "topics":
        return module.rpartition(".")[2] != "exercise"
    return _within(module, LAUNCH_FREE, package)


def violations(graph: dict[str, set[str]], package: str = PACKAGE) -> list[str]:
    """Each broken rule, as 'importer -> imported: rule'."""
    found = []
    for module, imported in sorted(graph.items()):
        here = wing(module, package)
        for target in sorted(imported):
            there = wing(target, package)
            if _floor(here) is None:
                found.append(f"{module}: wing {here!r} is on no floor of LAYERS")
            elif there != here and _floor(there) is not None and _floor(there) >= _floor(here):
                side = "above" if _floor(there) > _floor(here) else "beside"
                found.append(f"{module} -> {target}: {there} is {side} {here}")
            if _launch_free(module, package) and _within(target, LAUNCHING, package):
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
    launcher.node_address under the engines' controller, traces reading records and not the
    reverse)."""
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
    assert f"{PACKAGE}.engines.cluster" in graph and f"{PACKAGE}.runs.records" in graph
    assert violations(graph) == []


def test_every_wing_is_on_a_floor():
    """A new subpackage or root module must be given its floor in LAYERS (and the docstring)."""
    wings = {wing(module) for module in imports_of(SRC)}
    assert sorted(w for w in wings if _floor(w) is None) == []


def test_the_rules_are_written_in_the_package_docstring():
    import hybridlab

    doc = hybridlab.__doc__ or ""
    assert "never imports a topic" in doc and "never one above" in doc
    floors = [name for floor in LAYERS for name in floor if name != "__init__"]
    assert all(name in doc for name in (*floors, *LAUNCHING, *LAUNCH_FREE, *TOPICS))


def test_the_public_names_and_the_old_imports_of_released_labs_still_work():
    """The door's names reach their wings; the flat names labs released before the wings import
    (`%load_ext hybridlab.c_cells`, `from hybridlab import compliance`) give the moved module."""
    import importlib

    import hybridlab as hl

    assert all(getattr(hl, name) is not None for name in hl.__all__)
    assert hl.Cluster.__module__ == "hybridlab.engines.cluster"
    for old, new in hl._MOVED.items():
        moved = importlib.import_module(f"hybridlab.{new}")
        assert importlib.import_module(f"hybridlab.{old}") is moved
    from hybridlab import compliance

    assert compliance.__name__ == "hybridlab.runs.compliance"
    with pytest.raises(ModuleNotFoundError):  # only what released labs named
        importlib.import_module("hybridlab.records")


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "fakepkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (  # the run path importing a topic, relative and lazy
            {"runs/records.py": "def f():\n    from ..sync import tables\n"},
            [
                "fakepkg.runs.records -> fakepkg.sync.tables: topics is above runs",
            ],
        ),
        (  # the machine importing the run path (a wing above it)
            {"machine/placement.py": "from ..runs.records import Results\n"},
            ["fakepkg.machine.placement -> fakepkg.runs.records: runs is above machine"],
        ),
        (  # the build importing the machine's topology, absolute
            {"kernels/build.py": "from fakepkg.machine import topology\n"},
            ["fakepkg.kernels.build -> fakepkg.machine.topology: machine is above kernels"],
        ),
        (  # two wings of one floor
            {"slurm/jobs.py": "from ..engines import cluster\n"},
            ["fakepkg.slurm.jobs -> fakepkg.engines.cluster: engines is beside slurm"],
        ),
        (  # a topic's table module launching kernels through the package's lazy name
            {"halo/tables.py": "import fakepkg as hl\n\nhl.run_program('x')\n"},
            ["fakepkg.halo.tables -> fakepkg.runs.launch: this module launches nothing"],
        ),
        (  # plots building a kernel
            {"plots/curves.py": "from fakepkg.kernels.build import build\n"},
            ["fakepkg.plots.curves -> fakepkg.kernels.build: this module launches nothing"],
        ),
        (  # stats reaching the engines: above it, and launching
            {"runs/stats.py": "from ..engines import engine\n"},
            [
                "fakepkg.runs.stats -> fakepkg.engines.engine: engines is above runs",
                "fakepkg.runs.stats -> fakepkg.engines.engine: this module launches nothing",
            ],
        ),
        (  # a wing nobody placed
            {"extras/__init__.py": "from ..runs import records\n"},
            ["fakepkg.extras: wing 'extras' is on no floor of LAYERS"],
        ),
        (  # allowed: a topic's exercise runs kernels; a topic uses another topic and the
            # harness; the engines use the run path below them; the door uses everything
            {
                "halo/exercise.py": "from ..runs.launch import run_program\n",
                "modelling/amdahl.py": "from ..p2p import hockney\n"
                "from ..machine import placement\n",
                "engines/cluster.py": "from ..runs import run_path\nfrom .. import paths\n",
                "cli.py": "from .grading import course\nfrom .halo import exercise\n",
            },
            [],
        ),
    ],
)
def test_the_check_detects_a_violating_import(tmp_path, files, expected):
    base = {
        "__init__.py": "from .kernels.build import build\n_WHERE = {'Cluster': 'engines.cluster', "
        "'run_program': 'runs.launch'}\n",
        "paths.py": "",
        "cli.py": "",
        "kernels/__init__.py": "",
        "kernels/build.py": "",
        "machine/__init__.py": "",
        "machine/placement.py": "",
        "machine/topology.py": "",
        "runs/__init__.py": "",
        "runs/launch.py": "",
        "runs/run_path.py": "",
        "runs/records.py": "",
        "runs/stats.py": "",
        "engines/__init__.py": "",
        "engines/cluster.py": "",
        "engines/engine.py": "",
        "slurm/__init__.py": "",
        "slurm/jobs.py": "",
        "grading/__init__.py": "",
        "grading/course.py": "",
        "plots/__init__.py": "",
        "sync/__init__.py": "",
        "sync/tables.py": "",
        "halo/__init__.py": "",
        "halo/exercise.py": "",
        "p2p/__init__.py": "",
        "p2p/hockney.py": "",
        "modelling/__init__.py": "",
    }
    root = _write(tmp_path, {**base, **files})
    assert violations(imports_of(root, "fakepkg"), "fakepkg") == expected
