"""Shared samplers for grid worlds: maze carving, obstacle fields, rooms, reachability.

Maps are ``(height, width)`` boolean arrays, ``True`` for a wall. Positions are ``(row, col)``.
Every sampler draws only from the ``rng`` it is given, in a fixed order, so its output is a
function of the generator state (the scenario hash tests hold it to that).

Samplers draw their random numbers in bulk (one ``rng.random(n)`` call, then plain Python
floats): an env redraws its map on every reset, and at thousands of worlds per vector env one
``rng.integers`` call per choice (~0.8 µs each) used to cost more than the simulation itself.
A uniform ``u`` in ``[0, 1)`` picks item ``int(u * n)`` of ``n``.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from benchmarkzoo.generators import kernels

#: Moves in action order: up, right, down, left, as (d_row, d_col).
MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]], dtype=np.int64)
_MOVE_PAIRS = tuple((int(dr), int(dc)) for dr, dc in MOVES)  # MOVES as Python ints, for the planners' loops


@dataclasses.dataclass(frozen=True)
class GridParams:
    """The map size a grid world's simulator constants start with, and what follows from it alone.

    Attributes:
        height: map rows (every world in a batch has the same map size).
        width: map columns.
    """

    height: int
    width: int

    @functools.cached_property
    def goal_scale(self) -> np.ndarray:
        """``(2,)`` read-only float32 divisor of ``goal - pos``: the observation's goal offset in ``[-1, 1]``."""
        scale = np.array([max(self.height - 1, 1), max(self.width - 1, 1)], dtype=np.float32)
        scale.setflags(write=False)
        return scale


@functools.lru_cache(maxsize=64)
def grid_neighbours(height: int, width: int) -> tuple[tuple[int, ...], ...]:
    """For each flat cell ``row * width + col``, its in-map 4-neighbours in action order (cached per shape)."""
    neighbours = []
    for cell in range(height * width):
        r, c = divmod(cell, width)
        around = []
        if r > 0:
            around.append(cell - width)
        if c < width - 1:
            around.append(cell + 1)
        if r < height - 1:
            around.append(cell + width)
        if c > 0:
            around.append(cell - 1)
        neighbours.append(tuple(around))
    return tuple(neighbours)


