"""Where a traffic view's SUMO simulations live: a private temporary folder and the runners that use it.

Two mixins, for every SUMO-backed view (signal control and routing):

* :class:`SumoSession` (single-world views): one simulation at a time in ``_runner``; the
  folder ``_scratch`` and the runner are made on the first start (constructing an env starts no
  process), and :meth:`~SumoSession._close_session` stops the one and removes the other.
  It also draws the view's frames (:meth:`~SumoSession._render_frame`: the network's geometry and
  a snapshot read from SUMO only then, :mod:`benchmarkzoo.envs.traffic.render`).
* :class:`SumoWorkers` (native vector forms): one worker process per world in ``_runners``,
  sharing one folder; a vector env sends every world's request before reading any reply, so
  the workers simulate in parallel.

Both name the env by :attr:`~benchmarkzoo.envs.identity.SpecNamed.env_id` (the spec's id once
the registry has set it). The folders hold route files and SUMO's logs;
they are removed by ``close()`` or, for a view that is never closed, when it is garbage
collected, so no view leaves files or processes behind.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

from benchmarkzoo.core.errors import ResetNeededError, ScenarioError
from benchmarkzoo.envs.identity import SpecNamed
from benchmarkzoo.envs.traffic.geometry import network_geometry
from benchmarkzoo.envs.traffic.render import TrafficRenderer
from benchmarkzoo.envs.traffic.runner import WorkerRunner
from benchmarkzoo.envs.traffic.scenario import TrafficScenario, write_routes
from benchmarkzoo.envs.traffic.sumo import TrafficSimulationError


def new_scratch() -> Path:
    """A private temporary folder (route files, SUMO logs)."""
    return Path(tempfile.mkdtemp(prefix="benchmarkzoo-traffic-"))


class SumoSession(SpecNamed):
    """A single-world view's SUMO: ``_runner`` (from :meth:`_new_runner`) and its folder ``_scratch``.

    :meth:`_run_step` advances the simulation and keeps ``_measurement`` (``None`` after a
    failure) and ``_log``, the actions since the start (what pickling by replay replays).
    """

    _runner: Any = None
    _scratch: Path | None = None
    _finalizer: weakref.finalize | None = None
    _measurement: Any = None
    _log: list[Any]
    # the view base's (render_mode, metadata, scenario, the lazy renderer)
    render_mode: str | None
    metadata: dict[str, Any]
    scenario: Any
    _renderer: Any
    #: Vehicles whose ids start with this are the env's agents in a frame (Routing-v0's); ``None``: none.
    render_agents: ClassVar[str | None] = None

    def _new_runner(self, scratch: Path) -> Any:
        """The runner of this view's simulations, writing its files into ``scratch``."""
        raise NotImplementedError

    def _simulation_failed(self) -> None:
        """Called when a SUMO step fails, before the error propagates (a parallel view ends its agents)."""

    def _run_step(self, actions: Any) -> Any:
        """Advance the simulation with ``actions`` and return the new measurement.

        Raises:
            TrafficSimulationError: SUMO failed (or its process died); the measurement is dropped
                and :meth:`_simulation_failed` called first, so the view refuses to step until reset.
        """
        try:
            self._measurement = self._runner.step(actions)
        except TrafficSimulationError:
            self._measurement = None
            self._simulation_failed()
            raise
        self._log.append(actions)
        return self._measurement

    def _render_frame(self) -> Any:
        """The frame of the simulation now: its network and a snapshot of its vehicles and signals.

        The view base calls it (after its own checks) only with a ``render_mode``, so an env
        without one never reads a snapshot nor parses its network's geometry.
        """
        if self._runner is None:  # no simulation has started (a first start failed)
            raise ResetNeededError(f"{self.env_id}: no SUMO simulation is running; call reset() before render().")
        geometry = network_geometry(self.scenario)
        if self._renderer is None:
            mode, fps = self.render_mode or "rgb_array", self.metadata["render_fps"]
            self._renderer = TrafficRenderer(geometry, mode, fps, self.env_id)
        return self._renderer.draw(geometry, self._runner.snapshot(), self.render_agents)

    def _prepare(self, scenario: TrafficScenario) -> Path:
        """Make the folder and the runner if need be; write ``scenario``'s route file and return its path."""
        if self._scratch is None:
            self._scratch = new_scratch()
            self._finalizer = weakref.finalize(self, shutil.rmtree, str(self._scratch), True)
        routes = write_routes(scenario, self._scratch / "routes.rou.xml")
        if self._runner is None:
            self._runner = self._new_runner(self._scratch)
        return routes

    def _close_session(self) -> None:
        """Stop the runner and remove the folder; a later start makes new ones."""
        if self._runner is not None:
            self._runner.close()
            self._runner = None
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
            self._scratch = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()  # type: ignore[attr-defined]


class SumoWorkers(SpecNamed):
    """A native vector env's worker processes ``_runners``, one per world, sharing the folder ``_scratch``.

    A step or load sends every world's request first, then :meth:`_collect` reads the replies,
    so the workers simulate in parallel.
    """

    num_envs: int
    _has_reset: bool
    _measurements: list[Any]
    _finalizer: weakref.finalize | None = None

    def _init_workers(self, runner: type[WorkerRunner] = WorkerRunner) -> None:
        self._scratch = new_scratch()
        self._runners = [runner(self._scratch) for _ in range(self.num_envs)]
        self._finalizer = weakref.finalize(self, _cleanup, self._runners, str(self._scratch))

    def _routes(self, world: int, scenario: TrafficScenario) -> Path:
        """Write world ``world``'s route file for ``scenario`` and return its path."""
        return write_routes(scenario, self._scratch / f"routes-{world}.rou.xml")

    def _collect(self, worlds: Iterable[int], accept: Callable[[int, Any], None]) -> None:
        """Pass world ``i``'s reply to ``accept(i, reply)`` for every world of ``worlds``.

        Every reply is read, even after a failure, so no reply is left in a pipe; then the first
        failure (``TrafficSimulationError``, or a ``ScenarioError`` from ``accept``) is raised and
        every world must be reset before the next step. A failed world's measurement is ``None``.
        """
        failure: Exception | None = None
        for i in worlds:
            try:
                accept(i, self._runners[i].receive())
            except (TrafficSimulationError, ScenarioError) as error:
                failure = failure or error
                self._measurements[i] = None
        if failure is not None:
            self._has_reset = False
            raise failure

    def close_extras(self, **kwargs: Any) -> None:
        """Stop every world's worker and remove the folder."""
        if self._finalizer is not None:  # None: the constructor failed before the workers started
            self._finalizer()


def _cleanup(runners: list[WorkerRunner], scratch: str) -> None:
    for runner in runners:
        runner.close()
    shutil.rmtree(scratch, ignore_errors=True)
