"""The Maze simulator: batched numpy over a frozen Params, shared by the single and vector envs.

The state of a batch of worlds lives in arrays with a leading world axis. ``step`` advances
every world in place: at 4096 worlds a copy of the wall maps per step would cost more than
the step itself.

:func:`step_one` and :func:`observe_one` are the same rules for one world of the same
:class:`State`, written with Python ints and array slices: at one world the fixed cost of a
dozen batched numpy calls is most of the step (the single env must keep up with CartPole).
Both paths read the same padded wall map, the same :data:`MOVES` and the same float32
arithmetic for ``goal_direction``; ``tests/envs/gridworld/test_maze.py`` checks them against
each other step by step, and the conformance kit checks the vector env against the single env.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from benchmarkzoo.envs.gridworld.maze.generator import MazeScenario
from benchmarkzoo.generators.grids import MOVES, GridParams


@dataclasses.dataclass(frozen=True)
class Params(GridParams):
    """Constants of one env instance (``height`` and ``width`` first, from :class:`GridParams`).

    Attributes:
        view_radius: the agent sees the ``(2r+1, 2r+1)`` square around itself.
        step_reward: reward of a step that does not reach the goal.
        goal_reward: reward of the step that reaches the goal.
    """

    view_radius: int = 2
    step_reward: float = -0.01
    goal_reward: float = 1.0

    @property
    def view_size(self) -> int:
        """The side of the square view, ``2 * view_radius + 1`` cells."""
        return 2 * self.view_radius + 1

    @property
    def padded_width(self) -> int:
        """Columns of the padded wall maps in :class:`State`."""
        return self.width + 2 * self.view_radius

    @property
    def pad_shift(self) -> int:
        """Add to ``row * padded_width + col`` of unpadded ``(row, col)`` to get its padded flat index."""
        return self.view_radius * self.padded_width + self.view_radius

    @functools.cached_property
    def window(self) -> np.ndarray:
        """``(V * V,)`` int64 offsets of the view window's cells from its top-left cell.

        Offsets are into one world's flattened padded map, row-major (the order of ``view[b, c]``).
        """
        offsets = np.arange(self.view_size, dtype=np.int64)
        window = (offsets[:, None] * self.padded_width + offsets[None, :]).ravel()
        window.setflags(write=False)
        return window


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds.

    Attributes:
        walls: ``(B, H + 2r, W + 2r)`` bool, the maps padded with ``r`` wall cells on every side
            so that views near the border need no bounds checks.
        pos: ``(B, 2)`` int64, agent ``(row, col)`` in unpadded map coordinates.
        goal: ``(B, 2)`` int64, goal ``(row, col)``.

        window_cells: ``(B, V * V)`` int64 scratch written by :func:`observe` (the flat indices of
            every world's view window); kept here so that a step allocates no large temporary.
    """

    walls: np.ndarray
    pos: np.ndarray
    goal: np.ndarray
    window_cells: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """An all-wall batch; every world must be :func:`load`-ed before it is stepped."""
    r = params.view_radius
    return State(
        walls=np.ones((num_worlds, params.height + 2 * r, params.width + 2 * r), dtype=bool),
        pos=np.zeros((num_worlds, 2), dtype=np.int64),
        goal=np.zeros((num_worlds, 2), dtype=np.int64),
        window_cells=np.zeros((num_worlds, params.view_size**2), dtype=np.int64),
    )


