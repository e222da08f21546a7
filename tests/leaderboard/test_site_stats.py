"""The site's P(X > Y) interval, batched, gives the bits of one resample at a time."""

from __future__ import annotations

import numpy as np

from benchmarkzoo.evaluation import metrics
from benchmarkzoo.leaderboard.site import stats


def _one_resample_at_a_time(x_per_task, y_per_task, reps):
    rng = np.random.default_rng(metrics.RANDOM_STATE)
    samples = np.zeros(reps)
    for x, y in zip(x_per_task, y_per_task):
        for r in range(reps):
            samples[r] += stats._pair_probability(
                x[rng.integers(0, x.size, x.size)], y[rng.integers(0, y.size, y.size)]
            )
    samples /= len(x_per_task)
    return metrics._percentile_interval(samples, metrics.CONFIDENCE)


def test_probability_of_improvement_interval_is_the_one_resample_at_a_time_interval():
    rng = np.random.default_rng(3)
    for trial in range(15):
        tasks = int(rng.integers(1, 6))
        xs = [np.round(rng.normal(size=rng.integers(1, 120)), 1) for _ in range(tasks)]  # ties, unequal lengths
        ys = [np.round(rng.normal(0.2, size=rng.integers(1, 120)), 1) for _ in range(tasks)]
        reps = 150
        assert stats.probability_of_improvement_ci(xs, ys, reps=reps) == _one_resample_at_a_time(xs, ys, reps), trial
    # chunked comparisons (fewer cells than one resample's pairs) change nothing either
    x, y = rng.normal(size=(40, 30)), rng.normal(size=(40, 20))
    assert np.array_equal(stats._pair_probabilities(x, y, cells=7), stats._pair_probabilities(x, y))
    assert np.array_equal(stats._pair_probabilities(x, y), [stats._pair_probability(a, b) for a, b in zip(x, y)])
