"""What a traffic frame draws of a network: its lanes, junctions and signal stop lines, read from its XML.

:func:`network_geometry` reads a scenario's ``.net.xml`` once per network (keyed by the
scenario's ``net_hash``) with ElementTree, as :mod:`benchmarkzoo.envs.traffic.networks` does:
no SUMO, so the geometry costs nothing per frame and nothing at all without rendering.
Coordinates are the network's metres (SUMO's, y pointing north), the frame of TraCI's vehicle
positions.
"""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from benchmarkzoo.envs.traffic.networks import required
from benchmarkzoo.envs.traffic.scenario import TrafficScenario, network_file

#: SUMO's default lane width (metres), for lanes whose ``width`` the file leaves out.
DEFAULT_LANE_WIDTH = 3.2


@dataclasses.dataclass(frozen=True)
class StopLine:
    """One link's piece of an incoming lane's stop line: where it is drawn and which state character it shows.

    Attributes:
        tls: the traffic light controlling the link.
        link: the link's index into that light's state string.
        lane: the incoming lane.
        start, end: ``(2,)`` the piece's ends across the lane, at the lane's end (metres).
        direction: ``(2,)`` unit vector along the lane at its end (into the junction).
    """

    tls: str
    link: int
    lane: str
    start: np.ndarray
    end: np.ndarray
    direction: np.ndarray


@dataclasses.dataclass(frozen=True)
class NetworkGeometry:
    """A network's drawable shapes.

    Attributes:
        bounds: ``(x_min, y_min, x_max, y_max)`` of everything drawn (metres).
        lanes: every non-internal lane's centre line, ``(K, 2)`` each.
        lane_width: ``(len(lanes),)`` float64 metres.
        junctions: every junction's outline with 3 or more points, ``(K, 2)`` each.
        stop_lines: one :class:`StopLine` per signal-controlled link; a lane with ``n`` links
            has its width split into ``n`` pieces, by link index.
    """

    bounds: tuple[float, float, float, float]
    lanes: tuple[np.ndarray, ...]
    lane_width: np.ndarray
    junctions: tuple[np.ndarray, ...]
    stop_lines: tuple[StopLine, ...]


def parse_shape(text: str) -> np.ndarray:
    """``"x,y x,y ..."`` (a third ``z`` ignored) as ``(K, 2)`` float64."""
    return np.array([[float(v) for v in point.split(",")[:2]] for point in text.split()], dtype=np.float64)


def read_geometry(path: Path) -> NetworkGeometry:
    """The geometry of the network file ``path``."""
    root = ET.parse(path).getroot()
    lanes: dict[str, tuple[np.ndarray, float]] = {}
    for edge in root.iter("edge"):
        if edge.get("function") == "internal":
            continue
        for lane in edge.iter("lane"):
            shape = parse_shape(required(lane, "shape"))
            if len(shape) >= 2:
                lanes[required(lane, "id")] = (shape, float(lane.get("width", DEFAULT_LANE_WIDTH)))
    junctions = tuple(
        shape
        for junction in root.iter("junction")
        if junction.get("type") != "internal" and len(shape := parse_shape(junction.get("shape", ""))) >= 3
    )
    links: dict[str, list[tuple[int, str]]] = {}  # incoming lane: [(link index, tls)]
    for connection in root.iter("connection"):
        tls = connection.get("tl")
        if tls is not None:
            incoming = f"{required(connection, 'from')}_{required(connection, 'fromLane')}"
            links.setdefault(incoming, []).append((int(required(connection, "linkIndex")), tls))
    stop_lines = []
    for incoming, controlled in sorted(links.items()):
        if incoming in lanes:
            shape, width = lanes[incoming]
            stop_lines.extend(_split_stop_line(incoming, shape, width, sorted(set(controlled))))
    points = np.concatenate([shape for shape, _ in lanes.values()] + list(junctions)) if lanes else np.zeros((1, 2))
    low, high = points.min(axis=0), points.max(axis=0)
    return NetworkGeometry(
        bounds=(float(low[0]), float(low[1]), float(high[0]), float(high[1])),
        lanes=tuple(shape for shape, _ in lanes.values()),
        lane_width=np.array([width for _, width in lanes.values()], dtype=np.float64),
        junctions=junctions,
        stop_lines=tuple(stop_lines),
    )


def _split_stop_line(lane: str, shape: np.ndarray, width: float, links: list[tuple[int, str]]) -> list[StopLine]:
    """The stop line across the end of ``lane``, split into one piece per link (right to left, by link index)."""
    direction = shape[-1] - shape[-2]
    direction = direction / max(float(np.hypot(*direction)), 1e-9)
    left = np.array([-direction[1], direction[0]])  # the lane's left, seen driving along it
    pieces = []
    for j, (link, tls) in enumerate(links):
        a = -width / 2 + width * j / len(links)
        b = -width / 2 + width * (j + 1) / len(links)
        pieces.append(StopLine(tls, link, lane, shape[-1] + left * a, shape[-1] + left * b, direction))
    return pieces


_geometries: dict[str, NetworkGeometry] = {}


def network_geometry(scenario: TrafficScenario) -> NetworkGeometry:
    """The geometry of ``scenario``'s network, read from its file on the first call for that network."""
    geometry = _geometries.get(scenario.net_hash)
    if geometry is None:
        geometry = _geometries[scenario.net_hash] = read_geometry(network_file(scenario))
    return geometry
