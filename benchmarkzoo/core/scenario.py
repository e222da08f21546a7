"""Scenarios: complete problem instances with a canonical JSON form and a content hash.

A scenario is what a generator draws from a seed: a map, start and goal positions, physical
parameters. Results files cite scenarios by hash, and scenario sets record the hash of every
scenario they generate, so the canonical form must be byte-stable: sorted keys, no whitespace,
arrays as ``{"dtype", "shape", "data"}`` with flat data, floats in Python's shortest repr.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any, ClassVar

import numpy as np
from typing_extensions import Self

from benchmarkzoo.core.errors import ScenarioError


def _encode(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        data = value.astype(np.int64) if value.dtype == np.bool_ else value
        return {"dtype": str(value.dtype), "shape": list(value.shape), "data": data.ravel().tolist()}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        if not np.isfinite(value):
            raise ScenarioError(f"Scenario fields must be finite numbers; got {value!r}.")
        return value
    raise ScenarioError(
        f"Scenario fields must be numbers, strings, tuples, dicts or numpy arrays; got {type(value).__name__}."
    )


def _decode(value: Any, template: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"dtype", "shape", "data"}:
        return np.asarray(value["data"], dtype=value["dtype"]).reshape(value["shape"])
    if isinstance(value, list):
        return tuple(value)
    return value


def canonical_json(obj: Any) -> str:
    """The byte-stable JSON text of a JSON-compatible object (sorted keys, no spaces, no NaN)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


_DECLARE = "@dataclasses.dataclass(frozen=True, eq=False)"


class _ScenarioType(type):
    """Checks, as ``@dataclass`` processes a Scenario subclass, that it keeps the base's equality and is frozen.

    A ``@dataclass`` without ``eq=False`` writes an ``__eq__`` comparing fields (numpy arrays
    make ``==`` raise) and clears ``__hash__``; one without ``frozen=True`` lets a scenario change
    under its cached content hash. Both are refused while the class statement runs, with the
    decorator to write instead. ``__match_args__`` is the last attribute ``@dataclass`` sets.
    """

    def __setattr__(cls, name: str, value: Any) -> None:
        if name == "__eq__" and "__dataclass_fields__" in cls.__dict__:
            raise TypeError(f"{cls.__name__} must keep the Scenario's equality by content hash: write {_DECLARE}.")
        if name == "__match_args__" and "__setattr__" not in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} must be a frozen dataclass (its content hash is cached): write {_DECLARE}."
            )
        super().__setattr__(name, value)


@dataclasses.dataclass(frozen=True, eq=False)
class Scenario(metaclass=_ScenarioType):
    """Base class of every env's scenario type.

    Subclasses are frozen dataclasses whose fields are numbers, strings, tuples, dicts or
    numpy arrays, and set ``kind`` (a stable name that goes into the hash). Two scenarios are
    equal exactly when their content hashes are. A subclass declared with another ``@dataclass``
    is refused as the class is created; one without any is refused when first constructed.
    """

    kind: ClassVar[str] = "scenario"

    def __new__(cls, *args: Any, **kwargs: Any) -> Scenario:
        """Refuse to build a subclass that is not a dataclass (its fields would not be hashed)."""
        if "__dataclass_params__" not in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} is not a dataclass, so its fields would not be hashed: write {_DECLARE} above it."
            )
        return super().__new__(cls)

    @classmethod
    def unchecked(cls, **fields: Any) -> Self:
        """A scenario from fields already in their checked form, without running ``__post_init__``.

        For a generator's own output on the autoreset path, where checking what the generator
        just built costs as much as building it: the caller guarantees that ``cls(**fields)``
        would accept the fields unchanged (arrays read-only and of the field's dtype, tuples of
        Python numbers); the generator's tests hold it to that (``tests/test_scenario.py``).
        """
        scenario = object.__new__(cls)
        for name, value in fields.items():
            object.__setattr__(scenario, name, value)
        return scenario

    def to_dict(self) -> dict[str, Any]:
        """The canonical, JSON-compatible form: ``{"kind": ..., "fields": {...}}``."""
        fields = {f.name: _encode(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {"kind": self.kind, "fields": fields}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scenario:
        """Rebuild a scenario from :meth:`to_dict` output; checks the kind matches."""
        if data.get("kind") != cls.kind:
            raise ScenarioError(
                f"{cls.__name__}.from_dict expects kind {cls.kind!r}; got {data.get('kind')!r}. "
                "Load the scenario with the env it was generated for."
            )
        names = {f.name for f in dataclasses.fields(cls)}
        given = set(data.get("fields", {}))
        if names != given:
            raise ScenarioError(f"{cls.__name__} has fields {sorted(names)}; the data has {sorted(given)}.")
        return cls(**{k: _decode(v, None) for k, v in data["fields"].items()})

    def to_json(self) -> str:
        """Canonical JSON text; its sha256 is :attr:`content_hash`."""
        return canonical_json(self.to_dict())

    @property
    def content_hash(self) -> str:
        """sha256 hex digest of the canonical JSON form."""
        cached = self.__dict__.get("_content_hash")
        if cached is None:
            cached = hashlib.sha256(self.to_json().encode()).hexdigest()
            object.__setattr__(self, "_content_hash", cached)
        return cached

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self.content_hash == other.content_hash

    def __hash__(self) -> int:
        return hash(self.content_hash)
