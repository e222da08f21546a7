"""The parameters of the signal-control envs, declared once as frozen dataclasses.

Every signal-control view (TrafficSignal-v0, TrafficGrid-v0, their MO variants, the RESCO envs
and all their native vector forms) takes its parameters from one dataclass, defaults included:
:class:`SignalParams` (single intersection) or :class:`GridParams` (one agent per signal,
adding ``max_cycles``). A view class names its dataclass in ``params_type`` and, in
``fixed_params``, the parameters it does not take, with the value it plays them at (a
multi-objective variant has no ``reward``; a vector form runs libsumo in workers, so no
``backend``). Its constructor takes the others as keyword arguments (``**params``), and
:func:`declare_signature` gives the class the signature that lists them, so ``help()``,
``inspect.signature`` and the outcome bounds (:func:`benchmarkzoo.core.bounds.constructor_kwargs`)
see every parameter and its one default. The view keeps the dataclass as ``self.params``.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, ClassVar

from benchmarkzoo.envs.traffic import sim
from benchmarkzoo.envs.traffic.runner import BACKENDS


@dataclasses.dataclass(frozen=True)
class SignalParams:
    """How signals are driven and rewarded, and where SUMO runs.

    Attributes:
        delta_time: simulated seconds per env step.
        yellow_time: seconds of yellow between two greens.
        min_green: seconds a green shows before a change is honoured.
        reward: ``"diff-waiting-time"``, ``"pressure"`` or ``"queue"`` (see :mod:`~benchmarkzoo.envs.traffic.sim`).
        backend: ``"libsumo"`` or ``"traci"``.
        in_process: with libsumo, run SUMO in this process (``True``) instead of a fresh worker fork.
        emissions: account CO2 second by second (``info["total_co2"]``).
    """

    delta_time: int = 5
    yellow_time: int = 2
    min_green: int = 5
    reward: str = "diff-waiting-time"
    backend: str = "libsumo"
    in_process: bool | None = None
    emissions: bool = False

    def check(self, env_id: str) -> None:
        """Raise ``ValueError`` naming ``env_id`` unless ``reward`` and ``backend`` are known."""
        if self.reward not in sim.REWARDS:
            raise ValueError(f"{env_id}: reward must be one of {sim.REWARDS}; got {self.reward!r}.")
        if self.backend not in BACKENDS:
            raise ValueError(f"{env_id}: backend must be one of {BACKENDS}; got {self.backend!r}.")

    @property
    def timing(self) -> sim.Timing:
        return sim.Timing(self.delta_time, self.yellow_time, self.min_green)


@dataclasses.dataclass(frozen=True)
class GridParams(SignalParams):
    """:class:`SignalParams` of a network with one agent per signal.

    Attributes:
        max_cycles: steps after which every agent is truncated.
    """

    max_cycles: int = 360


class DeclaredParams:
    """A view whose parameters are a :attr:`params_type` dataclass, less :attr:`fixed_params`."""

    params_type: ClassVar[type[SignalParams]] = SignalParams
    #: Parameters the class does not take, and the values it plays them at.
    fixed_params: ClassVar[dict[str, Any]] = {}
    #: The default of the constructor's ``generator`` argument.
    default_generator: ClassVar[str]
    env_id: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declare_signature(cls)

    @classmethod
    def param_names(cls) -> list[str]:
        """The parameters this class takes, in declaration order."""
        return [f.name for f in dataclasses.fields(cls.params_type) if f.name not in cls.fixed_params]

    def _read_params(self, given: dict[str, Any]) -> SignalParams:
        """The parameters of ``given`` (keyword arguments) over the defaults and the fixed values, checked."""
        taken = self.param_names()
        refused = [name for name in given if name not in taken]
        if refused:
            name = refused[0]
            why = f"it plays {name}={self.fixed_params[name]!r}" if name in self.fixed_params else "no such parameter"
            raise TypeError(
                f"{self.env_id} takes no argument {name!r} ({why}); its arguments are "
                f"{', '.join(inspect.signature(type(self)).parameters)}."
            )
        params = self.params_type(**{**self.fixed_params, **given})
        params.check(self.env_id)
        return params


def declare_signature(cls: type[DeclaredParams]) -> None:
    """Give ``cls`` the signature of its constructor with ``**params`` spelt out as keyword arguments.

    The constructor's own parameters keep their place (``generator`` defaulting to the class's
    :attr:`~DeclaredParams.default_generator`); every parameter the class takes follows as a
    keyword-only parameter with its dataclass default.
    """
    if cls.__init__ is object.__init__:  # a mixin: its subclasses declare theirs
        return
    own = inspect.signature(cls.__init__)
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in own.parameters.values()):
        return
    params = [p for p in own.parameters.values() if p.name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD]
    if hasattr(cls, "default_generator"):
        params = [p.replace(default=cls.default_generator) if p.name == "generator" else p for p in params]
    positional = [p for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    keyword = [p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    defaults = {f.name: f for f in dataclasses.fields(cls.params_type)}
    declared = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=defaults[name].default)
        for name in cls.param_names()
    ]
    cls.__signature__ = inspect.Signature([*positional, *declared, *keyword])
