"""pygame drawing of one Navigation world; pygame is imported only when a frame is first drawn."""

from __future__ import annotations

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas, agent_colour
from benchmarkzoo.envs.multiagent.navigation.sim import Params, State

SIZE = 480  # pixels per side of the arena
FLOOR, OBSTACLE, WALL = (236, 236, 228), (70, 74, 82), (40, 44, 52)


class NavigationRenderer(PygameCanvas):
    """Draws world ``i`` of a :class:`State`: the obstacles, the robots and their goals.

    Obstacles are grey discs, each robot a disc with a heading tick, its goal a ring of radius
    ``goal_radius`` (at least 3 pixels).
    """

    def __init__(self, params: Params, render_mode: str, fps: int):
        super().__init__(SIZE, SIZE, render_mode, fps, "Navigation")
        self.params = params
        self.scale = SIZE / (2.0 * params.arena_size)  # pixels per metre

    def _pixel(self, x: float, y: float) -> tuple[int, int]:
        """World metres to screen pixels (y up on screen)."""
        half = self.params.arena_size
        return round((x + half) * self.scale), round((half - y) * self.scale)

    def draw(self, state: State, world: int) -> np.ndarray | None:
        """Draw world ``world`` and show it (``human``) or return it as ``(H, W, 3)`` uint8."""
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
        return self.present()
