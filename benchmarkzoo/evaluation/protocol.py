"""The evaluation protocol: run every task of a suite with one policy and write a results file.

Episodes can be spread over worker processes or Ray workers: a task's episodes are cut into
shares, each share plays on its own native (or sync/async) vector env, and outcomes are merged
by episode index, so the file is the same for any number of workers or shares. One pool of
worker processes serves the whole suite, and the shares of every task are queued up front (in
task order), so workers move on to the next task while the last shares of a task finish.

The results file is written atomically after each task, at most every ``save_every`` seconds
while a task runs (its finished episodes under status ``incomplete``), and on the way out of an
interrupted run (Ctrl-C, or any exception). ``resume=True`` reads it back and plays only the
episodes it lacks; episodes are independent, so the resumed file equals an uninterrupted run's.

Faults never cost finished work: a task that fails (its policy raised or exited) keeps the
episodes it finished, and ``--resume`` plays only the others; a fault no task caused (a dead
worker process, a full disk) stops the run with :class:`RunAbortedError` after saving what it can.
A refused resume is refused before anything is written. Pool workers die with the process that
started them (:mod:`benchmarkzoo.core.lifetime`).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.core.lifetime import die_with_parent
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
from benchmarkzoo.scenario_sets import Split, load_set, set_path

#: Called as each episode finishes: (task id, outcome, steps it took).
EpisodeCallback = Callable[[str, EpisodeOutcome, int], None]
#: Shares per worker and task: few, since each share pays for its env and its own tail of idle
#: worlds; tasks are queued back to back, so workers stay busy without finer shares.
SHARES_PER_WORKER = 2


#: How a refusal to resume says to start over.
START_OVER = "Pick another --out, or pass --restart to move the file aside and start over."


class ResumeError(BenchmarkZooError, ValueError):
    """``--resume`` given a file of another run (suite, policy, seed or episodes differ)."""


class RunAbortedError(BenchmarkZooError, RuntimeError):
    """The run stopped on a fault no task caused (a dead worker process, a full disk).

    Attributes:
        saved: whether the results file holds every episode finished before the fault; ``False``
            when the fault is that the file cannot be written (it then holds its last save).
    """

    def __init__(self, message: str, saved: bool = True):
        super().__init__(message)
        self.saved = saved


def failure_message(error: BaseException, policy_spec: str) -> str:
    """The one line a task failure is recorded with."""
    if isinstance(error, BenchmarkZooError):
        return str(error)
    if isinstance(error, SystemExit):
        return f"policy {policy_spec!r} called sys.exit({error.code!r}); a policy returns actions or raises."
    return f"{type(error).__name__}: {error} (while playing policy {policy_spec!r})"


#: Splits loaded by this process (the main one, or a worker), keyed by set and the file's path, mtime, size:
#: parsing a set's YAML costs tens of milliseconds, and a worker plays many shares of one task.
_SPLITS: dict[tuple, Split] = {}


def _split_of(task: Task) -> Split:
    path = set_path(task.scenario_set)
    stat = path.stat()
    key = (task.scenario_set, task.split, str(path), stat.st_mtime_ns, stat.st_size)
    split = _SPLITS.get(key)
    if split is None:
        if len(_SPLITS) >= 64:
            _SPLITS.clear()
        split = _SPLITS[key] = load_set(task.scenario_set).split(task.split)
    return split


def _run_share(
    task: Task, plans: list[EpisodePlan], policy_spec: str, backend: str, num_envs: int
) -> tuple[list[EpisodeOutcome], str | None]:
    """A worker's share of a task (top-level, so it pickles).

    A task failure comes back as its message, with the episodes the share finished before it.
    """
    finished: list[EpisodeOutcome] = []
    try:
        policy = load_policy(policy_spec)
        run_episodes(task, _split_of(task), plans, policy, backend, num_envs, lambda o, _: finished.append(o))
        return finished, None
    except (Exception, SystemExit) as failure:  # SystemExit too: it would end the worker, not the task
        return finished, failure_message(failure, policy_spec)


def split_shares(plans: list[EpisodePlan], parallel: int, num_envs: int) -> list[list[EpisodePlan]]:
    """Contiguous shares of ``plans``: about ``SHARES_PER_WORKER`` per worker, each at least ``num_envs`` long."""
    size = max(num_envs, -(-len(plans) // (max(1, parallel) * SHARES_PER_WORKER)), 1)
    return [plans[i : i + size] for i in range(0, len(plans), size)]


def _episode_record(outcome: EpisodeOutcome) -> Episode:
    """The results file's record of ``outcome`` (its fields, less the run's own ``simulator_restarts``)."""
    return Episode.model_validate(outcome, from_attributes=True)


@dataclass
class _Queued:
    task: Task
    indices: list[int]
    handles: list[Any] = field(default_factory=list)


class Dispatcher:
    """Plays shares of tasks on worker processes or Ray workers, kept for a whole run.

    The pool (or Ray) starts at :meth:`start` or at the first share. :meth:`queue` submits a task's
    shares ahead of time; :meth:`play` collects them (submitting them first if they were not queued).
    """

    def __init__(self, policy_spec: str, backend: str, num_envs: int, workers: int, ray_address: str | None = None):
        self.policy_spec, self.backend, self.num_envs = policy_spec, backend, num_envs
        self.workers, self.ray_address = workers, ray_address
        self._pool: ProcessPoolExecutor | None = None
        self._ray: Any = None
        self._remote: Any = None
        self.parallel = workers
        self._queued: dict[str, _Queued] = {}

    def start(self) -> None:
        """Start the pool (or join Ray) now; queueing or playing a share also does."""
        if self._pool is not None or self._remote is not None:
            return
        if self.backend != "ray":
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, initializer=die_with_parent, initargs=(os.getpid(),)
            )
            return
        from benchmarkzoo.evaluation.ray_backend import connect_ray

        ray = self._ray = connect_ray(self.ray_address)  # one clear line if the cluster cannot be joined
        self.parallel = self.workers if self.workers > 1 else max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._remote = ray.remote(num_cpus=1)(_run_share)

    def _submit(self, task: Task, share: list[EpisodePlan]) -> Any:
        if self._pool is not None:
            return self._pool.submit(_run_share, task, share, self.policy_spec, self.backend, self.num_envs)
        return self._remote.remote(task, share, self.policy_spec, "native", self.num_envs)

    def _cancel(self, handles: list[Any]) -> None:
        for handle in handles:
            if self._pool is not None:
                handle.cancel()
                continue
            with contextlib.suppress(self._ray.exceptions.RayError):  # its worker may be gone already
                self._ray.cancel(handle, force=True)

    def queue(self, task: Task, plans: list[EpisodePlan]) -> None:
        """Submit ``plans`` of ``task`` now, to be collected by :meth:`play`."""
        self.start()
        old = self._queued.pop(task.id, None)
        if old is not None:
            self._cancel(old.handles)
        queued = self._queued[task.id] = _Queued(task, [p.index for p in plans])
        queued.handles = [self._submit(task, share) for share in split_shares(plans, self.parallel, self.num_envs)]

    def queued(self, task_id: str) -> bool:
        return task_id in self._queued

    def _collect(self, task: Task, pending: list[Any]) -> tuple[list[Any], list[Any]]:
        """Wait for at least one of ``pending``: ``(results, still pending)``; a lost worker aborts the run."""
        lost = BrokenProcessPool if self._pool is not None else self._ray.exceptions.RayError
        try:
            if self._pool is not None:
                done, rest = wait(pending, return_when=FIRST_COMPLETED)
                return [h.result() for h in done], [h for h in pending if h in rest]
            done, rest = self._ray.wait(pending, num_returns=1)
            return [self._ray.get(done[0])], rest
        except lost as error:
            where = "a worker process" if self._pool is not None else f"a Ray worker ({type(error).__name__})"
            raise RunAbortedError(f"{where} died while playing task {task.id} (killed, or out of memory)") from error

    def play(self, task: Task, plans: list[EpisodePlan], record: Callable[[EpisodeOutcome, int], None]) -> None:
        """Play ``plans`` of ``task``, recording each outcome; a task failure is raised after its episodes."""
        queued = self._queued.get(task.id)
        if queued is None or queued.task != task or queued.indices != [p.index for p in plans]:
            self.queue(task, plans)
        pending = self._queued.pop(task.id).handles
        try:
            while pending:
                results, pending = self._collect(task, pending)
                for outcomes, error in results:
                    for outcome in outcomes:
                        record(outcome, outcome.length)
                    if error is not None:
                        raise BenchmarkZooError(error)
        finally:
            self._cancel(pending)

    def close(self, wait_workers: bool = True) -> None:
        """Cancel what is still queued and stop the worker processes (Ray itself is left running)."""
        for queued in self._queued.values():
            self._cancel(queued.handles)
        self._queued.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=wait_workers, cancel_futures=True)
            self._pool = None


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
    task: Task,
    policy_spec: str,
    *,
    backend: str = "native",
    num_envs: int = 8,
    workers: int = 1,
    seed: int = 0,
    on_episode: EpisodeCallback | None = None,
    done: list[Episode] | None = None,
    on_progress: Callable[[Callable[[], TaskResult]], None] | None = None,
    ray_address: str | None = None,
    dispatcher: Dispatcher | None = None,
) -> TaskResult:
    """Play one task; a policy or env failure is recorded in the result (with the episodes finished), not raised.

    Args:
        done: episodes already played (by a previous, interrupted run): only the others are played.
        on_progress: called after each finished episode (and on an interruption) with a function
            that builds the task's ``incomplete`` result so far; the caller decides when to build it.
        dispatcher: the worker pool (or Ray) of the whole run, for ``workers > 1`` or ``ray``;
            ``None``: one is started for this task and stopped after it.

    Raises:
        RunAbortedError: a worker process died, or ``on_progress`` could not save.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}.")
    started = time.perf_counter()
    spec = registration.spec(task.env)
    split = _split_of(task)
    plans = plan_episodes(task, seed, list(split.seeds))
    references = None
    if task.references is not None:
        references = {"random": task.references.random, "baseline": task.references.baseline}
    finished = {e.index: e for e in (done or [])}
    todo = [p for p in plans if p.index not in finished]

    def result(status: str, error: str | None = None, fronts=None) -> TaskResult:
        episodes = [finished[k] for k in sorted(finished)]
        return TaskResult(
            id=task.id,
            env_id=spec.id,
            kind=spec.kind,
            env_spec=spec.to_dict(),
            scenario_set=task.scenario_set,
            split=task.split,
            status=status,
            error=error,
            score=task.score,
            multi_objective=task.multi_objective,
            references=references,
            pareto_fronts=fronts,
            episodes=episodes,
            steps=sum(e.length for e in episodes),
            wall_time_s=time.perf_counter() - started,
        )

    def record(outcome: EpisodeOutcome, steps: int) -> None:
        finished[outcome.index] = _episode_record(outcome)
        if on_episode is not None:
            on_episode(task.id, outcome, steps)
        if on_progress is not None:
            on_progress(lambda: result("incomplete"))

    error = None
    own = None
    played = False  # every share came back: the pool can be stopped gently
    try:
        if not todo:
            pass
        elif backend != "ray" and workers <= 1:
            run_episodes(task, split, todo, load_policy(policy_spec), backend, num_envs, record)
        else:
            if dispatcher is None:
                dispatcher = own = Dispatcher(policy_spec, backend, num_envs, workers, ray_address)
            dispatcher.play(task, todo, record)
        played = True
    except RunAbortedError:
        raise
    except (Exception, SystemExit) as failure:  # the task fails, the run goes on: see failure_message
        error = failure_message(failure, policy_spec)
    finally:
        if own is not None:
            own.close(wait_workers=played)
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
        raise ResumeError(f"Cannot resume from {path}: not a readable results file ({reason}). {START_OVER}") from error
    ours = (suite.name, policy_spec, seed)
    theirs = (previous.suite, previous.policy.spec, previous.protocol_seed)
    if ours != theirs:
        raise ResumeError(
            f"Cannot resume from {path}: it holds suite {theirs[0]}, policy {theirs[1]!r}, seed {theirs[2]}; "
            f"this run is suite {ours[0]}, policy {ours[1]!r}, seed {ours[2]}. {START_OVER}"
        )
    unknown = sorted({t.id for t in previous.tasks} - {t.id for t in suite.tasks})
    if unknown:
        raise ResumeError(
            f"Cannot resume from {path}: suite {suite.name} has no task {', '.join(unknown)}. {START_OVER}"
        )
    return {t.id: t for t in previous.tasks}


