"""Throughput of ``benchmarkzoo/Navigation-v0`` (ParallelEnv and native multi-world form) beside mpe2, in one run.

Configurations, in agent-steps per second (a step of ``B`` worlds of ``N`` live robots counts
``B * N``; robots that have arrived and left count nothing), with env-steps per second beside:

* the ParallelEnv (one world), holonomic, 3 robots and 3 obstacles in the default 4x4 m arena,
  and 10 robots and 10 obstacles in a 6x6 m arena (4 neighbours and 4 obstacles observed);
* the native vector form (:class:`NavigationVectorEnv`) at 1024 worlds of 4 robots and 4 obstacles
  (the registered default), 1024 worlds of 3 robots, and 1024 worlds of 4 unicycles (safety filter on);
* mpe2 ``simple_spread_v3`` (parallel API, continuous actions) at 3 and 10 agents, if ``mpe2`` is
  importable; otherwise the figures of ``/work/shared/peers.md`` (and the table says so).

VMAS needs torch and is not installed beside benchmarkzoo: its figures (1024 worlds, torch CPU,
same kind of machine) are quoted from ``/work/shared/peers.md``, not measured here, and the table
says so.

Method: random actions drawn before the timed loop (a pool of 256 pre-drawn dicts or batches is
cycled); resets included (the ParallelEnv loop calls ``reset()`` when ``env.agents`` is empty,
the vector form autoresets); each configuration timed ``--runs`` times (3) for about
``--seconds`` each; the median is reported. Random robots rarely arrive, so nearly all stay live
until the ``max_cycles`` truncation (100; mpe2's ``max_cycles`` is 25).

Usage::

    python bench/bench_navigation.py            # full table, about a minute
    python bench/bench_navigation.py --quick    # smoke run
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

from benchmarkzoo.envs.multiagent.navigation.env import NavigationEnv
from benchmarkzoo.envs.multiagent.navigation.generator import UniformGenerator
from benchmarkzoo.envs.multiagent.navigation.vector_env import NavigationVectorEnv

#: From /work/shared/peers.md (same kind of machine, measured separately): (env-steps/s, agent-steps/s).
MPE2_REFERENCE = {3: (5.4e3, 16e3), 10: (745.0, 7.5e3)}
VMAS_REFERENCE = {
    "vmas 1.5.2 simple_spread, 3 agents, 1024 worlds": (1.0e6, 3.0e6),
    "vmas 1.5.2 navigation, 4 agents, 1024 worlds": (132e3, 526e3),
}


def measure(make: Callable[[], Any], vector: bool, seconds: float, runs: int, seed: int = 0) -> tuple[float, float]:
    """Median ``(env-steps/s, agent-steps/s)`` of ``runs`` timed runs of about ``seconds`` each."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    if vector:
        pool = rng.uniform(-1.0, 1.0, size=(POOL_ROWS, env.num_envs, env.num_agents, 2)).astype(np.float32)
        worlds = env.num_envs

        def run(count: int) -> tuple[float, int]:
            return time_vector_agents(env, pool, count)
    else:
        dicts = parallel_action_pool(env, seed)
        worlds = 1

        def run(count: int) -> tuple[float, int]:
            return time_parallel_agents(env, dicts, count)

    count = calibrate(lambda n: run(n)[0], seconds, start=4, limit=1 << 22)
    env_rates, agent_rates = [], []
    for _ in range(runs):
        elapsed, agent_steps = run(count)
        env_rates.append(count * worlds / elapsed)
        agent_rates.append(agent_steps / elapsed)
    env.close()
    return statistics.median(env_rates), statistics.median(agent_rates)


def mpe2_maker(n: int) -> Callable[[], Any] | None:
    try:
        from mpe2 import simple_spread_v3
    except ImportError:
        return None
    return lambda: simple_spread_v3.parallel_env(N=n, max_cycles=25, continuous_actions=True)


