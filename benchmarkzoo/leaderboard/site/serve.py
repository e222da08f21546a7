"""Serve a built site on 127.0.0.1 with the standard library's HTTP server, in a background thread."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class _QuietHandler(SimpleHTTPRequestHandler):
    """Static files only (``SimpleHTTPRequestHandler`` never executes anything), without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

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
    return f"http://{host}:{port}/index.html"
