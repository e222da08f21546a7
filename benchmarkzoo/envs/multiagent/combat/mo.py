"""``benchmarkzoo/MO-MicroCombat-v0``: MicroCombat-v0 with two objectives per agent, damage dealt and units kept.

The views are :class:`~benchmarkzoo.envs.multiagent.combat.env.MicroCombatEnv` and
:class:`~benchmarkzoo.envs.multiagent.combat.vector_env.MicroCombatVectorEnv` with a vector
reward (:func:`~benchmarkzoo.envs.multiagent.combat.sim.objective_rewards`): armies, rules,
the scripted enemy, masks, observations and episode ends are MicroCombat-v0's, only the reward
differs. Its arguments are MicroCombat-v0's (that env has no reward arguments), so the config is
the same class.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from typing_extensions import override

from benchmarkzoo.envs.multiagent.combat import sim
from benchmarkzoo.envs.multiagent.combat.env import MicroCombatEnv
from benchmarkzoo.envs.multiagent.combat.vector_env import MicroCombatVectorEnv
from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveAgents, MultiObjectiveWorlds

OBJECTIVES = sim.OBJECTIVES


def mo_reward_space() -> spaces.Box:
    """One agent's reward space: ``damage_dealt`` in ``[0, 1]``, ``units_kept`` in ``[-1, 0]``."""
    return spaces.Box(np.array([0.0, -1.0], dtype=np.float32), np.array([1.0, 0.0], dtype=np.float32), dtype=np.float32)


class MOMicroCombatEnv(MultiObjectiveAgents, MicroCombatEnv):
    """Multi-objective MicroCombat: destroy the enemy army, but keep your own units alive.

    ## Description

    ``benchmarkzoo/MicroCombat-v0``'s armies, unit types, scripted enemy, action masks,
    observations and episode ends (see :class:`~benchmarkzoo.envs.multiagent.combat.env.MicroCombatEnv`),
    with two objectives instead of SMAC's shaped scalar reward. Pressing an attack deals damage
    but exposes units to the enemy's fire; holding back keeps units alive and deals nothing; a
    unit that retreats while its weapon cools down trades a little damage for survival. Where a
    team stands between these is the multi-objective question (SMAC's reward counts only the
    first: damage taken costs nothing there).

    ## Rewards

    ``reward_space(agent)`` is ``Box([0, -1], [1, 0], (2,), float32)``; each reward is a ``(2,)``
    float32 array:

    | Index | Objective | Per step |
    |-------|-----------|----------|
    | 0 | ``damage_dealt`` | enemy health the team removed (capped per unit) / the enemy army's health |
    | 1 | ``units_kept`` | ``-1`` on the step this agent's unit dies, else ``0`` |

    ``damage_dealt`` is the team's, the same for every agent; ``units_kept`` the agent's own.

    An agent's ``damage_dealt`` sums, over the steps it is alive, to at most 1 (exactly 1 for
    the agents alive at a win); the team's ``units_kept`` sums to minus the units lost (so
    ``N * (allies_alive - 1)``). SMAC's kill and win bonuses are left out: they reward the first
    objective twice. :class:`~benchmarkzoo.wrappers.LinearScalarization` applies any weights.

    ## Arguments

    As MicroCombat-v0:

    ```python
    benchmarkzoo.make_parallel("benchmarkzoo/MO-MicroCombat-v0", generator="combat/random",
                               generator_kwargs={"num_allies": 5, "num_enemies": 5}, illegal_actions="stop",
                               max_cycles=100, render_mode=None)
    ```

    The scenarios are MicroCombat-v0's (``multiagent/micro-combat``), and so is the baseline
    (``FocusFirePolicy``: it wins about half of the test scenarios; it fights, so it sits at the
    ``damage_dealt`` end of the trade-off). The AEC form is ``benchmarkzoo.make_aec`` (vector
    rewards); the native multi-world form ``benchmarkzoo.make_vec("benchmarkzoo/MO-MicroCombat-v0",
    num_envs)`` (:class:`MOMicroCombatVectorEnv`).

    ## Version History

    * v0: Initial version.

    ## Example

    >>> from benchmarkzoo.envs.multiagent.combat.generator import CombatScenario, RandomCombatGenerator
    >>> from benchmarkzoo.envs.multiagent.combat.mo import MOMicroCombatEnv
    >>> env = MOMicroCombatEnv(generator=RandomCombatGenerator(num_allies=1, num_enemies=1))
    >>> scenario = CombatScenario(map_size=32.0, ally_types=[0], ally_pos=[[10.0, 16.0]], enemy_types=[0],
    ...                           enemy_pos=[[14.0, 16.0]], enemy_strategy="closest")  # a marine each, 4 apart
    >>> _ = env.reset(seed=0, options={"scenario": scenario})
    >>> env.reward_space("agent_0")
    Box([ 0. -1.], [1. 0.], (2,), float32)
    >>> _, rewards, _, _, _ = env.step({"agent_0": 6})  # both fire: 6 of the enemy's 45 health
    >>> [round(float(x), 6) for x in rewards["agent_0"]], rewards["agent_0"].dtype
    ([0.133333, 0.0], dtype('float32'))
    """

    metadata = {**MicroCombatEnv.metadata, "name": "mo_micro_combat_v0"}

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space()

    @override
    def _advance(self) -> tuple[Any, np.ndarray, np.ndarray]:
        before = self.sim_state.health.copy()
        _, died, done, _ = sim.step(self.sim_state, self._actions, self.params)
        return sim.objective_rewards(self.sim_state, before, died, self.params)[0], died, done

    @override
    def _reward_of(self, reward: Any, unit: int) -> Any:
        return reward[unit]  # a view of a fresh (N, 2) array: each agent its own row


class MOMicroCombatVectorEnv(MultiObjectiveWorlds, MicroCombatVectorEnv):
    """``num_envs`` MO-MicroCombat-v0 worlds; rewards ``(B, N, 2)`` float32 (damage dealt, units kept).

    The batched API is :class:`~benchmarkzoo.envs.multiagent.combat.vector_env.MicroCombatVectorEnv`'s;
    rewards are zero for agents that did not act. World ``i`` equals :class:`MOMicroCombatEnv`
    reset with ``seed + i``, bit for bit.
    """

    @override
    def _objective_space(self) -> spaces.Box:
        return mo_reward_space()

    @override
    def _advance(self, actions: np.ndarray, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        before = self.sim_state.health.copy()
        _, died, done, _ = sim.step(self.sim_state, actions, self.params)
        rewards = sim.objective_rewards(self.sim_state, before, died, self.params)
        rewards[~acting] = 0.0
        return rewards, died, done
