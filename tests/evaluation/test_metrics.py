"""The suite statistics agree with rliable (Agarwal et al., 2021), the reference implementation."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarkzoo.evaluation import metrics
from benchmarkzoo.evaluation.results import Episode, suite_aggregates, task_aggregates

rliable_metrics = pytest.importorskip("rliable.metrics", reason="needs rliable (the dev extra)")
rliable_library = pytest.importorskip("rliable.library", reason="needs rliable (the dev extra)")

SHAPES = [(10, 3), (7, 5), (50, 2), (13, 1), (4, 9), (101, 4)]


def matrices():
    rng = np.random.default_rng(1234)
    for num_runs, num_tasks in SHAPES:
        # Normalized-score-like data: some tasks above the baseline level 1, some below, some heavy tails.
        yield rng.normal(
            loc=rng.uniform(-0.5, 1.5, num_tasks), scale=rng.uniform(0.1, 1.0, num_tasks), size=(num_runs, num_tasks)
        )
        yield rng.standard_t(df=2, size=(num_runs, num_tasks))


@pytest.mark.parametrize("index", range(2 * len(SHAPES)))
def test_point_estimates_equal_rliable(index):
    scores = list(matrices())[index]  # (num_runs, num_tasks)
    per_task = [scores[:, j] for j in range(scores.shape[1])]
    expected = {
        "iqm": rliable_metrics.aggregate_iqm(scores),
        "mean": rliable_metrics.aggregate_mean(scores),
        "gap": rliable_metrics.aggregate_optimality_gap(scores),
    }
    assert metrics.iqm(scores) == pytest.approx(expected["iqm"], abs=1e-12, rel=0)
    assert metrics.mean(scores) == pytest.approx(expected["mean"], abs=1e-12, rel=0)
    assert metrics.optimality_gap(scores) == pytest.approx(expected["gap"], abs=1e-12, rel=0)
    assert metrics.suite_iqm(per_task) == pytest.approx(expected["iqm"], abs=1e-12, rel=0)
    assert metrics.suite_mean(per_task) == pytest.approx(expected["mean"], abs=1e-12, rel=0)
    assert metrics.suite_optimality_gap(per_task) == pytest.approx(expected["gap"], abs=1e-12, rel=0)
    assert metrics.optimality_gap(scores, 0.5) == pytest.approx(
        rliable_metrics.aggregate_optimality_gap(scores, gamma=0.5), abs=1e-12, rel=0
    )


def test_iqm_trims_a_quarter_each_side():
    assert metrics.iqm(np.arange(8.0)) == pytest.approx(3.5)  # mean of 2, 3, 4, 5
    assert metrics.iqm(np.array([-1000.0, 1.0, 2.0, 1000.0])) == pytest.approx(1.5)
    assert metrics.optimality_gap(np.array([0.0, 0.5, 2.0])) == pytest.approx(0.5)  # (1 + 0.5 + 0) / 3


def test_suite_mean_weighs_tasks_equally():
    # rliable averages per-task means; with ragged tasks the long one must not dominate.
    per_task = [np.zeros(2), np.ones(8)]
    assert metrics.suite_mean(per_task) == pytest.approx(0.5)
    assert metrics.suite_optimality_gap(per_task) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (metrics.suite_iqm, "aggregate_iqm"),
        (metrics.suite_mean, "aggregate_mean"),
        (metrics.suite_optimality_gap, "aggregate_optimality_gap"),
    ],
)
@pytest.mark.filterwarnings("ignore::FutureWarning")  # arch deprecates RandomState, which rliable passes
def test_stratified_bootstrap_matches_rliable(ours, theirs):
    rng = np.random.default_rng(7)
    scores = rng.normal(loc=[0.2, 0.8, 1.1, 1.6], scale=[0.3, 0.5, 0.4, 0.6], size=(40, 4))  # (num_runs, num_tasks)
    per_task = [scores[:, j] for j in range(4)]
    reps = 10_000
    low, high = metrics.stratified_bootstrap_ci(per_task, ours, reps=reps)
    fn = getattr(rliable_metrics, theirs)
    _, intervals = rliable_library.get_interval_estimates(
        {"x": scores}, lambda s: np.array([fn(s)]), reps=reps, random_state=np.random.RandomState(0)
    )
    expected_low, expected_high = intervals["x"].ravel()
    assert low == pytest.approx(expected_low, abs=0.02)
    assert high == pytest.approx(expected_high, abs=0.02)
    point = ours(per_task)
    assert low < point < high
    assert high - low > 0.05  # a real interval, not a degenerate one


def test_bootstrap_is_reproducible_and_seeded():
    per_task = [np.linspace(0, 1, 9), np.linspace(-1, 2, 6)]
    a = metrics.stratified_bootstrap_ci(per_task, metrics.suite_iqm, reps=500)
    assert a == metrics.stratified_bootstrap_ci(per_task, metrics.suite_iqm, reps=500)
    assert a != metrics.stratified_bootstrap_ci(per_task, metrics.suite_iqm, reps=500, random_state=1)
    values = np.linspace(0, 1, 11)
    low, high = metrics.bootstrap_ci(values, reps=500)
    assert low < 0.5 < high and metrics.bootstrap_ci(values, reps=500) == (low, high)


def test_normalize_maps_references_to_0_and_1():
    np.testing.assert_allclose(metrics.normalize(np.array([-2.0, 1.0, 4.0]), -2.0, 4.0), [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="equal"):
        metrics.normalize(np.array([1.0]), 3.0, 3.0)


def _episodes(returns):
    return [
        Episode(index=k, seed=k, scenario_seed=k, scenario_hash="0" * 64, episode_return=r, length=1, success=r > 0)
        for k, r in enumerate(returns)
    ]


def test_task_and_suite_aggregates_from_raw_returns():
    refs = {"random": -1.0, "baseline": 1.0}
    returns = [-1.0, 0.0, 1.0, 3.0]
    agg = task_aggregates(_episodes(returns), refs)
    assert agg.mean == pytest.approx(0.75) and agg.median == pytest.approx(0.5)
    assert agg.std == pytest.approx(np.std(returns)) and agg.success_rate == pytest.approx(0.5)
    assert agg.normalized_mean == pytest.approx(np.mean([0.0, 0.5, 1.0, 2.0]))
    assert agg.ci_low < agg.mean < agg.ci_high

    from benchmarkzoo.evaluation.results import TaskResult

    def task(task_id, rets):
        eps = _episodes(rets)
        return TaskResult(
            id=task_id,
            env_id="x",
            env_spec={},
            scenario_set="s",
            split="test",
            status="ok",
            references=refs,
            episodes=eps,
            aggregates=task_aggregates(eps, refs),
            steps=len(eps),
            wall_time_s=0.0,
        )

    tasks = [task("a", returns), task("b", [1.0, 1.0, -1.0, 3.0])]
    suite = suite_aggregates(tasks)
    scores = np.array([[0.0, 0.5, 1.0, 2.0], [1.0, 1.0, 0.0, 2.0]]).T  # (num_runs, num_tasks), normalized
    assert suite.tasks == 2
    assert suite.iqm == pytest.approx(rliable_metrics.aggregate_iqm(scores), abs=1e-12)
    assert suite.mean == pytest.approx(rliable_metrics.aggregate_mean(scores), abs=1e-12)
    assert suite.optimality_gap == pytest.approx(rliable_metrics.aggregate_optimality_gap(scores), abs=1e-12)
    assert suite.iqm_ci[0] <= suite.iqm <= suite.iqm_ci[1]


def _one_resample_at_a_time(per_task, statistic, reps):
    """The stratified bootstrap as it was written first: one resample and one statistic call at a time."""
    tasks = [np.asarray(t, dtype=np.float64) for t in per_task]
    rng = np.random.default_rng(metrics.RANDOM_STATE)
    samples = np.empty(reps)
    for r in range(reps):
        samples[r] = statistic([t[rng.integers(0, t.size, size=t.size)] for t in tasks])
    return metrics._percentile_interval(samples, metrics.CONFIDENCE)


@pytest.mark.parametrize("statistic", list(metrics.BATCHED), ids=lambda f: f.__name__)
def test_batched_suite_statistics_give_the_same_bits_as_one_resample_at_a_time(statistic):
    rng = np.random.default_rng(7)
    for trial in range(25):
        sizes = rng.integers(1, 150, size=rng.integers(1, 9))  # tasks of different episode counts
        per_task = [rng.normal(size=n) * rng.uniform(0.1, 50) for n in sizes]
        if trial % 3 == 0:
            per_task = [np.round(t, 1) for t in per_task]  # ties, as returns of grid worlds have
        reps = 200
        batched = metrics.stratified_bootstrap_ci(per_task, statistic, reps=reps)
        assert batched == _one_resample_at_a_time(per_task, statistic, reps), (trial, list(sizes))
        # a plain callable (not in BATCHED) takes the one-at-a-time path and agrees too
        assert metrics.stratified_bootstrap_ci(per_task, lambda rows: statistic(rows), reps=reps) == batched


@pytest.mark.parametrize("statistic", list(metrics.BATCHED_ONE_TASK), ids=lambda f: f.__name__)
def test_batched_task_statistics_give_the_same_bits_as_one_resample_at_a_time(statistic):
    rng = np.random.default_rng(11)
    for trial in range(25):
        values = rng.normal(size=rng.integers(1, 300)) * rng.uniform(0.1, 50)
        if trial % 3 == 0:
            values = np.round(values, 1)
        reps = int(rng.integers(1, 400))
        idx = np.random.default_rng(metrics.RANDOM_STATE).integers(0, values.size, size=(reps, values.size))
        expected = metrics._percentile_interval(np.array([statistic(values[row]) for row in idx]), metrics.CONFIDENCE)
        assert metrics.bootstrap_ci(values, statistic, reps=reps) == expected, trial
