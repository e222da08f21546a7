"""Peers that cannot be installed beside benchmarkzoo, each in its own virtual environment.

lbforaging pulls pyglet; pogema 1.4.0 pins gymnasium 0.28.1 (and an old pydantic). The scripts
that measure them create a venv under ``~/.cache/benchmarkzoo/bench-<name>`` on first use, install
the pinned requirements into it, and run a timing snippet there in a subprocess. A marker file
records what was installed, so an interrupted install is redone instead of half used.

The scripts run as ``python bench/bench_x.py``, so they import this module as
``from _peer_venv import ...``. It imports only the standard library.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "benchmarkzoo"
MARKER = "benchmarkzoo-requirements.txt"


def venv_dir(name: str) -> Path:
    return CACHE / f"bench-{name}"


def peer_python(name: str, requirements: list[str], override: str | None = None) -> str | None:
    """The interpreter of venv ``bench-<name>`` with ``requirements`` installed; ``None`` if that fails.

    Args:
        name: the venv's name, e.g. ``"pogema"``.
        requirements: pip requirement strings, pinned (``"pogema==1.4.0"``).
        override: an interpreter to use instead (a ``--<peer>-python`` option); returned as is.
    """
    if override:
        return override
    root = venv_dir(name)
    python = root / "bin" / "python"
    marker = root / MARKER
    wanted = "\n".join(requirements) + "\n"
    if python.exists() and marker.exists() and marker.read_text(encoding="utf-8") == wanted:
        return str(python)
    print(f"setting up {root} with {' '.join(requirements)} (once) ...", file=sys.stderr, flush=True)
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *requirements], check=True)
    except (subprocess.CalledProcessError, OSError) as error:
        print(f"could not install {' '.join(requirements)}: {error}", file=sys.stderr, flush=True)
        return None
    marker.write_text(wanted, encoding="utf-8")
    return str(python)


def run_json(python: str, snippet: str, *args: str) -> dict | None:
    """Run ``snippet`` with ``args`` under ``python``; its last stdout line, parsed as JSON (``None`` on failure)."""
    done = subprocess.run([python, "-c", snippet, *args], capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr, flush=True)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_runs(python: str, snippet: str, args: list[str], runs: int, keys: tuple[str, ...]) -> tuple | None:
    """Median of each of ``keys`` over ``runs`` fresh runs of :func:`run_json` (``None`` if one fails)."""
    results = []
    for _ in range(runs):
        result = run_json(python, snippet, *args)
        if result is None:
            return None
        results.append(result)
    return tuple(statistics.median(r[key] for r in results) for key in keys)
