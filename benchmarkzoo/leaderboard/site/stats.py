"""Statistics the site plots beyond the suite aggregates: performance profiles and probability of improvement.

Both follow rliable (Agarwal et al., 2021) and take per-task lists of normalized episode scores,
whose lengths may differ between tasks; each task weighs the same, so with equal lengths they
equal rliable's functions on the ``(num_runs, num_tasks)`` matrix. Bootstrap intervals are
stratified (episodes resampled within each task) with an explicit random state, as everywhere
in :mod:`benchmarkzoo.evaluation.metrics`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from benchmarkzoo.evaluation import metrics
from benchmarkzoo.evaluation.results import Results, task_scores


def normalized_scores(results: Results) -> list[np.ndarray]:
    """Per-task normalized episode scores, ``(num_episodes,)`` each, of the tasks with references.

    The scalar score is the task's own (:func:`~benchmarkzoo.evaluation.results.episode_scores`: the
    return, the team return of a multi-agent task, a utility or a metric), as in the suite aggregates.
    """
    per_task = []
    for task in results.tasks:
        if task.status != "ok" or task.references is None or not task.episodes:
            continue
        scores = task_scores(task)
        per_task.append(metrics.normalize(scores, task.references["random"], task.references["baseline"]))
    return per_task


def performance_profile(per_task: Sequence[np.ndarray], taus: np.ndarray) -> np.ndarray:
    """``(len(taus),)`` fraction of runs scoring above each threshold, averaged over tasks.

    rliable's ``create_performance_profile`` (run-score distribution) when tasks have equal lengths.
    """
    return np.mean([(np.asarray(t)[:, None] > taus[None, :]).mean(axis=0) for t in per_task], axis=0)


def performance_profile_ci(
    per_task: Sequence[np.ndarray],
    taus: np.ndarray,
    reps: int = metrics.REPS,
    confidence: float = metrics.CONFIDENCE,
    random_state: int = metrics.RANDOM_STATE,
) -> tuple[np.ndarray, np.ndarray]:
    """Pointwise stratified-bootstrap percentile band of :func:`performance_profile`: two ``(len(taus),)`` arrays."""
    rng = np.random.default_rng(random_state)
    samples = np.zeros((reps, taus.size))  # (reps, num_taus)
    for t in per_task:
        t = np.asarray(t, dtype=np.float64)
        draws = rng.integers(0, t.size, size=(reps, t.size))  # (reps, num_episodes)
        # A resample's count at or below tau is how often it drew each episode times whether that episode
        # is at or below tau: integer sums, exact in float64, so the same bits as counting sorted rows.
        rows = (draws + t.size * np.arange(reps)[:, None]).ravel()
        drawn = np.bincount(rows, minlength=reps * t.size).reshape(reps, t.size).astype(np.float64)
        below = drawn @ (t[:, None] <= taus[None, :]).astype(np.float64)  # (reps, num_taus)
        samples += 1.0 - below / t.size
    samples /= len(per_task)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.percentile(samples, [100 * alpha, 100 * (1 - alpha)], axis=0)
    return low, high


def _pair_probability(x: np.ndarray, y: np.ndarray) -> float:
    """P(X > Y) + P(X = Y) / 2 for one task: the Mann-Whitney U statistic over ``len(x) * len(y)``."""
    greater = (x[:, None] > y[None, :]).mean()
    ties = (x[:, None] == y[None, :]).mean()
    return float(greater + 0.5 * ties)


@functools.lru_cache(maxsize=16)
def _pair_draws(sizes: tuple[tuple[int, int], ...], reps: int, random_state: int) -> tuple[tuple[np.ndarray, ...], ...]:
    """Per task, the resampled indices of X and of Y, ``(reps, n_x)`` and ``(reps, n_y)`` (read-only).

    Drawn task by task, resample by resample, X before Y, as one resample at a time draws them; they
    depend on the sizes alone, so every pair of entries of a suite with the same episode counts shares them.
    """
    rng = np.random.default_rng(random_state)
    out = []
    for nx, ny in sizes:
        rows = [(rng.integers(0, nx, nx), rng.integers(0, ny, ny)) for _ in range(reps)]
        pair = tuple(
            np.stack([r[i] for r in rows]) if reps else np.empty((0, n), np.int64) for i, n in ((0, nx), (1, ny))
        )
        for array in pair:
            array.flags.writeable = False
        out.append(pair)
    return tuple(out)


def _pair_probabilities(xs: np.ndarray, ys: np.ndarray, cells: int = 1 << 22) -> np.ndarray:
    """:func:`_pair_probability` of each resample: ``xs`` ``(reps, n_x)``, ``ys`` ``(reps, n_y)`` in, ``(reps,)`` out.

    The same bits: the counts of a boolean mean are exact in float64, so summing them all at once
    changes nothing. Resamples go ``cells // (n_x * n_y)`` at a time to bound the comparison arrays.
    """
    out = np.empty(xs.shape[0])
    step = max(1, cells // max(1, xs.shape[1] * ys.shape[1]))
    for start in range(0, xs.shape[0], step):
        x, y = xs[start : start + step, :, None], ys[start : start + step, None, :]  # (k, n_x, 1), (k, 1, n_y)
        greater = (x > y).mean(axis=(1, 2))
        ties = (x == y).mean(axis=(1, 2))
        out[start : start + step] = greater + 0.5 * ties
    return out


def probability_of_improvement(x_per_task: Sequence[np.ndarray], y_per_task: Sequence[np.ndarray]) -> float:
    """Probability that an episode of X scores above one of Y on the same task, averaged over tasks.

    rliable's ``probability_of_improvement`` when tasks have equal lengths.
    """
    if len(x_per_task) != len(y_per_task):
        raise ValueError(f"X has {len(x_per_task)} tasks and Y {len(y_per_task)}; they must play the same tasks.")
    return float(
        np.mean(
            [
                _pair_probability(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
                for x, y in zip(x_per_task, y_per_task)
            ]
        )
    )


def probability_of_improvement_ci(
    x_per_task: Sequence[np.ndarray],
    y_per_task: Sequence[np.ndarray],
    reps: int = metrics.REPS,
    confidence: float = metrics.CONFIDENCE,
    random_state: int = metrics.RANDOM_STATE,
) -> tuple[float, float]:
    """Stratified-bootstrap percentile interval of :func:`probability_of_improvement` (both sides resampled)."""
    xs = [np.asarray(x, dtype=np.float64) for x in x_per_task]
    ys = [np.asarray(y, dtype=np.float64) for y in y_per_task]
    samples = np.zeros(reps)
    draws = _pair_draws(tuple((x.size, y.size) for x, y in zip(xs, ys)), reps, random_state)
    for x, y, (x_rows, y_rows) in zip(xs, ys, draws):
        samples += _pair_probabilities(x[x_rows], y[y_rows])
    samples /= len(x_per_task)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.percentile(samples, [100 * alpha, 100 * (1 - alpha)])
    return float(low), float(high)


def vector_returns(episodes: Sequence) -> np.ndarray | None:
    """``(num_episodes, num_objectives)`` returns of a multi-objective task, or ``None`` if they are not vectors."""
    rows = [e.episode_return for e in episodes]
    if not rows or not all(isinstance(r, list) and r and not isinstance(r[0], list) for r in rows):
        return None
    if len({len(r) for r in rows}) != 1:
        return None
    return np.asarray(rows, dtype=np.float64)


def front_distance(point: np.ndarray, front: np.ndarray) -> float:
    """How far ``point`` ``(m,)`` falls short of its scenario's exact ``front`` ``(P, m)`` (objectives maximized).

    The additive epsilon indicator in units of the front's extent: the least ``eps >= 0`` such that
    raising every objective of ``point`` by ``eps`` times that objective's range over the front
    (its maximum minus minimum; ``max(|value|, 1)`` when the front does not vary in it) makes it
    weakly dominate a front point. It is 0 exactly for a return on (or weakly dominating) the front,
    and it compares across scenarios whose fronts differ in scale.
    """
    front = np.asarray(front, dtype=np.float64).reshape(-1, len(point))
    extent = np.ptp(front, axis=0)  # (m,)
    flat = np.maximum(np.abs(front).max(axis=0), 1.0)  # (m,)
    extent = np.where(extent > 0, extent, flat)
    shortfall = (front - np.asarray(point, dtype=np.float64)) / extent  # (P, m)
    return float(max(0.0, np.min(np.max(shortfall, axis=1))))
