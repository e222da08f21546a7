"""TrafficGrid-v0: PettingZoo conformance, native vector equals separate ParallelEnvs, baselines, cleanup."""

from __future__ import annotations

import os
import signal

import numpy as np
import psutil
import pytest
from gymnasium.vector import AutoresetMode

from benchmarkzoo import registration
from benchmarkzoo.core.errors import ResetNeededError
from benchmarkzoo.envs.traffic import sim
from benchmarkzoo.envs.traffic.grid.baseline import FixedTimePolicy, MaxPressurePolicy
from benchmarkzoo.envs.traffic.grid.env import TrafficGridEnv
from benchmarkzoo.envs.traffic.grid.vector_env import TrafficGridVectorEnv
from benchmarkzoo.envs.traffic.sumo import TrafficSimulationError
from benchmarkzoo.testing import check_parallel_env, check_parallel_vector_matches_single, check_pickle

SHORT_ID = "benchmarkzoo/TrafficGridShort-v0"
SHORT = {"generator_kwargs": {"duration": 300, "rate": 500}}


@pytest.fixture(scope="module")
def short_grid_id():
    """A short grid (100 s episodes) in benchmarkzoo's registry for this module only."""
    registration.register(
        SHORT_ID,
        kind="parallel",
        family="traffic",
        entry_point="benchmarkzoo.envs.traffic.grid.env:TrafficGridEnv",
        vector_entry_point="benchmarkzoo.envs.traffic.grid.vector_env:TrafficGridVectorEnv",
        max_episode_steps=20,
        kwargs=SHORT,
        description="test only",
    )
    yield SHORT_ID
    registration._ENVS.pop(SHORT_ID, None)


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True) if p.is_running() and p.status() != "zombie"}


def test_check_parallel_env():
    check_parallel_env(lambda: TrafficGridEnv(max_cycles=40, **SHORT), seed=0, steps=100, strict=True)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED], ids=lambda m: m.value)
def test_native_vector_equals_separate_parallel_envs(short_grid_id, mode):
    summary = check_parallel_vector_matches_single(short_grid_id, num_envs=2, steps=45, seed=0, autoreset_mode=mode)
    assert summary["episodes_ended"] >= 4


def test_pickle_mid_episode():
    env = TrafficGridEnv(max_cycles=30, **SHORT)
    try:
        check_pickle(env, seed=0, steps_before=5, steps_after=40, strict=True)
    finally:
        env.close()


def test_agents_are_the_signals_and_share_one_simulation():
    env = TrafficGridEnv(generator_kwargs={"rows": 2, "cols": 3, "duration": 300})
    try:
        observations, _ = env.reset(seed=0)
        assert env.agents == ["A0", "A1", "B0", "B1", "C0", "C1"] == list(env.layout.tls_ids)
        assert all(obs.shape == (11,) for obs in observations.values())
        # one agent's green is its own: switching A0 alone changes A0's phase only
        for _ in range(3):
            env.step({agent: int(agent == "A0") for agent in env.agents})
        assert env._measurement.phase.tolist() == [1, 0, 0, 0, 0, 0]
    finally:
        env.close()


def test_episode_metrics_at_the_end_and_max_pressure_beats_fixed_time():
    env = TrafficGridEnv()
    try:
        results = {}
        for name, policy in (("fixed-time", FixedTimePolicy()), ("max-pressure", MaxPressurePolicy())):
            _, infos = env.reset(seed=100000)
            assert "throughput" not in infos["A0"]
            while env.agents:
                _, _, _, truncations, infos = env.step(policy(env))
            assert all(truncations.values())
            info = infos["A0"]
            assert set(sim.METRIC_KEYS) <= set(info)
            assert all(infos[a][key] == info[key] for a in infos for key in sim.METRIC_KEYS)
            assert info["throughput"] == info["arrived"] > 500 and info["total_co2"] > 0
            results[name] = info
        assert results["max-pressure"]["mean_waiting_time"] < results["fixed-time"]["mean_waiting_time"], results
        assert results["max-pressure"]["throughput"] > results["fixed-time"]["throughput"], results
    finally:
        env.close()


def test_vector_baseline_and_close_leave_no_process_or_file():
    before = _children()
    env = TrafficGridVectorEnv(num_envs=2, max_cycles=10, **SHORT)
    scratch = env._scratch
    env.reset(seed=0)
    assert len(_children() - before) == 4  # one libsumo worker per world, and its fork running the simulation
    for _ in range(12):
        actions = MaxPressurePolicy()(env)
        assert actions.shape == (2, 4)
        env.step(actions)
    env.close()
    assert _children() <= before and not scratch.exists()


def test_traci_backend_gives_the_same_rollout():
    envs = [TrafficGridEnv(**SHORT), TrafficGridEnv(backend="traci", **SHORT)]
    before = _children()
    try:
        outs = []
        actions = np.random.default_rng(1).integers(0, 2, size=(30, 4))
        for env in envs:
            env.reset(seed=5)
            outs.append([env.step(dict(zip(env.agents, map(int, row)))) for row in actions])
        for (oa, ra, *_), (ob, rb, *_) in zip(*outs):
            assert ra == rb and all(np.array_equal(oa[a], ob[a]) for a in oa)
    finally:
        for env in envs:
            env.close()
    assert _children() <= before


def test_killed_worker_gives_clear_error_and_reset_recovers():
    env = TrafficGridEnv(in_process=False, **SHORT)
    try:
        env.reset(seed=0)
        os.kill(env._runner.pid, signal.SIGKILL)
        with pytest.raises(TrafficSimulationError, match="SIGKILL") as caught:
            env.step({agent: 0 for agent in env.agents})
        assert env.scenario.content_hash[:12] in str(caught.value) and "TrafficGrid-v0" in str(caught.value)
        with pytest.raises(ResetNeededError):
            env.step({agent: 0 for agent in env.possible_agents})
        env.reset(seed=0)
        env.step({agent: 0 for agent in env.agents})
    finally:
        env.close()
