"""Spider and random networks from netgenerate: seeding, the networks read back with sumolib, TrafficGrid-v0 on them."""

from __future__ import annotations

import inspect
import math
from collections import Counter

import numpy as np
import pytest
import sumolib
from gymnasium.vector import AutoresetMode

from benchmarkzoo import registration
from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.envs.traffic import sumo
from benchmarkzoo.envs.traffic.generators import (
    MAX_RANDOM_PHASES,
    GridGenerator,
    RandomNetworkGenerator,
    SingleIntersectionGenerator,
    SpiderGenerator,
)
from benchmarkzoo.envs.traffic.grid.baseline import FixedTimePolicy, MaxPressurePolicy
from benchmarkzoo.envs.traffic.grid.env import TrafficGridEnv
from benchmarkzoo.envs.traffic.networks import network_layout
from benchmarkzoo.envs.traffic.routing.generator import RoutingGenerator
from benchmarkzoo.envs.traffic.scenario import network_file
from benchmarkzoo.testing import check_parallel_vector_matches_single

_GRID = "benchmarkzoo.envs.traffic.grid"
SPIDER = {"arms": 5, "circles": 2, "ring_signals": True, "duration": 300, "rate": 600}
RANDOM = {"num_signals": 3, "iterations": 8, "duration": 300, "rate": 500}


def read_net(path) -> sumolib.net.Net:
    return sumolib.net.readNet(str(path), withPrograms=True)


def degree(node) -> int:
    return len({n.getID() for n in node.getNeighboringNodes(outgoingNodes=True, incomingNodes=True)})


