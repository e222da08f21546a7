"""PettingZoo-style ``*_v0`` modules, made from the registry: names, the three makers, the spec's defaults."""

from __future__ import annotations

import importlib

import pytest
from gymnasium.utils.env_checker import data_equivalence
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils.conversions import parallel_to_aec_wrapper
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import benchmarkzoo
from benchmarkzoo.envs import pettingzoo_modules

MULTI_AGENT = [s for s in benchmarkzoo.list_envs() if s.kind in ("parallel", "moma")]


@pytest.mark.parametrize(
    ("env_id", "name"),
    [
        ("benchmarkzoo/MAPF-v0", "mapf_v0"),
        ("benchmarkzoo/MAPF-Lifelong-v0", "mapf_lifelong_v0"),
        ("benchmarkzoo/RPSSelfPlay-v0", "rps_self_play_v0"),
        ("benchmarkzoo/MicroCombat-v0", "micro_combat_v0"),
        ("benchmarkzoo/MO-Navigation-v0", "mo_navigation_v0"),
        ("benchmarkzoo/TrafficRESCO-cologne1-v0", "traffic_resco_cologne1_v0"),
        ("mylab/Thing-v12", "thing_v12"),
    ],
)
def test_module_names_follow_pettingzoo(env_id, name):
    assert pettingzoo_modules.module_name(env_id) == name


def test_every_multi_agent_id_has_one_module_in_its_family_package():
    served = {}
    for family in {s.family for s in MULTI_AGENT}:
        package = importlib.import_module(f"benchmarkzoo.envs.{family}")
        names = [name for name in dir(package) if name in pettingzoo_modules.modules_of(family)]
        for name in names:
            assert getattr(package, name).ENV_ID not in served.values(), "two modules for one id"
            served[f"{family}.{name}"] = getattr(package, name).ENV_ID  # building needs no extra
    assert sorted(served.values()) == sorted(s.id for s in MULTI_AGENT)


def test_the_module_makes_the_three_pettingzoo_forms_with_the_spec_defaults():
    from benchmarkzoo.envs.multiagent import mapf_v0

    # after the first from-import, the dotted import finds the same module
    assert importlib.import_module("benchmarkzoo.envs.multiagent.mapf_v0") is mapf_v0
    assert mapf_v0.ENV_ID == "benchmarkzoo/MAPF-v0"
    assert mapf_v0.__all__ == ["ENV_ID", "env", "parallel_env", "raw_env"]
    parallel = mapf_v0.parallel_env()
    made = benchmarkzoo.make_parallel("benchmarkzoo/MAPF-v0")
    assert parallel.spec.id == "benchmarkzoo/MAPF-v0" and parallel.max_cycles == made.max_cycles
    first, _ = parallel.reset(seed=4)
    again, _ = made.reset(seed=4)
    assert data_equivalence(first, again)
    assert parallel.config.view_radius == made.config.view_radius != 3  # the spec's default
    assert mapf_v0.parallel_env(view_radius=3).observation_space("agent_0")["view"].shape == (3, 7, 7)
    aec = mapf_v0.env()
    assert isinstance(aec, OrderEnforcingWrapper)
    raw = mapf_v0.raw_env()
    assert type(raw) is parallel_to_aec_wrapper
    api_test(mapf_v0.env(), num_cycles=20)
    parallel_api_test(mapf_v0.parallel_env(), num_cycles=20)


def test_a_moma_env_has_a_module_too():
    from benchmarkzoo.envs.multiagent import mo_foraging_v0

    env = mo_foraging_v0.parallel_env()
    env.reset(seed=0)
    assert env.spec.kind == "moma" and env.reward_space(env.agents[0]).shape[0] >= 2


def test_an_unknown_module_is_an_attribute_error():
    import benchmarkzoo.envs.multiagent as package

    with pytest.raises(ImportError, match="cannot import name 'maze_v0'"):
        from benchmarkzoo.envs.multiagent import maze_v0  # noqa: F401  (a single-agent env has no module)
    with pytest.raises(AttributeError, match=r"module 'benchmarkzoo\.envs\.multiagent' has no attribute 'mapf_v9'"):
        package.mapf_v9  # noqa: B018
