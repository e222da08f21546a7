"""The Maze simulator: batched numpy over a frozen Params, shared by the single and vector envs.

The state of a batch of worlds lives in arrays with a leading world axis. ``step`` advances
every world in place: at 4096 worlds a copy of the wall maps per step would cost more than
the step itself.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from benchmarkzoo.envs.gridworld.maze.generator import MazeScenario
from benchmarkzoo.generators.grids import MOVES


@dataclasses.dataclass(frozen=True)
class Params:
    """Constants of one env instance.

    Attributes:
        height: map rows (every world in a batch has the same map size).
        width: map columns.
        view_radius: the agent sees the ``(2r+1, 2r+1)`` square around itself.
        step_reward: reward of a step that does not reach the goal.
        goal_reward: reward of the step that reaches the goal.
    """

    height: int
    width: int
    view_radius: int = 2
    step_reward: float = -0.01
    goal_reward: float = 1.0

    @property
    def view_size(self) -> int:
        return 2 * self.view_radius + 1


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds.

    Attributes:
        walls: ``(B, H + 2r, W + 2r)`` bool, the maps padded with ``r`` wall cells on every side
            so that views near the border need no bounds checks.
        pos: ``(B, 2)`` int64, agent ``(row, col)`` in unpadded map coordinates.
        goal: ``(B, 2)`` int64, goal ``(row, col)``.
    """

    walls: np.ndarray
    pos: np.ndarray
    goal: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """An all-wall batch; every world must be :func:`load`-ed before it is stepped."""
    r = params.view_radius
    return State(
        walls=np.ones((num_worlds, params.height + 2 * r, params.width + 2 * r), dtype=bool),
        pos=np.zeros((num_worlds, 2), dtype=np.int64),
        goal=np.zeros((num_worlds, 2), dtype=np.int64),
    )


def load(state: State, world: int, scenario: MazeScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world`` (its map, start and goal)."""
    r = params.view_radius
    state.walls[world, r : r + params.height, r : r + params.width] = scenario.walls
    state.pos[world] = scenario.start
    state.goal[world] = scenario.goal


def step(state: State, actions: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray]:
    """Move every agent one cell (walls block); advances ``state`` in place.

    Args:
        actions: ``(B,)`` int64 in ``0..3`` (up, right, down, left), already validated.

    Returns:
        rewards: ``(B,)`` float64.
        reached: ``(B,)`` bool, the agent stands on its goal (the episode terminates).
    """
    r = params.view_radius
    target = state.pos + MOVES[actions]  # (B, 2)
    blocked = state.walls[np.arange(len(actions)), target[:, 0] + r, target[:, 1] + r]  # (B,)
    np.copyto(state.pos, target, where=~blocked[:, None])
    reached = (state.pos == state.goal).all(axis=1)
    rewards = np.where(reached, params.goal_reward, params.step_reward)
    return rewards, reached


def observe(state: State, params: Params) -> dict[str, np.ndarray]:
    """Egocentric observations of every world (fresh arrays, safe to keep).

    Returns:
        ``{"view": (B, 2, V, V) float32, "goal_direction": (B, 2) float32}``; view channel 0 is
        walls (outside the map counts as wall), channel 1 marks the goal when it is in view;
        ``goal_direction`` is ``(goal - pos) / (H - 1, W - 1)``, in ``[-1, 1]``.
    """
    num_worlds = state.pos.shape[0]
    size = params.view_size
    offsets = np.arange(size)
    rows = state.pos[:, 0, None, None] + offsets[None, :, None]  # (B, V, 1) padded coordinates
    cols = state.pos[:, 1, None, None] + offsets[None, None, :]  # (B, 1, V)
    view = np.zeros((num_worlds, 2, size, size), dtype=np.float32)
    view[:, 0] = state.walls[np.arange(num_worlds)[:, None, None], rows, cols]
    rel = state.goal - state.pos + params.view_radius  # (B, 2) goal in view coordinates
    visible = ((rel >= 0) & (rel < size)).all(axis=1)
    worlds = np.flatnonzero(visible)
    view[worlds, 1, rel[worlds, 0], rel[worlds, 1]] = 1.0
    scale = np.array([max(params.height - 1, 1), max(params.width - 1, 1)], dtype=np.float32)
    direction = (state.goal - state.pos).astype(np.float32) / scale
    return {"view": view, "goal_direction": direction}
