"""Finding SUMO, running ``netgenerate``, and the cache of generated networks.

A user never sets ``SUMO_HOME`` by hand: :func:`sumo_home` takes it from the environment when
it points at a SUMO install, else from the ``eclipse-sumo`` wheel's ``sumo`` package (which
exposes ``sumo.SUMO_HOME``), else from a ``sumo`` binary on ``PATH``. Nothing here changes
``os.environ``: child processes get ``SUMO_HOME`` in their own environment.

``netgenerate`` writes a header comment with a timestamp and the output path, so two runs with
the same arguments differ in those bytes. :func:`generate_network` strips that one leading
comment before writing and hashing; everything after it is byte-identical for the same
arguments and SUMO version (tested). A different SUMO version may generate a different
network: the scenario's ``net_hash`` then changes and ``benchmarkzoo scenarios verify`` says so.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.core.cache import CACHE_ENV_VAR as CACHE_ENV_VAR  # re-exported: callers use sumo.CACHE_ENV_VAR
from benchmarkzoo.core.cache import cache_dir
from benchmarkzoo.core.errors import BenchmarkZooError, MissingExtraError
from benchmarkzoo.core.scenario import canonical_json

#: Options every SUMO run gets: quiet, no XML schema lookups, no teleports hiding gridlock.
SUMO_QUIET_OPTIONS: tuple[str, ...] = (
    "--no-step-log",
    "true",
    "--no-warnings",
    "true",
    "--duration-log.disable",
    "true",
    "--xml-validation",
    "never",
    "--xml-validation.net",
    "never",
    "--xml-validation.routes",
    "never",
)

_HEADER_COMMENT = re.compile(rb"^(<\?xml[^>]*\?>\s*)<!--.*?-->\s*", re.DOTALL)
_lock = threading.Lock()
_net_memo: dict[str, tuple[Path, str]] = {}


class TrafficSimulationError(BenchmarkZooError, RuntimeError):
    """SUMO failed or died: the message names the scenario and quotes SUMO's own message."""


def sumo_home() -> Path:
    """The SUMO installation folder (holding ``bin/sumo``), found without any user setup.

    Raises:
        MissingExtraError: naming the ``traffic`` extra when no SUMO can be found.
    """
    candidates: list[str] = []
    if os.environ.get("SUMO_HOME"):
        candidates.append(os.environ["SUMO_HOME"])
    try:
        import sumo  # the eclipse-sumo wheel

        candidates.append(sumo.SUMO_HOME)
    except ImportError:
        pass
    on_path = shutil.which("sumo")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent.parent))
    for candidate in candidates:
        if _binary_in(Path(candidate), "sumo") is not None:
            return Path(candidate)
    raise MissingExtraError("sumo", "traffic", "benchmarkzoo's traffic envs (the SUMO simulator, eclipse-sumo wheel)")


def _binary_in(home: Path, name: str) -> Path | None:
    for candidate in (home / "bin" / name, home / "bin" / f"{name}.exe"):
        if candidate.is_file():
            return candidate
    return None


def binary(name: str) -> Path:
    """A SUMO tool's executable, e.g. ``binary("netgenerate")``."""
    home = sumo_home()
    found = _binary_in(home, name)
    if found is None:
        raise MissingExtraError(name, "traffic", f"SUMO's {name} (not found under {home / 'bin'})")
    return found


def tool_environment() -> dict[str, str]:
    """``os.environ`` plus ``SUMO_HOME``, for SUMO child processes."""
    return {**os.environ, "SUMO_HOME": str(sumo_home())}


def normalize_network(data: bytes) -> bytes:
    """``netgenerate`` output without its leading comment (timestamp, output path and options)."""
    return _HEADER_COMMENT.sub(rb"\1", data, count=1)


