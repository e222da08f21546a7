"""Seeded traffic scenarios: a network from SUMO's ``netgenerate`` plus seeded demand.

Four generators, sharing one scenario type and one demand model:

* :class:`SingleIntersectionGenerator` (``traffic/single-intersection``): one signalized
  four-arm junction (``netgenerate --grid`` with one junction and attached arms).
* :class:`GridGenerator` (``traffic/grid``): an ``rows x cols`` grid of signalized junctions
  with attached arms at the fringe, for the multi-agent grid env.
* :class:`SpiderGenerator` (``traffic/spider``): a spider web (``netgenerate --spider``), a
  signalized centre and optionally signalized rings, arms attached outside the last ring.
* :class:`RandomNetworkGenerator` (``traffic/random``): a random network per scenario
  (``netgenerate --rand`` with a seeded ``--seed``), signals at the junctions of degree 3+.

Except for the random networks, the network depends only on the generator's keyword
arguments, so it is generated once per argument set and cached (see
:mod:`benchmarkzoo.envs.traffic.sumo`); the seed draws the demand and SUMO's own ``--seed``.
A random network is cached the same way, keyed by its arguments (``--seed`` included).

Demand is drawn with numpy, not ``randomTrips.py``/``duarouter``: every second, each origin
(an edge entering the network at its fringe) emits ``Poisson(rate(t) / 3600)`` vehicles; each
vehicle's destination (an edge leaving at the fringe, never back where it came from) is drawn
with probability ``through`` for the opposite side and the rest shared equally. The route file
holds ``<trip>`` elements (origin and destination edges) that SUMO routes on the shortest path
when it inserts them, deterministically. This keeps demand generation in-process (no Python
subprocesses, no SUMO tool scripts) and bit-stable across platforms. Profiles (``profile``):

* ``uniform``: every origin at ``rate`` vehicles/hour, times a seeded factor in [0.8, 1.2];
* ``peak``: the same, times ``0.5 + 1.5 * exp(-((t - t_peak) / (0.15 * duration))**2)``,
  with ``t_peak`` drawn in [0.3, 0.7] of the duration;
* ``directional``: a seeded axis (north-south or east-west) carries 1.5x ``rate``, the other 0.5x.

Spider and random networks have no sides: there ``through`` and ``directional`` use the
fringe nodes' bearings around the network (see :class:`_GeometricDemand`).

External files: both generators also take ``net_file`` (a SUMO network to use instead of the
generated one) and ``route_file`` (a SUMO route file to play instead of the generated demand;
needs ``net_file``). Each is copied into the cache under its sha256 (see
:func:`~benchmarkzoo.envs.traffic.sumo.store_file`); the scenario cites the hashes only
(``net_args`` is empty, ``profile`` is ``"file"`` and the vehicle arrays are empty when the
routes come from a file), so its content hash does not depend on where the files live. The seed
then only draws SUMO's ``--seed``. This is how the bench runs our env on sumo-rl's own
single-intersection network and demand.

The scenario holds the generator's parameters, the ``netgenerate`` arguments, the hash of the
network file, the vehicles (depart second, origin, destination), SUMO's seed and the hash of
the rendered route file, so it determines the simulation completely.
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import ClassVar

import numpy as np

from benchmarkzoo.core.atomic import atomic_write
from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.envs.traffic import sumo
from benchmarkzoo.envs.traffic.sumo import cache_dir, cached_file, generate_network, netgenerate, sha256, store_file
from benchmarkzoo.generators.base import Generator

PROFILES: tuple[str, ...] = ("uniform", "peak", "directional")
LAYOUTS: tuple[str, ...] = ("opposites", "incoming")
SIDES: tuple[str, ...] = ("top", "right", "bottom", "left")
_OPPOSITE = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}
_SIDE_PATTERN = re.compile(r"^(top|right|bottom|left)\d+$")


@dataclasses.dataclass(frozen=True, eq=False)
class TrafficScenario(Scenario):
    """One traffic problem instance: network, vehicles and SUMO's seed.

    Attributes:
        network: ``"single-intersection"``, ``"grid"``, ``"spider"`` or ``"random"`` (or a RESCO network).
        net_args: ``netgenerate`` arguments (without the output file).
        net_hash: sha256 of the normalized network file.
        origins: fringe edges where vehicles enter, indexed by ``origin``.
        destinations: fringe edges where vehicles leave, indexed by ``destination``.
        depart: ``(num_vehicles,)`` int32 departure second, non-decreasing.
        origin: ``(num_vehicles,)`` int16 index into ``origins``.
        destination: ``(num_vehicles,)`` int16 index into ``destinations``.
        duration: seconds over which demand is generated.
        profile: demand profile name.
        sumo_seed: SUMO's ``--seed``.
        routes_hash: sha256 of :func:`render_routes` of this scenario.
    """

    kind: ClassVar[str] = "traffic"

    network: str
    net_args: tuple
    net_hash: str
    origins: tuple
    destinations: tuple
    depart: np.ndarray
    origin: np.ndarray
    destination: np.ndarray
    duration: int
    profile: str
    sumo_seed: int
    routes_hash: str

    @property
    def num_vehicles(self) -> int:
        return int(self.depart.shape[0])

    @property
    def label(self) -> str:
        """A short name for messages: network kind and the first 12 hex digits of the hash."""
        return f"{self.network} scenario {self.content_hash[:12]}"


FILE_PROFILE = "file"
_NET_NAME, _ROUTES_NAME = "net.net.xml", "routes.rou.xml"


def _from_cache(scenario: TrafficScenario, digest: str, name: str, what: str) -> Path:
    path = cached_file(digest, name)
    if path is None:
        raise ScenarioError(
            f"{scenario.label} plays an external {what} with sha256 {digest[:12]}, which is not in the cache "
            f"({cache_dir('traffic', 'files')}). Make its generator with the file (net_file=/route_file=) once "
            "on this machine to load it."
        )
    return path


def render_routes(scenario: TrafficScenario) -> bytes:
    """The SUMO route file of ``scenario``: one ``<trip>`` per vehicle, in departure order (or the external file)."""
    if scenario.profile == FILE_PROFILE:
        return _from_cache(scenario, scenario.routes_hash, _ROUTES_NAME, "route file").read_bytes()
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<routes>",
        '    <vType id="car" vClass="passenger"/>',
    ]
    origins, destinations = scenario.origins, scenario.destinations
    for i, (t, o, d) in enumerate(
        zip(scenario.depart.tolist(), scenario.origin.tolist(), scenario.destination.tolist())
    ):
        lines.append(
            f'    <trip id="{i}" type="car" depart="{t}" from="{origins[o]}" to="{destinations[d]}" '
            'departLane="best" departSpeed="max"/>'
        )
    lines.append("</routes>\n")
    return "\n".join(lines).encode()


def network_file(scenario: TrafficScenario) -> Path:
    """The scenario's network file (generated into the cache if missing), checked against ``net_hash``."""
    if not scenario.net_args:
        return _from_cache(scenario, scenario.net_hash, _NET_NAME, "network")
    path, digest = generate_network(tuple(scenario.net_args))
    if digest != scenario.net_hash:
        raise ScenarioError(
            f"{scenario.label}: netgenerate {list(scenario.net_args)} now gives a network with hash "
            f"{digest[:12]}, but the scenario was generated with {scenario.net_hash[:12]} (another SUMO version?). "
            "Regenerate the scenario with this SUMO, or install the SUMO version it was made with."
        )
    return path


