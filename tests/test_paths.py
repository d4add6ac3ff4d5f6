"""paths: the kit's folders are found in a checkout, overridden by the environment, and a
missing one is a clear error naming the variable to set."""

from __future__ import annotations

import pytest

import hybridlab as hl
from hybridlab import paths


def test_a_checkout_finds_its_folders(repo):
    assert paths.kernels_dir() == repo / "kernels_c"
    assert paths.grading_dir() == repo / "grading"
    assert paths.labs_dir() == repo / "labs"


def test_the_environment_overrides_where_the_kernels_are(tmp_path, monkeypatch, repo):
    for header in (repo / "kernels_c").glob("*.h"):  # hybridlab.h includes its kin
        (tmp_path / header.name).write_text(header.read_text())
    (tmp_path / "hello_hybrid.c").write_text((repo / "kernels_c" / "hello_hybrid.c").read_text())
    monkeypatch.setenv("HYBRIDLAB_KERNELS", str(tmp_path))
    assert paths.kernels_dir() == tmp_path
    from hybridlab.build import available_kernels

    assert available_kernels() == ["hello_hybrid"]
    assert hl.build("hello_hybrid").source == tmp_path / "hello_hybrid.c"


@pytest.mark.parametrize(
    ("variable", "finder"),
    [
        ("HYBRIDLAB_KERNELS", paths.kernels_dir),
        ("HYBRIDLAB_GRADING", paths.grading_dir),
        ("HYBRIDLAB_LABS", paths.labs_dir),
    ],
)
def test_a_missing_folder_is_an_error_that_names_the_variable(
    tmp_path, monkeypatch, variable, finder
):
    monkeypatch.setenv(variable, str(tmp_path / "nowhere"))
    with pytest.raises(paths.KitPathError, match=variable):
        finder()


def test_a_folder_without_its_marker_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("HYBRIDLAB_KERNELS", str(tmp_path))
    with pytest.raises(paths.KitPathError, match="no hybridlab.h"):
        paths.kernels_dir()
