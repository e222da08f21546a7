"""A scripted focus-fire team: the MicroCombat-v0 baseline (SMAC's classic heuristic).

Every step the team picks one target, the live enemy unit nearest the centre of our live units
(lowest index on a tie). Each of our units then

* attacks the team target if it is within the unit's attack range;
* else attacks the weakest enemy unit within its range (lowest health, then lowest index);
* else moves one step towards the team target, along the axis with the larger distance.

Attacking during the cooldown holds the unit in place, so units that reached the fight stay
there. Every action it sends is legal (its choices are the action mask's). The policy reads
the simulator (privileged: every unit, not only what each agent sees), as the other
multi-agent baselines do.

Win rates on ``scenarios/multiagent/micro-combat.yaml`` (``bench/bench_combat.py --win-rates``; every
seed of each split; uniformly random legal actions beside it; ``tests/envs/multiagent/test_combat.py``
asserts a floor on 30 test seeds): train 0.47, test 0.48 (random 0.00), ood (10 vs 10) 0.35,
3m 0.32, 5m_vs_6m 0.00, 2s3z 0.32. Against the enemy's ``focus`` script a symmetric line-up is a
mirror match that ends in a draw (both armies die on the same step).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.envs.multiagent.combat import sim, units


def focus_fire(state: sim.State, params: sim.Params) -> np.ndarray:
    """``(B, N)`` int64 actions of the scripted team in every world (``no-op`` for dead units)."""
    n = params.num_allies
    pos, alive = state.pos, state.alive
    ours, theirs = alive[:, :n], alive[:, n:]  # (B, N), (B, E)
    count = np.maximum(ours.sum(axis=1), 1)[:, None]  # (B, 1)
    total = np.zeros((pos.shape[0], 2))
    for k in range(n):  # a fixed order of additions: the same numbers in any batch size
        total += pos[:, k] * ours[:, k, None]
    centre = total / count  # (B, 2)
    from_centre = np.where(theirs, sim.norm2(pos[:, n:] - centre[:, None]), np.inf)  # (B, E)
    team = np.argmin(from_centre, axis=1)  # (B,)
    distance = sim.norm2(pos[:, None, n:] - pos[:, :n, None])  # (B, N, E)
    in_range = theirs[:, None] & (distance <= units.ATTACK_RANGE[state.kind[:, :n]][..., None])
    team_in_range = np.take_along_axis(in_range, team[:, None, None].repeat(n, axis=1), axis=2)[..., 0]  # (B, N)
    weakest = np.argmin(np.where(in_range, state.health[:, None, n:], np.inf), axis=2)  # (B, N)
    target = np.where(team_in_range, team[:, None], weakest)
    approach = pos[np.arange(pos.shape[0]), n + team][:, None] - pos[:, :n]  # (B, N, 2)
    actions = np.where(in_range.any(axis=2), sim.ATTACK + target, sim.move_towards(approach))
    # any(axis=...) of an array is an array; numpy's stubs type it ``bool | ndarray``
    actions = np.where(theirs.any(axis=1)[:, None], actions, sim.STOP)  # type: ignore[index]
    return np.where(ours, actions, sim.NOOP).astype(np.int64)


class FocusFirePolicy:
    """The scripted team (module docstring).

    Works on a :class:`~benchmarkzoo.envs.multiagent.combat.env.MicroCombatEnv` (returns an action
    dict for ``env.agents``) or a :class:`~benchmarkzoo.envs.multiagent.combat.vector_env.MicroCombatVectorEnv`
    (returns ``(B, N)`` int64).
    """

    def __call__(self, env: Any) -> dict[str, int] | np.ndarray:
        """The actions for ``env``'s current state: a dict per agent, or ``(num_envs, N)`` for a native vector env."""
        actions = focus_fire(env.sim_state, env.params)
        if hasattr(env, "num_envs"):
            return actions
        return {agent: int(actions[0, env.possible_agents.index(agent)]) for agent in env.agents}
