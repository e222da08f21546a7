"""The AEC form of a ``moma`` env: PettingZoo's ``parallel_to_aec`` with MOMAland's vector-reward semantics.

PettingZoo's conversion starts every reward as the scalar ``0`` and knows no ``reward_space``,
so a converted ``moma`` env mixes scalars with ``(k,)`` arrays and fails MOMAland's ``api_test``.
:class:`MOParallelToAEC` keeps PettingZoo's turn order and agent bookkeeping (it subclasses the
conversion) and changes only what a vector reward needs, as MOMAland's ``mo_parallel_to_aec``
does, without depending on MOMAland: ``reward_space(agent)`` and ``reward_spaces`` of the
parallel env, and rewards that start, and are cleared to, zero vectors of the reward space's
dtype. ``benchmarkzoo.make_aec`` returns it for every ``moma`` id.

>>> import benchmarkzoo
>>> env = benchmarkzoo.make_aec("benchmarkzoo/MO-MAPF-v0")
>>> env.reset(seed=0)
>>> env.reward_space(env.agent_selection)
Box([ 0. -1. -1.], [1. 0. 0.], (3,), float32)
>>> _, reward, *_ = env.last()
>>> reward.tolist(), reward.dtype
([0.0, 0.0, 0.0], dtype('float32'))
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.conversions import parallel_to_aec_wrapper
from typing_extensions import override


class MOParallelToAEC(parallel_to_aec_wrapper):
    """An AEC env over a ``moma`` ParallelEnv (one with ``reward_space(agent)``), rewards ``(k,)`` arrays.

    Args:
        parallel_env: a PettingZoo ``ParallelEnv`` with ``reward_space(agent)``, a 1-D ``Box`` per agent.

    Raises:
        TypeError: ``parallel_env`` has no ``reward_space`` (its rewards are scalars: use
            PettingZoo's ``parallel_to_aec``).
    """

    def __init__(self, parallel_env: Any):
        if not callable(getattr(parallel_env, "reward_space", None)):
            raise TypeError(
                f"MOParallelToAEC needs a multi-objective ParallelEnv with reward_space(agent) (kind 'moma'); "
                f"{type(parallel_env).__name__} has none. Use pettingzoo.utils.conversions.parallel_to_aec."
            )
        super().__init__(parallel_env)

    def reward_space(self, agent: str) -> spaces.Box:
        """``agent``'s reward space: the parallel env's (the same object)."""
        return self.env.reward_space(agent)

    @property
    def reward_spaces(self) -> dict[str, spaces.Box]:
        """Every possible agent's reward space (MOMAland's attribute)."""
        return {agent: self.reward_space(agent) for agent in self.possible_agents}

    def _zeros(self, agent: str) -> np.ndarray:
        space = self.reward_space(agent)
        return np.zeros(space.shape, dtype=space.dtype)

    @override
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        self.rewards = {agent: self._zeros(agent) for agent in self.agents}
        self._cumulative_rewards = {agent: self._zeros(agent) for agent in self.agents}

    @override
    def add_new_agent(self, new_agent: str) -> None:
        super().add_new_agent(new_agent)
        self.rewards[new_agent] = self._zeros(new_agent)
        self._cumulative_rewards[new_agent] = self._zeros(new_agent)

    @override
    def _clear_rewards(self) -> None:
        for agent in self.rewards:
            self.rewards[agent] = self._zeros(agent)
