"""Execute a notebook headless, keep the executed copy and its figures, leave nothing running."""

from __future__ import annotations

import base64
import os
import sys
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from ..machine import reaper
from .kernelspec import NAME as KERNEL_NAME

# What the kernel prints on every start and is no news to whoever runs a notebook: ipykernel
# warns that its sockets are TCP without encryption (the kernel and client are on this machine)
KERNEL_NOISE = (b"Kernel is running over TCP without encryption",)


class NotebookError(RuntimeError):
    """A cell of the notebook raised; the executed copy up to that cell was still written."""


def headless_environment(
    session: str | None = None, *, quick: bool | None = None
) -> dict[str, str]:
    """The environment of a notebook run without a browser (by `hybridlab run` and by grading).

    The venv's bin first on PATH (its mpiexec), no prompts from ipyparallel, inline figures (kept
    in the executed copy), HYBRIDLAB_SESSION=`session` on everything the kernel starts (so the
    reaper finds it), HYBRIDLAB_QUICK=1 for small problem sizes, 0 for the full ones (None: as the
    caller's environment says, else the course's grading size released beside the lab)."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["IPP_NONINTERACTIVE"] = "1"
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    if session:
        env[reaper.SESSION] = session
    if quick is not None:
        env["HYBRIDLAB_QUICK"] = "1" if quick else "0"
    return env


def kernel_name() -> str:
    try:
        KernelSpecManager().get_kernel_spec(KERNEL_NAME)
        return KERNEL_NAME
    except NoSuchKernel:
        return "python3"


def save_figures(nb: nbformat.NotebookNode, folder: Path, stem: str) -> list[Path]:
    """Write every PNG output of the notebook to folder/<stem>-cell<N>-<k>.png."""
    saved = []
    for n, cell in enumerate(nb.cells):
        k = 0
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data:
                folder.mkdir(parents=True, exist_ok=True)
                path = folder / f"{stem}-cell{n:02d}-{k}.png"
                path.write_bytes(base64.b64decode(data["image/png"]))
                saved.append(path)
                k += 1
    return saved


def run_notebook(
    path: str | Path,
    out_dir: str | Path,
    *,
    quick: bool | None = None,
    timeout: int = 900,
    allow_errors: bool = False,
) -> tuple[Path, list[Path]]:
    """Run every cell in the notebook's own folder; returns (executed copy, figures).

    With allow_errors, cells that raise are recorded in the copy and the run goes on (as for a
    released lab whose exercises are still blank)."""
    path, out_dir = Path(path).resolve(), Path(out_dir).resolve()
    if not path.exists():
        raise FileNotFoundError(f"no notebook at {path}")
    nb = nbformat.read(path, as_version=4)
    session = f"notebook-{uuid.uuid4().hex[:12]}"
    env = headless_environment(session, quick=quick)
    env["JPY_SESSION_NAME"] = str(path)  # as JupyterLab says it: its runs are kept beside it
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=kernel_name(),
        resources={"metadata": {"path": str(path.parent)}},
        allow_errors=allow_errors,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    executed = out_dir / path.name
    failure = None
    with _kernel_stderr() as stderr:
        try:
            client.execute(env=env, stderr=stderr)
        except CellExecutionError as err:
            failure = err
        finally:
            nbformat.write(nb, executed)
            reaper.reap(session)
    figures = save_figures(nb, out_dir / "figures", path.stem)
    if failure is not None:
        raise NotebookError(
            f"{path.name} failed; executed copy in {executed}\n{failure}"
        ) from failure
    return executed, figures


@contextmanager
def _kernel_stderr():
    """A pipe for the kernel's stderr (and its children's), copied to ours line by line without
    the lines KERNEL_NOISE names."""
    read, write = os.pipe()

    def copy() -> None:
        with os.fdopen(read, "rb") as pipe:
            for line in pipe:
                if not any(noise in line for noise in KERNEL_NOISE):
                    sys.stderr.write(line.decode(errors="replace"))
                    sys.stderr.flush()

    copier = threading.Thread(target=copy, daemon=True)
    copier.start()
    try:
        yield write
    finally:
        os.close(write)
        copier.join(timeout=5)  # a process still holding the pipe must not hold us
