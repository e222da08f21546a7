"""Throughput of ``benchmarkzoo/MicroCombat-v0`` (ParallelEnv and native multi-world form) beside a peer, in one run;
and, with ``--win-rates``, the win rates the env docstring records.

The natural peers, SMAX (JaxMARL) and SMACv2, are not measured: JaxMARL is not in this
machine's package index and SMACv2 needs the StarCraft II game binary. The peer measured in
the same run is PettingZoo's MPE ``simple_spread_v3`` from ``mpe2`` (installed), a parallel env
with discrete actions of comparable size (3 and 5 agents, ``max_cycles=25``). It is a
different game: the ratio says how fast our env steps next to a common CPU MARL env, not that
the two simulate the same thing.

Configurations, in agent-steps per second (a step of ``B`` worlds counts the live agents of
every world), with env-steps per second beside:

* the ParallelEnv (one world), 5 against 5 random compositions (the registered default) and
  10 against 10 (the ood tier);
* the native vector form (:class:`MicroCombatVectorEnv`) at 64 and 1024 worlds of 5 against 5,
  and 1024 worlds of 10 against 10;
* mpe2 ``simple_spread_v3.parallel_env`` with 3 and 5 agents, discrete actions.

Method (``bench/_timing.py``): a pool of 256 pre-drawn action dicts or batches (uniform over
the action space, so most attacks are masked and executed as ``stop``: the registered
``illegal_actions="stop"``) is cycled; resets included (ParallelEnvs reset when the episode
ends, the vector form autoresets); a warm-up run is grown to about ``--seconds`` (1.0), then
``--runs`` (3) timed runs; the median is reported.

``--win-rates``: every seed of each split of ``scenarios/multiagent/micro-combat.yaml``, one
world per seed (world ``i`` plays seed ``start + i``), the first episode of each world; our team
plays uniformly random legal actions (``numpy`` seed 0) or the ``FocusFirePolicy`` baseline.

Usage::

    python bench/bench_combat.py                # throughput table, about a minute
    python bench/bench_combat.py --quick        # smoke run
    python bench/bench_combat.py --win-rates    # the win-rate table
"""

from __future__ import annotations

import argparse
import statistics
import time
from importlib.metadata import version

import numpy as np
from _timing import (
    POOL_ROWS,
    add_timing_args,
    calibrate,
    header,
    parallel_action_pool,
    target_seconds,
    time_parallel_agents,
    time_vector_agents,
)

SMALL = {"num_allies": 5, "num_enemies": 5}
LARGE = {"num_allies": 10, "num_enemies": 10}


def agent_rate(run, seconds: float, runs: int, worlds: int = 1) -> tuple[float, float]:
    """Median agent-steps/s and env-steps/s of ``run(count) -> (seconds, agent_steps)``."""
    count = calibrate(lambda c: run(c)[0], seconds)
    rates = []
    for _ in range(runs):
        elapsed, agent_steps = run(count)
        rates.append((agent_steps / elapsed, count * worlds / elapsed))
    return statistics.median(r[0] for r in rates), statistics.median(r[1] for r in rates)


def int_pool(env) -> list[dict[str, int]]:
    return [{agent: int(a) for agent, a in row.items()} for row in parallel_action_pool(env, 0)]


def time_ours(generator_kwargs: dict, seconds: float, runs: int) -> tuple[float, float]:
    from benchmarkzoo.envs.multiagent.combat.env import MicroCombatEnv

    env = MicroCombatEnv(generator="combat/random", generator_kwargs=generator_kwargs)
    env.reset(seed=0)
    pool = int_pool(env)
    return agent_rate(lambda c: time_parallel_agents(env, pool, c), seconds, runs)


def time_ours_vector(num_envs: int, generator_kwargs: dict, seconds: float, runs: int) -> tuple[float, float]:
    from benchmarkzoo.envs.multiagent.combat.vector_env import MicroCombatVectorEnv

    vec = MicroCombatVectorEnv(num_envs=num_envs, generator="combat/random", generator_kwargs=generator_kwargs)
    vec.action_space.seed(0)
    pool = np.stack([vec.action_space.sample() for _ in range(POOL_ROWS)])
    vec.reset(seed=0)
    return agent_rate(lambda c: time_vector_agents(vec, pool, c), seconds, runs, num_envs)


