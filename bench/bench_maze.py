"""Throughput of ``benchmarkzoo/Maze-v0`` beside Gymnasium's ``CartPole-v1``, measured in one run.

Both envs run the same configurations in the same process, one after the other, so the
ratio is meaningful even on a shared, noisy machine where the absolute figures are not:

* one env through ``gym.make`` (wrappers included: passive checker, order enforcing, time limit);
* the native vector env (``gym.make_vec(id, n, vectorization_mode="vector_entry_point")``);
* ``SyncVectorEnv`` over ``gym.make`` envs (``vectorization_mode="sync"``).

Method: random actions are drawn before the timed loop (a pool of pre-drawn rows is cycled
for the vector envs, so memory stays bounded at n=4096); resets are included (the single-env
loop calls ``reset()`` when an episode ends, vector envs autoreset); each configuration is
timed ``--runs`` times (3) for about ``--seconds`` each and the median is reported, in
env-steps per second (a vector step of n worlds counts n env-steps).

Usage::

    python bench/bench_maze.py            # full table, about two minutes
    python bench/bench_maze.py --quick    # smoke run, a few seconds
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import benchmarkzoo

MAZE = "benchmarkzoo/Maze-v0"
CARTPOLE = "CartPole-v1"
NATIVE_SIZES = (1, 64, 1024, 4096)
QUICK_NATIVE_SIZES = (1, 64, 1024)
SYNC_SIZE = 64
POOL_ROWS = 256  # pre-drawn action rows cycled by vector loops


def cpu_model() -> str:
    """The CPU model name (Linux ``/proc/cpuinfo``, else ``platform.processor()``) and core count."""
    name = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{name or platform.processor() or 'unknown'} ({os.cpu_count()} logical cores)"


def header() -> str:
    lines = [
        "# Maze-v0 vs CartPole-v1 throughput",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {cpu_model()}, {platform.system()} {platform.release()}",
        f"- python {platform.python_version()}, numpy {np.__version__}, gymnasium {gym.__version__}, "
        f"benchmarkzoo {benchmarkzoo.__version__}",
        f"- OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}",
        f"- command: {' '.join([os.path.basename(sys.executable), *sys.argv])}",
    ]
    return "\n".join(lines)


# ---- timed loops ------------------------------------------------------------------------------


def time_single(env: gym.Env, actions: list[int]) -> float:
    """Seconds to take ``actions`` in ``env``, resetting whenever an episode ends."""
    step, reset = env.step, env.reset
    start = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = step(action)
        if terminated or truncated:
            reset()
    return time.perf_counter() - start


def time_vector(env: Any, rows: list[np.ndarray]) -> float:
    """Seconds to step the vector ``env`` once per row of ``rows`` (autoreset does the resets)."""
    step = env.step
    start = time.perf_counter()
    for row in rows:
        step(row)
    return time.perf_counter() - start


def measure(
    make: Callable[[], Any], num_envs: int | None, seconds: float, runs: int, seed: int = 0
) -> float:
    """Median env-steps/s of ``runs`` timed runs of about ``seconds`` each.

    Args:
        make: builds the env (a single env when ``num_envs`` is None, else a vector env).
        num_envs: worlds per vector step, or ``None`` for a single env.
    """
    env = make()
    rng = np.random.default_rng(seed)
    if num_envs is None:
        n_actions = int(env.action_space.n)
        env.reset(seed=seed)

        def draw(count: int) -> list[int]:
            return rng.integers(0, n_actions, size=count).tolist()

        def run(count: int) -> float:
            return time_single(env, draw(count))

        per_step = 1
    else:
        n_actions = int(env.single_action_space.n)
        env.reset(seed=seed)
        pool = rng.integers(0, n_actions, size=(POOL_ROWS, num_envs))

        def run(count: int) -> float:
            rows = [pool[i % POOL_ROWS] for i in range(count)]
            return time_vector(env, rows)

        per_step = num_envs

    # Calibrate: grow a warm-up run until it takes a measurable time, then size the runs.
    count = 16
    while True:
        elapsed = run(count)
        if elapsed > 0.05 * seconds or count >= 1 << 24:
            break
        count *= 4
    count = max(16, int(count * seconds / elapsed))
    rates = [count * per_step / run(count) for _ in range(runs)]
    env.close()
    return statistics.median(rates)


# ---- the table ----------------------------------------------------------------------------------


def fmt_rate(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:.2f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f}k"
    return f"{rate:.0f}"


def configurations(quick: bool) -> list[tuple[str, Callable[[str], Callable[[], Any]], int | None]]:
    """``(label, env_id -> maker, num_envs)`` for every row of the table."""
    rows: list[tuple[str, Callable[[str], Callable[[], Any]], int | None]] = [
        ("one env, `gym.make`", lambda env_id: lambda: gym.make(env_id), None),
    ]
    for n in QUICK_NATIVE_SIZES if quick else NATIVE_SIZES:
        rows.append((
            f"native vector, n={n}",
            lambda env_id, n=n: lambda: gym.make_vec(env_id, n, vectorization_mode="vector_entry_point"),
            n,
        ))
    rows.append((
        f"SyncVectorEnv, n={SYNC_SIZE}",
        lambda env_id: lambda: gym.make_vec(env_id, SYNC_SIZE, vectorization_mode="sync"),
        SYNC_SIZE,
    ))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: short timings, n up to 1024")
    parser.add_argument("--seconds", type=float, default=None, help="target seconds per timed run (1.0; quick 0.05)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per configuration; the median is reported")
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (0.05 if args.quick else 1.0)

    print(header())
    print(f"- method: median of {args.runs} runs of ~{seconds:g} s each; random actions drawn before the")
    print("  timed loop; resets included (single env: reset() on episode end; vector: autoreset)")
    print()
    print(f"| configuration | {MAZE} (env-steps/s) | {CARTPOLE} (env-steps/s) | Maze / CartPole |")
    print("|---|---:|---:|---:|")
    for label, maker, num_envs in configurations(args.quick):
        maze = measure(maker(MAZE), num_envs, seconds, args.runs)
        cartpole = measure(maker(CARTPOLE), num_envs, seconds, args.runs)
        print(f"| {label} | {fmt_rate(maze)} | {fmt_rate(cartpole)} | {maze / cartpole:.2f} |", flush=True)


if __name__ == "__main__":
    main()
