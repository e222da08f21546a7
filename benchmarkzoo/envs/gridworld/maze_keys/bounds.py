"""Outcome bounds of MazeKeys-v0: Maze-v0's reward and episode end.

``maze_keys/sim.py`` ``step`` pays ``np.where(reached, goal_reward, step_reward)``; the locked
door only changes which paths exist.
"""

from __future__ import annotations

from typing import Any

from benchmarkzoo.core.bounds import OutcomeBounds
from benchmarkzoo.envs.gridworld.maze.bounds import goal_bounds


def bounds(kwargs: dict[str, Any], max_steps: int | None) -> OutcomeBounds:
    """The bounds of a MazeKeys-v0 task made with ``kwargs`` and a limit of ``max_steps``."""
    from benchmarkzoo.envs.gridworld.maze_keys.env import MazeKeysEnv

    return goal_bounds(MazeKeysEnv, kwargs, max_steps)
