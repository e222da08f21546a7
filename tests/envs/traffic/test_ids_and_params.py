"""Ids, parameters and the demand model of the traffic envs: errors name the id an env was made as,
arguments are declared once (one config, one default), and the demand geometry draws where it should.

Nothing here steps SUMO except the one-step checks of ids taken from ``gym.make``; most tests only
build an env (which generates its network with netgenerate, into the session's cache).
"""

from __future__ import annotations

import dataclasses
import inspect

import gymnasium as gym
import numpy as np
import pytest

from benchmarkzoo import registration
from benchmarkzoo.core.bounds import constructor_kwargs
from benchmarkzoo.core.errors import ScenarioError
from benchmarkzoo.envs.identity import registered_id
from benchmarkzoo.envs.traffic import sim
from benchmarkzoo.envs.traffic.config import SignalConfig
from benchmarkzoo.envs.traffic.demand import BEARINGS, SIDES, Demand
from benchmarkzoo.envs.traffic.grid.env import TrafficGridConfig, TrafficGridEnv
from benchmarkzoo.envs.traffic.grid.mo_env import MOTrafficGridEnv
from benchmarkzoo.envs.traffic.grid.mo_vector_env import MOTrafficGridVectorEnv
from benchmarkzoo.envs.traffic.grid.vector_env import TrafficGridVectorEnv
from benchmarkzoo.envs.traffic.networks import NetworkLayout
from benchmarkzoo.envs.traffic.resco import RESCOConfig, TrafficRESCOEnv, TrafficRESCOVectorEnv
from benchmarkzoo.envs.traffic.signal.env import TrafficSignalEnv
from benchmarkzoo.envs.traffic.signal.mo_env import MOTrafficSignalEnv
from benchmarkzoo.envs.traffic.signal.mo_vector_env import MOTrafficSignalVectorEnv
from benchmarkzoo.envs.traffic.signal.vector_env import TrafficSignalVectorEnv

MO_GRID = "benchmarkzoo/MO-TrafficGrid-v0"
RESCO = "benchmarkzoo/TrafficRESCO-cologne1-v0"
VIEWS = [
    TrafficSignalEnv,
    MOTrafficSignalEnv,
    TrafficSignalVectorEnv,
    MOTrafficSignalVectorEnv,
    TrafficGridEnv,
    MOTrafficGridEnv,
    TrafficGridVectorEnv,
    MOTrafficGridVectorEnv,
    TrafficRESCOEnv,
    TrafficRESCOVectorEnv,
]


# ---- errors name the id the env was made as ------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_cycles": 0}, ValueError, "benchmarkzoo/MO-TrafficGrid-v0: max_cycles must be a positive integer; got 0"),
        ({"backend": "sumo"}, ValueError, "benchmarkzoo/MO-TrafficGrid-v0: backend must be one of"),
        ({"reward": "queue"}, TypeError, "argument 'reward'. MOTrafficGridEnv plays reward='diff-waiting-time'"),
        ({"delta": 3}, TypeError, "argument 'delta'. Did you mean 'delta_time'. Its arguments are: generator"),
        ({"generator": "maze/dfs"}, ScenarioError, "benchmarkzoo/MO-TrafficGrid-v0 needs a network generator"),
    ],
)
def test_mo_traffic_grid_errors_name_mo_traffic_grid(kwargs, error, message):
    with pytest.raises(error, match=message):
        registration.make_parallel(MO_GRID, **kwargs)


def test_vector_forms_name_their_own_id_and_refuse_what_they_fix():
    with pytest.raises(ValueError, match="benchmarkzoo/MO-TrafficGrid-v0: max_cycles must be"):
        registration.make_vec(MO_GRID, 1, max_cycles=-1)
    with pytest.raises(TypeError, match=r"'in_process'\. TrafficSignalVectorEnv plays in_process=None, fixed"):
        TrafficSignalVectorEnv(in_process=True)
    with pytest.raises(TypeError, match=r"'reward'\. MOTrafficSignalVectorEnv plays reward='diff-waiting-time'"):
        MOTrafficSignalVectorEnv(reward="pressure")


def test_resco_errors_name_the_network_the_env_plays():
    with pytest.raises(ValueError, match="benchmarkzoo/TrafficRESCO-cologne1-v0: reward must be one of"):
        registration.make_parallel(RESCO, reward="speed")
    with pytest.raises(ValueError, match="benchmarkzoo/TrafficRESCO-cologne1-v0: max_cycles"):
        TrafficRESCOVectorEnv(generator_kwargs={"network": "cologne1"}, max_cycles=0)


def test_an_env_made_under_another_id_names_that_id(signal_env_id):
    other = "benchmarkzoo/TrafficSignalRenamed-v0"
    if other not in gym.registry:
        gym.register(id=other, entry_point=f"{TrafficSignalEnv.__module__}:TrafficSignalEnv", max_episode_steps=5)
    env = gym.make(other)
    try:
        assert env.unwrapped.env_id == other and env.unwrapped.spec.id == other
        with pytest.raises(ScenarioError, match=f"^{other}: options\\['scenario'\\] must be"):
            env.reset(seed=0, options={"scenario": "not a scenario"})
    finally:
        env.close()
    assert registered_id(TrafficSignalEnv) == "benchmarkzoo/TrafficSignal-v0"  # the class keeps its registered id


