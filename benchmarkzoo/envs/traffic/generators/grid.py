"""Generators of ``netgenerate --grid`` networks: one signalized junction, or a grid of them.

* :class:`SingleIntersectionGenerator` (``traffic/single-intersection``): one signalized
  four-arm junction (a 1x1 grid with attached arms).
* :class:`GridGenerator` (``traffic/grid``): an ``rows x cols`` grid of signalized junctions
  with attached arms at the fringe, for the multi-agent grid env (:class:`GridNetworkGenerator`,
  which takes no external files, is also the routing env's grid).

Their fringe nodes are named by grid side (``top0``, ``left1``...), so demand uses
:data:`~benchmarkzoo.envs.traffic.demand.SIDES`: "opposite" is the facing side.
"""

from __future__ import annotations

from typing import Any

from benchmarkzoo.core.errors import GeneratorArgumentError
from benchmarkzoo.envs.traffic.generators.base import TrafficGenerator, road_args, signal_args

LAYOUTS: tuple[str, ...] = ("opposites", "incoming")


class SingleIntersectionGenerator(TrafficGenerator):
    """One signalized four-arm intersection with seeded demand.

    Args:
        lanes: lanes per direction on every arm, 1 to 3.
        arm_length: metres from the junction to each arm's end, 100 to 1000.
        layout: ``"opposites"`` (two green phases: north-south, east-west, left turns yield) or
            ``"incoming"`` (four green phases, one approach at a time).
        rate: mean vehicles per hour entering on each arm, 0 to 3600.
        net_file: a SUMO network with one traffic light, used instead of the generated one
            (see :mod:`~benchmarkzoo.envs.traffic.generators.base`; the network kwargs above are then ignored).
        route_file: a SUMO route file played instead of the generated demand (needs ``net_file``;
            the demand kwargs are then ignored).
        **kwargs: ``speed``, ``duration``, ``profile`` and ``through`` (the probability a vehicle
            goes straight across; the rest turn left or right equally), see :class:`TrafficGenerator`.
    """

    network_kind = "single-intersection"

    def __init__(
        self,
        lanes: int = 2,
        arm_length: float = 250.0,
        layout: str = "opposites",
        rate: float = 400.0,
        *,
        net_file: str | None = None,
        route_file: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(lanes=lanes, rate=rate, **kwargs)
        self.arm_length = self._check_float_range("arm_length", arm_length, 100.0, 1000.0)
        if layout not in LAYOUTS:
            raise GeneratorArgumentError(f"layout must be one of {LAYOUTS}; got {layout!r}.")
        self.layout = layout
        self._check_files(net_file, route_file)

    def _net_args(self) -> tuple[str, ...]:
        return (
            *("--grid", "--grid.number", "1", "--grid.attach-length", repr(self.arm_length)),
            *road_args(self.lanes, self.speed),
            *("--tls.guess", "true"),
            *signal_args(self.layout, 0),
        )


class GridNetworkGenerator(TrafficGenerator):
    """A ``rows x cols`` grid of signalized junctions with seeded demand between fringe arms (no external files).

    The base of :class:`GridGenerator` and of
    :class:`~benchmarkzoo.envs.traffic.routing.generator.RoutingGenerator`; see :class:`GridGenerator`.

    Args:
        rows: junctions north to south, 1 to 10.
        cols: junctions west to east, 1 to 10.
        block_length: metres between neighbouring junctions, 50 to 1000.
        arm_length: metres of the arms attached at the fringe, 50 to 1000.
        **kwargs: the roads and demand, see :class:`TrafficGenerator` (``through``: probability
            of leaving on the opposite side of the grid; the rest is shared among the other
            exits, never the arm a vehicle came in on).
    """

    network_kind = "grid"

    def __init__(
        self, rows: int = 2, cols: int = 2, block_length: float = 200.0, arm_length: float = 200.0, **kwargs: Any
    ):
        super().__init__(**kwargs)
        self.rows = self._check_int_range("rows", rows, 1, 10)
        self.cols = self._check_int_range("cols", cols, 1, 10)
        self.block_length = self._check_float_range("block_length", block_length, 50.0, 1000.0)
        self.arm_length = self._check_float_range("arm_length", arm_length, 50.0, 1000.0)

    def _net_args(self) -> tuple[str, ...]:
        return (
            *("--grid", "--grid.x-number", str(self.cols), "--grid.y-number", str(self.rows)),
            *("--grid.length", repr(self.block_length), "--grid.attach-length", repr(self.arm_length)),
            *road_args(self.lanes, self.speed),
            *("--tls.guess", "true", "--tls.guess.threshold", "0"),
            *signal_args("opposites", 0),
        )


class GridGenerator(GridNetworkGenerator):
    """A ``rows x cols`` grid of signalized junctions with seeded demand between fringe arms.

    Args:
        net_file, route_file: external SUMO files, as for :class:`SingleIntersectionGenerator`.
        **kwargs: the grid (``rows``, ``cols``, ``block_length``, ``arm_length``) of
            :class:`GridNetworkGenerator`, and the roads and demand of :class:`TrafficGenerator`.

    Every junction is signalized: ``--tls.guess.threshold 0`` (SUMO's default threshold, a sum
    of incoming lane speeds of 250 km/h, leaves one-lane grid junctions unsignalized).
    """

    def __init__(self, *, net_file: str | None = None, route_file: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self._check_files(net_file, route_file)
