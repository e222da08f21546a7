"""MicroCombat scenarios and their generators: two armies (unit types and start positions) and the enemy's script."""

from __future__ import annotations

import dataclasses

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.envs.multiagent.combat.units import NUM_TYPES, TYPE_INDEX, TYPE_NAMES, parse_army
from benchmarkzoo.generators.base import Generator

MAX_UNITS = 32  # per side
MIN_MAP, MAX_MAP = 16.0, 128.0
#: The scripted enemy's strategies (see :mod:`benchmarkzoo.envs.multiagent.combat.sim`).
STRATEGIES = ("closest", "focus")
#: Named line-ups in the SMAC manner: (our army, the enemy army).
LINEUPS: dict[str, tuple[str, str]] = {
    "3m": ("3m", "3m"),
    "8m": ("8m", "8m"),
    "5m_vs_6m": ("5m", "6m"),
    "10m_vs_11m": ("10m", "11m"),
    "2s3z": ("2s3z", "2s3z"),
    "3s5z": ("3s5z", "3s5z"),
    "1r4m": ("1r4m", "1r4m"),
    "3s_vs_3z": ("3s", "3z"),
    "3s_vs_4z": ("3s", "4z"),
}
COLUMN = 6  # units per column of a start formation
SPACING = 1.0  # between neighbours of a formation
JITTER = 0.25  # each unit's start is moved by up to this much along each axis


@dataclasses.dataclass(frozen=True, eq=False)
class CombatScenario(Scenario):
    """One engagement on an open square map of side ``map_size`` (x to the east, y to the north).

    Attributes:
        map_size: side of the map; every position lies in ``[0, map_size]``.
        ally_types: ``(N,)`` int64, our units' types (indices into ``units.UNIT_TYPES``).
        ally_pos: ``(N, 2)`` float64, our units' start ``(x, y)``.
        enemy_types: ``(E,)`` int64, the enemy units' types.
        enemy_pos: ``(E, 2)`` float64, the enemy units' start ``(x, y)``.
        enemy_strategy: the scripted enemy's strategy, ``"closest"`` or ``"focus"``.
    """

    kind = "micro-combat"

    map_size: float
    ally_types: np.ndarray
    ally_pos: np.ndarray
    enemy_types: np.ndarray
    enemy_pos: np.ndarray
    enemy_strategy: str

    def __post_init__(self) -> None:
        types = {k: np.array(getattr(self, k), dtype=np.int64, copy=True) for k in ("ally_types", "enemy_types")}
        pos = {k: np.array(getattr(self, k), dtype=np.float64, copy=True) for k in ("ally_pos", "enemy_pos")}
        n = types["ally_types"].shape[0] if types["ally_types"].ndim == 1 else -1
        e = types["enemy_types"].shape[0] if types["enemy_types"].ndim == 1 else -1
        if not (
            1 <= n <= MAX_UNITS
            and 1 <= e <= MAX_UNITS
            and pos["ally_pos"].shape == (n, 2)
            and pos["enemy_pos"].shape == (e, 2)
        ):
            raise ScenarioError(
                f"CombatScenario needs ally_types (N,), ally_pos (N, 2), enemy_types (E,), enemy_pos (E, 2) with "
                f"1 <= N, E <= {MAX_UNITS}; got shapes {types['ally_types'].shape}, {pos['ally_pos'].shape}, "
                f"{types['enemy_types'].shape}, {pos['enemy_pos'].shape}."
            )
        size = self.map_size
        if isinstance(size, bool) or not isinstance(size, int | float) or not MIN_MAP <= size <= MAX_MAP:
            raise ScenarioError(f"CombatScenario: map_size must be a number in [{MIN_MAP}, {MAX_MAP}]; got {size!r}.")
        object.__setattr__(self, "map_size", float(size))
        for name, value in types.items():
            if ((value < 0) | (value >= NUM_TYPES)).any():
                raise ScenarioError(f"CombatScenario: {name} must lie in 0..{NUM_TYPES - 1} {TYPE_NAMES}; got {value}.")
        for name, coords in pos.items():
            if not (np.isfinite(coords).all() and coords.min() >= 0.0 and coords.max() <= self.map_size):
                raise ScenarioError(f"CombatScenario: every {name} must lie inside [0, {self.map_size}]^2.")
        if self.enemy_strategy not in STRATEGIES:
            raise ScenarioError(
                f"CombatScenario: enemy_strategy must be one of {STRATEGIES}; got {self.enemy_strategy!r}."
            )
        for name, array in {**types, **pos}.items():
            array.setflags(write=False)  # scenarios are values: their hash must not go stale
            object.__setattr__(self, name, array)

    @property
    def num_allies(self) -> int:
        """The number of our units."""
        return int(self.ally_types.shape[0])

    @property
    def num_enemies(self) -> int:
        """The number of enemy units."""
        return int(self.enemy_types.shape[0])


