"""Throughput of ``benchmarkzoo/MO-Treasure-v0`` beside MO-Gymnasium's ``deep-sea-treasure-v0``, in one run.

Both envs run the same configurations in the same process, one after the other, so the
ratio is meaningful even on a shared, noisy machine where the absolute figures are not:

* one env: ours through ``gym.make`` (passive checker, order enforcing, time limit) and
  through ``mo_gymnasium.make`` (no passive checker), DST through ``mo_gymnasium.make``;
* vector envs of n worlds: our native vector env (``gym.make_vec(id, n,
  vectorization_mode="vector_entry_point")``) and ``MOSyncVectorEnv`` over single envs, for
  both (Gymnasium's own ``SyncVectorEnv`` cannot hold vector rewards).

Method: random actions are drawn before the timed loop (a pool of pre-drawn rows is cycled
for the vector envs); resets are included (the single-env loop calls ``reset()`` when an
episode ends, vector envs autoreset); each configuration is timed ``--runs`` times (3) for
about ``--seconds`` each and the median is reported, in env-steps per second (a vector
step of n worlds counts n env-steps). Our env draws a new 11x11 seabed on every reset (the
registered default); DST replays its one fixed map.

Usage::

    python bench/bench_treasure.py            # full table, about a minute
    python bench/bench_treasure.py --quick    # smoke run, a few seconds
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
import mo_gymnasium
import numpy as np
from mo_gymnasium.wrappers.vector import MOSyncVectorEnv

import benchmarkzoo

OURS = "benchmarkzoo/MO-Treasure-v0"
DST = "deep-sea-treasure-v0"
NATIVE_SIZES = (1, 64, 1024, 4096)
QUICK_NATIVE_SIZES = (1, 64)
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
        "# MO-Treasure-v0 vs deep-sea-treasure-v0 throughput",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {cpu_model()}, {platform.system()} {platform.release()}",
        f"- python {platform.python_version()}, numpy {np.__version__}, gymnasium {gym.__version__}, "
        f"mo-gymnasium {mo_gymnasium.__version__}, benchmarkzoo {benchmarkzoo.__version__}",
        f"- command: {' '.join([os.path.basename(sys.executable), *sys.argv])}",
    ]
    return "\n".join(lines)


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


def measure(make: Callable[[], Any], num_envs: int | None, seconds: float, runs: int, seed: int = 0) -> float:
    """Median env-steps/s of ``runs`` timed runs of about ``seconds`` each.

    Args:
        make: builds the env (a single env when ``num_envs`` is None, else a vector env).
        num_envs: worlds per vector step, or ``None`` for a single env.
    """
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    if num_envs is None:
        n_actions = int(env.action_space.n)

        def run(count: int) -> float:
            return time_single(env, rng.integers(0, n_actions, size=count).tolist())

        per_step = 1
    else:
        pool = rng.integers(0, int(env.single_action_space.n), size=(POOL_ROWS, num_envs))

        def run(count: int) -> float:
            return time_vector(env, [pool[i % POOL_ROWS] for i in range(count)])

        per_step = num_envs

    count = 16  # calibrate: grow a warm-up run until it takes a measurable time, then size the runs
    while True:
        elapsed = run(count)
        if elapsed > 0.05 * seconds or count >= 1 << 24:
            break
        count *= 4
    count = max(16, int(count * seconds / elapsed))
    rates = [count * per_step / run(count) for _ in range(runs)]
    env.close()
    return statistics.median(rates)


def fmt_rate(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:.2f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f}k"
    return f"{rate:.0f}"


def mo_sync(env_id: str, n: int) -> Callable[[], Any]:
    return lambda: MOSyncVectorEnv([lambda: mo_gymnasium.make(env_id) for _ in range(n)])


def rows(quick: bool) -> list[tuple[str, Callable[[], Any], Callable[[], Any], int | None]]:
    """``(label, make ours, make DST, num_envs)`` for every row of the table."""
    table: list[tuple[str, Callable[[], Any], Callable[[], Any], int | None]] = [
        (
            "one env: ours `gym.make`, DST `mo_gymnasium.make`",
            lambda: gym.make(OURS),
            lambda: mo_gymnasium.make(DST),
            None,
        ),
        ("one env, both `mo_gymnasium.make`", lambda: mo_gymnasium.make(OURS), lambda: mo_gymnasium.make(DST), None),
        (
            "one env, ours on one fixed sea (`scenario_seed=0`, like DST)",
            lambda: mo_gymnasium.make(OURS, scenario_seed=0),
            lambda: mo_gymnasium.make(DST),
            None,
        ),
    ]
    for n in QUICK_NATIVE_SIZES if quick else NATIVE_SIZES:
        table.append((
            f"ours native vector vs DST MOSyncVectorEnv, n={n}",
            lambda n=n: gym.make_vec(OURS, n, vectorization_mode="vector_entry_point"),
            mo_sync(DST, n),
            n,
        ))
    table.append((f"MOSyncVectorEnv both, n={SYNC_SIZE}", mo_sync(OURS, SYNC_SIZE), mo_sync(DST, SYNC_SIZE), SYNC_SIZE))
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: short timings, n up to 64")
    parser.add_argument("--seconds", type=float, default=None, help="target seconds per timed run (1.0; quick 0.05)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per configuration; the median is reported")
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (0.05 if args.quick else 1.0)

    print(header())
    print(f"- method: median of {args.runs} runs of ~{seconds:g} s each; random actions drawn before the")
    print("  timed loop; resets included (single env: reset() on episode end; vector: autoreset)")
    print()
    print(f"| configuration | {OURS} (env-steps/s) | {DST} (env-steps/s) | ours / DST |")
    print("|---|---:|---:|---:|")
    for label, make_ours, make_dst, num_envs in rows(args.quick):
        ours = measure(make_ours, num_envs, seconds, args.runs)
        dst = measure(make_dst, num_envs, seconds, args.runs)
        print(f"| {label} | {fmt_rate(ours)} | {fmt_rate(dst)} | {ours / dst:.2f} |", flush=True)


if __name__ == "__main__":
    main()
