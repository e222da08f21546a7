"""An env's arguments, declared once: one frozen dataclass that every view of the env and the registry read.

An env declares its constructor arguments (defaults and checks included) as a subclass of
:class:`EnvConfig`; subclasses are made frozen dataclasses here, so they do not repeat the
decorator:

    class MazeConfig(EnvConfig):
        generator: str | Generator = "maze/dfs"
        view_radius: int = arg(default=2, check=integer(1, 10))
        step_reward: float = arg(default=-0.01, check=number())

The single view, the vector view and the registry's bounds then all read it: a view base builds
the view's ``__signature__`` from the fields (so ``inspect.signature(MazeEnv)`` and ``help()``
show the arguments with their defaults), binds what a caller passed (a misspelt keyword is a
``TypeError`` that names the known ones), checks every field (``"<env id>: view_radius must be
an integer in [1, 10]; got 12."``) and hands the view the checked config, its generator and
its simulator parameters (:meth:`EnvConfig.sim_params`).
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

import numpy as np
from typing_extensions import dataclass_transform

from benchmarkzoo.generators.base import Generator, resolve_generator


@dataclasses.dataclass(frozen=True)
class Check:
    """A field's check: what it expects (for the message), whether a value passes, and its stored form."""

    expected: str  # completes "<name> must be ..."
    accepts: Callable[[Any], bool]
    convert: Callable[[Any], Any] = lambda value: value


def _is_int(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def integer(low: int, high: int | None = None, *, optional: bool = False) -> Check:
    """An integer in ``[low, high]`` (``high=None``: unbounded), stored as ``int``; ``None`` too if ``optional``."""
    unbounded = {0: "a non-negative integer", 1: "a positive integer"}
    expected = unbounded.get(low, f"an integer >= {low}") if high is None else f"an integer in [{low}, {high}]"
    expected += " or None" if optional else ""

    def accepts(value: Any) -> bool:
        if value is None:
            return optional
        return _is_int(value) and value >= low and (high is None or value <= high)

    return Check(expected, accepts, lambda value: None if value is None else int(value))


def number(
    low: float = -math.inf, high: float = math.inf, *, open_low: bool = False, expected: str | None = None
) -> Check:
    """A finite number in ``[low, high]`` (``(low, high]`` if ``open_low``), stored as ``float``.

    ``expected`` overrides the message's wording.
    """
    if expected is None:
        if low == -math.inf and high == math.inf:
            expected = "a finite number"
        elif low == 0 and high == math.inf and not open_low:
            expected = "a finite non-negative number"
        else:
            expected = f"a number in {'(' if open_low else '['}{low}, {high}]"

    def accepts(value: Any) -> bool:
        if not (_is_real(value) and math.isfinite(value)):
            return False
        return (low < value if open_low else low <= value) and value <= high

    return Check(expected, accepts, float)


def one_of(options: Iterable[Any]) -> Check:
    """One of ``options`` (compared with ``==``)."""
    options = tuple(options)
    return Check(f"one of {options}", lambda value: isinstance(value, str | int | float) and value in options)


def checked_value(env_id: str, name: str, value: Any, check: Check) -> Any:
    """``value`` in its stored form if it passes ``check``; else ``ValueError("<env_id>: <name> must be ...")``."""
    if not check.accepts(value):
        raise ValueError(f"{env_id}: {name} must be {check.expected}; got {value!r}.")
    return check.convert(value)


def arg(*, default: Any, check: Check | None = None, doc: str = "") -> Any:
    """A config field with its default and its check (``dataclasses.field`` with the check in its metadata).

    The arguments are keywords because type checkers read a field specifier's default only from
    ``default=`` (PEP 681): ``x: int = arg(2, ...)`` would be a field without a default to them.
    """
    return dataclasses.field(default=default, metadata={"check": check, "doc": doc})


def default_of(config: type[EnvConfig], name: str) -> Any:
    """The default of another config's field ``name``: a variant that fixes an argument (as a ``ClassVar``) to it."""
    return config.__dataclass_fields__[name].default


@dataclass_transform(frozen_default=True, field_specifiers=(arg, dataclasses.field))
@dataclasses.dataclass(frozen=True)
class EnvConfig:
    """Base of every env's arguments. Subclasses are frozen dataclasses (made so at class creation).

    Class attributes a subclass sets:
        generator_type: the generator class (or classes) the env takes.
        generator_needs: completes ``"<env id> needs ..."`` when another generator is passed.
        time_limit: the default ``max_episode_steps`` of the native vector form (``max_cycles`` of a
            parallel env) when the env is constructed directly; the registry's spec passes its own.
        agent_prefix: a parallel env's agents are ``<agent_prefix>_<i>`` (see :meth:`possible_agents`).

    Methods a subclass overrides: :meth:`sim_params` (the simulator's parameters from the checked
    config and the generator) and :meth:`check_scenario` (``options["scenario"]`` validated).
    """

    generator: Any
    generator_kwargs: dict[str, Any] | None = None

    generator_type: ClassVar[type | tuple[type, ...]] = Generator
    generator_needs: ClassVar[str] = "a generator"
    time_limit: ClassVar[int | None] = None
    agent_prefix: ClassVar[str] = "agent"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__dataclass_params__" not in cls.__dict__:  # every config is a frozen dataclass; no decorator to repeat
            dataclasses.dataclass(frozen=True)(cls)

    @classmethod
    def parameters(cls) -> list[inspect.Parameter]:
        """The fields as keyword-or-positional parameters with their defaults, in declaration order."""
        return [
            inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=f.default, annotation=f.type)
            for f in dataclasses.fields(cls)
        ]

    @classmethod
    def fixed_arguments(cls) -> dict[str, Any]:
        """The arguments this config fixes, with the value it plays each at.

        A variant fixes an argument of its base config by re-declaring it as a ``ClassVar``
        constant (``reward: ClassVar[str] = "diff-waiting-time"``), which removes it from the
        fields and so from every view's signature; a caller who passes it is told the value.
        """
        own = {f.name for f in dataclasses.fields(cls)}
        return {
            f.name: getattr(cls, f.name)
            for base in reversed(cls.__mro__[1:])
            if dataclasses.is_dataclass(base)
            for f in dataclasses.fields(base)
            if f.name not in own
        }

    @classmethod
    def from_kwargs(cls, kwargs: dict[str, Any]) -> EnvConfig:
        """The config of an env's constructor kwargs (its other arguments, such as ``render_mode``, ignored)."""
        return cls(**{f.name: kwargs[f.name] for f in dataclasses.fields(cls) if f.name in kwargs})

    def checked(self, env_id: str) -> EnvConfig:
        """This config with every field checked and converted; raise ``ValueError`` naming ``env_id`` otherwise."""
        converted = {}
        for f in dataclasses.fields(self):
            check = f.metadata.get("check")
            if check is None:
                continue
            converted[f.name] = checked_value(env_id, f.name, getattr(self, f.name), check)
        return dataclasses.replace(self, **converted) if converted else self

    def make_generator(self, env_id: str) -> Generator:
        """The ``generator`` field resolved: a registered name (made with ``generator_kwargs``) or an instance."""
        default = type(self).__dataclass_fields__["generator"].default
        example = f" (e.g. {default!r})" if isinstance(default, str) else ""
        return resolve_generator(
            self.generator,
            self.generator_kwargs,
            self.generator_type,
            f"{env_id} needs {self.generator_needs}{example}",
        )

    def sim_params(self, generator: Any, env_id: str) -> Any:
        """The simulator's frozen parameters for this (checked) config and ``generator``."""
        return None

    def possible_agents(self, params: Any) -> list[str]:
        """The agents of a parallel env of ``params``, in the order of the simulator's agent axis.

        By default ``<agent_prefix>_0`` .. ``<agent_prefix>_{N-1}`` for ``N = params.num_agents``.
        """
        return [f"{self.agent_prefix}_{i}" for i in range(params.num_agents)]

    def check_scenario(self, scenario: Any, generator: Any, params: Any, env_id: str) -> Any:
        """``options["scenario"]`` if it fits an env of ``generator`` and ``params``, else :class:`ScenarioError`."""
        raise NotImplementedError


