"""Throughput of ``benchmarkzoo/Navigation-v0`` (ParallelEnv and native multi-world form) beside mpe2 and VMAS.

All in one run.

Configurations, in agent-steps per second (a step of ``B`` worlds of ``N`` live robots counts
``B * N``; robots that have arrived and left count nothing), with env-steps per second beside:

* the ParallelEnv (one world), holonomic: 3 robots and no obstacles (simple_spread-like), 3 robots
  and 3 obstacles in the default 4x4 m arena, and 10 robots and 10 obstacles in a 6x6 m arena
  (4 neighbours and 4 obstacles observed everywhere);
* the native vector form (:class:`NavigationVectorEnv`) at 1024 worlds of 3 robots and no
  obstacles (simple_spread-like: the fair comparison with ``simple_spread``), 3 robots and 4
  obstacles, 4 robots and 4 obstacles (the registered default), and 4 unicycles with 4 obstacles
  (safety filter on);
* mpe2 ``simple_spread_v3`` (parallel API, continuous actions) at 3 and 10 agents, in-process;
* VMAS 1.5.2 on CPU at 1024 worlds, ``simple_spread`` (3 agents, 3 landmarks) and ``navigation``
  (4 agents, 12-ray lidars, no obstacles), continuous actions, ``max_steps=100``. VMAS needs torch
  and pulls gym 0.26 and pyglet 1.5, so it runs in its own virtual environment, created by this
  script on first use under ``~/.cache/benchmarkzoo/bench-vmas`` (torch 2.13.0, a CPU wheel here;
  ``--vmas-python`` names another interpreter, ``--no-vmas`` skips it). Each VMAS run is timed
  with torch at 1 and at 2 threads and the faster is kept (on a loaded 2-core machine one thread
  is often faster). Done worlds are reset as a VMAS user does: ``env.reset()`` when every world
  is done, ``env.reset_at(i)`` otherwise.

Method: random actions drawn before the timed loop (a pool of pre-drawn dicts or batches is
cycled); resets included (the ParallelEnv and mpe2 loops reset when the episode ends, our vector
form autoresets, VMAS as above); each configuration timed ``--runs`` times (5) for about
``--seconds`` each, the runs of all configurations interleaved (round robin) so that a change of
machine load hits every row alike; the median is reported. Random robots rarely arrive, so
nearly all stay live until the ``max_cycles`` truncation (100; mpe2's ``max_cycles`` is 25).
The header gives the load average before and after: other engineers may run tests meanwhile.

Usage::

    python bench/bench_navigation.py              # full table, a few minutes (plus the VMAS venv, once)
    python bench/bench_navigation.py --quick      # smoke run
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Callable
from typing import Any

import numpy as np
from _peer_venv import peer_python, run_json
from _timing import (
    POOL_ROWS,
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

VMAS_REQUIREMENTS = ["torch==2.13.0", "vmas==1.5.2"]  # torch pinned: the CPU wheel, not a CUDA build

#: Run inside the VMAS venv: argv scenario, n_agents, num_envs, seconds; prints the best rate over 1 and 2 threads.
VMAS_SNIPPET = r"""
import json, sys, time
import torch
import vmas
scenario, n, num_envs, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
env = vmas.make_env(scenario, num_envs=num_envs, device="cpu", continuous_actions=True, max_steps=100, seed=0,
                    n_agents=n)
g = torch.Generator().manual_seed(0)
pool = [[torch.rand((num_envs, 2), generator=g) * 2 - 1 for _ in range(n)] for _ in range(16)]

def run(count):
    start = time.perf_counter()
    for k in range(count):
        _, _, dones, _ = env.step(pool[k % 16])
        if dones.any():
            if dones.all():
                env.reset()
            else:
                for i in torch.nonzero(dones).flatten().tolist():
                    env.reset_at(i)
    return time.perf_counter() - start

