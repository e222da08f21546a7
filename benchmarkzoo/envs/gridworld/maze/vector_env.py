"""The native vector form of ``benchmarkzoo/Maze-v0``: ``num_envs`` mazes in one batched simulator."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from benchmarkzoo.core.spaces import check_discrete_batch
from benchmarkzoo.envs.gridworld.maze import sim
from benchmarkzoo.envs.gridworld.maze.env import ENV_ID, build_params, build_spaces, check_scenario, make_generator
from benchmarkzoo.envs.gridworld.maze.generator import MazeScenario
from benchmarkzoo.generators.base import Generator
from benchmarkzoo.vector.base import NativeVectorEnv


class MazeVectorEnv(NativeVectorEnv):
    """``num_envs`` Maze-v0 worlds stepped together; see :class:`MazeEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its maze from its own generator on
    autoreset, so rollouts equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"], "render_fps": 8}
    env_id = ENV_ID
    # The maze-family variant's pieces; MazeKeysVectorEnv swaps them and keeps everything else.
    sim = sim
    make_generator = staticmethod(make_generator)
    build_spaces = staticmethod(build_spaces)
    check_scenario = staticmethod(check_scenario)

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "maze/dfs",
        generator_kwargs: dict[str, Any] | None = None,
        view_radius: int = 2,
        step_reward: float = -0.01,
        goal_reward: float = 1.0,
        max_episode_steps: int | None = 200,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        super().__init__(num_envs, max_episode_steps, autoreset_mode, render_mode)
        self.generator = self.make_generator(generator, generator_kwargs)
        self.params = build_params(self.generator, view_radius, step_reward, goal_reward)
        self.single_observation_space, self.single_action_space = self.build_spaces(self.params)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.state = self.sim.init_state(self.params, self.num_envs)
        self.scenarios: list[MazeScenario | None] = [None] * self.num_envs  # or the variant's scenario type
        self._renderer = None

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        fixed = (options or {}).get("scenario")
        if fixed is not None:
            self.check_scenario(fixed, self.params)
        for i in worlds:
            scenario = fixed if fixed is not None else self.generator(self.world_rng(i))
            self.scenarios[i] = scenario
            self.sim.load(self.state, i, scenario, self.params)
        return {"is_success": np.zeros(self.num_envs, dtype=bool)}

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_batch(self.env_id, actions, self.single_action_space.n, self.num_envs)
        rewards, reached = self.sim.step(self.state, actions, self.params)
        return rewards, reached, {"is_success": reached.copy()}

    def _observe(self) -> dict[str, np.ndarray]:
        return self.sim.observe(self.state, self.params)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One ``rgb_array`` frame per world."""
        if self.render_mode is None:
            return None
        if self._renderer is None:
            self._renderer = self._make_renderer()
        return tuple(self._renderer.draw(self.state, i) for i in range(self.num_envs))

    def _make_renderer(self):
        from benchmarkzoo.envs.gridworld.maze.render import MazeRenderer

        return MazeRenderer(self.params, "rgb_array", self.metadata["render_fps"])

    def close_extras(self, **kwargs: Any) -> None:
        if getattr(self, "_renderer", None) is not None:  # __del__ also runs after a failed __init__
            self._renderer.close()
            self._renderer = None
