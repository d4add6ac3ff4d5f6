"""JupyterLab's news pop-up is off: `make setup` installs the kit's settings overrides, and a fresh
user's JupyterLab (its own empty settings folders) serves fetchNews "false" and no update check
through its settings API, the way the browser reads them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from hybridlab import labsettings

ROOT = Path(__file__).resolve().parents[1]
JUPYTER = Path(sys.executable).parent / "jupyter"


def test_make_setup_installs_the_overrides():
    assert "-m hybridlab.labsettings" in (ROOT / "Makefile").read_text().split("\nlab:")[0]
    path = labsettings.install()
    assert path.is_relative_to(Path(sys.prefix))
    assert json.loads(path.read_text()) == labsettings.OVERRIDES
    assert labsettings.install() == path  # idempotent


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
