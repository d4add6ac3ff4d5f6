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
    from hybridlab.kernels.build import available_kernels

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


def test_course_kernels_are_found_beside_the_released_labs(tmp_path, monkeypatch):
    """A student's machine has the released labs and the copy of the course's kernels that
    `hybridlab release` put beside them (labs/kernels/), but no course folder."""
    labs = tmp_path / "labs"
    (labs / "kernels").mkdir(parents=True)
    (labs / "kernels" / "course_only.c").write_text("/* a course's own kernel */\n")
    monkeypatch.delenv("HYBRIDLAB_COURSE_KERNELS", raising=False)
    monkeypatch.setenv("HYBRIDLAB_GRADING", str(tmp_path / "no-course"))
    monkeypatch.setenv("HYBRIDLAB_LABS", str(labs))
    assert paths.course_kernels_dirs() == [labs / "kernels"]
    assert paths.find_kernel_file("course_only.c") == labs / "kernels" / "course_only.c"
    assert paths.find_kernel_file("hello_hybrid.c") == paths.kernels_dir() / "hello_hybrid.c"


def test_course_kernels_are_found_beside_a_fetched_lab(tmp_path, monkeypatch):
    """A hub account's lab fetched from the exchange: kernels/ beside the notebook, whose folder
    is its kernel's working folder."""
    lab = tmp_path / "11_reductions"
    (lab / "kernels").mkdir(parents=True)
    (lab / "kernels" / "course_only.c").write_text("/* a course's own kernel */\n")
    monkeypatch.delenv("HYBRIDLAB_COURSE_KERNELS", raising=False)
    monkeypatch.setenv("HYBRIDLAB_GRADING", str(tmp_path / "no-course"))
    monkeypatch.setenv("HYBRIDLAB_LABS", str(lab))  # the same folder: found once
    monkeypatch.chdir(lab)
    assert paths.course_kernels_dirs() == [lab / "kernels"]
    monkeypatch.setenv("HYBRIDLAB_LABS", str(tmp_path / "labs"))
    assert paths.find_kernel_file("course_only.c") == lab / "kernels" / "course_only.c"
