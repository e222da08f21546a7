"""Signal control on a running SUMO simulation, and the numpy views (observation, reward) on it.

Why own the traffic-signal logic rather than use sumo-rl's ``TrafficSignal``: sumo-rl's class
is bound to its ``SumoEnvironment`` (it reads the env's clock, options and connection and
rewrites the signal program on construction), queries SUMO lane by lane every step, and
sumo-rl 1.4.5 is unmaintained (its PettingZoo entry point fails on pettingzoo 1.27). The logic
is small: phase choice with minimum green and yellow transitions, and lane measurements
through one subscription call per step. Owning it lets the same code run in-process (libsumo),
in a worker process (libsumo) or over TraCI, and return plain numpy arrays that pickle
cheaply across the worker pipe. The semantics follow sumo-rl's (same observation layout, same
``diff-waiting-time`` scaling) so results stay comparable.

:class:`SignalController` is the only part that talks to SUMO; it runs where SUMO runs. The
functions :func:`observe` and :func:`reward` are pure numpy over its :class:`Measurement`
and run in the env's process, identically for the single and the vector env.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

REWARDS: tuple[str, ...] = ("diff-waiting-time", "pressure", "queue")
#: Metres one queued vehicle occupies (SUMO's default passenger car: 5 m long, 2.5 m gap).
VEHICLE_SPACING = 7.5
# libsumo / TraCI variable ids (traci.constants): lane vehicle count, halting count, waiting time.
_LAST_STEP_VEHICLE_NUMBER = 0x10
_LAST_STEP_VEHICLE_HALTING_NUMBER = 0x14
_WAITING_TIME = 0x7A
_CO2_EMISSION = 0x60  # mg/s summed over the lane's vehicles in the last simulation second
_LANE_VARIABLES = (_LAST_STEP_VEHICLE_NUMBER, _LAST_STEP_VEHICLE_HALTING_NUMBER, _WAITING_TIME)
_ACCOUNTING_VARIABLES = (_CO2_EMISSION, _LAST_STEP_VEHICLE_HALTING_NUMBER)
_TRIP_PARAMETERS = ("device.tripinfo.count", "device.tripinfo.waitingTime", "device.tripinfo.duration")


@dataclasses.dataclass(frozen=True)
class Timing:
    """Seconds per env step, of yellow, and of minimum green.

    Attributes:
        delta_time: simulated seconds per env step.
        yellow_time: seconds of yellow between two different greens (``< delta_time``).
        min_green: seconds a green must show before the agent may end it.
    """

    delta_time: int = 5
    yellow_time: int = 2
    min_green: int = 5

    def __post_init__(self) -> None:
        for name in ("delta_time", "yellow_time", "min_green"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value <= 3600:
                raise ValueError(f"{name} must be an integer number of seconds in [0, 3600]; got {value!r}.")
        if not self.delta_time > 0:
            raise ValueError(f"delta_time must be at least 1 second; got {self.delta_time}.")
        if self.yellow_time >= self.delta_time:
            raise ValueError(
                f"yellow_time ({self.yellow_time}) must be shorter than delta_time ({self.delta_time}): "
                "a phase change happens inside one env step."
            )


@dataclasses.dataclass(frozen=True)
class Layout:
    """What the env needs to know of the controlled signals; read from SUMO once per simulation.

    Attributes:
        tls_ids: controlled traffic lights, sorted.
        greens: per signal, its green phase states (``"GGrr..."``), in program order.
        lanes: every measured lane (incoming and outgoing of every signal), sorted.
        incoming: per signal, ``(L_in,)`` int indices into ``lanes``.
        outgoing: per signal, ``(L_out,)`` int indices into ``lanes``.
        capacity: ``(len(lanes),)`` float64 vehicles that fit on each lane.
        phase_in: per signal, ``(P, L_in)`` float64 green movements from each incoming lane per phase.
        phase_out: per signal, ``(P, L_out)`` float64 green movements into each outgoing lane per phase.
    """

    tls_ids: tuple[str, ...]
    greens: tuple[tuple[str, ...], ...]
    lanes: tuple[str, ...]
    incoming: tuple[np.ndarray, ...]
    outgoing: tuple[np.ndarray, ...]
    capacity: np.ndarray
    phase_in: tuple[np.ndarray, ...]
    phase_out: tuple[np.ndarray, ...]

    def num_phases(self, tls: int = 0) -> int:
        """``P_k``, the green phases of signal ``tls``."""
        return len(self.greens[tls])


@dataclasses.dataclass(frozen=True)
class Measurement:
    """The state of the simulation after a step (or the start), as plain arrays.

    Attributes:
        time: simulated seconds.
        phase: ``(num_tls,)`` int64 index of each signal's current (or upcoming, during yellow) green.
        can_change: ``(num_tls,)`` bool, whether the minimum green has passed.
        vehicles: ``(len(lanes),)`` int64 vehicles on each lane.
        halting: ``(len(lanes),)`` int64 vehicles slower than 0.1 m/s on each lane.
        waiting: ``(len(lanes),)`` float64 summed waiting seconds of the vehicles on each lane.
        arrived: trips completed so far.
        mean_waiting_time: SUMO's mean waiting time of completed trips (seconds; 0 before any).
        mean_travel_time: SUMO's mean duration of completed trips (seconds; 0 before any).
        co2: milligrams of CO2 every vehicle in the network emitted during the step (SUMO's
            emission model; the default class is ``HBEFA4/PC_petrol_Euro-4``), summed second by second;
            0 unless the controller was made with ``accounting=True``.
        halted: vehicle-seconds spent halting (slower than 0.1 m/s) anywhere in the network
            during the step, summed second by second; 0 unless ``accounting=True``.
        signal_co2: ``(num_tls,)`` float64 milligrams of CO2 of :attr:`co2` emitted on each
            signal's own lanes (see :meth:`SignalController.lane_owners`); zeros unless ``accounting=True``.
        signal_halted: ``(num_tls,)`` float64 vehicle-seconds of :attr:`halted` on each signal's
            own lanes; zeros unless ``accounting=True``.
    """

    time: float
    phase: np.ndarray
    can_change: np.ndarray
    vehicles: np.ndarray
    halting: np.ndarray
    waiting: np.ndarray
    arrived: int
    mean_waiting_time: float
    mean_travel_time: float
    co2: float = 0.0
    halted: float = 0.0
    signal_co2: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    signal_halted: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))


def yellow_state(current: str, target: str) -> str:
    """Yellow for every link green now and red in ``target``; other links keep their state."""
    return "".join("y" if c in "Gg" and t not in "Gg" else c for c, t in zip(current, target))


class SignalController:
    """Drives every traffic light of one running SUMO simulation by phase choice.

    Args:
        conn: the ``libsumo`` module or a ``traci`` connection (same API), already started.
        timing: step, yellow and minimum-green durations.
        accounting: advance SUMO one second at a time and sum, over every lane of the network
            (internal junction lanes too), the CO2 emitted and the vehicles halting each second
            (:attr:`Measurement.co2`, :attr:`Measurement.halted`), and the same per signal over
            the lanes each signal owns (:meth:`lane_owners`). The trajectory is the same either
            way (``simulationStep(t)`` runs the same one-second steps); it costs one
            subscription read per simulated second.
    """

    def __init__(self, conn: Any, timing: Timing, accounting: bool = False):
        self.conn = conn
        self.timing = timing
        self.accounting = accounting
        self.layout = self._read_layout()
        num_tls = len(self.layout.tls_ids)
        self.time = round(conn.simulation.getTime())
        self.phase = np.zeros(num_tls, dtype=np.int64)
        self.green_since = np.full(num_tls, self.time, dtype=np.int64)
        for k, tls in enumerate(self.layout.tls_ids):
            conn.trafficlight.setRedYellowGreenState(tls, self.layout.greens[k][0])
        measured = set(self.layout.lanes)
        for lane in self.layout.lanes:
            conn.lane.subscribe(lane, _LANE_VARIABLES + (_ACCOUNTING_VARIABLES if accounting else ()))
        if accounting:  # a second subscribe would replace the first, so measured lanes got both lists above
            for lane in conn.lane.getIDList():
                if lane not in measured:
                    conn.lane.subscribe(lane, _ACCOUNTING_VARIABLES)
        self._co2 = 0.0
        self._halted = 0.0
        self._owner = self.lane_owners() if accounting else {}
        self._signal_co2 = [0.0] * num_tls
        self._signal_halted = [0.0] * num_tls

    def lane_owners(self) -> dict[str, int]:
        """``{lane id: signal index}``: the lanes whose traffic each signal answers for.

        A signal owns its controlled incoming lanes, the internal lanes of its junction(s) (the
        ``:<junction>_<i>_<j>`` lanes behind its links' ``via`` lanes) and those of its outgoing
        lanes that enter no other signal (exits from the network or towards unsignalized
        junctions). A lane between two signals belongs to the one it enters. On a network where
        every junction is signalized (the generated grids) every lane has an owner, so the signals'
        sums add up to the network's; a lane entering an unsignalized junction from another
        unsignalized one has none.
        """
        conn, layout = self.conn, self.layout
        owner: dict[str, int] = {}
        for k, lanes in enumerate(layout.incoming):
            for i in lanes.tolist():
                owner[layout.lanes[i]] = k
        junction_of: dict[str, int] = {}
        for k, tls in enumerate(layout.tls_ids):
            for group in conn.trafficlight.getControlledLinks(tls):
                for link in group:
                    via = link[2] if len(link) > 2 else ""
                    if via.startswith(":"):
                        junction_of.setdefault(via[1:].rsplit("_", 2)[0], k)
        for lane in conn.lane.getIDList():
            if lane.startswith(":"):
                junction = junction_of.get(lane[1:].rsplit("_", 2)[0])
                if junction is not None:
                    owner.setdefault(lane, junction)
        for k, lanes in enumerate(layout.outgoing):
            for i in lanes.tolist():
                owner.setdefault(layout.lanes[i], k)
        return owner

    def _read_layout(self) -> Layout:
        conn = self.conn
        tls_ids = tuple(sorted(conn.trafficlight.getIDList()))
        greens, links_per_tls = [], []
        lane_set: set[str] = set()
        for tls in tls_ids:
            logic = conn.trafficlight.getAllProgramLogics(tls)[0]
            states = tuple(p.state for p in logic.phases if "y" not in p.state and ("G" in p.state or "g" in p.state))
            greens.append(states)
            # every (incoming, outgoing) lane pair of each signal index: real networks (RESCO) share an
            # index among several lanes, generated ones have one link per index
            links = [tuple(tuple(link[:2]) for link in group) for group in conn.trafficlight.getControlledLinks(tls)]
            links_per_tls.append(links)
            lane_set.update(lane for group in links for link in group for lane in link)
        lanes = tuple(sorted(lane_set))
        index = {lane: i for i, lane in enumerate(lanes)}
        capacity = np.array([conn.lane.getLength(lane) / VEHICLE_SPACING for lane in lanes], dtype=np.float64)
        incoming, outgoing, phase_in, phase_out = [], [], [], []
        for states, links in zip(greens, links_per_tls):
            ins = sorted({link[0] for group in links for link in group})
            outs = sorted({link[1] for group in links for link in group})
            p_in = np.zeros((len(states), len(ins)))
            p_out = np.zeros((len(states), len(outs)))
            for p, state in enumerate(states):
                movements = {link for group, s in zip(links, state) if s in "Gg" for link in group}
                for lane_in, lane_out in movements:
                    p_in[p, ins.index(lane_in)] += 1.0
                    p_out[p, outs.index(lane_out)] += 1.0
            incoming.append(np.array([index[lane] for lane in ins], dtype=np.int64))
            outgoing.append(np.array([index[lane] for lane in outs], dtype=np.int64))
            phase_in.append(p_in)
            phase_out.append(p_out)
        return Layout(
            tls_ids=tls_ids,
            greens=tuple(greens),
            lanes=lanes,
            incoming=tuple(incoming),
            outgoing=tuple(outgoing),
            capacity=capacity,
            phase_in=tuple(phase_in),
            phase_out=tuple(phase_out),
        )

    def step(self, actions: np.ndarray) -> Measurement:
        """Show the chosen green at every signal (through yellow, once its minimum green is over).

        Args:
            actions: ``(num_tls,)`` int green-phase index per signal.
        """
        timing, conn, layout = self.timing, self.conn, self.layout
        start = self.time
        changing = [
            k
            for k, a in enumerate(actions.tolist())
            if a != self.phase[k] and start - self.green_since[k] >= timing.min_green
        ]
        if changing:
            for k in changing:
                greens = layout.greens[k]
                target = int(actions[k])
                conn.trafficlight.setRedYellowGreenState(
                    layout.tls_ids[k], yellow_state(greens[self.phase[k]], greens[target])
                )
                self.phase[k] = target
                self.green_since[k] = start + timing.yellow_time
            if timing.yellow_time > 0:
                self._advance(start, start + timing.yellow_time)
            for k in changing:
                conn.trafficlight.setRedYellowGreenState(layout.tls_ids[k], layout.greens[k][self.phase[k]])
            self._advance(start + timing.yellow_time, start + timing.delta_time)
        else:
            self._advance(start, start + timing.delta_time)
        self.time = start + timing.delta_time
        return self.measure()

    def _advance(self, now: int, until: int) -> None:
        """Simulate from second ``now`` to ``until``; with accounting, one second at a time."""
        if not self.accounting:
            self.conn.simulationStep(float(until))
            return
        conn, co2, halted = self.conn, 0.0, 0.0
        owner, signal_co2, signal_halted = self._owner, self._signal_co2, self._signal_halted
        for second in range(now + 1, until + 1):
            conn.simulationStep(float(second))
            for lane, values in conn.lane.getAllSubscriptionResults().items():
                emitted = values[_CO2_EMISSION]  # mg/s over one 1 s simulation step: mg
                halting = values[_LAST_STEP_VEHICLE_HALTING_NUMBER]
                co2 += emitted
                halted += halting
                k = owner.get(lane)
                if k is not None:
                    signal_co2[k] += emitted
                    signal_halted[k] += halting
        self._co2 += co2
        self._halted += halted

    def measure(self) -> Measurement:
        """Lane counts from the subscriptions, and SUMO's trip statistics so far."""
        results = self.conn.lane.getAllSubscriptionResults()
        lanes = self.layout.lanes
        vehicles = np.array([results[lane][_LAST_STEP_VEHICLE_NUMBER] for lane in lanes], dtype=np.int64)
        halting = np.array([results[lane][_LAST_STEP_VEHICLE_HALTING_NUMBER] for lane in lanes], dtype=np.int64)
        waiting = np.array([results[lane][_WAITING_TIME] for lane in lanes], dtype=np.float64)
        count, wait, duration = (self.conn.simulation.getParameter("", key) for key in _TRIP_PARAMETERS)
        co2, halted, self._co2, self._halted = self._co2, self._halted, 0.0, 0.0
        signal_co2 = np.array(self._signal_co2, dtype=np.float64)  # (num_tls,)
        signal_halted = np.array(self._signal_halted, dtype=np.float64)  # (num_tls,)
        self._signal_co2 = [0.0] * len(self._signal_co2)
        self._signal_halted = [0.0] * len(self._signal_halted)
        return Measurement(
            time=float(self.time),
            phase=self.phase.copy(),
            can_change=(self.time - self.green_since) >= self.timing.min_green,
            vehicles=vehicles,
            halting=halting,
            waiting=waiting,
            arrived=int(count or 0),
            mean_waiting_time=float(wait or 0.0),
            mean_travel_time=float(duration or 0.0),
            co2=co2,
            halted=halted,
            signal_co2=signal_co2,
            signal_halted=signal_halted,
        )


# ---- numpy views, run in the env's process ------------------------------------------------------


def observation_size(layout: Layout, tls: int = 0) -> int:
    """``P + 1 + 2L`` of signal ``tls``: the length of its own observation."""
    return layout.num_phases(tls) + 1 + 2 * len(layout.incoming[tls])


def observe(
    layout: Layout, m: Measurement, tls: int = 0, num_phases: int | None = None, num_lanes: int | None = None
) -> np.ndarray:
    """``(P + 1 + 2 * L_in,)`` float32: one-hot green, min-green passed, lane densities, lane queues.

    With ``num_phases`` and ``num_lanes`` (at least the signal's own ``P`` and ``L_in``) the
    same blocks are laid out ``num_phases`` and ``num_lanes`` wide, zero-padded, so signals of
    different shapes share one space: ``(num_phases + 1 + 2 * num_lanes,)``.
    """
    lanes = layout.incoming[tls]
    capacity = layout.capacity[lanes]
    own_lanes = len(lanes)
    width_p = layout.num_phases(tls) if num_phases is None else num_phases
    width_l = own_lanes if num_lanes is None else num_lanes
    out = np.zeros(width_p + 1 + 2 * width_l, dtype=np.float32)
    out[m.phase[tls]] = 1.0
    out[width_p] = float(m.can_change[tls])
    out[width_p + 1 : width_p + 1 + own_lanes] = np.minimum(1.0, m.vehicles[lanes] / capacity)
    out[width_p + 1 + width_l : width_p + 1 + width_l + own_lanes] = np.minimum(1.0, m.halting[lanes] / capacity)
    return out


def total_waiting(layout: Layout, m: Measurement, tls: int = 0) -> float:
    """Summed waiting seconds of the vehicles on the signal's incoming lanes."""
    return float(m.waiting[layout.incoming[tls]].sum())


def queue(layout: Layout, m: Measurement, tls: int = 0) -> int:
    """Halting vehicles on the signal's incoming lanes."""
    return int(m.halting[layout.incoming[tls]].sum())


def reward(kind: str, layout: Layout, m: Measurement, previous_waiting: float, tls: int = 0) -> float:
    """One signal's reward for the step that produced ``m``.

    * ``diff-waiting-time``: (previous - current) summed waiting time on incoming lanes, / 100;
    * ``pressure``: vehicles on outgoing lanes minus vehicles on incoming lanes (sumo-rl's sign);
    * ``queue``: minus the halting vehicles on incoming lanes.
    """
    if kind == "diff-waiting-time":
        return (previous_waiting - total_waiting(layout, m, tls)) / 100.0
    if kind == "pressure":
        return float(m.vehicles[layout.outgoing[tls]].sum() - m.vehicles[layout.incoming[tls]].sum())
    return -float(queue(layout, m, tls))


def step_info(layout: Layout, m: Measurement, tls: int = 0) -> dict[str, Any]:
    """The info dict of one step: traffic metrics a person would plot."""
    return {
        "sim_time": m.time,
        "queue": queue(layout, m, tls),
        "waiting_time": total_waiting(layout, m, tls),
        "arrived": m.arrived,
        "mean_waiting_time": m.mean_waiting_time,
        "mean_travel_time": m.mean_travel_time,
    }


# ---- episode metrics ----------------------------------------------------------------------------

#: Episode metrics, in the infos of every traffic env (see :func:`episode_metrics`).
METRIC_KEYS: tuple[str, ...] = ("mean_waiting_time", "mean_travel_time", "throughput", "mean_queue", "total_co2")


def incoming_lanes(layout: Layout) -> np.ndarray:
    """``(L,)`` int indices into ``layout.lanes`` of every lane entering any controlled signal."""
    return np.unique(np.concatenate(layout.incoming))


@dataclasses.dataclass
class EpisodeTotals:
    """Running sums over one episode, kept beside the simulation (in the env's process).

    Attributes:
        steps: env steps taken.
        queue: halting vehicles on every controlled incoming lane, summed over the steps.
        co2: milligrams of CO2 emitted in the network (0 without accounting).
    """

    steps: int = 0
    queue: float = 0.0
    co2: float = 0.0
    _lanes: np.ndarray | None = dataclasses.field(default=None, repr=False)  # incoming_lanes, once per episode

    def add(self, layout: Layout, m: Measurement) -> None:
        """Count one step's measurement into the episode's totals."""
        if self._lanes is None:
            self._lanes = incoming_lanes(layout)
        self.steps += 1
        self.queue += float(m.halting[self._lanes].sum())
        self.co2 += m.co2


def episode_metrics(m: Measurement, totals: EpisodeTotals, emissions: bool) -> dict[str, float]:
    """The episode's metrics so far (at the last step: the episode's).

    * ``mean_waiting_time``, ``mean_travel_time``: SUMO's means over completed trips (seconds);
    * ``throughput``: completed trips;
    * ``mean_queue``: halting vehicles on the controlled incoming lanes, averaged over env steps;
    * ``total_co2``: grams of CO2 emitted by every vehicle in the network (only with ``emissions``).
    """
    metrics = {
        "mean_waiting_time": m.mean_waiting_time,
        "mean_travel_time": m.mean_travel_time,
        "throughput": m.arrived,
        "mean_queue": totals.queue / totals.steps if totals.steps else 0.0,
    }
    if emissions:
        metrics["total_co2"] = totals.co2 / 1000.0
    return metrics
