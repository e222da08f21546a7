"""pygame drawing of one Navigation world; pygame is imported only when a frame is first drawn."""

from __future__ import annotations

import colorsys

import numpy as np

from benchmarkzoo.core.extras import require
from benchmarkzoo.envs.multiagent.navigation.sim import Params, State

SIZE = 480  # pixels per side of the arena
FLOOR, OBSTACLE, WALL = (236, 236, 228), (70, 74, 82), (40, 44, 52)


def agent_colour(index: int, count: int) -> tuple[int, int, int]:
    """Evenly spaced hues, so a robot and its goal share a colour."""
    r, g, b = colorsys.hsv_to_rgb(index / max(count, 1), 0.75, 0.85)
    return int(r * 255), int(g * 255), int(b * 255)


class NavigationRenderer:
    """Draws world ``i`` of a :class:`State`: obstacles (grey discs), each robot in the arena (a disc
    with a heading tick) and its goal (a ring of radius ``goal_radius``, at least 3 pixels)."""

    def __init__(self, params: Params, render_mode: str, fps: int):
        self.pygame = require("pygame", "render", "Navigation rendering")
        self.params = params
        self.render_mode = render_mode
        self.fps = fps
        self.scale = SIZE / (2.0 * params.arena_size)  # pixels per metre
        if render_mode == "human":
            self.pygame.display.init()
            self.screen = self.pygame.display.set_mode((SIZE, SIZE))
            self.clock = self.pygame.time.Clock()
        else:
            self.screen = self.pygame.Surface((SIZE, SIZE))

    def _pixel(self, x: float, y: float) -> tuple[int, int]:
        """World metres to screen pixels (y up on screen)."""
        half = self.params.arena_size
        return round((x + half) * self.scale), round((half - y) * self.scale)

    def draw(self, state: State, world: int) -> np.ndarray | None:
        pg, p = self.pygame, self.params
        self.screen.fill(FLOOR)
        pg.draw.rect(self.screen, WALL, (0, 0, SIZE, SIZE), 2)
        for x, y, radius in zip(state.ox[world].tolist(), state.oy[world].tolist(), state.orad[world].tolist()):
            pg.draw.circle(self.screen, OBSTACLE, self._pixel(x, y), max(int(radius * self.scale), 1))
        body = max(int(p.agent_radius * self.scale), 2)
        ring = max(int(p.goal_radius * self.scale), 3)
        for k in np.flatnonzero(state.active[world]).tolist():
            colour = agent_colour(k, p.num_agents)
            pg.draw.circle(self.screen, colour, self._pixel(state.gx[world, k], state.gy[world, k]), ring, 2)
            x, y = float(state.px[world, k]), float(state.py[world, k])
            centre = self._pixel(x, y)
            pg.draw.circle(self.screen, colour, centre, body)
            tip = self._pixel(x + p.agent_radius * state.hx[world, k], y + p.agent_radius * state.hy[world, k])
            pg.draw.line(self.screen, WALL, centre, tip, 2)
        if self.render_mode == "human":
            pg.event.pump()
            pg.display.flip()
            self.clock.tick(self.fps)
            return None
        return np.transpose(pg.surfarray.array3d(self.screen), (1, 0, 2)).copy()  # (H, W, 3) uint8

    def close(self) -> None:
        if self.render_mode == "human":
            self.pygame.display.quit()
