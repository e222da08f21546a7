"""The native multi-world form of ``MO-Beach-v0``: ``num_envs`` beaches in one batched simulator."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.spaces import check_discrete_agents
from benchmarkzoo.envs.multiagent.beach import sim
from benchmarkzoo.envs.multiagent.beach.env import BeachConfig, MOBeachEnv, build_spaces, mo_reward_space
from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveWorlds
from benchmarkzoo.vector.core import vector_metadata
from benchmarkzoo.vector.multiagent import NativeMultiAgentVectorEnv


class MOBeachVectorEnv(MultiObjectiveWorlds, NativeMultiAgentVectorEnv):
    """``num_envs`` MO-Beach-v0 worlds ; see :class:`~benchmarkzoo.envs.multiagent.beach.env.MOBeachEnv`.

    The batched API is :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`'s: actions
    ``(B, N)`` int, observations ``(B, N, 5)`` float32, rewards ``(B, N, 2)`` float32 (capacity,
    mixture), terminations and truncations ``(B, N)`` bool. For the worlds whose episode ended on
    the step infos hold ``global_capacity`` and ``global_mixture``, each ``(B,)``. World ``i`` equals
    ``MOBeachEnv`` reset with ``seed + i`` and stepped with the same actions, bit for bit.
    """

    metadata = vector_metadata(MOBeachEnv.metadata)
    config_type = BeachConfig
    sim = sim
    build_spaces = staticmethod(build_spaces)
    sim_state: sim.State  # made by the default _setup

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space(self.params)

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_agents(self.env_id, actions, len(sim.MOVES), acting, self.possible_agents)
        rewards, done = sim.step(self.sim_state, actions, self.params)  # ended worlds too; reloaded after
        rewards[~acting] = 0.0
        return rewards, acting & done[:, None], {}

    def _observe(self, present: np.ndarray) -> np.ndarray:
        observations = sim.observe(self.sim_state, self.params)
        observations[~present] = 0.0
        return observations

    def _end_info(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state, self.params)
