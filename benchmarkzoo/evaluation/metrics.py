"""Statistics of the evaluation protocol, computed from raw per-episode outcomes alone.

Follows rliable (Agarwal et al., 2021): per-task bootstrap intervals of the mean, and, across a
suite, the interquartile mean (IQM), mean and optimality gap of normalized scores with
stratified bootstrap intervals (episodes are resampled within each task). Every bootstrap
takes an explicit random state, so aggregates are recomputable bit for bit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

RANDOM_STATE = 0
REPS = 2000
CONFIDENCE = 0.95


def iqm(scores: np.ndarray) -> float:
    """Interquartile mean of a ``(num_runs, num_tasks)`` array: the mean of the middle 50% of all scores.

    As rliable's ``aggregate_iqm`` (scipy's ``trim_mean(x, 0.25, axis=None)``).
    """
    x = np.sort(np.asarray(scores, dtype=np.float64).ravel())
    cut = int(0.25 * x.size)
    return float(x[cut : x.size - cut].mean())


def optimality_gap(scores: np.ndarray, threshold: float = 1.0) -> float:
    """Mean shortfall of a ``(num_runs, num_tasks)`` array of normalized scores below ``threshold`` (the baseline).

    As rliable's ``aggregate_optimality_gap``.
    """
    return float(np.mean(np.maximum(threshold - np.asarray(scores, dtype=np.float64), 0.0)))


def mean(scores: np.ndarray) -> float:
    """Mean of a ``(num_runs, num_tasks)`` array (every task has the same number of runs, so as rliable's)."""
    return float(np.mean(np.asarray(scores, dtype=np.float64)))


# Suite-level statistics over per-task score lists, whose lengths may differ (tasks may play
# different episode counts). Each task weighs the same in the mean and the optimality gap, so
# with equal lengths they equal rliable's aggregates of the ``(num_runs, num_tasks)`` matrix.


def suite_iqm(per_task: Sequence[np.ndarray]) -> float:
    """IQM of all tasks' scores pooled (rliable's ``aggregate_iqm`` when lengths are equal)."""
    return iqm(np.concatenate(per_task))


def suite_mean(per_task: Sequence[np.ndarray]) -> float:
    """Mean over tasks of each task's mean score (rliable's ``aggregate_mean``)."""
    return float(np.mean([np.mean(t) for t in per_task]))


def suite_optimality_gap(per_task: Sequence[np.ndarray], threshold: float = 1.0) -> float:
    """Mean over tasks of each task's optimality gap (rliable's ``aggregate_optimality_gap`` when lengths are equal)."""
    return float(np.mean([optimality_gap(t, threshold) for t in per_task]))


def _percentile_interval(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    alpha = (1.0 - confidence) / 2.0
    low, high = np.percentile(samples, [100 * alpha, 100 * (1 - alpha)])
    return float(low), float(high)


def bootstrap_ci(
    values: ArrayLike,
    statistic: Callable[[np.ndarray], float] = mean,
    reps: int = REPS,
    confidence: float = CONFIDENCE,
    random_state: int = RANDOM_STATE,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic`` over one task's episodes.

    ``values`` holds one value per episode, or one row per episode (``(num_episodes, k)``: episodes
    are resampled whole, and ``statistic`` gets the resampled rows).
    """
    x = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    idx = rng.integers(0, x.shape[0], size=(reps, x.shape[0]))
    batched = BATCHED_ONE_TASK.get(statistic) if x.ndim == 1 else None  # every resample at once, the same bits
    samples = batched(x[idx]) if batched is not None else np.array([statistic(x[row]) for row in idx])
    return _percentile_interval(samples, confidence)


def stratified_bootstrap_ci(
    per_task: Sequence[ArrayLike],
    statistic: Callable[[list[np.ndarray]], float],
    reps: int = REPS,
    confidence: float = CONFIDENCE,
    random_state: int = RANDOM_STATE,
) -> tuple[float, float]:
    """Percentile interval of ``statistic`` over tasks' scores, resampling episodes within each task.

    The stratified bootstrap of rliable's ``get_interval_estimates`` (``task_bootstrap=False``,
    ``method="percentile"``). The resampled indices are drawn in the same order (resample by
    resample, task by task); a statistic of :data:`BATCHED` is then evaluated on all ``reps``
    resamples at once, bit for bit as one resample at a time (a test compares the two).

    Args:
        per_task: one sequence of normalized episode scores per task (lengths may differ).
        statistic: takes the list of resampled per-task arrays, e.g. :func:`suite_iqm`.
        reps: bootstrap resamples.
        confidence: the interval's coverage (0.95: the 2.5th to 97.5th percentiles).
        random_state: seeds the resampling, so the interval is recomputable bit for bit.
    """
    tasks = [np.asarray(t, dtype=np.float64) for t in per_task]
    draws = _stratified_draws(tuple(t.size for t in tasks), reps, random_state)  # (reps, n_t) per task
    batched = BATCHED.get(statistic)
    if batched is not None:
        samples = batched([t[d] for t, d in zip(tasks, draws)])
    else:
        samples = np.array([statistic([t[d[r]] for t, d in zip(tasks, draws)]) for r in range(reps)])
    return _percentile_interval(samples, confidence)


@functools.lru_cache(maxsize=16)
def _stratified_draws(sizes: tuple[int, ...], reps: int, random_state: int) -> tuple[np.ndarray, ...]:
    """The resampled indices, ``(reps, n_t)`` per task (read-only), drawn resample by resample, task by task.

    They depend on the sizes and the random state alone, so the three suite intervals of a results
    file, and every file of a suite with the same episode counts, share one draw (drawing is most
    of a bootstrap's cost once its statistic is batched).
    """
    rng = np.random.default_rng(random_state)
    rows = [[rng.integers(0, n, size=n) for n in sizes] for _ in range(reps)]
    draws = tuple(
        np.stack([row[i] for row in rows]) if reps else np.empty((0, n), np.int64) for i, n in enumerate(sizes)
    )
    for d in draws:
        d.flags.writeable = False
    return draws


def _rows_iqm(rows: list[np.ndarray]) -> np.ndarray:
    """:func:`suite_iqm` of each resample: ``rows`` holds one ``(reps, n_t)`` array per task; returns ``(reps,)``."""
    pooled = np.sort(np.concatenate(rows, axis=1), axis=1)
    cut = int(0.25 * pooled.shape[1])
    return np.ascontiguousarray(pooled[:, cut : pooled.shape[1] - cut]).mean(axis=1)


def _rows_mean(rows: list[np.ndarray]) -> np.ndarray:
    """:func:`suite_mean` of each resample (``(reps, n_t)`` per task in, ``(reps,)`` out)."""
    return np.stack([r.mean(axis=1) for r in rows], axis=1).mean(axis=1)


def _rows_optimality_gap(rows: list[np.ndarray]) -> np.ndarray:
    """:func:`suite_optimality_gap` (threshold 1) of each resample (``(reps, n_t)`` per task in, ``(reps,)`` out)."""
    return np.stack([np.maximum(1.0 - r, 0.0).mean(axis=1) for r in rows], axis=1).mean(axis=1)


#: The suite statistics the stratified bootstrap evaluates on every resample at once (same bits, ~50x faster):
#: each takes one ``(reps, n_t)`` array of resampled scores per task and returns ``(reps,)``.
BATCHED: dict[Callable[..., float], Callable[[list[np.ndarray]], np.ndarray]] = {
    suite_iqm: _rows_iqm,
    suite_mean: _rows_mean,
    suite_optimality_gap: _rows_optimality_gap,
}
#: The same for :func:`bootstrap_ci` of one task's values: ``(reps, n)`` resamples in, ``(reps,)`` out.
BATCHED_ONE_TASK: dict[Callable[..., float], Callable[[np.ndarray], np.ndarray]] = {
    mean: lambda rows: rows.mean(axis=1),
    iqm: lambda rows: _rows_iqm([rows]),
}


def normalize(values: np.ndarray, random_score: float, baseline_score: float) -> np.ndarray:
    """Scores rescaled so the random policy is 0 and the baseline 1."""
    span = baseline_score - random_score
    if span == 0:
        raise ValueError("random and baseline references are equal: this task cannot be normalized.")
    return (np.asarray(values, dtype=np.float64) - random_score) / span


def probability_of_improvement(x_per_task: Sequence[ArrayLike], y_per_task: Sequence[ArrayLike]) -> float:
    """Probability that policy X scores higher than policy Y on a random task, ties counting half.

    rliable's ``probability_of_improvement``: per task, the Mann-Whitney ``U`` statistic of X's
    episodes against Y's divided by the number of pairs, ``P(x > y) + P(x = y) / 2``; then the mean
    over tasks. Scores of a task may be raw or normalized (any increasing affine map leaves it unchanged).
    """
    probabilities = []
    for x_scores, y_scores in zip(x_per_task, y_per_task, strict=True):
        x = np.asarray(x_scores, dtype=np.float64)[:, None]
        y = np.asarray(y_scores, dtype=np.float64)[None, :]
        probabilities.append(((x > y).sum() + 0.5 * (x == y).sum()) / (x.size * y.size))
    return float(np.mean(probabilities))


def probability_of_improvement_ci(
    x_per_task: Sequence[ArrayLike],
    y_per_task: Sequence[ArrayLike],
    reps: int = REPS,
    confidence: float = CONFIDENCE,
    random_state: int = RANDOM_STATE,
) -> tuple[float, float]:
    """Percentile interval of :func:`probability_of_improvement`, resampling each policy's episodes within each task.

    rliable's stratified independent bootstrap over the pair of score matrices.
    """
    xs = [np.asarray(t, dtype=np.float64) for t in x_per_task]
    ys = [np.asarray(t, dtype=np.float64) for t in y_per_task]
    rng = np.random.default_rng(random_state)
    samples = np.empty(reps)
    for r in range(reps):
        bx = [t[rng.integers(0, t.size, size=t.size)] for t in xs]
        by = [t[rng.integers(0, t.size, size=t.size)] for t in ys]
        samples[r] = probability_of_improvement(bx, by)
    return _percentile_interval(samples, confidence)
