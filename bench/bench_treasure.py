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
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import mo_gymnasium
import numpy as np
from _timing import add_timing_args, fmt_rate, header, measure, method_lines, target_seconds
from mo_gymnasium.wrappers.vector import MOSyncVectorEnv

import benchmarkzoo

OURS = "benchmarkzoo/MO-Treasure-v0"
DST = "deep-sea-treasure-v0"
NATIVE_SIZES = (1, 64, 1024, 4096)
QUICK_NATIVE_SIZES = (1, 64)
SYNC_SIZE = 64


def treasure_header() -> str:
    versions = {
        "numpy": np.__version__,
        "gymnasium": gym.__version__,
        "mo-gymnasium": mo_gymnasium.__version__,
        "benchmarkzoo": benchmarkzoo.__version__,
    }
    return header("MO-Treasure-v0 vs deep-sea-treasure-v0 throughput", versions)


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
        table.append(
            (
                f"ours native vector vs DST MOSyncVectorEnv, n={n}",
                lambda n=n: gym.make_vec(OURS, n, vectorization_mode="vector_entry_point"),
                mo_sync(DST, n),
                n,
            )
        )
    table.append((f"MOSyncVectorEnv both, n={SYNC_SIZE}", mo_sync(OURS, SYNC_SIZE), mo_sync(DST, SYNC_SIZE), SYNC_SIZE))
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_timing_args(parser, "smoke run: short timings, n up to 64")
    args = parser.parse_args(argv)
    seconds = target_seconds(args)

    print(treasure_header())
    print(method_lines(args.runs, seconds))
    print()
    print(f"| configuration | {OURS} (env-steps/s) | {DST} (env-steps/s) | ours / DST |")
    print("|---|---:|---:|---:|")
    for label, make_ours, make_dst, num_envs in rows(args.quick):
        ours = measure(make_ours, num_envs, seconds, args.runs)
        dst = measure(make_dst, num_envs, seconds, args.runs)
        print(f"| {label} | {fmt_rate(ours)} | {fmt_rate(dst)} | {ours / dst:.2f} |", flush=True)


if __name__ == "__main__":
    main()
