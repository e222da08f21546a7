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
import os
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from _timing import add_timing_args, fmt_rate, header, measure, method_lines, target_seconds

import benchmarkzoo

MAZE = "benchmarkzoo/Maze-v0"
CARTPOLE = "CartPole-v1"
NATIVE_SIZES = (1, 64, 1024, 4096)
QUICK_NATIVE_SIZES = (1, 64, 1024)
SYNC_SIZE = 64


def maze_header() -> str:
    versions = {"numpy": np.__version__, "gymnasium": gym.__version__, "benchmarkzoo": benchmarkzoo.__version__}
    openblas = f"- OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}"
    return header("Maze-v0 vs CartPole-v1 throughput", versions, openblas)


# ---- the table ----------------------------------------------------------------------------------


def configurations(quick: bool) -> list[tuple[str, Callable[[str], Callable[[], Any]], int | None]]:
    """``(label, env_id -> maker, num_envs)`` for every row of the table."""
    rows: list[tuple[str, Callable[[str], Callable[[], Any]], int | None]] = [
        ("one env, `gym.make`", lambda env_id: lambda: gym.make(env_id), None),
    ]
    for n in QUICK_NATIVE_SIZES if quick else NATIVE_SIZES:
        rows.append(
            (
                f"native vector, n={n}",
                lambda env_id, n=n: lambda: gym.make_vec(env_id, n, vectorization_mode="vector_entry_point"),
                n,
            )
        )
    rows.append(
        (
            f"SyncVectorEnv, n={SYNC_SIZE}",
            lambda env_id: lambda: gym.make_vec(env_id, SYNC_SIZE, vectorization_mode="sync"),
            SYNC_SIZE,
        )
    )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_timing_args(parser, "smoke run: short timings, n up to 1024")
    args = parser.parse_args(argv)
    seconds = target_seconds(args)

    print(maze_header())
    print(method_lines(args.runs, seconds))
    print()
    print(f"| configuration | {MAZE} (env-steps/s) | {CARTPOLE} (env-steps/s) | Maze / CartPole |")
    print("|---|---:|---:|---:|")
    for label, maker, num_envs in configurations(args.quick):
        maze = measure(maker(MAZE), num_envs, seconds, args.runs)
        cartpole = measure(maker(CARTPOLE), num_envs, seconds, args.runs)
        print(f"| {label} | {fmt_rate(maze)} | {fmt_rate(cartpole)} | {maze / cartpole:.2f} |", flush=True)


if __name__ == "__main__":
    main()