def write_routes(scenario: TrafficScenario, path: Path) -> Path:
    """Write the scenario's route file to ``path`` and return it."""
    path.write_bytes(render_routes(scenario))
    return path


def materialize(scenario: TrafficScenario) -> tuple[Path, Path]:
    """Network and route files of ``scenario`` in the cache, keyed by its content hash.

    For users who want the files (e.g. to open them in ``sumo-gui``); the envs write their
    route files to their own temporary folders instead, so training on fresh seeds does not
    fill the cache.
    """
    net = network_file(scenario)
    routes = cache_dir("traffic", "scenarios", scenario.content_hash) / "routes.rou.xml"
    if not routes.is_file() or sha256(routes.read_bytes()) != scenario.routes_hash:
        write_routes(scenario, routes)
    return net, routes


@dataclasses.dataclass(frozen=True)
class NetworkLayout:
    """Fringe edges of a generated network, read from its XML once per network.

    Attributes:
        origins, destinations: edges entering (leaving) the network at a dead-end node, sorted.
        origin_side, destination_side: the grid side (``top``...) of each one's node, else the node id.
        origin_node, destination_node: each one's dead-end node.
        origin_bearing, destination_bearing: degrees, ``atan2`` of each one's node seen from the
            centroid of the network's junctions (for demand on networks without sides).
        reachable: ``(O, D)`` bool, whether a route leads from each origin to each destination.
    """

    origins: tuple[str, ...]
    destinations: tuple[str, ...]
    origin_side: tuple[str, ...]
    destination_side: tuple[str, ...]
    origin_node: tuple[str, ...]
    destination_node: tuple[str, ...]
    origin_bearing: tuple[float, ...] = ()
    destination_bearing: tuple[float, ...] = ()
    reachable: np.ndarray | None = None


_layouts: dict[str, NetworkLayout] = {}


def network_layout(path: Path, digest: str) -> NetworkLayout:
    """Edges entering and leaving the network at its dead-end fringe nodes (``top0``, ``left1``...)."""
    found = _layouts.get(digest)
    if found is not None:
        return found
    root = ET.parse(path).getroot()
    return _read_layout(root, digest)


