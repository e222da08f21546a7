"""The FightingDuel simulator: ``B`` side-view duels of two fighters, batched numpy, integer physics.

The ParallelEnv is a batch of one world, the native vector env a batch of ``B``; the rules exist
once, here. Every quantity is an integer (millimetres, frames; :mod:`.characters`), so a world
computes the same numbers in any batch, and mirroring a world (``x -> width - x``, the seats
swapped) mirrors its whole future exactly: the observation's symmetry is a property of the
rules, not of rounding. The per-player work is a loop over the two seats, never over worlds.

An env step is ``frame_skip`` frames (4): the direction is held for all of them, the button
pressed on the first. One frame, every world at once:

1. **Input.** A free fighter (no move running, no stun, on the ground) presses its button's move
   (a down direction picks the crouching normals) or moves: forward and back walk, down crouches,
   up jumps (straight, forward or back). In the air a fighter can start an air normal. A fighter
   holding back on the ground blocks: standing with back, crouching with down-back; in
   block-stun it keeps blocking.
2. **Moves** advance a frame; a move ends after its recovery. A grounded move with ``advance``
   carries its fighter forward during startup and active frames. A projectile move fires on its
   first active frame (one projectile per fighter on screen).
3. **Physics.** Positions add velocities; gravity pulls the airborne, who land at ``y = 0`` (an
   air move ends on landing). Knockback slides a grounded fighter and decays by a quarter each
   frame. Walls stop fighters; two fighters overlapping on the ground are pushed apart equally
   (a wall pushes the whole overlap onto the other). Free grounded fighters face each other.
4. **Hits**, simultaneous for both seats (trades hit both): an active hit box that overlaps the
   other's hurt box (none while invulnerable), or a projectile's box. Blocked (the level against
   the block: mid by either, low only crouching, high only standing) it deals chip damage and
   block-stun; otherwise damage, hit-stun and knockback, and cancels the defender's move. Throws
   are never blocked but miss airborne fighters and fighters in stun. Meter: the attacker gains
   the damage dealt (half on block), the defender half of it. A projectile that meets the other
   fighter's projectile cancels with it.
5. **Rounds.** A round ends by KO (health 0) or when its timer runs out (the higher health
   fraction wins; equal is a draw). Then both fighters go back to the start, health full, meter
   kept. The match ends when a fighter has ``rounds_to_win`` rounds or ``max_rounds`` are played;
   a finished world does not change.

Reward, zero-sum, each step summed over its frames: ``damage dealt / opponent's max health -
damage taken / own max health`` plus ``round_reward`` (1.0) for a round won, minus it for a round
lost. ``player_1``'s reward is ``0.0 - player_0``'s.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from benchmarkzoo.envs.multiagent.fighting import characters as ch
from benchmarkzoo.envs.multiagent.fighting.generator import CHARACTER_NAMES, MAX_WIDTH, FightingScenario

#: Directions, relative to facing: ``(horizontal, vertical)`` with +1 forward / up.
DIRECTIONS = (
    ("neutral", 0, 0),
    ("forward", 1, 0),
    ("back", -1, 0),
    ("down", 0, -1),
    ("down-forward", 1, -1),
    ("down-back", -1, -1),
    ("up", 0, 1),
    ("up-forward", 1, 1),
    ("up-back", -1, 1),
)
BUTTONS = ("none", "light", "heavy", "special", "throw", "super")
NONE, LIGHT, HEAVY, SPECIAL, THROW, SUPER = range(len(BUTTONS))
NUM_DIRECTIONS, NUM_BUTTONS = len(DIRECTIONS), len(BUTTONS)
NUM_ACTIONS = NUM_DIRECTIONS * NUM_BUTTONS
#: ``(A,)`` horizontal and vertical part and button of every action ``direction * NUM_BUTTONS + button``.
ACTION_H = np.repeat(np.array([d[1] for d in DIRECTIONS], dtype=np.int64), NUM_BUTTONS)
ACTION_V = np.repeat(np.array([d[2] for d in DIRECTIONS], dtype=np.int64), NUM_BUTTONS)
ACTION_BUTTON = np.tile(np.arange(NUM_BUTTONS, dtype=np.int64), NUM_DIRECTIONS)
for _table in (ACTION_H, ACTION_V, ACTION_BUTTON):
    _table.setflags(write=False)
STAND, CROUCH, AIR = range(3)
STANCE_NAMES = ("stand", "crouch", "air")
#: Stun kinds.
NO_STUN, HIT_STUN, BLOCK_STUN = range(3)
#: Observation features per fighter, and in all (two fighters, the timer, the round).
FIGHTER_FEATURES = 32
OBS_SIZE = 2 * FIGHTER_FEATURES + 2


def action_index(direction: str, button: str) -> int:
    """The action of ``direction`` (a name of :data:`DIRECTIONS`) and ``button`` (of :data:`BUTTONS`)."""
    names = [d[0] for d in DIRECTIONS]
    return names.index(direction) * NUM_BUTTONS + BUTTONS.index(button)


@dataclasses.dataclass(frozen=True)
class Params:
    """Constants of one env instance.

    Attributes:
        frame_skip: frames per env step.
        round_frames: frames in a round before time runs out.
        rounds_to_win: rounds that win the match.
        max_rounds: rounds after which the match ends anyway (draws count as played).
        round_reward: reward for a round won (its negative for a round lost).
        learners: ``2``, both seats are agents; ``1``, seat 1 is the scenario's bot.
    """

    frame_skip: int = 4
    round_frames: int = 1200
    rounds_to_win: int = 2
    max_rounds: int = 3
    round_reward: float = 1.0
    learners: int = 2


@dataclasses.dataclass
class State:
    """Mutable state of ``B`` worlds; ``(B, 2)`` arrays have the seat on axis 1 (all int64 unless said).

    Attributes:
        x, y, vx, vy: position (``x`` from the left wall, ``y`` above the floor) and velocity.
        facing: ``+1`` facing right, ``-1`` left.
        stance: ``STAND``, ``CROUCH`` or ``AIR``.
        health, meter: what is left of the bar; super meter 0 .. 1000.
        move: the running move's slot (``-1``: none); ``move_frame``: frames into it (1 on the press).
        landed: the running move has hit (or been blocked): a move hits once.
        stun, stun_kind: frames of stun left and its kind (``HIT_STUN`` or ``BLOCK_STUN``).
        hold: the direction held (for blocking).
        proj, proj_x, proj_y, proj_vx, proj_slot: each fighter's projectile (``proj`` bool).
        char: character index; ``max_health`` its health.
        wins: rounds won; ``dealt``: damage dealt this match; ``masked``: masked actions sent.
        width, gap, offset: ``(B,)`` the stage and the start; ``timer``: frames left in the round;
        ``round``: rounds played; ``done``: ``(B,)`` bool, the match is over.
        opponent: ``(B,)`` the bot in seat 1 (-1: none); ``seed``: ``(B,)`` uint64, its stream; ``t``: frames played.
    """

    x: np.ndarray
    y: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    facing: np.ndarray
    stance: np.ndarray
    health: np.ndarray
    meter: np.ndarray
    move: np.ndarray
    move_frame: np.ndarray
    landed: np.ndarray
    stun: np.ndarray
    stun_kind: np.ndarray
    hold: np.ndarray
    proj: np.ndarray
    proj_x: np.ndarray
    proj_y: np.ndarray
    proj_vx: np.ndarray
    proj_slot: np.ndarray
    char: np.ndarray
    max_health: np.ndarray
    wins: np.ndarray
    dealt: np.ndarray
    masked: np.ndarray
    width: np.ndarray
    gap: np.ndarray
    offset: np.ndarray
    timer: np.ndarray
    round: np.ndarray
    done: np.ndarray
    opponent: np.ndarray
    seed: np.ndarray
    t: np.ndarray

    @property
    def num_worlds(self) -> int:
        """``B``."""
        return self.x.shape[0]


def init_state(params: Params, num_worlds: int) -> State:
    """An empty batch; every world must be :func:`load`-ed before it is stepped."""
    pair = {f.name: np.zeros((num_worlds, 2), dtype=np.int64) for f in dataclasses.fields(State)}
    one = {name: np.zeros(num_worlds, dtype=np.int64) for name in ("width", "gap", "offset", "timer", "round", "t")}
    state = State(**{**pair, **one, "done": np.zeros(num_worlds, dtype=bool)})
    state.landed = np.zeros((num_worlds, 2), dtype=bool)
    state.proj = np.zeros((num_worlds, 2), dtype=bool)
    state.opponent = np.full(num_worlds, -1, dtype=np.int64)
    state.seed = np.zeros(num_worlds, dtype=np.uint64)
    state.move[:] = -1
    return state


def load(state: State, world: int, scenario: FightingScenario, params: Params) -> None:
    """Write ``scenario`` into world ``world``: a fresh match, round 1 about to start."""
    from benchmarkzoo.envs.multiagent.fighting.bots import BOTS

    state.char[world] = [CHARACTER_NAMES.index(c) for c in scenario.characters]
    state.max_health[world] = ch.HEALTH[state.char[world]]
    state.width[world] = scenario.stage_info.width
    state.gap[world], state.offset[world] = scenario.gap, scenario.offset
    state.meter[world] = scenario.meter
    state.wins[world] = state.dealt[world] = state.masked[world] = 0
    state.round[world] = 0
    state.done[world] = False
    state.opponent[world] = -1 if scenario.opponent is None else BOTS.index(scenario.opponent)
    state.seed[world] = np.uint64(scenario.seed)
    state.t[world] = 0
    _start_round(state, np.array([world]), params)


def _start_round(state: State, w: np.ndarray, params: Params) -> None:
    """Put worlds ``w``'s fighters at the start: health full, no move, no stun, no projectile."""
    centre = state.width[w] // 2 + state.offset[w]
    state.x[w, 0] = centre - state.gap[w] // 2
    state.x[w, 1] = centre + state.gap[w] // 2
    state.facing[w] = [1, -1]
    for name in ("y", "vx", "vy", "stun", "stun_kind", "hold", "proj_x", "proj_y", "proj_vx", "proj_slot"):
        getattr(state, name)[w] = 0
    state.stance[w] = STAND
    state.health[w] = state.max_health[w]
    state.move[w] = -1
    state.move_frame[w] = 0
    state.landed[w] = False
    state.proj[w] = False
    state.timer[w] = params.round_frames


