"""Small test-only envs (never registered) that pass the kit's strict mode, with switchable planted bugs.

Each env takes ``bugs``, a collection of names from :data:`SINGLE_BUGS` or :data:`PARALLEL_BUGS`;
each name breaks one contract, so every check of the kit has an env it must catch.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from benchmarkzoo.core.errors import ClosedEnvError, InvalidAgentError, ResetNeededError
from benchmarkzoo.core.options import check_options
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.core.seeding import check_seed
from benchmarkzoo.core.spaces import check_action

#: Misuse refusals both toy envs make, unless the bug of that name switches one off.
MISUSE_BUGS = {
    "step_before_reset": "step() before reset() is accepted",
    "negative_seed": "reset(seed=-1) reaches Gymnasium's seeding (gymnasium.error.Error)",
    "misspelt_option": "reset(options=...) ignores unknown keys",
    "no_scenario": "env.scenario is not set by reset()",
    "ignores_scenario": "reset(options={'scenario': s}) draws another scenario",
    "step_after_close": "step() after close() is accepted",
    "reset_after_close": "reset() after close() is accepted",
    "anonymous_errors": "error messages do not name the env id",
}
SINGLE_BUGS = {
    **MISUSE_BUGS,
    "unseeded_reset": "reset(seed) draws from NumPy's global generator",
    "old_step_api": "step() returns Gym's old 4-tuple",
    "obs_outside": "observations leave observation_space from step 3",
    "list_reward": "a multi-objective reward is a list, not an array",
    "assert_actions": "invalid actions fail an assert (AssertionError), as CartPole's do",
}
PARALLEL_BUGS = {
    **MISUSE_BUGS,
    "order_dependent": "the dynamics depend on the order of the action dict",
    "obs_outside": "observations leave observation_space from step 3",
    "forgets_info": "the first live agent gets no info (PettingZoo warns)",
    "unknown_agent": "an action for an unknown agent is ignored",
    "missing_agent": "a live agent without an action stays put",
}


def _known(bugs: Any, table: dict[str, str]) -> frozenset[str]:
    bugs = frozenset(bugs)
    if not bugs <= set(table):
        raise ValueError(f"unknown bug(s) {sorted(bugs - set(table))}; known: {sorted(table)}")
    return bugs


class _Refusals:
    """The refusals of benchmarkzoo's view bases, written out for test envs that do not use them."""

    bugs: frozenset[str]
    default_id: ClassVar[str]
    _closed = False
    _started = False

    @property
    def env_id(self) -> str:
        spec = getattr(self, "spec", None)
        return spec.id if spec is not None else self.default_id

    @property
    def _named(self) -> str:
        """The env as error messages name it."""
        return "this env" if "anonymous_errors" in self.bugs else self.env_id

    def _start_reset(self, seed: Any, options: Any, *, near_misses_only: bool = False) -> tuple[Any, Any]:
        if self._closed and "reset_after_close" not in self.bugs:
            raise ClosedEnvError(f"{self._named}: reset() called after close(). Make a new env.")
        if "negative_seed" not in self.bugs:
            check_seed(self._named, seed)
        if "misspelt_option" in self.bugs:
            options = options or {}
        else:
            options = check_options(self._named, options, ("scenario",), near_misses_only=near_misses_only)
        self._started = True
        return seed, None if "ignores_scenario" in self.bugs else options.get("scenario")

    def _start_step(self) -> None:
        if self._closed and "step_after_close" not in self.bugs:
            raise ClosedEnvError(f"{self._named}: step() called after close(). Make a new env.")
        if not self._started and "step_before_reset" not in self.bugs:
            raise ResetNeededError(f"{self._named}: call reset() before step().")

    def close(self) -> None:
        self._closed = True


@dataclasses.dataclass(frozen=True, eq=False)
class CounterScenario(Scenario):
    """The counter's first value."""

    kind: ClassVar[str] = "test/counter"
    start: float


@dataclasses.dataclass(frozen=True, eq=False)
class LineScenario(Scenario):
    """Every walker's start and target cell."""

    kind: ClassVar[str] = "test/line"
    starts: tuple
    targets: tuple


