"""The one atomic file writer: a reader sees the old file or the new one, never half of one.

Every file benchmarkzoo writes for others to read (results files, suites, scenario sets, the
leaderboard, the SUMO cache) goes through :func:`atomic_write`. The temporary file is opened
with ``os.open(..., 0o666)``, so the kernel applies the process's umask exactly as a plain
``open(path, "w")`` would (0644 under the usual umask 022). ``tempfile.mkstemp`` would make it
0600, and ``os.replace`` keeps that mode: the leaderboard used to publish files nobody else could
read.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

#: Mode of a new file before the umask, as ``open`` uses.
_MODE = 0o666
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def atomic_write(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file in the same folder and ``os.replace``.

    The parent folders are created as needed. The data is flushed to disk before the rename, so a
    crash leaves the old file or the new one. If ``path`` is a symbolic link, the link itself is
    replaced (``os.replace`` never writes through it).
    """
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, _FLAGS, _MODE)  # O_EXCL: never an existing file or a planted link
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """:func:`atomic_write` of text (UTF-8)."""
    atomic_write(path, text)