def test_every_view_is_named_by_a_registered_id():
    registered = {spec.id for spec in registration.list_envs()}
    for view in VIEWS:
        if view in (TrafficRESCOEnv, TrafficRESCOVectorEnv):
            continue  # one class for every RESCO network: named by the network it plays (above)
        assert registered_id(view) in registered, view


# ---- parameters declared once --------------------------------------------------------------------


def _defaults(cls) -> dict:
    return {
        name: p.default
        for name, p in inspect.signature(cls).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v.__name__)
def test_signatures_list_the_config_fields_with_their_defaults(view):
    defaults = _defaults(view)
    config = view.config_type
    fields = {f.name: f.default for f in dataclasses.fields(config)}
    assert {name: defaults[name] for name in fields} == fields
    assert not set(config.fixed_arguments()) & set(defaults)
    assert set(fields) | set(config.fixed_arguments()) == {f.name for f in dataclasses.fields(SignalConfig)}


def test_variants_take_their_base_parameters_less_what_they_fix():
    assert set(_defaults(TrafficSignalEnv)) - set(_defaults(MOTrafficSignalEnv)) == {"reward", "emissions"}
    assert set(_defaults(TrafficGridEnv)) - set(_defaults(MOTrafficGridEnv)) == {"reward"}
    assert set(_defaults(TrafficSignalEnv)) - set(_defaults(TrafficSignalVectorEnv)) == {"backend", "in_process"}
    assert MOTrafficGridVectorEnv.config_type.fixed_arguments() == {
        "reward": "diff-waiting-time",
        "backend": "libsumo",
        "in_process": None,
        "emissions": True,
    }
    assert _defaults(TrafficRESCOEnv)["max_cycles"] == RESCOConfig.time_limit == 720
    assert _defaults(TrafficGridEnv)["max_cycles"] == TrafficGridConfig.time_limit == 360
    assert _defaults(TrafficSignalVectorEnv)["max_episode_steps"] == 360
    assert MOTrafficSignalEnv.reward_dim == MOTrafficGridVectorEnv.reward_dim == 2


def test_bounds_read_the_declared_defaults():
    kw = constructor_kwargs(MOTrafficSignalEnv, {})
    assert kw["delta_time"] == SignalConfig.__dataclass_fields__["delta_time"].default == 5 and "reward" not in kw
    assert registration.spec("benchmarkzoo/TrafficRESCO-cologne1-v0").bounds().max_length == 720


def test_an_env_keeps_its_arguments_and_pickles_with_what_it_was_given():
    env = MOTrafficSignalEnv(delta_time=10, generator_kwargs={"duration": 120})
    try:
        assert env.params.timing == sim.Timing(10, 2, 5) and env.timing.delta_time == 10
        assert env.config.reward == "diff-waiting-time" and env.config.emissions and env.emissions
        assert env.init_arguments["delta_time"] == 10
        assert env.init_arguments["generator_kwargs"] == {"duration": 120}
        assert type(env)(**env.init_arguments).config == env.config
    finally:
        env.close()


# ---- the demand model ----------------------------------------------------------------------------


def _grid_layout() -> NetworkLayout:
    """Four fringe arms of a one-junction grid, each an entry and an exit."""
    nodes = ("bottom0", "left0", "right0", "top0")
    sides = ("bottom", "left", "right", "top")
    bearings = (-90.0, 180.0, 0.0, 90.0)
    return NetworkLayout(
        origins=tuple(f"in_{n}" for n in nodes),
        destinations=tuple(f"out_{n}" for n in nodes),
        origin_side=sides,
        destination_side=sides,
        origin_node=nodes,
        destination_node=nodes,
        origin_bearing=bearings,
        destination_bearing=bearings,
        reachable=np.ones((4, 4), dtype=bool),
    )


@pytest.mark.parametrize("geometry", [SIDES, BEARINGS], ids=["sides", "bearings"])
def test_destinations_go_through_with_probability_through_and_never_back(geometry):
    weights = Demand(300.0, 600, "uniform", 0.7, geometry).destination_weights(_grid_layout())  # (O, D)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)
    assert (np.diag(weights) == 0).all()  # never leave where you came in
    opposite = {0: 3, 1: 2, 2: 1, 3: 0}  # bottom <-> top, left <-> right
    for o, d in opposite.items():
        assert weights[o, d] == pytest.approx(0.7)
        assert weights[o, [k for k in range(4) if k not in (o, d)]] == pytest.approx([0.15, 0.15])


def test_demand_draws_are_seeded_sorted_and_within_the_layout():
    demand = Demand(900.0, 600, "peak", 0.6, SIDES)
    first = demand.draw(np.random.default_rng(5), _grid_layout())
    again = demand.draw(np.random.default_rng(5), _grid_layout())
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    depart, origin, destination = first
    assert depart.dtype == np.int32 and origin.dtype == destination.dtype == np.int16
    assert (np.diff(depart) >= 0).all() and depart.max() < 600
    assert (origin != destination).all()
    assert 4 * 900 * 600 / 3600 * 0.5 < len(depart) < 4 * 900 * 600 / 3600 * 2.5  # rate x peak shape in [0.5, 2]
