"""Rendered plots (and the intervals they show) kept by content, so a rebuild computes only what changed.

Drawing is most of a site build: matplotlib lays out and writes each of the committed
leaderboard's ~330 SVG files in tens of milliseconds, and `leaderboard build` rebuilds the
whole site after every `add`. A plot is a pure function of its arguments (same inputs, same
bytes: see :mod:`~benchmarkzoo.leaderboard.site.plots`), so :func:`cached` stores each SVG in
``cache_dir("site", "plots")`` under the sha256 of the function's name, its arguments, the
source of its module and of :mod:`~benchmarkzoo.leaderboard.site.plots` (the figure style every
view draws with), and the matplotlib and numpy versions. A stored file is written atomically, so
a hit returns exactly the bytes the function would draw; arguments of a type this module cannot
fingerprint, and a cache folder that cannot be written, just draw. :func:`cached_numbers` keeps a
statistic's tuple of floats or float64 arrays the same way (``repr`` of a float round-trips
exactly), for the site's bootstrap intervals and bands, which cost as much as the drawing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np

from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.core.cache import cache_dir, code_fingerprint

Render = TypeVar("Render", bound=Callable[..., bytes])
Statistic = TypeVar("Statistic", bound=Callable[..., tuple[Any, ...]])
#: The module of the figure style and helpers every plot uses; part of every key.
_STYLE = "benchmarkzoo.leaderboard.site.plots"


class _UnhashableError(TypeError):
    """An argument this module cannot fingerprint: the plot is drawn, not cached."""


def _feed(digest: Any, value: Any) -> None:
    """Add ``value`` to ``digest``, tagged by type so ``1``, ``1.0``, ``True`` and ``"1"`` differ."""
    if isinstance(value, np.ndarray):
        digest.update(f"a{value.dtype.str}{value.shape};".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, np.generic):
        digest.update(f"g{value.dtype.str};".encode())
        digest.update(value.tobytes())
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        digest.update(f"s{len(data)};".encode() + data)
    elif value is None or isinstance(value, bool | int | float):
        digest.update(f"p{type(value).__name__}{value!r};".encode())  # repr of a float is exact
    elif isinstance(value, Mapping):
        digest.update(f"m{len(value)};".encode())
        for key, item in value.items():  # in order: a plot draws its panels in the mapping's order
            _feed(digest, key)
            _feed(digest, item)
    elif isinstance(value, list | tuple):
        digest.update(f"l{len(value)};".encode())
        for item in value:
            _feed(digest, item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        digest.update(f"d{type(value).__module__}.{type(value).__qualname__};".encode())
        for field in dataclasses.fields(value):
            _feed(digest, field.name)
            _feed(digest, getattr(value, field.name))
    else:
        raise _UnhashableError(type(value).__name__)


@functools.cache
def _code_version(module: str) -> bytes:
    """What else decides a plot's bytes: its module's and the style's source, the versions of matplotlib and numpy."""
    return code_fingerprint((module, _STYLE), ("matplotlib", "numpy")).encode()


def key(render: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> str:
    """The cache key of ``render(*args, **kwargs)``; raises a :class:`TypeError` for an argument it cannot read."""
    digest = hashlib.sha256(_code_version(render.__module__))
    _feed(digest, render.__qualname__)
    _feed(digest, list(args))
    _feed(digest, dict(sorted(kwargs.items())))
    return digest.hexdigest()


def cached(render: Render) -> Render:
    """``render``, returning the stored SVG of earlier calls with the same arguments (see the module docstring)."""

    @functools.wraps(render)
    def plot(*args: Any, **kwargs: Any) -> bytes:
        try:
            path = cache_dir("site", "plots") / f"{key(render, args, kwargs)}.svg"
        except (_UnhashableError, OSError):
            return render(*args, **kwargs)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            pass
        svg = render(*args, **kwargs)
        with contextlib.suppress(OSError):  # a full or read-only cache costs the next build the drawing, no more
            atomic_write(path, svg)
        return svg

    return plot  # type: ignore[return-value]  # same signature: functools.wraps copies it


def _stored(value: Any) -> Any:
    """A float, or a float64 array as a list, for JSON (``repr`` of a float round-trips exactly)."""
    return np.asarray(value, dtype=np.float64).tolist() if isinstance(value, np.ndarray) else float(value)


def _loaded(value: Any) -> float | np.ndarray:
    return np.array(value, dtype=np.float64) if isinstance(value, list) else float(value)


def cached_numbers(statistic: Statistic) -> Statistic:
    """``statistic`` (a tuple of floats or float64 arrays), returning the stored values of earlier equal calls."""

    @functools.wraps(statistic)
    def compute(*args: Any, **kwargs: Any) -> tuple[Any, ...]:
        bound = inspect.signature(statistic).bind(*args, **kwargs)
        bound.apply_defaults()  # a default (the bootstrap's reps, its random state) is part of the key
        try:
            path = cache_dir("site", "stats") / f"{key(statistic, (), dict(bound.arguments))}.json"
        except (_UnhashableError, OSError):
            return statistic(*args, **kwargs)
        try:
            return tuple(_loaded(v) for v in json.loads(path.read_text(encoding="utf-8")))
        except (FileNotFoundError, ValueError, TypeError):  # absent, or unreadable: compute it again
            pass
        values = statistic(*args, **kwargs)
        with contextlib.suppress(OSError):
            atomic_write(path, json.dumps([_stored(v) for v in values]))
        return values

    return compute  # type: ignore[return-value]  # same signature: functools.wraps copies it
