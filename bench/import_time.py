"""How long ``import benchmarkzoo`` takes, beside gymnasium and pettingzoo, and that it stays light.

For each package it reports:

* wall time of ``python -c "import <pkg>"`` in a fresh subprocess (median of 5), with the bare
  interpreter's start-up (``python -c pass``) shown separately and subtracted;
* the cumulative import time of the package from ``python -X importtime`` (median of 5;
  benchmarkzoo's figure includes gymnasium, which it imports).

It then asserts that ``import benchmarkzoo`` imported none of the heavy optional modules
(torch, ray, pybullet, sumo_rl, libsumo, pygame, matplotlib) and exits non-zero if one was.

Usage::

    python bench/import_time.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

PACKAGES = ("benchmarkzoo", "gymnasium", "pettingzoo")
HEAVY = ("torch", "ray", "pybullet", "sumo_rl", "libsumo", "pygame", "matplotlib")
REPEATS = 5


def wall_time(code: str) -> float:
    """Seconds for a fresh interpreter to run ``code``."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def cumulative_import_us(package: str) -> int:
    """Cumulative microseconds of ``import package`` as ``-X importtime`` reports it."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {package}"], check=True, capture_output=True, text=True
    )
    for line in done.stderr.splitlines():
        # "import time:      self [us] | cumulative | imported package"
        if not line.startswith("import time:"):
            continue
        fields = line[len("import time:") :].split("|")
        if len(fields) == 3 and fields[2].strip() == package:
            return int(fields[1])
    raise RuntimeError(f"-X importtime printed no line for {package!r}:\n{done.stderr[-2000:]}")


def heavy_modules_loaded(package: str) -> list[str]:
    """The heavy top-level modules present in ``sys.modules`` after ``import package``."""
    code = f"import json, sys, {package}; print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    loaded = set(json.loads(done.stdout))
    return [m for m in HEAVY if m in loaded]


def main() -> int:
    baseline = statistics.median(wall_time("pass") for _ in range(REPEATS))
    print(f"python {sys.version.split()[0]} ({sys.executable})")
    print(f"interpreter start-up (`python -c pass`): {baseline * 1000:.0f} ms, median of {REPEATS}")
    print()
    print(
        '| package | version | `python -c "import pkg"` wall (ms) | minus start-up (ms) '
        "| -X importtime cumulative (ms) |"
    )
    print("|---|---|---:|---:|---:|")
    for package in PACKAGES:
        try:
            version = subprocess.run(
                [sys.executable, "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
        except subprocess.CalledProcessError:
            print(f"| {package} | not installed | | | |")
            continue
        wall = statistics.median(wall_time(f"import {package}") for _ in range(REPEATS))
        cumulative = statistics.median(cumulative_import_us(package) for _ in range(REPEATS)) / 1000
        print(f"| {package} | {version} | {wall * 1000:.0f} | {(wall - baseline) * 1000:.0f} | {cumulative:.0f} |")
    print()
    heavy = heavy_modules_loaded("benchmarkzoo")
    if heavy:
        print(f"FAIL: `import benchmarkzoo` imported heavy modules: {', '.join(heavy)}")
        return 1
    print(f"OK: `import benchmarkzoo` imported none of: {', '.join(HEAVY)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
