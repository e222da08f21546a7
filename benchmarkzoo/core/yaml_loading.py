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
