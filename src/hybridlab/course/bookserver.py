"""The course book served by the student's own Jupyter server, at <base_url>hybridlab/book/.

A jupyter-server extension (enabled by `make setup`: `jupyter server extension enable --sys-prefix
hybridlab.course.bookserver`): the built Jupyter Book (`make book` writes book/_build/html) becomes a
path of the same server, no extra port, behind the server's own login. On a JupyterHub the
server's base URL is /user/<name>/, so a lab links to the book through the hub's user-redirect:

    /hub/user-redirect/hybridlab/book/labs/01_programming_models.html

which the hub sends to /user/<name>/hybridlab/book/...; a server started without a hub (`make
lab`, the image) answers that same link itself with a redirect to its own book, so one link in a
notebook works in both. `book_url(page)` gives the URL for a notebook's kernel.

When the book is not built, /hybridlab/book/ says how to build it (and the server's log says so
at start). HYBRIDLAB_BOOK_HTML names another folder of built pages.
"""

from __future__ import annotations

import os
from pathlib import Path

ROUTE = "hybridlab/book"
HUB_LINK = f"/hub/user-redirect/{ROUTE}/"  # what a notebook's markdown links to
BUILD_HINT = "make book"


def book_dir() -> Path:
    """The folder of the built book's HTML pages."""
    named = os.environ.get("HYBRIDLAB_BOOK_HTML")
    if named:
        return Path(named)
    return Path(__file__).resolve().parents[3] / "book" / "_build" / "html"


def is_built(folder: Path | None = None) -> bool:
    return ((folder or book_dir()) / "index.html").is_file()


def book_url(page: str = "index.html") -> str:
    """The book page's URL as the browser of this kernel's server reaches it: under the hub's
    prefix for the user (JUPYTERHUB_SERVICE_PREFIX) or at the server's root."""
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/")
    if not prefix.endswith("/"):
        prefix += "/"
    return f"{prefix}{ROUTE}/{page.lstrip('/')}"


def not_built_text(folder: Path) -> str:
    root = folder.parents[2] if len(folder.parents) > 2 else folder
    return (
        f"The course book is not built here ({folder} has no index.html). Build it in {root} "
        f"with `{BUILD_HINT}` (a minute), then reload this page."
    )


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "hybridlab.course.bookserver"}]


def _load_jupyter_server_extension(serverapp) -> None:
    from jupyter_server.base.handlers import JupyterHandler
    from jupyter_server.utils import url_path_join
    from tornado import web

    folder = book_dir()

    class BookHandler(JupyterHandler, web.StaticFileHandler):
        """The book's pages, for the server's logged-in user (as the server's own files)."""

        auth_resource = "contents"

        @web.authenticated
        def get(self, path: str, include_body: bool = True):
            if not is_built(folder):
                self.set_status(404)
                self.set_header("Content-Type", "text/plain; charset=UTF-8")
                self.finish(not_built_text(folder) + "\n")
                return None
            return web.StaticFileHandler.get(self, path or "index.html", include_body)

        @web.authenticated
        def head(self, path: str):
            return self.get(path, include_body=False)

        def parse_url_path(self, url_path: str) -> str:
            if not url_path or url_path.endswith("/"):
                url_path += "index.html"
            return super().parse_url_path(url_path)

        def compute_etag(self) -> str | None:
            return None

    class HubLinkHandler(JupyterHandler):
        """A lab's link to the book made for the hub (/hub/user-redirect/...), on a server
        without a hub: to this server's own book."""

        @web.authenticated
        def get(self, path: str):
            self.redirect(url_path_join(self.base_url, ROUTE, path))

    base = serverapp.web_app.settings["base_url"]
    handlers = [
        (url_path_join(base, ROUTE) + "/?()", BookHandler, {"path": str(folder)}),
        (url_path_join(base, ROUTE, "(.*)"), BookHandler, {"path": str(folder)}),
    ]
    if not os.environ.get("JUPYTERHUB_SERVICE_PREFIX"):  # on a hub, the hub answers that link
        handlers.append((HUB_LINK + "(.*)", HubLinkHandler))
    serverapp.web_app.add_handlers(".*$", handlers)
    if is_built(folder):
        serverapp.log.info("hybridlab: the course book at %s%s/", base, ROUTE)
    else:
        serverapp.log.warning("hybridlab: %s", not_built_text(folder))


def enable(prefix: Path | None = None) -> Path:
    """Turn the extension on for every Jupyter server of this Python (its prefix's
    jupyter_server_config.d, as a pip-installed extension ships it); `make setup` runs this."""
    import json
    import sys

    folder = Path(prefix or sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.d"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hybridlab-book.json"
    text = (
        json.dumps({"ServerApp": {"jpserver_extensions": {"hybridlab.course.bookserver": True}}}, indent=1)
        + "\n"
    )
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def main() -> None:
    enable()
    if not is_built():
        print(
            f"hybridlab: JupyterLab serves the course book at /{ROUTE}/ once it is built: "
            f"`{BUILD_HINT}`"
        )


if __name__ == "__main__":
    main()
