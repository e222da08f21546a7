"""MO-TrafficGrid-v0: per-signal objectives measured against SUMO's own per-vehicle values, and the API."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from benchmarkzoo import registration
from benchmarkzoo.envs.traffic.grid.baseline import MaxPressurePolicy
from benchmarkzoo.envs.traffic.grid.env import TrafficGridEnv
from benchmarkzoo.envs.traffic.grid.mo_env import MOTrafficGridEnv
from benchmarkzoo.envs.traffic.signal.mo_env import objectives
from benchmarkzoo.testing import check_parallel_env, check_parallel_vector_matches_single, check_pickle

MO_SHORT_ID = "benchmarkzoo/MO-TrafficGridShort-v0"
SHORT = {"generator_kwargs": {"duration": 300, "rate": 500}}
_GRID = "benchmarkzoo.envs.traffic.grid"


@pytest.fixture(scope="module")
def mo_short_id():
    """A short MO grid (20-step episodes) in benchmarkzoo's registry for this module only."""
    registration.register(
        MO_SHORT_ID,
        kind="moma",
        family="traffic",
        entry_point=f"{_GRID}.mo_env:MOTrafficGridEnv",
        vector_entry_point=f"{_GRID}.mo_vector_env:MOTrafficGridVectorEnv",
        max_episode_steps=20,
        kwargs=SHORT,
        extras=("traffic", "mo"),
        description="test only",
    )
    yield MO_SHORT_ID
    registration._ENVS.pop(MO_SHORT_ID, None)


class LaneTally:
    """libsumo as the controller sees it, plus SUMO's per-vehicle CO2 and halting, by the lane each vehicle is on."""

    def __init__(self, conn):
        self._conn = conn
        self.co2_mg: dict[str, float] = {}
        self.halted: dict[str, int] = {}

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def simulationStep(self, time=0.0):  # libsumo's name
        self._conn.simulationStep(time)
        vehicles = self._conn.vehicle
        for vid in vehicles.getIDList():
            lane = vehicles.getLaneID(vid)
            self.co2_mg[lane] = self.co2_mg.get(lane, 0.0) + vehicles.getCO2Emission(vid)  # mg/s over 1 s
            self.halted[lane] = self.halted.get(lane, 0) + int(vehicles.getSpeed(vid) < 0.1)


