"""Seeded routing scenarios: a SUMO grid, human demand, and connected autonomous vehicles with k route options.

:class:`RoutingGenerator` (``traffic/routing``) draws the human demand exactly as
:class:`~benchmarkzoo.envs.traffic.generators.grid.GridGenerator` does (its ``<trip>`` elements are
routed by SUMO when they enter, on the free-flow shortest path), then ``num_agents`` agents:

* a departure second, uniform over the slots ``depart_interval, 2 * depart_interval, ...``
  strictly inside the demand period; agents sharing a slot decide in the same env step;
* an origin (uniform over the fringe arms) and a destination (the humans' rule: the opposite
  side with probability ``through``, another arm otherwise, never the arm it came in on);
* the ``num_routes`` shortest routes between them by free-flow time that pass no junction
  twice (Yen's algorithm over the network's edge graph, with the turns SUMO's connections
  allow; free-flow time is each edge's length over its speed limit, junction interiors
  excluded). Ties between routes of equal time (common on a grid) are broken by the edge ids,
  so the list is deterministic.

The scenario stores the routes as edge indices, so it determines the agents' options
completely and its content hash changes if the network or the route search ever does.
"""

from __future__ import annotations

import dataclasses
import heapq
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.envs.traffic.generators.grid import GridNetworkGenerator
from benchmarkzoo.envs.traffic.networks import NetworkLayout, network_layout, required
from benchmarkzoo.envs.traffic.scenario import TrafficScenario


@dataclasses.dataclass(frozen=True, eq=False)
class RoutingScenario(TrafficScenario):
    """A day of traffic on a grid: SUMO-routed humans (the inherited fields) plus route-choosing agents.

    Attributes:
        edges: every normal (non-internal) edge of the network, sorted; routes index into it.
        agent_depart: ``(N,)`` int32 departure second of each agent.
        agent_origin: ``(N,)`` int16 index into ``origins``.
        agent_destination: ``(N,)`` int16 index into ``destinations``.
        routes: ``(N, k, L)`` int16 edge indices of each agent's route options, ``-1`` padded
            (a whole option of ``-1`` is a missing route, masked out).
        free_flow: ``(N, k)`` float64 free-flow seconds of each option (0 for a missing one).
        od_xy: ``(N, 4)`` float64 origin x, y and destination x, y in [0, 1] of the network's extent.
        horizon: the simulation's last second: whatever has not arrived by then never will.
    """

    kind: ClassVar[str] = "traffic-routing"

    edges: tuple
    agent_depart: np.ndarray
    agent_origin: np.ndarray
    agent_destination: np.ndarray
    routes: np.ndarray
    free_flow: np.ndarray
    od_xy: np.ndarray
    horizon: int

    @property
    def num_agents(self) -> int:
        """``N``, the route-choosing agents."""
        return int(self.agent_depart.shape[0])

    @property
    def num_routes(self) -> int:
        """``k``, the route options of each agent."""
        return int(self.routes.shape[1])

    def route_edges(self, agent: int, option: int) -> list[str]:
        """The edge ids of route ``option`` of ``agent``."""
        return [self.edges[e] for e in self.routes[agent, option].tolist() if e >= 0]


@dataclasses.dataclass(frozen=True)
class EdgeGraph:
    """The network as SUMO routes on it: edges, their free-flow seconds, the turns allowed between them."""

    edges: tuple[str, ...]
    cost: dict[str, float]
    successors: dict[str, tuple[str, ...]]
    from_xy: dict[str, tuple[float, float]]  # normalized position of each edge's start junction
    to_xy: dict[str, tuple[float, float]]  # and of its end junction
    from_node: dict[str, str]
    to_node: dict[str, str]


_graphs: dict[str, EdgeGraph] = {}


