"""Throughput of ``benchmarkzoo/Panda{Reach,Push,PickAndPlace}-v0`` beside panda-gym's ``Panda*-v3``.

Both run the real PyBullet engine in DIRECT mode, in the same process, one after the other, so
the ratio is meaningful on a shared, noisy machine where the absolute figures are not. Rows:

* one env through ``gym.make`` (wrappers included), ours and panda-gym's, and the ratio;
* ours, native vector env of 8 worlds (one PyBullet client per world) in this process, and
  spread over 1 and 2 worker processes (``num_workers``; the issue asks for the scaling from 1
  to 2 processes on a 2-core machine);
* ours, ``AsyncVectorEnv`` of 2 envs in 2 processes, for comparison.

Method: uniform random actions are drawn before the timed loop; resets are included (the
single-env loop resets when an episode ends, vector envs autoreset). Random actions rarely
succeed, so episodes mostly run to the 50-step limit in both packages. Each configuration is
timed ``--runs`` times (3) for about ``--seconds`` each; the median is reported in env-steps per
second (a vector step of n worlds counts n env-steps).

Where panda-gym's time goes and ours does not (profiled with cProfile): panda-gym runs 20
physics steps of 2 ms per env step, each a separate ``stepSimulation`` call from Python, and
reads the state joint by joint; ours runs 4 steps of 10 ms (5 of 8 ms with a free gripper)
inside one ``stepSimulation`` call (motor gains rescaled so the arm tracks the same targets),
reads the end effector, fingers and cube with four calls, and resets with ``restoreState``
instead of per-joint resets.

Usage::

    python bench/bench_panda.py            # full table, about four minutes
    python bench/bench_panda.py --quick    # smoke run, a few seconds

panda-gym (``pip install panda-gym==3.0.7 --no-deps``) is optional: without it its rows are skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import statistics
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import benchmarkzoo

TASKS = (
    ("Reach", "benchmarkzoo/PandaReach-v0", "PandaReach-v3"),
    ("Push", "benchmarkzoo/PandaPush-v0", "PandaPush-v3"),
    ("PickAndPlace", "benchmarkzoo/PandaPickAndPlace-v0", "PandaPickAndPlace-v3"),
)
NUM_WORLDS = 8
POOL = 1000  # pre-drawn actions, cycled


def time_single(make: Callable[[], gym.Env], seconds: float) -> float:
    """env-steps/s of one env for about ``seconds``, resets included."""
    env = make()
    actions = np.random.default_rng(0).uniform(-1, 1, (POOL, *env.action_space.shape)).astype(np.float32)
    env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while True:
        for action in actions[:100]:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        steps += 100
        actions = np.roll(actions, 100, axis=0)
        if time.perf_counter() - start >= seconds:
            break
    rate = steps / (time.perf_counter() - start)
    env.close()
    return rate


def time_vector(env: gym.vector.VectorEnv, seconds: float) -> float:
    shape = env.action_space.shape
    actions = np.random.default_rng(0).uniform(-1, 1, (64, *shape)).astype(np.float32)
    env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for action in actions:
            env.step(action)
        steps += len(actions) * env.num_envs
    rate = steps / (time.perf_counter() - start)
    env.close()
    return rate


def median(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs, for a smoke test")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args()
    runs, seconds = (1, 1.0) if args.quick else (args.runs, args.seconds)
    has_peer = importlib.util.find_spec("panda_gym") is not None
    if has_peer:
        import panda_gym  # noqa: F401  (registers the PandaXxx-v3 ids)

        peer_version = importlib.metadata.version("panda-gym")
    import pybullet  # noqa: F401

    print(
        f"# Panda throughput, env-steps/s (median of {runs} x {seconds:.0f} s), {platform.python_version()}, "
        f"{platform.machine()}, {__import__('os').cpu_count()} cores"
    )
    print(
        f"benchmarkzoo {benchmarkzoo.__version__}, pybullet {importlib.metadata.version('pybullet')}, "
        f"panda-gym {peer_version if has_peer else 'not installed'}"
    )
    print()
    print(
        f"| task | ours, one env | panda-gym, one env | ratio | ours native n={NUM_WORLDS}, in process "
        "| same, 1 worker process | same, 2 worker processes | ours async n=2 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    registered = {spec.id for spec in benchmarkzoo.registration.list_envs()}
    for task, ours_id, peer_id in TASKS:
        if ours_id not in registered:
            print(f"| {task} | {ours_id} not registered | | | | | | |")
            continue
        ours = median(runs, lambda i=ours_id: time_single(lambda: gym.make(i), seconds))
        peer = median(runs, lambda i=peer_id: time_single(lambda: gym.make(i), seconds)) if has_peer else float("nan")
        native = [
            median(
                runs,
                lambda i=ours_id, w=w: time_vector(
                    gym.make_vec(i, num_envs=NUM_WORLDS, vectorization_mode="vector_entry_point", num_workers=w),
                    seconds,
                ),
            )
            for w in (None, 1, 2)  # in this process, then 1 and 2 worker processes
        ]
        async_rate = median(
            runs, lambda i=ours_id: time_vector(gym.make_vec(i, num_envs=2, vectorization_mode="async"), seconds)
        )
        print(
            f"| {task} | {ours:,.0f} | {peer:,.0f} | {ours / peer:.2f}x | {native[0]:,.0f} | {native[1]:,.0f} | "
            f"{native[2]:,.0f} ({native[2] / native[1]:.2f}x) | {async_rate:,.0f} |"
        )


if __name__ == "__main__":
    main()
