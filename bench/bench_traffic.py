"""Throughput of ``benchmarkzoo/TrafficSignal-v0`` beside sumo-rl's single-intersection env, in one run.

Like for like: both run sumo-rl's own ``nets/single-intersection`` network and route file
(ours loads them with ``generator_kwargs={"net_file": ..., "route_file": ...}``), both take 5
simulated seconds per step (``delta_time=5``, yellow 2 s, min green 5 s), on libsumo and on
TraCI, side by side in one interpreter per backend; the ratio is what to quote. sumo-rl picks
libsumo when ``LIBSUMO_AS_TRACI`` is set before ``sumo_rl`` is imported; each row checks that
the switch took effect (``sumo_rl.environment.env.LIBSUMO`` and the module behind its ``traci``)
and refuses to report otherwise. Ours runs libsumo in-process (``in_process=True``) and in its
default worker process (a fresh fork per simulation, one socket round trip per step). Plus our
native vector env over 1 and 2 worker processes on our generated intersection (scaling on this machine's cores).

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


def sumo_rl_files() -> tuple[str, str]:
    import importlib.util

    nets = os.path.join(os.path.dirname(importlib.util.find_spec("sumo_rl").origin), "nets", "single-intersection")
    return os.path.join(nets, "single-intersection.net.xml"), os.path.join(nets, "single-intersection.rou.xml")


def ours(backend: str, episode_steps: int, in_process: bool | None = None):
    import gymnasium as gym

    from benchmarkzoo.envs.traffic.signal.env import TrafficSignalEnv

    net, routes = sumo_rl_files()

    def make():
        env = TrafficSignalEnv(
            generator_kwargs={"net_file": net, "route_file": routes}, backend=backend, in_process=in_process
        )
        return gym.wrappers.TimeLimit(env, episode_steps)

    def step(env, a):
        _, _, terminated, truncated, _ = env.step(int(a) % 2)
        return terminated or truncated

    return make, step, lambda env: env.reset(seed=0)


def select_sumo_rl_backend(backend: str) -> None:
    """Set ``LIBSUMO_AS_TRACI`` for this process; call before anything imports ``traci``.

    The switch lives in ``traci/__init__.py`` (it becomes ``from libsumo import *`` when the
    variable is set at its first import) and sumo-rl reads the same variable. ``libsumo`` itself
    imports ``traci``, so once any env has run, setting the variable is too late: sumo-rl would
    believe it runs libsumo and silently drive TraCI (and with libsumo imported first the switch
    half-fails on the circular import). So: set it, then import ``traci`` before anything else.
    """
    if backend == "libsumo":
        os.environ["LIBSUMO_AS_TRACI"] = "quiet"
    else:
        os.environ.pop("LIBSUMO_AS_TRACI", None)
    import traci  # noqa: F401  (binds the switch now)


def sumo_rl(backend: str, episode_seconds: int):
    from benchmarkzoo.envs.traffic.sumo import sumo_home

    os.environ.setdefault("SUMO_HOME", str(sumo_home()))  # sumo-rl needs it; this script is its only user
    import libsumo
    import sumo_rl
    import sumo_rl.environment.env as sumo_rl_env

    really_libsumo = sumo_rl_env.traci.simulation is libsumo.simulation  # traci became libsumo at its import
    uses = "libsumo" if sumo_rl_env.LIBSUMO and really_libsumo else "traci"
    if uses != backend or really_libsumo != sumo_rl_env.LIBSUMO:
        raise SystemExit(
            f"sumo-rl would run {uses} (LIBSUMO={sumo_rl_env.LIBSUMO}, traci is libsumo: {really_libsumo}), "
            f"not {backend}: LIBSUMO_AS_TRACI must be set before traci is first imported."
        )
    net, routes = sumo_rl_files()

    def make():
        return sumo_rl.SumoEnvironment(
            net_file=net,
            route_file=routes,
            single_agent=True,
            use_gui=False,
            delta_time=5,
            yellow_time=2,
            min_green=5,
            num_seconds=episode_seconds,
            sumo_warnings=False,
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

        out = subprocess.run(
            [sys.executable, __file__, "--row", backend, str(args.runs), str(args.seconds), str(args.episode_seconds)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        mine, peer, worker = (float(x) for x in out.strip().splitlines()[-1].split())
        if backend == "libsumo":
            rows.append(("single env, libsumo in-process", mine, peer))
            rows.append(("single env, libsumo worker (default)", worker, peer))
        else:
            rows.append((f"single env, {backend}", mine, peer))
    rows.append(("ours libsumo worker vs sumo-rl TraCI (default)", rows[1][1], rows[2][2]))
    for n in (1, 2):
        rate = statistics.median(vector(n, steps, actions, args.seconds) for _ in range(args.runs))
        rows.append((f"native vector, {n} worker(s)", rate, float("nan")))
    print(f"{'configuration':48s} {'TrafficSignal-v0':>17s} {'sumo-rl 1.4.5':>14s} {'ratio':>7s}")
    for name, mine, peer in rows:
        print(f"{name:48s} {mine:17,.0f} {peer:14,.0f} {mine / peer:7.2f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--row":
        backend, runs, seconds, episode = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
        select_sumo_rl_backend(backend)  # first thing: our env's libsumo import pulls in traci
        warnings.filterwarnings("ignore")
        acts = np.random.default_rng(0).integers(0, 4, size=100)
        in_process = True if backend == "libsumo" else None
        mine = statistics.median(timed(*ours(backend, episode // 5, in_process), acts, seconds) for _ in range(runs))
        peer = statistics.median(timed(*sumo_rl(backend, episode), acts, seconds) for _ in range(runs))
        worker = (
            statistics.median(timed(*ours(backend, episode // 5, False), acts, seconds) for _ in range(runs))
            if backend == "libsumo"
            else float("nan")
        )
        print(mine, peer, worker)
    else:
        main()
