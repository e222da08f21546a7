"""Throughput of ``benchmarkzoo/Foraging-v0`` (ParallelEnv and native multi-world form) beside LBF, in one run.

Configurations, in agent-steps per second (a step of ``B`` worlds of ``N`` agents counts
``B * N``), with env-steps per second beside:

* the ParallelEnv (one world), 8x8 grid, 3 agents, 4 food (the registered default), and 12x12,
  6 agents, 4 food (the largest LBF registers with 6 players; our ood tier has 8 food);
* the native vector form (:class:`ForagingVectorEnv`) at 64 and 1024 worlds of the default;
* the peer, LBF (``lbforaging`` 2.0.0, ``Foraging-8x8-3p-4f-v3`` and ``Foraging-12x12-6p-4f-v3``,
  one Gymnasium env, ``disable_env_checker=True``). lbforaging is run in its own virtual
  environment, created by this script on first use (``--lbf-python`` names another
  interpreter): it is not a benchmarkzoo dependency and pulls pyglet. Without it the table
  says "not measured".

Method: random actions drawn before the timed loop (a pool of 256 pre-drawn dicts or batches is
cycled); resets included (the ParallelEnv and LBF loops reset when the episode ends, the vector
form autoresets); each configuration timed ``--runs`` times (3) for about ``--seconds`` each;
the median is reported. Random agents rarely clear the map, so most episodes run to the
50-step limit in both envs.

Usage::

    python bench/bench_foraging.py            # full table, about a minute (plus the peer venv, once)
    python bench/bench_foraging.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _peer_venv import median_runs, peer_python

LBF_VERSION = "2.0.0"

#: Run inside the lbforaging venv: prints {"agent_steps": ..., "env_steps": ...} per second.
LBF_SNIPPET = r"""
import json, sys, time
import gymnasium as gym
import lbforaging  # noqa: F401  (registers Foraging-*)
import numpy as np
env_id, seconds = sys.argv[1], float(sys.argv[2])
env = gym.make(env_id, disable_env_checker=True).unwrapped
n = env.n_agents
rng = np.random.default_rng(0)
pool = [tuple(int(a) for a in rng.integers(0, 6, size=n)) for _ in range(256)]
env.reset(seed=0)
steps, k, start = 0, 0, time.perf_counter()
while True:
    for _ in range(256):
        _, _, done, truncated, _ = env.step(pool[k % 256])
        k += 1
        steps += 1
        if done or truncated:
            env.reset()
    elapsed = time.perf_counter() - start
    if elapsed >= seconds:
        break