def edge_graph(path: Path, digest: str) -> EdgeGraph:
    """Read (once per network) the normal edges, their free-flow times and the connections between them."""
    found = _graphs.get(digest)
    if found is not None:
        return found
    root = ET.parse(path).getroot()
    junctions = {
        required(j, "id"): (float(required(j, "x")), float(required(j, "y")))
        for j in root.iter("junction")
        if j.get("type") != "internal"
    }
    xs, ys = [x for x, _ in junctions.values()], [y for _, y in junctions.values()]
    span_x, span_y = max(max(xs) - min(xs), 1.0), max(max(ys) - min(ys), 1.0)

    def normalized(node: str) -> tuple[float, float]:
        x, y = junctions[node]
        return ((x - min(xs)) / span_x, (y - min(ys)) / span_y)

    cost: dict[str, float] = {}
    from_xy: dict[str, tuple[float, float]] = {}
    to_xy: dict[str, tuple[float, float]] = {}
    from_node: dict[str, str] = {}
    to_node: dict[str, str] = {}
    for edge in root.iter("edge"):
        if edge.get("function") == "internal":
            continue
        name, start, end = required(edge, "id"), required(edge, "from"), required(edge, "to")
        lane = edge.find("lane")
        if lane is None:
            raise ScenarioError(f"edge {name!r} of the SUMO network {path} has no lane.")
        cost[name] = float(required(lane, "length")) / float(required(lane, "speed"))
        from_xy[name], to_xy[name] = normalized(start), normalized(end)
        from_node[name], to_node[name] = start, end
    successors: dict[str, set[str]] = {e: set() for e in cost}
    for connection in root.iter("connection"):
        a, b = required(connection, "from"), required(connection, "to")
        if a in cost and b in cost:
            successors[a].add(b)
    graph = EdgeGraph(
        edges=tuple(sorted(cost)),
        cost=cost,
        successors={e: tuple(sorted(s)) for e, s in successors.items()},
        from_xy=from_xy,
        to_xy=to_xy,
        from_node=from_node,
        to_node=to_node,
    )
    _graphs[digest] = graph
    return graph


def _path_cost(graph: EdgeGraph, path: tuple[str, ...]) -> float:
    return sum(graph.cost[e] for e in path)


def _shortest(
    graph: EdgeGraph, source: str, target: str, banned_edges: set[str], banned_turns: set[tuple[str, str]]
) -> tuple[str, ...] | None:
    """Dijkstra over edges; ties broken by the path's edge ids, so the answer is unique."""
    if source in banned_edges:
        return None
    heap: list[tuple[float, tuple[str, ...]]] = [(graph.cost[source], (source,))]
    done: set[str] = set()
    while heap:
        cost, path = heapq.heappop(heap)
        edge = path[-1]
        if edge == target:
            return path
        if edge in done:
            continue
        done.add(edge)
        for nxt in graph.successors[edge]:
            if nxt in done or nxt in banned_edges or (edge, nxt) in banned_turns:
                continue
            heapq.heappush(heap, (round(cost + graph.cost[nxt], 6), (*path, nxt)))
    return None


def _simple(graph: EdgeGraph, path: tuple[str, ...]) -> bool:
    """Whether ``path`` passes every junction at most once."""
    nodes = [graph.from_node[path[0]], *(graph.to_node[e] for e in path)]
    return len(set(nodes)) == len(nodes)


#: Edge-simple routes examined per origin-destination pair while looking for junction-simple ones.
SEARCH_LIMIT = 64


def k_shortest_routes(graph: EdgeGraph, source: str, target: str, k: int) -> list[tuple[str, ...]]:
    """Up to ``k`` routes from edge ``source`` to edge ``target`` that pass no junction twice, by free-flow time.

    Yen's algorithm enumerates edge-simple routes in order of free-flow time (at most
    :data:`SEARCH_LIMIT`); those passing a junction twice (a loop around a block) are skipped.
    """
    routes = [
        p
        for p in _yen(graph, source, target, SEARCH_LIMIT, stop=lambda ps: _count_simple(graph, ps) >= k)
        if _simple(graph, p)
    ]
    return routes[:k]


