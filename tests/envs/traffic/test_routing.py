"""Routing-v0: PettingZoo conformance, native vector = ParallelEnvs, traffic facts, SUMO's tripinfo, cleanup."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import os
import signal
import xml.etree.ElementTree as ET

import numpy as np
import psutil
import pytest
from gymnasium.vector import AutoresetMode

from benchmarkzoo import registration
from benchmarkzoo.core.errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidAgentError,
    ResetNeededError,
    ScenarioError,
)
from benchmarkzoo.envs.traffic.routing import sim
from benchmarkzoo.envs.traffic.routing.baseline import ShortestPathPolicy, SumoRoutingPolicy
from benchmarkzoo.envs.traffic.routing.env import RoutingEnv
from benchmarkzoo.envs.traffic.routing.generator import RoutingGenerator, edge_graph
from benchmarkzoo.envs.traffic.routing.vector_env import RoutingVectorEnv
from benchmarkzoo.envs.traffic.runner import InProcessRunner, sumo_command
from benchmarkzoo.envs.traffic.scenario import network_file, write_routes
from benchmarkzoo.envs.traffic.sumo import TrafficSimulationError
from benchmarkzoo.testing import check_parallel_env, check_parallel_vector_matches_single, check_pickle

SHORT_ID = "benchmarkzoo/RoutingShort-v0"
#: Five-minute days with 8 agents: about 6 steps each.
SHORT = {"generator_kwargs": {"duration": 300, "rate": 400, "num_agents": 8, "horizon": 1500}}


@pytest.fixture(scope="module")
def short_routing_id():
    """Short days in benchmarkzoo's registry for this module only."""
    registration.register(
        SHORT_ID,
        kind="parallel",
        family="traffic",
        entry_point="benchmarkzoo.envs.traffic.routing.env:RoutingEnv",
        vector_entry_point="benchmarkzoo.envs.traffic.routing.vector_env:RoutingVectorEnv",
        kwargs=SHORT,
        description="test only",
    )
    yield SHORT_ID
    registration._ENVS.pop(SHORT_ID, None)


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True) if p.is_running() and p.status() != "zombie"}


def _play(env: RoutingEnv, choose, seed: int = 0, **reset) -> tuple[dict, dict, list]:
    """One day; returns each agent's return, the last step's infos and every step's rewards."""
    _, infos = env.reset(seed=seed, **reset)
    returns, history = dict.fromkeys(env.agents, 0.0), []
    while env.agents:
        _, rewards, _, _, infos = env.step(choose(env))
        history.append(rewards)
        for agent, reward in rewards.items():
            returns[agent] += reward
    return returns, infos, history


def test_check_parallel_env():
    check_parallel_env(lambda: RoutingEnv(**SHORT), seed=0, steps=40, strict=True)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED], ids=lambda m: m.value)
def test_native_vector_equals_separate_parallel_envs(short_routing_id, mode):
    summary = check_parallel_vector_matches_single(short_routing_id, num_envs=2, steps=20, seed=0, autoreset_mode=mode)
    assert summary["episodes_ended"] >= 4


def test_pickle_mid_day():
    env = RoutingEnv(**SHORT)
    try:
        check_pickle(env, seed=0, steps_before=3, steps_after=10, strict=True)
    finally:
        env.close()


def test_same_seed_same_day_and_other_seeds_differ():
    envs = [RoutingEnv(**SHORT), RoutingEnv(**SHORT)]
    try:
        rng = np.random.default_rng(4)
        choices = rng.integers(0, 3, size=(20, 8))
        runs = [
            _play(env, lambda e: {a: int(choices[e.num_steps, e._index[a]]) for a in e.agents}, seed=11) for env in envs
        ]
        (returns_a, infos_a, history_a), (returns_b, infos_b, history_b) = runs
        assert history_a == history_b and returns_a == returns_b
        assert {k: infos_a[a][k] for a in infos_a for k in sim.METRIC_KEYS} == {
            k: infos_b[a][k] for a in infos_b for k in sim.METRIC_KEYS
        }
        other, _, _ = _play(envs[0], ShortestPathPolicy(), seed=12)
        assert other != returns_a
    finally:
        for env in envs:
            env.close()


def test_generator_routes_are_the_k_shortest_junction_simple_connected_routes():
    generator = RoutingGenerator(num_agents=12)
    scenario = generator.sample(5)
    graph = edge_graph(*generator.network())
    assert scenario.routes.shape[:2] == (12, 3) and np.all(np.diff(scenario.agent_depart) >= 0)
    assert np.all(scenario.agent_depart % 10 == 0) and scenario.agent_depart.max() < scenario.duration
    for i in range(scenario.num_agents):
        options = [tuple(scenario.route_edges(i, j)) for j in range(3)]
        assert len(set(options)) == 3
        assert np.all(np.diff(scenario.free_flow[i]) >= 0)  # sorted by free-flow time
        for j, route in enumerate(options):
            assert route[0] == scenario.origins[scenario.agent_origin[i]]
            assert route[-1] == scenario.destinations[scenario.agent_destination[i]]
            assert all(b in graph.successors[a] for a, b in itertools.pairwise(route))  # turns SUMO allows
            nodes = [graph.from_node[route[0]], *(graph.to_node[e] for e in route)]
            assert len(set(nodes)) == len(nodes)  # no junction twice
            assert scenario.free_flow[i, j] == pytest.approx(sum(graph.cost[e] for e in route))
    # a 200 m arm at 13.89 m/s, less the junction's interior (about 10 m, which SUMO's lanes exclude)
    assert 185.0 / 13.89 < graph.cost["left1A1"] < 200.0 / 13.89


