"""Throughput of ``benchmarkzoo/RPSSelfPlay-v0`` and ``RPSPopulation-v0`` beside PettingZoo's ``rps_v2``, in one run.

Configurations, in agent-steps per second (a step of ``B`` worlds of 2 players counts ``2B``),
with env-steps per second beside, and rendered frames per second:

* the self-play ParallelEnv (:class:`RPSSelfPlayEnv`, one world, 100-round matches, the
  registered trembles up to 10%), and its native vector form (:class:`RPSSelfPlayVectorEnv`)
  at 64 and 1024 worlds;
* the peer, PettingZoo's classic ``rps_v2.parallel_env(max_cycles=100)`` (3 moves, the
  same 100-round matches; its observation is the opponent's last move only), from the
  PettingZoo installed beside benchmarkzoo;
* the population env (a bot plays player 1; one world, and 1024 worlds of the native vector
  form), which has no peer: it shows what the 25 scripted bots cost over plain self-play;
* ``render_mode="rgb_array"`` frames per second of our self-play env (400x272 scoreboard) and
  of ``rps_v2`` (285x800), one ``step`` + ``render`` per frame.

Method: random actions drawn before the timed loop (a pool of 256 pre-drawn dicts or batches is
cycled); resets included (ParallelEnv loops reset when the match ends, the vector forms
autoreset); each configuration is calibrated, then timed ``--runs`` times (3) for about
``--seconds`` each (1.0); the median is reported. Ours and the peer are timed in alternation,
run by run. Quote the ratio to the peer measured in the same run, not the absolute figures.

Usage::

    python bench/bench_rps.py            # full table, about a minute
    python bench/bench_rps.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _timing import (
    POOL_ROWS,
    add_timing_args,
    calibrate,
    calibrated_median,
    fmt_rate,
    header,
    parallel_action_pool,
    target_seconds,
    time_parallel_agents,
    time_vector,
    time_vector_agents,
)


def paired_rates(runners: list[Callable[[int], float]], per_step: int, seconds: float, runs: int) -> list[float]:
    """Median steps/s of each ``runner(count)`` (seconds of ``count`` steps), timed in alternation.

    Ours and the peer take turns run by run, so a change in the load of the shared machine during
    the benchmark hits both sides alike.
    """
    counts = [calibrate(run, seconds) for run in runners]
    rates: list[list[float]] = [[] for _ in runners]
    for _ in range(runs):
        for run, count, out in zip(runners, counts, rates):
            out.append(count * per_step / run(count))
    return [statistics.median(r) for r in rates]


def parallel_runner(env: Any) -> Callable[[int], float]:
    """``run(count)`` for a two-player ParallelEnv with pooled random action dicts."""
    pool = parallel_action_pool(env, 0)
    env.reset(seed=0)
    return lambda count: time_parallel_agents(env, pool, count)[0]


def self_play_vector_rate(num_envs: int, seconds: float, runs: int) -> float:
    from benchmarkzoo.envs.multiagent.rps.vector_env import RPSSelfPlayVectorEnv

    vec = RPSSelfPlayVectorEnv(num_envs=num_envs, generator_kwargs={"max_noise": 0.1})
    pool = np.random.default_rng(0).integers(0, 3, size=(POOL_ROWS, num_envs, 2))
    vec.reset(seed=0)
    return calibrated_median(lambda count: time_vector_agents(vec, pool, count)[0], 2 * num_envs, seconds, runs)


def population_rate(num_envs: int | None, seconds: float, runs: int) -> float:
    """Median env-steps/s of RPSPopulation-v0 (one env, or the native vector form); one agent per step."""
    from benchmarkzoo.envs.multiagent.rps.env import RPSPopulationEnv
    from benchmarkzoo.envs.multiagent.rps.vector_env import RPSPopulationVectorEnv

    rng = np.random.default_rng(0)
    kwargs = {"generator_kwargs": {"max_noise": 0.1}}
    if num_envs is None:
        env = RPSPopulationEnv(**kwargs)
        env.reset(seed=0)

        def run(count: int) -> float:
            actions = rng.integers(0, 3, size=count).tolist()
            start = time.perf_counter()
            for t, action in enumerate(actions):
                env.step(action)
                if (t + 1) % 100 == 0:  # the registered 100-round limit
                    env.reset()
            return time.perf_counter() - start

        return calibrated_median(run, 1, seconds, runs)
    vec = RPSPopulationVectorEnv(num_envs=num_envs, **kwargs)
    pool = rng.integers(0, 3, size=(POOL_ROWS, num_envs))
    vec.reset(seed=0)
    return calibrated_median(
        lambda count: time_vector(vec, [pool[i % POOL_ROWS] for i in range(count)]), num_envs, seconds, runs
    )


def render_runner(env: Any) -> Callable[[int], float]:
    """``run(count)`` of ``count`` ``step`` + ``render`` calls with ``render_mode="rgb_array"``."""
    pool = parallel_action_pool(env, 0)

    def run(count: int) -> float:
        start = time.perf_counter()
        for t in range(count):
            env.step({agent: pool[t % POOL_ROWS][agent] for agent in env.agents})
            env.render()
            if not env.agents:
                env.reset()
        return time.perf_counter() - start

    env.reset(seed=0)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_timing_args(parser, "0.05 s per run: a smoke run")
    args = parser.parse_args()
    seconds, runs = target_seconds(args), args.runs
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

    import gymnasium
    import pettingzoo
    from pettingzoo.classic import rps_v2

    from benchmarkzoo.envs.multiagent.rps.env import RPSSelfPlayEnv

    print(
        header(
            "RPSSelfPlay-v0 and RPSPopulation-v0 vs PettingZoo rps_v2",
            {"numpy": np.__version__, "gymnasium": gymnasium.__version__, "pettingzoo": pettingzoo.__version__},
        )
    )
    print(f"- method: median of {runs} calibrated runs of ~{seconds:g} s; random actions pre-drawn; resets included")
    print()
    print("| configuration | agent-steps/s | env-steps/s |\n|---|---:|---:|", flush=True)
    rates: dict[str, float] = {}

    def show(label: str, agent_rate: float, agents: int) -> None:
        rates[label] = agent_rate
        print(f"| {label} | {fmt_rate(agent_rate)} | {fmt_rate(agent_rate / agents)} |", flush=True)

    ours = RPSSelfPlayEnv(generator_kwargs={"max_noise": 0.1})
    peer_env = rps_v2.parallel_env(max_cycles=100)
    ours_rate, peer_rate = paired_rates([parallel_runner(ours), parallel_runner(peer_env)], 2, seconds, runs)
    show("benchmarkzoo RPSSelfPlay-v0 ParallelEnv", ours_rate, 2)
    show("PettingZoo rps_v2 parallel_env", peer_rate, 2)
    for n in (64, 1024):
        show(f"benchmarkzoo RPSSelfPlayVectorEnv, {n} worlds", self_play_vector_rate(n, seconds, runs), 2)
    show("benchmarkzoo RPSPopulation-v0, one env (bots, no peer)", population_rate(None, seconds, runs), 1)
    show("benchmarkzoo RPSPopulationVectorEnv, 1024 worlds (bots, no peer)", population_rate(1024, seconds, runs), 1)
    print()
    ours_fps, peer_fps = paired_rates(
        [
            render_runner(RPSSelfPlayEnv(render_mode="rgb_array")),
            render_runner(rps_v2.parallel_env(max_cycles=100, render_mode="rgb_array")),
        ],
        1,
        seconds,
        runs,
    )
    print("| rendering (rgb_array, step + render) | frames/s |\n|---|---:|")
    print(f"| benchmarkzoo RPSSelfPlay-v0 (400x272) | {fmt_rate(ours_fps)} |")
    print(f"| PettingZoo rps_v2 (285x800) | {fmt_rate(peer_fps)} |")
    print()
    peer = rates["PettingZoo rps_v2 parallel_env"]
    print("Ratios to PettingZoo rps_v2 (agent-steps/s; frames/s):\n")
    for label in ("benchmarkzoo RPSSelfPlay-v0 ParallelEnv", "benchmarkzoo RPSSelfPlayVectorEnv, 1024 worlds"):
        print(f"- {label}: {rates[label] / peer:.2f}x")
    print(f"- rendering: {ours_fps / peer_fps:.2f}x")


if __name__ == "__main__":
    main()
