"""Linear-weighting planner: the MO-Treasure baseline, and a way to trace the convex part of the front.

It is privileged: it reads each world's sea from the simulator instead of the observation,
picks the treasure whose (discounted) return maximizes ``weights @ return`` among those
reachable within the time limit, and sails a shortest path to it. Its return is therefore
exactly the Pareto point :func:`~benchmarkzoo.envs.gridworld.treasure.pareto.pareto_front`
lists for that treasure. Sweeping ``weights`` traces the convex coverage set; the concave
part of a front is out of reach of any linear weighting, by definition.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from benchmarkzoo.envs.gridworld.treasure.generator import TreasureScenario
from benchmarkzoo.envs.gridworld.treasure.pareto import treasure_returns
from benchmarkzoo.generators.grids import bfs_distances, downhill_move

#: Equal weight on treasure value and time: on the classic convex map it goes to 15.1 or 16.1
#: (both score 7.1 per weight unit; the tie goes to the larger value, 16.1 in 9 steps).
DEFAULT_WEIGHTS = (0.5, 0.5)


class LinearWeightPlanner:
    """Sails a shortest path to the treasure with the best ``weights @ return``.

    Works on a :class:`~benchmarkzoo.envs.gridworld.treasure.env.TreasureEnv` (returns an int)
    or a :class:`~benchmarkzoo.envs.gridworld.treasure.vector_env.TreasureVectorEnv` (returns
    ``(B,)`` int64). Ties go to the larger treasure value, then to the shorter time, so the chosen
    return is always Pareto-optimal (even with a zero weight).

    Args:
        weights: ``(value weight, time weight)``, non-negative, not both zero.
        gamma: discount factor the returns are weighted under, in ``(0, 1]``.
        max_steps: time limit; ``None`` reads the env's (``env.spec.max_episode_steps`` of the
            env as passed, or the native vector env's ``max_episode_steps``).
        cache_size: plans kept, keyed by scenario hash (one per world is enough).
    """

    def __init__(
        self,
        weights: tuple[float, float] = DEFAULT_WEIGHTS,
        gamma: float = 1.0,
        max_steps: int | None = None,
        cache_size: int = 8192,
    ):
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (2,) or not np.isfinite(w).all() or (w < 0).any() or not w.any():
            raise ValueError(f"weights must be two non-negative numbers, not both zero; got {weights!r}.")
        self.weights = w
        self.gamma = gamma
        self.max_steps = max_steps
        self.cache_size = cache_size
        self._plans: OrderedDict[tuple[str, int | None], tuple[int, np.ndarray | None]] = OrderedDict()

    def target(self, scenario: TreasureScenario, max_steps: int | None) -> int:
        """Index of the treasure this planner sails to in ``scenario`` (``-1``: none within reach)."""
        indices, returns = treasure_returns(scenario, self.gamma, max_steps)
        if len(indices) == 0:
            return -1
        scores = returns @ self.weights
        best = max(range(len(indices)), key=lambda k: (scores[k], returns[k, 0], returns[k, 1]))
        return int(indices[best])

    def _plan(self, scenario: TreasureScenario, max_steps: int | None) -> np.ndarray | None:
        key = (scenario.content_hash, max_steps)
        plan = self._plans.get(key)
        if plan is None:
            k = self.target(scenario, max_steps)
            dist = None
            if k >= 0:
                walls = np.array(scenario.rock)  # other treasures end the episode: route around them
                others = np.delete(scenario.treasure_pos, k, axis=0)
                walls[others[:, 0], others[:, 1]] = True
                row, col = scenario.treasure_pos[k]
                dist = bfs_distances(walls, (int(row), int(col)))
            plan = (k, dist)
            self._plans[key] = plan
            if len(self._plans) > self.cache_size:
                self._plans.popitem(last=False)
        return plan[1]

    def act_world(self, scenario: TreasureScenario, cell: int, max_steps: int | None) -> int:
        """The action that takes the submarine on flat cell ``cell`` one step closer to its target."""
        dist = self._plan(scenario, max_steps)
        if dist is None:
            return 0
        row, col = divmod(int(cell), dist.shape[1])
        return downhill_move(dist, row, col)

    def __call__(self, env) -> int | np.ndarray:
        """The action for ``env``'s current state: an int, or ``(num_envs,)`` int64 for a native vector env."""
        outer_spec = getattr(env, "spec", None)  # the unwrapped env's spec has no time limit
        env = getattr(env, "unwrapped", env)
        if hasattr(env, "scenarios"):  # the native vector env
            limit = self.max_steps if self.max_steps is not None else env.max_episode_steps
            return np.array(
                [self.act_world(s, env.state.pos[i], limit) for i, s in enumerate(env.scenarios)], dtype=np.int64
            )
        limit = self.max_steps
        if limit is None and outer_spec is not None:
            limit = outer_spec.max_episode_steps
        return self.act_world(env.scenario, env.state.pos[0], limit)
