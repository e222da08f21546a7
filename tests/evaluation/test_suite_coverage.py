"""The -v1 suites: real splits, valid scores, and references measured out of sample and recorded."""

from __future__ import annotations

import re

import numpy as np
import pytest

from benchmarkzoo.evaluation.calibration import load_record, task_hash
from benchmarkzoo.evaluation.protocol import check_task
from benchmarkzoo.evaluation.runner import plan_episodes
from benchmarkzoo.evaluation.suites import list_suites, load_suite
from benchmarkzoo.leaderboard.validate import LEADERBOARD_SEED
from benchmarkzoo.scenario_sets import load_set

SUITES = {name: load_suite(name) for name in list_suites()}
#: Suites from v1 on are calibrated out of sample; the v0 files stay as submissions were validated against.
CALIBRATED = [name for name in SUITES if int(re.search(r"-v(\d+)$", name).group(1)) >= 1]
CALIBRATED_TASKS = [(name, task.id) for name in CALIBRATED for task in SUITES[name].tasks]


def test_there_are_v1_suites():
    shipped = {
        "single-agent-v1",
        "single-agent-v2",
        "generalization-v1",
        "marl-v1",
        "moma-v1",
        "moma-v2",
        "mo-v1",
        "mo-v2",
        "competitive-v1",
        "competitive-v2",
        "competitive-v3",
        "robotics-v1",
        "traffic-v1",
    }
    assert shipped <= set(CALIBRATED)


def test_robotics_v1_scores_every_panda_id():
    """Every registered Panda id, sparse and dense, end-effector and joint control, has a robotics-v1 task."""
    from benchmarkzoo.registration import list_envs

    panda = {spec.id for spec in list_envs() if spec.id.startswith("benchmarkzoo/Panda")}
    assert len(panda) == 12 and {task.env for task in SUITES["robotics-v1"].tasks} == panda


@pytest.mark.parametrize("name", CALIBRATED)
def test_v1_tasks_name_real_splits_and_valid_scores(name):
    for task in SUITES[name].tasks:
        check_task(task)
        scenario_set = load_set(task.scenario_set)
        assert task.split in scenario_set.splits, (task.id, task.split)


@pytest.mark.parametrize(("name", "task_id"), CALIBRATED_TASKS)
def test_references_are_measured_out_of_sample_and_recorded(name, task_id):
    task = SUITES[name].task(task_id)
    ref = task.references
    assert ref is not None, f"{name}/{task_id} has no references: run `benchmarkzoo suites calibrate {name}`."
    assert ref.seed != LEADERBOARD_SEED and ref.episodes == task.episodes
    record = load_record(name)
    assert record is not None and record.suite == name
    calibration = record.tasks[task_id]
    assert calibration.task_hash == task_hash(task), f"{name}/{task_id} changed since it was calibrated"
    assert calibration.seed == ref.seed
    for policy in ("random", "baseline"):
        episodes = getattr(calibration, policy)
        assert len(episodes.scores) == task.episodes
        # The references are the recorded episodes' mean, bit for bit.
        assert getattr(ref, policy) == float(np.mean(episodes.scores))
    # Disjoint from the episodes a leaderboard submission plays.
    split = load_set(task.scenario_set).split(task.split)
    protocol = {p.seed for p in plan_episodes(task, LEADERBOARD_SEED, list(split.seeds))}
    assert protocol.isdisjoint(calibration.random.seeds) and protocol.isdisjoint(calibration.baseline.seeds)
    assert calibration.random.seeds == calibration.baseline.seeds
    # ... and from the scenarios it plays: the calibration twin's seeds, and (where the split's
    # scenarios are distinct, not one fixed map) none of their contents either.
    leaderboard_hashes = set(split.hashes.values())
    for policy in (calibration.random, calibration.baseline):
        assert set(split.seeds).isdisjoint(policy.scenario_seeds), f"{name}/{task_id}: calibrated on its own scenarios"
        if len(leaderboard_hashes) == len(split):
            assert leaderboard_hashes.isdisjoint(policy.scenario_hashes), f"{name}/{task_id}: a scenario repeats"


def test_every_registered_env_is_in_a_shipped_suite():
    """Derived from the registry, no exclusion list: every env id reaches a leaderboard through a shipped
    suite. RPSSelfPlay-v0 is scored by its seat 0 against a population bot (competitive-v1's
    rps-self-play-test), FightingDuel-v0 by its seat 0 against the ladder bots (competitive-v2)."""
    from benchmarkzoo.registration import list_envs

    scored = {task.env for suite in SUITES.values() for task in suite.tasks}
    assert sorted({spec.id for spec in list_envs()} - scored) == []
    assert "benchmarkzoo/RPSSelfPlay-v0" in {task.env for task in SUITES["competitive-v1"].tasks}
    assert "benchmarkzoo/FightingDuel-v0" in {task.env for task in SUITES["competitive-v2"].tasks}
    assert "benchmarkzoo/FightingLadder-v0" in {task.env for task in SUITES["competitive-v3"].tasks}
