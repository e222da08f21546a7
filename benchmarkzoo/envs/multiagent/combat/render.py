"""pygame drawing of one MicroCombat world; pygame is imported only when a frame is first drawn."""

from __future__ import annotations

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas
from benchmarkzoo.envs.multiagent.combat import units
from benchmarkzoo.envs.multiagent.combat.sim import Params, State

SIZE = 480  # pixels per side of the map
FLOOR, GRID, EDGE = (232, 226, 210), (214, 207, 190), (60, 60, 60)
OURS, THEIRS = (52, 101, 164), (204, 68, 52)
HEALTH_BAR, HEALTH_BACK, COOLING = (80, 170, 60), (70, 70, 70), (250, 250, 250)
#: Body radius in map units per type (marine, marauder, stalker, zealot): drawn sizes only.
RADIUS = (0.375, 0.5625, 0.625, 0.5)


class CombatRenderer(PygameCanvas):
    """Draws world ``i`` of a :class:`State`: our units blue, the enemy's red.

    Marines and marauders are discs, stalkers squares, zealots triangles; a health bar above each
    unit, a white dot while its weapon cools down, and a thin ring of its attack range. Dead units
    are not drawn.
    """

    def __init__(self, params: Params, render_mode: str, fps: int):
        super().__init__(SIZE, SIZE, render_mode, fps, "MicroCombat")
        self.params = params
        self.scale = SIZE / params.map_size  # pixels per map unit

    def _pixel(self, x: float, y: float) -> tuple[int, int]:
        """Map units to screen pixels (y up on screen)."""
        return round(x * self.scale), round(SIZE - y * self.scale)

    def draw(self, state: State, world: int) -> np.ndarray | None:
        """Draw world ``world`` and show it (``human``) or return it as ``(H, W, 3)`` uint8."""
        pg, p = self.pygame, self.params
        self.screen.fill(FLOOR)
        for k in range(0, int(p.map_size) + 1, 4):
            pg.draw.line(self.screen, GRID, self._pixel(k, 0), self._pixel(k, p.map_size))
            pg.draw.line(self.screen, GRID, self._pixel(0, k), self._pixel(p.map_size, k))
        pg.draw.rect(self.screen, EDGE, (0, 0, SIZE, SIZE), 2)
        for slot in np.flatnonzero(state.alive[world]).tolist():
            kind = int(state.kind[world, slot])
            colour = OURS if slot < p.num_allies else THEIRS
            x, y = (float(v) for v in state.pos[world, slot])
            cx, cy = self._pixel(x, y)
            r = max(int(RADIUS[kind] * self.scale), 3)
            pg.draw.circle(self.screen, colour, (cx, cy), max(int(units.ATTACK_RANGE[kind] * self.scale), 1), 1)
            if kind == units.TYPE_INDEX["stalker"]:
                pg.draw.rect(self.screen, colour, (cx - r, cy - r, 2 * r, 2 * r))
            elif kind == units.TYPE_INDEX["zealot"]:
                pg.draw.polygon(self.screen, colour, [(cx, cy - r), (cx - r, cy + r), (cx + r, cy + r)])
            else:
                pg.draw.circle(self.screen, colour, (cx, cy), r)
            fraction = float(state.health[world, slot] / units.HEALTH[kind])
            width = 2 * r + 4
            pg.draw.rect(self.screen, HEALTH_BACK, (cx - width // 2, cy - r - 6, width, 3))
            pg.draw.rect(self.screen, HEALTH_BAR, (cx - width // 2, cy - r - 6, max(round(width * fraction), 1), 3))
            if state.cooldown[world, slot] > 0:
                pg.draw.circle(self.screen, COOLING, (cx, cy), 2)
        return self.present()
