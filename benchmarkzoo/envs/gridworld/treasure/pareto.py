"""Exact Pareto fronts of treasure scenarios.

The dynamics are deterministic and an episode ends at the first treasure, so every policy's
return is the return of one path to one treasure, or of reaching none before the time limit
``T`` (``[0, -T]``, discounted ``[0, -(1 - gamma**T) / (1 - gamma)]``), which every reachable
treasure dominates.
A longer path to the same treasure pays the same (discounted: less) value and more time, so
only the shortest path to each treasure can be Pareto-optimal; breadth-first search finds it.
Paths may not pass through another treasure: entering one ends the episode.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from numpy.typing import ArrayLike

from benchmarkzoo.envs.gridworld.treasure.generator import TreasureScenario


def treasure_distances(scenario: TreasureScenario) -> np.ndarray:
    """Steps of the shortest path from the start to each treasure that crosses no other treasure.

    Returns:
        ``(K,)`` int64, in ``scenario.treasure_pos`` order; ``-1`` for an unreachable treasure.
    """
    height, width = scenario.shape
    blocked = scenario.rock.ravel().tolist()
    is_treasure = [False] * (height * width)
    for r, c in scenario.treasure_pos.tolist():
        is_treasure[r * width + c] = True
    dist = [-1] * (height * width)
    start = scenario.start[0] * width + scenario.start[1]
    dist[start] = 0
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if is_treasure[cell]:
            continue  # the episode ends here: no path continues through a treasure
        r, c = divmod(cell, width)
        d = dist[cell] + 1
        neighbours = (
            (cell - width, r > 0),
            (cell + 1, c < width - 1),
            (cell + width, r < height - 1),
            (cell - 1, c > 0),
        )
        for nb, ok in neighbours:
            if ok and not blocked[nb] and dist[nb] < 0:
                dist[nb] = d
                queue.append(nb)
    return np.array([dist[r * width + c] for r, c in scenario.treasure_pos.tolist()], dtype=np.int64)


def discounted_returns(values: ArrayLike, steps: ArrayLike, gamma: float) -> np.ndarray:
    """Returns of reaching treasures worth ``values`` on step ``steps`` (``>= 1``).

    The value is paid on the last step, the ``-1`` time penalty on every step:
    ``[value * gamma**(d - 1), -(1 - gamma**d) / (1 - gamma)]`` (``-d`` when ``gamma == 1``).

    Returns:
        ``(K, 2)`` float64.
    """
    d = np.asarray(steps, dtype=np.float64)
    time = -d if gamma == 1.0 else -(1.0 - gamma**d) / (1.0 - gamma)
    return np.stack([np.asarray(values, dtype=np.float64) * gamma ** (d - 1.0), time], axis=1)


def paid_values(scenario: TreasureScenario) -> np.ndarray:
    """``(K,)`` float64: the treasure values as the env pays them (rounded to float32)."""
    return scenario.treasure_value.astype(np.float32).astype(np.float64)


def treasure_returns(
    scenario: TreasureScenario, gamma: float = 1.0, max_steps: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The best return of going to each treasure reachable within ``max_steps`` steps.

    Returns:
        ``(indices, returns)``: ``(M,)`` int64 indices into the scenario's treasures, and
        ``(M, 2)`` float64 returns, one row per reachable treasure.
    """
    _check_gamma(gamma)
    dist = treasure_distances(scenario)
    reachable = (dist > 0) & (dist <= max_steps if max_steps is not None else True)
    indices = np.flatnonzero(reachable)
    return indices, discounted_returns(paid_values(scenario)[indices], dist[indices], gamma)


def non_dominated(points: np.ndarray) -> np.ndarray:
    """``(M,)`` bool: which rows of ``points`` (``(M, 2)``, maximized) no other row dominates.

    Of several identical points only the first is kept.
    """
    points = np.asarray(points, dtype=np.float64)
    keep = np.ones(len(points), dtype=bool)
    for i, p in enumerate(points):
        geq = (points >= p).all(axis=1)
        dominated = geq & (points > p).any(axis=1)
        duplicate_before = (points[:i] == p).all(axis=1).any()
        keep[i] = not dominated.any() and not duplicate_before
    return keep


def pareto_front(scenario: TreasureScenario, gamma: float = 1.0, max_steps: int | None = None) -> np.ndarray:
    """The exact Pareto front of ``scenario``'s discounted vector returns.

    Args:
        scenario: the sea.
        gamma: discount factor in ``(0, 1]``.
        max_steps: the episode's time limit (treasures farther away cannot be reached), or
            ``None`` for no limit.

    Returns:
        ``(P, 2)`` float64 ``[treasure value, time]`` points, sorted by increasing value (so by
        decreasing time); convex and non-convex parts alike. Empty ``(0, 2)`` when no
        treasure is within reach and ``max_steps`` is ``None``; ``[[0, -T]]`` (discounted)
        when none is within reach of a limit ``T``.
    """
    _, returns = treasure_returns(scenario, gamma, max_steps)
    if max_steps is not None:  # the return of reaching no treasure before the limit
        returns = np.concatenate([returns, [[0.0, discounted_returns([0.0], [max_steps], gamma)[0, 1]]]])
    front = returns[non_dominated(returns)]
    return front[np.lexsort((front[:, 1], front[:, 0]))]


def convex_coverage_set(scenario: TreasureScenario, gamma: float = 1.0, max_steps: int | None = None) -> np.ndarray:
    """The Pareto points that maximize ``w @ point`` for some weights ``w >= 0``, ``sum(w) = 1``.

    Points on a flat stretch of the convex hull (optimal only in a tie) are included.

    Returns:
        ``(C, 2)`` float64, a subset of :func:`pareto_front`, in the same order.
    """
    front = pareto_front(scenario, gamma, max_steps)
    keep = np.zeros(len(front), dtype=bool)
    scale = max(1.0, float(np.abs(front).max())) if len(front) else 1.0
    tol = 1e-12 * scale
    for i, p in enumerate(front):
        # p is optimal for w = (lam, 1 - lam) iff lam * (p0 - q0 - p1 + q1) >= q1 - p1 for every q.
        low, high = 0.0, 1.0
        for q in front:
            slope = (p[0] - q[0]) - (p[1] - q[1])
            rhs = q[1] - p[1]
            if slope > 0:
                low = max(low, (rhs - tol) / slope)
            elif slope < 0:
                high = min(high, (rhs - tol) / slope)
            elif rhs > tol:
                low, high = 1.0, 0.0
        keep[i] = low <= high
    return front[keep]


def _check_gamma(gamma: float) -> None:
    if not isinstance(gamma, int | float | np.floating) or not 0.0 < float(gamma) <= 1.0:
        raise ValueError(f"gamma must be a number in (0, 1]; got {gamma!r}.")
