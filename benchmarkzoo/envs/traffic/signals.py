"""The plumbing every signal-control view shares: TrafficSignal-v0, TrafficGrid-v0, their MO variants, RESCO.

A view states its spaces, rewards and infos, and its arguments (a
:class:`~benchmarkzoo.envs.traffic.config.SignalConfig`); these two mixins own the SUMO side:

* :class:`SignalEpisode` (single-world views): one simulation at a time
  (:class:`~benchmarkzoo.envs.traffic.session.SumoSession`), starting it, advancing it, pickling
  by replay (:class:`~benchmarkzoo.envs.traffic.replay.ReplayPickling`) and cleanup.
* :class:`SignalWorlds` (native vector forms): one worker process per world
  (:class:`~benchmarkzoo.envs.traffic.session.SumoWorkers`), loading and collecting every world.

Both name the env by :attr:`env_id` (see :class:`~benchmarkzoo.envs.identity.SpecNamed`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarkzoo.envs.traffic import sim
from benchmarkzoo.envs.traffic.config import SignalConfig, Signals
from benchmarkzoo.envs.traffic.replay import ReplayPickling
from benchmarkzoo.envs.traffic.runner import Runner, make_runner
from benchmarkzoo.envs.traffic.scenario import TrafficScenario, network_file
from benchmarkzoo.envs.traffic.session import SumoSession, SumoWorkers


class SignalEpisode(SumoSession, ReplayPickling):
    """The SUMO side of a single-world signal-control view.

    The view calls :meth:`_init_simulation` in its ``_setup``, :meth:`_start` when it loads a
    scenario and :meth:`_advance` every step, and implements :meth:`_waiting` (each signal's
    summed waiting time, which ``diff-waiting-time`` rewards against) and, to refuse a
    simulation that does not fit its spaces, :meth:`_check_layout`.
    """

    scenario_type = TrafficScenario
    config: SignalConfig
    params: Signals
    # Made by each start and read every step (the view refuses a step before reset). ``_measurement``
    # is ``None`` (SumoSession's default) before a start and after a failure, which ``_step`` and
    # pickling test for; every other reader runs on a live simulation.
    layout: sim.Layout
    _measurement: sim.Measurement

    def _init_simulation(self) -> None:
        """Read the checked config and the simulator's parameters; no SUMO starts yet."""
        self.timing = self.params.timing
        self.reward_kind = self.config.reward
        self.backend = self.config.backend
        self.in_process = self.config.in_process
        self.emissions = bool(self.config.emissions)
        self.scenario: TrafficScenario | None = None
        self._totals = sim.EpisodeTotals()
        self._log: list[np.ndarray] = []  # since the last reset: replayed to rebuild the simulation after pickling

    # ---- hooks --------------------------------------------------------------------------------

    def _new_runner(self, scratch: Path) -> Runner:
        return make_runner(self.backend, self.in_process, scratch)

    def _waiting(self, layout: sim.Layout, m: sim.Measurement) -> Any:
        """The waiting time(s) the next ``diff-waiting-time`` reward is measured against."""
        raise NotImplementedError

    def _check_layout(self, layout: sim.Layout, scenario: TrafficScenario) -> None:
        """Raise :class:`ScenarioError` unless the simulation's signals fit the env's spaces."""

    # ---- the simulation ------------------------------------------------------------------------

    def _start(self, scenario: TrafficScenario) -> None:
        self._measurement = None  # type: ignore[assignment]  # a start that fails leaves no simulation (see above)
        net, routes = network_file(scenario), self._prepare(scenario)
        label = f"{self.env_id} {scenario.label}"
        layout, m = self._runner.start(net, routes, scenario.sumo_seed, self.timing, label, self.emissions)
        self._check_layout(layout, scenario)
        self.scenario, self.layout, self._measurement = scenario, layout, m
        self._previous_waiting = self._waiting(layout, m)
        self._totals = sim.EpisodeTotals()
        self._log = []

    def _advance(self, actions: np.ndarray) -> None:
        self._totals.add(self.layout, self._run_step(actions))

    def _replay(self, actions: np.ndarray) -> None:
        self._advance(actions)
        self._previous_waiting = self._waiting(self.layout, self._measurement)

    def _close_simulation(self) -> None:
        self._close_session()
        self._measurement = None  # type: ignore[assignment]  # no simulation after close (see above)


class SignalWorlds(SumoWorkers):
    """The worlds of a native vector signal-control env, each simulated in its own libsumo worker process.

    The env calls :meth:`_init_signal_worlds` in its ``_setup``, then ``_init_workers`` once its
    spaces are made, and implements :meth:`_waiting` (and :meth:`_loaded` to check a world's
    simulation); :meth:`_load_worlds` and ``close_extras`` are the vector base's hooks.
    """

    num_envs: int
    generator: Any
    config: SignalConfig
    params: Signals
    _has_reset: bool
    # World i's are made by its load and read every step (the env refuses a step before reset);
    # a world whose load or step failed has no measurement (None) until every world is reset.
    scenarios: list[TrafficScenario]
    layouts: list[sim.Layout]
    _measurements: list[sim.Measurement]
    # The vector base's scenario choice and the view's infos, which _load_worlds calls
    _next_scenarios: Callable[[np.ndarray, dict[str, Any] | None], list[TrafficScenario]]
    _info: Callable[[], dict[str, np.ndarray]]

    def _init_signal_worlds(self, waiting: tuple[int, ...]) -> None:
        """Set up the worlds; ``waiting`` is the shape of one world's :meth:`_waiting`."""
        self.timing = self.params.timing
        self.reward_kind = self.config.reward
        self.emissions = bool(self.config.emissions)
        self.layouts = [None] * self.num_envs  # type: ignore[list-item]  # until each world's load (see above)
        self._measurements = [None] * self.num_envs  # type: ignore[list-item]
        self._previous_waiting = np.zeros((self.num_envs, *waiting), dtype=np.float64)
        self._totals = [sim.EpisodeTotals() for _ in range(self.num_envs)]

    def _waiting(self, layout: sim.Layout, m: sim.Measurement) -> Any:
        """One world's waiting time(s) the next ``diff-waiting-time`` reward is measured against."""
        raise NotImplementedError

    def _loaded(self, i: int, layout: sim.Layout, m: sim.Measurement) -> None:
        """World ``i``'s simulation has started; raise :class:`ScenarioError` if it does not fit."""
        self.layouts[i], self._measurements[i] = layout, m
        self._previous_waiting[i] = self._waiting(layout, m)
        self._totals[i] = sim.EpisodeTotals()

    def _load_worlds(self, worlds: np.ndarray, options: dict[str, Any] | None) -> dict[str, np.ndarray]:
        for i, scenario in zip(worlds, self._next_scenarios(worlds, options), strict=True):
            self._runners[i].send_start(
                network_file(scenario),
                self._routes(i, scenario),
                scenario.sumo_seed,
                self.timing,
                f"{self.env_id} world {i} {scenario.label}",
                self.emissions,
            )
        self._collect(worlds, lambda i, reply: self._loaded(i, *reply))
        return self._info()

    def _stepped(self, i: int, m: sim.Measurement) -> None:
        """World ``i``'s measurement after a step."""
        self._measurements[i] = m
        self._totals[i].add(self.layouts[i], m)