def _read_layout(root: ET.Element, digest: str) -> NetworkLayout:
    dead_ends = {
        j.get("id"): _SIDE_PATTERN.match(j.get("id", "")) for j in root.iter("junction") if j.get("type") == "dead_end"
    }
    entering, leaving = [], []
    for edge in root.iter("edge"):
        if edge.get("function") == "internal":
            continue
        if edge.get("from") in dead_ends:
            entering.append((edge.get("id"), edge.get("from")))
        if edge.get("to") in dead_ends:
            leaving.append((edge.get("id"), edge.get("to")))
    entering.sort()
    leaving.sort()

    def side(node: str) -> str:
        match = dead_ends[node]
        return match.group(1) if match else node

    junctions = {
        j.get("id"): (float(j.get("x", 0.0)), float(j.get("y", 0.0)))
        for j in root.iter("junction")
        if j.get("type") != "internal"
    }
    centre = np.mean(list(junctions.values()), axis=0) if junctions else np.zeros(2)  # (2,)

    def bearing(node: str) -> float:
        x, y = junctions.get(node, centre)
        return float(np.degrees(np.arctan2(y - centre[1], x - centre[0])))

    layout = NetworkLayout(
        origins=tuple(e for e, _ in entering),
        destinations=tuple(e for e, _ in leaving),
        origin_side=tuple(side(n) for _, n in entering),
        destination_side=tuple(side(n) for _, n in leaving),
        origin_node=tuple(n for _, n in entering),
        destination_node=tuple(n for _, n in leaving),
        origin_bearing=tuple(bearing(n) for _, n in entering),
        destination_bearing=tuple(bearing(n) for _, n in leaving),
        reachable=_reachability(root, [e for e, _ in entering], [e for e, _ in leaving]),
    )
    _layouts[digest] = layout
    return layout


def _reachability(root: ET.Element, origins: list[str], destinations: list[str]) -> np.ndarray:
    """``(O, D)`` bool: a chain of the network's connections leads from origin edge ``o`` onto destination ``d``."""
    successors: dict[str, set[str]] = {}
    for c in root.iter("connection"):
        source, target = c.get("from", ""), c.get("to", "")
        if not source.startswith(":") and not target.startswith(":"):
            successors.setdefault(source, set()).add(target)
    column = {edge: d for d, edge in enumerate(destinations)}
    reachable = np.zeros((len(origins), len(destinations)), dtype=bool)
    for o, start in enumerate(origins):
        seen, frontier = {start}, [start]
        while frontier:
            edge = frontier.pop()
            for nxt in successors.get(edge, ()):
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        for edge in seen & column.keys():
            reachable[o, column[edge]] = True
    return reachable


