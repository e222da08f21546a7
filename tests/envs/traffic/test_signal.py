"""TrafficSignal-v0 on real SUMO: discovery, generation, determinism, backends, failures, traffic facts."""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import subprocess
import sys

import gymnasium as gym
import numpy as np
import psutil
import pytest
from gymnasium.vector import AutoresetMode

from benchmarkzoo.core.errors import ClosedEnvError, MissingExtraError, ResetNeededError
from benchmarkzoo.envs.traffic import sumo
from benchmarkzoo.envs.traffic.generators import GridGenerator, SingleIntersectionGenerator
from benchmarkzoo.envs.traffic.scenario import materialize, render_routes
from benchmarkzoo.envs.traffic.signal.baseline import FixedTimePolicy, MaxPressurePolicy
from benchmarkzoo.envs.traffic.signal.env import TrafficSignalEnv
from benchmarkzoo.envs.traffic.sumo import TrafficSimulationError
from benchmarkzoo.testing import check_env, check_generator, check_pickle, check_vector_matches_single

SHORT_ID = "benchmarkzoo/TrafficSignalShort-v0"


def rollout(env, actions):
    out = []
    for a in actions:
        obs, reward, _terminated, _truncated, info = env.step(int(a))
        out.append((obs.copy(), reward, info))
    return out


def assert_same_rollout(a, b):
    for t, ((oa, ra, ia), (ob, rb, ib)) in enumerate(zip(a, b)):
        assert np.array_equal(oa, ob) and ra == rb and ia == ib, f"step {t} differs"


# ---- SUMO discovery and network generation ---------------------------------------------------------


def test_sumo_found_without_sumo_home(monkeypatch):
    monkeypatch.delenv("SUMO_HOME", raising=False)
    home = sumo.sumo_home()
    assert (home / "bin" / "sumo").is_file() and sumo.binary("netgenerate").is_file()


def test_missing_sumo_names_the_traffic_extra(monkeypatch):
    monkeypatch.delenv("SUMO_HOME", raising=False)
    monkeypatch.setitem(sys.modules, "sumo", None)  # the eclipse-sumo wheel "not installed"
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(MissingExtraError, match=r"benchmarkzoo\[traffic\]"):
        sumo.sumo_home()


def test_netgenerate_is_deterministic_after_normalization(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHMARKZOO_CACHE", str(tmp_path))
    args = SingleIntersectionGenerator()._net_args()
    sumo._net_memo.clear()
    path, digest = sumo.generate_network(args)
    first = path.read_bytes()
    shutil.rmtree(path.parent)  # regenerated when missing
    sumo._net_memo.clear()
    path, again = sumo.generate_network(args)
    assert again == digest and path.read_bytes() == first
    assert b"generated on" not in first and b"<net " in first


# ---- scenarios -------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["uniform", "peak", "directional"])
def test_generator_contract(profile):
    hashes = check_generator(SingleIntersectionGenerator(duration=300, profile=profile), seeds=range(6))
    assert len(set(hashes.values())) == 6


def test_grid_generator_and_materialize():
    generator = GridGenerator(rows=2, cols=3, duration=300)
    scenario = generator.sample(0)
    assert len(scenario.origins) == 10 and scenario.num_vehicles > 0
    assert np.all(np.diff(scenario.depart) >= 0)
    net, routes = materialize(scenario)
    assert sumo.sha256(net.read_bytes()) == scenario.net_hash
    assert sumo.sha256(routes.read_bytes()) == scenario.routes_hash == sumo.sha256(render_routes(scenario))
    assert os.environ["BENCHMARKZOO_CACHE"] in str(routes)


def test_heavier_demand_has_more_vehicles():
    light = SingleIntersectionGenerator(rate=300).sample(0).num_vehicles
    heavy = SingleIntersectionGenerator(rate=900).sample(0).num_vehicles
    assert heavy > 2 * light


# ---- the env ---------------------------------------------------------------------------------------


def test_check_env(signal_env_id):
    check_env(lambda: gym.make(signal_env_id), seed=0, steps=400, strict=True)


def test_pickle_mid_episode(signal_env_id):
    env = gym.make(signal_env_id)
    try:
        check_pickle(env, seed=0, steps_before=20, steps_after=60, strict=True)
    finally:
        env.close()


def test_same_seed_same_trajectory_on_every_backend():
    actions = np.random.default_rng(0).integers(0, 2, size=80)
    envs = [TrafficSignalEnv(), TrafficSignalEnv(), TrafficSignalEnv(backend="traci")]
    try:
        rollouts = []
        for env in envs:
            env.reset(seed=7)
            rollouts.append(rollout(env, actions))
        assert type(envs[0]._runner).__name__ == "WorkerRunner"  # the default: a fresh fork per simulation
        assert_same_rollout(rollouts[0], rollouts[1])
        assert_same_rollout(rollouts[0], rollouts[2])
        envs[0].reset(seed=8)
        other = rollout(envs[0], actions)
        assert any(not np.array_equal(a[0], b[0]) for a, b in zip(other, rollouts[0]))
        envs[0].reset(seed=7)  # after another episode in the same worker: still the same
        assert_same_rollout(rollout(envs[0], actions), rollouts[0])
    finally:
        for env in envs:
            env.close()


_IN_PROCESS_ROLLOUT = """
import pickle, sys
import numpy as np
from benchmarkzoo.envs.traffic.signal.env import TrafficSignalEnv
env = TrafficSignalEnv(in_process=True)
env.reset(seed=7)
out = [env.step(int(a))[:2] for a in np.random.default_rng(0).integers(0, 2, size=80)]
assert type(env._runner).__name__ == "InProcessRunner"
env.close()
sys.stdout.buffer.write(pickle.dumps(out))
"""


def test_in_process_first_simulation_equals_the_worker():
    done = subprocess.run([sys.executable, "-c", _IN_PROCESS_ROLLOUT], capture_output=True, check=True)
    in_process = pickle.loads(done.stdout)
    env = TrafficSignalEnv()
    try:
        env.reset(seed=7)
        worker = [env.step(int(a))[:2] for a in np.random.default_rng(0).integers(0, 2, size=80)]
    finally:
        env.close()
    for (obs_a, reward_a), (obs_b, reward_b) in zip(in_process, worker, strict=True):
        np.testing.assert_array_equal(obs_a, obs_b)
        assert reward_a == reward_b


def test_second_in_process_simulation_in_a_process_warns():
    env = TrafficSignalEnv(in_process=True)
    try:
        env.reset(seed=0)
        with pytest.warns(RuntimeWarning, match="already simulated in this process"):
            env.reset(seed=0)
    finally:
        env.close()


def test_second_in_process_simulation_is_refused():
    first, second = TrafficSignalEnv(in_process=True), TrafficSignalEnv(in_process=True)
    try:
        first.reset(seed=0)
        with pytest.raises(TrafficSimulationError, match="one simulation per process"):
            second.reset(seed=0)
    finally:
        first.close()
        second.close()


def _sumo_children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.is_running() and p.status() != "zombie"]


