"""Maze scenarios and their generators: DFS mazes and random obstacle maps."""

from __future__ import annotations

import dataclasses

import numpy as np

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.base import Generator
from benchmarkzoo.generators.grids import dfs_maze, obstacle_field, sample_start_goal

MAX_SIDE = 255
MAX_REDRAWS = 1000


@dataclasses.dataclass(frozen=True, eq=False)
class MazeScenario(Scenario):
    """One maze: its walls and where the agent starts and must go.

    Attributes:
        walls: ``(height, width)`` bool, ``True`` for a wall.
        start: ``(row, col)`` of the agent's first cell.
        goal: ``(row, col)`` of the goal cell, reachable from ``start``.
    """

    kind = "maze"

    walls: np.ndarray
    start: tuple[int, int]
    goal: tuple[int, int]

    def __post_init__(self) -> None:
        walls = np.asarray(self.walls)
        if walls.dtype != np.bool_ or walls.ndim != 2:
            raise ScenarioError(f"MazeScenario.walls must be a 2-D bool array; got dtype {walls.dtype}, shape {walls.shape}.")
        for name in ("start", "goal"):
            r, c = getattr(self, name)
            if not (0 <= r < walls.shape[0] and 0 <= c < walls.shape[1]) or walls[r, c]:
                raise ScenarioError(f"MazeScenario.{name} {(r, c)} must be a free cell inside the {walls.shape} map.")
        walls.setflags(write=False)  # scenarios are values: their hash must not go stale
        object.__setattr__(self, "walls", walls)
        object.__setattr__(self, "start", (int(self.start[0]), int(self.start[1])))
        object.__setattr__(self, "goal", (int(self.goal[0]), int(self.goal[1])))

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of the map."""
        return self.walls.shape


class MazeGenerator(Generator):
    """Shared part of maze generators: the map size and the start/goal placement."""

    scenario_type = MazeScenario

    def __init__(self, height: int, width: int, min_goal_distance: int):
        self.height = self._check_int_range("height", height, 3, MAX_SIDE)
        self.width = self._check_int_range("width", width, 3, MAX_SIDE)
        self.min_goal_distance = self._check_int_range("min_goal_distance", min_goal_distance, 1, self.height * self.width)

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of every map this generator draws."""
        return (self.height, self.width)

    def _walls(self, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, rng: np.random.Generator) -> MazeScenario:
        for _ in range(MAX_REDRAWS):
            walls = self._walls(rng)
            placed = sample_start_goal(rng, walls, self.min_goal_distance)
            if placed is not None:
                return MazeScenario(walls=walls, start=placed[0], goal=placed[1])
        raise GeneratorArgumentError(
            f"{self!r} found no map with a goal {self.min_goal_distance} steps from the start in "
            f"{MAX_REDRAWS} draws. Lower min_goal_distance (or the obstacle density)."
        )


class DFSMazeGenerator(MazeGenerator):
    """Perfect mazes carved by randomized depth-first search: one path between any two cells.

    Args:
        height: rows, odd, 5..255.
        width: columns, odd, 5..255.
        min_goal_distance: shortest-path steps from start to goal, at least.
    """

    def __init__(self, height: int = 11, width: int = 11, min_goal_distance: int = 4):
        self._check_int_range("height", height, 5, MAX_SIDE, odd=True)
        self._check_int_range("width", width, 5, MAX_SIDE, odd=True)
        super().__init__(height, width, min_goal_distance)

    def _walls(self, rng: np.random.Generator) -> np.ndarray:
        return dfs_maze(rng, self.height, self.width)


class ObstacleMapGenerator(MazeGenerator):
    """Open maps with independent random obstacles; the goal is drawn inside the start's component.

    Args:
        height: rows, 3..255.
        width: columns, 3..255.
        density: probability that a cell is a wall, 0..0.6 (denser maps rarely connect).
        min_goal_distance: shortest-path steps from start to goal, at least.
    """

    def __init__(self, height: int = 11, width: int = 11, density: float = 0.25, min_goal_distance: int = 4):
        super().__init__(height, width, min_goal_distance)
        self.density = self._check_float_range("density", density, 0.0, 0.6)

    def _walls(self, rng: np.random.Generator) -> np.ndarray:
        return obstacle_field(rng, self.height, self.width, self.density)
