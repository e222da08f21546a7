"""The evaluation runner's cost: its overhead over raw env stepping, and core-v0's wall time by workers.

1. **Overhead** (per core-v0 task): the runner plays the task's episodes on the native backend
   (``num_envs`` worlds, autoreset disabled, each episode reset with its seed and its recorded
   scenario, hash-checked, outcomes collected). The raw loop steps the same native vector env
   (autoreset on, scenarios drawn by the env) for the same number of env-steps. Both take
   actions from the same pre-drawn pool (drawn outside both timings), so policy cost is out of
   both; the runner's time includes creating its env and generating (and hashing) each scenario
   once (its scenario cache is emptied before every run, as a fresh task starts with it cold).
   The overhead is ``runner time / raw time - 1``, medians of ``--runs``. Goal: under 20%.
2. **Wall time** of ``evaluate --suite core-v0 --policy random`` (``--episodes`` per task) on 1 and
   2 worker processes, and with ``--ray`` on a local Ray of 2 workers; the scaling ratio is
   ``1-worker time / N-worker time`` (medians of ``--wall-runs``).

Last run (2 CPUs shared with other jobs, num_envs 16, ``--episodes 1000 --ray --runs 5 --wall-runs 3``):
overhead +12.6% overall (per task +5.9% maze-keys .. +20.3% quadrotor-hover); core-v0 wall time
5.32 s on 1 process, 3.04 s on 2 (1.75x), 3.06 s on local Ray with 2 workers (1.74x). With the
suite's 100 episodes per task (tasks of 20-40 ms) fixed costs and the idle tail weigh more: +48%.

Usage::

    python bench/bench_evaluation.py                  # suite episode counts (100 per task)
    python bench/bench_evaluation.py --episodes 1000  # the issue's figure (several minutes)
    python bench/bench_evaluation.py --ray            # also local Ray with 2 workers
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from benchmarkzoo import registration
from benchmarkzoo.evaluation.policies import Policy
from benchmarkzoo.evaluation.protocol import evaluate
from benchmarkzoo.evaluation.runner import clear_scenario_cache, plan_episodes, run_episodes
from benchmarkzoo.evaluation.suites import load_suite
from benchmarkzoo.scenario_sets import load_set

POOL = 256


def action_pool(env) -> list:
    """``POOL`` batched actions for ``env``, drawn once (outside every timing)."""
    space = batch_space(env.single_action_space, env.num_envs)
    space.seed(0)
    return [space.sample() for _ in range(POOL)]


class PoolPolicy(Policy):
    """Cycles a pool of pre-drawn batched actions (what the raw loop does too)."""

    name = "pool"

    def __init__(self, pool: list):
        self.pool = pool

    def setup(self, env, spec):
        self.k = 0

    def act(self, observations, env):
        self.k += 1
        return self.pool[self.k % POOL]


def make_raw_env(task, split, num_envs: int):
    kwargs = {**split.env_kwargs(), **task.env_kwargs}
    return registration.make_vec(
        task.env, num_envs, vectorization_mode="vector_entry_point", autoreset_mode=AutoresetMode.NEXT_STEP, **kwargs
    )


def raw_steps(task, split, num_envs: int, steps: int, pool: list) -> float:
    """Seconds to step the task's native vector env ``steps`` env-steps with pooled actions."""
    env = make_raw_env(task, split, num_envs)
    env.reset(seed=0)
    started = time.perf_counter()
    for k in range(-(-steps // num_envs)):
        env.step(pool[k % POOL])
    elapsed = time.perf_counter() - started
    env.close()
    return elapsed


def overhead(suite, num_envs: int, runs: int, episodes: int | None) -> list[tuple[str, int, float, float]]:
    rows = []
    for task in suite.tasks:
        if episodes is not None:
            task = task.model_copy(update={"episodes": episodes})
        split = load_set(task.scenario_set).split(task.split)
        plans = plan_episodes(task, 0, list(split.seeds))
        pool = action_pool(make_raw_env(task, split, max(1, min(num_envs, len(plans)))))
        runner_times, raw_times = [], []
        steps = 0
        for _ in range(runs):
            clear_scenario_cache()
            started = time.perf_counter()
            outcomes = run_episodes(task, split, plans, PoolPolicy(pool), "native", num_envs)
            runner_times.append(time.perf_counter() - started)
            steps = sum(o.length for o in outcomes)
            raw_times.append(raw_steps(task, split, len(pool[0]), steps, pool))
        rows.append((task.id, steps, statistics.median(runner_times), statistics.median(raw_times)))
    return rows


def wall_times(
    suite_name: str, episodes: int | None, num_envs: int, ray: bool, runs: int
) -> list[tuple[str, float, int]]:
    rows = []
    configs = [("native, 1 process", "native", 1), ("native, 2 processes", "native", 2)]
    if ray:
        configs.append(("ray, 2 workers (local)", "ray", 2))
    for label, backend, workers in configs:
        if backend == "ray":
            import ray as ray_module

            ray_module.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
        times, steps = [], 0
        for _ in range(runs):
            clear_scenario_cache()
            started = time.perf_counter()
            results = evaluate(
                suite_name, "random", backend=backend, num_envs=num_envs, workers=workers, episodes=episodes
            )
            times.append(time.perf_counter() - started)
            steps = results.provenance.steps
        rows.append((label, statistics.median(times), steps))
        if backend == "ray":
            ray_module.shutdown()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="core-v0")
    parser.add_argument("--episodes", type=int, default=None, help="episodes per task (default: the suite's)")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3, help="overhead runs per task (median reported)")
    parser.add_argument("--wall-runs", type=int, default=1, help="evaluations per wall-time row (median reported)")
    parser.add_argument("--ray", action="store_true", help="also time a local Ray with 2 workers")
    args = parser.parse_args()
    print(
        f"# bench_evaluation: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"num_envs {args.num_envs}, {time.strftime('%Y-%m-%d')}\n"
    )

    suite = load_suite(args.suite)
    print("| task | env-steps | runner s | raw s | overhead |")
    print("|---|---:|---:|---:|---:|")
    total_runner = total_raw = 0.0
    for task_id, steps, runner, raw in overhead(suite, args.num_envs, args.runs, args.episodes):
        total_runner += runner
        total_raw += raw
        print(f"| {task_id} | {steps} | {runner:.3f} | {raw:.3f} | {100 * (runner / raw - 1):+.1f}% |")
    print(f"| **all** | | {total_runner:.3f} | {total_raw:.3f} | **{100 * (total_runner / total_raw - 1):+.1f}%** |\n")

    rows = wall_times(args.suite, args.episodes, args.num_envs, args.ray, args.wall_runs)
    base = rows[0][1]
    header = f"{args.suite}, random policy, {args.episodes or 'suite'} episodes/task"
    print(f"| {header} | wall s | env-steps/s | speed-up |")
    print("|---|---:|---:|---:|")
    for label, wall, steps in rows:
        print(f"| {label} | {wall:.2f} | {steps / wall:,.0f} | {base / wall:.2f}x |")


if __name__ == "__main__":
    main()
