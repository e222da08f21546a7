"""Where a Routing-v0 day is simulated: a libsumo worker process, a fresh fork of it per day.

The ParallelEnv and every world of the native vector env use one :class:`RoutingWorkerRunner`
each: the shared :class:`~benchmarkzoo.envs.traffic.runner.WorkerRunner` (spawning, the
socket, errors naming the scenario, cleanup) and the shared worker of
:mod:`benchmarkzoo.envs.traffic.worker`, which starts each day in a fresh fork with
:func:`~benchmarkzoo.envs.traffic.routing.sim.start_day`. There is no in-process runner: a
fresh process per day is what makes a day's outcome depend on its seed alone (see that module).
"""

from __future__ import annotations

from benchmarkzoo.envs.traffic.routing.sim import Measurement, Plan
from benchmarkzoo.envs.traffic.runner import WorkerRunner


class RoutingWorkerRunner(WorkerRunner):
    """One simulated day at a time in a worker process; ``send_*``/``receive`` let a vector env overlap many."""

    starter = "benchmarkzoo.envs.traffic.routing.sim:start_day"

    def send_start(self, plan: Plan, label: str) -> None:  # type: ignore[override]
        """Start the day of ``plan`` in a fresh fork of the worker, without waiting for the reply."""
        self.label = label
        if self.process is None or self.process.poll() is not None:
            self.close()
            self._spawn()
        self._send("start", ("start", plan))

    def start(self, plan: Plan, label: str) -> Measurement:  # type: ignore[override]
        """Start the day of ``plan`` and return its first measurement."""
        self.send_start(plan, label)
        return self.receive()
