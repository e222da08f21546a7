"""Generators of wall maps with things placed on them: the shared part of the Maze and MAPF families."""

from __future__ import annotations

from typing import Generic, TypeVar

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator, redraw

_Placed = TypeVar("_Placed", bound=Scenario)


class WallMapGenerator(Generator, Generic[_Placed]):
    """Draws a ``(height, width)`` wall map, then places a scenario's start(s) and goal(s) on it.

    A subclass draws the walls (:meth:`_walls`) and places on them (:meth:`_place`, ``None`` when
    that map cannot hold the placement); a map that cannot is redrawn (:func:`redraw`), from the
    same stream, so the scenario stays a function of the seed.
    """

    height: int
    width: int

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of every map this generator draws."""
        return (self.height, self.width)

    def _walls(self, rng: np.random.Generator) -> np.ndarray:
        """A ``(height, width)`` bool map, ``True`` for a wall."""
        raise NotImplementedError

    def _place(self, rng: np.random.Generator, walls: np.ndarray) -> _Placed | None:
        """The scenario on ``walls``, or ``None`` when they cannot hold it."""
        raise NotImplementedError

    def _unplaceable(self) -> tuple[str, str]:
        """What no map held (completes "found no ...") and which arguments to change."""
        raise NotImplementedError

    @override
    def __call__(self, rng: np.random.Generator) -> _Placed:
        never_found, advice = self._unplaceable()
        return redraw(self, lambda: self._place(rng, self._walls(rng)), never_found, advice)
