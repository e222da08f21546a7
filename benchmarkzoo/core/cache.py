"""benchmarkzoo's file cache folder: SUMO networks and routes, the site's rendered plots.

Everything stored there is keyed by the content it was made from, so a stale entry is never
found, and deleting the folder only costs the time to make the files again.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.metadata
import inspect
import os
from collections.abc import Iterable
from pathlib import Path

#: Environment variable naming the cache folder (default ``~/.cache/benchmarkzoo``).
CACHE_ENV_VAR = "BENCHMARKZOO_CACHE"


def cache_dir(*parts: str) -> Path:
    """``$BENCHMARKZOO_CACHE/<parts>`` (default ``~/.cache/benchmarkzoo/<parts>``), created on demand."""
    root = os.environ.get(CACHE_ENV_VAR) or os.path.join(os.path.expanduser("~"), ".cache", "benchmarkzoo")
    path = Path(root, *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def code_fingerprint(modules: Iterable[str], packages: Iterable[str]) -> str:
    """sha256 of the source of ``modules`` (imported if needed) and the installed versions of ``packages``.

    Part of a cache key wherever the cached bytes depend on code as well as on inputs (the site's
    plots and replays): an edited module or an upgraded library finds no stored entry.
    """
    digest = hashlib.sha256()
    for module in dict.fromkeys(modules):
        digest.update(Path(inspect.getfile(importlib.import_module(module))).read_bytes())
    for package in packages:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            digest.update(f"{package}={importlib.metadata.version(package)};".encode())
    return digest.hexdigest()
