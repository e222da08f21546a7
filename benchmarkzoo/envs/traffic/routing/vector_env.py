"""The native multi-world form of ``benchmarkzoo/Routing-v0``: one libsumo worker process per world.

Every world's choices are sent before any reply is read, so the workers simulate their days in
parallel; observations, rewards and metrics come from the same functions as the ParallelEnv's
(:mod:`benchmarkzoo.envs.traffic.routing.sim` and :func:`~benchmarkzoo.envs.traffic.routing.env.step_outcome`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from benchmarkzoo.core.spaces import check_discrete_agents
from benchmarkzoo.envs.traffic.routing import sim
from benchmarkzoo.envs.traffic.routing.env import RoutingConfig, build_spaces, check_masks, step_outcome
from benchmarkzoo.envs.traffic.routing.generator import RoutingScenario
from benchmarkzoo.envs.traffic.routing.runner import RoutingWorkerRunner
from benchmarkzoo.envs.traffic.scenario import network_file
from benchmarkzoo.envs.traffic.session import SumoWorkers
from benchmarkzoo.vector.multiagent import NativeMultiAgentVectorEnv

_METRIC_DTYPES = {
    "mean_travel_time_agents": np.float64,
    "mean_travel_time_humans": np.float64,
    "mean_travel_time": np.float64,
    "total_delay": np.float64,
    "agents_arrived": np.int64,
    "humans_arrived": np.int64,
}  # (B,)


class RoutingVectorEnv(SumoWorkers, NativeMultiAgentVectorEnv):
    """``num_envs`` Routing-v0 worlds, each simulated by libsumo in its own worker process.

    The batched API is :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`'s:
    actions ``(B, N)`` int (agents in ``possible_agents`` order; only deciding agents' entries
    are used), observations ``(B, N, 8 + 3k)`` float32, rewards ``(B, N)`` float64. Infos:
    ``deciding`` ``(B, N)`` bool, ``action_mask`` ``(B, N, k)`` int8, ``travel_time`` ``(B, N)``
    float64 and ``arrived`` ``(B, N)`` bool (meaningful for agents that finished on the step),
    ``sim_time`` ``(B,)``; on the step a world's day ends, its metrics ``(B,)``
    (``mean_travel_time_agents``, ``mean_travel_time_humans``, ``mean_travel_time``,
    ``total_delay``, ``agents_arrived``, ``humans_arrived``). World ``i`` equals ``RoutingEnv``
    reset with ``seed + i`` and stepped with the same actions.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    config_type = RoutingConfig
    observation_space: spaces.Box  # the batched Box of build_spaces' Box per agent
    # World i's are made by its load and read every step (the env refuses a step before reset);
    # a world whose load or step failed has no measurement (None) until every world is reset.
    scenarios: list[RoutingScenario]
    _measurements: list[sim.Measurement]

    def _setup(self) -> None:
        self._set_spaces(*build_spaces(self.params))
        self._init_workers(RoutingWorkerRunner)
        n = self.num_agents
        self._measurements = [None] * self.num_envs  # type: ignore[list-item]  # until each world's load (see above)
        self._finished = np.zeros((self.num_envs, n), dtype=bool)  # (B, N) agents done on the last step
        self._times = np.zeros((self.num_envs, n), dtype=np.float64)  # (B, N) their travel times

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        for i, scenario in zip(worlds, self._next_scenarios(worlds, options), strict=True):
            plan = sim.make_plan(scenario, network_file(scenario), self._routes(i, scenario))
            self._runners[i].send_start(plan, f"{self.env_id} world {i} {scenario.label}")
        self._collect(worlds, self._measured)
        self._finished[worlds] = False
        return self._info()

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        choices = check_discrete_agents(self.env_id, actions, self.single_action_space.n, acting, self.possible_agents)
        worlds = np.flatnonzero(acting.any(axis=1))  # ended worlds wait for their reload
        before = list(self._measurements)
        for i in worlds:
            deciding, _ = sim.status(self.scenarios[i], before[i])
            check_masks(self.env_id, self.scenarios[i], deciding & acting[i], choices[i], self.possible_agents)
        for i in worlds:
            self._runners[i].send_step(choices[i])
        self._collect(worlds, self._measured)
        rewards = np.zeros((self.num_envs, self.num_agents), dtype=np.float64)
        self._finished[:] = False
        for i in worlds:
            rewards[i], self._finished[i], self._times[i] = step_outcome(
                self.scenarios[i], before[i], self._measurements[i], acting[i]
            )
        return rewards, self._finished.copy(), self._info()

    def _measured(self, i: int, m: sim.Measurement) -> None:
        """World ``i``'s measurement after a start or a step."""
        self._measurements[i] = m

    def _info(self) -> dict[str, np.ndarray]:
        b, n, k = self.num_envs, self.num_agents, self.single_action_space.n
        info = {
            "sim_time": np.zeros(b, dtype=np.float64),
            "deciding": np.zeros((b, n), dtype=bool),
            "action_mask": np.zeros((b, n, k), dtype=np.int8),
            "travel_time": np.where(self._finished, self._times, 0.0),
            "arrived": np.zeros((b, n), dtype=bool),
        }
        for i, (scenario, m) in enumerate(zip(self.scenarios, self._measurements)):
            if m is None:
                continue
            info["sim_time"][i] = m.time
            info["deciding"][i] = sim.status(scenario, m)[0]
            info["action_mask"][i] = sim.action_masks(scenario)
            info["arrived"][i] = self._finished[i] & ~np.isnan(m.arrival)
        return info

    def _end_info(self) -> dict[str, np.ndarray]:
        info = {key: np.zeros(self.num_envs, dtype=dtype) for key, dtype in _METRIC_DTYPES.items()}
        for i, (scenario, m) in enumerate(zip(self.scenarios, self._measurements)):
            if m is not None:
                for key, value in sim.episode_metrics(scenario, m).items():
                    info[key][i] = value
        return info

    def _observe(self, present: np.ndarray) -> np.ndarray:
        out = np.zeros(self.observation_space.shape, dtype=np.float32)  # (B, N, obs)
        for i in np.flatnonzero(present.any(axis=1)):
            agents = np.flatnonzero(present[i])
            out[i, agents] = sim.observe(self.scenarios[i], self._measurements[i], agents)
        return out
