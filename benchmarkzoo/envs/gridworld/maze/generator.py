"""Maze scenarios and their generators: DFS mazes, random obstacle maps and rooms with doors."""

from __future__ import annotations

import dataclasses

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.core.scenario import Scenario
from benchmarkzoo.generators.grids import (
    dfs_maze,
    obstacle_field,
    room_bounds,
    rooms_layout,
    rooms_map,
    sample_start_goal,
)
from benchmarkzoo.generators.wall_maps import WallMapGenerator

MAX_SIDE = 255


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
            raise ScenarioError(
                f"MazeScenario.walls must be a 2-D bool array; got dtype {walls.dtype}, shape {walls.shape}."
            )
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


class MazeGenerator(WallMapGenerator[MazeScenario]):
    """Shared part of maze generators: the map size and the start/goal placement."""

    scenario_type = MazeScenario

    def __init__(self, height: int, width: int, min_goal_distance: int):
        self.height = self._check_int_range("height", height, 3, MAX_SIDE)
        self.width = self._check_int_range("width", width, 3, MAX_SIDE)
        self.min_goal_distance = self._check_int_range(
            "min_goal_distance", min_goal_distance, 1, self.height * self.width
        )

    @override
    def _place(self, rng: np.random.Generator, walls: np.ndarray) -> MazeScenario | None:
        placed = sample_start_goal(rng, walls, self.min_goal_distance)
        if placed is None:
            return None
        # Checked by construction (a fresh bool map, free cells as int pairs); the autoreset path skips re-checking.
        walls.setflags(write=False)
        return MazeScenario.unchecked(walls=walls, start=placed[0], goal=placed[1])

    @override
    def _unplaceable(self) -> tuple[str, str]:
        return (
            f"map with a goal {self.min_goal_distance} steps from the start",
            "Lower min_goal_distance (or the obstacle density).",
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


class RoomsGenerator(MazeGenerator):
    """A grid of rooms; every wall between two neighbouring rooms has ``doors_per_wall`` doors.

    The wall lines are evenly spaced (every room at least one cell across) and every wall
    between neighbouring rooms has a door, so every free cell is reachable; the doors' places,
    the start and the goal are drawn.

    Args:
        height: rows, 5..255.
        width: columns, 5..255.
        rooms_high: rooms per column, 1..(height - 1) // 2.
        rooms_wide: rooms per row, 1..(width - 1) // 2.
        doors_per_wall: doors in each wall between two rooms, 1..(the shortest such wall's length).
        min_goal_distance: shortest-path steps from start to goal, at least; at most the number
            of free cells minus one (a smaller map cannot hold start and goal that far apart).
    """

    def __init__(
        self,
        height: int = 13,
        width: int = 13,
        rooms_high: int = 2,
        rooms_wide: int = 2,
        doors_per_wall: int = 1,
        min_goal_distance: int = 6,
    ):
        self._check_int_range("height", height, 5, MAX_SIDE)
        self._check_int_range("width", width, 5, MAX_SIDE)
        self.rooms_high = self._check_int_range("rooms_high", rooms_high, 1, (height - 1) // 2)
        self.rooms_wide = self._check_int_range("rooms_wide", rooms_wide, 1, (width - 1) // 2)
        walls, segments = rooms_layout(height, width, self.rooms_high, self.rooms_wide)
        shortest = min((len(segment) for segment in segments), default=1)
        self.doors_per_wall = self._check_int_range("doors_per_wall", doors_per_wall, 1, shortest)
        free_cells = int((~walls).sum()) + len(segments) * self.doors_per_wall
        is_int = isinstance(min_goal_distance, int) and not isinstance(min_goal_distance, bool)
        if is_int and min_goal_distance >= free_cells:
            raise GeneratorArgumentError(
                f"min_goal_distance must be an integer in [1, {free_cells - 1}]: a {height}x{width} map of "
                f"{rooms_high}x{rooms_wide} rooms has {free_cells} free cells, too few to hold a start and a goal "
                f"{min_goal_distance} steps apart; got {min_goal_distance}. Use a larger map or fewer rooms."
            )
        super().__init__(height, width, min_goal_distance)

    @property
    def room_rows(self) -> list[int]:
        """Rows of the horizontal wall lines (border included)."""
        return room_bounds(self.height, self.rooms_high)

    @property
    def room_cols(self) -> list[int]:
        """Columns of the vertical wall lines (border included)."""
        return room_bounds(self.width, self.rooms_wide)

    def _walls(self, rng: np.random.Generator) -> np.ndarray:
        return rooms_map(rng, self.height, self.width, self.rooms_high, self.rooms_wide, self.doors_per_wall)
