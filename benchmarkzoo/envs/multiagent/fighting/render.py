"""pygame drawing of one FightingDuel world; pygame is imported only when a frame is first drawn.

The frame is the stage seen from the side: sky, floor and walls in the stage's colours, the two
fighters (seat 0 blue, seat 1 orange; a tall body standing, a short one crouching, a tucked one
in the air, a white outline while invulnerable), their attacking limb while a move is active,
projectiles, a star of sparks where a hit landed and a blue flash where one was blocked. Above:
both health bars (draining towards the centre), the names of the characters, round-win dots
and the round timer; below: both super meters, gold when full.
"""

from __future__ import annotations

import math

import numpy as np

from benchmarkzoo.core.rendering import PygameCanvas
from benchmarkzoo.envs.multiagent.fighting import characters as ch
from benchmarkzoo.envs.multiagent.fighting.generator import MAX_WIDTH, STAGES
from benchmarkzoo.envs.multiagent.fighting.sim import AIR, BLOCK_STUN, CROUCH, HIT_STUN, Params, State

WIDTH, HEIGHT, FLOOR_Y = 800, 420, 360  # pixels; the floor line
SCALE = WIDTH / MAX_WIDTH  # pixels per millimetre (the widest stage fills the frame)
SEAT = ((52, 101, 200), (226, 122, 30))
TEXT, BAR_BACK, HEALTH, DRAIN, METER, FULL = (
    (20, 20, 20),
    (60, 60, 60),
    (90, 200, 70),
    (200, 60, 50),
    (80, 160, 230),
    (
        250,
        200,
        40,
    ),
)
SPARK, GUARD, OUTLINE = (255, 240, 120), (120, 200, 255), (255, 255, 255)


