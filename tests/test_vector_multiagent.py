"""NativeMultiAgentVectorEnv's contract, exercised through MAPF-v0: world i equals the ParallelEnv
seeded s + i bit for bit (autoresets included), reset masks, autoreset modes, batch checks, info masks."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import benchmarkzoo
from benchmarkzoo.core.errors import InvalidActionError, ResetNeededError
from benchmarkzoo.envs.multiagent.mapf.baseline import PrioritizedPlanningPolicy
from benchmarkzoo.envs.multiagent.mapf.env import METRIC_KEYS, MapfEnv
from benchmarkzoo.envs.multiagent.mapf.generator import ObstacleMapGenerator
from benchmarkzoo.envs.multiagent.mapf.vector_env import MapfVectorEnv
from benchmarkzoo.testing._compare import assert_same

ENV_ID = "benchmarkzoo/MAPF-v0"
SMALL = {
    "generator_kwargs": {"height": 7, "width": 7, "num_agents": 4, "density": 0.15},
    "max_cycles": 16,
    "view_radius": 2,
}


def compare_world(i, t, vec_out, par_out, vec, par, par_agents_before):
    """World ``i`` of the vector outputs against the ParallelEnv's dicts, exactly."""
    obs, rewards, terminations, truncations, infos = vec_out
    p_obs, p_rewards, p_terms, p_truncs, p_infos = par_out
    where = f"step {t}, world {i}"
    names = vec.possible_agents
    present = [names[k] for k in np.flatnonzero(infos["present"][i])]
    assert present == par_agents_before, where
    for k, name in enumerate(names):
        if name in p_obs:
            assert_same(p_obs[name], {key: obs[key][i, k] for key in obs}, f"{where}: obs of {name}")
            assert_same(p_rewards[name], float(rewards[i, k]), f"{where}: reward of {name}")
            assert_same(p_terms[name], bool(terminations[i, k]), f"{where}: termination of {name}")
            assert_same(p_truncs[name], bool(truncations[i, k]), f"{where}: truncation of {name}")
            assert_same(p_infos[name]["is_success"], bool(infos["is_success"][i, k]), f"{where}: is_success of {name}")
            for key in METRIC_KEYS:
                assert (key in p_infos[name]) == bool(infos.get(f"_{key}", np.zeros(vec.num_envs, bool))[i]), where
                if key in p_infos[name]:
                    assert_same(p_infos[name][key], infos[key][i].item(), f"{where}: {key}")
        else:
            assert not obs["view"][i, k].any() and rewards[i, k] == 0.0, f"{where}: {name} is absent but not zeroed"
            assert not (terminations[i, k] or truncations[i, k]), where
    assert [names[k] for k in np.flatnonzero(infos["active"][i])] == par.agents, where
    np.testing.assert_array_equal(vec.active[i], infos["active"][i])


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED], ids=["next-step", "disabled"])
def test_native_vector_equals_parallel_envs_seeded_s_plus_i(mode):
    num_envs, seed, steps = 6, 40, 400
    vec = MapfVectorEnv(num_envs=num_envs, autoreset_mode=mode, **SMALL)
    pars = [MapfEnv(**SMALL) for _ in range(num_envs)]
    policy = PrioritizedPlanningPolicy()
    rng = np.random.default_rng(0)
    obs, infos = vec.reset(seed=seed)
    for i, par in enumerate(pars):
        p_obs, p_infos = par.reset(seed=seed + i)
        assert vec.scenarios[i] == par.scenario
        compare_world(
            i,
            -1,
            (obs, np.zeros((num_envs, 4)), np.zeros((num_envs, 4), bool), np.zeros((num_envs, 4), bool), infos),
            (p_obs, {a: 0.0 for a in p_obs}, {a: False for a in p_obs}, {a: False for a in p_obs}, p_infos),
            vec,
            par,
            list(p_obs),
        )
    ended = np.zeros(num_envs, dtype=bool)
    endings = {"terminated": 0, "truncated": 0, "resets": 0}
    for t in range(steps):
        planned = policy(vec)
        random = rng.integers(0, 5, size=(num_envs, 4))
        actions = np.where(rng.random((num_envs, 1)) < 0.5, planned, random)  # some worlds solve, some wander
        actions[~vec.active] = rng.choice([-3, 7, 99])  # slots of absent agents are ignored, whatever they hold
        if mode == AutoresetMode.DISABLED and ended.any():
            with pytest.raises(ResetNeededError, match="have ended and autoreset is DISABLED"):
                vec.step(actions)
            obs, infos = vec.reset(options={"reset_mask": ended})
            for i in np.flatnonzero(ended):
                p_obs, p_infos = pars[i].reset()
                assert vec.scenarios[i] == pars[i].scenario
            ended[:] = False
            endings["resets"] += 1
            continue
        out = vec.step(actions)
        for i, par in enumerate(pars):
            if mode == AutoresetMode.NEXT_STEP and ended[i]:  # the reset step of a world that ended
                p_obs, p_infos = par.reset()
                zeros = {a: 0.0 for a in p_obs}
                falses = {a: False for a in p_obs}
                compare_world(i, t, out, (p_obs, zeros, falses, falses, p_infos), vec, par, list(p_obs))
                assert vec.scenarios[i] == par.scenario
                endings["resets"] += 1
                continue
            before = list(par.agents)
            p_out = par.step({a: int(actions[i, int(a.split("_")[1])]) for a in before})
            compare_world(i, t, out, p_out, vec, par, before)
            endings["terminated"] += sum(p_out[2].values())
            endings["truncated"] += sum(p_out[3].values())
        ended = ~out[4]["active"].any(axis=1)
    assert endings["terminated"] > 20 and endings["truncated"] > 20 and endings["resets"] > 10, endings


