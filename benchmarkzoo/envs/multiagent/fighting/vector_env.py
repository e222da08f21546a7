"""The native multi-world form of ``FightingDuel-v0``: ``num_envs`` duels in one batched simulator."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.core.spaces import check_discrete_agents
from benchmarkzoo.envs.multiagent.fighting import sim
from benchmarkzoo.envs.multiagent.fighting.env import (
    FightingConfig,
    FightingDuelEnv,
    build_spaces,
    make_renderer,
    seat_actions,
)
from benchmarkzoo.vector.core import vector_metadata
from benchmarkzoo.vector.multiagent import NativeMultiAgentVectorEnv


class FightingDuelVectorEnv(NativeMultiAgentVectorEnv):
    """``num_envs`` FightingDuel-v0 matches stepped together; see :class:`FightingDuelEnv` for the game.

    The batched API is :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`'s, agents
    ``player_0``, ``player_1`` on axis 1 (``player_0`` alone against a bot): actions ``(B, N)`` int,
    observations ``(B, N, 66)`` float32, rewards ``(B, N)`` float64 (zero-sum), terminations and
    truncations ``(B, N)`` bool. ``infos["action_mask"]`` is ``(B, N, 54)`` int8 every step; for the
    worlds whose match ended on the step infos hold ``rounds_won``, ``rounds_lost``, ``won`` and
    ``masked_actions``, each ``(B,)``, under their ``_key`` masks.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so world ``i`` equals ``FightingDuelEnv`` reset with ``seed + i`` and stepped with the
    same actions, bit for bit.
    """

    metadata = vector_metadata(FightingDuelEnv.metadata)
    config_type = FightingConfig
    sim = sim
    build_spaces = staticmethod(build_spaces)
    sim_state: sim.State  # made by the default _setup

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        super()._load_worlds(worlds, options)
        return {"action_mask": self._masks_now()}

    def _masks_now(self) -> np.ndarray:
        self._legal = sim.action_masks(self.sim_state)  # (B, 2, A), kept for the next step's actions
        return self._legal[:, : self.num_agents]  # (B, N, A)

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_agents(self.env_id, actions, sim.NUM_ACTIONS, acting, self.possible_agents)
        # worlds that ended on the last step are finished matches, which stand still until reloaded
        played = seat_actions(self.sim_state, self.params, actions, self._legal)
        reward = sim.step(self.sim_state, played, self.params)
        rewards = np.stack([reward, 0.0 - reward], axis=1)[:, : self.num_agents]  # (B, N)
        rewards[~acting] = 0.0
        terminated = acting & self.sim_state.done[:, None]
        return rewards, terminated, {"action_mask": self._masks_now()}

    def _observe(self, present: np.ndarray) -> np.ndarray:
        obs = sim.observe(self.sim_state, self.params)[:, : self.num_agents]  # (B, N, F)
        obs[~present] = 0.0
        return obs

    def _end_info(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state)

    def _make_renderer(self):
        return make_renderer(self.params, "rgb_array")