def _count_simple(graph: EdgeGraph, paths: list[tuple[str, ...]]) -> int:
    return sum(_simple(graph, p) for p in paths)


def _yen(graph: EdgeGraph, source: str, target: str, limit: int, stop) -> list[tuple[str, ...]]:
    """Edge-simple routes by increasing free-flow time (ties by edge ids) until ``stop(found)`` or ``limit``."""
    first = _shortest(graph, source, target, set(), set())
    if first is None:
        return []
    found = [first]
    candidates: list[tuple[float, tuple[str, ...]]] = []
    seen = {first}
    while len(found) < limit and not stop(found):
        last = found[-1]
        for i in range(len(last) - 1):
            root = last[: i + 1]
            turns = {(p[i], p[i + 1]) for p in found if p[: i + 1] == root and len(p) > i + 1}
            spur = _shortest(graph, root[-1], target, set(root[:-1]), turns)
            if spur is None:
                continue
            path = root[:-1] + spur
            if path not in seen:
                seen.add(path)
                heapq.heappush(candidates, (round(_path_cost(graph, path), 6), path))
        if not candidates:
            break
        found.append(heapq.heappop(candidates)[1])
    return found


class RoutingGenerator(GridNetworkGenerator):
    """A ``rows x cols`` SUMO grid with seeded human demand and ``num_agents`` route-choosing vehicles.

    Args:
        rows, cols, lanes: the grid, as for :class:`~benchmarkzoo.envs.traffic.generators.grid.GridGenerator`
            (3x3, two lanes per direction here).
        rate, duration: the human demand, as for ``GridGenerator`` (400 vehicles/h per arm over 10 minutes here).
        num_agents: route-choosing vehicles, 1 to 200.
        num_routes: route options per agent (``k``), 1 to 8.
        depart_interval: seconds between departure slots, 1 to 600; agents in one slot decide together.
        horizon: the simulation's last second (at least ``duration + 60``): vehicles still
            travelling then are counted at that time.
        **kwargs: ``block_length``, ``arm_length``, ``speed``, ``profile`` and ``through`` (which
            also draws the agents' destinations), as for ``GridGenerator``.
    """

    scenario_type: ClassVar[type[RoutingScenario]] = RoutingScenario
    network_kind = "grid"

    def __init__(
        self,
        rows: int = 3,
        cols: int = 3,
        lanes: int = 2,
        rate: float = 400.0,
        duration: int = 600,
        num_agents: int = 40,
        num_routes: int = 3,
        depart_interval: int = 10,
        horizon: int = 2400,
        **kwargs: Any,
    ):
        super().__init__(rows=rows, cols=cols, lanes=lanes, rate=rate, duration=duration, **kwargs)
        if self.rows * self.cols < 2:
            raise GeneratorArgumentError(
                f"a routing grid needs at least 2 junctions for alternative routes; got rows={rows}, cols={cols}."
            )
        self.num_agents = self._check_int_range("num_agents", num_agents, 1, 200)
        self.num_routes = self._check_int_range("num_routes", num_routes, 1, 8)
        self.depart_interval = self._check_int_range("depart_interval", depart_interval, 1, 600)
        if self.depart_interval >= self.duration:
            raise GeneratorArgumentError(
                f"depart_interval ({depart_interval}) must be shorter than duration ({duration}): agents depart "
                "within the demand period."
            )
        self.horizon = self._check_int_range("horizon", horizon, self.duration + 60, 86400 * 2)

    def options(self) -> tuple[EdgeGraph, NetworkLayout, dict[tuple[int, int], list[tuple[str, ...]]], np.ndarray]:
        """The edge graph, the fringe layout, the route options of every OD pair, and the OD weights.

        Returns:
            ``(graph, layout, routes, weights)``: ``routes[(o, d)]`` lists the options of each OD
            pair with ``num_routes`` of them; ``weights`` ``(O, D)`` is the destination rule
            restricted to those pairs (rows sum to 1, or 0 for an origin with no such pair).
        """
        path, digest = self.network()
        key = (digest, self.num_routes, self.through)
        memo = _options.get(key)
        if memo is not None:
            return memo
        graph, layout = edge_graph(path, digest), network_layout(path, digest)
        weights = self.destination_weights(layout)  # (O, D)
        routes = {}
        for o, origin in enumerate(layout.origins):
            for d, destination in enumerate(layout.destinations):
                if weights[o, d] <= 0:
                    continue
                found = k_shortest_routes(graph, origin, destination, self.num_routes)
                if len(found) == self.num_routes:
                    routes[(o, d)] = found
                else:
                    weights[o, d] = 0.0
        totals = weights.sum(axis=1, keepdims=True)  # (O, 1)
        if not (totals > 0).any():
            raise GeneratorArgumentError(
                f"{self!r}: no origin-destination pair of this network has {self.num_routes} routes; "
                "lower num_routes or use a larger grid."
            )
        weights = np.divide(weights, totals, out=np.zeros_like(weights), where=totals > 0)
        _options[key] = (graph, layout, routes, weights)
        return _options[key]

    def __call__(self, rng: np.random.Generator) -> RoutingScenario:
        """The day of ``rng``: human demand, then each agent's departure, origin, destination and options."""
        humans = super().__call__(rng)
        graph, layout, options, weights = self.options()
        n, k = self.num_agents, self.num_routes
        slots = np.arange(self.depart_interval, self.duration, self.depart_interval)  # (S,)
        depart = np.sort(rng.choice(slots, size=n)).astype(np.int32)  # (N,)
        usable = np.flatnonzero(weights.sum(axis=1) > 0)  # origins with at least one OD pair
        origin = usable[rng.integers(0, len(usable), size=n)]  # (N,)
        draws = rng.random(n)  # (N,)
        cumulative = np.cumsum(weights[origin], axis=1)  # (N, D)
        destination = np.minimum((cumulative <= draws[:, None]).sum(axis=1), weights.shape[1] - 1)  # (N,)
        for i in range(n):  # float round-off may land on a zero-weight column: take the last allowed one
            if weights[origin[i], destination[i]] <= 0:
                destination[i] = np.flatnonzero(weights[origin[i]] > 0)[-1]
        index = {edge: j for j, edge in enumerate(graph.edges)}
        chosen = [options[(int(o), int(d))] for o, d in zip(origin, destination)]
        length = max(len(route) for routes in chosen for route in routes)
        routes = np.full((n, k, length), -1, dtype=np.int16)  # (N, k, L)
        free_flow = np.zeros((n, k), dtype=np.float64)  # (N, k)
        for i, agent_routes in enumerate(chosen):
            for j, route in enumerate(agent_routes):
                routes[i, j, : len(route)] = [index[e] for e in route]
                free_flow[i, j] = round(_path_cost(graph, route), 6)
        od_xy = np.array(
            [
                (*graph.from_xy[layout.origins[o]], *graph.to_xy[layout.destinations[d]])
                for o, d in zip(origin.tolist(), destination.tolist())
            ],
            dtype=np.float64,
        ).reshape(n, 4)  # (N, 4)
        fields = {f.name: getattr(humans, f.name) for f in dataclasses.fields(TrafficScenario)}
        return RoutingScenario(
            **fields,
            edges=graph.edges,
            agent_depart=depart,
            agent_origin=origin.astype(np.int16),
            agent_destination=destination.astype(np.int16),
            routes=routes,
            free_flow=free_flow,
            od_xy=np.round(od_xy, 6),
            horizon=self.horizon,
        )


_options: dict[tuple[str, int, float], tuple] = {}