def main(argv: list[str] | None = None) -> None:
    import gymnasium
    import pettingzoo

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_timing_args(parser, "smoke run: short timings")
    args = parser.parse_args(argv)
    seconds = target_seconds(args)

    versions = {"numpy": np.__version__, "gymnasium": gymnasium.__version__, "pettingzoo": pettingzoo.__version__}
    print(header("Navigation-v0 throughput", versions, date=False))
    print(
        f"- method: median of {args.runs} runs of ~{seconds:g} s; random actions drawn before the loop; resets included"
    )
    print()

    def parallel(n: int, m: int, size: float) -> Callable[[], Any]:
        return lambda: NavigationEnv(generator=UniformGenerator(num_agents=n, num_obstacles=m, arena_size=size))

    def vector(b: int, n: int, dynamics: str = "holonomic") -> Callable[[], Any]:
        return lambda: NavigationVectorEnv(b, generator=UniformGenerator(num_agents=n, num_obstacles=4),
                                           dynamics=dynamics)

    ours = {
        "p3": ("Navigation-v0 ParallelEnv, 3 robots, 3 obstacles", parallel(3, 3, 2.0), False),
        "p10": ("Navigation-v0 ParallelEnv, 10 robots, 10 obstacles (6x6 m)", parallel(10, 10, 3.0), False),
        "v4": ("Navigation-v0 native vector, 1024 worlds x 4 robots, 4 obstacles", vector(1024, 4), True),
        "v3": ("Navigation-v0 native vector, 1024 worlds x 3 robots, 4 obstacles", vector(1024, 3), True),
        "u4": ("Navigation-v0 native vector, 1024 worlds x 4 unicycles (safety filter)", vector(1024, 4, "unicycle"),
               True),
    }
    results: dict[str, tuple[float, float]] = {}
    print("| configuration | env-steps/s | agent-steps/s |")
    print("|---|---:|---:|")
    for key, (label, make, is_vector) in ours.items():
        results[key] = measure(make, is_vector, seconds, args.runs)
        print(f"| {label} | {fmt_rate(results[key][0])} | {fmt_rate(results[key][1])} |", flush=True)
    for n in (3, 10):
        make = mpe2_maker(n)
        if make is None:
            results[f"mpe{n}"] = MPE2_REFERENCE[n]
            label = f"mpe2 simple_spread_v3, {n} agents (quoted from peers.md: mpe2 NOT importable here)"
        else:
            results[f"mpe{n}"] = measure(make, False, seconds, args.runs)
            label = f"mpe2 simple_spread_v3 parallel, continuous, {n} agents (measured in this run)"
        print(f"| {label} | {fmt_rate(results[f'mpe{n}'][0])} | {fmt_rate(results[f'mpe{n}'][1])} |", flush=True)
    for label, (env_rate, agent_rate) in VMAS_REFERENCE.items():
        print(f"| {label} (quoted from peers.md, NOT measured in this run) | {fmt_rate(env_rate)} | "
              f"{fmt_rate(agent_rate)} |")
    print()
    print("Ratios of agent-steps/s:")
    print()
    ratios = [
        ("ParallelEnv, 3 robots / mpe2 3 agents", "p3", results["mpe3"][1]),
        ("ParallelEnv, 10 robots / mpe2 10 agents", "p10", results["mpe10"][1]),
        ("native vector 1024 x 3 / mpe2 3 agents", "v3", results["mpe3"][1]),
        ("native vector 1024 x 3 / vmas simple_spread 1024 x 3 (quoted)", "v3", VMAS_REFERENCE[
            "vmas 1.5.2 simple_spread, 3 agents, 1024 worlds"][1]),
        ("native vector 1024 x 4 / vmas navigation 1024 x 4 (quoted)", "v4", VMAS_REFERENCE[
            "vmas 1.5.2 navigation, 4 agents, 1024 worlds"][1]),
    ]
    for label, key, reference in ratios:
        print(f"- {label}: {results[key][1] / reference:.2f}x")


if __name__ == "__main__":
    main()
