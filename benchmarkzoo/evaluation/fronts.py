"""Exact Pareto fronts of the scenarios a multi-objective task played, from the env itself.

Recorded in the results (``TaskResult.pareto_fronts``) so the front aggregates are recomputable
from the file alone; ``leaderboard validate`` recomputes them here and refuses forged fronts.
Returns in a results file are undiscounted sums, so fronts are taken with ``gamma = 1`` and the
task's time limit.
"""

from __future__ import annotations

from collections.abc import Iterable

from benchmarkzoo import registration
from benchmarkzoo.evaluation.suites import Task
from benchmarkzoo.scenario_sets import Split


def pareto_fronts(task: Task, split: Split, scenario_seeds: Iterable[int]) -> dict[str, list[list[float]]] | None:
    """``{scenario hash: front points}`` for the distinct ``scenario_seeds``; ``None`` if the env has no exact front."""
    spec = registration.spec(task.env)
    if spec.kind != "mo":
        return None
    env = registration.make(spec.id, **{**split.env_kwargs(), **task.env_kwargs})
    try:
        if not hasattr(env.unwrapped, "pareto_front"):
            return None
        limit = env.spec.max_episode_steps if env.spec is not None else None
        generator = split.make_generator()
        fronts = {}
        for seed in sorted(set(scenario_seeds)):
            scenario = generator.sample(seed)
            env.reset(seed=0, options={"scenario": scenario})
            fronts[scenario.content_hash] = env.unwrapped.pareto_front(gamma=1.0, max_steps=limit).tolist()
        return fronts
    finally:
        env.close()
