"""deploy/jupyterhub_config.py read as JupyterHub reads it (no hub started): what a site sets in
its SITE block reaches the students' servers."""

from __future__ import annotations

import sys
from pathlib import Path

from traitlets.config.loader import PyFileConfigLoader

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
KIT_BIN = str(Path(sys.executable).parent)


def servers_path() -> str:
    config = PyFileConfigLoader("jupyterhub_config.py", path=str(DEPLOY)).load_config()
    return config.Spawner.environment["PATH"]


def test_the_servers_path_is_the_kits_then_the_sites(monkeypatch):
    site = "/opt/slurm/bin:/opt/lmod/lmod/libexec:/usr/bin:/bin"  # Slurm in /opt, Lmod
    monkeypatch.setenv("PATH", site)  # the hub's own PATH, where it found sbatch
    monkeypatch.delenv("HYBRIDLAB_HUB_PATH", raising=False)
    assert servers_path() == f"{KIT_BIN}:{site}"
    monkeypatch.setenv("HYBRIDLAB_HUB_PATH", "/site/bin:/usr/bin")  # SITE["path"] set
    assert servers_path() == f"{KIT_BIN}:/site/bin:/usr/bin"
