"""Parsing a submission's bytes as strict JSON: anything the schema could not hold safely is refused here.

``json.loads`` alone accepts duplicate keys (the last wins, so two readers can see two files),
``1e400`` (as ``inf``), integers of any length (and raises ``ValueError`` past 4300 digits), lone
surrogates and any nesting the C scanner survives; pydantic then overflows or fails to serialize.
:func:`parse` refuses all of them with the place they occur, before any model sees the data.
"""

from __future__ import annotations

import json
import math
from typing import Any

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.leaderboard.text import refused_character, shown

#: Deepest nesting of arrays and objects (a results file needs 8; env specs a few more).
MAX_DEPTH = 32
#: Largest integer magnitude: seeds are 64-bit unsigned.
MAX_INT = 2**64 - 1
#: Largest float magnitude: sums and squares of 100,000 such numbers stay finite.
MAX_FLOAT = 1e15
#: Longest string, in characters.
MAX_STRING = 4096
#: Longer digit strings are not converted (Python refuses past 4300 digits, and each costs quadratic time).
_MAX_DIGITS = 40


class SubmissionError(BenchmarkZooError, ValueError):
    """A submission that is refused; the message is the reason."""


class _Refused:
    """A number the parser hooks could not accept, reported with its path by :func:`_walk`."""

    def __init__(self, reason: str):
        self.reason = reason


def _int(token: str) -> int | _Refused:
    if len(token.lstrip("-")) > _MAX_DIGITS:
        return _Refused(f"an integer of {len(token.lstrip('-'))} digits (at most {MAX_INT}, 2**64 - 1)")
    return int(token)


def _float(token: str) -> float | _Refused:
    value = float(token)
    if not math.isfinite(value) or abs(value) > MAX_FLOAT:
        return _Refused(f"the number {token[:40]} (at most {MAX_FLOAT:g} in magnitude)")  # JSON number characters only
    return value


def _constant(token: str) -> Any:
    raise SubmissionError(f"the file contains {token}: only finite numbers are allowed.")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise SubmissionError(
                    f"the key {shown(key)} appears twice in one object: JSON readers disagree on which one counts."
                )
            seen.add(key)
    return data


def _where(path: list[str | int]) -> str:
    return ".".join(shown(p, 40) if isinstance(p, str) and refused_character(p) else str(p) for p in path) or "top"


def _walk(data: Any) -> None:
    """Refuse deep nesting, out-of-range numbers and refused characters anywhere (iterative: depth cannot crash it)."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        node, path = stack.pop()
        if len(path) > MAX_DEPTH:
            raise SubmissionError(f"at {_where(path[:4])}...: nesting deeper than {MAX_DEPTH} levels.")
        if isinstance(node, _Refused):
            raise SubmissionError(f"at {_where(path)}: {node.reason}.")
        if isinstance(node, bool):
            continue
        if isinstance(node, int) and abs(node) > MAX_INT:
            raise SubmissionError(f"at {_where(path)}: the integer {shown(node, 30)} is over 2**64 - 1.")
        if isinstance(node, str):
            _check_text(node, path)
        elif isinstance(node, dict):
            for key, value in node.items():
                _check_text(key, [*path, key], key=True)
                stack.append((value, [*path, key]))
        elif isinstance(node, list):
            stack.extend((value, [*path, i]) for i, value in enumerate(node))


def _check_text(text: str, path: list[str | int], key: bool = False) -> None:
    what = "key" if key else "text"
    if len(text) > MAX_STRING:
        raise SubmissionError(f"at {_where(path)}: a {what} of {len(text)} characters (at most {MAX_STRING}).")
    problem = refused_character(text)
    if problem:
        raise SubmissionError(f"at {_where(path)}: the {what} {shown(text)}: {problem}.")


def parse(raw: bytes, walk: bool = True) -> Any:
    """The JSON value of ``raw`` (UTF-8), checked throughout; raises :class:`SubmissionError` with the reason.

    ``walk=False`` skips the walk over every value (depth, numbers, characters), most of the time:
    only for bytes this very parser accepted before (:mod:`~benchmarkzoo.leaderboard.accepted`).
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SubmissionError(f"not valid JSON (not UTF-8: {error.reason} at byte {error.start}).") from error
    try:
        data = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant, object_pairs_hook=_object)
    except json.JSONDecodeError as error:
        raise SubmissionError(f"not valid JSON ({error.msg} at line {error.lineno}, column {error.colno}).") from error
    except RecursionError as error:
        raise SubmissionError(f"not valid JSON (nested deeper than {MAX_DEPTH} levels).") from error
    if walk:
        _walk(data)
    return data
