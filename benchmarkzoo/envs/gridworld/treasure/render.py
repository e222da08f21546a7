"""pygame drawing of one Treasure world; pygame is imported only when a frame is first drawn."""

from __future__ import annotations

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas
from benchmarkzoo.envs.gridworld.treasure.generator import TreasureScenario
from benchmarkzoo.envs.gridworld.treasure.sim import Params

CELL = 40  # pixels per grid cell
SURFACE, DEEP = np.array((120, 190, 230)), np.array((20, 50, 110))
ROCK, TREASURE, SUBMARINE, TEXT = (92, 72, 52), (235, 190, 40), (230, 120, 30), (20, 20, 20)


class TreasureRenderer(PygameCanvas):
    """Draws one sea: water shading with depth, the seabed, treasures with their values, the submarine."""

    def __init__(self, params: Params, render_mode: str, fps: int):
        super().__init__(params.width * CELL, params.height * CELL, render_mode, fps, "MO-Treasure")
        self.params = params
        self.label_font = self.font(CELL // 2)

    def draw(self, scenario: TreasureScenario, cell: int) -> np.ndarray | None:
        """Draw ``scenario`` with the submarine on flat cell index ``cell``."""
        pg, p = self.pygame, self.params
        for i in range(p.height):
            shade = SURFACE + (DEEP - SURFACE) * (i / max(p.height - 1, 1))
            water = tuple(int(x) for x in shade)
            for j in range(p.width):
                colour = ROCK if scenario.rock[i, j] else water
                pg.draw.rect(self.screen, colour, (j * CELL, i * CELL, CELL, CELL))
        for (i, j), value in zip(scenario.treasure_pos.tolist(), scenario.treasure_value.tolist()):
            pg.draw.rect(self.screen, TREASURE, (j * CELL + 3, i * CELL + 3, CELL - 6, CELL - 6))
            label = self.label_font.render(f"{value:g}", True, TEXT)
            self.screen.blit(label, label.get_rect(center=(j * CELL + CELL // 2, i * CELL + CELL // 2)))
        row, col = divmod(cell, p.width)
        centre = (col * CELL + CELL // 2, row * CELL + CELL // 2)
        pg.draw.ellipse(self.screen, SUBMARINE, (centre[0] - CELL // 2 + 3, centre[1] - CELL // 4, CELL - 6, CELL // 2))
        return self.present()