class LineParallelEnv(_Refusals, ParallelEnv):
    """Agents walk a line of ``size`` cells to their own target; an agent that arrives leaves.

    Action ``Discrete(3)``: 0 left, 1 stay, 2 right. Observation: ``(position, target) / size``.
    Reward: ``+1`` on arrival, else ``-0.1``. Truncation after ``max_cycles`` steps.
    """

    metadata: ClassVar[dict[str, Any]] = {"name": "line_v0", "render_modes": []}
    default_id = "test/Line-v0"

    def __init__(
        self,
        num_agents: int = 3,
        size: int = 7,
        max_cycles: int = 30,
        skip_action_check: bool = False,
        objectives: int | None = None,
        reward_outside: bool = False,
        bugs: Any = (),
    ):
        self.bugs = _known(bugs, PARALLEL_BUGS)
        self.possible_agents = [f"walker_{i}" for i in range(num_agents)]
        self.agents: list[str] = []
        self.size = size
        self.max_cycles = max_cycles
        self.skip_action_check = skip_action_check
        self.objectives = objectives
        self.reward_outside = reward_outside
        self.render_mode = None
        self.scenario: LineScenario | None = None
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
        high = 2 * self.size if "obs_outside" in self.bugs and self._t >= 3 else 0
        return np.array([self._pos[agent] + high, self._target[agent]], dtype=np.float32) / self.size

    def _reward(self, arrived: bool) -> Any:
        value = 1.0 if arrived else -0.1
        if self.objectives is None:
            return value
        return np.full(self.objectives, 2.0 if self.reward_outside else value, dtype=np.float32)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        seed, scenario = self._start_reset(seed, options, near_misses_only=True)  # PettingZoo probes {"options": 1}
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if scenario is None:
            starts = [int(self._rng.integers(self.size)) for _ in self.possible_agents]
            targets = [int((p + self._rng.integers(1, self.size)) % self.size) for p in starts]
            scenario = LineScenario(starts=tuple(starts), targets=tuple(targets))
        if "no_scenario" not in self.bugs:
            self.scenario = scenario
        self.agents = list(self.possible_agents)
        self._pos = dict(zip(self.agents, scenario.starts))
        self._target = dict(zip(self.agents, scenario.targets))
        self._t = 0
        return {a: self._obs(a) for a in self.agents}, {a: {} for a in self.agents}

    def _check_actions(self, actions: dict[str, Any]) -> None:
        unknown = set(actions) - set(self.agents)
        missing = set(self.agents) - set(actions)
        if (unknown and "unknown_agent" not in self.bugs) or (missing and "missing_agent" not in self.bugs):
            raise InvalidAgentError(
                f"{self._named}: actions must name exactly the live agents {self.agents}; got {sorted(actions)}."
            )
        if not self.skip_action_check:
            for agent in set(actions) & set(self.agents):
                check_action(self._named, self.action_space(agent), actions[agent], who=f"agent {agent!r}")

    def step(self, actions: dict[str, Any]):
        self._start_step()
        self._check_actions(actions)
        self._t += 1
        obs, rewards, terminated, truncated, infos = {}, {}, {}, {}, {}
        for rank, agent in enumerate(a for a in actions if a in self.agents):
            idle = rank == 0 and "order_dependent" in self.bugs  # the bug: the first agent listed idles
            move = 0 if idle else int(actions[agent]) - 1
            self._pos[agent] = int(np.clip(self._pos[agent] + move, 0, self.size - 1))
        for agent in self.agents:
            arrived = self._pos[agent] == self._target[agent]
            obs[agent] = self._obs(agent)
            rewards[agent] = self._reward(arrived)
            terminated[agent] = bool(arrived)
            truncated[agent] = self._t >= self.max_cycles and not arrived
            infos[agent] = {"distance": abs(self._pos[agent] - self._target[agent])}
        if "forgets_info" in self.bugs and infos:
            del infos[self.agents[0]]
        self.agents = [a for a in self.agents if not (terminated[a] or truncated[a])]
        return obs, rewards, terminated, truncated, infos


class MOLineParallelEnv(LineParallelEnv):
    """The line with that reward in each of ``objectives`` objectives, and ``reward_space(agent)`` (a moma env)."""

    def __init__(self, objectives: int = 2, reward_outside: bool = False, **kwargs: Any):
        super().__init__(objectives=objectives, reward_outside=reward_outside, **kwargs)

    @functools.cache  # noqa: B019
    def reward_space(self, agent: str) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, shape=(self.objectives,), dtype=np.float32)


class CounterEnv(_Refusals, gym.Env):
    """A scalar (or, with ``objectives``, vector) reward counter with switchable planted bugs.

    Args:
        leak_after: from this step on the reward draws from NumPy's global, unseeded generator.
        accept_anything: skip the action check.
        objectives: ``None`` for a scalar reward, else the length of a vector reward.
        reward_outside: the vector reward leaves ``reward_space``.
        bugs: names from :data:`SINGLE_BUGS`.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}
    default_id = "test/Counter-v0"

    def __init__(
        self,
        leak_after: int | None = None,
        accept_anything: bool = False,
        objectives: int | None = None,
        reward_outside: bool = False,
        bugs: Any = (),
    ):
        self.bugs = _known(bugs, SINGLE_BUGS)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        if objectives is not None:
            self.reward_space = spaces.Box(0.0, 1.0, shape=(objectives,), dtype=np.float32)
        self.leak_after = leak_after
        self.accept_anything = accept_anything
        self.objectives = objectives
        self.reward_outside = reward_outside
        self.scenario: CounterScenario | None = None
        self._t = 0
        self._x = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        seed, scenario = self._start_reset(seed, options)
        super().reset(seed=seed)
        if scenario is None:
            start = float(np.random.random() if "unseeded_reset" in self.bugs else self.np_random.random())
            scenario = CounterScenario(start=start)
        if "no_scenario" not in self.bugs:
            self.scenario = scenario
        self._t = 0
        self._x = scenario.start
        return np.array([self._x], dtype=np.float32), {}

    def _check(self, action: Any) -> None:
        if self.accept_anything:
            return
        if "assert_actions" in self.bugs:
            assert self.action_space.contains(action), f"{action!r} ({type(action)}) invalid"
        else:
            check_action(self._named, self.action_space, action)

    def step(self, action: Any):
        self._start_step()
        self._check(action)
        self._t += 1
        self._x = float(self.np_random.random())
        value = self._x
        if self.leak_after is not None and self._t >= self.leak_after:
            value = float(np.random.random())  # the planted bug: unseeded randomness
        if self.objectives is None:
            reward: Any = value
        else:
            reward = np.full(self.objectives, 2.0 if self.reward_outside else value, dtype=np.float32)
            reward = reward.tolist() if "list_reward" in self.bugs else reward
        x = self._x + (2.0 if "obs_outside" in self.bugs and self._t >= 3 else 0.0)
        obs = np.array([x], dtype=np.float32)
        if "old_step_api" in self.bugs:
            return obs, reward, self._t >= 20, {"t": self._t}
        return obs, reward, False, self._t >= 20, {"t": self._t}
