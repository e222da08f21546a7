"""Frames to a GIF (Pillow) or an MP4 (PyAV, only where it is installed), written atomically.

Pillow comes with the ``eval`` extra (matplotlib needs it too), so every install that can run
``benchmarkzoo replay`` writes GIFs. MP4 needs an H.264 encoder, which neither Pillow nor the
project's other dependencies ship; PyAV's wheels bundle FFmpeg, so it is the one install named
when it is missing, and it is not made a dependency for one output format.
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import numpy as np

from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.evaluation.replay.capture import ReplayError

#: Output formats by file suffix.
FORMATS = {".gif": "GIF", ".mp4": "MP4", ".svg": "SVG"}


def fit(frame: np.ndarray, max_side: int) -> np.ndarray:
    """``frame`` ``(H, W, 3)`` uint8, shrunk (never enlarged) so that neither side exceeds ``max_side``."""
    height, width = frame.shape[:2]
    scale = max_side / max(height, width)
    if scale >= 1:
        return frame
    from PIL import Image

    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(Image.fromarray(frame).resize(size, Image.Resampling.LANCZOS))


def gif_bytes(frames: list[np.ndarray], fps: float) -> bytes:
    """An endlessly looping GIF of ``frames`` (each ``(H, W, 3)`` uint8) at ``fps`` frames per second."""
    from PIL import Image

    images = [Image.fromarray(f) for f in frames]
    buffer = io.BytesIO()
    # GIF delays are in hundredths of a second: Pillow rounds the milliseconds given to them
    images[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=round(1000 / fps),
        loop=0,
        optimize=False,
    )
    return buffer.getvalue()


def require_writer(path: Path) -> None:
    """Refuse, before anything is played, an output ``path`` whose format cannot be written here."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ReplayError(
            f"--out {str(path)!r}: expected a file ending in {', '.join(FORMATS)}; got {suffix or 'no suffix'!r}."
        )
    if suffix == ".mp4" and importlib.util.find_spec("av") is None:
        raise ReplayError(
            "MP4 output needs PyAV, which is not installed: `pip install av` (its wheels bundle FFmpeg), "
            "or write a .gif."
        )


def with_progress(frame: np.ndarray, fraction: float) -> np.ndarray:
    """``frame`` with a strip below it, filled to ``fraction`` of its width: where in the episode it is."""
    height, width = frame.shape[:2]
    strip = np.full((max(3, height // 60), width, 3), 255, dtype=np.uint8)
    strip[:, : round(width * fraction)] = (214, 69, 65)
    return np.concatenate([frame, strip], axis=0)


def progressed(frames: list[np.ndarray]) -> list[np.ndarray]:
    """``frames``, each with the progress strip of its place in the episode (:func:`with_progress`)."""
    last = max(len(frames) - 1, 1)
    return [with_progress(frame, i / last) for i, frame in enumerate(frames)]


def gif_frames(data: bytes) -> int:
    """The frames of the GIF ``data`` (Pillow merges identical consecutive ones, so maybe fewer than given)."""
    from PIL import Image

    return int(getattr(Image.open(io.BytesIO(data)), "n_frames", 1))


def mp4_bytes(frames: list[np.ndarray], fps: float) -> bytes:
    """An H.264 MP4 of ``frames`` (even sides, as yuv420p needs); needs PyAV (:func:`require_writer` says so)."""
    import av

    height, width = frames[0].shape[:2]
    buffer = io.BytesIO()
    with av.open(buffer, mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=round(fps))
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        for frame in frames:
            container.mux(stream.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")))
        container.mux(stream.encode(None))
    return buffer.getvalue()


def write_video(path: Path, frames: list[np.ndarray], fps: float) -> tuple[int, int, str]:
    """Write ``frames`` with a progress strip to ``path`` (``.gif`` or ``.mp4``) atomically.

    Returns:
        The frames in the file, its size in bytes and its frames' ``WxH px``. A GIF merges identical
        consecutive frames (Pillow adds their durations), so it can hold fewer frames than were given.
    """
    shown = progressed(frames)
    if path.suffix.lower() == ".mp4":
        height, width = shown[0].shape[:2]
        shown = [f[: height - height % 2, : width - width % 2] for f in shown]  # yuv420p needs even sides
        data, count = mp4_bytes(shown, fps), len(shown)
    else:
        data = gif_bytes(shown, fps)
        count = gif_frames(data)
    atomic_write(path, data)
    height, width = shown[0].shape[:2]
    return count, len(data), f"{width}x{height} px"
