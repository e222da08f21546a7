"""Routing-v0: the two baselines on the test split, and days per second (ParallelEnv vs native vector).

There is no peer in this run: RouteRL/URB (the spirit of this env) need their own SUMO scenario
files and training stack, and are not installed here. The table holds our own reference
numbers, the ones quoted in ``RoutingEnv``'s docstring.

    .venv/bin/python bench/bench_routing.py [--days 20]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from _timing import command_line, date_line, machine_line, versions_line

from benchmarkzoo.envs.traffic.routing.baseline import ShortestPathPolicy, SumoRoutingPolicy
from benchmarkzoo.envs.traffic.routing.env import RoutingEnv
from benchmarkzoo.envs.traffic.routing.vector_env import RoutingVectorEnv
from benchmarkzoo.scenario_sets import load_set

KEYS = ("mean_travel_time_agents", "mean_travel_time_humans", "mean_travel_time", "total_delay")


def play(env: RoutingEnv, policy, seed: int) -> dict[str, float]:
    env.reset(seed=seed)
    infos: dict = {}
    while env.agents:
        _, _, _, _, infos = env.step(policy(env))
    return next(iter(infos.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=20, help="test-split seeds played per baseline")
    args = parser.parse_args()
    from importlib.metadata import version

    split = load_set("traffic/routing").splits["test"]
    seeds = list(split.seeds)[: args.days]
    print("## Routing-v0 baselines (test split of traffic/routing)\n")
    print(date_line())
    print(machine_line())
    print(versions_line({"numpy": np.__version__, "SUMO (eclipse-sumo)": version("eclipse-sumo")}))
    print(command_line())
    print(f"- seeds {seeds[0]}-{seeds[-1]}, one day each\n")
    print("| policy | CAV mean travel time (s) | human mean travel time (s) | all vehicles (s) | total delay (s) |")
    print("|---|---|---|---|---|")
    env = RoutingEnv(**split.env_kwargs())
    try:
        for name, policy in (
            ("shortest path (route 0)", ShortestPathPolicy()),
            ("SUMO's routing (least current time)", SumoRoutingPolicy()),
        ):
            days = [play(env, policy, s) for s in seeds]
            mean = {k: float(np.mean([d[k] for d in days])) for k in KEYS}
            print(
                f"| {name} | {mean['mean_travel_time_agents']:.2f} | {mean['mean_travel_time_humans']:.2f} | "
                f"{mean['mean_travel_time']:.2f} | {mean['total_delay']:,.0f} |"
            )
    finally:
        env.close()

    print("\n## Routing-v0 throughput: days per second with ShortestPathPolicy\n")
    print("| form | days | seconds | days/s | env steps/s |")
    print("|---|---|---|---|---|")
    env = RoutingEnv()
    try:
        env.reset(seed=0)
        start, steps = time.perf_counter(), 0
        for s in range(8):
            env.reset(seed=s)
            while env.agents:
                env.step(ShortestPathPolicy()(env))
                steps += 1
        elapsed = time.perf_counter() - start
        print(f"| ParallelEnv | 8 | {elapsed:.2f} | {8 / elapsed:.2f} | {steps / elapsed:.1f} |")
    finally:
        env.close()
    vec = RoutingVectorEnv(num_envs=2)
    try:
        vec.reset(seed=0)
        start, steps, days = time.perf_counter(), 0, 0
        while days < 8:
            _, _, _, _, infos = vec.step(ShortestPathPolicy()(vec))
            steps += 2
            days += int(infos.get("_total_delay", np.zeros(2, bool)).sum())
        elapsed = time.perf_counter() - start
        print(
            f"| native vector, 2 worlds ({os.cpu_count()} cores) | {days} | {elapsed:.2f} | {days / elapsed:.2f} | "
            f"{steps / elapsed:.1f} |"
        )
    finally:
        vec.close()


if __name__ == "__main__":
    sys.exit(main())
