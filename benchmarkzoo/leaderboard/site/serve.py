"""Serve a built site on 127.0.0.1 with the standard library's HTTP server, in a background thread.

Only regular files inside the site are served: a symbolic link planted anywhere in ``site/`` (a
file or a folder on the way) answers 404, as do folder listings. ``SimpleHTTPRequestHandler``
would follow links and list folders.
"""

from __future__ import annotations

import functools
import os
import stat
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class _QuietHandler(SimpleHTTPRequestHandler):
    """Regular files only (``SimpleHTTPRequestHandler`` never executes anything), without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _regular_file(self) -> int | None:
        """An open descriptor of the requested regular file, reached without a link; ``None`` otherwise."""
        parts = self._request_parts()
        if parts is None:
            return None
        folder = self._folder_without_links(parts[:-1])
        if folder is None:
            return None
        try:
            fd = os.open(folder / parts[-1], os.O_RDONLY | _NOFOLLOW)
        except OSError:
            return None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        return fd

    def _request_parts(self) -> list[str] | None:
        """The request path's parts (``index.html`` for a folder); ``None`` if a part could leave the site."""
        parts = [p for p in unquote(urlsplit(self.path).path).split("/") if p]
        if not parts or self.path.endswith("/"):
            parts.append("index.html")
        if any(p in (".", "..") or "\\" in p or "\0" in p for p in parts):
            return None
        return parts

    def _folder_without_links(self, parts: list[str]) -> Path | None:
        """The served folder's subfolder ``parts``, each a real folder by lstat (a link is never entered)."""
        folder = Path(self.directory)
        for part in parts:
            folder = folder / part
            try:
                if not stat.S_ISDIR(os.lstat(folder).st_mode):
                    return None
            except OSError:
                return None
        return folder

    def send_head(self) -> Any:
        fd = self._regular_file()
        if fd is None:
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        handle = os.fdopen(fd, "rb")
        name = unquote(urlsplit(self.path).path)
        name = name + "index.html" if name.endswith("/") else name
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-type", self.guess_type(name))
        self.send_header("Content-Length", str(os.fstat(fd).st_size))
        self.end_headers()
        return handle

    def end_headers(self) -> None:
        # The pages' own CSP also travels as a header, which a browser applies before parsing anything.
        self.send_header("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()


def start(site: str | Path, port: int = 0, host: str = "127.0.0.1") -> tuple[ThreadingHTTPServer, threading.Thread]:
    """Serve ``site`` on ``host:port`` (0: any free port) in a daemon thread; returns the server and thread.

    Stop it with ``server.shutdown()`` then ``server.server_close()``.
    """
    site = Path(site).resolve()
    if not (site / "index.html").is_file():
        raise FileNotFoundError(f"{site} has no index.html; build it with `benchmarkzoo leaderboard build` first.")
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = ThreadingHTTPServer((host, port), handler)
    thread = threading.Thread(target=server.serve_forever, name="leaderboard-site", daemon=True)
    thread.start()
    return server, thread


def url(server: ThreadingHTTPServer) -> str:
    """The address of the server's index page."""
    host, port = server.server_address[:2]
    if isinstance(host, bytes):  # the typeshed allows bytes; an IP server's host is a str
        host = host.decode()
    return f"http://{host}:{port}/index.html"
