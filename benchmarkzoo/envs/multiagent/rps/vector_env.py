"""The native vector form of ``benchmarkzoo/RPSPopulation-v0``: ``num_envs`` matches in one batched simulator."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from benchmarkzoo.core.spaces import check_discrete_batch
from benchmarkzoo.envs.multiagent.rps import sim
from benchmarkzoo.envs.multiagent.rps.env import ENV_ID, build_params, build_spaces, check_scenario, make_generator
from benchmarkzoo.envs.multiagent.rps.generator import RPSScenario
from benchmarkzoo.generators.base import Generator
from benchmarkzoo.vector.base import NativeVectorEnv


class RPSPopulationVectorEnv(NativeVectorEnv):
    """``num_envs`` RPSPopulation-v0 matches stepped together; see :class:`RPSPopulationEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its bot from its own generator on
    autoreset, so rollouts equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    env_id = ENV_ID

    def __init__(
        self,
        num_envs: int = 1,
        generator: str | Generator = "rps/population",
        generator_kwargs: dict[str, Any] | None = None,
        history: int = 5,
        max_episode_steps: int | None = 100,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ):
        super().__init__(num_envs, max_episode_steps, autoreset_mode, render_mode)
        self.generator = make_generator(generator, generator_kwargs)
        self.params = build_params(history)
        self.single_observation_space, self.single_action_space = build_spaces(self.params)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.state = sim.init_state(self.params, self.num_envs)
        self.scenarios: list[RPSScenario | None] = [None] * self.num_envs

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        fixed = (options or {}).get("scenario")
        if fixed is not None:
            check_scenario(fixed)
        for i in worlds:
            scenario = fixed if fixed is not None else self.generator(self.world_rng(i))
            self.scenarios[i] = scenario
            sim.load(self.state, i, scenario)
        return {}

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_batch(self.env_id, actions, sim.NUM_MOVES, self.num_envs)
        bot = sim.bot_moves(self.state)
        rewards = sim.play(self.state, actions, bot)
        info = {"bot_move": bot, "exploitability": sim.exploitability(self.state)}
        return rewards, np.zeros(self.num_envs, dtype=bool), info

    def _observe(self) -> np.ndarray:
        return sim.observe(self.state)
