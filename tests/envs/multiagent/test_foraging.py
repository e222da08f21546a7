"""Foraging-v0 and MO-Foraging-v0: loading rules on hand-written scenarios, moves and collisions, rewards,
episode end, refusals, the generator, the scenario sets, the baseline, rendering, the vector form."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo import registration, scenario_sets
from benchmarkzoo.core.errors import (
    GeneratorArgumentError,
    InvalidActionError,
    InvalidAgentError,
    ResetNeededError,
    ScenarioError,
)
from benchmarkzoo.core.extras import available
from benchmarkzoo.envs.multiagent.foraging import env as env_module
from benchmarkzoo.envs.multiagent.foraging.baseline import GreedyForagingPolicy
from benchmarkzoo.envs.multiagent.foraging.env import ForagingEnv, MOForagingEnv
from benchmarkzoo.envs.multiagent.foraging.generator import ForagingGenerator, ForagingScenario
from benchmarkzoo.envs.multiagent.foraging.vector_env import ForagingVectorEnv
from benchmarkzoo.testing import check_generator, check_parallel_env

ENV_ID = "benchmarkzoo/Foraging-v0"
MO_ENV_ID = "benchmarkzoo/MO-Foraging-v0"
NONE, UP, RIGHT, DOWN, LEFT, LOAD = range(6)

registered = pytest.mark.skipif(
    ENV_ID not in {s.id for s in registration.list_envs()}, reason="Foraging-v0 is not registered yet"
)


def parse(rows: list[str], food_types: list[int] | None = None) -> ForagingScenario:
    """``.`` empty; ``A``-``I`` agents of level 1-9 (in reading order); ``1``-``9`` food of that level.

    Maps are padded with empty rows and columns to at least 5x5 (the generators' smallest size).
    """
    width = max(5, *(len(row) for row in rows))
    rows = [row.ljust(width, ".") for row in rows] + ["." * width] * max(0, 5 - len(rows))
    agents, levels, food, food_levels = [], [], [], []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch.isupper():
                agents.append((r, c))
                levels.append(ord(ch) - ord("A") + 1)
            elif ch.isdigit():
                food.append((r, c))
                food_levels.append(int(ch))
    return ForagingScenario(
        height=len(rows),
        width=len(rows[0]),
        agent_pos=agents,
        agent_levels=levels,
        food_pos=food,
        food_levels=food_levels,
        food_types=food_types or [0] * len(food),
    )


def env_for(scenario: ForagingScenario, cls=ForagingEnv, max_agent_level: int = 3, types: int = 1, **kwargs):
    generator = ForagingGenerator(
        height=scenario.height,
        width=scenario.width,
        num_agents=scenario.num_agents,
        num_food=scenario.num_food,
        max_agent_level=max_agent_level,
        num_food_types=types,
    )
    env = cls(generator=generator, **kwargs)
    env.reset(seed=0, options={"scenario": scenario})
    return env


def positions(env: ForagingEnv) -> list[list[int]]:
    cols, r = env.params.padded_shape[1], env.params.view_radius
    cells = env.sim_state.cell[0]
    return np.stack([cells // cols - r, cells % cols - r], axis=1).tolist()


# ---- loading ------------------------------------------------------------------------------------


def test_foraging_fails_when_levels_do_not_add_up():
    env = env_for(parse([".....", "A3.C.", "....."]))  # levels 1 and 3; only agent_0 is next to the food
    _, rewards, terminations, _, _ = env.step({"agent_0": LOAD, "agent_1": LOAD})
    assert rewards == {"agent_0": 0.0, "agent_1": 0.0}
    assert terminations == {"agent_0": False, "agent_1": False}
    assert env.sim_state.food_left[0] == 1
    assert env.sim_state.food[0].max() == 3  # still there


def test_food_is_collected_when_the_adjacent_loaders_levels_add_up_and_rewards_split_by_level():
    env = env_for(parse([".....", "A3B..", "....."]))  # levels 1 + 2 = 3
    _, rewards, terminations, _, infos = env.step({"agent_0": LOAD, "agent_1": LOAD})
    assert rewards == {"agent_0": 1 * 3 / (3 * 3), "agent_1": 2 * 3 / (3 * 3)}
    assert sum(rewards.values()) == 1.0
    assert terminations == {"agent_0": True, "agent_1": True}
    assert infos["agent_0"] == {"food_collected": 1.0, "all_collected": True}
    assert env.agents == []


def test_an_adjacent_agent_that_does_not_load_does_not_count():
    env = env_for(parse([".....", "A3B..", "....."]))
    _, rewards, _, _, _ = env.step({"agent_0": LOAD, "agent_1": NONE})
    assert rewards == {"agent_0": 0.0, "agent_1": 0.0}
    assert env.sim_state.food_left[0] == 1


def test_reward_is_normalized_by_the_total_food_level_and_penalty_applies_to_failed_loads():
    env = env_for(parse(["C1..2", ".....", "A...."]), load_penalty=0.25)
    _, rewards, terminations, _, _ = env.step({"agent_0": LOAD, "agent_1": LOAD})  # agent_1 is not next to food
    assert rewards == {"agent_0": 1 / 3, "agent_1": -0.25}  # 3 * 1 / (3 * (1 + 2))
    assert terminations["agent_0"] is False


def test_one_load_can_collect_two_items():
    env = env_for(parse(["1C2..", ".....", "....A"]))
    _, rewards, terminations, _, _ = env.step({"agent_0": LOAD, "agent_1": NONE})
    assert rewards["agent_0"] == 1.0 and terminations["agent_0"]


# ---- moves --------------------------------------------------------------------------------------


def test_two_agents_moving_into_the_same_cell_both_stay():
    env = env_for(parse(["A.A..", ".....", "....1"]))
    env.step({"agent_0": RIGHT, "agent_1": LEFT})
    assert positions(env) == [[0, 0], [0, 2]]
    env.step({"agent_0": RIGHT, "agent_1": DOWN})
    assert positions(env) == [[0, 1], [1, 2]]


def test_moves_into_food_agents_or_off_the_grid_are_refused_and_following_is_not_allowed():
    env = env_for(parse(["AA1..", ".....", "....."]))
    env.step({"agent_0": UP, "agent_1": RIGHT})  # off the grid; into food
    assert positions(env) == [[0, 0], [0, 1]]
    env.step({"agent_0": RIGHT, "agent_1": DOWN})  # agent_1's cell was occupied at the start of the step
    assert positions(env) == [[0, 0], [1, 1]]


def test_observation_channels():
    env = env_for(parse(["A1...", ".....", "....C"]), view_radius=1)
    obs = env._observations(env.agents)["agent_0"]
    assert obs.shape == (3, 3, 3)
    np.testing.assert_array_equal(obs[0], np.array([[0, 0, 0], [0, 1 / 3, 0], [0, 0, 0]], dtype=np.float32))
    np.testing.assert_array_equal(obs[1], np.array([[0, 0, 0], [0, 0, 1 / 6], [0, 0, 0]], dtype=np.float32))
    np.testing.assert_array_equal(obs[2], [[1, 1, 1], [1, 0, 0], [1, 0, 0]])


def test_truncation_after_max_cycles_with_metrics():
    env = env_for(parse(["A....", ".....", "....1"]), max_cycles=3)
    for _ in range(2):
        _, _, _, truncations, _ = env.step({"agent_0": NONE})
        assert truncations == {"agent_0": False}
    _, _, terminations, truncations, infos = env.step({"agent_0": NONE})
    assert truncations == {"agent_0": True} and terminations == {"agent_0": False}
    assert infos["agent_0"] == {"food_collected": 0.0, "all_collected": False}
    with pytest.raises(ResetNeededError):
        env.step({})


# ---- multi-objective ----------------------------------------------------------------------------


def test_mo_rewards_split_by_food_type():
    env = env_for(parse(["1B2..", ".....", "A...."], food_types=[1, 0]), cls=MOForagingEnv, types=2)
    assert env.reward_space("agent_0").shape == (2,)
    obs = env._observations(env.agents)["agent_0"]
    assert obs.shape[0] == 4 and obs[3].max() == 1.0  # type 1 of 2 shows as 2 / 2
    _, rewards, terminations, _, _ = env.step({"agent_0": LOAD, "agent_1": NONE})
    np.testing.assert_array_equal(rewards["agent_0"], [2 / 3, 1 / 3])  # level-2 item of type 0, level-1 of type 1
    np.testing.assert_array_equal(rewards["agent_1"], [0.0, 0.0])
    assert terminations["agent_0"] is True


# ---- refusals -----------------------------------------------------------------------------------


def test_refusals_name_the_problem():
    env = env_for(parse(["A....", ".....", "..C.1"]))
    with pytest.raises(InvalidAgentError, match="unknown agent 'robot'"):
        env.step({"agent_0": 0, "agent_1": 0, "robot": 0})
    with pytest.raises(InvalidAgentError, match="no action for live agent"):
        env.step({"agent_0": 0})
    with pytest.raises(InvalidActionError, match="Discrete"):
        env.step({"agent_0": 6, "agent_1": 0})
    with pytest.raises(InvalidActionError, match="round or argmax"):
        env.step({"agent_0": 1.0, "agent_1": 0})
    with pytest.raises(ScenarioError, match="was made for"):
        env.reset(options={"scenario": parse(["A....", "....1", "....."])})
    vec = ForagingVectorEnv(num_envs=2, generator=ForagingGenerator())
    vec.reset(seed=0)
    with pytest.raises(InvalidActionError, match="shape"):
        vec.step(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(InvalidActionError, match="world 1, agent 'agent_2'"):
        vec.step(np.array([[0, 0, 0], [0, 0, 7]]))


def test_bad_scenarios_and_generator_arguments():
    with pytest.raises(ScenarioError, match="could never be collected"):
        parse(["A9...", "....."])
    with pytest.raises(ScenarioError, match="distinct"):
        ForagingScenario(
            height=5, width=5, agent_pos=[[0, 0]], agent_levels=[1], food_pos=[[0, 0]], food_levels=[1], food_types=[0]
        )
    with pytest.raises(GeneratorArgumentError, match="num_agents must be an integer in \\[2, 64\\]"):
        ForagingGenerator(num_agents=1, cooperative=True)
    with pytest.raises(GeneratorArgumentError, match="height"):
        ForagingGenerator(height=3)
    with pytest.raises(GeneratorArgumentError, match="num_food"):
        ForagingGenerator(height=5, width=5, num_food=5)


# ---- generator ----------------------------------------------------------------------------------


def test_generator_contract_and_cooperative_levels():
    for kwargs in (
        {},
        {"cooperative": True, "num_food_types": 3},
        {"height": 12, "width": 12, "num_agents": 6, "num_food": 8},
    ):
        generator = ForagingGenerator(**kwargs)
        assert len(set(check_generator(generator, seeds=range(10)).values())) == 10
    coop = ForagingGenerator(num_agents=4, cooperative=True)
    for seed in range(50):
        s = coop.sample(seed)
        assert s.food_levels.min() > s.agent_levels.max()  # never collectable alone
        assert s.food_levels.max() <= s.agent_levels.sum()
        food = s.food_pos
        gaps = np.abs(food[:, None] - food[None]).max(axis=2) + np.eye(len(food), dtype=int) * 9
        assert gaps.min() >= 2  # no two items touch
        assert (food > 0).all() and (food < 7).all()  # never on the border


# ---- vector, baseline, rendering, docs --------------------------------------------------------


def test_vector_world_equals_parallel_env_with_fixed_actions():
    generator = ForagingGenerator()
    vec = ForagingVectorEnv(num_envs=3, generator=generator, max_cycles=20)
    pars = [ForagingEnv(generator=generator, max_cycles=20) for _ in range(3)]
    obs, _ = vec.reset(seed=5)
    for i, par in enumerate(pars):
        p_obs, _ = par.reset(seed=5 + i)
        np.testing.assert_array_equal(obs[i, 0], p_obs["agent_0"])
    policy = GreedyForagingPolicy()
    for _ in range(20):
        actions = policy(vec)
        obs, rewards, _, _, infos = vec.step(actions)
        for i, par in enumerate(pars):
            if not infos["present"][i].all() or not par.agents:
                continue
            _, p_rewards, _, _, _ = par.step({a: int(actions[i, k]) for k, a in enumerate(par.possible_agents)})
            assert [p_rewards[a] for a in par.possible_agents] == rewards[i].tolist()


def test_baseline_beats_random_on_the_test_split():
    split = scenario_sets.load_set("multiagent/foraging").split("test") if _has_set() else None
    generator = split.make_generator() if split else ForagingGenerator()
    seeds = list(split.seeds)[:50] if split else list(range(100000, 100050))
    vec = ForagingVectorEnv(num_envs=len(seeds), generator=generator)
    vec.reset(seed=seeds)
    policy = GreedyForagingPolicy()
    collected = np.full(len(seeds), np.nan)
    for _ in range(vec.max_cycles):
        _, _, _, _, infos = vec.step(policy(vec))
        if "_food_collected" in infos:
            collected[infos["_food_collected"]] = infos["food_collected"][infos["_food_collected"]]
    assert not np.isnan(collected).any()
    assert collected.mean() >= 0.75  # measured 0.838 on all 100 test seeds; uniform random: 0.217


def _has_set() -> bool:
    return "multiagent/foraging" in scenario_sets.list_sets() and "foraging/random" in registration.list_generators()


@pytest.mark.skipif(not available("render"), reason="needs extra render: pip install 'benchmarkzoo[render]'")
def test_rgb_array_frame_shows_agents_and_food():
    env = env_for(parse(["A1...", ".....", "....C"]), render_mode="rgb_array")
    frame = env.render()
    assert frame.shape == (5 * 32, 5 * 32, 3) and frame.dtype == np.uint8
    assert tuple(frame[16, 16 + 32 - 16 + 4]) != tuple(frame[100, 100])  # the agent disc differs from the floor
    assert tuple(frame[16, 32 + 6]) == (204, 68, 52)  # food item of type 0
    vec = ForagingVectorEnv(num_envs=2, generator=ForagingGenerator(), render_mode="rgb_array")
    vec.reset(seed=0)
    assert len(vec.render()) == 2
    env.close()
    vec.close()


def test_docstring_examples():
    failures, tried = doctest.testmod(env_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


# ---- registered forms ---------------------------------------------------------------------------


@registered
@pytest.mark.parametrize("env_id", [ENV_ID, MO_ENV_ID])
def test_registered_env_passes_the_parallel_checks(env_id):
    check_parallel_env(lambda: benchmarkzoo.make_parallel(env_id), seed=1, steps=200, strict=True)


@registered
@pytest.mark.parametrize("name", ["multiagent/foraging", "multiagent/mo-foraging"])
def test_scenario_sets_verify(name):
    scenario_set = scenario_sets.load_set(name)
    assert scenario_sets.verify(scenario_set, ["test"]) == []
    assert set(scenario_set.splits) >= {"train", "test", "ood"}
