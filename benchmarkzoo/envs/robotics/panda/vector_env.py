"""The native vector form of the Panda envs: ``num_envs`` PyBullet DIRECT clients in one process."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import keyword
from benchmarkzoo.core.spaces import check_box_batch
from benchmarkzoo.envs.robotics.panda.env import (
    PandaConfig,
    PandaEnv,
    build_spaces,
    goal_reward,
    observe,
    progress,
    score,
    start_distance,
)
from benchmarkzoo.envs.robotics.panda.sim import PandaWorld, Params
from benchmarkzoo.envs.robotics.panda.workers import WorkerPool
from benchmarkzoo.vector.base import NativeVectorEnv
from benchmarkzoo.vector.core import vector_metadata


class PandaVectorEnv(NativeVectorEnv):
    """``num_envs`` Panda worlds, one PyBullet client each; see :class:`PandaEnv` for the tasks.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset; each world makes exactly the PyBullet calls the single env makes, so rollouts
    equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit. It saves the wrapper
    layers of ``SyncVectorEnv`` and batches the observation copies.

    With ``num_workers=None`` (the default) the physics runs in this process, world after world.
    With ``num_workers=k`` the worlds are spread over ``k`` worker processes in contiguous
    blocks (:class:`~benchmarkzoo.envs.robotics.panda.workers.WorkerPool`) that step at the
    same time; seeding, scenarios, time limits and rewards stay in this process, so the
    rollouts are bit-identical to ``num_workers=None``.

    Args:
        num_envs: number of worlds.
        generator, generator_kwargs, reward_type, render_mode, control: as for :class:`PandaEnv`.
        max_episode_steps: time limit per world (the registered 50).
        autoreset_mode: Gymnasium's autoreset modes.
        num_workers: worker processes holding the PyBullet clients (``None``: none, all in this process).
    """

    metadata = vector_metadata(PandaEnv.metadata)

    config_type = PandaConfig
    config: PandaConfig
    params: Params
    single_observation_space: spaces.Dict

    @classmethod
    def _trailing_parameters(cls) -> tuple[inspect.Parameter, ...]:
        return (*super()._trailing_parameters(), keyword("num_workers", None, "int | None"))

    def _setup(self) -> None:
        self.reward_type = self.config.reward_type
        self._set_spaces(*build_spaces(self.params))
        self.worlds: list[PandaWorld] = []
        self.pool: WorkerPool | None = None
        num_workers = self.base_arguments["num_workers"]
        if num_workers is not None:
            self.pool = WorkerPool(self.params, self.num_envs, num_workers, label=self.env_id)
        else:
            try:
                for _ in range(self.num_envs):
                    self.worlds.append(PandaWorld(self.params))
            except BaseException:
                self.close_extras()
                raise
        self._obs: list[dict[str, np.ndarray]] = [
            {} for _ in range(self.num_envs)
        ]  # the latest observation dict of each world
        self._success = np.zeros(self.num_envs, dtype=bool)
        self._start = np.zeros(self.num_envs)  # (num_envs,) m, each world's goal distance at its reset

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        self._next_scenarios(worlds, options)
        for i in worlds:
            if self.pool is None:
                self.worlds[i].load(self.scenarios[i])
                self._obs[i] = observe(self.worlds[i])
        if self.pool is not None:
            for i, obs in self.pool.load({int(i): self.scenarios[i] for i in worlds}).items():
                self._obs[i] = obs
        for i in worlds:
            self._success[i] = score(self._obs[i], self.reward_type, self.params)[1]
            self._start[i] = start_distance(self._obs[i])
        return self._info()

    def _info(self) -> dict[str, np.ndarray]:
        """The step or reset info of every world, as the single env's (``goal_progress`` only if asked for)."""
        info = {"is_success": self._success.copy()}
        if self.config.report_progress:
            info["goal_progress"] = np.array([progress(obs, s, self.params) for obs, s in zip(self._obs, self._start)])
        return info

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_box_batch(self.env_id, actions, -1.0, 1.0, (self.num_envs, self.params.action_size)).astype(
            np.float32, copy=False
        )
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        if self.pool is not None:
            self._obs = self.pool.step(actions)
        else:
            for i, world in enumerate(self.worlds):
                world.act(actions[i])
                self._obs[i] = observe(world)
        for i in range(self.num_envs):
            rewards[i], self._success[i] = score(self._obs[i], self.reward_type, self.params)
        return rewards, self._success.copy(), self._info()

    def _observe(self) -> dict[str, np.ndarray]:
        return {key: np.stack([obs[key] for obs in self._obs]) for key in self.single_observation_space}

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> np.ndarray:
        """As :meth:`PandaEnv.compute_reward`, for goals of any batch shape ``(..., 3)``."""
        return goal_reward(self.env_id, self.params, self.reward_type, achieved_goal, desired_goal)

    def joint_positions(self) -> np.ndarray:
        """``(num_envs, 9)`` float64: each world's arm and finger joint positions (not observed; see the sim)."""
        if self.pool is not None:
            return self.pool.joint_positions()
        return np.stack([world.joint_positions() for world in self.worlds])

    # Gymnasium types the frames as a TypeVar bound to nothing, which no concrete frame type satisfies
    def render(self) -> tuple[np.ndarray, ...] | None:  # type: ignore[override]
        """One ``rgb_array`` frame per world."""
        if self.render_mode is None:
            return None
        if self.pool is not None:
            return tuple(self.pool.render())
        from benchmarkzoo.envs.robotics.panda.render import render_world

        return tuple(render_world(world) for world in self.worlds)

    @override
    def close_extras(self, **kwargs: Any) -> None:
        for world in self.worlds:
            world.close()
        pool = getattr(self, "pool", None)  # absent if the constructor failed before making it
        if pool is not None:
            pool.close()
