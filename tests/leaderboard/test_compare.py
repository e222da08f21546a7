"""``leaderboard compare``: rliable's probability of improvement, with a stratified bootstrap interval."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.evaluation import metrics
from benchmarkzoo.leaderboard.compare import compare_files

rliable_metrics = pytest.importorskip("rliable.metrics", reason="needs rliable (the dev extra)")
rliable_library = pytest.importorskip("rliable.library", reason="needs rliable (the dev extra)")


@pytest.mark.parametrize("shape", [(10, 3), (25, 1), (7, 5)])
def test_probability_of_improvement_equals_rliable(shape):
    rng = np.random.default_rng(sum(shape))
    x = rng.normal(0.3, 1.0, size=shape)  # (num_runs, num_tasks)
    y = rng.normal(0.0, 1.0, size=(shape[0] + 3, shape[1]))
    x[:2] = np.round(x[:2])  # some ties, which count half
    y[:2] = np.round(y[:2])
    ours = metrics.probability_of_improvement(list(x.T), list(y.T))
    assert ours == pytest.approx(rliable_metrics.probability_of_improvement(x, y), abs=1e-12)
    assert metrics.probability_of_improvement(list(x.T), list(x.T)) == 0.5


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_interval_matches_rliable():
    rng = np.random.default_rng(3)
    x = rng.normal([0.5, 1.0, 0.0], 1.0, size=(30, 3))
    y = rng.normal([0.0, 1.0, 0.2], 1.0, size=(30, 3))
    low, high = metrics.probability_of_improvement_ci(list(x.T), list(y.T), reps=1000)
    _, intervals = rliable_library.get_interval_estimates(
        {"xy": [x, y]},
        lambda a, b: np.array([rliable_metrics.probability_of_improvement(a, b)]),
        reps=1000,
        random_state=np.random.RandomState(0),
    )
    expected_low, expected_high = intervals["xy"].ravel()
    assert low == pytest.approx(expected_low, abs=0.03) and high == pytest.approx(expected_high, abs=0.03)
    assert low < metrics.probability_of_improvement(list(x.T), list(y.T)) < high


def test_compare_real_results(quickstart_results):
    result = compare_files(quickstart_results["baseline"], quickstart_results["random"])
    # The baseline beats the random policy in nearly every episode pair of both tasks.
    assert result.probability > 0.9 and set(result.per_task) == {"maze-test", "maze-ood"}
    assert result.ci[0] <= result.probability <= result.ci[1]
    reverse = compare_files(quickstart_results["random"], quickstart_results["baseline"])
    assert reverse.probability == pytest.approx(1.0 - result.probability)
    out = CliRunner().invoke(
        cli, ["leaderboard", "compare", str(quickstart_results["baseline"]), str(quickstart_results["random"])]
    )
    assert out.exit_code == 0 and f"P(baseline > random) = {result.probability:.3f}" in out.output


def test_compare_refuses_other_suites(quickstart_results, tmp_path):
    other = tmp_path / "other.json"
    other.write_text(quickstart_results["random"].read_text().replace('"suite": "quickstart-v0"', '"suite": "core-v0"'))
    out = CliRunner().invoke(cli, ["leaderboard", "compare", str(quickstart_results["random"]), str(other)])
    assert out.exit_code == 2 and "different suites" in out.output and "Traceback" not in out.output
