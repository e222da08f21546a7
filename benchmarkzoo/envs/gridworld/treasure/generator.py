"""Treasure scenarios and their generators: random seabeds in the deep-sea-treasure family.

A map is ``height`` rows by ``width`` columns. Row 0 is the surface. Column ``c`` is water
down to row ``depth[c]`` and seabed (rock) below it; a treasure lies on the deepest water
cell of some columns. Because every column is open from the surface, every treasure can be
reached without crossing another one.
"""

from __future__ import annotations

import abc
import dataclasses

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator

MAX_SIDE = 64
MAX_VALUE = 1e6
PROFILES = ("monotone", "rugged")
FRONTS = ("convex", "concave", "mixed")
#: Exponent ranges of ``value = low + (high - low) * t ** p`` for ``t`` = normalized distance.
#: ``p < 1`` (diminishing returns) puts every treasure on the convex hull of the front;
#: ``p > 1`` makes the middle of the front concave, unreachable by any linear weighting.
CONVEX_EXPONENTS = (0.3, 0.8)
CONCAVE_EXPONENTS = (1.5, 4.0)

# The two classic maps (Yang et al. 2019; Vamplew et al. 2011/2018), as depth profiles.
CLASSIC_DEPTH = (1, 2, 3, 4, 4, 4, 7, 7, 9, 10, 10)
CLASSIC_VALUES = {
    "convex": (0.7, 8.2, 11.5, 14.0, 15.1, 16.1, 19.6, 20.3, 22.4, 23.7),
    "concave": (1.0, 2.0, 3.0, 5.0, 8.0, 16.0, 24.0, 50.0, 74.0, 124.0),
}


