"""pygame drawing of one MAPF world; pygame is imported only when a frame is first drawn."""

from __future__ import annotations

import colorsys

import numpy as np

from benchmarkzoo.core.extras import require
from benchmarkzoo.envs.multiagent.mapf.sim import Params, State

CELL = 20  # pixels per grid cell
WALL, FLOOR = (40, 44, 52), (236, 236, 228)


def agent_colour(index: int, count: int) -> tuple[int, int, int]:
    """Evenly spaced hues, so an agent and its goal share a colour."""
    r, g, b = colorsys.hsv_to_rgb(index / max(count, 1), 0.75, 0.85)
    return int(r * 255), int(g * 255), int(b * 255)


class MapfRenderer:
    """Draws world ``i`` of a :class:`State`: obstacles, each active agent (disc) and its goal (square)."""

    def __init__(self, params: Params, render_mode: str, fps: int):
        self.pygame = require("pygame", "render", "MAPF rendering")
        self.params = params
        self.render_mode = render_mode
        self.fps = fps
        size = (params.width * CELL, params.height * CELL)
        if render_mode == "human":
            self.pygame.display.init()
            self.screen = self.pygame.display.set_mode(size)
            self.clock = self.pygame.time.Clock()
        else:
            self.screen = self.pygame.Surface(size)

    def draw(self, state: State, world: int) -> np.ndarray | None:
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
        if self.render_mode == "human":
            pg.event.pump()
            pg.display.flip()
            self.clock.tick(self.fps)
            return None
        return np.transpose(pg.surfarray.array3d(self.screen), (1, 0, 2)).copy()  # (H, W, 3) uint8

    def close(self) -> None:
        if self.render_mode == "human":
            self.pygame.display.quit()
