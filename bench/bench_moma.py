"""Throughput of the new ``moma`` envs beside their MOMAland 0.2.0 counterparts, in one run.

Configurations, in agent-steps per second (a step of ``B`` worlds of ``N`` agents counts
``B * N``), with env-steps per second beside:

* ``benchmarkzoo/MO-Beach-v0`` (ParallelEnv, one world) and MOMAland's ``mobeach_v0.parallel_env()``,
  both at MOMAland's defaults (100 agents, 6 sections of capacity 7, one-step episodes, individual
  rewards), and both with ``num_timesteps=10``;
* the native vector form (``MOBeachVectorEnv``) at 64 and 1024 worlds of the defaults, and 1024
  worlds of 10-step episodes.

MOMAland is run in its own virtual environment, ``/work/venvs/momaland`` by default
(``--momaland-python`` names another; made with ``python3 -m venv`` and ``pip install
gymnasium==1.2.2 pettingzoo==1.27.0`` then ``pip install --no-deps momaland==0.2.0``): it is a
test dependency of benchmarkzoo, never a run-time one. Without it the table says "not measured".

Method: ``_timing``'s loops (random actions drawn before the timed loop, 256 pre-drawn dicts or
batches cycled; resets included: the ParallelEnv loops reset when the episode ends, the vector
form autoresets), each of our configurations calibrated once to about ``--seconds`` (2); the
configurations are interleaved, ours then the peer, for ``--runs`` rounds (3); the median is
reported, with the load average before and after.

Usage::

    python bench/bench_moma.py            # full table, about a minute
    python bench/bench_moma.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _peer_venv import run_json
from _timing import POOL_ROWS, calibrate, parallel_action_pool, time_parallel_agents, time_vector_agents

MOMALAND_PYTHON = "/work/venvs/momaland/bin/python"

#: Run inside the MOMAland venv: prints {"agent_steps": ..., "env_steps": ...} per second.
MOBEACH_SNIPPET = r"""
import json, sys
sys.path.insert(0, sys.argv[3])  # bench/: the same timed loop, pool and calibration as ours
from _timing import calibrate, parallel_action_pool, time_parallel_agents
from momaland.envs.beach import mobeach_v0
timesteps, seconds = int(sys.argv[1]), float(sys.argv[2])
env = mobeach_v0.parallel_env(num_timesteps=timesteps)
pool = parallel_action_pool(env, seed=0)
env.reset(seed=0)
count = calibrate(lambda c: time_parallel_agents(env, pool, c)[0], seconds)
elapsed, agent_steps = time_parallel_agents(env, pool, count)
print(json.dumps({"env_steps": count / elapsed, "agent_steps": agent_steps / elapsed}))
"""


def parallel_run(timesteps: int, seconds: float) -> Callable[[], tuple[float, float]]:
    """A timed run of MO-Beach-v0's ParallelEnv (``_timing``'s loop, calibrated once): (agent-steps/s, env-steps/s)."""
    import benchmarkzoo

    env = benchmarkzoo.make_parallel("benchmarkzoo/MO-Beach-v0", num_timesteps=timesteps)
    pool = parallel_action_pool(env, seed=0)
    env.reset(seed=0)
    count = calibrate(lambda c: time_parallel_agents(env, pool, c)[0], seconds)

    def run() -> tuple[float, float]:
        elapsed, agent_steps = time_parallel_agents(env, pool, count)
        return agent_steps / elapsed, count / elapsed

    return run


def vector_run(num_envs: int, timesteps: int, seconds: float) -> Callable[[], tuple[float, float]]:
    """A timed run of MOBeachVectorEnv over ``num_envs`` worlds: (agent-steps/s, world-steps/s).

    Agent-steps count live agents only: NEXT_STEP autoreset spends a world's step after its
    episode's end on the reset, every other step of one-step episodes.
    """
    import benchmarkzoo

    vec = benchmarkzoo.make_vec("benchmarkzoo/MO-Beach-v0", num_envs, num_timesteps=timesteps)
    pool = np.random.default_rng(0).integers(0, 3, size=(POOL_ROWS, num_envs, vec.num_agents), dtype=np.int8)
    vec.reset(seed=0)
    count = calibrate(lambda c: time_vector_agents(vec, pool, c)[0], seconds, start=2)

    def run() -> tuple[float, float]:
        elapsed, agent_steps = time_vector_agents(vec, pool, count)
        return agent_steps / elapsed, count * num_envs / elapsed

    return run


def time_mobeach(python: str, timesteps: int, seconds: float) -> tuple[float, float] | None:
    """One timed run of MOMAland's mobeach_v0 in its venv: (agent-steps/s, env-steps/s), or ``None``."""
    result = run_json(python, MOBEACH_SNIPPET, str(timesteps), str(seconds), str(Path(__file__).parent))
    return None if result is None else (result["agent_steps"], result["env_steps"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="0.3 s, one run each")
    parser.add_argument("--momaland-python", default=MOMALAND_PYTHON, help="python of a venv with momaland 0.2.0")
    parser.add_argument("--no-peer", action="store_true", help="skip MOMAland")
    args = parser.parse_args()
    seconds, runs = (0.3, 1) if args.quick else (args.seconds, args.runs)
    python = None if args.no_peer or not os.path.exists(args.momaland_python) else args.momaland_python
    load_before = os.getloadavg()
    configs = {
        "benchmarkzoo MO-Beach-v0 ParallelEnv, 100 agents, 1 step": parallel_run(1, seconds),
        "MOMAland mobeach_v0 parallel_env, 100 agents, 1 step": (lambda: time_mobeach(python, 1, seconds))
        if python
        else None,
        "benchmarkzoo MO-Beach-v0 ParallelEnv, 100 agents, 10 steps": parallel_run(10, seconds),
        "MOMAland mobeach_v0 parallel_env, 100 agents, 10 steps": (lambda: time_mobeach(python, 10, seconds))
        if python
        else None,
        "benchmarkzoo MOBeachVectorEnv, 64 worlds of 100 agents, 1 step": vector_run(64, 1, seconds),
        "benchmarkzoo MOBeachVectorEnv, 1024 worlds of 100 agents, 1 step": vector_run(1024, 1, seconds),
        "benchmarkzoo MOBeachVectorEnv, 1024 worlds of 100 agents, 10 steps": vector_run(1024, 10, seconds),
    }
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label in configs}
    for _ in range(runs):  # interleaved: every configuration once per round
        for label, run in configs.items():
            result = run() if run is not None else None
            if result is not None:
                samples[label].append(result)
    print(f"load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f}", flush=True)
    print("| configuration | agent-steps/s | env-steps/s |\n|---|---:|---:|", flush=True)
    medians = {}
    for label, got in samples.items():
        if not got:
            print(f"| {label} | not measured | |", flush=True)
            continue
        medians[label] = (statistics.median(g[0] for g in got), statistics.median(g[1] for g in got))
        print(f"| {label} | {medians[label][0]:,.0f} | {medians[label][1]:,.0f} |", flush=True)
    for steps in (1, 10):
        unit = f"{steps} step{'s' if steps > 1 else ''}"
        peer = medians.get(f"MOMAland mobeach_v0 parallel_env, 100 agents, {unit}")
        if not peer:
            continue
        for label, ours in medians.items():
            if label.startswith("benchmarkzoo") and label.endswith(unit):
                print(f"ratio {label} / mobeach: {ours[0] / peer[0]:.1f}x", flush=True)


if __name__ == "__main__":
    main()
