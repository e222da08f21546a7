"""Every task of every calibrated suite separates its baseline from random, from the recorded calibration.

The records (``suites/<name>.calibration.json``) hold every calibration episode's score, so the
intervals and paired wins are recomputed here without playing anything; the slow tests play a
few cheap tasks again and compare with the record bit for bit.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from benchmarkzoo.cli import cli
from benchmarkzoo.evaluation import metrics
from benchmarkzoo.evaluation.calibration import (
    MIN_PAIRED_WINS,
    CalibrationError,
    PolicyEpisodes,
    TaskCalibration,
    calibrate,
    check,
    discrimination,
    load_record,
    record_path,
)
from benchmarkzoo.evaluation.suites import list_suites, load_suite

CALIBRATED = [name for name in list_suites() if int(re.search(r"-v(\d+)$", name).group(1)) >= 1]
TASKS = [(name, task.id) for name in CALIBRATED for task in load_suite(name).tasks]


@pytest.mark.parametrize(("name", "task_id"), TASKS)
def test_baseline_beats_random(name, task_id):
    record = load_record(name)
    assert record is not None and task_id in record.tasks, f"calibrate {name} first"
    d = discrimination(record.tasks[task_id])
    assert d.baseline_ci[0] > d.random_ci[1], (
        f"{name}/{task_id}: the 95% intervals overlap: random {d.random_ci}, baseline {d.baseline_ci}"
    )
    assert d.paired_wins >= MIN_PAIRED_WINS, (
        f"{name}/{task_id}: the baseline beats random on {d.paired_wins:.0%} of {d.scenarios} scenarios"
    )


def test_every_robotics_v1_task_is_checked():
    """robotics-v1 shipped once every Panda task discriminated, Slide by goal progress (its sparse return cannot)."""
    suite = load_suite("robotics-v1")
    assert {("robotics-v1", task.id) for task in suite.tasks} <= set(TASKS) and len(suite.tasks) == 12
    assert suite.task("slide-test").score.metric == "goal_progress"


def _episodes(scores, hashes):
    n = len(scores)
    return PolicyEpisodes(
        seeds=tuple(range(n)),
        scenario_seeds=tuple(range(n)),
        scenario_hashes=tuple(hashes),
        scores=tuple(scores),
        steps=n,
        wall_time_s=0.0,
    )


def test_discrimination_pairs_by_scenario_and_uses_the_metrics_bootstrap():
    hashes = [f"{k % 5:064x}" for k in range(10)]  # 5 scenarios, 2 episodes each
    random = [0.0] * 10
    # The baseline beats random on scenarios 0-3 (mean 1) and ties on scenario 4 (a tie is no win).
    baseline = [1.0 if k % 5 != 4 else 0.0 for k in range(10)]
    calibration = TaskCalibration(
        task_hash="x", seed=1, num_envs=1, random=_episodes(random, hashes), baseline=_episodes(baseline, hashes)
    )
    d = discrimination(calibration)
    assert d.scenarios == 5 and d.paired_wins == pytest.approx(0.8)
    assert d.baseline_ci == metrics.bootstrap_ci(baseline) and d.random_ci == (0.0, 0.0)
    assert d.separated and d.ok
    # Better on scenario 0 only: one paired win in five.
    worse_scores = [1.0 if k % 5 == 0 else -1.0 for k in range(10)]
    worse = calibration.model_copy(update={"baseline": _episodes(worse_scores, hashes)})
    assert discrimination(worse).paired_wins == pytest.approx(0.2) and not discrimination(worse).ok


def test_calibrate_refuses_the_leaderboard_seed(tiny_suite):
    before = tiny_suite.read_bytes()
    with pytest.raises(CalibrationError, match="leaderboard's protocol seed"):
        calibrate(tiny_suite, seed=0)
    result = CliRunner().invoke(cli, ["suites", "calibrate", str(tiny_suite), "--seed", "0"])
    assert result.exit_code != 0 and "leaderboard's protocol seed" in result.output
    assert "Traceback" not in result.output
    assert tiny_suite.read_bytes() == before and not record_path(tiny_suite).exists()


def test_calibration_record_reproduces_and_check_catches_a_changed_score(tiny_suite):
    suite = calibrate(tiny_suite, num_envs=3)
    record = load_record(tiny_suite)
    assert set(record.tasks) == {t.id for t in suite.tasks}
    for task in suite.tasks:
        calibration = record.tasks[task.id]
        assert task.references.seed == calibration.seed == 1
        assert task.references.random == sum(calibration.random.scores) / task.episodes
    assert check(tiny_suite, num_envs=4) == []  # the record reproduces for another world count
    result = CliRunner().invoke(cli, ["suites", "calibrate", str(tiny_suite), "--check", "--task", "maze-test"])
    assert result.exit_code == 0 and "bit for bit" in result.output, result.output
    # Tamper with one recorded score: --check names the task and policy, and fails.
    path = record_path(tiny_suite)
    data = json.loads(path.read_text())
    data["tasks"]["maze-ood"]["baseline"]["scores"][2] += 1e-12
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(cli, ["suites", "calibrate", str(tiny_suite), "--check"])
    assert result.exit_code == 1 and "maze-ood/baseline: scores differ" in result.output, result.output


def test_calibrating_one_task_keeps_the_others(tiny_suite):
    calibrate(tiny_suite, num_envs=3)
    first = load_record(tiny_suite)
    calibrate(tiny_suite, num_envs=5, seed=7, task_ids=["maze-ood"])
    second = load_record(tiny_suite)
    assert second.tasks["maze-test"] == first.tasks["maze-test"]
    assert second.tasks["maze-ood"].seed == 7 and load_suite(tiny_suite).task("maze-ood").references.seed == 7


@pytest.mark.slow
@pytest.mark.parametrize(("name", "task_id"), [("single-agent-v1", "maze-test"), ("marl-v1", "foraging-test")])
def test_shipped_calibration_reproduces_bit_for_bit(name, task_id):
    assert check(name, [task_id]) == []
