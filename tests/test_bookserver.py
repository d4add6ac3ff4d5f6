"""The course book as a path of the student's Jupyter server (hybridlab.course.bookserver): its switch in
the venv's Jupyter configuration, the URL a kernel gives, the text when the book is not built.
The pages served through a running server: tests/test_image.py and tests/test_hub.py."""

from __future__ import annotations

import json

from hybridlab.course import bookserver


def test_enable_writes_the_servers_extension_switch(tmp_path):
    path = bookserver.enable(tmp_path)
    assert path.parent == tmp_path / "etc" / "jupyter" / "jupyter_server_config.d"
    config = json.loads(path.read_text())
    assert config["ServerApp"]["jpserver_extensions"] == {"hybridlab.course.bookserver": True}
    assert bookserver._jupyter_server_extension_points() == [{"module": "hybridlab.course.bookserver"}]


def test_book_url_follows_the_hubs_prefix(monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_SERVICE_PREFIX", raising=False)
    assert bookserver.book_url("labs/01_programming_models.html") == (
        "/hybridlab/book/labs/01_programming_models.html"
    )
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/user/ada/")
    assert bookserver.book_url() == "/user/ada/hybridlab/book/index.html"


def test_an_unbuilt_book_says_how_to_build_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HYBRIDLAB_BOOK_HTML", str(tmp_path / "book" / "_build" / "html"))
    assert not bookserver.is_built()
    assert "make book" in bookserver.not_built_text(bookserver.book_dir())