class _TrafficGenerator(Generator):
    """Seeded demand on a network fixed by the generator's kwargs."""

    scenario_type = TrafficScenario
    network_kind: ClassVar[str]
    #: Every scenario plays the one network of :meth:`network` (``False``: a network per scenario).
    fixed_network: ClassVar[bool] = True

    def _check_files(self, net_file: str | None, route_file: str | None) -> None:
        if route_file is not None and net_file is None:
            raise GeneratorArgumentError(
                f"route_file={route_file!r} needs the network it was made for: pass net_file= too."
            )
        self.net_file = None if net_file is None else str(net_file)
        self.route_file = None if route_file is None else str(route_file)
        if self.net_file is not None:
            store_file(self.net_file, _NET_NAME)  # unreadable files fail here, with the path in the message

    def _check_demand(self, rate: float, duration: int, profile: str, through: float) -> None:
        self.rate = self._check_float_range("rate", rate, 0.0, 3600.0)
        self.duration = self._check_int_range("duration", duration, 60, 86400)
        if profile not in PROFILES:
            raise GeneratorArgumentError(f"profile must be one of {PROFILES}; got {profile!r}.")
        self.profile = profile
        self.through = self._check_float_range("through", through, 0.0, 1.0)

    def _net_args(self) -> tuple[str, ...]:
        raise NotImplementedError

    def network(self) -> tuple[Path, str]:
        """This generator's network file (generated once, then cached) and its content hash."""
        if self.net_file is not None:
            return store_file(self.net_file, _NET_NAME)
        return generate_network(self._net_args())

    def signals(self) -> dict[str, tuple[int, int]]:
        """``{agent: (green phases, incoming lanes)}`` of the traffic lights every scenario has.

        The network's signals by id (:func:`signal_shapes`); a generator of a network per scenario
        names agent slots instead, with the largest shape a slot's signal may have.
        """
        path, _ = self.network()
        return signal_shapes(path)

    def __call__(self, rng: np.random.Generator) -> TrafficScenario:
        args = () if self.net_file is not None else self._net_args()
        path, net_hash = self.network()
        if self.route_file is not None:
            _, routes_hash = store_file(self.route_file, _ROUTES_NAME)
            empty = np.zeros(0, dtype=np.int32)
            return TrafficScenario(
                network=self.network_kind,
                net_args=(),
                net_hash=net_hash,
                origins=(),
                destinations=(),
                depart=empty,
                origin=empty.astype(np.int16),
                destination=empty.astype(np.int16),
                duration=self.duration,
                profile=FILE_PROFILE,
                sumo_seed=int(rng.integers(0, 2**31 - 1)),
                routes_hash=routes_hash,
            )
        layout = network_layout(path, net_hash)
        depart, origin, destination = self._demand(rng, layout)
        sumo_seed = int(rng.integers(0, 2**31 - 1))
        fields = dict(
            network=self.network_kind,
            net_args=args,
            net_hash=net_hash,
            origins=layout.origins,
            destinations=layout.destinations,
            depart=depart,
            origin=origin,
            destination=destination,
            duration=self.duration,
            profile=self.profile,
            sumo_seed=sumo_seed,
            routes_hash="",
        )
        draft = TrafficScenario(**fields)
        return TrafficScenario(**{**fields, "routes_hash": sha256(render_routes(draft))})

    def _demand(self, rng: np.random.Generator, layout: NetworkLayout) -> tuple[np.ndarray, ...]:
        num_origins = len(layout.origins)
        factor = rng.uniform(0.8, 1.2, size=num_origins)  # (O,) per-origin rate factor
        seconds = np.arange(self.duration, dtype=np.float64)  # (T,)
        if self.profile == "peak":
            t_peak = rng.uniform(0.3, 0.7) * self.duration
            shape = 0.5 + 1.5 * np.exp(-(((seconds - t_peak) / (0.15 * self.duration)) ** 2))
        else:
            shape = np.ones_like(seconds)
        if self.profile == "directional":
            factor = factor * self._direction_factor(rng, layout)
        rates = shape[:, None] * (self.rate * factor)[None, :] / 3600.0  # (T, O) vehicles per second
        counts = rng.poisson(rates)  # (T, O)
        t_index, o_index = np.nonzero(counts)  # row-major: sorted by second, then origin
        repeats = counts[t_index, o_index]
        depart = np.repeat(t_index, repeats).astype(np.int32)  # (V,)
        origin = np.repeat(o_index, repeats).astype(np.int16)  # (V,)
        weights = self._destination_weights(layout)  # (O, D)
        cumulative = np.cumsum(weights, axis=1)  # (O, D)
        draws = rng.random(depart.shape[0])  # (V,)
        chosen = cumulative[origin]  # (V, D)
        destination = (chosen <= (draws * chosen[:, -1])[:, None]).sum(axis=1)  # (V,)
        destination = np.minimum(destination, len(layout.destinations) - 1).astype(np.int16)
        return depart, origin, destination

    def _direction_factor(self, rng: np.random.Generator, layout: NetworkLayout) -> np.ndarray:
        """``(O,)`` rate factors of the ``directional`` profile: a seeded axis (N-S or E-W) 1.5x, the other 0.5x."""
        axis = ("top", "bottom") if rng.random() < 0.5 else ("left", "right")
        return np.array([1.5 if s in axis else 0.5 for s in layout.origin_side])

    def _destination_weights(self, layout: NetworkLayout) -> np.ndarray:
        """``(O, D)`` destination probabilities: ``through`` to the opposite side, the rest shared."""
        weights = np.zeros((len(layout.origins), len(layout.destinations)))
        for o, (o_side, o_node) in enumerate(zip(layout.origin_side, layout.origin_node)):
            allowed = np.array([node != o_node for node in layout.destination_node])
            opposite = allowed & np.array([s == _OPPOSITE.get(o_side) for s in layout.destination_side])
            other = allowed & ~opposite
            if opposite.any():
                weights[o, opposite] = self.through / opposite.sum()
            if other.any():
                weights[o, other] = (1.0 - self.through if opposite.any() else 1.0) / other.sum()
            if weights[o].sum() == 0:
                weights[o, allowed] = 1.0
        return weights


class SingleIntersectionGenerator(_TrafficGenerator):
    """One signalized four-arm intersection with seeded demand.

    Args:
        lanes: lanes per direction on every arm, 1 to 3.
        arm_length: metres from the junction to each arm's end, 100 to 1000.
        speed: speed limit in m/s, 5 to 30.
        layout: ``"opposites"`` (two green phases: north-south, east-west, left turns yield) or
            ``"incoming"`` (four green phases, one approach at a time).
        rate: mean vehicles per hour entering on each arm, 0 to 3600.
        duration: seconds of demand, 60 to 86400.
        profile: ``"uniform"``, ``"peak"`` or ``"directional"`` (see the module docstring).
        through: probability a vehicle goes straight across; the rest turn left or right equally.
        net_file: a SUMO network with one traffic light, used instead of the generated one
            (see the module docstring; the network kwargs above are then ignored).
        route_file: a SUMO route file played instead of the generated demand (needs ``net_file``;
            the demand kwargs are then ignored).
    """

    network_kind = "single-intersection"

    def __init__(
        self,
        lanes: int = 2,
        arm_length: float = 250.0,
        speed: float = 13.89,
        layout: str = "opposites",
        rate: float = 400.0,
        duration: int = 1800,
        profile: str = "uniform",
        through: float = 0.6,
        net_file: str | None = None,
        route_file: str | None = None,
    ):
        self.lanes = self._check_int_range("lanes", lanes, 1, 3)
        self.arm_length = self._check_float_range("arm_length", arm_length, 100.0, 1000.0)
        self.speed = self._check_float_range("speed", speed, 5.0, 30.0)
        if layout not in LAYOUTS:
            raise GeneratorArgumentError(f"layout must be one of {LAYOUTS}; got {layout!r}.")
        self.layout = layout
        self._check_demand(rate, duration, profile, through)
        self._check_files(net_file, route_file)

    def _net_args(self) -> tuple[str, ...]:
        return (
            "--grid",
            "--grid.number",
            "1",
            "--grid.attach-length",
            repr(self.arm_length),
            "--default.lanenumber",
            str(self.lanes),
            "--default.speed",
            repr(self.speed),
            "--tls.guess",
            "true",
            "--tls.layout",
            self.layout,
            "--no-turnarounds",
            "true",
            "--seed",
            "0",
        )


