"""Before/after speed of a refactor: the same env ids timed in two checkouts of benchmarkzoo, alternately.

A refactor must keep speed (issue 16). Its peers' ratios in the other scripts move with the
machine's load, which on a shared 2-core machine swamps a 10% change; this script compares our
code with our code instead. Each round runs one fresh interpreter per checkout (``PYTHONPATH``
puts that checkout first), alternating old and new so load drifts hit both, and counts steps per
second of *process CPU time* (``time.process_time``), which other jobs on the machine disturb far
less than wall time. Reported: the median over rounds of each, and new / old.

Per env id: one env (``gym.make`` for single-agent and MO ids, the ``ParallelEnv`` for
multi-agent ones) with resets included, and the native vector form at ``--worlds`` worlds (64;
autoreset; give SUMO and PyBullet envs a few, each world is a simulator).
Actions are drawn before the timed loop from a pool of 256.

    .venv/bin/python bench/ab_checkouts.py OLD_TREE NEW_TREE benchmarkzoo/MO-Treasure-v0 ... [--rounds 5]

Make the old tree with ``git worktree add --detach /tmp/old <commit>``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

POOL = 256


def _single_agent(env_id: str, steps: int) -> float:
    import gymnasium as gym

    env = gym.make(env_id)
    env.reset(seed=0)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(POOL)]
    start = time.process_time()
    for i in range(steps):
        _, _, terminated, truncated, _ = env.step(actions[i % POOL])
        if terminated or truncated:
            env.reset()
    return steps / (time.process_time() - start)


def _parallel(env_id: str, steps: int) -> float:
    from benchmarkzoo import registration

    env = registration.make_parallel(env_id)
    env.reset(seed=0)
    pools = {}
    for agent in env.possible_agents:
        space = env.action_space(agent)
        space.seed(0)
        pools[agent] = [space.sample() for _ in range(POOL)]
    start = time.process_time()
    for i in range(steps):
        env.step({agent: pools[agent][i % POOL] for agent in env.agents})
        if not env.agents:
            env.reset()
    return steps / (time.process_time() - start)


def _vector(env_id: str, num_envs: int, steps: int) -> float:
    from benchmarkzoo import registration

    env = registration.make_vec(env_id, num_envs=num_envs)
    env.reset(seed=0)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(POOL)]
    start = time.process_time()
    for i in range(steps):
        env.step(actions[i % POOL])
    return num_envs * steps / (time.process_time() - start)


def child(env_id: str, steps: int, worlds: int) -> dict[str, float]:
    """One round in this interpreter: env-steps per CPU second of one env and of ``worlds`` native worlds."""
    from benchmarkzoo import registration

    found = registration.spec(env_id)
    one = _single_agent if found.kind in ("single", "mo") else _parallel
    figures = {"one env": one(env_id, steps)}
    if found.vector_entry_point is not None:
        figures[f"native vector, {worlds} worlds"] = _vector(env_id, worlds, max(steps // worlds, 20))
    return figures


def run_round(tree: str, env_id: str, steps: int, worlds: int) -> dict[str, float]:
    """One fresh interpreter importing benchmarkzoo from ``tree``."""
    environment = {**os.environ, "PYTHONPATH": tree, "SDL_VIDEODRIVER": "dummy", "OMP_NUM_THREADS": "1"}
    command = [sys.executable, os.path.abspath(__file__), "--child", env_id, "--steps", str(steps)]
    command += ["--worlds", str(worlds)]
    done = subprocess.run(command, env=environment, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{env_id} in {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", nargs="?", help="the checkout before the change")
    parser.add_argument("new", nargs="?", help="the checkout after the change")
    parser.add_argument("env_ids", nargs="*")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20_000, help="steps of one env per round")
    parser.add_argument("--worlds", type=int, default=64, help="worlds of the native vector form")
    parser.add_argument("--child", metavar="ENV_ID", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.steps, args.worlds)))
        return
    if not (args.old and args.new and args.env_ids):
        parser.error("give OLD_TREE NEW_TREE and at least one env id")
    with open("/proc/loadavg") as f:
        load_before = f.read().split()[:3]
    print(f"# CPU-time A/B: {args.old} (old) vs {args.new} (new), {args.rounds} alternating rounds")
    print(f"\n- load average at start: {' '.join(load_before)}")
    print("\n| env id | configuration | old (steps/CPU-s) | new (steps/CPU-s) | new / old |")
    print("|---|---|---:|---:|---:|")
    for env_id in args.env_ids:
        samples: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
        for _ in range(args.rounds):
            for which, tree in (("old", args.old), ("new", args.new)):
                for name, value in run_round(tree, env_id, args.steps, args.worlds).items():
                    samples[which].setdefault(name, []).append(value)
        for name in samples["old"]:
            old, new = statistics.median(samples["old"][name]), statistics.median(samples["new"][name])
            print(f"| {env_id} | {name} | {old:,.0f} | {new:,.0f} | {new / old:.2f} |")
    with open("/proc/loadavg") as f:
        print(f"\n- load average at end: {' '.join(f.read().split()[:3])}")


if __name__ == "__main__":
    main()
