"""The evaluation protocol: run every task of a suite with one policy and write a results file.

Episodes can be spread over worker processes; each worker plays an interleaved share of a
task's episodes on its own vector env, and outcomes are merged by episode index, so the file
is the same for any number of workers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.policies import load_policy
from benchmarkzoo.evaluation.results import (
    Episode,
    PolicyInfo,
    Results,
    TaskResult,
    provenance,
    suite_aggregates,
    task_aggregates,
)
from benchmarkzoo.evaluation.runner import EpisodeOutcome, EpisodePlan, plan_episodes, run_episodes
from benchmarkzoo.evaluation.suites import Suite, Task, load_suite
from benchmarkzoo.scenario_sets import load_set

#: Called as each episode finishes: (task id, outcome, steps it took).
EpisodeCallback = Callable[[str, EpisodeOutcome, int], None]


def _run_share(
    task: Task, plans: list[EpisodePlan], policy_spec: str, backend: str, num_envs: int
) -> list[EpisodeOutcome]:
    """A worker's share of a task (a top-level function, so it pickles)."""
    split = load_set(task.scenario_set).split(task.split)
    return run_episodes(task, split, plans, load_policy(policy_spec), backend, num_envs)


def _episode_record(outcome: EpisodeOutcome) -> Episode:
    return Episode(
        index=outcome.index, seed=outcome.seed, scenario_seed=outcome.scenario_seed,
        scenario_hash=outcome.scenario_hash, episode_return=outcome.episode_return, length=outcome.length,
        success=outcome.success, metrics=outcome.metrics,
    )


def run_task(
    task: Task, policy_spec: str, *, backend: str = "native", num_envs: int = 8, workers: int = 1,
    seed: int = 0, on_episode: EpisodeCallback | None = None,
) -> TaskResult:
    """Play one task; a policy or env failure is recorded in the result, not raised."""
    started = time.perf_counter()
    spec = registration.spec(task.env)
    split = load_set(task.scenario_set).split(task.split)
    plans = plan_episodes(task, seed, list(split.seeds))
    references = None
    if task.references is not None:
        references = {"random": task.references.random, "baseline": task.references.baseline}
    outcomes: list[EpisodeOutcome] = []
    error = None
    try:
        if workers <= 1:
            callback = (lambda o, steps: on_episode(task.id, o, steps)) if on_episode else None
            outcomes = run_episodes(task, split, plans, load_policy(policy_spec), backend, num_envs, callback)
        else:
            shares = [plans[w::workers] for w in range(workers) if plans[w::workers]]
            with ProcessPoolExecutor(max_workers=len(shares)) as pool:
                futures = [pool.submit(_run_share, task, share, policy_spec, backend, num_envs) for share in shares]
                for future in futures:
                    for outcome in future.result():
                        outcomes.append(outcome)
                        if on_episode:
                            on_episode(task.id, outcome, outcome.length)
            outcomes.sort(key=lambda o: o.index)
    except BenchmarkZooError as failure:
        error = str(failure)
    episodes = [_episode_record(o) for o in outcomes]
    return TaskResult(
        id=task.id, env_id=spec.id, env_spec=spec.to_dict(), scenario_set=task.scenario_set, split=task.split,
        status="failed" if error else "ok", error=error, references=references, episodes=episodes,
        aggregates=task_aggregates(episodes, references) if episodes and not error else None,
        steps=sum(e.length for e in episodes), wall_time_s=time.perf_counter() - started,
    )


def evaluate(
    suite: str | Suite, policy_spec: str, *, backend: str = "native", num_envs: int = 8, workers: int = 1,
    seed: int = 0, episodes: int | None = None, out: str | Path | None = None,
    on_episode: EpisodeCallback | None = None, on_task: Callable[[TaskResult], None] | None = None,
) -> Results:
    """Evaluate ``policy_spec`` on every task of ``suite``; write ``out`` after each task (atomically).

    Args:
        episodes: override every task's episode count (the results then differ from the protocol's).
    """
    suite = load_suite(suite) if not isinstance(suite, Suite) else suite
    policy = load_policy(policy_spec)
    started = time.perf_counter()
    results = Results(
        suite=suite.name, protocol_seed=seed, provenance=provenance(backend, num_envs, workers),
        policy=PolicyInfo(name=policy.name, kind=policy.kind, spec=policy_spec, content_hash=policy.content_hash()),
        tasks=[],
    )
    for task in suite.tasks:
        if episodes is not None:
            task = task.model_copy(update={"episodes": episodes})
        result = run_task(
            task, policy_spec, backend=backend, num_envs=num_envs, workers=workers, seed=seed, on_episode=on_episode
        )
        results.tasks.append(result)
        if on_task:
            on_task(result)
        if out is not None:
            results.write(out)
    wall = time.perf_counter() - started
    steps = sum(t.steps for t in results.tasks)
    results.provenance.wall_time_s = wall
    results.provenance.steps = steps
    results.provenance.steps_per_s = steps / wall if wall > 0 else 0.0
    results.aggregates = suite_aggregates(results.tasks)
    if out is not None:
        results.write(out)
    return results
