"""The evaluation protocol: run every task of a suite with one policy and write a results file.

Episodes play in this process, on worker processes or on Ray workers, whichever
:class:`~benchmarkzoo.evaluation.dispatch.Dispatcher` the settings call for: a task's episodes
are cut into shares, each share plays on its own native (or sync/async) vector env, and outcomes
are merged by episode index, so the file is the same for any number of workers or shares. One
dispatcher serves the whole suite, and the shares of every task are queued up front (in task
order), so workers move on to the next task while the last shares of a task finish.

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

import time
from collections.abc import Callable
from pathlib import Path

from benchmarkzoo import registration
from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.dispatch import Dispatcher, RunAbortedError, dispatcher_class
from benchmarkzoo.evaluation.fronts import pareto_fronts
from benchmarkzoo.evaluation.policies import load_policy
from benchmarkzoo.evaluation.results import (
    Episode,
    PolicyInfo,
    Results,
    ScoreError,
    TaskResult,
    TaskStatus,
    aggregates_of,
    provenance,
    suite_aggregates,
)
from benchmarkzoo.evaluation.resume import ResumeError, done_episodes, earlier_runs, resumable
from benchmarkzoo.evaluation.runner import BACKENDS, EpisodeOutcome, plan_episodes
from benchmarkzoo.evaluation.shares import SHARES_PER_WORKER, failure_message, split_of, split_shares
from benchmarkzoo.evaluation.suites import Suite, Task, load_suite

#: Called as each episode finishes: (task id, outcome, steps it took).
EpisodeCallback = Callable[[str, EpisodeOutcome, int], None]


def _episode_record(outcome: EpisodeOutcome) -> Episode:
    """The results file's record of ``outcome`` (its fields, less the run's own ``simulator_restarts``)."""
    return Episode.model_validate(outcome, from_attributes=True)


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


class _TaskRun:
    """One task being played: its plans, the episodes finished so far, and the result they make.

    Args:
        done: episodes already played (by a previous, interrupted run): only the others are played.
        done_wall_time_s: the time the previous runs spent on the task, so the task's ``wall_time_s``
            covers every episode its ``steps`` counts.
    """

    def __init__(
        self,
        task: Task,
        seed: int,
        done: list[Episode] | None,
        on_episode: EpisodeCallback | None,
        on_progress: Callable[[Callable[[], TaskResult]], None] | None,
        done_wall_time_s: float = 0.0,
    ):
        self.started = time.perf_counter() - done_wall_time_s
        self.task, self.on_episode, self.on_progress = task, on_episode, on_progress
        self.spec = registration.spec(task.env)
        self.split = split_of(task)
        self.plans = plan_episodes(task, seed, list(self.split.seeds))
        self.finished = {e.index: e for e in (done or [])}
        self.todo = [p for p in self.plans if p.index not in self.finished]

    def record(self, outcome: EpisodeOutcome, steps: int) -> None:
        """Keep a finished episode, and tell the callbacks."""
        self.finished[outcome.index] = _episode_record(outcome)
        if self.on_episode is not None:
            self.on_episode(self.task.id, outcome, steps)
        if self.on_progress is not None:
            self.on_progress(self.incomplete)

    def incomplete(self) -> TaskResult:
        """The task's result so far, under status ``incomplete``."""
        return self.result("incomplete")

    def result(
        self, status: TaskStatus, error: str | None = None, fronts: dict[str, list[list[float]]] | None = None
    ) -> TaskResult:
        """The task's result with the episodes finished, in index order (no aggregates)."""
        task, spec = self.task, self.spec
        references = None
        if task.references is not None:
            references = {"random": task.references.random, "baseline": task.references.baseline}
        episodes = [self.finished[k] for k in sorted(self.finished)]
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
            wall_time_s=time.perf_counter() - self.started,
        )

    def final(self, error: str | None) -> TaskResult:
        """The task's result once played (``error``: it failed), with fronts and aggregates."""
        fronts = None if error else pareto_fronts(self.task, self.split, [p.scenario_seed for p in self.plans])
        done = self.result("failed" if error else "ok", error, fronts)
        return done.model_copy(update={"aggregates": aggregates_of(done)})


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
    done_wall_time_s: float = 0.0,
) -> TaskResult:
    """Play one task; a policy or env failure is recorded in the result (with the episodes finished), not raised.

    Args:
        task: the task (env, split, episode count, score).
        policy_spec: the ``--policy`` string (see :func:`~benchmarkzoo.evaluation.policies.load_policy`).
        backend: where the worlds live: one of :data:`~benchmarkzoo.evaluation.runner.BACKENDS`.
        num_envs: worlds per vector env (the results are the same for any).
        workers: worker processes (the results are the same for any).
        seed: the protocol seed; episode ``k`` is seeded from it, the task and ``k`` alone.
        on_episode: called as each episode finishes with the task id, the outcome and its steps.
        done: episodes already played (by a previous, interrupted run): only the others are played.
        on_progress: called after each finished episode (and on an interruption) with a function
            that builds the task's ``incomplete`` result so far; the caller decides when to build it.
        ray_address: with ``backend="ray"``, the cluster to join (``None``: a local Ray).
        dispatcher: where the whole run plays its episodes (see :mod:`benchmarkzoo.evaluation.dispatch`);
            ``None``: the one the settings call for, started for this task and stopped after it.
        done_wall_time_s: the time earlier runs spent playing ``done`` (added to the task's ``wall_time_s``).

    Returns:
        The task's result: ``ok`` with aggregates, or ``failed`` with the error and the episodes finished.

    Raises:
        RunAbortedError: a worker process died, or ``on_progress`` could not save.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}.")
    playing = _TaskRun(task, seed, done, on_episode, on_progress, done_wall_time_s)
    error = None
    own = None
    played = False  # every share came back: the workers can be stopped gently
    try:
        if playing.todo:
            if dispatcher is None:
                dispatcher = own = dispatcher_class(backend, workers)(
                    policy_spec, backend, num_envs, workers, ray_address
                )
            dispatcher.play(task, playing.todo, playing.record)
        played = True
    except RunAbortedError:
        raise
    except (Exception, SystemExit) as failure:  # the task fails, the run goes on: see failure_message
        error = failure_message(failure, policy_spec)
    finally:
        if own is not None:
            own.close(wait_workers=played)
    return playing.final(error)


class _Run:
    """One :func:`evaluate` call: the results so far, the file that keeps them, and where episodes play.

    :meth:`execute` plays the tasks in order and returns the complete results. The run's
    :class:`~benchmarkzoo.evaluation.dispatch.Dispatcher` serves every task; one that
    :attr:`~benchmarkzoo.evaluation.dispatch.Dispatcher.queues_ahead` gets the later tasks'
    shares ahead, so no worker waits between tasks.

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
        self.on_episode: EpisodeCallback | None = None
        self.dispatcher = dispatcher_class(backend, workers)(policy_spec, backend, num_envs, workers, ray_address)

    def execute(
        self, on_episode: EpisodeCallback | None = None, on_task: Callable[[TaskResult], None] | None = None
    ) -> Results:
        """Play every task, saving after each; on any way out (Ctrl-C, a dead worker) save what was finished."""
        self.on_episode = on_episode
        self.dispatcher.start()  # a missing Ray is refused here, before any task fails for it
        finished_ok = False
        try:
            for position, task in enumerate(self.tasks):
                result = self.play(position, task)
                self.current = None
                self.results.tasks.append(result)
                if on_task:
                    on_task(result)
                self.save()
            finished_ok = True
        except BaseException as error:
            if not (isinstance(error, RunAbortedError) and not error.saved):
                self.save()  # Ctrl-C, a dead worker or a crash: keep every finished episode for --resume
            raise
        finally:
            self.dispatcher.close(wait_workers=finished_ok)
        return self.finish()

    def finished(self, task: Task) -> bool:
        """Whether the resumed file holds ``task`` complete (nothing to play)."""
        prior = self.previous.get(task.id)
        return prior is not None and prior.status == "ok" and len(self.done[task.id]) == task.episodes

    def play(self, position: int, task: Task) -> TaskResult:
        """The result of ``task`` (the ``position``-th), played unless the resumed file has it whole."""
        if self.finished(task):
            return self.previous[task.id]
        self.current = None
        if self.dispatcher.queues_ahead:
            self.queue_ahead(position)
        return run_task(
            task,
            self.policy_spec,
            backend=self.backend,
            num_envs=self.num_envs,
            workers=self.workers,
            seed=self.seed,
            on_episode=self.counted,
            done=self.done[task.id],
            on_progress=self.on_progress,
            ray_address=self.ray_address,
            dispatcher=self.dispatcher,
            done_wall_time_s=self.previous[task.id].wall_time_s if task.id in self.previous else 0.0,
        )

    def counted(self, task_id: str, outcome: EpisodeOutcome, steps: int) -> None:
        """Every dispatcher hands each outcome here, so the provenance counts every simulator restart."""
        self.results.provenance.simulator_restarts += outcome.simulator_restarts
        if self.on_episode is not None:
            self.on_episode(task_id, outcome, steps)

    def queue_ahead(self, start: int) -> None:
        """Queue the shares of tasks ``start``.. on the workers, so no worker waits between tasks."""
        for later in self.tasks[start:]:
            if self.dispatcher.queued(later.id) or self.finished(later):
                continue
            try:
                finished = {e.index for e in self.done[later.id]}
                plans = plan_episodes(later, self.seed, list(split_of(later).seeds))
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
            self.time_this_run(results)
        try:
            results.write(self.out)
        except OSError as error:  # a full disk, most often; the atomic write left the last save intact
            reason = error.strerror or str(error)
            raise RunAbortedError(f"cannot write the results file {self.out}: {reason}", saved=False) from error
        self.last_save = time.perf_counter()

    def time_this_run(self, results: Results) -> None:
        """Set the provenance's time and throughput: this invocation's own steps over its own wall time.

        The episodes kept from a resumed file are not this invocation's work; counting their steps
        over its wall time was how a resumed run recorded 96,573 steps/s against about 13k real.
        """
        prov = results.provenance
        prov.wall_time_s = time.perf_counter() - self.started
        prov.steps = sum(t.steps for t in results.tasks) - prov.resumed_steps
        prov.steps_per_s = prov.steps / prov.wall_time_s if prov.wall_time_s > 0 else 0.0

    def finish(self) -> Results:
        """The complete results, with provenance totals and suite aggregates, written to ``out``."""
        results = self.results
        self.time_this_run(results)
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
    on_start: Callable[[dict[str, int]], None] | None = None,
) -> Results:
    """Evaluate ``policy_spec`` on every task of ``suite``, writing ``out`` as it goes (atomically).

    Args:
        suite: a shipped suite's name, a suite YAML file, or a loaded :class:`~benchmarkzoo.evaluation.suites.Suite`.
        policy_spec: the ``--policy`` string (see :func:`~benchmarkzoo.evaluation.policies.load_policy`).
        backend: where the worlds live (``native``, ``sync``, ``async``) or ``ray``.
        num_envs: worlds per vector env (the results are the same for any).
        workers: worker processes (the results are the same for any).
        seed: the protocol seed; episode ``k`` of task ``t`` is seeded from it, ``t`` and ``k`` alone.
        episodes: override every task's episode count (the results then differ from the protocol's).
        out: the results file (``None``: nothing is written).
        on_episode: called as each episode finishes with the task id, the outcome and its steps.
        on_task: called with each task's result as it finishes.
        resume: continue the run recorded in ``out``: keep its finished episodes, play the rest.
        ray_address: with ``backend="ray"``, the cluster to join (``None``: a local Ray, or the
            one this process already started).
        save_every: seconds between writes of ``out`` while a task runs.
        on_start: called once before any episode plays with each task's count of episodes already
            finished (kept from the resumed file; 0 without ``resume``), e.g. to start progress bars there.

    Raises:
        ResumeError: ``out`` is not a file of this run (raised before anything is written).
        RunAbortedError: a worker process died, or ``out`` could not be written; what could be saved is.
    """
    suite = load_suite(suite) if not isinstance(suite, Suite) else suite
    for task in suite.tasks:
        check_task(task)
    policy = load_policy(policy_spec)
    out = Path(out) if out is not None else None
    resumed = None
    if resume:
        if out is None:
            raise ResumeError("--resume continues the run recorded in --out FILE; give --out.")
        resumed = resumable(out, suite, policy_spec, seed)
    previous: dict[str, TaskResult] = {t.id: t for t in resumed.tasks} if resumed is not None else {}
    tasks = [t if episodes is None else t.model_copy(update={"episodes": episodes}) for t in suite.tasks]
    # Every refusal comes before the first write, so a refused resume leaves the file as it was.
    done = {t.id: done_episodes(t, previous.get(t.id), seed) for t in tasks}
    results = Results(
        suite=suite.name,
        protocol_seed=seed,
        provenance=provenance(backend, num_envs, workers),
        policy=PolicyInfo(name=policy.name, kind=policy.kind, spec=policy_spec, content_hash=policy.content_hash()),
        tasks=[],
    )
    # Kept episodes keep the figures of the runs that played them (earlier_runs); this run times its own.
    results.provenance.resumed_episodes = sum(len(d) for d in done.values())
    results.provenance.resumed_steps = sum(e.length for d in done.values() for e in d)
    results.provenance.earlier_runs = earlier_runs(resumed)
    if on_start is not None:
        on_start({t.id: len(done[t.id]) for t in tasks})
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
    return run.execute(on_episode, on_task)


__all__ = [
    "SHARES_PER_WORKER",
    "Dispatcher",
    "ResumeError",
    "RunAbortedError",
    "check_task",
    "evaluate",
    "run_task",
    "split_shares",
]
