"""The native vector form of ``benchmarkzoo/MO-Treasure-v0``: ``num_envs`` seas in one batched simulator.

Gymnasium's own ``SyncVectorEnv`` cannot batch vector rewards (its reward buffer is a
``(num_envs,)`` float64 array, and assigning a ``(2,)`` reward to one slot raises
``ValueError: setting an array element with a sequence``), so the reference this env matches
bit for bit is MO-Gymnasium's ``MOSyncVectorEnv`` over the single env: ``(num_envs, 2)``
float32 rewards, and zero rewards for worlds that autoreset on this step.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from gymnasium import spaces

from benchmarkzoo.core.errors import ResetNeededError
from benchmarkzoo.core.spaces import check_discrete_batch
from benchmarkzoo.envs.gridworld.treasure import pareto, sim
from benchmarkzoo.envs.gridworld.treasure.env import TreasureConfig, TreasureEnv, build_spaces
from benchmarkzoo.envs.gridworld.treasure.generator import TreasureGenerator, TreasureScenario
from benchmarkzoo.vector.base import NativeVectorEnv
from benchmarkzoo.vector.core import vector_metadata


class TreasureVectorEnv(NativeVectorEnv):
    """``num_envs`` MO-Treasure-v0 worlds stepped together; see :class:`TreasureEnv` for the task.

    World ``i`` is seeded with ``seed + i`` and redraws its sea from its own generator on
    autoreset, so rollouts equal ``MOSyncVectorEnv`` over ``mo_gymnasium.make`` envs bit for
    bit. Rewards are ``(num_envs, 2)`` float32; ``reward_space`` is the single world's.
    """

    metadata = vector_metadata(TreasureEnv.metadata)
    config_type = TreasureConfig
    config: TreasureConfig
    generator: TreasureGenerator
    params: sim.Params
    single_action_space: spaces.Discrete

    def _setup(self) -> None:
        self.scenario_seed = self.config.scenario_seed
        # Generator.sample is typed by the base's Scenario; a treasure generator's are TreasureScenarios
        self._fixed = (
            None if self.scenario_seed is None else cast(TreasureScenario, self.generator.sample(self.scenario_seed))
        )
        observation_space, action_space, self.reward_space = build_spaces(self.params, self.generator.max_value)
        self._set_spaces(observation_space, action_space)
        self.reward_dim = 2
        self.state = sim.init_state(self.params, self.num_envs)

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        fixed = (options or {}).get("scenario")
        if fixed is not None:
            self._check_scenario(fixed)
        elif self._fixed is not None:
            fixed = self._fixed
        for i in worlds:
            scenario = fixed if fixed is not None else self.generator(self.world_rng(i))
            if scenario is not self.scenarios[i]:  # a fixed sea is compiled once per world
                self.scenarios[i] = scenario
                sim.load(self.state, i, scenario, self.params)
            else:
                sim.restart(self.state, i, scenario, self.params)
        return {}

    def _step_worlds(self, actions: Any) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        actions = check_discrete_batch(self.env_id, actions, self.single_action_space.n, self.num_envs)
        rewards, terminated = sim.step(self.state, actions)
        return rewards, terminated, {}

    def _observe(self) -> np.ndarray:
        return sim.observe(self.state)

    def pareto_front(self, world: int = 0, gamma: float = 1.0) -> np.ndarray:
        """The exact Pareto front of world ``world``'s current sea under this env's time limit."""
        scenario = self.scenarios[world]
        if scenario is None:
            raise ResetNeededError(f"{self.env_id}: call reset() before asking for a world's Pareto front.")
        return pareto.pareto_front(scenario, gamma, self.max_episode_steps)

    # Gymnasium types the frames as a TypeVar bound to nothing, which no concrete frame type satisfies
    def render(self) -> tuple[np.ndarray, ...] | None:  # type: ignore[override]
        """One ``rgb_array`` frame per world."""
        if self.render_mode is None:
            return None
        if self._renderer is None:
            from benchmarkzoo.envs.gridworld.treasure.render import TreasureRenderer

            self._renderer = TreasureRenderer(self.params, "rgb_array", self.metadata["render_fps"])
        return tuple(self._renderer.draw(s, int(self.state.pos[i])) for i, s in enumerate(self.scenarios))