@functools.lru_cache(maxsize=64)
def _dfs_tables(height: int, width: int) -> tuple[tuple[int, ...], tuple[tuple[tuple[int, int, int], ...], ...]]:
    """The carving geometry of an odd ``height x width`` DFS maze (cached per shape).

    Returns:
        map_cell: the flat map index of each maze cell (cells sit at odd coordinates).
        moves: for each maze cell, ``(neighbour cell, flat index of the wall between, flat index
            of the neighbour)`` in action order.
    """
    cells_h, cells_w = (height - 1) // 2, (width - 1) // 2
    map_cell = tuple(
        (2 * (cell // cells_w) + 1) * width + 2 * (cell % cells_w) + 1 for cell in range(cells_h * cells_w)
    )
    moves = tuple(
        tuple((nb, (map_cell[cell] + map_cell[nb]) // 2, map_cell[nb]) for nb in around)
        for cell, around in enumerate(grid_neighbours(cells_h, cells_w))
    )
    return map_cell, moves


def dfs_maze(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A perfect maze (exactly one path between any two free cells) by randomized depth-first search.

    Cells sit at odd coordinates; the outer ring is wall. ``height`` and ``width`` must be odd.
    Draws one uniform per maze cell at once: the first picks the start cell, the k-th the k-th carve.

    Returns:
        walls: ``(height, width)`` bool.
    """
    map_cell, moves = _dfs_tables(height, width)
    num_cells = len(map_cell)
    if kernels.ENABLED:
        return kernels.carve_maze(rng.random(num_cells), height, width)
    draws = rng.random(num_cells).tolist()
    free = bytearray(height * width)  # 1 where carved
    visited = [False] * num_cells
    current = int(draws[0] * num_cells)
    visited[current] = True
    free[map_cell[current]] = 1
    stack = [current]
    carve = 1
    while stack:
        options = [move for move in moves[stack[-1]] if not visited[move[0]]]
        if not options:
            stack.pop()
            continue
        nxt, between, target = options[int(draws[carve] * len(options))]
        carve += 1
        visited[nxt] = True
        free[between] = 1
        free[target] = 1
        stack.append(nxt)
    return np.frombuffer(free, dtype=np.uint8).reshape(height, width) == 0


def obstacle_field(rng: np.random.Generator, height: int, width: int, density: float) -> np.ndarray:
    """Independent obstacles: each cell is a wall with probability ``density``.

    Returns:
        walls: ``(height, width)`` bool.
    """
    return rng.random((height, width)) < density


def room_bounds(side: int, rooms: int) -> list[int]:
    """Rows (or columns) of the ``rooms + 1`` wall lines that split ``side`` cells into ``rooms`` rooms.

    Evenly spaced, the first and last on the map's border. Every room is at least one cell
    across when ``side >= 2 * rooms + 1``.
    """
    return [round(k * (side - 1) / rooms) for k in range(rooms + 1)]


def rooms_layout(height: int, width: int, rooms_high: int, rooms_wide: int) -> tuple[np.ndarray, list[list[int]]]:
    """The doorless rooms of a map and the walls between them.

    Returns:
        walls: ``(height, width)`` bool, the border and every wall line.
        segments: for each wall between two neighbouring rooms, its flat cells in order (the
            cells a door can be cut in); vertical walls first (row-major by room), then horizontal.
    """
    rows, cols = room_bounds(height, rooms_high), room_bounds(width, rooms_wide)
    walls = np.zeros((height, width), dtype=bool)
    walls[rows, :] = True
    walls[:, cols] = True
    segments = []
    for i in range(rooms_high):
        for j in range(1, rooms_wide):
            segments.append([r * width + cols[j] for r in range(rows[i] + 1, rows[i + 1])])
    for i in range(1, rooms_high):
        for j in range(rooms_wide):
            segments.append([rows[i] * width + c for c in range(cols[j] + 1, cols[j + 1])])
    return walls, segments


def rooms_map(
    rng: np.random.Generator, height: int, width: int, rooms_high: int, rooms_wide: int, doors_per_wall: int
) -> np.ndarray:
    """A grid of rooms with ``doors_per_wall`` doors in every wall between two neighbouring rooms.

    Every such wall has a door, so every room (and every free cell) is reachable. Door cells
    are drawn without replacement along each wall, ``doors_per_wall`` uniforms per wall.

    Returns:
        walls: ``(height, width)`` bool.
    """
    walls, segments = rooms_layout(height, width, rooms_high, rooms_wide)
    flat = walls.ravel()  # a view: writes reach ``walls``
    draws = rng.random(len(segments) * doors_per_wall).tolist()
    k = 0
    for segment in segments:
        cells = list(segment)
        for _ in range(doors_per_wall):
            flat[cells.pop(int(draws[k] * len(cells)))] = False
            k += 1
    return walls


def bfs_list(free: list[bool], height: int, width: int, source: int) -> tuple[list[int], list[int]]:
    """Breadth-first search on flat Python lists (what :func:`bfs_distances` and the samplers run).

    Args:
        free: ``free[row * width + col]`` is ``True`` for a free cell.
        height: the grid's number of rows.
        width: the grid's number of columns.
        source: flat index of a free cell.

    Returns:
        dist: path length to every cell, ``-1`` where unreachable.
        order: the reachable cells in the order visited (non-decreasing distance).
    """
    neighbours = grid_neighbours(height, width)
    dist = [-1] * (height * width)
    dist[source] = 0
    order = [source]
    push = order.append
    for cell in order:  # the list is the queue: BFS appends at the end while reading from the front
        d = dist[cell] + 1
        for nb in neighbours[cell]:
            if dist[nb] < 0 and free[nb]:
                dist[nb] = d
                push(nb)
    return dist, order


def bfs_distances(walls: np.ndarray, source: tuple[int, int]) -> np.ndarray:
    """Shortest 4-connected path lengths from ``source`` to every cell.

    Args:
        walls: ``(height, width)`` bool.
        source: ``(row, col)`` of a free cell.

    Returns:
        ``(height, width)`` int64, ``-1`` where unreachable (walls included).
    """
    height, width = walls.shape
    free = (~np.asarray(walls).ravel()).tolist()  # python lists: ~5x faster than numpy scalar indexing here
    dist, _ = bfs_list(free, height, width, int(source[0]) * width + int(source[1]))
    return np.asarray(dist, dtype=np.int64).reshape(height, width)


def sample_start_goal(
    rng: np.random.Generator, walls: np.ndarray, min_distance: int
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """A uniformly drawn free start and a goal reachable from it at least ``min_distance`` steps away.

    Draws two uniforms (start, goal) whether or not a goal is found.

    Returns:
        ``(start, goal)``, or ``None`` when the map has no free cell or the start's component
        has no cell that far (the caller redraws the map).
    """
    height, width = walls.shape
    u_start, u_goal = rng.random(2).tolist()
    if kernels.ENABLED:
        start_cell, goal_cell = kernels.start_goal(walls, min_distance, u_start, u_goal)
        return None if goal_cell < 0 else (divmod(start_cell, width), divmod(goal_cell, width))
    flat = walls.ravel()
    free_cells = np.flatnonzero(~flat)  # (F,) row-major
    if free_cells.size == 0:
        return None
    start = int(free_cells[int(u_start * free_cells.size)])
    dist, order = bfs_list((~flat).tolist(), height, width, start)
    near = 0  # order[near:] are the cells at least min_distance away (order is sorted by distance)
    while near < len(order) and dist[order[near]] < min_distance:
        near += 1
    if near == len(order):
        return None
    goal = order[near + int(u_goal * (len(order) - near))]
    return divmod(start, width), divmod(goal, width)


def downhill_move(dist: np.ndarray, row: int, col: int) -> int:
    """The move (an index into :data:`MOVES`) to the neighbour of ``(row, col)`` nearest the target.

    Args:
        dist: ``(H, W)`` distances to the target, negative where it is unreachable (as
            :func:`bfs_distances` returns them).
        row: the current cell's row.
        col: the current cell's column.

    Returns:
        the move onto the in-grid neighbour with the smallest non-negative distance, the first
        in :data:`MOVES` order on a tie; 0 when no neighbour reaches the target.
    """
    height, width = dist.shape
    best, best_dist = 0, np.inf
    for action, (dr, dc) in enumerate(_MOVE_PAIRS):
        r, c = row + dr, col + dc
        if 0 <= r < height and 0 <= c < width and 0 <= dist[r, c] < best_dist:
            best, best_dist = action, dist[r, c]
    return best
