"""Throughput of ``benchmarkzoo/MAPF-v0`` (ParallelEnv and native multi-world form) beside POGEMA, in one run.

Configurations, in agent-steps per second (a step of ``B`` worlds of ``N`` live agents counts
``B * N``; agents that have arrived and left count nothing), obstacle density 0.2 and view
radius 5 (POGEMA's ``obs_radius`` default) everywhere, episodes of 128 steps:

* the ParallelEnv (one world) at 8 agents on 16x16, 64 agents on 32x32 and 256 agents on 64x64;
* the native vector form (:class:`MapfVectorEnv`) at 256 worlds of 8 agents on 16x16, 64 and
  256 worlds of 64 agents on 32x32, and 64 worlds of 256 agents on 64x64;
* the peer, POGEMA 1.4.0 (``pogema_v0``, ``on_target="finish"``, ``collision_system="priority"``,
  a fresh random map every episode, as ours) at 64 agents on 32x32 and 256 agents on 64x64.
  pogema pins gymnasium 0.28.1 and pydantic 1.x, so it runs in its own virtual environment,
  created by this script on first use under ``~/.cache/benchmarkzoo/bench-pogema``
  (``--pogema-python`` names another interpreter; ``--no-peer`` skips it). Its live agents are
  counted as ours: agents that reached their target stop counting;
* mpe2 ``simple_spread_v3`` (parallel API) at 3 and 8 agents, if ``mpe2`` is importable.

The last column is the ratio to POGEMA measured in this run with the same map size and agent
count. Method: random actions drawn before the timed loop (a pool of pre-drawn rows, dicts or
lists is cycled); resets included (the ParallelEnv and POGEMA loops reset when the episode ends,
the vector form autoresets); each configuration timed ``--runs`` times (3) for about
``--seconds`` each; the median is reported. Random agents rarely arrive, so nearly all agents
stay live until the truncation at 128 steps. The header gives the machine's load average at the
start and the end of the run (other work on a shared machine slows everything measured).

Usage::

    python bench/bench_mapf.py            # full table, about three minutes (plus the POGEMA venv, once)
    python bench/bench_mapf.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Callable
from typing import Any

import numpy as np
from _peer_venv import median_runs, peer_python
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

POGEMA_VERSION = "1.4.0"

#: Run inside the pogema venv: argv num_agents, size, density, seconds; prints agent- and env-steps/s.
POGEMA_SNIPPET = r"""
import json, sys, time
import numpy as np
from pogema import GridConfig, pogema_v0
num_agents, size, density, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
config = GridConfig(num_agents=num_agents, size=size, density=density, obs_radius=5, max_episode_steps=128,
                    on_target="finish", collision_system="priority", seed=None)
env = pogema_v0(grid_config=config)
rng = np.random.default_rng(0)
pool = [rng.integers(0, 5, size=num_agents).tolist() for _ in range(256)]
env.reset()
live = num_agents
agent_steps = steps = k = 0
start = time.perf_counter()
while True:
    for _ in range(16):
        agent_steps += live
        _, _, terminated, truncated, _ = env.step(pool[k % 256])
        k += 1
        steps += 1
        if all(terminated) or all(truncated):
            env.reset()
            live = num_agents
        else:
            live = num_agents - sum(terminated)
    elapsed = time.perf_counter() - start
    if elapsed >= seconds:
        break
