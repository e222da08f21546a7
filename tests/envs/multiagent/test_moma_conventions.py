"""MOMAland's conventions on every ``moma`` env of the registry, as values (no MOMAland needed).

One ``reward_space`` object per env, the ``reward_spaces`` dict holding it for every agent, float32
rewards in the ParallelEnv, the native multi-world form and the AEC form, and
``LinearScalarization`` returning numpy float64 scalars (MOMAland's ``LinearizeReward`` type).
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from moma_ids import FAST, current_moma_ids

import benchmarkzoo
from benchmarkzoo.adapters.aec import MOParallelToAEC
from benchmarkzoo.envs.multiagent.foraging.baseline import GreedyForagingPolicy
from benchmarkzoo.envs.multiagent.objectives import MultiObjectiveAgents, check_objective_space
from benchmarkzoo.wrappers import LinearScalarization

IDS = current_moma_ids()


def _skip_missing_extras(env_id: str) -> None:
    missing = benchmarkzoo.spec(env_id).missing_extras
    if missing:
        pytest.skip(f"{env_id} needs the extras {missing}")


def _step(env, seed=0):
    for agent in env.possible_agents:
        env.action_space(agent).seed(seed)
    return env.step({agent: env.action_space(agent).sample() for agent in env.agents})


@pytest.mark.parametrize("env_id", IDS)
def test_reward_spaces_rewards_and_scalarization_follow_momaland(env_id):
    _skip_missing_extras(env_id)
    env = benchmarkzoo.make_parallel(env_id, **FAST.get(env_id, {}))
    env.reset(seed=0)
    space = env.reward_space(env.possible_agents[0])
    assert isinstance(env.reward_spaces, dict) and list(env.reward_spaces) == env.possible_agents
    assert all(env.reward_space(agent) is space is env.reward_spaces[agent] for agent in env.possible_agents)
    assert space.dtype == np.float32 and len(space.shape) == 1
    _, rewards, *_ = _step(env)
    assert {reward.dtype for reward in rewards.values()} == {np.dtype(np.float32)}
    assert all(reward.shape == space.shape and space.contains(reward) for reward in rewards.values())

    weights = np.linspace(1.0, 2.0, space.shape[0])
    scalar = LinearScalarization(benchmarkzoo.make_parallel(env_id, **FAST.get(env_id, {})), weights)
    scalar.reset(seed=0)
    _, scalar_rewards, *_ = _step(scalar)
    assert all(type(reward) is np.float64 for reward in scalar_rewards.values())
    assert scalar_rewards == {a: np.float64((r.astype(np.float64) * weights).sum()) for a, r in rewards.items()}
    env.close()
    scalar.close()


@pytest.mark.parametrize("env_id", [env_id for env_id in IDS if "Traffic" not in env_id])  # SUMO: its own tests
def test_native_vector_form_has_the_same_float32_reward_space(env_id):
    parallel = benchmarkzoo.make_parallel(env_id)
    vector = benchmarkzoo.make_vec(env_id, 2)
    assert vector.single_reward_space == parallel.reward_space(parallel.possible_agents[0])
    vector.reset(seed=0)
    actions = np.stack([vector.single_action_space.sample() for _ in range(2 * vector.num_agents)])
    _, rewards, *_ = vector.step(actions.reshape(2, vector.num_agents, *vector.single_action_space.shape))
    assert rewards.dtype == np.float32 and rewards.shape == (2, vector.num_agents, *vector.single_reward_space.shape)
    vector.close()


@pytest.mark.parametrize("env_id", IDS)
def test_make_aec_keeps_vector_rewards(env_id):
    _skip_missing_extras(env_id)
    env = benchmarkzoo.make_aec(env_id, **FAST.get(env_id, {}))
    assert isinstance(env, MOParallelToAEC)
    env.reset(seed=0)
    first = env.agent_selection
    assert env.reward_space(first) is env.unwrapped.reward_space(first)
    assert env.reward_spaces[first] is env.reward_space(first)
    for agent in list(env.agents):  # one cycle: every reward a float32 (k,) array, never PettingZoo's scalar 0
        _, reward, terminated, truncated, _ = env.last()
        assert reward.dtype == np.float32 and reward.shape == env.reward_space(agent).shape
        env.step(None if terminated or truncated else env.action_space(agent).sample())
    assert {r.dtype for r in env.rewards.values()} == {np.dtype(np.float32)}
    env.close()


def test_scalar_envs_keep_pettingzoos_conversion_and_refuse_the_mo_one():
    env = benchmarkzoo.make_aec("benchmarkzoo/MAPF-v0")
    assert not isinstance(env, MOParallelToAEC)
    env.reset(seed=0)
    assert env.last()[1] == 0
    with pytest.raises(TypeError, match="needs a multi-objective ParallelEnv with reward_space"):
        MOParallelToAEC(benchmarkzoo.make_parallel("benchmarkzoo/MAPF-v0"))


def test_the_mixin_refuses_a_reward_space_of_another_dtype():
    class Float64Rewards(MultiObjectiveAgents):
        possible_agents = ["agent_0"]

        def _objective_space(self):
            return gymnasium.spaces.Box(0.0, 1.0, (2,), np.float64)

    with pytest.raises(TypeError, match=r"must return a 1-D float32 Box .* Build it with dtype=np.float32"):
        Float64Rewards().reward_space("agent_0")
    float32 = gymnasium.spaces.Box(0.0, 1.0, (2,), np.float32)
    assert check_objective_space(Float64Rewards(), float32) is float32


def test_mo_foraging_v1_rewards_are_v0s_rounded_to_float32():
    old, new = (benchmarkzoo.make_parallel(f"benchmarkzoo/MO-Foraging-v{v}") for v in (0, 1))
    assert old.reward_space("agent_0").dtype == np.float64 and new.reward_space("agent_0").dtype == np.float32
    old.reset(seed=3)
    new.reset(seed=3)
    collected, policy = 0.0, GreedyForagingPolicy()
    for _ in range(50):
        actions = policy(old)
        _, r_old, *_ = old.step(actions)
        _, r_new, *_ = new.step(actions)
        assert all(np.array_equal(r_new[a], r_old[a].astype(np.float32)) for a in r_old)
        collected += sum(float(r.sum()) for r in r_old.values())
        if not old.agents:
            break
    assert collected > 0.5  # the comparison saw the team collect most of the food, not only zeros
