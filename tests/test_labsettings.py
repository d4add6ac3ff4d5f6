"""What the kit installs into JupyterLab. The news pop-up is off: `make setup` installs the kit's
settings overrides, and a fresh user's JupyterLab (its own empty settings folders) serves
fetchNews "false" and no update check through its settings API, the way the browser reads them.
The C-cell extension (hybridlab-c-cells, built into the package) is copied where JupyterLab finds
prebuilt extensions, and `jupyter labextension list` shows it enabled (tests/test_browser.py
checks its highlighting in chromium)."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from jupyterlab_server.config import get_federated_extensions

from hybridlab.course import labsettings

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
JUPYTER = Path(sys.executable).parent / "jupyter"


def test_make_setup_installs_the_overrides():
    assert "-m hybridlab.course.labsettings" in (ROOT / "Makefile").read_text().split("\nlab:")[0]
    path = labsettings.install()
    assert path.is_relative_to(Path(sys.prefix))
    assert json.loads(path.read_text()) == labsettings.OVERRIDES
    assert labsettings.install() == path  # idempotent


def test_the_extension_is_installed_where_jupyterlab_looks(tmp_path: Path):
    built = labsettings.BUILT_EXTENSION
    target = labsettings.install_extension(tmp_path)
    assert target == tmp_path / "share" / "jupyter" / "labextensions" / "hybridlab-c-cells"
    assert (target / "package.json").read_bytes() == (built / "package.json").read_bytes()
    found = get_federated_extensions([str(tmp_path / "share" / "jupyter" / "labextensions")])
    meta = found["hybridlab-c-cells"]["jupyterlab"]["_build"]  # what the page loads
    assert (target / meta["load"]).is_file()
    assert meta["extension"] == "./extension"

    stamp = (target / "package.json").stat().st_mtime_ns
    assert labsettings.install_extension(tmp_path) == target  # idempotent: left alone
    assert (target / "package.json").stat().st_mtime_ns == stamp
    (target / meta["load"]).write_text("stale")  # an older or edited copy is replaced
    (target / "static" / "left-over.js").write_text("")
    labsettings.install_extension(tmp_path)
    assert (target / meta["load"]).read_bytes() == (built / meta["load"]).read_bytes()
    assert not (target / "static" / "left-over.js").exists()


def test_the_built_extension_is_packaged_and_matches_its_source():
    source = json.loads((ROOT / "labextension" / "package.json").read_text())
    built = json.loads((labsettings.BUILT_EXTENSION / "package.json").read_text())
    assert built["name"] == labsettings.EXTENSION == source["name"]
    built["jupyterlab"].pop("_build")
    assert built == source, "labextension/package.json changed: run `make labextension`"
    assert (ROOT / "labextension" / "package-lock.json").is_file()
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["hybridlab"]
    package = ROOT / "src" / "hybridlab"
    files = [p.relative_to(package).as_posix() for p in labsettings.BUILT_EXTENSION.rglob("*")]
    files = [f for f in files if (package / f).is_file()]
    assert files
    unpackaged = [f for f in files if not any(fnmatch.fnmatch(f, pat) for pat in patterns)]
    assert unpackaged == [], "built extension files left out of the wheel (pyproject package-data)"


def test_jupyter_labextension_list_shows_it_enabled():
    labsettings.install()
    assert labsettings.extension_dir().joinpath("package.json").is_file()
    out = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"],
        capture_output=True, text=True, timeout=120, env=dict(os.environ, NO_COLOR="1"),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.stdout + out.stderr)
    line = next((ln for ln in text.splitlines() if "hybridlab-c-cells" in ln), "")
    assert "enabled" in line and "OK" in line, text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_fresh_user_s_jupyterlab_serves_no_news(tmp_path: Path):
    labsettings.install()
    port, token = _free_port(), "hybridlab-test"
    env = dict(os.environ, HOME=str(tmp_path), JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_DATA_DIR=str(tmp_path / "data"), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))  # fmt: skip
    server = subprocess.Popen(
        [str(JUPYTER), "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         f"--IdentityProvider.token={token}", f"--notebook-dir={tmp_path}", "--allow-root"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/lab/api/settings/{labsettings.NOTIFICATION}"
    try:
        deadline, body = time.monotonic() + 180, None
        while body is None and time.monotonic() < deadline and server.poll() is None:
            try:
                req = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
                with urllib.request.urlopen(req, timeout=10) as resp:
                    body = json.load(resp)
            except OSError:
                time.sleep(1)
        assert body is not None, f"JupyterLab did not answer (exit code {server.poll()})"
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    props = body["schema"]["properties"]
    assert props["fetchNews"]["default"] == "false"
    assert props["checkForUpdates"]["default"] is False
    assert not json.loads(body.get("raw") or "{}")  # nothing came from the user's settings
