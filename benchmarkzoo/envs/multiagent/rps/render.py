"""pygame drawing of one RPS world (a match against a bot, or self-play).

pygame is imported only when a frame is first drawn.

The frame is a scoreboard: the two players' names (the population env names the bot), the score
and the round, then the last ``K`` rounds, most recent on top, each as the two moves' icons on a
row tinted by its outcome for the left player.
"""

from __future__ import annotations

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas
from benchmarkzoo.envs.multiagent.rps.generator import BOTS
from benchmarkzoo.envs.multiagent.rps.sim import Params, State

WIDTH, HEADER, ROW = 400, 64, 40  # pixels (a name as long as "bot: frequency_sampled" is 174 wide)
FLOOR, TEXT, LINE = (244, 242, 236), (30, 30, 30), (200, 198, 190)
#: Row tint by the left player's outcome: win, draw, loss.
WIN, DRAW, LOSS = (196, 230, 190), (226, 224, 218), (240, 196, 190)
#: Name colour of the left and right player.
LEFT, RIGHT = (52, 101, 164), (196, 98, 16)
#: Icon colours: rock (a grey stone), paper (a white sheet), scissors (red blades).
ROCK, PAPER, PAPER_EDGE, SCISSORS = (118, 114, 108), (252, 252, 250), (90, 90, 90), (196, 48, 48)
LEFT_X, RIGHT_X = 110, 290  # centres of the players' columns (names and icons)


def player_names(state: State, world: int) -> tuple[str, str]:
    """The left and right labels: ``agent`` and ``bot: <name>`` against a bot, else ``player_0`` and ``player_1``."""
    bot = int(state.bot[world])
    return ("agent", f"bot: {BOTS[bot]}") if bot >= 0 else ("player_0", "player_1")


class RPSRenderer(PygameCanvas):
    """Draws world ``i`` of a :class:`State` as a scoreboard of its last ``K`` rounds (module docstring)."""

    def __init__(self, params: Params, render_mode: str, fps: int):
        super().__init__(WIDTH, HEADER + params.history * ROW + 8, render_mode, fps, "RPS")
        self.params = params
        self.large = self.font(22)
        self.small = self.font(18)

    def _text(self, font, text: str, colour: tuple[int, int, int], centre: tuple[int, int]) -> None:
        label = font.render(text, True, colour)
        self.screen.blit(label, label.get_rect(center=centre))

    def _icon(self, move: int, centre: tuple[int, int]) -> None:
        pg, (x, y), r = self.pygame, centre, ROW // 2 - 5
        if move == 0:  # rock: a grey stone
            pg.draw.circle(self.screen, ROCK, centre, r)
        elif move == 1:  # paper: a sheet with ruled lines
            sheet = pg.Rect(x - r + 3, y - r, 2 * r - 6, 2 * r)
            pg.draw.rect(self.screen, PAPER, sheet)
            pg.draw.rect(self.screen, PAPER_EDGE, sheet, 1)
            for k in range(1, 4):
                rule = sheet.top + 7 * k
                pg.draw.line(self.screen, PAPER_EDGE, (sheet.left + 3, rule), (sheet.right - 4, rule))
        else:  # scissors: two crossed blades and their rings
            pg.draw.line(self.screen, SCISSORS, (x - r + 4, y + r - 6), (x + r - 2, y - r), 3)
            pg.draw.line(self.screen, SCISSORS, (x + r - 4, y + r - 6), (x - r + 2, y - r), 3)
            pg.draw.circle(self.screen, SCISSORS, (x - r + 3, y + r - 4), 4, 2)
            pg.draw.circle(self.screen, SCISSORS, (x + r - 3, y + r - 4), 4, 2)

    def draw(self, state: State, world: int) -> np.ndarray | None:
        """Draw world ``world`` and show it (``human``) or return it as ``(H, W, 3)`` uint8."""
        pg = self.pygame
        self.screen.fill(FLOOR)
        left, right = player_names(state, world)
        rounds = int(state.t[world])
        wins = state.wins[world].tolist()
        self._text(self.large, left, LEFT, (LEFT_X, 14))
        self._text(self.large, right, RIGHT, (RIGHT_X, 14))
        self._text(self.large, f"{wins[0]} : {wins[1]}", TEXT, (WIDTH // 2, 36))
        self._text(self.small, f"round {rounds}, {rounds - wins[0] - wins[1]} drawn", TEXT, (WIDTH // 2, 54))
        pg.draw.line(self.screen, LINE, (0, HEADER - 1), (WIDTH, HEADER - 1))
        for k, (mine, theirs) in enumerate(state.hist[world].tolist()):  # most recent first
            if mine < 0:
                break
            top = HEADER + k * ROW
            outcome = (mine - theirs + 1) % 3 - 1
            tint = WIN if outcome == 1 else LOSS if outcome == -1 else DRAW
            pg.draw.rect(self.screen, tint, (4, top + 2, WIDTH - 8, ROW - 4))
            self._text(self.small, f"#{rounds - k}", TEXT, (28, top + ROW // 2))
            self._icon(mine, (LEFT_X, top + ROW // 2))
            self._text(self.small, "vs", TEXT, (WIDTH // 2, top + ROW // 2))
            self._icon(theirs, (RIGHT_X, top + ROW // 2))
        return self.present()