def formation(count: int, centre: tuple[float, float], facing: int) -> np.ndarray:
    """``(count, 2)`` start positions: columns of up to :data:`COLUMN` units, the first column in front.

    ``facing`` is ``+1`` for an army facing east (its later columns lie to the west), ``-1`` facing west.
    """
    index = np.arange(count)
    column, row = index // COLUMN, index % COLUMN
    rows = np.minimum(count - column * COLUMN, COLUMN)  # units in each unit's column
    x = centre[0] - facing * SPACING * column
    y = centre[1] + SPACING * (row - (rows - 1) / 2)
    return np.stack([x, y], axis=1).astype(np.float64)


def _check_strategy(enemy_strategy: str) -> str:
    if enemy_strategy not in (*STRATEGIES, "random"):
        raise GeneratorArgumentError(
            f"enemy_strategy must be one of {(*STRATEGIES, 'random')}; got {enemy_strategy!r}."
        )
    return enemy_strategy


def _draw_strategy(rng: np.random.Generator, enemy_strategy: str) -> str:
    return STRATEGIES[int(rng.integers(len(STRATEGIES)))] if enemy_strategy == "random" else enemy_strategy


def _place(rng: np.random.Generator, count: int, centre: tuple[float, float], facing: int, size: float) -> np.ndarray:
    pos = formation(count, centre, facing) + rng.uniform(-JITTER, JITTER, size=(count, 2))
    return np.clip(pos, 0.0, size)  # a generator choice, never applied to actions


class LineupGenerator(Generator):
    """A named SMAC-style line-up (:data:`LINEUPS`, e.g. ``"3m"``, ``"5m_vs_6m"``, ``"2s3z"``).

    The armies face each other across the middle of the map, ``gap`` apart, in columns of up
    to six units; every unit's start is jittered by up to 0.25 along each axis (so each seed
    is its own scenario, as in SMAC's random start noise).

    Args:
        lineup: a key of :data:`LINEUPS`.
        enemy_strategy: ``"closest"``, ``"focus"`` or ``"random"`` (drawn per scenario).
        map_size: side of the map, 16..128.
        gap: distance between the armies' front columns, 2..``map_size - 4``.
    """

    scenario_type = CombatScenario

    def __init__(self, lineup: str = "3m", enemy_strategy: str = "random", map_size: float = 32.0, gap: float = 16.0):
        if lineup not in LINEUPS:
            raise GeneratorArgumentError(f"lineup must be one of {sorted(LINEUPS)}; got {lineup!r}.")
        self.lineup = lineup
        self.enemy_strategy = _check_strategy(enemy_strategy)
        self.map_size = self._check_float_range("map_size", map_size, MIN_MAP, MAX_MAP)
        self.gap = self._check_float_range("gap", gap, 2.0, self.map_size - 4.0)
        ours, theirs = LINEUPS[lineup]
        self._allies = np.array([TYPE_INDEX[t] for t in parse_army(ours)], dtype=np.int64)
        self._enemies = np.array([TYPE_INDEX[t] for t in parse_army(theirs)], dtype=np.int64)

    @property
    def num_allies(self) -> int:
        """The number of our units in every scenario this generator draws."""
        return int(self._allies.size)

    @property
    def num_enemies(self) -> int:
        """The number of enemy units in every scenario this generator draws."""
        return int(self._enemies.size)

    @override
    def __call__(self, rng: np.random.Generator) -> CombatScenario:
        size, half = self.map_size, self.map_size / 2
        strategy = _draw_strategy(rng, self.enemy_strategy)
        ally_pos = _place(rng, self.num_allies, (half - self.gap / 2, half), +1, size)
        enemy_pos = _place(rng, self.num_enemies, (half + self.gap / 2, half), -1, size)
        return CombatScenario(
            map_size=size,
            ally_types=self._allies,
            ally_pos=ally_pos,
            enemy_types=self._enemies,
            enemy_pos=enemy_pos,
            enemy_strategy=strategy,
        )


