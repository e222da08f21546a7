"""Where a run's episodes are played: in this process, on a pool of worker processes, or on Ray workers.

:class:`Dispatcher` is the one interface :mod:`benchmarkzoo.evaluation.protocol` sees;
``Dispatcher(policy_spec, backend, num_envs, workers, ray_address)`` gives the kind the settings
call for, as ``pathlib.Path(...)`` gives a ``PosixPath``:

* :class:`InProcessDispatcher`: one worker and an env backend; outcomes are recorded as each
  episode finishes.
* :class:`~benchmarkzoo.evaluation.pool_dispatcher.PoolDispatcher`: ``workers > 1`` processes.
* :class:`~benchmarkzoo.evaluation.ray_dispatcher.RayDispatcher`: ``backend="ray"``.

The last two are :class:`WorkerDispatcher` s: a task's episodes go out as shares
(:func:`~benchmarkzoo.evaluation.shares.split_shares`) through three primitives, ``submit``,
``results`` and ``cancel``, and come back merged by episode index, so the results do not
depend on the dispatcher. A worker lost while it plays (killed, out of memory) aborts the run
with :class:`RunAbortedError`, which the run turns into one line after saving what it can.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import override

from benchmarkzoo.core.errors import BenchmarkZooError
from benchmarkzoo.evaluation.policies import load_policy
from benchmarkzoo.evaluation.runner import EpisodeOutcome, EpisodePlan, run_episodes
from benchmarkzoo.evaluation.shares import split_of, split_shares
from benchmarkzoo.evaluation.suites import Task

#: Records an outcome and the steps it took, as the run receives it.
Record = Callable[[EpisodeOutcome, int], None]
#: What a share comes back as: the outcomes it finished, and its task's failure message, if any.
ShareResult = tuple[list[EpisodeOutcome], str | None]


class RunAbortedError(BenchmarkZooError, RuntimeError):
    """The run stopped on a fault no task caused (a dead worker process, a full disk).

    Attributes:
        saved: whether the results file holds every episode finished before the fault; ``False``
            when the fault is that the file cannot be written (it then holds its last save).
    """

    def __init__(self, message: str, saved: bool = True):
        super().__init__(message)
        self.saved = saved


def dispatcher_class(backend: str, workers: int) -> type[Dispatcher]:
    """The :class:`Dispatcher` subclass for ``backend`` and ``workers``."""
    if backend == "ray":
        from benchmarkzoo.evaluation.ray_dispatcher import RayDispatcher

        return RayDispatcher
    if workers > 1:
        from benchmarkzoo.evaluation.pool_dispatcher import PoolDispatcher

        return PoolDispatcher
    return InProcessDispatcher


class Dispatcher(abc.ABC):
    """Plays the episodes of a run's tasks; one serves a whole run (see the module docstring).

    Args:
        policy_spec: the ``--policy`` string; each worker loads the policy from it.
        backend: ``native``, ``sync``, ``async`` (where the worlds of a task live) or ``ray``.
        num_envs: worlds per vector env.
        workers: worker processes (with ``ray``: shares in flight; ``1`` = the cluster's CPUs).
        ray_address: with ``ray``, the cluster to join (``None``: a local Ray).
    """

    #: Whether :meth:`queue` submits work ahead, so a run queues its later tasks while one plays.
    queues_ahead = False

    def __new__(cls, policy_spec: str, backend: str, num_envs: int, workers: int = 1, ray_address: str | None = None):
        """``Dispatcher(...)`` makes the subclass :func:`dispatcher_class` picks; a subclass makes itself."""
        if cls is Dispatcher:
            cls = dispatcher_class(backend, workers)
        return super().__new__(cls)

    def __init__(self, policy_spec: str, backend: str, num_envs: int, workers: int = 1, ray_address: str | None = None):
        self.policy_spec, self.backend, self.num_envs = policy_spec, backend, num_envs
        self.workers, self.ray_address = workers, ray_address

    def start(self) -> None:
        """Start the workers (or join Ray) now, so a missing Ray is refused before any task runs."""
        return None  # nothing to start in this process

    def queue(self, task: Task, plans: list[EpisodePlan]) -> None:
        """Submit ``plans`` of ``task`` ahead, for :meth:`play` to collect (only if :attr:`queues_ahead`)."""
        return None

    def queued(self, task_id: str) -> bool:
        """Whether episodes of ``task_id`` are queued."""
        return False

    @abc.abstractmethod
    def play(self, task: Task, plans: list[EpisodePlan], record: Record) -> None:
        """Play ``plans`` of ``task``, recording each outcome; a task failure is raised after its episodes.

        Raises:
            RunAbortedError: a worker died.
        """

    def close(self, wait_workers: bool = True) -> None:
        """Cancel what is still queued and stop the workers (``wait_workers``: let them finish first)."""
        return None


class InProcessDispatcher(Dispatcher):
    """Plays every episode in this process, recording each outcome as it finishes."""

    @override
    def play(self, task: Task, plans: list[EpisodePlan], record: Record) -> None:
        run_episodes(task, split_of(task), plans, load_policy(self.policy_spec), self.backend, self.num_envs, record)


@dataclass
class _Queued:
    task: Task
    indices: list[int]
    handles: list[Any] = field(default_factory=list)


class WorkerDispatcher(Dispatcher):
    """Plays shares of tasks on workers through ``submit``, ``results`` and ``cancel``; kept for a whole run.

    The workers start at :meth:`start` or at the first share. :meth:`queue` submits a task's
    shares ahead of time; :meth:`play` collects them (submitting them first if they were not queued).
    """

    queues_ahead = True

    def __init__(self, policy_spec: str, backend: str, num_envs: int, workers: int = 1, ray_address: str | None = None):
        super().__init__(policy_spec, backend, num_envs, workers, ray_address)
        self.parallel = workers  # shares that can play at once, known once started
        self._queued: dict[str, _Queued] = {}

    @abc.abstractmethod
    def submit(self, task: Task, share: list[EpisodePlan]) -> Any:
        """Send ``share`` of ``task`` to a worker: a handle for :meth:`results` and :meth:`cancel`."""

    @abc.abstractmethod
    def results(self, task: Task, pending: list[Any]) -> tuple[list[ShareResult], list[Any]]:
        """Wait for at least one of ``pending``: ``(their results, the handles still pending, in order)``.

        Raises:
            RunAbortedError: the worker of one of them died.
        """

    @abc.abstractmethod
    def cancel(self, handles: list[Any]) -> None:
        """Cancel ``handles`` (those already finished or lost are left alone)."""

    @override
    def queue(self, task: Task, plans: list[EpisodePlan]) -> None:
        self.start()
        old = self._queued.pop(task.id, None)
        if old is not None:
            self.cancel(old.handles)
        queued = self._queued[task.id] = _Queued(task, [p.index for p in plans])
        queued.handles = [self.submit(task, share) for share in split_shares(plans, self.parallel, self.num_envs)]

    @override
    def queued(self, task_id: str) -> bool:
        return task_id in self._queued

    @override
    def play(self, task: Task, plans: list[EpisodePlan], record: Record) -> None:
        queued = self._queued.get(task.id)
        if queued is None or queued.task != task or queued.indices != [p.index for p in plans]:
            self.queue(task, plans)
        pending = self._queued.pop(task.id).handles
        try:
            while pending:
                results, pending = self.results(task, pending)
                for outcomes, error in results:
                    for outcome in outcomes:
                        record(outcome, outcome.length)
                    if error is not None:
                        raise BenchmarkZooError(error)
        finally:
            self.cancel(pending)

    @override
    def close(self, wait_workers: bool = True) -> None:
        for queued in self._queued.values():
            self.cancel(queued.handles)
        self._queued.clear()
        self.shutdown(wait_workers)

    def shutdown(self, wait_workers: bool) -> None:
        """Stop the workers this dispatcher started (none, by default)."""


def lost_worker(task: Task, where: str) -> RunAbortedError:
    """The abort of a run whose worker (``where``: which) died while playing ``task``."""
    return RunAbortedError(f"{where} died while playing task {task.id} (killed, or out of memory)")