def test_world_seeds_list_and_scenarios():
    vec = MapfVectorEnv(num_envs=3, **SMALL)
    vec.reset(seed=[7, 3, 9])
    assert [s.content_hash for s in vec.scenarios] == [vec.generator.sample(x).content_hash for x in (7, 3, 9)]
    with pytest.raises(ValueError, match=r"one seed per world \(3\); got a list of 2"):
        vec.reset(seed=[1, 2])


def test_batched_layout_and_spaces():
    vec = MapfVectorEnv(num_envs=5, **SMALL)
    obs, infos = vec.reset(seed=0)
    assert obs["view"].shape == (5, 4, 3, 5, 5) and obs["view"].dtype == np.float32
    assert obs["goal_direction"].shape == (5, 4, 2)
    assert vec.action_space.shape == (5, 4) and vec.observation_space.contains(obs)
    assert infos["is_success"].shape == (5, 4) and infos["_is_success"].all()
    assert infos["active"].all() and infos["present"].all()
    _, rewards, terminations, truncations, infos = vec.step(vec.action_space.sample())
    assert rewards.shape == (5, 4) and rewards.dtype == np.float64
    assert terminations.shape == truncations.shape == (5, 4) and terminations.dtype == np.bool_
    with pytest.raises(ValueError, match="read-only"):
        vec.active[0, 0] = False


def test_invalid_batches_name_the_world_and_agent():
    vec = MapfVectorEnv(num_envs=2, **SMALL)
    with pytest.raises(ResetNeededError, match=r"call reset\(\) before step\(\)"):
        vec.step(np.zeros((2, 4), dtype=np.int64))
    vec.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"integer array of shape \(2, 4\).*got dtype int64, shape \(2, 3\)"):
        vec.step(np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(InvalidActionError, match=r"got dtype float64"):
        vec.step(np.zeros((2, 4)))
    bad = np.zeros((2, 4), dtype=np.int64)
    bad[1, 2] = 5
    with pytest.raises(
        InvalidActionError, match=r"MAPF-v0 expects actions in Discrete\(5\) \(0..4\); world 1, agent 'agent_2' sent 5"
    ):
        vec.step(bad)


def test_metrics_masks_mark_exactly_the_worlds_that_ended():
    vec = MapfVectorEnv(num_envs=4, **{**SMALL, "max_cycles": 3})
    vec.reset(seed=1)
    stay = np.zeros((4, 4), dtype=np.int64)
    vec.step(stay)
    _, _, _, _, infos = vec.step(stay)
    assert "success_rate" not in infos
    _, _, _, truncations, infos = vec.step(stay)
    assert truncations.all() and not infos["active"].any()
    for key in METRIC_KEYS:
        np.testing.assert_array_equal(infos[f"_{key}"], np.ones(4, dtype=bool))
    np.testing.assert_array_equal(infos["makespan"], [3, 3, 3, 3])
    np.testing.assert_array_equal(infos["sum_of_costs"], [12, 12, 12, 12])
    np.testing.assert_array_equal(infos["success_rate"], np.zeros(4))
    _, rewards, _, _, infos = vec.step(stay)  # NEXT_STEP: the reset step
    assert not rewards.any() and infos["active"].all() and "success_rate" not in infos
    np.testing.assert_array_equal(vec.elapsed, [0, 0, 0, 0])


def test_reset_mask_rules_and_unsupported_modes():
    vec = MapfVectorEnv(num_envs=3, autoreset_mode=AutoresetMode.DISABLED, **SMALL)
    with pytest.raises(ResetNeededError, match="first reset must reset every world"):
        vec.reset(seed=0, options={"reset_mask": np.array([True, False, True])})
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="must be a bool numpy array of shape"):
        vec.reset(options={"reset_mask": [True, False, True]})
    with pytest.raises(ValueError, match="selects no world"):
        vec.reset(options={"reset_mask": np.zeros(3, dtype=bool)})
    with pytest.raises(ValueError, match="supports autoreset_mode NEXT_STEP or DISABLED; got 'SameStep'"):
        MapfVectorEnv(num_envs=2, autoreset_mode=AutoresetMode.SAME_STEP, **SMALL)
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        MapfVectorEnv(num_envs=0, **SMALL)


def test_make_vec_through_the_registry_and_the_baseline_on_it():
    vec = benchmarkzoo.make_vec(ENV_ID, num_envs=8)
    assert vec.max_cycles == 128 and vec.num_agents == 8
    vec.reset(seed=100000)
    policy = PrioritizedPlanningPolicy()
    cooperative = []
    while len(cooperative) < 8:
        _, _, _, _, infos = vec.step(policy(vec))
        if "_cooperative_success" in infos:
            cooperative += infos["cooperative_success"][infos["_cooperative_success"]].tolist()
    assert np.mean(cooperative) >= 0.75
    vec.close()


def test_vector_form_of_a_generator_instance_matches():
    generator = ObstacleMapGenerator(height=6, width=6, num_agents=2)
    vec = MapfVectorEnv(num_envs=2, generator=generator)
    vec.reset(seed=3)
    assert vec.scenarios[1] == generator.sample(4)


@pytest.mark.parametrize("shape", [(1024, 3), (64, 1), (64, 16), (64, 17), (5, 3), (200, 100), (7, 0)])
def test_any_agent_equals_numpy_any(shape):
    from benchmarkzoo.vector.multiagent import any_agent

    rng = np.random.default_rng(0)
    for density in (0.0, 0.05, 0.5, 1.0):
        flags = rng.random(shape) < density
        assert np.array_equal(any_agent(flags), flags.any(axis=1))
        assert np.array_equal(any_agent(flags[:, ::-1]), flags.any(axis=1))  # non-contiguous too
