"""benchmarkzoo's file cache folder: SUMO networks and routes, the site's rendered plots.

Everything stored there is keyed by the content it was made from, so a stale entry is never
found, and deleting the folder only costs the time to make the files again.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable naming the cache folder (default ``~/.cache/benchmarkzoo``).
CACHE_ENV_VAR = "BENCHMARKZOO_CACHE"


def cache_dir(*parts: str) -> Path:
    """``$BENCHMARKZOO_CACHE/<parts>`` (default ``~/.cache/benchmarkzoo/<parts>``), created on demand."""
    root = os.environ.get(CACHE_ENV_VAR) or os.path.join(os.path.expanduser("~"), ".cache", "benchmarkzoo")
    path = Path(root, *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
