"""pygame drawing of one MAPF world; pygame is imported only when a frame is first drawn."""

from __future__ import annotations

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas, agent_colour
from benchmarkzoo.envs.multiagent.mapf.sim import Params, State

CELL = 20  # pixels per grid cell
WALL, FLOOR = (40, 44, 52), (236, 236, 228)


class MapfRenderer(PygameCanvas):
    """Draws world ``i`` of a :class:`State`: obstacles, each active agent (disc) and its goal (square)."""

    def __init__(self, params: Params, render_mode: str, fps: int):
        super().__init__(params.width * CELL, params.height * CELL, render_mode, fps, "MAPF")
        self.params = params

    def draw(self, state: State, world: int) -> np.ndarray | None:
        """Draw world ``world`` and show it (``human``) or return it as ``(H, W, 3)`` uint8."""
        pg, p, r = self.pygame, self.params, self.params.view_radius
        walls = state.walls[world, r : r + p.height, r : r + p.width]
        self.screen.fill(FLOOR)
        for i, j in np.argwhere(walls).tolist():
            pg.draw.rect(self.screen, WALL, (j * CELL, i * CELL, CELL, CELL))
        for k in np.flatnonzero(state.active[world]).tolist():
            colour = agent_colour(k, p.num_agents)
            goal_row, goal_col = state.goal[world, k].tolist()
            pg.draw.rect(self.screen, colour, (goal_col * CELL + 5, goal_row * CELL + 5, CELL - 10, CELL - 10), 2)
            row, col = state.pos[world, k].tolist()
            pg.draw.circle(self.screen, colour, (col * CELL + CELL // 2, row * CELL + CELL // 2), CELL // 2 - 2)
        return self.present()
