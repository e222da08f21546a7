"""``reset(options=...)`` checked against the keys an env reads, so a misspelt key is never ignored silently."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from benchmarkzoo.core.errors import UnknownOptionError


def check_options(env_id: str, options: Any, known: Iterable[str], *, near_misses_only: bool = False) -> Mapping:
    """``options`` as a mapping (``{}`` for ``None``) if every key is in ``known``; else :class:`UnknownOptionError`.

    Args:
        env_id: the env's registered id, for the message.
        options: what the caller passed to ``reset(options=...)``.
        known: the keys this env's ``reset`` reads.
        near_misses_only: refuse only unknown keys that look like a misspelt known key (``difflib``'s
            close matches, e.g. ``"senario"``) and let others through. PettingZoo ``ParallelEnv``s need
            this: ``pettingzoo.test.parallel_api_test`` resets with ``options={"options": 1}``.
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
    unknown = {key: _close_match(key, known) for key in options if key not in known}
    if near_misses_only:
        unknown = {key: match for key, match in unknown.items() if match is not None}
    if unknown:
        guesses = "".join(f" Did you mean {match!r} for {key!r}?" for key, match in unknown.items() if match)
        raise UnknownOptionError(
            f"{env_id}: reset() got unknown option(s) {', '.join(repr(key) for key in unknown)}; the options this env "
            f"reads are {listed}.{guesses} Fix the key's spelling or drop it."
        )
    return options


def _close_match(key: Any, known: tuple[str, ...]) -> str | None:
    if not isinstance(key, str):
        return None
    matches = difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.6)
    return matches[0] if matches else None
