"""The arguments every signal-control env shares, declared once (:class:`~benchmarkzoo.core.config.EnvConfig`).

TrafficSignal-v0, TrafficGrid-v0, their multi-objective variants, the RESCO envs and all their
native vector forms take the arguments of :class:`SignalConfig`; each env's config subclasses it
with its generator (and default), its step limit and the signals it lays out. A variant fixes
the arguments it does not take by re-declaring them as ``ClassVar`` constants
(:meth:`~benchmarkzoo.core.config.EnvConfig.fixed_arguments`): a multi-objective env plays
``reward`` and ``emissions`` (its rewards are the objectives, which need SUMO's CO2); a native
vector form runs every world's SUMO in its own libsumo worker, so it plays ``backend`` and
``in_process``. A caller passing one is told the value it is played at.

The simulator's side of a config is :class:`Signals` (:meth:`SignalConfig.sim_params`): the
timing every controller runs with and the signals the env's agents and spaces are laid out for.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from benchmarkzoo.core.config import EnvConfig, arg, one_of
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.envs.traffic import sim
from benchmarkzoo.envs.traffic.runner import BACKENDS
from benchmarkzoo.envs.traffic.scenario import TrafficScenario
from benchmarkzoo.generators.base import Generator


@dataclasses.dataclass(frozen=True)
class Signals:
    """What a signal-control view is laid out for: its controllers' timing and its traffic lights.

    Attributes:
        timing: seconds per step, of yellow and of minimum green.
        agents: the traffic lights the agents control (ids, or slots ``tls_k`` for networks drawn per scenario).
        num_phases: ``P``, the most green phases of any signal (every agent's ``Discrete(P)``).
        num_lanes: ``L``, the most incoming lanes of any signal (observation blocks are laid out for ``L``).
    """

    timing: sim.Timing
    agents: tuple[str, ...]
    num_phases: int
    num_lanes: int

    @property
    def observation_size(self) -> int:
        """``P + 1 + 2L``: one-hot green, minimum green passed, lane densities, lane queues."""
        return self.num_phases + 1 + 2 * self.num_lanes


class SignalConfig(EnvConfig):
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

    generator: str | Generator = "traffic/single-intersection"
    generator_kwargs: dict[str, Any] | None = None
    delta_time: int = 5
    yellow_time: int = 2
    min_green: int = 5
    reward: str = arg(default="diff-waiting-time", check=one_of(sim.REWARDS))
    backend: str = arg(default="libsumo", check=one_of(BACKENDS))
    in_process: bool | None = None
    emissions: bool = False

    def shapes(self, generator: Any, env_id: str) -> dict[str, tuple[int, int]]:
        """``{traffic light: (green phases, incoming lanes)}`` the env is laid out for, else ``ScenarioError``."""
        raise NotImplementedError

    def sim_params(self, generator: Any, env_id: str) -> Signals:
        """The controllers' timing and the signals of ``generator``'s networks (generated, or read from the cache)."""
        timing = sim.Timing(self.delta_time, self.yellow_time, self.min_green)
        shapes = self.shapes(generator, env_id)
        num_phases = max(p for p, _ in shapes.values())
        num_lanes = max(n for _, n in shapes.values())
        return Signals(timing, tuple(shapes), num_phases, num_lanes)

    def possible_agents(self, params: Signals) -> list[str]:
        """One agent per traffic light, in the network's order."""
        return list(params.agents)

    def check_scenario(self, scenario: Any, generator: Any, params: Any, env_id: str) -> TrafficScenario:
        """``scenario`` if it is a :class:`TrafficScenario` of ``generator``'s network kind, else ``ScenarioError``."""
        kind = generator.network_kind
        if not isinstance(scenario, TrafficScenario) or scenario.network != kind:
            raise ScenarioError(
                f"{env_id}: options['scenario'] must be a {kind} TrafficScenario; got {scenario!r:.80}."
            )
        return scenario
