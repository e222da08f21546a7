"""``traffic/spider``: a spider web (``netgenerate --spider``), a signalized centre and optionally signalized rings.

A spider has no grid sides, so its demand uses :data:`~benchmarkzoo.envs.traffic.demand.BEARINGS`:
"opposite" is an arm more than 135 degrees around the centre.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarkzoo.core.errors import GeneratorArgumentError
from benchmarkzoo.envs.traffic.demand import BEARINGS
from benchmarkzoo.envs.traffic.generators.base import TrafficGenerator, road_args, signal_args


class SpiderGenerator(TrafficGenerator):
    """A spider web (``netgenerate --spider``): arms from a signalized centre crossing concentric rings.

    Args:
        arms: radial roads from the centre, 3 to 8.
        circles: rings around the centre, 1 to 5.
        distance: metres between consecutive rings (and from the centre to the first), 50 to 1000.
        arm_length: metres of the road attached to each arm beyond the outer ring, where vehicles
            enter and leave, 50 to 1000.
        ring_signals: also signalize every ring junction (``False``: only the centre).
        **kwargs: the roads and demand, see :class:`~benchmarkzoo.envs.traffic.generators.base.TrafficGenerator`
            (``through``: probability of leaving on an arm across the centre, more than 135 degrees away).

    Junction ids are SUMO's: ``A1`` the centre, ``<ring letter><arm>`` (``B1``... the first ring,
    ``C1``... the second) on the rings, and the arms' dead ends on the letter after the last ring.
    The network depends only on the kwargs (``--seed 0``); the seed draws demand and SUMO's seed.
    """

    network_kind = "spider"
    geometry = BEARINGS

    def __init__(
        self,
        arms: int = 5,
        circles: int = 2,
        distance: float = 150.0,
        arm_length: float = 150.0,
        ring_signals: bool = False,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.arms = self._check_int_range("arms", arms, 3, 8)
        self.circles = self._check_int_range("circles", circles, 1, 5)
        self.distance = self._check_float_range("distance", distance, 50.0, 1000.0)
        self.arm_length = self._check_float_range("arm_length", arm_length, 50.0, 1000.0)
        if not isinstance(ring_signals, bool | np.bool_):
            raise GeneratorArgumentError(f"ring_signals must be True or False; got {ring_signals!r}.")
        self.ring_signals = bool(ring_signals)

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
            *("--spider", "--spider.arm-number", str(self.arms), "--spider.circle-number", str(self.circles)),
            *("--spider.space-radius", repr(self.distance), "--spider.attach-length", repr(self._attach_length())),
            *road_args(self.lanes, self.speed),
            *("--tls.set", ",".join(self.signal_ids())),
            *signal_args("opposites", 0),
        )
