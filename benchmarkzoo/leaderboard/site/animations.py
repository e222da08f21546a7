"""A recorded episode as the site shows it: replayed, filmed, size-capped, and kept by content.

Replaying is the dearest thing a site build can do (an episode played again, a picture per step),
and ``leaderboard build`` rebuilds the whole site after every ``add``. An episode is determined by
its results file (seeds, scenario, and the policy by content hash: the determinism contract), so
:func:`animation` keeps what :func:`render` made in ``cache_dir("site", "animations")`` under the
sha256 of the file's bytes, the task, the episode, the caps and :func:`code_version` (the replay
and rendering modules' source, the package, Pillow and numpy versions). A rebuild replays only
episodes whose key is new. What a render found out is kept too (a file over the byte cap, a replay
that differs from the record), so a warm build does not replay those again; what depends on this
machine (a missing extra, a simulator that died) is not kept, and is tried again next build.

Grid worlds (:data:`~benchmarkzoo.evaluation.replay.scenes.GRID_WORLDS`) become an animated SVG
(SMIL, no script); every other env a GIF of its ``rgb_array`` frames, at most
:attr:`Caps.max_frames` frames (longer episodes are strided) of at most :attr:`Caps.max_side`
pixels a side. Either is refused, with a note, beyond :attr:`Caps.max_bytes`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from benchmarkzoo.core.atomic import atomic_write, atomic_write_text
from benchmarkzoo.core.cache import cache_dir, code_fingerprint
from benchmarkzoo.core.errors import MissingExtraError, SimulatorError

#: Modules whose source decides an animation's bytes (with this one).
RENDERING_MODULES = (
    "benchmarkzoo.evaluation.replay.episode",
    "benchmarkzoo.evaluation.replay.capture",
    "benchmarkzoo.evaluation.replay.scenes",
    "benchmarkzoo.evaluation.replay.svg",
    "benchmarkzoo.evaluation.replay.video",
)


@dataclasses.dataclass(frozen=True)
class Caps:
    """How big an animation on the site may be.

    Attributes:
        max_frames: at most this many pictures; a longer episode is pictured every few steps.
        max_side: GIF frames are shrunk so that neither side exceeds this many pixels.
        max_bytes: a larger file is not shown (the page says so).
    """

    max_frames: int = 120
    max_side: int = 240
    max_bytes: int = 512_000


@dataclasses.dataclass(frozen=True)
class Animation:
    """What :func:`render` made of one episode.

    Attributes:
        suffix: ``".svg"`` or ``".gif"``; ``None`` when there is nothing to show (``note`` says why).
        data: the file's bytes (empty without a file).
        frames: pictures in the file; ``stride``: every ``stride``-th step is one; ``length``: the episode's steps.
        replayed_return: the replayed episode's return (a list for vector or per-agent returns).
        note: why nothing is shown, else ``None``.
        keep: whether the cache may keep it (a note that depends on this machine is tried again).
    """

    suffix: str | None
    data: bytes = b""
    frames: int = 0
    stride: int = 1
    length: int = 0
    replayed_return: Any = None
    note: str | None = None
    keep: bool = True

    def meta(self) -> dict[str, Any]:
        """What the cache keeps beside the file's bytes."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k not in ("data", "keep")}


@functools.cache
def code_version() -> str:
    """What decides an animation's bytes besides its inputs: the rendering source and library versions."""
    return code_fingerprint((__name__, *RENDERING_MODULES), ("benchmarkzoo", "pillow", "numpy"))