def _done_episodes(task: Task, previous: TaskResult | None, seed: int) -> list[Episode]:
    """The episodes of ``previous`` that belong to ``task``'s protocol (those of a failed task too)."""
    if previous is None:
        return []
    split = _split_of(task)
    plans = plan_episodes(task, seed, list(split.seeds))
    for episode in previous.episodes:
        if episode.index >= len(plans) or (episode.seed, episode.scenario_seed) != (
            plans[episode.index].seed,
            plans[episode.index].scenario_seed,
        ):
            raise ResumeError(
                f"Cannot resume task {task.id}: its episode {episode.index} is not the protocol's "
                f"(was --episodes different?). {START_OVER}"
            )
    return list(previous.episodes)


class _Run:
    """One :func:`evaluate` call: the results so far, the file that keeps them, and the workers.

    Args:
        previous: the tasks of the file resumed; ``done``: their episodes of this run's protocol.
    """

    def __init__(
        self,
        tasks: list[Task],
        policy_spec: str,
        results: Results,
        *,
        backend: str,
        num_envs: int,
        workers: int,
        seed: int,
        out: Path | None,
        previous: dict[str, TaskResult],
        done: dict[str, list[Episode]],
        save_every: float,
        ray_address: str | None,
    ):
        self.tasks, self.policy_spec, self.results = tasks, policy_spec, results
        self.backend, self.num_envs, self.workers, self.seed = backend, num_envs, workers, seed
        self.out, self.previous, self.done, self.save_every = out, previous, done, save_every
        self.ray_address = ray_address
        self.started = self.last_save = time.perf_counter()
        self.current: Callable[[], TaskResult] | None = None  # builds the running task's result so far
        self.dispatcher = None
        if backend == "ray" or workers > 1:
            self.dispatcher = Dispatcher(policy_spec, backend, num_envs, workers, ray_address)

    def finished(self, task: Task) -> bool:
        """Whether the resumed file holds ``task`` complete (nothing to play)."""
        prior = self.previous.get(task.id)
        return prior is not None and prior.status == "ok" and len(self.done[task.id]) == task.episodes

    def play(self, position: int, task: Task, on_episode: EpisodeCallback | None) -> TaskResult:
        """The result of ``task`` (the ``position``-th), played unless the resumed file has it whole."""
        if self.finished(task):
            return self.previous[task.id]
        self.current = None
        if self.dispatcher is not None:
            self.queue_ahead(position)

        def counted(task_id: str, outcome: EpisodeOutcome, steps: int) -> None:
            # Every backend hands each outcome here, so the provenance counts every simulator restart.
            self.results.provenance.simulator_restarts += outcome.simulator_restarts
            if on_episode is not None:
                on_episode(task_id, outcome, steps)

        return run_task(
            task,
            self.policy_spec,
            backend=self.backend,
            num_envs=self.num_envs,
            workers=self.workers,
            seed=self.seed,
            on_episode=counted,
            done=self.done[task.id],
            on_progress=self.on_progress,
            ray_address=self.ray_address,
            dispatcher=self.dispatcher,
        )

    def queue_ahead(self, start: int) -> None:
        """Queue the shares of tasks ``start``.. on the workers, so no worker waits between tasks."""
        for later in self.tasks[start:]:
            if self.dispatcher.queued(later.id) or self.finished(later):
                continue
            try:
                finished = {e.index for e in self.done[later.id]}
                plans = plan_episodes(later, self.seed, list(_split_of(later).seeds))
            except BenchmarkZooError:
                return  # raised again, or recorded, when the run reaches this task
            todo = [p for p in plans if p.index not in finished]
            if todo:
                self.dispatcher.queue(later, todo)

    def snapshot(self) -> Results:
        """What the file holds now: the tasks played, the running one so far, the resumed file's others."""
        by_id = dict(self.previous)
        by_id.update((t.id, t) for t in self.results.tasks)
        if self.current is not None:
            running = self.current()
            by_id[running.id] = running
        tasks = [by_id[t.id] for t in self.tasks if t.id in by_id]
        return self.results.model_copy(update={"tasks": tasks})

    def on_progress(self, build: Callable[[], TaskResult]) -> None:
        self.current = build
        if time.perf_counter() - self.last_save >= self.save_every:
            self.save()

    def save(self, results: Results | None = None) -> None:
        """Write ``results`` (default: :meth:`snapshot`) to ``out``; a failed write aborts the run."""
        if self.out is None:
            return
        if results is None:
            results = self.snapshot()
            results.provenance.wall_time_s = time.perf_counter() - self.started
        try:
            results.write(self.out)
        except OSError as error:  # a full disk, most often; the atomic write left the last save intact
            reason = error.strerror or str(error)
            raise RunAbortedError(f"cannot write the results file {self.out}: {reason}", saved=False) from error
        self.last_save = time.perf_counter()

    def finish(self) -> Results:
        """The complete results, with provenance totals and suite aggregates, written to ``out``."""
        results = self.results
        wall = time.perf_counter() - self.started
        steps = sum(t.steps for t in results.tasks)
        results.provenance.wall_time_s = wall
        results.provenance.steps = steps
        results.provenance.steps_per_s = steps / wall if wall > 0 else 0.0
        results.aggregates = suite_aggregates(results.tasks)
        self.save(results)
        return results