@pytest.mark.parametrize("backend", ["libsumo-worker", "traci"])
def test_killed_sumo_gives_clear_error_and_reset_recovers(backend):
    env = TrafficSignalEnv(backend="traci") if backend == "traci" else TrafficSignalEnv(in_process=False)
    before = {p.pid for p in _sumo_children()}
    env.reset(seed=0)
    env.step(0)
    os.kill(env._runner.pid, signal.SIGKILL)
    with pytest.raises(TrafficSimulationError) as caught:
        for _ in range(3):
            env.step(1)
    message = str(caught.value)
    assert env.scenario.content_hash[:12] in message and "reset()" in message
    if backend != "traci":
        assert "SIGKILL" in message
    with pytest.raises(ResetNeededError):
        env.step(0)
    env.reset(seed=0)
    env.step(1)
    scratch = env._scratch
    env.close()
    assert scratch is not None and not scratch.exists()
    assert {p.pid for p in _sumo_children()} <= before


def test_close_leaves_no_process_or_file():
    before = {p.pid for p in _sumo_children()}
    envs = [TrafficSignalEnv(), TrafficSignalEnv(), TrafficSignalEnv(backend="traci")]
    for env in envs:
        env.reset(seed=1)
        env.step(1)
    scratches = [env._scratch for env in envs]
    # two libsumo workers with the fork running each one's simulation, and one sumo for TraCI
    assert len({p.pid for p in _sumo_children()} - before) == 5
    for env in envs:
        env.close()
    assert {p.pid for p in _sumo_children()} <= before
    assert not any(path.exists() for path in scratches)
    with pytest.raises(ClosedEnvError, match="Make a new env"):  # a closed env has let its simulator go
        envs[0].reset(seed=1)
    envs[0].close()  # closing twice is harmless


# ---- the native vector env ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def short_env_id(signal_env_id):
    if SHORT_ID not in gym.registry:
        gym.register(
            id=SHORT_ID,
            entry_point="benchmarkzoo.envs.traffic.signal.env:TrafficSignalEnv",
            vector_entry_point="benchmarkzoo.envs.traffic.signal.vector_env:TrafficSignalVectorEnv",
            max_episode_steps=25,
            kwargs={"generator_kwargs": {"duration": 200, "rate": 600}},
        )
    return SHORT_ID


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=[m.value for m in AutoresetMode])
def test_native_vector_matches_sync(short_env_id, mode):
    summary = check_vector_matches_single(short_env_id, num_envs=3, steps=60, seed=0, autoreset_mode=mode)
    assert summary["episodes_ended"] > 0


# ---- traffic facts and baselines -------------------------------------------------------------------


def test_constant_green_empties_its_queue_while_the_crossing_queue_grows():
    env = TrafficSignalEnv(generator_kwargs={"rate": 600})
    try:
        env.reset(seed=3)
        layout = env.layout
        served = layout.phase_in[0][0] > 0  # (L_in,) lanes with a green movement in phase 0
        lanes = layout.incoming[0]
        for _ in range(24):  # two minutes of phase 1: a queue builds on phase 0's approaches
            env.step(1)
        queue_0 = env._measurement.halting[lanes][served].sum()
        crossing_0 = env._measurement.halting[lanes][~served].sum()
        for _ in range(24):  # then two minutes of constant phase 0
            env.step(0)
        queue_1 = env._measurement.halting[lanes][served].sum()
        crossing_1 = env._measurement.halting[lanes][~served].sum()
        assert queue_0 >= 8 and queue_1 <= 2, (queue_0, queue_1)
        assert crossing_1 >= crossing_0 + 8, (crossing_0, crossing_1)
    finally:
        env.close()


def test_max_pressure_beats_fixed_time_on_test_seeds():
    env = TrafficSignalEnv()
    try:
        means = {}
        for name, policy in (("fixed-time", FixedTimePolicy()), ("max-pressure", MaxPressurePolicy())):
            waits = []
            for seed in (100000, 100001):
                env.reset(seed=seed)
                for _ in range(360):
                    *_, info = env.step(policy(env))
                waits.append(info["mean_waiting_time"])
            means[name] = float(np.mean(waits))
        assert means["max-pressure"] < means["fixed-time"], means
    finally:
        env.close()
