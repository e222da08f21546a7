r"""YAML loaders: libyaml's C parser where PyYAML was built with it, the pure-Python one otherwise.

PyYAML's ``yaml.safe_load`` always runs the pure-Python scanner and parser, even when libyaml is
installed; on the scenario sets (about 900 KB of YAML) that is 6-7x slower than ``CSafeLoader``.
Both loaders construct objects with the same :class:`yaml.constructor.SafeConstructor` (only the
scanning and parsing move to C), so a document loads to the same data with either.

>>> load_strict("a: 1\nb: [2, 3]\n")
{'a': 1, 'b': [2, 3]}
>>> load_strict("a: 1\na: 2\n")
Traceback (most recent call last):
    ...
yaml.constructor.ConstructorError: while constructing a mapping
...found duplicate key 'a'
...
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import yaml

#: ``yaml.CSafeLoader`` when PyYAML has libyaml, else ``yaml.SafeLoader``: no arbitrary objects either way.
SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class StrictLoader(SafeLoader):  # type: ignore[valid-type,misc]  # a base chosen at import time
    """A safe loader that refuses duplicate keys (plain PyYAML silently keeps the last one)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The mapping of ``node``, refusing a key that appears twice (merge keys are checked as written)."""
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, f"found duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_safe(text: str) -> Any:
    """``yaml.safe_load(text)``, parsed by libyaml where available."""
    return yaml.load(text, Loader=SafeLoader)


def load_strict(text: str) -> Any:
    """:func:`load_safe`, refusing duplicate keys with a :class:`yaml.constructor.ConstructorError`."""
    return yaml.load(text, Loader=StrictLoader)


#: Bumped whenever what :func:`load_strict` returns for the same text could change.
_CACHE_FORMAT = 1


class _NotPlainError(TypeError):
    """A parsed value JSON cannot carry faithfully (a date, bytes, a set): the document is not cached."""


def _encode(value: Any) -> Any:
    """``value`` as JSON that :func:`_decode` turns back into equal data of the same types (int keys stay ints)."""
    if isinstance(value, dict):
        return {"d": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return {"l": [_encode(v) for v in value]}
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise _NotPlainError(type(value).__name__)


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if "d" in value:
            return {_decode(k): _decode(v) for k, v in value["d"]}
        return [_decode(v) for v in value["l"]]
    return value


def load_strict_cached(text: str) -> Any:
    """:func:`load_strict`, kept in the cache folder under the sha256 of ``text`` (and PyYAML's version).

    Parsing is a pure function of the text, so a file parsed before (the scenario sets, about
    900 KB) is read back as JSON, ~50x faster than libyaml plus PyYAML's constructor; a text that
    does not parse is never stored, so it is refused with the same error every time. Documents
    holding values JSON cannot carry, and a cache folder that cannot be written, are parsed each time.
    """
    import hashlib
    import json

    from benchmarkzoo.core.atomic import atomic_write
    from benchmarkzoo.core.cache import cache_dir

    name = f"{_CACHE_FORMAT}-{yaml.__version__}-{hashlib.sha256(text.encode('utf-8')).hexdigest()}.json"
    try:
        path: Path | None = cache_dir("yaml") / name
    except OSError:  # no cache folder (a read-only home): parse every time
        path = None
    if path is not None:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):  # absent or not this module's JSON
            return _decode(json.loads(path.read_bytes()))
    data = load_strict(text)
    if path is not None:
        with contextlib.suppress(_NotPlainError, OSError):
            atomic_write(path, json.dumps(_encode(data), separators=(",", ":")).encode())
    return data