def free(state: State) -> np.ndarray:
    """``(B, 2)`` bool: fighters who act on their input (no move running, no stun, match not over)."""
    return (state.move < 0) & (state.stun == 0) & ~state.done[:, None]


def action_masks(state: State) -> np.ndarray:
    """``(B, 2, A)`` int8, 1 = legal.

    A fighter that is not free (a move running, in stun, the match over) may only send 0 (neutral,
    no button): every other action would do the same. In the air the special, the throw and the
    super are masked; on the ground the special is masked while its projectile is on screen and
    the super below a full meter.
    """
    b = state.num_worlds
    grounded = state.stance != AIR
    slot_special = ch.PROJECTILE[state.char, ch.SPECIAL] > 0  # (B, 2) the special fires a projectile
    slot_super = ch.PROJECTILE[state.char, ch.SUPER] > 0
    button_ok = np.ones((b, 2, NUM_BUTTONS), dtype=bool)
    button_ok[:, :, SPECIAL] = grounded & ~(slot_special & state.proj)
    button_ok[:, :, THROW] = grounded
    button_ok[:, :, SUPER] = grounded & (state.meter >= ch.METER_MAX) & ~(slot_super & state.proj)
    mask = button_ok[:, :, ACTION_BUTTON]  # (B, 2, A)
    busy = ~free(state)
    mask[busy] = False
    mask[busy, 0] = True
    return mask.astype(np.int8)


