"""The native multi-world form of ``benchmarkzoo/MO-TrafficGrid-v0``: ``(B, N, 2)`` float32 rewards."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveWorlds
from benchmarkzoo.envs.traffic.grid.mo_env import MOTrafficGridConfig
from benchmarkzoo.envs.traffic.grid.vector_env import TrafficGridVectorEnv
from benchmarkzoo.envs.traffic.objectives import MultiObjective, build_reward_space, signal_objectives


class MOTrafficGridVectorConfig(MOTrafficGridConfig):
    """MO-TrafficGrid-v0's arguments in the native vector form: every world's SUMO runs in a libsumo worker."""

    # A variant fixes a base argument as a ClassVar (core/config.py, fixed_arguments): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    backend: ClassVar[str] = "libsumo"  # type: ignore[misc]
    in_process: ClassVar[bool | None] = None  # type: ignore[misc]


class MOTrafficGridVectorEnv(MultiObjective, MultiObjectiveWorlds, TrafficGridVectorEnv):
    """``num_envs`` MO-TrafficGrid-v0 worlds, one libsumo worker process each; see :class:`MOTrafficGridEnv`.

    Rewards are ``(B, N, 2)`` float32 (waiting time, CO2 per signal); ``single_reward_space`` is
    every agent's ``Box(-inf, 0, (2,), float32)``. World ``i`` equals ``MOTrafficGridEnv`` reset
    with ``seed + i`` and stepped with the same actions.
    """

    config_type = MOTrafficGridVectorConfig

    @override
    def _objective_space(self) -> spaces.Box:
        return build_reward_space()  # waiting time, CO2

    def _rewards(self, worlds: np.ndarray) -> np.ndarray:
        """``(B, N, 2)`` float32 of the ``worlds`` just stepped (zero elsewhere)."""
        rewards = np.zeros((self.num_envs, self.num_agents, self.reward_dim), dtype=np.float32)
        for i in worlds:
            m = self._measurements[i]
            for k in range(self.num_agents):
                rewards[i, k] = signal_objectives(m, k)
        return rewards
