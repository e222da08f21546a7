"""The native multi-world form of ``benchmarkzoo/MAPF-v0``: ``num_envs`` worlds of ``N`` agents in one simulator."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.core.spaces import check_discrete_agents
from benchmarkzoo.envs.multiagent.mapf import sim
from benchmarkzoo.envs.multiagent.mapf.env import MapfConfig, MapfEnv, build_spaces
from benchmarkzoo.vector.core import vector_metadata
from benchmarkzoo.vector.multiagent import NativeMultiAgentVectorEnv


class MapfVectorEnv(NativeMultiAgentVectorEnv):
    """``num_envs`` MAPF-v0 worlds stepped together; see :class:`~benchmarkzoo.envs.multiagent.mapf.env.MapfEnv`.

    The batched API is :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`'s: actions
    ``(B, N)`` int, observations ``{"goal_direction": (B, N, 2), "view": (B, N, 3, V, V)}`` float32,
    rewards ``(B, N)`` float64, terminations and truncations ``(B, N)`` bool, ``infos["active"]`` and
    ``infos["present"]`` ``(B, N)`` bool. Infos also hold ``is_success`` ``(B, N)`` and, for the
    worlds whose episode ended on the step (mask ``_success_rate`` etc.), the episode metrics
    ``success_rate``, ``cooperative_success``, ``makespan`` and ``sum_of_costs``, each ``(B,)``.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so world ``i`` equals ``MapfEnv`` reset with ``seed + i`` and stepped with the
    same actions, bit for bit.
    """

    metadata = vector_metadata(MapfEnv.metadata)
    config_type = MapfConfig
    config: MapfConfig
    sim = sim
    build_spaces = staticmethod(build_spaces)
    sim_state: sim.State  # made by the default _setup

    def _reset_info(self) -> dict[str, np.ndarray]:
        return {"is_success": np.zeros((self.num_envs, self.num_agents), dtype=bool)}

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_agents(self.env_id, actions, self.single_action_space.n, acting, self.possible_agents)
        # worlds truncated on the last step still have agents on the grid: they stay put until reloaded
        rewards, arrived = self._advance(actions)
        rewards[~acting] = 0.0
        arrived &= acting
        if self.config.lifelong:  # lifelong agents never leave: an arrival is a success, not a termination
            return rewards, np.zeros_like(arrived), {"is_success": arrived}
        return rewards, arrived, {"is_success": arrived.copy()}

    def _advance(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Step the simulator: rewards ``(B, N, ...)`` and arrivals ``(B, N)``, before masking by ``acting``."""
        return sim.step(self.sim_state, actions, self.params)

    def _observe(self, present: np.ndarray) -> dict[str, np.ndarray]:
        return sim.observe(self.sim_state, self.params, present)

    def _end_info(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state)

    def _make_renderer(self):
        from benchmarkzoo.envs.multiagent.mapf.render import MapfRenderer

        return MapfRenderer(self.params, "rgb_array", self.metadata["render_fps"])
