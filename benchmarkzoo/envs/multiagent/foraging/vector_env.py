"""The native multi-world forms of ``Foraging-v0`` and ``MO-Foraging-v0``: ``num_envs`` worlds in one simulator."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from benchmarkzoo.core.spaces import check_discrete_agents
from benchmarkzoo.envs.multiagent.foraging import sim
from benchmarkzoo.envs.multiagent.foraging.env import (
    ENV_ID,
    MO_ENV_ID,
    agent_names,
    build_params,
    build_spaces,
    check_max_cycles,
    check_scenario,
    make_generator,
    mo_reward_space,
)
from benchmarkzoo.envs.multiagent.foraging.generator import ForagingScenario
from benchmarkzoo.generators.base import Generator
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

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"], "render_fps": 8}
    env_id = ENV_ID

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "foraging/random",
        generator_kwargs: dict[str, Any] | None = None,
        view_radius: int = 2,
        load_penalty: float = 0.0,
        max_cycles: int = 50,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        gen = make_generator(generator, generator_kwargs, self.env_id)
        super().__init__(
            num_envs,
            agent_names(gen.num_agents),
            check_max_cycles(max_cycles, self.env_id),
            autoreset_mode,
            render_mode,
        )
        self.generator = gen
        self.params = build_params(gen, view_radius, load_penalty, self.env_id)
        self.single_observation_space, self.single_action_space = build_spaces(self.params)
        n = self.params.num_agents
        self.observation_space = batch_space(batch_space(self.single_observation_space, n), self.num_envs)
        self.action_space = batch_space(batch_space(self.single_action_space, n), self.num_envs)
        self.sim_state = sim.init_state(self.params, self.num_envs)
        self.scenarios: list[ForagingScenario | None] = [None] * self.num_envs
        self._renderer = None

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        fixed = (options or {}).get("scenario")
        if fixed is not None:
            check_scenario(fixed, self.params, self.env_id)
        for i in worlds:
            scenario = fixed if fixed is not None else self.generator(self.world_rng(i))
            self.scenarios[i] = scenario
            sim.load(self.sim_state, i, scenario, self.params)
        return {}

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

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One ``rgb_array`` frame per world."""
        if self.render_mode is None:
            return None
        if self._renderer is None:
            from benchmarkzoo.envs.multiagent.foraging.render import ForagingRenderer

            self._renderer = ForagingRenderer(self.params, "rgb_array", self.metadata["render_fps"])
        return tuple(self._renderer.draw(self.sim_state, i) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        if getattr(self, "_renderer", None) is not None:
            self._renderer.close()
            self._renderer = None


class MOForagingVectorEnv(ForagingVectorEnv):
    """``num_envs`` MO-Foraging-v0 worlds; rewards are ``(B, N, T)`` float64, one entry per food type.

    ``single_reward_space`` is every agent's ``Box(0, 1, (T,), float64)``.
    """

    env_id = MO_ENV_ID

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "foraging/random",
        generator_kwargs: dict[str, Any] | None = None,
        view_radius: int = 2,
        max_cycles: int = 50,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        super().__init__(
            num_envs, generator, generator_kwargs, view_radius, 0.0, max_cycles, autoreset_mode, render_mode
        )
        self.single_reward_space: spaces.Box = mo_reward_space(self.params)

    def _rewards(self, rewards: np.ndarray, typed: np.ndarray, acting: np.ndarray) -> np.ndarray:
        typed[~acting] = 0.0
        return typed
