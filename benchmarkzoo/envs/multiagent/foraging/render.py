"""pygame drawing of one Foraging world; pygame is imported only when a frame is first drawn."""

from __future__ import annotations

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas
from benchmarkzoo.envs.multiagent.foraging.sim import Params, State

CELL = 32  # pixels per grid cell
FLOOR, GRID, AGENT, PIP = (236, 236, 228), (210, 210, 200), (52, 101, 164), (255, 255, 255)
#: Food colour per type (apples, berries, mushrooms, nuts).
FOOD = ((204, 68, 52), (126, 60, 160), (196, 150, 40), (110, 80, 50))


def _pips(pg, surface, centre: tuple[int, int], count: int, colour: tuple[int, int, int]) -> None:
    """A level as ``count`` small dots in a row (no font needed)."""
    x0 = centre[0] - (count - 1) * 3
    for k in range(count):
        pg.draw.circle(surface, colour, (x0 + 6 * k, centre[1]), 2)


class ForagingRenderer(PygameCanvas):
    """Draws world ``i`` of a :class:`State`: food and agents.

    Food is a square coloured by its type, agents blue discs; each shows its level as dots.
    """

    def __init__(self, params: Params, render_mode: str, fps: int):
        super().__init__(params.width * CELL, params.height * CELL, render_mode, fps, "Foraging")
        self.params = params

    def draw(self, state: State, world: int) -> np.ndarray | None:
        """Draw world ``world`` and show it (``human``) or return it as ``(H, W, 3)`` uint8."""
        pg, p, r = self.pygame, self.params, self.params.view_radius
        self.screen.fill(FLOOR)
        for i in range(p.height + 1):
            pg.draw.line(self.screen, GRID, (0, i * CELL), (p.width * CELL, i * CELL))
        for j in range(p.width + 1):
            pg.draw.line(self.screen, GRID, (j * CELL, 0), (j * CELL, p.height * CELL))
        food = state.food[world, r : r + p.height, r : r + p.width]
        kinds = state.food_type[world, r : r + p.height, r : r + p.width]
        for i, j in np.argwhere(food > 0).tolist():
            colour = FOOD[(int(kinds[i, j]) - 1) % len(FOOD)]
            pg.draw.rect(self.screen, colour, (j * CELL + 4, i * CELL + 4, CELL - 8, CELL - 8))
            _pips(pg, self.screen, (j * CELL + CELL // 2, i * CELL + CELL // 2), int(food[i, j]), PIP)
        agents = state.agents[world, r : r + p.height, r : r + p.width]
        for i, j in np.argwhere(agents > 0).tolist():
            centre = (j * CELL + CELL // 2, i * CELL + CELL // 2)
            pg.draw.circle(self.screen, AGENT, centre, CELL // 2 - 3)
            _pips(pg, self.screen, centre, int(agents[i, j]), PIP)
        return self.present()
