"""Raw outcomes are bit-identical for any number of worlds, backend and worker count (determinism contract 3)."""

from __future__ import annotations

import pytest

from benchmarkzoo.core.seeding import derive_seed
from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.runner import plan_episodes
from benchmarkzoo.evaluation.suites import load_suite
from benchmarkzoo.scenario_sets import load_set

NUM_ENVS = (1, 3, 8)
WORKERS = (1, 2)


def raw(results) -> list:
    """Everything the protocol fixes: per task, every episode's seeds, scenario hash, return, length, success."""
    return [(t.id, t.status, [e.model_dump(by_alias=True) for e in t.episodes]) for t in results.tasks]


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory, suite_writer):
    return suite_writer(tmp_path_factory.mktemp("suite"))


@pytest.fixture(scope="module")
def reference(suite_file):
    return {policy: evaluate(suite_file, policy, backend="native", num_envs=1) for policy in ("random", "baseline")}


def test_reference_runs_are_real(reference):
    for policy, results in reference.items():
        assert [t.status for t in results.tasks] == ["ok", "ok"], policy
        assert [len(t.episodes) for t in results.tasks] == [7, 5]
        lengths = [e.length for t in results.tasks for e in t.episodes]
        assert min(lengths) >= 1 and max(lengths) <= 200
    # The baseline walks shortest paths: it always succeeds and beats the random policy on every task.
    base, rand = reference["baseline"], reference["random"]
    assert all(e.success for t in base.tasks for e in t.episodes)
    for b, r in zip(base.tasks, rand.tasks):
        assert b.aggregates.mean > r.aggregates.mean
    # The ood task's time limit (150, above every shortest path) binds for the random policy on 21x21 maps.
    assert any(e.length == 150 for e in rand.tasks[1].episodes)


@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize("num_envs", NUM_ENVS)
@pytest.mark.parametrize("backend", ["native", "sync", "async"])
def test_random_policy_bit_identical(suite_file, reference, backend, num_envs, workers):
    results = evaluate(suite_file, "random", backend=backend, num_envs=num_envs, workers=workers)
    assert raw(results) == raw(reference["random"])


@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize("num_envs", NUM_ENVS)
@pytest.mark.parametrize("backend", ["native", "sync"])
def test_baseline_policy_bit_identical(suite_file, reference, backend, num_envs, workers):
    results = evaluate(suite_file, "baseline", backend=backend, num_envs=num_envs, workers=workers)
    assert raw(results) == raw(reference["baseline"])


@pytest.mark.parametrize("workers", WORKERS)
def test_baseline_on_async_fails_with_the_backend_named(suite_file, workers):
    results = evaluate(suite_file, "baseline", backend="async", num_envs=3, workers=workers)
    for task in results.tasks:
        assert task.status == "failed"
        assert task.episodes == [] and task.aggregates is None
        assert "--backend async" in task.error and "native or sync" in task.error
    assert results.aggregates is None


def test_episode_seeds_follow_the_protocol(reference):
    suite = reference["random"]
    for task in suite.tasks:
        split = load_set(task.scenario_set).split(task.split)
        seeds = list(split.seeds)
        for k, episode in enumerate(task.episodes):
            assert episode.index == k
            assert episode.seed == derive_seed(0, task.id, k)
            assert episode.scenario_seed == seeds[k % len(seeds)]
            assert episode.scenario_hash == split.hashes[episode.scenario_seed]
    # The first test-split seeds of the maze set, spelled out so a change of the set is noticed here.
    assert [e.scenario_seed for e in suite.tasks[0].episodes] == seeds_of("test")[:7]


def seeds_of(split: str) -> list[int]:
    return list(load_set("gridworld/maze").split(split).seeds)


def test_plan_cycles_through_the_split_seeds(suite_file):
    task = load_suite(suite_file).tasks[0]  # 7 episodes
    plans = plan_episodes(task, 5, [10, 20, 30])
    assert [p.index for p in plans] == list(range(7))
    assert [p.scenario_seed for p in plans] == [10, 20, 30, 10, 20, 30, 10]
    assert [p.seed for p in plans] == [derive_seed(5, "maze-test", k) for k in range(7)]
    assert len({p.seed for p in plans}) == 7


def test_protocol_seed_changes_seeds_and_outcomes(suite_file, reference):
    other = evaluate(suite_file, "random", num_envs=3, seed=1)
    ref = reference["random"]
    for task, ref_task in zip(other.tasks, ref.tasks):
        assert [e.seed for e in task.episodes] == [derive_seed(1, task.id, k) for k in range(len(task.episodes))]
        assert not {e.seed for e in task.episodes} & {e.seed for e in ref_task.episodes}
        # Same scenarios (they come from the split), different dynamics and random actions.
        assert [e.scenario_hash for e in task.episodes] == [e.scenario_hash for e in ref_task.episodes]
    returns = [e.episode_return for t in other.tasks for e in t.episodes]
    ref_returns = [e.episode_return for t in ref.tasks for e in t.episodes]
    assert returns != ref_returns
    assert other.protocol_seed == 1