class GridGenerator(_TrafficGenerator):
    """A ``rows x cols`` grid of signalized junctions with seeded demand between fringe arms.

    Args:
        rows: junctions north to south, 1 to 10.
        cols: junctions west to east, 1 to 10.
        block_length: metres between neighbouring junctions, 50 to 1000.
        arm_length: metres of the arms attached at the fringe, 50 to 1000.
        lanes: lanes per direction, 1 to 3.
        speed: speed limit in m/s, 5 to 30.
        rate: mean vehicles per hour entering on each fringe arm, 0 to 3600.
        duration: seconds of demand, 60 to 86400.
        profile: ``"uniform"``, ``"peak"`` or ``"directional"``.
        through: probability of leaving on the opposite side of the grid; the rest is shared
            among the other exits (never the arm a vehicle came in on).
        net_file, route_file: external SUMO files, as for :class:`SingleIntersectionGenerator`.

    Every junction is signalized: ``--tls.guess.threshold 0`` (SUMO's default threshold, a sum
    of incoming lane speeds of 250 km/h, leaves one-lane grid junctions unsignalized).
    """

    network_kind = "grid"

    def __init__(
        self,
        rows: int = 2,
        cols: int = 2,
        block_length: float = 200.0,
        arm_length: float = 200.0,
        lanes: int = 1,
        speed: float = 13.89,
        rate: float = 300.0,
        duration: int = 1800,
        profile: str = "uniform",
        through: float = 0.6,
        net_file: str | None = None,
        route_file: str | None = None,
    ):
        self.rows = self._check_int_range("rows", rows, 1, 10)
        self.cols = self._check_int_range("cols", cols, 1, 10)
        self.block_length = self._check_float_range("block_length", block_length, 50.0, 1000.0)
        self.arm_length = self._check_float_range("arm_length", arm_length, 50.0, 1000.0)
        self.lanes = self._check_int_range("lanes", lanes, 1, 3)
        self.speed = self._check_float_range("speed", speed, 5.0, 30.0)
        self._check_demand(rate, duration, profile, through)
        self._check_files(net_file, route_file)

    def _net_args(self) -> tuple[str, ...]:
        return (
            "--grid",
            "--grid.x-number",
            str(self.cols),
            "--grid.y-number",
            str(self.rows),
            "--grid.length",
            repr(self.block_length),
            "--grid.attach-length",
            repr(self.arm_length),
            "--default.lanenumber",
            str(self.lanes),
            "--default.speed",
            repr(self.speed),
            "--tls.guess",
            "true",
            "--tls.guess.threshold",
            "0",
            "--tls.layout",
            "opposites",
            "--no-turnarounds",
            "true",
            "--seed",
            "0",
        )


