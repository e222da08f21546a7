"""Multi-objective aggregates (hypervolume, expected utility, sparsity, front attainment) by hand and on MO-Treasure."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation import mo_metrics
from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.results import recompute
from benchmarkzoo.evaluation.suites import load_suite

pytest.importorskip("pymoo", reason="needs pymoo (the eval extra)")

MO_SUITE = {
    "name": "tiny-mo-v0",
    "description": "MO-Treasure test and ood, few episodes.",
    "tasks": [
        {
            "id": "treasure-test",
            "env": "benchmarkzoo/MO-Treasure-v0",
            "scenario_set": "gridworld/treasure",
            "split": "test",
            "episodes": 6,
            "score": {"kind": "utility", "weights": [0.5, 0.5]},
            "multi_objective": {"reference_point": [0.0, -100.0]},
        },
        {
            "id": "treasure-ood",
            "env": "benchmarkzoo/MO-Treasure-v0",
            "scenario_set": "gridworld/treasure",
            "split": "ood",
            "episodes": 5,
            "score": {"kind": "utility", "weights": [0.5, 0.5]},
            "multi_objective": {"reference_point": [0.0, -100.0]},
        },
    ],
}


def test_weight_set_is_the_simplex_lattice():
    w = mo_metrics.weight_set(2, 10)
    assert w.shape == (11, 2)
    assert w[0].tolist() == [0.0, 1.0] and w[-1].tolist() == [1.0, 0.0] and w[3].tolist() == [0.3, 0.7]
    w3 = mo_metrics.weight_set(3, 2)
    assert w3.shape == (6, 3) and np.allclose(w3.sum(axis=1), 1.0)


def test_hypervolume_by_hand():
    staircase = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])
    assert mo_metrics.hypervolume(staircase, [0.0, 0.0]) == pytest.approx(6.0)  # 1*3 + 1*2 + 1*1
    # A dominated point adds nothing; a point not beyond the reference point is ignored.
    more = np.vstack([staircase, [[0.5, 0.5], [-1.0, 5.0]]])
    assert mo_metrics.hypervolume(more, [0.0, 0.0]) == pytest.approx(6.0)
    assert mo_metrics.hypervolume(staircase, [1.0, 0.0]) == pytest.approx(3.0)  # 1*2 + 1*1
    assert mo_metrics.hypervolume(np.array([[1.0, 2.0, 3.0]]), [0.0, 0.0, 0.0]) == pytest.approx(6.0)
    assert mo_metrics.hypervolume(np.array([[-1.0, -1.0]]), [0.0, 0.0]) == 0.0


def test_expected_utility_and_sparsity_by_hand():
    points = np.array([[1.0, 3.0], [3.0, 1.0], [1.0, 1.0]])
    lam = np.linspace(0.0, 1.0, 11)  # weights (lam, 1 - lam) in the lattice order [0, 1] ... [1, 0]
    expected = np.mean(np.maximum(lam * 1 + (1 - lam) * 3, lam * 3 + (1 - lam) * 1))
    assert mo_metrics.expected_utility(points, mo_metrics.weight_set(2, 10)) == pytest.approx(expected)
    assert expected == pytest.approx(28 / 11)  # 3, 2.8, ..., 2.0 (at 0.5), ..., 3
    # Sparsity of the non-dominated [1, 3], [3, 1]: per objective one gap of 2: (4 + 4) / 1.
    assert mo_metrics.sparsity(points) == pytest.approx(8.0)
    staircase = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0], [2.0, 2.0]])
    assert mo_metrics.sparsity(staircase) == pytest.approx(2.0)  # (1 + 1 + 1 + 1) / 2, duplicates once
    assert mo_metrics.sparsity(np.array([[1.0, 1.0]])) == 0.0


def test_front_attainment_by_hand():
    fronts = {"a": [[1.0, -1.0], [5.0, -3.0]], "b": [[2.0, -2.0]]}
    returns = [[1.0, -1.0], [5.0, -4.0], [2.0, -2.0], [1.0, -1.0]]
    optimal, coverage = mo_metrics.front_attainment(returns, ["a", "a", "b", "a"], fronts)
    assert optimal == pytest.approx(3 / 4)
    assert coverage == pytest.approx(2 / 3)  # a: 1 of 2 points, b: 1 of 1


@pytest.fixture(scope="module")
def mo_runs(tmp_path_factory, suite_writer):
    path = suite_writer(tmp_path_factory.mktemp("mo"), MO_SUITE)
    return path, {p: evaluate(path, p, num_envs=4) for p in ("random", "baseline")}


def test_mo_treasure_aggregates(mo_runs):
    _, runs = mo_runs
    for policy, results in runs.items():
        for task in results.tasks:
            assert task.status == "ok" and task.kind == "mo", policy
            points = np.array([e.episode_return for e in task.episodes])
            agg = task.aggregates
            # The score is explicit: 0.5 * value + 0.5 * time per episode, not objective 0.
            assert agg.mean == pytest.approx(np.mean(points @ [0.5, 0.5]))
            mo = agg.multi_objective
            assert mo.expected_utility == pytest.approx(
                mo_metrics.expected_utility(points, mo_metrics.weight_set(2, 10))
            )
            assert mo.hypervolume == pytest.approx(mo_metrics.hypervolume(points, [0.0, -100.0]))
            assert len(task.pareto_fronts) == len({e.scenario_hash for e in task.episodes})
    # The linear-weight baseline sails shortest paths to a Pareto-optimal treasure every time.
    for task in runs["baseline"].tasks:
        assert task.aggregates.multi_objective.pareto_optimal_rate == 1.0
        assert 0.0 < task.aggregates.multi_objective.front_coverage < 1.0
    assert runs["random"].tasks[0].aggregates.multi_objective.pareto_optimal_rate < 1.0
    for b, r in zip(runs["baseline"].tasks, runs["random"].tasks):
        assert b.aggregates.mean > r.aggregates.mean
        assert b.aggregates.multi_objective.hypervolume > r.aggregates.multi_objective.hypervolume


def test_mo_results_recompute_and_validate(mo_runs, tmp_path, monkeypatch):
    from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file

    path, runs = mo_runs
    assert recompute(runs["random"]) == runs["random"]
    monkeypatch.setattr("benchmarkzoo.evaluation.suites.SUITES_DIR", path.parent)
    honest = tmp_path / "honest.json"
    runs["baseline"].write(honest)
    validate_file(honest)
    data = json.loads(honest.read_text())
    for edit, reason in [
        (lambda d: d["tasks"][0]["aggregates"]["multi_objective"].update(hypervolume=1.0), "aggregates do not match"),
        (lambda d: next(iter(d["tasks"][0]["pareto_fronts"].values())).pop(), "not the env's exact fronts"),
        (lambda d: d["tasks"][1]["score"].update(weights=[1.0, 0.0]), "score or multi-objective settings differ"),
        (lambda d: d["tasks"][0]["episodes"][0].update({"return": 3.0}), "not shaped as a 'mo' env's"),
    ]:
        forged = json.loads(json.dumps(data))
        edit(forged)
        path = tmp_path / "forged.json"
        path.write_text(json.dumps(forged))
        with pytest.raises(SubmissionError, match=reason):
            validate_file(path)


def test_vector_task_needs_an_explicit_score(tmp_path, suite_writer):
    data = json.loads(json.dumps(MO_SUITE))
    del data["tasks"][0]["score"]
    with pytest.raises(BenchmarkZooError, match="explicit score"):
        evaluate(suite_writer(tmp_path, data), "random")


def test_shipped_mo_suite_is_calibrated():
    suite = load_suite("mo-v0")
    assert [t.id for t in suite.tasks] == ["treasure-test", "treasure-ood"]
    for task in suite.tasks:
        assert task.score.kind == "utility" and task.multi_objective.reference_point == (0.0, -100.0)
        assert task.references.baseline > task.references.random