def load(state: State, world: int, scenario: MazeScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world`` (its map, start and goal)."""
    r = params.view_radius
    state.walls[world, r : r + params.height, r : r + params.width] = scenario.walls
    state.pos[world] = scenario.start
    state.goal[world] = scenario.goal


@functools.lru_cache(maxsize=64)
def _world_starts(num_worlds: int, cells: int, shift: int) -> np.ndarray:
    """``(B,)`` int64: ``shift`` plus the flat index of each world's first cell in ``walls.ravel()``.

    Cached so that a step builds no ``arange``.
    """
    starts = np.arange(num_worlds, dtype=np.int64) * cells + shift
    starts.setflags(write=False)
    return starts


def _flat_index(state: State, rows: np.ndarray, cols: np.ndarray, shift: int = 0) -> np.ndarray:
    """``(B,)`` flat index into ``state.walls.ravel()`` of padded cell ``(rows, cols)`` of every world.

    ``shift`` is added to every index: ``r * (W + 2r) + r`` turns unpadded ``(rows, cols)`` into padded ones.
    """
    num_worlds, height, width = state.walls.shape
    return _world_starts(num_worlds, height * width, shift) + rows * width + cols


def step(state: State, actions: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray]:
    """Move every agent one cell (walls block); advances ``state`` in place.

    Args:
        state: the ``B`` worlds, advanced in place.
        actions: ``(B,)`` int64 in ``0..3`` (up, right, down, left), already validated.
        params: the simulator's parameters (the rewards, the padding of the walls).

    Returns:
        rewards: ``(B,)`` float64.
        reached: ``(B,)`` bool, the agent stands on its goal (the episode terminates).
    """
    target = state.pos + MOVES[actions]  # (B, 2)
    blocked = np.take(state.walls.ravel(), _flat_index(state, target[:, 0], target[:, 1], params.pad_shift))  # (B,)
    np.copyto(state.pos, target, where=~blocked[:, None])
    pos, goal = state.pos, state.goal
    # two column compares: ``(pos == goal).all(axis=1)`` is ~10x slower at 4096 worlds
    reached = np.logical_and(pos[:, 0] == goal[:, 0], pos[:, 1] == goal[:, 1])
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
    pos, goal = state.pos, state.goal
    # The window's top-left cell in padded coordinates is the agent's unpadded (row, col).
    # (B, V*V), rewritten in place: a fresh int64 temporary this size (800 kB at 4096 worlds)
    # is a fresh mapping from the allocator, and its page faults cost more than the gather.
    cells = state.window_cells
    np.add(_flat_index(state, pos[:, 0], pos[:, 1])[:, None], params.window, out=cells)
    view = np.zeros((num_worlds, 2, size * size), dtype=np.float32)
    view[:, 0] = np.take(state.walls.ravel(), cells)  # take: half the time of fancy indexing here
    offset = goal - pos  # (B, 2)
    mark_in_view(view[:, 1], offset, params)
    direction = offset.astype(np.float32) / params.goal_scale
    # keys in the Dict space's (sorted) order, as SyncVectorEnv lays them out
    return {"goal_direction": direction, "view": view.reshape(num_worlds, 2, size, size)}


def mark_in_view(channel: np.ndarray, offset: np.ndarray, params: Params, where: np.ndarray | None = None) -> None:
    """Set to 1 the cell at ``offset`` from the agent in each world's view channel, if it is in view.

    Args:
        channel: ``(B, V * V)`` float32 view channel (a view into the observation), written in place.
        offset: ``(B, 2)`` int64, the marked cell minus the agent's position.
        params: the simulator's parameters (the view's radius and size).
        where: ``(B,)`` bool, only these worlds (default all).
    """
    r, size = params.view_radius, params.view_size
    d_row, d_col = offset[:, 0], offset[:, 1]
    seen = (np.abs(d_row) <= r) & (np.abs(d_col) <= r)
    if where is not None:
        seen &= where
    worlds = np.flatnonzero(seen)
    channel[worlds, (d_row[worlds] + r) * size + d_col[worlds] + r] = 1.0


# ---- one world ----------------------------------------------------------------------------------

#: :data:`MOVES` as Python int pairs, for :func:`step_one`.
MOVE_PAIRS: tuple[tuple[int, int], ...] = tuple((int(dr), int(dc)) for dr, dc in MOVES)


def step_one(state: State, world: int, action: int, params: Params) -> tuple[float, bool]:
    """:func:`step` for world ``world`` alone, with a plain ``int`` action in ``0..3``.

    Returns:
        reward: ``float``; reached: ``bool``, the agent stands on its goal.
    """
    d_row, d_col = MOVE_PAIRS[action]
    pos = state.pos[world]
    row, col = pos.tolist()
    r = params.view_radius
    if not state.walls[world, row + d_row + r, col + d_col + r]:
        row += d_row
        col += d_col
        pos[0] = row
        pos[1] = col
    reached = state.goal[world].tolist() == [row, col]
    return (params.goal_reward if reached else params.step_reward), reached


@dataclasses.dataclass(frozen=True)
class Episode:
    """Per-episode lookup tables of one world for :func:`observe_one`, built by :func:`episode`.

    Attributes:
        planes: ``(2, H + 2r, W + 2r)`` float32, the padded walls and a one-hot goal plane; the
            view of an agent at unpadded ``(row, col)`` is ``planes[:, row:row+V, col:col+V]``.
        directions: ``(H, W, 2)`` float32, ``goal_direction`` at every position.
    """

    planes: np.ndarray
    directions: np.ndarray


def episode(state: State, world: int, params: Params) -> Episode:
    """The :class:`Episode` tables of world ``world``'s loaded scenario (rebuild after every :func:`load`)."""
    r = params.view_radius
    planes = np.zeros((2, *state.walls.shape[1:]), dtype=np.float32)
    planes[0] = state.walls[world]
    goal_row, goal_col = state.goal[world].tolist()
    planes[1, goal_row + r, goal_col + r] = 1.0
    rows, cols = np.indices((params.height, params.width), dtype=np.int64)
    offsets = np.stack([goal_row - rows, goal_col - cols], axis=-1)  # (H, W, 2), as ``goal - pos`` in observe
    return Episode(planes=planes, directions=offsets.astype(np.float32) / params.goal_scale)


def observe_one(state: State, world: int, params: Params, tables: Episode) -> dict[str, np.ndarray]:
    """:func:`observe` for world ``world`` alone: ``{"view": (2, V, V), "goal_direction": (2,)}`` float32 (fresh)."""
    row, col = state.pos[world].tolist()
    size = params.view_size
    return {
        "goal_direction": tables.directions[row, col].copy(),
        "view": tables.planes[:, row : row + size, col : col + size].copy(),
    }
