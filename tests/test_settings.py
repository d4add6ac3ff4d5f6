"""One table of the kit's environment variables: every one the code reads is in it and in the
README, and `hybridlab doctor` prints the user settings."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from hybridlab.settings import SETTINGS, markdown_table

ROOT = Path(__file__).resolve().parents[1]


def test_every_variable_the_code_reads_is_in_the_table():
    used = {
        name
        for path in (ROOT / "src" / "hybridlab").rglob("*.py")
        for name in re.findall(r"\bHYBRIDLAB_[A-Z_]*[A-Z]\b", path.read_text())
    }
    listed = {s.name for s in SETTINGS}
    assert used - listed == set(), "add these to hybridlab/settings.py"
    assert listed - used == set(), "these are listed but nothing reads them"


def test_the_readme_shows_the_table():
    assert markdown_table() in (ROOT / "README.md").read_text()


def test_doctor_prints_the_user_settings():
    out = subprocess.run(
        [sys.executable, "-m", "hybridlab.cli", "doctor"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HYBRIDLAB_QUICK": "1"},
    ).stdout
    assert re.search(r"HYBRIDLAB_QUICK\s+1\b", out), out
    assert re.search(r"HYBRIDLAB_CACHE\s+unset", out), out
    assert "HYBRIDLAB_TAG" not in out
