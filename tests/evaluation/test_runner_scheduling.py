"""The runner's per-process scenario cache and the suite-wide worker pool keep outcomes and checks intact."""

from __future__ import annotations

import hashlib

import pytest

from benchmarkzoo.core.errors import ScenarioSetError
from benchmarkzoo.evaluation import runner
from benchmarkzoo.evaluation.policies import RandomPolicy
from benchmarkzoo.evaluation.protocol import Dispatcher, evaluate, run_task
from benchmarkzoo.evaluation.runner import ScenarioSource, clear_scenario_cache, plan_episodes, run_episodes
from benchmarkzoo.evaluation.suites import load_suite
from benchmarkzoo.scenario_sets import load_set

from .test_determinism import raw
from .test_multiagent import MA_SUITE


@pytest.mark.parametrize("policy", ["random", "baseline"])
def test_envs_leave_cached_scenarios_untouched(tiny_suite, suite_writer, tmp_path, policy):
    clear_scenario_cache()
    evaluate(tiny_suite, policy, num_envs=3)
    evaluate(suite_writer(tmp_path, MA_SUITE), policy, num_envs=3)
    assert len(runner._SCENARIOS) > 0
    for scenario, digest in runner._SCENARIOS.values():
        # Recomputed from the scenario's fields now, not read from its cached hash.
        assert hashlib.sha256(scenario.to_json().encode()).hexdigest() == digest


def test_cached_scenarios_give_the_cold_outcomes(tiny_suite):
    clear_scenario_cache()
    cold = evaluate(tiny_suite, "random", num_envs=2)
    warm = evaluate(tiny_suite, "random", num_envs=5)
    assert raw(warm) == raw(cold)


def test_a_stale_recorded_hash_is_refused_even_when_cached(tiny_suite):
    task = load_suite(tiny_suite).tasks[0]
    split = load_set(task.scenario_set).split(task.split)
    seed = split.seeds[0]
    ScenarioSource(task, split).get(seed)  # now cached
    forged = type(split)(split.name, split.generator, split.kwargs, split.seeds, {**split.hashes, seed: "0" * 64})
    with pytest.raises(ScenarioSetError, match=f"seed {seed} now generates"):
        ScenarioSource(task, forged).get(seed)
    plans = plan_episodes(task, 0, list(split.seeds))
    with pytest.raises(ScenarioSetError, match="the set records 000000000000"):
        run_episodes(task, forged, plans, RandomPolicy(), num_envs=3)


def test_one_pool_serves_several_tasks(tiny_suite):
    reference = evaluate(tiny_suite, "random", num_envs=3)
    tasks = load_suite(tiny_suite).tasks
    dispatcher = Dispatcher("random", "native", 2, workers=2)
    try:
        for task in tasks:  # queued ahead, then collected task by task
            split = load_set(task.scenario_set).split(task.split)
            dispatcher.queue(task, plan_episodes(task, 0, list(split.seeds)))
        results = [run_task(task, "random", num_envs=2, workers=2, dispatcher=dispatcher) for task in tasks]
    finally:
        dispatcher.close()
    assert [[e.model_dump() for e in t.episodes] for t in results] == [
        [e.model_dump() for e in t.episodes] for t in reference.tasks
    ]
    # Without a dispatcher, run_task starts and stops its own pool.
    alone = run_task(tasks[1], "random", num_envs=2, workers=2)
    assert [e.model_dump() for e in alone.episodes] == [e.model_dump() for e in reference.tasks[1].episodes]
