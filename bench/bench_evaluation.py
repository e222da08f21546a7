"""What ``benchmarkzoo evaluate`` costs over stepping the same envs raw, and what a second worker gives.

Each round starts fresh interpreters, one after the other (interleaved, so the load hits both alike):

* **evaluate**: ``python -m benchmarkzoo evaluate --suite SUITE --policy random --num-envs N --out F``,
  the whole command: interpreter start, imports, suite and scenario sets, every episode seeded and
  hash-checked, aggregates with their bootstraps, the results file, the printed table.
* **raw**: a child of this script that imports benchmarkzoo and, per task, makes the same native
  vector env (``N`` worlds, the split's generator), sets up the same :class:`RandomPolicy` and steps
  it, autoreset on, for exactly the env-steps the evaluation recorded for that task. Nothing else.
* **2 workers**: the evaluate command with ``--workers 2``.

The overhead is ``evaluate / raw - 1`` of the median wall times; the speed-up ``1 worker / 2 workers``.
The load average is printed before and after. Goals (issue 22): overhead at most 15%, speed-up at
least 1.7x, at the suite's own episode counts.

Usage::

    python bench/bench_evaluation.py                      # core-v0, 5 rounds
    python bench/bench_evaluation.py --rounds 3 --episodes 1000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]  # the checkout whose benchmarkzoo runs (``--repo`` picks another)


def raw_child(plan_file: str) -> None:
    """Step every task of ``plan_file`` raw (the ``raw`` side of a round); runs in its own interpreter."""
    import numpy as np
    from gymnasium.vector import AutoresetMode

    from benchmarkzoo import registration
    from benchmarkzoo.evaluation.policies import RandomPolicy

    plan = json.loads(Path(plan_file).read_text())
    for task in plan["tasks"]:
        env = registration.make_vec(
            task["env"],
            plan["num_envs"],
            vectorization_mode="vector_entry_point",
            autoreset_mode=AutoresetMode.SAME_STEP,
            **task["kwargs"],
        )
        policy = RandomPolicy()
        policy.setup(env, registration.spec(task["env"]))
        policy.start_episodes(np.arange(env.num_envs), list(range(env.num_envs)))
        observations, _ = env.reset(seed=0)
        for _ in range(-(-task["steps"] // env.num_envs)):
            observations, *_ = env.step(policy.act(observations, env))
        env.close()


def timed(command: list[str]) -> float:
    """Wall seconds of ``command`` (which must succeed), its output discarded."""
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def evaluate_command(args: argparse.Namespace, out: Path, workers: int) -> list[str]:
    command = [sys.executable, "-m", "benchmarkzoo", "evaluate", "--suite", args.suite, "--policy", "random"]
    command += ["--num-envs", str(args.num_envs), "--workers", str(workers), "--out", str(out)]
    return command + (["--episodes", str(args.episodes)] if args.episodes else [])


def write_plan(args: argparse.Namespace, results_file: Path, plan_file: Path) -> int:
    """The raw side's plan: each task's env, kwargs and the env-steps the evaluation recorded; total steps."""
    from benchmarkzoo.evaluation.suites import load_suite
    from benchmarkzoo.scenario_sets import load_set

    steps = {t["id"]: t["steps"] for t in json.loads(results_file.read_text())["tasks"]}
    tasks = []
    for task in load_suite(args.suite).tasks:
        split = load_set(task.scenario_set).split(task.split)
        tasks.append({"env": task.env, "kwargs": {**split.env_kwargs(), **task.env_kwargs}, "steps": steps[task.id]})
    plan_file.write_text(json.dumps({"num_envs": args.num_envs, "tasks": tasks}))
    return sum(steps.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="core-v0")
    parser.add_argument("--episodes", type=int, default=None, help="episodes per task (default: the suite's)")
    parser.add_argument("--num-envs", type=int, default=8, help="worlds per vector env (evaluate's default)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (medians reported)")
    parser.add_argument("--repo", type=Path, default=None, help="a checkout to measure (default: this one)")
    parser.add_argument("--raw-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.raw_child:
        raw_child(args.raw_child)
        return
    global REPO
    REPO = (args.repo or REPO).resolve()
    os.environ["PYTHONPATH"] = str(REPO)  # both sides, and this process's own imports below, use it
    sys.path.insert(0, str(REPO))
    load_before = os.getloadavg()
    times: dict[str, list[float]] = {"evaluate": [], "raw": [], "evaluate --workers 2": []}
    with tempfile.TemporaryDirectory(prefix="bench-evaluation-") as scratch:
        plan = Path(scratch, "plan.json")
        timed(evaluate_command(args, Path(scratch, "first.json"), 1))  # warm caches; records the steps
        total_steps = write_plan(args, Path(scratch, "first.json"), plan)
        raw = [sys.executable, str(Path(__file__).resolve()), "--raw-child", str(plan)]
        for k in range(args.rounds):
            times["evaluate"].append(timed(evaluate_command(args, Path(scratch, f"one-{k}.json"), 1)))
            times["raw"].append(timed(raw))
            times["evaluate --workers 2"].append(timed(evaluate_command(args, Path(scratch, f"two-{k}.json"), 2)))
    load_after = os.getloadavg()

    median = {name: statistics.median(values) for name, values in times.items()}
    episodes = f"{args.episodes} episodes/task" if args.episodes else "the suite's episodes"
    print(
        f"# bench_evaluation: {args.suite}, random policy, {episodes}, {args.num_envs} worlds, {total_steps} env-steps"
    )
    print(f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs; checkout {REPO}")
    print(f"- load average (1, 5, 15 min): before {load_before}, after {load_after}")
    print(f"- command: {' '.join(['python', *sys.argv])}; {args.rounds} interleaved rounds, fresh interpreters\n")
    print("| run | median wall s | all rounds (s) | ratio to raw |")
    print("|---|---:|---:|---:|")
    for name, values in times.items():
        rounds = ", ".join(f"{v:.2f}" for v in values)
        print(f"| {name} | {median[name]:.2f} | {rounds} | {median[name] / median['raw']:.2f} |")
    overhead = median["evaluate"] / median["raw"] - 1
    speedup = median["evaluate"] / median["evaluate --workers 2"]
    print(f"\noverhead of evaluate over raw stepping: {100 * overhead:+.1f}%; 1 -> 2 workers: {speedup:.2f}x")


if __name__ == "__main__":
    main()
