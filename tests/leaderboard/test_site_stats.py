"""The site's bootstrap bands, batched, give the bits of one resample at a time and of sorted rows."""

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


def _sorted_rows_band(per_task, taus, reps=metrics.REPS):
    """The performance-profile band as it was computed before: each resample sorted and searched."""
    rng = np.random.default_rng(metrics.RANDOM_STATE)
    samples = np.zeros((reps, taus.size))
    for t in per_task:
        t = np.asarray(t, dtype=np.float64)
        resampled = t[rng.integers(0, t.size, size=(reps, t.size))]
        resampled.sort(axis=1)
        samples += 1.0 - np.stack([np.searchsorted(row, taus, side="right") for row in resampled]) / t.size
    samples /= len(per_task)
    alpha = (1.0 - metrics.CONFIDENCE) / 2.0
    return np.percentile(samples, [100 * alpha, 100 * (1 - alpha)], axis=0)


def test_performance_profile_band_is_the_sorted_rows_band_on_the_committed_leaderboard():
    from pathlib import Path

    from benchmarkzoo.leaderboard.validate import load_submission

    stored = sorted((Path(__file__).parents[2] / "leaderboard" / "submissions").glob("*/*.json"))
    assert len(stored) > 20
    for path in stored:  # every stored entry of every suite
        per_task = stats.normalized_scores(load_submission(path))
        if not per_task:
            continue
        pooled = np.concatenate(per_task)
        taus = np.linspace(min(0.0, pooled.min()), max(1.0, pooled.max()), 121)  # as the suite page draws it
        low, high = stats.performance_profile_ci(per_task, taus)
        old_low, old_high = _sorted_rows_band(per_task, taus)
        assert low.tobytes() == old_low.tobytes() and high.tobytes() == old_high.tobytes(), path.name
    rng = np.random.default_rng(5)
    ties = [np.round(rng.normal(size=rng.integers(1, 60)), 1) for _ in range(4)]  # scores equal to a tau
    taus = np.round(np.linspace(-2, 2, 41), 1)
    assert np.array_equal(
        np.stack(stats.performance_profile_ci(ties, taus, reps=300)), _sorted_rows_band(ties, taus, 300)
    )