def test_each_agent_decides_once_at_its_slot_and_its_return_is_its_travel_time():
    env = RoutingEnv(**SHORT)
    try:
        observations, infos = env.reset(seed=3)
        scenario, decided = env.scenario, {}
        first = scenario.agent_depart.min()
        assert all(infos[a]["deciding"] == (scenario.agent_depart[i] == first) for i, a in enumerate(env.agents))
        assert all(observations[a][0] == infos[a]["deciding"] for a in env.agents)
        returns, times = {}, {}
        while env.agents:
            for agent in env.agents:
                if infos[agent]["deciding"]:
                    decided[agent] = env.sim_state.time
            observations, rewards, terminations, _, infos = env.step({a: 1 for a in env.agents})
            for agent, reward in rewards.items():
                returns[agent] = returns.get(agent, 0.0) + reward
                if terminations[agent]:
                    times[agent] = infos[agent]["travel_time"]
                    assert infos[agent]["arrived"]
        assert decided == {a: float(scenario.agent_depart[i]) for i, a in enumerate(env.possible_agents)}
        assert all(returns[a] == pytest.approx(-times[a] / 60.0) for a in env.possible_agents)
        last = next(iter(infos.values()))
        assert last["agents_arrived"] == 8 and last["humans_arrived"] == scenario.num_vehicles
        assert last["mean_travel_time_agents"] == pytest.approx(np.mean(list(times.values())))
        assert 20.0 < last["mean_travel_time_humans"] < 600.0 and last["total_delay"] > 0.0
    finally:
        env.close()


def test_heavy_agent_demand_on_one_route_is_slower_than_splitting_it():
    """60 CAVs between the same two arms within 3 minutes: all on route 0 queue; spread over 3 routes they do not."""
    kwargs = {"duration": 300, "rate": 300, "num_agents": 60, "horizon": 1800}
    env = RoutingEnv(generator_kwargs=kwargs)
    try:
        base = env.generator.sample(7)
        a = int(np.flatnonzero(base.free_flow[:, 0] == base.free_flow[:, 1])[0])  # two equally short options

        def repeat(x):
            return np.repeat(x[a : a + 1], 60, axis=0)

        scenario = dataclasses.replace(
            base,
            agent_depart=np.repeat(np.arange(30, 210, 30), 10).astype(np.int32),
            agent_origin=repeat(base.agent_origin),
            agent_destination=repeat(base.agent_destination),
            routes=repeat(base.routes),
            free_flow=repeat(base.free_flow),
            od_xy=repeat(base.od_xy),
        )
        results = {}
        for name, spread in (("route 0", 1), ("split", 3)):
            _, infos, _ = _play(
                env,
                lambda e, spread=spread: {ag: e._index[ag] % spread for ag in e.agents},
                options={"scenario": scenario},
            )
            results[name] = next(iter(infos.values()))
            assert results[name]["agents_arrived"] == 60
        slow, fast = results["route 0"]["mean_travel_time_agents"], results["split"]["mean_travel_time_agents"]
        assert slow > 1.2 * fast, results
        assert results["route 0"]["total_delay"] > results["split"]["total_delay"]
    finally:
        env.close()


def test_travel_times_and_delay_equal_sumo_tripinfo(tmp_path):
    """The controller's per-vehicle accounting against SUMO's own tripinfo output of the same run."""
    libsumo = InProcessRunner().libsumo
    slot = InProcessRunner()
    slot._acquire()
    scenario = RoutingGenerator(**SHORT["generator_kwargs"]).sample(2)
    plan = sim.make_plan(scenario, network_file(scenario), write_routes(scenario, tmp_path / "r.rou.xml"))
    trips = tmp_path / "tripinfo.xml"
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            libsumo.start(
                [*sumo_command(plan.net, plan.routes, plan.seed), *sim.SUMO_OPTIONS, "--tripinfo-output", str(trips)]
            )
        controller = sim.RoutingController(libsumo, plan)
        m = controller.measure()
        while not m.done:
            m = controller.step(np.arange(8) % 3)
        libsumo.close()
    finally:
        slot._release()
    rows = {t.get("id"): t for t in ET.parse(trips).getroot().iter("tripinfo")}
    duration = {vid: float(t.get("duration")) for vid, t in rows.items()}
    agents = sim.travel_times(scenario, m)
    for i in range(8):
        assert agents[i] == duration[sim.agent_vehicle(i)]
        assert rows[sim.agent_vehicle(i)].get("vType") == "car"
        route = rows[sim.agent_vehicle(i)]
        assert route.get("departLane").split("_")[0] == scenario.route_edges(i, i % 3)[0]
        assert route.get("arrivalLane").split("_")[0] == scenario.route_edges(i, i % 3)[-1]
    humans = [d for vid, d in duration.items() if not vid.startswith("agent_")]
    assert m.humans_arrived == len(humans) == scenario.num_vehicles
    assert m.humans_travel_time == pytest.approx(sum(humans))
    delay = sum(float(t.get("timeLoss")) + float(t.get("departDelay")) for t in rows.values())
    assert m.total_delay == pytest.approx(delay, abs=0.001 * len(rows))  # from SUMO's mean time loss, ms precision
    metrics = sim.episode_metrics(scenario, m)
    assert metrics["mean_travel_time_humans"] == pytest.approx(np.mean(humans))
    assert metrics["mean_travel_time"] == pytest.approx(np.mean(list(duration.values())))


