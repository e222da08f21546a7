"""``benchmarkzoo/MO-MAPF-v0``: MAPF-v0 with per-agent vector rewards (MOMAland-style ``moma`` kind).

The parallel env is :class:`~benchmarkzoo.envs.multiagent.mapf.env.MapfEnv` and the native vector
env :class:`~benchmarkzoo.envs.multiagent.mapf.vector_env.MapfVectorEnv` with a vector reward
(:func:`~benchmarkzoo.envs.multiagent.mapf.sim.objective_rewards`): maps, moves, conflicts,
arrivals, observations and episode ends are MAPF-v0's, only the reward differs.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.core.config import default_of
from benchmarkzoo.envs.multiagent.mapf import sim
from benchmarkzoo.envs.multiagent.mapf.env import MapfConfig, MapfEnv
from benchmarkzoo.envs.multiagent.mapf.vector_env import MapfVectorEnv
from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveAgents, MultiObjectiveWorlds

OBJECTIVES = sim.OBJECTIVES


class MOMapfConfig(MapfConfig):
    """The arguments of MO-MAPF-v0 (both forms): MAPF-v0's without the scalar rewards.

    The objectives replace the scalar rewards, which keep MAPF-v0's values in ``sim.Params``.
    """

    # A variant fixes a base argument as a ClassVar (core/config.py, default_of): the config removes that
    # argument on purpose, which mypy reports as an instance variable overridden by a class variable.
    step_reward: ClassVar[float] = default_of(MapfConfig, "step_reward")  # type: ignore[misc]
    goal_reward: ClassVar[float] = default_of(MapfConfig, "goal_reward")  # type: ignore[misc]


def mo_reward_space() -> spaces.Box:
    """One agent's reward space: ``arrival`` in ``[0, 1]``, ``energy`` and ``waiting`` in ``[-1, 0]``."""
    return spaces.Box(
        low=np.array([0.0, -1.0, -1.0], dtype=np.float32),
        high=np.array([1.0, 0.0, 0.0], dtype=np.float32),
        dtype=np.float32,
    )


class MOMapfEnv(MultiObjectiveAgents, MapfEnv):
    """Multi-objective multi-agent pathfinding: arrive, but spend little energy and wait little.

    ## Description

    ``benchmarkzoo/MAPF-v0``'s maps, moves, conflict rules, partial views and arrivals (see
    :class:`~benchmarkzoo.envs.multiagent.mapf.env.MapfEnv`): ``N`` agents move one cell per step
    to their own goals; an arrived agent is terminated and leaves the grid. Each agent's reward
    is a vector of three objectives instead of one number. Reaching the goal pays; every step on
    the grid costs either energy (the agent changed cell) or waiting time (it did not). An agent
    that never moves spends no energy but waits the whole episode and never arrives; a detour
    around a congested corridor costs energy, waiting for it to clear costs time. How a team
    trades these is the multi-objective question.

    ## Rewards

    ``reward_space(agent)`` is ``Box([0, -1, -1], [1, 0, 0], (3,), float32)``; each reward is a
    ``(3,)`` float32 array, objectives in order:

    | Index | Objective | Per step |
    |-------|-----------|----------|
    | 0 | ``arrival`` | ``1`` on the step the agent reaches its goal |
    | 1 | ``energy`` | ``-1`` on a step the agent changes cell (the arriving move too) |
    | 2 | ``waiting`` | ``-1`` on a step the agent keeps its cell (it chose "stay", bumped, or lost a conflict) |

    So over an episode ``-(energy + waiting)`` is the number of steps the agent spent on the
    grid (its cost in the sum of costs), ``arrival`` is ``1`` for agents that arrived. MAPF-v0's
    scalar reward is close to the weights ``(1, 0.01, 0.01)`` (it does not charge the arriving
    step); :class:`~benchmarkzoo.wrappers.LinearScalarization` applies any such weights, per agent
    if wanted.

    ## Arguments

    As MAPF-v0 without ``step_reward`` and ``goal_reward``:

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/MO-MAPF-v0", generator="mapf/obstacles",
                               generator_kwargs={"height": 16, "width": 16, "num_agents": 8, "density": 0.2},
                               view_radius=5, max_cycles=128, render_mode=None)
    ```

    The scenarios are MAPF-v0's (the registered env plays the ``multiagent/mapf`` scenario set),
    and so is the baseline (prioritized planning: it minimizes the sum of costs, so it is on the
    ``arrival``-first end of the trade-off). The native multi-world form is
    ``benchmarkzoo.make_vec("benchmarkzoo/MO-MAPF-v0", num_envs)`` (:class:`MOMapfVectorEnv`).

    ## Version History

    * v0: Initial version.

    ## Example

    >>> import numpy as np
    >>> from benchmarkzoo.envs.multiagent.mapf.generator import MapfScenario, ObstacleMapGenerator
    >>> from benchmarkzoo.envs.multiagent.mapf.mo import MOMapfEnv
    >>> scenario = MapfScenario(walls=np.zeros((3, 3), dtype=bool), starts=[[0, 0], [2, 2]], goals=[[0, 1], [2, 0]])
    >>> env = MOMapfEnv(generator=ObstacleMapGenerator(height=3, width=3, num_agents=2, density=0.0))
    >>> _ = env.reset(seed=0, options={"scenario": scenario})
    >>> env.reward_space("agent_0")
    Box([ 0. -1. -1.], [1. 0. 0.], (3,), float32)
    >>> _, rewards, terminations, _, _ = env.step({"agent_0": 2, "agent_1": 0})  # agent_0 steps right onto its goal
    >>> rewards["agent_0"].tolist(), rewards["agent_1"].tolist(), terminations["agent_0"]
    ([1.0, -1.0, 0.0], [0.0, 0.0, -1.0], True)
    """

    metadata = {**MapfEnv.metadata, "name": "mo_mapf_v0"}
    config_type = MOMapfConfig

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space()

    def _advance(self) -> tuple[np.ndarray, np.ndarray]:
        state = self.sim_state
        acting, before = state.active.copy(), state.pos.copy()
        _, arrived = sim.step(state, self._actions, self.params)
        return sim.objective_rewards(acting, before, state.pos, arrived), arrived

    def _reward_row(self, rewards: np.ndarray) -> list[np.ndarray]:
        return list(rewards[0])  # one (3,) array per agent slot: views of an array nobody else holds


class MOMapfVectorEnv(MultiObjectiveWorlds, MapfVectorEnv):
    """``num_envs`` MO-MAPF-v0 worlds stepped together; see :class:`MOMapfEnv`.

    The batched API is :class:`~benchmarkzoo.envs.multiagent.mapf.vector_env.MapfVectorEnv`'s, with
    rewards ``(B, N, 3)`` float32 (``arrival``, ``energy``, ``waiting``), zero for agents outside
    ``infos["present"]``. ``single_reward_space`` is every agent's reward space. World ``i``
    equals :class:`MOMapfEnv` reset with ``seed + i``, bit for bit.
    """

    config_type = MOMapfConfig

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space()

    def _advance(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        state = self.sim_state
        acting, before = state.active.copy(), state.pos.copy()
        _, arrived = sim.step(state, actions, self.params)
        return sim.objective_rewards(acting, before, state.pos, arrived), arrived