@pytest.mark.filterwarnings("ignore:.*libsumo has already simulated:RuntimeWarning")  # in-process, to reach SUMO
def test_objectives_equal_sumo_per_vehicle_sums_on_each_signals_lanes():
    env = MOTrafficGridEnv(generator_kwargs={"rate": 500}, in_process=True)
    try:
        env.reset(seed=3)
        controller = env._runner.controller
        owners = controller.lane_owners()
        controller.conn = tally = LaneTally(controller.conn)
        seen = np.zeros((len(env.possible_agents), 2))
        for t in range(60):
            tally.co2_mg, tally.halted = {}, {}
            # every signal switches every minute, so some steps hold a yellow
            _, rewards, _, _, _ = env.step({agent: (t // 12 + k) % 2 for k, agent in enumerate(env.agents)})
            for k, agent in enumerate(env.possible_agents):
                co2 = sum(v for lane, v in tally.co2_mg.items() if owners.get(lane) == k)
                halted = sum(v for lane, v in tally.halted.items() if owners.get(lane) == k)
                assert rewards[agent].dtype == np.float32 and rewards[agent].shape == (2,)
                assert rewards[agent][0] == np.float32(-halted), (t, agent, rewards[agent], halted)
                assert rewards[agent][1] == pytest.approx(np.float32(-co2 / 1000.0), rel=1e-6), (t, agent, co2)
                seen[k] += (halted, co2)
            # on a grid every lane a vehicle can be on has an owner: the signals share the network's totals
            assert set(tally.co2_mg) <= set(owners)
        assert (seen[:, 1] > 1e4).all() and (seen[:, 0] > 10).all()  # the comparison was not vacuous
    finally:
        env.close()


@pytest.mark.filterwarnings("ignore:.*libsumo has already simulated:RuntimeWarning")  # in-process, to reach SUMO
def test_lane_owners_partition_the_grid():
    env = MOTrafficGridEnv(**SHORT, in_process=True)
    try:
        env.reset(seed=0)
        controller = env._runner.controller
        owners = controller.lane_owners()
        lanes = set(controller.conn.lane.getIDList())
        assert set(owners) == lanes  # every lane, internal ones included, belongs to exactly one signal
        layout = env.layout
        for k, agent in enumerate(env.possible_agents):
            assert all(owners[layout.lanes[i]] == k for i in layout.incoming[k])
            assert all(owners[lane] == k for lane in lanes if lane.startswith(f":{agent}_"))
    finally:
        env.close()


@pytest.mark.parametrize("rows, cols", [(1, 1), (2, 2)])
def test_signal_objectives_add_up_to_mo_traffic_signals(rows, cols):
    """Summed over agents (the one agent of a 1x1 grid), rewards are MO-TrafficSignal-v0's network-wide objectives."""
    env = MOTrafficGridEnv(generator_kwargs={"rows": rows, "cols": cols, "duration": 300, "rate": 500})
    policy = MaxPressurePolicy()
    try:
        env.reset(seed=1)
        totals = np.zeros(2)
        for _ in range(40):
            _, rewards, _, _, _ = env.step(policy(env))
            summed = np.sum([rewards[a] for a in env.possible_agents], axis=0, dtype=np.float64)
            network = objectives(env._measurement)
            if rows * cols == 1:
                assert np.array_equal(rewards["A0"], network)
            np.testing.assert_allclose(summed, network, rtol=1e-6)
            totals += network
        assert totals[0] < 0 and totals[1] < -1000
    finally:
        env.close()


def test_mo_env_is_traffic_grid_with_a_vector_reward():
    envs = [TrafficGridEnv(**SHORT), MOTrafficGridEnv(**SHORT)]
    try:
        outs = [env.reset(seed=7) for env in envs]
        actions = np.random.default_rng(0).integers(0, 2, size=(25, 4))
        for row in actions:
            outs = [env.step(dict(zip(env.possible_agents, map(int, row)))) for env in envs]
            (obs_a, _, _, trunc_a, info_a), (obs_b, rewards, _, trunc_b, info_b) = outs
            assert all(np.array_equal(obs_a[a], obs_b[a]) for a in obs_a) and trunc_a == trunc_b
            assert info_a == info_b
            assert all(envs[1].reward_space(a).contains(r) for a, r in rewards.items())
        assert envs[1].reward_spaces == {a: envs[1].reward_space(a) for a in envs[1].possible_agents}
    finally:
        for env in envs:
            env.close()


def test_check_parallel_env():
    check_parallel_env(lambda: MOTrafficGridEnv(max_cycles=30, **SHORT), seed=0, steps=70, strict=True)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED], ids=lambda m: m.value)
def test_native_vector_equals_separate_parallel_envs(mo_short_id, mode):
    vec = registration.make_vec(mo_short_id, num_envs=2)
    try:
        assert vec.single_reward_space.shape == (2,)
        vec.reset(seed=0)
        _, rewards, *_ = vec.step(np.zeros((2, 4), dtype=np.int64))
        assert rewards.dtype == np.float32 and rewards.shape == (2, 4, 2)
    finally:
        vec.close()
    summary = check_parallel_vector_matches_single(mo_short_id, num_envs=2, steps=45, seed=0, autoreset_mode=mode)
    assert summary["episodes_ended"] >= 4


def test_pickle_mid_episode():
    env = MOTrafficGridEnv(max_cycles=30, **SHORT)
    try:
        check_pickle(env, seed=0, steps_before=5, steps_after=30, strict=True)
    finally:
        env.close()