def _start_moves(state: State, horizontal: np.ndarray, vertical: np.ndarray, button: np.ndarray) -> None:
    """Step 1 of a frame for the free fighters: a move pressed, or movement (module docstring)."""
    ok = free(state)
    if not ok.any():  # every fighter busy: only the held block matters
        state.hold[:] = np.where(state.stun_kind == BLOCK_STUN, state.hold, 0)
        return
    grounded = state.stance != AIR
    air = ok & ~grounded
    ground = ok & grounded
    slot = np.full(button.shape, -1, dtype=np.int64)
    normal = (button == LIGHT) | (button == HEAVY)
    heavy = (button == HEAVY).astype(np.int64)
    slot = np.where(ground & normal & (vertical < 0), ch.CROUCH_LIGHT + heavy, slot)
    slot = np.where(ground & normal & (vertical >= 0), ch.STAND_LIGHT + heavy, slot)
    slot = np.where(air & normal, ch.AIR_LIGHT + heavy, slot)
    slot = np.where(ground & (button == SPECIAL), ch.SPECIAL, slot)
    slot = np.where(ground & (button == THROW), ch.THROW_SLOT, slot)
    slot = np.where(ground & (button == SUPER), ch.SUPER, slot)
    pressing = slot >= 0
    if pressing.any():
        state.move[:] = np.where(pressing, slot, state.move)
        state.move_frame[:] = np.where(pressing, 0, state.move_frame)
        state.landed[:] = np.where(pressing, False, state.landed)
        supers = pressing & (slot == ch.SUPER)
        state.meter[:] = np.where(supers, 0, state.meter)
        crouching = ch.CROUCHING[state.char, np.maximum(slot, 0)]
        state.stance[:] = np.where(pressing & grounded, np.where(crouching, CROUCH, STAND), state.stance)
        state.vx[:] = np.where(pressing & grounded, 0, state.vx)
    moving = ground & ~pressing
    speed = np.where(horizontal > 0, ch.WALK[state.char], ch.BACK_WALK[state.char]) * horizontal
    jumping = moving & (vertical > 0)
    state.vx[:] = np.where(moving, np.where(vertical == 0, speed * state.facing, 0), state.vx)
    state.vx[:] = np.where(jumping, ch.JUMP_DRIFT[state.char] * horizontal * state.facing, state.vx)
    state.vy[:] = np.where(jumping, ch.JUMP_SPEED[state.char], state.vy)
    state.stance[:] = np.where(moving, np.where(jumping, AIR, np.where(vertical < 0, CROUCH, STAND)), state.stance)
    state.hold[:] = np.where(ok, horizontal * 3 + vertical, np.where(state.stun_kind == BLOCK_STUN, state.hold, 0))


