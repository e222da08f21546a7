"""The native multi-world form of ``benchmarkzoo/TrafficGrid-v0``: one libsumo worker process per world.

As :mod:`benchmarkzoo.envs.traffic.signal.vector_env`: every world's actions are sent before
any reply is read, so the worker processes simulate in parallel, and the observation, reward
and metric code is the ParallelEnv's (:mod:`benchmarkzoo.envs.traffic.sim`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from benchmarkzoo.core.spaces import check_discrete_agents
from benchmarkzoo.envs.traffic import sim
from benchmarkzoo.envs.traffic.grid.env import TrafficGridConfig, build_spaces, check_layout
from benchmarkzoo.envs.traffic.signals import SignalWorlds
from benchmarkzoo.vector.multiagent import NativeMultiAgentVectorEnv

_AGENT_INFO = {"queue": np.int64, "waiting_time": np.float64}  # (B, N)
_WORLD_INFO = {
    "sim_time": np.float64,
    "arrived": np.int64,
    "mean_waiting_time": np.float64,
    "mean_travel_time": np.float64,
}  # (B,)
_METRIC_DTYPES = {
    "mean_waiting_time": np.float64,
    "mean_travel_time": np.float64,
    "throughput": np.int64,
    "mean_queue": np.float64,
    "total_co2": np.float64,
}  # (B,)


class TrafficGridVectorConfig(TrafficGridConfig):
    """TrafficGrid-v0's arguments in the native vector form: every world's SUMO runs in a libsumo worker."""

    # A variant fixes a base argument as a ClassVar (core/config.py, fixed_arguments): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    backend: ClassVar[str] = "libsumo"  # type: ignore[misc]
    in_process: ClassVar[bool | None] = None  # type: ignore[misc]


class TrafficGridVectorEnv(SignalWorlds, NativeMultiAgentVectorEnv):
    """``num_envs`` TrafficGrid-v0 worlds, each simulated by libsumo in its own worker process.

    The batched API is :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`'s:
    actions ``(B, N)`` int (agents in ``possible_agents`` order), observations ``(B, N, obs)``
    float32, rewards ``(B, N)`` float64. Infos: ``queue`` and ``waiting_time`` ``(B, N)``;
    ``sim_time``, ``arrived``, ``mean_waiting_time``, ``mean_travel_time`` ``(B,)``; on the step
    a world's episode ends, its metrics ``throughput``, ``mean_queue`` and ``total_co2`` ``(B,)``.
    World ``i`` equals ``TrafficGridEnv`` reset with ``seed + i`` and stepped with the same actions.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    # the MO and RESCO variants' configs are not TrafficGridVectorConfigs: all are TrafficGridConfigs
    config_type: ClassVar[type[TrafficGridConfig]] = TrafficGridVectorConfig
    config: TrafficGridConfig
    observation_space: spaces.Box  # the batched Box of build_spaces' Box per agent

    def _setup(self) -> None:
        self._init_signal_worlds(waiting=(self.num_agents,))
        self._set_spaces(*build_spaces(self.params))
        self._widths = (self.params.num_phases, self.params.num_lanes)  # (P, L) laid out per agent
        self._phases = np.ones(
            (self.num_envs, self.num_agents), dtype=np.int64
        )  # (B, N) greens of each world's signals
        self._init_workers()

    def _waiting(self, layout: sim.Layout, m: sim.Measurement) -> np.ndarray:
        return np.array([sim.total_waiting(layout, m, tls=k) for k in range(self.num_agents)])

    def _loaded(self, i: int, layout: sim.Layout, m: sim.Measurement) -> None:
        label = f"world {i}'s {self.scenarios[i].label}"
        check_layout(self.env_id, self.generator, self.possible_agents, self._widths, layout, label)
        self._phases[i] = [layout.num_phases(k) for k in range(self.num_agents)]
        super()._loaded(i, layout, m)

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_agents(self.env_id, actions, self.single_action_space.n, acting, self.possible_agents)
        worlds = np.flatnonzero(acting.any(axis=1))  # ended worlds wait for their reload
        for i in worlds:
            self._runners[i].send_step(actions[i] % self._phases[i])  # signals with fewer greens than the space
        self._collect(worlds, self._stepped)
        return self._rewards(worlds), np.zeros((self.num_envs, self.num_agents), dtype=bool), self._info()

    def _rewards(self, worlds: np.ndarray) -> np.ndarray:
        """``(B, N)`` float64 rewards of the ``worlds`` just stepped (zero elsewhere)."""
        rewards = np.zeros((self.num_envs, self.num_agents), dtype=np.float64)
        for i in worlds:
            layout, m = self.layouts[i], self._measurements[i]
            for k in range(self.num_agents):
                rewards[i, k] = sim.reward(self.reward_kind, layout, m, self._previous_waiting[i, k], tls=k)
                self._previous_waiting[i, k] = sim.total_waiting(layout, m, tls=k)
        return rewards

    def _info(self) -> dict[str, np.ndarray]:
        info: dict[str, np.ndarray] = {
            key: np.zeros((self.num_envs, self.num_agents), dtype=dtype) for key, dtype in _AGENT_INFO.items()
        }
        info.update({key: np.zeros(self.num_envs, dtype=dtype) for key, dtype in _WORLD_INFO.items()})
        for i, (layout, m) in enumerate(zip(self.layouts, self._measurements)):
            if m is None:
                continue
            for k in range(self.num_agents):
                values = sim.step_info(layout, m, tls=k)
                for key in _AGENT_INFO:
                    info[key][i, k] = values[key]
            for key in _WORLD_INFO:
                info[key][i] = values[key]
        return info

    def _end_info(self) -> dict[str, np.ndarray]:
        info = {key: np.zeros(self.num_envs, dtype=dtype) for key, dtype in _METRIC_DTYPES.items()}
        for i, m in enumerate(self._measurements):
            if m is not None:
                for key, value in sim.episode_metrics(m, self._totals[i], emissions=True).items():
                    info[key][i] = value
        return info

    def _observe(self, present: np.ndarray) -> np.ndarray:
        out = np.zeros(self.observation_space.shape, dtype=np.float32)  # (B, N, obs)
        for i, k in zip(*np.nonzero(present)):
            out[i, k] = sim.observe(self.layouts[i], self._measurements[i], int(k), *self._widths)
        return out
