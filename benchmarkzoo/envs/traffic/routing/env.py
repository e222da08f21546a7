"""``benchmarkzoo/Routing-v0``: connected autonomous vehicles choose routes on a SUMO grid, a PettingZoo ParallelEnv."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from benchmarkzoo.core.config import EnvConfig
from benchmarkzoo.core.errors import IllegalActionError, ScenarioError
from benchmarkzoo.core.spaces import check_action, check_action_dict
from benchmarkzoo.envs.multiagent.view import ParallelEnvView
from benchmarkzoo.envs.traffic.render import RENDER_METADATA
from benchmarkzoo.envs.traffic.replay import ReplayPickling
from benchmarkzoo.envs.traffic.routing import sim
from benchmarkzoo.envs.traffic.routing.generator import RoutingGenerator, RoutingScenario
from benchmarkzoo.envs.traffic.routing.runner import RoutingWorkerRunner
from benchmarkzoo.envs.traffic.scenario import network_file
from benchmarkzoo.envs.traffic.session import SumoSession
from benchmarkzoo.generators.base import Generator

METRIC_KEYS = sim.METRIC_KEYS


def check_max_cycles(env_id: str, max_cycles: Any) -> int | None:
    """``max_cycles`` as an int (or ``None``: the day's end), else ``ValueError`` naming ``env_id``."""
    if max_cycles is None:
        return None
    if isinstance(max_cycles, bool) or not isinstance(max_cycles, int | np.integer) or max_cycles < 1:
        raise ValueError(f"{env_id}: max_cycles must be a positive integer or None; got {max_cycles!r}.")
    return int(max_cycles)


@dataclasses.dataclass(frozen=True)
class Params:
    """The sizes every scenario of the env's generator has.

    Attributes:
        num_agents: ``N``, the connected autonomous vehicles.
        num_routes: ``k``, the route options of each.
    """

    num_agents: int
    num_routes: int


class RoutingConfig(EnvConfig):
    """The arguments of Routing-v0 (both forms); see :class:`RoutingEnv`."""

    generator: str | Generator = "traffic/routing"
    generator_kwargs: dict[str, Any] | None = None

    generator_type: ClassVar[type] = RoutingGenerator
    generator_needs: ClassVar[str] = "a routing generator"
    agent_prefix: ClassVar[str] = "cav"

    def sim_params(self, generator: RoutingGenerator, env_id: str) -> Params:
        """The agents and route options every scenario of ``generator`` has."""
        return Params(generator.num_agents, generator.num_routes)

    def check_scenario(self, scenario: Any, generator: Any, params: Params, env_id: str) -> RoutingScenario:
        """``scenario`` if it is a :class:`RoutingScenario` of this env's sizes, else :class:`ScenarioError`."""
        if not (
            isinstance(scenario, RoutingScenario)
            and scenario.num_agents == params.num_agents
            and scenario.num_routes == params.num_routes
        ):
            raise ScenarioError(
                f"{env_id} was made for {params.num_agents} agents with {params.num_routes} route options; "
                f"options['scenario'] must be a RoutingScenario of that size, got {scenario!r:.80}."
            )
        return scenario


def build_spaces(params: Params) -> tuple[spaces.Box, spaces.Discrete]:
    """The one observation and action space every agent shares."""
    low, high = sim.observation_bounds(params.num_routes)
    return spaces.Box(low, high, dtype=np.float32), spaces.Discrete(params.num_routes)


def check_masks(
    env_id: str, scenario: RoutingScenario, deciding: np.ndarray, choices: np.ndarray, names: list[str]
) -> None:
    """Raise :class:`IllegalActionError` if a deciding agent picked a route option it does not have."""
    masks = sim.action_masks(scenario)  # (N, k)
    bad = np.flatnonzero(deciding & (masks[np.arange(len(choices)), choices] == 0))
    if bad.size:
        i = int(bad[0])
        raise IllegalActionError(
            f"{env_id}: agent {names[i]!r} chose route {int(choices[i])}, but it has only routes "
            f"{np.flatnonzero(masks[i]).tolist()} (its action mask, infos[{names[i]!r}]['action_mask'], "
            f"is {masks[i].tolist()}). Choose among the unmasked routes."
        )


def step_outcome(
    scenario: RoutingScenario, before: sim.Measurement, after: sim.Measurement, alive: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rewards, finished, travel_times)``, each ``(N,)``: agents finish on arrival, or all at the day's end.

    A finishing agent's reward is minus its travel time in minutes; everyone else's is 0.
    """
    arrived = np.isnan(before.arrival) & ~np.isnan(after.arrival)  # (N,)
    finished = alive & (arrived | after.done)
    times = sim.travel_times(scenario, after)  # (N,)
    rewards = np.where(finished, -np.nan_to_num(times) / 60.0, 0.0)
    return rewards, finished, times


def agent_info(
    scenario: RoutingScenario, m: sim.Measurement, masks: np.ndarray, deciding: np.ndarray, i: int
) -> dict[str, Any]:
    """Agent ``i``'s info of a step: the clock, whether it decides now, its action mask."""
    return {"sim_time": m.time, "deciding": bool(deciding[i]), "action_mask": masks[i].copy()}


class RoutingEnv(SumoSession, ReplayPickling, ParallelEnvView):
    """Choose routes for connected autonomous vehicles among human drivers, on the real SUMO simulator.

    ## Description

    In the spirit of the Urban Routing Benchmark (URB, Akman et al. 2025): one episode is one
    morning of traffic on a ``rows x cols`` SUMO grid (``netgenerate --grid``, 3x3 by default,
    200 m blocks, two lanes per direction, a fixed-time signal at every junction). Human drivers
    enter on every fringe arm by a seeded demand profile and SUMO routes each one, when it
    enters, on the free-flow shortest path to its exit. A fixed set of ``N`` connected autonomous
    vehicles (CAVs, 40 by default) are the agents: each has an origin and destination arm and a
    departure second, and chooses, when it departs, one of its ``k`` (3) shortest routes by
    free-flow time (precomputed in the scenario; see
    :mod:`benchmarkzoo.envs.traffic.routing.generator`). SUMO then drives it along that route
    among the humans (car following, lane changes, signals).

    Departures fall on slots every ``depart_interval`` (10) seconds; one env step is one slot
    with departures. The agents departing in it choose, SUMO inserts them on their routes, and
    the simulation runs second by second to the next slot with departures. After the last one,
    the same step runs the day to its end: until every vehicle (agents and humans) has arrived,
    or the ``horizon`` (second 2400).

    Why within-day (RouteRL's day as an episode) rather than one step per day: a CAV's choice
    then sees the traffic it will meet (SUMO's current travel times), the choices of earlier
    agents shape the traffic later ones meet, and each episode is one SUMO run.

    ## Agents

    ``cav_0`` ... ``cav_{N-1}``, in departure order. Every agent acts every step (a PettingZoo
    ParallelEnv needs an action from every live agent), but only a **deciding** agent's action
    is used: the one whose departure slot is now (observation entry 0, ``infos[agent]["deciding"]``).
    The others' actions are checked against the action space and otherwise ignored. An agent
    leaves (terminates) on the step it arrives.

    ## Action Space

    ``Discrete(k)``: the route option, 0 being the free-flow shortest (options are sorted by
    free-flow time). ``infos[agent]["action_mask"]`` (and the last ``k`` observation entries)
    marks the options an agent has; the generator gives every agent ``k`` of them, and a
    deciding agent choosing a masked option raises
    :class:`~benchmarkzoo.core.errors.IllegalActionError`.

    ## Observation Space

    ``Box(8 + 3k,)`` float32 per agent (17 for ``k = 3``):

    | Index | Meaning |
    |-------|---------|
    | 0 | 1 if the agent chooses its route this step |
    | 1 | 1 if it is on its way (departed, not arrived) |
    | 2 | time of day: simulated seconds / demand duration (capped at 1) |
    | 3 | time to its own departure / demand duration (0 once departed) |
    | 4-7 | origin x, y and destination x, y, in [0, 1] of the network's extent |
    | 8 to 8+k | free-flow time of each option (/ 600 s) |
    | 8+k to 8+2k | current travel time of each option (/ 600 s, unbounded): see below |
    | 8+2k to 8+3k | action mask |

    An option's current travel time is the sum, over its edges, of SUMO's routing travel
    times: the smoothed edge times SUMO's rerouting device routes on (what
    ``simulation.findRoute(..., routingMode=ROUTING_MODE_AGGREGATED)`` uses), finite even on a
    blocked edge. Reading them never changes the simulation (see
    :mod:`benchmarkzoo.envs.traffic.routing.sim`).

    ## Rewards

    On the step an agent arrives: minus its travel time in minutes (SUMO's tripinfo ``duration``:
    from entering the network to arriving). 0 on every other step, so an agent's return is minus
    its travel time. Agents still on the road at the horizon finish then, with minus the time
    since they entered (or since their slot, if SUMO could not insert them).

    ## Rendering

    ``render_mode="rgb_array"`` or ``"human"``: TrafficSignal-v0's top-down view
    (:mod:`benchmarkzoo.envs.traffic.render`) of the grid at the current slot, the CAVs in blue
    and human drivers in white while moving, every halting vehicle in red, and the fixed-time
    signals' stop lines in their links' colours. A frame reads SUMO only when drawn; a day is
    the same rendered or not. The native vector form does not render.

    ## Episode End

    * Termination: each agent on its arrival step; every remaining agent on the day's last step.
    * Truncation: only with ``max_cycles`` (default ``None``: a day ends by itself, after as many
      steps as it has distinct departure slots, at most ``N``): every agent of the ``max_cycles``-th
      step, one that also arrives on it included.

    Every step's info, per agent: ``sim_time``, ``deciding``, ``action_mask``; on its last step
    also ``travel_time`` (seconds) and ``arrived``. On the day's last step every remaining agent's
    info holds the day's metrics (seconds):

    | Key | Meaning |
    |-----|---------|
    | ``mean_travel_time_agents`` | mean travel time of the CAVs |
    | ``mean_travel_time_humans`` | mean travel time of the human drivers who arrived |
    | ``mean_travel_time`` | of every vehicle |
    | ``total_delay`` | summed ``timeLoss + departDelay`` of every completed trip (see below) |
    | ``agents_arrived``, ``humans_arrived`` | completed trips |

    Travel times are SUMO's tripinfo ``duration`` (entering the network to arriving), checked
    vehicle by vehicle against SUMO's tripinfo output in the tests. ``total_delay`` is SUMO's
    time lost to driving below the ideal speed plus the time spent waiting to enter, summed
    over every completed trip (from SUMO's mean time loss, kept in milliseconds: within 0.001 s
    per trip).

    The native vector env reports them as ``(B,)`` arrays, so the evaluation protocol records them.

    Baselines on the ``test`` split of ``traffic/routing`` (3x3 grid, 400 humans/h per fringe
    arm over 10 minutes, 40 CAVs; seeds 100000-100019 of the 50; SUMO 1.28; means over the days):

    | Policy | CAV mean travel time (s) | human mean travel time (s) | all vehicles (s) | total delay (s) |
    |--------|--------------------------|----------------------------|------------------|-----------------|
    | ``ShortestPathPolicy`` (always route 0) | 129.15 | 132.01 | 131.88 | 55,597 |
    | ``SumoRoutingPolicy`` (SUMO's routing: least current time) | 138.28 | 132.68 | 132.95 | 56,485 |

    (``benchmarkzoo.envs.traffic.routing.baseline``; ``python bench/bench_routing.py --days 20``.)
    Picking greedily by SUMO's current travel times costs the CAVs 7% here; a likely reason
    (not analysed further) is that the smoothed times describe the last minutes, not the traffic
    a CAV will meet on a detour that is longer at free flow. The humans barely notice either.

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/Routing-v0", generator="traffic/routing",
                               generator_kwargs={"rows": 3, "cols": 3, "rate": 400, "num_agents": 40,
                                                 "num_routes": 3}, max_cycles=None, render_mode=None)
    ```

    The scenario of ``reset(seed=s)`` is ``generator.sample(s)``; ``reset(options={"scenario": s})``
    plays a given :class:`~benchmarkzoo.envs.traffic.routing.generator.RoutingScenario`. SUMO
    runs in a worker process (libsumo), forked afresh for every day, so a day depends on its seed
    alone. The native multi-world form (``benchmarkzoo.make_vec``) is
    :class:`~benchmarkzoo.envs.traffic.routing.vector_env.RoutingVectorEnv`, one worker per world.
    ``close()`` stops SUMO and removes every temporary file.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.traffic.routing.env import RoutingEnv
    >>> env = RoutingEnv(generator_kwargs={"num_agents": 4})
    >>> observations, infos = env.reset(seed=0)
    >>> env.agents
    ['cav_0', 'cav_1', 'cav_2', 'cav_3']
    >>> observations["cav_0"].shape
    (17,)
    >>> while env.agents:
    ...     observations, rewards, terminations, truncations, infos = env.step({a: 0 for a in env.agents})
    >>> env.close()
    """

    metadata = {"name": "routing_v0", **RENDER_METADATA, "is_parallelizable": True}
    render_agents = sim.AGENT_PREFIX
    scenario_type = RoutingScenario
    pickled_attributes = ("agents", "num_steps")
    config_type = RoutingConfig
    # None: the day ends by itself. The base types its limit int because it truncates at it; this env
    # truncates itself (step) and hands the base only its positive stand-in.
    max_cycles: int | None  # type: ignore[assignment]
    # Made by each start and read every step (the env refuses a step before reset). ``_measurement``
    # is ``None`` (SumoSession's default) before a start and after a failure, which pickling tests for.
    _measurement: sim.Measurement
    _masks: np.ndarray  # (N, routes) the scenario's action masks

    def _configured_init(self, *args: Any, **kwargs: Any) -> None:
        own = self._configure(args, kwargs)
        max_cycles = check_max_cycles(self.env_id, own["max_cycles"])
        agents = self.config.possible_agents(self.params)
        # The base takes a positive step limit; Routing's may be None (a day ends by itself), so it is set after.
        ParallelEnvView.__init__(self, self.generator, self.params, agents, max_cycles or 1, own["render_mode"])
        self.max_cycles = max_cycles
        self._observation_space, self._action_space = build_spaces(self.params)
        self._log: list[np.ndarray] = []  # since the last reset: replayed to rebuild the day after pickling

    @property
    def sim_state(self) -> sim.Measurement | None:
        """The last measurement of the day (``None`` before a start or after a failure)."""
        return self._measurement

    # ---- the PettingZoo API --------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start the day of ``seed`` (or ``options['scenario']``); every agent's first observation and info."""
        scenario = self._next_scenario(seed, options, self._check_scenario)
        self.agents = []  # until the day has started
        self._start(scenario)
        self.agents = list(self.possible_agents)
        self.num_steps = 0
        m = self._measurement
        deciding, _ = sim.status(scenario, m)
        observations = self._observations_by_index(np.arange(len(self.possible_agents)))
        if self.render_mode == "human":
            self.render()
        return observations, {
            a: agent_info(scenario, m, self._masks, deciding, i) for i, a in enumerate(self.possible_agents)
        }

    def step(self, actions: dict[str, Any]):
        """Apply the deciding agents' route choices and run SUMO to the next departure slot (or the day's end)."""
        check_action_dict(
            self.env_id,
            actions,
            self.agents,
            self._index,
            "send any route index; only deciding agents' choices are used",
        )
        n = len(self.possible_agents)
        choices = np.zeros(n, dtype=np.int64)  # (N,)
        alive = np.zeros(n, dtype=bool)  # (N,)
        for agent in self.agents:
            action = actions[agent]
            if type(action) is not int or not 0 <= action < self._action_space.n:
                check_action(self.env_id, self._action_space, action, who=f"agent {agent!r}")
            choices[self._index[agent]] = int(action)
            alive[self._index[agent]] = True
        scenario, before = self.scenario, self._measurement
        deciding, _ = sim.status(scenario, before)
        check_masks(self.env_id, scenario, deciding, choices, self.possible_agents)
        self._advance(choices)
        self.num_steps += 1
        after = self._measurement
        rewards_all, finished, times = step_outcome(scenario, before, after, alive)
        deciding_next, _ = sim.status(scenario, after)
        present = np.flatnonzero(alive)
        truncate = self.max_cycles is not None and self.num_steps >= self.max_cycles
        metrics = sim.episode_metrics(scenario, after) if after.done else None
        observations = self._observations_by_index(present)
        rewards, terminations, infos = {}, {}, {}
        for i in present.tolist():
            agent = self.possible_agents[i]
            rewards[agent] = float(rewards_all[i])
            terminations[agent] = bool(finished[i])
            info = agent_info(scenario, after, self._masks, deciding_next, i)
            if finished[i]:
                info["travel_time"] = float(times[i])
                info["arrived"] = bool(not np.isnan(after.arrival[i]))
            if metrics is not None:
                info.update(metrics)
            infos[agent] = info
        truncations = self._end_step(list(self.agents), terminations, truncate)
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def close(self) -> None:
        """Stop SUMO, remove the temporary files; the env refuses every call after it."""
        self._close_session()
        self._measurement = None  # type: ignore[assignment]  # no simulation after close (see above)
        super().close()

    # ---- the simulation ------------------------------------------------------------------------

    def _new_runner(self, scratch: Path) -> RoutingWorkerRunner:
        return RoutingWorkerRunner(scratch)

    def _start(self, scenario: RoutingScenario) -> None:
        self._measurement = None  # type: ignore[assignment]  # a start that fails leaves no simulation (see above)
        routes = self._prepare(scenario)
        plan = sim.make_plan(scenario, network_file(scenario), routes)
        self._measurement = self._runner.start(plan, f"{self.env_id} {scenario.label}")
        self.scenario = scenario
        self._masks = sim.action_masks(scenario)
        self._log = []

    def _advance(self, choices: np.ndarray) -> None:
        self._run_step(choices)

    def _simulation_failed(self) -> None:
        self.agents = []

    def _observations_by_index(self, agents: np.ndarray) -> dict[str, np.ndarray]:
        """The observations of the agents of indices ``agents`` (``(k,)`` int), fresh arrays."""
        obs = sim.observe(self.scenario, self._measurement, agents)  # (len(agents), obs)
        return {self.possible_agents[i]: obs[row] for row, i in enumerate(agents.tolist())}

    # ---- pickling: rebuild the day by replaying the choices (ReplayPickling) ----------------------

    def _replay(self, choices: np.ndarray) -> None:
        self._advance(choices)
