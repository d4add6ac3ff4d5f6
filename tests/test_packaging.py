"""Packaging checks: Dockerfile, environment.yml and requirements.lock agree with pyproject.toml.

No network and no Docker engine: the files are parsed and hadolint lints the Dockerfile.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

# pip name -> conda-forge name, for packages that are named differently on conda-forge.
# None differ today; add an entry here rather than special-casing names in the tests.
CONDA_NAMES: dict[str, str] = {}

# Files that `make setup` needs inside the image (they must not be in .dockerignore).
SETUP_INPUTS = ["Makefile", "pyproject.toml", "requirements.lock", "README.md", "src", "kernels_c"]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


# Extras kept out of requirements.lock and environment.yml (students never install them), each
# pinned in its own lock file that its make target installs.
SEPARATE_EXTRAS = {"browser": "requirements-browser.lock", "hub": "requirements-hub.lock"}


def _requirements() -> list[Requirement]:
    """All requirements of the project: dependencies plus every optional extra that students get."""
    project = _pyproject()["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for name, extra in project.get("optional-dependencies", {}).items():
        if name not in SEPARATE_EXTRAS:
            reqs.extend(Requirement(r) for r in extra)
    return reqs


def _lock_pins(lock: str = "requirements.lock") -> dict[str, str]:
    """name -> pinned version from a lock file (uv pip compile output)."""
    pins: dict[str, str] = {}
    for line in (ROOT / lock).read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)", line)
        if m:
            pins[canonicalize_name(m.group(1))] = m.group(2)
    return pins


def _environment() -> tuple[dict[str, str], dict[str, str]]:
    """(conda specs, pip specs) of environment.yml, each name -> version-spec text."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda: dict[str, str] = {}
    pip: dict[str, str] = {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            for line in dep.get("pip", []):
                req = Requirement(line)
                pip[canonicalize_name(req.name)] = str(req.specifier)
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$", dep.strip())
        assert m, f"environment.yml: cannot parse dependency {dep!r}"
        conda[canonicalize_name(m.group(1))] = m.group(2).strip()
    return conda, pip


def _conda_name(pip_name: str) -> str:
    return canonicalize_name(CONDA_NAMES.get(canonicalize_name(pip_name), pip_name))


def _dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs of the Dockerfile, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text()
    logical: list[str] = []
    buf = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # comment inside a continued instruction
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        logical.append(buf + line)
        buf = ""
    if buf:
        logical.append(buf)
    out = []
    for item in logical:
        keyword, _, args = item.partition(" ")
        out.append((keyword.upper(), args.strip()))
    return out


# --- (a) hadolint ---------------------------------------------------------------------------


def test_hadolint_is_clean() -> None:
    hadolint = BIN / "hadolint"
    assert hadolint.exists(), f"hadolint not found next to {sys.executable}: install the dev extra"
    proc = subprocess.run(
        [str(hadolint), "--no-color", "Dockerfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"hadolint findings:\n{proc.stdout}{proc.stderr}"


# --- (b) every dependency is in environment.yml and pinned in range in requirements.lock ------


@pytest.mark.parametrize("req", _requirements(), ids=lambda r: r.name)
def test_dependency_in_environment_yml(req: Requirement) -> None:
    conda, pip = _environment()
    name = canonicalize_name(req.name)
    assert _conda_name(name) in conda or name in pip, (
        f"{req.name} is a pyproject dependency but not in environment.yml "
        f"(conda name {_conda_name(name)!r}; PyPI-only packages go under pip:)"
    )


@pytest.mark.parametrize("req", _requirements(), ids=lambda r: r.name)
def test_dependency_pinned_in_lock_within_range(req: Requirement) -> None:
    pins = _lock_pins()
    name = canonicalize_name(req.name)
    assert name in pins, f"{req.name} is missing from requirements.lock: re-run uv pip compile"
    version = pins[name]
    assert req.specifier.contains(version, prereleases=True), (
        f"requirements.lock pins {req.name}=={version}, outside pyproject's {req.specifier}"
    )


@pytest.mark.parametrize("extra", sorted(SEPARATE_EXTRAS))
def test_separate_extra_pinned_in_its_own_lock(extra: str) -> None:
    reqs = [Requirement(r) for r in _pyproject()["project"]["optional-dependencies"][extra]]
    pins, base = _lock_pins(SEPARATE_EXTRAS[extra]), _lock_pins()
    for req in reqs:
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is missing from {SEPARATE_EXTRAS[extra]}"
        assert req.specifier.contains(pins[name], prereleases=True)
        assert name not in base, f"{req.name} must stay out of requirements.lock (students)"
    clashes = {n: (v, base[n]) for n, v in pins.items() if n in base and base[n] != v}
    assert not clashes, f"{SEPARATE_EXTRAS[extra]} disagrees with requirements.lock: {clashes}"


def test_lock_environment_and_image_use_the_same_python() -> None:
    header = (ROOT / "requirements.lock").read_text()
    m = re.search(r"--python-version[ =](\d+\.\d+)", header)
    assert m, "requirements.lock does not say which Python it was compiled for"
    conda, _ = _environment()
    assert conda.get("python") == f"={m.group(1)}", (
        f"environment.yml python {conda.get('python')!r} differs from the lock's {m.group(1)}"
    )
    # debian:bookworm ships Python 3.11, the default base of the Dockerfile.
    assert m.group(1) == "3.11", "the lock's Python no longer matches debian:bookworm's 3.11"


# --- (c) the Dockerfile ------------------------------------------------------------------------


def test_dockerfile_base_is_a_bookworm_arg() -> None:
    instr = _dockerfile_instructions()
    first_from = next(i for i, (k, _) in enumerate(instr) if k == "FROM")
    args_before = [a for k, a in instr[:first_from] if k == "ARG"]
    assert "BASE=debian:bookworm-slim" in args_before
    assert instr[first_from][1].split()[0] in ("${BASE}", "$BASE")


def _stages() -> dict[str, list[tuple[str, str]]]:
    """Stage name -> its instructions (a multi-stage Dockerfile), in order; the last is default."""
    stages: dict[str, list[tuple[str, str]]] = {}
    current = None
    for keyword, args in _dockerfile_instructions():
        if keyword == "FROM":
            current = args.split()[-1] if " AS " in args.upper() else args
            stages[current] = []
        elif current is not None:
            stages[current].append((keyword, args))
    return stages


MARKERS = re.compile(r"BEGIN (SOLUTION|HIDDEN TESTS)")


def test_the_default_image_copies_no_solution_and_the_instructor_image_everything() -> None:
    """The fast half of tests/test_image.py's check: the student stage (the last, so the default
    target) copies the released labs and what `make setup` needs, none of grading/ or tests/, and
    no file it copies holds a solution or hidden-test marker; the instructor stage copies all."""
    stages = _stages()
    assert list(stages)[-1] == "student" and "instructor" in stages
    assert ("COPY", "--chown=student:student . .") in stages["instructor"]
    copied = []
    for keyword, args in stages["student"]:
        # COPY --from=<stage> copies from another stage, not from the repository: the book's
        # built pages (test_image scans every file of the built image)
        if keyword == "COPY" and "--from=" not in args:
            words = [w for w in args.split() if not w.startswith("--")]
            copied += words[:-1]
    assert "labs" in copied and "." not in copied
    assert not {"grading", "tests", "book"} & set(copied)
    for needed in SETUP_INPUTS:
        assert needed in copied, f"the student image lacks {needed}, which make setup needs"
    leaks = []
    for name in copied:
        path = ROOT / name
        files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
        for f in files:
            if "__pycache__" in f.parts or f.suffix == ".pyc" or ".egg-info" in str(f):
                continue  # left out by .dockerignore
            if MARKERS.search(f.read_text(errors="replace")):
                leaks.append(str(f.relative_to(ROOT)))
    assert not leaks, f"the student image would carry solution or hidden-test text: {leaks}"


def test_dockerfile_installs_like_the_makefile() -> None:
    instr = _dockerfile_instructions()
    runs = [a for k, a in instr if k == "RUN"]
    assert any(re.search(r"\bmake setup\b", r) or "requirements.lock" in r for r in runs), (
        "the image must install with `make setup` (or from requirements.lock)"
    )
    makefile = (ROOT / "Makefile").read_text()
    # `make setup` installs from $(LOCK): requirements.lock unless a target (test-openmpi) says
    assert re.search(r"pip install .*-r \$\(LOCK\)", makefile) and re.search(
        r"^LOCK\s*\?=\s*requirements\.lock$", makefile, re.MULTILINE
    ), "`make setup` no longer installs from requirements.lock"
    apt = " ".join(r for r in runs if "apt-get install" in r)
    for pkg in ("python3", "python3-venv", "gcc", "libc6-dev", "make"):
        assert re.search(rf"(?<![\w-]){re.escape(pkg)}(?![\w-])", apt), f"apt installs no {pkg}"
    assert "--no-install-recommends" in apt


def test_dockerfile_runs_as_a_created_non_root_user() -> None:
    instr = _dockerfile_instructions()
    users = [(i, a) for i, (k, a) in enumerate(instr) if k == "USER"]
    assert users, "the Dockerfile has no USER: the image would run as root"
    last_index, last_user = users[-1]
    user = last_user.split(":")[0]
    assert user not in ("root", "0"), f"final USER is {last_user}"
    created = " ".join(a for k, a in instr if k == "RUN" and "useradd" in a)
    if user.isdigit():
        assert re.search(rf"--uid[ =]{user}\b|-u {user}\b", created), f"no useradd for uid {user}"
    else:
        assert re.search(rf"\b{re.escape(user)}\b", created), f"no useradd for user {user}"
    setup = [i for i, (k, a) in enumerate(instr) if k == "RUN" and "make setup" in a]
    assert setup, "the Dockerfile never runs `make setup`"
    assert last_index < setup[0], "run `make setup` as the student so .venv is theirs"


def test_dockerfile_serves_jupyterlab_on_8888() -> None:
    instr = _dockerfile_instructions()
    assert ("EXPOSE", "8888") in instr
    cmd = [a for k, a in instr if k == "CMD"][-1]
    for part in ("jupyter", "lab", "--ip=0.0.0.0", "--port=8888", "--no-browser", "labs"):
        assert part in cmd, f"CMD lacks {part}: {cmd}"
    env = " ".join(a for k, a in instr if k == "ENV")
    assert re.search(r"PATH=\"?/opt/hybridlab/\.venv/bin:", env), "venv bin not first"


def test_dockerignore_keeps_local_state_out_and_setup_inputs_in() -> None:
    patterns = [
        line.strip().strip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for required in (".venv", ".git", "book/_build", "grading/submitted"):
        assert required in patterns, f".dockerignore does not exclude {required}"
    for needed in SETUP_INPUTS:
        hits = [p for p in patterns if not p.startswith("!") and fnmatch.fnmatch(needed, p)]
        assert not hits, f".dockerignore excludes {needed}, which make setup needs: {hits}"


# --- (d) environment.yml ranges agree with pyproject -------------------------------------------


@pytest.mark.parametrize("req", [r for r in _requirements() if r.specifier], ids=lambda r: r.name)
def test_environment_yml_range_matches_pyproject(req: Requirement) -> None:
    conda, pip = _environment()
    name = canonicalize_name(req.name)
    text = pip[name] if name in pip else conda.get(_conda_name(name))
    assert text is not None, f"{req.name} missing from environment.yml"
    try:
        spec = SpecifierSet(text.replace(" ", ""))
    except InvalidSpecifier:
        pytest.fail(f"environment.yml range {text!r} for {req.name} is not a pip-style range")
    assert spec == req.specifier, (
        f"{req.name}: environment.yml has {text!r}, pyproject has {str(req.specifier)!r}"
    )


def _pins(lock: str) -> list[str]:
    """The `name==version` lines of a lock file, in order."""
    lines = (ROOT / lock).read_text().splitlines()
    return [line for line in lines if "==" in line and not line.startswith("#")]


def test_the_open_mpi_lock_is_the_lock_with_openmpi_for_mpich() -> None:
    """requirements-openmpi.lock (make test-openmpi) pins what requirements.lock pins, with PyPI's
    openmpi wheel where the other has mpich: the two suites test the same packages."""
    main, openmpi = _pins("requirements.lock"), _pins("requirements-openmpi.lock")
    assert [p for p in main if not p.startswith("mpich==")] == [
        p for p in openmpi if not p.startswith("openmpi==")
    ]
    assert sum(p.startswith("mpich==") for p in main) == 1
    assert [p for p in openmpi if p.startswith(("openmpi==", "mpich=="))] == ["openmpi==5.0.11"]
