"""The MAPF simulator: ``B`` worlds of ``N`` agents in batched numpy, shared by every view.

The ParallelEnv is a batch of one world, the native vector env a batch of ``B``; the rules below
exist once.

Rules of a step (every world at once):

1. Each active agent proposes a target cell: its cell plus the move of its action
   (``0`` stay, ``1`` up, ``2`` right, ``3`` down, ``4`` left). A move into an obstacle or off
   the map becomes "stay".
2. Conflicts are resolved by reverting moves to "stay", repeated until no conflict is left
   (at most ``N`` rounds, since each round reverts at least one move):

   * **vertex**: a moving agent whose target is the cell of an agent that stays is reverted;
     of several moving agents with the same target, the one with the lowest index moves
     and the later ones are reverted;
   * **edge (swap)**: two agents that would trade cells are both reverted.

   Following (moving into a cell its agent leaves in the same step) and rotations of three or
   more agents are allowed. The result does not depend on the order of any action dict.
3. An agent that now stands on its goal has arrived: it gets ``goal_reward``, is terminated
   and is removed from the grid at the end of the step, so it no longer blocks anyone (the
   POGEMA "disappear" convention). Every other active agent gets ``step_reward``.

**Lifelong** (``Params.lifelong``, ``benchmarkzoo/MAPF-Lifelong-v0``): rule 3 becomes: an agent
that now stands on its goal gets ``goal_reward`` and its next goal from its scenario's pre-drawn
``goal_sequence``; it stays on the grid and is never terminated. Rules 1 and 2 are unchanged.

Arrays are updated in place; the occupancy board (``occupant``) and the board of what views
show (``tiles``) are kept incrementally, not rebuilt, so a step costs ``O(B * N)`` plus the
observation gather, which is one fancy index of a window view of ``tiles``.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from benchmarkzoo.envs.multiagent.mapf.generator import LifelongMapfScenario, MapfScenario
from benchmarkzoo.generators.grids import MOVES, GridParams

#: Moves in action order: stay, up, right, down, left, as (d_row, d_col).
ACTION_MOVES = np.concatenate([np.zeros((1, 2), dtype=np.int64), MOVES])
ACTION_NAMES = ("stay", "up", "right", "down", "left")
NUM_CHANNELS = 3  # obstacles, other agents, own goal
FREE, OBSTACLE, AGENT = 0, 1, 2  # the values of State.tiles: bit 0 is view channel 0, bit 1 channel 1
#: The objectives of MO-MAPF-v0's vector reward, in order (see :func:`objective_rewards`).
OBJECTIVES = ("arrival", "energy", "waiting")


@dataclasses.dataclass(frozen=True)
class Params(GridParams):
    """Constants of one env instance (``height`` and ``width`` first, from :class:`GridParams`).

    Attributes:
        num_agents: ``N``, agents per world.
        view_radius: each agent sees the ``(2r+1, 2r+1)`` square around itself.
        step_reward: reward of an active agent on a step it does not arrive.
        goal_reward: reward of the step an agent arrives at its goal.
        lifelong: arrived agents get their next goal and stay, instead of leaving the grid.
        goals_per_agent: ``K``, later goals per agent in a lifelong scenario (``0`` otherwise).
    """

    num_agents: int
    view_radius: int = 5
    step_reward: float = -0.01
    goal_reward: float = 1.0
    lifelong: bool = False
    goals_per_agent: int = 0

    @property
    def view_size(self) -> int:
        """The side of an agent's square view, ``2 * view_radius + 1`` cells."""
        return 2 * self.view_radius + 1

    @property
    def padded_shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the map padded by the view radius on every side."""
        r = self.view_radius
        return (self.height + 2 * r, self.width + 2 * r)

    @property
    def padded_cells(self) -> int:
        """Cells of the padded map."""
        rows, cols = self.padded_shape
        return rows * cols

    @functools.cached_property
    def deltas(self) -> np.ndarray:
        """``(5,)`` int64 change of the padded flat index for each action."""
        cols = self.padded_shape[1]
        deltas = ACTION_MOVES[:, 0] * cols + ACTION_MOVES[:, 1]
        deltas.setflags(write=False)
        return deltas


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds of ``N`` agents.

    Attributes:
        walls: ``(B, H + 2r, W + 2r)`` bool, maps padded with ``r`` obstacle cells on every side.
        occupant: ``(B, H + 2r, W + 2r)`` int64, ``world * N + agent`` of the active agent on
            each padded cell, ``-1`` where none.
        tiles: ``(B, H + 2r, W + 2r)`` uint8, what a view shows of each padded cell: ``OBSTACLE``
            (``walls``), ``AGENT`` (``occupant >= 0``) or ``FREE``; see :func:`observe`.
        pos: ``(B, N, 2)`` int64, agent ``(row, col)`` (unpadded); frozen once an agent is removed.
        goal: ``(B, N, 2)`` int64, goal ``(row, col)``.
        active: ``(B, N)`` bool, the agent is on the grid (has not arrived).
        arrival: ``(B, N)`` int64, the step on which the agent arrived (``1`` = first step), ``-1`` before.
        time: ``(B,)`` int64, steps since each world's load.
        goal_sequence: ``(B, N, K, 2)`` int64, each agent's later goals (lifelong; ``K = 0`` otherwise).
        reached: ``(B, N)`` int64, goals each agent has reached since the load (lifelong only).
    """

    walls: np.ndarray
    occupant: np.ndarray
    tiles: np.ndarray
    pos: np.ndarray
    goal: np.ndarray
    active: np.ndarray
    arrival: np.ndarray
    time: np.ndarray
    goal_sequence: np.ndarray
    reached: np.ndarray


