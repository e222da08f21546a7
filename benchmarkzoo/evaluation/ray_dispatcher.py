"""Shares of episodes on Ray workers (``--backend ray``), of a local Ray or a cluster.

Each share plays on a native vector env in a Ray task of one CPU. Ray itself is left running
when the run ends (it may be the caller's); a Ray worker lost while it plays aborts the run.
"""

from __future__ import annotations

import contextlib
from typing import Any

from typing_extensions import override

from benchmarkzoo.evaluation.dispatch import ShareResult, WorkerDispatcher, lost_worker
from benchmarkzoo.evaluation.ray_backend import connect_ray
from benchmarkzoo.evaluation.runner import EpisodePlan
from benchmarkzoo.evaluation.shares import _run_share
from benchmarkzoo.evaluation.suites import Task


class RayDispatcher(WorkerDispatcher):
    """A :class:`~benchmarkzoo.evaluation.dispatch.WorkerDispatcher` over Ray tasks.

    ``workers > 1`` caps the shares in flight; ``1`` lets the cluster's CPUs decide.
    """

    _ray: Any = None
    _remote: Any = None

    @override
    def start(self) -> None:
        if self._remote is not None:
            return
        ray = self._ray = connect_ray(self.ray_address)  # one clear line if the cluster cannot be joined
        self.parallel = self.workers if self.workers > 1 else max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._remote = ray.remote(num_cpus=1)(_run_share)

    @override
    def submit(self, task: Task, share: list[EpisodePlan]) -> Any:
        return self._remote.remote(task, share, self.policy_spec, "native", self.num_envs)

    @override
    def results(self, task: Task, pending: list[Any]) -> tuple[list[ShareResult], list[Any]]:
        try:
            done, rest = self._ray.wait(pending, num_returns=1)
            return [self._ray.get(done[0])], rest
        except self._ray.exceptions.RayError as error:
            raise lost_worker(task, f"a Ray worker ({type(error).__name__})") from error

    @override
    def cancel(self, handles: list[Any]) -> None:
        for handle in handles:
            with contextlib.suppress(self._ray.exceptions.RayError):  # its worker may be gone already
                self._ray.cancel(handle, force=True)
