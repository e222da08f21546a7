"""What a grid world shows at one step, in cells: its walls and the marks on them (agents, goals, keys).

The animated SVG (:mod:`.svg`) draws the walls of the first scene once and moves each mark from
scene to scene. A scene is read from a native vector env's simulator state (world 0), with the
colours of the env's own pygame renderer, so the SVG and the GIF of an episode agree. Which reader
applies is decided by the type of the state (:data:`READERS`), not by env id, so a variant that
reuses a simulator (MazeKeys over Maze, a plugin's Maze) is drawn without a new entry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from benchmarkzoo.core.rendering import agent_colour
from benchmarkzoo.envs.gridworld.maze import render as maze_render
from benchmarkzoo.envs.gridworld.maze import sim as maze_sim
from benchmarkzoo.envs.gridworld.maze_keys import render as keys_render
from benchmarkzoo.envs.gridworld.maze_keys import sim as keys_sim
from benchmarkzoo.envs.gridworld.treasure import render as treasure_render
from benchmarkzoo.envs.gridworld.treasure import sim as treasure_sim
from benchmarkzoo.envs.multiagent.mapf import render as mapf_render
from benchmarkzoo.envs.multiagent.mapf import sim as mapf_sim

Colour = tuple[int, int, int]
#: ``circle``: a disc in the cell; ``square``: a filled inset square; ``ring``: an inset square's outline.
Shape = Literal["circle", "square", "ring"]


@dataclasses.dataclass(frozen=True)
class Mark:
    """One thing drawn on a cell. ``key`` names it across scenes (``agent_2``), so the SVG can move it."""

    key: str
    row: int
    col: int
    shape: Shape
    colour: Colour
    label: str | None = None


@dataclasses.dataclass(frozen=True)
class Scene:
    """One step of a grid world.

    Attributes:
        walls: ``(H, W)`` bool, the cells drawn as walls.
        floor: ``(H,)`` colours, the floor of each row (the sea darkens with depth).
        wall: the walls' colour.
        marks: what stands on the cells, drawn in order; a mark missing from a scene is hidden in it.
    """

    walls: np.ndarray
    floor: tuple[Colour, ...]
    wall: Colour
    marks: tuple[Mark, ...]

    @property
    def shape(self) -> tuple[int, int]:
        """``(H, W)`` in cells."""
        return self.walls.shape[0], self.walls.shape[1]


def _state(env: Any) -> Any:
    """The simulator state of a native vector env (the multi-agent base keeps it as ``sim_state``)."""
    return getattr(env, getattr(env, "state_attribute", "state"), None)


def _cell(position: Any) -> tuple[int, int]:
    row, col = (int(x) for x in position)
    return row, col


def _maze(env: Any, world: int) -> Scene:
    state, p = _state(env), env.params
    r = p.view_radius
    marks = [
        Mark("goal", *_cell(state.goal[world]), "square", maze_render.GOAL),
        Mark("agent", *_cell(state.pos[world]), "circle", maze_render.AGENT),
    ]
    if isinstance(state, keys_sim.State) and not state.has_key[world]:  # open door and carried key are not drawn
        marks[1:1] = [
            Mark("door", *_cell(state.door[world]), "square", keys_render.DOOR),
            Mark("key", *_cell(state.key[world]), "circle", keys_render.KEY),
        ]
    walls = np.array(state.walls[world, r : r + p.height, r : r + p.width], dtype=bool)
    return Scene(walls, (maze_render.FLOOR,) * p.height, maze_render.WALL, tuple(marks))


def _treasure(env: Any, world: int) -> Scene:
    scenario, p = env.scenarios[world], env.params
    surface, deep = treasure_render.SURFACE, treasure_render.DEEP
    shades = [surface + (deep - surface) * (i / max(p.height - 1, 1)) for i in range(p.height)]  # as the renderer
    marks = [
        Mark(f"treasure_{n}", i, j, "square", treasure_render.TREASURE, f"{value:g}")
        for n, ((i, j), value) in enumerate(zip(scenario.treasure_pos.tolist(), scenario.treasure_value.tolist()))
    ]
    row, col = divmod(int(_state(env).pos[world]), p.width)
    marks.append(Mark("submarine", row, col, "circle", treasure_render.SUBMARINE))
    floor = tuple((int(c[0]), int(c[1]), int(c[2])) for c in shades)
    return Scene(np.array(scenario.rock, dtype=bool), floor, treasure_render.ROCK, tuple(marks))


def _mapf(env: Any, world: int) -> Scene:
    state, p = _state(env), env.params
    r = p.view_radius
    marks = []
    for k in np.flatnonzero(state.active[world]).tolist():  # arrived agents leave the grid, as in the renderer
        colour = agent_colour(k, p.num_agents)
        marks.append(Mark(f"goal_{k}", *_cell(state.goal[world, k]), "ring", colour))
        marks.append(Mark(f"agent_{k}", *_cell(state.pos[world, k]), "circle", colour))
    walls = np.array(state.walls[world, r : r + p.height, r : r + p.width], dtype=bool)
    return Scene(walls, (mapf_render.FLOOR,) * p.height, mapf_render.WALL, tuple(marks))


#: Scene readers by the simulator state they read; the first whose type matches applies.
READERS: tuple[tuple[type, Callable[[Any, int], Scene]], ...] = (
    (maze_sim.State, _maze),  # MazeKeys' State subclasses Maze's
    (treasure_sim.State, _treasure),
    (mapf_sim.State, _mapf),
)
#: The grid worlds :data:`READERS` draw, for messages.
GRID_WORLDS = "Maze, MazeKeys, MO-Treasure, MAPF"


def reader_for(env: Any) -> Callable[[Any, int], Scene] | None:
    """The scene reader of the (unwrapped, native vector) ``env``, or ``None`` if it is not a grid world drawn here."""
    state = _state(env)
    for kind, reader in READERS:
        if isinstance(state, kind):
            return reader
    return None
