"""Key-then-door-then-goal planner: the MazeKeys baseline, the fewest steps any policy can take.

It is privileged (it reads each world's map, key and door from the simulator), so it walks a
shortest path over ``(position, has_key)`` states: to the key with the door locked, then to
the goal with the door open, unless the goal is nearer without the key.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from benchmarkzoo.envs.gridworld.maze_keys.generator import MazeKeysScenario
from benchmarkzoo.generators.grids import bfs_distances, downhill_move


class KeyDoorPlanner:
    """Moves one step along a shortest path via the key and the door to the goal.

    Works on a :class:`~benchmarkzoo.envs.gridworld.maze_keys.env.MazeKeysEnv` (returns an
    int) or a :class:`~benchmarkzoo.envs.gridworld.maze_keys.vector_env.MazeKeysVectorEnv`
    (returns ``(B,)`` int64).

    Args:
        cache_size: distance maps kept per scenario hash (one per world is enough).
    """

    def __init__(self, cache_size: int = 8192):
        self.cache_size = cache_size
        self._maps: OrderedDict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = OrderedDict()

    def _distance_maps(self, scenario: MazeKeysScenario) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """BFS distances to the goal with the door open, to the goal and to the key with it locked."""
        key = scenario.content_hash
        maps = self._maps.get(key)
        if maps is None:
            walls = np.asarray(scenario.walls)
            locked = walls.copy()
            locked[scenario.door] = True
            maps = (
                bfs_distances(walls, scenario.goal),
                bfs_distances(locked, scenario.goal),
                bfs_distances(locked, scenario.key),
            )
            self._maps[key] = maps
            if len(self._maps) > self.cache_size:
                self._maps.popitem(last=False)
        return maps

    def act_world(self, scenario: MazeKeysScenario, pos: np.ndarray, has_key: bool) -> int:
        """The first action of a shortest path from ``pos`` (holding the key or not) to the goal."""
        to_goal_open, to_goal_locked, to_key = self._distance_maps(scenario)
        if has_key:
            target = to_goal_open
        else:
            row, col = int(pos[0]), int(pos[1])
            without = to_goal_locked[row, col]
            via_key = to_key[row, col] + to_goal_open[scenario.key] if to_key[row, col] >= 0 else -1
            target = to_goal_locked if without >= 0 and (via_key < 0 or without <= via_key) else to_key
        return downhill_move(target, int(pos[0]), int(pos[1]))

    def __call__(self, env) -> int | np.ndarray:
        """The action for ``env``'s current state: an int, or ``(num_envs,)`` int64 for a native vector env."""
        env = getattr(env, "unwrapped", env)
        state = env.state
        if hasattr(env, "scenarios"):  # the native vector env
            return np.array(
                [self.act_world(s, state.pos[i], bool(state.has_key[i])) for i, s in enumerate(env.scenarios)],
                dtype=np.int64,
            )
        return self.act_world(env.scenario, state.pos[0], bool(state.has_key[0]))