def _advance_moves(state: State) -> None:
    """Step 2: running moves advance a frame; advancing moves carry their fighter; projectiles fire."""
    running = state.move >= 0
    if not running.any():
        return
    state.move_frame += running
    row = ch.MOVE_TABLE[state.char, np.maximum(state.move, 0)]  # (B, 2, K): the running moves' frame data
    startup, active = row[..., ch.F_STARTUP], row[..., ch.F_ACTIVE]
    ended = running & (state.move_frame > row[..., ch.F_TOTAL])
    state.move[:] = np.where(ended, -1, state.move)
    running &= ~ended
    grounded = state.stance != AIR
    advance = row[..., ch.F_ADVANCE]
    carried = running & grounded & (advance > 0)
    if carried.any():
        pushing = carried & (state.move_frame <= startup + active) & (state.stun == 0)
        state.vx[:] = np.where(pushing, advance * state.facing, state.vx)
        state.vx[:] = np.where(carried & (state.move_frame == startup + active + 1), 0, state.vx)
    speed = row[..., ch.F_PROJECTILE]
    fires = running & (state.move_frame == startup + 1) & (speed > 0) & ~state.proj
    if fires.any():
        state.proj |= fires
        state.proj_x[:] = np.where(fires, state.x + state.facing * row[..., ch.F_REACH], state.proj_x)
        state.proj_y[:] = np.where(fires, state.y + 600, state.proj_y)  # chest high: crouching does not duck it
        state.proj_vx[:] = np.where(fires, speed * state.facing, state.proj_vx)
        state.proj_slot[:] = np.where(fires, state.move, state.proj_slot)
        state.landed |= fires  # the move's own hit box is the projectile