def key(file_sha256: str, task_id: str, index: int, caps: Caps) -> str:
    """The cache key of episode ``index`` of ``task_id`` in the results file whose bytes hash to ``file_sha256``."""
    parts = [code_version(), file_sha256, task_id, str(index), json.dumps(dataclasses.asdict(caps), sort_keys=True)]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def animation(path: Path, data: bytes, task_id: str, index: int, root: Path, caps: Caps) -> Animation:
    """Episode ``index`` of ``task_id`` in the results file ``path`` (whose bytes are ``data``), cached or rendered."""
    try:
        folder = cache_dir("site", "animations")
    except OSError:
        return render(path, task_id, index, root, caps)
    name = key(hashlib.sha256(data).hexdigest(), task_id, index, caps)
    stored = _read(folder, name)
    if stored is not None:
        return stored
    made = render(path, task_id, index, root, caps)
    if made.keep:
        with contextlib.suppress(OSError):  # a full or read-only cache costs the next build the replay, no more
            if made.suffix is not None:
                atomic_write(folder / f"{name}{made.suffix}", made.data)
            atomic_write_text(folder / f"{name}.json", json.dumps(made.meta()))  # last: the entry is complete
    return made


def _read(folder: Path, name: str) -> Animation | None:
    try:
        meta = json.loads((folder / f"{name}.json").read_text())
        suffix = meta["suffix"]
        data = b"" if suffix is None else (folder / f"{name}{suffix}").read_bytes()
        return Animation(**{**meta, "data": data})
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent or not written by this module: render again


def render(path: Path, task_id: str, index: int, root: Path, caps: Caps) -> Animation:
    """Replay episode ``index`` of ``task_id`` in ``path`` with the policy the file names, and film it.

    The policy is rebuilt only from data (:func:`~benchmarkzoo.leaderboard.verify.resolve_policy`
    with ``root``'s stored ONNX models; code is never trusted here), never from a path the file names.
    """
    from benchmarkzoo.evaluation.replay.capture import FrameCamera, ReplayError, SceneCamera
    from benchmarkzoo.evaluation.replay.episode import load_recorded, replay
    from benchmarkzoo.leaderboard.verify import resolve_policy

    try:
        recorded = load_recorded(path, task_id, index)
        policy = resolve_policy(recorded.results, None, root)
        try:
            replayed, suffix = replay(recorded, policy, SceneCamera(), caps.max_frames), ".svg"
        except ReplayError:  # not a grid world (refused before the episode starts): film its frames
            replayed, suffix = replay(recorded, policy, FrameCamera(caps.max_side), caps.max_frames), ".gif"
    except (MissingExtraError, SimulatorError, OSError) as error:
        return Animation(None, note=f"it could not be replayed on this machine: {error}", keep=False)
    except Exception as error:  # a renderer's bug (a view without rgb_array) costs its animation, not the site
        return Animation(None, note=f"it cannot be filmed: {error}")
    outcome = replayed.outcome
    common: dict[str, Any] = {
        "stride": replayed.stride,
        "length": outcome.length,
        "replayed_return": outcome.episode_return,
    }
    if replayed.mismatch is not None:
        m = replayed.mismatch
        note = f"its replay differs from the recorded episode ({m.field}: recorded {m.claimed}, replayed {m.replayed})"
        return Animation(None, note=note, **common)
    data, frames = _encode(recorded, policy.name, replayed, suffix)
    if len(data) > caps.max_bytes:
        kind, size = suffix[1:].upper(), f"{len(data):,} bytes"
        note = f"its {kind} of {frames} frames is {size}, over the site's cap of {caps.max_bytes:,}"
        return Animation(None, note=note, **common)
    return Animation(suffix, data, frames, **common)


def _encode(recorded: Any, policy: str, replayed: Any, suffix: str) -> tuple[bytes, int]:
    from benchmarkzoo.evaluation.replay.svg import animated_svg
    from benchmarkzoo.evaluation.replay.video import gif_bytes, gif_frames, progressed

    if suffix == ".svg":
        title = f"{recorded.task.env} {recorded.task.id} episode {recorded.episode.index}, policy {policy}"
        return animated_svg(replayed.pictures, replayed.fps, title).encode(), len(replayed.pictures)
    data = gif_bytes(progressed(replayed.pictures), replayed.fps)
    return data, gif_frames(data)
