"""What the kit installs into JupyterLab: its settings overrides and its C-cell extension.

`make setup` (so `make lab`, `make test` and the Docker images) runs this module, which installs
into the venv, idempotently:

- JupyterLab settings overrides: no news pop-up, no update check. JupyterLab 4 asks every new user
  whether to fetch the Jupyter news feed, a pop-up that greets each student on first start; the
  kit's defaults go to JupyterLab's application settings of the venv,
  <sys.prefix>/share/jupyter/lab/settings/overrides.d/hybridlab.json (a user's own settings still
  win).
- The prebuilt (federated) extension `hybridlab-c-cells`, which highlights a notebook code cell
  whose first line is `%%c ...` as C instead of Python: its built files, kept in the package
  (hybridlab/labextension/, built from labextension/ by `make labextension`, which needs node),
  are copied to <sys.prefix>/share/jupyter/labextensions/hybridlab-c-cells/, where JupyterLab
  finds prebuilt extensions (no node at install time).

    python -m hybridlab.course.labsettings           # install (what make setup runs)
    python -m hybridlab.course.labsettings --show    # the notification settings JupyterLab serves
"""

from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import sys
from pathlib import Path

NOTIFICATION = "@jupyterlab/apputils-extension:notification"
OVERRIDES = {NOTIFICATION: {"fetchNews": "false", "checkForUpdates": False}}
EXTENSION = "hybridlab-c-cells"
BUILT_EXTENSION = Path(__file__).resolve().parents[1] / "labextension"  # package.json + static/


def _lab_app():
    from jupyterlab.labapp import LabApp

    return LabApp()  # its defaults: the venv's application and the user's settings folders


def overrides_file() -> Path:
    """Where JupyterLab of this environment reads the kit's overrides."""
    return Path(_lab_app().app_settings_dir) / "overrides.d" / "hybridlab.json"


def install() -> Path:
    """Write the overrides and install the extension (idempotent); the overrides file."""
    path = overrides_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(OVERRIDES, indent=2) + "\n"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    install_extension()
    return path


def extension_dir(prefix: str | Path | None = None) -> Path:
    """Where JupyterLab of the environment at `prefix` (default: this one) finds the extension."""
    return Path(prefix or sys.prefix) / "share" / "jupyter" / "labextensions" / EXTENSION


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def install_extension(prefix: str | Path | None = None) -> Path:
    """Copy the built extension into the environment at `prefix`, replacing an installed copy
    that differs (idempotent: an identical copy is left alone); the folder installed."""
    if not (BUILT_EXTENSION / "package.json").is_file():
        raise FileNotFoundError(f"the built extension is missing: {BUILT_EXTENSION}/package.json")
    target = extension_dir(prefix)
    files = _files(BUILT_EXTENSION)
    if target.is_dir() and not target.is_symlink() and _files(target) == files:
        _, mismatch, errors = filecmp.cmpfiles(BUILT_EXTENSION, target, files, shallow=False)
        if not mismatch and not errors:
            return target
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(BUILT_EXTENSION, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def served(plugin: str = NOTIFICATION) -> dict:
    """A plugin's settings as JupyterLab's settings API composes them: schema defaults, then the
    application overrides, then the user's own settings."""
    from jupyterlab_server.settings_utils import get_settings

    app = _lab_app()
    result, _ = get_settings(
        app.app_settings_dir, app.schemas_dir, app.user_settings_dir, schema_name=plugin
    )
    values = {k: p["default"] for k, p in result["schema"]["properties"].items() if "default" in p}
    values.update(result.get("settings") or {})
    return values


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print the served settings as JSON")
    args = parser.parse_args(argv)
    if args.show:
        print(json.dumps(served()))
    else:
        install()


if __name__ == "__main__":
    main()
