"""The native vector form of ``benchmarkzoo/MO-TrafficSignal-v0``: ``(num_envs, 2)`` float32 rewards.

Gymnasium's ``SyncVectorEnv`` cannot batch vector rewards, so the reference this env matches
bit for bit is MO-Gymnasium's ``MOSyncVectorEnv`` over the single env.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import numpy as np
from gymnasium import spaces

from benchmarkzoo.envs.traffic.objectives import MultiObjective, build_reward_space, objectives
from benchmarkzoo.envs.traffic.signal.mo_env import MOTrafficSignalConfig
from benchmarkzoo.envs.traffic.signal.vector_env import TrafficSignalVectorEnv


class MOTrafficSignalVectorConfig(MOTrafficSignalConfig):
    """MO-TrafficSignal-v0's arguments in the native vector form: every world's SUMO runs in a libsumo worker."""

    # A variant fixes a base argument as a ClassVar (core/config.py, fixed_arguments): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    backend: ClassVar[str] = "libsumo"  # type: ignore[misc]
    in_process: ClassVar[bool | None] = None  # type: ignore[misc]


class MOTrafficSignalVectorEnv(MultiObjective, TrafficSignalVectorEnv):
    """``num_envs`` MO-TrafficSignal-v0 worlds, one libsumo worker process each; see :class:`MOTrafficSignalEnv`."""

    config_type = MOTrafficSignalVectorConfig

    @functools.cached_property
    def reward_space(self) -> spaces.Box:
        """Every world's ``Box(-inf, 0, (2,), float32)``: waiting time, CO2."""
        return build_reward_space()

    def _rewards(self) -> np.ndarray:
        """``(num_envs, 2)`` float32."""
        return np.stack([objectives(m) for m in self._measurements]).astype(np.float32)
