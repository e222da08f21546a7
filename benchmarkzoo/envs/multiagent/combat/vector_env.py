"""The native multi-world form of ``MicroCombat-v0``: ``num_envs`` engagements in one simulator."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.core.errors import IllegalActionError
from benchmarkzoo.core.spaces import check_discrete_agents
from benchmarkzoo.envs.multiagent.combat import sim
from benchmarkzoo.envs.multiagent.combat.env import CombatConfig, MicroCombatEnv, build_spaces, illegal_action_message
from benchmarkzoo.vector.core import vector_metadata
from benchmarkzoo.vector.multiagent import NativeMultiAgentVectorEnv


class MicroCombatVectorEnv(NativeMultiAgentVectorEnv):
    """``num_envs`` MicroCombat-v0 worlds stepped together.

    See :class:`~benchmarkzoo.envs.multiagent.combat.env.MicroCombatEnv` for the rules.

    The batched API is :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`'s: actions
    ``(B, N)`` int, observations ``(B, N, F)`` float32, rewards ``(B, N)`` float64 (the team reward
    in every present agent's slot), terminations and truncations ``(B, N)`` bool,
    ``infos["active"]`` and ``infos["present"]`` ``(B, N)`` bool. ``infos["action_mask"]`` is
    ``(B, N, 6 + E)`` int8 every step (agents that are not active may only no-op). For the worlds
    whose episode ended on the step infos hold ``won``, ``allies_alive``, ``enemies_killed`` and
    ``masked_actions``, each ``(B,)``, under their ``_key`` masks. :meth:`state` is the global
    state of every world, ``(B, (N + E)(5 + T))``.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so world ``i`` equals ``MicroCombatEnv`` reset with ``seed + i`` and stepped with the
    same actions, bit for bit.
    """

    metadata = vector_metadata(MicroCombatEnv.metadata)
    config_type = CombatConfig
    config: CombatConfig
    sim = sim

    def _setup(self) -> None:
        self.illegal_actions = self.config.illegal_actions
        observation_space, action_space, self.single_state_space = build_spaces(self.params)
        self._set_spaces(observation_space, action_space)
        self.sim_state = sim.init_state(self.params, self.num_envs)
        self._legal = np.zeros((self.num_envs, self.num_agents, self.params.num_actions), dtype=np.int8)  # (B, N, A)

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        super()._load_worlds(worlds, options)
        self._legal[worlds] = sim.action_masks(self.sim_state, self.params, worlds)
        return {"action_mask": self._legal}

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        n_actions = self.params.num_actions
        actions = check_discrete_agents(self.env_id, actions, n_actions, acting, self.possible_agents)
        legal = np.take_along_axis(self._legal, actions[..., None], axis=2)[..., 0].astype(bool)  # (B, N)
        illegal = acting & ~legal
        if illegal.any():
            if self.illegal_actions == "raise":
                world, unit = (int(x) for x in np.argwhere(illegal)[0])
                raise IllegalActionError(
                    illegal_action_message(
                        self.env_id,
                        self.sim_state,
                        self.params,
                        world,
                        unit,
                        int(actions[world, unit]),
                        self._legal[world, unit],
                        f"world {world}, agent {self.possible_agents[unit]!r}",
                    )
                )
            self.sim_state.masked += illegal.sum(axis=1)
            actions = np.where(illegal, sim.STOP, actions)
        # worlds that ended on the last step are stepped with no-op actions until reloaded; outputs discarded
        rewards, died, done = self._advance(actions, acting)
        terminated = acting & (died | done[:, None])
        self._legal = sim.action_masks(self.sim_state, self.params)
        return rewards, terminated, {"action_mask": self._legal}

    def _advance(self, actions: np.ndarray, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Step every world: rewards ``(B, N)`` float64 (the team reward where ``acting``), ``died``, ``done``."""
        reward, died, done, _ = sim.step(self.sim_state, actions, self.params)
        return np.where(acting, reward[:, None], 0.0), died, done

    def _observe(self, present: np.ndarray) -> np.ndarray:
        return sim.observe(self.sim_state, self.params, present)

    def _end_info(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state, self.params)

    def state(self) -> np.ndarray:
        """``(B, (N + E)(5 + T))`` float32, every world's global state (the ParallelEnv's ``state()``)."""
        return sim.global_state(self.sim_state, self.params)

    def _make_renderer(self):
        from benchmarkzoo.envs.multiagent.combat.render import CombatRenderer

        return CombatRenderer(self.params, "rgb_array", self.metadata["render_fps"])
