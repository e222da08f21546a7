"""A simulator process killed mid-evaluation: its episodes replay to the undisturbed outcomes, or the task fails.

The kills are real: SIGKILL sent by PID to the SUMO simulation (the fork of a libsumo worker,
found under this process in ``/proc``) or to a Panda worker process. A policy sends them from
inside ``act`` at a chosen call, so each kill lands at the same step of every run.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import signal
from pathlib import Path

import numpy as np
import pytest

from benchmarkzoo import registration
from benchmarkzoo.core.errors import SimulatorError
from benchmarkzoo.evaluation.policies import RandomPolicy
from benchmarkzoo.evaluation.runner import SIMULATOR_RETRIES, TaskFailedError, plan_episodes, run_episodes
from benchmarkzoo.evaluation.suites import Task
from benchmarkzoo.scenario_sets import load_set

SUMO_WORKER = "benchmarkzoo.envs.traffic.worker"


def _children(pid: int) -> list[int]:
    found = []
    for thread in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{thread}/children") as listing:
            found += [int(child) for child in listing.read().split()]
    return sorted(found)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except FileNotFoundError:  # it exited meanwhile
        return ""


def sumo_simulations() -> list[int]:
    """PIDs of the processes running this process's SUMO simulations: each libsumo worker's fork."""
    workers = [pid for pid in _children(os.getpid()) if SUMO_WORKER in _cmdline(pid)]
    return sorted(fork for worker in workers for fork in _children(worker))


def panda_workers() -> list[int]:
    return sorted(process.pid for process in multiprocessing.active_children())


class KillingRandom(RandomPolicy):
    """The random policy that, at its ``at``-th ``act`` on each fresh env, SIGKILLs a simulator process.

    ``victims`` lists the candidate PIDs; the first is killed. At most ``times`` kills in all.
    """

    name = "random"

    def __init__(self, victims, at: int, times: int):
        super().__init__()
        self.victims, self.at, self.times = victims, at, times
        self.calls = 0
        self.killed: list[int] = []

    def setup(self, env, spec):
        super().setup(env, spec)
        self.calls = 0

    def act(self, observations, env):
        self.calls += 1
        if self.calls == self.at and len(self.killed) < self.times:
            pids = self.victims()
            assert pids, "no simulator process to kill"
            os.kill(pids[0], signal.SIGKILL)
            self.killed.append(pids[0])
        return super().act(observations, env)


def _task(env: str, scenario_set: str, episodes: int, **env_kwargs) -> tuple[Task, object, list]:
    task = Task(id="crash", env=env, scenario_set=scenario_set, split="test", episodes=episodes, env_kwargs=env_kwargs)
    split = load_set(scenario_set).split("test")
    return task, split, plan_episodes(task, 0, list(split.seeds))


def _raw(outcomes) -> list[dict]:
    return [{k: v for k, v in dataclasses.asdict(o).items() if k != "simulator_restarts"} for o in outcomes]


@pytest.fixture(scope="module")
def signal_task():
    pytest.importorskip("libsumo", reason="needs the traffic extra: pip install 'benchmarkzoo[traffic]'")
    task, split, plans = _task("benchmarkzoo/TrafficSignal-v0", "traffic/single-intersection", 3, max_episode_steps=12)
    return task, split, plans, run_episodes(task, split, plans, RandomPolicy(), "native", 2)


def test_killed_sumo_is_restarted_and_outcomes_are_the_undisturbed_ones(signal_task):
    task, split, plans, reference = signal_task
    policy = KillingRandom(sumo_simulations, at=5, times=1)
    outcomes = run_episodes(task, split, plans, policy, "native", 2)
    assert len(policy.killed) == 1
    assert _raw(outcomes) == _raw(reference)
    # Episodes 0 and 1 were running (two worlds) when world 0's SUMO died; both were replayed, episode 2 was not.
    assert [o.simulator_restarts for o in outcomes] == [1, 1, 0]
    assert all(o.simulator_restarts == 0 for o in reference)
    assert not sumo_simulations()  # every worker, the dead one's included, is gone


def test_sumo_dying_on_every_try_fails_the_task_naming_sumo(signal_task):
    task, split, plans, _ = signal_task
    policy = KillingRandom(sumo_simulations, at=3, times=100)
    finished = []
    with pytest.raises(TaskFailedError) as caught:  # one world: one SUMO worker started per try
        run_episodes(task, split, plans, policy, "native", 1, lambda outcome, steps: finished.append(outcome))
    message = str(caught.value)
    assert len(policy.killed) == 1 + SIMULATOR_RETRIES
    assert "SUMO worker process" in message and "SIGKILL" in message and "step 3" in message
    assert "TrafficSignal-v0" in message and f"{1 + SIMULATOR_RETRIES} tries of episode 0" in message
    assert "policy" not in message.lower()
    assert isinstance(caught.value.__cause__, SimulatorError)
    assert not finished


def test_policy_errors_stay_policy_errors(signal_task):
    task, split, plans, _ = signal_task

    class Broken(RandomPolicy):
        name = "broken"

        def act(self, observations, env):
            raise SimulatorError("not a simulator at all")  # a policy's own error, whatever its type

    with pytest.raises(TaskFailedError, match="policy 'broken' raised SimulatorError"):
        run_episodes(task, split, plans, Broken(), "native", 1)


class KillOnce(KillingRandom):
    """``KillingRandom`` as a ``file.py:Class`` policy for ``evaluate``: one kill, at the fifth ``act``."""

    def __init__(self):
        super().__init__(sumo_simulations, at=5, times=1)


def test_evaluate_records_simulator_restarts_in_provenance(signal_task):
    from benchmarkzoo.evaluation.protocol import evaluate
    from benchmarkzoo.evaluation.suites import Suite

    task, _, _, reference = signal_task
    suite = Suite(name="crash-v0", description="one SUMO task", tasks=(task,))
    results = evaluate(suite, f"{__file__}:KillOnce", num_envs=2)
    assert results.tasks[0].status == "ok"
    assert [e.length for e in results.tasks[0].episodes] == [o.length for o in reference]
    assert results.provenance.simulator_restarts == 2  # both running episodes were replayed


def test_killed_sumo_of_a_multiagent_task_is_restarted():
    pytest.importorskip("libsumo", reason="needs the traffic extra: pip install 'benchmarkzoo[traffic]'")
    task, split, plans = _task("benchmarkzoo/TrafficGrid-v0", "traffic/grid", 2, max_cycles=6)
    reference = run_episodes(task, split, plans, RandomPolicy(), "native", 1)
    policy = KillingRandom(sumo_simulations, at=3, times=1)
    outcomes = run_episodes(task, split, plans, policy, "native", 1)
    assert len(policy.killed) == 1
    assert _raw(outcomes) == _raw(reference)
    assert [o.simulator_restarts for o in outcomes] == [1, 0]


def test_killed_panda_worker_is_restarted_and_outcomes_are_the_undisturbed_ones():
    pytest.importorskip("pybullet", reason="needs the robotics extra: pip install 'benchmarkzoo[robotics]'")
    # PyBullet DIRECT clients live in this process (nothing to kill apart from it): the worker-process form.
    task, split, plans = _task(
        "benchmarkzoo/PandaReach-Dense-v0", "robotics/panda-reach", 4, max_episode_steps=8, num_workers=2
    )
    reference = run_episodes(task, split, plans, RandomPolicy(), "native", 2)
    policy = KillingRandom(panda_workers, at=3, times=1)
    outcomes = run_episodes(task, split, plans, policy, "native", 2)
    assert len(policy.killed) == 1
    assert _raw(outcomes) == _raw(reference)
    assert [o.simulator_restarts for o in outcomes] == [1, 1, 0, 0]
    assert not panda_workers()

    task, split, plans = _task(
        "benchmarkzoo/PandaReach-Dense-v0", "robotics/panda-reach", 4, max_episode_steps=8, num_workers=1
    )
    policy = KillingRandom(panda_workers, at=2, times=100)
    with pytest.raises(TaskFailedError) as caught:  # one world in one worker, killed on every try
        run_episodes(task, split, plans, policy, "native", 1)
    message = str(caught.value)
    assert "PyBullet worker process" in message and "SIGKILL" in message and "PandaReach-Dense-v0" in message
    assert "during step 2" in message and "policy" not in message.lower()
    assert len(policy.killed) == 1 + SIMULATOR_RETRIES


def test_killed_sumo_worker_in_an_env_raises_simulator_error_naming_step_and_env():
    pytest.importorskip("libsumo", reason="needs the traffic extra: pip install 'benchmarkzoo[traffic]'")
    env = registration.make_vec("benchmarkzoo/TrafficSignal-v0", 2, vectorization_mode="vector_entry_point")
    try:
        env.reset(seed=0)
        env.step(np.zeros(2, dtype=np.int64))
        victim = env.unwrapped._runners[1].pid
        os.kill(victim, signal.SIGKILL)
        with pytest.raises(SimulatorError) as caught:
            env.step(np.zeros(2, dtype=np.int64))
        message = str(caught.value)
        assert f"SUMO worker process {victim} died (killed by SIGKILL) during step 2" in message
        assert "TrafficSignal-v0 world 1" in message
        env.reset(seed=0)  # a fresh simulation in a fresh worker
        env.step(np.zeros(2, dtype=np.int64))
    finally:
        env.close()


def sumo_processes() -> list[int]:
    """PIDs of the ``sumo`` processes this process drives over TraCI."""
    return [pid for pid in _children(os.getpid()) if "--remote-port" in _cmdline(pid)]


def test_killed_traci_sumo_is_restarted_on_the_sync_backend():
    pytest.importorskip("traci", reason="needs the traffic extra: pip install 'benchmarkzoo[traffic]'")
    task, split, plans = _task(
        "benchmarkzoo/TrafficSignal-v0", "traffic/single-intersection", 2, max_episode_steps=8, backend="traci"
    )
    reference = run_episodes(task, split, plans, RandomPolicy(), "sync", 1)
    policy = KillingRandom(sumo_processes, at=4, times=1)
    outcomes = run_episodes(task, split, plans, policy, "sync", 1)
    assert len(policy.killed) == 1
    assert _raw(outcomes) == _raw(reference)
    assert [o.simulator_restarts for o in outcomes] == [1, 0]
    assert not sumo_processes()


def test_closed_simulator_clients_refuse_clearly():
    """A closed client names itself and says what to do (not AttributeError, not "Not connected to physics server")."""
    pytest.importorskip("libsumo", reason="needs the traffic extra: pip install 'benchmarkzoo[traffic]'")
    pytest.importorskip("pybullet", reason="needs the robotics extra: pip install 'benchmarkzoo[robotics]'")
    from gymnasium.error import ClosedEnvironmentError

    from benchmarkzoo.core.errors import ResetNeededError
    from benchmarkzoo.envs.robotics.panda.sim import PandaWorld, Params
    from benchmarkzoo.envs.robotics.panda.workers import WorkerPool
    from benchmarkzoo.envs.traffic.runner import WorkerRunner

    runner = WorkerRunner(Path("/nonexistent"))
    runner.label = "benchmarkzoo/TrafficSignal-v0 world 0"
    with pytest.raises(ResetNeededError, match="TrafficSignal-v0 world 0: no SUMO simulation is running"):
        runner.send_step(np.zeros(1, dtype=np.int64))
    with pytest.raises(ResetNeededError, match="the env was closed"):
        runner.receive()

    world = PandaWorld(Params())
    world.close()
    with pytest.raises(ClosedEnvironmentError, match="disconnected by close"):
        world.act(np.zeros(4, dtype=np.float32))
    pool = WorkerPool(Params(), 1, 1, label="benchmarkzoo/PandaReach-v0")
    pool.close()
    with pytest.raises(ClosedEnvironmentError, match="PandaReach-v0: its Panda worker processes are closed"):
        pool.step(np.zeros((1, 4), dtype=np.float32))