def sha256(data: bytes) -> str:
    """The hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def network_folder(args: tuple[str, ...]) -> Path:
    """The cache folder of the network ``netgenerate`` makes from ``args``: ``<cache>/traffic/nets/<args' sha256>``."""
    return cache_dir("traffic", "nets", sha256(canonical_json(list(args)).encode()))


def cached_network(args: tuple[str, ...]) -> tuple[Path, str] | None:
    """The cached network of ``args`` and its sha256, if it is in the cache and intact (no ``netgenerate`` run)."""
    key = sha256(canonical_json(list(args)).encode())
    with _lock:
        memo = _net_memo.get(key)
        if memo is not None and memo[0].is_file():
            return memo
        folder = cache_dir("traffic", "nets", key)
        path, hash_file = folder / "net.net.xml", folder / "net.sha256"
        if path.is_file() and hash_file.is_file():
            digest = hash_file.read_text().strip()
            if sha256(path.read_bytes()) == digest:
                _net_memo[key] = (path, digest)
                return path, digest
    return None


def store_network(args: tuple[str, ...], data: bytes) -> tuple[Path, str]:
    """Cache ``data``, the normalized output of :func:`netgenerate` for ``args``, as :func:`generate_network` does."""
    key = sha256(canonical_json(list(args)).encode())
    folder = cache_dir("traffic", "nets", key)
    path, hash_file = folder / "net.net.xml", folder / "net.sha256"
    digest = sha256(data)
    with _lock:
        atomic_write(path, data)
        atomic_write(hash_file, digest.encode())
        _net_memo[key] = (path, digest)
    return path, digest


def generate_network(args: tuple[str, ...]) -> tuple[Path, str]:
    """Run ``netgenerate`` with ``args`` (no output option) once, and cache the normalized network.

    The cache entry is ``<cache>/traffic/nets/<sha256 of the args>/net.net.xml``; it is
    regenerated when missing or when its content no longer matches the hash written next to it.

    Returns:
        the network file's path and the sha256 of its (normalized) content.
    """
    found = cached_network(args)
    if found is not None:
        return found
    return store_network(args, netgenerate(args))


def netgenerate(args: tuple[str, ...]) -> bytes:
    """Run ``netgenerate`` with ``args`` in a scratch folder and return the normalized network, uncached.

    For generators that try several networks and keep one (the rest never reach the cache).
    """
    with tempfile.TemporaryDirectory(prefix="benchmarkzoo-netgen-") as scratch:
        raw = Path(scratch, "net.net.xml")
        command = [str(binary("netgenerate")), *args, "--output-file", str(raw)]
        done = subprocess.run(command, capture_output=True, text=True, env=tool_environment())
        if done.returncode != 0 or not raw.is_file():
            raise TrafficSimulationError(
                f"netgenerate failed (exit {done.returncode}) for arguments {list(args)}: "
                f"{(done.stderr or done.stdout).strip()[-2000:]}"
            )
        return normalize_network(raw.read_bytes())


def store_file(source: str | os.PathLike, name: str) -> tuple[Path, str]:
    """Copy a user's SUMO file into the cache by content: ``<cache>/traffic/files/<sha256>/<name>``.

    Scenarios then cite the file by its hash alone, so they stay valid (and their hashes equal)
    wherever the original lives; the copy is rewritten if it went missing or was changed.

    Returns:
        the cached copy and the sha256 of its content.
    """
    try:
        data = Path(source).read_bytes()
    except OSError as error:
        raise BenchmarkZooError(f"cannot read the SUMO file {str(source)!r}: {error}") from error
    digest = sha256(data)
    path = cache_dir("traffic", "files", digest) / name
    with _lock:
        if not path.is_file() or sha256(path.read_bytes()) != digest:
            atomic_write(path, data)
    return path, digest


def cached_file(digest: str, name: str) -> Path | None:
    """The cached copy of a file stored by :func:`store_file`, if present and intact."""
    path = cache_dir("traffic", "files", digest) / name
    if path.is_file() and sha256(path.read_bytes()) == digest:
        return path
    return None
