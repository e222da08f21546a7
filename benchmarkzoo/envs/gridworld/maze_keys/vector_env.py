"""The native vector form of ``benchmarkzoo/MazeKeys-v0``: ``num_envs`` worlds in one batched simulator."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import AutoresetMode

from benchmarkzoo.envs.gridworld.maze.vector_env import MazeVectorEnv
from benchmarkzoo.envs.gridworld.maze_keys import sim
from benchmarkzoo.envs.gridworld.maze_keys.env import ENV_ID, build_spaces, check_scenario, make_generator
from benchmarkzoo.generators.base import Generator


class MazeKeysVectorEnv(MazeVectorEnv):
    """``num_envs`` MazeKeys-v0 worlds stepped together; see :class:`MazeKeysEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so rollouts equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit.
    """

    env_id = ENV_ID
    sim = sim
    make_generator = staticmethod(make_generator)
    build_spaces = staticmethod(build_spaces)
    check_scenario = staticmethod(check_scenario)

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "maze_keys/key_door",
        generator_kwargs: dict[str, Any] | None = None,
        view_radius: int = 2,
        step_reward: float = -0.01,
        goal_reward: float = 1.0,
        max_episode_steps: int | None = 300,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        super().__init__(
            num_envs,
            generator,
            generator_kwargs,
            view_radius,
            step_reward,
            goal_reward,
            max_episode_steps,
            autoreset_mode,
            render_mode,
        )

    def _make_renderer(self):
        from benchmarkzoo.envs.gridworld.maze_keys.render import MazeKeysRenderer

        return MazeKeysRenderer(self.params, "rgb_array", self.metadata["render_fps"])
