"""``benchmarkzoo/TrafficGrid-v0``: one agent per signal of a generated SUMO grid, as a PettingZoo ParallelEnv."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.core.spaces import check_action, check_action_dict
from benchmarkzoo.envs.multiagent.view import ParallelEnvView
from benchmarkzoo.envs.traffic import sim
from benchmarkzoo.envs.traffic.config import SignalConfig, Signals
from benchmarkzoo.envs.traffic.generators import TrafficGenerator
from benchmarkzoo.envs.traffic.render import RENDER_METADATA
from benchmarkzoo.envs.traffic.scenario import TrafficScenario
from benchmarkzoo.envs.traffic.signals import SignalEpisode
from benchmarkzoo.generators.base import Generator

#: Keys added to every agent's info on the step the episode ends (the network's episode metrics).
METRIC_KEYS = sim.METRIC_KEYS


class TrafficGridConfig(SignalConfig):
    """The arguments of TrafficGrid-v0 (both forms); see :class:`TrafficGridEnv`."""

    generator: str | Generator = "traffic/grid"
    # A variant fixes a base argument as a ClassVar (core/config.py, fixed_arguments): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    emissions: ClassVar[bool] = True  # type: ignore[misc]  # the episode metrics include total_co2

    generator_type: ClassVar[type] = TrafficGenerator
    generator_needs: ClassVar[str] = (
        "a network generator ('traffic/spider', 'traffic/random' and 'traffic/resco' play too)"
    )
    time_limit: ClassVar[int] = 360  # 1800 s of the default demand at delta_time=5

    def shapes(self, generator: Any, env_id: str) -> dict[str, tuple[int, int]]:
        """Every signal of ``generator``'s networks (``ScenarioError`` if there is none, or one has no green)."""
        shapes = generator.signals()
        if not shapes:
            raise ScenarioError(f"{env_id}: {generator!r} makes a network without traffic lights.")
        empty = [tls for tls, (num_phases, _) in shapes.items() if num_phases < 1]
        if empty:
            raise ScenarioError(f"{env_id}: traffic light(s) {', '.join(empty)} of {generator!r} have no green phase.")
        return shapes


def build_spaces(params: Signals) -> tuple[spaces.Box, spaces.Discrete]:
    """The one observation and action space every agent shares.

    The agents are the traffic-light ids, sorted (``tls_0``... slots on random networks). Signals
    of different shapes (a spider's centre and rings) share the widest: ``P`` the most green
    phases and ``L`` the most incoming lanes of any signal.
    """
    return spaces.Box(0.0, 1.0, shape=(params.observation_size,), dtype=np.float32), spaces.Discrete(params.num_phases)


def check_layout(
    env_id: str, generator: Generator, agents: list[str], width: tuple[int, int] | None, layout: sim.Layout, label: str
) -> None:
    """Raise :class:`ScenarioError` unless the simulation's signals fit the env's agents and spaces."""
    if getattr(generator, "fixed_network", True):
        if list(layout.tls_ids) != agents:
            raise ScenarioError(
                f"{env_id} was made for traffic lights {agents}; {label} has {list(layout.tls_ids)}. "
                "Pass a scenario of this env's generator."
            )
        return
    too_big = [
        tls
        for k, tls in enumerate(layout.tls_ids)
        if width is not None and (layout.num_phases(k) > width[0] or len(layout.incoming[k]) > width[1])
    ]
    if len(layout.tls_ids) != len(agents) or too_big:
        raise ScenarioError(
            f"{env_id} was made for {len(agents)} traffic lights of at most {width} (greens, incoming lanes); "
            f"{label} has {len(layout.tls_ids)}"
            + (f", and {', '.join(too_big)} are larger" if too_big else "")
            + ". Pass a scenario of this env's generator."
        )


def agent_info(layout: sim.Layout, m: sim.Measurement, k: int) -> dict[str, Any]:
    """Agent ``k``'s info of a step: its own queue and waiting time, and the network's clock and trips."""
    return sim.step_info(layout, m, tls=k)


