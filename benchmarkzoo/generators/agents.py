"""Shared samplers for multi-agent grid worlds: connected components, start and goal placement.

Maps are ``(height, width)`` boolean arrays, ``True`` for a wall, as in :mod:`benchmarkzoo.generators.grids`.
Positions are ``(row, col)``. Every sampler draws only from the ``rng`` it is given, in bulk
and in a fixed order, so its output is a function of the generator state.
"""

from __future__ import annotations

import functools

import numpy as np

from benchmarkzoo.generators.grids import grid_neighbours


def components(walls: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """4-connected components of the free cells.

    Returns:
        label: ``(height * width,)`` int64, the component of each flat cell, ``-1`` on walls.
        cells: for each component (numbered in row-major order of its first cell), an int64
            array of its flat cells in breadth-first order from that first cell (neighbours in
            action order: up, right, down, left).

    Both are read-only: the last few results are cached by map (a generator labels a map, then the
    scenario it builds checks the map again), so callers share them.
    """
    walls = np.asarray(walls, dtype=bool)
    return _components(walls.shape, walls.tobytes())


@functools.lru_cache(maxsize=8)
def _components(shape: tuple[int, int], data: bytes) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    height, width = shape
    walls = np.frombuffer(data, dtype=bool)
    neighbours = grid_neighbours(height, width)
    free = (~walls).tolist()
    label = [-1] * (height * width)
    cells: list[np.ndarray] = []
    for source in range(height * width):
        if not free[source] or label[source] >= 0:
            continue
        number = len(cells)
        label[source] = number
        order = [source]
        push = order.append
        for cell in order:  # one shared label list, so every cell is visited once over all components
            for nb in neighbours[cell]:
                if label[nb] < 0 and free[nb]:
                    label[nb] = number
                    push(nb)
        component = np.array(order, dtype=np.int64)
        component.setflags(write=False)
        cells.append(component)
    labels = np.array(label, dtype=np.int64)
    labels.setflags(write=False)
    return labels, tuple(cells)


def sample_starts_goals(
    rng: np.random.Generator, walls: np.ndarray, num_agents: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Starts and goals for ``num_agents`` agents: ``2 * num_agents`` distinct free cells.

    Each goal lies in its start's component (so it is reachable from it when the other agents are
    out of the way).

    Agent ``k`` draws its start uniformly among the unused free cells whose component still
    has another unused cell, then its goal uniformly among the unused cells of that component.
    Draws ``2 * num_agents`` uniforms at once, whether or not placement succeeds.

    Returns:
        ``(starts, goals)``, each ``(num_agents, 2)`` int64, or ``None`` when the map has too
        few free cells in shared components (the caller redraws the map).
    """
    width = walls.shape[1]
    draws = rng.random(2 * num_agents).tolist()
    label, cells = components(walls)
    remaining = [len(c) for c in cells]  # unused cells per component
    unused = label >= 0  # (H * W,) free and not yet taken
    sizes = np.array(remaining, dtype=np.int64)
    open_cell = unused & (sizes[np.maximum(label, 0)] >= 2)  # unused, and its component has another unused cell
    placed = np.empty(2 * num_agents, dtype=np.int64)  # start, goal, start, goal, ... (flat cells)
    for k in range(num_agents):
        candidates = open_cell.nonzero()[0]  # row-major
        if candidates.size == 0:
            return None
        start = int(candidates[int(draws[2 * k] * candidates.size)])
        unused[start] = False
        component = int(label[start])
        order = cells[component]
        options = order[unused[order]]  # breadth-first from the component's root
        goal = int(options[int(draws[2 * k + 1] * options.size)])
        unused[goal] = False
        open_cell[start] = open_cell[goal] = False
        remaining[component] -= 2
        if remaining[component] < 2:
            open_cell[order] = False
        placed[2 * k], placed[2 * k + 1] = start, goal
    rows, cols = np.divmod(placed.reshape(num_agents, 2), width)
    return np.stack([rows[:, 0], cols[:, 0]], axis=1), np.stack([rows[:, 1], cols[:, 1]], axis=1)
