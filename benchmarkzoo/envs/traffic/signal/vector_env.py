"""The native vector form of ``benchmarkzoo/TrafficSignal-v0``: one libsumo worker process per world.

libsumo holds one simulation per process, so world ``i`` runs in its own worker process
(:class:`~benchmarkzoo.envs.traffic.runner.WorkerRunner`). Each step sends every world's
action first and then collects the replies, so the workers simulate in parallel on as many
cores as there are. The observation and reward code is the single env's
(:mod:`benchmarkzoo.envs.traffic.sim`), and world ``i`` draws its scenarios from its own
generator seeded ``seed + i``, so rollouts equal ``SyncVectorEnv`` over the single env bit for bit.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from benchmarkzoo.core.spaces import check_discrete_batch
from benchmarkzoo.envs.traffic import sim
from benchmarkzoo.envs.traffic.signal.env import TrafficSignalConfig, build_spaces
from benchmarkzoo.envs.traffic.signals import SignalWorlds
from benchmarkzoo.vector.base import NativeVectorEnv

_INFO_DTYPES = {
    "sim_time": np.float64,
    "queue": np.int64,
    "waiting_time": np.float64,
    "arrived": np.int64,
    "mean_waiting_time": np.float64,
    "mean_travel_time": np.float64,
    "throughput": np.int64,
    "mean_queue": np.float64,
    "total_co2": np.float64,
}


class TrafficSignalVectorConfig(TrafficSignalConfig):
    """TrafficSignal-v0's arguments in the native vector form: every world's SUMO runs in a libsumo worker."""

    # A variant fixes a base argument as a ClassVar (core/config.py, fixed_arguments): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    backend: ClassVar[str] = "libsumo"  # type: ignore[misc]
    in_process: ClassVar[bool | None] = None  # type: ignore[misc]


class TrafficSignalVectorEnv(SignalWorlds, NativeVectorEnv):
    """``num_envs`` TrafficSignal-v0 worlds, each simulated by libsumo in its own worker process.

    Arguments are the single env's but ``backend`` and ``in_process`` (always libsumo in
    workers), plus those of :class:`~benchmarkzoo.vector.base.NativeVectorEnv`.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    # the MO variant's config is not a TrafficSignalVectorConfig: both are TrafficSignalConfigs
    config_type: ClassVar[type[TrafficSignalConfig]] = TrafficSignalVectorConfig
    config: TrafficSignalConfig
    observation_space: spaces.Box  # the batched Box of build_spaces' Box

    def _setup(self) -> None:
        self._init_signal_worlds(waiting=())
        self._set_spaces(*build_spaces(self.params))
        self._num_phases = self.params.num_phases
        self._init_workers()

    def _waiting(self, layout: sim.Layout, m: sim.Measurement) -> float:
        return sim.total_waiting(layout, m)

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_batch(self.env_id, actions, self._num_phases, self.num_envs)
        worlds = np.arange(self.num_envs)
        for i in worlds:
            self._runners[i].send_step(actions[i : i + 1])
        self._collect(worlds, self._stepped)
        rewards = self._rewards()
        for i in worlds:
            self._previous_waiting[i] = sim.total_waiting(self.layouts[i], self._measurements[i])
        return rewards, np.zeros(self.num_envs, dtype=bool), self._info()

    def _rewards(self) -> np.ndarray:
        """``(num_envs,)`` float64 rewards of the step just collected."""
        return np.array(
            [
                sim.reward(self.reward_kind, layout, m, previous)
                for layout, m, previous in zip(self.layouts, self._measurements, self._previous_waiting)
            ],
            dtype=np.float64,
        )

    def _info(self) -> dict[str, np.ndarray]:
        info = {
            key: np.zeros(self.num_envs, dtype=dtype)
            for key, dtype in _INFO_DTYPES.items()
            if key != "total_co2" or self.emissions
        }
        for i, (layout, m) in enumerate(zip(self.layouts, self._measurements)):
            if m is not None:
                values = {**sim.step_info(layout, m), **sim.episode_metrics(m, self._totals[i], self.emissions)}
                for key, value in values.items():
                    info[key][i] = value
        return info

    def _observe(self) -> np.ndarray:
        out = np.zeros(self.observation_space.shape, dtype=np.float32)  # (num_envs, obs_size)
        for i, (layout, m) in enumerate(zip(self.layouts, self._measurements)):
            if m is not None:
                out[i] = sim.observe(layout, m)
        return out
