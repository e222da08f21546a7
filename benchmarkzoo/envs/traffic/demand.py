"""Seeded traffic demand on a network's fringe, drawn with numpy.

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

What "opposite" and "axis" mean is the network's geometry: :data:`SIDES` on netgenerate's
grids (fringe nodes named ``top0``, ``left1``...), :data:`BEARINGS` on networks without sides
(spider webs, random networks), from the fringe nodes' bearings around the network's centroid.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

import numpy as np

from benchmarkzoo.envs.traffic.networks import NetworkLayout

PROFILES: tuple[str, ...] = ("uniform", "peak", "directional")
_OPPOSITE = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}


class Geometry(Protocol):
    """Where trips go on a network: its rate factors for ``directional`` and its destination rule."""

    def direction_factor(self, rng: np.random.Generator, layout: NetworkLayout) -> np.ndarray:
        """``(O,)`` rate factor of each origin under the ``directional`` profile, drawn from ``rng``."""

    def destination_weights(self, layout: NetworkLayout, through: float) -> np.ndarray:
        """``(O, D)`` probability of each destination from each origin; rows sum to 1."""


class _Sides:
    """Grid sides: ``opposite`` is the facing side, the ``directional`` axis north-south or east-west."""

    def direction_factor(self, rng: np.random.Generator, layout: NetworkLayout) -> np.ndarray:
        """``(O,)`` rate factors of the ``directional`` profile: a seeded axis (N-S or E-W) 1.5x, the other 0.5x."""
        axis = ("top", "bottom") if rng.random() < 0.5 else ("left", "right")
        return np.array([1.5 if s in axis else 0.5 for s in layout.origin_side])

    def destination_weights(self, layout: NetworkLayout, through: float) -> np.ndarray:
        """``(O, D)`` destination probabilities: ``through`` to the opposite side, the rest shared."""
        weights = np.zeros((len(layout.origins), len(layout.destinations)))
        for o, (o_side, o_node) in enumerate(zip(layout.origin_side, layout.origin_node)):
            allowed = np.array([node != o_node for node in layout.destination_node])
            opposite = allowed & np.array([s == _OPPOSITE.get(o_side) for s in layout.destination_side])
            other = allowed & ~opposite
            if opposite.any():
                weights[o, opposite] = through / opposite.sum()
            if other.any():
                weights[o, other] = (1.0 - through if opposite.any() else 1.0) / other.sum()
            if weights[o].sum() == 0:
                weights[o, allowed] = 1.0
        return weights


class _Bearings:
    """Networks without grid sides: directions and "opposite" come from the fringe nodes' bearings.

    * ``through``: the probability of leaving at a fringe node more than 135 degrees around the
      network's centroid from the entry (the arm across a spider; the far side of a random
      network); the rest is shared among the other reachable exits.
    * ``directional``: a seeded axis through the centroid (any angle); origins within 45 degrees
      of it (either way along it) enter at 1.5x ``rate``, the others at 0.5x.

    Only destinations reachable from the origin on the network's connections are drawn.
    """

    def direction_factor(self, rng: np.random.Generator, layout: NetworkLayout) -> np.ndarray:
        axis = rng.uniform(0.0, 180.0)
        off_axis = np.abs((np.asarray(layout.origin_bearing) - axis + 90.0) % 180.0 - 90.0)  # (O,) degrees, 0..90
        return np.where(off_axis < 45.0, 1.5, 0.5)

    def destination_weights(self, layout: NetworkLayout, through: float) -> np.ndarray:
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
                weights[o, opposite[o]] = (through if has_other[o] else 1.0) / opposite[o].sum()
            if has_other[o]:
                weights[o, other[o]] = (1.0 - through if has_opposite[o] else 1.0) / other[o].sum()
        return weights


SIDES: Geometry = _Sides()
BEARINGS: Geometry = _Bearings()


@dataclasses.dataclass(frozen=True)
class Demand:
    """One demand model: vehicles per hour per origin, seconds, profile and the share going ``through``."""

    rate: float
    duration: int
    profile: str
    through: float
    geometry: Geometry = SIDES

    def draw(self, rng: np.random.Generator, layout: NetworkLayout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(depart, origin, destination)``: ``(V,)`` int32 seconds, int16 origin and destination indices."""
        num_origins = len(layout.origins)
        factor = rng.uniform(0.8, 1.2, size=num_origins)  # (O,) per-origin rate factor
        seconds = np.arange(self.duration, dtype=np.float64)  # (T,)
        if self.profile == "peak":
            t_peak = rng.uniform(0.3, 0.7) * self.duration
            shape = 0.5 + 1.5 * np.exp(-(((seconds - t_peak) / (0.15 * self.duration)) ** 2))
        else:
            shape = np.ones_like(seconds)
        if self.profile == "directional":
            factor = factor * self.geometry.direction_factor(rng, layout)
        rates = shape[:, None] * (self.rate * factor)[None, :] / 3600.0  # (T, O) vehicles per second
        counts = rng.poisson(rates)  # (T, O)
        t_index, o_index = np.nonzero(counts)  # row-major: sorted by second, then origin
        repeats = counts[t_index, o_index]
        depart = np.repeat(t_index, repeats).astype(np.int32)  # (V,)
        origin = np.repeat(o_index, repeats).astype(np.int16)  # (V,)
        cumulative = np.cumsum(self.destination_weights(layout), axis=1)  # (O, D)
        draws = rng.random(depart.shape[0])  # (V,)
        chosen = cumulative[origin]  # (V, D)
        destination = (chosen <= (draws * chosen[:, -1])[:, None]).sum(axis=1)  # (V,)
        destination = np.minimum(destination, len(layout.destinations) - 1).astype(np.int16)
        return depart, origin, destination

    def destination_weights(self, layout: NetworkLayout) -> np.ndarray:
        """``(O, D)`` probability of each destination from each origin (rows sum to 1, or 0 where none is allowed)."""
        return self.geometry.destination_weights(layout, self.through)

    def unservable(self, layout: NetworkLayout) -> str | None:
        """Why demand cannot be drawn on ``layout`` (``None`` if it can)."""
        if len(layout.origins) < 2 or len(layout.destinations) < 2:
            return f"it has {len(layout.origins)} entries and {len(layout.destinations)} exits at dead ends (needs 2+)"
        weights = self.destination_weights(layout)
        stuck = [layout.origins[o] for o in np.flatnonzero(weights.sum(axis=1) == 0)]
        if stuck:
            return f"no exit is reachable from entry edge(s) {', '.join(stuck)}"
        return None
