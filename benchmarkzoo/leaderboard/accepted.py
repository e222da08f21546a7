"""Stored submissions already accepted, remembered by content, so a rebuild does not check them again.

``build`` validates every stored file again (a file may have been committed by hand), and the
checks (per-task bootstraps, Pareto fronts, scenario hashes) were most of a warm build. An
acceptance is a pure function of the file's bytes and the validator: every file of the package, the
shipped suites, the scenario sets and the installed distributions. :func:`validate_stored` keeps an
empty marker in ``cache_dir("leaderboard", "accepted")`` named by the sha256 of all of those, so a
changed byte of the file, of any module, suite or scenario set, or an upgraded package finds no
marker and is validated in full. A hit still reads the very bytes it hashed and decodes them into
the schema's model (the caller needs it); the strict parser's walk over every value and the
protocol checks are skipped, since these bytes passed both under this very code.
Refusals are not remembered, and a cache that cannot be written just validates.

The validator's version is read once per :func:`validator_version` call (``collect`` makes one per
build), not once per process, so a suite edited between two builds of one process is seen.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import sys
from pathlib import Path

import benchmarkzoo
from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.core.cache import cache_dir
from benchmarkzoo.evaluation.results import Results
from benchmarkzoo.evaluation.suites import SUITES_DIR
from benchmarkzoo.leaderboard.validate import MAX_BYTES, parse_submission, read_bytes, refusals, validate
from benchmarkzoo.scenario_sets import scenarios_root

#: Bump to drop every marker (a change of what a marker means).
FORMAT = b"accepted-v1"


def _tree(digest: object, folder: Path) -> None:
    """Add every file under ``folder`` but bytecode caches, by relative path and bytes, to ``digest``."""
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            data = path.read_bytes()
            name = path.relative_to(folder).as_posix().encode()
            digest.update(b"%d:%s%d:" % (len(name), name, len(data)) + data)  # type: ignore[attr-defined]


def validator_version() -> bytes:
    """The sha256 of everything that decides an acceptance besides the file (see the module docstring)."""
    digest = hashlib.sha256(FORMAT)
    _tree(digest, Path(benchmarkzoo.__file__).parent)  # the code and any data file it reads
    _tree(digest, SUITES_DIR)
    _tree(digest, scenarios_root())
    packages = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    digest.update("\n".join([sys.version, *packages]).encode())
    return digest.digest()


def validate_stored(path: str | Path, version: bytes) -> Results:
    """:func:`~benchmarkzoo.leaderboard.validate.validate_file` of a stored file (no link followed), remembered.

    Args:
        path: a stored submission.
        version: :func:`validator_version`, computed once per build.

    Raises:
        SubmissionError: as ``validate_file``; a remembered file is refused for the same reasons before its checks.
    """
    with refusals():
        data = read_bytes(path, MAX_BYTES, follow_links=False)
        try:
            marker: Path | None = cache_dir("leaderboard", "accepted") / hashlib.sha256(version + data).hexdigest()
        except OSError:
            marker = None
        if marker is not None and marker.is_file():
            return parse_submission(data, walk=False)  # these bytes passed this parser's walk and every check
        results = parse_submission(data)
        validate(results)
        if marker is not None:
            with contextlib.suppress(OSError):  # a full or read-only cache costs the next build the checks, no more
                atomic_write(marker, b"")
    return results
