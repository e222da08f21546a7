"""The native multi-world forms of ``Foraging-v0`` and ``MO-Foraging-v0``: ``num_envs`` worlds in one simulator."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.spaces import check_discrete_agents
from benchmarkzoo.envs.multiagent.foraging import sim
from benchmarkzoo.envs.multiagent.foraging.env import (
    ForagingConfig,
    ForagingEnv,
    MOForagingConfig,
    MOForagingEnv,
    MOForagingV1Env,
    build_spaces,
    mo_reward_space,
)
from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveWorlds
from benchmarkzoo.vector.core import vector_metadata
from benchmarkzoo.vector.multiagent import NativeMultiAgentVectorEnv


class ForagingVectorEnv(NativeMultiAgentVectorEnv):
    """``num_envs`` Foraging-v0 worlds stepped together.

    See :class:`~benchmarkzoo.envs.multiagent.foraging.env.ForagingEnv` for the rules.

    The batched API is :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`'s: actions
    ``(B, N)`` int, observations ``(B, N, C, V, V)`` float32, rewards ``(B, N)`` float64,
    terminations and truncations ``(B, N)`` bool, ``infos["active"]`` and ``infos["present"]``
    ``(B, N)`` bool. For the worlds whose episode ended on the step (masks ``_food_collected``,
    ``_all_collected``) infos hold ``food_collected`` and ``all_collected``, each ``(B,)``.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so world ``i`` equals ``ForagingEnv`` reset with ``seed + i`` and stepped with the
    same actions, bit for bit.
    """

    metadata = vector_metadata(ForagingEnv.metadata)
    config_type = ForagingConfig
    sim = sim
    build_spaces = staticmethod(build_spaces)
    sim_state: sim.State  # made by the default _setup

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_agents(self.env_id, actions, self.single_action_space.n, acting, self.possible_agents)
        # worlds that ended on the last step are stepped with "none" actions until reloaded; outputs discarded
        rewards, typed, done = sim.step(self.sim_state, actions, self.params)
        terminated = acting & done[:, None]
        return self._rewards(rewards, typed, acting), terminated, {}

    def _rewards(self, rewards: np.ndarray, typed: np.ndarray, acting: np.ndarray) -> np.ndarray:
        rewards[~acting] = 0.0
        return rewards

    def _observe(self, present: np.ndarray) -> np.ndarray:
        return sim.observe(self.sim_state, self.params, present)

    def _end_info(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state, self.params)

    def _make_renderer(self):
        from benchmarkzoo.envs.multiagent.foraging.render import ForagingRenderer

        return ForagingRenderer(self.params, "rgb_array", self.metadata["render_fps"])


class MOForagingVectorEnv(MultiObjectiveWorlds, ForagingVectorEnv):
    """``num_envs`` MO-Foraging-v0 worlds; rewards are ``(B, N, T)`` float64, one entry per food type.

    ``single_reward_space`` is every agent's ``Box(0, 1, (T,), float64)``.
    """

    config_type = MOForagingConfig
    reward_dtype: ClassVar[np.dtype] = MOForagingEnv.reward_dtype

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space(self.params, self.reward_dtype)

    def _rewards(self, rewards: np.ndarray, typed: np.ndarray, acting: np.ndarray) -> np.ndarray:
        typed[~acting] = 0.0
        return typed.astype(self.reward_dtype, copy=False)


class MOForagingV1VectorEnv(MOForagingVectorEnv):
    """``num_envs`` MO-Foraging-v1 worlds: rewards ``(B, N, T)`` float32; see :class:`MOForagingV1Env`."""

    reward_dtype = MOForagingV1Env.reward_dtype
