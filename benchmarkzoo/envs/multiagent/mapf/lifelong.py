"""``benchmarkzoo/MAPF-Lifelong-v0``: lifelong MAPF, thin views on the MAPF simulator in lifelong mode.

The parallel env is :class:`~benchmarkzoo.envs.multiagent.mapf.env.MapfEnv` and the native vector
env :class:`~benchmarkzoo.envs.multiagent.mapf.vector_env.MapfVectorEnv` with ``lifelong = True``
(``sim.Params.lifelong``): the rules of movement and conflicts are MAPF-v0's, only arrival differs.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from benchmarkzoo.core.config import arg, number
from benchmarkzoo.envs.multiagent.mapf import sim
from benchmarkzoo.envs.multiagent.mapf.env import MapfConfig, MapfEnv
from benchmarkzoo.envs.multiagent.mapf.generator import LifelongMapfGenerator
from benchmarkzoo.envs.multiagent.mapf.vector_env import MapfVectorEnv
from benchmarkzoo.generators.base import Generator

#: Keys added to every agent's info on the step its world's episode ends.
METRIC_KEYS = ("goals_reached", "throughput")


class LifelongMapfConfig(MapfConfig):
    """The arguments of MAPF-Lifelong-v0 (both forms): MAPF-v0's, with a lifelong generator and no step cost."""

    generator: str | Generator = "mapf/lifelong"
    step_reward: float = arg(default=0.0, check=number())

    generator_type: ClassVar[type] = LifelongMapfGenerator
    generator_needs: ClassVar[str] = "a lifelong MAPF generator"
    lifelong: ClassVar[bool] = True


def check_goals(env_id: str, generator: LifelongMapfGenerator, max_cycles: int | None) -> None:
    """No agent may run out of goals: ``goals_per_agent >= max_cycles`` (so a lifelong episode needs a limit)."""
    if max_cycles is None:
        raise ValueError(
            f"{env_id}: max_cycles must be a positive integer; got None. A lifelong episode has a time limit: "
            f"each agent has goals_per_agent ({generator.goals_per_agent}) goals."
        )
    if generator.goals_per_agent < max_cycles:
        raise ValueError(
            f"{env_id}: goals_per_agent ({generator.goals_per_agent}) must be at least max_cycles ({max_cycles}), "
            "so that no agent can run out of goals."
        )


