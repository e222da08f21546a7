"""The native vector form of ``benchmarkzoo/Maze-v0``: ``num_envs`` mazes in one batched simulator."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from benchmarkzoo.core.spaces import check_discrete_batch
from benchmarkzoo.envs.gridworld.maze import sim
from benchmarkzoo.envs.gridworld.maze.env import MazeConfig, MazeEnv, build_spaces
from benchmarkzoo.vector.base import NativeVectorEnv
from benchmarkzoo.vector.core import vector_metadata


class MazeVectorEnv(NativeVectorEnv):
    """``num_envs`` Maze-v0 worlds stepped together; see :class:`MazeEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its maze from its own generator on
    autoreset, so rollouts equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit.
    """

    metadata = vector_metadata(MazeEnv.metadata)
    config_type = MazeConfig
    single_action_space: spaces.Discrete
    # The maze-family variant's pieces; MazeKeysVectorEnv swaps them and keeps everything else.
    sim = sim
    build_spaces = staticmethod(build_spaces)
    state: sim.State  # made by the default _setup

    def _reset_info(self) -> dict[str, np.ndarray]:
        return {"is_success": np.zeros(self.num_envs, dtype=bool)}

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_batch(self.env_id, actions, self.single_action_space.n, self.num_envs)
        rewards, reached = self.sim.step(self.state, actions, self.params)
        return rewards, reached, {"is_success": reached.copy()}

    def _observe(self) -> dict[str, np.ndarray]:
        return self.sim.observe(self.state, self.params)

    def _make_renderer(self):
        from benchmarkzoo.envs.gridworld.maze.render import MazeRenderer

        return MazeRenderer(self.params, "rgb_array", self.metadata["render_fps"])
