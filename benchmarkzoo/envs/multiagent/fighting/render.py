"""pygame drawing of one FightingDuel world; pygame is imported only when a frame is first drawn.

The frame is the stage seen from the side: sky, floor and walls in the stage's colours, the two
fighters (seat 0 blue, seat 1 orange; legs straight standing, bent crouching, tucked in the air;
fists up, forearms raised with a blue guard line while blocking, a white aura while
invulnerable), the hitting limb while a move is active (punches from the shoulder, kicks and
sweeps from the hip) and drawn back in its startup, projectiles, a star of sparks where a hit
landed and a blue one where it was blocked, a flicker while reeling. Above: both health bars
(draining towards the centre), the characters' names, round-win dots and the round timer;
below: both super meters, gold when full; "K.O." or "TIME" when a round ends, the winner when
the match is over.
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
        self._rounds: dict[int, int] = {}  # world -> rounds played at the last frame drawn
        self._timers: dict[int, int] = {}  # world -> round timer at the last frame drawn
        self._banner: dict[int, tuple[str, int]] = {}  # world -> (text, frames left to show it)

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
        self._round_banner(state, world)
        return self.present()

    def _round_banner(self, state: State, w: int) -> None:
        """The banner "K.O." or "TIME" for a few frames after a round ends; the winner once the match is over."""
        played, timer = int(state.round[w]), int(state.timer[w])
        if played > self._rounds.get(w, played):  # a round ended since the last frame drawn
            ran_out = self._timers.get(w, timer) <= self.params.frame_skip
            self._banner[w] = ("TIME" if ran_out else "K.O.", 8)
        self._rounds[w], self._timers[w] = played, timer
        text, left = self._banner.get(w, ("", 0))
        if state.done[w]:
            wins = state.wins[w].tolist()
            winner = ch.CHARACTER_NAMES[int(state.char[w, 0 if wins[0] > wins[1] else 1])]
            text, left = ("DRAW" if wins[0] == wins[1] else f"{winner} wins".upper()), 1
        if left <= 0:
            return
        label = self.large.render(text, True, (200, 30, 30))
        self.screen.blit(label, label.get_rect(center=(WIDTH // 2, HEIGHT // 2 - 40)))
        self._banner[w] = (text, left - 1)

    def _fighter(self, state: State, w: int, seat: int, margin: float) -> None:
        """A figure: head, torso, legs by stance (straight, bent, tucked), arms (guard, wind-up, the hitting limb)."""
        pg, s = self.pygame, self.screen
        x, y = self._px(float(state.x[w, seat]), margin), FLOOR_Y - round(float(state.y[w, seat]) * SCALE)
        stance = int(state.stance[w, seat])
        tall = {CROUCH: ch.CROUCH_HEIGHT, AIR: ch.AIR_HEIGHT}.get(stance, ch.STAND_HEIGHT) * SCALE
        half = ch.HALF_WIDTH * SCALE
        facing = int(state.facing[w, seat])
        colour = SEAT[seat]
        if state.stun_kind[w, seat] == HIT_STUN and state.stun[w, seat] % 4 < 2:
            colour = (min(255, colour[0] + 90), min(255, colour[1] + 90), min(255, colour[2] + 90))  # reeling
        pg.draw.ellipse(s, (0, 0, 0, 60), (x - round(half), FLOOR_Y - 4, round(2 * half), 8))  # shadow
        hip = (x, round(y - tall * 0.42))
        shoulder = (x, round(y - tall * 0.78))
        if stance == CROUCH:  # knees bent forward
            knees = [(x + facing * round(half * 0.8), y - round(tall * 0.2)), (x - facing * round(half * 0.2), y - 6)]
            feet = [(x + facing * round(half * 0.3), y), (x - facing * round(half * 0.9), y)]
        elif stance == AIR:  # tucked
            knees = [(x + facing * round(half * 0.7), hip[1] + 4), (x + facing * round(half * 0.4), hip[1] + 10)]
            feet = [(x + facing * round(half * 0.1), y), (x - facing * round(half * 0.3), y - 2)]
        else:
            knees = [
                (x + facing * round(half * 0.3), y - round(tall * 0.2)),
                (x - facing * round(half * 0.3), y - round(tall * 0.2)),
            ]
            feet = [(x + facing * round(half * 0.5), y), (x - facing * round(half * 0.5), y)]
        for knee, foot in zip(knees, feet, strict=True):
            pg.draw.lines(s, colour, False, [hip, knee, foot], 9)
        body = pg.Rect(x - round(half * 0.45), shoulder[1], round(half * 0.9), hip[1] - shoulder[1] + 6)
        pg.draw.rect(s, colour, body, border_radius=8)
        head = (x, round(y - tall * 0.9))
        pg.draw.circle(s, colour, head, max(round(tall * 0.1), 5))
        pg.draw.circle(s, OUTLINE, (x + facing * round(tall * 0.05), head[1] - 2), 2)
        move = int(state.move[w, seat])
        char = int(state.char[w, seat])
        blocking = state.stun_kind[w, seat] == BLOCK_STUN or (state.hold[w, seat] in (-3, -4) and move < 0)
        if move >= 0:
            frame, startup, active = int(state.move_frame[w, seat]), ch.STARTUP[char, move], ch.ACTIVE[char, move]
            slot = ch.CHARACTERS[char].moves[move]
            limb_y = round(y - (slot.low + slot.high) / 2 * SCALE)
            root = shoulder if slot.low >= 500 else hip  # punches from the shoulder, kicks and sweeps from the hip
            if startup < frame <= startup + active and not slot.projectile:
                tip = (x + facing * round(slot.reach * SCALE), limb_y)
                pg.draw.line(s, colour, root, tip, 8)
                pg.draw.circle(s, OUTLINE, tip, 7, 2)
            elif frame <= startup:  # winding up: the limb drawn back
                pg.draw.line(s, colour, root, (x - facing * round(half), limb_y), 7)
            else:
                pg.draw.line(s, colour, shoulder, (x + facing * round(half * 0.6), shoulder[1] + 14), 7)
            if frame <= ch.INVULNERABLE[char, move]:
                pg.draw.circle(s, OUTLINE, (x, round(y - tall / 2)), round(tall * 0.6), 2)  # invulnerable aura
        elif blocking:  # forearms raised in front
            guard = (x + facing * round(half * 0.7), shoulder[1] - 6)
            pg.draw.line(s, colour, shoulder, guard, 7)
            pg.draw.line(s, GUARD, (guard[0], guard[1] - 10), (guard[0], guard[1] + round(tall * 0.35)), 4)
        else:  # fists up
            pg.draw.line(s, colour, shoulder, (x + facing * round(half * 0.6), shoulder[1] + 10), 7)

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
            name = self.small.render(ch.CHARACTER_NAMES[int(state.char[w, seat])], True, OUTLINE)
            tag = name.get_rect(topleft=(left if seat == 0 else left + bar - name.get_width() - 8, 38)).inflate(8, 4)
            pg.draw.rect(s, SEAT[seat], tag, border_radius=4)  # a name tag in the seat's colour, on any stage
            s.blit(name, name.get_rect(center=tag.center))
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
