"""What the traffic code reads from a SUMO network file, without SUMO: its fringe and its signals.

* :func:`network_layout`: the edges entering and leaving at dead-end fringe nodes, their grid
  sides (``top0``, ``left1``... in netgenerate's grids) or bearings around the network, and
  which exit each entry reaches; the demand model (:mod:`benchmarkzoo.envs.traffic.demand`)
  draws trips on it. Read once per network (keyed by the file's hash).
* :func:`signal_shapes`: each traffic light's green phases and controlled incoming lanes, the
  counts :class:`~benchmarkzoo.envs.traffic.sim.SignalController` finds in SUMO, so an env can
  build its spaces before any simulation starts.
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from benchmarkzoo.core.errors import ScenarioError

_SIDE_PATTERN = re.compile(r"^(top|right|bottom|left)\d+$")


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


def required(element: ET.Element, name: str) -> str:
    """Attribute ``name`` of ``element`` of a SUMO network file.

    Raises:
        ScenarioError: the element lacks it (a file SUMO did not write, or a truncated one).
    """
    value = element.get(name)
    if value is None:
        raise ScenarioError(
            f"the SUMO network has a <{element.tag}> without its {name!r} attribute "
            f"({ET.tostring(element)[:120]!r}); pass a network netconvert or netgenerate wrote."
        )
    return value


def network_layout(path: Path, digest: str) -> NetworkLayout:
    """Edges entering and leaving the network at its dead-end fringe nodes (``top0``, ``left1``...)."""
    found = _layouts.get(digest)
    if found is not None:
        return found
    return read_layout(ET.parse(path).getroot(), digest)


def read_layout(root: ET.Element, digest: str) -> NetworkLayout:
    """The :class:`NetworkLayout` of the parsed network ``root``, remembered under ``digest``."""
    dead_ends = {
        required(j, "id"): _SIDE_PATTERN.match(required(j, "id"))
        for j in root.iter("junction")
        if j.get("type") == "dead_end"
    }
    entering: list[tuple[str, str]] = []
    leaving: list[tuple[str, str]] = []
    for edge in root.iter("edge"):
        if edge.get("function") == "internal":
            continue
        start, end = required(edge, "from"), required(edge, "to")
        if start in dead_ends:
            entering.append((required(edge, "id"), start))
        if end in dead_ends:
            leaving.append((required(edge, "id"), end))
    entering.sort()
    leaving.sort()

    def side(node: str) -> str:
        match = dead_ends[node]
        return match.group(1) if match else node

    junctions = {
        required(j, "id"): (float(j.get("x", 0.0)), float(j.get("y", 0.0)))
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


def signal_shapes(path: Path) -> dict[str, tuple[int, int]]:
    """``{tls id: (green phases, controlled incoming lanes)}`` read from a network file, without SUMO.

    The same counts :class:`~benchmarkzoo.envs.traffic.sim.SignalController` finds in SUMO, so
    an env can build its spaces before any simulation starts.
    """
    return read_signal_shapes(ET.parse(path).getroot())


def read_signal_shapes(root: ET.Element) -> dict[str, tuple[int, int]]:
    """:func:`signal_shapes` of the parsed network ``root``, sorted by id."""
    shapes: dict[str, tuple[int, int]] = {}
    for logic in root.iter("tlLogic"):
        tls = required(logic, "id")
        if tls in shapes:
            continue
        states = [p.get("state", "") for p in logic.iter("phase")]
        greens = sum(1 for s in states if "y" not in s and ("G" in s or "g" in s))
        lanes = {f"{c.get('from')}_{c.get('fromLane')}" for c in root.iter("connection") if c.get("tl") == tls}
        shapes[tls] = (greens, len(lanes))
    return dict(sorted(shapes.items()))