@dataclasses.dataclass(frozen=True, eq=False)
class TreasureScenario(Scenario):
    """One sea: where the seabed is, where the treasures lie and what they are worth.

    Attributes:
        rock: ``(height, width)`` bool, ``True`` for a seabed cell (the submarine cannot enter it).
        treasure_pos: ``(K, 2)`` int64, ``(row, col)`` of each treasure, on free cells.
        treasure_value: ``(K,)`` float64, each treasure's value, in ``(0, 1e6]``. The env pays
            it as float32 (the reward dtype), so fronts are computed from the float32 value.
        start: ``(row, col)`` of the submarine's first cell (free, not a treasure).
    """

    kind = "treasure"

    rock: np.ndarray
    treasure_pos: np.ndarray
    treasure_value: np.ndarray
    start: tuple[int, int]

    def __post_init__(self) -> None:
        rock = np.asarray(self.rock)
        if rock.dtype != np.bool_ or rock.ndim != 2:
            raise ScenarioError(
                f"TreasureScenario.rock must be a 2-D bool array; got dtype {rock.dtype}, shape {rock.shape}."
            )
        height, width = rock.shape
        pos = np.asarray(self.treasure_pos, dtype=np.int64).reshape(-1, 2)
        value = np.asarray(self.treasure_value, dtype=np.float64).reshape(-1)
        if len(pos) == 0 or len(pos) != len(value):
            raise ScenarioError(
                f"TreasureScenario needs at least one treasure and one value per treasure; got {len(pos)} "
                f"positions and {len(value)} values."
            )
        inside = (pos[:, 0] >= 0) & (pos[:, 0] < height) & (pos[:, 1] >= 0) & (pos[:, 1] < width)
        if not inside.all() or rock[pos[inside, 0], pos[inside, 1]].any():
            raise ScenarioError(
                f"TreasureScenario.treasure_pos must be free cells inside the {rock.shape} map; got {pos.tolist()}."
            )
        if len(np.unique(pos[:, 0] * width + pos[:, 1])) != len(pos):
            raise ScenarioError(f"TreasureScenario.treasure_pos has repeated cells: {pos.tolist()}.")
        if not (np.isfinite(value).all() and (value > 0).all() and (value <= MAX_VALUE).all()):
            raise ScenarioError(
                f"TreasureScenario.treasure_value must be finite numbers in (0, {MAX_VALUE:g}]; got {value.tolist()}."
            )
        r, c = (int(x) for x in self.start)
        if not (0 <= r < height and 0 <= c < width) or rock[r, c] or ((pos[:, 0] == r) & (pos[:, 1] == c)).any():
            raise ScenarioError(
                f"TreasureScenario.start {(r, c)} must be a free, treasure-free cell inside the {rock.shape} map."
            )
        for array in (rock, pos, value):
            array.setflags(write=False)  # scenarios are values: their hash must not go stale
        object.__setattr__(self, "rock", rock)
        object.__setattr__(self, "treasure_pos", pos)
        object.__setattr__(self, "treasure_value", value)
        object.__setattr__(self, "start", (r, c))

    @classmethod
    def trusted(cls, rock: np.ndarray, treasure_pos: np.ndarray, treasure_value: np.ndarray, start: tuple[int, int]):
        """Build a scenario without the checks, for generators whose output is valid by construction.

        A new sea is drawn on every reset, and the checks would cost as much as the rest of the
        draw. The arrays must already have the field dtypes (bool, int64, float64); the generator
        tests rebuild drawn scenarios through the checked constructor.
        """
        scenario = object.__new__(cls)
        for name, value in (("rock", rock), ("treasure_pos", treasure_pos), ("treasure_value", treasure_value)):
            value.setflags(write=False)
            object.__setattr__(scenario, name, value)
        object.__setattr__(scenario, "start", start)
        return scenario

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of the map."""
        return self.rock.shape

    @property
    def num_treasures(self) -> int:
        """The number of treasures on the map."""
        return len(self.treasure_value)


def seabed_scenario(
    depth: np.ndarray, columns: np.ndarray, values: np.ndarray, height: int, start_col: int, *, check: bool = True
) -> TreasureScenario:
    """A scenario from a depth profile: rock below ``depth[c]``, treasures at ``(depth[c], c)`` of ``columns``.

    Args:
        depth: ``(width,)`` int, row of each column's deepest water cell, in ``[1, height - 1]``.
        columns: ``(K,)`` int, the columns that hold a treasure.
        values: ``(K,)`` float, their values.
        height: map rows.
        start_col: the submarine starts at ``(0, start_col)`` on the surface.
        check: validate the scenario (``False`` only for inputs valid by construction).
    """
    depth = np.asarray(depth, dtype=np.int64)
    rock = np.arange(height)[:, None] > depth[None, :]  # (height, width)
    columns = np.asarray(columns, dtype=np.int64)
    pos = np.stack([depth[columns], columns], axis=1)
    values = np.asarray(values, dtype=np.float64)
    make = TreasureScenario if check else TreasureScenario.trusted
    return make(rock=rock, treasure_pos=pos, treasure_value=values, start=(0, int(start_col)))


class TreasureGenerator(Generator):
    """Shared part of treasure generators: the map size and the largest treasure value.

    The env reads ``shape`` (for its observation space) and ``max_value`` (for its
    ``reward_space``) from here.
    """

    scenario_type = TreasureScenario

    def __init__(self, height: int, width: int, max_value: float):
        self.height = self._check_int_range("height", height, 2, MAX_SIDE)
        self.width = self._check_int_range("width", width, 1, MAX_SIDE)
        self.max_value = self._check_float_range("max_value", max_value, 0.1, MAX_VALUE)

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of every map this generator draws."""
        return (self.height, self.width)

    @override
    @abc.abstractmethod
    def __call__(self, rng: np.random.Generator) -> TreasureScenario:
        """Draw one sea; deterministic in the state of ``rng``."""


