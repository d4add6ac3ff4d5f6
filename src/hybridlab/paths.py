"""Where the kit's folders are: kernels_c/, grading/ and labs/, and its caches.

In a checkout (an editable install, the Docker image) they sit beside src/. Elsewhere (a wheel
installed into a site's Python, a Slurm job with a copy of the course), point at them with
HYBRIDLAB_KERNELS, HYBRIDLAB_GRADING and HYBRIDLAB_LABS. A course's own kernels sit in `kernels/` of
its course folder (or HYBRIDLAB_COURSE_KERNELS), searched after the kit's kernels_c/. A folder that cannot be found raises
KitPathError saying which variable to set, instead of failing later on a missing file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# the checkout this module sits in: <repo>/src/hybridlab/paths.py
CHECKOUT = Path(__file__).resolve().parents[2]

_FOLDERS = {
    # name: (environment variable, folder in a checkout, a file that proves it is the right one)
    "kernels": ("HYBRIDLAB_KERNELS", "kernels_c", "hybridlab.h"),
    "grading": ("HYBRIDLAB_GRADING", "grading", "nbgrader_config.py"),
    "labs": ("HYBRIDLAB_LABS", "labs", None),
}


class KitPathError(FileNotFoundError):
    """A folder of the kit is not where it should be; the message names the variable to set."""


def _locate(name: str, *, must_exist: bool = True, beside: Path = CHECKOUT) -> Path:
    variable, folder, marker = _FOLDERS[name]
    given = os.environ.get(variable)
    path = Path(given).expanduser() if given else beside / folder
    if must_exist and not path.is_dir():
        where = f"{variable}={given}" if given else f"{path} (beside the package's src/)"
        raise KitPathError(
            f"the kit's {folder}/ folder was not found at {where}: hybridlab is not installed "
            f"from a checkout; set {variable} to the folder holding {marker or folder}"
        )
    if must_exist and marker and not (path / marker).exists():
        raise KitPathError(f"{path} has no {marker}: set {variable} to the kit's {folder}/ folder")
    return path


KERNELS_FOLDER = "kernels"  # a course's own kernels, in its course folder and beside its labs


def kernels_dir() -> Path:
    """kernels_c/: the C kernels and hybridlab.h (HYBRIDLAB_KERNELS overrides)."""
    return _locate("kernels")


def course_kernels_dirs() -> list[Path]:
    """The course's own kernels, searched after kernels_c/ (never instead of it): each folder of
    HYBRIDLAB_COURSE_KERNELS (a list like PATH), else `kernels/` in the course folder, then the
    copies that `hybridlab release` puts beside the released labs (labs/kernels/) and in the
    exchange's copy of each lab (kernels/ beside the notebook, the working folder of its
    kernel): a student's machine, image or hub account has no course folder; only the folders
    that exist, each once. A course kernel is
    written against the same hybridlab.h (its headers may include the kit's, as kernels_c/ is on
    the include path too)."""
    given = os.environ.get("HYBRIDLAB_COURSE_KERNELS")
    if given:
        folders = [Path(p).expanduser() for p in given.split(os.pathsep) if p]
    else:
        folders = [grading_dir(must_exist=False) / KERNELS_FOLDER,
                   labs_dir(must_exist=False) / KERNELS_FOLDER, Path.cwd() / KERNELS_FOLDER]  # fmt: skip
    found: list[Path] = []
    for folder in folders:
        if folder.is_dir() and all(folder.resolve() != f.resolve() for f in found):
            found.append(folder)
    return found


def kernel_dirs() -> list[Path]:
    """Where kernels and their headers are found, in order: kernels_c/, then the course's."""
    kit = kernels_dir()
    return [kit, *(d for d in course_kernels_dirs() if d.resolve() != kit.resolve())]


def find_kernel_file(filename: str) -> Path | None:
    """The first `filename` (a kernel's .c, a <kernel>_student.h) on the kernel search path."""
    for folder in kernel_dirs():
        if (folder / filename).is_file():
            return folder / filename
    return None


def grading_dir(*, must_exist: bool = True) -> Path:
    """grading/: nbgrader's course folder (HYBRIDLAB_GRADING overrides)."""
    return _locate("grading", must_exist=must_exist)


def labs_dir(*, must_exist: bool = True, course: Path | None = None) -> Path:
    """labs/: the released notebooks (HYBRIDLAB_LABS overrides; else beside the course folder,
    `course` or grading_dir(), so a private course releases beside itself); release may create
    it."""
    course = Path(course) if course is not None else grading_dir(must_exist=False)
    return _locate("labs", must_exist=must_exist, beside=course.parent)


def cache_root() -> Path:
    """The kit's cache: HYBRIDLAB_CACHE, else ~/.cache/hybridlab (builds, numba's JIT cache)."""
    given = os.environ.get("HYBRIDLAB_CACHE")
    return Path(given).expanduser() if given else Path.home() / ".cache" / "hybridlab"


def numba_cache_dir() -> Path:
    """Where numba keeps the machine code of `cache=True` kernels (NUMBA_CACHE_DIR of the kit)."""
    return cache_root() / "numba"


def venv_bin() -> Path:
    """The bin folder of the Python running us: where the venv's mpiexec and mpicc live."""
    return Path(sys.executable).parent
