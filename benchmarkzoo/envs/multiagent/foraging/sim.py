"""The Foraging simulator: ``B`` worlds of ``N`` agents and ``M`` food items in batched numpy.

The ParallelEnv is a batch of one world, the native vector env a batch of ``B``; the rules below
exist once. Every array op is elementwise, an integer reduction or a stable sort, so world ``i``
of a batch computes exactly the numbers a batch of one would (bit for bit).

Rules of a step, every world at once (LBF's rules):

1. **Moves.** Action ``1..4`` (up, right, down, left) moves an agent one cell if the target is
   inside the grid and was empty (no agent, no food) at the start of the step. If two or more
   agents target the same cell, none of them moves. (So nobody follows another agent into the
   cell it leaves, and no swap can happen.) ``0`` (none) and ``5`` (load) stay.
2. **Loading.** Every agent that chose ``5`` (load) tries to collect each food item in its
   4-neighbourhood. An item is collected when the levels of all loading agents next to it add
   up to at least its level; it then leaves the grid. Each of those agents gets
   ``level_i * food_level / (sum of their levels * total food level of the scenario)``,
   so a team that collects every item earns 1.0 in total. A loading agent that collects
   nothing gets ``-load_penalty``.
3. The world's episode ends (every agent terminates) once no food is left.

Grids are padded by ``r = view_radius`` cells on every side (outside the map, never entered),
and every world's grids are laid out in one flat array: an agent's place is a flat index.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from benchmarkzoo.envs.multiagent.foraging.generator import ForagingScenario
from benchmarkzoo.generators.grids import MOVES, GridParams

#: Actions: none, up, right, down, left, load.
ACTION_NAMES = ("none", "up", "right", "down", "left", "load")
LOAD = 5
#: ``(6, 2)`` (d_row, d_col) of each action; ``load`` does not move.
ACTION_MOVES = np.concatenate([np.zeros((1, 2), dtype=np.int64), MOVES, np.zeros((1, 2), dtype=np.int64)])


@dataclasses.dataclass(frozen=True)
class Params(GridParams):
    """Constants of one env instance (``height`` and ``width`` first, from :class:`GridParams`).

    Attributes:
        num_agents: ``N``.
        num_food: ``M``, food items per scenario.
        max_agent_level: scale of the agent-level view channel.
        food_scale: scale of the food-level view channel (the generator's highest food level).
        num_food_types: ``T``; with ``T > 1`` the view has a food-type channel.
        view_radius: each agent sees the ``(2r+1, 2r+1)`` square around itself.
        load_penalty: reward of a load that collects nothing is ``-load_penalty``.
    """

    num_agents: int
    num_food: int
    max_agent_level: int
    food_scale: int
    num_food_types: int = 1
    view_radius: int = 2
    load_penalty: float = 0.0

    @property
    def view_size(self) -> int:
        """The side of an agent's square view, ``2 * view_radius + 1`` cells."""
        return 2 * self.view_radius + 1

    @property
    def num_channels(self) -> int:
        """Agent levels, food levels, off-grid; plus food types when there are several."""
        return 3 if self.num_food_types == 1 else 4

    @property
    def padded_shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the grid padded by the view radius on every side."""
        r = self.view_radius
        return (self.height + 2 * r, self.width + 2 * r)

    @property
    def cells(self) -> int:
        """Cells of the padded grid."""
        rows, cols = self.padded_shape
        return rows * cols

    @functools.cached_property
    def deltas(self) -> np.ndarray:
        """``(6,)`` int64 change of the flat padded index for each action."""
        deltas = ACTION_MOVES[:, 0] * self.padded_shape[1] + ACTION_MOVES[:, 1]
        deltas.setflags(write=False)
        return deltas

    @functools.cached_property
    def outside(self) -> np.ndarray:
        """``(cells,)`` bool, the padding around the grid."""
        r = self.view_radius
        out = np.ones(self.padded_shape, dtype=bool)
        out[r : r + self.height, r : r + self.width] = False
        flat = out.ravel()
        flat.setflags(write=False)
        return flat

    @functools.cached_property
    def window(self) -> np.ndarray:
        """``(V * V,)`` int64 offsets of the view window's cells from the agent's cell, row-major."""
        offsets = np.arange(self.view_size, dtype=np.int64) - self.view_radius
        window = (offsets[:, None] * self.padded_shape[1] + offsets[None, :]).ravel()
        window.setflags(write=False)
        return window

    @functools.cached_property
    def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """float32 lookup tables: agent level / max, food level / scale, (type + 1) / T (index 0: empty)."""
        agent = (np.arange(self.max_agent_level + 1) / self.max_agent_level).astype(np.float32)
        food = (np.arange(self.food_scale + 1) / self.food_scale).astype(np.float32)
        kind = (np.arange(self.num_food_types + 1) / self.num_food_types).astype(np.float32)
        for table in (agent, food, kind):
            table.setflags(write=False)
        return agent, food, kind


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds.

    Attributes:
        agents: ``(B, Hp, Wp)`` int64, level of the agent on each padded cell, ``0`` where none.
        food: ``(B, Hp, Wp)`` int64, level of the food on each padded cell, ``0`` where none.
        food_type: ``(B, Hp, Wp)`` int64, type + 1 of the food on each cell, ``0`` where none.
        cell: ``(B, N)`` int64, each agent's flat padded cell within its world.
        levels: ``(B, N)`` int64, agent levels.
        food_total: ``(B,)`` int64, sum of the scenario's food levels (the reward's denominator).
        food_left: ``(B,)`` int64, food items still on the grid.
        collected: ``(B, T)`` int64, food items collected so far, per type.
        time: ``(B,)`` int64, steps since each world's load.
        scratch: ``(B * Hp * Wp,)`` int64, zeros between steps (the load sums of a step).
    """

    agents: np.ndarray
    food: np.ndarray
    food_type: np.ndarray
    cell: np.ndarray
    levels: np.ndarray
    food_total: np.ndarray
    food_left: np.ndarray
    collected: np.ndarray
    time: np.ndarray
    scratch: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """An empty batch; every world must be :func:`load`-ed before it is stepped."""
    shape = (num_worlds, *params.padded_shape)
    n = params.num_agents
    return State(
        agents=np.zeros(shape, dtype=np.int64),
        food=np.zeros(shape, dtype=np.int64),
        food_type=np.zeros(shape, dtype=np.int64),
        cell=np.zeros((num_worlds, n), dtype=np.int64),
        levels=np.ones((num_worlds, n), dtype=np.int64),
        food_total=np.ones(num_worlds, dtype=np.int64),
        food_left=np.zeros(num_worlds, dtype=np.int64),
        collected=np.zeros((num_worlds, params.num_food_types), dtype=np.int64),
        time=np.zeros(num_worlds, dtype=np.int64),
        scratch=np.zeros(num_worlds * params.cells, dtype=np.int64),
    )


def load(state: State, world: int, scenario: ForagingScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world``."""
    r = params.view_radius
    state.agents[world] = 0
    state.food[world] = 0
    state.food_type[world] = 0
    rows, cols = scenario.agent_pos[:, 0] + r, scenario.agent_pos[:, 1] + r
    state.agents[world, rows, cols] = scenario.agent_levels
    state.cell[world] = rows * params.padded_shape[1] + cols
    state.levels[world] = scenario.agent_levels
    food_rows, food_cols = scenario.food_pos[:, 0] + r, scenario.food_pos[:, 1] + r
    state.food[world, food_rows, food_cols] = scenario.food_levels
    state.food_type[world, food_rows, food_cols] = scenario.food_types + 1
    state.food_total[world] = scenario.food_levels.sum()
    state.food_left[world] = scenario.num_food
    state.collected[world] = 0
    state.time[world] = 0


@functools.lru_cache(maxsize=64)
def _world_starts(num_worlds: int, cells: int) -> np.ndarray:
    """``(B, 1)`` int64 flat index of each world's first padded cell."""
    starts = (np.arange(num_worlds, dtype=np.int64) * cells)[:, None]
    starts.setflags(write=False)
    return starts


def step(state: State, actions: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advance every world one step by the rules in the module docstring; updates ``state`` in place.

    Args:
        state: the ``B`` worlds, advanced in place.
        params: the simulator's parameters.
        actions: ``(B, N)`` int64 in ``0..5``, already validated.

    Returns:
        rewards: ``(B, N)`` float64.
        typed: ``(B, N, T)`` float64, the collection part of the reward split by food type (no penalty).
        done: ``(B,)`` bool, worlds with no food left after this step.
    """
    num_worlds, n = actions.shape
    cells = params.cells
    a = actions.ravel()  # (B*N,)
    local = state.cell.ravel()  # (B*N,) flat cell within the world
    base = np.repeat(_world_starts(num_worlds, cells)[:, 0], n)  # (B*N,) world offset
    agents, food = state.agents.ravel(), state.food.ravel()

    # 1. moves: into a cell inside the grid that was empty, and that no other agent targets
    target = local + params.deltas[a]
    go = (a >= 1) & (a <= 4)
    go &= ~params.outside[target]
    go &= (agents[base + target] == 0) & (food[base + target] == 0)
    movers = np.flatnonzero(go)
    if movers.size:
        where = base[movers] + target[movers]
        order = np.argsort(where, kind="stable")
        ordered = where[order]
        same = ordered[1:] == ordered[:-1]
        clash = np.zeros(movers.size, dtype=bool)
        clash[1:] |= same
        clash[:-1] |= same
        movers = movers[np.sort(order[~clash])]
        level = agents[base[movers] + local[movers]]
        agents[base[movers] + local[movers]] = 0
        agents[base[movers] + target[movers]] = level
        local[movers] = target[movers]

    # 2. loading: sum the levels of the loaders next to each food item
    rewards = np.zeros(num_worlds * n, dtype=np.float64)
    typed = np.zeros((num_worlds * n, params.num_food_types), dtype=np.float64)
    loaders = np.flatnonzero(a == LOAD)
    if loaders.size:
        lvl = state.levels.ravel()[loaders]
        here = base[loaders] + local[loaders]
        scratch = state.scratch
        neighbours, levels_next = [], []
        for delta in params.deltas[1:5]:
            nb = here + delta
            f = food[nb]
            neighbours.append(nb)
            levels_next.append(f)
            has = f > 0
            np.add.at(scratch, nb[has], lvl[has])
        got = np.zeros(loaders.size, dtype=np.float64)
        typed_got = np.zeros((loaders.size, params.num_food_types), dtype=np.float64)
        success = np.zeros(loaders.size, dtype=bool)
        total = state.food_total[base[loaders] // cells]
        gone = []
        for nb, f in zip(neighbours, levels_next, strict=True):
            team = scratch[nb]
            win = (f > 0) & (team >= f)
            if win.any():
                share = np.where(win, (lvl * f) / np.maximum(team * total, 1), 0.0)
                got = got + share
                kinds = state.food_type.ravel()[nb] - 1
                rows = np.flatnonzero(win)
                typed_got[rows, kinds[rows]] += share[rows]
                success |= win
                gone.append(nb[win])
        for nb in neighbours:
            scratch[nb] = 0
        if params.load_penalty:
            got = np.where(success, got, got - params.load_penalty)
        rewards[loaders] = got
        typed[loaders] = typed_got
        if gone:
            taken = np.unique(np.concatenate(gone))  # each collected item once
            world = taken // cells
            kinds = state.food_type.ravel()[taken] - 1
            np.add.at(state.collected, (world, kinds), 1)
            state.food_left -= np.bincount(world, minlength=num_worlds)
            food[taken] = 0
            state.food_type.ravel()[taken] = 0
    state.time += 1
    return rewards.reshape(num_worlds, n), typed.reshape(num_worlds, n, -1), state.food_left == 0


def observe(state: State, params: Params, mask: np.ndarray | None = None) -> np.ndarray:
    """Egocentric grid observations of every agent (fresh arrays).

    Args:
        state: the ``B`` worlds.
        params: the simulator's parameters.
        mask: ``(B, N)`` bool; agents outside it get all-zero observations (``None``: every agent).

    Returns:
        ``(B, N, C, V, V)`` float32: agent levels / ``max_agent_level`` (the agent itself at the
        centre), food levels / ``food_scale``, ``1`` off the grid, and (when ``T > 1``) food
        ``(type + 1) / T``.
    """
    num_worlds, n = state.cell.shape
    size = params.view_size
    cells = _world_starts(num_worlds, params.cells)[:, :, None] + state.cell[..., None] + params.window  # (B, N, V*V)
    agent_table, food_table, type_table = params.tables
    view = np.empty((num_worlds, n, params.num_channels, size * size), dtype=np.float32)
    view[:, :, 0] = agent_table[state.agents.ravel()[cells]]
    view[:, :, 1] = food_table[state.food.ravel()[cells]]
    view[:, :, 2] = params.outside[cells - _world_starts(num_worlds, params.cells)[:, :, None]]
    if params.num_food_types > 1:
        view[:, :, 3] = type_table[state.food_type.ravel()[cells]]
    if mask is not None and not mask.all():
        view[~mask] = 0.0
    return view.reshape(num_worlds, n, params.num_channels, size, size)


def episode_metrics(state: State, params: Params) -> dict[str, np.ndarray]:
    """Episode metrics of every world, as of now (read them when an episode ends).

    Returns:
        ``food_collected`` ``(B,)`` float64: fraction of the food items collected;
        ``all_collected`` ``(B,)`` bool: every item collected.
    """
    collected = state.collected.sum(axis=1)
    return {"food_collected": collected / params.num_food, "all_collected": state.food_left == 0}