def _physics(state: State) -> None:
    """Step 3: velocities, gravity and landing, friction, walls, push boxes, facing."""
    airborne = state.stance == AIR
    state.x += state.vx
    state.y += np.where(airborne, state.vy, 0)
    state.vy -= np.where(airborne, ch.GRAVITY, 0)
    landing = airborne & (state.y <= 0)
    if landing.any():
        state.y[landing] = 0
        state.vy[landing] = 0
        state.vx[landing] = 0
        state.stance[landing] = STAND
        in_air_move = landing & ((state.move == ch.AIR_LIGHT) | (state.move == ch.AIR_HEAVY))
        state.move[in_air_move] = -1
    sliding = ~airborne & (state.stun > 0)
    state.vx[:] = np.where(sliding, np.sign(state.vx) * (np.abs(state.vx) * 3 // 4), state.vx)
    low, high = ch.HALF_WIDTH, state.width[:, None] - ch.HALF_WIDTH
    np.clip(state.x, low, high, out=state.x)
    _separate(state)
    grounded_free = free(state) & (state.stance != AIR)
    toward = np.sign(state.x[:, ::-1] - state.x)  # (B, 2)
    state.facing[:] = np.where(grounded_free & (toward != 0), toward, state.facing)


def _separate(state: State) -> None:
    """Push overlapping fighters apart: half the overlap each (rounded up); what a wall refuses, the other takes."""
    dx = state.x[:, 1] - state.x[:, 0]
    level = np.abs(state.y[:, 0] - state.y[:, 1]) < ch.CROUCH_HEIGHT
    overlap = np.where(level, 2 * ch.HALF_WIDTH - np.abs(dx), 0)
    w = np.flatnonzero(overlap > 0)
    if not w.size:
        return
    # which way seat 0 goes (+1 right): away from seat 1; level with it, the way it does not face
    side = np.where(dx[w] != 0, -np.sign(dx[w]), -state.facing[w, 0])
    half = (overlap[w] + 1) // 2  # rounded up for both: the same rule for each seat keeps mirrors exact
    high = state.width[w] - ch.HALF_WIDTH
    want0, want1 = state.x[w, 0] + side * half, state.x[w, 1] - side * half
    x0, x1 = np.clip(want0, ch.HALF_WIDTH, high), np.clip(want1, ch.HALF_WIDTH, high)
    state.x[w, 0] = np.clip(x0 + side * np.abs(want1 - x1), ch.HALF_WIDTH, high)
    state.x[w, 1] = np.clip(x1 - side * np.abs(want0 - x0), ch.HALF_WIDTH, high)


def _hurt_boxes(state: State, row: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(B, 2)`` hurt boxes ``x0, x1, y0, y1`` and whether each fighter can be hit (not invulnerable).

    ``row`` is ``(B, 2, K)``, the running moves' rows of :data:`~.characters.MOVE_TABLE`.
    """
    height = np.where(state.stance == AIR, ch.AIR_HEIGHT, np.where(state.stance == CROUCH, ch.CROUCH_HEIGHT, 0))
    height = np.where(height == 0, ch.STAND_HEIGHT, height)
    invulnerable = (state.move >= 0) & (state.move_frame <= row[..., ch.F_INVULNERABLE])
    return state.x - ch.HALF_WIDTH, state.x + ch.HALF_WIDTH, state.y, state.y + height, ~invulnerable


def _overlap(a0, a1, b0, b1) -> np.ndarray:
    return (a0 < b1) & (b0 < a1)


def _blocks(state: State, level: np.ndarray, d: int) -> np.ndarray:
    """``(B,)`` bool: defender ``d`` blocks an attack of ``level`` (``(B,)``)."""
    blocking = ((state.move[:, d] < 0) & (state.stun[:, d] == 0)) | (state.stun_kind[:, d] == BLOCK_STUN)
    blocking &= (state.stance[:, d] != AIR) & ~state.done
    standing = blocking & (state.hold[:, d] == -3)  # back
    crouching = blocking & (state.hold[:, d] == -4)  # down-back
    return np.where(
        level == ch.MID,
        standing | crouching,
        np.where(level == ch.LOW, crouching, np.where(level == ch.HIGH, standing, False)),
    )


def _hits(state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step 4's detection: ``(B, 2)`` bool melee hits and projectile hits by each seat, and the slot hitting."""
    slot = np.maximum(state.move, 0)
    row = ch.MOVE_TABLE[state.char, slot]  # (B, 2, K)
    hx0, hx1, hy0, hy1, hittable = _hurt_boxes(state, row)
    startup, active = row[..., ch.F_STARTUP], row[..., ch.F_ACTIVE]
    live = (state.move >= 0) & ~state.landed & (state.move_frame > startup) & (state.move_frame <= startup + active)
    near, reach = row[..., ch.F_NEAR], row[..., ch.F_REACH]
    bx0 = np.where(state.facing > 0, state.x + near, state.x - reach)
    bx1 = np.where(state.facing > 0, state.x + reach, state.x - near)
    by0, by1 = state.y + row[..., ch.F_LOW], state.y + row[..., ch.F_HIGH]
    melee = np.zeros_like(live)
    shot = np.zeros_like(live)
    for a in (0, 1):
        d = 1 - a
        melee[:, a] = live[:, a] & hittable[:, d] & _overlap(bx0[:, a], bx1[:, a], hx0[:, d], hx1[:, d])
        melee[:, a] &= _overlap(by0[:, a], by1[:, a], hy0[:, d], hy1[:, d])
        throw = row[:, a, ch.F_LEVEL] == ch.THROW
        catchable = (state.stance[:, d] != AIR) & (state.stun[:, d] == 0)
        melee[:, a] &= ~throw | catchable
        px0, px1 = state.proj_x[:, a] - ch.PROJECTILE_HALF_WIDTH, state.proj_x[:, a] + ch.PROJECTILE_HALF_WIDTH
        shot[:, a] = state.proj[:, a] & hittable[:, d] & _overlap(px0, px1, hx0[:, d], hx1[:, d])
        shot[:, a] &= _overlap(state.proj_y[:, a], state.proj_y[:, a] + ch.PROJECTILE_HEIGHT, hy0[:, d], hy1[:, d])
    return melee, shot, slot


def _apply_hits(state: State) -> np.ndarray:
    """Step 4: apply both seats' hits at once; returns ``(B, 2)`` damage taken by each seat."""
    if not ((state.move >= 0) & ~state.landed).any() and not state.proj.any():  # nothing can hit: most frames
        return np.zeros_like(state.health)
    melee, shot, slot = _hits(state)
    hit_slot = np.where(shot, state.proj_slot, slot)  # a fighter's projectile and melee never both land at once
    landing = melee | shot
    taken = np.zeros_like(state.health)
    if not landing.any():
        return taken
    stun, kind, push = np.zeros_like(taken), np.zeros_like(taken), np.zeros_like(taken)
    gain = np.zeros_like(taken)
    rows = ch.MOVE_TABLE[state.char, hit_slot]  # (B, 2, K): the landing moves' rows
    for a in (0, 1):
        d = 1 - a
        row = rows[:, a]
        blocked = landing[:, a] & _blocks(state, row[:, ch.F_LEVEL], d)
        clean = landing[:, a] & ~blocked
        full = row[:, ch.F_DAMAGE]
        damage = np.where(clean, full, np.where(blocked, row[:, ch.F_CHIP], 0))
        taken[:, d] = np.minimum(damage, state.health[:, d])
        stun[:, d] = np.where(clean, row[:, ch.F_HITSTUN], np.where(blocked, row[:, ch.F_BLOCKSTUN], 0))
        kind[:, d] = np.where(clean, HIT_STUN, np.where(blocked, BLOCK_STUN, NO_STUN))
        away = np.where(shot[:, a], np.sign(state.proj_vx[:, a]), state.facing[:, a])
        knockback = row[:, ch.F_KNOCKBACK]
        push[:, d] = np.where(clean, knockback, np.where(blocked, knockback // 2, 0)) * away
        gain[:, a] += np.where(clean, full, np.where(blocked, full // 2, 0))
        gain[:, d] += np.where(landing[:, a], full // 2, 0)
    hurt = kind != NO_STUN
    state.health -= taken
    state.dealt += taken[:, ::-1]
    state.meter[:] = np.minimum(state.meter + gain, ch.METER_MAX)
    state.stun[:] = np.where(hurt, stun, state.stun)
    state.stun_kind[:] = np.where(hurt, kind, state.stun_kind)
    state.vx[:] = np.where(hurt, push, state.vx)
    cancelled = kind == HIT_STUN
    state.move[:] = np.where(cancelled, -1, state.move)
    state.stance[:] = np.where(cancelled & (state.stance == CROUCH), STAND, state.stance)
    state.landed |= melee
    state.proj &= ~shot
    return taken


def _projectiles(state: State) -> None:
    """Projectiles fly; they leave at the walls; two that meet cancel."""
    if not state.proj.any():
        return
    state.proj_x += np.where(state.proj, state.proj_vx, 0)
    gone = (state.proj_x < 0) | (state.proj_x > state.width[:, None])
    state.proj &= ~gone
    both = state.proj[:, 0] & state.proj[:, 1]
    meet = both & (np.abs(state.proj_x[:, 0] - state.proj_x[:, 1]) < 2 * ch.PROJECTILE_HALF_WIDTH)
    state.proj[meet] = False


def _rounds(state: State, params: Params) -> np.ndarray:
    """Step 5: end rounds by KO or time, start the next, end matches; returns ``(B,)`` +1/-1/0 for seat 0's rounds."""
    playing = ~state.done
    state.timer -= playing
    ko = playing & (state.health <= 0).any(axis=1)
    over = ko | (playing & (state.timer <= 0))
    result = np.zeros(state.num_worlds, dtype=np.int64)
    if not over.any():
        return result
    left = state.health * state.max_health[:, ::-1]  # compare health fractions exactly: h0/m0 vs h1/m1
    result = np.where(over, np.sign(left[:, 0] - left[:, 1]), 0)
    state.wins[:, 0] += result > 0
    state.wins[:, 1] += result < 0
    state.round += over
    finished = over & ((state.wins.max(axis=1) >= params.rounds_to_win) | (state.round >= params.max_rounds))
    state.done |= finished
    _freeze(state, finished)
    next_round = np.flatnonzero(over & ~finished)
    if next_round.size:
        _start_round(state, next_round, params)
    return result


def _freeze(state: State, w: np.ndarray) -> None:
    """A finished match stands still: no move, stun or projectile, both fighters on the floor."""
    for name in ("y", "vx", "vy", "stun", "stun_kind"):
        getattr(state, name)[w] = 0
    state.move[w] = -1
    state.stance[w] = STAND
    state.proj[w] = False


def frame(state: State, actions: np.ndarray, press: bool, params: Params) -> np.ndarray:
    """One frame of every world; ``actions`` ``(B, 2)`` int64, legal (masked ones replaced by 0).

    Args:
        state: stepped in place.
        actions: each seat's action; its direction is held, its button pressed only if ``press``.
        press: the first frame of an env step.
        params: the env's constants.

    Returns:
        ``(B,)`` float64: seat 0's reward of the frame (seat 1's is its negative).
    """
    playing = ~state.done
    horizontal, vertical = ACTION_H[actions], ACTION_V[actions]
    button = ACTION_BUTTON[actions] if press else np.zeros_like(actions)
    state.stun[:] = np.maximum(state.stun - playing[:, None], 0)
    state.stun_kind[:] = np.where(state.stun > 0, state.stun_kind, NO_STUN)
    _start_moves(state, horizontal * playing[:, None], vertical * playing[:, None], button * playing[:, None])
    _advance_moves(state)
    _physics(state)
    taken = _apply_hits(state)
    _projectiles(state)
    state.t += playing
    damage = taken / state.max_health  # (B, 2) fractions of each seat's bar
    rounds = _rounds(state, params)
    return (damage[:, 1] - damage[:, 0]) + params.round_reward * rounds


def step(state: State, actions: np.ndarray, params: Params) -> np.ndarray:
    """One env step (``frame_skip`` frames) of every world; returns seat 0's ``(B,)`` float64 reward."""
    reward = np.zeros(state.num_worlds)
    for k in range(params.frame_skip):
        reward += frame(state, actions, k == 0, params)
    return reward


def observe(state: State, params: Params) -> np.ndarray:
    """``(B, 2, OBS_SIZE)`` float32, each seat's view: itself first, mirrored so forward is +x for seat 0's view.

    Seat 1 sees the stage mirrored (``x -> width - x``, velocities and facing negated), so a
    world and its mirror image with the seats swapped give the seats each other's observations.
    Per fighter (:data:`FIGHTER_FEATURES`, 32): x / max width, y / 2000, vx / 100, vy / 120,
    facing, stance one-hot (3), health fraction, meter / 1000, stun / 30, block-stun, move slot
    one-hot (9; none: zeros), move phase one-hot (startup, active, recovery), frames into the
    move / 60, character one-hot (3), rounds won / rounds to win, projectile (on screen, x / max
    width, vx / 120). Then the round timer as a fraction and the rounds played / max rounds.
    Velocities are clipped to [-1, 1].
    """
    n = FIGHTER_FEATURES
    f = _fighter_features(state, params)  # (B, 2, n), seat 0's side of the mirror
    mirrored = f.copy()
    width = state.width[:, None]
    mirrored[:, :, 0] = (width - state.x) / MAX_WIDTH
    mirrored[:, :, [2, 4, 31]] = -f[:, :, [2, 4, 31]]
    mirrored[:, :, 30] = np.where(state.proj, np.clip((width - state.proj_x) / MAX_WIDTH, 0, 1), 0)
    out = np.empty((state.num_worlds, 2, OBS_SIZE), dtype=np.float32)
    out[:, 0, :n], out[:, 0, n : 2 * n] = f[:, 0], f[:, 1]
    out[:, 1, :n], out[:, 1, n : 2 * n] = mirrored[:, 1], mirrored[:, 0]
    out[:, :, 2 * n] = (state.timer / params.round_frames)[:, None]
    out[:, :, 2 * n + 1] = (state.round / params.max_rounds)[:, None]
    return out


def _fighter_features(state: State, params: Params) -> np.ndarray:
    """``(B, 2, FIGHTER_FEATURES)`` float64 features of both seats, unmirrored (see :func:`observe`)."""
    b = state.num_worlds
    f = np.zeros((b, 2, FIGHTER_FEATURES))
    rows, seats = np.arange(b)[:, None], np.arange(2)[None, :]
    f[:, :, 0] = state.x / MAX_WIDTH
    f[:, :, 1] = state.y / 2000
    f[:, :, 2] = np.clip(state.vx / 100, -1, 1)
    f[:, :, 3] = np.clip(state.vy / 120, -1, 1)
    f[:, :, 4] = state.facing
    f[rows, seats, 5 + state.stance] = 1.0
    f[:, :, 8] = state.health / state.max_health
    f[:, :, 9] = state.meter / ch.METER_MAX
    f[:, :, 10] = np.minimum(state.stun / 30, 1)
    f[:, :, 11] = state.stun_kind == BLOCK_STUN
    running = state.move >= 0
    slot = np.maximum(state.move, 0)
    startup, active = ch.STARTUP[state.char, slot], ch.ACTIVE[state.char, slot]
    phase = np.where(state.move_frame <= startup, 0, np.where(state.move_frame <= startup + active, 1, 2))
    f[rows, seats, 12 + slot] = running
    f[rows, seats, 21 + phase] = running
    f[:, :, 24] = np.where(running, np.minimum(state.move_frame / 60, 1), 0)
    f[rows, seats, 25 + state.char] = 1.0
    f[:, :, 28] = state.wins / params.rounds_to_win
    f[:, :, 29] = state.proj
    f[:, :, 30] = np.where(state.proj, np.clip(state.proj_x / MAX_WIDTH, 0, 1), 0)
    f[:, :, 31] = np.where(state.proj, np.clip(state.proj_vx / 120, -1, 1), 0)
    return f


def episode_metrics(state: State) -> dict[str, np.ndarray]:
    """``(B,)`` arrays of each match so far, seat 0's view: rounds won and lost, damage dealt, masked actions."""
    return {
        "rounds_won": state.wins[:, 0].astype(np.float64),
        "rounds_lost": state.wins[:, 1].astype(np.float64),
        "won": (state.wins[:, 0] > state.wins[:, 1]).astype(np.float64),
        "masked_actions": state.masked[:, 0].astype(np.float64),
    }
