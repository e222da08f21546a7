"""The native vector form of the Panda envs: ``num_envs`` PyBullet DIRECT clients in one process."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from benchmarkzoo.core.spaces import check_box_batch
from benchmarkzoo.envs.robotics.panda.env import (
    build_params,
    build_spaces,
    check_scenario,
    env_id_of,
    make_generator,
    observe,
    score,
)
from benchmarkzoo.envs.robotics.panda.generator import ObjectScenario, ReachScenario
from benchmarkzoo.envs.robotics.panda.sim import PandaWorld
from benchmarkzoo.generators.base import Generator
from benchmarkzoo.vector.base import NativeVectorEnv


class PandaVectorEnv(NativeVectorEnv):
    """``num_envs`` Panda worlds, one PyBullet client each; see :class:`PandaEnv` for the tasks.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset; each world makes exactly the PyBullet calls the single env makes, so rollouts
    equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit. It saves the wrapper
    layers of ``SyncVectorEnv`` and batches the observation copies; the physics itself is
    PyBullet's, world after world (for more cores, use ``vectorization_mode="async"``).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"], "render_fps": 25
    }

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "panda/reach",
        generator_kwargs: dict[str, Any] | None = None,
        reward_type: str = "sparse",
        max_episode_steps: int | None = 50,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        super().__init__(num_envs, max_episode_steps, autoreset_mode, render_mode)
        self.generator = make_generator(generator, generator_kwargs)
        self.params = build_params(self.generator, reward_type)
        self.reward_type = reward_type
        self.env_id = env_id_of(self.generator, reward_type)
        self.single_observation_space, self.single_action_space = build_spaces(self.params)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.scenarios: list[ReachScenario | ObjectScenario | None] = [None] * self.num_envs
        self.worlds: list[PandaWorld] = []
        try:
            for _ in range(self.num_envs):
                self.worlds.append(PandaWorld(self.params))
        except BaseException:
            self.close_extras()
            raise
        self._obs = [{} for _ in range(self.num_envs)]  # the latest observation dict of each world
        self._success = np.zeros(self.num_envs, dtype=bool)

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        fixed = (options or {}).get("scenario")
        if fixed is not None:
            check_scenario(fixed, self.params, self.env_id)
        for i in worlds:
            self.scenarios[i] = fixed if fixed is not None else self.generator(self.world_rng(i))
            self.worlds[i].load(self.scenarios[i])
            self._obs[i] = observe(self.worlds[i])
            self._success[i] = score(self._obs[i], self.reward_type)[1]
        return {"is_success": self._success.copy()}

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_box_batch(
            self.env_id, actions, -1.0, 1.0, (self.num_envs, self.params.action_size)
        ).astype(np.float32, copy=False)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        for i, world in enumerate(self.worlds):
            world.act(actions[i])
            self._obs[i] = observe(world)
            rewards[i], self._success[i] = score(self._obs[i], self.reward_type)
        return rewards, self._success.copy(), {"is_success": self._success.copy()}

    def _observe(self) -> dict[str, np.ndarray]:
        return {key: np.stack([obs[key] for obs in self._obs]) for key in self.single_observation_space}

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> np.ndarray:
        """As :meth:`PandaEnv.compute_reward`, for goals of any batch shape ``(..., 3)``."""
        from benchmarkzoo.envs.robotics.panda import reward as rewards

        achieved, desired = rewards.check_goals(self.env_id, achieved_goal, desired_goal)
        return rewards.reward_from_distance(rewards.goal_distance(achieved, desired), self.reward_type)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One ``rgb_array`` frame per world."""
        if self.render_mode is None:
            return None
        from benchmarkzoo.envs.robotics.panda.render import render_world

        return tuple(render_world(world) for world in self.worlds)

    def close_extras(self, **kwargs: Any) -> None:
        for world in self.worlds:
            world.close()
