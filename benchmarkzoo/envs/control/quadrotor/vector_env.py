"""The native vector form of the Quadrotor envs: ``num_envs`` vehicles in one batched simulator."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.core.spaces import check_box_batch
from benchmarkzoo.envs.control.quadrotor import sim
from benchmarkzoo.envs.control.quadrotor.env import QuadrotorConfig, QuadrotorEnv, build_spaces
from benchmarkzoo.envs.control.quadrotor.generator import QuadrotorGenerator
from benchmarkzoo.vector.base import NativeVectorEnv
from benchmarkzoo.vector.core import vector_metadata


class QuadrotorVectorEnv(NativeVectorEnv):
    """``num_envs`` Quadrotor worlds stepped together; see :class:`QuadrotorEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so rollouts equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit.
    """

    metadata = vector_metadata(QuadrotorEnv.metadata)
    config_type = QuadrotorConfig
    generator: QuadrotorGenerator
    params: sim.Params

    def _setup(self) -> None:
        self._set_spaces(*build_spaces(self.params))
        self.state = sim.init_state(self.num_envs)

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        sim.load(self.state, worlds, self._next_scenarios(worlds, options))
        return sim.reset_info(self.state, self.params)

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_box_batch(self.env_id, actions, -1.0, 1.0, (self.num_envs, 4))
        return sim.step(self.state, actions, self.params)

    def _observe(self) -> np.ndarray:
        return sim.observe(self.state, self.params)

    def _make_renderer(self):
        from benchmarkzoo.envs.control.quadrotor.render import QuadrotorRenderer

        return QuadrotorRenderer(self.params, "rgb_array", self.metadata["render_fps"])
