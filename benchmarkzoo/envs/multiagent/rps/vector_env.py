"""The native vector forms of ``benchmarkzoo/RPSPopulation-v0`` and ``benchmarkzoo/RPSSelfPlay-v0``.

``num_envs`` matches in one batched simulator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.core.spaces import check_discrete_agents, check_discrete_batch
from benchmarkzoo.envs.multiagent.rps import sim
from benchmarkzoo.envs.multiagent.rps.env import (
    RPSPopulationConfig,
    RPSPopulationEnv,
    RPSSelfPlayConfig,
    RPSSelfPlayEnv,
    build_spaces,
    make_renderer,
)
from benchmarkzoo.envs.multiagent.rps.generator import RPSScenario, RPSSelfPlayScenario
from benchmarkzoo.vector.base import NativeVectorEnv
from benchmarkzoo.vector.core import vector_metadata
from benchmarkzoo.vector.multiagent import NativeMultiAgentVectorEnv


class RPSPopulationVectorEnv(NativeVectorEnv):
    """``num_envs`` RPSPopulation-v0 matches stepped together; see :class:`RPSPopulationEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its bot from its own generator on
    autoreset, so rollouts equal ``gym.make_vec(..., vectorization_mode="sync")`` bit for bit.
    """

    metadata = vector_metadata(RPSPopulationEnv.metadata)
    config_type = RPSPopulationConfig
    sim = sim
    build_spaces = staticmethod(build_spaces)
    state: sim.State  # made by the default _setup

    def _load_world(self, state: sim.State, world: int, scenario: RPSScenario) -> None:
        sim.load(state, world, scenario)

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_batch(self.env_id, actions, sim.NUM_MOVES, self.num_envs)
        bot = sim.bot_moves(self.state)
        rewards = sim.play(self.state, actions, bot)
        info = {"bot_move": bot, "exploitability": sim.exploitability(self.state)}
        return rewards, np.zeros(self.num_envs, dtype=bool), info

    def _observe(self) -> np.ndarray:
        return sim.observe(self.state)

    def _make_renderer(self):
        return make_renderer(self.params, "rgb_array")


class RPSSelfPlayVectorEnv(NativeMultiAgentVectorEnv):
    """``num_envs`` RPSSelfPlay-v0 matches stepped together; see :class:`RPSSelfPlayEnv` for the game.

    The batched API is :class:`~benchmarkzoo.vector.multiagent.NativeMultiAgentVectorEnv`'s, agents
    ``player_0``, ``player_1`` on axis 1: actions ``(B, 2)`` int, observations ``(B, 2, 6K)``
    float32, rewards ``(B, 2)`` float64 (zero-sum), terminations and truncations ``(B, 2)`` bool.
    Infos hold ``move``, ``opponent_move`` (``(B, 2)`` int64, as played) and ``exploitability``
    (``(B, 2)`` float64), each agent's entry of the ParallelEnv's info.

    World ``i`` is seeded with ``seed + i`` and redraws its scenario from its own generator on
    autoreset, so world ``i`` equals ``RPSSelfPlayEnv`` reset with ``seed + i`` and stepped with the
    same actions, bit for bit.
    """

    metadata = vector_metadata(RPSSelfPlayEnv.metadata)
    config_type = RPSSelfPlayConfig
    sim = sim
    build_spaces = staticmethod(build_spaces)
    sim_state: sim.State  # made by the default _setup

    def _load_world(self, state: sim.State, world: int, scenario: RPSSelfPlayScenario | RPSScenario) -> None:
        sim.load(state, world, scenario)

    def _step_worlds(self, actions: Any, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_agents(self.env_id, actions, sim.NUM_MOVES, acting, self.possible_agents)
        if self.num_agents == 1:  # seat 1 is each world's bot
            actions = np.stack([actions[:, 0], sim.bot_moves(self.sim_state)], axis=1)
        # worlds that ended on the last step play rock against rock until reloaded; outputs discarded
        moves = sim.tremble(self.sim_state, actions)  # (B, 2) as played
        reward = sim.play(self.sim_state, moves[:, 0], moves[:, 1])
        n = self.num_agents
        rewards = np.stack([reward, 0.0 - reward], axis=1)[:, :n]  # (B, N); 0.0 - r: no negative zero on a draw
        rewards[~acting] = 0.0
        exploitability = sim.exploitability(self.sim_state, None)[:, :n]  # (B, N)
        info = {"move": moves[:, :n], "opponent_move": moves[:, ::-1][:, :n].copy(), "exploitability": exploitability}
        return rewards, np.zeros_like(acting), info

    def _observe(self, present: np.ndarray) -> np.ndarray:
        obs = np.stack([sim.observe(self.sim_state, p) for p in range(self.num_agents)], axis=1)  # (B, N, 6K)
        obs[~present] = 0.0
        return obs

    def _make_renderer(self):
        return make_renderer(self.params, "rgb_array")
