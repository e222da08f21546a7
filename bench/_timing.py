"""Timing helpers shared by the ``bench/bench_*.py`` scripts (not a benchmark itself).

The scripts run as ``python bench/bench_x.py``, so ``bench/`` is ``sys.path[0]`` and they import
this module as ``from _timing import ...``. It imports only the standard library and numpy.

The method every calibrated script shares: actions are drawn before the timed loop (pools of
``POOL_ROWS`` pre-drawn rows or dicts are cycled), resets are included (single envs reset when an
episode ends, vector envs autoreset), a warm-up run is grown until it takes a measurable time
(:func:`calibrate`), then ``runs`` runs of that size are timed and the median is reported.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

POOL_ROWS = 256  # pre-drawn action rows (or dicts) cycled by the timed loops


# ---- header lines -------------------------------------------------------------------------------


def cpu_model() -> str:
    """The CPU model name (Linux ``/proc/cpuinfo``, else ``platform.processor()``) and core count."""
    name = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{name or platform.processor() or 'unknown'} ({os.cpu_count()} logical cores)"


def date_line() -> str:
    return f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}"


def machine_line() -> str:
    return f"- machine: {cpu_model()}, {platform.system()} {platform.release()}"


def versions_line(versions: dict[str, str]) -> str:
    """``- python X, numpy Y, ...`` for the given ``{package: version}`` (in order)."""
    return ", ".join([f"- python {platform.python_version()}", *(f"{name} {v}" for name, v in versions.items())])


def command_line() -> str:
    return f"- command: {' '.join([os.path.basename(sys.executable), *sys.argv])}"


def header(title: str, versions: dict[str, str], *extra: str, date: bool = True) -> str:
    """The Markdown preamble: ``# title``, date, machine, versions, ``extra`` lines, command."""
    lines = [f"# {title}", ""]
    if date:
        lines.append(date_line())
    lines += [machine_line(), versions_line(versions), *extra, command_line()]
    return "\n".join(lines)


def method_lines(runs: int, seconds: float) -> str:
    """The method note of the single-agent env-steps/s tables (maze, treasure, quadrotor)."""
    return (
        f"- method: median of {runs} runs of ~{seconds:g} s each; random actions drawn before the\n"
        "  timed loop; resets included (single env: reset() on episode end; vector: autoreset)"
    )


# ---- command line -------------------------------------------------------------------------------


def add_timing_args(parser: argparse.ArgumentParser, quick_help: str) -> None:
    """``--quick``, ``--seconds`` and ``--runs``, as the calibrated scripts take them."""
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--seconds", type=float, default=None, help="target seconds per timed run (1.0; quick 0.05)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per configuration; the median is reported")


def target_seconds(args: argparse.Namespace) -> float:
    """``--seconds`` if given, else 0.05 with ``--quick`` and 1.0 without."""
    return args.seconds if args.seconds is not None else (0.05 if args.quick else 1.0)


# ---- timed loops --------------------------------------------------------------------------------


def time_single(env: Any, actions: list[Any]) -> float:
    """Seconds to take ``actions`` in ``env``, resetting whenever an episode ends."""
    step, reset = env.step, env.reset
    start = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = step(action)
        if terminated or truncated:
            reset()
    return time.perf_counter() - start


def time_vector(env: Any, rows: list[np.ndarray]) -> float:
    """Seconds to step the vector ``env`` once per row of ``rows`` (autoreset does the resets)."""
    step = env.step
    start = time.perf_counter()
    for row in rows:
        step(row)
    return time.perf_counter() - start


def time_parallel_agents(env: Any, pool: list[dict[str, Any]], count: int) -> tuple[float, int]:
    """Seconds and agent-steps of ``count`` ParallelEnv steps with pooled action dicts."""
    step, reset = env.step, env.reset
    agent_steps = 0
    start = time.perf_counter()
    for t in range(count):
        actions = pool[t % POOL_ROWS]
        live = env.agents
        agent_steps += len(live)
        step({agent: actions[agent] for agent in live})
        if not env.agents:
            reset()
    return time.perf_counter() - start, agent_steps


def time_vector_agents(env: Any, pool: np.ndarray, count: int) -> tuple[float, int]:
    """Seconds and live agent-steps (``env.active``) of ``count`` multi-world vector steps."""
    step = env.step
    agent_steps = 0
    start = time.perf_counter()
    for t in range(count):
        agent_steps += int(env.active.sum())
        step(pool[t % POOL_ROWS])
    return time.perf_counter() - start, agent_steps


def parallel_action_pool(env: Any, seed: int) -> list[dict[str, Any]]:
    """``POOL_ROWS`` action dicts sampled from a ParallelEnv's spaces (space ``i`` seeded ``seed + i``)."""
    spaces = {agent: env.action_space(agent) for agent in env.possible_agents}
    for i, space in enumerate(spaces.values()):
        space.seed(seed + i)
    return [{agent: space.sample() for agent, space in spaces.items()} for _ in range(POOL_ROWS)]


# ---- calibration and medians --------------------------------------------------------------------


def calibrate(run: Callable[[int], float], seconds: float, start: int = 16, limit: int = 1 << 24) -> int:
    """Steps per timed run: grow a warm-up ``run(count)`` (seconds) until it takes a measurable time.

    The warm-up count starts at ``start`` and is multiplied by 4 until a run takes over
    ``0.05 * seconds`` (or reaches ``limit``); the result is scaled to about ``seconds``.
    """
    count = start
    while True:
        elapsed = run(count)
        if elapsed > 0.05 * seconds or count >= limit:
            break
        count *= 4
    return max(start, int(count * seconds / elapsed))


def calibrated_median(run: Callable[[int], float], per_step: int, seconds: float, runs: int) -> float:
    """Median steps/s of ``runs`` timed ``run(count)`` calls, ``count`` from :func:`calibrate`.

    ``run(count)`` returns the seconds of ``count`` loop steps; ``per_step`` is the env-steps one
    loop step counts (n for a vector step of n worlds).
    """
    count = calibrate(run, seconds)
    return statistics.median([count * per_step / run(count) for _ in range(runs)])


def measure(make: Callable[[], Any], num_envs: int | None, seconds: float, runs: int, seed: int = 0) -> float:
    """Median env-steps/s of a Discrete-action env, ``runs`` timed runs of about ``seconds`` each.

    Single env: a fresh list of uniform actions is drawn before each run; vector env: a pool of
    ``POOL_ROWS`` rows is drawn once and cycled.

    Args:
        make: builds the env (a single env when ``num_envs`` is None, else a vector env).
        num_envs: worlds per vector step, or ``None`` for a single env.
    """
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    if num_envs is None:
        n_actions = int(env.action_space.n)

        def run(count: int) -> float:
            return time_single(env, rng.integers(0, n_actions, size=count).tolist())

        per_step = 1
    else:
        pool = rng.integers(0, int(env.single_action_space.n), size=(POOL_ROWS, num_envs))

        def run(count: int) -> float:
            return time_vector(env, [pool[i % POOL_ROWS] for i in range(count)])

        per_step = num_envs
    rate = calibrated_median(run, per_step, seconds, runs)
    env.close()
    return rate


# ---- numbers ------------------------------------------------------------------------------------


def fmt_rate(rate: float) -> str:
    """``1.23M``, ``45.6k`` or ``789``."""
    if rate >= 1e6:
        return f"{rate / 1e6:.2f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f}k"
    return f"{rate:.0f}"
