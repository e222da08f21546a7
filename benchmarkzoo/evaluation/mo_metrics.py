"""Multi-objective aggregates of a task, from its episodes' vector returns alone.

The point set. The protocol evaluates one policy, so there is no set of policies to take a
front of; the task's point set is the episodes' return vectors, one point per episode (every
shipped multi-objective task plays each scenario once). Hypervolume, expected utility and
sparsity are those of this set (equivalently of its non-dominated subset), as MORL papers
report them for a set of policies' returns (Hayes et al., 2022, "A practical guide to
multi-objective reinforcement learning and planning"; the indicators of morl-baselines):

* **hypervolume**: the area (volume) dominated by the points and dominating the task's fixed
  reference point, computed by pymoo's ``HV`` (exact; objectives are maximized).
* **expected utility**: ``mean over w in W of max over points p of w @ p`` (Zintgraf et al.,
  2015), with ``W`` the simplex lattice of step ``1 / weight_steps``.
* **sparsity**: over the non-dominated points, per objective, the sum of squared gaps between
  neighbours in sorted order, summed over objectives and divided by ``points - 1``.

When the env knows its exact Pareto front, each scenario's front is recorded in the results,
and two more aggregates say how close the policy came to it:

* **pareto_optimal_rate**: the fraction of episodes whose return is a point of its scenario's front.
* **front_coverage**: over the distinct scenarios played, the fraction of their front points
  some episode attained. A policy that plays one trade-off per scenario covers about
  ``1 / front size``; covering a front takes several episodes per scenario and a policy that varies.

Pooling returns of different scenarios into one point set mixes fronts: a return that is poor in
its own sea can dominate a good return of a harder one. So hypervolume, expected utility and
sparsity above are labelled *pooled*, and with exact fronts each scenario is also scored against
its own front (:func:`scenario_scores`), then aggregated across scenarios with the IQM and
bootstrap interval every other task score gets:

* **hypervolume ratio**: ``HV(the scenario's episode returns) / HV(its front)``, both against
  the task's reference point; in ``[0, 1]``, 1 only when the returns attain the whole front.
* **utility loss**: ``EU(front) - EU(the scenario's returns)`` over the task's weight set (the
  expected utility loss of Zintgraf et al., 2015); 0 when, for every weight, some return is as
  good as the best front point.

The scalar score of a multi-objective task (for normalization and the suite IQM) is separate
and explicit in the suite: see :class:`benchmarkzoo.evaluation.suites.Score`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

#: Two returns closer than this (relative to their magnitude, at least 1) are the same point.
ATOL = 1e-6


def weight_set(num_objectives: int, steps: int) -> np.ndarray:
    """The simplex lattice ``{w >= 0, sum(w) = 1, w * steps integer}``.

    Returns:
        ``(C(steps + m - 1, m - 1), m)`` float64, in lexicographic order of the integer lattice
        (for ``m = 2``, ``steps = 10``: ``[0, 1], [0.1, 0.9], ..., [1, 0]``).
    """
    rows = [c for c in itertools.product(range(steps + 1), repeat=num_objectives) if sum(c) == steps]
    return np.asarray(rows, dtype=np.float64) / steps


def non_dominated(points: np.ndarray) -> np.ndarray:
    """The distinct non-dominated rows of ``points`` ``(n, m)`` (maximized), sorted lexicographically."""
    points = np.unique(np.asarray(points, dtype=np.float64).reshape(len(points), -1), axis=0)
    keep = [not ((points >= p).all(axis=1) & (points > p).any(axis=1)).any() for p in points]
    return points[np.asarray(keep, dtype=bool)] if len(points) else points


def hypervolume(points: np.ndarray, reference_point: Sequence[float]) -> float:
    """Volume dominated by ``points`` ``(n, m)`` (maximized) and dominating ``reference_point`` (pymoo's exact HV)."""
    from pymoo.indicators.hv import HV

    ref = np.asarray(reference_point, dtype=np.float64)
    points = np.asarray(points, dtype=np.float64)
    inside = points[(points > ref).all(axis=1)] if len(points) else points
    if len(inside) == 0:
        return 0.0
    return float(HV(ref_point=-ref)(-inside))  # pymoo minimizes


def expected_utility(points: np.ndarray, weights: np.ndarray) -> float:
    """``mean over weights w of max over points p of w @ p``; ``points`` ``(n, m)``, ``weights`` ``(k, m)``."""
    return float(np.mean(np.max(np.asarray(weights) @ np.asarray(points, dtype=np.float64).T, axis=1)))


def sparsity(points: np.ndarray) -> float:
    """Mean squared gap between neighbouring non-dominated points, per objective (morl-baselines' ``sparsity``)."""
    front = non_dominated(points)
    if len(front) < 2:
        return 0.0
    gaps = np.diff(np.sort(front, axis=0), axis=0)  # (p - 1, m)
    return float(np.sum(gaps**2) / (len(front) - 1))


def _on(point: np.ndarray, front: np.ndarray) -> np.ndarray:
    """``(P,)`` bool: which rows of ``front`` ``point`` equals (within :data:`ATOL`)."""
    tol = ATOL * np.maximum(1.0, np.abs(front))
    return (np.abs(front - point) <= tol).all(axis=1)


def front_attainment(
    returns: Sequence[Sequence[float]], scenario_hashes: Sequence[str], fronts: Mapping[str, Sequence[Sequence[float]]]
) -> tuple[float, float]:
    """``(pareto_optimal_rate, front_coverage)`` of episodes' returns against their scenarios' exact fronts."""
    attained: dict[str, np.ndarray] = {}
    optimal = 0
    for ret, key in zip(returns, scenario_hashes):
        front = np.asarray(fronts[key], dtype=np.float64).reshape(-1, len(ret))
        hit = _on(np.asarray(ret, dtype=np.float64), front)
        optimal += bool(hit.any())
        attained[key] = attained.get(key, np.zeros(len(front), dtype=bool)) | hit
    total = sum(len(a) for a in attained.values())
    covered = sum(int(a.sum()) for a in attained.values())
    return optimal / len(returns), (covered / total if total else 0.0)


def front_hypervolume(front: np.ndarray, reference_point: Sequence[float], scenario: str) -> float:
    """``HV(front)``; raises ``ValueError`` naming ``scenario`` when the front dominates none of the reference box."""
    volume = hypervolume(front, reference_point)
    if volume <= 0.0:
        raise ValueError(
            f"scenario {scenario}: its Pareto front {front.tolist()} dominates no volume above the reference "
            f"point {list(reference_point)}; the task's reference point must be dominated by every return."
        )
    return volume


def scenario_scores(
    returns: Sequence[Sequence[float]],
    scenario_hashes: Sequence[str],
    fronts: Mapping[str, Sequence[Sequence[float]]],
    reference_point: Sequence[float],
    weights: np.ndarray,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Each distinct scenario's returns against its own exact front.

    Returns:
        ``(scenarios, hypervolume_ratios, utility_losses)``: the scenario hashes in the order first
        played, and two ``(len(scenarios),)`` float64 arrays (see the module docstring).
    """
    grouped: dict[str, list[Sequence[float]]] = {}
    for ret, key in zip(returns, scenario_hashes):
        grouped.setdefault(key, []).append(ret)
    ratios, losses = [], []
    for key, points in grouped.items():
        points_array = np.asarray(points, dtype=np.float64)
        front = np.asarray(fronts[key], dtype=np.float64).reshape(-1, points_array.shape[1])
        ratios.append(hypervolume(points_array, reference_point) / front_hypervolume(front, reference_point, key))
        losses.append(expected_utility(front, weights) - expected_utility(points_array, weights))
    return list(grouped), np.asarray(ratios, dtype=np.float64), np.asarray(losses, dtype=np.float64)