def bind_arguments(
    owner: str,
    signature: inspect.Signature,
    args: tuple,
    kwargs: dict[str, Any],
    fixed: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Every parameter of ``signature`` bound to what a caller passed, defaults applied.

    Args:
        owner: the class, for messages.
        signature: the constructor's signature.
        args: the positional arguments the caller passed.
        kwargs: the keyword arguments the caller passed.
        fixed: arguments the class does not take because it plays them at a fixed value
            (:meth:`EnvConfig.fixed_arguments`); passing one is refused with that value.

    Raises:
        TypeError: an unknown keyword (with the value a fixed one is played at, else the closest
            known one, and the full list), or too many positional arguments; the message names
            ``owner`` (the class).
    """
    names = list(signature.parameters)
    unknown = [key for key in kwargs if key not in signature.parameters]
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(key, names, n=1)
        guess = f" Did you mean {close[0]!r}?" if close else ""
        if fixed and key in fixed:
            guess = f" {owner} plays {key}={fixed[key]!r}, fixed by this variant; leave it out."
        raise TypeError(
            f"{owner}() got an unexpected keyword argument {key!r}.{guess} Its arguments are: {', '.join(names)}."
        )
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{owner}(): {error}. Its arguments are: {', '.join(names)}.") from None
    bound.apply_defaults()
    return dict(bound.arguments)


def config_signature(
    config: type[EnvConfig], leading: Iterable[inspect.Parameter] = (), trailing: Iterable[inspect.Parameter] = ()
) -> inspect.Signature:
    """A view's constructor signature: ``leading`` (``num_envs``), the config's fields, ``trailing`` (limits, modes)."""
    return inspect.Signature([*leading, *config.parameters(), *trailing])


def keyword(name: str, default: Any, annotation: Any = inspect.Parameter.empty) -> inspect.Parameter:
    """A keyword-or-positional parameter (the bases' own arguments: ``num_envs``, ``render_mode``, ...)."""
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation)
