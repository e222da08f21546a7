"""The native vector form of ``benchmarkzoo/MO-Quadrotor-v0``: ``num_envs`` vehicles, ``(num_envs, 2)`` rewards.

Gymnasium's ``SyncVectorEnv`` cannot batch vector rewards, so the reference this env matches
bit for bit is MO-Gymnasium's ``MOSyncVectorEnv`` over the single env (``(num_envs, 2)``
float32 rewards, zero for worlds that autoreset on this step).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.core.spaces import check_box_batch
from benchmarkzoo.envs.control.quadrotor import front, sim
from benchmarkzoo.envs.control.quadrotor.mo_env import OBJECTIVES, MOQuadrotorConfig, build_reward_space
from benchmarkzoo.envs.control.quadrotor.vector_env import QuadrotorVectorEnv


class MOQuadrotorVectorEnv(QuadrotorVectorEnv):
    """``num_envs`` MO-Quadrotor-v0 worlds stepped together; see :class:`MOQuadrotorEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset. Rewards are ``(num_envs, 2)`` float32; ``reward_space`` is the single world's.
    """

    config_type = MOQuadrotorConfig

    def _setup(self) -> None:
        super()._setup()
        self.reward_space = build_reward_space(self.params)
        self.reward_dim = len(OBJECTIVES)

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_box_batch(self.env_id, actions, -1.0, 1.0, (self.num_envs, 4))
        return sim.step_objectives(self.state, actions, self.params)

    def reference_front(self) -> np.ndarray:
        """As :meth:`MOQuadrotorEnv.reference_front` (and the time limit must be the registered 200 steps)."""
        front.check_registered_configuration(self.env_id, self.generator, self.params, self.max_episode_steps)
        return front.reference_front()
