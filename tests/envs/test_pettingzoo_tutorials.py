"""The README's table of PettingZoo tutorials, claim by claim: each tutorial's conversion is run, not its training."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

import benchmarkzoo
from benchmarkzoo.envs import pettingzoo_modules

STAY = [
    "benchmarkzoo/FightingDuel-v0",
    "benchmarkzoo/Foraging-v0",
    "benchmarkzoo/MAPF-Lifelong-v0",
    "benchmarkzoo/RPSSelfPlay-v0",
]
LEAVE = ["benchmarkzoo/MAPF-v0", "benchmarkzoo/MicroCombat-v0", "benchmarkzoo/Navigation-v0"]


def _module(env_id: str):
    import importlib

    family = benchmarkzoo.spec(env_id).family
    return getattr(importlib.import_module(f"benchmarkzoo.envs.{family}"), pettingzoo_modules.module_name(env_id))


def test_the_table_names_every_multiagent_parallel_env():
    parallel = {s.id for s in benchmarkzoo.list_envs(kind="parallel", family="multiagent")}
    assert parallel == set(STAY) | set(LEAVE)


def _supersuit_vec_env(env_id: str, black_death: bool = False):
    ss = pytest.importorskip("supersuit", reason="the SB3 tutorial's conversion needs supersuit")
    env = _module(env_id).parallel_env()  # PettingZoo's SB3 tutorial, as written
    env.reset(seed=0)
    if black_death:
        env = ss.black_death_v3(env)
    env = ss.pettingzoo_env_to_vec_env_v1(env)
    return ss.concat_vec_envs_v1(env, 2, num_cpus=1, base_class="stable_baselines3")


def _random_steps(vec, steps: int) -> int:
    vec.reset()
    vec.action_space.seed(0)  # seeded actions: whether an agent leaves within the steps is then fixed
    ended = 0
    for _ in range(steps):
        _, _, dones, _ = vec.step(np.array([vec.action_space.sample() for _ in range(vec.num_envs)]))
        ended += int(dones.sum())
    return ended


@pytest.mark.parametrize("env_id", STAY)
def test_supersuit_converts_the_envs_whose_agents_stay(env_id):
    vec = _supersuit_vec_env(env_id)
    assert _random_steps(vec, 2 * benchmarkzoo.spec(env_id).max_episode_steps + 5) > 0  # through episode ends


@pytest.mark.parametrize("env_id", LEAVE)
def test_supersuit_refuses_the_envs_whose_agents_leave_even_with_black_death(env_id):
    with pytest.raises(AssertionError, match="varying numbers of active agents"):
        _random_steps(_supersuit_vec_env(env_id), 2 * benchmarkzoo.spec(env_id).max_episode_steps + 5)
    with pytest.raises((AssertionError, RuntimeError)):  # Box-only, or it steps an env whose agents all finished
        _random_steps(_supersuit_vec_env(env_id, black_death=True), 2 * benchmarkzoo.spec(env_id).max_episode_steps + 5)


@pytest.mark.parametrize("env_id", LEAVE)
def test_the_adapter_line_the_readme_gives_instead(env_id):
    pytest.importorskip("stable_baselines3", reason="needs extra sb3")
    from benchmarkzoo.adapters.sb3 import make_vec_env

    vec = make_vec_env(env_id, 2)
    try:
        assert _random_steps(vec, 150) > 0
    finally:
        vec.close()


@pytest.mark.parametrize("env_id", STAY + LEAVE)
def test_cleanrl_s_rollout_sees_every_agent_until_its_first_end(env_id):
    """CleanRL's tutorial batchifies every agent each step and ends the rollout at any termination or truncation."""
    env = _module(env_id).parallel_env()
    n = len(env.possible_agents)
    box = isinstance(env.observation_space(env.possible_agents[0]), spaces.Box)
    assert box == (env_id not in ("benchmarkzoo/MAPF-v0", "benchmarkzoo/MAPF-Lifelong-v0"))  # Dict: flatten first
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        for _ in range(env.max_cycles):
            assert len(obs) == n and (not box or np.stack([obs[a] for a in obs]).shape[0] == n)
            obs, rewards, terms, truncs, _ = env.step({a: env.action_space(a).sample() for a in env.agents})
            assert len(rewards) == n
            if any(terms.values()) or any(truncs.values()):
                break