class _GeometricDemand(_TrafficGenerator):
    """Demand on networks without grid sides: directions and "opposite" come from the fringe nodes' bearings.

    * ``through``: the probability of leaving at a fringe node more than 135 degrees around the
      network's centroid from the entry (the arm across a spider; the far side of a random
      network); the rest is shared among the other reachable exits.
    * ``directional``: a seeded axis through the centroid (any angle); origins within 45 degrees
      of it (either way along it) enter at 1.5x ``rate``, the others at 0.5x.

    Only destinations reachable from the origin on the network's connections are drawn.
    """

    def _direction_factor(self, rng: np.random.Generator, layout: NetworkLayout) -> np.ndarray:
        axis = rng.uniform(0.0, 180.0)
        off_axis = np.abs((np.asarray(layout.origin_bearing) - axis + 90.0) % 180.0 - 90.0)  # (O,) degrees, 0..90
        return np.where(off_axis < 45.0, 1.5, 0.5)

    def _destination_weights(self, layout: NetworkLayout) -> np.ndarray:
        origins = np.asarray(layout.origin_bearing)[:, None]  # (O, 1)
        turn = np.abs((np.asarray(layout.destination_bearing)[None, :] - origins + 180.0) % 360.0 - 180.0)  # (O, D)
        own = np.asarray(layout.origin_node)[:, None] == np.asarray(layout.destination_node)[None, :]  # (O, D)
        allowed = layout.reachable & ~own
        opposite = allowed & (turn > 135.0)
        other = allowed & ~opposite
        weights = np.zeros(allowed.shape)
        has_opposite, has_other = opposite.any(axis=1), other.any(axis=1)  # (O,)
        for o in range(allowed.shape[0]):
            if has_opposite[o]:
                weights[o, opposite[o]] = (self.through if has_other[o] else 1.0) / opposite[o].sum()
            if has_other[o]:
                weights[o, other[o]] = (1.0 - self.through if has_opposite[o] else 1.0) / other[o].sum()
        return weights

    def _check_layout(self, layout: NetworkLayout) -> str | None:
        """Why demand cannot be drawn on ``layout`` (``None`` if it can)."""
        if len(layout.origins) < 2 or len(layout.destinations) < 2:
            return f"it has {len(layout.origins)} entries and {len(layout.destinations)} exits at dead ends (needs 2+)"
        weights = self._destination_weights(layout)
        stuck = [layout.origins[o] for o in np.flatnonzero(weights.sum(axis=1) == 0)]
        if stuck:
            return f"no exit is reachable from entry edge(s) {', '.join(stuck)}"
        return None


class SpiderGenerator(_GeometricDemand):
    """A spider web (``netgenerate --spider``): arms from a signalized centre crossing concentric rings.

    Args:
        arms: radial roads from the centre, 3 to 8.
        circles: rings around the centre, 1 to 5.
        distance: metres between consecutive rings (and from the centre to the first), 50 to 1000.
        arm_length: metres of the road attached to each arm beyond the outer ring, where vehicles
            enter and leave, 50 to 1000.
        ring_signals: also signalize every ring junction (``False``: only the centre).
        lanes: lanes per direction, 1 to 3.
        speed: speed limit in m/s, 5 to 30.
        rate: mean vehicles per hour entering on each arm, 0 to 3600.
        duration: seconds of demand, 60 to 86400.
        profile: ``"uniform"``, ``"peak"`` or ``"directional"`` (see :class:`_GeometricDemand`).
        through: probability of leaving on an arm across the centre (more than 135 degrees away).

    Junction ids are SUMO's: ``A1`` the centre, ``<ring letter><arm>`` (``B1``... the first ring,
    ``C1``... the second) on the rings, and the arms' dead ends on the letter after the last ring.
    The network depends only on the kwargs (``--seed 0``); the seed draws demand and SUMO's seed.
    """

    network_kind = "spider"

    def __init__(
        self,
        arms: int = 5,
        circles: int = 2,
        distance: float = 150.0,
        arm_length: float = 150.0,
        ring_signals: bool = False,
        lanes: int = 1,
        speed: float = 13.89,
        rate: float = 300.0,
        duration: int = 1800,
        profile: str = "uniform",
        through: float = 0.6,
    ):
        self.arms = self._check_int_range("arms", arms, 3, 8)
        self.circles = self._check_int_range("circles", circles, 1, 5)
        self.distance = self._check_float_range("distance", distance, 50.0, 1000.0)
        self.arm_length = self._check_float_range("arm_length", arm_length, 50.0, 1000.0)
        if not isinstance(ring_signals, bool | np.bool_):
            raise GeneratorArgumentError(f"ring_signals must be True or False; got {ring_signals!r}.")
        self.ring_signals = bool(ring_signals)
        self.lanes = self._check_int_range("lanes", lanes, 1, 3)
        self.speed = self._check_float_range("speed", speed, 5.0, 30.0)
        self._check_demand(rate, duration, profile, through)
        self._check_files(None, None)

    def signal_ids(self) -> list[str]:
        """The signalized junctions: the centre, and with ``ring_signals`` every ring junction."""
        rings = [f"{chr(ord('B') + c)}{a}" for c in range(self.circles) for a in range(1, self.arms + 1)]
        return ["A1", *(rings if self.ring_signals else [])]

    def _attach_length(self) -> float:
        """``--spider.attach-length`` that ends the arms ``arm_length`` beyond the last ring.

        netgenerate (1.28) puts the arms' dead ends ``(circles + 1) * attach-length`` from the
        centre, as if the attached arms were one more ring.
        """
        return round((self.circles * self.distance + self.arm_length) / (self.circles + 1), 6)

    def _net_args(self) -> tuple[str, ...]:
        return (
            "--spider",
            "--spider.arm-number",
            str(self.arms),
            "--spider.circle-number",
            str(self.circles),
            "--spider.space-radius",
            repr(self.distance),
            "--spider.attach-length",
            repr(self._attach_length()),
            "--default.lanenumber",
            str(self.lanes),
            "--default.speed",
            repr(self.speed),
            "--tls.set",
            ",".join(self.signal_ids()),
            "--tls.layout",
            "opposites",
            "--no-turnarounds",
            "true",
            "--seed",
            "0",
        )