class RandomCombatGenerator(Generator):
    """Random compositions: each unit's type uniform over ``unit_types``, each army drawn on its own.

    Our army starts around a point drawn in the west fifth band of the map (x in 20..30% of
    the side, y in 30..70%), the enemy around a point in the east band (x in 70..80%); both in
    columns of up to six units, every unit jittered by up to 0.25 along each axis.

    Args:
        num_allies: ``N``, our units (the agents), 1..32.
        num_enemies: ``E``, enemy units, 1..32.
        unit_types: the types to draw from (names from ``units.TYPE_NAMES``).
        enemy_strategy: ``"closest"``, ``"focus"`` or ``"random"`` (drawn per scenario).
        map_size: side of the map, 16..128.
    """

    scenario_type = CombatScenario

    def __init__(
        self,
        num_allies: int = 5,
        num_enemies: int = 5,
        unit_types: tuple[str, ...] | list[str] = TYPE_NAMES,
        enemy_strategy: str = "random",
        map_size: float = 32.0,
    ):
        self.num_allies = self._check_int_range("num_allies", num_allies, 1, MAX_UNITS)
        self.num_enemies = self._check_int_range("num_enemies", num_enemies, 1, MAX_UNITS)
        types = tuple(unit_types) if isinstance(unit_types, list | tuple) else ()
        if not types or any(t not in TYPE_INDEX for t in types) or len(set(types)) != len(types):
            raise GeneratorArgumentError(
                f"unit_types must be a non-empty list of distinct names from {TYPE_NAMES}; got {unit_types!r}."
            )
        self.unit_types = types
        self.enemy_strategy = _check_strategy(enemy_strategy)
        self.map_size = self._check_float_range("map_size", map_size, MIN_MAP, MAX_MAP)
        self._types = np.array([TYPE_INDEX[t] for t in types], dtype=np.int64)

    @override
    def __call__(self, rng: np.random.Generator) -> CombatScenario:
        size = self.map_size
        strategy = _draw_strategy(rng, self.enemy_strategy)
        ally_types = self._types[rng.integers(self._types.size, size=self.num_allies)]
        enemy_types = self._types[rng.integers(self._types.size, size=self.num_enemies)]
        ours = (size * rng.uniform(0.2, 0.3), size * rng.uniform(0.3, 0.7))
        theirs = (size * rng.uniform(0.7, 0.8), size * rng.uniform(0.3, 0.7))
        ally_pos = _place(rng, self.num_allies, ours, +1, size)
        enemy_pos = _place(rng, self.num_enemies, theirs, -1, size)
        return CombatScenario(
            map_size=size,
            ally_types=ally_types,
            ally_pos=ally_pos,
            enemy_types=enemy_types,
            enemy_pos=enemy_pos,
            enemy_strategy=strategy,
        )
