"""Pickling a SUMO-backed env: its arguments, its RNG, its scenario and the actions it took.

A running SUMO simulation cannot be pickled, but it is a function of its scenario and of the
actions it was given (every libsumo simulation starts in a fresh process, see
:mod:`benchmarkzoo.envs.traffic.worker`), so a copy rebuilt by replaying the episode is the same
simulation: :class:`ReplayPickling` does that for the traffic envs.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from benchmarkzoo.core.scenario import Scenario


def rng_state(rng: np.random.Generator | None) -> Mapping[str, Any] | None:
    """The state of ``rng``'s bit generator (``None`` stays ``None``)."""
    return None if rng is None else rng.bit_generator.state


def rng_from_state(state: Mapping[str, Any] | None) -> np.random.Generator | None:
    """The generator whose ``bit_generator.state`` was ``state`` (``None`` stays ``None``)."""
    if state is None:
        return None
    bit_generator = getattr(np.random, state["bit_generator"])()
    bit_generator.state = state
    return np.random.Generator(bit_generator)


class ReplayPickling:
    """``__getstate__``/``__setstate__`` that rebuild the simulation by replaying the episode.

    A subclass is a configured view (it keeps the ``init_arguments`` it was made with, see
    :class:`~benchmarkzoo.envs.configured.ConfiguredView`) and keeps ``scenario``,
    ``_measurement`` (``None`` before a start or after a failure) and the list ``_log`` of what it
    passed to ``_advance``; it implements ``_start(scenario)`` and ``_replay(entry)``
    (``_advance`` plus whatever bookkeeping a step does beside it).
    """

    init_arguments: dict[str, Any]
    scenario: Any
    _measurement: Any
    _log: list[Any]

    #: The scenario class, to rebuild the scenario from its dict.
    scenario_type: ClassVar[type[Scenario]]
    #: The attribute holding the env's own RNG.
    rng_attribute: ClassVar[str] = "_rng"
    #: Attributes restored as they were (e.g. ``agents``, ``num_steps``).
    pickled_attributes: ClassVar[tuple[str, ...]] = ()

    def __getstate__(self) -> dict[str, Any]:
        return {
            "kwargs": self.init_arguments,
            "rng": rng_state(getattr(self, self.rng_attribute)),
            "scenario": None if self._measurement is None else self.scenario.to_dict(),
            "log": copy.deepcopy(self._log),
            "attributes": {name: copy.deepcopy(getattr(self, name)) for name in self.pickled_attributes},
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        type(self).__init__(self, **state["kwargs"])  # the same as self.__init__, which mypy refuses
        if state["rng"] is not None:
            setattr(self, self.rng_attribute, rng_from_state(state["rng"]))
        for name, value in state["attributes"].items():  # before the replay: a start may read them (spec)
            setattr(self, name, value)
        if state["scenario"] is not None:
            self._start(self.scenario_type.from_dict(state["scenario"]))
            for entry in state["log"]:
                self._replay(entry)

    def _start(self, scenario: Any) -> None:
        """Start the simulation of ``scenario`` (the subclass's)."""
        raise NotImplementedError

    def _replay(self, entry: Any) -> None:
        raise NotImplementedError