class FightingRenderer(PygameCanvas):
    """Draws world ``i`` of a :class:`State` (module docstring)."""

    def __init__(self, params: Params, render_mode: str, fps: int):
        super().__init__(WIDTH, HEIGHT, render_mode, fps, "FightingDuel")
        self.params = params
        self.small = self.font(18)
        self.large = self.font(28)
        self._last: dict[int, np.ndarray] = {}  # world -> health at the last frame drawn (for sparks)

    def _px(self, x: float, margin: float) -> int:
        return round(margin + x * SCALE)

    def draw(self, state: State, world: int) -> np.ndarray | None:
        """Draw world ``world`` and show it (``human``) or return it as ``(H, W, 3)`` uint8."""
        pg, s = self.pygame, self.screen
        stage = next(st for st in STAGES if st.width == int(state.width[world]))
        margin = (WIDTH - stage.width * SCALE) / 2  # narrower stages are centred, walls drawn at their ends
        s.fill(stage.sky)
        pg.draw.rect(s, stage.floor, (0, FLOOR_Y, WIDTH, HEIGHT - FLOOR_Y))
        for wall in (0, stage.width):
            x = self._px(wall, margin)
            pg.draw.rect(s, (40, 40, 40), (x if wall else x - 8, 60, 8, FLOOR_Y - 60))
        last = self._last.get(world)
        for seat in (0, 1):
            self._fighter(state, world, seat, margin)
            self._projectile(state, world, seat, margin)
            if last is not None and state.health[world, seat] < last[seat]:
                self._spark(state, world, seat, margin, SPARK if state.stun_kind[world, seat] != BLOCK_STUN else GUARD)
            elif state.stun_kind[world, seat] == BLOCK_STUN and state.stun[world, seat] > 6:
                self._spark(state, world, seat, margin, GUARD)
        self._last[world] = state.health[world].copy()
        self._hud(state, world)
        return self.present()

    def _fighter(self, state: State, w: int, seat: int, margin: float) -> None:
        pg, s = self.pygame, self.screen
        x, y = self._px(float(state.x[w, seat]), margin), FLOOR_Y - round(float(state.y[w, seat]) * SCALE)
        stance = int(state.stance[w, seat])
        tall = {CROUCH: ch.CROUCH_HEIGHT, AIR: ch.AIR_HEIGHT}.get(stance, ch.STAND_HEIGHT) * SCALE
        half = ch.HALF_WIDTH * SCALE * (1.0 if stance != AIR else 1.1)
        colour = SEAT[seat]
        if state.stun_kind[w, seat] == HIT_STUN and state.stun[w, seat] % 4 < 2:
            colour = (min(255, colour[0] + 90), min(255, colour[1] + 90), min(255, colour[2] + 90))  # reeling
        body = pg.Rect(round(x - half * 0.7), round(y - tall * 0.8), round(half * 1.4), round(tall * 0.8))
        pg.draw.rect(s, colour, body, border_radius=6)
        pg.draw.circle(s, colour, (x, round(y - tall * 0.88)), max(round(tall * 0.12), 4))
        facing = int(state.facing[w, seat])
        eye = (x + facing * round(half * 0.35), round(y - tall * 0.9))
        pg.draw.circle(s, OUTLINE, eye, 2)
        move = int(state.move[w, seat])
        char = int(state.char[w, seat])
        if move >= 0:
            frame, startup, active = int(state.move_frame[w, seat]), ch.STARTUP[char, move], ch.ACTIVE[char, move]
            slot = ch.CHARACTERS[char].moves[move]
            limb_y = round(y - (slot.low + slot.high) / 2 * SCALE)
            if startup < frame <= startup + active and not slot.projectile:
                tip = x + facing * round(slot.reach * SCALE)
                pg.draw.line(s, colour, (x, limb_y), (tip, limb_y), 7)
                pg.draw.circle(s, OUTLINE, (tip, limb_y), 6, 2)
            elif frame <= startup:  # winding up: the limb drawn back
                pg.draw.line(s, colour, (x, limb_y), (x - facing * round(half), limb_y), 5)
            if frame <= ch.INVULNERABLE[char, move]:
                pg.draw.rect(s, OUTLINE, body.inflate(6, 6), 2, border_radius=8)
        if state.stun_kind[w, seat] == BLOCK_STUN or (state.hold[w, seat] in (-3, -4) and move < 0):
            guard_x = x + facing * round(half * 0.9)
            pg.draw.line(s, GUARD, (guard_x, round(y - tall * 0.75)), (guard_x, y - 4), 4)  # the raised guard

    def _projectile(self, state: State, w: int, seat: int, margin: float) -> None:
        if not state.proj[w, seat]:
            return
        pg, s = self.pygame, self.screen
        x = self._px(float(state.proj_x[w, seat]), margin)
        y = FLOOR_Y - round(float(state.proj_y[w, seat] + ch.PROJECTILE_HEIGHT // 2) * SCALE)
        big = ch.PROJECTILE[state.char[w, seat], ch.SUPER] == abs(int(state.proj_vx[w, seat]))
        radius = round(ch.PROJECTILE_HALF_WIDTH * SCALE * (1.8 if big else 1.2))
        pg.draw.circle(s, SEAT[seat], (x, y), radius + 4)
        pg.draw.circle(s, (255, 255, 220), (x, y), radius)

    def _spark(self, state: State, w: int, seat: int, margin: float, colour: tuple[int, int, int]) -> None:
        pg, s = self.pygame, self.screen
        x = self._px(float(state.x[w, seat]), margin)
        y = FLOOR_Y - round(float(state.y[w, seat] + ch.CROUCH_HEIGHT) * SCALE)
        for k in range(8):
            angle = k * math.pi / 4 + 0.3
            end = (x + round(22 * math.cos(angle)), y + round(22 * math.sin(angle)))
            pg.draw.line(s, colour, (x, y), end, 3)
        pg.draw.circle(s, OUTLINE, (x, y), 6)

    def _hud(self, state: State, w: int) -> None:
        pg, s = self.pygame, self.screen
        bar = 320
        for seat in (0, 1):
            left = 20 if seat == 0 else WIDTH - 20 - bar
            fraction = float(state.health[w, seat] / state.max_health[w, seat])
            pg.draw.rect(s, BAR_BACK, (left, 16, bar, 18))
            pg.draw.rect(s, DRAIN, (left, 16, bar, 18), 2)
            filled = round(bar * fraction)
            pg.draw.rect(s, HEALTH, (left + (bar - filled if seat == 0 else 0), 16, filled, 18))
            name = self.small.render(ch.CHARACTER_NAMES[int(state.char[w, seat])], True, SEAT[seat])
            s.blit(name, (left if seat == 0 else left + bar - name.get_width(), 38))
            for k in range(self.params.rounds_to_win):
                won = k < int(state.wins[w, seat])
                dot = (left + bar - 10 - 16 * k, 46) if seat == 0 else (left + 10 + 16 * k, 46)
                pg.draw.circle(s, FULL if won else BAR_BACK, dot, 6)
            meter = float(state.meter[w, seat] / ch.METER_MAX)
            m_left = 20 if seat == 0 else WIDTH - 20 - 200
            pg.draw.rect(s, BAR_BACK, (m_left, HEIGHT - 26, 200, 12))
            pg.draw.rect(s, FULL if meter >= 1.0 else METER, (m_left, HEIGHT - 26, round(200 * meter), 12))
        seconds = math.ceil(int(state.timer[w]) / 60)
        timer = self.large.render(f"{seconds:02d}", True, TEXT)
        s.blit(timer, timer.get_rect(center=(WIDTH // 2, 26)))
        label = self.small.render(f"round {min(int(state.round[w]) + 1, self.params.max_rounds)}", True, TEXT)
        s.blit(label, label.get_rect(center=(WIDTH // 2, 48)))
