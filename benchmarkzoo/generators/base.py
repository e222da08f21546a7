"""The Generator contract.

A generator turns a ``numpy.random.Generator`` into one complete scenario. Size and
difficulty parameters live on the generator (checked in ``__init__``); difficulty tiers are
just other kwargs. Generators are named in the registry by string, so an env spec holds
``generator="maze/dfs", generator_kwargs={...}`` and serializes to JSON.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import inspect
from typing import Any, ClassVar

import numpy as np

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.core.seeding import np_random


@functools.cache
def _forwarded_parameters(cls: type) -> tuple[dict[str, inspect.Parameter], bool]:
    """The named ``__init__`` parameters of ``cls`` and of the parents it forwards ``**kwargs`` to, leaf first.

    Returns:
        ``({name: parameter}, forwards)``: a name a subclass re-defaults keeps the subclass's
        default, and a parent's parameter is keyword-only (it is reachable through ``**kwargs``
        only); ``forwards`` is whether the class's own ``__init__`` forwards ``**kwargs``.
    """
    owners = [klass for klass in cls.__mro__ if "__init__" in klass.__dict__ and klass is not object]
    found: dict[str, inspect.Parameter] = {}
    forwards = []
    for depth, klass in enumerate(owners):
        parameters = list(inspect.signature(klass.__dict__["__init__"]).parameters.values())
        for p in parameters:
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in found:
                found[p.name] = p if depth == 0 else p.replace(kind=p.KEYWORD_ONLY)
        forwards.append(any(p.kind is p.VAR_KEYWORD for p in parameters))
        if not forwards[-1]:
            break
    return found, bool(forwards) and forwards[0]


class _ForwardedSignature:
    """``inspect.signature`` (and ``help``) of a generator class whose ``__init__`` forwards ``**kwargs``.

    The signature spells out every argument along the MRO: the class's own, then (keyword-only)
    those of the parents it forwards to, so a subclass that states only what it adds or
    re-defaults still documents every argument it takes. ``None`` (Python's own signature) for
    instances, dataclasses and classes that forward nothing.
    """

    def __get__(self, instance: Any, owner: type) -> inspect.Signature | None:
        if instance is not None or dataclasses.is_dataclass(owner):
            return None
        parameters, forwards = _forwarded_parameters(owner)
        return inspect.Signature(list(parameters.values())) if forwards else None


class Generator(abc.ABC):
    """Turns a random generator into one complete scenario.

    Subclasses set ``scenario_type``, validate their keyword arguments in ``__init__`` with
    :meth:`_check_int_range` (or their own :class:`GeneratorArgumentError`), and implement
    :meth:`__call__`, which must draw only from the ``rng`` it is given.
    """

    scenario_type: ClassVar[type[Scenario]]
    __signature__: ClassVar[Any] = _ForwardedSignature()

    @abc.abstractmethod
    def __call__(self, rng: np.random.Generator) -> Scenario:
        """Draw one scenario; deterministic in the state of ``rng``."""

    def sample(self, seed: int) -> Scenario:
        """The scenario of ``seed``: exactly what an env draws on ``reset(seed=seed)``."""
        return self(np_random(seed))

    @property
    def kwargs(self) -> dict[str, Any]:
        """The constructor arguments, JSON-compatible, read back from same-named attributes.

        A dataclass generator's arguments are its init fields. Otherwise they are the named
        parameters of the class's ``__init__`` and, where it forwards ``**kwargs``, those of the
        parent ``__init__`` it forwards to (and so on up the MRO): a subclass states only the
        arguments it adds or whose defaults it changes.
        """
        return {name: getattr(self, name) for name in init_arguments(type(self))}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"{type(self).__name__}({args})"

    @staticmethod
    def _check_int_range(name: str, value: Any, low: int, high: int | None = None, *, odd: bool = False) -> int:
        """Return ``value`` as int if it lies in ``[low, high]`` (and is odd when asked), else raise."""
        ok = isinstance(value, int | np.integer) and not isinstance(value, bool)
        ok = ok and value >= low and (high is None or value <= high) and (not odd or value % 2 == 1)
        if not ok:
            allowed = f"an{' odd' if odd else ''} integer in [{low}, {high if high is not None else 'inf'}]"
            raise GeneratorArgumentError(f"{name} must be {allowed}; got {value!r}.")
        return int(value)

    @staticmethod
    def _check_float_range(name: str, value: Any, low: float, high: float) -> float:
        """Return ``value`` as float if it is a finite number in ``[low, high]``, else raise."""
        ok = isinstance(value, int | float | np.number) and not isinstance(value, bool)
        if not ok or not (low <= float(value) <= high):
            raise GeneratorArgumentError(f"{name} must be a number in [{low}, {high}]; got {value!r}.")
        return float(value)


@functools.cache
def init_arguments(cls: type) -> tuple[str, ...]:
    """The constructor arguments of generator class ``cls``, see :attr:`Generator.kwargs`."""
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls) if f.init)
    return tuple(_forwarded_parameters(cls)[0])


def resolve_generator(
    generator: str | Generator, generator_kwargs: dict[str, Any] | None, expected: type | tuple[type, ...], needs: str
) -> Any:
    """An env's ``generator`` argument as a generator.

    ``generator`` is a registered name (made with ``generator_kwargs``) or an instance; either way
    the result must be an ``expected`` one.

    Raises:
        ScenarioError: ``"<needs>; got <the generator>."``, ``needs`` naming the env and what it takes.
    """
    from benchmarkzoo.registration import make_generator  # the registry's catalogue names the generator modules

    gen = make_generator(generator, generator_kwargs) if isinstance(generator, str) else generator
    if not isinstance(gen, expected):
        raise ScenarioError(f"{needs}; got {gen!r}.")
    return gen