best = None
for threads in (1, 2):
    torch.set_num_threads(threads)
    env.reset()
    count = 4
    while run(count) < 0.05 * seconds:
        count *= 4
    count = max(4, int(count * seconds / run(count)))
    elapsed = run(count)
    rate = count * num_envs / elapsed
    if best is None or rate > best["env_steps"]:
        best = {"env_steps": rate, "agent_steps": rate * n, "threads": threads}
print(json.dumps(best))
"""


class Row:
    """One configuration: a label and a function doing one timed run, returning (env-steps/s, agent-steps/s)."""

    def __init__(self, key: str, label: str, run: Callable[[], tuple[float, float] | None]):
        self.key, self.label, self.run = key, label, run
        self.results: list[tuple[float, float]] = []

    def median(self) -> tuple[float, float] | None:
        if not self.results:
            return None
        return statistics.median(r[0] for r in self.results), statistics.median(r[1] for r in self.results)


def local_row(key: str, label: str, make: Callable[[], Any], vector: bool, seconds: float, seed: int = 0) -> Row:
    """A row for an env in this process: built and calibrated now, timed on each call."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    if vector:
        pool = rng.uniform(-1.0, 1.0, size=(POOL_ROWS, env.num_envs, env.num_agents, 2)).astype(np.float32)
        worlds = env.num_envs

        def timed(count: int) -> tuple[float, int]:
            return time_vector_agents(env, pool, count)
    else:
        dicts = parallel_action_pool(env, seed)
        worlds = 1

        def timed(count: int) -> tuple[float, int]:
            return time_parallel_agents(env, dicts, count)

    count = calibrate(lambda n: timed(n)[0], seconds, start=4, limit=1 << 22)

    def run() -> tuple[float, float]:
        elapsed, agent_steps = timed(count)
        return count * worlds / elapsed, agent_steps / elapsed

    return Row(key, label, run)


def vmas_row(key: str, label: str, python: str, scenario: str, n: int, seconds: float) -> Row:
    def run() -> tuple[float, float] | None:
        result = run_json(python, VMAS_SNIPPET, scenario, str(n), "1024", str(seconds))
        return None if result is None else (result["env_steps"], result["agent_steps"])

    return Row(key, label, run)


