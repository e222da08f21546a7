"""Normalization references, measured by the tool itself: one command reproduces them."""

from __future__ import annotations

from pathlib import Path

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.protocol import run_task
from benchmarkzoo.evaluation.suites import References, Suite, load_suite, save_suite, suite_file


def calibrate(name_or_path: str | Path, num_envs: int = 16, seed: int = 0) -> Suite:
    """Run the random policy and the baseline on every task of a suite and store their mean returns.

    Args:
        name_or_path: a shipped suite's name (its file in the package is rewritten) or a suite
            YAML file (rewritten in place).
    """
    path = suite_file(name_or_path)
    suite = load_suite(path)
    tasks = []
    for task in suite.tasks:
        means = {}
        for policy in ("random", "baseline"):
            result = run_task(task.model_copy(update={"references": None}), policy, num_envs=num_envs, seed=seed)
            if result.status != "ok":
                raise BenchmarkZooError(f"Calibrating {suite.name}/{task.id} with {policy} failed: {result.error}")
            means[policy] = result.aggregates.mean
        references = References(random=means["random"], baseline=means["baseline"], seed=seed, episodes=task.episodes)
        tasks.append(task.model_copy(update={"references": references}))
    calibrated = suite.model_copy(update={"tasks": tuple(tasks)})
    save_suite(calibrated, path)
    return calibrated
