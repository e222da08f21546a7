"""Stable-Baselines3 PPO end-to-end training throughput on benchmarkzoo, beside CartPole, in one run.

Three PPO trainings with the same hyperparameters, one after the other in one process:

* ``benchmarkzoo/Maze-v0`` through :func:`benchmarkzoo.adapters.sb3.make_vec_env` (the native
  vector env, one batched simulator);
* the same env through SB3's ``DummyVecEnv`` over ``Monitor``-wrapped single envs
  (``make_vec_env(..., backend="dummy")``);
* Gymnasium's ``CartPole-v1`` through SB3's ``make_vec_env`` (``DummyVecEnv``).

Maze's policy is ``MultiInputPolicy`` (a dict observation: a 2x5x5 view and a goal direction,
52 inputs), CartPole's ``MlpPolicy`` (4 inputs); both are 64x64 MLPs. Figures are env-steps of
``model.learn`` per second (rollout collection and the gradient updates), the median of
``--runs`` runs after a short warm-up, with one torch thread.

Then the adapter's overhead over raw stepping: random actions through ``NativeSB3VecEnv.step``
(SB3 info dicts, episode statistics, ``terminal_observation``) against the native vector env's
own ``step`` (``autoreset_mode=SAME_STEP``), at a few sizes.

Usage::

    python bench/bench_sb3.py            # about a minute and a half
    python bench/bench_sb3.py --quick    # smoke run, a few seconds
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

MAZE = "benchmarkzoo/Maze-v0"
MAZE_KWARGS = {"generator_kwargs": {"height": 11, "width": 11, "min_goal_distance": 4}, "max_episode_steps": 100}
CARTPOLE = "CartPole-v1"
PPO_KWARGS = {
    "n_steps": 128,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "policy_kwargs": {"net_arch": [64, 64]},
    "seed": 0,
    "device": "cpu",
}


def make_env(which: str, num_envs: int) -> Any:
    from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env

    from benchmarkzoo.adapters.sb3 import make_vec_env

    if which == "maze-native":
        return make_vec_env(MAZE, num_envs, seed=0, env_kwargs=MAZE_KWARGS)
    if which == "maze-dummy":
        return make_vec_env(MAZE, num_envs, seed=0, backend="dummy", env_kwargs=MAZE_KWARGS)
    return sb3_make_vec_env(CARTPOLE, n_envs=num_envs, seed=0)


def ppo_steps_per_second(which: str, num_envs: int, steps: int) -> float:
    from stable_baselines3 import PPO

    env = make_env(which, num_envs)
    policy = "MultiInputPolicy" if which.startswith("maze") else "MlpPolicy"
    model = PPO(policy, env, **PPO_KWARGS)
    model.learn(PPO_KWARGS["n_steps"] * num_envs)  # warm-up: one rollout and update
    started = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - started
    steps_done = model.num_timesteps - PPO_KWARGS["n_steps"] * num_envs
    env.close()
    return steps_done / elapsed


def raw_steps_per_second(num_envs: int, seconds: float, adapter: bool) -> float:
    from gymnasium.vector import AutoresetMode

    from benchmarkzoo import registration
    from benchmarkzoo.adapters.sb3 import make_vec_env

    if adapter:
        env = make_vec_env(MAZE, num_envs, seed=0, env_kwargs=MAZE_KWARGS)
        env.reset()

        def step(actions: np.ndarray) -> Any:
            return env.step(actions)
    else:
        env = registration.make_vec(
            MAZE,
            num_envs,
            vectorization_mode="vector_entry_point",
            autoreset_mode=AutoresetMode.SAME_STEP,
            **MAZE_KWARGS,
        )
        env.reset(seed=0)
        step = env.step
    pool = np.random.default_rng(0).integers(0, 4, size=(64, num_envs))
    return _timed(lambda i: step(pool[i % 64]), num_envs, seconds)


def _timed(call: Callable[[int], Any], per_call: int, seconds: float) -> float:
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for _ in range(16):
            call(calls)
            calls += 1
    return calls * per_call / (time.perf_counter() - started)


def median(fn: Callable[[], float], runs: int) -> float:
    return statistics.median(fn() for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=8, help="envs per VecEnv (default 8)")
    parser.add_argument("--steps", type=int, default=40_960, help="timed PPO env-steps per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0, help="per raw-stepping measurement")
    parser.add_argument("--quick", action="store_true", help="smoke run: few steps, one run")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.runs, args.seconds = 2_048, 1, 0.2

    import torch

    torch.set_num_threads(1)
    import stable_baselines3

    import benchmarkzoo

    print(
        f"# bench_sb3 {datetime.date.today()} · {platform.processor() or platform.machine()} · "
        f"python {platform.python_version()} · torch {torch.__version__} · SB3 {stable_baselines3.__version__} · "
        f"benchmarkzoo {benchmarkzoo.__version__}"
    )
    print(
        f"\nPPO end-to-end (model.learn), {args.num_envs} envs, n_steps={PPO_KWARGS['n_steps']}, "
        f"batch {PPO_KWARGS['batch_size']}, {PPO_KWARGS['n_epochs']} epochs, 64x64 MLP, 1 torch thread; "
        f"median of {args.runs} x {args.steps} steps\n"
    )
    print("| env | VecEnv | steps/s | / CartPole |\n|---|---|---:|---:|")
    figures = {}
    for which in ("cartpole-dummy", "maze-native", "maze-dummy"):
        figures[which] = median(lambda w=which: ppo_steps_per_second(w, args.num_envs, args.steps), args.runs)
    labels = {
        "cartpole-dummy": ("CartPole-v1", "DummyVecEnv"),
        "maze-native": ("Maze-v0", "native (make_vec_env)"),
        "maze-dummy": ("Maze-v0", "DummyVecEnv"),
    }
    for which, rate in figures.items():
        env, vec = labels[which]
        print(f"| {env} | {vec} | {rate:,.0f} | {rate / figures['cartpole-dummy']:.2f} |")
    print(f"\nMaze native / Maze DummyVecEnv: {figures['maze-native'] / figures['maze-dummy']:.2f}x")

    print(f"\nAdapter overhead over raw stepping (Maze-v0, random actions, median of {args.runs})\n")
    print(
        "| n | native step | NativeSB3VecEnv step | adapter / raw | adapter cost per env-step |\n"
        "|---:|---:|---:|---:|---:|"
    )
    for n in (1, 8, 64, 1024):
        raw = median(lambda n=n: raw_steps_per_second(n, args.seconds, adapter=False), args.runs)
        wrapped = median(lambda n=n: raw_steps_per_second(n, args.seconds, adapter=True), args.runs)
        cost_us = (1 / wrapped - 1 / raw) * 1e6
        print(f"| {n} | {raw:,.0f} | {wrapped:,.0f} | {wrapped / raw:.2f} | {cost_us:.2f} µs |")


if __name__ == "__main__":
    main()