def main(argv: list[str] | None = None) -> None:
    import gymnasium
    import pettingzoo

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: short timings")
    parser.add_argument("--seconds", type=float, default=None, help="target seconds per timed run (1.0; quick 0.05)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per configuration; the median is reported")
    parser.add_argument("--vmas-python", default=None, help="an interpreter with vmas and torch (default: own venv)")
    parser.add_argument("--no-vmas", action="store_true", help="skip VMAS")
    args = parser.parse_args(argv)
    seconds = target_seconds(args)

    load_before = os.getloadavg()
    versions = {"numpy": np.__version__, "gymnasium": gymnasium.__version__, "pettingzoo": pettingzoo.__version__}
    vmas_python = None if args.no_vmas else peer_python("vmas", VMAS_REQUIREMENTS, args.vmas_python)

    def parallel(n: int, m: int, size: float) -> Callable[[], Any]:
        return lambda: NavigationEnv(generator=UniformGenerator(num_agents=n, num_obstacles=m, arena_size=size))

    def vector(n: int, m: int, dynamics: str = "holonomic") -> Callable[[], Any]:
        return lambda: NavigationVectorEnv(
            1024, generator=UniformGenerator(num_agents=n, num_obstacles=m), dynamics=dynamics
        )

    rows = [
        local_row("p3s", "Navigation-v0 ParallelEnv, 3 robots, no obstacles", parallel(3, 0, 2.0), False, seconds),
        local_row("p3", "Navigation-v0 ParallelEnv, 3 robots, 3 obstacles", parallel(3, 3, 2.0), False, seconds),
        local_row(
            "p10", "Navigation-v0 ParallelEnv, 10 robots, 10 obstacles (6x6 m)", parallel(10, 10, 3.0), False, seconds
        ),
        local_row(
            "v3s", "Navigation-v0 native vector, 1024 worlds x 3 robots, no obstacles", vector(3, 0), True, seconds
        ),
        local_row(
            "v3", "Navigation-v0 native vector, 1024 worlds x 3 robots, 4 obstacles", vector(3, 4), True, seconds
        ),
        local_row(
            "v4", "Navigation-v0 native vector, 1024 worlds x 4 robots, 4 obstacles", vector(4, 4), True, seconds
        ),
        local_row(
            "u4",
            "Navigation-v0 native vector, 1024 worlds x 4 unicycles, 4 obstacles (safety filter)",
            vector(4, 4, "unicycle"),
            True,
            seconds,
        ),
    ]
    try:
        from mpe2 import simple_spread_v3
    except ImportError:
        simple_spread_v3 = None
    for n in (3, 10):
        if simple_spread_v3 is not None:
            rows.append(
                local_row(
                    f"mpe{n}",
                    f"mpe2 simple_spread_v3 parallel, continuous, {n} agents",
                    lambda n=n: simple_spread_v3.parallel_env(N=n, max_cycles=25, continuous_actions=True),
                    False,
                    seconds,
                )
            )
    if vmas_python is not None:
        rows.append(
            vmas_row(
                "vmas_spread",
                "vmas 1.5.2 simple_spread, 1024 worlds x 3 agents (torch CPU)",
                vmas_python,
                "simple_spread",
                3,
                seconds,
            )
        )
        rows.append(
            vmas_row(
                "vmas_nav",
                "vmas 1.5.2 navigation, 1024 worlds x 4 agents, no obstacles (torch CPU)",
                vmas_python,
                "navigation",
                4,
                seconds,
            )
        )
    for _ in range(args.runs):  # round robin: every row sees the same machine load
        for row in rows:
            result = row.run()
            if result is not None:
                row.results.append(result)
    load_after = os.getloadavg()

    loads = (
        f"- machine load (1-min load average, 2 cores): {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
        "other engineers run tests on this machine"
    )
    print(header("Navigation-v0 throughput", versions, loads, date=False))
    print(
        f"- method: median of {args.runs} interleaved runs of ~{seconds:g} s; random actions drawn before the loop; "
        "resets included"
    )
    print()
    print("| configuration | env-steps/s | agent-steps/s |")
    print("|---|---:|---:|")
    medians = {}
    for row in rows:
        medians[row.key] = row.median()
        if medians[row.key] is None:
            print(f"| {row.label} | not measured | not measured |")
            continue
        env_rate, agent_rate = medians[row.key]
        print(f"| {row.label} | {fmt_rate(env_rate)} | {fmt_rate(agent_rate)} |")
    if vmas_python is None:
        print("| vmas 1.5.2 | not measured (--no-vmas, or its venv could not be set up) | |")
    print()
    print("Ratios of agent-steps/s (issue 4's targets in brackets):")
    print()
    ratios = [
        ("ParallelEnv, 3 robots, no obstacles / mpe2 simple_spread 3 agents [>= 1]", "p3s", "mpe3"),
        ("ParallelEnv, 10 robots / mpe2 simple_spread 10 agents [>= 1]", "p10", "mpe10"),
        ("native vector 1024 x 3, no obstacles / mpe2 simple_spread 3 agents [>= 100]", "v3s", "mpe3"),
        ("native vector 1024 x 3, no obstacles / vmas simple_spread 1024 x 3 [>= 2]", "v3s", "vmas_spread"),
        ("native vector 1024 x 4, 4 obstacles / vmas navigation 1024 x 4 [>= 2]", "v4", "vmas_nav"),
    ]
    for label, ours, peer in ratios:
        if medians.get(ours) is None or medians.get(peer) is None:
            print(f"- {label}: not measured")
            continue
        print(f"- {label}: {medians[ours][1] / medians[peer][1]:.2f}x")


if __name__ == "__main__":
    main()
