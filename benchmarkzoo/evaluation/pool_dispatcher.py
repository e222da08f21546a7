"""Shares of episodes on a pool of worker processes of this machine (``--workers N``).

The workers die with the process that started them (:mod:`benchmarkzoo.core.lifetime`), so a
killed run leaves none behind; one that dies while it plays aborts the run.
"""

from __future__ import annotations

import os
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from typing_extensions import override

from benchmarkzoo.core.lifetime import die_with_parent
from benchmarkzoo.evaluation.dispatch import ShareResult, WorkerDispatcher, lost_worker
from benchmarkzoo.evaluation.runner import EpisodePlan
from benchmarkzoo.evaluation.shares import _run_share
from benchmarkzoo.evaluation.suites import Task


class PoolDispatcher(WorkerDispatcher):
    """A :class:`~benchmarkzoo.evaluation.dispatch.WorkerDispatcher` over ``workers`` local processes."""

    _pool: ProcessPoolExecutor | None = None

    @override
    def start(self) -> None:
        self._started()

    def _started(self) -> ProcessPoolExecutor:
        """The pool, started on first use."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, initializer=die_with_parent, initargs=(os.getpid(),)
            )
        return self._pool

    @override
    def submit(self, task: Task, share: list[EpisodePlan]) -> Future:
        return self._started().submit(_run_share, task, share, self.policy_spec, self.backend, self.num_envs)

    @override
    def results(self, task: Task, pending: list[Future]) -> tuple[list[ShareResult], list[Future]]:
        try:
            done, rest = wait(pending, return_when=FIRST_COMPLETED)
            return [handle.result() for handle in done], [handle for handle in pending if handle in rest]
        except BrokenProcessPool as error:
            raise lost_worker(task, "a worker process") from error

    @override
    def cancel(self, handles: list[Future]) -> None:
        for handle in handles:
            handle.cancel()

    @override
    def shutdown(self, wait_workers: bool) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=wait_workers, cancel_futures=True)
            self._pool = None
