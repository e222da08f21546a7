"""LinearScalarization and LinearScalarizationVector: exact scalarized rewards on MO-MAPF-v0 and
MO-Foraging-v0, weight checks, the PettingZoo checks on the wrapped env, vector equals parallel."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import benchmarkzoo
from benchmarkzoo.core.errors import InvalidWeightsError
from benchmarkzoo.envs.multiagent.foraging.env import MOForagingEnv
from benchmarkzoo.envs.multiagent.foraging.generator import ForagingGenerator, ForagingScenario
from benchmarkzoo.envs.multiagent.mapf.generator import MapfScenario, ObstacleMapGenerator
from benchmarkzoo.envs.multiagent.mapf.mo import MOMapfEnv
from benchmarkzoo.testing import check_parallel_env, check_pickle
from benchmarkzoo.wrappers import LinearScalarization, LinearScalarizationVector
from benchmarkzoo.wrappers import multiagent as wrappers_module

MO_MAPF = "benchmarkzoo/MO-MAPF-v0"
MO_FORAGING = "benchmarkzoo/MO-Foraging-v0"
STAY, UP, RIGHT, DOWN, LEFT = range(5)


def mapf_env() -> MOMapfEnv:
    """agent_0 two cells left of its goal, agent_1 four cells left of its goal."""
    scenario = MapfScenario(walls=np.zeros((2, 5), dtype=bool), starts=[[0, 0], [1, 0]], goals=[[0, 2], [1, 4]])
    env = MOMapfEnv(generator=ObstacleMapGenerator(height=2, width=5, num_agents=2, density=0.0))
    env.reset(seed=0, options={"scenario": scenario})
    return env


def test_one_weight_vector_for_every_agent_gives_exact_dot_products():
    env = LinearScalarization(mapf_env(), [2.0, 0.5, 0.25])
    _, rewards, _, _, infos = env.step({"agent_0": RIGHT, "agent_1": STAY})
    assert rewards == {"agent_0": -0.5, "agent_1": -0.25}  # a move: energy -1; a wait: waiting -1
    assert type(rewards["agent_0"]) is np.float64  # as MOMAland's LinearizeReward returns
    assert infos["agent_0"]["vector_reward"].tolist() == [0.0, -1.0, 0.0]
    _, rewards, terminations, _, _ = env.step({"agent_0": RIGHT, "agent_1": RIGHT})
    assert rewards == {"agent_0": 1.5, "agent_1": -0.5}  # arrival 2 * 1 + energy 0.5 * -1
    assert terminations["agent_0"] is True


def test_weights_per_agent():
    weights = {"agent_0": np.array([10, 0, 0]), "agent_1": [0.0, 3.0, -7.0]}
    env = LinearScalarization(mapf_env(), weights)
    _, rewards, _, _, _ = env.step({"agent_0": STAY, "agent_1": STAY})
    assert rewards == {"agent_0": 0.0, "agent_1": 7.0}
    _, rewards, _, _, _ = env.step({"agent_0": RIGHT, "agent_1": RIGHT})
    assert rewards == {"agent_0": 0.0, "agent_1": -3.0}
    _, rewards, _, _, _ = env.step({"agent_0": RIGHT, "agent_1": RIGHT})
    assert rewards == {"agent_0": 10.0, "agent_1": -3.0}
    assert env.weights["agent_1"].dtype == np.float64 and not env.weights["agent_1"].flags.writeable


def test_mo_foraging_rewards_are_scalarized_per_food_type():
    scenario = ForagingScenario(
        height=5,
        width=5,
        agent_pos=[[1, 1], [3, 3]],
        agent_levels=[1, 1],
        food_pos=[[1, 2], [3, 2]],
        food_levels=[1, 1],
        food_types=[0, 1],
    )
    base = MOForagingEnv(generator=ForagingGenerator(height=5, width=5, num_agents=2, num_food=2, num_food_types=2))
    env = LinearScalarization(base, {"agent_0": [3.0, 100.0], "agent_1": [100.0, 5.0]})
    env.reset(seed=0, options={"scenario": scenario})
    _, rewards, _, _, infos = env.step({"agent_0": 5, "agent_1": 0})  # agent_0 collects the type-0 item alone
    assert rewards == {"agent_0": 1.5, "agent_1": 0.0}  # 3 * 0.5
    assert infos["agent_0"]["vector_reward"].tolist() == [0.5, 0.0]
    _, rewards, terminations, _, _ = env.step({"agent_0": 0, "agent_1": 5})  # agent_1 the type-1 item
    assert rewards == {"agent_0": 0.0, "agent_1": 2.5}  # 5 * 0.5
    assert terminations == {"agent_0": True, "agent_1": True}


# ---- weight checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([1.0, 0.5], r"must be 3 finite numbers .* got \[1.0, 0.5\] of shape \(2,\)"),
        ([[1.0, 0.5, 0.5]], r"of shape \(1, 3\)"),
        ([1.0, np.nan, 0.0], "must be 3 finite numbers"),
        ([1.0, np.inf, 0.0], "must be 3 finite numbers"),
        (["a", "b", "c"], "must be 3 finite numbers"),
        ([True, False, True], "must be 3 finite numbers"),
        (0.5, r"of shape \(\)"),
        ({"agent_0": [1, 0, 0]}, r"missing \['agent_1'\], unknown \[\]"),
        ({"agent_0": [1, 0, 0], "agent_1": [1, 0, 0], "robot": [1, 0, 0]}, r"unknown \['robot'\]"),
        ({"agent_0": [1, 0, 0], "agent_1": [1, 0]}, "the weights of 'agent_1' must be 3 finite numbers"),
    ],
)
def test_bad_weights_are_refused_with_the_expected_shape(weights, message):
    env = benchmarkzoo.make_parallel(MO_MAPF, generator_kwargs={"height": 8, "width": 8, "num_agents": 2})
    with pytest.raises(InvalidWeightsError, match=message) as caught:
        LinearScalarization(env, weights)
    assert "benchmarkzoo/MO-MAPF-v0" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_envs_without_a_vector_reward_are_refused():
    with pytest.raises(InvalidWeightsError, match="needs a multi-objective multi-agent env with reward_space"):
        LinearScalarization(benchmarkzoo.make_parallel("benchmarkzoo/MAPF-v0"), [1.0])
    vec = benchmarkzoo.make_vec(MO_MAPF, num_envs=2)
    with pytest.raises(InvalidWeightsError, match="use LinearScalarizationVector"):
        LinearScalarization(vec, [1.0, 0.0, 0.0])
    with pytest.raises(InvalidWeightsError, match="For a ParallelEnv use LinearScalarization"):
        LinearScalarizationVector(benchmarkzoo.make_parallel(MO_MAPF), [1.0, 0.0, 0.0])
    with pytest.raises(InvalidWeightsError, match="must be 2 finite numbers"):
        LinearScalarizationVector(benchmarkzoo.make_vec(MO_FORAGING, num_envs=2), [1.0, 0.0, 0.0])


# ---- the wrapped env as a PettingZoo env --------------------------------------------------------


MOMA_SPECS = benchmarkzoo.list_envs(kind="moma")
#: Smaller tasks where the kit's per-agent checks dominate and the wrapper does not care: MO-Beach's 100
#: agents (one-step episodes) took 55 s of the parallel checks; 10 agents cross the same code.
LIGHT = {"benchmarkzoo/MO-Beach-v0": {"generator_kwargs": {"num_agents": 10}}}


def spread_weights(env) -> np.ndarray:
    """``(k,)`` distinct positive weights for ``env``'s reward: ``1/k, 2/k, ..., 1``."""
    k = env.reward_space(env.possible_agents[0]).shape[0]
    return np.arange(1, k + 1) / k


