"""The native vector form of ``benchmarkzoo/MO-TrafficSignal-v0``: ``(num_envs, 2)`` float32 rewards.

Gymnasium's ``SyncVectorEnv`` cannot batch vector rewards, so the reference this env matches
bit for bit is MO-Gymnasium's ``MOSyncVectorEnv`` over the single env.
"""

from __future__ import annotations

import functools

import numpy as np
from gymnasium import spaces

from benchmarkzoo.envs.traffic.objectives import MultiObjective, build_reward_space, objectives
from benchmarkzoo.envs.traffic.signal.mo_env import MOTrafficSignalEnv
from benchmarkzoo.envs.traffic.signal.vector_env import TrafficSignalVectorEnv


class MOTrafficSignalVectorEnv(MultiObjective, TrafficSignalVectorEnv):
    """``num_envs`` MO-TrafficSignal-v0 worlds, one libsumo worker process each; see :class:`MOTrafficSignalEnv`."""

    env_id = MOTrafficSignalEnv.env_id

    @functools.cached_property
    def reward_space(self) -> spaces.Box:
        """Every world's ``Box(-inf, 0, (2,), float32)``: waiting time, CO2."""
        return build_reward_space()

    def _rewards(self) -> np.ndarray:
        """``(num_envs, 2)`` float32."""
        return np.stack([objectives(m) for m in self._measurements]).astype(np.float32)