def test_bad_actions_are_refused_with_the_fix():
    env = RoutingEnv(**SHORT)
    try:
        env.reset(seed=0)
        deciding = [a for a in env.agents if env.scenario.agent_depart[env._index[a]] == env.sim_state.time]
        waiting = [a for a in env.agents if a not in deciding]
        with pytest.raises(InvalidActionError, match=r"Discrete\(3\).*agent 'cav_"):
            env.step({a: (3 if a == deciding[0] else 0) for a in env.agents})
        with pytest.raises(InvalidActionError, match="integers"):
            env.step({a: (1.0 if a == waiting[0] else 0) for a in env.agents})  # even a waiting agent's
        with pytest.raises(InvalidAgentError, match="no_such"):
            env.step({**{a: 0 for a in env.agents}, "no_such": 0})
        # an agent with only two options may not choose the third while deciding
        routes = env.scenario.routes.copy()
        i = env._index[deciding[0]]
        routes[i, 2] = -1
        masked = dataclasses.replace(env.scenario, routes=routes)
        _, infos = env.reset(seed=0, options={"scenario": masked})
        assert infos[deciding[0]]["action_mask"].tolist() == [1, 1, 0]
        with pytest.raises(IllegalActionError, match=r"only routes \[0, 1\]"):
            env.step({a: 2 for a in env.agents})
        assert sim.observe(masked, env.sim_state, np.array([i]))[0, -3:].tolist() == [1.0, 1.0, 0.0]
        env.step({a: (1 if a == deciding[0] else 2) for a in env.agents})  # refusals leave the env usable
        with pytest.raises(ScenarioError, match="RoutingScenario"):
            env.reset(options={"scenario": RoutingGenerator(num_agents=3).sample(0)})
    finally:
        env.close()


def test_vector_baselines_and_close_leave_no_process_or_file():
    before = _children()
    env = RoutingVectorEnv(num_envs=2, **SHORT)
    scratch = env._scratch
    env.reset(seed=0)
    assert len(_children() - before) >= 2  # a libsumo worker (and its fork of the day) per world
    ended = 0
    for policy in (ShortestPathPolicy(), SumoRoutingPolicy()):
        for _ in range(8):
            actions = policy(env)
            assert actions.shape == (2, 8)
            _, _, _, _, infos = env.step(actions)
            ended += int(infos.get("_mean_travel_time_agents", np.zeros(2, bool)).sum())
    assert ended >= 2
    env.close()
    assert _children() <= before and not scratch.exists()
    single = RoutingEnv(**SHORT)
    single.reset(seed=1)
    scratch = single._scratch
    single.close()
    assert _children() <= before and not scratch.exists()


def test_sumo_routing_picks_the_option_with_least_current_travel_time():
    env = RoutingEnv(**SHORT)
    try:
        env.reset(seed=4)
        for _ in range(3):
            times = sim.route_times(env.scenario, env.sim_state)  # (N, k)
            actions = SumoRoutingPolicy()(env)
            for agent, route in actions.items():
                assert times[env._index[agent], route] == times[env._index[agent]].min()
            env.step(actions)
        assert times.min() > 0 and not np.all(times == env.scenario.free_flow)  # SUMO's times, not free flow
    finally:
        env.close()


def test_killed_worker_gives_clear_error_and_reset_recovers():
    env = RoutingEnv(**SHORT)
    try:
        env.reset(seed=0)
        os.kill(env._runner.pid, signal.SIGKILL)
        with pytest.raises(TrafficSimulationError, match="SIGKILL") as caught:
            env.step({agent: 0 for agent in env.agents})
        assert env.scenario.content_hash[:12] in str(caught.value) and "Routing-v0" in str(caught.value)
        with pytest.raises(ResetNeededError):
            env.step({agent: 0 for agent in env.possible_agents})
        env.reset(seed=0)
        env.step({agent: 0 for agent in env.agents})
    finally:
        env.close()
