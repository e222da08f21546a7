"""A scripted foraging team: the Foraging-v0 baseline (in the spirit of LBF's heuristic agents).

Each agent picks a target food item every step:

* the nearest item (Manhattan distance, ties to the lower index) it can collect alone
  (level at most its own), if any is left;
* otherwise the item nearest to the centre of the whole team, the same for every agent
  that has no solo target, so weak agents gather where strong ones will join them once the
  easy items are gone.

It then walks to the free cell next to its target that is nearest to it (a greedy step that
reduces the larger coordinate difference first, the other one if that cell is taken) and
loads once it stands next to the target. The policy reads the simulator (privileged: every
agent and item, not only its view), as the MAPF and Navigation baselines do.

Measured on ``scenarios/multiagent/foraging.yaml`` with the registered defaults (``max_cycles=50``,
every seed of each tier; ``tests/envs/multiagent/test_foraging.py`` asserts a floor on ``test``).
Food collected: fraction of the items collected per episode; all collected: episodes where
every item was. Uniform random actions beside it.

| tier | policy | food collected | all collected |
|---|---|---:|---:|
| train (8x8, 3 agents, 4 food, first 100 seeds) | this baseline | 0.863 | 0.70 |
| test (8x8, 3 agents, 4 food, 100 seeds) | this baseline | 0.838 | 0.58 |
| test | uniform random actions | 0.217 | 0.00 |
| ood (12x12, 6 agents, 8 food) | this baseline | 0.449 | 0.05 |
| ood-coop (8x8, 3 agents, 4 food, cooperative) | this baseline | 0.632 | 0.41 |
| MO-Foraging-v0 test (2 food types) | this baseline | 0.880 | 0.66 |

The ood tier is hard for it within 50 steps: the map is larger and six agents crowd the
four cells around each item.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.envs.multiagent.foraging import sim

NONE, UP, RIGHT, DOWN, LEFT, LOAD = range(6)


def _step_towards(here: tuple[int, int], goal: tuple[int, int], free: np.ndarray) -> tuple[int, tuple[int, int]]:
    """A move from ``here`` onto a free cell towards ``goal``, with its target cell.

    The move brings the agent closer to ``goal`` (the axis with the larger difference first, rows
    on a tie), else it is a free sideways move, else ``NONE``.
    """
    d_row, d_col = goal[0] - here[0], goal[1] - here[1]
    closer, sideways = [], []
    for delta, action_pos, action_neg, axis in ((d_row, DOWN, UP, 0), (d_col, RIGHT, LEFT, 1)):
        step = 1 if delta > 0 else -1
        cell = (here[0] + step, here[1]) if axis == 0 else (here[0], here[1] + step)
        if delta:
            closer.append((abs(delta), action_pos if step > 0 else action_neg, cell))
        else:
            sideways += [
                (action_pos, (here[0] + 1, here[1]) if axis == 0 else (here[0], here[1] + 1)),
                (action_neg, (here[0] - 1, here[1]) if axis == 0 else (here[0], here[1] - 1)),
            ]
    closer.sort(key=lambda move: -move[0])  # stable: rows first on a tie
    for action, cell in [(action, cell) for _, action, cell in closer] + sideways:
        if free[cell]:
            return action, cell
    return NONE, here


def act_world(state: sim.State, world: int, params: sim.Params) -> np.ndarray:
    """``(N,)`` int64 actions of the scripted team in world ``world``.

    Agents decide in index order and claim the cells they head for and step into, so no two
    of them ever target the same cell (the move rule would stop both, every step).
    """
    r, cols = params.view_radius, params.padded_shape[1]
    agents = state.agents[world, r : r + params.height, r : r + params.width]
    food = state.food[world, r : r + params.height, r : r + params.width]
    free = np.zeros((params.height + 2, params.width + 2), dtype=bool)  # padded by one: the border is not free
    free[1:-1, 1:-1] = (agents == 0) & (food == 0)
    items = np.argwhere(food > 0)  # (K, 2) row-major order
    actions = np.zeros(params.num_agents, dtype=np.int64)
    if items.size == 0:
        return actions
    levels = food[items[:, 0], items[:, 1]]
    cells = state.cell[world]
    pos = np.stack([cells // cols - r, cells % cols - r], axis=1) + 1  # (N, 2) in the padded-by-one frame
    items = items + 1
    centre = pos.mean(axis=0)
    shared = int(np.argmin(np.abs(items - centre).sum(axis=1)))
    spots_taken: set[tuple[int, int]] = set()
    for k in range(params.num_agents):
        here = (int(pos[k, 0]), int(pos[k, 1]))
        distance = np.abs(items - pos[k]).sum(axis=1)
        solo = np.flatnonzero(levels <= state.levels[world, k])
        target = int(solo[np.argmin(distance[solo])]) if solo.size else shared
        if distance[target] == 1:
            actions[k] = LOAD
            continue
        row, col = (int(x) for x in items[target])
        spots = [(row + dr, col + dc) for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1))]
        spots = [s for s in spots if free[s] and s not in spots_taken]
        if not spots:
            continue
        goal = min(spots, key=lambda s: abs(s[0] - here[0]) + abs(s[1] - here[1]))
        spots_taken.add(goal)
        actions[k], cell = _step_towards(here, goal, free)
        free[cell] = False  # claimed: later agents do not step into it
    return actions


class GreedyForagingPolicy:
    """The scripted team (module docstring).

    Works on a :class:`~benchmarkzoo.envs.multiagent.foraging.env.ForagingEnv` (returns an action dict
    for ``env.agents``) or a :class:`~benchmarkzoo.envs.multiagent.foraging.vector_env.ForagingVectorEnv`
    (returns ``(B, N)`` int64).
    """

    def __call__(self, env: Any) -> dict[str, int] | np.ndarray:
        """The actions for ``env``'s current state: a dict per agent, or ``(num_envs, N)`` for a native vector env."""
        state, params = env.sim_state, env.params
        if hasattr(env, "num_envs"):
            return np.stack([act_world(state, i, params) for i in range(env.num_envs)])
        actions = act_world(state, 0, params)
        return {agent: int(actions[env.possible_agents.index(agent)]) for agent in env.agents}
