"""Which registered id an env view names in its messages: the registry's, never a constant of its own.

An env made by ``gym.make``, ``gym.make_vec``, ``benchmarkzoo.make_parallel`` or ``make_vec`` is
given its spec right after construction (Gymnasium sets ``env.unwrapped.spec``; our parallel
makers do the same), and :class:`SpecNamed`'s ``spec`` setter renames the env after it. During
construction, and for an env constructed directly, the name comes from :func:`registered_id`:
the spec whose entry point is the view's class and whose kwargs this configuration satisfies
(``PandaEnv(ReachGenerator(), reward_type="dense")`` is ``benchmarkzoo/PandaReach-Dense-v0``),
else the spec that differs from it only in the generator's kwargs, else the spec whose generator
this one is whatever the other arguments (a RESCO env made with a bad ``reward`` still names its
network), else the class's first registered spec (by id), else the class's own ``env_id`` attribute (a view that
is not registered: a test's toy, a third party's draft).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from benchmarkzoo.core.scenario import canonical_json


class SpecNamed:
    """Mixin of the view bases: a ``spec`` attribute whose assignment sets :attr:`env_id` to ``spec.id``."""

    env_id: str = "benchmarkzoo"
    _spec: Any = None

    @property
    def spec(self) -> Any:
        """The spec the env was made under (Gymnasium's ``EnvSpec`` or the registry's), or ``None``."""
        return self._spec

    @spec.setter
    def spec(self, value: Any) -> None:
        self._spec = value
        if value is not None and getattr(value, "id", None):
            self.env_id = value.id


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON (a tuple argument matches the list a spec holds); values JSON cannot hold compare with ``==``."""
    try:
        return canonical_json(a) == canonical_json(b)
    except (TypeError, ValueError):
        return a == b


def _matches(kwargs: dict[str, Any], config: Any, generator: Any, strict: bool, arguments: bool = True) -> bool:
    from benchmarkzoo.core.errors import UnknownGeneratorError
    from benchmarkzoo.registration import generator_name

    for f in dataclasses.fields(config):
        if f.name == "generator":
            if "generator" not in kwargs:
                continue
            try:
                if generator_name(generator) != kwargs["generator"]:
                    return False
            except UnknownGeneratorError:
                return False
        elif f.name == "generator_kwargs":  # the instance's kwargs include every key the spec names
            if not strict:
                continue
            own = generator.kwargs
            if any(key not in own or not _same(own[key], value) for key, value in (kwargs.get(f.name) or {}).items()):
                return False
        elif arguments and not _same(getattr(config, f.name), kwargs.get(f.name, f.default)):
            return False
    return True


def registered_id(cls: type[SpecNamed], config: Any = None, generator: Any = None) -> str:
    """The id an instance of ``cls`` made with ``config`` and ``generator`` names (see the module docstring)."""
    candidates = _specs_of(cls)
    if not candidates:
        return cls.env_id
    if config is not None and generator is not None:
        # then a generator of the spec's kind with other sizes, then the spec's generator with other arguments
        for strict, arguments in ((True, True), (False, True), (True, False)):
            for spec in candidates:
                if _matches(spec.kwargs, config, generator, strict, arguments):
                    return spec.id
    return candidates[0].id


def _specs_of(cls: type) -> list[Any]:
    """The registered specs whose entry point (or vector entry point) is ``cls``, in registration order."""
    from benchmarkzoo.registration import registered_so_far

    target = f"{cls.__module__}:{cls.__qualname__}"
    return [s for s in registered_so_far() if target in (s.entry_point, s.vector_entry_point)]


def require_extras(cls: type) -> None:
    """Refuse to build a registered view whose extras are missing, naming the ``pip install`` that adds them.

    Called first by every configured view's constructor, so ``gym.make`` of a traffic id without
    the ``traffic`` extra fails at ``make``, not at the first ``reset``. A view that is not
    registered (a test's toy) has no extras to check.
    """
    for spec in _specs_of(cls)[:1]:  # every spec of one class names the same simulator
        spec.require_extras()