class TrafficGridEnv(SignalEpisode, ParallelEnvView):
    """Coordinate the traffic lights of a generated grid on the real SUMO simulator, one agent per signal.

    ## Description

    A ``rows x cols`` grid of signalized junctions (``netgenerate --grid``, 200 m blocks and
    200 m arms at the fringe, one lane per direction by default; every junction signalized
    with two green phases, north-south and east-west, left turns yielding). Vehicles enter on
    every fringe arm by a seeded demand profile and leave at the fringe, mostly on the
    opposite side; SUMO routes them on the shortest path and simulates every vehicle.

    Each traffic light is an agent with the single-intersection signal logic of
    ``benchmarkzoo/TrafficSignal-v0`` (:mod:`benchmarkzoo.envs.traffic.sim`): every step it
    picks the green to show for the next ``delta_time`` seconds; a change goes through
    ``yellow_time`` of yellow, and is ignored until the current green has shown ``min_green``
    seconds. One SUMO simulation serves every agent.

    Other networks: ``generator="traffic/spider"`` (a spider web: arms from a signalized centre
    across rings, optionally signalized) and ``generator="traffic/random"`` (a random network
    drawn per scenario from the seed, signals at its junctions of degree 3+); see
    :mod:`benchmarkzoo.envs.traffic.generators` and the scenario sets ``traffic/spider`` and
    ``traffic/random-network``.

    ## Agents

    The traffic-light ids of the network, sorted: ``A0, A1, B0, B1`` for the default 2x2 grid
    (letter: column west to east, digit: row south to north); ``A1`` (the centre), ``B1``... on
    a spider. A random network differs per scenario, so its agents are slots ``tls_0``...
    ``tls_{n-1}``, slot ``k`` the ``k``-th signal by id (every network of the generator has
    ``num_signals`` of them). No agent leaves before the end.

    ## Action Space

    ``Discrete(P)`` per agent, ``P`` the most green phases of any signal: on the grid 2 (0
    north-south green, 1 east-west green). A signal with fewer greens ``P_k`` shows green
    ``action % P_k`` (a spider's 5-arm centre has 3 greens, its ring junctions 2; random
    networks' signals 1 to 4 of ``P = 4``), so every action of the space is valid everywhere.

    ## Observation Space

    ``Box(0, 1, (P + 1 + 2L,), float32)`` per agent (``P`` = 2 greens, ``L`` = 4 incoming
    lanes per signal by default, so 11): one-hot current green, whether the minimum green has
    passed, density and queue of each incoming lane, laid out as in TrafficSignal-v0. Each
    agent sees only its own junction. Where signals differ, ``P`` and ``L`` are the largest of
    any signal and each block is zero-padded after the signal's own ``P_k`` greens and ``L_k``
    lanes.

    ## Rewards

    Per agent, of its own junction, selected with ``reward=`` as in TrafficSignal-v0:
    ``"diff-waiting-time"`` (default), ``"pressure"`` or ``"queue"``.

    ## Rendering

    ``render_mode="rgb_array"`` or ``"human"``: TrafficSignal-v0's top-down view of the whole
    network (:mod:`benchmarkzoo.envs.traffic.render`), every signal's stop lines in its links'
    colours and halting vehicles in red; a frame reads SUMO only when drawn, and an episode is
    the same rendered or not. The native vector form does not render.

    ## Episode End

    * Termination: never.
    * Truncation: every agent after ``max_cycles`` steps (360 in the registered spec: the
      1800 s of the default demand at ``delta_time=5``).

    Every step's info, per agent: ``sim_time``, ``queue`` and ``waiting_time`` (its incoming
    lanes), ``arrived``, ``mean_waiting_time`` and ``mean_travel_time`` (the network's). On the
    step the episode ends every agent's info also holds the network's episode metrics:
    ``throughput`` (completed trips), ``mean_queue`` (halting vehicles on every signal's incoming
    lanes, averaged over steps) and ``total_co2`` (grams of CO2 from every vehicle, SUMO's
    emission model with its default class ``HBEFA4/PC_petrol_Euro-4``, summed second by
    second), besides the final ``mean_waiting_time`` and ``mean_travel_time`` (seconds, over
    completed trips).

    Baselines on the test split of ``traffic/grid`` (2x2 grid, 300 vehicles/h per fringe arm;
    seeds 100000-100004 of the 50, full 360-step episodes; SUMO 1.28; means over the episodes):

    | Controller | mean waiting time (s) | mean travel time (s) | throughput | mean queue | total CO2 (g) |
    |------------|-----------------------|----------------------|------------|------------|---------------|
    | fixed-time (30 s greens, no offsets) | 83.91 | 181.30 | 830.6 | 82.10 | 428,308 |
    | max-pressure at every signal | 36.86 | 122.96 | 1,075.4 | 22.72 | 281,977 |

    (``benchmarkzoo.envs.traffic.grid.baseline``. Under fixed-time about 82 vehicles halt on average
    and fewer trips end within the 30 minutes.)

    On the other networks (test splits, every seed of ``traffic/spider``'s 50: 5 arms, 2 rings,
    11 signals, 400 vehicles/h per arm; the 20 of ``traffic/random-network``: 4 signals, a new
    network per seed, 300 vehicles/h per entry; full 360-step episodes, SUMO 1.28):

    | Network | Controller | mean waiting time (s) | mean travel time (s) | throughput | mean queue | total CO2 (g) |
    |---------|------------|-----------------------|----------------------|------------|------------|---------------|
    | spider | fixed-time | 31.19 | 111.01 | 915.1 | 15.99 | 227,812 |
    | spider | max-pressure | 10.70 | 82.52 | 930.0 | 5.39 | 176,522 |
    | random | fixed-time | 76.14 | 154.98 | 614.0 | 34.25 | 215,038 |
    | random | max-pressure | 18.39 | 86.09 | 681.4 | 8.15 | 135,672 |

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/TrafficGrid-v0", generator="traffic/grid",
                               generator_kwargs={"rows": 2, "cols": 2, "rate": 300}, delta_time=5,
                               yellow_time=2, min_green=5, reward="diff-waiting-time", max_cycles=360,
                               backend="libsumo", in_process=None, render_mode=None)
    ```

    ``generator``, ``backend``, ``in_process`` and ``reset(options={"scenario": s})`` work as
    in TrafficSignal-v0; the scenario of ``reset(seed=s)`` is ``generator.sample(s)``. The
    native multi-world form (``benchmarkzoo.make_vec``) is
    :class:`~benchmarkzoo.envs.traffic.grid.vector_env.TrafficGridVectorEnv`, one libsumo worker
    process per world. ``close()`` stops SUMO and removes every temporary file.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.traffic.grid.env import TrafficGridEnv
    >>> env = TrafficGridEnv(generator_kwargs={"duration": 300})
    >>> observations, infos = env.reset(seed=0)
    >>> env.agents
    ['A0', 'A1', 'B0', 'B1']
    >>> observations["A0"].shape
    (11,)
    >>> observations, rewards, terminations, truncations, infos = env.step({agent: 1 for agent in env.agents})
    >>> infos["B1"]["sim_time"]
    5.0
    >>> env.close()
    """

    metadata = {"name": "traffic_grid_v0", **RENDER_METADATA, "is_parallelizable": True}
    pickled_attributes = ("agents", "num_steps")
    config_type = TrafficGridConfig
    config: TrafficGridConfig

    def _setup(self) -> None:
        self._init_simulation()
        self._observation_space, self._action_space = build_spaces(self.params)
        self._widths = (self.params.num_phases, self.params.num_lanes)  # (P, L) laid out per agent

    # ---- the PettingZoo API --------------------------------------------------------------------

    def _load(self, scenario: TrafficScenario) -> None:
        self.agents = []  # until the simulation has started
        self._start(scenario)

    def _reset_infos(self) -> dict[str, dict[str, Any]]:
        return {agent: agent_info(self.layout, self._measurement, k) for k, agent in enumerate(self.possible_agents)}

    def step(self, actions: dict[str, Any]):
        """Show every agent's green for the next ``delta_time`` seconds (``a % P_k`` where a signal has fewer)."""
        check_action_dict(self.env_id, actions, self.agents, self._index, "send its current green to keep it")
        chosen = np.zeros(len(self.possible_agents), dtype=np.int64)  # (N,)
        for agent in self.agents:
            action = actions[agent]
            space = self._action_space
            if type(action) is not int or not 0 <= action < space.n:
                check_action(self.env_id, space, action, who=f"agent {agent!r}")
            k = self._index[agent]
            chosen[k] = int(action) % self.layout.num_phases(k)  # a signal with fewer greens than the space
        self._advance(chosen)
        self.num_steps += 1
        layout, m = self.layout, self._measurement
        rewards = self._rewards()
        infos = {agent: agent_info(layout, m, k) for k, agent in enumerate(self.possible_agents)}
        ended = self.num_steps >= self.max_cycles
        if ended:
            metrics = sim.episode_metrics(m, self._totals, emissions=True)
            for info in infos.values():
                info.update(metrics)
        observations = self._observations(self.agents)
        terminations = {agent: False for agent in self.agents}
        truncations = {agent: ended for agent in self.agents}
        if ended:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _rewards(self) -> dict[str, Any]:
        """Every agent's reward for the step that produced the current measurement."""
        layout, m = self.layout, self._measurement
        rewards = {}
        for k, agent in enumerate(self.possible_agents):
            rewards[agent] = sim.reward(self.reward_kind, layout, m, self._previous_waiting[k], tls=k)
            self._previous_waiting[k] = sim.total_waiting(layout, m, tls=k)
        return rewards

    def close(self) -> None:
        """Stop SUMO, remove the temporary files; the env refuses every call after it."""
        self._close_simulation()
        super().close()

    # ---- the simulation (SignalEpisode's hooks) ------------------------------------------------

    def _waiting(self, layout: sim.Layout, m: sim.Measurement) -> np.ndarray:
        """``(N,)`` float64 summed waiting time on each signal's incoming lanes."""
        return np.array([sim.total_waiting(layout, m, tls=k) for k in range(len(self.possible_agents))])

    def _check_layout(self, layout: sim.Layout, scenario: TrafficScenario) -> None:
        check_layout(self.env_id, self.generator, self.possible_agents, self._widths, layout, scenario.label)

    def _simulation_failed(self) -> None:
        self.agents = []

    def _observations(self, agents: list[str]) -> dict[str, np.ndarray]:
        return {
            agent: sim.observe(self.layout, self._measurement, self._index[agent], *self._widths) for agent in agents
        }
