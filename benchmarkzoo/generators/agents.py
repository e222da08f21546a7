"""Shared samplers for multi-agent grid worlds: connected components, start and goal placement.

Maps are ``(height, width)`` boolean arrays, ``True`` for a wall, as in :mod:`benchmarkzoo.generators.grids`.
Positions are ``(row, col)``. Every sampler draws only from the ``rng`` it is given, in bulk
and in a fixed order, so its output is a function of the generator state.
"""

from __future__ import annotations

import numpy as np

from benchmarkzoo.generators.grids import bfs_list


def components(walls: np.ndarray) -> tuple[np.ndarray, list[list[int]]]:
    """4-connected components of the free cells.

    Returns:
        label: ``(height * width,)`` int64, the component of each flat cell, ``-1`` on walls.
        cells: for each component (numbered in row-major order of its first cell), its flat
            cells in breadth-first order from that first cell.
    """
    height, width = walls.shape
    free = (~np.asarray(walls, dtype=bool).ravel()).tolist()
    label = [-1] * (height * width)
    cells: list[list[int]] = []
    for source in range(height * width):
        if free[source] and label[source] < 0:
            _, order = bfs_list(free, height, width, source)
            for cell in order:
                label[cell] = len(cells)
            cells.append(order)
    return np.asarray(label, dtype=np.int64), cells


def sample_starts_goals(
    rng: np.random.Generator, walls: np.ndarray, num_agents: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Starts and goals for ``num_agents`` agents: ``2 * num_agents`` distinct free cells, each goal
    in its start's component (so reachable from it when the other agents are out of the way).

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
    remaining = np.array([len(c) for c in cells], dtype=np.int64)  # unused cells per component
    unused = label >= 0  # (H * W,) free and not yet taken
    starts, goals = [], []
    for k in range(num_agents):
        candidates = np.flatnonzero(unused & (remaining[np.maximum(label, 0)] >= 2))  # row-major
        if candidates.size == 0:
            return None
        start = int(candidates[int(draws[2 * k] * candidates.size)])
        unused[start] = False
        component = int(label[start])
        options = [cell for cell in cells[component] if unused[cell]]  # breadth-first from the component's root
        goal = options[int(draws[2 * k + 1] * len(options))]
        unused[goal] = False
        remaining[component] -= 2
        starts.append(divmod(start, width))
        goals.append(divmod(goal, width))
    return np.asarray(starts, dtype=np.int64).reshape(num_agents, 2), np.asarray(goals, dtype=np.int64).reshape(
        num_agents, 2
    )
