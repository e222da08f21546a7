"""The native multi-world form of ``benchmarkzoo/MAPF-v0``: ``num_envs`` worlds of ``N`` agents in one simulator."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from benchmarkzoo.core.spaces import check_discrete_agents
from benchmarkzoo.envs.multiagent.mapf import sim
from benchmarkzoo.envs.multiagent.mapf.env import (
    ENV_ID,
    agent_names,
    build_params,
    build_spaces,
    check_max_cycles,
    check_scenario,
    make_generator,
)
from benchmarkzoo.envs.multiagent.mapf.generator import MapfScenario
from benchmarkzoo.generators.base import Generator
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

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"], "render_fps": 8}
    env_id = ENV_ID
    lifelong = False

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "mapf/obstacles",
        generator_kwargs: dict[str, Any] | None = None,
        view_radius: int = 5,
        step_reward: float = -0.01,
        goal_reward: float = 1.0,
        max_cycles: int = 128,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        gen = make_generator(generator, generator_kwargs)
        super().__init__(
            num_envs,
            agent_names(gen.num_agents),
            check_max_cycles(max_cycles, self.env_id),
            autoreset_mode,
            render_mode,
        )
        self.generator = gen
        self.params = build_params(self.generator, view_radius, step_reward, goal_reward, self.env_id, self.lifelong)
        self.single_observation_space, self.single_action_space = build_spaces(self.params)
        n = self.params.num_agents
        self.observation_space = batch_space(batch_space(self.single_observation_space, n), self.num_envs)
        self.action_space = batch_space(batch_space(self.single_action_space, n), self.num_envs)
        self.sim_state = sim.init_state(self.params, self.num_envs)
        self.scenarios: list[MapfScenario | None] = [None] * self.num_envs
        self._renderer = None

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        fixed = (options or {}).get("scenario")
        if fixed is not None:
            check_scenario(fixed, self.params, self.env_id)
        for i in worlds:
            scenario = fixed if fixed is not None else self.generator(self.world_rng(i))
            self.scenarios[i] = scenario
            sim.load(self.sim_state, i, scenario, self.params)
        return {"is_success": np.zeros((self.num_envs, self.num_agents), dtype=bool)}

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_agents(self.env_id, actions, self.single_action_space.n, acting, self.possible_agents)
        # worlds truncated on the last step still have agents on the grid: they stay put until reloaded
        rewards, arrived = self._advance(actions)
        rewards[~acting] = 0.0
        arrived &= acting
        if self.lifelong:  # lifelong agents never leave: an arrival is a success, not a termination
            return rewards, np.zeros_like(arrived), {"is_success": arrived}
        return rewards, arrived, {"is_success": arrived.copy()}

    def _advance(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Step the simulator: rewards ``(B, N, ...)`` and arrivals ``(B, N)``, before masking by ``acting``."""
        return sim.step(self.sim_state, actions, self.params)

    def _observe(self, present: np.ndarray) -> dict[str, np.ndarray]:
        return sim.observe(self.sim_state, self.params, present)

    def _end_info(self) -> dict[str, np.ndarray]:
        return sim.episode_metrics(self.sim_state)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One ``rgb_array`` frame per world."""
        if self.render_mode is None:
            return None
        if self._renderer is None:
            from benchmarkzoo.envs.multiagent.mapf.render import MapfRenderer

            self._renderer = MapfRenderer(self.params, "rgb_array", self.metadata["render_fps"])
        return tuple(self._renderer.draw(self.sim_state, i) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        if getattr(self, "_renderer", None) is not None:
            self._renderer.close()
            self._renderer = None
