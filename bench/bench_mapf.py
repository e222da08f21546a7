"""Throughput of ``benchmarkzoo/MAPF-v0`` (ParallelEnv and native multi-world form) beside mpe2, in one run.

Configurations, in agent-steps per second (a step of ``B`` worlds of ``N`` live agents counts
``B * N``; agents that have arrived and left count nothing):

* the ParallelEnv (one world) at 8 agents on 16x16 and 64 agents on 32x32 (obstacle density 0.2,
  view radius 5, i.e. POGEMA's defaults);
* the native vector form (:class:`MapfVectorEnv`) at 256 worlds of 8 agents on 16x16 and 64 and
  256 worlds of 64 agents on 32x32;
* mpe2 ``simple_spread_v3`` (parallel API) at 3 and 8 agents, if ``mpe2`` is importable.

POGEMA cannot be installed beside benchmarkzoo (pogema 1.4.0 pins gymnasium 0.28.1 and an old
numpy and pydantic): its figures are quoted from ``/work/shared/peers.md`` (same kind of machine,
measured separately), not measured here, and the table says so.

Method: random actions drawn before the timed loop (a pool of pre-drawn rows or dicts is
cycled); resets included (the ParallelEnv loop calls ``reset()`` when ``env.agents`` is empty,
the vector form autoresets); each configuration timed ``--runs`` times (3) for about
``--seconds`` each; the median is reported. Random agents rarely arrive, so nearly all agents
stay live until the ``max_cycles`` truncation (128).

Usage::

    python bench/bench_mapf.py            # full table, about two minutes
    python bench/bench_mapf.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from typing import Any

import numpy as np
from _timing import (
    POOL_ROWS,
    add_timing_args,
    calibrate,
    fmt_rate,
    header,
    parallel_action_pool,
    target_seconds,
    time_parallel_agents,
    time_vector_agents,
)

from benchmarkzoo.envs.multiagent.mapf.env import MapfEnv
from benchmarkzoo.envs.multiagent.mapf.generator import ObstacleMapGenerator
from benchmarkzoo.envs.multiagent.mapf.vector_env import MapfVectorEnv

#: pogema 1.4.0 from /work/shared/peers.md: agent-steps/s (own venv, not measured in this run).
POGEMA_REFERENCE = {"64 agents, 32x32": 211e3, "256 agents, 64x64": 213e3}


def measure(make: Callable[[], Any], vector: bool, seconds: float, runs: int, seed: int = 0) -> float:
    """Median agent-steps/s of ``runs`` timed runs of about ``seconds`` each."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    if vector:
        pool = rng.integers(0, 5, size=(POOL_ROWS, env.num_envs, env.num_agents))

        def run(count: int) -> tuple[float, int]:
            return time_vector_agents(env, pool, count)
    else:
        dicts = parallel_action_pool(env, seed)

        def run(count: int) -> tuple[float, int]:
            return time_parallel_agents(env, dicts, count)

    count = calibrate(lambda n: run(n)[0], seconds, start=4, limit=1 << 22)
    rates = []
    for _ in range(runs):
        elapsed, agent_steps = run(count)
        rates.append(agent_steps / elapsed)
    env.close()
    return statistics.median(rates)


def mpe2_maker(n: int) -> Callable[[], Any] | None:
    try:
        from mpe2 import simple_spread_v3
    except ImportError:
        return None
    return lambda: simple_spread_v3.parallel_env(N=n, max_cycles=25, continuous_actions=False)


def main(argv: list[str] | None = None) -> None:
    import gymnasium
    import pettingzoo

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_timing_args(parser, "smoke run: short timings")
    args = parser.parse_args(argv)
    seconds = target_seconds(args)

    versions = {"numpy": np.__version__, "gymnasium": gymnasium.__version__, "pettingzoo": pettingzoo.__version__}
    print(header("MAPF-v0 throughput (agent-steps/s)", versions, date=False))
    print(
        f"- method: median of {args.runs} runs of ~{seconds:g} s; random actions drawn before the loop; resets included"
    )
    print()
    small = {"height": 16, "width": 16, "num_agents": 8, "density": 0.2}
    large = {"height": 32, "width": 32, "num_agents": 64, "density": 0.2}
    rows: list[tuple[str, Callable[[], Any] | None, bool]] = [
        ("MAPF-v0 ParallelEnv, 8 agents, 16x16", lambda: MapfEnv(generator=ObstacleMapGenerator(**small)), False),
        ("MAPF-v0 ParallelEnv, 64 agents, 32x32", lambda: MapfEnv(generator=ObstacleMapGenerator(**large)), False),
        (
            "MAPF-v0 native vector, 256 worlds x 8 agents, 16x16",
            lambda: MapfVectorEnv(256, generator=ObstacleMapGenerator(**small)),
            True,
        ),
        (
            "MAPF-v0 native vector, 64 worlds x 64 agents, 32x32",
            lambda: MapfVectorEnv(64, generator=ObstacleMapGenerator(**large)),
            True,
        ),
        (
            "MAPF-v0 native vector, 256 worlds x 64 agents, 32x32",
            lambda: MapfVectorEnv(256, generator=ObstacleMapGenerator(**large)),
            True,
        ),
        ("mpe2 simple_spread_v3 parallel, 3 agents", mpe2_maker(3), False),
        ("mpe2 simple_spread_v3 parallel, 8 agents", mpe2_maker(8), False),
    ]
    if args.quick:
        rows = [row for row in rows if "256 worlds x 64" not in row[0]]
    print("| configuration | agent-steps/s |")
    print("|---|---:|")
    for label, make, vector in rows:
        if make is None:
            print(f"| {label} | not installed (pip install mpe2) |", flush=True)
            continue
        print(f"| {label} | {fmt_rate(measure(make, vector, seconds, args.runs))} |", flush=True)
    for label, rate in POGEMA_REFERENCE.items():
        print(f"| pogema 1.4.0, {label} (quoted from peers.md, NOT measured in this run) | {fmt_rate(rate)} |")


if __name__ == "__main__":
    main()
