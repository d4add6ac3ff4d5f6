"""Licences: BSD 3-Clause for code (LICENSE, declared in pyproject.toml), CC BY 4.0 for course
text and figures (LICENSE-content); the README says which covers what."""

from __future__ import annotations

from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_code_licence_is_bsd_3_clause_and_declared():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE", "LICENSE-content"]


def test_content_licence_is_cc_by_4_with_its_full_text():
    text = (ROOT / "LICENSE-content").read_text()
    assert "Creative Commons Attribution 4.0 International (CC BY 4.0)" in text.splitlines()[0]
    assert "Attribution 4.0 International Public License" in text
    assert "Section 8 -- Interpretation." in text


def test_readme_says_which_licence_covers_what():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Licence", 1)[1]
    assert "BSD 3-Clause" in section and "[LICENSE](LICENSE)" in section
    assert "CC BY 4.0" in section and "[LICENSE-content](LICENSE-content)" in section
