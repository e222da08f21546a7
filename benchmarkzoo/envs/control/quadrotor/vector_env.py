"""The native vector form of the Quadrotor envs: ``num_envs`` vehicles in one batched simulator."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from benchmarkzoo.core.spaces import check_box_batch
from benchmarkzoo.envs.control.quadrotor import sim
from benchmarkzoo.envs.control.quadrotor.env import (
    HOVER_ID,
    build_params,
    build_spaces,
    check_scenario,
    env_id_of,
    make_generator,
)
from benchmarkzoo.envs.control.quadrotor.generator import QuadrotorScenario
from benchmarkzoo.generators.base import Generator
from benchmarkzoo.vector.base import NativeVectorEnv


class QuadrotorVectorEnv(NativeVectorEnv):
    """``num_envs`` Quadrotor worlds stepped together; see :class:`QuadrotorEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so rollouts equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["rgb_array"],
        "render_fps": 50,
    }
    #: As :attr:`QuadrotorEnv.fixed_env_id`.
    fixed_env_id: ClassVar[str | None] = None
    _renderer = None  # also when __init__ fails early: close() (from __del__) reads it

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "quadrotor/hover",
        generator_kwargs: dict[str, Any] | None = None,
        frame: str = "x",
        pos_weight: float = 0.7,
        tilt_weight: float = 0.1,
        spin_weight: float = 0.1,
        effort_weight: float = 0.1,
        crash_penalty: float = 10.0,
        max_episode_steps: int | None = 500,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        super().__init__(num_envs, max_episode_steps, autoreset_mode, render_mode)
        self.generator = make_generator(generator, generator_kwargs, self.fixed_env_id or HOVER_ID)
        self.env_id = self.fixed_env_id or env_id_of(self.generator)
        self.params = build_params(
            self.generator, frame, pos_weight, tilt_weight, spin_weight, effort_weight, crash_penalty, self.env_id
        )
        self.single_observation_space, self.single_action_space = build_spaces(self.params)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.state = sim.init_state(self.num_envs)
        self.scenarios: list[QuadrotorScenario | None] = [None] * self.num_envs
        self._renderer = None

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        fixed = (options or {}).get("scenario")
        if fixed is not None:
            check_scenario(fixed, self.params, self.env_id)
        for i in worlds:
            self.scenarios[i] = fixed if fixed is not None else self.generator(self.world_rng(i))
        sim.load(self.state, worlds, [self.scenarios[i] for i in worlds])
        return sim.reset_info(self.state, self.params)

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_box_batch(self.env_id, actions, -1.0, 1.0, (self.num_envs, 4))
        return sim.step(self.state, actions, self.params)

    def _observe(self) -> np.ndarray:
        return sim.observe(self.state, self.params)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One ``rgb_array`` frame per world."""
        if self.render_mode is None:
            return None
        if self._renderer is None:
            from benchmarkzoo.envs.control.quadrotor.render import QuadrotorRenderer

            self._renderer = QuadrotorRenderer(self.params, "rgb_array", self.metadata["render_fps"])
        return tuple(self._renderer.draw(self.state, i) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
