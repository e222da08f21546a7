"""MAPF-Lifelong-v0: new goals exactly on arrival, goals deterministic from the seed, throughput,
the scenario set, the replanning baseline, and the native vector form against separate envs."""

from __future__ import annotations

import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo import registration, scenario_sets
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.envs.multiagent.mapf.baseline import LifelongPlanningPolicy
from benchmarkzoo.envs.multiagent.mapf.generator import LifelongMapfGenerator, LifelongMapfScenario, MapfScenario
from benchmarkzoo.envs.multiagent.mapf.lifelong import LifelongMapfEnv
from benchmarkzoo.testing import check_parallel_env, check_parallel_vector_matches_single

ENV_ID = "benchmarkzoo/MAPF-Lifelong-v0"
_M = "benchmarkzoo.envs.multiagent.mapf"
STAY, UP, RIGHT, DOWN, LEFT = range(5)


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """Register the env and its generator for the test, unless the catalogue already does."""
    if "mapf/lifelong" not in registration._GENERATORS:
        monkeypatch.setitem(registration._GENERATORS, "mapf/lifelong", f"{_M}.generator:LifelongMapfGenerator")
    if ENV_ID not in registration._ENVS:
        spec = registration.EnvSpec(
            id=ENV_ID,
            kind="parallel",
            family="multiagent",
            entry_point=f"{_M}.lifelong:LifelongMapfEnv",
            vector_entry_point=f"{_M}.lifelong:LifelongMapfVectorEnv",
            max_episode_steps=128,
            kwargs={"generator": "mapf/lifelong"},
            extras=(),
            description="lifelong MAPF",
            baseline=f"{_M}.baseline:LifelongPlanningPolicy",
            scenario_sets=("multiagent/mapf-lifelong",),
        )
        monkeypatch.setitem(registration._ENVS, ENV_ID, spec)


def corridor_env(max_cycles: int = 8) -> LifelongMapfEnv:
    """One agent in a 1x4 corridor (row 0 of a 2x4 map whose row 1 is walled), goals col 1, 3, 2, 0, 3, ..."""
    walls = np.array([[False] * 4, [True] * 4])
    sequence = np.array([[[0, 3], [0, 2], [0, 0], [0, 3]] + [[0, 0], [0, 3]] * 2])
    scenario = LifelongMapfScenario(
        walls=walls, starts=np.array([[0, 0]]), goals=np.array([[0, 1]]), goal_sequence=sequence
    )
    gen = LifelongMapfGenerator(
        base_kwargs={"height": 2, "width": 4, "num_agents": 1, "density": 0.0}, goals_per_agent=8
    )
    env = LifelongMapfEnv(generator=gen, max_cycles=max_cycles)
    env.reset(seed=0, options={"scenario": scenario})
    return env


