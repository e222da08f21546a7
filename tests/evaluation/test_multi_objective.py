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


def _random_and_baseline(tmp_path_factory, suite_writer, suite, num_envs):
    """The suite file written for ``suite``, and its results for random and the baseline."""
    path = suite_writer(tmp_path_factory.mktemp(suite["name"]), suite)
    return path, {p: evaluate(path, p, num_envs=num_envs) for p in ("random", "baseline")}


@pytest.fixture(scope="module")
def mo_runs(tmp_path_factory, suite_writer):
    return _random_and_baseline(tmp_path_factory, suite_writer, MO_SUITE, num_envs=4)


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


def _written_and_valid(results, suite_path, tmp_path, monkeypatch):
    """``results``, whose aggregates are its episodes', written as a file that validates; its JSON."""
    from benchmarkzoo.leaderboard.validate import validate_file

    assert recompute(results) == results
    monkeypatch.setattr("benchmarkzoo.evaluation.suites.SUITES_DIR", suite_path.parent)
    honest = tmp_path / "honest.json"
    results.write(honest)
    validate_file(honest)
    return json.loads(honest.read_text())


def test_mo_results_recompute_and_validate(mo_runs, tmp_path, monkeypatch):
    from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file

    path, runs = mo_runs
    assert recompute(runs["random"]) == runs["random"]
    data = _written_and_valid(runs["baseline"], path, tmp_path, monkeypatch)
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


def test_scenario_scores_by_hand():
    fronts = {"a": [[1.0, -1.0], [5.0, -3.0]], "b": [[2.0, -2.0]]}
    returns = [[1.0, -1.0], [2.0, -2.0], [1.0, -5.0]]
    weights = mo_metrics.weight_set(2, 2)  # [0, 1], [0.5, 0.5], [1, 0]
    scenarios, ratios, losses = mo_metrics.scenario_scores(returns, ["a", "b", "b"], fronts, [0.0, -10.0], weights)
    assert scenarios == ["a", "b"]
    # a: HV of (1, -1) is 1 * 9; the front's is 5 * 7 + 1 * (9 - 7) = 37.
    assert ratios.tolist() == pytest.approx([9 / 37, 1.0])
    # a: EU(front) = mean(-1, 1, 5) = 5/3, EU({(1, -1)}) = mean(-1, 0, 1) = 0; b attains its front.
    assert losses.tolist() == pytest.approx([5 / 3, 0.0])
    with pytest.raises(ValueError, match=r"scenario a: its Pareto front .* dominates no volume"):
        mo_metrics.scenario_scores(returns, ["a", "b", "b"], fronts, [10.0, 0.0], weights)


def test_per_scenario_scores_see_what_pooling_hides():
    # An easy sea (front (10, -1)) and a hard one (front (1, -9)): the hard sea's front point is
    # dominated by the easy sea's, so pooling the returns cannot tell a policy that attains both
    # fronts from one that finds nothing in the hard sea.
    fronts = {"easy": [[10.0, -1.0]], "hard": [[1.0, -9.0]]}
    both, half = [[10.0, -1.0], [1.0, -9.0]], [[10.0, -1.0], [0.0, -10.0]]
    reference, weights = [0.0, -10.0], mo_metrics.weight_set(2, 10)
    assert mo_metrics.hypervolume(np.array(both), reference) == mo_metrics.hypervolume(np.array(half), reference)
    _, ratios_both, losses_both = mo_metrics.scenario_scores(both, ["easy", "hard"], fronts, reference, weights)
    _, ratios_half, losses_half = mo_metrics.scenario_scores(half, ["easy", "hard"], fronts, reference, weights)
    assert ratios_both.tolist() == [1.0, 1.0] and ratios_half.tolist() == [1.0, 0.0]
    assert losses_both.tolist() == pytest.approx([0.0, 0.0]) and losses_half[1] > 0.0


FRONT_SUITE = {
    "name": "tiny-front-v0",
    "description": "MO-Treasure scored against each scenario's exact front.",
    "tasks": [
        {
            "id": "treasure-test",
            "env": "benchmarkzoo/MO-Treasure-v0",
            "scenario_set": "gridworld/treasure",
            "split": "test",
            "episodes": 6,
            "score": {"kind": "hypervolume_ratio"},
            "multi_objective": {"reference_point": [0.0, -100.0]},
        }
    ],
}


