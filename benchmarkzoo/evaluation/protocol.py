"""The evaluation protocol: run every task of a suite with one policy and write a results file.

Episodes can be spread over worker processes or Ray workers: a task's episodes are cut into
shares, each share plays on its own native (or sync/async) vector env, and outcomes are merged
by episode index, so the file is the same for any number of workers or shares.

The results file is written atomically after each task, at most every ``save_every`` seconds
while a task runs (its finished episodes under status ``incomplete``), and on the way out of an
interrupted run (Ctrl-C, or any exception). ``resume=True`` reads it back and plays only the
episodes it lacks; episodes are independent, so the resumed file equals an uninterrupted run's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.fronts import pareto_fronts
from benchmarkzoo.evaluation.policies import load_policy
from benchmarkzoo.evaluation.results import (
    Episode,
    PolicyInfo,
    Results,
    ScoreError,
    TaskResult,
    aggregates_of,
    provenance,
    suite_aggregates,
)
from benchmarkzoo.evaluation.runner import BACKENDS, EpisodeOutcome, EpisodePlan, plan_episodes, run_episodes
from benchmarkzoo.evaluation.suites import Suite, Task, load_suite
from benchmarkzoo.scenario_sets import load_set

#: Called as each episode finishes: (task id, outcome, steps it took).
EpisodeCallback = Callable[[str, EpisodeOutcome, int], None]
#: Shares per worker: enough that a slow share does not hold up the others, few enough to keep setup cheap.
SHARES_PER_WORKER = 4


class ResumeError(BenchmarkZooError, ValueError):
    """``--resume`` given a file of another run (suite, policy, seed or episodes differ)."""


def _run_share(
    task: Task, plans: list[EpisodePlan], policy_spec: str, backend: str, num_envs: int
) -> tuple[list[EpisodeOutcome], str | None]:
    """A worker's share of a task (top-level, so it pickles); a task failure comes back as its message."""
    try:
        split = load_set(task.scenario_set).split(task.split)
        return run_episodes(task, split, plans, load_policy(policy_spec), backend, num_envs), None
    except BenchmarkZooError as failure:
        return [], str(failure)


