"""Throughput of ``benchmarkzoo/TrafficSignal-v0`` beside sumo-rl's single-intersection env, in one run.

Both take 5 simulated seconds per step (``delta_time=5``), on libsumo and on TraCI, side by
side in this process; the ratio is what to quote. The networks differ: sumo-rl runs its own
``nets/single-intersection`` (its demand file), ours runs its generated single intersection
(default demand, 400 vehicles/hour per arm). Plus the native vector env over 1 and 2 worker
processes (scaling on this machine's cores).

Method: random actions drawn before the timed loop; resets included (an episode ends after
``--episode-seconds`` simulated seconds for both envs); each configuration runs ``--runs``
times for about ``--seconds`` and the median env-steps/s is reported. libsumo allows one
simulation per process, so each configuration closes its env before the next starts.

Usage::

    python bench/bench_traffic.py            # full table, about two minutes
    python bench/bench_traffic.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np


def timed(make, step, reset, actions, seconds: float) -> float:
    env = make()
    try:
        reset(env)
        done_steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for a in actions:
                if step(env, a):
                    reset(env)
                done_steps += 1
        return done_steps / (time.perf_counter() - start)
    finally:
        env.close()


def ours(backend: str, episode_steps: int):
    import gymnasium as gym

    from benchmarkzoo.envs.traffic.signal.env import TrafficSignalEnv

    def make():
        env = TrafficSignalEnv(backend=backend, in_process=True if backend == "libsumo" else None)
        return gym.wrappers.TimeLimit(env, episode_steps)

    def step(env, a):
        _, _, terminated, truncated, _ = env.step(int(a) % 2)
        return terminated or truncated

    return make, step, lambda env: env.reset(seed=0)


def sumo_rl(backend: str, episode_seconds: int):
    if backend == "libsumo":
        os.environ["LIBSUMO_AS_TRACI"] = "1"  # sumo-rl tests only for the variable's presence
    else:
        os.environ.pop("LIBSUMO_AS_TRACI", None)
    from benchmarkzoo.envs.traffic.sumo import sumo_home

    os.environ.setdefault("SUMO_HOME", str(sumo_home()))  # sumo-rl needs it; this script is its only user
    import sumo_rl

    nets = os.path.join(os.path.dirname(sumo_rl.__file__), "nets", "single-intersection")

    def make():
        return sumo_rl.SumoEnvironment(
            net_file=os.path.join(nets, "single-intersection.net.xml"),
            route_file=os.path.join(nets, "single-intersection.rou.xml"),
            single_agent=True, use_gui=False, delta_time=5, num_seconds=episode_seconds, sumo_warnings=False,
        )

    def step(env, a):
        _, _, terminated, truncated, _ = env.step(int(a) % env.action_space.n)
        return terminated or truncated

    return make, step, lambda env: env.reset(seed=0)


def vector(num_envs: int, episode_steps: int, actions, seconds: float) -> float:
    from benchmarkzoo.envs.traffic.signal.vector_env import TrafficSignalVectorEnv

    env = TrafficSignalVectorEnv(num_envs=num_envs, max_episode_steps=episode_steps)
    try:
        env.reset(seed=0)
        batch = np.stack([actions % 2] * num_envs, axis=1).astype(np.int64)  # (len(actions), num_envs)
        done_steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for row in batch:
                env.step(row)
                done_steps += num_envs
        return done_steps / (time.perf_counter() - start)
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--episode-seconds", type=int, default=1800)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.seconds = 1, 1.5
    warnings.filterwarnings("ignore")
    steps = args.episode_seconds // 5
    actions = np.random.default_rng(0).integers(0, 4, size=100)
    rows = []
    for backend in ("libsumo", "traci"):
        # sumo-rl picks libsumo or TraCI at import time (LIBSUMO_AS_TRACI), so each backend runs in a fresh interpreter.
        import subprocess

        out = subprocess.run([sys.executable, __file__, "--row", backend, str(args.runs), str(args.seconds),
                              str(args.episode_seconds)], capture_output=True, text=True, check=True).stdout
        mine, peer = (float(x) for x in out.strip().splitlines()[-1].split())
        rows.append((f"single env, {backend}", mine, peer))
    for n in (1, 2):
        rate = statistics.median(vector(n, steps, actions, args.seconds) for _ in range(args.runs))
        rows.append((f"native vector, {n} worker(s)", rate, float("nan")))
    print(f"{'configuration':32s} {'TrafficSignal-v0':>17s} {'sumo-rl 1.4.5':>14s} {'ratio':>7s}")
    for name, mine, peer in rows:
        print(f"{name:32s} {mine:17,.0f} {peer:14,.0f} {mine / peer:7.2f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--row":
        backend, runs, seconds, episode = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
        warnings.filterwarnings("ignore")
        acts = np.random.default_rng(0).integers(0, 4, size=100)
        mine = statistics.median(timed(*ours(backend, episode // 5), acts, seconds) for _ in range(runs))
        peer = statistics.median(timed(*sumo_rl(backend, episode), acts, seconds) for _ in range(runs))
        print(mine, peer)
    else:
        main()