class SeabedGenerator(TreasureGenerator):
    """Random seabeds with treasures whose value grows with their distance from the start.

    The depth profile is ``"monotone"`` (non-decreasing to the right, as in the classic map:
    a deeper treasure is always farther away) or ``"rugged"`` (a random walk with steps of up to
    ``max(1, height // 3)`` rows: trenches and ridges; the distance order of the treasures no
    longer follows the columns). ``num_treasures`` distinct columns hold a treasure on their
    deepest water cell. With ``t`` the treasure's shortest-path distance from the start,
    normalized to ``[0, 1]`` over the map's treasures, its value is
    ``min_value + (max_value - min_value) * t ** p`` (times ``1 + value_noise * u``,
    ``u ~ U(-1, 1)``, then clipped), rounded to one decimal. The exponent ``p`` sets the shape
    of the Pareto front: ``front="convex"`` draws ``p`` in [0.3, 0.8] (every Pareto point is
    the optimum of some linear weighting), ``"concave"`` in [1.5, 4] (most are not), and
    ``"mixed"`` picks one of the two per scenario with equal odds. Noise can make some
    treasures dominated.

    Args:
        height: rows, 2..64 (row 0 is the surface; treasures lie in rows 1..height - 1).
        width: columns, 1..64.
        num_treasures: treasure columns, 1..width (default ``width - 1``, at least 1).
        profile: ``"monotone"`` or ``"rugged"``.
        front: ``"convex"``, ``"concave"`` or ``"mixed"``.
        min_value: value of the nearest treasure (before noise), 0.1..max_value.
        max_value: value of the farthest treasure (before noise), 0.1..1e6.
        value_noise: relative value noise, 0..0.5.
        random_start: start at a random surface column instead of the top-left corner.
    """

    def __init__(
        self,
        height: int = 11,
        width: int = 11,
        num_treasures: int | None = None,
        profile: str = "monotone",
        front: str = "mixed",
        min_value: float = 1.0,
        max_value: float = 124.0,
        value_noise: float = 0.0,
        random_start: bool = False,
    ):
        super().__init__(height, width, max_value)
        if num_treasures is None:  # as in the classic map: every column but the last
            num_treasures = max(1, self.width - 1)
        self.num_treasures = self._check_int_range("num_treasures", num_treasures, 1, self.width)
        self.profile = self._check_choice("profile", profile, PROFILES)
        self.front = self._check_choice("front", front, FRONTS)
        self.min_value = self._check_float_range("min_value", min_value, 0.1, self.max_value)
        self.value_noise = self._check_float_range("value_noise", value_noise, 0.0, 0.5)
        if not isinstance(random_start, bool):
            raise GeneratorArgumentError(f"random_start must be True or False; got {random_start!r}.")
        self.random_start = random_start

    @staticmethod
    def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
        if value not in choices:
            raise GeneratorArgumentError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}.")
        return str(value)

    def _depth(self, rng: np.random.Generator) -> np.ndarray:
        """``(width,)`` int64 row of each column's deepest water cell, in ``[1, height - 1]``."""
        if self.profile == "monotone":
            return np.sort(rng.integers(1, self.height, size=self.width))
        max_step = max(1, self.height // 3)
        steps = rng.integers(-max_step, max_step + 1, size=self.width)
        depth = np.empty(self.width, dtype=np.int64)
        level = int(rng.integers(1, self.height))
        for c in range(self.width):  # a walk that bounces off the surface and the bottom row
            depth[c] = level
            level = min(max(level + int(steps[c]), 1), self.height - 1)
        return depth

    @override
    def __call__(self, rng: np.random.Generator) -> TreasureScenario:
        depth = self._depth(rng)
        columns = np.sort(rng.choice(self.width, size=self.num_treasures, replace=False))
        start_col = int(rng.integers(self.width)) if self.random_start else 0
        concave = self.front == "concave" or (self.front == "mixed" and rng.random() < 0.5)
        exponent = rng.uniform(*(CONCAVE_EXPONENTS if concave else CONVEX_EXPONENTS))
        noise = rng.uniform(-1.0, 1.0, size=self.num_treasures)
        # Every column hangs from the open surface row, so the shortest path to a treasure is
        # along the surface, then straight down: no BFS needed (the tests check it equals BFS).
        dist = (depth[columns] + np.abs(columns - start_col)).astype(np.float64)
        span = dist.max() - dist.min()
        t = (dist - dist.min()) / span if span > 0 else np.ones_like(dist)
        values = self.min_value + (self.max_value - self.min_value) * t**exponent
        values = np.round(values * (1.0 + self.value_noise * noise), 1).clip(0.1, self.max_value)
        return seabed_scenario(depth, columns, values, self.height, start_col, check=False)


class ClassicGenerator(TreasureGenerator):
    """The two published 11x11 deep-sea-treasure maps, always the same scenario (no randomness).

    ``variant="convex"`` is the map of Yang et al. (2019) (MO-Gymnasium's
    ``deep-sea-treasure-v0``), ``"concave"`` the map of Vamplew et al.
    (``deep-sea-treasure-concave-v0``). Useful as a reference and as a fixed test scenario.

    Args:
        variant: ``"convex"`` or ``"concave"``.
    """

    def __init__(self, variant: str = "convex"):
        variant = SeabedGenerator._check_choice("variant", variant, tuple(CLASSIC_VALUES))
        super().__init__(11, 11, max(CLASSIC_VALUES[variant]))
        self.variant = variant

    @override
    def __call__(self, rng: np.random.Generator) -> TreasureScenario:
        values = CLASSIC_VALUES[self.variant]
        return seabed_scenario(np.array(CLASSIC_DEPTH), np.arange(len(values)), np.array(values), 11, 0)