class LifelongMapfEnv(MapfEnv):
    """Lifelong multi-agent pathfinding: every agent gets a new goal each time it reaches one.

    ## Description

    The map, moves, partial views and conflict rules are those of ``benchmarkzoo/MAPF-v0``
    (:class:`~benchmarkzoo.envs.multiagent.mapf.env.MapfEnv`): ``N`` agents move one cell per
    step on a grid with obstacles; vertex conflicts let the lowest index move, swaps are refused.
    What changes is arrival, as in POGEMA's lifelong MAPF: an agent that reaches its goal is
    **given its next goal at once** and stays on the grid (it is never terminated and keeps
    blocking cells). The episode ends only at the time limit.

    The goals are part of the scenario (a ``LifelongMapfScenario``): the map, starts and first
    goals are those of a MAPF generator (``base``), followed by ``goals_per_agent`` later goals
    per agent, each uniform among the free cells of the agent's start component other than its
    previous goal, drawn from the same seeded ``rng``. So the whole episode is a pure function of
    the scenario and the actions, and the scenario of ``reset(seed=s)`` is ``generator.sample(s)``.

    ## Action Space

    ``Discrete(5)`` per agent: 0 stay, 1 up, 2 right, 3 down, 4 left, as in MAPF-v0. Every agent
    acts on every step; unknown or missing agents and invalid actions raise as in MAPF-v0.

    ## Observation Space

    As MAPF-v0: ``view`` ``Box(0, 1, (3, V, V), float32)`` (obstacles, other agents, own
    *current* goal) and ``goal_direction`` ``Box(-1, 1, (2,), float32)`` towards the current
    goal. The observation returned with an arrival already shows the new goal.

    ## Rewards

    ``goal_reward`` (1.0) on each step an agent reaches its current goal, ``step_reward``
    (0.0 by default) on every other step.

    ## Episode End

    * Termination: never.
    * Truncation: after ``max_cycles`` steps (128 in the registered spec) every agent is truncated.
    * ``info["is_success"]`` is ``True`` on the steps an agent reaches a goal.
    * On the last step every agent's info also holds ``goals_reached`` (all agents together)
      and ``throughput`` (``goals_reached / steps``, goals per step).

    ## Arguments

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/MAPF-Lifelong-v0", generator="mapf/lifelong",
                               generator_kwargs={"base": "mapf/obstacles",
                                                 "base_kwargs": {"height": 16, "width": 16,
                                                                 "num_agents": 8, "density": 0.2},
                                                 "goals_per_agent": 128},
                               view_radius=5, step_reward=0.0, goal_reward=1.0, max_cycles=128,
                               render_mode=None)
    ```

    * ``generator``: ``"mapf/lifelong"`` or a ``LifelongMapfGenerator``; ``base`` names any
      MAPF-v0 generator (``"mapf/obstacles"``, ``"mapf/maze"``, ``"mapf/movingai"``) and
      ``base_kwargs`` its arguments. ``goals_per_agent`` must be at least ``max_cycles``.
    * ``reset(options={"scenario": s})`` plays the given ``LifelongMapfScenario``.

    The native multi-world form is ``benchmarkzoo.make_vec("benchmarkzoo/MAPF-Lifelong-v0", num_envs)``
    (:class:`LifelongMapfVectorEnv`), equal world by world to this env seeded ``seed + i``. The
    baseline, :class:`~benchmarkzoo.envs.multiagent.mapf.baseline.LifelongPlanningPolicy`,
    replans with prioritized planning whenever an agent gets a new goal.

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.mapf.lifelong import LifelongMapfEnv
    >>> from benchmarkzoo.envs.multiagent.mapf.generator import LifelongMapfGenerator
    >>> gen = LifelongMapfGenerator(base_kwargs={"height": 8, "width": 8, "num_agents": 2}, goals_per_agent=16)
    >>> env = LifelongMapfEnv(generator=gen, max_cycles=16)
    >>> observations, infos = env.reset(seed=0)
    >>> env.scenario.goal_sequence.shape
    (2, 16, 2)
    >>> for _ in range(16):
    ...     observations, rewards, terminations, truncations, infos = env.step({"agent_0": 0, "agent_1": 0})
    >>> env.agents, truncations["agent_0"], terminations["agent_0"]
    ([], True, False)
    >>> infos["agent_0"]["goals_reached"], infos["agent_0"]["throughput"]
    (0, 0.0)
    """

    metadata = {
        "name": "mapf_lifelong_v0",
        "render_modes": ["rgb_array", "human"],
        "render_fps": 8,
        "is_parallelizable": True,
    }
    config_type = LifelongMapfConfig
    generator: LifelongMapfGenerator
    metric_keys = METRIC_KEYS

    def _setup(self) -> None:
        check_goals(self.env_id, self.generator, self.max_cycles)
        super()._setup()

    def _episode_metrics(self) -> dict[str, np.ndarray]:
        return sim.lifelong_metrics(self.sim_state)


class LifelongMapfVectorEnv(MapfVectorEnv):
    """``num_envs`` MAPF-Lifelong-v0 worlds stepped together; see :class:`LifelongMapfEnv`.

    The batched API is :class:`~benchmarkzoo.envs.multiagent.mapf.vector_env.MapfVectorEnv`'s;
    terminations are always ``False``, ``infos["is_success"]`` ``(B, N)`` marks the agents that
    reached a goal on the step, and the episode metrics are ``goals_reached`` and ``throughput``,
    each ``(B,)``, for the worlds whose episode ended (masks ``_goals_reached``, ``_throughput``).
    World ``i`` equals :class:`LifelongMapfEnv` reset with ``seed + i``, bit for bit.
    """

    config_type = LifelongMapfConfig
    generator: LifelongMapfGenerator

    def _setup(self) -> None:
        check_goals(self.env_id, self.generator, self.max_cycles)
        super()._setup()

    def _end_info(self) -> dict[str, np.ndarray]:
        return sim.lifelong_metrics(self.sim_state)