print(json.dumps({"agent_steps": agent_steps / elapsed, "env_steps": steps / elapsed}))
"""


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


def measure_pogema(python: str, num_agents: int, size: int, seconds: float, runs: int) -> float | None:
    """Median agent-steps/s of POGEMA in its venv (``None`` if a run failed)."""
    result = median_runs(
        python, POGEMA_SNIPPET, [str(num_agents), str(size), "0.2", str(seconds)], runs, ("agent_steps",)
    )
    return None if result is None else result[0]


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
    parser.add_argument("--pogema-python", help="python of a venv with pogema (default: create one)")
    parser.add_argument("--no-peer", action="store_true", help="skip POGEMA")
    args = parser.parse_args(argv)
    seconds = target_seconds(args)
    python = None if args.no_peer else peer_python("pogema", [f"pogema=={POGEMA_VERSION}"], args.pogema_python)

    versions = {"numpy": np.__version__, "gymnasium": gymnasium.__version__, "pettingzoo": pettingzoo.__version__}
    load_start = os.getloadavg()
    print(header("MAPF-v0 throughput (agent-steps/s)", versions, date=False))
    print(
        f"- method: median of {args.runs} runs of ~{seconds:g} s; random actions drawn before the loop; resets included"
    )
    print(f"- peer: pogema {POGEMA_VERSION} in its own venv ({python or 'not available'})")
    print()
    maps = {
        16: {"height": 16, "width": 16, "num_agents": 8, "density": 0.2},
        32: {"height": 32, "width": 32, "num_agents": 64, "density": 0.2},
        64: {"height": 64, "width": 64, "num_agents": 256, "density": 0.2},
    }

    def parallel(size: int) -> Callable[[], Any]:
        return lambda: MapfEnv(generator=ObstacleMapGenerator(**maps[size]))

    def vector(num_envs: int, size: int) -> Callable[[], Any]:
        return lambda: MapfVectorEnv(num_envs, generator=ObstacleMapGenerator(**maps[size]))

    # (label, maker, vector form, map size whose POGEMA figure is the reference; 0: none)
    rows: list[tuple[str, Callable[[], Any] | None, bool, int]] = [
        ("MAPF-v0 ParallelEnv, 8 agents, 16x16", parallel(16), False, 0),
        ("MAPF-v0 ParallelEnv, 64 agents, 32x32", parallel(32), False, 32),
        ("MAPF-v0 ParallelEnv, 256 agents, 64x64", parallel(64), False, 64),
        ("MAPF-v0 native vector, 256 worlds x 8 agents, 16x16", vector(256, 16), True, 0),
        ("MAPF-v0 native vector, 64 worlds x 64 agents, 32x32", vector(64, 32), True, 32),
        ("MAPF-v0 native vector, 256 worlds x 64 agents, 32x32", vector(256, 32), True, 32),
        ("MAPF-v0 native vector, 64 worlds x 256 agents, 64x64", vector(64, 64), True, 64),
        ("mpe2 simple_spread_v3 parallel, 3 agents", mpe2_maker(3), False, 0),
        ("mpe2 simple_spread_v3 parallel, 8 agents", mpe2_maker(8), False, 0),
    ]
    if args.quick:
        rows = [row for row in rows if "256 worlds x 64" not in row[0] and "64 worlds x 256" not in row[0]]
    pogema: dict[int, float | None] = {}
    for size in (32, 64):
        agents = maps[size]["num_agents"]
        pogema[size] = measure_pogema(python, agents, size, seconds, args.runs) if python else None
    print("| configuration | agent-steps/s | vs POGEMA (same map, agents) |")
    print("|---|---:|---:|")
    for size in (32, 64):
        rate = pogema[size]
        label = f"pogema {POGEMA_VERSION}, {maps[size]['num_agents']} agents, {size}x{size} (own venv)"
        print(f"| {label} | {fmt_rate(rate) if rate else 'not measured'} | 1.0x |", flush=True)
    for label, make, is_vector, reference in rows:
        if make is None:
            print(f"| {label} | not installed (pip install mpe2) | |", flush=True)
            continue
        rate = measure(make, is_vector, seconds, args.runs)
        peer = pogema.get(reference)
        ratio = f"{rate / peer:.1f}x" if peer else ""
        print(f"| {label} | {fmt_rate(rate)} | {ratio} |", flush=True)
    load_end = os.getloadavg()
    print()
    print(
        f"- load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in load_start)} at the start, "
        f"{', '.join(f'{x:.2f}' for x in load_end)} at the end ({os.cpu_count()} logical cores)"
    )


if __name__ == "__main__":
    main()