def evaluate(
    suite: str | Suite,
    policy_spec: str,
    *,
    backend: str = "native",
    num_envs: int = 8,
    workers: int = 1,
    seed: int = 0,
    episodes: int | None = None,
    out: str | Path | None = None,
    on_episode: EpisodeCallback | None = None,
    on_task: Callable[[TaskResult], None] | None = None,
    resume: bool = False,
    ray_address: str | None = None,
    save_every: float = 1.0,
) -> Results:
    """Evaluate ``policy_spec`` on every task of ``suite``, writing ``out`` as it goes (atomically).

    Args:
        episodes: override every task's episode count (the results then differ from the protocol's).
        resume: continue the run recorded in ``out``: keep its finished episodes, play the rest.
        ray_address: with ``backend="ray"``, the cluster to join (``None``: a local Ray, or the
            one this process already started).
        save_every: seconds between writes of ``out`` while a task runs.

    Raises:
        ResumeError: ``out`` is not a file of this run (raised before anything is written).
        RunAbortedError: a worker process died, or ``out`` could not be written; what could be saved is.
    """
    suite = load_suite(suite) if not isinstance(suite, Suite) else suite
    for task in suite.tasks:
        check_task(task)
    policy = load_policy(policy_spec)
    out = Path(out) if out is not None else None
    if resume and out is None:
        raise ResumeError("--resume continues the run recorded in --out FILE; give --out.")
    previous = _resumable(out, suite, policy_spec, seed) if resume else {}
    tasks = [t if episodes is None else t.model_copy(update={"episodes": episodes}) for t in suite.tasks]
    # Every refusal comes before the first write, so a refused resume leaves the file as it was.
    done = {t.id: _done_episodes(t, previous.get(t.id), seed) for t in tasks}
    results = Results(
        suite=suite.name,
        protocol_seed=seed,
        provenance=provenance(backend, num_envs, workers),
        policy=PolicyInfo(name=policy.name, kind=policy.kind, spec=policy_spec, content_hash=policy.content_hash()),
        tasks=[],
    )
    run = _Run(
        tasks,
        policy_spec,
        results,
        backend=backend,
        num_envs=num_envs,
        workers=workers,
        seed=seed,
        out=out,
        previous=previous,
        done=done,
        save_every=save_every,
        ray_address=ray_address,
    )
    if run.dispatcher is not None:
        run.dispatcher.start()  # a missing Ray is refused here, before any task fails for it
    finished_ok = False
    try:
        for position, task in enumerate(tasks):
            result = run.play(position, task, on_episode)
            run.current = None
            results.tasks.append(result)
            if on_task:
                on_task(result)
            run.save()
        finished_ok = True
    except BaseException as error:
        if not (isinstance(error, RunAbortedError) and not error.saved):
            run.save()  # Ctrl-C, a dead worker or a crash: keep every finished episode for --resume
        raise
    finally:
        if run.dispatcher is not None:
            run.dispatcher.close(wait_workers=finished_ok)
    return run.finish()


__all__ = ["Dispatcher", "ResumeError", "RunAbortedError", "evaluate", "run_task", "split_shares"]
