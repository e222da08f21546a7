"""MO-Beach-v0: the beach problem domain's known structure, as values (Mannion et al., 2018; MOMAland's mobeach)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from momaland_compat import install_shim

import benchmarkzoo
from benchmarkzoo.envs.multiagent.beach import sim
from benchmarkzoo.envs.multiagent.beach.baseline import BestResponsePolicy, team_utility
from benchmarkzoo.envs.multiagent.beach.env import MOBeachEnv
from benchmarkzoo.envs.multiagent.beach.generator import BeachGenerator, BeachScenario
from benchmarkzoo.envs.multiagent.beach.vector_env import MOBeachVectorEnv

STAY = 1


def play(env: MOBeachEnv, scenario: BeachScenario, actions: dict[str, int] | None = None):
    env.reset(seed=0, options={"scenario": scenario})
    return env.step(actions or dict.fromkeys(env.agents, STAY))


def test_capacity_peaks_at_capacity_and_mixture_is_the_rarest_types_share():
    # 7 agents (3 of type 0) in section 0, 1 alone in section 1: the capacity reward x exp(-x/c) peaks at x = c.
    env = MOBeachEnv(generator=BeachGenerator(num_agents=8, num_sections=2, capacity=7))
    scenario = BeachScenario(2, 7, 2, types=(0, 0, 0, 1, 1, 1, 1, 0), starts=(0,) * 7 + (1,))
    _, rewards, terminations, truncations, infos = play(env, scenario)
    assert rewards["agent_0"].tolist() == pytest.approx([7 / math.e, 3 / 7], rel=1e-6)
    assert rewards["agent_7"].tolist() == pytest.approx([math.exp(-1 / 7), 0.0], rel=1e-6)  # one type alone: 0
    assert all(terminations.values()) and not any(truncations.values())  # num_timesteps = 1
    assert infos["agent_0"]["global_capacity"] == pytest.approx(7 / math.e + math.exp(-1 / 7))
    assert infos["agent_0"]["global_mixture"] == pytest.approx((3 / 7 + 0.0) / 2)
    crowd = np.arange(1, 30)
    assert int(crowd[np.argmax(crowd * np.exp(-crowd / 7))]) == 7  # the peak, with nothing else in the formula


def test_team_rewards_pay_everyone_the_global_rewards_and_momalands_optimum_is_a_local_one():
    # MOMAland's reward bound: capacity in S - 1 sections, the excess in the last; every move of one agent loses.
    n, s, c = 100, 6, 7
    env = MOBeachEnv(generator=BeachGenerator(num_agents=n, num_sections=s, capacity=c), reward_mode="team")
    starts = tuple(min(k // c, s - 1) for k in range(n))
    types = tuple(k % 2 for k in range(n))
    _, rewards, _, _, infos = play(env, BeachScenario(s, c, 2, types, starts))
    best = (s - 1) * c / math.e + (n - (s - 1) * c) * math.exp(-(n - (s - 1) * c) / c)
    assert {tuple(r.tolist()) for r in rewards.values()} == {
        tuple(np.float32([best, infos["agent_0"]["global_mixture"]]))
    }
    params = env.params
    state = sim.State(np.array([types]), np.array([starts]), np.zeros(1, dtype=np.int64))
    at_best = sim.episode_metrics(state, params)["global_capacity"][0]
    assert at_best == pytest.approx(best)
    for k in range(n):
        for move in (-1, 1):
            moved = state.section.copy()
            moved[0, k] = np.clip(moved[0, k] + move, 0, s - 1)
            if moved[0, k] != state.section[0, k]:
                trial = sim.State(state.types, moved, state.time)
                assert sim.episode_metrics(trial, params)["global_capacity"][0] < at_best


def test_rewards_come_only_on_the_last_step():
    env = MOBeachEnv(generator=BeachGenerator(num_agents=4, num_sections=3, capacity=2), num_timesteps=3)
    env.reset(seed=0, options={"scenario": BeachScenario(3, 2, 2, types=(0, 1, 0, 1), starts=(0, 0, 2, 2))})
    paid = []
    for _ in range(3):
        _, rewards, terminations, _, _ = env.step({"agent_0": 2, "agent_1": 2, "agent_2": 1, "agent_3": 0})
        paid.append(rewards["agent_0"].tolist())
    assert paid[:2] == [[0.0, 0.0], [0.0, 0.0]] and terminations["agent_0"] and not env.agents
    # after 3 steps: agents 0 and 1 walked right to section 2 (clipped), agent 3 walked left to 0: 3 in section 2
    assert paid[2] == pytest.approx([3 * math.exp(-3 / 2), 1 / 3], rel=1e-6)


def test_actions_move_one_section_clipped_at_the_ends():
    env = MOBeachEnv(generator=BeachGenerator(num_agents=3, num_sections=3, capacity=1))
    obs, _, _, _, _ = play(
        env, BeachScenario(3, 1, 2, (0, 1, 1), (0, 1, 2)), {"agent_0": 0, "agent_1": 2, "agent_2": 2}
    )
    # agent_0 stays at 0 (the left end), agent_1 joins agent_2 at 2 (the right end): [type, section, c, crowd, share]
    assert obs["agent_0"].tolist() == [0.0, 0.0, 1.0, 1.0, 1.0]
    assert obs["agent_1"].tolist() == [1.0, 2.0, 1.0, 2.0, 1.0]


def test_the_vector_form_equals_the_parallel_env_and_the_baseline_beats_random_play():
    vector = MOBeachVectorEnv(num_envs=4)
    vector.reset(seed=10)
    policy = BestResponsePolicy()
    _, rewards, terminations, _, _ = vector.step(policy(vector))
    assert rewards.dtype == np.float32 and rewards.shape == (4, 100, 2) and terminations.all()
    for i in range(4):
        env = benchmarkzoo.make_parallel("benchmarkzoo/MO-Beach-v0")
        env.reset(seed=10 + i)
        _, single, *_ = env.step(policy(env))
        assert np.array_equal(np.stack([single[a] for a in env.possible_agents]), rewards[i])
    rng = np.random.default_rng(0)
    vector.reset(seed=10)
    start = vector.sim_state.section.copy()
    random_actions = rng.integers(0, 3, size=(4, 100))
    random_sections = np.clip(start + sim.MOVES[random_actions], 0, 5)
    baseline_sections = np.clip(start + sim.MOVES[policy(vector)], 0, 5)
    types, params = vector.sim_state.types, vector.params
    assert (team_utility(baseline_sections, types, params) > team_utility(random_sections, types, params)).all()
    assert (team_utility(baseline_sections, types, params) >= team_utility(start, types, params)).all()  # climbs


def test_rewards_equal_momalands_reward_functions():
    install_shim()
    beach = pytest.importorskip("momaland.envs.beach.beach", reason="needs momaland (pip install --no-deps momaland)")
    env = MOBeachEnv(generator=BeachGenerator(), reward_mode="individual")
    team = MOBeachEnv(generator=BeachGenerator(), reward_mode="team")
    for seed in range(5):
        env.reset(seed=seed)
        team.reset(seed=seed)
        actions = {agent: (seed + k) % 3 for k, agent in enumerate(env.possible_agents)}
        _, rewards, *_ = env.step(actions)
        _, team_rewards, *_ = team.step(actions)
        section = env.sim_state.section[0]
        crowd, by_type = sim.counts(env.sim_state, env.params)
        for k, agent in enumerate(env.possible_agents):
            x = crowd[0, section[k]]
            expected = [beach._local_capacity_reward(7, x), beach._local_mixture_reward(by_type[0, section[k]])]
            assert rewards[agent].tolist() == pytest.approx(expected, rel=1e-6)
        expected = [beach._global_capacity_reward([7] * 6, crowd[0]), beach._global_mixture_reward(by_type[0])]
        assert team_rewards["agent_0"].tolist() == pytest.approx(expected, rel=1e-6)
