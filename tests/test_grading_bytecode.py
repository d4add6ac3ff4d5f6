"""The kit's bytecode compiled before a class is graded (grading/bytecode.py): a Python that may
not write bytecode, as the sandbox's Pythons cannot, then loads the modules instead of compiling
them again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hybridlab.grading import bytecode


def _import(parent: Path | None, module: str) -> tuple[bool, str]:
    """(whether a fresh Python that writes no bytecode loaded `module` from bytecode, what
    `print(module.X)` printed, or '')."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    if parent is not None:
        env["PYTHONPATH"] = str(parent)
    show = f"; print({module}.X)" if parent is not None else ""
    run = subprocess.run(
        [sys.executable, "-v", "-c", f"import {module}{show}"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    leaf = module.rsplit(".", 1)[-1]
    from_bytecode = any(
        line.startswith("# code object from ") and f"/__pycache__/{leaf}." in line
        for line in run.stderr.splitlines()
    )
    return from_bytecode, run.stdout.strip()


def _package(tmp_path: Path) -> Path:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for folder in ("pkg", "pkg/sub"):
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "pkg" / "top.py").write_text("X = 1\n")
    (tmp_path / "pkg" / "sub" / "deep.py").write_text("X = 2\n")
    return tmp_path / "pkg"


def test_every_module_of_the_package_loads_from_bytecode(tmp_path):
    package = _package(tmp_path)
    assert _import(tmp_path, "pkg.top") == (False, "1")  # compiled from source each time
    bytecode.compile_kit(package)
    assert _import(tmp_path, "pkg.top") == (True, "1")
    assert _import(tmp_path, "pkg.sub.deep") == (True, "2")


def test_a_changed_module_is_compiled_again(tmp_path):
    package = _package(tmp_path)
    bytecode.compile_kit(package)
    top = package / "top.py"
    top.write_text("X = 'changed'\n")
    os.utime(top, (top.stat().st_atime, top.stat().st_mtime + 2))  # edited a moment later
    assert _import(tmp_path, "pkg.top") == (False, "changed")  # stale bytecode is not used
    bytecode.compile_kit(package)
    assert _import(tmp_path, "pkg.top") == (True, "changed")


def test_the_kits_lab_modules_load_from_bytecode_after_it():
    bytecode.compile_kit()
    assert bytecode.kit_folder() == Path(sys.modules["hybridlab"].__file__).resolve().parent
    assert _import(None, "hybridlab.sync.exercise")[0]