print(json.dumps({"env_steps": steps / elapsed, "agent_steps": steps * n / elapsed}))
"""


def lbf_python(path: str | None) -> str | None:
    """The interpreter of a venv with lbforaging (``~/.cache/benchmarkzoo/bench-lbforaging``, made on first use)."""
    return peer_python("lbforaging", [f"lbforaging=={LBF_VERSION}"], path)


def time_lbf(python: str, env_id: str, seconds: float, runs: int) -> tuple[float, float] | None:
    return median_runs(python, LBF_SNIPPET, [env_id, str(seconds)], runs, ("agent_steps", "env_steps"))


def time_parallel(generator_kwargs: dict, seconds: float, runs: int) -> tuple[float, float]:
    from benchmarkzoo.envs.multiagent.foraging.env import ForagingEnv
    from benchmarkzoo.envs.multiagent.foraging.generator import ForagingGenerator

    env = ForagingEnv(generator=ForagingGenerator(**generator_kwargs), max_cycles=50)
    rng = np.random.default_rng(0)
    pool = [
        {a: int(x) for a, x in zip(env.possible_agents, rng.integers(0, 6, size=env.params.num_agents), strict=True)}
        for _ in range(256)
    ]
    agent_rates, env_rates = [], []
    for _ in range(runs):
        env.reset(seed=0)
        agent_steps = steps = k = 0
        start = time.perf_counter()
        while True:
            for _ in range(256):
                agent_steps += len(env.agents)
                env.step(pool[k % 256])
                k += 1
                steps += 1
                if not env.agents:
                    env.reset()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        agent_rates.append(agent_steps / elapsed)
        env_rates.append(steps / elapsed)
    return statistics.median(agent_rates), statistics.median(env_rates)


def time_vector(num_envs: int, generator_kwargs: dict, seconds: float, runs: int) -> tuple[float, float]:
    from benchmarkzoo.envs.multiagent.foraging.generator import ForagingGenerator
    from benchmarkzoo.envs.multiagent.foraging.vector_env import ForagingVectorEnv

    vec = ForagingVectorEnv(num_envs=num_envs, generator=ForagingGenerator(**generator_kwargs), max_cycles=50)
    rng = np.random.default_rng(0)
    pool = [rng.integers(0, 6, size=(num_envs, vec.num_agents)) for _ in range(16)]
    agent_rates, env_rates = [], []
    for _ in range(runs):
        vec.reset(seed=0)
        agent_steps = steps = k = 0
        start = time.perf_counter()
        while True:
            for _ in range(16):
                agent_steps += int(vec.active.sum())
                vec.step(pool[k % 16])
                k += 1
                steps += num_envs
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        agent_rates.append(agent_steps / elapsed)
        env_rates.append(steps / elapsed)
    return statistics.median(agent_rates), statistics.median(env_rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="0.3 s, one run each")
    parser.add_argument("--lbf-python", help="python of a venv with lbforaging (default: create one)")
    parser.add_argument("--no-peer", action="store_true", help="skip LBF")
    args = parser.parse_args()
    seconds, runs = (0.3, 1) if args.quick else (args.seconds, args.runs)
    small = {"height": 8, "width": 8, "num_agents": 3, "num_food": 4, "max_agent_level": 3}
    large = {"height": 12, "width": 12, "num_agents": 6, "num_food": 4, "max_agent_level": 3}
    rows: list[tuple[str, tuple[float, float] | None]] = []
    python = None if args.no_peer else lbf_python(args.lbf_python)
    print("| configuration | agent-steps/s | env-steps/s |\n|---|---:|---:|", flush=True)

    def show(label: str, result: tuple[float, float] | None) -> None:
        rows.append((label, result))
        if result is None:
            print(f"| {label} | not measured | |", flush=True)
        else:
            print(f"| {label} | {result[0]:,.0f} | {result[1]:,.0f} |", flush=True)

    show("benchmarkzoo Foraging-v0 ParallelEnv, 8x8, 3 agents, 4 food", time_parallel(small, seconds, runs))
    show("LBF Foraging-8x8-3p-4f-v3", time_lbf(python, "Foraging-8x8-3p-4f-v3", seconds, runs) if python else None)
    show("benchmarkzoo Foraging-v0 ParallelEnv, 12x12, 6 agents, 4 food", time_parallel(large, seconds, runs))
    show("LBF Foraging-12x12-6p-4f-v3", time_lbf(python, "Foraging-12x12-6p-4f-v3", seconds, runs) if python else None)
    for num_envs in (64, 1024):
        show(
            f"benchmarkzoo ForagingVectorEnv, {num_envs} worlds of 8x8, 3 agents",
            time_vector(num_envs, small, seconds, runs),
        )
    show("benchmarkzoo ForagingVectorEnv, 1024 worlds of 12x12, 6 agents", time_vector(1024, large, seconds, runs))
    results = dict(rows)
    lbf = results.get("LBF Foraging-8x8-3p-4f-v3")
    if lbf:
        for label in (
            "benchmarkzoo Foraging-v0 ParallelEnv, 8x8, 3 agents, 4 food",
            "benchmarkzoo ForagingVectorEnv, 1024 worlds of 8x8, 3 agents",
        ):
            print(f"ratio {label} / LBF 8x8-3p-4f: {results[label][0] / lbf[0]:.1f}x", flush=True)


if __name__ == "__main__":
    main()
