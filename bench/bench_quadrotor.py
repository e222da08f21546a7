"""Throughput of ``benchmarkzoo/Quadrotor-v0`` beside Gymnasium's ``Pendulum-v1`` and ``CartPole-v1``, in one run.

The peers are the reference points a control env is usually compared with: ``Pendulum-v1`` is
continuous-action but has no native vector env (its vector rows use ``SyncVectorEnv``), and
``CartPole-v1`` has Gymnasium's own native vector env (``CartPoleVectorEnv``). All envs run
the same configurations in the same process, one after the other, so the ratios are
meaningful even on a shared, noisy machine where the absolute figures are not:

* one env through ``gym.make`` (wrappers included: passive checker, order enforcing, time limit);
* vector, n worlds: the native vector env (``vectorization_mode="vector_entry_point"``) for
  Quadrotor and CartPole, ``SyncVectorEnv`` for Pendulum (it has nothing faster);
* ``SyncVectorEnv`` over ``gym.make`` envs for all three.

Method: uniform random actions are drawn before the timed loop (a pool of pre-drawn rows is
cycled for the vector envs, so memory stays bounded at n=4096); resets are included (the
single-env loop calls ``reset()`` when an episode ends, vector envs autoreset). Random motor
commands crash a quadrotor within about 0.3 s, so its random-action rows include about one
autoreset per 30 world-steps; the last row flies near-hover commands (hover command plus
noise, few resets) to show the simulator's own speed. Each configuration is timed ``--runs``
times (3) for about ``--seconds`` each and the median is reported, in env-steps per second
(a vector step of n worlds counts n env-steps).

Usage::

    python bench/bench_quadrotor.py            # full table, about three minutes
    python bench/bench_quadrotor.py --quick    # smoke run, a few seconds
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from _timing import (
    POOL_ROWS,
    add_timing_args,
    calibrated_median,
    fmt_rate,
    header,
    method_lines,
    target_seconds,
    time_single,
    time_vector,
)
from gymnasium import spaces

import benchmarkzoo

QUAD = "benchmarkzoo/Quadrotor-v0"
PENDULUM = "Pendulum-v1"
CARTPOLE = "CartPole-v1"
VECTOR_SIZES = (1, 64, 1024, 4096)
QUICK_VECTOR_SIZES = (1, 64, 1024)
SYNC_SIZE = 64
NEAR_HOVER = -0.1  # about the hover command of the default vehicles (thrust-to-weight ~2.15)


def quadrotor_header() -> str:
    versions = {"numpy": np.__version__, "gymnasium": gym.__version__, "benchmarkzoo": benchmarkzoo.__version__}
    return header("Quadrotor-v0 vs Pendulum-v1 and CartPole-v1 throughput", versions)


# ---- actions ------------------------------------------------------------------------------------


def draw(space: spaces.Space, rng: np.random.Generator, count: int, centre: float | None = None) -> np.ndarray:
    """``count`` actions of the single ``space``, stacked on a leading axis.

    Box actions are uniform in the bounds, or ``centre`` plus uniform noise of 0.1 when given.
    """
    if isinstance(space, spaces.Discrete):
        return rng.integers(space.start, space.start + space.n, size=count)
    if centre is not None:
        values = centre + rng.uniform(-0.1, 0.1, size=(count, *space.shape))
    else:
        values = rng.uniform(space.low, space.high, size=(count, *space.shape))
    return np.clip(values, space.low, space.high).astype(space.dtype)


def measure(
    make: Callable[[], Any], num_envs: int | None, seconds: float, runs: int, seed: int = 0, centre: float | None = None
) -> float:
    """Median env-steps/s of ``runs`` timed runs of about ``seconds`` each.

    Args:
        make: builds the env (a single env when ``num_envs`` is None, else a vector env).
        num_envs: worlds per vector step, or ``None`` for a single env.
        centre: draw Box actions around this value instead of uniformly (see :func:`draw`).
    """
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    if num_envs is None:
        space = env.action_space
        pool = draw(space, rng, POOL_ROWS * 16, centre)
        actions = [a.item() if isinstance(space, spaces.Discrete) else a for a in pool]

        def run(count: int) -> float:
            return time_single(env, [actions[i % len(actions)] for i in range(count)])

        per_step = 1
    else:
        space = env.single_action_space
        pool = draw(space, rng, POOL_ROWS * num_envs, centre).reshape(POOL_ROWS, num_envs, *space.shape)

        def run(count: int) -> float:
            return time_vector(env, [pool[i % POOL_ROWS] for i in range(count)])

        per_step = num_envs

    rate = calibrated_median(run, per_step, seconds, runs)
    env.close()
    return rate


# ---- the table ----------------------------------------------------------------------------------


def single(env_id: str) -> Callable[[], Any]:
    return lambda: gym.make(env_id)


def vector(env_id: str, n: int, mode: str) -> Callable[[], Any]:
    return lambda: gym.make_vec(env_id, n, vectorization_mode=mode)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_timing_args(parser, "smoke run: short timings, n up to 1024")
    args = parser.parse_args(argv)
    seconds = target_seconds(args)
    sizes = QUICK_VECTOR_SIZES if args.quick else VECTOR_SIZES

    def rate(make: Callable[[], Any], num_envs: int | None, centre: float | None = None) -> float:
        return measure(make, num_envs, seconds, args.runs, centre=centre)

    print(quadrotor_header())
    print(method_lines(args.runs, seconds))
    print()
    print(f"| configuration | {QUAD} | {PENDULUM} | {CARTPOLE} | Quadrotor / Pendulum | Quadrotor / CartPole |")
    print("|---|---:|---:|---:|---:|---:|")

    def row(label: str, quad: float, pendulum: float, cartpole: float) -> None:
        print(
            f"| {label} | {fmt_rate(quad)} | {fmt_rate(pendulum)} | {fmt_rate(cartpole)} | "
            f"{quad / pendulum:.2f} | {quad / cartpole:.2f} |",
            flush=True,
        )

    row("one env, `gym.make`", rate(single(QUAD), None), rate(single(PENDULUM), None), rate(single(CARTPOLE), None))
    for n in sizes:
        row(
            f"vector, n={n} (Quadrotor, CartPole native; Pendulum sync)",
            rate(vector(QUAD, n, "vector_entry_point"), n),
            rate(vector(PENDULUM, n, "sync"), n),
            rate(vector(CARTPOLE, n, "vector_entry_point"), n),
        )
    row(
        f"SyncVectorEnv, n={SYNC_SIZE}",
        rate(vector(QUAD, SYNC_SIZE, "sync"), SYNC_SIZE),
        rate(vector(PENDULUM, SYNC_SIZE, "sync"), SYNC_SIZE),
        rate(vector(CARTPOLE, SYNC_SIZE, "sync"), SYNC_SIZE),
    )
    n = sizes[-1]
    hover = rate(vector(QUAD, n, "vector_entry_point"), n, centre=NEAR_HOVER)
    print()
    print(f"Quadrotor native vector, n={n}, near-hover commands ({NEAR_HOVER} +- 0.1, few resets): {fmt_rate(hover)}")


if __name__ == "__main__":
    main()