def time_mpe(num_agents: int, seconds: float, runs: int) -> tuple[float, float]:
    from mpe2 import simple_spread_v3

    env = simple_spread_v3.parallel_env(N=num_agents, max_cycles=25, continuous_actions=False)
    env.reset(seed=0)
    pool = int_pool(env)
    return agent_rate(lambda c: time_parallel_agents(env, pool, c), seconds, runs)


def throughput(args: argparse.Namespace) -> None:
    seconds, runs = target_seconds(args), 1 if args.quick else args.runs
    print(
        header(
            "MicroCombat-v0 throughput",
            {"numpy": version("numpy"), "pettingzoo": version("pettingzoo"), "mpe2": version("mpe2")},
            f"- method: median of {runs} runs of ~{seconds:g} s; actions pre-drawn (uniform); resets included",
        )
    )
    print("\n| configuration | agent-steps/s | env-steps/s |\n|---|---:|---:|", flush=True)
    results = {}

    def show(label: str, result: tuple[float, float]) -> None:
        results[label] = result
        print(f"| {label} | {result[0]:,.0f} | {result[1]:,.0f} |", flush=True)

    show("MicroCombat-v0 ParallelEnv, 5 vs 5", time_ours(SMALL, seconds, runs))
    show("MicroCombat-v0 ParallelEnv, 10 vs 10", time_ours(LARGE, seconds, runs))
    for num_envs in (64, 1024):
        show(f"MicroCombatVectorEnv, {num_envs} worlds of 5 vs 5", time_ours_vector(num_envs, SMALL, seconds, runs))
    show("MicroCombatVectorEnv, 1024 worlds of 10 vs 10", time_ours_vector(1024, LARGE, seconds, runs))
    show("mpe2 simple_spread_v3 parallel, 3 agents, discrete (measured in this run)", time_mpe(3, seconds, runs))
    show("mpe2 simple_spread_v3 parallel, 5 agents, discrete (measured in this run)", time_mpe(5, seconds, runs))
    mpe = results["mpe2 simple_spread_v3 parallel, 5 agents, discrete (measured in this run)"][0]
    print("\nRatios of agent-steps/s to mpe2 simple_spread_v3 with 5 agents:\n")
    for label in ("MicroCombat-v0 ParallelEnv, 5 vs 5", "MicroCombatVectorEnv, 1024 worlds of 5 vs 5"):
        print(f"- {label}: {results[label][0] / mpe:.2f}x")


def win_rates(args: argparse.Namespace) -> None:
    from benchmarkzoo import scenario_sets
    from benchmarkzoo.envs.multiagent.combat.baseline import FocusFirePolicy
    from benchmarkzoo.envs.multiagent.combat.vector_env import MicroCombatVectorEnv

    loaded = scenario_sets.load_set("multiagent/micro-combat")
    print("| split | episodes | random legal actions | FocusFirePolicy |\n|---|---:|---:|---:|", flush=True)
    for name, split in loaded.splits.items():
        seeds = split.seeds
        row = []
        for policy in ("random", "baseline"):
            start = time.perf_counter()
            vec = MicroCombatVectorEnv(num_envs=len(seeds), illegal_actions="raise", **split.env_kwargs())
            rng, act = np.random.default_rng(0), FocusFirePolicy()
            _, infos = vec.reset(seed=seeds.start)
            won, ended = np.zeros(vec.num_envs, bool), np.zeros(vec.num_envs, bool)
            while not ended.all():
                if policy == "baseline":
                    actions = act(vec)
                else:
                    actions = (rng.random(infos["action_mask"].shape) * infos["action_mask"]).argmax(axis=2)
                _, _, _, _, infos = vec.step(actions)
                if "won" in infos:
                    first = infos["_won"] & ~ended
                    won |= first & infos["won"]
                    ended |= first
            row.append(won.mean())
            if args.quick:
                print(f"  ({name} {policy}: {time.perf_counter() - start:.1f} s)", flush=True)
        print(f"| {name} | {len(seeds)} | {row[0]:.2f} | {row[1]:.2f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_timing_args(parser, "one short run each")
    parser.add_argument("--win-rates", action="store_true", help="measure the win rates instead of throughput")
    args = parser.parse_args()
    if args.win_rates:
        win_rates(args)
    else:
        throughput(args)


if __name__ == "__main__":
    main()
