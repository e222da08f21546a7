"""The native multi-world form of ``benchmarkzoo/MO-TrafficGrid-v0``: ``(B, N, 2)`` float32 rewards."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from benchmarkzoo.envs.traffic.grid.mo_env import MOTrafficGridEnv
from benchmarkzoo.envs.traffic.grid.vector_env import TrafficGridVectorEnv
from benchmarkzoo.envs.traffic.objectives import OBJECTIVES, build_reward_space, signal_objectives
from benchmarkzoo.generators.base import Generator


class MOTrafficGridVectorEnv(TrafficGridVectorEnv):
    """``num_envs`` MO-TrafficGrid-v0 worlds, one libsumo worker process each; see :class:`MOTrafficGridEnv`.

    Rewards are ``(B, N, 2)`` float32 (waiting time, CO2 per signal); ``single_reward_space`` is
    every agent's ``Box(-inf, 0, (2,), float32)``. World ``i`` equals ``MOTrafficGridEnv`` reset
    with ``seed + i`` and stepped with the same actions.
    """

    env_id = MOTrafficGridEnv.env_id

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "traffic/grid",
        generator_kwargs: dict[str, Any] | None = None,
        delta_time: int = 5,
        yellow_time: int = 2,
        min_green: int = 5,
        max_cycles: int = 360,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        super().__init__(
            num_envs,
            generator,
            generator_kwargs,
            delta_time,
            yellow_time,
            min_green,
            "diff-waiting-time",
            max_cycles=max_cycles,
            autoreset_mode=autoreset_mode,
            render_mode=render_mode,
        )
        self.single_reward_space: spaces.Box = build_reward_space()
        self.reward_dim = len(OBJECTIVES)

    def _rewards(self, worlds: np.ndarray) -> np.ndarray:
        """``(B, N, 2)`` float32 of the ``worlds`` just stepped (zero elsewhere)."""
        rewards = np.zeros((self.num_envs, self.num_agents, self.reward_dim), dtype=np.float32)
        for i in worlds:
            m = self._measurements[i]
            for k in range(self.num_agents):
                rewards[i, k] = signal_objectives(m, k)
        return rewards
