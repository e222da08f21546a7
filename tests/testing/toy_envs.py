"""Small test-only envs (never registered): a correct ParallelEnv and single envs with planted bugs."""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from benchmarkzoo.core.errors import InvalidAgentError, ResetNeededError
from benchmarkzoo.core.spaces import check_action


class LineParallelEnv(ParallelEnv):
    """Agents walk a line of ``size`` cells to their own target; an agent that arrives leaves.

    Action ``Discrete(3)``: 0 left, 1 stay, 2 right. Observation: ``(position, target) / size``.
    Reward: ``+1`` on arrival, else ``-0.1``. Truncation after ``max_cycles`` steps.
    """

    metadata: ClassVar[dict[str, Any]] = {"name": "line_v0", "render_modes": []}
    env_id = "test/Line-v0"

    def __init__(self, num_agents: int = 3, size: int = 7, max_cycles: int = 30, skip_action_check: bool = False):
        self.possible_agents = [f"walker_{i}" for i in range(num_agents)]
        self.agents: list[str] = []
        self.size = size
        self.max_cycles = max_cycles
        self.skip_action_check = skip_action_check
        self.render_mode = None
        self._rng = np.random.default_rng()
        self._pos: dict[str, int] = {}
        self._target: dict[str, int] = {}
        self._t = 0

    @functools.cache  # noqa: B019 - PettingZoo wants the same space object each call
    def observation_space(self, agent: str) -> spaces.Box:
        return spaces.Box(0.0, 1.0, shape=(2,), dtype=np.float32)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        return spaces.Discrete(3)

    def _obs(self, agent: str) -> np.ndarray:
        return np.array([self._pos[agent], self._target[agent]], dtype=np.float32) / self.size

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.agents = list(self.possible_agents)
        for agent in self.agents:
            self._pos[agent] = int(self._rng.integers(self.size))
            self._target[agent] = int((self._pos[agent] + self._rng.integers(1, self.size)) % self.size)
        self._t = 0
        return {a: self._obs(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]):
        if not self.agents and not self._pos:
            raise ResetNeededError(f"{self.env_id}: call reset() before step().")
        if set(actions) != set(self.agents):
            raise InvalidAgentError(
                f"{self.env_id}: actions must name exactly the live agents {self.agents}; got {sorted(actions)}."
            )
        if not self.skip_action_check:
            for agent, action in actions.items():
                check_action(self.env_id, self.action_space(agent), action, who=f"agent {agent!r}")
        self._t += 1
        obs, rewards, terminated, truncated, infos = {}, {}, {}, {}, {}
        for agent in sorted(actions):  # order-independent dynamics
            self._pos[agent] = int(np.clip(self._pos[agent] + int(actions[agent]) - 1, 0, self.size - 1))
            arrived = self._pos[agent] == self._target[agent]
            obs[agent] = self._obs(agent)
            rewards[agent] = 1.0 if arrived else -0.1
            terminated[agent] = bool(arrived)
            truncated[agent] = self._t >= self.max_cycles and not arrived
            infos[agent] = {"distance": abs(self._pos[agent] - self._target[agent])}
        self.agents = [a for a in self.agents if not (terminated[a] or truncated[a])]
        return obs, rewards, terminated, truncated, infos


class CounterEnv(gym.Env):
    """A scalar (or, with ``objectives``, vector) reward counter with switchable planted bugs.

    Args:
        leak_after: from this step on the reward draws from NumPy's global, unseeded generator.
        accept_anything: skip the action check.
        objectives: ``None`` for a scalar reward, else the length of a vector reward.
        reward_outside: the vector reward leaves ``reward_space``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        leak_after: int | None = None,
        accept_anything: bool = False,
        objectives: int | None = None,
        reward_outside: bool = False,
    ):
        self.observation_space = spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        if objectives is not None:
            self.reward_space = spaces.Box(0.0, 1.0, shape=(objectives,), dtype=np.float32)
        self.leak_after = leak_after
        self.accept_anything = accept_anything
        self.objectives = objectives
        self.reward_outside = reward_outside
        self._t = 0
        self._x = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self._t = 0
        self._x = float(self.np_random.random())
        return np.array([self._x], dtype=np.float32), {}

    def step(self, action: Any):
        if not self.accept_anything:
            check_action("test/Counter-v0", self.action_space, action)
        self._t += 1
        self._x = float(self.np_random.random())
        value = self._x
        if self.leak_after is not None and self._t >= self.leak_after:
            value = float(np.random.random())  # the planted bug: unseeded randomness
        if self.objectives is None:
            reward: Any = value
        else:
            reward = np.full(self.objectives, 2.0 if self.reward_outside else value, dtype=np.float32)
        return np.array([self._x], dtype=np.float32), reward, False, self._t >= 20, {"t": self._t}
