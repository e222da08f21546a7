"""The Treasure simulator: batched numpy over a frozen Params, shared by the single and vector envs.

The dynamics are deterministic and the map is fixed for an episode, so :func:`load` compiles
each world's scenario into transition tables once (:func:`transitions`, the only place the
rules of motion and reward are written) and stepping is a table lookup. :func:`step` looks up
a batch of worlds with three fancy-indexing calls; :func:`step_one` looks up one world with
scalar indexing, because at one world the fixed cost of fancy indexing dominates (the single
env must keep up with MO-Gymnasium's hand-written ``deep-sea-treasure-v0``). Both read the
same tables, so the two paths cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from benchmarkzoo.envs.gridworld.treasure.generator import TreasureScenario
from benchmarkzoo.generators.grids import MOVES, GridParams

#: The time objective: every step costs one unit.
TIME_PENALTY = -1.0


@dataclasses.dataclass(frozen=True)
class Params(GridParams):
    """Constants of one env instance: the map size (:class:`GridParams`)."""

    @property
    def num_cells(self) -> int:
        """The map's number of cells, ``height * width``."""
        return self.height * self.width


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds. Cells are numbered ``row * width + col``.

    Attributes:
        next_cell: ``(B, N, 4)`` int64, the cell the submarine ends in after each action from each cell.
        reward: ``(B, N, 2)`` float32, the vector reward of a step that ends in each cell.
        terminal: ``(B, N)`` bool, the cells that end the episode (treasures).
        pos: ``(B,)`` int64, the submarine's cell.
        cells: ``(N, 2)`` int32, ``(row, col)`` of each cell (the observation of standing there).
        worlds: ``(B,)`` int64, ``arange(B)``, kept for fancy indexing.
    """

    next_cell: np.ndarray
    reward: np.ndarray
    terminal: np.ndarray
    pos: np.ndarray
    cells: np.ndarray
    worlds: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """A batch of empty worlds; every world must be :func:`load`-ed before it is stepped."""
    n = params.num_cells
    rows, cols = np.divmod(np.arange(n), params.width)
    return State(
        next_cell=np.zeros((num_worlds, n, 4), dtype=np.int64),
        reward=np.zeros((num_worlds, n, 2), dtype=np.float32),
        terminal=np.zeros((num_worlds, n), dtype=bool),
        pos=np.zeros(num_worlds, dtype=np.int64),
        cells=np.stack([rows, cols], axis=1).astype(np.int32),
        worlds=np.arange(num_worlds, dtype=np.int64),
    )


@functools.lru_cache(maxsize=32)
def grid_moves(height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The geometry of an empty ``height x width`` map, shared by every scenario of that size.

    Returns:
        target ``(N, 4)`` int64, the cell each move leads to (the same cell when it would leave
        the map); here ``(N, 1)`` int64, each cell's own index. Both read-only.
    """
    rows, cols = np.divmod(np.arange(height * width), width)  # (N,)
    target_r = rows[:, None] + MOVES[None, :, 0]  # (N, 4)
    target_c = cols[:, None] + MOVES[None, :, 1]
    inside = (target_r >= 0) & (target_r < height) & (target_c >= 0) & (target_c < width)
    here = np.arange(height * width)[:, None]
    target = np.where(inside, target_r * width + target_c, here)
    target.setflags(write=False)
    here.setflags(write=False)
    return target, here


def transitions(scenario: TreasureScenario) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rules of the game, as tables over the cells of ``scenario``'s map.

    * A move (up, right, down, left) that would leave the map or enter the seabed leaves the
      submarine where it is.
    * A step that ends on a treasure pays ``[value, -1]`` and ends the episode; any other step
      pays ``[0, -1]``.

    Returns:
        next_cell ``(N, 4)`` int64, reward ``(N, 2)`` float32, terminal ``(N,)`` bool.
    """
    height, width = scenario.shape
    target, here = grid_moves(height, width)
    next_cell = np.where(scenario.rock.ravel()[target], here, target)
    reward = np.empty((height * width, 2), dtype=np.float32)
    reward[:, 0] = 0.0
    reward[:, 1] = TIME_PENALTY
    terminal = np.zeros(height * width, dtype=bool)
    treasure_cells = scenario.treasure_pos[:, 0] * width + scenario.treasure_pos[:, 1]
    reward[treasure_cells, 0] = scenario.treasure_value  # cast to float32: the value the env pays
    terminal[treasure_cells] = True
    return next_cell, reward, terminal


def load(state: State, world: int, scenario: TreasureScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world``: its transition tables and start cell."""
    next_cell, reward, terminal = transitions(scenario)
    state.next_cell[world] = next_cell
    state.reward[world] = reward
    state.terminal[world] = terminal
    restart(state, world, scenario, params)


def restart(state: State, world: int, scenario: TreasureScenario, params: Params) -> None:
    """Put world ``world``'s submarine back on its start cell (``scenario`` is already loaded)."""
    state.pos[world] = scenario.start[0] * params.width + scenario.start[1]


def step(state: State, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Move every submarine one step; advances ``state.pos`` in place.

    Args:
        state: the ``B`` worlds, advanced in place.
        actions: ``(B,)`` int64 in ``0..3`` (up, right, down, left), already validated.

    Returns:
        rewards: ``(B, 2)`` float32 ``[treasure value, -1]`` (fresh).
        terminated: ``(B,)`` bool, the submarine reached a treasure (fresh).
    """
    pos = state.next_cell[state.worlds, state.pos, actions]
    state.pos[:] = pos
    return state.reward[state.worlds, pos], state.terminal[state.worlds, pos]


def step_one(state: State, world: int, action: int) -> tuple[np.ndarray, bool]:
    """:func:`step` for world ``world`` alone, with a plain ``int`` action in ``0..3``.

    Returns:
        reward: ``(2,)`` float32 (fresh); terminated: ``bool``.
    """
    pos = state.next_cell[world, state.pos[world], action]
    state.pos[world] = pos
    return state.reward[world, pos].copy(), bool(state.terminal[world, pos])


def observe(state: State) -> np.ndarray:
    """``(B, 2)`` int32 ``(row, col)`` of every submarine (fresh)."""
    return state.cells[state.pos]


def observe_one(state: State, world: int) -> np.ndarray:
    """``(2,)`` int32 ``(row, col)`` of world ``world``'s submarine (fresh)."""
    return state.cells[state.pos[world]].copy()