def split_shares(plans: list[EpisodePlan], parallel: int, num_envs: int) -> list[list[EpisodePlan]]:
    """Contiguous shares of ``plans``: about ``SHARES_PER_WORKER`` per worker, each at least ``num_envs`` long."""
    size = max(num_envs, -(-len(plans) // (max(1, parallel) * SHARES_PER_WORKER)), 1)
    return [plans[i : i + size] for i in range(0, len(plans), size)]


def _episode_record(outcome: EpisodeOutcome) -> Episode:
    return Episode(
        index=outcome.index, seed=outcome.seed, scenario_seed=outcome.scenario_seed,
        scenario_hash=outcome.scenario_hash, episode_return=outcome.episode_return, team_return=outcome.team_return,
        length=outcome.length, success=outcome.success, metrics=outcome.metrics,
    )


def _play_processes(task, plans, policy_spec, backend, num_envs, workers, record) -> None:
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        pending = {pool.submit(_run_share, task, share, policy_spec, backend, num_envs)
                   for share in split_shares(plans, workers, num_envs)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                outcomes, error = future.result()
                if error is not None:
                    raise BenchmarkZooError(error)
                for outcome in outcomes:
                    record(outcome, outcome.length)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _play_ray(task, plans, policy_spec, num_envs, workers, ray_address, record) -> None:
    """Shares of ``plans`` as Ray tasks, each on the native backend; ``ray_address`` reaches a cluster."""
    try:
        import ray
    except ImportError as error:
        from benchmarkzoo.core.errors import MissingExtraError

        raise MissingExtraError("--backend ray needs Ray: pip install 'benchmarkzoo[rllib]'.") from error
    if not ray.is_initialized():
        ray.init(address=ray_address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    parallel = workers if workers > 1 else max(1, int(ray.cluster_resources().get("CPU", 1)))
    remote = ray.remote(num_cpus=1)(_run_share)
    pending = [remote.remote(task, share, policy_spec, "native", num_envs)
               for share in split_shares(plans, parallel, num_envs)]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            outcomes, error = ray.get(done[0])
            if error is not None:
                raise BenchmarkZooError(error)
            for outcome in outcomes:
                record(outcome, outcome.length)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


def check_task(task: Task) -> None:
    """Refuse, before anything runs, a task whose score or settings cannot apply to its env's kind."""
    spec = registration.spec(task.env)
    if spec.kind in ("mo", "moma") and task.score.kind == "return":
        raise ScoreError(
            f"task {task.id}: {spec.id} has vector rewards; give the task an explicit score, e.g. "
            "`score: {kind: utility, weights: [0.5, 0.5]}`."
        )
    if spec.kind not in ("mo", "moma") and (task.score.kind == "utility" or task.multi_objective is not None):
        raise ScoreError(
            f"task {task.id}: {spec.id} has scalar rewards; utility scores and multi_objective need vector rewards."
        )


def run_task(
    task: Task, policy_spec: str, *, backend: str = "native", num_envs: int = 8, workers: int = 1,
    seed: int = 0, on_episode: EpisodeCallback | None = None, done: list[Episode] | None = None,
    on_progress: Callable[[Callable[[], TaskResult]], None] | None = None, ray_address: str | None = None,
) -> TaskResult:
    """Play one task; a policy or env failure is recorded in the result, not raised.

    Args:
        done: episodes already played (by a previous, interrupted run): only the others are played.
        on_progress: called after each finished episode (and on an interruption) with a function
            that builds the task's ``incomplete`` result so far; the caller decides when to build it.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}.")
    started = time.perf_counter()
    spec = registration.spec(task.env)
    split = load_set(task.scenario_set).split(task.split)
    plans = plan_episodes(task, seed, list(split.seeds))
    references = None
    if task.references is not None:
        references = {"random": task.references.random, "baseline": task.references.baseline}
    finished = {e.index: e for e in (done or [])}
    todo = [p for p in plans if p.index not in finished]

    def result(status: str, error: str | None = None, fronts=None) -> TaskResult:
        episodes = [] if error else [finished[k] for k in sorted(finished)]
        return TaskResult(
            id=task.id, env_id=spec.id, kind=spec.kind, env_spec=spec.to_dict(), scenario_set=task.scenario_set,
            split=task.split, status=status, error=error, score=task.score, multi_objective=task.multi_objective,
            references=references, pareto_fronts=fronts, episodes=episodes,
            steps=sum(e.length for e in episodes), wall_time_s=time.perf_counter() - started,
        )

    def record(outcome: EpisodeOutcome, steps: int) -> None:
        finished[outcome.index] = _episode_record(outcome)
        if on_episode is not None:
            on_episode(task.id, outcome, steps)
        if on_progress is not None:
            on_progress(lambda: result("incomplete"))

    error = None
    try:
        if not todo:
            pass
        elif backend == "ray":
            _play_ray(task, todo, policy_spec, num_envs, workers, ray_address, record)
        elif workers <= 1:
            run_episodes(task, split, todo, load_policy(policy_spec), backend, num_envs, record)
        else:
            _play_processes(task, todo, policy_spec, backend, num_envs, workers, record)
    except BenchmarkZooError as failure:
        error = str(failure)
    fronts = None if error else pareto_fronts(task, split, [p.scenario_seed for p in plans])
    done_result = result("failed" if error else "ok", error, fronts)
    return done_result.model_copy(update={"aggregates": aggregates_of(done_result)})


def _resumable(path: Path, suite: Suite, policy_spec: str, seed: int) -> dict[str, TaskResult]:
    """The tasks of a previous run's results file, checked to be of this run."""
    if not path.is_file():
        return {}
    try:
        previous = Results.read(path)
    except Exception as error:  # a corrupt file: the user decides, nothing is overwritten
        reason = type(error).__name__
        raise ResumeError(f"Cannot resume from {path}: not a readable results file ({reason}).") from error
    ours = (suite.name, policy_spec, seed)
    theirs = (previous.suite, previous.policy.spec, previous.protocol_seed)
    if ours != theirs:
        raise ResumeError(
            f"Cannot resume from {path}: it holds suite {theirs[0]}, policy {theirs[1]!r}, seed {theirs[2]}; "
            f"this run is suite {ours[0]}, policy {ours[1]!r}, seed {ours[2]}. Pick another --out."
        )
    return {t.id: t for t in previous.tasks}


def _done_episodes(task: Task, previous: TaskResult | None, seed: int) -> list[Episode]:
    """The episodes of ``previous`` that belong to ``task``'s protocol (a failed task is played again)."""
    if previous is None or previous.status == "failed":
        return []
    split = load_set(task.scenario_set).split(task.split)
    plans = plan_episodes(task, seed, list(split.seeds))
    for episode in previous.episodes:
        if episode.index >= len(plans) or (episode.seed, episode.scenario_seed) != (
            plans[episode.index].seed, plans[episode.index].scenario_seed
        ):
            raise ResumeError(
                f"Cannot resume task {task.id}: its episode {episode.index} is not the protocol's "
                f"(was --episodes different?). Pick another --out."
            )
    return list(previous.episodes)


def evaluate(
    suite: str | Suite, policy_spec: str, *, backend: str = "native", num_envs: int = 8, workers: int = 1,
    seed: int = 0, episodes: int | None = None, out: str | Path | None = None,
    on_episode: EpisodeCallback | None = None, on_task: Callable[[TaskResult], None] | None = None,
    resume: bool = False, ray_address: str | None = None, save_every: float = 1.0,
) -> Results:
    """Evaluate ``policy_spec`` on every task of ``suite``, writing ``out`` as it goes (atomically).

    Args:
        episodes: override every task's episode count (the results then differ from the protocol's).
        resume: continue the run recorded in ``out``: keep its finished episodes, play the rest.
        ray_address: with ``backend="ray"``, the cluster to join (``None``: a local Ray, or the
            one this process already started).
        save_every: seconds between writes of ``out`` while a task runs.
    """
    suite = load_suite(suite) if not isinstance(suite, Suite) else suite
    for task in suite.tasks:
        check_task(task)
    policy = load_policy(policy_spec)
    out = Path(out) if out is not None else None
    if resume and out is None:
        raise ResumeError("--resume continues the run recorded in --out FILE; give --out.")
    previous = _resumable(out, suite, policy_spec, seed) if resume else {}
    started = time.perf_counter()
    results = Results(
        suite=suite.name, protocol_seed=seed, provenance=provenance(backend, num_envs, workers),
        policy=PolicyInfo(name=policy.name, kind=policy.kind, spec=policy_spec, content_hash=policy.content_hash()),
        tasks=[],
    )
    current: dict[str, Any] = {"build": None}
    last_write = [time.perf_counter()]

    def write(final: bool = False) -> None:
        if out is None:
            return
        snapshot = results
        if current["build"] is not None:
            snapshot = results.model_copy(update={"tasks": [*results.tasks, current["build"]()]})
        snapshot.provenance.wall_time_s = time.perf_counter() - started
        snapshot.write(out)
        last_write[0] = time.perf_counter()

    def on_progress(build: Callable[[], TaskResult]) -> None:
        current["build"] = build
        if time.perf_counter() - last_write[0] >= save_every:
            write()

    try:
        for task in suite.tasks:
            if episodes is not None:
                task = task.model_copy(update={"episodes": episodes})
            prior = previous.get(task.id)
            done = _done_episodes(task, prior, seed)
            if prior is not None and prior.status == "ok" and len(done) == task.episodes:
                result = prior  # finished before the interruption: nothing to play
            else:
                current["build"] = None
                result = run_task(
                    task, policy_spec, backend=backend, num_envs=num_envs, workers=workers, seed=seed,
                    on_episode=on_episode, done=done, on_progress=on_progress, ray_address=ray_address,
                )
            current["build"] = None
            results.tasks.append(result)
            if on_task:
                on_task(result)
            write()
    except BaseException:
        write()  # Ctrl-C or a crash: keep every finished episode for --resume
        raise
    wall = time.perf_counter() - started
    steps = sum(t.steps for t in results.tasks)
    results.provenance.wall_time_s = wall
    results.provenance.steps = steps
    results.provenance.steps_per_s = steps / wall if wall > 0 else 0.0
    results.aggregates = suite_aggregates(results.tasks)
    if out is not None:
        results.write(out)
    return results


__all__ = ["ResumeError", "evaluate", "run_task", "split_shares"]
