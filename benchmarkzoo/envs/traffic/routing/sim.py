"""Route choice on a running SUMO simulation, and the numpy views (observation, rewards, metrics) on it.

:class:`RoutingController` is the only part that talks to SUMO and runs where SUMO runs (this
process or a worker). It advances the simulation from one departure slot to the next, inserts
the agents that depart with the routes they chose, and records every vehicle's departure and
arrival second. The functions below it are pure numpy over its :class:`Measurement`, shared
by the ParallelEnv and the native vector env.

SUMO's current travel times are its routing engine's (``simulation.findRoute(edge, edge,
routingMode=ROUTING_MODE_AGGREGATED)``: the smoothed edge travel times SUMO's rerouting device
routes on, finite even on a blocked edge, unlike ``edge.getTraveltime``). Each query builds a
temporary vehicle; with SUMO's default vehicle type that draws a speed factor from the
simulation's random stream and so changes the rest of the run. The controller queries with its
own type whose speed deviation is 0, which draws nothing: reading travel times never changes
the simulation (checked with SUMO 1.28: a day with a query every minute ends exactly as one
without; with the default type it did not).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from benchmarkzoo.envs.traffic.routing.generator import RoutingScenario

#: SUMO's routing mode that uses the rerouting device's smoothed travel times (traci.constants).
ROUTING_MODE_AGGREGATED = 1
#: The vehicle type of travel-time queries: SUMO's default type without speed deviation.
QUERY_TYPE = "benchmarkzoo_query"
#: Extra SUMO options: trip statistics with all their decimals (``device.tripinfo.*`` parameters
#: have 2 by default; SUMO keeps their means to 3).
SUMO_OPTIONS: tuple[str, ...] = ("--precision", "6")


@dataclasses.dataclass(frozen=True)
class Plan:
    """What a controller needs to run one day: picklable, so it can cross to a worker process.

    Attributes:
        net: the network file.
        routes: the humans' route file (``<trip>`` elements).
        seed: SUMO's ``--seed``.
        depart: ``(N,)`` int64 departure second of each agent.
        options: per agent, per route option, the route's edge ids.
        edges: the edges whose current travel time is measured, in ``RoutingScenario.edges`` order.
        horizon: the simulation's last second.
    """

    net: str
    routes: str
    seed: int
    depart: np.ndarray
    options: tuple[tuple[tuple[str, ...], ...], ...]
    edges: tuple[str, ...]
    horizon: int


def make_plan(scenario: RoutingScenario, net: Any, routes: Any) -> Plan:
    """The day's :class:`Plan`: the files, the agents' departures and routes, the horizon."""
    options = tuple(
        tuple(tuple(scenario.route_edges(i, j)) for j in range(scenario.num_routes)) for i in range(scenario.num_agents)
    )
    return Plan(
        net=str(net),
        routes=str(routes),
        seed=scenario.sumo_seed,
        depart=scenario.agent_depart.astype(np.int64),
        options=options,
        edges=tuple(scenario.edges),
        horizon=int(scenario.horizon),
    )


@dataclasses.dataclass(frozen=True)
class Measurement:
    """The simulation at a decision slot (or at the end of the day), as plain arrays.

    Attributes:
        time: simulated seconds.
        depart: ``(N,)`` float64 second each agent entered the network (NaN before).
        arrival: ``(N,)`` float64 second each agent arrived (NaN before).
        edge_time: ``(E,)`` float64 SUMO's current travel time of each edge (seconds).
        done: the day is over: every vehicle arrived, or the horizon was reached.
        humans_arrived: human trips completed.
        humans_travel_time: their summed travel times (seconds, SUMO's tripinfo ``duration``).
        vehicles_arrived: every completed trip (humans and agents).
        total_delay: summed ``timeLoss + departDelay`` of every completed trip (seconds, SUMO's tripinfo;
            from SUMO's mean time loss, kept in milliseconds: within 0.001 s per trip).
    """

    time: float
    depart: np.ndarray
    arrival: np.ndarray
    edge_time: np.ndarray
    done: bool
    humans_arrived: int
    humans_travel_time: float
    vehicles_arrived: int
    total_delay: float


#: The start of every agent's SUMO vehicle id (human vehicles are numbered ``0, 1, ...``).
AGENT_PREFIX = "agent_"


def agent_vehicle(agent: int) -> str:
    """The SUMO vehicle id of agent ``agent``."""
    return f"{AGENT_PREFIX}{agent}"


class RoutingController:
    """Runs one day: humans from the route file, agents inserted at their slots on the routes they chose.

    Args:
        conn: the ``libsumo`` module or a ``traci`` connection, already started with the plan's files.
        plan: the agents' departures and options.
    """

    def __init__(self, conn: Any, plan: Plan):
        self.conn = conn
        self.plan = plan
        n = len(plan.depart)
        self.index = {agent_vehicle(i): i for i in range(n)}
        self.depart = np.full(n, np.nan)  # (N,)
        self.arrival = np.full(n, np.nan)  # (N,)
        self.inserted = np.zeros(n, dtype=bool)  # (N,) agents handed to SUMO
        self.human_depart: dict[str, float] = {}
        self.humans_arrived = 0
        self.humans_travel_time = 0.0
        self.done = False
        conn.vehicletype.copy("DEFAULT_VEHTYPE", QUERY_TYPE)
        conn.vehicletype.setSpeedDeviation(QUERY_TYPE, 0.0)
        self.time = round(conn.simulation.getTime())
        self._advance(int(plan.depart.min()))

    def deciding(self) -> np.ndarray:
        """``(N,)`` bool: the agents whose departure slot is now."""
        return ~self.inserted & (self.plan.depart == self.time)

    def step(self, choices: np.ndarray) -> Measurement:
        """Insert the deciding agents on their chosen options, then simulate to the next slot (or the day's end).

        Args:
            choices: ``(N,)`` int option index per agent; read for the deciding agents only.
        """
        conn, plan = self.conn, self.plan
        for i in np.flatnonzero(self.deciding()).tolist():
            vehicle = agent_vehicle(i)
            conn.route.add(vehicle, list(plan.options[i][int(choices[i])]))
            conn.vehicle.add(
                vehicle, vehicle, typeID="car", depart=str(self.time), departLane="best", departSpeed="max"
            )
            self.inserted[i] = True
        pending = plan.depart[~self.inserted]
        if pending.size:
            self._advance(int(pending.min()))
        else:
            self._finish()
        return self.measure()

    def _advance(self, until: int) -> None:
        """Simulate second by second to ``until``, recording departures and arrivals."""
        conn = self.conn
        while self.time < until:
            self.time += 1
            conn.simulationStep(float(self.time))
            self._record()

    def _finish(self) -> None:
        conn, horizon = self.conn, self.plan.horizon
        while self.time < horizon and conn.simulation.getMinExpectedNumber() > 0:
            self.time += 1
            conn.simulationStep(float(self.time))
            self._record()
        self.done = True

    def _record(self) -> None:
        now = float(self.time)
        for vehicle in self.conn.simulation.getDepartedIDList():
            agent = self.index.get(vehicle)
            if agent is None:
                self.human_depart[vehicle] = now
            else:
                self.depart[agent] = now
        for vehicle in self.conn.simulation.getArrivedIDList():
            agent = self.index.get(vehicle)
            if agent is None:
                self.humans_arrived += 1
                self.humans_travel_time += now - self.human_depart.pop(vehicle)
            else:
                self.arrival[agent] = now

    def edge_times(self) -> np.ndarray:
        """``(E,)`` SUMO's current (smoothed) travel time of every measured edge."""
        find = self.conn.simulation.findRoute
        return np.array(
            [
                find(edge, edge, vType=QUERY_TYPE, routingMode=ROUTING_MODE_AGGREGATED).travelTime
                for edge in self.plan.edges
            ],
            dtype=np.float64,
        )

    def measure(self) -> Measurement:
        """The agents' status and SUMO's travel times now."""
        parameter = self.conn.simulation.getParameter
        count = int(float(parameter("", "device.tripinfo.count") or 0))
        time_loss = float(parameter("", "device.tripinfo.timeLoss") or 0.0)
        depart_delay = float(parameter("", "device.tripinfo.totalDepartDelay") or 0.0)
        return Measurement(
            time=float(self.time),
            depart=self.depart.copy(),
            arrival=self.arrival.copy(),
            edge_time=self.edge_times(),
            done=self.done,
            humans_arrived=self.humans_arrived,
            humans_travel_time=self.humans_travel_time,
            vehicles_arrived=count,
            total_delay=round(count * time_loss + depart_delay, 3),
        )


# ---- numpy views, run in the env's process ------------------------------------------------------

#: Seconds per unit of the observation's time features (minutes would make free-flow times ~1).
TIME_SCALE = 600.0


def observation_size(num_routes: int) -> int:
    """The length of an agent's observation for ``num_routes`` route options."""
    return 8 + 3 * num_routes


def observation_bounds(num_routes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` of one agent's observation: times are unbounded above, the rest lie in [0, 1]."""
    low = np.zeros(observation_size(num_routes), dtype=np.float32)
    high = np.ones(observation_size(num_routes), dtype=np.float32)
    high[8 : 8 + 2 * num_routes] = np.inf
    return low, high


def action_masks(scenario: RoutingScenario) -> np.ndarray:
    """``(N, k)`` int8: 1 where the agent has that route option."""
    return (scenario.routes[:, :, 0] >= 0).astype(np.int8)


def route_times(scenario: RoutingScenario, m: Measurement) -> np.ndarray:
    """``(N, k)`` float64 current travel time of every option: its edges' SUMO travel times, summed (0 if missing)."""
    routes = scenario.routes.astype(np.int64)  # (N, k, L)
    times = np.where(routes >= 0, m.edge_time[np.maximum(routes, 0)], 0.0)  # (N, k, L)
    return times.sum(axis=2)


def status(scenario: RoutingScenario, m: Measurement) -> tuple[np.ndarray, np.ndarray]:
    """``(deciding, en_route)``, each ``(N,)`` bool, at the measurement's time."""
    decided = scenario.agent_depart < m.time
    deciding = (scenario.agent_depart == m.time) & ~m.done
    en_route = decided & np.isnan(m.arrival)
    return deciding, en_route


def observe(scenario: RoutingScenario, m: Measurement, agents: np.ndarray) -> np.ndarray:
    """``(len(agents), 8 + 3k)`` float32 observations of the given agent indices.

    Per agent: deciding now, en route, time of day and time to its own departure (both / duration),
    origin x, y and destination x, y, the free-flow and current times of its ``k`` options
    (/ :data:`TIME_SCALE` seconds), and its action mask.
    """
    k = scenario.num_routes
    deciding, en_route = status(scenario, m)
    out = np.zeros((len(agents), observation_size(k)), dtype=np.float32)
    duration = float(scenario.duration)
    out[:, 0] = deciding[agents]
    out[:, 1] = en_route[agents]
    out[:, 2] = min(m.time / duration, 1.0)
    out[:, 3] = np.clip((scenario.agent_depart[agents] - m.time) / duration, 0.0, 1.0)
    out[:, 4:8] = scenario.od_xy[agents]
    out[:, 8 : 8 + k] = scenario.free_flow[agents] / TIME_SCALE
    out[:, 8 + k : 8 + 2 * k] = route_times(scenario, m)[agents] / TIME_SCALE
    out[:, 8 + 2 * k :] = action_masks(scenario)[agents]
    return out


def travel_times(scenario: RoutingScenario, m: Measurement) -> np.ndarray:
    """``(N,)`` float64 travel time of each agent that has arrived (NaN otherwise).

    At the day's end every agent still travelling (or never inserted) is counted from its
    departure (or its slot) to the horizon.
    """
    times = m.arrival - m.depart
    if m.done:
        started = np.where(np.isnan(m.depart), scenario.agent_depart, m.depart)
        times = np.where(np.isnan(m.arrival), m.time - started, times)
    return times


#: Episode metrics, in every remaining agent's info on the step the day ends (seconds).
METRIC_KEYS: tuple[str, ...] = (
    "mean_travel_time_agents",
    "mean_travel_time_humans",
    "mean_travel_time",
    "total_delay",
    "agents_arrived",
    "humans_arrived",
)


def episode_metrics(scenario: RoutingScenario, m: Measurement) -> dict[str, float]:
    """The day's metrics (see the env's docstring); agents that never arrived count to the horizon."""
    agent_times = travel_times(scenario, m)
    counted = ~np.isnan(agent_times)
    agents_total = float(agent_times[counted].sum())
    vehicles = int(counted.sum()) + m.humans_arrived
    return {
        "mean_travel_time_agents": agents_total / counted.sum() if counted.any() else 0.0,
        "mean_travel_time_humans": m.humans_travel_time / m.humans_arrived if m.humans_arrived else 0.0,
        "mean_travel_time": (agents_total + m.humans_travel_time) / vehicles if vehicles else 0.0,
        "total_delay": m.total_delay,
        "agents_arrived": int((~np.isnan(m.arrival)).sum()),
        "humans_arrived": m.humans_arrived,
    }


def start_day(libsumo: Any, request: tuple) -> tuple[RoutingController, Measurement]:
    """``("start", plan)``: start the day's simulation; the worker's starter for Routing-v0 (runs where SUMO runs)."""
    from benchmarkzoo.envs.traffic.runner import sumo_command

    _, plan = request
    libsumo.start([*sumo_command(plan.net, plan.routes, plan.seed), *SUMO_OPTIONS])
    controller = RoutingController(libsumo, plan)
    return controller, controller.measure()