@pytest.fixture(scope="module")
def front_runs(tmp_path_factory, suite_writer):
    return _random_and_baseline(tmp_path_factory, suite_writer, FRONT_SUITE, num_envs=3)


def test_hypervolume_ratio_score_is_taken_against_each_scenarios_front(front_runs):
    _, runs = front_runs
    means = {}
    for policy, results in runs.items():
        (task,) = results.tasks
        assert task.status == "ok"
        expected = []
        for episode in task.episodes:
            front = np.asarray(task.pareto_fronts[episode.scenario_hash])
            point = np.asarray([episode.episode_return])
            expected.append(mo_metrics.hypervolume(point, [0.0, -100.0]) / mo_metrics.hypervolume(front, [0.0, -100.0]))
        agg = task.aggregates
        assert agg.mean == pytest.approx(np.mean(expected))
        assert all(0.0 <= r <= 1.0 for r in expected)
        mo = agg.multi_objective
        assert mo.scenarios == len({e.scenario_hash for e in task.episodes})
        assert (
            mo.scenario_hypervolume_ratio_ci[0] <= mo.scenario_hypervolume_ratio <= mo.scenario_hypervolume_ratio_ci[1]
        )
        assert mo.scenario_utility_loss >= -1e-9
        means[policy] = agg.mean
    # The planner reaches a Pareto-optimal treasure every time: near the best one point can do.
    assert means["baseline"] > 0.8 > means["random"]
    assert runs["baseline"].tasks[0].aggregates.multi_objective.scenario_utility_loss < (
        runs["random"].tasks[0].aggregates.multi_objective.scenario_utility_loss
    )


def test_hypervolume_ratio_score_is_validated_against_the_exact_fronts(front_runs, tmp_path, monkeypatch):
    from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file

    path, runs = front_runs
    assert recompute(runs["baseline"]) == runs["baseline"]
    forged = _written_and_valid(runs["random"], path, tmp_path, monkeypatch)
    # A front shrunk to one poor point would raise every ratio: refused as not the env's front.
    for key in forged["tasks"][0]["pareto_fronts"]:
        forged["tasks"][0]["pareto_fronts"][key] = [[0.5, -99.0]]
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    with pytest.raises(SubmissionError, match="not the env's exact fronts"):
        validate_file(tmp_path / "forged.json")


def test_hypervolume_ratio_needs_a_reference_point(tmp_path, suite_writer):
    data = json.loads(json.dumps(FRONT_SUITE))
    del data["tasks"][0]["multi_objective"]
    with pytest.raises(BenchmarkZooError, match=r"hypervolume_ratio.*reference point"):
        load_suite(suite_writer(tmp_path, data))


def test_shipped_mo_v2_scores_treasure_per_scenario():
    suite = load_suite("mo-v2")
    treasure = [t for t in suite.tasks if t.env == "benchmarkzoo/MO-Treasure-v0"]
    assert [t.id for t in treasure] == ["treasure-test", "treasure-ood"]
    for task in treasure:
        assert task.score.kind == "hypervolume_ratio"
        assert task.references.seed == 1 and 0.0 <= task.references.random < task.references.baseline <= 1.0
    assert "no exact Pareto front" in suite.task("mo-quadrotor-test").description


def test_files_written_before_the_per_scenario_aggregates_stay_valid(mo_runs, tmp_path, monkeypatch):
    from benchmarkzoo.evaluation.results import LATER_MO_AGGREGATES
    from benchmarkzoo.leaderboard.validate import SubmissionError, validate_file

    path, runs = mo_runs
    data = _written_and_valid(runs["baseline"], path, tmp_path, monkeypatch)
    assert data["tasks"][0]["aggregates"]["multi_objective"]["scenario_hypervolume_ratio"] > 0.8
    for task in data["tasks"]:  # as an older evaluate wrote it
        for name in LATER_MO_AGGREGATES:
            del task["aggregates"]["multi_objective"][name]
    (tmp_path / "old.json").write_text(json.dumps(data))
    validate_file(tmp_path / "old.json")
    # Present, a later aggregate is checked like any other.
    data["tasks"][0]["aggregates"]["multi_objective"]["scenario_hypervolume_ratio"] = 1.0
    (tmp_path / "forged.json").write_text(json.dumps(data))
    with pytest.raises(SubmissionError, match="task treasure-test: the aggregates do not match"):
        validate_file(tmp_path / "forged.json")
