"""JupyterLab settings the kit installs into its environment: no news pop-up, no update check.

JupyterLab 4 asks every new user whether to fetch the Jupyter news feed, a pop-up that greets each
student on first start. `make setup` (so `make lab`, `make test` and the Docker images) writes
the kit's defaults to JupyterLab's application settings of the venv,
<sys.prefix>/share/jupyter/lab/settings/overrides.d/hybridlab.json (a user's own settings still
win):

    python -m hybridlab.labsettings           # install (what make setup runs)
    python -m hybridlab.labsettings --show    # the notification settings JupyterLab serves
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

NOTIFICATION = "@jupyterlab/apputils-extension:notification"
OVERRIDES = {NOTIFICATION: {"fetchNews": "false", "checkForUpdates": False}}


def _lab_app():
    from jupyterlab.labapp import LabApp

    return LabApp()  # its defaults: the venv's application and the user's settings folders


def overrides_file() -> Path:
    """Where JupyterLab of this environment reads the kit's overrides."""
    return Path(_lab_app().app_settings_dir) / "overrides.d" / "hybridlab.json"


def install() -> Path:
    """Write the overrides (idempotent); the file written."""
    path = overrides_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(OVERRIDES, indent=2) + "\n"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


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
