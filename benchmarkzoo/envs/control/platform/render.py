"""pygame drawing of one Platform world: the course, the agent and its last move; pygame is imported on first draw."""

from __future__ import annotations

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas
from benchmarkzoo.envs.control.platform.sim import MOVE_HIGH, MOVE_NAMES, RUN, State

WIDTH, HEIGHT = 720, 200
MARGIN = 16  # pixels left and right of the course
GROUND = 130  # pixel row of the platforms' tops; below it, between platforms, the gaps' pit
GOAL_LENGTH = 1.5  # the goal platform has no end (landing beyond its start succeeds): drawn this long
RADIUS = 7  # the agent's disc, in pixels
#: The tallest arc, as a fraction of its length: a hop or leap is drawn as a parabola this high.
ARC_HEIGHT = 0.35
BACKGROUND, PIT, PLATFORM, GOAL = (236, 236, 228), (70, 60, 55), (120, 120, 120), (46, 160, 67)
AGENT, FALLEN, TEXT = (40, 44, 52), (214, 69, 65), (60, 60, 60)
MOVES = ((60, 110, 200), (220, 120, 40), (150, 70, 180))  # run, hop, leap


class PlatformRenderer(PygameCanvas):
    """Draws world ``i`` of a :class:`State`: platforms and gaps, the goal, the agent and its last move's arc.

    The course is scaled to the frame's width, so every frame of one course shares one scale, and the agent's
    position moves it across the frame.
    """

    def __init__(self, render_mode: str, fps: int):
        super().__init__(WIDTH, HEIGHT, render_mode, fps, "Platform")
        self.label_font = self.font(18)

    def draw(self, state: State, world: int) -> np.ndarray | None:
        """Draw world ``world`` and show it (``human``) or return the ``(HEIGHT, WIDTH, 3)`` frame."""
        pg = self.pygame
        starts, ends = state.starts[world], state.ends[world].copy()
        goal = float(state.goal[world])
        ends[-1] = goal + GOAL_LENGTH
        # past the goal platform (a leap may overshoot it) the course still fits: a longest leap beyond its start
        extent = goal + max(GOAL_LENGTH, float(MOVE_HIGH.max()))
        scale = (WIDTH - 2 * MARGIN) / extent

        def px(x: float) -> int:
            return round(MARGIN + x * scale)

        self.screen.fill(BACKGROUND)
        pg.draw.rect(self.screen, PIT, (0, GROUND, WIDTH, HEIGHT - GROUND))
        for k, (start, end) in enumerate(zip(starts, ends)):  # each platform a pillar, so the gaps show as chasms
            colour = GOAL if k == len(starts) - 1 else PLATFORM
            pg.draw.rect(self.screen, colour, (px(start), GROUND, max(px(end) - px(start), 1), HEIGHT - GROUND))
        x, last_x, move = float(state.x[world]), float(state.last_x[world]), int(state.last_move[world])
        on_platform = bool(np.any((starts <= x) & (x <= ends)))
        agent_y = GROUND - RADIUS if on_platform else HEIGHT - RADIUS - 4  # a fall ends at the pit's bottom
        if move >= 0:
            self._arc(last_x, x, move, px, agent_y)
        pg.draw.circle(self.screen, AGENT if on_platform else FALLEN, (px(x), agent_y), RADIUS)
        last = MOVE_NAMES[move] if move >= 0 else "start"
        label = f"x = {x:.2f} of {goal:.2f}   last move: {last}" + ("" if on_platform else "   (fell)")
        self.screen.blit(self.label_font.render(label, True, TEXT), (MARGIN, 8))
        return self.present()

    def _arc(self, x0: float, x1: float, move: int, px, land_y: int) -> None:
        """The last move: a run along the ground, a hop or leap as a parabola from ``x0`` to ``x1``."""
        start, end = (px(x0), GROUND - RADIUS), (px(x1), land_y)
        if move == RUN:
            self.pygame.draw.line(self.screen, MOVES[move], start, end, 3)
            return
        t = np.linspace(0.0, 1.0, 24)
        xs = start[0] + t * (end[0] - start[0])
        ys = start[1] + t * (end[1] - start[1]) - 4.0 * ARC_HEIGHT * abs(end[0] - start[0]) * t * (1.0 - t)
        points = [(round(a), round(b)) for a, b in zip(xs, ys)]
        self.pygame.draw.lines(self.screen, MOVES[move], False, points, 3)
