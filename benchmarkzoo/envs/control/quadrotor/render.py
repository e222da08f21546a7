"""pygame drawing of one Quadrotor world in three views; pygame is imported only when a frame is first drawn."""

from __future__ import annotations

import math

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas
from benchmarkzoo.envs.control.quadrotor.sim import Params, State

PANEL = 240  # pixels per view (square)
MARGIN = 12  # pixels around the arena in each view
VISUAL_ARM = 0.25  # m: arms are drawn this long, whatever the vehicle's size, so it stays visible
BACKGROUND, ARENA, FLOOR = (236, 236, 228), (120, 120, 120), (90, 70, 50)
GOAL, BODY, UP, TEXT = (46, 160, 67), (40, 44, 52), (214, 69, 65), (60, 60, 60)
MOTORS = ((220, 120, 40), (60, 110, 200), (60, 110, 200), (220, 120, 40))  # front motors orange

#: Views as (label, world axis drawn rightwards, world axis drawn upwards).
VIEWS = (("top (x, y)", 0, 1), ("front (y, z)", 1, 2), ("side (x, z)", 0, 2))


def motor_offsets(params: Params) -> np.ndarray:
    """``(4, 3)`` unit-arm motor positions in the body frame, in motor order."""
    if params.frame == "x":
        s = 1.0 / math.sqrt(2.0)
        return np.array([[s, s, 0.0], [-s, s, 0.0], [-s, -s, 0.0], [s, -s, 0.0]])
    return np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])


class QuadrotorRenderer(PygameCanvas):
    """Draws world ``i`` of a :class:`State`: top, front and side views of the arena, goal and vehicle."""

    def __init__(self, params: Params, render_mode: str, fps: int):
        super().__init__(3 * PANEL, PANEL, render_mode, fps, "Quadrotor")
        self.params = params
        self.offsets = motor_offsets(params) * VISUAL_ARM  # (4, 3) m, body frame
        self.label_font = self.font(18)
        extent = max(2.0 * params.arena_half_width, params.arena_height)
        self.scale = (PANEL - 2 * MARGIN) / extent  # pixels per metre

    def _to_px(self, panel: int, right: float, up: float, axis_up: int) -> tuple[int, int]:
        """Pixel of a point; vertical views put the floor at the bottom, the top view centres the arena."""
        x0 = panel * PANEL + PANEL // 2
        y0 = PANEL // 2 if axis_up != 2 else PANEL - MARGIN
        return round(x0 + right * self.scale), round(y0 - up * self.scale)

    def draw(self, state: State, world: int) -> np.ndarray | None:
        """Draw world ``world`` (three views of the vehicle) and show it (``human``) or return the frame."""
        pg, p = self.pygame, self.params
        pos = state.pos[:, world]  # (3,)
        rot = state.rot[:, :, world]  # (3, 3)
        goal = state.goal[:, world]
        motors = pos + self.offsets @ rot.T  # (4, 3) world
        up = pos + rot[:, 2] * VISUAL_ARM
        self.screen.fill(BACKGROUND)
        for panel, (label, right, vertical) in enumerate(VIEWS):

            def px(point: np.ndarray, right: int = right, vertical: int = vertical, panel: int = panel):
                return self._to_px(panel, float(point[right]), float(point[vertical]), vertical)

            hw, top = p.arena_half_width, p.arena_height
            low_v, high_v = (-hw, hw) if vertical != 2 else (0.0, top)
            corner = self._to_px(panel, -hw, high_v, vertical)
            far = self._to_px(panel, hw, low_v, vertical)
            pg.draw.rect(self.screen, ARENA, (*corner, far[0] - corner[0], far[1] - corner[1]), 1)
            if vertical == 2:
                pg.draw.line(self.screen, FLOOR, (corner[0], far[1]), far, 3)
            pg.draw.circle(self.screen, GOAL, px(goal), 6, 2)
            centre = px(pos)
            for motor, colour in zip(motors, MOTORS):
                pg.draw.line(self.screen, BODY, centre, px(motor), 2)
                pg.draw.circle(self.screen, colour, px(motor), 4)
            pg.draw.line(self.screen, UP, centre, px(up), 2)
            pg.draw.circle(self.screen, BODY, centre, 3)
            self.screen.blit(self.label_font.render(label, True, TEXT), (panel * PANEL + 4, 2))
            if panel:
                pg.draw.line(self.screen, ARENA, (panel * PANEL, 0), (panel * PANEL, PANEL), 1)
        return self.present()
