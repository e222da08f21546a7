"""The MazeKeys simulator: the Maze simulator plus a locked door and a key, batched over worlds.

Walls, moves, the padded map and the view window are the Maze simulator's
(:mod:`benchmarkzoo.envs.gridworld.maze.sim`); this module adds only what the key and door
change: a locked door blocks like a wall, stepping onto the key picks it up, and two more view
channels show the key and the locked door when they are in view.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from benchmarkzoo.envs.gridworld.maze import sim as maze_sim
from benchmarkzoo.envs.gridworld.maze.sim import Params
from benchmarkzoo.envs.gridworld.maze_keys.generator import MazeKeysScenario
from benchmarkzoo.generators.grids import MOVES

__all__ = ["Params", "State", "init_state", "load", "observe", "step"]

#: View channels, in order.
CHANNELS = ("wall", "goal", "key", "door")


@dataclasses.dataclass(kw_only=True)
class State(maze_sim.State):
    """Mutable state of ``B`` worlds: the Maze state plus the key and door below.

    Attributes:
        key: ``(B, 2)`` int64, the key's ``(row, col)``.
        door: ``(B, 2)`` int64, the door's ``(row, col)``.
        has_key: ``(B,)`` bool, the agent has picked the key up (and the door is open).
    """

    key: np.ndarray
    door: np.ndarray
    has_key: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """An all-wall batch; every world must be :func:`load`-ed before it is stepped."""
    base = maze_sim.init_state(params, num_worlds)
    return State(
        **{f.name: getattr(base, f.name) for f in dataclasses.fields(maze_sim.State)},
        key=np.zeros((num_worlds, 2), dtype=np.int64),
        door=np.zeros((num_worlds, 2), dtype=np.int64),
        has_key=np.zeros(num_worlds, dtype=bool),
    )


def load(state: State, world: int, scenario: MazeKeysScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world``: the maze, the key, the locked door."""
    maze_sim.load(state, world, scenario, params)
    state.key[world] = scenario.key
    state.door[world] = scenario.door
    state.has_key[world] = False


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(B,)`` bool, rows of two ``(B, 2)`` arrays that are equal (two column compares: faster than ``all``)."""
    return np.logical_and(a[:, 0] == b[:, 0], a[:, 1] == b[:, 1])


def step(state: State, actions: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray]:
    """Move every agent one cell; advances ``state`` in place.

    Walls block, and so does the door while the agent has no key. Ending a step on the key
    picks it up (the door is open from then on).

    Args:
        state: the ``B`` worlds, advanced in place.
        actions: ``(B,)`` int64 in ``0..3`` (up, right, down, left), already validated.
        params: the simulator's parameters (the rewards, the padding of the walls).

    Returns:
        rewards: ``(B,)`` float64; reached: ``(B,)`` bool, the agent stands on its goal.
    """
    target = state.pos + MOVES[actions]  # (B, 2)
    blocked = state.walls.ravel()[maze_sim._flat_index(state, target[:, 0], target[:, 1], params.pad_shift)]
    blocked |= _same(target, state.door) & ~state.has_key
    np.copyto(state.pos, target, where=~blocked[:, None])
    state.has_key |= _same(state.pos, state.key)
    reached = _same(state.pos, state.goal)
    return np.where(reached, params.goal_reward, params.step_reward), reached


def observe(state: State, params: Params) -> dict[str, np.ndarray]:
    """Egocentric observations of every world (fresh arrays).

    Returns:
        ``{"goal_direction": (B, 2), "has_key": (B, 1), "view": (B, 4, V, V)}`` float32; view
        channels are the Maze's walls and goal, then the key (until picked up) and the locked
        door (until the key is picked up), each only when in view.
    """
    num_worlds, size = state.pos.shape[0], params.view_size
    maze = maze_sim.observe(state, params)
    view = np.zeros((num_worlds, len(CHANNELS), size * size), dtype=np.float32)
    view[:, :2] = maze["view"].reshape(num_worlds, 2, size * size)
    locked = ~state.has_key
    maze_sim.mark_in_view(view[:, 2], state.key - state.pos, params, where=locked)
    maze_sim.mark_in_view(view[:, 3], state.door - state.pos, params, where=locked)
    return {
        "goal_direction": maze["goal_direction"],
        "has_key": state.has_key.astype(np.float32)[:, None],
        "view": view.reshape(num_worlds, len(CHANNELS), size, size),
    }
