"""The native vector form of ``benchmarkzoo/MazeKeys-v0``: ``num_envs`` worlds in one batched simulator."""

from __future__ import annotations

from benchmarkzoo.envs.gridworld.maze.vector_env import MazeVectorEnv
from benchmarkzoo.envs.gridworld.maze_keys import sim
from benchmarkzoo.envs.gridworld.maze_keys.env import MazeKeysConfig, build_spaces


class MazeKeysVectorEnv(MazeVectorEnv):
    """``num_envs`` MazeKeys-v0 worlds stepped together; see :class:`MazeKeysEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so rollouts equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit.
    """

    config_type = MazeKeysConfig
    sim = sim
    build_spaces = staticmethod(build_spaces)

    def _make_renderer(self):
        from benchmarkzoo.envs.gridworld.maze_keys.render import MazeKeysRenderer

        return MazeKeysRenderer(self.params, "rgb_array", self.metadata["render_fps"])
