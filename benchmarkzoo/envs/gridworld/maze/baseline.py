"""Shortest-path planner: the Maze baseline, an upper reference for learned policies.

It is privileged: it reads each world's map from the simulator instead of the observation,
so it walks a shortest path to the goal and its success rate on reachable goals is 1.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from benchmarkzoo.envs.gridworld.maze.generator import MazeScenario
from benchmarkzoo.generators.grids import bfs_distances, downhill_move


class ShortestPathPolicy:
    """Moves along a shortest path to the goal, from the goal's BFS distance map.

    Works on a :class:`~benchmarkzoo.envs.gridworld.maze.env.MazeEnv` (returns an int) or a
    :class:`~benchmarkzoo.envs.gridworld.maze.vector_env.MazeVectorEnv` (returns ``(B,)`` int64).

    Args:
        cache_size: distance maps kept, keyed by scenario hash (one per world is enough).
    """

    def __init__(self, cache_size: int = 8192):
        self.cache_size = cache_size
        self._distances: OrderedDict[str, np.ndarray] = OrderedDict()

    def _distance_map(self, scenario: MazeScenario) -> np.ndarray:
        key = scenario.content_hash
        dist = self._distances.get(key)
        if dist is None:
            dist = bfs_distances(np.asarray(scenario.walls), scenario.goal)
            self._distances[key] = dist
            if len(self._distances) > self.cache_size:
                self._distances.popitem(last=False)
        return dist

    def act_world(self, scenario: MazeScenario, pos: np.ndarray) -> int:
        """The action that takes the agent at ``pos`` one step closer to ``scenario``'s goal."""
        return downhill_move(self._distance_map(scenario), int(pos[0]), int(pos[1]))

    def __call__(self, env) -> int | np.ndarray:
        """The action for ``env``'s current state: an int, or ``(num_envs,)`` int64 for a native vector env."""
        env = getattr(env, "unwrapped", env)
        if hasattr(env, "scenarios"):  # the native vector env
            return np.array([self.act_world(s, env.state.pos[i]) for i, s in enumerate(env.scenarios)], dtype=np.int64)
        return self.act_world(env.scenario, env.state.pos[0])
