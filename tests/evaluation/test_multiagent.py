"""Multi-agent tasks: native multi-agent vector form, autoreset disabled, bit-identical for any worlds and workers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.suites import load_suite

from .test_determinism import raw

MA_SUITE = {
    "name": "tiny-marl-v0",
    "description": "MAPF test, few short episodes.",
    "tasks": [
        {
            "id": "mapf-test",
            "env": "benchmarkzoo/MAPF-v0",
            "scenario_set": "multiagent/mapf",
            "split": "test",
            "episodes": 7,
            "env_kwargs": {"max_cycles": 40},
        },
    ],
}


@pytest.fixture(scope="module")
def ma_suite(tmp_path_factory, suite_writer):
    return suite_writer(tmp_path_factory.mktemp("marl"), MA_SUITE)


@pytest.fixture(scope="module")
def ma_reference(ma_suite):
    return {policy: evaluate(ma_suite, policy, num_envs=1) for policy in ("random", "baseline")}


def test_outcomes_per_agent_team_and_metrics(ma_reference):
    for policy, results in ma_reference.items():
        task = results.tasks[0]
        assert task.status == "ok" and task.kind == "parallel" and len(task.episodes) == 7, policy
        for e in task.episodes:
            assert len(e.episode_return) == 8  # one return per agent
            assert math.isclose(e.team_return, math.fsum(e.episode_return), rel_tol=1e-12)
            assert set(e.metrics) == {"success_rate", "cooperative_success", "makespan", "sum_of_costs"}
            assert e.success == bool(e.metrics["cooperative_success"])
            assert e.length == e.metrics["makespan"] <= 40
        # The score of a multi-agent task is the team return.
        assert task.aggregates.mean == pytest.approx(sum(e.team_return for e in task.episodes) / 7)
    base, rand = ma_reference["baseline"].tasks[0], ma_reference["random"].tasks[0]
    # Prioritized planning brings every agent home; random walks do not within 40 steps.
    assert all(e.success for e in base.episodes) and base.aggregates.success_rate == 1.0
    assert not any(e.success for e in rand.episodes) and all(e.length == 40 for e in rand.episodes)
    # An agent earns -0.01 per step before its arrival and 1 on it: every baseline agent ends above 0.
    assert all(0.0 < r <= 1.0 for e in base.episodes for r in e.episode_return)
    assert all(r == pytest.approx(-0.4) for e in rand.episodes for r in e.episode_return if r < 0)
    assert base.aggregates.mean > rand.aggregates.mean


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("num_envs", [2, 3, 8])
@pytest.mark.parametrize("policy", ["random", "baseline"])
def test_bit_identical_for_any_worlds_and_workers(ma_suite, ma_reference, policy, num_envs, workers):
    assert raw(evaluate(ma_suite, policy, num_envs=num_envs, workers=workers)) == raw(ma_reference[policy])


def test_random_policy_is_per_agent_and_seeded_per_episode():
    from benchmarkzoo import make_vec, registration
    from benchmarkzoo.evaluation.policies import RandomPolicy

    env = make_vec("benchmarkzoo/MAPF-v0", 3)
    policy = RandomPolicy()
    policy.setup(env, registration.spec("benchmarkzoo/MAPF-v0"))
    policy.start_episodes(np.array([0, 1, 2]), [11, 12, 11])
    first = np.stack([policy.act(None, env).copy() for _ in range(20)])  # (steps, B, N)
    assert first.shape == (20, 3, 8) and env.action_space.contains(first[0])
    assert (first[:, 0] == first[:, 2]).all()  # the same episode seed, the same actions, in any world
    assert not (first[:, 0] == first[:, 1]).all()
    assert not (first[:, 0, :1] == first[:, 0, 1:]).all(axis=0).any()  # each agent draws its own actions
    policy.start_episodes(np.array([1]), [11])
    again = np.stack([policy.act(None, env).copy() for _ in range(20)])
    env.close()
    assert not (again[:, 1] == first[:, 1]).all()


@pytest.mark.parametrize("backend", ["sync", "async"])
def test_gymnasium_backends_refused_with_reason(ma_suite, backend):
    task = evaluate(ma_suite, "random", backend=backend, num_envs=2).tasks[0]
    assert task.status == "failed" and "native multi-agent vector form only" in task.error


def test_shipped_marl_suite_is_calibrated():
    suite = load_suite("marl-v0")
    assert [t.id for t in suite.tasks] == ["mapf-test", "mapf-ood"]
    for task in suite.tasks:
        assert task.score.kind == "return"  # the team return
        assert task.references.baseline > task.references.random


MOMA_SUITE = {
    "name": "tiny-moma-v0",
    "description": "MO-MAPF test, few short episodes, scored by the team's utility.",
    "tasks": [
        {
            "id": "mo-mapf-test",
            "env": "benchmarkzoo/MO-MAPF-v0",
            "scenario_set": "multiagent/mapf",
            "split": "test",
            "episodes": 4,
            "env_kwargs": {"max_cycles": 40},
            "score": {"kind": "utility", "weights": [1.0, 0.01, 0.01]},
            "multi_objective": {"reference_point": [-1.0, -321.0, -321.0], "weight_steps": 4},
        },
    ],
}


def test_moma_task_keeps_per_agent_vectors_and_scores_the_team_vector(tmp_path, suite_writer):
    from benchmarkzoo import registration
    from benchmarkzoo.leaderboard.validate import SubmissionError, _check_returns

    suite = suite_writer(tmp_path, MOMA_SUITE)
    results = evaluate(suite, "baseline", num_envs=2)
    task = results.tasks[0]
    assert task.status == "ok" and task.kind == "moma", task.error
    for e in task.episodes:
        returns = np.asarray(e.episode_return)
        assert returns.shape == (8, 3) and e.team_return is None  # agent x (arrival, energy, waiting)
        assert (returns[:, 0] == 1.0).all()  # prioritized planning brings every agent home
        # moves and waits are the sum of costs MAPF-v0 reports
        assert -returns[:, 1:].sum() == e.metrics["sum_of_costs"]
    team = np.array([np.asarray(e.episode_return).sum(axis=0) for e in task.episodes])  # (episodes, 3)
    assert task.aggregates.mean == pytest.approx(float((team @ [1.0, 0.01, 0.01]).mean()))
    assert task.aggregates.multi_objective.hypervolume > 0
    spec = registration.spec("benchmarkzoo/MO-MAPF-v0")
    _check_returns("mo-mapf-test", spec, task.episodes)  # a leaderboard accepts the nested returns
    flat = task.episodes[0].model_copy(update={"episode_return": [1.0, -3.0, -2.0]})
    with pytest.raises(SubmissionError, match="not shaped as a 'moma' env's"):
        _check_returns("mo-mapf-test", spec, [flat])
