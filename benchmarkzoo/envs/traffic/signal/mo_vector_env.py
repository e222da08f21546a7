"""The native vector form of ``benchmarkzoo/MO-TrafficSignal-v0``: ``(num_envs, 2)`` float32 rewards.

Gymnasium's ``SyncVectorEnv`` cannot batch vector rewards, so the reference this env matches
bit for bit is MO-Gymnasium's ``MOSyncVectorEnv`` over the single env.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from benchmarkzoo.envs.traffic.objectives import OBJECTIVES, build_reward_space, objectives
from benchmarkzoo.envs.traffic.signal.mo_env import MOTrafficSignalEnv
from benchmarkzoo.envs.traffic.signal.vector_env import TrafficSignalVectorEnv
from benchmarkzoo.generators.base import Generator


class MOTrafficSignalVectorEnv(TrafficSignalVectorEnv):
    """``num_envs`` MO-TrafficSignal-v0 worlds, one libsumo worker process each; see :class:`MOTrafficSignalEnv`."""

    env_id = MOTrafficSignalEnv.env_id

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "traffic/single-intersection",
        generator_kwargs: dict[str, Any] | None = None,
        delta_time: int = 5,
        yellow_time: int = 2,
        min_green: int = 5,
        max_episode_steps: int | None = 360,
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
            emissions=True,
            max_episode_steps=max_episode_steps,
            autoreset_mode=autoreset_mode,
            render_mode=render_mode,
        )
        self.reward_space = build_reward_space()
        self.reward_dim = len(OBJECTIVES)

    def _rewards(self) -> np.ndarray:
        """``(num_envs, 2)`` float32."""
        return np.stack([objectives(m) for m in self._measurements]).astype(np.float32)