#: Green phases a signal of a random network may have: netgenerate's ``opposites`` layout gives
#: 1 to 4 at junctions of at most 4 neighbours (the generator caps the degree at 4).
MAX_RANDOM_PHASES = 4


class RandomNetworkGenerator(_GeometricDemand):
    """A random road network per scenario (``netgenerate --rand``), signals at every junction of degree 3+.

    Args:
        num_signals: traffic lights every network has, 1 to 20 (see below).
        iterations: edges netgenerate adds (``--rand.iterations``), 2 to 200; about 2.5 per signal
            gives networks of ``num_signals`` signals often.
        bidi_probability: probability that a road is two-way (``--bidi-probability``), 0.5 to 1.
        min_distance, max_distance: metres of each new road (``--rand.min-distance``/``max-distance``),
            50 to 1000, ``min_distance <= max_distance``.
        lanes: lanes per direction, 1 to 3.
        speed: speed limit in m/s, 5 to 30.
        rate: mean vehicles per hour entering at each dead end, 0 to 3600.
        duration: seconds of demand, 60 to 86400.
        profile: ``"uniform"``, ``"peak"`` or ``"directional"`` (see :class:`_GeometricDemand`).
        through: probability of leaving across the network (more than 135 degrees around it).
        max_tries: networks drawn per scenario before giving up, 1 to 1000.

    **The network is drawn from the seed.** Each try draws netgenerate's ``--seed`` from the
    scenario's rng and builds the network (junctions of at most 4 neighbours, ``--tls.guess``
    with threshold 0 and the ``opposites`` layout); a network is kept when it has exactly
    ``num_signals`` traffic lights, they sit exactly on the junctions of 3 or more neighbours,
    each has at most :data:`MAX_RANDOM_PHASES` greens and ``4 * lanes`` incoming lanes, and
    every entry reaches an exit. So one env sees the same number of agents on every network
    (``tls_0``... in the order of the signals' ids). Tries are deterministic in the seed; a
    generator that fails ``max_tries`` times raises, naming the counts it found.

    Only the kept network enters the cache (keyed by its arguments, as every generated network);
    each try's verdict is remembered there too, so a scenario drawn again costs no ``netgenerate`` run.
    """

    network_kind = "random"
    fixed_network = False

    def __init__(
        self,
        num_signals: int = 4,
        iterations: int = 10,
        bidi_probability: float = 1.0,
        min_distance: float = 100.0,
        max_distance: float = 250.0,
        lanes: int = 1,
        speed: float = 13.89,
        rate: float = 300.0,
        duration: int = 1800,
        profile: str = "uniform",
        through: float = 0.6,
        max_tries: int = 200,
    ):
        self.num_signals = self._check_int_range("num_signals", num_signals, 1, 20)
        self.iterations = self._check_int_range("iterations", iterations, 2, 200)
        self.bidi_probability = self._check_float_range("bidi_probability", bidi_probability, 0.5, 1.0)
        self.min_distance = self._check_float_range("min_distance", min_distance, 50.0, 1000.0)
        self.max_distance = self._check_float_range("max_distance", max_distance, 50.0, 1000.0)
        if self.min_distance > self.max_distance:
            raise GeneratorArgumentError(
                f"min_distance ({self.min_distance}) must not exceed max_distance ({self.max_distance})."
            )
        self.lanes = self._check_int_range("lanes", lanes, 1, 3)
        self.speed = self._check_float_range("speed", speed, 5.0, 30.0)
        self._check_demand(rate, duration, profile, through)
        self.max_tries = self._check_int_range("max_tries", max_tries, 1, 1000)
        self._check_files(None, None)
        self._verdicts: dict[tuple[str, ...], str | None] = {}  # net args -> why rejected (None: kept)

    def signals(self) -> dict[str, tuple[int, int]]:
        """``{tls_k: (MAX_RANDOM_PHASES, 4 * lanes)}``: agent slots and the largest signal each may hold."""
        return {f"tls_{k}": (MAX_RANDOM_PHASES, 4 * self.lanes) for k in range(self.num_signals)}

    def network(self) -> tuple[Path, str]:
        raise ScenarioError(
            f"{self!r} draws a new network for every scenario; use network_file(scenario) for a scenario's network."
        )

    def _net_args(self, seed: int) -> tuple[str, ...]:  # type: ignore[override]
        return (
            "--rand",
            "--rand.iterations",
            str(self.iterations),
            "--bidi-probability",
            repr(self.bidi_probability),
            "--rand.min-distance",
            repr(self.min_distance),
            "--rand.max-distance",
            repr(self.max_distance),
            "--rand.neighbor-dist5",
            "0",
            "--rand.neighbor-dist6",
            "0",
            "--default.lanenumber",
            str(self.lanes),
            "--default.speed",
            repr(self.speed),
            "--tls.guess",
            "true",
            "--tls.guess.threshold",
            "0",
            "--tls.layout",
            "opposites",
            "--no-turnarounds",
            "true",
            "--seed",
            str(seed),
        )

    def _reject(self, root: ET.Element, layout: NetworkLayout) -> str | None:
        """Why the network ``root`` is not kept (``None`` if it is)."""
        neighbours: dict[str, set[str]] = {}
        for edge in root.iter("edge"):
            if edge.get("function") != "internal":
                neighbours.setdefault(edge.get("from"), set()).add(edge.get("to"))
                neighbours.setdefault(edge.get("to"), set()).add(edge.get("from"))
        junctions = [j for j in root.iter("junction") if j.get("type") != "internal"]
        signals = {j.get("id") for j in junctions if j.get("type") == "traffic_light"}
        if len(signals) != self.num_signals:
            return f"{len(signals)} signals"
        if signals != {j.get("id") for j in junctions if len(neighbours.get(j.get("id"), ())) >= 3}:
            return "signals not exactly at the junctions of degree 3+"
        for tls, (num_phases, num_lanes) in _shapes(root).items():
            if not 1 <= num_phases <= MAX_RANDOM_PHASES or num_lanes > 4 * self.lanes:
                return f"signal {tls} of {num_phases} greens and {num_lanes} incoming lanes"
        return self._check_layout(layout)

    def _verdict(self, args: tuple[str, ...]) -> str | None:
        """Why the network of ``args`` is not kept (``None`` if it is), remembered in its cache entry.

        The verdict depends on the arguments and ``num_signals`` only, so it is kept beside the
        network's cache entry (``verdict-<n>-signals.txt``) and a rejected network is never stored.
        """
        verdict = self._verdicts.get(args, "")
        if verdict != "":
            return verdict
        record = sumo.network_folder(args) / f"verdict-{self.num_signals}-signals.txt"
        if record.is_file():
            text = record.read_text().strip()
            verdict = None if text == "ok" else text
        else:
            data = netgenerate(args)
            root = ET.fromstring(data)
            verdict = self._reject(root, _read_layout(root, sha256(data)))
            if verdict is None:
                sumo.store_network(args, data)
            atomic_write(record, (verdict or "ok").encode())
        self._verdicts[args] = verdict
        return verdict

    def _draw_network(self, rng: np.random.Generator) -> tuple[tuple[str, ...], Path, str, NetworkLayout]:
        reasons: dict[str, int] = {}
        for _ in range(self.max_tries):
            args = self._net_args(int(rng.integers(0, 2**31 - 1)))
            verdict = self._verdict(args)
            if verdict is None:
                path, digest = generate_network(args)
                return args, path, digest, network_layout(path, digest)
            reasons[verdict] = reasons.get(verdict, 0) + 1
        found = ", ".join(f"{reason} ({count}x)" for reason, count in sorted(reasons.items(), key=lambda r: -r[1]))
        raise ScenarioError(
            f"{self!r} found no suitable network in {self.max_tries} tries: {found}. Raise iterations for more "
            "signals (about 2.5 per signal), lower it for fewer, or raise max_tries."
        )

    def __call__(self, rng: np.random.Generator) -> TrafficScenario:
        args, _, net_hash, layout = self._draw_network(rng)
        depart, origin, destination = self._demand(rng, layout)
        sumo_seed = int(rng.integers(0, 2**31 - 1))
        fields = dict(
            network=self.network_kind,
            net_args=args,
            net_hash=net_hash,
            origins=layout.origins,
            destinations=layout.destinations,
            depart=depart,
            origin=origin,
            destination=destination,
            duration=self.duration,
            profile=self.profile,
            sumo_seed=sumo_seed,
            routes_hash="",
        )
        draft = TrafficScenario(**fields)
        return TrafficScenario(**{**fields, "routes_hash": sha256(render_routes(draft))})


def signal_shapes(path: Path) -> dict[str, tuple[int, int]]:
    """``{tls id: (green phases, controlled incoming lanes)}`` read from a network file, without SUMO.

    The same counts :class:`~benchmarkzoo.envs.traffic.sim.SignalController` finds in SUMO, so
    an env can build its spaces before any simulation starts.
    """
    return _shapes(ET.parse(path).getroot())


def _shapes(root: ET.Element) -> dict[str, tuple[int, int]]:
    shapes: dict[str, tuple[int, int]] = {}
    for logic in root.iter("tlLogic"):
        tls = logic.get("id")
        if tls in shapes:
            continue
        states = [p.get("state", "") for p in logic.iter("phase")]
        greens = sum(1 for s in states if "y" not in s and ("G" in s or "g" in s))
        lanes = {f"{c.get('from')}_{c.get('fromLane')}" for c in root.iter("connection") if c.get("tl") == tls}
        shapes[tls] = (greens, len(lanes))
    return dict(sorted(shapes.items()))
