"""The book builds offline with zero warnings (Jupyter Book 1, sphinx), into a temporary folder."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"

# An unroutable proxy: a build step that tries to download something fails instead of
# quietly succeeding on a machine that happens to be online.
OFFLINE_ENV = {
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "NO_PROXY": "",
    "no_proxy": "",
}


def _toc_files() -> list[str]:
    """Every document named in book/_toc.yml (root, chapters, sections)."""
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries: list[dict]) -> None:
        for entry in entries:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc.get("parts", []):
        walk(part.get("chapters", []))
    walk(toc.get("chapters", []))
    return files


@pytest.mark.slow
def test_book_builds_offline_without_warnings(tmp_path: Path) -> None:
    assert JUPYTER_BOOK.exists(), f"jupyter-book not found next to {sys.executable}"
    had_build_dir = (ROOT / "book" / "_build").exists()
    proc = subprocess.run(
        [
            str(JUPYTER_BOOK),
            "build",
            "book",
            "--path-output",
            str(tmp_path),
            "--warningiserror",
            "--nitpick",
            "--keep-going",
        ],
        cwd=ROOT,
        env={**os.environ, **OFFLINE_ENV},
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"jupyter-book build failed:\n{log[-5000:]}"
    assert "WARNING" not in log, f"the build printed warnings:\n{log[-5000:]}"

    html = tmp_path / "_build" / "html"
    assert (html / "index.html").is_file()
    for doc in _toc_files():
        assert (html / f"{doc}.html").is_file(), f"no HTML for {doc} listed in _toc.yml"
    lab00 = (html / "labs" / "00_getting_started.html").read_text(encoding="utf-8")
    assert "placement" in lab00
    if not had_build_dir:
        assert not (ROOT / "book" / "_build").exists(), "the build wrote into book/_build"


def test_every_book_figure_has_alt_text() -> None:
    """Markdown images need a description, figure and image directives an :alt:, <img> an alt
    (the book has no figures today; this keeps the first ones readable by screen readers)."""
    missing = []
    for page in sorted((ROOT / "book").rglob("*.md")):
        if "_build" in page.parts:
            continue
        text = page.read_text()
        missing += [f"{page.name}: {m[0]}" for m in re.finditer(r"!\[\s*\]\([^)]*\)", text)]
        for m in re.finditer(r"```\{(figure|image)\}[^\n]*\n(.*?)```", text, flags=re.S):
            if not re.search(r"^:alt:\s*\S", m[2], flags=re.M):
                missing.append(f"{page.name}: {m[0].splitlines()[0]}")
        missing += [f"{page.name}: {m[0]}" for m in re.finditer(r"<img\b(?![^>]*\balt=\"[^\"]+\")[^>]*>", text)]
    assert not missing, f"figures without alt text: {missing}"
