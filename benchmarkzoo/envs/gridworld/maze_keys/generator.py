"""MazeKeys scenarios: a maze from any maze generator, plus a locked door and its key.

The door is placed on the start-goal path where it cuts the goal off from the start, and the
key on the start's side of it, so the goal cannot be reached without fetching the key first.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from typing_extensions import override

from benchmarkzoo.core.errors import GeneratorArgumentError, ScenarioError
from benchmarkzoo.envs.gridworld.maze.generator import MAX_REDRAWS, MazeGenerator, MazeScenario
from benchmarkzoo.generators.base import Generator
from benchmarkzoo.generators.grids import bfs_list, grid_neighbours


@dataclasses.dataclass(frozen=True, eq=False)
class MazeKeysScenario(MazeScenario):
    """A maze with a locked door and the key that opens it.

    Attributes:
        key: ``(row, col)`` of the key; stepping onto it picks it up.
        door: ``(row, col)`` of the locked door; without the key it blocks like a wall. The goal
            is unreachable from the start while the door is locked; the key is reachable.
    """

    kind = "maze_keys"

    key: tuple[int, int]
    door: tuple[int, int]

    def __post_init__(self) -> None:
        super().__post_init__()
        walls = self.walls
        for name in ("key", "door"):
            r, c = getattr(self, name)
            if not (0 <= r < walls.shape[0] and 0 <= c < walls.shape[1]) or walls[r, c]:
                raise ScenarioError(
                    f"MazeKeysScenario.{name} {(r, c)} must be a free cell inside the {walls.shape} map."
                )
            object.__setattr__(self, name, (int(r), int(c)))
        cells = {"start": self.start, "goal": self.goal, "key": self.key, "door": self.door}
        if len(set(cells.values())) != 4:
            raise ScenarioError(
                f"MazeKeysScenario: start, goal, key and door must be four different cells; got {cells}."
            )
        height, width = walls.shape
        free = (~walls.ravel()).tolist()
        free[self.door[0] * width + self.door[1]] = False
        dist, _ = bfs_list(free, height, width, self.start[0] * width + self.start[1])
        if dist[self.goal[0] * width + self.goal[1]] >= 0 or dist[self.key[0] * width + self.key[1]] < 0:
            raise ScenarioError(
                f"MazeKeysScenario: with the door {self.door} locked the key {self.key} must be reachable from the "
                f"start {self.start} and the goal {self.goal} must not be."
            )


def place_key_and_door(
    rng: np.random.Generator, walls: np.ndarray, start: tuple[int, int], goal: tuple[int, int]
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """A door that cuts ``goal`` off from ``start`` and a key on the start's side of it.

    Draws two uniforms: the door is the first cut cell of the shortest start-goal path at or
    after a drawn position (scanning on cyclically), the key a drawn cell of the start's side
    other than the start.

    Returns:
        ``(key, door)``, or ``None`` when no path cell cuts the goal off with room for a key
        (open maps with many paths; the caller redraws the map).
    """
    height, width = walls.shape
    u_door, u_key = rng.random(2).tolist()
    free = (~walls.ravel()).tolist()
    source, target = start[0] * width + start[1], goal[0] * width + goal[1]
    dist, _ = bfs_list(free, height, width, source)
    path = []  # interior cells of one shortest path, goal side first
    neighbours = grid_neighbours(height, width)
    cell = target
    while dist[cell] > 1:
        cell = next(nb for nb in neighbours[cell] if dist[nb] == dist[cell] - 1)
        path.append(cell)
    first = int(u_door * len(path)) if path else 0
    for i in range(len(path)):
        door = path[(first + i) % len(path)]
        free[door] = False
        locked, side = bfs_list(free, height, width, source)
        free[door] = True
        if locked[target] < 0 and len(side) > 1:
            key = side[1 + int(u_key * (len(side) - 1))]
            return divmod(key, width), divmod(door, width)
    return None


class KeyDoorGenerator(Generator):
    """Any registered maze generator's map, start and goal, plus a locked door and its key.

    Args:
        maze: a registered maze generator (``"maze/dfs"``, ``"maze/obstacles"``, ``"maze/rooms"``).
        maze_kwargs: its arguments (map size, ``min_goal_distance`` of at least 2, ...).
    """

    scenario_type = MazeKeysScenario

    def __init__(self, maze: str = "maze/dfs", maze_kwargs: dict[str, Any] | None = None):
        from benchmarkzoo.registration import make_generator  # the registry imports this module

        if not isinstance(maze, str):
            raise GeneratorArgumentError(f"maze must be the name of a registered maze generator; got {maze!r}.")
        self.maze = maze
        self.maze_kwargs = dict(maze_kwargs or {})
        maze_generator = make_generator(maze, self.maze_kwargs)
        if not isinstance(maze_generator, MazeGenerator):
            raise GeneratorArgumentError(f"maze must name a maze generator such as 'maze/dfs'; got {maze!r}.")
        self._maze = maze_generator
        if self._maze.min_goal_distance < 2:
            raise GeneratorArgumentError(
                f"maze_kwargs['min_goal_distance'] must be an integer in [2, {self._maze.height * self._maze.width}]: "
                f"a door needs a cell between start and goal; got {self._maze.min_goal_distance}."
            )

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of every map this generator draws."""
        return self._maze.shape

    @override
    def __call__(self, rng: np.random.Generator) -> MazeKeysScenario:
        for _ in range(MAX_REDRAWS):
            base = self._maze(rng)
            placed = place_key_and_door(rng, base.walls, base.start, base.goal)
            if placed is not None:
                key, door = placed
                return MazeKeysScenario(walls=base.walls, start=base.start, goal=base.goal, key=key, door=door)
        raise GeneratorArgumentError(
            f"{self!r} found no map where one door cuts the goal off from the start in {MAX_REDRAWS} draws. "
            "Use 'maze/dfs' (every path cell is a cut) or a sparser map."
        )
