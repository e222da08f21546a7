"""The native vector form of ``benchmarkzoo/Platform-v0``: ``num_envs`` courses in one batched simulator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from benchmarkzoo.core.errors import InvalidActionError
from benchmarkzoo.core.spaces import check_box_batch, check_discrete_batch
from benchmarkzoo.envs.control.platform import sim
from benchmarkzoo.envs.control.platform.env import PlatformConfig, PlatformEnv, build_spaces
from benchmarkzoo.vector.base import NativeVectorEnv
from benchmarkzoo.vector.core import vector_metadata


class PlatformVectorEnv(NativeVectorEnv):
    """``num_envs`` Platform-v0 worlds stepped together; see :class:`PlatformEnv` for the task.

    Actions are the batch of the single ``Dict`` space, as ``SyncVectorEnv`` takes them:
    ``{"move": (num_envs,) int, "power": (num_envs, 1) float32}``. World ``i`` is seeded with
    ``seed + i`` and redraws its course from its own generator on autoreset, so rollouts equal
    ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit.
    """

    metadata = vector_metadata(PlatformEnv.metadata)
    config_type = PlatformConfig
    single_action_space: spaces.Dict
    params: sim.Params
    sim = sim
    build_spaces = staticmethod(build_spaces)
    state: sim.State  # made by the default _setup

    def _reset_info(self) -> dict[str, np.ndarray]:
        return {"is_success": np.zeros(self.num_envs, dtype=bool)}

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        if not isinstance(actions, Mapping) or set(actions) != {"move", "power"}:
            got = sorted(actions) if isinstance(actions, Mapping) else type(actions).__name__
            raise InvalidActionError(
                f"{self.env_id} expects a batch of actions as a dict with keys 'move' and 'power' (arrays of shape "
                f"({self.num_envs},) and ({self.num_envs}, 1)); got {got}. Use env.action_space.sample() for the "
                "layout."
            )
        moves = check_discrete_batch(self.env_id, actions["move"], len(sim.MOVE_NAMES), self.num_envs)
        powers = check_box_batch(self.env_id, actions["power"], 0.0, 1.0, (self.num_envs, 1))
        powers = np.asarray(powers, dtype=np.float32)[:, 0].astype(np.float64)
        rewards, terminated, success = sim.step(self.state, moves, powers, self.params)
        return rewards, terminated, {"is_success": success}

    def _observe(self) -> np.ndarray:
        return sim.observe(self.state)

    def _make_renderer(self):
        from benchmarkzoo.envs.control.platform.render import PlatformRenderer

        return PlatformRenderer("rgb_array", self.metadata["render_fps"])
