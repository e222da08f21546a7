"""MO-MAPF-v0: the vector reward on hand-written scenarios (a move costs energy, a wait costs waiting,
arrival pays), episode sums against the MAPF metrics, the vector form, the baseline, the registered forms."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo import scenario_sets
from benchmarkzoo.envs.multiagent.mapf import mo as mo_module
from benchmarkzoo.envs.multiagent.mapf.baseline import PrioritizedPlanningPolicy
from benchmarkzoo.envs.multiagent.mapf.generator import MapfScenario, ObstacleMapGenerator
from benchmarkzoo.envs.multiagent.mapf.mo import MOMapfEnv, MOMapfVectorEnv
from benchmarkzoo.testing import check_parallel_env

ENV_ID = "benchmarkzoo/MO-MAPF-v0"
STAY, UP, RIGHT, DOWN, LEFT = range(5)
ARRIVE_MOVE = [1.0, -1.0, 0.0]
MOVE = [0.0, -1.0, 0.0]
WAIT = [0.0, 0.0, -1.0]


def parse(rows: list[str]) -> MapfScenario:
    """``#`` obstacle, ``.`` floor, ``A``, ``B``, ... starts of agents 0, 1, ...; ``a``, ``b``, ... their goals."""
    walls = np.array([[ch == "#" for ch in row] for row in rows], dtype=bool)
    found = {ch: (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch.isalpha()}
    n = sum(ch.isupper() for ch in found)
    starts = [found[chr(ord("A") + k)] for k in range(n)]
    goals = [found[chr(ord("a") + k)] for k in range(n)]
    return MapfScenario(walls=walls, starts=np.array(starts), goals=np.array(goals))


def generator_for(scenario: MapfScenario) -> ObstacleMapGenerator:
    height, width = scenario.shape
    return ObstacleMapGenerator(height=height, width=width, num_agents=scenario.num_agents, density=0.0)


def env_for(scenario: MapfScenario, **kwargs) -> MOMapfEnv:
    env = MOMapfEnv(generator=generator_for(scenario), **kwargs)
    env.reset(seed=0, options={"scenario": scenario})
    return env


def as_lists(rewards: dict[str, np.ndarray]) -> dict[str, list[float]]:
    for reward in rewards.values():
        assert reward.dtype == np.float32 and reward.shape == (3,)
    return {agent: reward.tolist() for agent, reward in rewards.items()}


# ---- the vector reward --------------------------------------------------------------------------


def test_a_move_costs_energy_a_wait_costs_waiting_and_arrival_pays():
    env = env_for(parse(["A.a..", "B...b"]))
    assert env.reward_space("agent_0") == env.reward_space("agent_1")
    np.testing.assert_array_equal(env.reward_space("agent_0").low, [0.0, -1.0, -1.0])
    np.testing.assert_array_equal(env.reward_space("agent_0").high, [1.0, 0.0, 0.0])
    _, rewards, terminations, _, _ = env.step({"agent_0": RIGHT, "agent_1": STAY})
    assert as_lists(rewards) == {"agent_0": MOVE, "agent_1": WAIT}
    _, rewards, terminations, _, _ = env.step({"agent_0": RIGHT, "agent_1": RIGHT})
    assert as_lists(rewards) == {"agent_0": ARRIVE_MOVE, "agent_1": MOVE}
    assert terminations == {"agent_0": True, "agent_1": False}
    _, rewards, _, _, _ = env.step({"agent_1": STAY})  # the arrived agent is gone: no reward at all
    assert as_lists(rewards) == {"agent_1": WAIT}


def test_bumping_into_an_obstacle_or_the_border_is_waiting_not_energy():
    env = env_for(parse(["A#..", "...a"]))
    for action in (UP, LEFT, RIGHT):
        _, rewards, _, _, _ = env.step({"agent_0": action})
        assert as_lists(rewards) == {"agent_0": WAIT}, action


def test_losing_a_conflict_is_waiting_for_the_loser_only():
    env = env_for(parse([".....", "A.B..", "b...a"]))
    _, rewards, _, _, _ = env.step({"agent_0": RIGHT, "agent_1": LEFT})  # both target (1, 1): agent_0 wins
    assert as_lists(rewards) == {"agent_0": MOVE, "agent_1": WAIT}
    env = env_for(parse([".....", "AB...", "b...a"]))
    _, rewards, _, _, _ = env.step({"agent_0": RIGHT, "agent_1": LEFT})  # a swap: both reverted
    assert as_lists(rewards) == {"agent_0": WAIT, "agent_1": WAIT}
    env = env_for(parse(["......", "ABC...", "cb...a"]))
    _, rewards, _, _, _ = env.step({"agent_0": RIGHT, "agent_1": RIGHT, "agent_2": RIGHT})  # a train moves
    assert as_lists(rewards) == {"agent_0": MOVE, "agent_1": MOVE, "agent_2": MOVE}


def test_truncated_agents_get_the_reward_of_their_last_step():
    env = env_for(parse(["A...a", "....."]), max_cycles=2)
    env.step({"agent_0": RIGHT})
    _, rewards, terminations, truncations, infos = env.step({"agent_0": STAY})
    assert as_lists(rewards) == {"agent_0": WAIT}
    assert truncations == {"agent_0": True} and terminations == {"agent_0": False}
    assert infos["agent_0"]["sum_of_costs"] == 2 and infos["agent_0"]["success_rate"] == 0.0


def test_episode_sums_match_the_mapf_metrics_under_the_baseline():
    """Per agent, arrival sums to 1 iff it arrived; -(energy + waiting) is its cost (steps on the grid)."""
    generator = ObstacleMapGenerator(height=10, width=10, num_agents=6, density=0.2)
    policy = PrioritizedPlanningPolicy()
    for seed in range(8):
        env = MOMapfEnv(generator=generator, max_cycles=40)
        env.reset(seed=seed)
        totals = {agent: np.zeros(3) for agent in env.possible_agents}
        moves = {agent: 0 for agent in env.possible_agents}
        while env.agents:
            before = env.sim_state.pos[0].copy()
            _, rewards, _, _, infos = env.step(policy(env))
            after = env.sim_state.pos[0]
            for agent, reward in rewards.items():
                totals[agent] += reward
                k = env.possible_agents.index(agent)
                moves[agent] += int((before[k] != after[k]).any())
        arrival = env.sim_state.arrival[0]
        costs = np.where(arrival >= 0, arrival, env.num_steps)
        for k, agent in enumerate(env.possible_agents):
            assert totals[agent][0] == float(arrival[k] >= 0), (seed, agent)
            assert totals[agent][1] == -moves[agent], (seed, agent)
            assert -(totals[agent][1] + totals[agent][2]) == costs[k], (seed, agent)
        summary = next(iter(infos.values()))
        assert sum(-(t[1] + t[2]) for t in totals.values()) == summary["sum_of_costs"]
        assert summary["cooperative_success"], seed  # the planner is unchanged and still solves these


def test_the_baseline_is_unchanged_on_the_scenario_set():
    split = scenario_sets.load_set("multiagent/mapf").split("test")
    env = benchmarkzoo.make_parallel(ENV_ID, **split.env_kwargs())
    policy = PrioritizedPlanningPolicy()
    arrivals = []
    for seed in list(split.seeds)[:10]:
        env.reset(seed=seed)
        total = np.zeros(3)
        while env.agents:
            _, rewards, _, _, infos = env.step(policy(env))
            total += sum(rewards.values())
        arrivals.append(total[0])
        assert -(total[1] + total[2]) == next(iter(infos.values()))["sum_of_costs"]
    assert arrivals == [8.0] * 10  # every agent of every scenario arrives, as in MAPF-v0


# ---- the vector form ----------------------------------------------------------------------------


def test_vector_rewards_equal_the_parallel_env_on_a_hand_written_scenario():
    scenario = parse([".....", "A.B..", "b...a"])
    vec = MOMapfVectorEnv(num_envs=2, generator=generator_for(scenario), max_cycles=3)
    vec.reset(seed=0, options={"scenario": scenario})
    assert vec.single_reward_space == mo_module.mo_reward_space()
    env = env_for(scenario, max_cycles=3)
    plan = [[RIGHT, LEFT], [RIGHT, LEFT], [DOWN, DOWN]]
    for actions in plan:
        batch = np.array([actions, [STAY, STAY]], dtype=np.int64)
        _, rewards, _, _, _ = vec.step(batch)
        assert rewards.dtype == np.float32 and rewards.shape == (2, 2, 3)
        acting = list(env.agents)
        _, p_rewards, _, _, _ = env.step({a: actions[int(a[-1])] for a in acting})
        for k, agent in enumerate(env.possible_agents):
            expected = p_rewards.get(agent, np.zeros(3, dtype=np.float32))
            np.testing.assert_array_equal(rewards[0, k], expected)
        np.testing.assert_array_equal(rewards[1], [WAIT, WAIT])  # world 1 stays put: two waits a step
    np.testing.assert_array_equal(rewards[0], [[0.0, -1.0, 0.0], [0.0, -1.0, 0.0]])


def test_vector_rewards_are_zero_on_the_autoreset_step_and_for_finished_agents():
    scenario = parse(["Aa...", "B...b"])
    vec = MOMapfVectorEnv(num_envs=1, generator=generator_for(scenario), max_cycles=2)
    vec.reset(seed=0, options={"scenario": scenario})
    _, rewards, terminations, _, _ = vec.step(np.array([[RIGHT, RIGHT]]))
    np.testing.assert_array_equal(rewards[0], [ARRIVE_MOVE, MOVE])
    assert terminations[0].tolist() == [True, False]
    _, rewards, _, truncations, infos = vec.step(np.array([[RIGHT, STAY]]))  # agent_0's entry is ignored
    np.testing.assert_array_equal(rewards[0], [[0.0, 0.0, 0.0], WAIT])
    assert truncations[0].tolist() == [False, True] and infos["present"][0].tolist() == [False, True]
    _, rewards, _, _, infos = vec.step(np.array([[RIGHT, RIGHT]]))  # the reset step
    assert not rewards.any() and infos["present"][0].all()


# ---- registered forms ---------------------------------------------------------------------------


def test_registered_env_passes_the_parallel_checks_on_a_small_map():
    kwargs = {"generator_kwargs": {"height": 8, "width": 8, "num_agents": 4, "density": 0.2}, "max_cycles": 30}
    check_parallel_env(lambda: benchmarkzoo.make_parallel(ENV_ID, **kwargs), seed=1, steps=200, strict=True)


def test_registered_spec():
    spec = benchmarkzoo.spec(ENV_ID)
    assert spec.kind == "moma" and spec.has_native_vector and spec.scenario_sets == ("multiagent/mapf",)
    with pytest.raises(TypeError):
        benchmarkzoo.make_parallel(ENV_ID, step_reward=-0.5)  # the objectives have fixed units: weights scale them


def test_docstring_examples():
    failures, tried = doctest.testmod(mo_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0
