"""Compiled inner loops of the grid samplers, used when numba is installed (the ``fast`` extra).

A native vector env redraws a world's map at every autoreset, and two loops of
:mod:`benchmarkzoo.generators.grids` (the depth-first carve of a maze, the breadth-first search
that places start and goal) are most of that cost in Python. Neither can be batched across
worlds in numpy: each is a sequence of choices that depends on the previous ones. Here they are
the same loops compiled by numba, over the same tables, reading the same uniforms drawn by the
caller from the same generator in the same order, so their output is bit-identical to the
Python loops' (``tests/test_kernels.py`` checks it over thousands of seeds and shapes).

Without numba, or with ``BENCHMARKZOO_NUMBA=0`` in the environment, :data:`ENABLED` is
``False`` and the samplers run their Python loops: the results are the same, only slower.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from typing import Any

import numpy as np

#: The compiled kernels are used (numba importable and not switched off by ``BENCHMARKZOO_NUMBA=0``).
ENABLED = importlib.util.find_spec("numba") is not None and os.environ.get("BENCHMARKZOO_NUMBA", "1") != "0"


@functools.cache
def _compiled(function: Any) -> Any:
    """``function`` compiled by numba, on first use: importing numba costs a second, so no import pays it.

    The machine code is cached on disk (numba's cache, beside this file or in the user's cache
    folder), so only the first process that ever runs a kernel compiles it.
    """
    import numba

    try:
        return numba.njit(cache=True, nogil=True)(function)
    except RuntimeError:  # numba finds no writable cache folder (read-only install, no home): compile per process
        return numba.njit(nogil=True)(function)


def _carve(draws: np.ndarray, map_cell: np.ndarray, moves: np.ndarray, num_moves: np.ndarray, free: np.ndarray) -> None:
    # The loop of grids.dfs_maze over arrays: options are the unvisited neighbours in action order,
    # and the k-th carve takes option int(draws[k] * len(options)).
    num_cells = map_cell.shape[0]
    visited = np.zeros(num_cells, dtype=np.bool_)
    stack = np.empty(num_cells, dtype=np.int64)
    options = np.empty(4, dtype=np.int64)
    current = int(draws[0] * num_cells)
    visited[current] = True
    free[map_cell[current]] = 1
    stack[0] = current
    depth = 1
    carve = 1
    while depth > 0:
        top = stack[depth - 1]
        count = 0
        for k in range(num_moves[top]):
            if not visited[moves[top, k, 0]]:
                options[count] = k
                count += 1
        if count == 0:
            depth -= 1
            continue
        k = options[int(draws[carve] * count)]
        carve += 1
        nxt = moves[top, k, 0]
        visited[nxt] = True
        free[moves[top, k, 1]] = 1
        free[moves[top, k, 2]] = 1
        stack[depth] = nxt
        depth += 1


def _start_goal(
    walls: np.ndarray,
    neighbours: np.ndarray,
    num_neighbours: np.ndarray,
    min_distance: int,
    u_start: float,
    u_goal: float,
) -> tuple[int, int]:
    # grids.sample_start_goal over arrays: the start is free cell int(u_start * F) in row-major order,
    # the goal is drawn among the start's component at min_distance or more, in BFS order.
    num_free = 0
    for cell in range(walls.shape[0]):
        if not walls[cell]:
            num_free += 1
    if num_free == 0:
        return -1, -1
    target = int(u_start * num_free)
    start = -1
    for cell in range(walls.shape[0]):
        if not walls[cell]:
            if target == 0:
                start = cell
                break
            target -= 1
    dist = np.full(walls.shape[0], -1, dtype=np.int64)
    order = np.empty(walls.shape[0], dtype=np.int64)
    dist[start] = 0
    order[0] = start
    length = 1
    head = 0
    while head < length:
        cell = order[head]
        head += 1
        d = dist[cell] + 1
        for k in range(num_neighbours[cell]):
            nb = neighbours[cell, k]
            if dist[nb] < 0 and not walls[nb]:
                dist[nb] = d
                order[length] = nb
                length += 1
    near = 0
    while near < length and dist[order[near]] < min_distance:
        near += 1
    if near == length:
        return start, -1
    return start, order[near + int(u_goal * (length - near))]


@functools.lru_cache(maxsize=64)
def _neighbour_table(height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`grids.grid_neighbours` as a ``(cells, 4)`` int64 table and a ``(cells,)`` count."""
    from benchmarkzoo.generators.grids import grid_neighbours

    around = grid_neighbours(height, width)
    table = np.zeros((len(around), 4), dtype=np.int64)
    counts = np.array([len(cells) for cells in around], dtype=np.int64)
    for cell, cells in enumerate(around):
        table[cell, : len(cells)] = cells
    return table, counts


@functools.lru_cache(maxsize=64)
def _carve_tables(height: int, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``grids._dfs_tables`` as arrays: map cells ``(C,)``, moves ``(C, 4, 3)``, move counts ``(C,)``."""
    from benchmarkzoo.generators.grids import _dfs_tables

    map_cell, moves = _dfs_tables(height, width)
    table = np.zeros((len(moves), 4, 3), dtype=np.int64)
    counts = np.array([len(options) for options in moves], dtype=np.int64)
    for cell, options in enumerate(moves):
        table[cell, : len(options)] = options
    return np.asarray(map_cell, dtype=np.int64), table, counts


def carve_maze(draws: np.ndarray, height: int, width: int) -> np.ndarray:
    """The walls :func:`grids.dfs_maze` carves from ``draws`` (its uniforms, one per maze cell)."""
    map_cell, moves, counts = _carve_tables(height, width)
    free = np.zeros(height * width, dtype=np.uint8)
    _compiled(_carve)(draws, map_cell, moves, counts, free)
    return free.reshape(height, width) == 0


def start_goal(walls: np.ndarray, min_distance: int, u_start: float, u_goal: float) -> tuple[int, int]:
    """Flat ``(start, goal)`` as :func:`grids.sample_start_goal` places them; ``-1`` where none is found."""
    height, width = walls.shape
    neighbours, counts = _neighbour_table(height, width)
    start, goal = _compiled(_start_goal)(walls.ravel(), neighbours, counts, min_distance, u_start, u_goal)
    return int(start), int(goal)
