"""pygame drawing of one Maze world; pygame is imported only when a frame is first drawn."""

from __future__ import annotations

from typing import Generic, TypeVar

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas
from benchmarkzoo.envs.gridworld.maze.sim import Params, State

CELL = 24  # pixels per grid cell
WALL, FLOOR, FOG = (40, 44, 52), (236, 236, 228), (200, 200, 190)
GOAL, AGENT = (46, 160, 67), (214, 69, 65)


#: The state a renderer draws: Maze's, or a variant's that extends it.
StateT = TypeVar("StateT", bound=State)


class MazeRenderer(PygameCanvas, Generic[StateT]):
    """Draws world ``i`` of a :class:`State`: walls, the agent's view window, goal and agent."""

    caption = "Maze"  # the window title (subclasses name their own env)

    def __init__(self, params: Params, render_mode: str, fps: int):
        super().__init__(params.width * CELL, params.height * CELL, render_mode, fps, self.caption)
        self.params = params

    def draw(self, state: StateT, world: int) -> np.ndarray | None:
        """Paint world ``world`` and show it (``human``) or return it as ``(H, W, 3)`` uint8."""
        self.paint(state, world)
        return self.present()

    def paint(self, state: StateT, world: int) -> None:
        """Paint world ``world`` onto the screen surface (subclasses paint more on top)."""
        pg, p, r = self.pygame, self.params, self.params.view_radius
        walls = state.walls[world, r : r + p.height, r : r + p.width]
        row, col = (int(x) for x in state.pos[world])
        self.screen.fill(FOG)
        for i in range(p.height):
            for j in range(p.width):
                seen = abs(i - row) <= r and abs(j - col) <= r
                colour = WALL if walls[i, j] else (FLOOR if seen else FOG)
                pg.draw.rect(self.screen, colour, (j * CELL, i * CELL, CELL, CELL))
        goal_row, goal_col = (int(x) for x in state.goal[world])
        pg.draw.rect(self.screen, GOAL, (goal_col * CELL + 3, goal_row * CELL + 3, CELL - 6, CELL - 6))
        pg.draw.circle(self.screen, AGENT, (col * CELL + CELL // 2, row * CELL + CELL // 2), CELL // 2 - 3)