def test_a_new_goal_appears_exactly_when_the_old_one_is_reached():
    env = corridor_env()
    goals, rewards, successes = [], [], []
    for action in (RIGHT, STAY, RIGHT, RIGHT, LEFT, LEFT, LEFT, STAY):
        _, r, term, trunc, infos = env.step({"agent_0": action})
        goals.append(env.sim_state.goal[0, 0].tolist())
        rewards.append(r["agent_0"])
        successes.append(infos["agent_0"]["is_success"])
        assert term == {"agent_0": False}
    # reach (0,1) on step 1 -> goal (0,3); reach it on step 4 -> (0,2); step 5 -> (0,0) ; step 7 -> (0,3)
    assert goals == [[0, 3], [0, 3], [0, 3], [0, 2], [0, 0], [0, 0], [0, 3], [0, 3]]
    assert successes == [True, False, False, True, True, False, True, False]
    assert rewards == [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    assert env.sim_state.active[0].all() and env.agents == []  # never removed; truncated at max_cycles
    assert trunc == {"agent_0": True}
    assert infos["agent_0"]["goals_reached"] == 4
    assert infos["agent_0"]["throughput"] == 4 / 8  # goals / steps


def test_observation_shows_the_new_goal_with_the_arrival():
    env = corridor_env()
    obs, *_ = env.step({"agent_0": RIGHT})  # at (0,1), new goal (0,3)
    assert obs["agent_0"]["goal_direction"].tolist() == [0.0, pytest.approx(2 / 3)]  # (3 - 1) / (4 - 1)


def test_goal_sequence_is_deterministic_from_the_seed_and_extends_the_base_scenario():
    gen = LifelongMapfGenerator(base_kwargs={"height": 12, "width": 12, "num_agents": 6}, goals_per_agent=40)
    a, b, c = gen.sample(7), gen.sample(7), gen.sample(8)
    assert a == b and a.content_hash == b.content_hash and a != c
    assert np.array_equal(a.goal_sequence, b.goal_sequence)
    base = registration.make_generator("mapf/obstacles", gen.base_kwargs).sample(7)
    assert isinstance(base, MapfScenario) and np.array_equal(base.goals, a.goals)
    assert np.array_equal(base.walls, a.walls)
    chain = np.concatenate([a.goals[:, None], a.goal_sequence], axis=1)
    assert not (chain[:, 1:] == chain[:, :-1]).all(axis=-1).any()  # consecutive goals differ
    env1, env2 = LifelongMapfEnv(generator=gen, max_cycles=40), LifelongMapfEnv(generator=gen, max_cycles=40)
    env1.reset(seed=3)
    env2.reset(seed=3)
    assert env1.scenario == env2.scenario == gen.sample(3)


def test_goals_follow_the_scenario_sequence_under_the_baseline():
    gen = LifelongMapfGenerator(base_kwargs={"height": 10, "width": 10, "num_agents": 4}, goals_per_agent=64)
    env = LifelongMapfEnv(generator=gen, max_cycles=64)
    policy = LifelongPlanningPolicy()
    env.reset(seed=1)
    total = 0
    while env.agents:
        _, rewards, _, _, infos = env.step(policy(env))
        total += sum(rewards.values())
        for k in range(4):
            n = env.sim_state.reached[0, k]
            expected = env.scenario.goals[k] if n == 0 else env.scenario.goal_sequence[k, n - 1]
            assert env.sim_state.goal[0, k].tolist() == expected.tolist()
    assert infos["agent_0"]["goals_reached"] == total == env.sim_state.reached.sum() > 0
    assert infos["agent_0"]["throughput"] == total / 64


def test_bad_scenarios_and_arguments_are_refused():
    walls = np.zeros((1, 4), dtype=bool)
    with pytest.raises(ScenarioError, match="consecutive"):
        LifelongMapfScenario(
            walls=walls, starts=np.array([[0, 0]]), goals=np.array([[0, 1]]), goal_sequence=np.array([[[0, 1]]])
        )
    with pytest.raises(ScenarioError, match="free cell"):
        LifelongMapfScenario(
            walls=walls, starts=np.array([[0, 0]]), goals=np.array([[0, 1]]), goal_sequence=np.array([[[0, 9]]])
        )
    gen = LifelongMapfGenerator(base_kwargs={"height": 8, "width": 8, "num_agents": 2}, goals_per_agent=10)
    with pytest.raises(ValueError, match="goals_per_agent"):
        LifelongMapfEnv(generator=gen, max_cycles=11)
    env = LifelongMapfEnv(generator=gen, max_cycles=10)
    one_shot = registration.make_generator("mapf/obstacles", {"height": 8, "width": 8, "num_agents": 2}).sample(0)
    with pytest.raises(ScenarioError, match="LifelongMapfScenario"):
        env.reset(options={"scenario": one_shot})


def test_scenario_set_verifies_and_the_env_plays_its_scenarios():
    loaded = scenario_sets.load_set("multiagent/mapf-lifelong")
    assert list(loaded.splits) == ["train", "test", "ood"]
    assert scenario_sets.verify(loaded, ["test"]) == []
    for split in loaded.splits.values():
        env = benchmarkzoo.make_parallel(loaded.env, **split.env_kwargs())
        for seed in list(split.seeds)[:3]:
            env.reset(seed=seed)
            assert env.scenario.content_hash == split.hashes[seed], (split.name, seed)


def test_baseline_throughput_on_the_test_split():
    split = scenario_sets.load_set("multiagent/mapf-lifelong").split("test")
    env = benchmarkzoo.make_parallel(ENV_ID, **split.env_kwargs())
    policy = LifelongPlanningPolicy()
    throughput = []
    for seed in list(split.seeds)[:10]:
        env.reset(seed=seed)
        while env.agents:
            _, _, _, _, infos = env.step(policy(env))
        throughput.append(infos["agent_0"]["throughput"])
    assert np.mean(throughput) >= 0.55, throughput  # see the baseline's docstring for the recorded figure


def test_native_vector_equals_separate_parallel_envs():
    kwargs = {
        "generator_kwargs": {
            "base": "mapf/obstacles",
            "base_kwargs": {"height": 8, "width": 8, "num_agents": 4},
            "goals_per_agent": 40,
        },
        "max_cycles": 40,
    }
    result = check_parallel_vector_matches_single(ENV_ID, num_envs=4, steps=150, seed=3, **kwargs)
    assert result["episodes_ended"] >= 8


def test_check_parallel_env_passes():
    kwargs = {
        "generator_kwargs": {
            "base": "mapf/maze",
            "base_kwargs": {"height": 9, "width": 9, "num_agents": 4},
            "goals_per_agent": 30,
        },
        "max_cycles": 30,
    }
    check_parallel_env(lambda: benchmarkzoo.make_parallel(ENV_ID, **kwargs), seed=0, steps=200, strict=True)
