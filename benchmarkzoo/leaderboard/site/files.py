"""The site's file names and writes: slugs made by the builder, never a submission's text."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

_PLAIN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def slug(text: str) -> str:
    """A file name for ``text``: itself when plain lower-case ``[a-z0-9_-]``, else a cleaned form plus a hash.

    The hash keeps distinct texts apart on case-insensitive file systems (``Maze`` and ``maze``),
    and the cleaning keeps a submission's text out of paths (no ``/``, ``..`` or markup).
    """
    text = str(text)
    if _PLAIN.match(text) and not re.search(r"-h[0-9a-f]{8}$", text):
        return text
    readable = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-")[:48] or "x"
    return f"{readable}-h{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def write(path: Path, content: str | bytes) -> None:
    """Write ``content`` (text as UTF-8) to ``path``, making its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