def test_the_registry_has_the_moma_envs_tested_here():
    assert {MO_MAPF, MO_FORAGING} <= {spec.id for spec in MOMA_SPECS}


@pytest.mark.parametrize("spec", MOMA_SPECS, ids=lambda spec: spec.id)
def test_wrapped_env_passes_the_parallel_checks(spec):
    if spec.missing_extras:
        pytest.skip(f"needs extra {spec.missing_extras[0]}")
    kwargs = LIGHT.get(spec.id, {})
    weights = spread_weights(benchmarkzoo.make_parallel(spec.id, **kwargs))

    def make():
        return LinearScalarization(benchmarkzoo.make_parallel(spec.id, **kwargs), weights)

    wrapped = make()
    assert not hasattr(wrapped, "reward_space")  # scalar rewards: the vector space is not advertised
    assert wrapped.env.reward_space(wrapped.possible_agents[0]).shape == weights.shape
    check_parallel_env(make, seed=2, steps=200, strict=True)
    check_pickle(make(), seed=0, steps_before=5, steps_after=100, strict=True)


@pytest.mark.parametrize("spec", MOMA_SPECS, ids=lambda spec: spec.id)
def test_vector_wrapper_equals_wrapped_parallel_envs(spec):
    if spec.missing_extras:
        pytest.skip(f"needs extra {spec.missing_extras[0]}")
    env_id, num_envs, seed = spec.id, 3, 11
    probe = benchmarkzoo.make_parallel(env_id)
    shared = spread_weights(probe)
    weights = {agent: shared * (1 + k) for k, agent in enumerate(probe.possible_agents)}  # differ per agent
    weights[probe.possible_agents[0]] = -shared
    vec = LinearScalarizationVector(benchmarkzoo.make_vec(env_id, num_envs=num_envs), weights)
    pars = [LinearScalarization(benchmarkzoo.make_parallel(env_id), weights) for _ in range(num_envs)]
    names = list(vec.possible_agents)
    vec.reset(seed=seed)
    for i, par in enumerate(pars):
        par.reset(seed=seed + i)
    vec.action_space.seed(seed)
    ended = np.zeros(num_envs, dtype=bool)
    checked = 0
    for _ in range(150):
        actions = vec.action_space.sample()
        _, rewards, _, _, infos = vec.step(actions)
        assert rewards.shape == (num_envs, len(names)) and rewards.dtype == np.float64
        np.testing.assert_array_equal(rewards, wrappers_module.scalarize(infos["vector_reward"], vec._matrix))
        for i, par in enumerate(pars):
            if ended[i]:
                par.reset()
                assert not rewards[i].any()
                continue
            _, p_rewards, _, _, _ = par.step({a: actions[i, names.index(a)] for a in par.agents})
            for agent, reward in p_rewards.items():
                assert rewards[i, names.index(agent)] == reward  # bit for bit
                checked += 1
        ended = ~infos["active"].any(axis=1)
    assert checked > 300
    vec.close()


def test_docstring_examples():
    failures, tried = doctest.testmod(wrappers_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0