def init_state(params: Params, num_worlds: int) -> State:
    """An all-obstacle, agent-less batch; every world must be :func:`load`-ed before it is stepped."""
    n = params.num_agents
    return State(
        walls=np.ones((num_worlds, *params.padded_shape), dtype=bool),
        occupant=np.full((num_worlds, *params.padded_shape), -1, dtype=np.int64),
        tiles=np.full((num_worlds, *params.padded_shape), OBSTACLE, dtype=np.uint8),
        pos=np.zeros((num_worlds, n, 2), dtype=np.int64),
        goal=np.zeros((num_worlds, n, 2), dtype=np.int64),
        active=np.zeros((num_worlds, n), dtype=bool),
        arrival=np.full((num_worlds, n), -1, dtype=np.int64),
        time=np.zeros(num_worlds, dtype=np.int64),
        goal_sequence=np.zeros((num_worlds, n, params.goals_per_agent, 2), dtype=np.int64),
        reached=np.zeros((num_worlds, n), dtype=np.int64),
    )


def load(state: State, world: int, scenario: MapfScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world``: map, agents at their starts, clocks at zero."""
    r, n = params.view_radius, params.num_agents
    state.walls[world, r : r + params.height, r : r + params.width] = scenario.walls
    state.occupant[world] = -1
    state.occupant[world, scenario.starts[:, 0] + r, scenario.starts[:, 1] + r] = world * n + np.arange(n)
    state.tiles[world] = np.where(state.occupant[world] >= 0, AGENT, state.walls[world].astype(np.uint8))
    state.pos[world] = scenario.starts
    state.goal[world] = scenario.goals
    state.active[world] = True
    state.arrival[world] = -1
    state.time[world] = 0
    if params.lifelong:
        assert isinstance(scenario, LifelongMapfScenario)  # for the type checker: the env checked it
        state.goal_sequence[world] = scenario.goal_sequence
        state.reached[world] = 0


@functools.lru_cache(maxsize=64)
def _world_starts(num_worlds: int, cells: int) -> np.ndarray:
    """``(B, 1)`` int64 flat index of each world's first padded cell (cached: a step builds no ``arange``)."""
    starts = (np.arange(num_worlds, dtype=np.int64) * cells)[:, None]
    starts.setflags(write=False)
    return starts


def _padded_flat(state: State, params: Params) -> np.ndarray:
    """``(B, N)`` int64 index into ``walls.ravel()`` of each agent's window's top-left cell.

    That is the padded cell ``(row, col)``; the agent itself sits at ``(row + r, col + r)``.
    """
    num_worlds = state.pos.shape[0]
    cols = params.padded_shape[1]
    return _world_starts(num_worlds, params.padded_cells) + state.pos[..., 0] * cols + state.pos[..., 1]


def _resolve_conflicts(
    movers: np.ndarray, cur: np.ndarray, target: np.ndarray, occupant: np.ndarray, moves: np.ndarray
) -> None:
    """Revert, in ``target``, every move that rule 2 of the module docstring refuses.

    Rule 2 as rounds: each round reverts, at once, every remaining move that has a vertex conflict
    (a lower-index remaining mover has the same target), is blocked (its target's agent stays) or
    swaps. After the first round no two remaining moves share a target and no swap is left (targets
    of remaining moves never change), so a later round can only revert the move into the cell of an
    agent reverted in the round before: the cascade below follows exactly those, instead of re-testing
    every move each round. The move into a cell ``x`` can only come from the 4-neighbours of ``x``.

    Args:
        movers: ``(M,)`` ids of the agents that try to move (``target != cur``), ascending.
        cur: ``(B*N,)`` padded flat cell of every agent.
        target: ``(B*N + 1,)`` each agent's target (``cur`` for non-movers), then ``-1``; updated in place.
        occupant: the flat occupancy board (``-1`` where empty) at the start of the step.
        moves: ``(4,)`` flat index change of each move (up, right, down, left).
    """
    t = target[movers]  # (M,)
    other_target = target[occupant[t]]  # (M,) the target of the agent on each target cell (-1: nobody)
    # blocked: that agent stays (its target is its own cell, t) or moves onto this agent's cell (a swap)
    lose = (other_target == t) | (other_target == cur[movers])
    for move in moves:  # vertex: a lower-index mover from another neighbour of t targets t too
        rival = occupant[t - move]
        lose |= (target[rival] == t) & (rival < movers)
    reverted = movers[lose]
    while reverted.size:
        cells = cur[reverted]
        target[reverted] = cells
        chained = []
        for move in moves:  # the remaining mover (at most one) whose target is a just-reverted agent's cell
            rival = occupant[cells - move]
            chained.append(rival[target[rival] == cells])
        reverted = np.concatenate(chained)


def step(state: State, actions: np.ndarray, params: Params) -> tuple[np.ndarray, np.ndarray]:
    """Advance every world one step by the rules in the module docstring; updates ``state`` in place.

    Args:
        state: the ``B`` worlds, advanced in place.
        params: the simulator's parameters.
        actions: ``(B, N)`` int64, validated for active agents (``0..4``); entries of inactive
            agents are ignored, whatever they hold.

    Returns:
        rewards: ``(B, N)`` float64, ``0.0`` for agents that were not active.
        arrived: ``(B, N)`` bool, the agents that arrived (and were removed, or in lifelong mode
            given their next goal) on this step.
    """
    r, cols = params.view_radius, params.padded_shape[1]
    active = state.active
    walls, occupant = state.walls.ravel(), state.occupant.ravel()
    actions = np.where(active, actions, 0).ravel()  # (B*N,) inactive agents stay, whatever they sent
    cur = (_padded_flat(state, params) + (r * cols + r)).ravel()  # (B*N,) padded flat cell of every agent
    proposed = cur + params.deltas[actions]
    moving = active.ravel() & (proposed != cur)
    moving &= ~walls[proposed]
    movers = np.flatnonzero(moving)  # global agent ids (world * N + agent), ascending
    count = cur.size
    target = np.empty(count + 1, dtype=np.int64)  # target[-1] = -1: looked up for "no agent" (occupant -1)
    target[:count] = cur
    target[count] = -1
    target[movers] = proposed[movers]
    if movers.size:
        _resolve_conflicts(movers, cur, target, occupant, params.deltas[1:])
    moved = np.flatnonzero(target[:count] != cur)  # every move that survived, ascending
    tiles = state.tiles.ravel()
    occupant[cur[moved]] = -1
    occupant[target[moved]] = moved
    tiles[cur[moved]] = FREE  # first every vacated cell, then every entered one (a follower does both)
    tiles[target[moved]] = AGENT
    pos = state.pos.reshape(-1, 2)
    pos[moved] += ACTION_MOVES[actions[moved]]
    at_goal = np.logical_and(state.pos[..., 0] == state.goal[..., 0], state.pos[..., 1] == state.goal[..., 1])
    arrived = active & at_goal
    rewards = np.where(arrived, params.goal_reward, np.where(active, params.step_reward, 0.0))
    state.time += 1
    if arrived.any() and params.lifelong:
        worlds, agents = np.nonzero(arrived)
        index = np.minimum(state.reached[worlds, agents], params.goals_per_agent - 1)  # clamped: see the scenario
        state.goal[worlds, agents] = state.goal_sequence[worlds, agents, index]
        state.reached[worlds, agents] += 1
        if state.arrival[worlds, agents].min() < 0:  # the first arrival of each agent, as in one-shot MAPF
            first = state.arrival[worlds, agents] < 0
            state.arrival[worlds[first], agents[first]] = state.time[worlds[first]]
    elif arrived.any():
        gone = np.flatnonzero(arrived.ravel())
        occupant[target[gone]] = -1
        tiles[target[gone]] = FREE
        active[arrived] = False
        state.arrival[arrived] = np.broadcast_to(state.time[:, None], arrived.shape)[arrived]
    return rewards, arrived


def objective_rewards(
    acting: np.ndarray, pos_before: np.ndarray, pos_after: np.ndarray, arrived: np.ndarray
) -> np.ndarray:
    """The vector rewards of ``benchmarkzoo/MO-MAPF-v0`` for the step that took ``pos_before`` to ``pos_after``.

    Args:
        acting: ``(B, N)`` bool, the agents on the grid at the start of the step.
        pos_before: ``(B, N, 2)`` int64, positions before the step.
        pos_after: ``(B, N, 2)`` int64, positions after it.
        arrived: ``(B, N)`` bool, :func:`step`'s arrivals.

    Returns:
        ``(B, N, 3)`` float32, objectives in :data:`OBJECTIVES` order: ``arrival`` ``1`` on the
        step an agent reaches its goal; ``energy`` ``-1`` on a step it changes cell (the move
        onto its goal included); ``waiting`` ``-1`` on a step it is on the grid and neither
        changes cell nor arrives (it chose "stay", bumped into an obstacle or was blocked).
        Zero for agents that were not on the grid.
    """
    moved = (pos_before != pos_after).any(axis=-1)  # (B, N); removed agents' positions are frozen
    rewards = np.zeros((*acting.shape, len(OBJECTIVES)), dtype=np.float32)
    rewards[..., 0] = arrived
    rewards[..., 1] -= moved  # 0 - x: no negative zeros
    rewards[..., 2] -= acting & ~moved & ~arrived
    return rewards


def observe(state: State, params: Params, mask: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Egocentric observations of every agent of every world (fresh arrays, safe to keep).

    Args:
        state: the ``B`` worlds.
        params: the simulator's parameters.
        mask: ``(B, N)`` bool; agents outside it get all-zero observations (``None``: every agent).

    Returns:
        ``{"goal_direction": (B, N, 2) float32, "view": (B, N, 3, V, V) float32}``. View
        channel 0: obstacles (outside the map counts as obstacle); 1: other active agents;
        2: this agent's goal, if within the window. The agent is at the centre.
        ``goal_direction`` is ``(goal - pos) / (H - 1, W - 1)``, in ``[-1, 1]``.
    """
    num_worlds, n = state.active.shape
    r, size = params.view_radius, params.view_size
    pos = state.pos
    # One gather of every agent's window of tiles (V rows of V bytes each), then two casts to float32:
    # cheaper than gathering three float32 channels.
    window = _windows(state.tiles, params)[_world_column(num_worlds), pos[..., 0], pos[..., 1]]  # (B, N, V, V)
    view = np.zeros((num_worlds, n, NUM_CHANNELS, size, size), dtype=np.float32)
    view[:, :, 0] = window & OBSTACLE
    view[:, :, 1] = window >> 1  # AGENT
    view[:, :, 1, r, r] = 0.0  # the agent itself (or, once removed, nobody)
    offset = state.goal - pos  # (B, N, 2)
    d_row, d_col = offset[..., 0], offset[..., 1]
    seen = np.nonzero((np.abs(d_row) <= r) & (np.abs(d_col) <= r))
    view[seen[0], seen[1], 2, d_row[seen] + r, d_col[seen] + r] = 1.0
    direction = offset.astype(np.float32) / params.goal_scale
    if mask is not None and not mask.all():
        view[~mask] = 0.0
        direction[~mask] = 0.0
    return {"goal_direction": direction, "view": view}


def _windows(tiles: np.ndarray, params: Params) -> np.ndarray:
    """``(B, H, W, V, V)`` read-only view of ``tiles``, one view window per cell.

    ``[w, row, col]`` is the window of the agent at ``(row, col)`` (its top-left padded cell is
    ``(row, col)``). Built per call, never stored: a pickled view would be a copy, no longer
    tracking ``tiles``.
    """
    world, row, col = tiles.strides
    size = params.view_size
    return as_strided(
        tiles,
        shape=(tiles.shape[0], params.height, params.width, size, size),
        strides=(world, row, col, row, col),
        writeable=False,
    )


@functools.lru_cache(maxsize=64)
def _world_column(num_worlds: int) -> np.ndarray:
    """``(B, 1)`` int64 ``0..B-1``, broadcast against ``(B, N)`` agent indices (cached)."""
    worlds = np.arange(num_worlds, dtype=np.int64)[:, None]
    worlds.setflags(write=False)
    return worlds


def episode_metrics(state: State) -> dict[str, np.ndarray]:
    """POGEMA's episode metrics of every world, as of now (read them when an episode ends).

    Returns:
        ``success_rate`` ``(B,)`` float64: fraction of agents that arrived (individual success);
        ``cooperative_success`` ``(B,)`` bool: every agent arrived;
        ``makespan`` ``(B,)`` int64: the step the last agent arrived, or the episode length if
        some agent did not; ``sum_of_costs`` ``(B,)`` int64: the sum over agents of their arrival
        step, the episode length for agents that did not arrive.
    """
    arrived = state.arrival >= 0  # (B, N)
    cost = np.where(arrived, state.arrival, state.time[:, None])
    everyone = arrived.all(axis=1)
    return {
        "success_rate": arrived.mean(axis=1),
        "cooperative_success": everyone,
        "makespan": np.where(everyone, cost.max(axis=1), state.time),
        "sum_of_costs": cost.sum(axis=1),
    }


def lifelong_metrics(state: State) -> dict[str, np.ndarray]:
    """Lifelong episode metrics of every world, as of now (read them when an episode ends).

    Returns:
        ``goals_reached`` ``(B,)`` int64: goals reached by all agents together;
        ``throughput`` ``(B,)`` float64: ``goals_reached / time``, goals per step (POGEMA's
        lifelong throughput); ``0.0`` before the first step.
    """
    goals = state.reached.sum(axis=1)
    return {"goals_reached": goals, "throughput": goals / np.maximum(state.time, 1)}
