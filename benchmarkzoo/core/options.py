"""``reset(options=...)`` checked against the keys an env reads, so a misspelt key is never ignored silently."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from benchmarkzoo.core.errors import UnknownOptionError


def check_options(env_id: str, options: Any, known: Iterable[str]) -> Mapping[str, Any]:
    """``options`` as a mapping (``{}`` for ``None``) if every key is in ``known``; else :class:`UnknownOptionError`.

    Args:
        env_id: the env's registered id, for the message.
        options: what the caller passed to ``reset(options=...)``.
        known: the keys this env's ``reset`` reads.
    """
    if options is None:
        return {}
    known = tuple(known)
    listed = ", ".join(repr(key) for key in known)
    if not isinstance(options, Mapping):
        raise UnknownOptionError(
            f"{env_id}: reset(options=...) takes a dict (keys {listed}) or None; got {type(options).__name__}. "
            "Pass e.g. options={'scenario': s}."
        )
    unknown = [key for key in options if key not in known]
    if unknown:
        raise UnknownOptionError(
            f"{env_id}: reset() got unknown option(s) {', '.join(repr(key) for key in unknown)}; the options this env "
            f"reads are {listed}. Fix the key's spelling or drop it."
        )
    return options