# ---- generators ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("generator", "own"),
    [
        (SingleIntersectionGenerator, {"lanes": 2, "arm_length": 250.0, "layout": "opposites", "rate": 400.0}),
        (GridGenerator, {"net_file": None, "route_file": None, "rows": 2, "cols": 2}),
        (SpiderGenerator, {"arms": 5, "circles": 2, "ring_signals": False}),
        (RandomNetworkGenerator, {"num_signals": 4, "max_tries": 200}),
        (RoutingGenerator, {"rows": 3, "lanes": 2, "rate": 400.0, "duration": 600, "num_agents": 40}),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_generators_state_their_own_arguments_and_document_every_forwarded_one(generator, own):
    parameters = inspect.signature(generator).parameters
    defaults = {name: p.default for name, p in parameters.items()}
    shared = {"lanes": 1, "speed": 13.89, "rate": 300.0, "duration": 1800, "profile": "uniform", "through": 0.6}
    assert {**shared, **own}.items() <= defaults.items()  # the demand's defaults, re-defaulted where a generator does
    assert list(parameters) == list(generator().kwargs)
    with pytest.raises(GeneratorArgumentError, match="through must be a number in"):
        generator(through=2.0)  # checked once, by TrafficGenerator


def test_spider_seeds_draw_demand_on_one_network():
    gen = SpiderGenerator(**SPIDER)
    a, b, c = gen.sample(0), gen.sample(0), gen.sample(1)
    assert a.content_hash == b.content_hash and a.net_hash == b.net_hash
    assert a.content_hash != c.content_hash and a.net_hash == c.net_hash  # the kwargs fix the network
    assert a.network == "spider" and a.num_vehicles > 0


@pytest.mark.parametrize("arms, circles, ring_signals", [(5, 2, True), (3, 1, False), (7, 3, True)])
def test_spider_network_has_the_requested_arms_and_circles(arms, circles, ring_signals):
    gen = SpiderGenerator(arms=arms, circles=circles, distance=120.0, arm_length=200.0, ring_signals=ring_signals)
    net = read_net(gen.network()[0])
    centre = net.getNode("A1")
    cx, cy = centre.getCoord()
    radii = Counter(round(math.hypot(n.getCoord()[0] - cx, n.getCoord()[1] - cy)) for n in net.getNodes())
    # the centre, `arms` junctions on each ring 120 m apart, one dead end per arm 200 m beyond the last ring
    assert radii == {0: 1, **{120 * c: arms for c in range(1, circles + 1)}, 120 * circles + 200: arms}
    assert degree(centre) == arms
    signals = {tls.getID() for tls in net.getTrafficLights()}
    assert signals == set(gen.signal_ids()) == set(gen.signals())
    assert len(signals) == (1 + arms * circles if ring_signals else 1)
    assert sum(n.getType() == "dead_end" for n in net.getNodes()) == arms


def test_random_network_is_drawn_from_the_seed():
    gen = RandomNetworkGenerator(**RANDOM)
    first = gen.sample(0)
    assert RandomNetworkGenerator(**RANDOM).sample(0).net_hash == first.net_hash
    assert gen.sample(0).content_hash == first.content_hash
    hashes = {gen.sample(seed).net_hash for seed in range(6)}
    assert len(hashes) == 6  # a new network for every seed
    assert first.network == "random" and "--rand" in first.net_args


def test_random_network_has_signals_exactly_at_junctions_of_degree_three_or_more():
    gen = RandomNetworkGenerator(**RANDOM)
    for seed in range(4):
        scenario = gen.sample(seed)
        net = read_net(network_file(scenario))
        signals = {tls.getID() for tls in net.getTrafficLights()}
        assert len(signals) == 3
        assert signals == {n.getID() for n in net.getNodes() if degree(n) >= 3}
        assert max(degree(n) for n in net.getNodes()) <= 4
        for tls in net.getTrafficLights():
            phases = next(iter(tls.getPrograms().values())).getPhases()
            greens = [p for p in phases if "y" not in p.state and "G" in p.state.upper()]
            assert 1 <= len(greens) <= MAX_RANDOM_PHASES


def test_random_network_demand_only_between_connected_fringe_edges():
    gen = RandomNetworkGenerator(**{**RANDOM, "bidi_probability": 0.7})
    for seed in range(3):
        scenario = gen.sample(seed)
        path = network_file(scenario)
        layout = network_layout(path, scenario.net_hash)
        assert layout.reachable[scenario.origin, scenario.destination].all()
        assert (
            np.asarray(layout.origin_node)[scenario.origin] != np.asarray(layout.destination_node)[scenario.destination]
        ).all()


def test_random_network_cache_keeps_only_the_kept_network(tmp_path, monkeypatch):
    monkeypatch.setenv(sumo.CACHE_ENV_VAR, str(tmp_path))
    monkeypatch.setattr(sumo, "_net_memo", {})
    scenario = RandomNetworkGenerator(**RANDOM).sample(11)
    nets = list((tmp_path / "traffic" / "nets").glob("*/net.net.xml"))
    verdicts = list((tmp_path / "traffic" / "nets").glob("*/verdict-3-signals.txt"))
    assert [p.parent for p in nets] == [sumo.network_folder(tuple(scenario.net_args))]
    assert sum(v.read_text() == "ok" for v in verdicts) == 1 and len(verdicts) >= 1
    calls = []
    monkeypatch.setattr(
        "benchmarkzoo.envs.traffic.generators.random_network.netgenerate", lambda args: calls.append(args)
    )
    assert RandomNetworkGenerator(**RANDOM).sample(11) == scenario  # every verdict read back: no netgenerate run
    assert calls == []
    next(iter(nets)).unlink()  # a missing network is regenerated, identical
    assert network_file(scenario).is_file()


def test_generator_arguments_are_checked():
    with pytest.raises(GeneratorArgumentError, match="arms must be an integer in"):
        SpiderGenerator(arms=2)
    with pytest.raises(GeneratorArgumentError, match="ring_signals must be True or False"):
        SpiderGenerator(ring_signals="yes")
    with pytest.raises(GeneratorArgumentError, match=r"min_distance \(300.0\) must not exceed max_distance"):
        RandomNetworkGenerator(min_distance=300.0, max_distance=200.0)
    with pytest.raises(ScenarioError, match=r"found no suitable network in 3 tries:.*signals"):
        RandomNetworkGenerator(num_signals=20, iterations=4, max_tries=3).sample(0)


def test_directional_demand_favours_a_seeded_axis_on_a_spider():
    gen = SpiderGenerator(arms=4, circles=1, profile="directional", rate=1200, duration=1800)
    layout = network_layout(*gen.network())
    for seed in range(3):
        counts = np.bincount(gen.sample(seed).origin, minlength=len(layout.origins))  # (O,)
        assert counts.max() > 2 * counts.min()  # 1.5x vs 0.5x (times a factor in [0.8, 1.2])


def test_through_traffic_crosses_a_spider():
    gen = SpiderGenerator(arms=4, circles=1, through=0.9, rate=1200, duration=1800)
    scenario = gen.sample(0)
    layout = network_layout(*gen.network())
    bearing_in = np.asarray(layout.origin_bearing)[scenario.origin]
    bearing_out = np.asarray(layout.destination_bearing)[scenario.destination]
    turn = np.abs((bearing_out - bearing_in + 180.0) % 360.0 - 180.0)
    assert 0.85 < np.mean(turn > 135.0) < 0.95


# ---- TrafficGrid-v0 on these networks ----------------------------------------------------------------


@pytest.mark.parametrize("generator, kwargs", [("traffic/spider", SPIDER), ("traffic/random", RANDOM)])
def test_traffic_grid_episode_with_max_pressure_lets_vehicles_arrive(generator, kwargs):
    env = TrafficGridEnv(generator=generator, generator_kwargs=kwargs, max_cycles=100)
    try:
        results = {}
        for name, policy in (("fixed-time", FixedTimePolicy()), ("max-pressure", MaxPressurePolicy())):
            env.reset(seed=2)
            while env.agents:
                _, _, _, _, infos = env.step(policy(env))
            info = infos[env.possible_agents[0]]
            assert info["throughput"] > 0.5 * env.scenario.num_vehicles, (name, info)
            results[name] = info
        assert results["max-pressure"]["mean_queue"] < results["fixed-time"]["mean_queue"], results
    finally:
        env.close()


def test_spider_signals_of_different_shapes_share_padded_spaces():
    env = TrafficGridEnv(generator="traffic/spider", generator_kwargs=SPIDER)
    try:
        observations, _ = env.reset(seed=0)
        layout = env.layout
        assert layout.num_phases(0) == 3 and layout.num_phases(1) == 2  # the 5-arm centre A1, ring junction B1
        assert env.action_space("B1").n == 3 and env.observation_space("B1").shape == (3 + 1 + 2 * 5,)
        assert observations["B1"][2] == 0.0 and observations["B1"][0] == 1.0  # no third green at B1
        for _ in range(3):  # past the minimum green
            observations, *_ = env.step({agent: 2 for agent in env.agents})
        assert env._measurement.phase.tolist() == [2] + [0] * 10  # green 2 % 2 = 0 at the ring junctions
        lanes = len(layout.incoming[1])  # 4: the padded fifth lane slot stays empty
        assert observations["B1"][4 + lanes] == 0.0 and observations["B1"][4 + 5 + lanes] == 0.0
    finally:
        env.close()


def test_random_network_scenarios_play_on_one_env_and_foreign_ones_are_refused():
    env = TrafficGridEnv(generator="traffic/random", generator_kwargs=RANDOM)
    try:
        assert env.possible_agents == ["tls_0", "tls_1", "tls_2"]
        env.reset(seed=0)
        first = env.scenario.net_hash
        env.reset(options={"scenario": RandomNetworkGenerator(**RANDOM).sample(5)})
        assert env.scenario.net_hash != first and len(env.layout.tls_ids) == 3
        env.step({agent: 3 for agent in env.agents})  # any action of Discrete(4) is valid on every signal
        with pytest.raises(ScenarioError, match="was made for 3 traffic lights"):
            env.reset(options={"scenario": RandomNetworkGenerator(**{**RANDOM, "num_signals": 4}).sample(0)})
    finally:
        env.close()


@pytest.fixture(scope="module")
def short_network_ids():
    """Short spider and random-network TrafficGrid ids (20-step episodes) for this module only."""
    ids = {}
    for name, generator, kwargs in (("Spider", "traffic/spider", SPIDER), ("Random", "traffic/random", RANDOM)):
        env_id = f"benchmarkzoo/TrafficGrid{name}Short-v0"
        registration.register(
            env_id,
            kind="parallel",
            family="traffic",
            entry_point=f"{_GRID}.env:TrafficGridEnv",
            vector_entry_point=f"{_GRID}.vector_env:TrafficGridVectorEnv",
            max_episode_steps=20,
            kwargs={"generator": generator, "generator_kwargs": kwargs},
            description="test only",
        )
        ids[generator] = env_id
    yield ids
    for env_id in ids.values():
        registration._ENVS.pop(env_id, None)


@pytest.mark.parametrize("generator", ["traffic/spider", "traffic/random"])
def test_native_vector_equals_separate_parallel_envs(short_network_ids, generator):
    summary = check_parallel_vector_matches_single(
        short_network_ids[generator], num_envs=2, steps=45, seed=0, autoreset_mode=AutoresetMode.NEXT_STEP
    )
    assert summary["episodes_ended"] >= 4  # worlds of the random network reload on new networks
